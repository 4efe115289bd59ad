//! The files of a project: walking it (honouring `.gitignore`, the default excludes, directories
//! holding a virtual environment, and the configured include/exclude globs), reading files as
//! Python source (UTF-8, or Latin-1 when a coding cookie says so), and naming modules.

use crate::config::Config;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a file holds, as far as the checker is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FileContents {
    Text(Arc<str>),
    /// Not valid in its declared encoding: the byte offset of the first bad byte.
    BadEncoding {
        offset: usize,
        encoding: String,
    },
    /// Could not be read (permissions, a directory…): the reason.
    Unreadable(String),
    /// The file was removed; its entry is kept so that queries on it stay valid.
    Deleted,
}

impl FileContents {
    pub fn text(&self) -> Option<&Arc<str>> {
        match self {
            FileContents::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Reads and decodes a file.
    pub fn read(path: &Path) -> FileContents {
        match std::fs::read(path) {
            Ok(bytes) => FileContents::decode(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileContents::Deleted,
            Err(e) => FileContents::Unreadable(e.to_string()),
        }
    }

    /// Decodes Python source: UTF-8 unless a PEP 263 coding cookie in the first two lines names
    /// Latin-1 (or an alias); other declared encodings are reported, not guessed.
    pub fn decode(bytes: Vec<u8>) -> FileContents {
        let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => rest.to_vec(),
            None => bytes,
        };
        let encoding = coding_cookie(&bytes).unwrap_or_else(|| "utf-8".to_owned());
        match normalise_encoding(&encoding) {
            "utf-8" => match String::from_utf8(bytes) {
                Ok(text) => FileContents::Text(Arc::from(text)),
                Err(e) => FileContents::BadEncoding {
                    offset: e.utf8_error().valid_up_to(),
                    encoding,
                },
            },
            "latin-1" => FileContents::Text(Arc::from(
                bytes.iter().map(|&b| char::from(b)).collect::<String>(),
            )),
            "ascii" => match bytes.iter().position(|b| !b.is_ascii()) {
                None => FileContents::Text(Arc::from(String::from_utf8(bytes).unwrap_or_default())),
                Some(offset) => FileContents::BadEncoding { offset, encoding },
            },
            _ => FileContents::Unreadable(format!(
                "source encoding `{encoding}` is not supported (UTF-8, Latin-1 and ASCII are)"
            )),
        }
    }
}

/// The encoding a PEP 263 cookie in the first two lines declares.
fn coding_cookie(bytes: &[u8]) -> Option<String> {
    for line in bytes.split(|&b| b == b'\n').take(2) {
        let line = String::from_utf8_lossy(line);
        let trimmed = line.trim_start();
        if !trimmed.starts_with('#') {
            continue;
        }
        if let Some(at) = line.find("coding") {
            let rest = &line[at + "coding".len()..];
            if let Some(rest) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('=')) {
                let name: String = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    .collect();
                if !name.is_empty() {
                    return Some(name);
                }
            }
        }
    }
    None
}

fn normalise_encoding(name: &str) -> &'static str {
    match name.to_ascii_lowercase().replace('_', "-").as_str() {
        "utf-8" | "utf8" | "utf-8-sig" => "utf-8",
        "latin-1" | "latin1" | "iso-8859-1" | "iso8859-1" | "l1" | "cp819" | "iso-latin-1" => {
            "latin-1"
        }
        "ascii" | "us-ascii" => "ascii",
        _ => "other",
    }
}

/// The files a walk found, and what it could not walk.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// One message per directory or file that could not be read (the rest was walked).
    pub warnings: Vec<String>,
}

/// Why the files to check could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("invalid glob `{pattern}`: {source}")]
    Glob {
        pattern: String,
        source: globset::Error,
    },
    #[error("{}: not a regular file or directory", .0.display())]
    NotFileOrDirectory(PathBuf),
    #[error("{}: no such file or directory", .0.display())]
    NotFound(PathBuf),
    #[error("{}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Every Python file to check under `paths` (files named explicitly are always included).
/// A path that does not exist, or is neither a regular file nor a directory (`/dev/null`, a
/// FIFO), is an error; a directory inside that cannot be read is a warning.
pub fn discover_files(config: &Config, paths: &[PathBuf]) -> Result<Discovered, DiscoverError> {
    let include = globs(&config.include)?;
    let exclude_globs = globs(&config.exclude)?;
    let excluded_names: Vec<String> = config
        .exclude
        .iter()
        .filter(|e| !e.contains(['/', '*', '?', '[']))
        .cloned()
        .collect();
    let mut files = vec![];
    let mut warnings = vec![];
    for path in paths {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {
                files.push(path.clone());
                continue;
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(DiscoverError::NotFileOrDirectory(path.clone())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DiscoverError::NotFound(path.clone()));
            }
            Err(source) => {
                return Err(DiscoverError::Unreadable {
                    path: path.clone(),
                    source,
                });
            }
        }
        let root = config.root.clone();
        let names = excluded_names.clone();
        let dir_globs = exclude_globs.clone();
        let include_tests = config.include_tests;
        let walker = ignore::WalkBuilder::new(path)
            .hidden(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .filter_entry(move |entry| {
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                if !is_dir || entry.depth() == 0 {
                    return true;
                }
                let name = entry.file_name().to_string_lossy();
                if names.iter().any(|n| *n == name) {
                    return false;
                }
                if !include_tests && TEST_DIRECTORIES.contains(&name.as_ref()) {
                    return false;
                }
                if entry.path().join("pyvenv.cfg").is_file() {
                    return false;
                }
                let rel = entry.path().strip_prefix(&root).unwrap_or(entry.path());
                !dir_globs.is_match(rel)
            })
            .build();
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    warnings.push(walk_error(&e));
                    continue;
                }
            };
            let p = entry.path();
            if !entry.file_type().is_some_and(|t| t.is_file())
                || p.extension().is_none_or(|e| e != "py")
            {
                continue;
            }
            let rel = p.strip_prefix(&config.root).unwrap_or(p);
            if exclude_globs.is_match(rel) {
                continue;
            }
            if !config.include.is_empty() && !include.is_match(rel) {
                continue;
            }
            if !config.include_tests && (is_test_file(p) || is_test_module(p)) {
                continue;
            }
            if is_project_tooling(&config.root, p) {
                continue;
            }
            if emitted_by_lacuna(p) {
                continue;
            }
            files.push(p.to_owned());
        }
    }
    files.sort();
    files.dedup();
    Ok(Discovered { files, warnings })
}

/// Directories of the project's own tests, left out unless `include-tests`.
pub const TEST_DIRECTORIES: &[&str] = &["tests", "test"];

/// Whether pytest would collect `path` as a test module or read it as a conftest
/// (`test_*.py`, `*_test.py`, `conftest.py`): the project's tests, left out unless
/// `include-tests`.
pub fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name == "conftest.py"
        || (name.starts_with("test_") && name.ends_with(".py"))
        || name.ends_with("_test.py")
}

/// A module named `tests.py` or `test.py` (Django's and unittest's convention): the project's
/// tests even where pytest's default file names do not collect it.
pub fn is_test_module(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "tests.py" || n == "test.py")
}

/// Scripts at a project's root that build, package or automate it rather than being its code
/// (`setup.py` runs `setup()` when imported; `noxfile.py` needs nox): left out of a directory's
/// walk, checked when named.
pub const TOOLING_FILES: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "fabfile.py",
    "dodo.py",
    "pavement.py",
    "conanfile.py",
];

/// Whether `path` is one of the `TOOLING_FILES` at the project's `root`.
pub fn is_project_tooling(root: &Path, path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| TOOLING_FILES.iter().any(|t| n == *t));
    let Some(dir) = path.parent().filter(|_| named) else {
        return false;
    };
    dir == root || std::fs::canonicalize(dir).is_ok_and(|d| d == root)
}

/// Whether the file at `path` was written by `lacuna check --emit-tests` (its first line is
/// the emitted-file marker): such files are never checked, so a run does not analyse the tests
/// the previous one wrote.
pub fn emitted_by_lacuna(path: &Path) -> bool {
    let marker = crate::emit::EMITTED_MARKER.as_bytes();
    let mut first = vec![0; marker.len()];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut first))
        .is_ok_and(|()| first == marker)
}

/// A walk error as the user reads it: `<path>: <reason>, skipped`.
fn walk_error(error: &ignore::Error) -> String {
    fn find(error: &ignore::Error, path: Option<&Path>) -> (Option<PathBuf>, String) {
        match error {
            ignore::Error::WithPath { path, err } => find(err, Some(path)),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                find(err, path)
            }
            ignore::Error::Io(io) => {
                // The walker's own wording repeats the path: the system's reason is enough.
                let mut deepest: &dyn std::error::Error = match io.get_ref() {
                    Some(inner) => inner,
                    None => io,
                };
                while let Some(source) = deepest.source() {
                    deepest = source;
                }
                (path.map(Path::to_owned), deepest.to_string())
            }
            other => (path.map(Path::to_owned), other.to_string()),
        }
    }
    match find(error, None) {
        (Some(path), why) => format!("{}: {why}; skipped", path.display()),
        (None, why) => format!("{why}; skipped"),
    }
}

fn globs(patterns: &[String]) -> Result<GlobSet, DiscoverError> {
    let invalid = |pattern: &str| {
        let pattern = pattern.to_owned();
        move |source| DiscoverError::Glob { pattern, source }
    };
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(invalid(p))?;
        builder.add(glob);
        // `build` also excludes `build/**` and `src/build/**`.
        if !p.contains('/') {
            for extra in [format!("**/{p}"), format!("**/{p}/**"), format!("{p}/**")] {
                if let Ok(g) = Glob::new(&extra) {
                    builder.add(g);
                }
            }
        }
    }
    builder.build().map_err(invalid(&patterns.join(", ")))
}

/// Without `src` configured, a file the import roots give no module name
/// (`tools/python-client/client.py` under a repository's root: `python-client` is no
/// identifier) is imported as pytest's default import mode imports it: from the first
/// directory above it that is not a package, which becomes an import root of `config` (after
/// the others, so that no other file's name changes). Files already named keep their names.
pub fn add_roots_for(config: &mut Config, files: &[PathBuf]) {
    if config.src_configured {
        return;
    }
    for file in files {
        if module_name(&config.src, file).is_some() {
            continue;
        }
        let Some(dir) = file.parent() else { continue };
        let base = crate::config::package_base(dir).to_owned();
        if !config.src.contains(&base) && module_name(std::slice::from_ref(&base), file).is_some() {
            config.src.push(base);
        }
    }
}

/// The dotted module name of `file` under one of the import roots (`shop/stock.py` → `shop.stock`,
/// `shop/__init__.py` → `shop`).
pub fn module_name(src: &[PathBuf], file: &Path) -> Option<String> {
    let best = src
        .iter()
        .filter_map(|root| {
            let root = normalise(root);
            normalise(file).strip_prefix(&root).ok().map(Path::to_owned)
        })
        .min_by_key(|rel| rel.components().count())?;
    let mut parts: Vec<String> = best
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last
        .strip_suffix(".py")
        .or_else(|| last.strip_suffix(".pyi"))?;
    if stem != "__init__" {
        parts.push(stem.to_owned());
    }
    if parts.is_empty()
        || !parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return None;
    }
    Some(parts.join("."))
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_latin1_and_reports_the_rest() {
        assert_eq!(
            FileContents::decode(b"x = 1\n".to_vec())
                .text()
                .map(|t| &**t),
            Some("x = 1\n")
        );
        let latin = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n".to_vec();
        assert!(FileContents::decode(latin).text().unwrap().contains('é'));
        assert_eq!(
            FileContents::decode(b"s = '\xff'\n".to_vec()),
            FileContents::BadEncoding {
                offset: 5,
                encoding: "utf-8".into()
            }
        );
        assert!(matches!(
            FileContents::decode(b"# coding: shift_jis\n".to_vec()),
            FileContents::Unreadable(_)
        ));
        assert!(
            FileContents::decode(b"\xEF\xBB\xBFx = 1\n".to_vec())
                .text()
                .is_some()
        );
    }

    #[test]
    fn module_names_follow_import_roots() {
        let src = [PathBuf::from("/p/."), PathBuf::from("/p/src")];
        assert_eq!(
            module_name(&src, Path::new("/p/src/shop/stock.py")).as_deref(),
            Some("shop.stock")
        );
        assert_eq!(
            module_name(&src, Path::new("/p/shop/__init__.py")).as_deref(),
            Some("shop")
        );
        assert_eq!(module_name(&src, Path::new("/q/x.py")), None);
        assert_eq!(module_name(&src, Path::new("/p/my-scripts/x.py")), None);
    }

    #[test]
    fn walks_honouring_gitignore_excludes_and_venvs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "pkg/a.py",
            "pkg/sub/b.py",
            "ignored/c.py",
            ".venv/lib/d.py",
            "env2/lib/e.py",
            "build/f.py",
            "pkg/notes.txt",
            "legacy/g.py",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x = 1\n").unwrap();
        }
        std::fs::write(root.join("env2/pyvenv.cfg"), "home = /usr\n").unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::write(
            root.join("pyproject.toml"),
            "[tool.lacuna]\nextend-exclude = [\"legacy\"]\n",
        )
        .unwrap();
        let config = Config::discover(root).unwrap();
        let files = discover_files(&config, &[root.to_owned()]).unwrap().files;
        let rel: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(rel, ["pkg/a.py", "pkg/sub/b.py"]);
    }

    #[test]
    fn the_projects_build_and_task_scripts_are_left_out_unless_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        for f in [
            "setup.py",
            "noxfile.py",
            "tests.py",
            "pkg/setup.py",
            "pkg/a.py",
            "pkg/test.py",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x = 1\n").unwrap();
        }
        std::fs::write(root.join("pyproject.toml"), "[project]\nname = 'p'\n").unwrap();
        let config = Config::discover(root).unwrap();
        let rel = |paths: &[PathBuf]| -> Vec<String> {
            discover_files(&config, paths)
                .unwrap()
                .files
                .iter()
                .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
                .collect()
        };
        // A `setup.py` inside the package is its code.
        assert_eq!(rel(&[root.to_owned()]), ["pkg/a.py", "pkg/setup.py"]);
        assert_eq!(rel(&[root.join("noxfile.py")]), ["noxfile.py"]);
    }
}
