//! Emitting the tests of a whole generation run: one pytest file per module, checked under
//! pytest, and the tests that survived — by which coverage claims are then judged.

use super::python::{FunctionTests, NotEmitted, TestFile, module_tests};
use super::verify::{Verification, verify};
use crate::explore::exploration::{Exploration, GeneratedTest};
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
