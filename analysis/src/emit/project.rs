//! Emitting the tests of a whole generation run: one pytest file per module, checked under
//! pytest, and the tests that survived — by which coverage claims are then judged.

use super::python::{FunctionTests, NotEmitted, TestFile, module_tests};
use super::verify::{Verification, verify};
use crate::explore::search::{Exploration, GeneratedTest};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Per (module, function qualified name), the indices of the generated tests that were kept.
pub type KeptTests = BTreeMap<(String, String), BTreeSet<usize>>;

/// One explored function, as emission sees it.
pub struct Explored<'a> {
    pub module: &'a str,
    pub qualname: &'a str,
    pub exploration: &'a Exploration,
}

pub struct Emitted {
    pub files: Vec<TestFile>,
    pub verification: Verification,
    pub kept: KeptTests,
    /// Tests left out for a side effect their run attempted.
    pub not_emitted: Vec<NotEmitted>,
}

/// Writes the tests of `functions` (in source order) into `dir`, checked with `python`.
pub fn emit_project(
    functions: &[Explored<'_>],
    python: &Path,
    import_roots: &[PathBuf],
    dir: &Path,
    sandbox: &crate::sandbox::Policy,
) -> std::io::Result<Emitted> {
    let mut modules: Vec<(&str, Vec<FunctionTests<'_>>)> = vec![];
    for f in functions {
        let tests: Vec<&GeneratedTest> = f.exploration.tests.iter().collect();
        match modules.iter_mut().find(|(m, _)| *m == f.module) {
            Some((_, list)) => list.push((f.qualname.to_owned(), tests)),
            None => modules.push((f.module, vec![(f.qualname.to_owned(), tests)])),
        }
    }
    let mut not_emitted = vec![];
    let mut files: Vec<(String, TestFile)> = modules
        .iter()
        .filter_map(|(module, list)| {
            Some((
                module.to_string(),
                module_tests(module, list, &mut not_emitted)?,
            ))
        })
        .collect();
    std::fs::create_dir_all(dir)?;
    write_support(dir, import_roots)?;
    let mut just_files: Vec<TestFile> = files.iter().map(|(_, f)| f.clone()).collect();
    let verification = verify(python, import_roots, dir, &mut just_files, sandbox)?;
    files.retain(|(_, f)| just_files.iter().any(|k| k.name == f.name));
    let mut kept = KeptTests::new();
    for ((module, _), file) in files.iter().zip(&just_files) {
        for t in &file.tests {
            kept.entry((module.clone(), t.origin.0.clone()))
                .or_default()
                .insert(t.origin.1);
        }
    }
    Ok(Emitted {
        files: just_files,
        verification,
        kept,
        not_emitted,
    })
}

/// What makes the emission directory part of the project's own `pytest` run, wherever it is:
/// a `conftest.py` that puts the project's import roots first on `sys.path` (so that the
/// tests import the modules as they were checked, with or without the project's `pythonpath`
/// setting or an install), and an `__init__.py` (so that pytest imports the tests as
/// `<dir>.test_lacuna_…`, and a file of the same name elsewhere in the project is no "import
/// file mismatch"). Both start with [`EMITTED_MARKER`](super::EMITTED_MARKER); a
/// `conftest.py` or `__init__.py` the project wrote there itself is left alone.
pub fn write_support(dir: &Path, import_roots: &[PathBuf]) -> std::io::Result<()> {
    let ours = |path: &Path| match std::fs::read_to_string(path) {
        Ok(text) => text.starts_with(super::EMITTED_MARKER),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    let base = std::fs::canonicalize(dir)?;
    let roots: Vec<String> = import_roots
        .iter()
        .map(|root| {
            let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            let mut literal = String::new();
            crate::symbolic::python_str_literal(&mut literal, &relative(&base, &root));
            literal
        })
        .collect();
    let conftest = dir.join("conftest.py");
    if ours(&conftest) {
        std::fs::write(
            &conftest,
            format!(
                "{marker}\n\"\"\"Lets the tests Lacuna emitted here import the project's modules under a plain\n`pytest` run: puts the project's import roots first on `sys.path`.\n\"\"\"\n\nimport os\nimport sys\n\n_HERE = os.path.dirname(os.path.abspath(__file__))\nfor _root in reversed([{roots}]):\n    _path = os.path.normpath(os.path.join(_HERE, _root))\n    if _path in sys.path:\n        sys.path.remove(_path)\n    sys.path.insert(0, _path)\n",
                marker = super::EMITTED_MARKER,
                roots = roots.join(", "),
            ),
        )?;
    }
    let package = base
        .file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| {
            n.chars()
                .next()
                .is_some_and(|c| c == '_' || c.is_alphabetic())
                && n.chars().all(|c| c == '_' || c.is_alphanumeric())
        });
    let init = dir.join("__init__.py");
    if package && ours(&init) {
        std::fs::write(&init, format!("{}\n", super::EMITTED_MARKER))?;
    }
    Ok(())
}

/// `to` relative to the directory `from` (both absolute), with `..` where needed.
fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn relative_paths_climb_then_descend() {
        let r = |a: &str, b: &str| relative(Path::new(a), Path::new(b));
        assert_eq!(r("/p/tests/generated", "/p"), "../..");
        assert_eq!(r("/p/tests/generated", "/p/src"), "../../src");
        assert_eq!(r("/p", "/p"), ".");
        assert_eq!(r("/tmp/out", "/p/src"), "../../p/src");
    }

    #[test]
    fn the_conftest_names_the_roots_relative_to_itself() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("tests/generated")).unwrap();
        let dir = root.join("tests/generated");
        write_support(&dir, &[root.join("src"), root.join(".")]).unwrap();
        let text = std::fs::read_to_string(dir.join("conftest.py")).unwrap();
        insta::assert_snapshot!(text);
        // The user's own conftest is theirs.
        std::fs::write(dir.join("conftest.py"), "import pytest\n").unwrap();
        write_support(&dir, &[root.join("src")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("conftest.py")).unwrap(),
            "import pytest\n"
        );
    }
}
