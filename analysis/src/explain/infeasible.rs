//! Dead branch sides, proven: z3 finds the side's condition unsatisfiable together with every
//! guard whose block contains the decision — over the conditions as written (the syntax layer's
//! readable tests, [`lacuna_grammar::Test`]), each name a free variable, so the proof covers
//! every value the names can take on every path, not only the paths explored. Claimed only
//! when that reading covers every value the code can receive: conditions are comparisons with
//! numbers, or bare names, of names whose every value the reading models (`reading`: annotated
//! numeric parameters, locals computed from them, module constants; never an unannotated
//! parameter, which is any object, nor a float compared, which may be NaN), and no statement in
//! a guard's block assigns a name the proof uses.

use super::reading::{Reading, reading};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::solver::{Answer, Solver};
use crate::symbolic::{Expr, Op, Sort};
use lacuna_grammar::{BoolExpr, CompareOp, Decision, Operand, Test, TextRange};
use rustc_hash::FxHashMap;

/// A proof that side `outcome` of decision `d` is dead: the guards it used (decision indices
/// and sides), empty when the decision alone is contradictory.
pub struct Proof {
    pub guards: Vec<(usize, bool)>,
    /// The names the proof reads, with the reading of each.
    pub names: Vec<(String, Reading)>,
}

pub fn prove_dead(
    f: &FunctionUnderTest,
    d: usize,
    outcome: bool,
    solver: &mut Option<Solver>,
) -> Option<Proof> {
    let decisions = &f.syntax.decisions;
    let decision = &decisions[d];
    // A loop's sides depend on what its iterable yields, which a reading of the source does
    // not bound: never claimed dead.
    if decision.kind.is_loop() {
        return None;
    }
    let mut sorts: FxHashMap<String, Sort> = FxHashMap::default();
    let mut assertions = vec![holds(f, decision, outcome, &mut sorts)?];
    let mut guards = vec![];
    for (g, guard) in decisions.iter().enumerate() {
        if g == d {
            continue;
        }
        for side in &guard.sides {
            let Some(block) = side.target else { continue };
            if !block.contains_range(decision.range) {
                continue;
            }
            // A guard whose conditions cannot be read adds nothing; the proof may still hold.
            let mut guard_sorts = sorts.clone();
            if let Some(e) = holds(f, guard, side.outcome, &mut guard_sorts) {
                sorts = guard_sorts;
                assertions.push(e);
                guards.push((g, side.outcome));
            }
        }
    }
    // Every name must have a reading that covers all its values, and nothing may assign it
    // between a guard's test and the decision (anywhere in the guard's block when a loop there
    // could carry a later assignment back to the decision).
    let mut names = vec![];
    for (name, &sort) in &sorts {
        let r = reading(f, name)?;
        names.push((name.clone(), r));
        match (r, sort) {
            (Reading::Constant(x), Sort::Real) => {
                assertions.push(Expr::app(
                    Op::Eq,
                    vec![Expr::var(name, sort), Expr::Real(x)],
                ));
                continue;
            }
            (Reading::Constant(x), _) => {
                let truth = Expr::var(name, sort);
                assertions.push(if x != 0.0 { truth } else { truth.negate() });
                continue;
            }
            // A float compared may be NaN, which every ordering refuses: not modelled.
            (Reading::Float, Sort::Real) => return None,
            _ => {}
        }
        for &(g, outcome) in &guards {
            let block = decisions[g].side(outcome).target?;
            let before = TextRange::new(block.start, decision.range.start.max(block.start));
            let looped = f
                .syntax
                .loops
                .iter()
                .any(|l| before.contains_range(l.header));
            let scope = if looped { block } else { before };
            if f.syntax.binds(name, Some(scope)) {
                return None;
            }
        }
    }
    let solver = solver.get_or_insert_with(|| Solver::new(2_000));
    names.sort_by(|a, b| a.0.cmp(&b.0));
    (solver.check(&assertions) == Answer::Unsat).then_some(Proof { guards, names })
}

/// The decision's outcome being `outcome`, as an expression over its conditions' tests.
fn holds(
    f: &FunctionUnderTest,
    decision: &Decision,
    outcome: bool,
    sorts: &mut FxHashMap<String, Sort>,
) -> Option<Expr> {
    // A loop is no boolean test of its iterable: as a guard it adds nothing.
    if decision.kind.is_loop() {
        return None;
    }
    // In a decision of several conditions (`os.cpu_count() or 1`), a literal operand has its
    // truth, and one the proof cannot read is any truth value — a free variable of its own,
    // so what is proven holds whatever it is.
    let several = decision.conditions.len() > 1;
    let conditions: Vec<Expr> = decision
        .conditions
        .iter()
        .enumerate()
        .map(
            |(i, c)| match f.own_flow().test(c.range).and_then(|t| condition(t, sorts)) {
                Some(e) => Some(e),
                None if several => Some(c.literal.map(Expr::Bool).unwrap_or_else(|| {
                    Expr::var(
                        &format!("$condition:{}:{i}", decision.range.start),
                        Sort::Bool,
                    )
                })),
                None => None,
            },
        )
        .collect::<Option<_>>()?;
    let e = structure(decision.expr.as_ref()?, &conditions)?;
    Some(if outcome { e } else { e.negate() })
}

fn structure(expr: &BoolExpr, conditions: &[Expr]) -> Option<Expr> {
    Some(match expr {
        BoolExpr::Condition(i) => conditions.get(*i as usize)?.clone(),
        BoolExpr::Not(e) => structure(e, conditions)?.negate(),
        BoolExpr::And(a, b) => Expr::app(
            Op::And,
            vec![structure(a, conditions)?, structure(b, conditions)?],
        ),
        BoolExpr::Or(a, b) => Expr::app(
            Op::Or,
            vec![structure(a, conditions)?, structure(b, conditions)?],
        ),
        BoolExpr::Eq { .. } => return None,
    })
}

/// A readable test as an expression: a name's truth, or names and numbers compared as reals.
fn condition(test: &Test, sorts: &mut FxHashMap<String, Sort>) -> Option<Expr> {
    match test {
        Test::Truth(name) => var(name, Sort::Bool, sorts),
        Test::Compare { left, op, right } => {
            let op = match op {
                CompareOp::Lt => Op::Lt,
                CompareOp::Le => Op::Le,
                CompareOp::Eq => Op::Eq,
                CompareOp::Ne => Op::Ne,
                CompareOp::Gt => Op::Gt,
                CompareOp::Ge => Op::Ge,
            };
            Some(Expr::app(
                op,
                vec![operand(left, sorts)?, operand(right, sorts)?],
            ))
        }
    }
}

fn operand(operand: &Operand, sorts: &mut FxHashMap<String, Sort>) -> Option<Expr> {
    match operand {
        Operand::Name(name) => var(name, Sort::Real, sorts),
        Operand::Number(x) => Some(Expr::Real(*x)),
    }
}

fn var(name: &str, sort: Sort, sorts: &mut FxHashMap<String, Sort>) -> Option<Expr> {
    match sorts.insert(name.to_owned(), sort) {
        Some(previous) if previous != sort => None,
        _ => Some(Expr::var(name, sort)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::flow::tests::function;

    #[test]
    fn reads_comparisons() {
        let f = function(
            "def f(level, xs, flag):\n    if level > 100 or 1_000 <= (level) or len(xs) > 1 or xs.x > 1 or level < -2.5 or 0 < level < 3 or level == True or flag:\n        pass\n",
            "f",
        );
        let mut sorts = FxHashMap::default();
        let read: Vec<bool> = f.syntax.decisions[0]
            .conditions
            .iter()
            .map(|c| {
                f.own_flow()
                    .test(c.range)
                    .and_then(|t| condition(t, &mut sorts))
                    .is_some()
            })
            .collect();
        // A chained comparison is a condition per link.
        assert_eq!(
            read,
            [true, true, false, false, true, true, true, false, true]
        );
        // A name read both as a number and as a flag is not modelled.
        let level = Test::Truth("level".into());
        assert!(condition(&level, &mut sorts).is_none());
    }
}
