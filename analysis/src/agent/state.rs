//! What an emitted test can assert of a returned value that is no literal: a standard-library
//! value rebuilt by its constructor (`datetime.date(1985, 4, 15)`), or an object's public fields
//! (`result.months == -1`). The agent describes them as typed trees; they are decoded and checked
//! here (constructor names from a closed set, arguments of the kinds each takes) and rendered as
//! Python by the emitter, never taken as text from the worker.

use super::literal::Literal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A standard-library class whose values an emitted test rebuilds to compare with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdClass {
    Date,
    DateTime,
    Time,
    TimeDelta,
    Decimal,
    Fraction,
    Complex,
}

impl StdClass {
    /// The constructor as a test writes it, its module imported: `datetime.date`.
    pub fn constructor(self) -> &'static str {
        match self {
            StdClass::Date => "datetime.date",
            StdClass::DateTime => "datetime.datetime",
            StdClass::Time => "datetime.time",
            StdClass::TimeDelta => "datetime.timedelta",
            StdClass::Decimal => "decimal.Decimal",
            StdClass::Fraction => "fractions.Fraction",
            StdClass::Complex => "complex",
        }
    }

    /// The module a test imports for it (none for a builtin).
    pub fn module(self) -> Option<&'static str> {
        self.constructor()
            .rsplit_once('.')
            .map(|(module, _)| module)
    }

    fn named(name: &str) -> Option<StdClass> {
        [
            StdClass::Date,
            StdClass::DateTime,
            StdClass::Time,
            StdClass::TimeDelta,
            StdClass::Decimal,
            StdClass::Fraction,
            StdClass::Complex,
        ]
        .into_iter()
        .find(|c| c.constructor() == name)
    }

    /// Whether `args` are what its constructor takes, as the agent sends them.
    fn accepts(self, args: &[Literal]) -> bool {
        let ints = |n: usize| args.len() == n && args.iter().all(|a| matches!(a, Literal::Int(_)));
        match self {
            StdClass::Date | StdClass::TimeDelta => ints(3),
            StdClass::DateTime => ints(7),
            StdClass::Time => ints(4),
            StdClass::Fraction => ints(2),
            StdClass::Complex => {
                args.len() == 2
                    && args
                        .iter()
                        .all(|a| matches!(a, Literal::Float(x) if x.is_finite()))
            }
            // A finite decimal as `str(Decimal)` writes it: `-1.50`, `1E+3`.
            StdClass::Decimal => matches!(args, [Literal::Str(text)]
                if !text.is_empty() && text.len() <= 100
                    && text.bytes().any(|b| b.is_ascii_digit())
                    && text.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))),
        }
    }
}

/// A standard-library value as the call that rebuilds an equal one.
#[derive(Clone, Debug, PartialEq)]
pub struct StdValue {
    pub class: StdClass,
    pub args: Vec<Literal>,
    /// Of an aware `datetime`: its offset from UTC in whole seconds, strictly within a day (it is
    /// rebuilt at a fixed-offset zone; aware datetimes are equal when they name the same
    /// instant, whatever their zones).
    pub utc_offset: Option<i32>,
}

/// The largest offset from UTC a zone may have, in seconds (exclusive).
const DAY_SECONDS: i64 = 86_400;

impl StdValue {
    fn from_json(value: &serde_json::Value) -> Option<StdValue> {
        let node = value.as_object()?;
        if node.get("kind")?.as_str()? != "std" {
            return None;
        }
        let class = StdClass::named(node.get("class")?.as_str()?)?;
        let args: Vec<Literal> = node
            .get("args")?
            .as_array()?
            .iter()
            .map(Literal::from_json)
            .collect::<Option<_>>()?;
        let utc_offset = match node.get("utcoffset") {
            None => None,
            Some(offset) => {
                let seconds = offset.as_i64()?;
                if class != StdClass::DateTime || seconds.abs() >= DAY_SECONDS {
                    return None;
                }
                Some(seconds as i32)
            }
        };
        class.accepts(&args).then_some(StdValue {
            class,
            args,
            utc_offset,
        })
    }

    fn to_json(&self) -> serde_json::Value {
        let mut out = serde_json::json!({
            "kind": "std",
            "class": self.class.constructor(),
            "args": self.args.iter().map(Literal::to_json).collect::<Vec<_>>(),
        });
        if let Some(seconds) = self.utc_offset {
            out["utcoffset"] = seconds.into();
        }
        out
    }
}

/// A value a test can write: a literal, or a standard-library value.
#[derive(Clone, Debug, PartialEq)]
pub enum Assertable {
    Literal(Literal),
    Std(StdValue),
}

impl Assertable {
    pub(crate) fn from_json(value: &serde_json::Value) -> Option<Assertable> {
        StdValue::from_json(value)
            .map(Assertable::Std)
            .or_else(|| Literal::from_json(value).map(Assertable::Literal))
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            Assertable::Literal(l) => l.to_json(),
            Assertable::Std(s) => s.to_json(),
        }
    }
}

/// Whether `name`, read from the agent, is a public ASCII Python name (a field, a keyword
/// argument) an emitted test may write: nothing else is taken from the wire.
fn public_name(name: &str) -> bool {
    name.len() <= 100
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// At most this many fields of one object are asserted.
pub const MAX_FIELDS: usize = 8;

/// What a test can assert of a returned value beyond its type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectState {
    /// A standard-library value: asserted equal to its rebuilt self (boxed: most results are
    /// none, and an execution's outcome holds several states).
    pub std: Option<Box<StdValue>>,
    /// Public fields (Python identifiers) with values a test can write, in the object's order.
    pub fields: Vec<(String, Assertable)>,
}

impl ObjectState {
    /// Reads the agent's `std` and `fields` entries of a described value; anything malformed
    /// is left out (a field that is no identifier, a constructor outside the closed set).
    pub fn from_json(std: Option<&serde_json::Value>, fields: Option<&serde_json::Value>) -> Self {
        let fields = fields
            .and_then(serde_json::Value::as_array)
            .map(|pairs| {
                pairs
                    .iter()
                    .filter_map(|pair| {
                        let [name, value] = pair.as_array()?.as_slice() else {
                            return None;
                        };
                        let name = name.as_str().filter(|n| public_name(n))?;
                        Some((name.to_owned(), Assertable::from_json(value)?))
                    })
                    .take(MAX_FIELDS)
                    .collect()
            })
            .unwrap_or_default();
        ObjectState {
            std: std.and_then(StdValue::from_json).map(Box::new),
            fields,
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "std": self.std.as_deref().map(StdValue::to_json),
            "fields": self.fields.iter().map(|(n, v)| serde_json::json!([n, v.to_json()])).collect::<Vec<_>>(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.std.is_none() && self.fields.is_empty()
    }
}

/// Kept in the store in the wire form, and read back through the same checks.
impl Serialize for ObjectState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ObjectState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Ok(ObjectState::from_json(
            value.get("std"),
            value.get("fields"),
        ))
    }
}

/// Where an argument was passed: its position, or its keyword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    Position(usize),
    Keyword(String),
}

/// The container arguments (lists, dicts, sets) a call changed, as they were after it
/// returned: what a test of a function that changes its argument in place asserts
/// (`points == [(1, -2)]` after `transform.itransform(points)`). The wire form is
/// `[[0, tree], ["key", tree]]`; anything malformed is left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangedArguments(pub Vec<(Slot, Assertable)>);

impl ChangedArguments {
    fn from_json(value: &serde_json::Value) -> Self {
        let Some(pairs) = value.as_array() else {
            return ChangedArguments::default();
        };
        ChangedArguments(
            pairs
                .iter()
                .filter_map(|pair| {
                    let [slot, tree] = pair.as_array()?.as_slice() else {
                        return None;
                    };
                    let slot = match slot {
                        serde_json::Value::Number(n) => {
                            Slot::Position(usize::try_from(n.as_u64()?).ok()?)
                        }
                        serde_json::Value::String(k) if public_name(k) => Slot::Keyword(k.clone()),
                        _ => return None,
                    };
                    Some((slot, Assertable::from_json(tree)?))
                })
                .take(MAX_FIELDS)
                .collect(),
        )
    }

    fn to_json(&self) -> serde_json::Value {
        self.0
            .iter()
            .map(|(slot, value)| match slot {
                Slot::Position(i) => serde_json::json!([i, value.to_json()]),
                Slot::Keyword(k) => serde_json::json!([k, value.to_json()]),
            })
            .collect()
    }

    /// The value the call left in the argument at `slot`, if it changed it.
    pub fn at(&self, slot: &Slot) -> Option<&Assertable> {
        self.0.iter().find(|(s, _)| s == slot).map(|(_, v)| v)
    }
}

impl Serialize for ChangedArguments {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ChangedArguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Ok(ChangedArguments::from_json(&value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changed_arguments_are_read_by_position_or_keyword_and_forged_ones_left_out() {
        let int = |v: &str| json!({"kind": "int", "value": v});
        let wire = json!([
            [0, {"kind": "list", "items": [int("1")]}],
            ["points", {"kind": "list", "items": []}],
            ["not a name", int("1")],
            [-1, int("1")],
            [2, "__import__('os')"]
        ]);
        let read: ChangedArguments = serde_json::from_value(wire).unwrap();
        assert_eq!(read.0.len(), 2);
        assert!(read.at(&Slot::Position(0)).is_some());
        assert!(read.at(&Slot::Keyword("points".into())).is_some());
        let back: ChangedArguments =
            serde_json::from_value(serde_json::to_value(&read).unwrap()).unwrap();
        assert_eq!(back, read);
    }

    #[test]
    fn only_known_constructors_with_their_arguments_are_read() {
        let int = |v: &str| json!({"kind": "int", "value": v});
        let date = json!({"kind": "std", "class": "datetime.date", "args": [int("1985"), int("4"), int("15")]});
        let state = ObjectState::from_json(Some(&date), None);
        assert_eq!(state.std.unwrap().class, StdClass::Date);
        for forged in [
            json!({"kind": "std", "class": "os.system", "args": [int("1"), int("2"), int("3")]}),
            json!({"kind": "std", "class": "datetime.date", "args": [int("1985"), int("4")]}),
            // A zone only on a datetime, and strictly within a day.
            json!({"kind": "std", "class": "datetime.date", "args": [int("1985"), int("4"), int("15")], "utcoffset": 0}),
            json!({"kind": "std", "class": "datetime.datetime", "args": [int("1985"), int("4"), int("15"), int("0"), int("0"), int("0"), int("0")], "utcoffset": 86400}),
            json!({"kind": "std", "class": "datetime.datetime", "args": [int("1985"), int("4"), int("15"), int("0"), int("0"), int("0"), int("0")], "utcoffset": "0)+x("}),
            json!({"kind": "std", "class": "decimal.Decimal", "args": [{"kind": "str", "value": "1)+__import__('os')"}]}),
        ] {
            assert_eq!(ObjectState::from_json(Some(&forged), None).std, None);
        }
        let fields = json!([
            ["months", int("-1")],
            ["__class__", int("1")],
            ["a b", int("2")],
            ["tdelta", date]
        ]);
        let state = ObjectState::from_json(None, Some(&fields));
        let names: Vec<&str> = state.fields.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["months", "tdelta"]);
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<ObjectState>(&text).unwrap(), state);
    }
}
