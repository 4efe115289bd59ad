//! The static model of one function: its decisions and branch sides, and the MC/DC obligations
//! the configuration asks for. Built from the function's position-independent syntax only.

use super::mcdc::McdcTable;
use crate::config::Mcdc;
use lacuna_grammar::{Decision, DecisionId, FunctionSyntax, ThinVec, Unmodelled};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionModel {
    pub decisions: usize,
    pub branch_sides: usize,
    /// Branch sides a coverage exclusion left out (`# pragma: no cover`): not in
    /// `branch_sides`.
    pub excluded_sides: usize,
    pub conditions: usize,
    /// `except` clauses (`FunctionSyntax::handlers`): no branch sides, entered or not.
    pub handlers: usize,
    /// (decision, condition, value) triples counted under the configuration.
    pub obligations: usize,
    /// Decisions present in the source that have no boolean model.
    pub unmodelled: ThinVec<(DecisionId, Unmodelled)>,
    /// The MC/DC table of each decision, in the order of `FunctionSyntax::decisions`; `None`
    /// for unmodelled decisions and loops.
    pub tables: ThinVec<Option<McdcTable>>,
}

impl FunctionModel {
    pub fn new(syntax: &FunctionSyntax, mcdc: &Mcdc) -> Self {
        let decisions = &syntax.decisions;
        FunctionModel {
            decisions: decisions.len(),
            branch_sides: syntax.branch_count(),
            excluded_sides: syntax.excluded_sides as usize,
            // Module and class-body code is never explored: its clauses are no one's goal.
            handlers: match syntax.kind {
                lacuna_grammar::FunctionKind::Def => syntax.handlers.len(),
                _ => 0,
            },
            // A loop's one condition ("another item") is no boolean condition of MC/DC.
            conditions: decisions
                .iter()
                .filter(|d| !d.kind.is_loop())
                .map(|d| d.conditions.len())
                .sum(),
            obligations: decisions
                .iter()
                .filter(|d| has_obligations(d, mcdc))
                .map(Decision::obligation_count)
                .sum(),
            unmodelled: decisions
                .iter()
                .filter_map(|d| Some((d.id.clone(), d.unmodelled.clone()?)))
                .collect(),
            tables: decisions
                .iter()
                .map(|d| {
                    d.expr
                        .as_ref()
                        .filter(|_| !d.kind.is_loop())
                        .map(McdcTable::new)
                })
                .collect(),
        }
    }
}

/// Whether MC/DC obligations are tracked for `decision` under the configuration: MC/DC is on,
/// the decision is modelled, it is no loop (a `for` tests no boolean), and it has two
/// conditions or more (or single-condition decisions were asked for).
pub fn has_obligations(decision: &Decision, mcdc: &Mcdc) -> bool {
    mcdc.enabled
        && decision.expr.is_some()
        && !decision.kind.is_loop()
        && (decision.conditions.len() >= 2
            || (mcdc.single_condition && !decision.conditions.is_empty()))
}
