//! The language of symbolic expressions: what the agent records for every condition it sees
//! and what the solver reads. One JSON form on the wire (`["op", arg, ...]`), one Rust type here.
//!
//! Variables name where a value comes from, so that later stages can tell inputs the generator
//! controls from values it cannot control (see [`VarPath`]).

mod expr;
mod path;
mod python;

pub use expr::{Expr, ExprError, Op, Sort};
pub use path::{PathStep, VarPath, VarRoot};
pub use python::python_str_literal;
