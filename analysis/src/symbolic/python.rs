//! Rendering symbolic expressions as Python source with exactly the expression's semantics:
//! hover shows path conditions this way, and tests evaluate the rendering in real CPython to
//! check the solver's models.

use super::expr::{Expr, Op};
use std::fmt::Write;

impl Expr {
    /// Python source for the expression; `name` renders each variable (an access path such as
    /// `self._items.__len__` is not a Python name by itself).
    pub fn to_python(&self, name: &dyn Fn(&str) -> String) -> String {
        let mut out = String::new();
        write_python(&mut out, self, name);
        out
    }
}

fn write_python(out: &mut String, e: &Expr, name: &dyn Fn(&str) -> String) {
    let arg = |out: &mut String, e: &Expr| write_python(out, e, name);
    match e {
        Expr::Var { name: n, .. } => out.push_str(&name(n)),
        Expr::Int(d) => {
            if d.starts_with('-') {
                let _ = write!(out, "({d})");
            } else {
                out.push_str(d);
            }
        }
        Expr::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Expr::Str(s) => python_str_literal(out, s),
        Expr::Real(x) if x.is_nan() => out.push_str("float('nan')"),
        Expr::Real(x) if x.is_infinite() => out.push_str(if *x > 0.0 {
            "float('inf')"
        } else {
            "float('-inf')"
        }),
        Expr::Real(x) => {
            let _ = write!(out, "({x:?})");
        }
        Expr::App { op, args } => {
            let infix = |out: &mut String, sym: &str, args: &[Expr]| {
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        let _ = write!(out, " {sym} ");
                    }
                    write_python(out, a, name);
                }
                out.push(')');
            };
            let call = |out: &mut String, f: &str, args: &[Expr]| {
                let _ = write!(out, "{f}(");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_python(out, a, name);
                }
                out.push(')');
            };
            let method = |out: &mut String, m: &str, args: &[Expr]| {
                if let Some((recv, rest)) = args.split_first() {
                    out.push('(');
                    write_python(out, recv, name);
                    let _ = write!(out, ").{m}(");
                    for (i, a) in rest.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_python(out, a, name);
                    }
                    out.push(')');
                }
            };
            match (op, args.as_slice()) {
                (Op::Add, _) => infix(out, "+", args),
                (Op::Sub, _) => infix(out, "-", args),
                (Op::Mul, _) => infix(out, "*", args),
                (Op::FloorDiv, _) => infix(out, "//", args),
                (Op::Mod, _) => infix(out, "%", args),
                (Op::Pow, _) => infix(out, "**", args),
                (Op::TrueDiv, _) => infix(out, "/", args),
                (Op::Eq, _) => infix(out, "==", args),
                (Op::Ne, _) => infix(out, "!=", args),
                (Op::Lt, _) => infix(out, "<", args),
                (Op::Le, _) => infix(out, "<=", args),
                (Op::Gt, _) => infix(out, ">", args),
                (Op::Ge, _) => infix(out, ">=", args),
                (Op::And, []) => out.push_str("True"),
                (Op::Or, []) => out.push_str("False"),
                (Op::And, _) => infix(out, "and", args),
                (Op::Or, _) => infix(out, "or", args),
                (Op::Not, [a]) => {
                    out.push_str("(not ");
                    arg(out, a);
                    out.push(')');
                }
                (Op::Neg, [a]) => {
                    out.push_str("(-");
                    arg(out, a);
                    out.push(')');
                }
                (Op::Ite, [c, t, f]) => {
                    out.push('(');
                    arg(out, t);
                    out.push_str(" if ");
                    arg(out, c);
                    out.push_str(" else ");
                    arg(out, f);
                    out.push(')');
                }
                (Op::Abs, _) => call(out, "abs", args),
                (Op::Min, _) => call(out, "min", args),
                (Op::Max, _) => call(out, "max", args),
                (Op::IntToReal, _) => call(out, "float", args),
                (Op::RealToInt | Op::BoolToInt | Op::StrToInt, _) => call(out, "int", args),
                (Op::IntToStr, _) => call(out, "str", args),
                (Op::StrLen, _) => call(out, "len", args),
                (Op::StrConcat, _) => infix(out, "+", args),
                (Op::StrAt, [s, i]) => {
                    out.push('(');
                    arg(out, s);
                    out.push_str(")[");
                    arg(out, i);
                    out.push(']');
                }
                (Op::StrSlice, [s, a, b]) => {
                    out.push('(');
                    arg(out, s);
                    out.push_str(")[");
                    arg(out, a);
                    out.push(':');
                    arg(out, b);
                    out.push(']');
                }
                (Op::StrContains, [hay, needle]) => {
                    out.push('(');
                    arg(out, needle);
                    out.push_str(" in ");
                    arg(out, hay);
                    out.push(')');
                }
                (Op::StrStartsWith, _) => method(out, "startswith", args),
                (Op::StrEndsWith, _) => method(out, "endswith", args),
                (Op::StrFind, _) => method(out, "find", args),
                (Op::StrIsDigit, _) => method(out, "isdigit", args),
                (Op::StrIsAlpha, _) => method(out, "isalpha", args),
                (Op::StrLower, _) => method(out, "lower", args),
                (Op::StrUpper, _) => method(out, "upper", args),
                (Op::StrStrip, _) => method(out, "strip", args),
                (Op::StrReplace, _) => method(out, "replace", args),
                (Op::StrCount, _) => method(out, "count", args),
                (op, _) => call(out, op.name(), args),
            }
        }
    }
}

/// A Python string literal for `s`.
pub fn python_str_literal(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() || (!c.is_control() && c as u32 <= 0xffff) => out.push(c),
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('\'');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_python() {
        let e = Expr::from_json(&json!([
            "and",
            [
                ">",
                ["//", ["var", "x", "int"], ["int", "-3"]],
                ["int", "2"]
            ],
            ["str.startswith", ["var", "s", "str"], ["str", "a'\n"]],
            [
                "not",
                [
                    "==",
                    ["str.len", ["var", "self._items", "str"]],
                    ["int", "0"]
                ]
            ]
        ]))
        .unwrap();
        let py = e.to_python(&|n| n.replace('.', "_"));
        assert_eq!(
            py,
            "(((x // (-3)) > 2) and (s).startswith('a\\'\\n') and (not (len(self__items) == 0)))"
        );
    }
}
