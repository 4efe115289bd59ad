//! The syntax layer on real Python: each fixture is rendered as text (functions, decisions with
//! their boolean structure and conditions, calls, field writes, classes) and reviewed as a
//! snapshot.

use lacuna_grammar::{BoolExpr, Decision, LineIndex, Literal, Module, TextRange, parse};
use std::fmt::Write;

/// The module's function named `name`.
fn function_named<'m>(module: &'m Module, name: &str) -> &'m lacuna_grammar::Function {
    module
        .functions
        .iter()
        .find(|f| f.syntax.name == name)
        .unwrap()
}

fn render(text: &str) -> String {
    let module = parse(text);
    let index = LineIndex::new(text);
    let mut out = String::new();
    let pos = |r: TextRange| {
        let s = index.line_col(r.start);
        let e = index.line_col(r.end);
        format!("{}:{}-{}:{}", s.line + 1, s.col + 1, e.line + 1, e.col + 1)
    };
    for e in &module.syntax_errors {
        writeln!(out, "error {} {}", pos(e.range), e.message).unwrap();
    }
    for i in &module.imports {
        writeln!(
            out,
            "import {} = {}{}",
            i.local,
            i.target,
            if i.scope.as_str() == "<module>" {
                String::new()
            } else {
                format!(" (in {})", i.scope)
            }
        )
        .unwrap();
    }
    for f in &module.functions {
        let s = &f.syntax;
        let abs = |r: TextRange| pos(r.absolute(f.anchor));
        write!(out, "\n{:?} {} [{}]", s.kind, f.id, abs(s.name_range)).unwrap();
        if !s.params.is_empty() {
            let params: Vec<String> = s
                .params
                .iter()
                .map(|p| {
                    let mut t = format!("{:?} {}", p.kind, p.name);
                    if let Some(a) = &p.annotation {
                        t += &format!(": {a}");
                    }
                    if let Some(d) = &p.default {
                        t += &format!(" = {d}");
                    }
                    t
                })
                .collect();
            write!(out, " ({})", params.join(", ")).unwrap();
        }
        if let Some(r) = &s.returns {
            write!(out, " -> {r}").unwrap();
        }
        for (flag, on) in [("async", s.is_async), ("generator", s.is_generator)] {
            if on {
                write!(out, " {flag}").unwrap();
            }
        }
        if !s.decorators.is_empty() {
            write!(out, " @{}", s.decorators.join(" @")).unwrap();
        }
        writeln!(out).unwrap();
        for d in &s.decisions {
            render_decision(&mut out, d, &abs);
        }
        for c in &s.calls {
            writeln!(
                out,
                "  call {} {}{}",
                abs(c.range),
                c.callee,
                c.resolved(&f.id, module.imports.iter().filter_map(|i| i.binding()))
                    .map(|r| format!(" => {r}"))
                    .unwrap_or_default()
            )
            .unwrap();
        }
        for l in &s.loops {
            writeln!(
                out,
                "  loop {:?} {} iter={:?}",
                l.kind,
                abs(l.header),
                l.iter
            )
            .unwrap();
        }
        for a in &s.asserts {
            writeln!(out, "  assert {}", abs(a.test)).unwrap();
        }
        if !s.returned.is_empty() {
            writeln!(out, "  returns {}", s.returned.join(", ")).unwrap();
        }
        for w in &s.field_writes {
            writeln!(
                out,
                "  writes {} {:?} from_param={:?}",
                w.field, w.kind, w.from_param
            )
            .unwrap();
        }
        if !s.field_reads.is_empty() {
            writeln!(out, "  reads {}", s.field_reads.join(", ")).unwrap();
        }
        if !s.param_field_reads.is_empty() {
            let reads: Vec<String> = s
                .param_field_reads
                .iter()
                .map(|r| format!("{}.{}", r.param, r.field))
                .collect();
            writeln!(out, "  reads of parameters {}", reads.join(", ")).unwrap();
        }
    }
    for c in &module.classes {
        let s = &c.syntax;
        writeln!(
            out,
            "\nclass {} {:?} bases={:?} methods={:?}",
            s.qualname, s.kind, s.bases, s.methods
        )
        .unwrap();
        for f in &s.fields {
            writeln!(
                out,
                "  field {} ann={:?} default={:?} class_level={} init={}",
                f.name, f.annotation, f.default, f.class_level, f.init
            )
            .unwrap();
        }
        for p in &s.properties {
            writeln!(out, "  property {} setter={}", p.name, p.has_setter).unwrap();
        }
        for w in &s.writes {
            writeln!(
                out,
                "  {} writes {} ({:?})",
                w.method, w.write.field, w.write.kind
            )
            .unwrap();
        }
    }
    out
}

fn render_decision(out: &mut String, d: &Decision, pos: &dyn Fn(TextRange) -> String) {
    let expr = match &d.expr {
        Some(e) => render_expr(e, d),
        None => format!("unmodelled {:?}", d.unmodelled),
    };
    writeln!(
        out,
        "  {} {} {} :: {}",
        d.kind.as_str(),
        pos(d.range),
        d.id,
        expr
    )
    .unwrap();
    let [t, f] = d.kind.side_names();
    for (name, side) in [(t, &d.sides[0]), (f, &d.sides[1])] {
        if let Some(target) = side.target {
            writeln!(out, "    {name} -> {}", pos(target)).unwrap();
        }
    }
}

fn render_expr(e: &BoolExpr, d: &Decision) -> String {
    match e {
        BoolExpr::Condition(i) => format!("[{}]", d.conditions[*i as usize].text),
        BoolExpr::Not(e) => format!("not {}", render_expr(e, d)),
        BoolExpr::And(l, r) => format!("({} and {})", render_expr(l, d), render_expr(r, d)),
        BoolExpr::Or(l, r) => format!("({} or {})", render_expr(l, d), render_expr(r, d)),
        BoolExpr::Eq {
            left,
            right,
            negated,
        } => format!(
            "({} {} {})",
            render_expr(left, d),
            if *negated { "!=" } else { "==" },
            render_expr(right, d)
        ),
    }
}

#[test]
fn decisions_of_every_kind() {
    insta::assert_snapshot!(render(
        r#"
import os.path
from os import path as p, environ
from .models import Stack as S
from .. import util

def check(a: int, b: int = 3, *args, c, **kw) -> bool:
    if a > 10 and (b < 3 or c):
        return True
    elif not (a == b):
        pass
    else:
        x = a if b else c
    while a < b < 10:
        a += 1
    assert a >= 0, "negative"
    ys = [y for y in args if y % 2 and y > 0]
    name = kw.get("name") or "anon"
    flag = (a > 0) == (b > 0)
    if (a > 0) != (b > 0):
        pass
    if os.path.exists(p.join("a", "b")) or util.ok(S()):
        pass
    return a is None

async def gen(x, /, y):
    for i in range(x):
        yield i
"#
    ));
}

#[test]
fn classes_fields_and_writes() {
    insta::assert_snapshot!(render(
        r#"
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple
import enum

class Stack:
    limit = 10

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._items = []

    def push(self, item):
        if len(self._items) >= self.capacity:
            raise OverflowError
        self._items.append(item)

    def count(self):
        return len(self._items)

    @property
    def top(self):
        return self._items[-1]

    @property
    def label(self):
        return self._label

    @label.setter
    def label(self, value):
        self._label = value

    @staticmethod
    def make(n):
        return Stack(n)

    @classmethod
    def bump(cls):
        cls.limit += 1

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list, init=False)
    origin: ClassVar[int] = 0

class Pair(NamedTuple):
    a: int
    b: str

class Color(enum.Enum):
    RED = 1
    GREEN = 2

def outer():
    def inner(v):
        return v if v else None
    class Local:
        def m(self):
            self.z = 1
    return inner
"#
    ));
}

#[test]
fn a_local_name_holding_a_field_changes_the_field_when_it_is_changed() {
    insta::assert_snapshot!(render(
        r#"
class SortedList:
    def __init__(self):
        self._lists = []
        self._maxes = []

    def add(self, value):
        _lists = self._lists
        _maxes = self._maxes
        if _maxes:
            _lists[-1].append(value)
            _maxes[-1] = value
        else:
            _lists.append([value])
            _maxes.append(value)

    def pop(self):
        _lists, _maxes = self._lists, self._maxes
        del _maxes[-1]
        return _lists.pop()

    def rebound(self):
        items = self._lists
        items = list(items)
        items.append(1)
        self._maxes.sort()

    def push(self, item):
        heapq.heappush(self.__order, item)
        _lists = self._lists
        insort(_lists, item)
        sorted(self._maxes)
"#
    ));
}

#[test]
fn match_guards_and_comprehension_ifs() {
    insta::assert_snapshot!(render(
        r#"
def classify(cmd):
    match cmd:
        case [x, y] if x > y and y > 0:
            return 1
        case {"k": v} if v:
            return 2
        case _:
            return 0

def evens(xs):
    return {x: y for x, y in xs if x % 2 == 0 if y}
"#
    ));
}

#[test]
fn syntax_errors_keep_what_parses() {
    insta::assert_snapshot!(render(
        r#"
def good(a):
    if a > 1:
        return a

def broken(b:
    if b:
        return (

def after(c):
    return c or 0
"#
    ));
}

#[test]
fn ids_survive_edits_above() {
    let before = "def f(a):\n    if a > 1:\n        return 1\n    if a > 1:\n        return 2\n";
    let after = format!("import os\n\n\ndef g():\n    return os.sep\n\n{before}");
    let ids = |m: &Module| -> Vec<String> {
        m.functions
            .iter()
            .filter(|f| f.id.as_str() == "f")
            .flat_map(|f| f.syntax.decisions.iter().map(|d| d.id.0.clone()))
            .collect()
    };
    let (a, b) = (parse(before), parse(&after));
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(ids(&a).len(), 2);
    assert_ne!(
        ids(&a)[0],
        ids(&a)[1],
        "repeated decisions get distinct IDs"
    );
    // The function's syntax, ranges included, is unchanged by the move.
    let f = |m: &Module| {
        m.functions
            .iter()
            .find(|f| f.id.as_str() == "f")
            .unwrap()
            .syntax
            .clone()
    };
    assert_eq!(f(&a), f(&b));
}

#[test]
fn incremental_parses_equal_fresh_parses() {
    let mut text = String::from(
        "import os\n\ndef f(a, b):\n    if a > 1 and b:\n        return 'é'\n    return 0\n\nclass C:\n    def m(self):\n        self.x = 1\n",
    );
    let edits: &[(&str, &str)] = &[
        ("a > 1", "a > 100 or not b"),
        ("return 'é'", "return 'ê' if a else b"),
        ("import os\n", ""),
        ("self.x = 1", "self.x = [y for y in range(3) if y]"),
        ("def m(self):", "def m(self:"),
        ("def m(self:", "def m(self):"),
    ];
    let (_, mut previous) = lacuna_grammar::parse_after(&text, None);
    for (from, to) in edits {
        text = text.replacen(from, to, 1);
        let (incremental, next) = lacuna_grammar::parse_after(&text, previous.as_ref());
        assert_eq!(
            incremental,
            parse(&text),
            "after replacing {from:?} with {to:?}"
        );
        previous = next;
    }
}

#[test]
fn for_loops_are_branch_points_and_comprehensions_are_not() {
    insta::assert_snapshot!(render(
        r#"
async def scan(xs, d, rows, it):
    for x in xs:
        pass
    for x in xs:
        if x:
            break
    else:
        return None
    for k, v in d.items():
        pass
    for row in rows:
        for y in row:
            pass
    async for z in it:
        pass
    else:
        z = None
    return [x * 2 for x in xs], {k for k in d}, sum(y for y in xs), [w async for w in it]
"#
    ));
}

/// A statement testing a constant goes one way only: CPython compiles no test, coverage.py counts
/// no branch, and neither does the model. A constant's value in any other place is still read.
#[test]
fn a_constant_test_is_no_decision() {
    insta::assert_snapshot!(render(
        r#"
def serve(queue, debug):
    while True:
        item = queue.get()
        if item is None:
            break
    while 1:
        if not queue:
            break
    if (0):
        return "off"
    elif not None:
        pass
    if "x" and debug:
        return -1
    while -1:
        break
    if ' ' f'{debug}':
        pass
    if f"on":
        pass
    return debug if True else None
"#
    ));
}

/// The names a function returns, its own `return NAME` only: not a nested function's, not an
/// expression's.
#[test]
fn the_names_a_function_returns_are_its_own() {
    let module = parse(
        r#"
def threshold(limit, strict):
    def check(v):
        if v > limit:
            return v
        return None
    if strict:
        return check
    return check.__call__
def either(a, loose):
    def tight(v):
        return v
    return tight if a else (loose)
def other(x):
    return x + 1
"#,
    );
    let returned: Vec<(String, Vec<String>)> = module
        .functions
        .iter()
        .map(|f| {
            (
                f.syntax.qualname.to_string(),
                f.syntax.returned.iter().map(|n| n.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        returned,
        [
            ("<module>".to_owned(), vec![]),
            ("threshold".to_owned(), vec!["check".to_owned()]),
            ("threshold.<locals>.check".to_owned(), vec!["v".to_owned()]),
            (
                "either".to_owned(),
                vec!["tight".to_owned(), "loose".to_owned()]
            ),
            ("either.<locals>.tight".to_owned(), vec!["v".to_owned()]),
            ("other".to_owned(), vec![]),
        ]
    );
}

/// Each `except` clause of a function's `try` statements, with the first statement of its
/// block (a comment before it aside); a nested function's clauses are its own.
#[test]
fn the_except_clauses_of_a_function_are_its_own() {
    let text = r#"
def to_int(text):
    try:
        return int(text)
    except ValueError:
        # not a number
        return None
    except (TypeError, OverflowError) as e:
        raise RuntimeError(e)
def outer():
    def inner():
        try:
            pass
        except* OSError:
            log()
    return inner
"#;
    let module = parse(text);
    let lines = LineIndex::new(text);
    let handlers: Vec<(String, Vec<(u32, String)>)> = module
        .functions
        .iter()
        .map(|f| {
            let anchor = f.anchor;
            (
                f.syntax.qualname.to_string(),
                f.syntax
                    .handlers
                    .iter()
                    .map(|h| {
                        let first = h.first.absolute(anchor);
                        let clause = h.clause.absolute(anchor);
                        assert!(clause.start <= first.start && first.end <= clause.end);
                        (
                            lines.line_col(first.start).line + 1,
                            text[first.start as usize..first.end as usize].to_owned(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        handlers,
        [
            ("<module>".to_owned(), vec![]),
            (
                "to_int".to_owned(),
                vec![
                    (7, "return None".to_owned()),
                    (9, "raise RuntimeError(e)".to_owned())
                ]
            ),
            ("outer".to_owned(), vec![]),
            (
                "outer.<locals>.inner".to_owned(),
                vec![(15, "log()".to_owned())]
            ),
        ]
    );
}

/// Reads of other parameters' attributes, from code only: a docstring, a comment or a string
/// that mentions `order.status` is not a read, nor is a write, nor an attribute of a local.
#[test]
fn attribute_reads_of_parameters_are_code_not_text() {
    let text = r#"
def ship(order, carrier, *, note=None):
    """Ships `order.paid` orders."""
    # order.total is checked below
    label = "order.weight"
    order.shipped = True
    local = carrier
    if order.status == "paid" and carrier.active and local.region:
        return order.status, order.total
    return note.text
"#;
    let module = parse(text);
    let f = &module
        .functions
        .iter()
        .find(|f| f.syntax.name == "ship")
        .unwrap()
        .syntax;
    let reads: Vec<String> = f
        .param_field_reads
        .iter()
        .map(|r| format!("{}.{}", r.param, r.field))
        .collect();
    assert_eq!(
        reads,
        ["order.status", "carrier.active", "order.total", "note.text"]
    );
}

/// The names a function binds again, from code only: every way Python binds a name, and none
/// of what merely looks like it in a comment or a string, a subscript or an attribute target,
/// or a comparison.
#[test]
fn bindings_are_every_way_python_binds_a_name_and_nothing_else() {
    let text = r#"
def f(level, n, m, xs, o, flag):
    """level = 3 in a docstring"""
    # n = 4 in a comment
    label = "m = 5"
    if level == 3 and n >= 2:
        pass
    xs[0] = 1
    o.x = 2
    level += 1
    a, (b, *c) = xs
    [d, e] = xs
    total: int = 0
    for i, (j, k) in xs:
        pass
    with open(label) as handle, open(label) as (p, q):
        pass
    try:
        pass
    except ValueError as err:
        pass
    if (w := n):
        pass
    del m
    global counter
    return flag
"#;
    let module = parse(text);
    let function = function_named(&module, "f");
    let f = &function.syntax;
    let names: Vec<&str> = f.bindings.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "label", "level", "a", "b", "c", "d", "e", "total", "i", "j", "k", "handle", "p", "q",
            "err", "w", "m", "counter"
        ]
    );
    assert!(f.binds("level", None));
    assert!(!f.binds("n", None) && !f.binds("xs", None) && !f.binds("o", None));
    assert!(!f.binds("flag", None));
    // Where: `level += 1` is after the `if`.
    let at = text.find("level += 1").unwrap() as u32 - function.anchor.offset;
    let before = lacuna_grammar::TextRange::new(0, at);
    assert!(!f.binds("level", Some(before)));
    assert!(f.binds("level", Some(lacuna_grammar::TextRange::new(at, at + 5))));
}

/// The seeds of the function named `name` in `text`.
fn seeds_of(text: &str, name: &str) -> lacuna_grammar::FunctionSeeds {
    let module = parse(text);
    let f = module
        .functions
        .iter()
        .find(|f| f.syntax.name == name)
        .unwrap();
    lacuna_grammar::seeds(text).function(&f.id)
}

/// A function's seeds, from code only (a comment's words are none; a docstring is no seed, its
/// examples are; an attribute's or a keyword argument's name is no read), with those of the
/// functions nested in it, then the literals of the module's assignments to the names it reads
/// (whether they come before or after it); a string longer than 40 characters is no seed unless
/// it is raw.
#[test]
fn seeds_are_code_literals_and_the_module_assignments_read() {
    let text = r#"
import re

DEFAULTS: dict = {
    "currency": "EUR",
}
LIMIT, PATTERN = 0x10, r"\d+-\d+"

def price(key, amount):
    """key = 'SAVE'

    >>> price("VIP", 3)
    """
    # don't read LIMIT here
    if key in DEFAULTS and amount > 1_000:
        return re.match(PATTERN, key, flags=re.I)

    def inner():
        return amount == -7 or key == "a\"b"
    message = "a message far longer than forty characters, never compared"
    return inner() or f"{key}!" or 2.5 or LATER

LATER = "later"
"#;
    let of = |name: &str| seeds_of(text, name);
    let shown = |literals: &[Literal]| -> Vec<String> {
        literals
            .iter()
            .map(|l| match l {
                Literal::Str { value, raw: true } => format!("r{value:?}"),
                Literal::Str { value, .. } => format!("{value:?}"),
                Literal::Int(n) => n.to_string(),
            })
            .collect()
    };
    assert_eq!(
        shown(&of("price").literals),
        [
            "\"VIP\"",
            "3",
            "1000",
            "7",
            "\"a\\\"b\"",
            "\"currency\"",
            "\"EUR\"",
            "16",
            "r\"\\\\d+-\\\\d+\"",
            "\"later\""
        ]
    );
    assert_eq!(shown(&of("inner").literals), ["7", "\"a\\\"b\""]);
    assert!(!of("price").non_finite);
}

/// How a function uses its parameters, each distinct use once with its count, a method's
/// receiver aside; whether it tests for non-finite numbers.
#[test]
fn seeds_count_the_uses_of_parameters_and_see_non_finite_tests() {
    let text = r#"
import math
from math import inf

class Rates:
    def rate(self, config, country):
        self.cache = config.get("rates")
        fallback = config.get("default")
        if country.upper() in self.cache:
            return math.isfinite(self.cache[country])
        return sorted(config, key=len)

def pairs(attrs):
    return dict(zip(attrs[0::2], attrs[1::2]))

def clamp(x):
    return x if x < inf else 0.0
"#;
    let of = |name: &str| seeds_of(text, name);
    let rate = of("rate");
    let uses: Vec<String> = rate
        .param_uses
        .iter()
        .map(|u| format!("{} {:?} x{}", u.param, u.kind, u.count))
        .collect();
    assert_eq!(
        uses,
        [
            "config Attribute(\"get\") x2",
            "country Attribute(\"upper\") x1",
            "config ArgumentOf(\"sorted\") x1",
        ]
    );
    assert!(rate.non_finite);
    // Sliced: a sequence.
    let pairs: Vec<String> = of("pairs")
        .param_uses
        .iter()
        .map(|u| format!("{} {:?} x{}", u.param, u.kind, u.count))
        .collect();
    assert_eq!(pairs, ["attrs IndexedByNumber x2"]);
    assert!(of("clamp").non_finite);
}

#[test]
fn seeds_name_the_exception_types_of_the_except_clauses() {
    let text = "import requests\n\n\ndef fetch(get, url):\n    try:\n        return get(url)\n    except (ValueError, requests.RequestException) as e:\n        return str(e)\n    except KeyError:\n        return None\n    except ValueError:\n        return 0\n    except:\n        raise\n\n\ndef plain(x):\n    return x\n";
    assert_eq!(
        seeds_of(text, "fetch").handled,
        ["ValueError", "requests.RequestException", "KeyError"]
    );
    assert!(seeds_of(text, "plain").handled.is_empty());
    // A parameter a handler names is a class the caller chooses, not a name of the module,
    // in the function that takes it and in one nested in it.
    let text = "def retrying(target, exception):
    def retry(*args):
        try:
            return target(*args)
        except (exception, OSError) as e:
            return e
    return retry
";
    let outer = seeds_of(text, "retrying");
    assert_eq!(outer.handled, ["OSError"]);
    assert!(outer.param_uses.iter().any(|u| u.param == "exception"
        && u.kind == lacuna_grammar::UseKind::Caught
        && u.count == 1));
    assert_eq!(seeds_of(text, "retry").handled, ["OSError"]);
}

/// A condition testing a field of a name for `None` or for its truth says which name and
/// field (the search builds the object again with the constructor argument that field holds
/// of the other kind); any other condition says nothing.
#[test]
fn a_condition_testing_a_field_for_none_or_truth_names_the_field() {
    let text = r#"
def f(self, other, key, y):
    if self.namespaces is None: pass
    if self.postprocessor is not None: pass
    if not self.force_list: pass
    if None is (other.a.b): pass
    if self.__order is None and self.count > 0: pass
    if namespaces is None: pass
    if self.names.get(key): pass
    if self.x is y: pass
    if self[0] is None: pass
"#;
    let module = parse(text);
    let tests: Vec<String> = function_named(&module, "f")
        .syntax
        .decisions
        .iter()
        .flat_map(|d| &d.conditions)
        .map(|c| match &c.field_test {
            Some(t) => format!("{}: {}.{}", c.text, t.root, t.field),
            None => format!("{}: -", c.text),
        })
        .collect();
    assert_eq!(
        tests,
        [
            "self.namespaces is None: self.namespaces",
            "self.postprocessor is not None: self.postprocessor",
            "self.force_list: self.force_list",
            "None is (other.a.b): other.a",
            "self.__order is None: self.__order",
            "self.count > 0: -",
            "namespaces is None: -",
            "self.names.get(key): -",
            "self.x is y: -",
            "self[0] is None: -",
        ]
    );
}

/// A method's receiver is seeded with its class's constructor's literals (`'/'`, which
/// `JsonPointer('/a')` needs to be built at all); the constructor's own seeds and a function
/// outside a class have none of them.
#[test]
fn a_methods_receiver_literals_are_its_constructors() {
    let text = r#"
class Pointer:
    def __init__(self, text):
        self.parts = text.split("/")[1:]

    def depth(self):
        return len(self.parts)


def outside(p):
    return p
"#;
    let slash = lacuna_grammar::Literal::Str {
        value: "/".into(),
        raw: false,
    };
    assert_eq!(
        seeds_of(text, "depth").receiver_literals,
        vec![slash.clone(), lacuna_grammar::Literal::Int(1)]
    );
    assert!(seeds_of(text, "__init__").receiver_literals.is_empty());
    assert!(seeds_of(text, "__init__").literals.contains(&slash));
    assert!(seeds_of(text, "outside").receiver_literals.is_empty());
}
