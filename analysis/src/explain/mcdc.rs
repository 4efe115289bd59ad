//! MC/DC obligations the generated tests leave unmet (Whalen et al.'s masking MC/DC, tracked
//! by the search from the agent's condition events through the static tables): for each
//! (decision, condition, value) not shown, a condition vector that would show it — found by
//! running the marking function over the decision's evaluations in short-circuit order — or a
//! proof that none can: z3 finds every such vector unsatisfiable over the conditions' recorded
//! expressions (`n >= 10 and n > 0`: `n > 0` false needs `n >= 10` true and `n <= 0`).

use super::external::ExternalKind;
use super::reading::Reading;
use crate::config::Mcdc;
use crate::diagnostic::evidence::{
    Fact, ObligationCause, ObligationKind, ReturnOf, ShownCondition, UnmetObligation,
    VectorCondition,
};
use crate::diagnostic::{Cause, Code, Diagnostic, Evidence};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::Exploration;
use crate::explore::solver::{Answer, Solver};
use crate::model::function::has_obligations;
use crate::model::mcdc::{Independence, McdcTable, Obligation, obligations};
use crate::symbolic::{Expr, VarPath, VarRoot};
use lacuna_grammar::{BoolExpr, Decision};

/// Conditions beyond which vectors are not enumerated (2^n evaluations).
const MAX_ENUMERATED: usize = 16;

/// The obligations of one decision.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionObligations {
    pub decision: usize,
    pub covered: usize,
    pub total: usize,
    pub missing: Vec<MissingObligation>,
    /// The evaluations observed, as (condition, value) sequences, for hover tables.
    pub shown: Independence,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MissingObligation {
    pub obligation: Obligation,
    /// The evaluated conditions of a vector that would show it (short-circuited ones left out).
    pub vector: Option<Vec<(u16, bool)>>,
    /// Every vector that would show it is unsatisfiable.
    pub infeasible: bool,
}

/// The obligations of every decision of `f` that has any under the configuration.
pub fn decisions(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    mcdc: &Mcdc,
    solver: &mut Option<Solver>,
) -> Vec<DecisionObligations> {
    let mut out = vec![];
    for (d, decision) in f.syntax.decisions.iter().enumerate() {
        let (Some(expr), Some(Some(table))) = (&decision.expr, f.tables.get(d)) else {
            continue;
        };
        if !has_obligations(decision, mcdc) {
            continue;
        }
        let shown = exploration
            .independence
            .get(&d)
            .copied()
            .unwrap_or_default();
        let total = decision.obligation_count();
        let missing = obligations(decision.conditions.len())
            .filter(|o| !shown.contains(*o))
            .map(|o| {
                let vectors = vectors(expr, table, decision.conditions.len(), o);
                let infeasible = exploration.reached.contains(&d)
                    && !vectors.is_empty()
                    && proven_infeasible(f, exploration, d, &vectors, solver);
                MissingObligation {
                    obligation: o,
                    vector: vectors.into_iter().next(),
                    infeasible,
                }
            })
            .collect::<Vec<_>>();
        out.push(DecisionObligations {
            decision: d,
            covered: total - missing.len(),
            total,
            missing,
            shown,
        });
    }
    out
}

/// Every short-circuit evaluation of the decision that shows `o`, as the (condition, value)
/// pairs evaluated; distinct and in the order found (fewest conditions first).
fn vectors(expr: &BoolExpr, table: &McdcTable, n: usize, o: Obligation) -> Vec<Vec<(u16, bool)>> {
    if n > MAX_ENUMERATED {
        return vec![];
    }
    let mut out: Vec<Vec<(u16, bool)>> = vec![];
    for bits in 0u32..(1 << n) {
        let mut evaluated = vec![];
        expr.evaluate(&mut |c| {
            let v = bits & (1 << c) != 0;
            evaluated.push((c, v));
            v
        });
        if table.mark(&evaluated).contains(o) && !out.contains(&evaluated) {
            out.push(evaluated);
        }
    }
    out.sort_by_key(Vec::len);
    out
}

/// Whether z3 refutes every vector over the conditions' recorded expressions. Claimed only
/// when each condition of a vector was seen with an expression over parameters that the
/// function never assigns, so that the expression is the condition on every path.
fn proven_infeasible(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    d: usize,
    vectors: &[Vec<(u16, bool)>],
    solver: &mut Option<Solver>,
) -> bool {
    let solver = solver.get_or_insert_with(|| Solver::new(2_000));
    let conditions = &f.syntax.decisions[d].conditions;
    vectors.iter().all(|vector| {
        // A literal (`"ORDER"` in `prefix or "ORDER"`) has one truth value.
        let constant_contradicted = vector
            .iter()
            .any(|&(c, v)| conditions.get(c as usize).and_then(|c| c.literal) == Some(!v));
        if constant_contradicted {
            return true;
        }
        let mut assertions = vec![];
        for &(c, v) in vector {
            let Some(expr) = exploration
                .conditions
                .get(&(d, c))
                .and_then(|s| s.expr.clone())
            else {
                return false;
            };
            if !stable(f, &expr) {
                return false;
            }
            assertions.push(if v { expr } else { expr.negate() });
        }
        solver.check(&assertions) == Answer::Unsat
    })
}

/// An expression over parameters the function never rebinds, each annotated with a type the
/// recorded expression models exactly: an unannotated parameter is any object (the type the
/// generator happened to give it proves nothing), and a float may be NaN, which the solver's
/// reals are not.
fn stable(f: &FunctionUnderTest, expr: &Expr) -> bool {
    let mut ok = true;
    expr.for_each_var(&mut |name, _| {
        let param = VarPath::parse(name).and_then(|p| match p.root {
            VarRoot::Param(root) if p.steps.is_empty() => Some(root),
            _ => None,
        });
        ok &= param.is_some_and(|p| {
            let exact = f
                .syntax
                .params
                .iter()
                .find(|q| q.name == p)
                .and_then(|q| q.annotation.as_deref())
                .and_then(super::reading::annotation)
                .is_some_and(|r| matches!(r, Reading::Int | Reading::Text));
            exact && !f.syntax.binds(&p, None)
        });
    });
    ok
}

/// Renders a vector: ``a > 10 true, b < 3 false``.
fn describe(decision: &Decision, vector: &[(u16, bool)]) -> String {
    vector
        .iter()
        .map(|&(c, v)| {
            let text = decision
                .conditions
                .get(c as usize)
                .map_or("?", |c| c.text.as_str());
            format!("`{text}` {v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What an obligation depends on that no input controls, when its conditions say so.
fn blocked_by(
    exploration: &Exploration,
    d: usize,
    c: u16,
) -> Option<(String, ExternalKind, Option<String>)> {
    let expr = exploration.conditions.get(&(d, c))?.expr.as_ref()?;
    let mut found = None;
    expr.for_each_var(&mut |name, _| {
        if found.is_none()
            && let Some(&i) = exploration.return_symbols.get(name)
            && let Some(call) = exploration.external_calls.get(i)
        {
            found = Some(call);
        }
    });
    found.map(|call| {
        (
            call.callee.clone(),
            ExternalKind::of(&call.callee),
            super::external::return_annotation(&call.callee, &call.returns),
        )
    })
}

/// Why no execution can show the decision's conditions, when CPython evaluates them without
/// testing them: the sides of a boolean `==`, or an `and`/`or` whose value goes on (into a
/// call, an attribute) where the agent cannot read it.
fn unobservable(decision: &Decision, value_unread: bool) -> Option<&'static str> {
    let mut e = decision.expr.as_ref()?;
    while let BoolExpr::Not(inner) = e {
        e = inner;
    }
    if matches!(e, BoolExpr::Eq { .. }) {
        Some(
            "CPython compares the two sides of `==` without testing either, so their values cannot be observed without rewriting the code",
        )
    } else if value_unread {
        Some(
            "CPython passes this value on without testing its last operand, and Lacuna reads it only where the value is returned or assigned to a name",
        )
    } else {
        None
    }
}

/// The diagnostics of the obligations left unmet.
pub fn diagnostics(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    decisions: &[DecisionObligations],
) -> Vec<Diagnostic> {
    let mut out = vec![];
    for report in decisions {
        let d = report.decision;
        let decision = &f.syntax.decisions[d];
        if !exploration.reached.contains(&d) {
            // The branch diagnostics already say why the decision is never reached.
            continue;
        }
        for missing in &report.missing {
            let Obligation { condition, value } = missing.obligation;
            let Some(cond) = decision.conditions.get(condition as usize) else {
                continue;
            };
            let vector = missing
                .vector
                .as_deref()
                .map(|v| describe(decision, v))
                .unwrap_or_default();
            let (code, message) = if missing.infeasible {
                (
                    Code::McdcInfeasible,
                    format!(
                        "condition `{}` can never show its independent effect as {value}: that needs {vector}, which no input satisfies",
                        cond.text
                    ),
                )
            } else {
                let mut message = format!(
                    "condition `{}` has not shown its independent effect as {value}",
                    cond.text
                );
                if !vector.is_empty() {
                    message.push_str(&format!(": needs a test with {vector}"));
                }
                (Code::McdcObligation, message)
            };
            let mut message = message;
            // Conditions CPython evaluates without testing them have no cause to find.
            let unread = (!missing.infeasible)
                .then(|| unobservable(decision, exploration.unobservable.contains(&d)))
                .flatten();
            // Why the search could not meet it: what it tried for the vector's conditions.
            let cause = (!missing.infeasible && unread.is_none()).then(|| {
                let mut attempts = vec![];
                for &(c, v) in missing.vector.iter().flatten() {
                    for a in exploration
                        .condition_attempts
                        .get(&(d, c, v))
                        .into_iter()
                        .flatten()
                    {
                        if !attempts.contains(a) {
                            attempts.push(a.clone());
                        }
                    }
                }
                super::reached::from_attempts(f, exploration, d, &attempts)
            });
            let blocked = unread
                .is_none()
                .then(|| blocked_by(exploration, d, condition))
                .flatten();
            if let Some(why) = unread {
                message.push_str(&format!("; {why}"));
            }
            match (&cause, &blocked) {
                (Some(e), _) if e.cause != Cause::Budget || blocked.is_none() => {
                    message.push_str(&format!("; {}", e.why));
                }
                (_, Some((callee, _, _))) => message.push_str(&format!(
                    "; it depends on the return value of `{callee}`, which generated inputs cannot control"
                )),
                _ => {}
            }
            let mut diagnostic = Diagnostic::new(code, cond.range.absolute(f.anchor), message);
            diagnostic.function = Some(f.id.to_string());
            if let Some(e) = cause.as_ref().filter(|e| e.cause != Cause::Budget) {
                diagnostic.related = e.related.clone();
            }
            let vector = missing.vector.as_ref().map(|v| {
                v.iter()
                    .map(|&(c, v)| VectorCondition {
                        condition: c,
                        text: decision
                            .conditions
                            .get(c as usize)
                            .map(|c| c.text.to_string()),
                        value: v,
                    })
                    .collect()
            });
            // What the tests show, per condition, for the hover's table.
            let shown = decision
                .conditions
                .iter()
                .map(|c| ShownCondition {
                    text: c.text.to_string(),
                    as_false: report.shown.contains(Obligation {
                        condition: c.index,
                        value: false,
                    }),
                    as_true: report.shown.contains(Obligation {
                        condition: c.index,
                        value: true,
                    }),
                })
                .collect();
            let (cause, fact) = match (cause, blocked) {
                (Some(e), _) if e.cause != Cause::Budget => {
                    (Some(ObligationCause::Cause(e.cause)), e.fact)
                }
                (_, Some((callee, external, returns))) => (
                    Some(ObligationCause::Cause(Cause::ExternalCall)),
                    Fact::ReturnOf(ReturnOf {
                        callee,
                        external,
                        returns,
                    }),
                ),
                (Some(_), None) => (
                    Some(ObligationCause::Cause(Cause::Budget)),
                    Fact::Unspecific {},
                ),
                _ if unread.is_some() => (Some(ObligationCause::Unobservable), Fact::Unspecific {}),
                _ => (None, Fact::Unspecific {}),
            };
            diagnostic.evidence = Some(Evidence::Obligation(UnmetObligation {
                kind: ObligationKind::McdcObligation,
                decision: decision.id.as_str().to_owned(),
                condition,
                value,
                infeasible: missing.infeasible,
                vector,
                shown,
                cause,
                fact,
            }));
            out.push(diagnostic);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn and3() -> BoolExpr {
        BoolExpr::And(
            Box::new(BoolExpr::And(
                Box::new(BoolExpr::Condition(0)),
                Box::new(BoolExpr::Condition(1)),
            )),
            Box::new(BoolExpr::Condition(2)),
        )
    }

    #[test]
    fn vectors_follow_short_circuit_order() {
        let expr = and3();
        let table = McdcTable::new(&expr);
        let false_1 = Obligation {
            condition: 1,
            value: false,
        };
        // `a and b and c` with b false: a true, b false, c never evaluated.
        assert_eq!(
            vectors(&expr, &table, 3, false_1),
            vec![vec![(0, true), (1, false)]]
        );
        let true_2 = Obligation {
            condition: 2,
            value: true,
        };
        assert_eq!(
            vectors(&expr, &table, 3, true_2),
            vec![vec![(0, true), (1, true), (2, true)]]
        );
    }
}
