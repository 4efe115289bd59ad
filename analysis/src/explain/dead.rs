//! Dead branch sides: the sides z3 proves no input reaches, from the source alone (`LCN106`),
//! with what a witness search needs to refute the claim.

use super::{Explanation, infeasible, reading};
use crate::diagnostic::evidence::{DeadProof, Fact, GuardSide};
use crate::diagnostic::{Cause, Related};
use crate::explore::coverage::FunctionUnderTest;

/// A branch side proven dead from the source alone, as `LCN106` claims it: the decision and
/// side, the guards (decision, side) the proof used, and the names it read with the values
/// their reading allows. What a witness search checks.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadSide {
    pub decision: usize,
    pub outcome: bool,
    pub guards: Vec<(usize, bool)>,
    pub names: Vec<(String, reading::Reading)>,
}

/// Every branch side of `f` proven dead from its source, whatever was explored.
pub fn dead_sides(f: &FunctionUnderTest) -> Vec<DeadSide> {
    let mut solver = None;
    let mut out = vec![];
    for (d, decision) in f.syntax.decisions.iter().enumerate() {
        if decision.expr.is_none() {
            continue;
        }
        for outcome in [true, false] {
            if let Some(proof) = infeasible::prove_dead(f, d, outcome, &mut solver) {
                out.push(DeadSide {
                    decision: d,
                    outcome,
                    guards: proof.guards,
                    names: proof.names,
                });
            }
        }
    }
    out
}

/// A side z3 proved dead, with the guards the proof used.
pub(super) fn dead(
    f: &FunctionUnderTest,
    d: usize,
    outcome: bool,
    proof: &infeasible::Proof,
) -> Explanation {
    let decision = &f.syntax.decisions[d];
    let text = |dec: &lacuna_grammar::Decision| {
        let r = dec.range.absolute(f.anchor);
        f.text
            .get(r.start as usize..r.end as usize)
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let needed = |dec: &lacuna_grammar::Decision, side: bool| {
        if side {
            format!("`{}`", text(dec))
        } else {
            format!("`not ({})`", text(dec))
        }
    };
    let mut e = if proof.guards.is_empty() {
        Explanation::new(
            Cause::Infeasible,
            format!("dead: {} can never hold", needed(decision, outcome)),
            Fact::Dead(DeadProof { guards: vec![] }),
        )
    } else {
        let guards: Vec<String> = proof
            .guards
            .iter()
            .map(|&(g, side)| {
                let line = f
                    .lines
                    .line_col(f.syntax.decisions[g].range.absolute(f.anchor).start)
                    .line
                    + 1;
                format!("{} (line {line})", needed(&f.syntax.decisions[g], side))
            })
            .collect();
        Explanation::new(
            Cause::Infeasible,
            format!(
                "dead: {} cannot hold where {}",
                needed(decision, outcome),
                guards.join(" and ")
            ),
            Fact::Dead(DeadProof {
                guards: proof
                    .guards
                    .iter()
                    .map(|&(g, side)| GuardSide {
                        decision: f.syntax.decisions[g].id.as_str().to_owned(),
                        side,
                    })
                    .collect(),
            }),
        )
    };
    for &(g, _) in &proof.guards {
        e.related.push(Related {
            path: None,
            range: f.syntax.decisions[g].range.absolute(f.anchor),
            message: "the guard the proof uses".into(),
        });
    }
    e
}
