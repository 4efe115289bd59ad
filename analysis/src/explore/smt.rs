//! Translation of symbolic expressions to SMT-LIB 2 text for z3, with Python's semantics:
//! floor division and modulo, true division on reals, negative string indices, slices clamped
//! to the string, `int()` truncating towards zero, `True == 1`.
//!
//! Operations z3 does not model (or the agent marked opaque) are reported, not approximated:
//! the caller turns them into a "solver limit" explanation.

use super::shape::Domain;
use super::signature::Domains;
use crate::symbolic::{Expr, Op, Sort};
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::sync::Arc;

/// Whether `op` over `args` is nonlinear arithmetic: a product of two non-literal factors, a
/// division or modulo by a non-literal, a power of a non-literal base.
fn is_nonlinear(op: &Op, args: &[Expr]) -> bool {
    let literal = |e: &Expr| matches!(e, Expr::Int(_) | Expr::Real(_) | Expr::Bool(_));
    match op {
        Op::Mul => args.iter().filter(|a| !literal(a)).count() >= 2,
        Op::TrueDiv | Op::FloorDiv | Op::Mod => args.get(1).is_some_and(|d| !literal(d)),
        Op::Pow => args.first().is_some_and(|b| !literal(b)),
        _ => false,
    }
}

/// A set of assertions in SMT-LIB form, with the variables they declare.
#[derive(Clone, Debug, Default)]
pub struct Smt {
    /// `(declare-const …)` lines.
    pub declarations: String,
    /// One `(assert …)` body per assertion, in order (without the `assert`).
    pub assertions: Vec<String>,
    /// Every variable, with its sort, in first-use order.
    pub vars: Vec<(Arc<str>, Sort)>,
    /// What in the assertions may keep z3 past its time limit ([`Translator::take_hazards`]).
    pub hazards: Hazards,
}

/// What in a query may keep z3 past its `timeout` ([`super::isolated`] decides which of these
/// the linked z3 bounds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hazards {
    /// A product, quotient, modulo or power of non-literal terms: z3 4.8's nonlinear
    /// arithmetic runs past its time limit, an interrupt and a resource limit alike.
    pub nonlinear: bool,
    /// A term of the string sort: z3 4.8's string solver runs past its time limit on length
    /// bounds (`str.len s > 320`: 22 s with a 500 ms limit).
    pub strings: bool,
}

/// What stops an expression from being translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Untranslatable {
    /// Operations the solver does not model (`math.sin`, `str.lower` on a symbolic string…).
    Unsupported(Vec<Arc<str>>),
    /// Ill-sorted (the agent recorded something inconsistent), or too large to hand to the
    /// solver ([`MAX_TERM_BYTES`]): the reason.
    Malformed(String),
}

/// The largest SMT-LIB text of one term. Expressions are DAGs (a string rebuilt from itself in
/// a loop shares its earlier value twice); written out as text they can grow exponentially,
/// so a term past this size is given up as the solver's limit instead of taking the memory.
pub const MAX_TERM_BYTES: usize = 32 * 1024;

#[derive(Default)]
pub struct Translator {
    vars: FxHashMap<Arc<str>, Sort>,
    order: Vec<(Arc<str>, Sort)>,
    unsupported: Vec<Arc<str>>,
    /// What the terms translated since the last [`Translator::take_hazards`] hold.
    hazards: Hazards,
}

impl Translator {
    /// Translates one boolean assertion.
    pub fn assertion(&mut self, e: &Expr) -> Result<String, Untranslatable> {
        let (text, sort) = self.term(e)?;
        let text = match sort {
            Sort::Bool => text,
            other => truthiness(&text, other),
        };
        if !self.unsupported.is_empty() {
            return Err(Untranslatable::Unsupported(std::mem::take(
                &mut self.unsupported,
            )));
        }
        Ok(text)
    }

    /// What the assertions translated since the last call hold that may keep z3 past its time
    /// limit: such a query is solved in a process that can be stopped ([`super::isolated`]).
    pub fn take_hazards(&mut self) -> Hazards {
        std::mem::take(&mut self.hazards)
    }

    /// The declarations of every variable seen so far, each followed, on a line of its own, by
    /// the assertion of its domain when `domains` gives it one (a value type's constructor
    /// argument).
    pub fn finish(self, domains: &Domains) -> (String, Vec<(Arc<str>, Sort)>) {
        let mut decls = String::new();
        let mut order = self.order;
        let mut i = 0;
        while i < order.len() {
            let (name, sort) = order[i].clone();
            i += 1;
            let var = smt_name(&name);
            let _ = writeln!(decls, "(declare-const {var} {})", smt_sort(sort));
            let domain = domains.of(&name);
            if let (Some(Domain::Day { year, month }), Sort::Int) = (domain, sort) {
                // The year and month the day depends on are variables of the query too (the
                // model then gives a valid date), declared after it when it does not read them.
                let sibling = |arg: &str| match name.rsplit_once('.') {
                    Some((owner, _)) => Arc::<str>::from(format!("{owner}.{arg}")),
                    None => Arc::<str>::from(arg),
                };
                let (y, m) = (sibling(year), sibling(month));
                for v in [&y, &m] {
                    if !order.iter().any(|(n, _)| n == v) {
                        order.push((v.clone(), Sort::Int));
                    }
                }
                let _ = writeln!(
                    decls,
                    "(assert {})",
                    day_of_month(&var, &smt_name(&y), &smt_name(&m))
                );
            } else if let Some(domain) = domain.and_then(|d| within(d, sort, &var)) {
                let _ = writeln!(decls, "(assert {domain})");
            }
        }
        // A sibling declared after the day is still asserted after its declaration: SMT-LIB
        // needs every constant declared before use, so the day's assertion moves last.
        (reorder_day_assertions(&decls), order)
    }

    fn declare(&mut self, name: &Arc<str>, sort: Sort) -> Result<(), Untranslatable> {
        match self.vars.get(name) {
            Some(s) if *s != sort => Err(Untranslatable::Malformed(format!(
                "variable `{name}` used as {} and as {}",
                s.as_str(),
                sort.as_str()
            ))),
            Some(_) => Ok(()),
            None => {
                self.vars.insert(name.clone(), sort);
                self.order.push((name.clone(), sort));
                Ok(())
            }
        }
    }

    fn term(&mut self, e: &Expr) -> Result<(String, Sort), Untranslatable> {
        let term = self.term_of(e)?;
        if term.1 == Sort::Str {
            self.hazards.strings = true;
        }
        Ok(term)
    }

    fn term_of(&mut self, e: &Expr) -> Result<(String, Sort), Untranslatable> {
        Ok(match e {
            Expr::Var { name, sort } => {
                self.declare(name, *sort)?;
                (smt_name(name), *sort)
            }
            Expr::Int(d) => (int_literal(d), Sort::Int),
            Expr::Bool(b) => (b.to_string(), Sort::Bool),
            Expr::Str(s) => (str_literal(s), Sort::Str),
            Expr::Real(x) => {
                if !x.is_finite() {
                    self.unsupported.push(Arc::from("float inf/nan"));
                    ("0.0".into(), Sort::Real)
                } else {
                    (real_literal(*x), Sort::Real)
                }
            }
            Expr::App { op, args } => {
                let (text, sort) = self.app(op, args)?;
                if text.len() > MAX_TERM_BYTES {
                    return Err(Untranslatable::Malformed(format!(
                        "its expression is too large to solve (over {} KiB of SMT-LIB)",
                        MAX_TERM_BYTES / 1024
                    )));
                }
                (text, sort)
            }
        })
    }

    fn terms(&mut self, args: &[Expr]) -> Result<Vec<(String, Sort)>, Untranslatable> {
        args.iter().map(|a| self.term(a)).collect()
    }

    fn app(&mut self, op: &Op, args: &[Expr]) -> Result<(String, Sort), Untranslatable> {
        let malformed =
            || Untranslatable::Malformed(format!("`{}` with {} arguments", op.name(), args.len()));
        let t = self.terms(args)?;
        if is_nonlinear(op, args) {
            self.hazards.nonlinear = true;
        }
        Ok(match (op, t.as_slice()) {
            (Op::Add, [(a, Sort::Str), (b, Sort::Str)]) | (Op::StrConcat, [(a, _), (b, _)]) => {
                (format!("(str.++ {a} {b})"), Sort::Str)
            }
            (Op::Add | Op::Sub | Op::Mul, [_, ..]) if t.iter().all(|x| x.1 != Sort::Str) => {
                let (items, sort) = numeric(&t);
                let sym = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    _ => "*",
                };
                (format!("({sym} {})", items.join(" ")), sort)
            }
            (Op::FloorDiv | Op::Mod, [_, _]) => {
                let (items, sort) = numeric(&t);
                let (a, b) = (&items[0], &items[1]);
                match sort {
                    Sort::Int => {
                        let q = format!("(ite (> {b} 0) (div {a} {b}) (div (- {a}) (- {b})))");
                        if *op == Op::FloorDiv {
                            (q, Sort::Int)
                        } else {
                            (format!("(- {a} (* {b} {q}))"), Sort::Int)
                        }
                    }
                    _ => {
                        let q = format!("(to_real (to_int (/ {a} {b})))");
                        if *op == Op::FloorDiv {
                            (q, Sort::Real)
                        } else {
                            (format!("(- {a} (* {b} {q}))"), Sort::Real)
                        }
                    }
                }
            }
            (Op::TrueDiv, [_, _]) => {
                let (a, b) = (to_real(&t[0]), to_real(&t[1]));
                (format!("(/ {a} {b})"), Sort::Real)
            }
            (Op::Pow, [base, (exp, Sort::Int)]) => match exp.parse::<u32>() {
                Ok(0) => (
                    if base.1 == Sort::Real { "1.0" } else { "1" }.into(),
                    base.1,
                ),
                Ok(n) if n <= 8 => (
                    format!("(* {})", vec![base.0.clone(); n as usize].join(" ")),
                    base.1,
                ),
                _ => {
                    self.unsupported
                        .push(Arc::from("** with a symbolic or large exponent"));
                    (base.0.clone(), base.1)
                }
            },
            (Op::Neg, [(a, s)]) => (format!("(- {a})"), *s),
            (Op::Abs, [(a, s)]) => {
                let zero = if *s == Sort::Real { "0.0" } else { "0" };
                (format!("(ite (>= {a} {zero}) {a} (- {a}))"), *s)
            }
            (Op::Min | Op::Max, [_, _]) => {
                let (items, sort) = numeric(&t);
                let cmp = if *op == Op::Min { "<=" } else { ">=" };
                let (a, b) = (&items[0], &items[1]);
                (format!("(ite ({cmp} {a} {b}) {a} {b})"), sort)
            }
            (Op::Eq | Op::Ne, [a, b]) => {
                let eq = equality(a, b);
                if *op == Op::Eq {
                    (eq, Sort::Bool)
                } else {
                    (format!("(not {eq})"), Sort::Bool)
                }
            }
            (Op::Lt | Op::Le | Op::Gt | Op::Ge, [a, b]) => {
                let sym = match op {
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    _ => ">=",
                };
                if a.1 == Sort::Str && b.1 == Sort::Str {
                    match op {
                        Op::Lt => (format!("(str.< {} {})", a.0, b.0), Sort::Bool),
                        Op::Le => (format!("(str.<= {} {})", a.0, b.0), Sort::Bool),
                        Op::Gt => (format!("(str.< {} {})", b.0, a.0), Sort::Bool),
                        _ => (format!("(str.<= {} {})", b.0, a.0), Sort::Bool),
                    }
                } else if a.1 == Sort::Str || b.1 == Sort::Str {
                    return Err(Untranslatable::Malformed(
                        "ordering a str with a number".into(),
                    ));
                } else {
                    let (items, _) = numeric(&t);
                    (format!("({sym} {} {})", items[0], items[1]), Sort::Bool)
                }
            }
            (Op::Not, [a]) => (format!("(not {})", as_bool(a)), Sort::Bool),
            (Op::And | Op::Or, _) => {
                if t.is_empty() {
                    return Ok(((*op == Op::And).to_string(), Sort::Bool));
                }
                let sym = if *op == Op::And { "and" } else { "or" };
                let items: Vec<String> = t.iter().map(as_bool).collect();
                (format!("({sym} {})", items.join(" ")), Sort::Bool)
            }
            (Op::Ite, [c, a, b]) => {
                if a.1 == b.1 {
                    (format!("(ite {} {} {})", as_bool(c), a.0, b.0), a.1)
                } else {
                    let (items, sort) = numeric(&[a.clone(), b.clone()]);
                    (
                        format!("(ite {} {} {})", as_bool(c), items[0], items[1]),
                        sort,
                    )
                }
            }
            (Op::IntToReal, [a]) => (to_real(a), Sort::Real),
            (Op::RealToInt, [(a, Sort::Real)]) => (
                format!("(ite (>= {a} 0.0) (to_int {a}) (- (to_int (- {a}))))"),
                Sort::Int,
            ),
            (Op::RealToInt, [(a, Sort::Int)]) => (a.clone(), Sort::Int),
            (Op::BoolToInt, [a]) => (format!("(ite {} 1 0)", as_bool(a)), Sort::Int),
            (Op::IntToStr, [(a, Sort::Int)]) => (
                format!(
                    "(ite (>= {a} 0) (str.from_int {a}) (str.++ \"-\" (str.from_int (- {a}))))"
                ),
                Sort::Str,
            ),
            (Op::StrToInt, [(s, Sort::Str)]) => (format!("(str.to_int {s})"), Sort::Int),
            (Op::StrLen, [(s, _)]) => (format!("(str.len {s})"), Sort::Int),
            (Op::StrAt, [(s, _), (i, _)]) => {
                let i = py_index(s, i);
                (format!("(str.at {s} {i})"), Sort::Str)
            }
            (Op::StrSlice, [(s, _), (a, _), (b, _)]) => {
                let (a, b) = (py_bound(s, a), py_bound(s, b));
                (
                    format!("(ite (< {a} {b}) (str.substr {s} {a} (- {b} {a})) \"\")"),
                    Sort::Str,
                )
            }
            (Op::StrContains, [(h, _), (n, _)]) => (format!("(str.contains {h} {n})"), Sort::Bool),
            (Op::StrStartsWith, [(s, _), (p, _)]) => {
                (format!("(str.prefixof {p} {s})"), Sort::Bool)
            }
            (Op::StrEndsWith, [(s, _), (p, _)]) => (format!("(str.suffixof {p} {s})"), Sort::Bool),
            (Op::StrFind, [(s, _), (n, _)]) => (format!("(str.indexof {s} {n} 0)"), Sort::Int),
            (Op::StrIsDigit, [(s, _)]) => (
                format!("(str.in_re {s} (re.+ (re.range \"0\" \"9\")))"),
                Sort::Bool,
            ),
            (Op::StrIsAlpha, [(s, _)]) => (
                format!(
                    "(str.in_re {s} (re.+ (re.union (re.range \"a\" \"z\") (re.range \"A\" \"Z\"))))"
                ),
                Sort::Bool,
            ),
            (Op::StrReplace, [(s, _), (a, _), (b, _)]) => {
                // Python replaces every occurrence; SMT-LIB 2.6's `str.replace_all` is z3 ≥ 4.8.
                (format!("(str.replace_all {s} {a} {b})"), Sort::Str)
            }
            (Op::StrLower | Op::StrUpper | Op::StrStrip | Op::StrCount | Op::Opaque(_), _) => {
                self.unsupported.push(Arc::from(op.name()));
                let sort = match op {
                    Op::StrCount => Sort::Int,
                    Op::Opaque(_) => Sort::Bool,
                    _ => Sort::Str,
                };
                (default_of(sort).into(), sort)
            }
            _ => return Err(malformed()),
        })
    }
}

fn default_of(sort: Sort) -> &'static str {
    match sort {
        Sort::Int => "0",
        Sort::Bool => "false",
        Sort::Str => "\"\"",
        Sort::Real => "0.0",
    }
}

/// Python's truth value of a non-boolean term.
fn truthiness(text: &str, sort: Sort) -> String {
    match sort {
        Sort::Bool => text.to_owned(),
        Sort::Int => format!("(not (= {text} 0))"),
        Sort::Real => format!("(not (= {text} 0.0))"),
        Sort::Str => format!("(> (str.len {text}) 0)"),
    }
}

fn as_bool((text, sort): &(String, Sort)) -> String {
    truthiness(text, *sort)
}

fn to_real((text, sort): &(String, Sort)) -> String {
    match sort {
        Sort::Real => text.clone(),
        Sort::Bool => format!("(ite {text} 1.0 0.0)"),
        _ => format!("(to_real {text})"),
    }
}

fn to_int((text, sort): &(String, Sort)) -> String {
    match sort {
        Sort::Bool => format!("(ite {text} 1 0)"),
        _ => text.clone(),
    }
}

/// Brings numeric operands to a common sort: any real makes all real; booleans count as 0/1.
fn numeric(terms: &[(String, Sort)]) -> (Vec<String>, Sort) {
    if terms.iter().any(|t| t.1 == Sort::Real) {
        (terms.iter().map(to_real).collect(), Sort::Real)
    } else {
        (terms.iter().map(to_int).collect(), Sort::Int)
    }
}

/// Python `==`: numbers (and booleans) compare numerically; other sorts never equal each other.
fn equality(a: &(String, Sort), b: &(String, Sort)) -> String {
    let numeric_sort = |s: Sort| matches!(s, Sort::Int | Sort::Real | Sort::Bool);
    if a.1 == b.1 {
        format!("(= {} {})", a.0, b.0)
    } else if numeric_sort(a.1) && numeric_sort(b.1) {
        let (items, _) = numeric(&[a.clone(), b.clone()]);
        format!("(= {} {})", items[0], items[1])
    } else {
        "false".to_owned()
    }
}

/// A Python index into `s`: negative counts from the end.
fn py_index(s: &str, i: &str) -> String {
    format!("(ite (< {i} 0) (+ (str.len {s}) {i}) {i})")
}

/// `day` is a day of month `month` of year `year` (Python's proleptic Gregorian calendar).
fn day_of_month(day: &str, year: &str, month: &str) -> String {
    let leap = format!(
        "(and (= (mod {year} 4) 0) (or (not (= (mod {year} 100) 0)) (= (mod {year} 400) 0)))"
    );
    format!(
        "(and (<= 1 {day}) (<= {day} 31) \
         (=> (or (= {month} 4) (= {month} 6) (= {month} 9) (= {month} 11)) (<= {day} 30)) \
         (=> (= {month} 2) (<= {day} (ite {leap} 29 28))))"
    )
}

/// The declarations first, then the assertions, keeping the order within each.
fn reorder_day_assertions(decls: &str) -> String {
    let (declare, assert): (Vec<&str>, Vec<&str>) =
        decls.lines().partition(|l| l.starts_with("(declare-const"));
    let mut out = String::new();
    for line in declare.into_iter().chain(assert) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `var` within `domain`, as an SMT assertion; none when the domain bounds nothing of `var`'s
/// sort.
fn within(domain: &Domain, sort: Sort, var: &str) -> Option<String> {
    let mut parts = vec![];
    match (domain, sort) {
        (Domain::Int { min, max }, Sort::Int) => {
            parts.extend(min.map(|m| format!("(<= {} {var})", int_literal(&m.to_string()))));
            parts.extend(max.map(|m| format!("(<= {var} {})", int_literal(&m.to_string()))));
        }
        (
            Domain::Str {
                length,
                min_length,
                max_length,
                alphabet,
            },
            Sort::Str,
        ) => {
            if let Some(n) = length {
                parts.push(format!("(= (str.len {var}) {n})"));
            }
            if let Some(n) = min_length {
                parts.push(format!("(<= {n} (str.len {var}))"));
            }
            if let Some(n) = max_length {
                parts.push(format!("(<= (str.len {var}) {n})"));
            }
            if let Some(chars) = alphabet {
                let mut chars: Vec<char> = chars.chars().collect();
                chars.sort_unstable();
                chars.dedup();
                let one_of = match chars.as_slice() {
                    [] => "re.none".to_owned(),
                    [c] => format!("(str.to_re {})", str_literal(&c.to_string())),
                    _ => format!(
                        "(re.union {})",
                        char_runs(&chars)
                            .iter()
                            .map(|(a, b)| format!(
                                "(re.range {} {})",
                                str_literal(&a.to_string()),
                                str_literal(&b.to_string())
                            ))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                };
                parts.push(format!("(str.in_re {var} (re.* {one_of}))"));
            }
        }
        _ => {}
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ => Some(format!("(and {})", parts.join(" "))),
    }
}

/// Sorted distinct characters as runs of consecutive ones (`0-9`, `a-f`).
fn char_runs(chars: &[char]) -> Vec<(char, char)> {
    let mut runs: Vec<(char, char)> = vec![];
    for &c in chars {
        match runs.last_mut() {
            Some((_, end)) if char::from_u32(*end as u32 + 1) == Some(c) => *end = c,
            _ => runs.push((c, c)),
        }
    }
    runs
}

/// A Python slice bound: negative counts from the end, then clamped to `[0, len]`.
fn py_bound(s: &str, i: &str) -> String {
    let raw = py_index(s, i);
    format!("(ite (< {raw} 0) 0 (ite (> {raw} (str.len {s})) (str.len {s}) {raw}))")
}

pub fn smt_sort(sort: Sort) -> &'static str {
    match sort {
        Sort::Int => "Int",
        Sort::Bool => "Bool",
        Sort::Str => "String",
        Sort::Real => "Real",
    }
}

/// A quoted SMT-LIB symbol; `|` and `\` (not allowed inside quotes) are replaced.
pub fn smt_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('|');
    for c in name.chars() {
        match c {
            '|' => out.push_str("<bar>"),
            '\\' => out.push_str("<bs>"),
            c => out.push(c),
        }
    }
    out.push('|');
    out
}

fn int_literal(d: &str) -> String {
    match d.strip_prefix('-') {
        Some(abs) => format!("(- {abs})"),
        None => d.to_owned(),
    }
}

fn real_literal(x: f64) -> String {
    // The shortest decimal that reads back as the same float (floats are modelled as reals).
    let text = format!("{:?}", x.abs());
    let body = if text.contains('e') {
        // `1e300`: write the integer or fraction out in full.
        let (mantissa, exp) = text.split_once('e').expect("checked");
        let exp: i32 = exp.parse().unwrap_or(0);
        let m: f64 = mantissa.parse().unwrap_or(0.0);
        if exp >= 0 {
            format!(
                "(* {m:?} {}.0)",
                format_args!("1{}", "0".repeat(exp as usize))
            )
        } else {
            format!(
                "(/ {m:?} {}.0)",
                format_args!("1{}", "0".repeat((-exp) as usize))
            )
        }
    } else {
        text
    };
    if x < 0.0 { format!("(- {body})") } else { body }
}

/// An SMT-LIB string literal: printable ASCII as is (`"` doubled), everything else escaped.
pub fn str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\"\""),
            ' '..='~' if c != '\\' => out.push(c),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// Decodes a string value as z3 prints it (`\u{e9}` escapes, `""` for a quote).
pub fn unescape_z3_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'u') {
            chars.next();
            let code: String = if chars.peek() == Some(&'{') {
                chars.next();
                chars.by_ref().take_while(|c| *c != '}').collect()
            } else {
                chars.by_ref().take(4).collect()
            };
            match u32::from_str_radix(&code, 16).ok().and_then(char::from_u32) {
                Some(decoded) => out.push(decoded),
                None => {
                    out.push_str("\\u");
                    out.push_str(&code);
                }
            }
        } else if c == '"' && chars.peek() == Some(&'"') {
            chars.next();
            out.push('"');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_domain_bounds_the_string_between_its_lengths() {
        let code = Domain::from_describe(&crate::agent::description::read(serde_json::json!(
            {"min_length": 4, "max_length": 6}
        )));
        assert_eq!(
            within(&code.unwrap(), Sort::Str, "s"),
            Some("(and (<= 4 (str.len s)) (<= (str.len s) 6))".to_owned())
        );
    }

    #[test]
    fn products_and_quotients_of_two_unknowns_are_nonlinear() {
        let (x, y) = (Expr::var("x", Sort::Real), Expr::var("y", Sort::Real));
        let app = |op: Op, args: Vec<Expr>| Expr::App { op, args };
        let gt = |e: Expr| app(Op::Gt, vec![e, Expr::Real(2.0)]);
        let nonlinear = |e: Expr| {
            let mut t = Translator::default();
            t.assertion(&gt(e)).unwrap();
            t.take_hazards().nonlinear
        };
        assert!(nonlinear(app(Op::Mul, vec![x.clone(), y.clone()])));
        assert!(nonlinear(app(
            Op::TrueDiv,
            vec![Expr::Real(1.0), y.clone()]
        )));
        assert!(nonlinear(app(
            Op::Pow,
            vec![x.clone(), Expr::Int("2".into())]
        )));
        assert!(!nonlinear(app(Op::Mul, vec![Expr::Real(3.0), y.clone()])));
        assert!(!nonlinear(app(
            Op::TrueDiv,
            vec![x.clone(), Expr::Real(4.0)]
        )));
        assert!(!nonlinear(app(Op::Add, vec![x, y])));
    }

    #[test]
    fn a_term_of_the_string_sort_is_a_hazard_and_nothing_else_is() {
        let s = Expr::var("s", Sort::Str);
        let n = Expr::var("n", Sort::Int);
        let app = |op: Op, args: Vec<Expr>| Expr::App { op, args };
        let hazards = |e: Expr| {
            let mut t = Translator::default();
            t.assertion(&e).unwrap();
            t.take_hazards()
        };
        let long = app(
            Op::Gt,
            vec![app(Op::StrLen, vec![s.clone()]), Expr::Int("320".into())],
        );
        assert_eq!(
            hazards(long),
            Hazards {
                nonlinear: false,
                strings: true
            }
        );
        assert_eq!(
            hazards(app(Op::Gt, vec![n, Expr::Int("3".into())])),
            Hazards::default()
        );
        // Taken once: the next assertion starts clean.
        let mut t = Translator::default();
        t.assertion(&app(Op::Eq, vec![s, Expr::Str("a".into())]))
            .unwrap();
        assert!(t.take_hazards().strings);
        assert_eq!(t.take_hazards(), Hazards::default());
    }

    #[test]
    fn literals() {
        assert_eq!(str_literal("a\"é\\"), "\"a\"\"\\u{e9}\\u{5c}\"");
        assert_eq!(unescape_z3_string("a\"\"\\u{e9}\\u{5c}"), "a\"é\\");
        assert_eq!(int_literal("-12"), "(- 12)");
        assert_eq!(real_literal(-0.5), "(- 0.5)");
        assert_eq!(real_literal(1e20), "(* 1.0 100000000000000000000.0)");
        assert_eq!(smt_name("$ret:3[\"a|b\"]"), "|$ret:3[\"a<bar>b\"]|");
    }

    #[test]
    fn a_term_past_the_size_limit_is_given_up_not_written_out() {
        // `s == "xx…x"` a hundred times over, and-ed: over 32 KiB of text.
        let s = Expr::Var {
            name: Arc::from("s"),
            sort: Sort::Str,
        };
        let long = Expr::Str(Arc::from("x".repeat(1_000).as_str()));
        let equalities = (0..100)
            .map(|_| Expr::App {
                op: Op::Eq,
                args: vec![s.clone(), long.clone()],
            })
            .collect();
        let conjunction = Expr::App {
            op: Op::And,
            args: equalities,
        };
        let mut translator = Translator::default();
        assert_eq!(
            translator.assertion(&conjunction),
            Err(Untranslatable::Malformed(
                "its expression is too large to solve (over 32 KiB of SMT-LIB)".into()
            ))
        );
        // One of them fits.
        let one = Expr::App {
            op: Op::Eq,
            args: vec![s, long],
        };
        assert!(Translator::default().assertion(&one).is_ok());
    }
}
