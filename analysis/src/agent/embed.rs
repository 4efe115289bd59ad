//! The agent's Python source, embedded in the binary and written to a per-version cache
//! directory on first use (atomically: a temporary directory renamed into place), so that the
//! project's own interpreter can run it.

use std::path::{Path, PathBuf};

/// (relative path, contents) of every file of the agent.
pub const FILES: &[(&str, &str)] = &[
    ("run_agent.py", include_str!("../../agent/run_agent.py")),
    (
        "lacuna_agent/__init__.py",
        include_str!("../../agent/lacuna_agent/__init__.py"),
    ),
    (
        "lacuna_agent/codemap.py",
        include_str!("../../agent/lacuna_agent/codemap.py"),
    ),
    (
        "lacuna_agent/containers.py",
        include_str!("../../agent/lacuna_agent/containers.py"),
    ),
    (
        "lacuna_agent/describe.py",
        include_str!("../../agent/lacuna_agent/describe.py"),
    ),
    (
        "lacuna_agent/entropy.py",
        include_str!("../../agent/lacuna_agent/entropy.py"),
    ),
    (
        "lacuna_agent/execute.py",
        include_str!("../../agent/lacuna_agent/execute.py"),
    ),
    (
        "lacuna_agent/identity.py",
        include_str!("../../agent/lacuna_agent/identity.py"),
    ),
    (
        "lacuna_agent/interpose.py",
        include_str!("../../agent/lacuna_agent/interpose.py"),
    ),
    (
        "lacuna_agent/main.py",
        include_str!("../../agent/lacuna_agent/main.py"),
    ),
    (
        "lacuna_agent/measures.py",
        include_str!("../../agent/lacuna_agent/measures.py"),
    ),
    (
        "lacuna_agent/modstate.py",
        include_str!("../../agent/lacuna_agent/modstate.py"),
    ),
    (
        "lacuna_agent/objects.py",
        include_str!("../../agent/lacuna_agent/objects.py"),
    ),
    (
        "lacuna_agent/observe.py",
        include_str!("../../agent/lacuna_agent/observe.py"),
    ),
    (
        "lacuna_agent/plugins_off.py",
        include_str!("../../agent/lacuna_agent/plugins_off.py"),
    ),
    (
        "lacuna_agent/positions.py",
        include_str!("../../agent/lacuna_agent/positions.py"),
    ),
    (
        "lacuna_agent/pytest_limits.py",
        include_str!("../../agent/lacuna_agent/pytest_limits.py"),
    ),
    (
        "lacuna_agent/recorder.py",
        include_str!("../../agent/lacuna_agent/recorder.py"),
    ),
    (
        "lacuna_agent/retain.py",
        include_str!("../../agent/lacuna_agent/retain.py"),
    ),
    (
        "lacuna_agent/sandbox.py",
        include_str!("../../agent/lacuna_agent/sandbox.py"),
    ),
    (
        "lacuna_agent/suite.py",
        include_str!("../../agent/lacuna_agent/suite.py"),
    ),
    (
        "lacuna_agent/sym.py",
        include_str!("../../agent/lacuna_agent/sym.py"),
    ),
    (
        "lacuna_agent/targets.py",
        include_str!("../../agent/lacuna_agent/targets.py"),
    ),
    (
        "lacuna_agent/tracer.py",
        include_str!("../../agent/lacuna_agent/tracer.py"),
    ),
    (
        "lacuna_agent/values.py",
        include_str!("../../agent/lacuna_agent/values.py"),
    ),
];

/// A hash of the embedded sources: the cache directory's name, so that every build writes its
/// own copy and never runs another build's agent.
pub fn version() -> String {
    let mut bytes = vec![];
    for (path, text) in FILES {
        bytes.extend_from_slice(path.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
    }
    format!("{:016x}", lacuna_grammar::ids::fnv1a(&bytes))
}

/// Lacuna's cache directory: `$XDG_CACHE_HOME/lacuna`, else `~/.cache/lacuna`, else the
/// system's temporary directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("lacuna");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache").join("lacuna");
    }
    std::env::temp_dir().join("lacuna")
}

/// Checks, before a worker starts, that every file of the installed agent is this build's
/// (the agent runs read-only, but anything else on the machine could have edited the cache);
/// a file that differs is written again.
pub fn ensure_intact(dir: &Path) -> std::io::Result<()> {
    for (path, text) in FILES {
        let file = dir.join(path);
        if std::fs::read(&file).ok().as_deref() != Some(text.as_bytes()) {
            let _ = std::fs::remove_file(&file);
            std::fs::write(&file, text)?;
            read_only(&file)?;
        }
    }
    Ok(())
}

/// Whether any file of the installed agent differs from the embedded sources.
pub fn tampered(dir: &Path) -> bool {
    FILES
        .iter()
        .any(|(path, text)| std::fs::read(dir.join(path)).ok().as_deref() != Some(text.as_bytes()))
}

fn read_only(path: &Path) -> std::io::Result<()> {
    let mut perms = std::fs::metadata(path)?.permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(path, perms)
}

/// The directory holding this build's agent, written there if it is not yet (its files
/// read-only), and checked against the embedded sources when it is.
pub fn install(cache: &Path) -> std::io::Result<PathBuf> {
    let target = cache.join(format!("agent-{}", version()));
    if target.join("run_agent.py").is_file() {
        ensure_intact(&target)?;
        return Ok(target);
    }
    std::fs::create_dir_all(cache)?;
    let staging = cache.join(format!(".agent-{}-{}", version(), std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    for (path, text) in FILES {
        let file = staging.join(path);
        std::fs::create_dir_all(file.parent().expect("files are inside a directory"))?;
        std::fs::write(&file, text)?;
        read_only(&file)?;
    }
    match std::fs::rename(&staging, &target) {
        Ok(()) => Ok(target),
        // Another process installed it first: use theirs.
        Err(_) if target.join("run_agent.py").is_file() => {
            let _ = std::fs::remove_dir_all(&staging);
            Ok(target)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_file_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("agent/lacuna_agent");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".py"))
            .map(|n| format!("lacuna_agent/{n}"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = FILES
            .iter()
            .map(|(p, _)| p.to_string())
            .filter(|p| p.starts_with("lacuna_agent/"))
            .collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn an_edited_agent_is_restored_before_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let agent = install(dir.path()).unwrap();
        let main = agent.join("lacuna_agent/main.py");
        use std::os::unix::fs::PermissionsExt;
        assert!(std::fs::metadata(&main).unwrap().permissions().readonly());
        std::fs::set_permissions(&main, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::write(&main, "import os; os.remove('canary')").unwrap();
        ensure_intact(&agent).unwrap();
        let embedded = FILES
            .iter()
            .find(|(p, _)| *p == "lacuna_agent/main.py")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&main).unwrap(), embedded.1);
    }

    #[test]
    fn installs_once_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let a = install(dir.path()).unwrap();
        let b = install(dir.path()).unwrap();
        assert_eq!(a, b);
        assert!(a.join("lacuna_agent/main.py").is_file());
    }
}
