//! Lacuna's facts about a Python project, computed from the syntax layer: the database, the
//! branch and MC/DC models, the agent that runs user code, exploration, explanation and the
//! emission of pytest files. No editor protocol types live here.

pub mod agent;
pub mod config;
pub mod db;
pub mod diagnostic;
pub mod emit;
pub mod exclusions;
pub mod explain;
pub mod explore;
pub mod generation;
pub mod guidance;
pub mod imports;
pub mod invariants;
pub mod model;
pub mod sandbox;
pub mod suite;
pub mod suppression;
pub mod suspicious;
pub mod symbolic;
pub mod workspace;
