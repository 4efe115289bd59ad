//! Emission: generated inputs as ordinary pytest files the project owns — readable literal
//! arguments, objects built through their constructors and methods, a regression assertion on
//! the return value or `pytest.raises` for an exception, deterministic names and order.

mod python;
mod verify;

pub use python::{TestFile, module_tests};
pub use verify::{Verification, verify};
