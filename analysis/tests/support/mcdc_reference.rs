//! An independent reference for masking MC/DC, used to prove the table-driven marking function:
//! it enumerates every evaluation sequence of a decision and decides masking from the tree
//! directly, without partial evaluation or tables.

use lacuna_grammar::BoolExpr;

/// Every distinct sequence of (condition, value) evaluations of `expr` under Python's
/// short-circuit rules, each with the decision's outcome.
pub fn sequences(expr: &BoolExpr, conditions: usize) -> Vec<(Vec<(u16, bool)>, bool)> {
    let mut out = vec![];
    let mut stack: Vec<Vec<Option<bool>>> = vec![vec![None; conditions]];
    while let Some(assignment) = stack.pop() {
        let mut needed: Option<u16> = None;
        let mut order = vec![];
        let outcome = expr.evaluate(&mut |i| match assignment[i as usize] {
            Some(v) if needed.is_none() => {
                order.push((i, v));
                v
            }
            Some(v) => v,
            None => {
                needed.get_or_insert(i);
                false
            }
        });
        match needed {
            Some(i) => {
                for v in [true, false] {
                    let mut next = assignment.clone();
                    next[i as usize] = Some(v);
                    stack.push(next);
                }
            }
            None => out.push((order, outcome)),
        }
    }
    out
}

/// The value of `e` under the evaluated conditions, `None` when it was not evaluated.
fn value(e: &BoolExpr, vals: &[Option<bool>]) -> Option<bool> {
    match e {
        BoolExpr::Condition(i) => vals[*i as usize],
        BoolExpr::Not(inner) => value(inner, vals).map(|v| !v),
        BoolExpr::And(l, r) => match value(l, vals)? {
            false => Some(false),
            true => value(r, vals),
        },
        BoolExpr::Or(l, r) => match value(l, vals)? {
            true => Some(true),
            false => value(r, vals),
        },
        BoolExpr::Eq {
            left,
            right,
            negated,
        } => Some((value(left, vals)? == value(right, vals)?) != *negated),
    }
}

/// The evaluated conditions of `e` that no other condition masks: masked are the conditions in
/// the left operand of an `and` whose right operand was evaluated and is false (of an `or`:
/// true).
fn unmasked(e: &BoolExpr, vals: &[Option<bool>]) -> u64 {
    match e {
        BoolExpr::Condition(i) => {
            if vals[*i as usize].is_some() {
                1 << i
            } else {
                0
            }
        }
        BoolExpr::Not(inner) => unmasked(inner, vals),
        BoolExpr::And(l, r) | BoolExpr::Or(l, r) => {
            let masking_value = matches!(e, BoolExpr::Or(..));
            let left = if value(r, vals) == Some(masking_value) {
                0
            } else {
                unmasked(l, vals)
            };
            left | unmasked(r, vals)
        }
        BoolExpr::Eq { left, right, .. } => unmasked(left, vals) | unmasked(right, vals),
    }
}

/// The independence set one evaluation sequence shows: `[false pairs, true pairs]`.
pub fn independence(expr: &BoolExpr, conditions: usize, sequence: &[(u16, bool)]) -> [u64; 2] {
    let mut vals = vec![None; conditions];
    for &(i, v) in sequence {
        vals[i as usize] = Some(v);
    }
    let free = unmasked(expr, &vals);
    let mut out = [0u64; 2];
    for &(i, v) in sequence {
        if free & (1 << i) != 0 {
            out[usize::from(v)] |= 1 << i;
        }
    }
    out
}

/// Checks the table-driven marking against the reference on every evaluation sequence of
/// `expr`; returns the number of sequences checked.
pub fn check(expr: &BoolExpr, conditions: usize) -> Result<usize, String> {
    let table = lacuna_analysis::model::mcdc::McdcTable::new(expr);
    let all = sequences(expr, conditions);
    for (sequence, _) in &all {
        let expected = independence(expr, conditions, sequence);
        let got = table.mark(sequence).by_value;
        if got != expected {
            return Err(format!(
                "{expr:?}\n  sequence {sequence:?}\n  tables {got:?}, reference {expected:?}"
            ));
        }
        for (k, &(c, v)) in sequence.iter().enumerate() {
            let terminates = table.conditions[c as usize].terminates[usize::from(v)];
            if terminates != (k + 1 == sequence.len()) {
                return Err(format!(
                    "{expr:?}\n  sequence {sequence:?}: condition {c}={v} at step {k} terminates={terminates}"
                ));
            }
        }
    }
    Ok(all.len())
}
