//! What the project's own passing tests give the generator: the scalar arguments they call each
//! function with, the first inputs its exploration tries, and the call sequences they make on
//! objects of each project class, how its objects are built first. Computed once per run of the
//! suite (by `lacuna check` and the language server alike) and shared by every exploration.

use crate::explore::coverage::FunctionUnderTest;
use crate::explore::shape::{ObjectShape, Shape};
use crate::explore::signature::{MinedArgument, MinedSequence};
use crate::explore::value::ModelValue;
use crate::suite::Observations;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// What the suite's passing tests give the generator.
#[derive(Clone, Debug, Default)]
pub struct SuiteInputs {
    /// The scalar arguments of the suite's calls, by function (`module:qualname`; see
    /// `observed_inputs`).
    arguments: FxHashMap<String, Vec<BTreeMap<String, ModelValue>>>,
    /// The call sequences on objects of each project class, by class as the observer names it
    /// (`module.Qual`; see `observed_sequences`).
    sequences: FxHashMap<String, Vec<MinedSequence>>,
}

impl SuiteInputs {
    pub fn new(observations: &Observations) -> SuiteInputs {
        SuiteInputs {
            arguments: observed_inputs(observations),
            sequences: observed_sequences(observations),
        }
    }

    /// The arguments the suite called `target` with.
    pub fn arguments_of(&self, target: &FunctionUnderTest) -> Vec<BTreeMap<String, ModelValue>> {
        self.arguments
            .get(&target.observed_name())
            .cloned()
            .unwrap_or_default()
    }

    /// The sequences of the classes of a signature's `receiver` and `params`, by class
    /// (`module:Qual`).
    pub fn sequences_for(
        &self,
        receiver: Option<&ObjectShape>,
        params: &[(String, Shape)],
    ) -> BTreeMap<String, Vec<MinedSequence>> {
        mined_for(&self.sequences, receiver, params)
    }
}

/// Call sequences kept per class: the most frequent distinct ones.
const MINED: usize = 8;

/// The call sequences of the suite's passing tests per class, as the search builds objects
/// from them: most frequent first, distinct, at most `MINED` per class. A class is named as
/// the observer names it (`module.Qual`), which is ambiguous where a module's name has dots;
/// it is matched against the classes of a signature by `mined_for`.
fn observed_sequences(observations: &Observations) -> FxHashMap<String, Vec<MinedSequence>> {
    use crate::suite::Argument;
    let value = |a: &Argument| match a {
        Argument::None => MinedArgument::None,
        Argument::Bool { value } => MinedArgument::Value(ModelValue::Bool(*value)),
        Argument::Int { value: Some(v) } => MinedArgument::Value(ModelValue::Int(v.clone())),
        Argument::Float { value } => value.parse().map_or(MinedArgument::Other, |v| {
            MinedArgument::Value(ModelValue::Real(v))
        }),
        Argument::Str { value: Some(v), .. } => MinedArgument::Value(ModelValue::Str(v.clone())),
        _ => MinedArgument::Other,
    };
    let mut sorted: Vec<&crate::suite::CallSequence> = observations.sequences.iter().collect();
    sorted.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.class.cmp(&b.class)));
    let mut out: FxHashMap<String, Vec<MinedSequence>> = FxHashMap::default();
    for s in sorted {
        let mined = MinedSequence {
            constructor: s.constructor.iter().flatten().map(value).collect(),
            calls: s
                .calls
                .iter()
                .map(|c| (c.method.clone(), c.args.iter().map(value).collect()))
                .collect(),
        };
        let kept = out.entry(s.class.clone()).or_default();
        if kept.len() < MINED && !kept.contains(&mined) {
            kept.push(mined);
        }
    }
    out
}

/// The mined sequences of the classes of `receiver` and `params` (`module:Qual`), by class.
fn mined_for(
    sequences: &FxHashMap<String, Vec<MinedSequence>>,
    receiver: Option<&ObjectShape>,
    params: &[(String, Shape)],
) -> BTreeMap<String, Vec<MinedSequence>> {
    let objects = receiver.into_iter().chain(
        params
            .iter()
            .flat_map(|(_, s)| s.objects().into_iter().map(|(_, o)| o)),
    );
    objects
        .filter_map(|o| {
            let dotted = o.class.replacen(':', ".", 1);
            let mined = sequences.get(&dotted)?;
            Some((o.class.clone(), mined.clone()))
        })
        .collect()
}

/// Arguments seeded per function from the suite: enough to start from each distinct way the
/// tests call it, few enough not to crowd out the search.
const OBSERVED: usize = 16;

/// The scalar arguments of the suite's calls of each function (its entry samples' parameters
/// that hold a number, a boolean or a text), distinct, at most `OBSERVED` per function.
fn observed_inputs(
    observations: &Observations,
) -> FxHashMap<String, Vec<BTreeMap<String, ModelValue>>> {
    use crate::suite::Variable;
    let mut out = FxHashMap::default();
    for f in &observations.functions {
        let mut inputs: Vec<BTreeMap<String, ModelValue>> = vec![];
        for sample in &f.entry.samples {
            // Parameters by their own names; derived variables (`len(x)`, `x is None`,
            // `type(x)`, `self._items`) are not arguments.
            let input: BTreeMap<String, ModelValue> = sample
                .iter()
                .filter(|(k, _)| *k != "self" && k.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .filter_map(|(k, v)| {
                    let value = match v {
                        Variable::Bool(b) => ModelValue::Bool(*b),
                        Variable::Int(i) => ModelValue::Int(i.clone()),
                        Variable::Float(f) => ModelValue::Real(f.parse().ok()?),
                        Variable::Str(s) => ModelValue::Str(s.clone()),
                    };
                    Some((k.clone(), value))
                })
                .collect();
            if !input.is_empty() && !inputs.contains(&input) {
                inputs.push(input);
            }
            if inputs.len() == OBSERVED {
                break;
            }
        }
        if !inputs.is_empty() {
            out.insert(f.function.clone(), inputs);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suites_call_sequences_are_kept_per_class_most_frequent_first() {
        use crate::suite::{Argument, CallSequence, MethodCall};
        let sequence = |count, code: &str, calls: Vec<MethodCall>| CallSequence {
            class: "vault.locker.Locker".into(),
            constructor: Some(vec![
                Argument::Str {
                    value: Some(code.into()),
                    len: None,
                },
                Argument::None,
                Argument::List { len: 2 },
            ]),
            calls,
            count,
        };
        let unlock = MethodCall {
            method: "unlock".into(),
            args: vec![Argument::Int {
                value: Some("2468".into()),
            }],
        };
        let observations = Observations {
            functions: vec![],
            sequences: vec![
                sequence(1, "1111", vec![]),
                sequence(5, "2468", vec![unlock]),
            ],
        };
        let mined = observed_sequences(&observations);
        let kept = &mined["vault.locker.Locker"];
        assert_eq!(kept.len(), 2);
        assert_eq!(
            kept[0],
            MinedSequence {
                constructor: vec![
                    MinedArgument::Value(ModelValue::Str("2468".into())),
                    MinedArgument::None,
                    MinedArgument::Other,
                ],
                calls: vec![(
                    "unlock".into(),
                    vec![MinedArgument::Value(ModelValue::Int("2468".into()))]
                )],
            }
        );
        // Matched to a signature's classes by their `module:Qual` name.
        let locker = ObjectShape {
            class: "vault.locker:Locker".into(),
            init: vec![],
            methods: vec![],
            keyword_only: vec![],
            domains: BTreeMap::new(),
        };
        let by_class = mined_for(&mined, Some(&locker), &[]);
        assert_eq!(by_class["vault.locker:Locker"].len(), 2);
        assert!(mined_for(&mined, None, &[]).is_empty());
    }
}
