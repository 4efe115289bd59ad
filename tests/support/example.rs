//! The bundled example project, the labelled causes corpus and the decision-forms fixture,
//! copied into a temporary directory for a test (their generated state left behind) and set to
//! run with the test interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn python() -> String {
    std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let skip = [
            ".lacuna",
            "__pycache__",
            ".pytest_cache",
            "lacuna_guidance.py",
        ];
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `examples/` copied to `dir/examples`, with `[tool.lacuna] python` set; returns its root.
#[allow(dead_code)]
pub fn example_project(dir: &Path) -> PathBuf {
    project_copy("examples", dir, "examples")
}

/// `tests/corpus/causes` copied to `dir/corpus`, with `[tool.lacuna] python` set; returns its
/// root. The corpus reads `TIDEPOOL_*` variables: whoever runs it must remove them.
#[allow(dead_code)]
pub fn corpus_project(dir: &Path) -> PathBuf {
    project_copy("tests/corpus/causes", dir, "corpus")
}

/// `tests/fixtures/decision_forms` (one function for every kind of decision) copied to
/// `dir/forms`, with `[tool.lacuna] python` set; returns its root.
#[allow(dead_code)]
pub fn decision_forms_project(dir: &Path) -> PathBuf {
    project_copy("tests/fixtures/decision_forms", dir, "forms")
}

/// `tests/fixtures/suite` (a small ledger with a pytest suite of fixtures, parametrize, a test
/// class, a `unittest.TestCase`, `tmp_path`, a failing test, a skip and an xfail) copied to
/// `dir/ledger`, with `[tool.lacuna] python` set; returns its root.
#[allow(dead_code)]
pub fn suite_project(dir: &Path) -> PathBuf {
    project_copy("tests/fixtures/suite", dir, "ledger")
}

/// `tests/fixtures/suspicious` (a small module with its own passing pytest suite, for suspicious
/// assertions) copied to `dir/paging`, with `[tool.lacuna] python` set; returns its root.
#[allow(dead_code)]
pub fn suspicious_project(dir: &Path) -> PathBuf {
    project_copy("tests/fixtures/suspicious", dir, "paging")
}

/// `command` set to run a copied project apart from the user's environment: `HOME` at `home`, no
/// cache directory or virtual environment inherited, no `TIDEPOOL_*` variable (the corpus reads
/// them).
#[allow(dead_code)]
pub fn isolate<'c>(command: &'c mut Command, home: &Path) -> &'c mut Command {
    command
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("VIRTUAL_ENV");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TIDEPOOL_") {
            command.env_remove(name);
        }
    }
    command
}

/// The project at `source` (relative to the repository) copied to `dir/name`, configured to
/// run with the test interpreter.
fn project_copy(source: &str, dir: &Path, name: &str) -> PathBuf {
    let root = std::fs::canonicalize(dir).unwrap().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(source),
        &root,
    );
    let pyproject = root.join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap();
    assert!(text.contains("[tool.lacuna]\n"), "{text}");
    let text = text.replacen(
        "[tool.lacuna]\n",
        &format!("[tool.lacuna]\npython = {:?}\n", python()),
        1,
    );
    std::fs::write(&pyproject, text).unwrap();
    root
}
