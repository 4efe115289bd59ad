//! From a candidate to the request the executor runs: the value trees of the arguments, the
//! receiver and the values mocked calls return (with the declarations' defaults), and the
//! names of the variables a request lets the solver steer.

use super::Search;
use crate::agent::protocol::{ExecuteRequest, Mock, RANDOM_SEED, Target, Value, ValueTree};
use crate::explore::inputs::{Builder, Candidate};
use crate::explore::shape::Shape;
use rustc_hash::FxHashSet;

impl Search<'_> {
    /// How many values mock `m` returns: one per call seen so far, within the loop bound.
    pub(super) fn mock_call_count(&self, m: usize) -> usize {
        self.mock_calls
            .get(&m)
            .copied()
            .unwrap_or(1)
            .clamp(1, self.budget.loop_bound.max(1)) as usize
    }

    pub(super) fn request(&self, candidate: &Candidate) -> ExecuteRequest {
        // A mocked call returns one value per call; what the candidate leaves unset inside a
        // returned object takes the declaration's defaults (a valid `datetime`).
        let calls = |m: usize| self.mock_call_count(m);
        let mut with_defaults;
        let mut candidate = candidate;
        if self
            .signature
            .guidance
            .mocks
            .iter()
            .any(|m| !m.defaults.is_empty())
        {
            with_defaults = candidate.clone();
            for (m, decl) in self.signature.guidance.mocks.iter().enumerate() {
                for k in 0..calls(m) {
                    for (rel, value) in &decl.defaults {
                        with_defaults
                            .vars
                            .entry(format!("$mock:{m}[{k}].{rel}"))
                            .or_insert_with(|| value.clone());
                    }
                }
            }
            candidate = &with_defaults;
        }
        let builder = Builder {
            candidate,
            bound: self.budget.loop_bound as usize,
            strings: &self.strings,
            factories: &self.signature.guidance.factories,
            callable_calls: &self.callable_calls,
            raisable: &self.raisable,
        };
        let mocks = self
            .signature
            .guidance
            .mocks
            .iter()
            .enumerate()
            .map(|(m, decl)| Mock {
                target: decl.target.clone(),
                returns: (0..calls(m))
                    .map(|k| builder.build(&decl.returns, &format!("$mock:{m}[{k}]")))
                    .collect(),
            })
            .collect();
        ExecuteRequest {
            target: Target {
                module: self.f.module.clone(),
                qualname: self.f.qualname.clone(),
                call: self.f.call.clone(),
            },
            receiver: self
                .signature
                .receiver
                .as_ref()
                .map(|r| builder.build(&Shape::Object(r.clone()), "self")),
            args: self
                .signature
                .params
                .iter()
                .filter(|(name, _)| !self.signature.keyword_only.contains(name))
                .map(|(name, shape)| builder.build(shape, name))
                .chain(self.signature.varargs.iter().flat_map(|(name, shape)| {
                    let count = candidate.choices.get(&varargs_choice(name)).copied();
                    (0..count.unwrap_or(0))
                        .map(|k| builder.build(shape, &format!("{name}[{k}]")))
                        .collect::<Vec<_>>()
                }))
                .collect(),
            kwargs: self
                .signature
                .params
                .iter()
                .filter(|(name, _)| self.signature.keyword_only.contains(name))
                .map(|(name, shape)| (name.clone(), builder.build(shape, name)))
                .collect(),
            mocks,
            timeout_ms: self.budget.execution_timeout_ms,
            random_seed: RANDOM_SEED,
        }
    }
}

/// Every variable name a request's trees define (and the lengths of its containers).
pub(super) fn controllable_names(request: &ExecuteRequest) -> FxHashSet<String> {
    let mut out = FxHashSet::default();
    fn walk(t: &ValueTree, out: &mut FxHashSet<String>) {
        if let Some(s) = &t.sym {
            out.insert(s.clone());
            if matches!(
                t.value,
                Value::List { .. }
                    | Value::Tuple { .. }
                    | Value::TupleOf { .. }
                    | Value::Set { .. }
                    | Value::Iterator { .. }
                    | Value::AsyncIterator { .. }
                    | Value::Dict { .. }
            ) {
                out.insert(format!("{s}.__len__"));
            }
        }
        match &t.value {
            Value::List { items }
            | Value::Tuple { items }
            | Value::TupleOf { items }
            | Value::Set { items }
            | Value::Iterator { items }
            | Value::AsyncIterator { items } => items.iter().for_each(|i| walk(i, out)),
            Value::Dict { items } => items.iter().for_each(|(k, v)| {
                walk(k, out);
                walk(v, out)
            }),
            Value::Object {
                args,
                kwargs,
                calls,
                ..
            } => {
                args.iter()
                    .chain(kwargs.values())
                    .for_each(|a| walk(a, out));
                for c in calls {
                    c.args
                        .iter()
                        .chain(c.kwargs.values())
                        .for_each(|a| walk(a, out));
                }
            }
            Value::Factory { args, kwargs, .. } => args
                .iter()
                .chain(kwargs.values())
                .for_each(|a| walk(a, out)),
            Value::Callable { returns } => returns.iter().for_each(|r| walk(r, out)),
            _ => {}
        }
    }
    for t in request
        .args
        .iter()
        .chain(request.kwargs.values())
        .chain(request.receiver.iter())
        .chain(request.mocks.iter().flat_map(|m| m.returns.iter()))
    {
        walk(t, &mut out);
    }
    out
}

/// The choice of how many arguments `*name` collects.
pub(super) fn varargs_choice(name: &str) -> String {
    format!("*{name}")
}
