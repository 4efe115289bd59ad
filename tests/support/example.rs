//! The bundled example project, copied into a temporary directory for a test (its generated
//! state left behind) and set to run with the test interpreter.

use std::path::{Path, PathBuf};

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
pub fn example_project(dir: &Path) -> PathBuf {
    let root = std::fs::canonicalize(dir).unwrap().join("examples");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples"),
        &root,
    );
    let pyproject = root.join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap().replace(
        "[tool.lacuna]\n",
        &format!("[tool.lacuna]\npython = {:?}\n", python()),
    );
    std::fs::write(&pyproject, text).unwrap();
    root
}
