//! Inputs no path condition asks for: when the solver has no target left and sides are still
//! uncovered, the search spends the rest of its budget on mutations of the inputs it kept —
//! scalars nudged, replaced by literals of the function or by random values, containers made
//! longer or shorter, other alternatives of choices. Randomness comes from a generator seeded
//! with a constant and the function's name: the same function, configuration and agent give
//! the same inputs in the same order. This module builds candidates; it runs nothing.

use super::inputs::Candidate;
use super::rng::Rng;
use super::shape::Shape;
use super::value::ModelValue;
use crate::agent::protocol::{ExecuteRequest, Value, ValueTree};

/// What the mutations draw from besides randomness.
pub struct Sources<'a> {
    pub strings: &'a [String],
    pub numbers: &'a [i64],
    /// Every choice of the inputs with its number of alternatives.
    pub choices: &'a [(String, usize)],
    /// The object inputs methods can be called on (by path), with their number of methods.
    pub objects: &'a [(String, usize)],
    /// Containers are not made longer than this.
    pub bound: usize,
}

/// A scalar or a length a request sets, with its current value.
#[derive(Clone, Debug, PartialEq)]
enum Slot {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Length(usize),
}

/// The named scalars and container lengths of a request's inputs, and the texts it holds
/// (dict keys included): a key of one input is often what another must equal.
fn slots(request: &ExecuteRequest) -> (Vec<(String, Slot)>, Vec<String>) {
    fn visit(t: &ValueTree, out: &mut Vec<(String, Slot)>, texts: &mut Vec<String>) {
        if let Value::Str { value } = &t.value
            && !texts.contains(value)
        {
            texts.push(value.clone());
        }
        if let Some(s) = &t.sym {
            let slot = match &t.value {
                Value::Int { value } => value.parse().ok().map(Slot::Int),
                Value::Float { value } => value.as_f64().map(Slot::Float),
                Value::Str { value } => Some(Slot::Str(value.clone())),
                Value::Bool { value } => Some(Slot::Bool(*value)),
                Value::List { items }
                | Value::Set { items }
                | Value::Iterator { items }
                | Value::AsyncIterator { items }
                | Value::TupleOf { items } => Some(Slot::Length(items.len())),
                Value::Dict { items } => Some(Slot::Length(items.len())),
                _ => None,
            };
            if let Some(slot) = slot {
                let path = match slot {
                    Slot::Length(_) => format!("{s}.__len__"),
                    _ => s.clone(),
                };
                out.push((path, slot));
            }
        }
    }
    let (mut out, mut texts) = (vec![], vec![]);
    for t in request
        .args
        .iter()
        .chain(request.kwargs.values())
        .chain(request.receiver.iter())
        .chain(request.mocks.iter().flat_map(|m| m.returns.iter()))
    {
        t.walk(&mut |node| visit(node, &mut out, &mut texts));
    }
    (out, texts)
}

/// A mutation of `base` (whose request is `request`): one to three of its scalars, lengths or
/// choices changed. `None` when the input has nothing to change.
pub fn mutate(
    base: &Candidate,
    request: &ExecuteRequest,
    sources: &Sources<'_>,
    rng: &mut Rng,
) -> Option<Candidate> {
    let (slots, mut texts) = slots(request);
    if slots.is_empty() && sources.choices.is_empty() && sources.objects.is_empty() {
        return None;
    }
    // The input's own texts (a dict's keys) first, then the function's literals.
    let own = texts.len();
    texts.extend(sources.strings.iter().cloned());
    let mut next = base.clone();
    // One mutation in four (or every one, when there is nothing else) inserts or removes a
    // method call on an object input: state its constructor cannot set.
    if !sources.objects.is_empty()
        && (slots.is_empty() && sources.choices.is_empty() || rng.below(4) == 0)
    {
        let (path, methods) = &sources.objects[rng.below(sources.objects.len())];
        let calls = next.calls.entry(path.clone()).or_default();
        if !calls.is_empty() && (calls.len() >= MAX_CALLS || rng.below(3) == 0) {
            calls.remove(rng.below(calls.len()));
        } else {
            calls.insert(rng.below(calls.len() + 1), rng.below(*methods));
        }
        if calls.is_empty() {
            next.calls.remove(path);
        }
        return Some(next);
    }
    if slots.is_empty() && sources.choices.is_empty() {
        return None;
    }
    for _ in 0..1 + rng.below(3) {
        // A choice changes the input's kind, which mostly undoes what the base had reached: one
        // change in four is one, when there are values to change too.
        let k = if sources.choices.is_empty() || !slots.is_empty() && rng.below(4) != 0 {
            rng.below(slots.len())
        } else {
            slots.len() + rng.below(sources.choices.len())
        };
        if let Some((path, slot)) = slots.get(k) {
            // Now and then a scalar of another type: an input the code tests the type of, or
            // one whose type was guessed wrong.
            if !matches!(slot, Slot::Length(_)) && rng.below(4) == 0 {
                let (shape, value) = match slot {
                    Slot::Str(_) => (
                        Shape::Int,
                        ModelValue::Int(
                            rng.pick(sources.numbers).copied().unwrap_or(1).to_string(),
                        ),
                    ),
                    _ => {
                        let from = if own > 0 && rng.below(2) == 0 {
                            &texts[..own]
                        } else {
                            &texts[..]
                        };
                        (
                            Shape::Str,
                            ModelValue::Str(rng.pick(from).cloned().unwrap_or_default()),
                        )
                    }
                };
                next.types.insert(path.clone(), shape);
                next.vars.insert(path.clone(), value);
                continue;
            }
            next.vars
                .insert(path.clone(), mutated(slot, &texts, sources, rng));
        } else if let Some((path, count)) = sources.choices.get(k - slots.len()) {
            next.choices.insert(path.clone(), rng.below(*count));
        }
    }
    Some(next)
}

/// An input near `base` (whose request is `request`): one or two of its scalars changed within
/// their type — nudged, negated, doubled, its case changed, or given a value the same input
/// took in another call of `seen` (by access path). `None` when it has no scalar. Unlike
/// [`mutate`], never another type or another choice: a neighbour is an input of the kind the
/// project's own tests pass, so that what its run breaks of their invariants speaks of the
/// code, not of the input.
pub fn neighbour(
    base: &Candidate,
    request: &ExecuteRequest,
    seen: &std::collections::BTreeMap<String, Vec<ModelValue>>,
    sources: &Sources<'_>,
    rng: &mut Rng,
) -> Option<Candidate> {
    let (slots, texts) = slots(request);
    let slots: Vec<(String, Slot)> = slots
        .into_iter()
        .filter(|(_, s)| !matches!(s, Slot::Length(_)))
        .collect();
    if slots.is_empty() {
        return None;
    }
    let mut next = base.clone();
    for _ in 0..1 + rng.below(2) {
        let (path, slot) = &slots[rng.below(slots.len())];
        let alike: Vec<&ModelValue> = seen
            .get(path)
            .into_iter()
            .flatten()
            .filter(|v| {
                matches!(
                    (slot, v),
                    (Slot::Int(_), ModelValue::Int(_))
                        | (Slot::Float(_), ModelValue::Real(_))
                        | (Slot::Str(_), ModelValue::Str(_))
                        | (Slot::Bool(_), ModelValue::Bool(_))
                )
            })
            .collect();
        let value = match (rng.pick(&alike), slot) {
            (Some(v), _) if rng.below(3) == 0 => (*v).clone(),
            (_, Slot::Float(x)) => ModelValue::Real(match rng.below(6) {
                0 => x + 1.0,
                1 => x - 1.0,
                2 => -x,
                3 => x * 2.0,
                4 => x / 2.0,
                _ => x + 0.001,
            }),
            (_, Slot::Str(s)) if rng.below(4) == 0 => {
                ModelValue::Str(if s.chars().any(char::is_lowercase) {
                    s.to_uppercase()
                } else {
                    s.to_lowercase()
                })
            }
            _ => mutated(slot, &texts, sources, rng),
        };
        next.vars.insert(path.clone(), value);
    }
    Some(next)
}

/// Most method calls a mutation leaves on one object input.
const MAX_CALLS: usize = 4;

/// Longest text padded to a number of the function.
pub const MAX_PADDED: usize = 1 << 16;

/// `s` cut or padded with `a` to `len` characters.
pub fn padded(s: &str, len: usize) -> String {
    let mut t: String = s.chars().take(len).collect();
    let pad = len - t.chars().count();
    t.push_str(&"a".repeat(pad));
    t
}

fn mutated(slot: &Slot, texts: &[String], sources: &Sources<'_>, rng: &mut Rng) -> ModelValue {
    match slot {
        Slot::Int(n) => {
            let v = match rng.below(6) {
                0 => n.saturating_add(1),
                1 => n.saturating_sub(1),
                2 => n.saturating_mul(2).saturating_add(1),
                3 => n.saturating_neg(),
                4 => sources
                    .numbers
                    .get(rng.below(sources.numbers.len()))
                    .copied()
                    .map_or(0, |m| m + [-1, 0, 1][rng.below(3)]),
                _ => rng.below(2001) as i64 - 1000,
            };
            ModelValue::Int(v.to_string())
        }
        Slot::Float(x) => ModelValue::Real(match rng.below(6) {
            0 => x + 0.5,
            1 => x - 1.5,
            2 => x * 10.0,
            3 => -x,
            4 => *[f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.0, 1e-9]
                .get(rng.below(5))
                .unwrap_or(&0.0),
            _ => (rng.below(20_001) as f64 - 10_000.0) / 100.0,
        }),
        Slot::Str(s) => ModelValue::Str(match rng.below(7) {
            0 => rng.pick(texts).cloned().unwrap_or_default(),
            // As long as a number of the function, or one longer: a size limit (`len(frame) >
            // self.max_frame`) is a length the solver may not reach within its time.
            6 => {
                let limits: Vec<usize> = sources
                    .numbers
                    .iter()
                    .filter_map(|&n| usize::try_from(n).ok())
                    .filter(|&n| (1..=MAX_PADDED).contains(&n))
                    .collect();
                match rng.pick(&limits) {
                    Some(&n) => padded(s, n + rng.below(2)),
                    None => s.repeat(2),
                }
            }
            1 => String::new(),
            // A number written into the text, at its start or end (`15m`, `v2`).
            5 => {
                let number = match rng.pick(sources.numbers) {
                    Some(n) if rng.below(2) == 0 => n.to_string(),
                    _ => rng.below(100).to_string(),
                };
                if rng.below(2) == 0 {
                    format!("{number}{s}")
                } else {
                    format!("{s}{number}")
                }
            }
            2 => {
                let c = *rng
                    .pick(&[' ', 'a', 'Z', '0', '9', '-', '.', '_', ',', 'é', '\n'])
                    .unwrap_or(&'a');
                let mut t = s.clone();
                let at = rng.below(t.chars().count() + 1);
                let byte = t.char_indices().nth(at).map_or(t.len(), |(i, _)| i);
                t.insert(byte, c);
                t
            }
            3 => {
                let n = s.chars().count();
                let mut t: String = s.chars().take(n / 2).collect();
                t.push_str(&s.chars().skip(n / 2 + 1).collect::<String>());
                t
            }
            _ => {
                let n = 1 + rng.below(8);
                (0..n)
                    .map(|_| char::from(b"abcxyzABC0123456789 -_.,/"[rng.below(25)]))
                    .collect()
            }
        }),
        Slot::Bool(b) => ModelValue::Bool(!b),
        Slot::Length(n) => {
            let v = match rng.below(3) {
                0 => n + 1,
                1 => n.saturating_sub(1),
                _ => rng.below(sources.bound.min(8) + 1),
            };
            ModelValue::Int(v.min(sources.bound).to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::protocol::Target;

    fn request(args: Vec<ValueTree>) -> ExecuteRequest {
        ExecuteRequest {
            target: Target {
                module: "m".into(),
                qualname: "f".into(),
                call: Default::default(),
            },
            receiver: None,
            args,
            kwargs: Default::default(),
            mocks: vec![],
            timeout_ms: 1000,
            random_seed: 0,
        }
    }

    #[test]
    fn the_same_function_gets_the_same_mutations() {
        let req = request(vec![
            ValueTree::named(Value::Int { value: "3".into() }, "n"),
            ValueTree::named(
                Value::List {
                    items: vec![ValueTree::named(Value::Str { value: "a".into() }, "xs[0]")],
                },
                "xs",
            ),
        ]);
        let sources = Sources {
            strings: &["SAVE".to_owned()],
            numbers: &[10],
            choices: &[("o".to_owned(), 2)],
            objects: &[],
            bound: 8,
        };
        let run = |name: &str| {
            let mut rng = Rng::for_function(name);
            (0..40)
                .map(|_| mutate(&Candidate::default(), &req, &sources, &mut rng).unwrap())
                .collect::<Vec<_>>()
        };
        let a = run("m.f");
        assert_eq!(a, run("m.f"), "deterministic");
        assert_ne!(a, run("m.g"), "another function, another sequence");
        // Every mutation changes something the request sets, within the bound; some give a
        // scalar another type.
        assert!(a.iter().any(|c| !c.types.is_empty()));
        for c in &a {
            assert!(!c.vars.is_empty() || !c.choices.is_empty());
            for (path, value) in &c.vars {
                assert!(
                    ["n", "xs.__len__", "xs[0]"].contains(&path.as_str()),
                    "{path}"
                );
                if let ModelValue::Int(d) = value
                    && path.ends_with("__len__")
                {
                    assert!(d.parse::<usize>().unwrap() <= 8);
                }
            }
        }
    }

    /// A neighbour keeps every scalar's type and every choice, leaves containers' lengths
    /// alone, and now and then takes a value the same parameter had in another of the tests'
    /// calls.
    #[test]
    fn neighbours_keep_types_and_cross_the_tests_values() {
        let req = request(vec![
            ValueTree::named(Value::Int { value: "3".into() }, "n"),
            ValueTree::named(Value::Str { value: "ab".into() }, "s"),
            ValueTree::named(
                Value::List {
                    items: vec![ValueTree::named(Value::Int { value: "1".into() }, "xs[0]")],
                },
                "xs",
            ),
        ]);
        let sources = Sources {
            strings: &[],
            numbers: &[10],
            choices: &[("o".to_owned(), 2)],
            objects: &[],
            bound: 8,
        };
        let seen: std::collections::BTreeMap<String, Vec<ModelValue>> = [
            ("n".to_owned(), vec![ModelValue::Int("42".into())]),
            ("s".to_owned(), vec![ModelValue::Int("7".into())]),
        ]
        .into_iter()
        .collect();
        let mut rng = Rng::for_function("m.f");
        let base = Candidate::default();
        let all: Vec<Candidate> = (0..60)
            .map(|_| neighbour(&base, &req, &seen, &sources, &mut rng).unwrap())
            .collect();
        for c in &all {
            assert!(c.types.is_empty() && c.choices.is_empty(), "{c:?}");
            assert!(!c.vars.is_empty() && c.vars.len() <= 2, "{c:?}");
            for (path, value) in &c.vars {
                match path.as_str() {
                    "n" | "xs[0]" => assert!(matches!(value, ModelValue::Int(_)), "{c:?}"),
                    // The tests' `7` for `s` is of another type: never taken.
                    "s" => assert!(matches!(value, ModelValue::Str(_)), "{c:?}"),
                    other => panic!("{other}"),
                }
            }
        }
        assert!(
            all.iter()
                .any(|c| c.vars.get("n") == Some(&ModelValue::Int("42".into())))
        );
    }
}
