//! Exploration: dynamic symbolic execution of one function at a time. The solver answers
//! "which inputs take this path, with this condition flipped?"; the search (frontier, targets,
//! budgets) and object construction build on it.

pub mod answer;
pub mod coverage;
pub mod exploration;
pub mod inputs;
pub mod isolated;
pub mod mutate;
pub mod ranges;
pub mod regex;
pub mod rng;
pub mod search;
pub mod seeds;
pub mod shape;
pub mod signature;
pub mod smt;
pub mod solve_query;
pub mod solver;
pub mod value;
pub mod z3_session;
