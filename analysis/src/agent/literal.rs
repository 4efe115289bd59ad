//! Literals: values made of `None`, booleans, numbers, text, bytes and containers of them, as
//! the agent describes them on the wire — decoded and bounded here, rendered as Python by
//! Lacuna — and the wire form of floats.

/// A value made of literals, as the agent describes a return value: decoded and checked here,
/// and rendered as Python by Lacuna (never text taken from the worker).
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    None,
    Bool(bool),
    /// Decimal digits with an optional minus sign.
    Int(String),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Literal>),
    Tuple(Vec<Literal>),
    Set(Vec<Literal>),
    FrozenSet(Vec<Literal>),
    Dict(Vec<(Literal, Literal)>),
}

/// Bounds of a literal tree: deeper, larger or longer values get no literal.
pub const LITERAL_MAX_DEPTH: usize = 20;
pub const LITERAL_MAX_NODES: usize = 1000;
pub const LITERAL_MAX_TEXT: usize = 10_000;
/// CPython's default limit on the digits of an integer converted from text.
pub const LITERAL_MAX_DIGITS: usize = 4300;

impl Literal {
    /// Reads the wire form (`{"kind": "int", "value": "12"}`, `{"kind": "bytes", "hex":
    /// "00ff"}`, containers with `items`, a dict's as `[key, value]` pairs); none when
    /// anything is malformed or out of bounds.
    pub fn from_json(value: &serde_json::Value) -> Option<Literal> {
        let mut nodes = 0;
        Self::read(value, 0, &mut nodes)
    }

    fn read(value: &serde_json::Value, depth: usize, nodes: &mut usize) -> Option<Literal> {
        *nodes += 1;
        if depth > LITERAL_MAX_DEPTH || *nodes > LITERAL_MAX_NODES {
            return None;
        }
        let node = value.as_object()?;
        let items = |nodes: &mut usize| -> Option<Vec<Literal>> {
            node.get("items")?
                .as_array()?
                .iter()
                .map(|v| Self::read(v, depth + 1, nodes))
                .collect()
        };
        Some(match node.get("kind")?.as_str()? {
            "none" => Literal::None,
            "bool" => Literal::Bool(node.get("value")?.as_bool()?),
            "int" => {
                let text = node.get("value")?.as_str()?;
                let digits = text.strip_prefix('-').unwrap_or(text);
                if digits.is_empty()
                    || digits.len() > LITERAL_MAX_DIGITS
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                Literal::Int(text.to_owned())
            }
            "float" => Literal::Float(wire_float(node.get("value")?)?),
            "str" => {
                let text = node.get("value")?.as_str()?;
                if text.len() > LITERAL_MAX_TEXT {
                    return None;
                }
                Literal::Str(text.to_owned())
            }
            "bytes" => {
                let hex = node.get("hex")?.as_str()?;
                if hex.len() % 2 != 0 || hex.len() > 2 * LITERAL_MAX_TEXT {
                    return None;
                }
                let bytes: Option<Vec<u8>> = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                    .collect();
                Literal::Bytes(bytes?)
            }
            "list" => Literal::List(items(nodes)?),
            "tuple" => Literal::Tuple(items(nodes)?),
            "set" => Literal::Set(items(nodes)?),
            "frozenset" => Literal::FrozenSet(items(nodes)?),
            "dict" => {
                let mut pairs = vec![];
                for pair in node.get("items")?.as_array()? {
                    let [k, v] = pair.as_array()?.as_slice() else {
                        return None;
                    };
                    pairs.push((
                        Self::read(k, depth + 1, nodes)?,
                        Self::read(v, depth + 1, nodes)?,
                    ));
                }
                Literal::Dict(pairs)
            }
            _ => return None,
        })
    }

    /// The wire form [`Literal::from_json`] reads: what the store keeps, so that a literal read
    /// back from it passes the same checks as one the agent sent.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let items = |kind: &str, items: &[Literal]| json!({"kind": kind, "items": items.iter().map(Literal::to_json).collect::<Vec<_>>()});
        match self {
            Literal::None => json!({"kind": "none"}),
            Literal::Bool(b) => json!({"kind": "bool", "value": b}),
            Literal::Int(digits) => json!({"kind": "int", "value": digits}),
            Literal::Float(x) => json!({"kind": "float", "value": float_to_wire(*x)}),
            Literal::Str(s) => json!({"kind": "str", "value": s}),
            Literal::Bytes(b) => {
                let hex: String = b.iter().map(|b| format!("{b:02x}")).collect();
                json!({"kind": "bytes", "hex": hex})
            }
            Literal::List(l) => items("list", l),
            Literal::Tuple(l) => items("tuple", l),
            Literal::Set(l) => items("set", l),
            Literal::FrozenSet(l) => items("frozenset", l),
            Literal::Dict(pairs) => json!({
                "kind": "dict",
                "items": pairs.iter().map(|(k, v)| json!([k.to_json(), v.to_json()])).collect::<Vec<_>>(),
            }),
        }
    }

    /// Whether it is a float NaN (which equals nothing, itself included).
    pub fn is_nan(&self) -> bool {
        matches!(self, Literal::Float(x) if x.is_nan())
    }
}

/// A float of the wire form: a JSON number, or `"inf"`, `"-inf"`, `"nan"`, which JSON cannot
/// write as numbers.
pub fn wire_float(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => match s.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    }
}

/// A float in the wire form [`wire_float`] reads.
pub fn float_to_wire(x: f64) -> serde_json::Value {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, Into::into)
    }
}
