//! The ranges of the numbers the project's own passing tests passed each parameter of a
//! function: what the code is meant for, as its tests show it. The search keeps the solver's
//! models within them where it can (`search::ordinary`).

use super::value::ModelValue;
use crate::symbolic::{Expr, Op, Sort};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Distinct values the suite passed a parameter before their range is taken as its ordinary
/// one: fewer say little about what the code is meant for.
const MIN_DISTINCT: usize = 3;

/// The range of the numbers the suite passed a parameter, in the sort the solver gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    Int(i64, i64),
    Real(f64, f64),
}

impl Range {
    /// The range in the sort of `value` (a parameter the suite passed `3.0` may be an int to
    /// the solver); none for a value that is not a number.
    pub fn in_sort_of(self, value: &ModelValue) -> Option<Range> {
        match (self, value) {
            (Range::Int(..), ModelValue::Int(_)) | (Range::Real(..), ModelValue::Real(_)) => {
                Some(self)
            }
            (Range::Real(lo, hi), ModelValue::Int(_)) => {
                let (lo, hi) = (lo.ceil(), hi.floor());
                (lo <= hi && lo.abs() < 9e15 && hi.abs() < 9e15)
                    .then_some(Range::Int(lo as i64, hi as i64))
            }
            (Range::Int(lo, hi), ModelValue::Real(_)) => Some(Range::Real(lo as f64, hi as f64)),
            _ => None,
        }
    }

    pub fn holds(self, value: &ModelValue) -> bool {
        match (self, value) {
            (Range::Int(lo, hi), ModelValue::Int(v)) => {
                v.parse::<i64>().is_ok_and(|v| lo <= v && v <= hi)
            }
            (Range::Real(lo, hi), ModelValue::Real(v)) => lo <= *v && *v <= hi,
            _ => true,
        }
    }

    /// `lo <= name <= hi`.
    pub fn bounds(self, name: &str) -> [Expr; 2] {
        let (sort, lo, hi) = match self {
            Range::Int(lo, hi) => (Sort::Int, Expr::int(lo), Expr::int(hi)),
            Range::Real(lo, hi) => (Sort::Real, Expr::Real(lo), Expr::Real(hi)),
        };
        let var = Expr::Var {
            name: Arc::from(name),
            sort,
        };
        [
            Expr::app(Op::Ge, vec![var.clone(), lo]),
            Expr::app(Op::Le, vec![var, hi]),
        ]
    }
}

/// Each parameter's ordinary range: the suite's calls passed it at least [`MIN_DISTINCT`]
/// different finite numbers, all ints or all floats (bools are not numbers here).
pub fn ranges<'a>(
    observed: impl IntoIterator<Item = &'a BTreeMap<String, ModelValue>>,
) -> BTreeMap<String, Range> {
    /// The numbers a parameter took: ints, floats, and whether it took anything else.
    #[derive(Default)]
    struct Taken {
        ints: Vec<i64>,
        reals: Vec<f64>,
        other: bool,
    }
    let mut taken: BTreeMap<&str, Taken> = BTreeMap::new();
    for input in observed {
        for (name, value) in input {
            let t = taken.entry(name).or_default();
            match value {
                ModelValue::Int(v) => match v.parse::<i64>() {
                    Ok(v) => t.ints.push(v),
                    Err(_) => t.other = true,
                },
                ModelValue::Real(v) if v.is_finite() => t.reals.push(*v),
                _ => t.other = true,
            }
        }
    }
    let mut out = BTreeMap::new();
    for (name, t) in taken {
        if t.other {
            continue;
        }
        let mut all: Vec<f64> = t
            .ints
            .iter()
            .map(|&i| i as f64)
            .chain(t.reals.iter().copied())
            .collect();
        all.sort_by(f64::total_cmp);
        all.dedup();
        if all.len() < MIN_DISTINCT {
            continue;
        }
        let range = if t.reals.is_empty() {
            let (lo, hi) = (t.ints.iter().min(), t.ints.iter().max());
            Range::Int(*lo.expect("ints"), *hi.expect("ints"))
        } else {
            // A parameter the suite passed ints and floats is a number: the floats' sort.
            Range::Real(all[0], all[all.len() - 1])
        };
        out.insert(name.to_owned(), range);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed(calls: &[&[(&str, ModelValue)]]) -> Vec<BTreeMap<String, ModelValue>> {
        calls
            .iter()
            .map(|call| {
                call.iter()
                    .map(|(n, v)| ((*n).to_owned(), v.clone()))
                    .collect()
            })
            .collect()
    }

    fn int(v: i64) -> ModelValue {
        ModelValue::Int(v.to_string())
    }

    #[test]
    fn a_parameter_with_three_distinct_numbers_has_their_range() {
        let s = observed(&[
            &[("month", int(3)), ("year", int(2000))],
            &[("month", int(11)), ("year", int(2000))],
            &[("month", int(1)), ("year", int(1985))],
        ]);
        let r = ranges(&s);
        assert_eq!(r.get("month"), Some(&Range::Int(1, 11)));
        // Two distinct years say too little.
        assert_eq!(r.get("year"), None);
    }

    #[test]
    fn ints_and_floats_make_a_real_range_and_other_kinds_none() {
        let s = observed(&[
            &[("x", int(-2)), ("y", int(1))],
            &[("x", ModelValue::Real(0.5)), ("y", int(2))],
            &[
                ("x", ModelValue::Real(30.0)),
                ("y", ModelValue::Str("3".into())),
            ],
            &[("x", ModelValue::Real(1.5)), ("y", int(4))],
        ]);
        let r = ranges(&s);
        assert_eq!(r.get("x"), Some(&Range::Real(-2.0, 30.0)));
        assert_eq!(r.get("y"), None);
    }
}
