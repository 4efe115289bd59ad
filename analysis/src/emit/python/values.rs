//! Python expressions for the values of generated inputs: literals written from checked data,
//! objects built in setup statements under fresh names.

use super::{Imports, MODULES};

/// The builtins an emitted test calls: no variable of a test takes their names.
const BUILTINS: [&str; 12] = [
    "bytes",
    "delattr",
    "dict",
    "float",
    "frozenset",
    "iter",
    "list",
    "set",
    "setattr",
    "slice",
    "tuple",
    "type",
];
use crate::agent::protocol::{Literal, Value, ValueTree, wire_float};
use crate::agent::state::Slot;
use crate::symbolic::python_str_literal;
use heck::ToSnakeCase;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Builds a Python expression for a value tree; objects need statements first, which go into
/// `setup` under fresh variable names.
pub(super) struct Writer<'a> {
    pub(super) imports: &'a mut Imports,
    pub(super) setup: Vec<String>,
    pub(super) used: BTreeSet<String>,
}

impl Writer<'_> {
    pub(super) fn fresh(&mut self, class: &str) -> String {
        let base = class.rsplit('.').next().unwrap_or(class).to_snake_case();
        // `datetime = datetime(...)` would shadow the class it calls.
        let base = if base.is_empty() || base == class.rsplit('.').next().unwrap_or(class) {
            format!("{base}_value").trim_start_matches('_').to_owned()
        } else {
            base
        };
        self.unused(base)
    }

    /// `base`, or `base_2`, `base_3`, … : a name neither the file imports nor a statement of
    /// the test binds already, nor a builtin a test calls (`iter = Iter()` before
    /// `iter([1])`).
    pub(super) fn unused(&mut self, base: String) -> String {
        let mut name = base.clone();
        let mut n = 2;
        // Nor the function under test (`movie = Movie(...)` before `movie(movie)`), nor any name
        // the file imports (`decimal = Decimal(0)` before `result == decimal.Decimal('0')`).
        while self.imports.from.iter().any(|(_, bound)| *bound == name)
            || MODULES.contains(&name.as_str())
            || BUILTINS.contains(&name.as_str())
            || !self.used.insert(name.clone())
        {
            name = format!("{base}_{n}");
            n += 1;
        }
        name
    }

    pub(super) fn expr(&mut self, tree: &ValueTree) -> Option<String> {
        Some(match &tree.value {
            // Decimal digits only: a value read back from the store is checked like the
            // agent's literals are.
            Value::Int { value }
                if !value.trim_start_matches('-').is_empty()
                    && value
                        .trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                    && value.bytes().filter(|&b| b == b'-').count() <= 1 =>
            {
                value.clone()
            }
            Value::Int { .. } => return None,
            Value::Bool { value } => if *value { "True" } else { "False" }.to_owned(),
            Value::Str { value } => {
                let mut s = String::new();
                python_str_literal(&mut s, value);
                s
            }
            Value::Float { value } => float_expr(wire_float(value)?),
            Value::None => "None".to_owned(),
            Value::Bytes { value } => bytes_literal(value.as_bytes()),
            Value::Ref { name } => self.imports.name(name)?,
            Value::Callable { returns } => {
                let values: Vec<String> = returns
                    .iter()
                    .map(|r| self.expr(r))
                    .collect::<Option<_>>()?;
                let raises = returns
                    .iter()
                    .any(|r| matches!(r.value, Value::Raise { .. }));
                match values.split_first() {
                    None => "lambda *args, **kwargs: None".to_owned(),
                    Some((first, rest)) if !raises && rest.iter().all(|v| v == first) => {
                        format!("lambda *args, **kwargs: {first}")
                    }
                    Some(_) => {
                        self.imports.returning = true;
                        format!("_returning({})", values.join(", "))
                    }
                }
            }
            // A call of a callable input that raises (only among its returns).
            Value::Raise { exception } => {
                let class = match exception {
                    Some(name) => self.imports.name(name)?,
                    None => "Exception".to_owned(),
                };
                self.imports.returning = true;
                format!("_Raises({class}('raised by a generated input'))")
            }
            Value::List { items } => format!("[{}]", self.list(items)?),
            Value::Tuple { items } | Value::TupleOf { items } if items.len() == 1 => {
                format!("({},)", self.list(items)?)
            }
            Value::Tuple { items } | Value::TupleOf { items } => format!("({})", self.list(items)?),
            Value::Set { items } if items.is_empty() => "set()".to_owned(),
            Value::Set { items } => format!("{{{}}}", self.list(items)?),
            Value::Iterator { items } => format!("iter([{}])", self.list(items)?),
            Value::AsyncIterator { items } => {
                self.imports.async_items = true;
                format!("_async_items([{}])", self.list(items)?)
            }
            Value::Dict { items } => {
                let mut parts = vec![];
                for (k, v) in items {
                    parts.push(format!("{}: {}", self.expr(k)?, self.expr(v)?));
                }
                format!("{{{}}}", parts.join(", "))
            }
            Value::Enum { class, member } if is_identifier(member) => {
                format!("{}.{member}", self.imports.name(class)?)
            }
            Value::Enum { .. } => return None,
            Value::Object {
                class,
                args,
                kwargs,
                calls,
            } => {
                let constructor = self.imports.name(class)?;
                let arguments = self.arguments(args, kwargs)?;
                let var = self.fresh(&constructor);
                self.setup
                    .push(format!("{var} = {constructor}({arguments})"));
                for call in calls {
                    if !is_identifier(&call.method) {
                        return None;
                    }
                    let arguments = self.arguments(&call.args, &call.kwargs)?;
                    self.setup
                        .push(format!("{var}.{}({arguments})", call.method));
                }
                var
            }
            Value::Factory {
                function,
                args,
                kwargs,
            } => {
                let f = self.imports.name(function)?;
                format!("{f}({})", self.arguments(args, kwargs)?)
            }
        })
    }

    pub(super) fn list(&mut self, items: &[ValueTree]) -> Option<String> {
        let parts: Option<Vec<String>> = items.iter().map(|t| self.expr(t)).collect();
        Some(parts?.join(", "))
    }

    pub(super) fn arguments(
        &mut self,
        args: &[ValueTree],
        kwargs: &std::collections::BTreeMap<String, ValueTree>,
    ) -> Option<String> {
        self.bound_arguments(args, kwargs, &[])
            .map(|(text, _)| text)
    }

    /// The arguments of a call, those at `bound` first assigned to variables of their own
    /// (`points = [(1, 1)]`, then `t.itransform(points)`) so that the test can assert what the
    /// call left in them; with the variable of each.
    pub(super) fn bound_arguments(
        &mut self,
        args: &[ValueTree],
        kwargs: &std::collections::BTreeMap<String, ValueTree>,
        bound: &[Slot],
    ) -> Option<(String, Vec<(Slot, String)>)> {
        let mut parts: Vec<String> = vec![];
        let mut vars = vec![];
        let mut bind = |writer: &mut Self, slot: Slot, tree: &ValueTree, fallback: &str| {
            let value = writer.expr(tree)?;
            if !bound.contains(&slot) {
                return Some(value);
            }
            let base = tree
                .sym
                .as_deref()
                .filter(|s| is_identifier(s))
                .unwrap_or(fallback)
                .to_snake_case();
            let var = writer.unused(base);
            writer.setup.push(format!("{var} = {value}"));
            vars.push((slot, var.clone()));
            Some(var)
        };
        for (i, a) in args.iter().enumerate() {
            parts.push(bind(self, Slot::Position(i), a, "argument")?);
        }
        for (k, v) in kwargs {
            if !is_identifier(k) {
                return None;
            }
            let value = bind(self, Slot::Keyword(k.clone()), v, k)?;
            parts.push(format!("{k}={value}"));
        }
        Some((parts.join(", "), vars))
    }
}

/// A Python expression for a literal value the agent described (checked when it was read).
pub(super) fn literal_expr(literal: &Literal) -> String {
    let all = |items: &[Literal]| items.iter().map(literal_expr).collect::<Vec<_>>();
    match literal {
        Literal::None => "None".to_owned(),
        Literal::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        Literal::Int(digits) => digits.clone(),
        Literal::Float(x) => float_expr(*x),
        Literal::Str(text) => {
            let mut out = String::new();
            python_str_literal(&mut out, text);
            out
        }
        Literal::Bytes(bytes) => bytes_literal(bytes),
        Literal::List(items) => format!("[{}]", all(items).join(", ")),
        Literal::Tuple(items) if items.len() == 1 => format!("({},)", literal_expr(&items[0])),
        Literal::Tuple(items) => format!("({})", all(items).join(", ")),
        Literal::Set(items) | Literal::FrozenSet(items) => {
            // Sets have no order of their own: the text's is made stable.
            let mut parts = all(items);
            parts.sort();
            let set = if parts.is_empty() {
                "set()".to_owned()
            } else {
                format!("{{{}}}", parts.join(", "))
            };
            match (literal, parts.is_empty()) {
                (Literal::Set(_), _) => set,
                (_, true) => "frozenset()".to_owned(),
                _ => format!("frozenset({set})"),
            }
        }
        Literal::Dict(pairs) => {
            let parts: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", literal_expr(k), literal_expr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// A Python expression for a float: its shortest round-trip text, `float('inf')` and kin.
pub(super) fn float_expr(x: f64) -> String {
    if x.is_nan() {
        return "float('nan')".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "float('inf')"
        } else {
            "float('-inf')"
        }
        .to_owned();
    }
    let text = format!("{x:?}");
    if text.contains('.') || text.contains('e') {
        text
    } else {
        format!("{text}.0")
    }
}

/// Whether `name` is a Python identifier (and not a keyword).
pub(super) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
        && !KEYWORDS.contains(&name)
}

/// Whether `name` is identifiers joined by dots (`shop.inventory`, `Stock.remove`).
pub(super) fn is_dotted_name(name: &str) -> bool {
    name.split('.').all(is_identifier)
}

pub(super) const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// A Python bytes literal: printable ASCII as it is, everything else escaped.
pub(super) fn bytes_literal(bytes: &[u8]) -> String {
    let mut out = String::from("b'");
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('\'');
    out
}
