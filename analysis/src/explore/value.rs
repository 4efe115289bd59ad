//! The concrete value of one input variable: what a solver's model gives a variable, what a
//! candidate input sets, what a default or a literal seeds. Plain data: no solver, no agent.

/// A concrete value for a variable (`x`, `order.__init__.qty`, `$mock:0[1]`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ModelValue {
    /// Decimal digits (Python ints are unbounded).
    Int(String),
    Bool(bool),
    Str(String),
    Real(#[serde(with = "crate::agent::protocol::stored_float")] f64),
}
