//! Finding the project's interpreter: the configured one, else the active virtual environment,
//! else `.venv`/`venv` in the project, else `python3` on `PATH`. It must be CPython 3.9 or newer.

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
    #[error("`{path}` does not run: {why}")]
    DoesNotRun { path: String, why: String },
    #[error("`{path}` is Python {version}; Lacuna needs CPython 3.9 or newer")]
    TooOld { path: String, version: String },
}

/// The interpreter to run the project's code with.
pub fn discover(
    project_root: &Path,
    configured: Option<&Path>,
) -> Result<Interpreter, InterpreterError> {
    let mut candidates: Vec<PathBuf> = vec![];
    if let Some(p) = configured {
        candidates.push(p.to_owned());
    } else {
        if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
            candidates.push(PathBuf::from(venv).join("bin/python"));
        }
        for dir in [".venv", "venv"] {
            candidates.push(project_root.join(dir).join("bin/python"));
        }
        candidates.push(PathBuf::from("python3"));
    }
    let configured_only = configured.is_some();
    let mut tried = vec![];
    for candidate in candidates {
        let is_command = candidate.components().count() == 1;
        if !is_command && !candidate.is_file() {
            tried.push(candidate.display().to_string());
            continue;
        }
        match probe(&candidate) {
            Ok(interpreter) => return Ok(interpreter),
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

/// Runs `path` once to learn its version.
pub fn probe(path: &Path) -> Result<Interpreter, InterpreterError> {
    let shown = path.display().to_string();
    let out = Command::new(path)
        .args([
            "-I",
            "-c",
            "import sys, platform; print(platform.python_implementation(), *sys.version_info[:3])",
        ])
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
    let text = String::from_utf8_lossy(&out.stdout);
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
    Ok(Interpreter {
        path: path.to_owned(),
        version: (major, minor, patch),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_python3_and_reports_missing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let found = discover(dir.path(), None).unwrap();
        assert!(found.version >= (3, 9, 0));
        let missing = discover(dir.path(), Some(Path::new("/nonexistent/python"))).unwrap_err();
        assert!(
            matches!(missing, InterpreterError::NotFound(_)),
            "{missing}"
        );
        let not_python = discover(dir.path(), Some(Path::new("/bin/true"))).unwrap_err();
        assert!(
            matches!(not_python, InterpreterError::DoesNotRun { .. }),
            "{not_python}"
        );
    }
}
