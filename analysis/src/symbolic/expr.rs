//! Symbolic expressions over Python values.
//!
//! Wire form (JSON): a variable is `["var", name, sort]`; literals are `["int", "123"]` (decimal
//! string: Python ints are unbounded), `["bool", true]`, `["str", "ab"]`, `["float", 1.5]` (or
//! `"inf"`, `"-inf"`, `"nan"`); an operation is `[op, arg...]` with `op` one of [`Op`]'s names.
//! An operation name this build does not know is kept as [`Op::Opaque`], which the solver reports
//! as an unsupported operation instead of failing.

use serde_json::Value;
use std::fmt;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Sort {
    Int,
    Bool,
    Str,
    /// Python `float`, modelled as a real number.
    Real,
}

impl Sort {
    pub fn as_str(self) -> &'static str {
        match self {
            Sort::Int => "int",
            Sort::Bool => "bool",
            Sort::Str => "str",
            Sort::Real => "float",
        }
    }

    fn parse(s: &str) -> Option<Sort> {
        Some(match s {
            "int" => Sort::Int,
            "bool" => Sort::Bool,
            "str" => Sort::Str,
            "float" | "real" => Sort::Real,
            _ => return None,
        })
    }
}

macro_rules! ops {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// Operations, named as on the wire. Arithmetic and comparisons follow Python's semantics
        /// (`//` and `%` floor towards negative infinity; `==` between int and float compares
        /// numerically).
        #[derive(Clone, PartialEq, Eq, Hash, Debug)]
        pub enum Op {
            $($variant,)*
            /// An operation the solver does not model; the name says which.
            Opaque(Arc<str>),
        }

        impl Op {
            pub fn name(&self) -> &str {
                match self {
                    $(Op::$variant => $name,)*
                    Op::Opaque(name) => name,
                }
            }

            pub fn from_name(name: &str) -> Op {
                match name {
                    $($name => Op::$variant,)*
                    other => Op::Opaque(Arc::from(other)),
                }
            }
        }
    };
}

ops! {
    // arithmetic
    Add = "+", Sub = "-", Mul = "*", FloorDiv = "//", Mod = "%", Pow = "**", TrueDiv = "/",
    Neg = "neg", Abs = "abs", Min = "min", Max = "max",
    // comparisons
    Eq = "==", Ne = "!=", Lt = "<", Le = "<=", Gt = ">", Ge = ">=",
    // booleans
    Not = "not", And = "and", Or = "or", Ite = "ite",
    // conversions
    IntToReal = "float", RealToInt = "int", BoolToInt = "bool.int", IntToStr = "str",
    StrToInt = "str.int",
    // strings
    StrLen = "str.len", StrConcat = "str.concat", StrAt = "str.at", StrSlice = "str.slice",
    StrContains = "str.contains", StrStartsWith = "str.startswith", StrEndsWith = "str.endswith",
    StrFind = "str.find", StrIsDigit = "str.isdigit", StrIsAlpha = "str.isalpha",
    StrLower = "str.lower", StrUpper = "str.upper", StrStrip = "str.strip",
    StrReplace = "str.replace", StrCount = "str.count",
}

#[derive(Clone, PartialEq, Debug)]
pub enum Expr {
    Var {
        name: Arc<str>,
        sort: Sort,
    },
    /// Decimal digits with an optional leading `-`.
    Int(Arc<str>),
    Bool(bool),
    Str(Arc<str>),
    Real(f64),
    App {
        op: Op,
        args: Vec<Expr>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed symbolic expression: {0}")]
pub struct ExprError(pub String);

/// Deepest expression accepted from the wire (serde_json itself stops at 128); the agent
/// concretises deeper ones, so this is an error, never a stack overflow.
const MAX_DEPTH: usize = 120;

impl Expr {
    pub fn var(name: &str, sort: Sort) -> Expr {
        Expr::Var {
            name: Arc::from(name),
            sort,
        }
    }

    pub fn int(value: i64) -> Expr {
        Expr::Int(Arc::from(value.to_string()))
    }

    pub fn app(op: Op, args: Vec<Expr>) -> Expr {
        Expr::App { op, args }
    }

    pub fn negate(self) -> Expr {
        match self {
            Expr::App {
                op: Op::Not,
                mut args,
            } if args.len() == 1 => args.pop().unwrap(),
            Expr::Bool(b) => Expr::Bool(!b),
            e => Expr::app(Op::Not, vec![e]),
        }
    }

    pub fn from_json(value: &Value) -> Result<Expr, ExprError> {
        Self::from_json_at(value, 0)
    }

    fn from_json_at(value: &Value, depth: usize) -> Result<Expr, ExprError> {
        if depth > MAX_DEPTH {
            return Err(ExprError(format!("nested deeper than {MAX_DEPTH}")));
        }
        let items = value
            .as_array()
            .ok_or_else(|| ExprError(format!("expected an array, found {value}")))?;
        let head = items
            .first()
            .and_then(Value::as_str)
            .ok_or_else(|| ExprError("expected an operation name first".into()))?;
        let arg = |i: usize| {
            items
                .get(i)
                .ok_or_else(|| ExprError(format!("`{head}` needs argument {i}")))
        };
        Ok(match head {
            "var" => {
                let name = arg(1)?
                    .as_str()
                    .ok_or_else(|| ExprError("variable name must be a string".into()))?;
                let sort = arg(2)?
                    .as_str()
                    .and_then(Sort::parse)
                    .ok_or_else(|| ExprError(format!("bad sort for variable `{name}`")))?;
                Expr::var(name, sort)
            }
            "int" if items.len() == 2 && !arg(1)?.is_array() => match arg(1)? {
                Value::String(s) if is_decimal(s) => Expr::Int(Arc::from(s.as_str())),
                Value::Number(n) if n.is_i64() || n.is_u64() => Expr::Int(Arc::from(n.to_string())),
                other => return Err(ExprError(format!("bad int literal {other}"))),
            },
            "bool" if items.len() == 2 && !arg(1)?.is_array() => Expr::Bool(
                arg(1)?
                    .as_bool()
                    .ok_or_else(|| ExprError("bad bool literal".into()))?,
            ),
            "str" if items.len() == 2 && arg(1)?.is_string() => {
                Expr::Str(Arc::from(arg(1)?.as_str().unwrap()))
            }
            "float" if items.len() == 2 && !arg(1)?.is_array() => Expr::Real(match arg(1)? {
                Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
                Value::String(s) => match s.as_str() {
                    "inf" => f64::INFINITY,
                    "-inf" => f64::NEG_INFINITY,
                    "nan" => f64::NAN,
                    other => other
                        .parse()
                        .map_err(|_| ExprError(format!("bad float literal {other}")))?,
                },
                other => return Err(ExprError(format!("bad float literal {other}"))),
            }),
            op => Expr::App {
                op: Op::from_name(op),
                args: items[1..]
                    .iter()
                    .map(|a| Self::from_json_at(a, depth + 1))
                    .collect::<Result<_, _>>()?,
            },
        })
    }

    pub fn to_json(&self) -> Value {
        match self {
            Expr::Var { name, sort } => serde_json::json!(["var", &**name, sort.as_str()]),
            Expr::Int(digits) => serde_json::json!(["int", &**digits]),
            Expr::Bool(b) => serde_json::json!(["bool", b]),
            Expr::Str(s) => serde_json::json!(["str", &**s]),
            Expr::Real(f) if f.is_finite() => serde_json::json!(["float", f]),
            Expr::Real(f) => {
                let s = if f.is_nan() {
                    "nan"
                } else if *f > 0.0 {
                    "inf"
                } else {
                    "-inf"
                };
                serde_json::json!(["float", s])
            }
            Expr::App { op, args } => {
                let mut items = vec![Value::from(op.name())];
                items.extend(args.iter().map(Expr::to_json));
                Value::Array(items)
            }
        }
    }

    /// Visits every variable, depth first, left to right.
    pub fn for_each_var(&self, f: &mut dyn FnMut(&str, Sort)) {
        match self {
            Expr::Var { name, sort } => f(name, *sort),
            Expr::App { args, .. } => args.iter().for_each(|a| a.for_each_var(f)),
            _ => {}
        }
    }

    /// Visits every integer literal that fits an `i64`, depth first, left to right.
    pub fn for_each_int(&self, f: &mut dyn FnMut(i64)) {
        match self {
            Expr::Int(digits) => {
                if let Ok(n) = digits.parse() {
                    f(n);
                }
            }
            Expr::App { args, .. } => args.iter().for_each(|a| a.for_each_int(f)),
            _ => {}
        }
    }

    /// Visits every text literal, depth first, left to right.
    pub fn for_each_str(&self, f: &mut dyn FnMut(&str)) {
        match self {
            Expr::Str(text) => f(text),
            Expr::App { args, .. } => args.iter().for_each(|a| a.for_each_str(f)),
            _ => {}
        }
    }

    /// The names of the operations the solver does not model, without repeats.
    pub fn opaque_ops(&self) -> Vec<Arc<str>> {
        let mut out = vec![];
        self.collect_opaque(&mut out);
        out
    }

    fn collect_opaque(&self, out: &mut Vec<Arc<str>>) {
        if let Expr::App { op, args } = self {
            if let Op::Opaque(name) = op
                && !out.contains(name)
            {
                out.push(name.clone());
            }
            args.iter().for_each(|a| a.collect_opaque(out));
        }
    }
}

fn is_decimal(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Python-like rendering: `(x > 10) and not (len(s) == 0)`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Var { name, .. } => f.write_str(name),
            Expr::Int(d) => f.write_str(d),
            Expr::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Expr::Str(s) => write!(f, "{s:?}"),
            Expr::Real(x) => write!(f, "{x:?}"),
            Expr::App { op, args } => {
                let infix = matches!(
                    op,
                    Op::Add
                        | Op::Sub
                        | Op::Mul
                        | Op::FloorDiv
                        | Op::Mod
                        | Op::Pow
                        | Op::TrueDiv
                        | Op::Eq
                        | Op::Ne
                        | Op::Lt
                        | Op::Le
                        | Op::Gt
                        | Op::Ge
                        | Op::And
                        | Op::Or
                );
                match (op, args.as_slice()) {
                    (Op::And | Op::Or, args) if args.len() > 2 => {
                        for (i, a) in args.iter().enumerate() {
                            if i > 0 {
                                write!(f, " {} ", op.name())?;
                            }
                            write_operand(f, a)?;
                        }
                        Ok(())
                    }
                    (_, [l, r]) if infix => {
                        write_operand(f, l)?;
                        write!(f, " {} ", op.name())?;
                        write_operand(f, r)
                    }
                    (Op::Not, [a]) => {
                        f.write_str("not ")?;
                        write_operand(f, a)
                    }
                    (Op::Neg, [a]) => {
                        f.write_str("-")?;
                        write_operand(f, a)
                    }
                    (Op::StrLen, [a]) => write!(f, "len({a})"),
                    (Op::StrConcat, [l, r]) => {
                        write_operand(f, l)?;
                        f.write_str(" + ")?;
                        write_operand(f, r)
                    }
                    (Op::StrAt, [s, i]) => write!(f, "{s}[{i}]"),
                    (Op::StrSlice, [s, a, b]) => write!(f, "{s}[{a}:{b}]"),
                    (Op::StrContains, [hay, needle]) => {
                        write_operand(f, needle)?;
                        f.write_str(" in ")?;
                        write_operand(f, hay)
                    }
                    (Op::Ite, [c, t, e]) => write!(f, "({t} if {c} else {e})"),
                    (op, [recv, rest @ ..]) if op.name().starts_with("str.") => {
                        let method = &op.name()[4..];
                        write_operand(f, recv)?;
                        write!(f, ".{method}(")?;
                        write_args(f, rest)?;
                        f.write_str(")")
                    }
                    (op, args) => {
                        write!(f, "{}(", op.name())?;
                        write_args(f, args)?;
                        f.write_str(")")
                    }
                }
            }
        }
    }
}

fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr) -> fmt::Result {
    let atomic = match e {
        Expr::App { op, .. } => !matches!(
            op,
            Op::Add
                | Op::Sub
                | Op::Mul
                | Op::FloorDiv
                | Op::Mod
                | Op::Pow
                | Op::TrueDiv
                | Op::Eq
                | Op::Ne
                | Op::Lt
                | Op::Le
                | Op::Gt
                | Op::Ge
                | Op::And
                | Op::Or
                | Op::Not
                | Op::Neg
                | Op::StrConcat
                | Op::StrContains
        ),
        Expr::Real(x) => *x >= 0.0,
        Expr::Int(d) => !d.starts_with('-'),
        _ => true,
    };
    if atomic {
        write!(f, "{e}")
    } else {
        write!(f, "({e})")
    }
}

fn write_args(f: &mut fmt::Formatter<'_>, args: &[Expr]) -> fmt::Result {
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_through_json() {
        let wire = json!([
            "and",
            [">", ["var", "a", "int"], ["int", "10"]],
            [
                "not",
                ["str.startswith", ["var", "s", "str"], ["str", "ab"]]
            ],
            ["<", ["float", 0.5], ["var", "$ret:2", "float"]]
        ]);
        let e = Expr::from_json(&wire).unwrap();
        assert_eq!(e.to_json(), wire);
        assert_eq!(
            e.to_string(),
            "(a > 10) and (not s.startswith(\"ab\")) and (0.5 < $ret:2)"
        );
    }

    #[test]
    fn unknown_operations_are_opaque() {
        let e = Expr::from_json(&json!(["re.match", ["str", "a+"], ["var", "s", "str"]])).unwrap();
        assert_eq!(e.opaque_ops(), vec![Arc::from("re.match")]);
        assert_eq!(e.to_string(), "re.match(\"a+\", s)");
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert!(Expr::from_json(&json!(["var", "x", "complex"])).is_err());
        assert!(Expr::from_json(&json!(["int", "12a"])).is_err());
        assert!(Expr::from_json(&json!(42)).is_err());
        let mut deep = json!(["var", "x", "bool"]);
        for _ in 0..200 {
            deep = json!(["not", deep]);
        }
        assert!(Expr::from_json(&deep).is_err());
    }
}
