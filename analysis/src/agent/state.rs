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
}

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
        class.accepts(&args).then_some(StdValue { class, args })
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": "std",
            "class": self.class.constructor(),
            "args": self.args.iter().map(Literal::to_json).collect::<Vec<_>>(),
        })
    }
}

/// A value a test can write: a literal, or a standard-library value.
#[derive(Clone, Debug, PartialEq)]
pub enum Assertable {
    Literal(Literal),
    Std(StdValue),
}

impl Assertable {
    fn from_json(value: &serde_json::Value) -> Option<Assertable> {
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

/// At most this many fields of one object are asserted.
pub const MAX_FIELDS: usize = 8;

/// What a test can assert of a returned value beyond its type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectState {
    /// A standard-library value: asserted equal to its rebuilt self.
    pub std: Option<StdValue>,
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
                        let name = name.as_str()?;
                        let identifier = name.chars().next()?.is_ascii_alphabetic()
                            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        (identifier && name.len() <= 100)
                            .then(|| Some((name.to_owned(), Assertable::from_json(value)?)))?
                    })
                    .take(MAX_FIELDS)
                    .collect()
            })
            .unwrap_or_default();
        ObjectState {
            std: std.and_then(StdValue::from_json),
            fields,
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "std": self.std.as_ref().map(StdValue::to_json),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_known_constructors_with_their_arguments_are_read() {
        let int = |v: &str| json!({"kind": "int", "value": v});
        let date = json!({"kind": "std", "class": "datetime.date", "args": [int("1985"), int("4"), int("15")]});
        let state = ObjectState::from_json(Some(&date), None);
        assert_eq!(state.std.unwrap().class, StdClass::Date);
        for forged in [
            json!({"kind": "std", "class": "os.system", "args": [int("1"), int("2"), int("3")]}),
            json!({"kind": "std", "class": "datetime.date", "args": [int("1985"), int("4")]}),
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
