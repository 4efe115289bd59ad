//! Models kept within the values the project's own tests pass. z3 answers a flip with the
//! first values that satisfy it — mostly zeros and boundaries (`max_days_in_month(0, 0)`) —
//! which cover the side but are not inputs the code is meant for, so a generated test seldom
//! computes the value a fault changes, and its run is unlike any of the suite's (ZoomIn's
//! check compares runs the suite speaks for). When the suite called the function with at
//! least three different numbers for a parameter, a model that puts it outside
//! their range is asked for again within it; the first model stays when none is (the side
//! needs a value the tests never passed).

use super::Search;
use crate::explore::solver::{Answer, Model};
use crate::symbolic::Expr;

/// Variables tried one by one when not all can be kept within their ranges together.
const MAX_ONE_BY_ONE: usize = 4;

impl Search<'_> {
    /// `model`, or one that satisfies the same `query` with every parameter the suite gives
    /// an ordinary range kept within it, when `model` puts one outside and such a model exists.
    pub(super) fn ordinary(&mut self, query: &[Expr], model: Model) -> Model {
        // The bounds of each variable the model puts outside its range, by name (sorted: the
        // same queries every run).
        let mut outside: Vec<(&str, [Expr; 2])> = vec![];
        for (name, value) in &model.values {
            if let Some(range) = self
                .signature
                .ranges
                .get(&**name)
                .and_then(|r| r.in_sort_of(value))
                && !range.holds(value)
            {
                outside.push((name, range.bounds(name)));
            }
        }
        if outside.is_empty() {
            return model;
        }
        outside.sort_by(|a, b| a.0.cmp(b.0));
        let mut best = None;
        // All of them at once; when the flip needs one of them outside (`bonus == 7`), each
        // in turn, kept while the query stays satisfiable.
        let mut within = query.to_vec();
        within.extend(outside.iter().flat_map(|(_, b)| b.iter().cloned()));
        if let Answer::Sat(m) = self.solver.check(&within) {
            best = Some(m);
        } else if outside.len() > 1 {
            let mut kept = query.to_vec();
            for (_, bounds) in outside.iter().take(MAX_ONE_BY_ONE) {
                let mut next = kept.clone();
                next.extend(bounds.iter().cloned());
                if let Answer::Sat(m) = self.solver.check(&next) {
                    kept = next;
                    best = Some(m);
                }
            }
        }
        tracing::debug!(model = ?model.values, within = ?best, "kept within the suite's values");
        match best {
            Some(mut ordinary) => {
                ordinary
                    .values
                    .retain(|name, _| model.values.contains_key(name));
                ordinary
            }
            None => model,
        }
    }
}
