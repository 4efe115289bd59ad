//! The project's own suite run under real pytest inside a confined worker: what its passing
//! tests show of the project's functions (program points, coverage profiles, call sequences,
//! the functions each test reached), on a fixture project with `conftest.py` fixtures,
//! parametrize, a test class, a `unittest.TestCase`, `tmp_path`, a failing test, a skip and an
//! xfail.

#[path = "support/agent.rs"]
mod support;

use lacuna_analysis::config::Config;
use lacuna_analysis::suite::{self, Outcome, SuiteRuns};
use std::path::{Path, PathBuf};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "__pycache__" || entry.file_name() == ".pytest_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn fixture(dir: &Path) -> PathBuf {
    let root = std::fs::canonicalize(dir).unwrap().join("ledger");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/suite"),
        &root,
    );
    root
}

fn run_suite(root: &Path, home: &Path) -> SuiteRuns {
    let config = Config::load(&root.join("pyproject.toml")).unwrap();
    let pool = support::pool(root, home, 1);
    suite::run(&pool, &config)
}

#[test]
fn passing_tests_are_observed_and_the_others_only_counted() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = fixture(dir.path());
    let runs = run_suite(&root, home.path());
    assert_eq!(runs.failure, None);
    assert!(runs.collection_errors.is_empty());
    let counts: Vec<(Outcome, usize)> = runs.counts().into_iter().collect();
    assert_eq!(
        counts,
        [
            (Outcome::Passed, 11),
            (Outcome::Failed, 1),
            (Outcome::Skipped, 1),
            (Outcome::Xfailed, 1)
        ]
    );
    // Test impact: the tests to run again when `fee` or `write_statement` changes.
    assert_eq!(
        runs.tests_reaching("ledger.account:fee"),
        [
            "tests/test_account.py::test_fee[5-False-0]",
            "tests/test_account.py::test_fee[500-False-6]",
            "tests/test_account.py::test_fee[500-True-0]"
        ]
    );
    assert_eq!(
        runs.tests_reaching("ledger.export:write_statement"),
        ["tests/test_account.py::test_statement"]
    );
    // The failing test reached `balance` but feeds nothing.
    let failed = runs
        .tests
        .iter()
        .find(|t| t.outcome == Outcome::Failed)
        .unwrap();
    assert!(failed.reached.is_empty());
    assert!(
        failed
            .message
            .as_deref()
            .unwrap()
            .contains("assert 100 == 99")
    );

    let mut observations = runs.observations.clone();
    for f in &mut observations.functions {
        f.file = Path::new(&f.file)
            .strip_prefix(&root)
            .unwrap()
            .display()
            .to_string();
        // The first two samples of each point are enough to read; the counts say the rest.
        f.entry.samples.truncate(2);
        f.exit.samples.truncate(2);
        f.entry.tests.truncate(2);
        f.exit.tests.truncate(2);
        f.exit.sides.truncate(2);
    }
    insta::assert_debug_snapshot!(observations);
}
