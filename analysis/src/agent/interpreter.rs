//! Finding the project's interpreter: the configured one, else the active virtual environment,
//! else `.venv`/`venv` in the project, else `python3` on `PATH`. It must be CPython 3.9 or newer.
//! An interpreter inside the project (`.venv/bin/python`, its `site-packages` and `.pth` files) is
//! the project's code: it is probed confined, as workers run (`allow_unconfined` is the user's
//! opt-in where the kernel has no Landlock). One outside it (a command on `PATH`, an active
//! virtual environment elsewhere) is the user's own, probed as the user would run it — a wrapper
//! such as a pyenv shim needs to start processes — and the interpreter workers run is the one it
//! reports, `sys.executable`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreter {
    pub path: PathBuf,
    pub version: (u32, u32, u32),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InterpreterError {
    #[error("no Python interpreter found (tried {0}); set `python` in [tool.lacuna]")]
    NotFound(String),
    #[error("{0}")]
    Refused(String),
    #[error("`{path}` does not run: {why}")]
    DoesNotRun { path: String, why: String },
    #[error("`{path}` is Python {version}; Lacuna needs CPython 3.9 or newer")]
    TooOld { path: String, version: String },
}

/// The interpreter to run the project's code with.
pub fn discover(
    project_root: &Path,
    configured: Option<&Path>,
    allow_unconfined: bool,
) -> Result<Interpreter, InterpreterError> {
    let candidates = candidates(project_root, configured);
    let configured_only = configured.is_some();
    let mut tried = vec![];
    for candidate in candidates {
        let is_command = candidate.components().count() == 1;
        if !is_command && !candidate.is_file() {
            tried.push(candidate.display().to_string());
            continue;
        }
        let inside = !is_command
            && std::path::absolute(&candidate).is_ok_and(|p| {
                p.starts_with(project_root) || p.starts_with(canonical(project_root))
            });
        let probed = if inside {
            probe_confined(&candidate, allow_unconfined)
        } else {
            probe_unconfined(&candidate)
        };
        match probed {
            Ok(interpreter) => return Ok(interpreter),
            Err(e @ InterpreterError::Refused(_)) => return Err(e),
            Err(e) if configured_only => return Err(e),
            Err(InterpreterError::TooOld { .. }) if !is_command => {
                tried.push(candidate.display().to_string())
            }
            Err(e @ InterpreterError::TooOld { .. }) => return Err(e),
            Err(_) => tried.push(candidate.display().to_string()),
        }
    }
    Err(InterpreterError::NotFound(tried.join(", ")))
}

/// The interpreters [`discover`] tries, in order: the configured one alone, or `$VIRTUAL_ENV`'s,
/// the project's `.venv/` and `venv/`, then `python3` from `PATH`.
fn candidates(project_root: &Path, configured: Option<&Path>) -> Vec<PathBuf> {
    if let Some(p) = configured {
        return vec![p.to_owned()];
    }
    let mut out = vec![];
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        out.push(PathBuf::from(venv).join("bin/python"));
    }
    for dir in [".venv", "venv"] {
        out.push(project_root.join(dir).join("bin/python"));
    }
    out.push(PathBuf::from("python3"));
    out
}

/// The interpreter [`discover`] would pick when it runs, told without running anything (the
/// first of its candidates that exists): cheap enough to ask on every save, for what results
/// are keyed by. It differs from `discover`'s only when that candidate does not run or is too
/// old.
pub fn likely(project_root: &Path, configured: Option<&Path>) -> PathBuf {
    candidates(project_root, configured)
        .into_iter()
        .find(|c| c.components().count() == 1 || c.is_file())
        .unwrap_or_else(|| PathBuf::from("python3"))
}

const VERSION_QUERY: &str = "import sys, platform; print(platform.python_implementation(), *sys.version_info[:3], sys.executable)";

/// Runs `path` once, confined, to learn its version.
pub fn probe(path: &Path) -> Result<Interpreter, InterpreterError> {
    probe_confined(path, false)
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())
}

/// Runs the user's own interpreter once, as the user would, to learn its version.
fn probe_unconfined(path: &Path) -> Result<Interpreter, InterpreterError> {
    let shown = path.display().to_string();
    let out = Command::new(path)
        .args(["-I", "-c", VERSION_QUERY])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| InterpreterError::DoesNotRun {
            path: shown.clone(),
            why: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(InterpreterError::DoesNotRun {
            path: shown,
            why: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    read_version(path, &String::from_utf8_lossy(&out.stdout))
}

fn probe_confined(path: &Path, allow_unconfined: bool) -> Result<Interpreter, InterpreterError> {
    let shown = path.display().to_string();
    let fail = |why: String| InterpreterError::DoesNotRun {
        path: shown.clone(),
        why,
    };
    let scratch = tempfile::Builder::new()
        .prefix(&format!("lacuna-scratch-{}-", std::process::id()))
        .tempdir()
        .map_err(|e| fail(format!("cannot create a scratch directory: {e}")))?;
    let mut command = Command::new(path);
    command.args(["-I", "-c", VERSION_QUERY]);
    let policy = crate::sandbox::Policy {
        scratch: scratch.path().to_owned(),
        allow_unconfined,
        ..Default::default()
    };
    crate::sandbox::confine(&mut command, &policy)
        .map_err(|e| InterpreterError::Refused(e.to_string()))?;
    let out = crate::sandbox::run_with_timeout(command, std::time::Duration::from_secs(30))
        .map_err(|e| fail(e.to_string()))?;
    if out.timed_out {
        return Err(fail("it did not answer within 30 s".into()));
    }
    if !out.status.is_some_and(|s| s.success()) {
        return Err(fail(String::from_utf8_lossy(&out.stderr).trim().to_owned()));
    }
    read_version(path, &String::from_utf8_lossy(&out.stdout))
}

/// The interpreter a version query's answer describes: implementation, version and the
/// executable itself (what a wrapper such as a pyenv shim finally runs).
fn read_version(path: &Path, text: &str) -> Result<Interpreter, InterpreterError> {
    let shown = path.display().to_string();
    let parts: Vec<&str> = text.split_whitespace().collect();
    let number = |i: usize| parts.get(i).and_then(|p| p.parse::<u32>().ok());
    let (Some(major), Some(minor), Some(patch)) = (number(1), number(2), number(3)) else {
        return Err(InterpreterError::DoesNotRun {
            path: shown,
            why: format!("unexpected version output `{}`", text.trim()),
        });
    };
    if parts.first() != Some(&"CPython") || (major, minor) < (3, 9) {
        return Err(InterpreterError::TooOld {
            path: shown,
            version: format!("{} {major}.{minor}.{patch}", parts.first().unwrap_or(&"?")),
        });
    }
    let executable = text
        .trim()
        .splitn(5, ' ')
        .nth(4)
        .map(PathBuf::from)
        .filter(|e| e.is_absolute() && e.is_file())
        .unwrap_or_else(|| path.to_owned());
    Ok(Interpreter {
        path: executable,
        version: (major, minor, patch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_python3_and_reports_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let found = discover(dir.path(), None, false).unwrap();
        assert!(found.version >= (3, 9, 0));
        let missing =
            discover(dir.path(), Some(Path::new("/nonexistent/python")), false).unwrap_err();
        assert!(
            matches!(missing, InterpreterError::NotFound(_)),
            "{missing}"
        );
        let not_python = discover(dir.path(), Some(Path::new("/bin/true")), false).unwrap_err();
        assert!(
            matches!(not_python, InterpreterError::DoesNotRun { .. }),
            "{not_python}"
        );
    }
}
