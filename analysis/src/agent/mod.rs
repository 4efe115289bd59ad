//! The agent: CPython processes that run the project's code on generated inputs, in a sandbox,
//! and report what happened. This module embeds the agent's Python source, finds the project's
//! interpreter, and manages a pool of workers that speak the JSON-lines protocol.

pub mod description;
pub mod embed;
pub mod interpreter;
pub mod literal;
pub mod pool;
pub mod protocol;
pub mod state;
pub mod worker;

pub use pool::{Pinned, Pool};
pub use protocol::{Event, ExecuteRequest, Execution, Status, Value, ValueTree};
pub use worker::{WorkerError, WorkerSpec};
