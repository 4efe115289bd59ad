//! Inputs kept for what they break, not for what they cover. A coverage search stops keeping
//! inputs once their sides are covered, so the few tests it keeps seldom compute the one value
//! a fault changes; ZoomIn ranks the assertions of large generated suites. Once the coverage
//! search is done, this phase runs inputs near the project's own tests' (their arguments, and
//! the kept inputs, one or two scalars changed within their type) and keeps as a test each one
//! whose run breaks something new of what those tests established, in an execution comparable
//! to theirs. Whether a run breaks it is the caller's to say ([`AnomalyCheck`]: the suspicious
//! assertions' check); this module picks the inputs and keeps the tests.

use super::Search;
use crate::agent::protocol::{ExecuteRequest, Status};
use crate::explore::coverage::observe;
use crate::explore::exploration::{Outcome, Stop};
use crate::explore::inputs::Candidate;
use crate::explore::mutate::{Sources, neighbour};
use crate::explore::value::ModelValue;
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;
use std::time::Instant;

/// What says whether an input's run breaks what the project's own passing tests established
/// of the function (ZoomIn's invariants), in an execution comparable to theirs.
pub trait AnomalyCheck: Sync {
    /// How many inputs the phase may run.
    fn runs(&self) -> usize;

    /// Runs `request` under observation: the invariants its run breaks (by a stable key, in
    /// a stable order); `None` when the run is outside what the tests speak for (an input
    /// unlike theirs, a path unlike theirs) or could not be observed.
    fn breaks(&self, request: &ExecuteRequest) -> Option<Vec<String>>;
}

/// A violation is rare, and its input kept, when at most one in `RARE` of the runs checked
/// (or one) showed it.
const RARE: u32 = 4;

/// Tries that may yield no new input (a duplicate, nothing to change) per input run: the phase
/// ends when its inputs are all alike.
const TRIES_PER_RUN: usize = 8;

impl Search<'_> {
    /// The phase, when the search was given a check and reached the function at all.
    pub(super) fn watch(&mut self) {
        let Some(check) = self.watch else {
            return;
        };
        let runs = check.runs();
        if runs == 0
            || self.out.failure.is_some()
            || matches!(self.out.stop, Stop::FailingAlike(_) | Stop::RunSpent)
        {
            return;
        }
        let mut bases: Vec<Candidate> = self.observed_candidates();
        bases.extend(
            self.out
                .tests
                .iter()
                .filter(|t| matches!(t.outcome, Outcome::Returned { .. }))
                .map(|t| t.candidate.clone()),
        );
        if bases.is_empty() {
            return;
        }
        // The values each parameter took in the tests' calls: a neighbour may cross them.
        let mut seen: BTreeMap<String, Vec<ModelValue>> = BTreeMap::new();
        for input in &self.signature.observed {
            for (name, value) in input {
                let values = seen.entry(name.clone()).or_default();
                if !values.contains(value) {
                    values.push(value.clone());
                }
            }
        }
        // Its own time: what is left of the function's, at least a quarter of it (in a
        // reproducible run, the runs and tries alone bound it; the function's time, as
        // `spent` counts it, is then its safety bound).
        let deadline = (!self.budget.reproducible).then(|| {
            Instant::now()
                + self
                    .budget
                    .time
                    .saturating_sub(self.start.elapsed())
                    .max(self.budget.time / 4)
        });
        // What each run near the tests' broke, and how many runs broke each invariant.
        let mut breaking: Vec<(Candidate, Vec<String>)> = vec![];
        let mut counts: BTreeMap<String, u32> = BTreeMap::new();
        let mut tries = 0;
        while (self.out.neighbours.run as usize) < runs
            && tries < runs * TRIES_PER_RUN
            && deadline.map_or(self.spent() < self.budget.time, |d| Instant::now() < d)
        {
            tries += 1;
            let base = bases[self.rng.below(bases.len())].clone();
            let request = self.request(&base);
            let sources = Sources {
                strings: &self.strings,
                numbers: &self.numbers,
                choices: &[],
                objects: &[],
                bound: self.budget.loop_bound as usize,
            };
            let Some(next) = neighbour(&base, &request, &seen, &sources, &mut self.rng) else {
                continue;
            };
            if !self.seen_candidates.insert(next.key()) {
                continue;
            }
            self.out.neighbours.run += 1;
            let keys = check.breaks(&self.request(&next));
            tracing::debug!(input = ?next.vars, breaks = ?keys, "neighbour checked");
            let Some(keys) = keys else {
                continue;
            };
            self.out.neighbours.checked += 1;
            for k in &keys {
                *counts.entry(k.clone()).or_default() += 1;
            }
            if !keys.is_empty() {
                breaking.push((next, keys));
            }
        }
        // An invariant many runs near the tests' break is one the code does not keep off the
        // tests' own values (a thin suite's coincidence): only rare violations are kept.
        let rare = (self.out.neighbours.checked / RARE).max(1);
        let mut kept: FxHashSet<String> = FxHashSet::default();
        for (candidate, keys) in breaking {
            // A run breaking only what a kept one broke adds nothing to inspect.
            if !keys.iter().any(|k| counts[k] <= rare && !kept.contains(k)) {
                continue;
            }
            let request = self.request(&candidate);
            let Ok(run) = self.executor.execute(&request) else {
                break;
            };
            self.count_run(&run);
            if !matches!(run.status, Status::Returned | Status::Raised) {
                continue;
            }
            let observed = observe(self.f, &self.index, &run);
            let before = self.out.tests.len();
            self.record(request, &candidate, &run, &observed, true);
            if self.out.tests.len() > before {
                self.out.neighbours.kept += 1;
                for k in &keys {
                    if let Some(n) = counts.get_mut(k) {
                        *n -= 1;
                    }
                    kept.insert(k.clone());
                }
            }
        }
        counts.retain(|_, n| *n > 0);
        self.out.neighbours.breaking = counts;
    }
}
