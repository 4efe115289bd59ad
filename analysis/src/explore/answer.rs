//! What a solver answers: a model (a value for each variable), unsatisfiable, unknown with
//! z3's reason, or unsupported operations — the same whether z3 answered in this process or in
//! `lacuna solve-query`.

use super::value::ModelValue;
use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Model {
    pub values: FxHashMap<Arc<str>, ModelValue>,
}

/// Why a query asked when the exploration's time is up has no answer.
pub(crate) const BUDGET_OVER: &str = "the function's time budget ran out";

#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Sat(Model),
    Unsat,
    /// z3 gave up (timeout, incompleteness): its reason.
    Unknown(String),
    /// The assertions use operations the solver does not model.
    Unsupported(Vec<Arc<str>>),
}

impl Answer {
    pub fn model(&self) -> Option<&Model> {
        match self {
            Answer::Sat(m) => Some(m),
            _ => None,
        }
    }
}
