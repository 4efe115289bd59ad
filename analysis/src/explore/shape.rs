//! The shapes of a function's inputs, as the agent's `describe` gives them (or as the
//! annotation text and uses suggest when it has none): scalars, containers, iterators, choices
//! (`Optional`, unions, enums, literals), callables and objects with their constructor
//! arguments, methods and the domains of a value type's arguments. Plain data read from the
//! agent's typed description (`agent::description`): no candidates, no solver.

use crate::agent::description::{Bounds, Param, TypeTree};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// What kind of value a parameter takes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    Int,
    Bool,
    Str,
    Float,
    None,
    Bytes,
    /// A callable: each call returns an input of shape `returns` (`predicate.__call__[0]`,
    /// `predicate.__call__[1]`, …), or, as the first choice, the existing function or class
    /// `named` (`builtins:dict`, a parameter's default).
    Callable {
        returns: Box<Shape>,
        named: Option<String>,
    },
    /// Unknown: tried as each of a few common types.
    Any,
    Optional(Box<Shape>),
    Union(Vec<Shape>),
    List(Box<Shape>),
    Set(Box<Shape>),
    /// An iterator over items of the shape (`Iterator[int]`, `Generator[int, None, None]`, a
    /// parameter `next()` is called on): built as a list's items are, its length a variable
    /// as a list's, and passed as `iter([...])`.
    Iterator(Box<Shape>),
    /// An asynchronous iterator over items of the shape (`AsyncIterator[int]`,
    /// `AsyncIterable[int]`, `AsyncGenerator[int, None]`): built as an iterator is, passed as
    /// an asynchronous generator over a list (`_async_items([...])`).
    AsyncIterator(Box<Shape>),
    Tuple(Vec<Shape>),
    /// A tuple of any length (`tuple[str, ...]`, a `Sequence` tried as a tuple): its items
    /// built as a list's are, passed as a tuple.
    TupleOf(Box<Shape>),
    Dict(Box<Shape>, Box<Shape>),
    Literal(Vec<Json>),
    Enum {
        class: String,
        members: Vec<String>,
    },
    Object(ObjectShape),
    /// A class: the one a `Type[C]` annotation names or one of the project's subclasses of it
    /// (`module:Qual`), a choice among them.
    Class(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ObjectShape {
    /// `module:Qual.name`.
    pub class: String,
    pub init: Vec<(String, Shape)>,
    /// Public methods with their parameters: the calls an object can be driven through.
    pub methods: Vec<(String, Vec<(String, Shape)>)>,
    /// Constructor parameters passed by keyword only (a `TypedDict`'s keys).
    pub keyword_only: Vec<String>,
    /// The domains of constructor arguments that have one (a value type's: `hour` of a
    /// `datetime`), by name.
    pub domains: BTreeMap<String, Domain>,
}

impl ObjectShape {
    /// The class as the suite's observer names it (`module.Qual`, where the shape has
    /// `module:Qual`).
    pub fn observed_name(&self) -> String {
        self.class.replacen(':', ".", 1)
    }
}

/// The values a constructor argument of a value type may take, as the agent's `describe` gives
/// them (`{"min": 0, "max": 23}`, `{"length": 32, "alphabet": "0123456789abcdef"}`): outside
/// them the constructor raises, so a model there would be an input error, not a new path.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Domain {
    /// An integer within `min..=max`; an absent bound does not bound.
    Int { min: Option<i64>, max: Option<i64> },
    /// A string of `length` characters (or between `min_length` and `max_length`), each one of
    /// `alphabet`; an absent one does not bound.
    Str {
        length: Option<u64>,
        #[serde(default)]
        min_length: Option<u64>,
        #[serde(default)]
        max_length: Option<u64>,
        alphabet: Option<String>,
    },
    /// A day of the month given by the sibling arguments `year` and `month` (of a `date`):
    /// 1 to 28, 29, 30 or 31 as that month has days, leap years included.
    Day { year: String, month: String },
}

impl Domain {
    /// Reads a `domain` of `describe`; none for an empty or unknown one (then nothing bounds
    /// the argument: models may be invalid, never missed).
    pub fn from_describe(d: &Bounds) -> Option<Domain> {
        if let Some([Some(year), Some(month)]) = d.day_of.as_deref() {
            return Some(Domain::Day {
                year: year.clone(),
                month: month.clone(),
            });
        }
        let (min, max) = (d.min, d.max);
        if min.is_some() || max.is_some() {
            return Some(Domain::Int { min, max });
        }
        let length = d.length;
        let (min_length, max_length) = (d.min_length, d.max_length);
        let alphabet = d.alphabet.clone();
        let bounded =
            length.is_some() || min_length.is_some() || max_length.is_some() || alphabet.is_some();
        bounded.then_some(Domain::Str {
            length,
            min_length,
            max_length,
            alphabet,
        })
    }

    /// Moves a default value (one no model chose) inside the domain: an integer to its nearest
    /// bound, a string padded with the alphabet's first character (else `a`) or cut to the
    /// lengths allowed, a day of the month to 1 to 28 (a day every month has). A model's
    /// `Field(ge=1)` rejects the default 0, `Field(min_length=4)` the empty string, `datetime`
    /// the day 0.
    pub fn admit(&self, value: &mut crate::agent::protocol::Value) {
        use crate::agent::protocol::Value;
        match (self, value) {
            (Domain::Day { .. }, Value::Int { value }) => {
                if let Ok(n) = value.parse::<i64>() {
                    *value = n.clamp(1, 28).to_string();
                }
            }
            (Domain::Int { min, max }, Value::Int { value }) => {
                if let Ok(n) = value.parse::<i64>() {
                    let n = min.map_or(n, |m| n.max(m));
                    *value = max.map_or(n, |m| n.min(m)).to_string();
                }
            }
            (
                Domain::Str {
                    length,
                    min_length,
                    max_length,
                    alphabet,
                },
                Value::Str { value },
            ) => {
                let have = value.chars().count() as u64;
                let low = length.or(*min_length).unwrap_or(0);
                let high = length.or(*max_length).unwrap_or(u64::MAX);
                let fill = alphabet
                    .as_deref()
                    .and_then(|a| a.chars().next())
                    .unwrap_or('a');
                if have < low {
                    value.extend(std::iter::repeat_n(fill, (low - have) as usize));
                } else if have > high {
                    *value = value.chars().take(high as usize).collect();
                }
            }
            _ => {}
        }
    }
}

/// The variants an `Any` parameter is tried as, in order.
pub fn any_variants() -> Vec<Shape> {
    vec![
        Shape::Int,
        Shape::Str,
        Shape::None,
        Shape::Float,
        Shape::Bool,
        Shape::Dict(Box::new(Shape::Str), Box::new(Shape::Int)),
        Shape::List(Box::new(Shape::Int)),
    ]
}

impl Shape {
    /// Reads a type tree of the agent's `describe`.
    pub fn from_describe(t: &TypeTree) -> Shape {
        let sub = |t: &TypeTree| Box::new(Shape::from_describe(t));
        match t.kind() {
            "int" => Shape::Int,
            "bool" => Shape::Bool,
            "str" => Shape::Str,
            "float" => Shape::Float,
            "none" => Shape::None,
            "bytes" => Shape::Bytes,
            "callable" => Shape::Callable {
                returns: sub(t.returns()),
                named: t.named.clone(),
            },
            // `str | Currency | None`: one choice among the three, not a choice of `None`
            // whose other side always picks the union's first member.
            "optional" => match Shape::from_describe(t.of.one()) {
                Shape::Union(mut members) => {
                    members.push(Shape::None);
                    Shape::Union(members)
                }
                inner => Shape::Optional(Box::new(inner)),
            },
            "union" => Shape::Union(t.of.many().iter().map(Shape::from_describe).collect()),
            "list" => Shape::List(sub(t.of.one())),
            "set" => Shape::Set(sub(t.of.one())),
            "iterator" => Shape::Iterator(sub(t.of.one())),
            "async_iterator" => Shape::AsyncIterator(sub(t.of.one())),
            "tuple_of" => Shape::TupleOf(sub(t.of.one())),
            "tuple" => Shape::Tuple(t.items.iter().map(Shape::from_describe).collect()),
            "dict" => Shape::Dict(sub(t.key()), sub(t.value())),
            "literal" => Shape::Literal(t.values.clone()),
            "enum" => Shape::Enum {
                class: t.class.clone().unwrap_or_default(),
                members: t.members.clone(),
            },
            "class" if !t.external => Shape::Object(ObjectShape {
                class: t.class.clone().unwrap_or_default(),
                init: constructor_params(&t.init),
                domains: domains(&t.init),
                keyword_only: keyword_only(&t.init),
                methods: t
                    .methods
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), params(&m.params)))
                    .collect(),
            }),
            "type" => Shape::Class(t.classes.clone()),
            _ => Shape::Any,
        }
    }

    /// Whether it is a container whose length is an input (a list, a set, an iterator, a
    /// dict): an alternative of a choice tried empty and holding one item.
    pub fn is_container(&self) -> bool {
        matches!(
            self,
            Shape::List(_)
                | Shape::Set(_)
                | Shape::Iterator(_)
                | Shape::AsyncIterator(_)
                | Shape::TupleOf(_)
                | Shape::Dict(..)
        )
    }

    /// The variants a choice at this shape selects between (`None` or the value for an
    /// `Optional`, …); empty when the shape has no choice.
    pub fn variants(&self) -> Vec<Shape> {
        match self {
            Shape::Any => any_variants(),
            Shape::Optional(inner) => vec![(**inner).clone(), Shape::None],
            Shape::Union(members) => members.clone(),
            _ => vec![],
        }
    }

    /// The objects an input of this shape may be, with the alternative of its choice that
    /// is each (`None`: the input is that object): `Shape::Object` itself, or a member of a
    /// union or an optional one.
    pub fn objects(&self) -> Vec<(Option<usize>, &ObjectShape)> {
        match self {
            Shape::Object(o) => vec![(None, o)],
            Shape::Optional(inner) => match &**inner {
                Shape::Object(o) => vec![(Some(0), o)],
                _ => vec![],
            },
            Shape::Union(members) => members
                .iter()
                .enumerate()
                .filter_map(|(k, m)| match m {
                    Shape::Object(o) => Some((Some(k), o)),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    }

    /// How many alternatives the choice at this shape has (1 when there is no choice).
    pub fn choice_count(&self) -> usize {
        match self {
            Shape::Literal(values) => values.len().max(1),
            Shape::Enum { members, .. } => members.len().max(1),
            Shape::Class(classes) => classes.len().max(1),
            Shape::Callable { named: Some(_), .. } => 2,
            s => s.variants().len().max(1),
        }
    }
}
/// Parameters as `describe` lists them, without `*args`/`**kwargs`.
pub fn params(list: &[Param]) -> Vec<(String, Shape)> {
    list.iter()
        .filter(|p| !p.is_variadic())
        .map(|p| {
            (
                p.name.clone().unwrap_or_default(),
                Shape::from_describe(&p.tree),
            )
        })
        .collect()
}

/// A parameter whose default is a function or a class that can be found again by its name
/// (`describe`'s `default_ref`: `factory=dict`, `key=identity`) takes callables, that one
/// first.
pub fn called_like_its_default(shape: Shape, default: Option<&str>) -> Shape {
    match (shape, default) {
        (Shape::Any, Some(r)) => Shape::Callable {
            returns: Box::new(Shape::Any),
            named: Some(r.to_owned()),
        },
        (Shape::Callable { returns, .. }, Some(r)) => Shape::Callable {
            returns,
            named: Some(r.to_owned()),
        },
        (s, _) => s,
    }
}

/// A parameter whose declared default is `None` takes `None` as one of its kinds, whatever its
/// uses or annotation say (`def build(name, namespaces=None)` whose `namespaces.get(…)` asks
/// for a dict, `table: dict = None`): the call without it passes `None`, and the function's
/// `if namespaces is None:` is there for it. Second among a union's kinds, so that the bound
/// on a choice's alternatives never leaves it out.
pub fn takes_its_none_default(shape: Shape, default: Option<&str>) -> Shape {
    if default != Some("None") || shape == Shape::None || shape.variants().contains(&Shape::None) {
        return shape;
    }
    match shape {
        Shape::Union(mut members) => {
            members.insert(members.len().min(1), Shape::None);
            Shape::Union(members)
        }
        Shape::Any => Shape::Any,
        other => Shape::Optional(Box::new(other)),
    }
}

/// A constructor's parameters as `describe` lists them: an unannotated one whose uses in the
/// constructor ask for kinds of values (`describe`'s `instances`: `type(excluded) in (set,
/// frozenset)`) takes those first, then any other kind; one whose default is a function or
/// a class takes callables, that one first; one whose default is `None` takes `None` too.
fn constructor_params(list: &[Param]) -> Vec<(String, Shape)> {
    let mut out = params(list);
    for p in list {
        let Some((_, shape)) = out.iter_mut().find(|(n, _)| p.name.as_deref() == Some(n)) else {
            continue;
        };
        *shape = takes_its_none_default(shape.clone(), p.default.as_deref());
        if p.default_ref.is_some() {
            *shape = called_like_its_default(shape.clone(), p.default_ref.as_deref());
            continue;
        }
        let Some(kinds) = &p.tree.instances else {
            continue;
        };
        if *shape == Shape::Any {
            let mut variants: Vec<Shape> = kinds.iter().map(Shape::from_describe).collect();
            let rest: Vec<Shape> = any_variants()
                .into_iter()
                .filter(|v| !variants.contains(v))
                .collect();
            variants.extend(rest);
            *shape = Shape::Union(variants);
        }
    }
    out
}

/// The domains of the parameters `describe` lists that have one, by name.
pub fn domains(list: &[Param]) -> BTreeMap<String, Domain> {
    list.iter()
        .filter_map(|p| {
            let domain = Domain::from_describe(&p.domain)?;
            Some((p.name.clone()?, domain))
        })
        .collect()
}

/// The names of the keyword-only parameters among those `describe` lists.
pub fn keyword_only(list: &[Param]) -> Vec<String> {
    list.iter()
        .filter(|p| p.kind.as_deref() == Some("keyword_only"))
        .filter_map(|p| p.name.clone())
        .collect()
}

/// The shape of a kind of value a type test names (`"bytes"`, `"callable"`; see the agent's
/// type tests).
pub fn kind_shape(kind: &str) -> Option<Shape> {
    Some(match kind {
        "int" => Shape::Int,
        "float" => Shape::Float,
        "str" => Shape::Str,
        "bytes" => Shape::Bytes,
        "none" => Shape::None,
        "bool" => Shape::Bool,
        "list" => Shape::List(Box::new(Shape::Any)),
        "tuple" => Shape::Tuple(vec![Shape::Any]),
        "dict" => Shape::Dict(Box::new(Shape::Str), Box::new(Shape::Any)),
        "set" => Shape::Set(Box::new(Shape::Int)),
        "callable" => Shape::Callable {
            returns: Box::new(Shape::Any),
            named: None,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::description::read;
    use serde_json::json;

    /// `def build(full_name, namespaces=None)` whose `namespaces.get(…)` makes a dict its
    /// likeliest kind still takes `None`, the value its first test (the call without it) passes.
    #[test]
    fn a_parameter_whose_default_is_none_takes_none() {
        let dict = Shape::Dict(Box::new(Shape::Str), Box::new(Shape::Any));
        let union = Shape::Union(vec![dict.clone(), Shape::Int, Shape::Str]);
        assert_eq!(
            takes_its_none_default(union.clone(), Some("None")).variants(),
            [dict.clone(), Shape::None, Shape::Int, Shape::Str]
        );
        assert_eq!(
            takes_its_none_default(dict.clone(), Some("None")),
            Shape::Optional(Box::new(dict.clone()))
        );
        assert_eq!(takes_its_none_default(union.clone(), Some("0")), union);
        assert_eq!(takes_its_none_default(dict.clone(), None), dict);
        assert_eq!(takes_its_none_default(Shape::Any, Some("None")), Shape::Any);
        let optional = Shape::Optional(Box::new(Shape::Int));
        assert_eq!(
            takes_its_none_default(optional.clone(), Some("None")),
            optional
        );
    }

    #[test]
    fn an_optional_union_is_one_choice_among_its_members_and_none() {
        let t = json!({"kind": "optional", "of": {"kind": "union", "of": [
            {"kind": "str"}, {"kind": "int"}]}});
        let shape = Shape::from_describe(&read(t));
        assert_eq!(
            shape,
            Shape::Union(vec![Shape::Str, Shape::Int, Shape::None])
        );
        assert_eq!(shape.choice_count(), 3);
    }

    #[test]
    fn a_default_moves_inside_its_domain() {
        use crate::agent::protocol::Value;
        let day = Domain::from_describe(&read(
            json!({"min": 1, "max": 31, "day_of": ["year", "month"]}),
        ))
        .unwrap();
        let mut v = Value::Int { value: "0".into() };
        day.admit(&mut v);
        assert_eq!(v, Value::Int { value: "1".into() });
        let mut v = Value::Int { value: "31".into() };
        day.admit(&mut v);
        assert_eq!(v, Value::Int { value: "28".into() });
        let age = Domain::from_describe(&read(json!({"min": 18, "max": 150}))).unwrap();
        let mut v = Value::Int { value: "0".into() };
        age.admit(&mut v);
        assert_eq!(v, Value::Int { value: "18".into() });
        let code = Domain::from_describe(&read(json!({"min_length": 4, "max_length": 6}))).unwrap();
        let mut short = Value::Str { value: "x".into() };
        code.admit(&mut short);
        assert_eq!(
            short,
            Value::Str {
                value: "xaaa".into()
            }
        );
        let mut long = Value::Str {
            value: "ééééééé".into(),
        };
        code.admit(&mut long);
        assert_eq!(
            long,
            Value::Str {
                value: "éééééé".into()
            }
        );
    }

    #[test]
    fn shapes_from_describe() {
        let t = json!({"kind": "optional", "of": {"kind": "list", "of": {"kind": "int"}}});
        assert_eq!(
            Shape::from_describe(&read(t)),
            Shape::Optional(Box::new(Shape::List(Box::new(Shape::Int))))
        );
        let t = json!({"kind": "iterator", "of": {"kind": "int"}});
        assert_eq!(
            Shape::from_describe(&read(t)),
            Shape::Iterator(Box::new(Shape::Int))
        );
        // An iterator of nothing said: of any items.
        assert_eq!(
            Shape::from_describe(&read(json!({"kind": "iterator"}))),
            Shape::Iterator(Box::new(Shape::Any))
        );
    }
}
