//! The run's time budget (`--budget`), the stop after a stall and the stop when every run
//! fails alike, on `tests/fixtures/budget`: two quick functions, one whose runs each wait on a
//! clock and whose true side no input reaches, one that fails before its first decision
//! whatever the input.

use super::{fixtures, stderr, stdout, test_python};
use std::path::Path;
use std::process::{Command, Output};

/// The fixture in a temporary directory, with `budget` added to its `[tool.lacuna.budget]`.
fn project(budget: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = fixtures().join("budget");
    std::fs::copy(from.join("tasks.py"), dir.path().join("tasks.py")).unwrap();
    let pyproject = std::fs::read_to_string(from.join("pyproject.toml")).unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        format!("{pyproject}{budget}\n"),
    )
    .unwrap();
    dir
}

fn check(dir: &Path, args: &[&str]) -> Output {
    let (_, venv) = test_python();
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .arg("check")
        .args(args)
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .env("NO_COLOR", "1")
        .current_dir(dir)
        .output()
        .expect("the lacuna binary runs")
}

/// Each function's name, outcome, what stopped it and why, from the JSON document.
fn outcomes(doc: &serde_json::Value) -> Vec<String> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap().iter())
        .map(|f| {
            format!(
                "{}: {} / {} / {}",
                f["name"].as_str().unwrap(),
                f["outcome"].as_str().unwrap_or("-"),
                f["stopped_by"].as_str().unwrap_or("-"),
                crate::timings::without_timings(f["stop_reason"].as_str().unwrap_or("-")),
            )
        })
        .collect()
}

/// With `--budget`, every function still has an outcome; the one whose runs wait on a clock
/// is stopped by its share of the run's budget (below its own `function-time-ms`) and says
/// so; the quick ones are covered within theirs.
#[test]
fn a_run_budget_is_shared_and_every_function_has_an_outcome() {
    let dir = project("function-time-ms = 20000\nstall-share = 1");
    let out = check(dir.path(), &["--format", "json", "--budget", "4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    insta::assert_snapshot!(outcomes(&doc).join("\n"), @r"
    size_class: explored / complete / -
    label: explored / complete / -
    region_rate: explored / same-failure / stopped after 20 runs in a row raised `KeyError: 'region'` at line 25 before reaching a decision, on every input tried
    wait_for: explored / run-budget / stopped by its share of the run's time budget (N ms): another run may differ
    ");
}

/// `run-time-s` in `[tool.lacuna.budget]` is the same budget; `--budget` must be a whole
/// number of seconds, at least 1.
#[test]
fn the_run_budget_is_read_from_the_configuration_and_checked_on_the_command_line() {
    let dir = project("function-time-ms = 20000\nstall-share = 1\nrun-time-s = 4");
    let out = check(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        outcomes(&doc).contains(
            &"wait_for: explored / run-budget / stopped by its share of the run's time budget (N ms): another run may differ".to_owned()
        ),
        "{:?}",
        outcomes(&doc)
    );
    let out = check(dir.path(), &["--budget", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_contains!(stderr(&out), "--budget");
}

/// A function whose runs find nothing new for `stall-share` of its time stops, and says so
/// as a stall — never as if everything were covered; the function whose every run raises
/// the same exception before its first decision stops and names the exception and its line.
#[test]
fn stalls_and_runs_failing_alike_are_their_own_stops() {
    let dir = project("stall-share = 0.2");
    let out = check(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = crate::timings::without_timings(&stdout(&out));
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains("branch sides"))
        .collect();
    insta::assert_snapshot!(lines.join("\n"), @r"
    size_class:10  4/4 branch sides covered (N executions, 3 tests, N ms), 4 branch sides, 2 decisions, 2 conditions, 0 MC/DC obligations
    label:18  2/2 branch sides covered (N executions, 3 tests, N ms), 2 branch sides, 1 decisions, 2 conditions, 4 MC/DC obligations
    region_rate:24  0/2 branch sides covered (N executions, 0 tests, N ms; stopped after 20 runs in a row raised `KeyError: 'region'` at line 25 before reaching a decision, on every input tried), 2 branch sides, 1 decisions, 1 conditions, 0 MC/DC obligations
    wait_for:31  1/2 branch sides covered (N executions, 1 tests, N ms; stopped after N ms without a new branch side: not every side is covered, another run may differ), 2 branch sides, 1 decisions, 1 conditions, 0 MC/DC obligations
    ");
    let out = check(dir.path(), &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    insta::assert_snapshot!(outcomes(&doc).join("\n"), @r"
    size_class: explored / complete / -
    label: explored / complete / -
    region_rate: explored / same-failure / stopped after 20 runs in a row raised `KeyError: 'region'` at line 25 before reaching a decision, on every input tried
    wait_for: explored / stalled / stopped after N ms without a new branch side: not every side is covered, another run may differ
    ");
}
