//! The worker pool with real CPython workers on the example project: executions report
//! branches with their symbolic conditions, external calls, and return values.

#[path = "support/agent.rs"]
mod support;

use lacuna_analysis::agent::protocol::{Literal, Position, Target};
use lacuna_analysis::agent::{Event, ExecuteRequest, Pool, Status, Value, ValueTree};
use std::collections::BTreeMap;
use std::path::Path;

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn request(module: &str, qualname: &str, args: Vec<ValueTree>) -> ExecuteRequest {
    ExecuteRequest {
        target: Target {
            module: module.into(),
            qualname: qualname.into(),
            call: Default::default(),
        },
        receiver: None,
        args,
        kwargs: BTreeMap::new(),
        mocks: vec![],
        timeout_ms: 2_000,
        random_seed: 0,
    }
}

/// A pool of one worker on a project holding the module `name` with `source` (the project and
/// home directories live as long as the first value returned).
fn module_pool(name: &str, source: &str) -> ((tempfile::TempDir, tempfile::TempDir), Pool) {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join(format!("{name}.py")), source).unwrap();
    let home = tempfile::tempdir().unwrap();
    let pool = support::pool(project.path(), home.path(), 1);
    ((project, home), pool)
}

fn int(v: i64, sym: &str) -> ValueTree {
    ValueTree::named(
        Value::Int {
            value: v.to_string(),
        },
        sym,
    )
}

fn float(v: f64, sym: &str) -> ValueTree {
    ValueTree::named(Value::Float { value: v.into() }, sym)
}

#[test]
fn branches_carry_symbolic_conditions() {
    let home = tempfile::tempdir().unwrap();
    let pool = support::pool(&examples(), home.path(), 1);
    let run = pool
        .execute(&request(
            "shop.pricing",
            "shipping_cost",
            vec![
                float(3.0, "weight"),
                int(10, "distance"),
                ValueTree::named(Value::Bool { value: false }, "express"),
            ],
        ))
        .unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    assert_eq!(
        run.returned.as_ref().unwrap().literal,
        Some(Literal::Float(6.49))
    );
    let branches: Vec<(Position, bool, String)> = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Branch {
                pos, taken, expr, ..
            } => Some((
                pos.unwrap(),
                *taken,
                expr.as_ref().map(|e| e.to_string()).unwrap_or_default(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        branches,
        vec![
            (
                Position(36, Some(7), 36, Some(18)),
                false,
                "weight <= 0".into()
            ),
            (
                Position(36, Some(22), 36, Some(34)),
                false,
                "distance < 0".into()
            ),
            (
                Position(39, Some(7), 39, Some(31)),
                false,
                "(weight * distance) > 5000".into()
            ),
            (Position(41, Some(7), 41, Some(14)), false, "express".into()),
            (Position(43, Some(9), 43, Some(16)), false, "express".into()),
        ]
    );
}

#[test]
fn external_calls_get_fresh_symbols() {
    let home = tempfile::tempdir().unwrap();
    let pool = support::pool(&examples(), home.path(), 1);
    let path = home.path().join("missing.json").display().to_string();
    let run = pool
        .execute(&request(
            "shop.config",
            "load_config",
            vec![ValueTree::named(Value::Str { value: path }, "path")],
        ))
        .unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    let calls: Vec<(String, Vec<String>, Option<String>)> = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Call {
                callee,
                arg_vars,
                ret_var,
                ..
            } => Some((callee.clone(), arg_vars.clone(), ret_var.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls[0],
        ("os.path.exists".into(), vec![], Some("$ret:0".into()))
    );
    assert_eq!(
        calls[1],
        (
            "os.path.exists".into(),
            vec!["path".into()],
            Some("$ret:1".into())
        )
    );
    let exists_branch = run.events.iter().find_map(|e| match e {
        Event::Branch {
            pos: Some(Position(18, Some(28), ..)),
            expr,
            taken,
            ..
        } => Some((expr.clone().unwrap().to_string(), *taken)),
        _ => None,
    });
    assert_eq!(exists_branch, Some(("$ret:1".into(), false)));
    // What each call returned, so that the solver can keep it while it changes inputs.
    let values: Vec<String> = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Call { values, .. } => values.get("$ret:1").map(|v| v.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(values, vec![r#"["bool",false]"#.to_owned()]);
}

#[test]
fn object_fields_become_access_paths() {
    let home = tempfile::tempdir().unwrap();
    let pool = support::pool(&examples(), home.path(), 1);
    let mut req = request("shop.inventory", "Stock.diversity_bonus", vec![]);
    req.receiver = Some(ValueTree::named(
        Value::Object {
            class: "shop.inventory:Stock".into(),
            args: vec![int(100, "self.__init__.capacity")],
            kwargs: BTreeMap::new(),
            calls: vec![],
        },
        "self",
    ));
    let run = pool.execute(&req).unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    let first = run.events.iter().find_map(|e| match e {
        Event::Branch { expr, .. } => expr.clone(),
        _ => None,
    });
    assert_eq!(first.unwrap().to_string(), "self._items.__len__ >= 5");
}

/// A module in the style of python-slugify: postponed annotations naming another module's types,
/// a keyword-only parameter, and a compiled pattern at module level handed to C code.
const PATTERNS: &str = r#"from __future__ import annotations

import re

SEPARATORS = re.compile(r"[\s_]+")


def join_words(text: str, *, separator: str = "-", pattern: re.Pattern[str] | None = None) -> str:
    if not isinstance(SEPARATORS, re.Pattern):
        raise TypeError("not a pattern")
    return re.sub(pattern or SEPARATORS, separator, text)
"#;

#[test]
fn module_level_objects_reach_c_code_unwrapped_and_annotations_resolve() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("words.py"), PATTERNS).unwrap();
    let pool = support::pool(project.path(), home.path(), 1);

    // `re.Pattern[str]` names the recording wrapper of `re` in the module's globals: it still
    // resolves, and so do the other annotations.
    let described = pool
        .ask(
            &support::describe("words", "join_words"),
            std::time::Duration::from_secs(20),
        )
        .unwrap()
        .unwrap();
    let params = described["params"].as_array().unwrap();
    let kinds: Vec<(&str, &str, &str)> = params
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["kind"].as_str().unwrap(),
                p["type"]["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("text", "positional_or_keyword", "str"),
            ("separator", "keyword_only", "str"),
            ("pattern", "keyword_only", "optional"),
        ]
    );

    // `re.sub(SEPARATORS, ...)` and `isinstance(SEPARATORS, re.Pattern)` see the real pattern.
    let mut req = request(
        "words",
        "join_words",
        vec![ValueTree::named(
            Value::Str {
                value: "a b_c".into(),
            },
            "text",
        )],
    );
    req.kwargs.insert(
        "separator".into(),
        ValueTree::named(Value::Str { value: "+".into() }, "separator"),
    );
    let run = pool.execute(&req).unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    assert_eq!(
        run.returned.as_ref().unwrap().literal,
        Some(Literal::Str("a+b+c".into()))
    );
}

#[test]
fn string_hashing_is_the_same_in_every_worker() {
    // Sets of strings iterate in hash order: a replaced worker must see the same order, or an
    // exploration depends on which workers died before it.
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("hashing.py"),
        "def order(n: int) -> str:\n    return \",\".join(sorted(\"abcdefgh\", key=lambda c: hash(c * 3))) + str(n)\n",
    )
    .unwrap();
    let mut seen = vec![];
    for _ in 0..2 {
        let home = tempfile::tempdir().unwrap();
        let pool = support::pool(project.path(), home.path(), 1);
        let run = pool
            .execute(&request("hashing", "order", vec![int(1, "n")]))
            .unwrap();
        assert_eq!(run.status, Status::Returned, "{run:?}");
        seen.push(run.returned.unwrap().repr);
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn every_execution_draws_the_same_random_numbers() {
    // A run that draws from `random` must take the same path under pytest, where the emitted
    // test seeds the generator with the request's seed.
    let (_dirs, pool) = module_pool(
        "draws",
        "import random\n\ndef draw(n: int) -> float:\n    random.random()\n    return random.random() + n\n",
    );
    let mut seen = vec![];
    for seed in [0, 0, 7] {
        let mut request = request("draws", "draw", vec![int(0, "n")]);
        request.random_seed = seed;
        let run = pool.execute(&request).unwrap();
        assert_eq!(run.status, Status::Returned, "{run:?}");
        seen.push(run.returned.unwrap().repr);
    }
    let expected = |seed: u64| {
        let out = std::process::Command::new(support::python())
            .args([
                "-c",
                &format!("import random; random.seed({seed}); random.random(); print(repr(random.random()))"),
            ])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    assert_eq!(seen, vec![expected(0), expected(0), expected(7)]);
}

#[test]
fn a_boolean_value_returned_or_stored_shows_its_last_operand() {
    // CPython never tests the last operand of `return a or b` or `name = p or "x"`: the agent
    // reads it from the value returned or stored, with its symbolic expression.
    let (_dirs, pool) = module_pool(
        "values",
        "def either(a: int, b: int) -> bool:\n    return a > 0 or b > 0\n\n\
         def named(prefix: str) -> str:\n    name = prefix or \"ORDER\"\n    return name\n\n\
         def window(t: int) -> bool:\n    return 0 <= t < 10\n",
    );
    let values = |qualname: &str, args: Vec<ValueTree>| {
        let run = pool.execute(&request("values", qualname, args)).unwrap();
        assert_eq!(run.status, Status::Returned, "{run:?}");
        run.events
            .iter()
            .filter_map(|e| match e {
                Event::Value {
                    pos, value, expr, ..
                } => Some((
                    pos.unwrap(),
                    *value,
                    expr.as_ref().map(|e| e.to_string()).unwrap_or_default(),
                )),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let str_input = |v: &str| {
        ValueTree::named(
            Value::Str {
                value: v.to_owned(),
            },
            "prefix",
        )
    };
    assert_eq!(
        values("either", vec![int(0, "a"), int(5, "b")]),
        vec![(Position(2, Some(11), 2, Some(25)), true, "b > 0".into())]
    );
    assert_eq!(
        values("either", vec![int(0, "a"), int(0, "b")]),
        vec![(Position(2, Some(11), 2, Some(25)), false, "b > 0".into())]
    );
    assert_eq!(
        values("named", vec![str_input("")]),
        vec![(Position(5, Some(11), 5, Some(28)), true, String::new())]
    );
    assert_eq!(
        values("window", vec![int(12, "t")]),
        vec![(Position(9, Some(11), 9, Some(22)), false, "t < 10".into())]
    );
}

#[test]
fn a_run_that_draws_from_random_through_another_library_says_so() {
    // `email` draws a MIME boundary from `random`'s shared generator: the run's callees never
    // name `random`, yet its test must seed the generator.
    let (_dirs, pool) = module_pool(
        "mail",
        "from email.mime.multipart import MIMEMultipart\n\n\
         def render(n: int) -> int:\n    return len(MIMEMultipart().as_string()) + n\n\n\
         def plain(n: int) -> int:\n    return n + 1\n",
    );
    let draws = |qualname: &str| {
        let run = pool
            .execute(&request("mail", qualname, vec![int(0, "n")]))
            .unwrap();
        assert_eq!(run.status, Status::Returned, "{run:?}");
        assert!(
            !run.events
                .iter()
                .any(|e| matches!(e, Event::Call { callee, .. } if callee.starts_with("random."))),
            "{run:?}"
        );
        run.draws_random
    };
    assert!(draws("render"));
    assert!(!draws("plain"));
}

#[test]
fn a_not_in_test_carries_the_negated_membership() {
    // `x not in xs` takes the truth of `in`, then inverts it: the condition the jump tests is
    // the negation of the membership the agent recorded.
    let (_dirs, pool) = module_pool(
        "member",
        "def absent(x: int, xs: list) -> bool:\n    if x not in xs:\n        return True\n    return False\n",
    );
    let list = ValueTree::named(
        Value::List {
            items: vec![int(3, "xs[0]")],
        },
        "xs",
    );
    let run = pool
        .execute(&request("member", "absent", vec![int(3, "x"), list]))
        .unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    let branch = run
        .events
        .iter()
        .find_map(|e| match e {
            Event::Branch { taken, expr, .. } => Some((*taken, expr.clone())),
            _ => None,
        })
        .expect("the `not in` branch");
    assert!(!branch.0, "3 is in the list: `not in` is false");
    let expr = branch.1.expect("a symbolic condition").to_string();
    assert!(expr.starts_with("not ("), "{expr}");
}

/// An observed run (what the suspicious-assertion check runs again) records every project
/// invocation as the suite's run does: concrete values at entry and exit (never a proxy's type)
/// and the branch sides each took; the observer is gone for the next plain execution.
#[test]
fn an_observed_run_records_program_points_and_profiles() {
    let (_dirs, pool) = module_pool(
        "pages",
        "def ceil_div(a, b):\n    return -(-a // b)\n\n\ndef page_count(items: int, per_page: int) -> int:\n    if per_page <= 0:\n        raise ValueError('per_page')\n    return ceil_div(items, per_page)\n",
    );
    let req = request(
        "pages",
        "page_count",
        vec![int(7, "items"), int(2, "per_page")],
    );
    let invocations = pool.observe(&req).unwrap();
    let summary: Vec<String> = invocations
        .iter()
        .map(|i| {
            let show = |s: &lacuna_analysis::suite::Sample| {
                s.iter()
                    .filter(|(k, _)| !k.ends_with(" is None"))
                    .map(|(k, v)| format!("{k}={}", lacuna_analysis::invariants::render(v)))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!(
                "{}: [{}] -> [{}] sides={:?}",
                i.function,
                show(&i.entry),
                show(&i.exit),
                i.sides.iter().map(|s| (s.0, s.4)).collect::<Vec<_>>()
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "pages:ceil_div: [a=7 b=2 type(a)='int' type(b)='int'] -> [a=7 b=2 return=4 type(a)='int' type(b)='int' type(return)='int'] sides=[]",
            "pages:page_count: [items=7 per_page=2 type(items)='int' type(per_page)='int'] -> [items=7 per_page=2 return=4 type(items)='int' type(per_page)='int' type(return)='int'] sides=[(6, false)]",
        ]
    );
    // A plain execution afterwards records no program points and runs as before.
    let plain = pool.execute(&req).unwrap();
    assert_eq!(plain.status, Status::Returned);
    assert!(pool.observe(&req).unwrap().len() == 2);
}

/// A `for` loop's steps: each that enters the body again is `taken`, the one that ends the loop
/// is not (3.12+ report it as a jump past the loop's target, 3.9–3.11 as one to it).
#[test]
fn a_loop_that_runs_out_is_seen_to_end() {
    let (_dirs, pool) = module_pool(
        "steps",
        "def total(n: int) -> int:\n    k = 0\n    for i in range(n):\n        k += i\n    return k\n",
    );
    let run = pool
        .execute(&request("steps", "total", vec![int(2, "n")]))
        .unwrap();
    assert_eq!(run.status, Status::Returned);
    let steps: Vec<bool> = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Loop { taken, .. } => Some(*taken),
            _ => None,
        })
        .collect();
    assert_eq!(steps, [true, true, false]);
}

/// Code that closes a standard descriptor (`open(0)` in a `with`: an int path is a
/// descriptor) or changes an enum member passed to it leaves the worker as it found it: the
/// same request gives the same answer every time, whatever the worker ran before.
const LEAKS: &str = r#"import enum
import os


class Tier(enum.Enum):
    BASIC = "basic"
    GOLD = "gold"


class Customer:
    def __init__(self, tier: Tier):
        self.tier = tier


def read(path: int) -> str:
    if os.path.exists(path):
        with open(path) as f:
            return "open: " + repr(f.read())
    return "closed"


def gold(customer: Customer) -> bool:
    return customer.tier is Tier.GOLD and customer.tier.value == "gold"
"#;

#[test]
fn an_execution_sees_nothing_an_earlier_one_left_in_the_worker() {
    let (_dirs, pool) = module_pool("leaks", LEAKS);
    // Descriptors 0–4: the standard ones (a closed one is opened again) and what the
    // worker's own pipes would be at the lowest free numbers (none is reachable).
    for fd in 0..5 {
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let run = pool
                    .execute(&request("leaks", "read", vec![int(fd, "path")]))
                    .unwrap();
                (
                    run.status,
                    run.returned.map(|r| r.repr),
                    run.exception.map(|e| e.type_name),
                )
            })
            .collect();
        assert!(runs.iter().all(|r| *r == runs[0]), "read({fd}): {runs:?}");
        let expected = match fd {
            0 => Some("\"open: ''\""),
            3 | 4 => Some("'closed'"),
            _ => runs[0].1.as_deref(),
        };
        assert_eq!(runs[0].1.as_deref(), expected, "read({fd}): {runs:?}");
    }
    let customer = ValueTree::named(
        Value::Object {
            class: "leaks:Customer".into(),
            args: vec![ValueTree::named(
                Value::Enum {
                    class: "leaks:Tier".into(),
                    member: "GOLD".into(),
                },
                "customer.__init__.tier",
            )],
            kwargs: BTreeMap::new(),
            calls: vec![],
        },
        "customer",
    );
    let runs: Vec<_> = (0..3)
        .map(|_| {
            let run = pool
                .execute(&request("leaks", "gold", vec![customer.clone()]))
                .unwrap();
            assert_eq!(run.status, Status::Returned, "{run:?}");
            (run.returned.unwrap().repr, run.fields)
        })
        .collect();
    assert_eq!(runs[0].0, "True");
    assert!(runs.iter().all(|r| *r == runs[0]), "{runs:#?}");
}

const DRAWN: &str = r#"import os
import random
import secrets
import uuid


def names() -> str:
    return "-".join([os.urandom(4).hex(), uuid.uuid4().hex, secrets.token_hex(4),
                     str(random.Random().random()), str(random.SystemRandom().random())])
"#;

/// What an input draws from the system's entropy (`os.urandom` and what reads it, an unseeded
/// `random.Random()`: temporary and shared-memory names) is drawn from the execution's seed:
/// the same on every run and in every worker, another with another seed.
#[test]
fn an_execution_draws_its_entropy_from_its_seed() {
    let names = |pool: &Pool, seed: u64| {
        let mut request = request("drawn", "names", vec![]);
        request.random_seed = seed;
        let run = pool.execute(&request).unwrap();
        assert_eq!(run.status, Status::Returned, "{run:?}");
        run.returned.unwrap().repr
    };
    let (_dirs, pool) = module_pool("drawn", DRAWN);
    let first = names(&pool, 0);
    assert_eq!(names(&pool, 0), first);
    let (_other_dirs, other) = module_pool("drawn", DRAWN);
    assert_eq!(names(&other, 0), first);
    assert_ne!(names(&pool, 1), first);
}

const THREADED: &str = r#"import os
import threading


def waits(n: int, path: str) -> str:
    found = []
    worker = threading.Thread(target=lambda: found.append(os.path.exists(path) or n > 3 or "few"))
    worker.start()
    worker.join()
    if n > 10:
        return "big"
    return "small"
"#;

/// The path of an execution is its own thread's: the conditions and external calls of a thread
/// the input starts are not recorded into it (where they fell would be the threads' timing).
#[test]
fn a_thread_the_input_starts_adds_nothing_to_its_path() {
    let (dirs, pool) = module_pool("threaded", THREADED);
    let path = dirs.1.path().join("missing").display().to_string();
    let run = pool
        .execute(&request(
            "threaded",
            "waits",
            vec![
                int(5, "n"),
                ValueTree::named(Value::Str { value: path }, "path"),
            ],
        ))
        .unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    let events: Vec<String> = run
        .events
        .iter()
        .map(|e| match e {
            Event::Branch {
                expr: Some(expr),
                taken,
                ..
            } => format!("branch {expr} {taken}"),
            Event::Call { callee, .. } => format!("call {callee}"),
            Event::Branch { expr: None, .. } => "branch on a concrete value".into(),
            other => format!("{other:?}"),
        })
        .filter(|e| e != "branch on a concrete value")
        .collect();
    assert_eq!(
        events,
        [
            "call threading.Thread",
            "call threading.Thread.start",
            "call threading.Thread.join",
            "branch n > 10 false"
        ]
    );
}

const LEFT: &str = r#"import os


def make(name: str) -> bool:
    with open(name, "w") as f:
        f.write("x")
    return os.path.exists(name)


def find(name: str) -> bool:
    return os.path.exists(name)
"#;

/// A pinned worker (a reproducible run's) writes in a directory of its own: another one finds
/// nothing of what it wrote, whichever ran first.
#[test]
fn a_pinned_worker_finds_nothing_another_one_wrote() {
    let (_dirs, pool) = module_pool("left", LEFT);
    let name = || {
        vec![ValueTree::named(
            Value::Str {
                value: "made.txt".into(),
            },
            "name",
        )]
    };
    let returned = |run: lacuna_analysis::agent::Execution| {
        assert_eq!(run.status, Status::Returned, "{run:?}");
        run.returned.unwrap().repr
    };
    let first = pool.pinned();
    let made = first.execute(&request("left", "make", name())).unwrap();
    assert_eq!(returned(made), "True");
    let found = first.execute(&request("left", "find", name())).unwrap();
    assert_eq!(returned(found), "True");
    let second = pool.pinned();
    let found = second.execute(&request("left", "find", name())).unwrap();
    assert_eq!(returned(found), "False");
}

/// Confined processes start while z3 works on other threads (a run starts a worker per
/// function while others solve): a start never waits on a lock a solving thread held when the
/// launcher forked (libz3's `pthread_atfork` handler did, in the launcher's second fork, and
/// spun forever). Processes that exit at once, so that many starts can meet a solver's lock.
#[test]
fn confined_processes_start_while_other_threads_solve() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, mpsc};
    let scratch = tempfile::tempdir().unwrap();
    let policy = lacuna_analysis::sandbox::Policy {
        scratch: scratch.path().to_owned(),
        memory_mb: 256,
        ..Default::default()
    };
    // As a run sets it: with a memory limit, every allocation of z3 takes its lock.
    lacuna_analysis::explore::solver::Solver::limit_memory(2048);
    let stop = Arc::new(AtomicBool::new(false));
    let solvers: Vec<_> = (0..2)
        .map(|k| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut solved = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // Timed, as every query of a run is: z3 runs the timer on a thread of
                    // its pool, which its fork handler waits for.
                    let solver = z3::Solver::new();
                    let mut params = z3::Params::new();
                    params.set_u32("timeout", 1000);
                    solver.set_params(&params);
                    let x = z3::ast::Int::new_const(format!("x{k}"));
                    let y = z3::ast::Int::new_const(format!("y{k}"));
                    solver.assert((&x * &x + &y * &y).eq(z3::ast::Int::from_i64(25 + k)));
                    solver.assert(x.gt(z3::ast::Int::from_i64(0)));
                    let _ = solver.check();
                    solved += 1;
                }
                solved
            })
        })
        .collect();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for _ in 0..500 {
            let mut command = std::process::Command::new("true");
            lacuna_analysis::sandbox::confine(&mut command, &policy).unwrap();
            let status = lacuna_analysis::sandbox::spawn(command).and_then(|mut c| c.wait());
            if tx
                .send(status.map(|s| s.success()).unwrap_or(false))
                .is_err()
            {
                return;
            }
        }
    });
    for i in 0..500 {
        // A liveness bound, not a speed one: a start takes milliseconds.
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(ran) => assert!(ran, "process {i} did not run"),
            Err(_) => panic!("starting process {i} never ended while z3 solved on other threads"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    for s in solvers {
        assert!(s.join().unwrap() > 0);
    }
}

/// In a reproducible run (a pinned worker) an execution's time limit is processor time, which
/// load barely changes: an input that computes past it stops. One that waits without computing
/// (a sleep, a lock) is stopped at the limit by the wall clock too — on a loaded machine as on
/// an idle one, since it spends next to nothing on the processor either way.
#[test]
fn a_pinned_execution_is_timed_by_the_processor() {
    let (_dirs, pool) = module_pool(
        "clocks",
        "import time\n\ndef wait(s: float) -> str:\n    time.sleep(s)\n    return 'woke'\n\n\
         def spin(n: int) -> int:\n    while True:\n        n += 1\n\n\
         def halves(n: int) -> int:\n    end = time.monotonic() + 0.8\n    \
         while time.monotonic() < end:\n        until = time.process_time() + 0.02\n        \
         while time.process_time() < until:\n            n += 1\n        time.sleep(0.02)\n    \
         return n\n",
    );
    let pinned = pool.pinned();
    let within = |qualname: &str, args: Vec<ValueTree>| {
        let mut r = request("clocks", qualname, args);
        r.timeout_ms = 500;
        r
    };
    let waits = within("wait", vec![float(1.2, "s")]);
    let cases = [
        // Half its time on the processor, as an input computing on a loaded machine: past the
        // limit by the wall clock, within it by the processor's.
        (within("halves", vec![int(0, "n")]), Status::Returned),
        (waits.clone(), Status::Timeout),
        (within("wait", vec![float(0.2, "s")]), Status::Returned),
        (within("spin", vec![int(0, "n")]), Status::Timeout),
    ];
    for (input, status) in cases {
        let run = pinned.execute(&input).unwrap();
        assert_eq!(run.status, status, "{}: {run:?}", input.target.qualname);
    }
    // The shared pool keeps the wall clock.
    assert_eq!(pool.execute(&waits).unwrap().status, Status::Timeout);
}
