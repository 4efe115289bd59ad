//! End-to-end tests of the `lacuna` command line: the real binary on real files, its JSON
//! document, its human output and its exit codes.

/// Asserts that `text` contains `needle`, showing the whole text when it does not.
macro_rules! assert_contains {
    ($text:expr, $needle:expr) => {{
        let text = $text;
        assert!(text.contains($needle), "{text}");
    }};
}

mod budget;
mod cache;
mod ci;
mod report;
mod solver;
mod suite;
mod suspicious;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../support/coverage.rs"]
mod coverage;
#[path = "../support/example.rs"]
mod example;
#[path = "../support/timings.rs"]
mod timings;

fn lacuna(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the lacuna binary runs")
}

/// A project `name` in a new temporary directory: a `pyproject.toml` naming the test
/// interpreter, with the project's root as its source root, and `files`.
fn python_project(name: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[tool.lacuna]\npython = {:?}\nsrc = [\".\"]\n",
            example::python()
        ),
    )
    .unwrap();
    for (path, text) in files {
        std::fs::write(root.join(path), text).unwrap();
    }
    (dir, root)
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn static_json_document() {
    let out = lacuna(
        &fixtures(),
        &["check", "--static", "--format", "json", "static"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a syntax error is an error: {}",
        stderr(&out)
    );
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["lacuna"] = "[version]".into();
    insta::assert_json_snapshot!(doc);
}

#[test]
fn static_human_output() {
    let out = lacuna(&fixtures(), &["check", "--static", "static"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn exit_code_zero_without_errors() {
    let out = lacuna(&fixtures(), &["check", "--static", "static/orders.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn configuration_errors_name_key_and_file_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.lacuna.budget]\nloop-bound = \"many\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("m.py"), "x = 1\n").unwrap();
    let out = lacuna(dir.path(), &["check", "--static"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("pyproject.toml"), "{err}");
    assert!(err.contains("loop-bound"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = lacuna(dir.path(), &["check", "--static", "no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains!(stderr(&out), "no/such/dir");
    let out = lacuna(dir.path(), &["check", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_files_get_diagnostics_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("latin.py"), b"s = '\xe9t\xe9'\nif s:\n    pass\n").unwrap();
    std::fs::write(
        d.join("cookie.py"),
        b"# -*- coding: latin-1 -*-\ns = '\xe9'\nt = s or 'x'\n",
    )
    .unwrap();
    let deep = format!(
        "def f(x):\n    return {}x{}\n",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    std::fs::write(d.join("deep.py"), deep).unwrap();
    let chain = format!(
        "def g(x):\n    if {}:\n        pass\n",
        vec!["x"; 3000].join(" or ")
    );
    std::fs::write(d.join("chain.py"), chain).unwrap();
    let out = lacuna(d, &["check", "--static", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_path = |p: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap_or_else(|| panic!("{p} missing: {doc:#}"))
            .clone()
    };
    assert_eq!(by_path("latin.py")["diagnostics"][0]["code"], "LCN002");
    assert!(
        by_path("latin.py")["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("offset 5")
    );
    assert_eq!(
        by_path("cookie.py")["diagnostics"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(by_path("chain.py")["diagnostics"][0]["code"], "LCN003");
    let _ = by_path("deep.py");
}

#[test]
fn the_example_project() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = lacuna(
        &root,
        &["check", "--static", "--format", "json", "examples"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Per function: name, line, branch sides, obligations — the facts later stages build on.
    let mut table = String::new();
    for file in doc["files"].as_array().unwrap() {
        table.push_str(&format!("{}\n", file["path"].as_str().unwrap()));
        for f in file["functions"].as_array().unwrap() {
            table.push_str(&format!(
                "  {}:{} branches={} obligations={}\n",
                f["name"].as_str().unwrap(),
                f["line"],
                f["branches"]["total"],
                f["obligations"]["total"]
            ));
        }
    }
    table.push_str(&format!("summary {}\n", doc["summary"]));
    insta::assert_snapshot!(table);
}

/// The interpreter of the test environment (with pytest and coverage), and the virtual
/// environment it belongs to.
/// The test interpreter (`LACUNA_TEST_PYTHON`, a venv's python with pytest and coverage.py)
/// and its venv.
fn test_python() -> (PathBuf, PathBuf) {
    let python = PathBuf::from(std::env::var_os("LACUNA_TEST_PYTHON").expect(
        "LACUNA_TEST_PYTHON must name a Python with pytest and coverage (scripts/test sets it)",
    ));
    let venv = python
        .parent()
        .and_then(Path::parent)
        .expect("LACUNA_TEST_PYTHON must be a venv's python")
        .to_owned();
    (python, venv)
}

#[test]
fn generated_tests_pass_and_coverage_confirms_every_claim() {
    let (python, venv) = test_python();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let examples = std::fs::canonicalize(root.join("examples")).unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        // The repository's own directory: no results store is written into it.
        .args(["check", "--no-cache", "--format", "json", "--emit-tests"])
        .arg(out_dir.path())
        .arg(&examples)
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // The run's cost: its totals are the sums of the functions' own figures.
    let generation = &doc["generation"];
    assert!(generation["workers"].as_u64().unwrap() >= 1, "{generation}");
    assert!(generation["workers_started"].as_u64().unwrap() >= 1);
    assert!(generation["emit_ms"].as_u64().unwrap() > 0);
    let functions: Vec<&serde_json::Value> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .filter(|f| f.get("executions").is_some())
        .collect();
    let sum = |key: &str| -> u64 { functions.iter().map(|f| f[key].as_u64().unwrap()).sum() };
    assert_eq!(generation["executions"].as_u64(), Some(sum("executions")));
    assert_eq!(
        generation["solver_queries"].as_u64(),
        Some(sum("solver_queries"))
    );
    assert!(sum("solver_queries") > 0, "the example needs the solver");

    // The emitted files pass under real pytest, and coverage.py records what they execute.
    let coverage = coverage::measured(
        &python,
        out_dir.path(),
        &examples.join("shop"),
        &examples,
        home.path(),
    );

    let (mut confirmed, mut unattributable, mut claimed) = (0, 0, 0);
    let mut overclaims = vec![];
    for file in doc["files"].as_array().unwrap() {
        let path = examples
            .parent()
            .unwrap()
            .join(file["path"].as_str().unwrap());
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let arcs: Vec<(i64, i64)> = coverage["files"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| {
                std::fs::canonicalize(k).ok().as_deref() == Some(path.as_path())
                    || path.ends_with(k)
            })
            .and_then(|(_, v)| v["executed_branches"].as_array())
            .map(|a| {
                a.iter()
                    .map(|p| (p[0].as_i64().unwrap(), p[1].as_i64().unwrap()))
                    .collect()
            })
            .unwrap_or_default();
        for function in file["functions"].as_array().unwrap() {
            let Some(sides) = function["sides"].as_array() else {
                continue;
            };
            for side in sides.iter().filter(|s| s["covered"] == true) {
                claimed += 1;
                let kind = side["kind"].as_str().unwrap();
                if !matches!(kind, "if" | "elif" | "while") {
                    // Decisions inside one line (ternaries, comprehension `if`s, boolean values,
                    // asserts, match guards) have no arc of their own in coverage.py.
                    unattributable += 1;
                    continue;
                }
                let line = side["line"].as_i64().unwrap();
                let true_target = sides
                    .iter()
                    .find(|s| s["decision"] == side["decision"] && s["side"] == "true")
                    .and_then(|s| s["target_line"].as_i64());
                let ok = match (side["side"].as_str().unwrap(), side["target_line"].as_i64()) {
                    (_, Some(target)) => arcs.contains(&(line, target)),
                    (_, None) => arcs
                        .iter()
                        .any(|&(from, to)| from == line && Some(to) != true_target),
                };
                if ok {
                    confirmed += 1;
                } else {
                    overclaims.push(format!(
                        "{}:{line} {} side of {}",
                        file["path"].as_str().unwrap(),
                        side["side"],
                        side["decision"]
                    ));
                }
            }
        }
    }
    println!(
        "claimed {claimed}, confirmed by coverage.py {confirmed}, not attributable to an arc {unattributable}"
    );
    assert!(
        overclaims.is_empty(),
        "claims coverage.py does not confirm: {overclaims:#?}"
    );
    assert!(
        confirmed > 40,
        "the example project is mostly covered: {confirmed}"
    );
}

/// Generates tests for `file` of the project at `project` with the test environment's
/// interpreter (`HOME` a temporary directory): the run's output, its JSON document, and the
/// directory the tests were emitted into.
fn generate_in(project: &Path, file: &str) -> (Output, serde_json::Value, tempfile::TempDir) {
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json", "--emit-tests"])
        .arg(out_dir.path())
        .arg(file)
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = serde_json::from_slice(&out.stdout).unwrap();
    (out, doc, out_dir)
}

#[test]
fn keyword_only_parameters_are_passed_by_keyword() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[tool.lacuna]\nsrc = [\".\"]\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("labels.py"),
        r#"def label(count: int, *, unit: str = "item", plural: bool = False) -> str:
    if plural and count != 1:
        return f"{count} {unit}s"
    if count < 0:
        raise ValueError("negative")
    return f"{count} {unit}"
"#,
    )
    .unwrap();
    let (out, doc, out_dir) = generate_in(project.path(), "labels.py");
    assert_eq!(doc["summary"]["covered"], 4, "{}", stdout(&out));
    let tests = std::fs::read_to_string(out_dir.path().join("test_lacuna_labels.py")).unwrap();
    assert!(tests.contains("plural=True"), "{tests}");
    assert_contains!(stderr(&out), "0 left out");
}

/// A parameter declared `= None` without an annotation is "any" value, and the first input is
/// the call that leaves it out, as `window(text)` makes it: `None`, not the first kind of
/// value "any" is tried as (found on parse 1.20.2, whose `Parser.search(string, pos=0,
/// endpos=None)` never ran with `endpos=None` within its 400 executions).
#[test]
fn a_parameter_declared_none_by_default_is_first_left_at_none() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[tool.lacuna]\nsrc = [\".\"]\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("win.py"),
        r#"def window(text: str, end=None):
    if end is None:
        end = len(text)
    if end > 3:
        return text[:3]
    return text[:end]
"#,
    )
    .unwrap();
    let (out, doc, out_dir) = generate_in(project.path(), "win.py");
    assert_eq!(doc["summary"]["covered"], 4, "{}", stdout(&out));
    let tests = std::fs::read_to_string(out_dir.path().join("test_lacuna_win.py")).unwrap();
    let first = tests
        .split("def test_window_1():")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .unwrap_or_default();
    assert_eq!(first.trim(), "result = window('', None)", "{tests}");
}

#[test]
fn mocked_files_and_json_values_reach_what_they_guard() {
    let project = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = project.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pyproject.toml",
        "[tool.lacuna]\nsrc = [\".\"]\ninclude = [\"settings.py\"]\nguidance = \"tests/lacuna_guidance.py\"\n",
    );
    write(
        "settings.py",
        r#"import json
import os
import urllib.request

DEFAULTS = {"mode": "fast", "retries": 3}


def load(path):
    settings = dict(DEFAULTS)
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        for key, value in data.items():
            if key in DEFAULTS and type(value) is not type(DEFAULTS[key]):
                raise TypeError(key)
            settings[key] = value
    return settings


def level(retries: int) -> str:
    if retries > 3 and os.getpid() == 1:
        return "high"
    return "low"


def fetch(url: str):
    with urllib.request.urlopen(url, timeout=1) as raw:
        if raw.status == 404:
            return None
        if raw.status >= 500:
            raise RuntimeError(raw.status)
        return raw.read().decode("utf-8")
"#,
    );
    // The declarations as the code actions write them.
    write(
        "tests/lacuna_guidance.py",
        r#"def mock(target):
    def mark(function):
        function.__lacuna_mock__ = target
        return function
    return mark


@mock("os.path.exists")
def os_path_exists(*args, **kwargs) -> bool:
    """Generated tests choose what `os.path.exists` returns."""


@mock("open")
def open_(*args, **kwargs) -> "io.StringIO":
    """Generated tests choose what `open` returns."""


@mock("json.load")
def json_load(*args, **kwargs) -> "Union[Dict[str, Any], List[Any], str, int, float, bool, None]":
    """Generated tests choose what `json.load` returns."""


@mock("urllib.request.urlopen")
def urllib_request_urlopen(*args, **kwargs) -> "urllib.response.addinfourl":
    """Generated tests choose what `urllib.request.urlopen` returns."""
"#,
    );
    let (out, doc, out_dir) = generate_in(project.path(), "settings.py");
    let function = |name: &str| {
        doc["files"][0]["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()
            .clone()
    };
    // Every side: the file exists or not, the JSON is an object or not, a key of the defaults
    // with a value of the wrong type or not — and the loop over the object's entries.
    let load = function("load");
    assert_eq!(
        load["branches"]["covered"],
        load["branches"]["total"],
        "{}",
        stdout(&out)
    );
    // A function that calls none of the mocked callees spends nothing on their alternatives
    // (the JSON value's seven types, a file's text): its side that needs `os.getpid()` to
    // return 1 ends the search after its own seeds and flips (12 runs with the alternatives).
    let level = function("level");
    assert!(level["executions"].as_u64().unwrap() <= 8, "{level}");
    // An HTTP response whose status code the solver chooses, within the codes that exist.
    let fetch = function("fetch");
    assert_eq!(
        fetch["branches"]["covered"], fetch["branches"]["total"],
        "{fetch}"
    );
    let tests = std::fs::read_to_string(out_dir.path().join("test_lacuna_settings.py")).unwrap();
    assert!(
        tests.contains("from io import BytesIO, StringIO"),
        "{tests}"
    );
    assert!(tests.contains("'json.load', {"), "{tests}");
    assert!(tests.contains("= addinfourl(bytes_io, "), "{tests}");
    // Checked under pytest before they were written: none failed.
    assert_contains!(stderr(&out), "0 left out");
}

/// A project of one module `file` with `source` (and its `pyproject.toml`), generated for:
/// the run's output, its JSON document, the emitted tests, and the project directory.
fn generate_module(
    file: &str,
    source: &str,
) -> (Output, serde_json::Value, String, tempfile::TempDir) {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[tool.lacuna]\nsrc = [\".\"]\n",
    )
    .unwrap();
    std::fs::write(project.path().join(file), source).unwrap();
    let (out, doc, out_dir) = generate_in(project.path(), file);
    let module = file.trim_end_matches(".py");
    let tests = std::fs::read_to_string(out_dir.path().join(format!("test_lacuna_{module}.py")))
        .unwrap_or_default();
    // The emitted tests pass under real pytest, outside the generator.
    let (python, _) = test_python();
    let home = tempfile::tempdir().unwrap();
    let run = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(out_dir.path())
        .env("PYTHONPATH", project.path())
        .env("HOME", home.path())
        .current_dir(out_dir.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "emitted tests fail under pytest:\n{}\n{tests}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_contains!(stderr(&out), "0 left out");
    (out, doc, tests, project)
}

/// The covered and uncovered branch sides of `function` in a JSON document, as `line:side`.
fn sides_of(doc: &serde_json::Value, function: &str) -> (Vec<String>, Vec<String>) {
    let (mut covered, mut missed) = (vec![], vec![]);
    for f in doc["files"][0]["functions"].as_array().unwrap() {
        if f["name"] != function && f["qualname"] != function {
            continue;
        }
        for s in f["sides"].as_array().unwrap() {
            let side = format!("{}:{}", s["line"], s["side"].as_str().unwrap());
            if s["covered"] == true {
                covered.push(side);
            } else {
                missed.push(side);
            }
        }
    }
    (covered, missed)
}

#[test]
fn callable_arguments_answer_what_each_side_needs() {
    let (out, doc, tests, _project) = generate_module(
        "dicts.py",
        r#"from typing import Callable


def valfilter(predicate, d, factory=dict):
    rv = factory()
    for k, v in d.items():
        if predicate(v):
            rv[k] = v
    return rv


def count_matching(xs: list, keep: Callable[[int], bool]) -> int:
    n = 0
    for x in xs:
        if keep(x):
            n += 1
    if n > 2:
        return -1
    return n


def weigh(value: int, weight: Callable[[int], int]) -> str:
    if weight(value) > 10:
        return "heavy"
    return "light"


def retry(attempt: Callable[[], bool]) -> str:
    if attempt():
        return "first"
    if attempt():
        return "second"
    return "never"
"#,
    );
    // Every side: the predicate's answer on each call is an input the solver chooses.
    assert_eq!(
        doc["summary"]["covered"],
        doc["summary"]["branches"],
        "{}",
        stdout(&out)
    );
    // A constant answer is a lambda; answers that change from call to call, a helper; the
    // default `factory=dict` is passed as it is.
    assert!(
        tests.contains("valfilter(lambda *args, **kwargs: True, {"),
        "{tests}"
    );
    assert!(tests.contains("}, dict)"), "{tests}");
    assert!(tests.contains("lambda *args, **kwargs: 11"), "{tests}");
    assert!(tests.contains("retry(_returning(False, True))"), "{tests}");
    assert!(tests.contains("def _returning(*values):"), "{tests}");
}

#[test]
fn type_tests_on_inputs_are_turned_with_values_of_other_types() {
    let (out, doc, tests, _project) = generate_module(
        "humane.py",
        r#"import math


def intcomma(value):
    try:
        if isinstance(value, str):
            value = value.replace(",", "")
            if not math.isfinite(float(value)):
                return "not finite"
            value = int(value)
        elif not isinstance(value, int):
            if not math.isfinite(float(value)):
                return "not finite"
    except (TypeError, ValueError):
        return str(value)
    return f"{value:,}"


def parse(version):
    if isinstance(version, bytes):
        version = version.decode("utf-8")
    elif not isinstance(version, str):
        raise TypeError("not a string")
    if version.startswith("v"):
        return version[1:]
    return version


def clamp(value: float, format="{:}"):
    if not math.isfinite(value):
        return "not finite"
    if isinstance(format, str):
        return format.format(value)
    if callable(format):
        return format(value)
    raise ValueError("bad format")
"#,
    );
    for function in ["intcomma", "parse", "clamp"] {
        let (covered, missed) = sides_of(&doc, function);
        assert!(
            missed.is_empty(),
            "{function}: missed {missed:?}, covered {covered:?}\n{}",
            stdout(&out)
        );
    }
    // `value` guessed a string from its uses is tried as an int and a float (an infinite one
    // where the function tests for it); `version` as bytes and as neither bytes nor text.
    assert!(tests.contains("intcomma(float('inf'))"), "{tests}");
    assert!(tests.contains("intcomma('inf')"), "{tests}");
    assert!(tests.contains("parse(b'"), "{tests}");
    assert!(tests.contains("clamp(float('"), "{tests}");
}

#[test]
fn an_index_past_the_end_asks_for_a_longer_list() {
    let (out, doc, tests, _project) = generate_module(
        "first.py",
        r#"from typing import List


def first_large(values: List[int]) -> bool:
    if values[2] > 100:
        return True
    return False
"#,
    );
    // `values[2]` raised IndexError on the first input: its bounds test is negated.
    assert_eq!(doc["summary"]["covered"], 2, "{}", stdout(&out));
    assert!(tests.contains("first_large([0, 0, 101])"), "{tests}");
}

#[test]
fn an_untyped_key_tested_against_a_dicts_keys_takes_their_kind_and_is_solved_for() {
    // `k in d` needs `keys[0]` to be one of `d`'s keys, which are texts while the first guess
    // for an unannotated list's item is an int: the membership test compares across kinds, so
    // `keys[0]` is tried as a text, and then the solver asks for one of `d`'s keys.
    let source = r#"def update_in(d, keys, func, default=None):
    rv = dict(d)
    k = keys[0]
    if k in d:
        rv[k] = func(d[k])
    else:
        rv[k] = func(default)
    return rv
"#;
    let run = || {
        let project = tempfile::tempdir().unwrap();
        // Executions bound the search, not time: the same inputs on every machine.
        std::fs::write(
            project.path().join("pyproject.toml"),
            "[tool.lacuna]\nsrc = [\".\"]\n\n[tool.lacuna.budget]\nfunction-executions = 600\nfunction-time-ms = 60000\n",
        )
        .unwrap();
        std::fs::write(project.path().join("nested.py"), source).unwrap();
        let (out, doc, out_dir) = generate_in(project.path(), "nested.py");
        assert_contains!(stderr(&out), "0 left out");
        let tests = std::fs::read_to_string(out_dir.path().join("test_lacuna_nested.py")).unwrap();
        (doc, tests)
    };
    let (doc, tests) = run();
    assert_eq!(doc["summary"]["covered"], 2, "{tests}");
    // Found by the solver within a few runs, not by chance after it ran out of targets.
    let executions = doc["files"][0]["functions"][0]["executions"]
        .as_u64()
        .unwrap();
    assert!(executions < 100, "{executions} executions");
    // The same configuration gives the same tests.
    let (_, again) = run();
    assert_eq!(tests, again);
}

#[test]
fn a_key_tested_against_a_dict_input_is_solved_for() {
    let (out, doc, tests, _project) = generate_module(
        "table.py",
        r#"from typing import Dict


def lookup(table: Dict[str, int], key: str) -> int:
    if key in table:
        return table[key]
    return -1
"#,
    );
    // `key in table` is `key == 'k0'` for the dict built: the solver picks that key.
    assert_eq!(doc["summary"]["covered"], 2, "{}", stdout(&out));
    assert!(tests.contains("lookup({'k0': 0}, 'k0')"), "{tests}");
}

#[test]
fn star_args_take_zero_to_three_arguments_of_any_type() {
    let (out, doc, tests, _project) = generate_module(
        "merging.py",
        r#"from collections.abc import Mapping


def merge(*dicts, **kwargs):
    if len(dicts) == 1 and not isinstance(dicts[0], Mapping):
        dicts = dicts[0]
    rv = {}
    for d in dicts:
        rv.update(d)
    if len(rv) > 1:
        return rv
    return dict(rv)
"#,
    );
    // No argument, one that is not a mapping (a list of them), one that is, several.
    assert_eq!(
        doc["summary"]["covered"],
        doc["summary"]["branches"],
        "{}",
        stdout(&out)
    );
    assert!(tests.contains("merge()"), "{tests}");
    assert!(tests.contains("merge({"), "{tests}");
}

/// An ordinary function that deletes a directory named relative to the working directory: the
/// run that deleted it is not written as a test (the report says why), and the tests that are
/// written run in a temporary directory, so running them from the project root, as anyone
/// runs pytest, leaves the project's data alone.
#[test]
fn emitted_tests_never_touch_the_project() {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.lacuna]\nsrc = [\".\"]\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("data")).unwrap();
    std::fs::write(root.join("data/canary.txt"), "precious").unwrap();
    std::fs::write(
        root.join("cache.py"),
        r#"import shutil
CACHE_DIR = "data"


def reset_cache(force: bool) -> str:
    if force:
        shutil.rmtree(CACHE_DIR)
        return "reset"
    return "kept"
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args([
            "check",
            "--format",
            "json",
            "--emit-tests",
            "tests_gen",
            "cache.py",
        ])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "not emitted: test_reset_cache_2_raises_file_not_found_error (`reset_cache`): the run tried to delete `data`"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let function = &doc["files"][0]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "reset_cache")
        .unwrap()
        .clone();
    assert_eq!(
        function["not_emitted"],
        serde_json::json!([{
            "test": "test_reset_cache_2_raises_file_not_found_error",
            "reason": "the run tried to delete `data`"
        }])
    );
    assert!(root.join("data/canary.txt").exists());
    let tests = std::fs::read_to_string(root.join("tests_gen/test_lacuna_cache.py")).unwrap();
    insta::assert_snapshot!(tests);

    // Run from the project root, as anyone runs pytest.
    let run = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests_gen"])
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "emitted tests fail under pytest:\n{}\n{tests}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("data/canary.txt")).unwrap(),
        "precious"
    );
}

/// A result that depends on how strings hash (`hash(name)`) is not asserted, even when the
/// user's environment fixes the seed to the generator's own: what it returns changes from one
/// interpreter to the next.
#[test]
fn a_result_that_depends_on_the_hash_seed_is_not_asserted() {
    let (_, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(
        root.join("keys.py"),
        "def key_of(name: str) -> int:\n    return hash(('key', name))\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--emit-tests", "tests_gen", "keys.py"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .env("PYTHONHASHSEED", "0")
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "checked under pytest: 0 as generated, 1 without their assertion, 0 left out"
    );
    let tests = std::fs::read_to_string(root.join("tests_gen/test_lacuna_keys.py")).unwrap();
    assert!(!tests.contains("assert result"), "{tests}");
}

/// A module-level registry, a list and a class counter that calls change: every run starts
/// from the module as imported (a name registered by one run is not there for the next), and
/// each emitted test that changes them puts them back, so that the tests pass in either order.
#[test]
fn module_state_a_call_changes_is_put_back_between_runs_and_tests() {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let plugins = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(
        root.join("registry.py"),
        r#"REGISTRY = {"builtin": 0}
LOADED = []


class Plugin:
    created = 0

    def __init__(self, name: str):
        self.name = name
        Plugin.created += 1


def register(name: str) -> str:
    if name in REGISTRY:
        return "again"
    REGISTRY[name] = len(REGISTRY)
    LOADED.append(Plugin(name))
    return "new"


def lookup(name: str) -> int:
    if name in REGISTRY:
        return REGISTRY[name]
    return -1
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--emit-tests", "tests_gen", "registry.py"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "checked under pytest: 4 as generated, 0 without their assertion, 0 left out"
    );
    let tests = std::fs::read_to_string(root.join("tests_gen/test_lacuna_registry.py")).unwrap();
    insta::assert_snapshot!(tests);

    // As pytest orders them, and the other way round.
    std::fs::write(
        plugins.path().join("reverse_order.py"),
        "def pytest_collection_modifyitems(items):\n    items.reverse()\n",
    )
    .unwrap();
    for order in [&[][..], &["-p", "reverse_order"][..]] {
        let run = Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .args(order)
            .arg("tests_gen")
            .env("HOME", home.path())
            .env("PYTHONPATH", plugins.path())
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "emitted tests fail under pytest ({order:?}):\n{}\n{tests}",
            String::from_utf8_lossy(&run.stdout)
        );
    }
}

/// What reaches an emitted test from the worker is data Lacuna checked and renders itself:
/// code that forges the agent's description of its result (a literal that is code, an
/// exception whose type name is code) never gets that text into the file.
#[test]
fn forged_results_never_become_code_in_emitted_tests() {
    let (_out, _doc, tests, project) = generate_module(
        "forged.py",
        r#"import sys

_agent = sys.modules.get("lacuna_agent.values")
if _agent is not None:
    _agent.literal = lambda value: {"kind": "int", "value": "__import__('os').remove('canary')"}


class Refusal(Exception):
    pass


Refusal.__module__ = "os; import shutil"
Refusal.__qualname__ = "x(); __import__('os').remove('canary')"


def forged(n: int) -> int:
    if n > 3:
        raise Refusal("no")
    return n * 2
"#,
    );
    assert!(!tests.contains("__import__"), "{tests}");
    assert!(!tests.contains("import shutil"), "{tests}");
    assert!(tests.contains("pytest.raises(BaseException)"), "{tests}");
    assert!(
        tests.contains("assert type(result).__name__ == 'int'"),
        "{tests}"
    );
    assert!(!project.path().join("canary").exists());
}

/// The diagnostics of a JSON document as `line:column code message`, one a line.
fn diagnostic_lines(doc: &serde_json::Value) -> String {
    let mut out = String::new();
    for file in doc["files"].as_array().unwrap() {
        for d in file["diagnostics"].as_array().unwrap() {
            out.push_str(&format!(
                "{}:{} {} {}\n",
                d["line"],
                d["column"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            ));
        }
    }
    out
}

#[test]
fn dead_code_is_claimed_only_when_proven_for_every_value() {
    // An unannotated parameter is any object: compared with a text literal (`==`, `!=`, `in`),
    // or with two literals of different types, either side is live; module state a function
    // rebinds is unknown. A module constant never rebound is its literal, and sides that no
    // annotated number can take are dead.
    let project = fixtures().join("dead_claims");
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--no-cache", "--format", "json", "claims.py"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(&project)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lines = diagnostic_lines(&doc);
    for live in [11, 17, 23, 29, 36, 48, 50] {
        assert!(
            !lines.lines().any(|l| l.starts_with(&format!("{live}:"))
                && (l.contains("LCN106") || l.contains("LCN201"))),
            "line {live} is live code:\n{lines}"
        );
    }
    insta::assert_snapshot!(lines);
}

#[test]
fn every_function_has_an_outcome() {
    // Module and class bodies, async generators, nested functions and constructors are not
    // explored: each says why (LCN107) and its branch sides
    // count in the totals; a function without decisions is trivial, not a gap.
    let project = fixtures().join("not_explored");
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let run = |format: &str| {
        Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .args(["check", "--no-cache", "--format", format, "kinds.py"])
            .env("VIRTUAL_ENV", &venv)
            .env("HOME", home.path())
            .current_dir(&project)
            .output()
            .unwrap()
    };
    let out = run("json");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut table = String::new();
    for f in doc["files"][0]["functions"].as_array().unwrap() {
        table.push_str(&format!(
            "{} {} {}/{} {}\n",
            f["name"].as_str().unwrap(),
            f["outcome"].as_str().unwrap(),
            f["branches"]["covered"],
            f["branches"]["total"],
            f["not_explored"].as_str().unwrap_or("")
        ));
    }
    table.push_str(&format!(
        "summary {}/{}\n",
        doc["summary"]["covered"], doc["summary"]["branches"]
    ));
    table.push_str(&diagnostic_lines(&doc));
    insta::assert_snapshot!(table);
    // Each not-explored function's LCN107 names it as the report's functions do, a second
    // definition of a name included (`countdown#2`).
    let file = &doc["files"][0];
    for f in file["functions"].as_array().unwrap() {
        if f["outcome"] == "not-explored" {
            assert!(
                file["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["code"] == "LCN107" && d["function"] == f["name"]),
                "no LCN107 names {}",
                f["name"]
            );
        }
    }
    let text = stdout(&run("text"));
    assert!(
        text.contains("info[LCN107]: not explored: async generators are not explored yet"),
        "{text}"
    );
    assert!(text.contains("10/22 branch sides covered"), "{text}");
}

#[test]
fn a_configuration_that_is_not_a_regular_file_fails_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.py"), "x = 1\n").unwrap();
    let fifo = dir.path().join("fifo.toml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for config in [Path::new("/dev/zero"), fifo.as_path(), dir.path()] {
        let started = std::time::Instant::now();
        let out = lacuna(
            dir.path(),
            &[
                "check",
                "--static",
                "--config",
                config.to_str().unwrap(),
                "m.py",
            ],
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            stderr(&out),
            format!(
                "lacuna: {}: cannot read: not a regular file\n",
                config.display()
            )
        );
    }
    let big = dir.path().join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(5 << 20))).unwrap();
    let out = lacuna(
        dir.path(),
        &[
            "check",
            "--static",
            "--config",
            big.to_str().unwrap(),
            "m.py",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "lacuna: {}: cannot read: larger than 4 MiB, which no configuration file needs\n",
            big.display()
        )
    );
}

#[test]
fn paths_that_are_not_regular_files_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.py");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for path in ["/dev/null", fifo.to_str().unwrap()] {
        let out = lacuna(dir.path(), &["check", "--static", path]);
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            stderr(&out),
            format!("lacuna: {path}: not a regular file or directory\n")
        );
    }
    let out = lacuna(dir.path(), &["check", "--static", "missing.py"]);
    assert_eq!(
        stderr(&out),
        format!(
            "lacuna: {}: no such file or directory\n",
            dir.path().join("missing.py").display()
        )
    );
}

#[test]
fn an_unreadable_directory_is_a_warning_and_the_rest_is_checked() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("open")).unwrap();
    std::fs::create_dir_all(dir.path().join("closed")).unwrap();
    std::fs::write(dir.path().join("open/a.py"), "def f(x):\n    return x\n").unwrap();
    std::fs::write(dir.path().join("closed/b.py"), "x = 1\n").unwrap();
    let closed = dir.path().join("closed");
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o000)).unwrap();
    let args = ["check", "--static", "--format", "json"];
    let out = if std::fs::read_dir(&closed).is_ok() {
        // Running as root, whom permissions do not keep out: run as `nobody`.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_lacuna"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("setpriv runs")
    } else {
        lacuna(dir.path(), &args)
    };
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "lacuna: warning: {}: Permission denied (os error 13); skipped\n",
            closed.display()
        )
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, ["open/a.py"]);
}

#[test]
fn carriage_returns_alone_are_line_breaks_not_syntax_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.py"),
        "def f(x):\r    if x > 1:\r        return 1\r    return 2\r",
    )
    .unwrap();
    let out = lacuna(
        dir.path(),
        &["check", "--static", "--format", "json", "m.py"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["diagnostics"], serde_json::json!([]));
}

#[test]
fn files_above_the_maximum_size_get_one_diagnostic_and_no_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.lacuna]\nmax-file-size = 100\n",
    )
    .unwrap();
    let body = "def f(x):\n    if x > 1:\n        return 1\n    return 2\n";
    std::fs::write(dir.path().join("small.py"), body).unwrap();
    std::fs::write(dir.path().join("big.py"), body.repeat(3)).unwrap();
    let out = lacuna(dir.path(), &["check", "--static", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = |name: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == name)
            .cloned()
            .unwrap()
    };
    let big = file("big.py");
    assert_eq!(big["diagnostics"].as_array().unwrap().len(), 1, "{big}");
    assert_eq!(big["diagnostics"][0]["code"], "LCN004");
    assert_eq!(
        big["diagnostics"][0]["message"],
        "file of 162 bytes is larger than `max-file-size` (100 bytes): not modelled, no \
         decisions nor tests for it"
    );
    assert_eq!(big["functions"], serde_json::json!([]));
    assert_eq!(file("small.py")["functions"].as_array().unwrap().len(), 1);
}

/// A throw-away project with `pyproject` and `files`, a throw-away HOME, and the virtual
/// environment of the test interpreter.
fn scratch_project(
    pyproject: &str,
    files: &[(&str, &str)],
) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let (_, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("pyproject.toml"), pyproject).unwrap();
    for (name, text) in files {
        std::fs::write(project.path().join(name), text).unwrap();
    }
    (project, tempfile::tempdir().unwrap(), venv)
}

const SIGN: &str = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n";

/// Where the kernel offers no file-system isolation (switched off here), generation refuses to
/// run project code unless the user opts in on the command line; `lacuna check` says which
/// layers hold; a repository cannot widen the sandbox.
#[test]
fn the_sandbox_says_what_holds_and_refuses_to_run_without_isolation() {
    let (project, home, venv) = scratch_project(
        "[tool.lacuna]\nsrc = [\".\"]\n[tool.lacuna.sandbox]\nallow-network = true\n",
        &[("m.py", SIGN)],
    );
    let root = project.path();
    let check = |disabled: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .arg("check")
            .args(extra)
            .arg("m.py")
            .env("VIRTUAL_ENV", &venv)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("LACUNA_SANDBOX_DISABLE", disabled)
            .current_dir(root)
            .output()
            .unwrap()
    };
    let full = check("", &[]);
    assert_eq!(full.status.code(), Some(0), "{}", stderr(&full));
    // The ABI depends on the kernel; CI's has every layer.
    assert!(
        stderr(&full).contains("lacuna: sandbox: Landlock ABI")
            && stderr(&full).contains(", seccomp, namespaces (user, PID, network, mount, IPC)\n"),
        "{}",
        stderr(&full)
    );
    assert_contains!(
        stderr(&full),
        "lacuna: warning: the repository's [tool.lacuna.sandbox] asks for the network; widening the sandbox comes only from you (--allow-network or your user configuration)"
    );
    assert_contains!(stdout(&full), "2/2 branch sides covered");

    let refused = check("landlock", &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert_contains!(
        stderr(&refused),
        "refusing to run project code: the kernel offers no file-system isolation here (no Landlock); pass --allow-unconfined"
    );

    let degraded = check("all", &["--allow-unconfined"]);
    assert_eq!(degraded.status.code(), Some(0), "{}", stderr(&degraded));
    assert_contains!(
        stderr(&degraded),
        "lacuna: sandbox: none: only the in-process hook"
    );
    assert_contains!(
        stderr(&degraded),
        "lacuna: warning: the sandbox is weaker here: no Landlock, no seccomp, no user namespaces"
    );
    assert_contains!(stdout(&degraded), "2/2 branch sides covered");
}

/// Code that behaves only under pytest (where the agent is not) meets the same sandbox in the
/// pytest check of the emitted tests, and a time limit: the canary it tries to delete survives,
/// the test that then sleeps is stopped and left out, and `lacuna check` finishes.
#[test]
fn the_pytest_check_is_confined_and_time_limited() {
    let (_, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let canary = home.path().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    let root = project.path();
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.lacuna]\nsrc = [\".\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("sneaky.py"),
        format!(
            r#"import os, time

def double(x: int) -> int:
    if os.environ.get("PYTEST_CURRENT_TEST"):
        try:
            os.remove({canary:?})
        except OSError:
            pass
        time.sleep(120)
    if x > 0:
        return 2 * x
    return 0
"#,
            canary = canary.display().to_string()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--emit-tests", "tests_gen", "sneaky.py"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("lacuna: wrote 0 tests in 0 files to")
            && stderr(&out).contains("0 as generated, 0 without their assertion, 2 left out"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "alive");
}

/// Modules whose names `import` cannot reach (`1abc.py`, `class.py`, `my-module.py`) are not explored — each
/// function says why — and never cost the other modules their emitted tests.
#[test]
fn modules_import_cannot_reach_say_so_and_spare_the_others() {
    let (project, home, venv) = scratch_project(
        "[tool.lacuna]\nsrc = [\".\"]\n",
        &[
            ("1abc.py", SIGN),
            ("class.py", SIGN),
            ("my-module.py", SIGN),
            ("ok.py", SIGN),
        ],
    );
    let root = project.path();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--emit-tests", "tests_gen", "."])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for name in ["1abc", "class"] {
        assert!(
            text.contains(&format!(
                "info[LCN107]: not explored: the module name `{name}` is not a Python identifier, so `import` cannot reach it; rename the file"
            )),
            "{text}"
        );
    }
    assert!(
        text.contains(
            "info[LCN107]: not explored: the name `my-module.py` is not a Python identifier, so `import` cannot reach it; rename it (`my_module.py`)"
        ),
        "{text}"
    );
    assert!(
        stderr(&out).contains("lacuna: wrote 2 tests in 1 files")
            && stderr(&out).contains("checked under pytest: 2 as generated"),
        "{}",
        stderr(&out)
    );
    assert!(root.join("tests_gen/test_lacuna_ok.py").is_file());
}

/// pytest's own count of outcomes, from the last line of its summary
/// (`1 failed, 10 passed, 1 skipped, 1 xfailed in 1.10s`).
fn pytest_counts(root: &Path) -> BTreeMap<String, u64> {
    let out = Command::new(example::python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(root)
        .output()
        .unwrap();
    let text = stdout(&out);
    let last = text
        .lines()
        .last()
        .unwrap_or_default()
        .trim_matches('=')
        .trim();
    let mut counts = BTreeMap::new();
    for part in last.split(" in ").next().unwrap().split(", ") {
        let (n, word) = part.trim().split_once(' ').unwrap();
        let word = word.trim_end_matches('s');
        let word = if word == "error" { "error" } else { word };
        counts.insert(word.to_owned(), n.parse().unwrap());
    }
    counts
}

use std::collections::{BTreeMap, BTreeSet};

/// `lacuna check` runs the project's own suite with real pytest, honouring its configuration
/// (`addopts = --import-mode=importlib`, `testpaths`, markers, `conftest.py` fixtures,
/// parametrize, test classes, `unittest.TestCase`, `tmp_path`): each test's outcome is the one
/// plain pytest gives it, and only passing tests feed the coverage of the suite per function.
#[test]
fn the_projects_suite_runs_under_pytest_as_plain_pytest_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = example::suite_project(dir.path());
    let plain = pytest_counts(&root);
    let out = example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna")).args(["check", "--format", "json"]),
        home.path(),
    )
    .current_dir(&root)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts: BTreeMap<String, u64> =
        serde_json::from_value(doc["suite"]["counts"].clone()).unwrap();
    // pytest counts `xfailed` as `xfailed`, and everything else under the same names.
    assert_eq!(counts, plain);
    let mut by_function = serde_json::Map::new();
    for file in doc["files"].as_array().unwrap() {
        for f in file["functions"].as_array().unwrap() {
            if let Some(suite) = f.get("suite") {
                by_function.insert(f["name"].as_str().unwrap().to_owned(), suite.clone());
            }
        }
    }
    let suite = &mut doc["suite"];
    suite["time_ms"] = "[ms]".into();
    for t in suite["tests"].as_array_mut().unwrap() {
        t["duration_ms"] = "[ms]".into();
        // A failure's message is pytest's report: its `E` lines say why (object addresses
        // left out).
        if let Some(message) = t.get("message").and_then(|m| m.as_str()) {
            let why: Vec<String> = message
                .lines()
                .filter(|l| l.starts_with("E "))
                .map(|l| {
                    let mut out = String::new();
                    let mut rest = l;
                    while let Some(at) = rest.find(" at 0x") {
                        out.push_str(&rest[..at]);
                        rest = rest[at + 6..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
                    }
                    out + rest
                })
                .collect();
            t["message"] = why.into();
        }
    }
    insta::assert_json_snapshot!(serde_json::json!({
        "suite": suite,
        "functions": by_function,
    }));
}

/// What became of the user's tests is never silent: their counts when they ran; when none was
/// found, where the run looked and which files look like tests, with the `tests` entry that
/// would run them (a file pytest's default `python_files` does not collect, as pytimeparse
/// ships its tests). With that entry the suite runs.
#[test]
fn a_run_finding_none_of_your_tests_says_where_it_looked_and_what_looks_like_tests() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = dir.path().join("timeparse");
    std::fs::create_dir_all(root.join("timeparse/tests")).unwrap();
    std::fs::write(root.join("setup.py"), "").unwrap();
    std::fs::write(root.join("timeparse/__init__.py"), "").unwrap();
    std::fs::write(root.join("timeparse/tests/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("timeparse/core.py"),
        "def seconds(minutes: int) -> int:\n    if minutes < 0:\n        raise ValueError(minutes)\n    return minutes * 60\n",
    )
    .unwrap();
    std::fs::write(
        root.join("timeparse/tests/testcore.py"),
        "from timeparse.core import seconds\n\n\ndef test_seconds():\n    assert seconds(2) == 120\n",
    )
    .unwrap();
    let run = |root: &Path| {
        example::isolate(
            Command::new(env!("CARGO_BIN_EXE_lacuna")).args(["check", "--format", "json"]),
            home.path(),
        )
        .current_dir(root)
        .output()
        .unwrap()
    };
    let out = run(&root);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said: Vec<&str> = std::str::from_utf8(&out.stderr)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("lacuna: your tests"))
        .collect();
    assert_eq!(
        said,
        [
            "lacuna: your tests: none found: `tests` does not exist (where pytest run at the project root looks); `timeparse/tests/testcore.py` looks like tests: `[tool.lacuna] tests = [\"timeparse/tests/testcore.py\"]` runs it — suspicious assertions (LCN300) and the inputs your tests pass need them"
        ]
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["suite"]["paths"], serde_json::json!(["tests"]));
    assert_eq!(doc["suite"]["tests"], serde_json::json!([]));

    // As it says: the entry runs them.
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[tool.lacuna]\npython = {:?}\ntests = [\"timeparse/tests/testcore.py\"]\n",
            example::python()
        ),
    )
    .unwrap();
    let out = run(&root);
    let err = stderr(&out);
    let line = err
        .lines()
        .find(|l| l.starts_with("lacuna: your tests"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.starts_with("lacuna: your tests: 1 passed in "),
        "{line}"
    );
}

/// A hostile suite is contained as generated inputs are: a test deleting a file outside the
/// scratch directory fails and the file survives, a spinning test fails after the test
/// timeout, a test that kills its worker is reported as `crashed` and the run goes on without
/// it; a test module needing a module the interpreter lacks gives one message naming it.
#[test]
fn a_hostile_suite_is_contained_and_a_missing_module_named_once() {
    let canary_dir = tempfile::tempdir().unwrap();
    let canary = canary_dir.path().join("canary.txt");
    std::fs::write(&canary, "alive").unwrap();
    let (project, home, venv) = scratch_project(
        "[tool.lacuna]\ntests = [\"tests\"]\n[tool.lacuna.budget]\ntest-timeout-ms = 1500\n",
        &[("sign.py", SIGN)],
    );
    let tests = project.path().join("tests");
    std::fs::create_dir(&tests).unwrap();
    let hostile = format!(
        "import os\nfrom sign import sign\n\n\
         def test_delete():\n    os.remove({canary:?})\n\n\
         def test_spin():\n    while True:\n        pass\n\n\
         def test_exit():\n    os._exit(3)\n\n\
         def test_after():\n    assert sign(2) == 1\n",
        canary = canary.display().to_string()
    );
    std::fs::write(tests.join("test_hostile.py"), hostile).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(project.path())
        .output()
        .unwrap();
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "alive");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcomes: Vec<(String, String)> = doc["suite"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_owned(),
                t["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("tests/test_hostile.py::test_delete", "failed"),
        ("tests/test_hostile.py::test_spin", "failed"),
        ("tests/test_hostile.py::test_exit", "crashed"),
        ("tests/test_hostile.py::test_after", "passed"),
    ];
    assert_eq!(
        outcomes,
        expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    // The test that passed after the crash still counts for `sign`.
    let sign = &doc["files"][0]["functions"][0];
    assert_eq!(sign["suite"]["branches"], 1, "{sign}");

    // As under plain pytest, a module that cannot be collected stops the run before any test.
    std::fs::write(tests.join("test_needs.py"), "import numpy_not_here\n").unwrap();
    std::fs::write(
        tests.join("test_needs_too.py"),
        "import numpy_not_here.linalg\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(project.path())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = doc["suite"]["error"].as_str().unwrap();
    assert_eq!(
        error,
        "the project's tests import modules the interpreter does not have: `numpy_not_here` (2 files); install them in the project's environment"
    );
    assert_eq!(
        doc["suite"]["collection_errors"].as_array().unwrap().len(),
        2
    );
    assert_eq!(
        stderr(&out).matches("numpy_not_here").count(),
        1,
        "{}",
        stderr(&out)
    );
}

/// A side only a run that timed out takes is uncovered because the run did not finish, and the
/// diagnostic says so with the input (not "unsatisfiable", not "`time.sleep` raised").
#[test]
fn a_side_only_a_timed_out_run_takes_says_it_timed_out() {
    let (project, home, venv) = scratch_project(
        "[tool.lacuna.budget]\nexecution-timeout-ms = 300\nfunction-time-ms = 3000\n",
        &[(
            "waits.py",
            "import time\n\n\ndef wait(x: int) -> int:\n    if x > 5:\n        time.sleep(30)\n        return 1\n    return 0\n",
        )],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json", "waits.py"])
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(project.path())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diagnostics = doc["files"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "LCN100");
    assert_eq!(
        d["message"],
        "true branch never taken: the only run that takes it (`wait(6)`) timed out after 300 ms, and a run that does not finish is never kept as a test: raise `execution-timeout-ms`, or mock what it waits for"
    );
    assert_eq!(d["data"]["run"], "timeout");
    assert_eq!(d["data"]["timeout_ms"], 300);
}

/// A function that returns a named tuple: the emitted test asserts its type and its items, so
/// that a change of value fails it (not only a change of type).
#[test]
fn named_tuple_results_are_asserted_item_by_item() {
    let (out, _, tests, _) = generate_module(
        "colours.py",
        r#"from typing import NamedTuple


class Colour(NamedTuple):
    red: int
    green: int
    blue: int


def shade(level: int) -> Colour:
    if level > 10:
        return Colour(255, 255, 255)
    return Colour(0, 0, level)
"#,
    );
    let asserted: Vec<&str> = tests
        .lines()
        .filter(|l| l.trim_start().starts_with("assert"))
        .collect();
    assert!(
        asserted.contains(&"    assert tuple(result) == (255, 255, 255)"),
        "{}\n{tests}",
        stderr(&out)
    );
    assert_eq!(
        asserted
            .iter()
            .filter(|l| l.contains("assert type(result).__name__ == 'Colour'"))
            .count(),
        asserted
            .iter()
            .filter(|l| l.contains("tuple(result)"))
            .count(),
        "{tests}"
    );
}

/// A result computed from the clock (`time.time()`, `datetime.now()`) is asserted in a test that
/// replays what the run read: the test passes as generated, and at any later time, where a test
/// pinning one moment's value failed the moment after (it was kept without its assertion).
#[test]
fn clock_readings_are_replayed_by_the_emitted_test() {
    let source = r#"import datetime
import time


def stamp(offset: int) -> float:
    if offset > 10:
        return time.time() + offset
    return 0.0


def age(born: int) -> int:
    if born > 2000:
        return datetime.datetime.now().year - born
    return 0
"#;
    let (out, _, tests, _project) = generate_module("clock.py", source);
    assert_contains!(stderr(&out), "0 without their assertion, 0 left out");
    assert_contains!(&tests, "_mock(monkeypatch, 'clock', 'time.time', ");
    assert_contains!(
        &tests,
        "_mock(monkeypatch, 'clock', 'datetime.datetime.now', datetime_value)"
    );
    let asserted = tests
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("assert result == "))
        .count();
    assert_eq!(asserted, 4, "{tests}");
}

/// A returned date, decimal or object is asserted by what it holds, not only by its type: a
/// standard-library value equal to its rebuilt self, an object field by field (public fields
/// only), so that a change of value fails the emitted test.
#[test]
fn returned_values_are_asserted_by_what_they_hold() {
    let source = r#"import datetime
from decimal import Decimal


class Span:
    def __init__(self, start, days):
        self.start = start
        self.days = days
        self.label = "span"
        self._cache = {}


def deadline(days: int) -> datetime.date:
    if days > 30:
        return datetime.date(2024, 2, 1)
    return datetime.date(2024, 1, 1)


def price(cents: int) -> Decimal:
    if cents < 0:
        return Decimal("0.00")
    return Decimal("1.25")


def span(days: int) -> Span:
    if days > 7:
        return Span(datetime.date(2024, 1, 1), 7)
    return Span(datetime.date(2024, 1, 1), 1)


def rounded(value: Decimal) -> Decimal:
    if value > 1:
        return Decimal("1.00")
    return Decimal("0.50")
"#;
    let (out, _, tests, project) = generate_module("spans.py", source);
    let asserted: BTreeSet<&str> = tests
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("assert"))
        .collect();
    let expected = [
        "assert result == date(2024, 2, 1)",
        "assert result == date(2024, 1, 1)",
        "assert result == Decimal('0.00')",
        "assert result == Decimal('1.25')",
        "assert type(result).__name__ == 'Span'",
        "assert result.start == date(2024, 1, 1)",
        "assert result.days == 7",
        "assert result.days == 1",
        "assert result.label == 'span'",
        // An input built as `decimal_2 = Decimal(…)`: no variable shadows the class.
        "assert result == Decimal('1.00')",
        "assert result == Decimal('0.50')",
    ];
    assert_eq!(
        asserted,
        BTreeSet::from(expected),
        "{}\n{tests}",
        stderr(&out)
    );
    assert!(
        tests.contains("from datetime import date\nfrom decimal import Decimal\n"),
        "{tests}"
    );
    // The same tests fail on code that returns other values of the same types.
    let changed = source
        .replace("date(2024, 2, 1)", "date(2024, 2, 2)")
        .replace("\"1.25\"", "\"1.26\"")
        .replace("), 7)", "), 6)");
    std::fs::write(project.path().join("spans.py"), changed).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test_lacuna_spans.py"), &tests).unwrap();
    let (python, _) = test_python();
    let home = tempfile::tempdir().unwrap();
    let run = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(dir.path())
        .env("PYTHONPATH", project.path())
        .env("HOME", home.path())
        .current_dir(dir.path())
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&run.stdout);
    assert!(summary.contains("3 failed"), "{summary}");
}

/// The arguments the project's own passing tests call a function with are inputs the
/// generator tries once its own are spent (as Pynguin seeds from existing tests): a checksum no
/// solver inverts is passed by the suite, and the generator covers the side behind it and, from
/// that input, the one after it.
#[test]
fn the_suites_arguments_are_inputs_the_generator_tries() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[project]\nname = \"vault\"\n",
    )
    .unwrap();
    std::fs::write(
        project.path().join("vault.py"),
        "import zlib\n\n\ndef unlock(code: str, attempts: int) -> str:\n    if zlib.crc32(code.encode()) == 0x35C246D5:\n        if attempts > 3:\n            return \"slow\"\n        return \"open\"\n    return \"closed\"\n",
    )
    .unwrap();
    std::fs::create_dir(project.path().join("tests")).unwrap();
    std::fs::write(
        project.path().join("tests/test_vault.py"),
        "from vault import unlock\n\n\ndef test_unlock():\n    assert unlock(\"password\", 1) == \"open\"\n    assert unlock(\"guess\", 1) == \"closed\"\n",
    )
    .unwrap();
    let (out, doc, out_dir) = generate_in(project.path(), "vault.py");
    assert_eq!(doc["summary"]["covered"], 4, "{}", stdout(&out));
    let tests = std::fs::read_to_string(out_dir.path().join("test_lacuna_vault.py")).unwrap();
    assert!(tests.contains("unlock('password', 1)"), "{tests}");
    assert!(tests.contains("== 'slow'"), "{tests}");
}

/// `LACUNA_LOG` turns on structured logs on stderr: every run and flip of a search under the
/// function it explores; stdout keeps the JSON document. Without it, nothing of the kind.
#[test]
fn lacuna_log_writes_the_search_under_the_function_it_explores() {
    let (_dir, root) = python_project(
        "logged",
        &[(
            "grade.py",
            "def grade(score: int) -> str:\n    if score > 90:\n        return 'A'\n    return 'B'\n",
        )],
    );
    let home = tempfile::tempdir().unwrap();
    let run = |log: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lacuna"));
        command
            .args(["check", "--no-cache", "--format", "json", "grade.py"])
            .env("HOME", home.path())
            .env_remove("LACUNA_LOG")
            .current_dir(&root);
        if let Some(filter) = log {
            command.env("LACUNA_LOG", filter);
        }
        command.output().unwrap()
    };
    let logged = run(Some("lacuna_analysis::explore=debug"));
    assert_eq!(logged.status.code(), Some(0), "{}", stderr(&logged));
    let doc: serde_json::Value = serde_json::from_slice(&logged.stdout).unwrap();
    assert_eq!(doc["files"][0]["functions"][0]["branches"]["covered"], 2);
    let log = stderr(&logged);
    for line in [
        "explore{function=grade.grade}",
        " run ",
        " flip negation=",
        " explored ",
    ] {
        assert_contains!(&log, line);
    }
    assert!(
        log.lines()
            .filter(|l| l.contains(" DEBUG "))
            .all(|l| l.contains("explore{function=grade.grade}")),
        "{log}"
    );
    let quiet = run(None);
    assert!(!stderr(&quiet).contains(" DEBUG "), "{}", stderr(&quiet));
    let bad = run(Some("not a[filter"));
    assert_contains!(
        stderr(&bad),
        "lacuna: warning: LACUNA_LOG is not a log filter"
    );
    assert_eq!(bad.status.code(), Some(0));
}
