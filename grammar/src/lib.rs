//! Lacuna's syntax layer: parses Python with tree-sitter and exposes a typed, read-only view of
//! a module (imports, classes, functions, call sites, asserts, loops, decisions).
//!
//! This crate knows nothing of the database, the agent or the editor protocol.

pub mod decision;
pub mod flow;
pub mod ids;
pub mod mangling;
pub mod syntax;
pub mod text;

/// The short texts of the syntax (names, callees, annotations): held inline up to 24 bytes, so
/// the hundreds of thousands of them a project has cost no allocation each.
pub use compact_str::CompactString;
pub use decision::{
    BoolExpr, BranchSide, Condition, Decision, DecisionKind, FieldTest, MAX_CONDITIONS, Unmodelled,
};
pub use flow::{
    Arithmetic, CompareOp, FunctionFlow, ModuleFlow, NameRead, Operand, ScopedName, Statement,
    Store, StoreKind, Test,
};
pub use ids::{BranchSideId, ConditionId, DecisionId, FunctionId};
pub use syntax::*;
pub use text::{Anchor, LineCol, LineIndex, TextRange};
/// The lists of a function's syntax: most are empty, and an empty `ThinVec` is one pointer.
pub use thin_vec::ThinVec;

mod lower;

pub use lower::outline::{
    FinalReturn, FromImport, Outline, OutlineCall, OutlineClass, OutlineDecorator, OutlineFunction,
    outline,
};
pub use lower::{
    MAX_SEED_STRING, PART_BYTES, PreviousParse, flow, parse, parse_after, parse_in_parts, seeds,
};
