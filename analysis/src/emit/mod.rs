//! Emission: generated inputs as ordinary pytest files the project owns — readable literal
//! arguments, objects built through their constructors and methods, regression assertions on
//! the return value (equal to a literal or a rebuilt standard-library value, else its type and
//! public fields) or `pytest.raises` for an exception, deterministic names and order.

mod project;
mod python;
mod verify;

pub use project::{Emitted, Explored, KeptTests, emit_project, write_support};
pub use python::{
    AssertionSite, EMITTED_MARKER, EmittedTest, FunctionTests, NotEmitted, Reads, TestFile,
    call_of, module_tests,
};
pub use verify::{Verification, verify};
