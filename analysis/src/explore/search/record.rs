//! Running one input and recording what it showed: the run (confirmed by a second one when it
//! claims something new), the sides, conditions and obligations it covered, the external calls
//! and mocked callees it made, and the input kept as a test when it showed something first.

use super::Search;
use crate::agent::protocol::{
    Event, ExecuteRequest, Execution, Literal, Mock, ReturnValue, SideEffect, Status, Value,
    ValueTree,
};
use crate::agent::state::{Assertable, StdClass};
use crate::explore::coverage::{Observed, Origin, observe};
use crate::explore::exploration::{ExternalCallSeen, GeneratedTest, Outcome, Unbuilt, Unfinished};
use crate::explore::inputs::Candidate;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

impl Search<'_> {
    pub(super) fn execute(&mut self, candidate: &Candidate) -> Option<Observed> {
        let request = self.request(candidate);
        let run = match self.executor.execute(&request) {
            Ok(run) => run,
            Err(e) => {
                self.out.failure = Some(e.to_string());
                return None;
            }
        };
        self.count_run(&run);
        tracing::debug!(
            input = %candidate.key(),
            status = ?run.status,
            exception = ?run.exception.as_ref().map(|e| (&e.type_name, &e.message)),
            error = ?run.error,
            "run"
        );
        if run.status == Status::InputError {
            let unbuilt = self.out.unbuilt.get_or_insert_with(|| Unbuilt {
                runs: 0,
                error: run.error.clone().unwrap_or_default(),
                class: run.building.clone(),
            });
            unbuilt.runs += 1;
            self.set_up_first(candidate, &run);
            self.vary_failing_call(candidate, &run);
            self.repair(candidate, &request);
            // Building the input ran project code (a constructor, a factory's method calls)
            // on symbolic values: the conditions it raised on are flipped like any other.
            let observed = observe(self.f, &self.index, &run);
            self.expand(candidate, &observed);
        }
        if matches!(run.status, Status::Error | Status::InputError) {
            self.failing = None;
            if self.out.executions == 1 && run.status == Status::Error {
                self.out.failure = run.error.clone();
            }
            return None;
        }
        let mut observed = observe(self.f, &self.index, &run);
        self.count_failure(&run, &observed);
        if self.shows_something_new(&observed, run.status == Status::Returned) {
            self.confirm(&request, &mut observed);
        }
        self.record(request, candidate, &run, &observed, false);
        self.record_callables(&run);
        self.raise_in_calls(candidate, &run);
        self.retype(candidate, &run);
        Some(observed)
    }

    /// Records what a run showed, and keeps its input as a test when it showed something
    /// first, or when `anyway` (an input kept for what it breaks, not for what it covers).
    pub(super) fn record(
        &mut self,
        request: ExecuteRequest,
        candidate: &Candidate,
        run: &Execution,
        observed: &Observed,
        anyway: bool,
    ) {
        for step in &observed.path {
            if let Origin::Condition(dc) = step.origin {
                let entry = self.out.conditions.entry(dc).or_default();
                entry.expr = Some(step.expr.clone());
                entry.values.insert(step.value);
            }
        }
        for &(d, c, v) in &observed.conditions {
            let entry = self.out.conditions.entry((d, c)).or_default();
            entry.values.insert(v);
        }
        self.record_external_calls(run);
        for (pos, n) in &observed.loop_iterations {
            let e = self.out.loop_iterations.entry(pos.0).or_default();
            *e = (*e).max(*n);
        }
        self.out.reached.extend(observed.reached.iter().copied());
        self.out
            .unobservable
            .extend(observed.unobservable.iter().copied());
        let new_sides: Vec<(usize, bool)> = observed
            .sides
            .iter()
            .copied()
            .filter(|s| !self.out.covered.contains_key(s))
            .collect();
        let mut new_obligations = vec![];
        for (&d, shown) in &observed.independence {
            let known = self.out.independence.entry(d).or_default();
            for o in shown.iter() {
                if !known.contains(o) {
                    new_obligations.push((d, o.condition, o.value));
                }
            }
            known.union(*shown);
        }
        let new_conditions = observed
            .conditions
            .iter()
            .filter(|c| self.all_conditions.insert(**c))
            .count();
        let new_lines = self.new_lines(observed, run.status == Status::Returned);
        let outcome = match run.status {
            Status::Returned => {
                let r = run.returned.clone().unwrap_or(ReturnValue {
                    repr: "None".into(),
                    type_name: "NoneType".into(),
                    literal: Some(Literal::None),
                    items: None,
                    state: Default::default(),
                });
                Outcome::Returned {
                    repr: r.repr,
                    type_name: r.type_name,
                    literal: r.literal,
                    items: r.items.filter(|i| matches!(i, Literal::Tuple(_))),
                    state: r.state,
                    receiver: run.receiver.clone(),
                    arguments: run.arguments.clone(),
                }
            }
            Status::Raised => {
                let e = run.exception.clone();
                Outcome::Raised {
                    type_name: e.as_ref().map(|e| e.type_name.clone()).unwrap_or_default(),
                    message: e.map(|e| e.message).unwrap_or_default(),
                }
            }
            other => Outcome::Failed(other),
        };
        if let Outcome::Failed(status) = &outcome {
            // Sides only unfinished runs took: never a test, so they stay uncovered, and the
            // explanation says why instead of blaming the solver or the budget.
            for side in &new_sides {
                self.out
                    .unfinished
                    .entry(*side)
                    .or_insert_with(|| Unfinished {
                        status: *status,
                        request: request.clone(),
                    });
            }
        }
        let keep = anyway
            || !new_sides.is_empty()
            || !new_obligations.is_empty()
            || new_lines
            || (self.out.tests.is_empty() && new_conditions > 0);
        if keep && !matches!(outcome, Outcome::Failed(_)) {
            let index = self.out.tests.len();
            self.lines.extend(observed.lines.iter().copied());
            for s in &new_sides {
                self.out.covered.insert(*s, index);
            }
            let mut request = request;
            let mut mocked: BTreeSet<String> = run
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Call {
                        callee,
                        mocked: true,
                        ..
                    } => Some(callee.clone()),
                    _ => None,
                })
                .collect();
            for replay in clock_replays(run) {
                if !request.mocks.iter().any(|m| m.target == replay.target) {
                    mocked.insert(replay.target.clone());
                    request.mocks.push(replay);
                }
            }
            self.out.tests.push(GeneratedTest {
                request,
                candidate: candidate.clone(),
                outcome,
                new_sides,
                new_obligations,
                sides: observed.sides.iter().copied().collect(),
                found_after: self.start.elapsed(),
                mocked,
                side_effect: run.effects.first().cloned().or_else(|| {
                    run.events.iter().find_map(|e| match e {
                        Event::Blocked { event, detail, .. } => Some(SideEffect {
                            event: event.clone(),
                            detail: detail.clone(),
                            refused: true,
                        }),
                        _ => None,
                    })
                }),
                draws_random: run.draws_random,
                module_state: run.module_state.iter().map(|c| c.path.clone()).collect(),
            });
        }
    }

    pub(super) fn record_external_calls(&mut self, run: &Execution) {
        let mut mocked: FxHashMap<usize, u32> = FxHashMap::default();
        for event in &run.events {
            if let Event::Call {
                callee,
                mocked: true,
                ..
            } = event
                && let Some(m) = self
                    .signature
                    .guidance
                    .mocks
                    .iter()
                    .position(|d| &d.target == callee)
            {
                *mocked.entry(m).or_default() += 1;
            }
        }
        for (m, n) in mocked {
            let e = self.mock_calls.entry(m).or_default();
            *e = (*e).max(n);
        }
        for event in &run.events {
            let (callee, file, pos, arg_vars, ret_var, raised, blocked, returned, is_mock) =
                match event {
                    Event::Call {
                        callee,
                        f,
                        pos,
                        arg_vars,
                        ret_var,
                        raised,
                        ret,
                        mocked,
                        ..
                    } => (
                        callee.clone(),
                        *f,
                        *pos,
                        arg_vars.clone(),
                        ret_var.clone(),
                        raised.is_some(),
                        None,
                        ret.as_ref().and_then(|r| r.type_name.clone()),
                        *mocked,
                    ),
                    Event::Blocked {
                        event,
                        detail,
                        f,
                        pos,
                        ..
                    } => (
                        event.clone(),
                        *f,
                        *pos,
                        vec![],
                        None,
                        true,
                        Some(detail.clone()),
                        None,
                        false,
                    ),
                    _ => continue,
                };
            // A call that "raised" in a run that did not finish was interrupted by the run's
            // end (the execution timeout fires inside `time.sleep`): nothing about the callee.
            if raised && blocked.is_none() && !finished(run.status) {
                continue;
            }
            let file = file.and_then(|i| run.files.get(i)).cloned();
            let index = match self
                .out
                .external_calls
                .iter()
                // A refused side effect is kept apart from the call it happened in, even when
                // both are called `open`.
                .position(|c| {
                    c.callee == callee
                        && c.pos == pos
                        && c.file == file
                        && c.blocked.is_some() == blocked.is_some()
                }) {
                Some(i) => i,
                None => {
                    self.out.external_calls.push(ExternalCallSeen {
                        callee,
                        file,
                        pos,
                        arg_vars: vec![],
                        returned_symbol: false,
                        raised: true,
                        then_raised: true,
                        blocked: None,
                        calls: 0,
                        returns: BTreeSet::new(),
                        mocked: false,
                    });
                    self.out.external_calls.len() - 1
                }
            };
            let seen = &mut self.out.external_calls[index];
            seen.calls += 1;
            seen.returns.extend(returned);
            seen.mocked |= is_mock;
            for v in arg_vars {
                if !seen.arg_vars.contains(&v) {
                    seen.arg_vars.push(v);
                }
            }
            // "raised" stays true only while every call raised.
            seen.raised &= raised;
            if !raised {
                seen.then_raised &= run.status == Status::Raised;
            }
            if blocked.is_some() {
                seen.blocked = blocked;
            }
            if let Some(v) = ret_var {
                seen.returned_symbol = true;
                self.out.return_symbols.insert(v, index);
            }
        }
    }

    /// Whether a run's lines are worth a test: it enters an `except` clause no kept test
    /// enters, or (having `returned` or got to a decision) executes a line of the body not
    /// seen before. One that raised before any decision (the input could not be built the
    /// way the code needs) tests nothing else the function does.
    fn new_lines(&self, observed: &Observed, returned: bool) -> bool {
        self.enters_a_new_handler(observed)
            || ((returned || !observed.reached.is_empty())
                && observed.lines.iter().any(|l| !self.lines.contains(l)))
    }

    /// Whether a run covers a side, shows an MC/DC obligation or has lines worth a test
    /// (`new_lines`).
    pub(super) fn shows_something_new(&self, observed: &Observed, returned: bool) -> bool {
        observed
            .sides
            .iter()
            .any(|s| !self.out.covered.contains_key(s))
            || self.new_lines(observed, returned)
            || observed.independence.iter().any(|(d, shown)| {
                let known = self.out.independence.get(d).copied().unwrap_or_default();
                shown.iter().any(|o| !known.contains(o))
            })
    }

    /// Runs an input that shows something new a second time and keeps, of what it showed, only
    /// what both runs showed: a side an input takes only some of the time (a branch on
    /// `random.random()`) is not claimed, since its test could not reproduce it.
    pub(super) fn confirm(&mut self, request: &ExecuteRequest, observed: &mut Observed) {
        let Ok(again) = self.executor.execute(request) else {
            return;
        };
        self.count_run(&again);
        // A run stopped by its timeout still shows the sides it took before it stopped.
        let second = match again.status {
            Status::Returned | Status::Raised | Status::Timeout => {
                observe(self.f, &self.index, &again)
            }
            _ => Observed::default(),
        };
        let unrepeatable = &mut self.out.unrepeatable;
        unrepeatable.extend(second.sides.difference(&observed.sides));
        observed.sides.retain(|s| {
            let again = second.sides.contains(s);
            if !again {
                unrepeatable.insert(*s);
            }
            again
        });
        observed.lines.retain(|l| second.lines.contains(l));
        for (d, shown) in observed.independence.iter_mut() {
            let other = second.independence.get(d).copied().unwrap_or_default();
            shown.by_value[0] &= other.by_value[0];
            shown.by_value[1] &= other.by_value[1];
        }
    }

    /// Callable inputs return one value per call: the next requests carry as many as the most
    /// calls seen, within the loop bound.
    pub(super) fn record_callables(&mut self, run: &Execution) {
        let bound = self.budget.loop_bound.max(1) as usize;
        for (path, &n) in &run.callables {
            let n = (n as usize).clamp(1, bound);
            let e = self.callable_calls.entry(path.clone()).or_insert(1);
            *e = (*e).max(n);
        }
    }

    /// Each call of a callable input this run made, raising instead (once per call, the
    /// first `RAISING_CALLS`), while some branch side is not covered: a callback that fails,
    /// then succeeds, is what retry loops and error handlers are written for, and no value it
    /// returns takes them.
    fn raise_in_calls(&mut self, candidate: &Candidate, run: &Execution) {
        const RAISING_CALLS: usize = 3;
        let sides = 2 * self.f.syntax.decisions.len();
        if run.callables.is_empty() || self.out.covered.len() >= sides {
            return;
        }
        let mut next_candidates = vec![];
        for (path, &n) in &run.callables {
            for k in 0..(n as usize).min(RAISING_CALLS) {
                let choice = crate::explore::inputs::call_raises(path, k);
                if candidate.choices.contains_key(&choice) {
                    continue;
                }
                // Each exception the function's handlers name, then `Exception`.
                for exception in 1..=self.raisable.len() {
                    if !self.raising_tried.insert((choice.clone(), exception)) {
                        continue;
                    }
                    let mut next = candidate.clone();
                    next.choices.insert(choice.clone(), exception);
                    next_candidates.push(next);
                }
            }
        }
        for next in next_candidates {
            self.push(1, next);
        }
    }
}

/// Whether a run ended by itself (returned or raised), rather than by a timeout, the memory
/// limit or a crash.
fn finished(status: Status) -> bool {
    matches!(status, Status::Returned | Status::Raised)
}

/// The most readings of one clock a test replays: a run that polls a clock more often (a wait
/// loop) is left to the clock.
const MAX_CLOCK_REPLAYS: usize = 32;

/// The clocks a run read (`datetime.datetime.now`, `time.time`), each as a mock that returns
/// what the run read, call by call: an emitted test that pins a value computed from the time
/// would fail at another time, and one that replays the run's readings computes that value
/// again.
fn clock_replays(run: &Execution) -> Vec<Mock> {
    let mut out: Vec<Mock> = vec![];
    for event in &run.events {
        if let Event::Call {
            callee,
            mocked: false,
            clock: Some(value),
            ..
        } = event
        {
            let Some(value) = reading_tree(value) else {
                continue;
            };
            match out.iter_mut().find(|m| m.target == *callee) {
                Some(m) => m.returns.push(value),
                None => out.push(Mock {
                    target: callee.clone(),
                    returns: vec![value],
                }),
            }
        }
    }
    out.retain(|m| m.returns.len() <= MAX_CLOCK_REPLAYS);
    out
}

/// A clock's reading as the input tree its mock returns: a number, or a date or datetime (an
/// aware one at a zone of its offset); None for anything a clock does not return.
pub(super) fn reading_tree(reading: &Assertable) -> Option<ValueTree> {
    let int = |digits: &str| {
        ValueTree::new(Value::Int {
            value: digits.to_owned(),
        })
    };
    let object = |class: &str, args: Vec<ValueTree>, kwargs: BTreeMap<String, ValueTree>| {
        ValueTree::new(Value::Object {
            class: class.to_owned(),
            args,
            kwargs,
            calls: vec![],
        })
    };
    match reading {
        Assertable::Literal(Literal::Int(digits)) => Some(int(digits)),
        Assertable::Literal(Literal::Float(x)) if x.is_finite() => {
            Some(ValueTree::new(Value::Float {
                value: serde_json::json!(x),
            }))
        }
        Assertable::Std(std) => {
            let class = match std.class {
                StdClass::Date => "datetime:date",
                StdClass::DateTime => "datetime:datetime",
                _ => return None,
            };
            let args = std
                .args
                .iter()
                .map(|a| match a {
                    Literal::Int(digits) => Some(int(digits)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            let mut kwargs = BTreeMap::new();
            if let Some(seconds) = std.utc_offset {
                let offset = object(
                    "datetime:timedelta",
                    vec![],
                    BTreeMap::from([("seconds".to_owned(), int(&seconds.to_string()))]),
                );
                kwargs.insert(
                    "tzinfo".to_owned(),
                    object("datetime:timezone", vec![offset], BTreeMap::new()),
                );
            }
            Some(object(class, args, kwargs))
        }
        _ => None,
    }
}
