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
    let mut just_files: Vec<TestFile> = files.iter().map(|(_, f)| f.clone()).collect();
    std::fs::create_dir_all(dir)?;
    write_conftest(dir, import_roots)?;
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

/// The first line of the `conftest.py` Lacuna writes, by which it knows the file is its own.
pub const CONFTEST_MARK: &str = "# Written by Lacuna";

/// Writes `dir/conftest.py`, which puts the project's import roots (`src/` in a `src` layout,
/// the project root) on `sys.path`, so that `pytest` run from the project root imports the
/// modules by their package names whether or not the project is installed into the
/// environment (`pip install -e .`). A `conftest.py` of the user's own is left alone.
pub fn write_conftest(dir: &Path, import_roots: &[PathBuf]) -> std::io::Result<()> {
    let file = dir.join("conftest.py");
    if let Ok(existing) = std::fs::read_to_string(&file)
        && !existing.starts_with(CONFTEST_MARK)
    {
        return Ok(());
    }
    std::fs::write(file, conftest_source(dir, import_roots))
}

fn conftest_source(dir: &Path, import_roots: &[PathBuf]) -> String {
    let roots: Vec<String> = import_roots
        .iter()
        .map(|root| {
            let path = relative(dir, root).unwrap_or_else(|| root.clone());
            let text = path.to_string_lossy().replace('\\', "/");
            format!("{text:?}")
        })
        .collect();
    format!(
        "{CONFTEST_MARK}: the project's import roots, relative to this directory, go on `sys.path`\n\
         # (first), so that the generated tests import the project by its package names under a plain\n\
         # `pytest`, installed or not. Regenerated with the tests.\n\
         import os\n\
         import sys\n\
         \n\
         _HERE = os.path.dirname(os.path.abspath(__file__))\n\
         for _root in reversed(({})):\n\
         \x20   _root = os.path.normpath(os.path.join(_HERE, _root))\n\
         \x20   if _root not in sys.path:\n\
         \x20       sys.path.insert(0, _root)\n",
        roots.iter().map(|r| format!("{r}, ")).collect::<String>()
    )
}

/// `to` relative to the directory `from` (`../src`), both made absolute and canonical first.
fn relative(from: &Path, to: &Path) -> Option<PathBuf> {
    let from = std::fs::canonicalize(from).ok()?;
    let to = std::fs::canonicalize(to).ok()?;
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in from.components().skip(common) {
        out.push("..");
    }
    for c in to.components().skip(common) {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conftest_names_the_roots_relative_to_itself() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("tests/generated")).unwrap();
        let dir = root.join("tests/generated");
        write_conftest(&dir, &[root.join("src"), root.join(".")]).unwrap();
        let text = std::fs::read_to_string(dir.join("conftest.py")).unwrap();
        insta::assert_snapshot!(text);
        // The user's own conftest is theirs.
        std::fs::write(dir.join("conftest.py"), "import pytest\n").unwrap();
        write_conftest(&dir, &[root.join("src")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("conftest.py")).unwrap(),
            "import pytest\n"
        );
    }
}
