//! Where the project's tests may be when the places the run looked in hold none: the files below
//! the root whose names say "test" (`test*.py`, `*_test.py`, `*_tests.py`), each as the entry
//! of `[tool.lacuna] tests` that would run it — its `tests`/`test` directory when pytest's
//! default patterns collect it there, the file itself otherwise (pytest collects a file it is
//! given whatever its name). A bounded walk that skips what discovery skips (ignored files,
//! hidden directories, virtual environments, files Lacuna emitted).

use crate::config::Config;
use crate::workspace::{TEST_DIRECTORIES, emitted_by_lacuna, is_test_file};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Directories deeper than this below the root are not looked in.
const DEPTH: usize = 6;
/// Files looked at before the walk gives up.
const FILES: usize = 20_000;
/// Places suggested at most.
const SHOWN: usize = 5;

/// What a run that found none of the project's tests says (after `your tests: `): where it
/// looked, and the files that look like tests with the `[tool.lacuna] tests` entry that would
/// run them. Paths relative to the project's root, as `tests` takes them.
pub fn none_found(config: &Config) -> String {
    let relative = |p: &Path| {
        p.strip_prefix(&config.root)
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let quoted = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| format!("`{}`", relative(p)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let existing: Vec<PathBuf> = config
        .tests
        .iter()
        .filter(|p| p.exists())
        .cloned()
        .collect();
    let looked = if existing.is_empty() {
        let verb = if config.tests.len() == 1 {
            "does"
        } else {
            "do"
        };
        format!("none found: {} {verb} not exist", quoted(&config.tests))
    } else {
        format!("pytest collected none in {}", quoted(&existing))
    };
    let configured = if config.tests_configured {
        "`[tool.lacuna] tests`"
    } else {
        "where pytest run at the project root looks"
    };
    let likely = likely_tests(config);
    let advice = if likely.is_empty() {
        "set `[tool.lacuna] tests` to where they are".to_owned()
    } else {
        let entries: Vec<String> = likely
            .iter()
            .map(|p| format!("\"{}\"", relative(p)))
            .collect();
        let (verb, them) = if likely.len() == 1 {
            ("looks", "it")
        } else {
            ("look", "them")
        };
        format!(
            "{} {verb} like tests: `[tool.lacuna] tests = [{}]` runs {them}",
            quoted(&likely),
            entries.join(", ")
        )
    };
    format!(
        "{looked} ({configured}); {advice} — suspicious assertions (LCN300) and the inputs your tests pass need them"
    )
}

/// The places (absolute) that look like the project's tests and are not among `config.tests`.
pub fn likely_tests(config: &Config) -> Vec<PathBuf> {
    let configured = config.tests.clone();
    let walker = ignore::WalkBuilder::new(&config.root)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .max_depth(Some(DEPTH))
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if !is_dir || entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            !matches!(
                name.as_ref(),
                "node_modules" | "site-packages" | "__pycache__"
            ) && !entry.path().join("pyvenv.cfg").is_file()
                && !configured.iter().any(|c| c == entry.path())
        })
        .build();
    let mut places = BTreeSet::new();
    for entry in walker.flatten().take(FILES) {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) || config.tests.iter().any(|c| c == path)
        {
            continue;
        }
        if let Some(place) = place_of(path)
            && !emitted_by_lacuna(path)
        {
            places.insert(place);
        }
    }
    places.into_iter().take(SHOWN).collect()
}

/// The entry of `tests` that would run the file at `path`, when its name says it is a test.
fn place_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".py")?;
    if !(stem.starts_with("test") || stem.ends_with("_test") || stem.ends_with("_tests")) {
        return None;
    }
    let parent = path.parent()?;
    let in_test_directory = parent
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| TEST_DIRECTORIES.contains(&n));
    Some(if in_test_directory && is_test_file(path) {
        parent.to_owned()
    } else {
        path.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_file_pytest_would_not_collect_is_suggested_itself_a_collected_one_by_its_directory() {
        let root = tempfile::tempdir().unwrap();
        let at = |p: &str| {
            let path = root.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "def test_x():\n    pass\n").unwrap();
        };
        at("pkg/__init__.py");
        at("pkg/tests/testparse.py");
        at("pkg/tests/helpers.py");
        at("other/tests/test_a.py");
        at("other/tests/test_b.py");
        at("check_test.py");
        at(".venv/lib/test_site.py");
        std::fs::write(root.path().join(".venv/pyvenv.cfg"), "").unwrap();
        at("vendored/test_skip.py");
        std::fs::write(root.path().join(".gitignore"), "vendored/\n").unwrap();
        let config = Config::defaults(root.path());
        let found: Vec<String> = likely_tests(&config)
            .iter()
            .map(|p| p.strip_prefix(root.path()).unwrap().display().to_string())
            .collect();
        // `check_test.py` is where the run looks already (pytest collects it at the root).
        assert!(config.tests.contains(&root.path().join("check_test.py")));
        assert_eq!(found, ["other/tests", "pkg/tests/testparse.py"]);
    }
}
