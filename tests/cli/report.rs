//! The report itself: one definition of every total across text, JSON and `--mcdc-report`,
//! the same report from the same inputs, colours as the environment asks, exclusions, the
//! project's tests and emitted files left out, and progress only on a terminal.

use super::{fixtures, stderr, stdout, test_python};
use std::path::Path;
use std::process::{Command, Output};

/// `lacuna check ARGS` in `dir` with the test interpreter's environment, a throw-away HOME,
/// and `env` on top.
fn check(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_lacuna"));
    // The fixtures are the repository's own directories: no results store is written into them.
    command
        .arg("check")
        .arg("--no-cache")
        .args(args)
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .current_dir(dir);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the lacuna binary runs")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.code() == Some(0),
        "{}\n{}",
        stdout(out),
        stderr(out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The document without what measures time.
fn without_timings(mut doc: serde_json::Value) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                // How many of the workers started depends on when their first executions
                // came, as times do.
                map.retain(|k, _| !k.ends_with("_ms") && k != "workers_started");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut doc);
    doc
}

#[test]
fn the_same_inputs_give_the_same_report() {
    let project = fixtures().join("report");
    let first = without_timings(json(&check(&project, &["--format", "json"], &[])));
    let second = without_timings(json(&check(&project, &["--format", "json"], &[])));
    assert_eq!(first, second, "two runs differ");
    // Nothing here needed the time budget to stop: each function says what ended it.
    let stopped: Vec<(String, String)> = first["files"][0]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| {
            Some((
                f["name"].as_str()?.to_owned(),
                f["stopped_by"].as_str()?.to_owned(),
            ))
        })
        .collect();
    insta::assert_debug_snapshot!(stopped);
}

#[test]
fn every_output_counts_the_same_totals() {
    // An async generator is not explored: its branch sides and MC/DC obligations still count, as not
    // covered, in the summary line, the JSON summary and the MC/DC report alike.
    let project = fixtures().join("report");
    let doc = json(&check(&project, &["--format", "json"], &[]));
    let summary = &doc["summary"];
    let functions = doc["files"][0]["functions"].as_array().unwrap();
    let sum = |field: &str, part: &str| -> u64 {
        functions
            .iter()
            .map(|f| f[field][part].as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        summary["branches"].as_u64().unwrap(),
        sum("branches", "total")
    );
    assert_eq!(
        summary["covered"].as_u64().unwrap(),
        sum("branches", "covered")
    );
    assert_eq!(
        summary["obligations"].as_u64().unwrap(),
        sum("obligations", "total")
    );
    assert_eq!(
        summary["obligations_covered"].as_u64().unwrap(),
        sum("obligations", "covered")
    );
    let evens = functions.iter().find(|f| f["name"] == "evens").unwrap();
    assert_eq!(evens["outcome"], "not-explored");
    assert_eq!(evens["branches"]["covered"], 0);
    assert_eq!(evens["obligations"]["total"], 4);

    let text = stdout(&check(&project, &[], &[]));
    let line = format!(
        "{}/{} branch sides covered, {}/{} MC/DC obligations shown",
        summary["covered"],
        summary["branches"],
        summary["obligations_covered"],
        summary["obligations"]
    );
    assert!(text.contains(&line), "{line}\n{text}");
    // Functions without decisions are one line, not one line each, which says how many of
    // them got a test.
    assert!(
        text.contains("  2 functions without decisions (2 with a generated test)\n"),
        "{text}"
    );
    assert!(!text.contains(" 0 branch sides"), "{text}");

    let report = stdout(&check(&project, &["--mcdc-report"], &[]));
    let footer = format!(
        "MC/DC: {}/{} condition outcomes covered",
        summary["obligations_covered"], summary["obligations"]
    );
    assert!(report.contains(&footer), "{footer}\n{report}");
    assert!(
        report.contains("in evens: not explored: async generators"),
        "{report}"
    );
}

#[test]
fn colours_follow_no_color_and_force_color() {
    // Standard output is a pipe here: plain unless forced; NO_COLOR wins over everything.
    let project = fixtures();
    let args = ["--static", "static"];
    let escape = |out: &Output| stdout(out).contains("\u{1b}[");
    assert!(!escape(&check(&project, &args, &[])));
    assert!(escape(&check(&project, &args, &[("FORCE_COLOR", "1")])));
    assert!(escape(&check(&project, &args, &[("CLICOLOR_FORCE", "1")])));
    assert!(!escape(&check(&project, &args, &[("FORCE_COLOR", "0")])));
    assert!(!escape(&check(
        &project,
        &args,
        &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]
    )));
}

#[test]
fn progress_stays_off_pipes_and_quiet_silences_information() {
    // Standard error is a pipe: no progress bar, no carriage returns, only the messages.
    let project = fixtures().join("report");
    let out = check(&project, &["--format", "json"], &[]);
    let err = stderr(&out);
    assert!(!err.contains('\r') && !err.contains("functions"), "{err:?}");
    assert!(err.contains("lacuna: sandbox:"), "{err}");
    let quiet = check(&project, &["--format", "json", "--quiet"], &[]);
    assert_eq!(stderr(&quiet), "", "--quiet prints nothing but warnings");
    assert_eq!(
        without_timings(json(&quiet)),
        without_timings(json(&out)),
        "--quiet changes nothing else"
    );
}

/// A project with its own tests (a `tests/` package with a conftest, a `test_*.py` and a
/// `*_test.py` at the top), documentation with code, and a test module elsewhere whose name is
/// the one Lacuna gives its emitted file.
fn project_with_tests(pyproject_extra: &str) -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let p = project.path();
    let write = |rel: &str, text: &str| {
        let path = p.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pyproject.toml",
        &format!(
            "[tool.lacuna]\nsrc = [\".\"]\n{pyproject_extra}\n[tool.pytest.ini_options]\naddopts = \"-p no:cacheprovider\"\n"
        ),
    );
    write(
        "shapes.py",
        &std::fs::read_to_string(fixtures().join("report/shapes.py")).unwrap(),
    );
    let own_test = "import shapes\n\n\ndef test_classify():\n    if shapes.classify(1, \"x\") != \"other\":\n        raise AssertionError\n";
    write("tests/test_shapes.py", own_test);
    write(
        "tests/conftest.py",
        "import pytest\n\n\n@pytest.fixture\ndef small():\n    return 1 if True else 2\n",
    );
    write("test_top.py", own_test);
    write("shapes_test.py", own_test);
    write(
        "docs/conf.py",
        "import os\n\nif os.environ.get(\"READTHEDOCS\"):\n    html_theme = \"x\"\n",
    );
    write(
        "legacy/test_lacuna_shapes.py",
        "def test_legacy():\n    assert 1 + 1 == 2\n",
    );
    project
}

fn checked_paths(doc: &serde_json::Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_projects_tests_and_docs_are_left_out_unless_asked_for() {
    let project = project_with_tests("");
    let doc = json(&check(
        project.path(),
        &["--static", "--format", "json"],
        &[],
    ));
    assert_eq!(checked_paths(&doc), ["shapes.py"]);
    // Named on the command line, a test file is checked.
    let doc = json(&check(
        project.path(),
        &["--static", "--format", "json", "test_top.py"],
        &[],
    ));
    assert_eq!(checked_paths(&doc), ["test_top.py"]);

    let project = project_with_tests("include-tests = true\nexclude = []");
    let doc = json(&check(
        project.path(),
        &["--static", "--format", "json"],
        &[],
    ));
    insta::assert_debug_snapshot!(checked_paths(&doc), @r#"
    [
        "docs/conf.py",
        "legacy/test_lacuna_shapes.py",
        "shapes.py",
        "shapes_test.py",
        "test_top.py",
        "tests/conftest.py",
        "tests/test_shapes.py",
    ]
    "#);
}

#[test]
fn emitted_tests_join_the_projects_pytest_run_and_are_not_checked_again() {
    let (python, _) = test_python();
    let project = project_with_tests("include-tests = true");
    let p = project.path();
    let out = check(
        p,
        &[
            "--format",
            "json",
            "--emit-tests",
            "tests/generated",
            "shapes.py",
        ],
        &[],
    );
    json(&out);
    let generated = p.join("tests/generated");
    let conftest = std::fs::read_to_string(generated.join("conftest.py")).unwrap();
    insta::assert_snapshot!(conftest);
    assert!(generated.join("__init__.py").is_file());
    let emitted = std::fs::read_to_string(generated.join("test_lacuna_shapes.py")).unwrap();
    assert!(
        emitted.starts_with("# Generated by Lacuna"),
        "the marker is the first line:\n{emitted}"
    );

    // The project's own plain `pytest`, from its root, without `pythonpath` or an install:
    // its tests, the legacy file of the same name, and the emitted tests all pass.
    let home = tempfile::tempdir().unwrap();
    let run = Command::new(python.parent().unwrap().join("pytest"))
        .args(["-q"])
        .env("HOME", home.path())
        .env("PYTHONPATH", "")
        .current_dir(p)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the project's pytest fails:\n{}{}",
        stdout(&run),
        stderr(&run)
    );
    assert_contains!(stdout(&run), " passed");

    // The next check, tests included, leaves the emitted files out.
    let doc = json(&check(p, &["--static", "--format", "json"], &[]));
    let paths = checked_paths(&doc);
    assert!(
        paths.iter().all(|p| !p.starts_with("tests/generated")),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"tests/test_shapes.py".to_owned()),
        "{paths:?}"
    );
}

/// coverage.py's exclusions, as its users write them: `# pragma: no cover` on a `def` line, on
/// the only statement of a branch, and a pattern of the project's own (`exclude_also`). What they
/// leave out is neither counted nor diagnosed, and the branch sides left are the branches
/// coverage.py counts for the same file with the same configuration.
#[test]
fn coverage_exclusions_leave_out_what_coverage_py_leaves_out() {
    let project = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = project.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pyproject.toml",
        "[project]\nname = \"ex\"\n\n[tool.coverage.report]\nexclude_also = [\"if TYPE_CHECKING:\"]\n",
    );
    write(
        "ex.py",
        r#"from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os


def parse(text: str, strict: bool):
    if not text:
        raise NotImplementedError  # pragma: no cover
    if strict:
        return text.upper()
    return text


def debug(x: int):  # pragma: no cover
    if x > 3:
        return 1
    return 2


def sign(x: int):
    if x > 0:
        return 1
    else:  # pragma: no cover
        if x == 0:
            return 0
        return -1
"#,
    );
    write(
        "tests/test_ex.py",
        "from ex import parse, sign\n\n\ndef test_parse():\n    assert parse('a', True) == 'A'\n    assert parse('a', False) == 'a'\n    assert sign(2) == 1\n",
    );
    let doc = json(&check(project.path(), &["--format", "json"], &[]));
    let functions = doc["files"][0]["functions"].as_array().unwrap();
    let figures: Vec<(String, u64, u64)> = functions
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["branches"]["total"].as_u64().unwrap(),
                f["branches"]["excluded"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        figures,
        [
            ("<module>".to_owned(), 0, 2),
            ("parse".to_owned(), 2, 2),
            ("debug".to_owned(), 0, 2),
            ("sign".to_owned(), 0, 4),
        ]
    );
    assert_eq!(doc["summary"]["branches"], 2);
    assert_eq!(doc["summary"]["excluded"], 10);
    assert_eq!(doc["summary"]["diagnostics"], 0, "{doc}");
    // coverage.py, with the same configuration, counts the same branches in the file.
    let (python, _) = test_python();
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(&python)
            .args(["-m", "coverage"])
            .args(args)
            .env("HOME", home.path())
            .env("PYTHONPATH", project.path())
            .current_dir(project.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    };
    run(&[
        "run",
        "--branch",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
    ]);
    run(&["json", "-o", "coverage.json"]);
    let coverage: serde_json::Value =
        serde_json::from_slice(&std::fs::read(project.path().join("coverage.json")).unwrap())
            .unwrap();
    assert_eq!(
        coverage["files"]["ex.py"]["summary"]["num_branches"],
        doc["summary"]["branches"]
    );
}

/// `# lacuna: ignore[CODES]` on a diagnostic's line leaves out the diagnostics of those codes
/// (or prefixes) that start there, and a marker naming other codes leaves it be.
#[test]
fn a_lacuna_ignore_comment_suppresses_the_codes_it_names_on_its_line() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("pyproject.toml"),
        "[project]\nname = \"sp\"\n",
    )
    .unwrap();
    let body = |marker: &str| {
        format!(
            "    if os.path.exists(\"/nonexistent/lacuna\"):{marker}\n        return 1\n    return 2\n"
        )
    };
    std::fs::write(
        project.path().join("sp.py"),
        format!(
            "import os\n\n\ndef found(x: int):\n{}\n\ndef kept(x: int):\n{}\n\ndef other(x: int):\n{}",
            body(""),
            body("  # lacuna: ignore[LCN101]"),
            body("  # lacuna: ignore[LCN2]"),
        ),
    )
    .unwrap();
    let doc = json(&check(project.path(), &["--format", "json"], &[]));
    let reported: Vec<(String, u64)> = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reported,
        [("LCN101".to_owned(), 5), ("LCN101".to_owned(), 17)],
        "{doc}"
    );
    assert_eq!(doc["summary"]["diagnostics"], 2);
}

/// A condition inside a generator expression (`ord(c) > 0xFFFF`, which the generator does not
/// model) is decided by one item: when the generator's iteration reaches the loop bound, its
/// side is not blamed on the bound — one character above U+FFFF takes it. The decision after
/// the loop that needs a longer text may be.
#[test]
fn a_per_item_condition_of_a_comprehension_is_not_blamed_on_the_loop_bound() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("names")).unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        // Time enough for the search to reach the loop bound, however loaded the machine.
        "[project]\nname = \"names\"\nversion = \"0.1.0\"\n\n[tool.lacuna.budget]\nfunction-time-ms = 20000\nstall-share = 1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("names/__init__.py"), "").unwrap();
    std::fs::write(
        dir.path().join("names/display.py"),
        "def display_name(text: str) -> str:\n    \"\"\"`text` with characters outside the basic multilingual plane replaced by `?`, at\n    most 40 characters.\"\"\"\n    text = \"\".join(\"?\" if ord(c) > 0xFFFF else c for c in text)\n    if len(text) > 40:\n        text = text[:40]\n    return text.strip()\n",
    )
    .unwrap();
    // The same over several lines: the per-item condition is not on its iterable's line.
    std::fs::write(
        dir.path().join("names/banner.py"),
        "def banner(text: str) -> str:\n    text = \"\".join(\n        \"?\" if ord(c) > 0xFFFF else c\n        for c in text\n    )\n    if len(text) > 40:\n        text = text[:40]\n    return text.strip()\n",
    )
    .unwrap();
    let out = check(dir.path(), &["--format", "json", "."], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let causes: Vec<(String, u64, String)> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let path = f["path"].as_str().unwrap().to_owned();
            f["diagnostics"].as_array().unwrap().iter().map(move |d| {
                (
                    path.clone(),
                    d["line"].as_u64().unwrap(),
                    d["data"]["cause"].to_string(),
                )
            })
        })
        .collect();
    let per_item_line = |path: &str| if path.ends_with("banner.py") { 3 } else { 4 };
    for module in ["names/display.py", "names/banner.py"] {
        // The side after the loop is covered (a mutation padded to 41 characters) or
        // explained by the bound, depending on how far the search got; the per-item one never
        // by the bound.
        let per_item: Vec<&String> = causes
            .iter()
            .filter(|(path, line, _)| path == module && *line == per_item_line(path))
            .map(|(_, _, cause)| cause)
            .collect();
        assert_eq!(per_item, ["\"solver-limit\""], "{module}: {}", stdout(&out));
    }
    assert!(
        causes
            .iter()
            .all(|(path, line, cause)| *line == per_item_line(path) || cause == "\"boundary\""),
        "{causes:?}"
    );
}

/// A decision whose value is returned (`return value == "4242" and pattern.match(value)`) is
/// taken when its last operand is true; the truth of a regular expression's match, which an
/// external call returned, is read (C code runs, no project code), and the side is covered.
/// The truth of an object whose `__bool__` is the project's Python is never run to read it.
#[test]
fn a_returned_match_takes_the_true_side_of_the_decision_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("cards")).unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"cards\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("cards/__init__.py"), "").unwrap();
    std::fs::write(
        dir.path().join("cards/visa.py"),
        "import re\n\n\nclass Flag:\n    def __bool__(self):\n        raise RuntimeError(\"the project's __bool__ ran\")\n\n\ndef is_visa(value: str):\n    pattern = re.compile(r\"^4\")\n    return value == \"4242\" and pattern.match(value)\n\n\ndef flagged(value: str):\n    return value == \"on\" and Flag()\n",
    )
    .unwrap();
    let out = check(dir.path(), &["--format", "json", "."], &[]);
    let doc = json(&out);
    let file = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "cards/visa.py")
        .unwrap();
    let functions = file["functions"].as_array().unwrap();
    let covered = |name: &str| {
        let f = functions.iter().find(|f| f["name"] == name).unwrap();
        (
            f["branches"]["covered"].as_u64().unwrap(),
            f["branches"]["total"].as_u64().unwrap(),
        )
    };
    assert_eq!(covered("is_visa"), (2, 2), "{}", stdout(&out));
    // Its false side only: reading the true side's truth would run the project's `__bool__`.
    assert_eq!(covered("flagged"), (1, 2), "{}", stdout(&out));
}

/// A version or platform check is decided by the Python the tests run under: its other side is
/// said to depend on the interpreter, read directly, through `from sys import`, or through a
/// module constant computed from it — never "module state generated inputs do not set".
#[test]
fn a_version_or_platform_check_is_explained_by_the_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"compat\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("compat.py"),
        "import sys\nfrom sys import platform\n\nPY2 = sys.version_info[0] == 2\nCACHE = {}\n\n\ndef newest(x: int) -> int:\n    if sys.version_info >= (3, 4):\n        return x\n    return -x\n\n\ndef legacy(x: int) -> int:\n    if PY2:\n        return -x\n    return x\n\n\ndef windows(x: int) -> int:\n    if platform == \"win32\":\n        return -x\n    return x\n\n\ndef cached(x: int) -> int:\n    if CACHE:\n        return -x\n    return x\n",
    )
    .unwrap();
    let out = check(dir.path(), &["compat.py"], &[]);
    let text = stdout(&out);
    let messages: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("warning[") || l.starts_with("info["))
        .collect();
    insta::assert_snapshot!(messages.join("\n"));
}
