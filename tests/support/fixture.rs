//! A fixture project copied into a temporary directory (its generated state left behind), and
//! the test interpreter with its virtual environment.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Copies `from` to `to`, leaving out caches and Lacuna's store.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if ["__pycache__", ".pytest_cache", ".lacuna"]
            .iter()
            .any(|s| name == *s)
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `LACUNA_TEST_PYTHON` (a Python with pytest and coverage) and its virtual environment.
pub fn test_python() -> (PathBuf, PathBuf) {
    let python = PathBuf::from(
        std::env::var_os("LACUNA_TEST_PYTHON")
            .expect("LACUNA_TEST_PYTHON must name a Python with pytest and coverage"),
    );
    let venv = python.parent().unwrap().parent().unwrap().to_owned();
    (python, venv)
}
