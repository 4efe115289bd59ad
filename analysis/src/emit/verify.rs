//! Checking emitted tests under real pytest, with the project's interpreter: a test whose
//! assertion fails outside the generator (its return value depended on state the inputs do not
//! fix, such as a class-level counter, or on the hash seed of strings) loses the assertion; a
//! test that still fails is dropped. What is left passes. pytest runs confined as workers are
//! (`sandbox`), in a scratch directory of its own, with a time limit per test and one for the
//! whole run.

use super::python::TestFile;
use crate::sandbox::{self, Policy};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The time one emitted test may take under pytest.
const TEST_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verification {
    /// Tests kept as generated.
    pub passed: usize,
    /// Tests kept without their assertion.
    pub weakened: Vec<String>,
    /// Tests dropped.
    pub dropped: Vec<String>,
    /// Why verification could not run (pytest missing…), when it could not.
    pub skipped: Option<String>,
}

/// Writes `files` into `dir`, runs them, repairs, and leaves only passing tests on disk.
/// `sandbox` is the policy of the project's workers; the check gets a scratch directory of its
/// own.
pub fn verify(
    python: &Path,
    import_roots: &[PathBuf],
    dir: &Path,
    files: &mut Vec<TestFile>,
    sandbox: &Policy,
) -> std::io::Result<Verification> {
    std::fs::create_dir_all(dir)?;
    let mut report = Verification::default();
    write_all(dir, files)?;
    for round in 0..2 {
        let tests = files.iter().map(|f| f.tests.len()).sum::<usize>();
        let failures = match run_pytest(python, import_roots, dir, sandbox, tests) {
            Ok(f) => f,
            Err(Unchecked::Hung(why)) => {
                // Nothing unchecked is left on disk.
                for file in files.drain(..) {
                    let _ = std::fs::remove_file(dir.join(&file.name));
                }
                report.skipped = Some(why);
                return Ok(report);
            }
            Err(Unchecked::Other(why)) => {
                report.skipped = Some(why);
                return Ok(report);
            }
        };
        if failures.is_empty() {
            break;
        }
        for file in files.iter_mut() {
            file.tests.retain_mut(|t| {
                if !failures
                    .iter()
                    .any(|(f, n)| *f == file.name && *n == t.name)
                {
                    return true;
                }
                if round == 0 && !t.weakened && t.without_assertion.is_some() {
                    t.weakened = true;
                    report.weakened.push(t.name.clone());
                    true
                } else {
                    report.dropped.push(t.name.clone());
                    false
                }
            });
        }
        files.retain(|f| !f.tests.is_empty());
        // Files left empty are removed from disk.
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with("test_lacuna_") && !files.iter().any(|f| f.name == name) {
                std::fs::remove_file(path)?;
            }
        }
        write_all(dir, files)?;
    }
    report.weakened.retain(|n| !report.dropped.contains(n));
    report.passed = files
        .iter()
        .flat_map(|f| &f.tests)
        .filter(|t| !t.weakened)
        .count();
    Ok(report)
}

fn write_all(dir: &Path, files: &[TestFile]) -> std::io::Result<()> {
    for f in files {
        std::fs::write(dir.join(&f.name), f.render())?;
    }
    Ok(())
}

enum Unchecked {
    /// The run did not end within its time limit and was killed.
    Hung(String),
    Other(String),
}

impl From<String> for Unchecked {
    fn from(why: String) -> Unchecked {
        Unchecked::Other(why)
    }
}

/// Runs pytest on `dir`, confined; the failing tests as (file name, test name).
fn run_pytest(
    python: &Path,
    import_roots: &[PathBuf],
    dir: &Path,
    sandbox: &Policy,
    tests: usize,
) -> Result<Vec<(String, String)>, Unchecked> {
    let agent = crate::agent::embed::install(&crate::agent::embed::cache_dir())
        .map_err(|e| format!("cannot write the agent: {e}"))?;
    let mut roots = vec![agent];
    roots.extend(import_roots.iter().cloned());
    let path = std::env::join_paths(&roots).map_err(|e| e.to_string())?;
    let scratch = crate::generation::scratch_directory()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let policy = Policy {
        scratch: scratch.path().to_owned(),
        ..sandbox.clone()
    };
    let mut command = Command::new(python);
    command
        .args([
            "-m",
            "pytest",
            "-q",
            "-rfE",
            "--tb=no",
            "-p",
            "no:cacheprovider",
            "-p",
            "lacuna_agent.pytest_limits",
            "--rootdir",
        ])
        .arg(dir)
        .arg(dir)
        .env("PYTHONPATH", path)
        // Workers hash strings with the seed 0: a result that depends on it (`hash(name)`, the
        // order of a set of texts) fails here, under another seed, and loses its assertion,
        // rather than passing or failing for a user by the seed of their run.
        .env("PYTHONHASHSEED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("LACUNA_TEST_TIMEOUT", TEST_TIMEOUT.as_secs().to_string());
    sandbox::confine(&mut command, &policy).map_err(|e| e.to_string())?;
    let limit = run_limit(tests);
    let out = sandbox::run_with_timeout(command, limit)
        .map_err(|e| format!("cannot run pytest with {}: {e}", python.display()))?;
    if out.timed_out {
        return Err(Unchecked::Hung(format!(
            "pytest did not finish checking the emitted tests within {}s; none were written",
            limit.as_secs()
        )));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named pytest") {
        return Err(format!("pytest is not installed for {}", python.display()).into());
    }
    let mut failures = vec![];
    for line in stdout.lines() {
        let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        else {
            continue;
        };
        let id = rest.split(" - ").next().unwrap_or(rest).trim();
        if let Some((file, test)) = id.split_once("::") {
            let file = Path::new(file)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            failures.push((file, test.to_owned()));
        } else {
            // A file that fails to import fails every test in it.
            let file = Path::new(id)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            failures.push((file, String::new()));
        }
    }
    // Whole-file errors: every test of the file.
    let whole: Vec<String> = failures
        .iter()
        .filter(|(_, t)| t.is_empty())
        .map(|(f, _)| f.clone())
        .collect();
    if !whole.is_empty() {
        return Err(Unchecked::Other(format!(
            "pytest could not collect {}: {}",
            whole.join(", "),
            stdout.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
        )));
    }
    if !out.status.is_some_and(|s| s.success()) && failures.is_empty() {
        return Err(Unchecked::Other(format!(
            "pytest failed: {}",
            stdout.lines().rev().take(3).collect::<Vec<_>>().join(" | ")
        )));
    }
    Ok(failures)
}

/// The time the whole check may take: each test's limit would be far too long for a large run,
/// so a minute plus two seconds a test, at most ten minutes.
fn run_limit(tests: usize) -> Duration {
    Duration::from_secs((60 + 2 * tests as u64).min(600))
}
