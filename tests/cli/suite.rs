//! The project's own suite as `lacuna check` observes it, against coverage.py: the branch sides
//! Lacuna says the passing tests take are the arcs coverage.py records when pytest runs those
//! same tests, side by side, on `examples/` and on the ledger fixture (fixtures, parametrize, a
//! test class, a `unittest.TestCase`, a generator only the suite runs).

use super::{example, stderr, stdout};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What one project's comparison found.
#[derive(Debug, Default)]
struct Comparison {
    /// Sides matched to one of coverage.py's arcs.
    compared: usize,
    /// Of those, the sides the suite takes.
    taken: usize,
    /// Sides coverage.py has no arc of their own for (asserts, conditional expressions,
    /// comprehension conditions, two decisions on a line).
    unattributable: usize,
    /// `function line side: lacuna … coverage.py …` for every side the two disagree on.
    differences: Vec<String>,
    /// Functions with a side compared.
    functions: BTreeSet<String>,
}

fn compare(root: &Path) -> Comparison {
    let home = tempfile::tempdir().unwrap();
    let out = example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna")).args(["check", "--format", "json"]),
        home.path(),
    )
    .current_dir(root)
    .output()
    .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let passing: Vec<&str> = doc["suite"]["tests"]
        .as_array()
        .expect("the suite ran")
        .iter()
        .filter(|t| t["outcome"] == "passed")
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(!passing.is_empty());

    // coverage.py on the tests Lacuna saw pass, and on nothing else.
    let data = home.path().join(".coverage");
    let json = home.path().join("coverage.json");
    let run = Command::new(example::python())
        .args(["-m", "coverage", "run", "--branch", "--data-file"])
        .arg(&data)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(&passing)
        .env("HOME", home.path())
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the passing tests pass under coverage.py:\n{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let report = Command::new(example::python())
        .args(["-m", "coverage", "json", "--data-file"])
        .arg(&data)
        .arg("-o")
        .arg(&json)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    let coverage: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();

    let mut found = Comparison::default();
    for file in doc["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        let Some(theirs) = coverage["files"].get(path) else {
            continue;
        };
        let arcs = |key: &str| -> Vec<(i64, i64)> {
            theirs[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| (a[0].as_i64().unwrap(), a[1].as_i64().unwrap()))
                .collect()
        };
        let executed: BTreeSet<(i64, i64)> = arcs("executed_branches").into_iter().collect();
        let mut by_line: BTreeMap<i64, Vec<(i64, i64)>> = BTreeMap::new();
        for arc in arcs("executed_branches")
            .into_iter()
            .chain(arcs("missing_branches"))
        {
            by_line.entry(arc.0).or_default().push(arc);
        }
        let functions = file["functions"].as_array().unwrap();
        let mut decisions_on_line: BTreeMap<i64, BTreeSet<String>> = BTreeMap::new();
        let sides_of = |f: &serde_json::Value| f["sides"].as_array().cloned().unwrap_or_default();
        for s in functions.iter().flat_map(sides_of) {
            decisions_on_line
                .entry(s["line"].as_i64().unwrap())
                .or_default()
                .insert(s["decision"].as_str().unwrap().to_owned());
        }
        for f in functions {
            let name = f["name"].as_str().unwrap();
            let sides = sides_of(f);
            let mut by_decision: BTreeMap<&str, Vec<&serde_json::Value>> = BTreeMap::new();
            for s in &sides {
                by_decision
                    .entry(s["decision"].as_str().unwrap())
                    .or_default()
                    .push(s);
            }
            for pair in by_decision.values() {
                let line = pair[0]["line"].as_i64().unwrap();
                let candidates = by_line.get(&line).cloned().unwrap_or_default();
                let kind = pair[0]["kind"].as_str().unwrap();
                // The true side's first line picks its arc: `target_line`, or for a loop the
                // first line below it that an arc goes to.
                let first = pair[0]["target_line"].as_i64().or_else(|| {
                    (kind == "for" || kind == "while")
                        .then(|| candidates.iter().map(|a| a.1).filter(|&b| b > line).min())
                        .flatten()
                });
                let hit: Vec<&(i64, i64)> =
                    candidates.iter().filter(|a| Some(a.1) == first).collect();
                if pair.len() != 2
                    || candidates.len() != 2
                    || decisions_on_line[&line].len() != 1
                    || hit.len() != 1
                {
                    found.unattributable += pair.len();
                    continue;
                }
                let other = candidates.iter().find(|a| *a != hit[0]).unwrap();
                for (side, arc) in pair.iter().zip([hit[0], other]) {
                    let lacuna = side["suite"]
                        .as_bool()
                        .unwrap_or_else(|| panic!("{name} has no suite coverage: {side}"));
                    let theirs = executed.contains(arc);
                    found.compared += 1;
                    found.taken += usize::from(lacuna);
                    found.functions.insert(name.to_owned());
                    if lacuna != theirs {
                        found.differences.push(format!(
                            "{path} {name} line {line} {kind} {}: lacuna {lacuna}, coverage.py {theirs} (arc {arc:?})",
                            side["side"]
                        ));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn the_suites_branch_coverage_is_coverage_pys_on_the_same_passing_tests() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = compare(&example::suite_project(dir.path()));
    assert!(ledger.differences.is_empty(), "{:#?}", ledger.differences);
    // The conditional expression of `write_statement` has no arc of its own; a generator only
    // the suite runs is compared too.
    assert_eq!(
        (ledger.compared, ledger.taken, ledger.unattributable),
        (12, 11, 2),
        "{ledger:#?}"
    );
    assert!(ledger.functions.contains("Account.history"), "{ledger:#?}");

    let dir = tempfile::tempdir().unwrap();
    let examples = compare(&example::example_project(dir.path()));
    assert!(
        examples.differences.is_empty(),
        "{:#?}",
        examples.differences
    );
    assert!(examples.compared >= 20, "{examples:#?}");
}

/// `--suite-only` runs the project's own tests and reports what they take of every function,
/// generating nothing.
#[test]
fn the_suite_alone_reports_what_the_projects_tests_take() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = example::suite_project(dir.path());
    let run = |format: &str| {
        let out = example::isolate(
            Command::new(env!("CARGO_BIN_EXE_lacuna")).args([
                "check",
                "--suite-only",
                "--format",
                format,
            ]),
            home.path(),
        )
        .current_dir(&root)
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out.stdout
    };
    let doc: serde_json::Value = serde_json::from_slice(&run("json")).unwrap();
    assert_eq!(doc["generation"]["executions"], 0, "{}", doc["generation"]);
    let outcomes: BTreeMap<&str, &str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .filter_map(|f| Some((f["name"].as_str()?, f["outcome"].as_str()?)))
        .collect();
    assert_eq!(outcomes["fee"], "suite-only", "{outcomes:?}");
    assert_eq!(outcomes["Account.history"], "suite-only", "{outcomes:?}");
    insta::assert_snapshot!(String::from_utf8(run("text")).unwrap());
}

/// The interpreter of a throw-away project.
enum Interpreter {
    /// None of its own: the one on PATH.
    Path,
    /// A `.venv` that is the test interpreter's (pytest and coverage installed).
    TestVenv,
    /// A `.venv` without pytest.
    WithoutPytest,
}

const WORDS: &str = "def plural(n):\n    if n == 1:\n        return ''\n    return 's'\n";
const TEST_WORDS: &str =
    "from words import plural\n\ndef test_one():\n    assert plural(1) == ''\n";

/// `lacuna check --suite-only` run at the root of a throw-away project that holds `files` and
/// no configuration.
fn suite_only(files: &[(&str, &str)], python: Interpreter) -> Output {
    suite_only_in(tempfile::tempdir().unwrap().path(), files, python)
}

/// `suite_only` in `dir` (an empty directory), which is left for the caller to look into.
fn suite_only_in(dir: &Path, files: &[(&str, &str)], python: Interpreter) -> Output {
    let home = tempfile::tempdir().unwrap();
    project_in(dir, files, python);
    example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna")).args(["check", "--suite-only"]),
        home.path(),
    )
    .current_dir(dir)
    .output()
    .unwrap()
}

/// A throw-away project in `dir`: `files`, and the interpreter `python` as its `.venv`.
fn project_in(dir: &Path, files: &[(&str, &str)], python: Interpreter) {
    match python {
        Interpreter::Path => {}
        Interpreter::TestVenv => {
            let python = PathBuf::from(example::python());
            let venv = python.parent().and_then(Path::parent).unwrap();
            assert!(
                venv.join("pyvenv.cfg").exists(),
                "LACUNA_TEST_PYTHON must be a venv's python"
            );
            std::os::unix::fs::symlink(venv, dir.join(".venv")).unwrap();
        }
        Interpreter::WithoutPytest => {
            let made = Command::new(example::python())
                .args(["-m", "venv", "--without-pip", ".venv"])
                .current_dir(dir)
                .status()
                .unwrap();
            assert!(made.success());
        }
    }
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// `--suite-only` where `tests` names nothing that exists says so and fails, instead of
/// reporting that no test takes anything.
#[test]
fn the_suite_alone_without_tests_is_an_error() {
    let out = suite_only(&[("words.py", WORDS)], Interpreter::Path);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "--suite-only found no tests to run in `tests` (`[tool.lacuna] tests`); set it to where the project's tests are"
    );
}

/// Without configuration, the suite is where plain `pytest` at the root finds it: here a test
/// file beside the code (and the interpreter is the project's `.venv`, found by default).
#[test]
fn test_files_beside_the_code_are_the_suite_by_default() {
    let out = suite_only(
        &[("words.py", WORDS), ("test_words.py", TEST_WORDS)],
        Interpreter::TestVenv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

/// Plugins the project's environment loads and its `addopts` switches on, which cannot run
/// observed: pytest-cov (its coverage.py would replace the tracer and write `.coverage` into
/// the project) is switched off as `--no-cov` does, pytest-xdist's workers (other processes)
/// are not started and the tests run in the worker, as `-n 0` runs them. The suite is observed
/// as without them, and nothing is written into the project.
#[test]
fn coverage_and_worker_plugins_the_projects_options_ask_for_are_switched_off() {
    let dir = tempfile::tempdir().unwrap();
    let out = suite_only_in(
        dir.path(),
        &[
            ("words.py", WORDS),
            ("test_words.py", TEST_WORDS),
            (
                "setup.cfg",
                "[tool:pytest]\naddopts = --cov=words --cov-report=term-missing -n 2\n",
            ),
        ],
        Interpreter::TestVenv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    assert_contains!(stdout(&out), "plural:1  your tests take 1/2 branch sides");
    assert_nothing_of_coverage_in(dir.path());
}

/// No coverage.py data file (`.coverage`, `.coverage.*`) in `dir`.
fn assert_nothing_of_coverage_in(dir: &Path) {
    let written: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".coverage"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

/// The same plugins are off in the check of emitted tests under pytest, which runs with the
/// project's configuration: the tests are checked (xdist's workers would be refused by the
/// sandbox and nothing checked), and nothing is written into the project.
#[test]
fn the_check_of_emitted_tests_switches_them_off_too() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    project_in(
        dir.path(),
        &[
            ("words.py", WORDS),
            (
                "setup.cfg",
                "[tool:pytest]\naddopts = --cov=words --cov-fail-under=100 -n 2\n",
            ),
        ],
        Interpreter::TestVenv,
    );
    let out = example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna")).args(["check", "--emit-tests", "generated"]),
        home.path(),
    )
    .current_dir(dir.path())
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "checked under pytest: 2 as generated, 0 without their assertion, 0 left out"
    );
    assert_nothing_of_coverage_in(dir.path());
}

/// The tests that did not pass are named under the counts, each with the line of pytest's
/// report that says why (a test plain pytest passes may fail here, refused by the sandbox).
#[test]
fn the_tests_that_failed_are_named_with_their_reason() {
    let out = suite_only(
        &[
            ("words.py", WORDS),
            (
                "test_words.py",
                "from words import plural\n\ndef test_one():\n    assert plural(1) == ''\n\ndef test_two():\n    assert plural(2) == 'es'\n",
            ),
        ],
        Interpreter::TestVenv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = stderr(&out);
    let at = said
        .find("lacuna: your tests: 1 passed, 1 failed in ")
        .expect(&said);
    assert_contains!(
        &said[at..],
        " s\n  test_words.py::test_two failed: AssertionError: assert 's' == 'es'\n"
    );
}

/// An interpreter without pytest: `--suite-only` fails and says how to install it, rather than
/// reporting that the tests take no branch side.
#[test]
fn the_suite_alone_without_pytest_says_how_to_install_it() {
    let out = suite_only(
        &[("words.py", WORDS), ("test_words.py", TEST_WORDS)],
        Interpreter::WithoutPytest,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(
        text.contains(
            "--suite-only could not run the project's tests: pytest cannot be imported by "
        ) && text.contains("-m pip install pytest`) or set `[tool.lacuna] python`"),
        "{text}"
    );
    assert!(!text.contains("panicked"), "{text}");
}

/// A test whose run goes past the bound on branch events (here 500 frames, each a loop run a
/// different number of times: about 125,000 events, none repeating another frame's) is
/// recorded up to there, and the report says so.
#[test]
fn a_test_past_the_bound_on_events_is_reported() {
    let out = suite_only(
        &[
            (
                "steps.py",
                "def count(n):\n    k = 0\n    for _ in range(n):\n        k += 1\n    return k\n",
            ),
            (
                "test_steps.py",
                "from steps import count\n\ndef test_many():\n    assert [count(n) for n in range(500)] == list(range(500))\n",
            ),
        ],
        Interpreter::TestVenv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "lacuna: warning: 1 passing test took more than 100000 branch events in distinct frames and was recorded up to there (first: test_steps.py::test_many): what it covers may be more than reported"
    );
    assert_contains!(stdout(&out), "your tests take 2/2 branch sides");
}
