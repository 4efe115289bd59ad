//! What coverage.py measures when real pytest runs the tests Lacuna emitted: the independent
//! measure the generated tests' coverage is checked against.

#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs the tests in `tests` under coverage.py with branch coverage of `source`, `pythonpath`
/// on the import path and `home` as HOME, from `tests`; panics when a test fails. Returns
/// coverage.py's JSON report.
pub fn measured(
    python: &Path,
    tests: &Path,
    source: &Path,
    pythonpath: &Path,
    home: &Path,
) -> serde_json::Value {
    let data = tests.join(".coverage");
    let run = Command::new(python)
        .args(["-m", "coverage", "run", "--branch", "--data-file"])
        .arg(&data)
        .arg(format!("--source={}", source.display()))
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(tests)
        .env("PYTHONPATH", pythonpath)
        .env("HOME", home)
        .current_dir(tests)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "emitted tests fail under pytest:\n{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let json = tests.join("coverage.json");
    let report = Command::new(python)
        .args(["-m", "coverage", "json", "--data-file"])
        .arg(&data)
        .arg("-o")
        .arg(&json)
        .current_dir(tests)
        .output()
        .unwrap();
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}
