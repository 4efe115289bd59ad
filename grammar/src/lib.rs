//! Lacuna's syntax layer: parses Python with tree-sitter and exposes a typed, read-only view of
//! a module (imports, classes, functions, call sites, asserts, loops, decisions).
//!
//! This crate knows nothing of the database, the agent or the editor protocol.

pub mod decision;
pub mod ids;
pub mod syntax;
pub mod text;

pub use decision::{
    BoolExpr, BranchSide, Condition, Decision, DecisionKind, MAX_CONDITIONS, Unmodelled,
};
pub use ids::{BranchSideId, ConditionId, DecisionId, FunctionId};
pub use syntax::*;
pub use text::{Anchor, LineCol, LineIndex, TextRange};

mod lower;

pub use lower::{PreviousParse, parse, parse_after};
