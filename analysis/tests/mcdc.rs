//! The table-driven MC/DC marking function agrees with an independent brute-force reference
//! on every evaluation sequence of random decisions up to 12 conditions.

#[path = "support/mcdc_reference.rs"]
mod reference;

use lacuna_grammar::BoolExpr;
use proptest::prelude::*;

/// A random tree shape; leaves are numbered in evaluation order afterwards.
fn shape() -> impl Strategy<Value = BoolExpr> {
    let leaf = Just(BoolExpr::Condition(0));
    leaf.prop_recursive(6, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| BoolExpr::Not(Box::new(e))),
            (inner.clone(), inner.clone())
                .prop_map(|(l, r)| BoolExpr::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner).prop_map(|(l, r)| BoolExpr::Or(Box::new(l), Box::new(r))),
        ]
    })
}

fn number(e: &mut BoolExpr, next: &mut u16) {
    match e {
        BoolExpr::Condition(i) => {
            *i = *next;
            *next += 1;
        }
        BoolExpr::Not(inner) => number(inner, next),
        BoolExpr::And(l, r) | BoolExpr::Or(l, r) => {
            number(l, next);
            number(r, next);
        }
        BoolExpr::Eq { left, right, .. } => {
            number(left, next);
            number(right, next);
        }
    }
}

/// Decisions as the syntax layer builds them: `and`/`or`/`not` trees, sometimes with a boolean
/// `==`/`!=` at the root (under `not`s at most).
fn decision() -> impl Strategy<Value = (BoolExpr, usize)> {
    (shape(), shape(), 0u8..4, any::<bool>(), 0u8..3)
        .prop_map(|(a, b, form, negated, nots)| {
            let mut e = if form == 0 {
                BoolExpr::Eq {
                    left: Box::new(a),
                    right: Box::new(b),
                    negated,
                }
            } else {
                a
            };
            for _ in 0..nots {
                e = BoolExpr::Not(Box::new(e));
            }
            let mut n = 0;
            number(&mut e, &mut n);
            (e, n as usize)
        })
        .prop_filter("at most 12 conditions", |(_, n)| *n <= 12)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn tables_agree_with_the_reference((expr, n) in decision()) {
        if let Err(e) = reference::check(&expr, n) {
            panic!("{e}");
        }
    }
}

#[test]
fn reference_enumerates_short_circuit_sequences() {
    use BoolExpr::*;
    // a and (b or c): F | T T | T F T | T F F
    let e = And(
        Box::new(Condition(0)),
        Box::new(Or(Box::new(Condition(1)), Box::new(Condition(2)))),
    );
    let mut seqs: Vec<_> = reference::sequences(&e, 3)
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    seqs.sort();
    assert_eq!(
        seqs,
        vec![
            vec![(0, false)],
            vec![(0, true), (1, false), (2, false)],
            vec![(0, true), (1, false), (2, true)],
            vec![(0, true), (1, true)],
        ]
    );
    assert_eq!(reference::check(&e, 3), Ok(4));
}
