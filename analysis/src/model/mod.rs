//! Models derived from syntax: per-function branch/decision/obligation facts, call resolution
//! for fingerprints, and (in submodules) MC/DC tables and class models.

pub mod calls;
pub mod class;
pub mod function;
pub mod mcdc;
