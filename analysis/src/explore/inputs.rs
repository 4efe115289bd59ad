//! The inputs of a function: their shapes (from the agent's `describe` of the signature, or
//! from annotation text and literals when it has none), candidate inputs as variable values
//! plus choices (which variant of an `Optional`, which enum member, which type for an
//! unannotated parameter, which method calls build an object), the types a candidate gives
//! inputs in place of their shapes (to turn a type test the other way), the value trees the
//! agent receives — callables among them, whose return values are inputs too — and the domains
//! of value types' constructor arguments, which the solver keeps its models within.

use super::shape::{Domain, Shape};
use super::signature::FactoryDecl;
use super::value::ModelValue;
use crate::agent::protocol::{MethodCall, Value, ValueTree};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// One candidate input: values of variables (by access path), choices (by path), method calls
/// that build objects (by path), and lengths of containers. Anything not set takes a default.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    pub vars: BTreeMap<String, ModelValue>,
    pub choices: BTreeMap<String, usize>,
    /// Per object path, the method calls made after construction, by method index into the
    /// object shape's methods.
    pub calls: BTreeMap<String, Vec<usize>>,
    /// Inputs given another shape than the signature's (a `str` parameter passed an `int`, to
    /// turn `isinstance(value, str)` the other way), by path.
    pub types: BTreeMap<String, Shape>,
}

impl Candidate {
    /// A key identifying the candidate, to avoid running the same input twice.
    pub fn key(&self) -> String {
        format!(
            "{:?}|{:?}|{:?}|{:?}",
            self.vars, self.choices, self.calls, self.types
        )
    }
}

/// The path of the value the `k`-th call of the callable input at `path` returns.
pub fn call_return(path: &str, k: usize) -> String {
    format!("{path}.__call__[{k}]")
}

/// The choice of whether call `k` of the callable input at `path` returns (0) or raises
/// (`n`: the `n`-th of the exceptions the function can raise, [`raisable`]).
pub fn call_raises(path: &str, k: usize) -> String {
    format!("{path}.__call__[{k}]!raises")
}

/// Python's built-in exception classes: a handler's name that is one of them is the built-in
/// (`builtins:KeyError`), any other a name its module binds.
const BUILTIN_EXCEPTIONS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "EOFError",
    "EnvironmentError",
    "Exception",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "RuntimeError",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SystemError",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeError",
    "ValueError",
    "ZeroDivisionError",
];

/// The exceptions a callable input's call is tried raising in a function of `module` whose
/// `except` clauses name `handled` (as written): each of them, then `Exception` (what a failing
/// callback raises, which reaches the clauses that catch everything, or none), at most four.
pub fn raisable(module: &str, handled: &[String]) -> Vec<String> {
    const MAX_RAISABLE: usize = 4;
    let mut out: Vec<String> = handled
        .iter()
        .filter(|name| name.as_str() != "Exception" && name.as_str() != "BaseException")
        .map(|name| {
            if BUILTIN_EXCEPTIONS.contains(&name.as_str()) {
                format!("builtins:{name}")
            } else {
                format!("{module}:{name}")
            }
        })
        .take(MAX_RAISABLE - 1)
        .collect();
    out.push("builtins:Exception".to_owned());
    out
}

/// Builds value trees for a candidate; `bound` caps container lengths.
pub struct Builder<'a> {
    pub candidate: &'a Candidate,
    pub bound: usize,
    /// Literals found in the function, for defaults that are more likely to matter.
    pub strings: &'a [String],
    /// Factories of the guidance module: objects of their classes are built through them.
    pub factories: &'a [FactoryDecl],
    /// How many values each callable input returns (one per call seen), by path; 1 when
    /// absent.
    pub callable_calls: &'a BTreeMap<String, usize>,
    /// The exceptions a callable input's call can raise ([`raisable`]).
    pub raisable: &'a [String],
}

/// The choice that builds the object at `path` through its constructor although a factory
/// exists (taken when the factory cannot build the inputs the solver asks for).
pub fn constructor_choice(path: &str) -> String {
    format!("{path}#constructor")
}

/// The path of a factory's parameter inside the object it builds: `order.__factory__.items`.
pub fn factory_param(object: &str, param: &str) -> String {
    format!("{object}.__factory__.{param}")
}

impl Builder<'_> {
    pub fn build(&self, shape: &Shape, path: &str) -> ValueTree {
        let c = self.candidate;
        if let Some(other) = c.types.get(path)
            && other != shape
        {
            return self.build(other, path);
        }
        match shape {
            Shape::Int => ValueTree::named(
                Value::Int {
                    value: match c.vars.get(path) {
                        Some(ModelValue::Int(d)) => d.clone(),
                        Some(ModelValue::Bool(b)) => u8::from(*b).to_string(),
                        Some(ModelValue::Real(x)) if x.is_finite() => {
                            (x.trunc() as i64).to_string()
                        }
                        _ => "0".to_owned(),
                    },
                },
                path,
            ),
            Shape::Bool => ValueTree::named(
                Value::Bool {
                    value: match c.vars.get(path) {
                        Some(ModelValue::Bool(b)) => *b,
                        Some(ModelValue::Int(d)) => d != "0",
                        _ => false,
                    },
                },
                path,
            ),
            Shape::Str => ValueTree::named(
                Value::Str {
                    value: match c.vars.get(path) {
                        Some(ModelValue::Str(s)) => s.clone(),
                        Some(ModelValue::Int(d)) => d.clone(),
                        _ => String::new(),
                    },
                },
                path,
            ),
            Shape::Float => ValueTree::named(
                Value::Float {
                    value: match c.vars.get(path) {
                        Some(ModelValue::Real(x)) => float_json(*x),
                        Some(ModelValue::Int(d)) => {
                            d.parse::<f64>().map(float_json).unwrap_or(0.0.into())
                        }
                        _ => 0.0.into(),
                    },
                },
                path,
            ),
            Shape::None => ValueTree::new(Value::None),
            Shape::Bytes => ValueTree::named(
                Value::Bytes {
                    value: match c.vars.get(path) {
                        Some(ModelValue::Str(s)) => s.clone(),
                        Some(ModelValue::Int(d)) => d.clone(),
                        _ => String::new(),
                    },
                },
                path,
            ),
            Shape::Callable { returns, named } => {
                if let (Some(name), 0) = (named, c.choices.get(path).copied().unwrap_or(0)) {
                    return ValueTree::named(Value::Ref { name: name.clone() }, path);
                }
                let n = self.callable_calls.get(path).copied().unwrap_or(1).max(1);
                let mut values: Vec<ValueTree> = vec![];
                for k in 0..n {
                    let at = call_return(path, k);
                    // A call the candidate says nothing of answers like the one before it (as
                    // the last value repeats when there are more calls than values).
                    let unset = !c.vars.keys().any(|v| v.starts_with(&at))
                        && !c.choices.keys().any(|v| v.starts_with(&at))
                        && !c.types.keys().any(|v| v.starts_with(&at));
                    if let Some(&n) = c.choices.get(&call_raises(path, k))
                        && n >= 1
                    {
                        let exception = self.raisable.get(n - 1).cloned();
                        values.push(ValueTree::new(Value::Raise { exception }));
                        continue;
                    }
                    let value = match values.last() {
                        Some(previous) if unset && is_scalar(&previous.value) => ValueTree {
                            value: previous.value.clone(),
                            sym: Some(at),
                        },
                        _ => self.build(returns, &at),
                    };
                    values.push(value);
                }
                ValueTree::named(Value::Callable { returns: values }, path)
            }
            Shape::Any | Shape::Optional(_) | Shape::Union(_) => {
                let variants = shape.variants();
                let pick = c.choices.get(path).copied().unwrap_or(0) % variants.len().max(1);
                match variants.get(pick) {
                    Some(v) => self.build(v, path),
                    None => ValueTree::new(Value::None),
                }
            }
            Shape::Literal(values) => {
                let pick = c.choices.get(path).copied().unwrap_or(0);
                match values.get(pick % values.len().max(1)) {
                    Some(Json::Bool(b)) => ValueTree::new(Value::Bool { value: *b }),
                    Some(Json::Number(n)) if n.is_i64() || n.is_u64() => {
                        ValueTree::new(Value::Int {
                            value: n.to_string(),
                        })
                    }
                    Some(Json::Number(n)) => ValueTree::new(Value::Float {
                        value: Json::Number(n.clone()),
                    }),
                    Some(Json::String(s)) => ValueTree::new(Value::Str { value: s.clone() }),
                    _ => ValueTree::new(Value::None),
                }
            }
            Shape::Class(classes) => {
                let pick = c.choices.get(path).copied().unwrap_or(0);
                match classes.get(pick % classes.len().max(1)) {
                    Some(name) => ValueTree::named(Value::Ref { name: name.clone() }, path),
                    None => ValueTree::new(Value::None),
                }
            }
            Shape::Enum { class, members } => {
                let pick = c.choices.get(path).copied().unwrap_or(0);
                match members.get(pick % members.len().max(1)) {
                    Some(m) => ValueTree::new(Value::Enum {
                        class: class.clone(),
                        member: m.clone(),
                    }),
                    None => ValueTree::new(Value::None),
                }
            }
            Shape::List(item)
            | Shape::Set(item)
            | Shape::Iterator(item)
            | Shape::AsyncIterator(item)
            | Shape::TupleOf(item) => {
                let n = self.length(path);
                let items = (0..n)
                    .map(|i| self.build(item, &format!("{path}[{i}]")))
                    .collect();
                let value = match shape {
                    Shape::Set(_) => Value::Set { items },
                    Shape::Iterator(_) => Value::Iterator { items },
                    Shape::AsyncIterator(_) => Value::AsyncIterator { items },
                    Shape::TupleOf(_) => Value::TupleOf { items },
                    _ => Value::List { items },
                };
                ValueTree::named(value, path)
            }
            Shape::Tuple(items) => ValueTree::named(
                Value::Tuple {
                    items: items
                        .iter()
                        .enumerate()
                        .map(|(i, s)| self.build(s, &format!("{path}[{i}]")))
                        .collect(),
                },
                path,
            ),
            Shape::Dict(key, value) => {
                let n = self.length(path);
                let mut items = vec![];
                for i in 0..n {
                    let k = match (**key).clone() {
                        Shape::Str | Shape::Any => {
                            let k = self
                                .strings
                                .get(i)
                                .cloned()
                                .unwrap_or_else(|| format!("k{i}"));
                            ValueTree::new(Value::Str { value: k })
                        }
                        Shape::Int => ValueTree::new(Value::Int {
                            value: i.to_string(),
                        }),
                        other => self.build(&other, &format!("{path}.__key{i}__")),
                    };
                    let key_text = match &k.value {
                        Value::Str { value } => format!("{value:?}").replace('"', "'"),
                        Value::Int { value } => value.clone(),
                        _ => i.to_string(),
                    };
                    let v = self.build(value, &format!("{path}[{key_text}]"));
                    items.push((k, v));
                }
                ValueTree::named(Value::Dict { items }, path)
            }
            Shape::Object(object) => {
                let factory = self
                    .factories
                    .iter()
                    .find(|f| f.class == object.class)
                    .filter(|_| c.choices.get(&constructor_choice(path)) != Some(&1));
                if let Some(factory) = factory {
                    // An unannotated factory parameter named like a constructor parameter
                    // takes that parameter's type (the skeleton passes it on).
                    let args = factory
                        .params
                        .iter()
                        .map(|(name, s)| {
                            let s = match s {
                                Shape::Any => object
                                    .init
                                    .iter()
                                    .find(|(n, _)| n == name)
                                    .map_or(s, |(_, init)| init),
                                s => s,
                            };
                            self.build(s, &factory_param(path, name))
                        })
                        .collect();
                    return ValueTree::named(
                        Value::Factory {
                            function: factory.function.clone(),
                            args,
                            kwargs: BTreeMap::new(),
                        },
                        path,
                    );
                }
                let init = &format!("{path}.__init__");
                let (keyword, positional): (Vec<_>, Vec<_>) = object
                    .init
                    .iter()
                    .partition(|(name, _)| object.keyword_only.contains(name));
                let argument = |name: &String, s: &Shape| {
                    self.build_within(s, &format!("{init}.{name}"), object.domains.get(name))
                };
                let args = positional
                    .iter()
                    .map(|(name, s)| argument(name, s))
                    .collect();
                let kwargs = keyword
                    .iter()
                    .map(|(name, s)| (name.clone(), argument(name, s)))
                    .collect();
                let calls = c
                    .calls
                    .get(path)
                    .map(|calls| {
                        calls
                            .iter()
                            .enumerate()
                            .filter_map(|(k, &m)| {
                                let (method, params) = object.methods.get(m)?;
                                Some(MethodCall {
                                    method: method.clone(),
                                    args: params
                                        .iter()
                                        .map(|(p, s)| {
                                            self.build_call_arg(
                                                s,
                                                &format!("{path}.{method}.{k}.{p}"),
                                                k,
                                            )
                                        })
                                        .collect(),
                                    kwargs: BTreeMap::new(),
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                ValueTree::named(
                    Value::Object {
                        class: object.class.clone(),
                        args,
                        kwargs,
                        calls,
                    },
                    path,
                )
            }
        }
    }

    /// [`Self::build`], with a default value (none chosen for `path` yet) moved inside the
    /// constructor argument's domain.
    fn build_within(&self, shape: &Shape, path: &str, domain: Option<&Domain>) -> ValueTree {
        let mut tree = self.build(shape, path);
        if let Some(domain) = domain
            && !self.candidate.vars.contains_key(path)
        {
            domain.admit(&mut tree.value);
        }
        tree
    }

    /// An argument of the `k`-th construction call: distinct per call unless the candidate says
    /// otherwise (so that `add(sku, qty)` called five times adds five different SKUs).
    fn build_call_arg(&self, shape: &Shape, path: &str, k: usize) -> ValueTree {
        // A value the candidate sets, or a kind it chose (a call that raised on the default
        // kind is tried with the others: `Search::vary_failing_call`).
        if self.candidate.vars.contains_key(path) || self.candidate.choices.contains_key(path) {
            return self.build(shape, path);
        }
        let value = match shape {
            Shape::Int | Shape::Any => Value::Int {
                value: (k + 1).to_string(),
            },
            Shape::Str => Value::Str {
                value: format!("item{k}"),
            },
            Shape::Float => Value::Float {
                value: ((k + 1) as f64).into(),
            },
            Shape::Bool => Value::Bool { value: true },
            other => return self.build(other, path),
        };
        ValueTree::named(value, path)
    }

    fn length(&self, path: &str) -> usize {
        let len = format!("{path}.__len__");
        match self.candidate.vars.get(&len) {
            Some(ModelValue::Int(d)) => {
                d.parse::<i64>().unwrap_or(0).clamp(0, self.bound as i64) as usize
            }
            _ => 0,
        }
    }
}

fn is_scalar(value: &Value) -> bool {
    matches!(
        value,
        Value::Int { .. } | Value::Bool { .. } | Value::Str { .. } | Value::Float { .. }
    )
}

fn float_json(x: f64) -> Json {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        x.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raisable_exceptions_are_the_handlers_built_ins_and_module_names_then_exception() {
        let handled: Vec<String> = ["KeyError", "requests.RequestException", "Exception"]
            .map(String::from)
            .into();
        assert_eq!(
            raisable("app.client", &handled),
            [
                "builtins:KeyError",
                "app.client:requests.RequestException",
                "builtins:Exception"
            ]
        );
        assert_eq!(raisable("app", &[]), ["builtins:Exception"]);
    }

    #[test]
    fn builds_named_trees() {
        let mut c = Candidate::default();
        c.vars
            .insert("xs.__len__".into(), ModelValue::Int("2".into()));
        c.vars.insert("xs[1]".into(), ModelValue::Int("7".into()));
        c.choices.insert("o".into(), 1);
        let b = Builder {
            candidate: &c,
            bound: 8,
            strings: &[],
            factories: &[],
            callable_calls: &BTreeMap::new(),
            raisable: &[],
        };
        let t = b.build(&Shape::List(Box::new(Shape::Int)), "xs");
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["sym"], "xs");
        assert_eq!(json["items"][1]["value"], "7");
        assert_eq!(json["items"][0]["sym"], "xs[0]");
        let t = b.build(&Shape::Optional(Box::new(Shape::Int)), "o");
        assert_eq!(serde_json::to_value(&t).unwrap()["kind"], "none");
        // An iterator's items are a list's: its length and elements are variables.
        let t = b.build(&Shape::Iterator(Box::new(Shape::Int)), "xs");
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["kind"], "iterator");
        assert_eq!(json["sym"], "xs");
        assert_eq!(json["items"][1]["value"], "7");
        assert_eq!(json["items"][0]["sym"], "xs[0]");
    }
}
