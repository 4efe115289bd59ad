//! What the project's own passing tests give the generator: the scalar arguments they call each
//! function with, the first inputs its exploration tries, and the call sequences they make on
//! objects of each project class, how its objects are built first. Computed once per run of the
//! suite (by `lacuna check` and the language server alike) and shared by every exploration.

use crate::agent::protocol::ObservedClasses;
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::ranges::{Range, ranges};
use crate::explore::shape::{ObjectShape, Shape};
use crate::explore::signature::{MinedArgument, MinedSequence};
use crate::explore::value::ModelValue;
use crate::suite::Observations;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// The distinct scalar arguments of the suite's calls, by function.
type Arguments = FxHashMap<String, Vec<BTreeMap<String, ModelValue>>>;

/// The range of the numbers each parameter took, by function.
type Ranges = FxHashMap<String, BTreeMap<String, Range>>;

/// What the suite's passing tests give the generator.
#[derive(Clone, Debug, Default)]
pub struct SuiteInputs {
    /// The scalar arguments of the suite's calls, by function (`module:qualname`; see
    /// `observed_inputs`).
    arguments: Arguments,
    /// The range of the numbers the suite's calls passed each parameter, by function (all its
    /// sampled calls, where they passed at least three different numbers).
    ranges: Ranges,
    /// The call sequences on objects of each project class, by class as the observer names it
    /// (`module.Qual`; see `observed_sequences`).
    sequences: FxHashMap<String, Vec<MinedSequence>>,
    /// The classes of the objects the suite passed, by function and parameter name.
    passed: FxHashMap<String, BTreeMap<String, Vec<String>>>,
    /// The classes of the objects the suite passed to each class's constructor (`module.Qual`),
    /// by position.
    constructed_with: FxHashMap<String, BTreeMap<usize, Vec<String>>>,
}

impl SuiteInputs {
    pub fn new(observations: &Observations) -> SuiteInputs {
        let (arguments, ranges) = observed_inputs(observations);
        SuiteInputs {
            arguments,
            ranges,
            sequences: observed_sequences(observations),
            passed: passed_classes(observations),
            constructed_with: constructor_classes(observations),
        }
    }

    /// The classes of the objects the suite passed to `target` and to the constructor of its
    /// receiver's class (a method's qualified name less its last part), for its `describe`.
    pub fn classes_for(&self, target: &FunctionUnderTest) -> ObservedClasses {
        let init = target
            .qualname
            .rsplit_once('.')
            .and_then(|(class, _)| {
                self.constructed_with
                    .get(&format!("{}.{class}", target.module))
            })
            .cloned()
            .unwrap_or_default();
        ObservedClasses {
            params: self
                .passed
                .get(&target.observed_name())
                .cloned()
                .unwrap_or_default(),
            init,
        }
    }

    /// The arguments the suite called `target` with.
    pub fn arguments_of(&self, target: &FunctionUnderTest) -> Vec<BTreeMap<String, ModelValue>> {
        self.arguments
            .get(&target.observed_name())
            .cloned()
            .unwrap_or_default()
    }

    /// The range of the numbers the suite passed each parameter of `target` (`year`), and of
    /// the fields of its arguments (`self.a`, `other.year`).
    pub fn ranges_of(&self, target: &FunctionUnderTest) -> BTreeMap<String, Range> {
        self.ranges
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
    let mut sorted: Vec<&crate::suite::CallSequence> = observations.sequences.iter().collect();
    sorted.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.class.cmp(&b.class)));
    let mut out: FxHashMap<String, Vec<MinedSequence>> = FxHashMap::default();
    for s in sorted {
        let mined = mined_sequence(s.constructor.as_deref(), &s.calls);
        let kept = out.entry(s.class.clone()).or_default();
        if kept.len() < MINED && !kept.contains(&mined) {
            kept.push(mined);
        }
    }
    out
}

/// A sequence as the search replays it: its calls' arguments as values where they are ones.
fn mined_sequence(
    constructor: Option<&[crate::suite::Argument]>,
    calls: &[crate::suite::MethodCall],
) -> MinedSequence {
    MinedSequence {
        constructor: constructor
            .into_iter()
            .flatten()
            .map(mined_argument)
            .collect(),
        calls: calls
            .iter()
            .map(|c| {
                (
                    c.method.clone(),
                    c.args.iter().map(mined_argument).collect(),
                )
            })
            .collect(),
    }
}

fn mined_argument(a: &crate::suite::Argument) -> MinedArgument {
    use crate::suite::Argument;
    match a {
        Argument::None => MinedArgument::None,
        Argument::Bool { value } => MinedArgument::Value(ModelValue::Bool(*value)),
        Argument::Int { value: Some(v) } => MinedArgument::Value(ModelValue::Int(v.clone())),
        Argument::Float { value } => value.parse().map_or(MinedArgument::Other, |v| {
            MinedArgument::Value(ModelValue::Real(v))
        }),
        Argument::Str { value: Some(v), .. } => MinedArgument::Value(ModelValue::Str(v.clone())),
        Argument::Object {
            class,
            built: Some(built),
        } => MinedArgument::Object {
            class: class.clone(),
            built: Box::new(mined_sequence(built.constructor.as_deref(), &built.calls)),
        },
        _ => MinedArgument::Other,
    }
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
            let dotted = o.observed_name();
            let mined = sequences.get(&dotted)?;
            Some((o.class.clone(), mined.clone()))
        })
        .collect()
}

/// Classes told per parameter: the likeliest few.
const CLASSES: usize = 3;

/// Whether an observed type's name may be a project class: not a builtin's (`builtins.int`),
/// not the agent's own stand-ins.
fn may_be_project_class(name: &str) -> bool {
    name.contains('.') && !name.starts_with("builtins.") && !name.starts_with("lacuna_agent.")
}

fn add_class(classes: &mut Vec<String>, name: &str) {
    if may_be_project_class(name) && classes.len() < CLASSES && !classes.iter().any(|c| c == name) {
        classes.push(name.to_owned());
    }
}

/// The types of the parameters at the entries the suite's calls of each function showed
/// (`type(other)`), where they may be project classes.
fn passed_classes(observations: &Observations) -> FxHashMap<String, BTreeMap<String, Vec<String>>> {
    use crate::suite::Variable;
    let mut out = FxHashMap::default();
    for f in &observations.functions {
        let mut by_param: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for sample in &f.entry.samples {
            for (k, v) in sample {
                let (Some(param), Variable::Str(class)) =
                    (k.strip_prefix("type(").and_then(|r| r.strip_suffix(')')), v)
                else {
                    continue;
                };
                if param == "self" || !param.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                add_class(by_param.entry(param.to_owned()).or_default(), class);
            }
        }
        by_param.retain(|_, classes| !classes.is_empty());
        if !by_param.is_empty() {
            out.insert(f.function.clone(), by_param);
        }
    }
    out
}

/// The classes of the objects the suite's sequences passed to each class's constructor, by
/// position.
fn constructor_classes(
    observations: &Observations,
) -> FxHashMap<String, BTreeMap<usize, Vec<String>>> {
    let mut out: FxHashMap<String, BTreeMap<usize, Vec<String>>> = FxHashMap::default();
    for s in &observations.sequences {
        for (i, a) in s.constructor.iter().flatten().enumerate() {
            if let crate::suite::Argument::Object { class, .. } = a {
                add_class(
                    out.entry(s.class.clone())
                        .or_default()
                        .entry(i)
                        .or_default(),
                    class,
                );
            }
        }
    }
    out
}

/// Arguments seeded per function from the suite: enough to start from each distinct way the
/// tests call it, few enough not to crowd out the search.
const OBSERVED: usize = 16;

/// The scalar arguments of the suite's calls of each function (its entry samples' parameters
/// that hold a number, a boolean or a text), distinct, at most `OBSERVED` per function; and the
/// range of the numbers each parameter, and each field of an argument, took in all of them.
fn observed_inputs(observations: &Observations) -> (Arguments, Ranges) {
    let mut out = FxHashMap::default();
    let mut out_ranges = FxHashMap::default();
    for f in &observations.functions {
        let mut inputs: Vec<BTreeMap<String, ModelValue>> = vec![];
        for sample in &f.entry.samples {
            // Parameters by their own names; derived variables (`len(x)`, `x is None`,
            // `type(x)`, `self._items`) are not arguments.
            let input = scalars(sample, |k| k != "self" && identifier(k));
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
        // The numbers of the parameters and of their fields (`self.a`, `other.year`; a field
        // named like a constructor argument is taken as that argument's by `generation`).
        let numbers: Vec<BTreeMap<String, ModelValue>> = f
            .entry
            .samples
            .iter()
            .map(|sample| {
                scalars(sample, |k| match k.split_once('.') {
                    Some((root, field)) => identifier(root) && identifier(field),
                    None => identifier(k),
                })
            })
            .collect();
        let r = ranges(&numbers);
        if !r.is_empty() {
            out_ranges.insert(f.function.clone(), r);
        }
    }
    (out, out_ranges)
}

/// The variables of a sample `keep` accepts that hold a number, a boolean or a text.
fn scalars(
    sample: &crate::suite::Sample,
    keep: impl Fn(&str) -> bool,
) -> BTreeMap<String, ModelValue> {
    use crate::suite::Variable;
    sample
        .iter()
        .filter(|(k, _)| keep(k))
        .filter_map(|(k, v)| {
            let value = match v {
                Variable::Bool(b) => ModelValue::Bool(*b),
                Variable::Int(i) => ModelValue::Int(i.clone()),
                Variable::Float(f) => ModelValue::Real(f.parse().ok()?),
                Variable::Str(s) => ModelValue::Str(s.clone()),
            };
            Some((k.clone(), value))
        })
        .collect()
}

fn identifier(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
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

    /// The range of each parameter and each field of an argument over every sampled call, not
    /// only the distinct arguments kept as seeds; derived variables have none, nor a field
    /// that held a text.
    #[test]
    fn the_numbers_of_every_sampled_call_make_the_ranges() {
        use crate::explore::ranges::Range;
        use crate::suite::{FunctionObservations, ProgramPoint, Variable};
        let int = |v: i64| Variable::Int(v.to_string());
        let samples = (1..=20)
            .map(|m| {
                BTreeMap::from([
                    ("month".to_owned(), int(m % 12 + 1)),
                    ("len(xs)".to_owned(), int(m)),
                    (
                        "self.a".to_owned(),
                        Variable::Float(format!("{}.5", m - 10)),
                    ),
                    ("self.name".to_owned(), Variable::Str("x".into())),
                ])
            })
            .collect();
        let observations = Observations {
            functions: vec![FunctionObservations {
                function: "cal:Month.days".into(),
                file: "cal.py".into(),
                entry: ProgramPoint {
                    calls: 20,
                    samples,
                    complete: true,
                    ..ProgramPoint::default()
                },
                exit: ProgramPoint::default(),
                profiles: vec![],
            }],
            sequences: vec![],
        };
        let inputs = SuiteInputs::new(&observations);
        // The seeds: the twelve distinct months (derived variables and fields are no
        // arguments).
        assert_eq!(inputs.arguments["cal:Month.days"].len(), 12);
        assert_eq!(
            inputs.ranges["cal:Month.days"],
            BTreeMap::from([
                ("month".to_owned(), Range::Int(1, 12)),
                ("self.a".to_owned(), Range::Real(-9.5, 10.5)),
            ])
        );
    }

    #[test]
    fn objects_the_suite_passed_are_told_by_class_and_rebuilt_as_it_built_them() {
        use crate::suite::{
            Argument, Built, CallSequence, FunctionObservations, MethodCall, ProgramPoint, Variable,
        };
        let locker = Argument::Object {
            class: "vault.locker.Locker".into(),
            built: Some(Box::new(Built {
                constructor: Some(vec![Argument::Str {
                    value: Some("1357".into()),
                    len: None,
                }]),
                calls: vec![MethodCall {
                    method: "unlock".into(),
                    args: vec![Argument::Str {
                        value: Some("1357".into()),
                        len: None,
                    }],
                }],
            })),
        };
        let entry = ProgramPoint {
            calls: 2,
            samples: vec![
                BTreeMap::from([
                    (
                        "type(other)".into(),
                        Variable::Str("vault.locker.Locker".into()),
                    ),
                    (
                        "type(self)".into(),
                        Variable::Str("vault.shelf.Shelf".into()),
                    ),
                    ("type(n)".into(), Variable::Str("builtins.int".into())),
                ]),
                BTreeMap::from([(
                    "type(other)".into(),
                    Variable::Str("vault.locker.Safe".into()),
                )]),
            ],
            tests: vec![],
            sides: vec![],
            counts: vec![],
            complete: true,
            read: None,
        };
        let observations = Observations {
            functions: vec![FunctionObservations {
                function: "vault.shelf:Shelf.swap".into(),
                file: "vault/shelf.py".into(),
                entry,
                exit: ProgramPoint::default(),
                profiles: vec![],
            }],
            sequences: vec![CallSequence {
                class: "vault.shelf.Shelf".into(),
                constructor: Some(vec![locker]),
                calls: vec![],
                count: 1,
            }],
        };
        let inputs = SuiteInputs::new(&observations);
        // The classes of the objects passed to the function, by parameter (not `self`, not a
        // builtin), and to its receiver's constructor, by position.
        assert_eq!(
            inputs.passed["vault.shelf:Shelf.swap"],
            BTreeMap::from([(
                "other".to_owned(),
                vec![
                    "vault.locker.Locker".to_owned(),
                    "vault.locker.Safe".to_owned()
                ]
            )])
        );
        assert_eq!(
            inputs.constructed_with["vault.shelf.Shelf"],
            BTreeMap::from([(0, vec!["vault.locker.Locker".to_owned()])])
        );
        // The shelf's sequence holds the locker as the test built it.
        let kept = &inputs.sequences["vault.shelf.Shelf"];
        let str_value = |v: &str| MinedArgument::Value(ModelValue::Str(v.into()));
        assert_eq!(
            kept[0].constructor,
            vec![MinedArgument::Object {
                class: "vault.locker.Locker".into(),
                built: Box::new(MinedSequence {
                    constructor: vec![str_value("1357")],
                    calls: vec![("unlock".into(), vec![str_value("1357")])],
                }),
            }]
        );
    }
}
