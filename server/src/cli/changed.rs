//! `--changed-since REF`: the fingerprints the project's functions had at a git revision. The
//! files as they were at REF are read through `git` (`ls-tree`, then `cat-file --batch`, which
//! run no hook, filter nor monitor of the repository) into a database of their own under the
//! same configuration, so that a function's fingerprint there — its body and the functions it
//! calls — is computed exactly as now.

use lacuna_analysis::config::Config;
use lacuna_analysis::db::{Database, Workspace, static_report};
use lacuna_analysis::workspace::FileContents;
use rustc_hash::FxHashMap;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the project cannot be read at a revision: not a revision, git does not run or refuses,
/// or what it sends cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("`{0}` is not a git revision")]
    NotARevision(String),
    #[error("cannot run git to {what}: {error}")]
    CannotRun { what: String, error: std::io::Error },
    #[error("git cannot {what}: {stderr}")]
    Refused { what: String, stderr: String },
    #[error("cannot read from git: {0}")]
    Unreadable(std::io::Error),
}

/// The fingerprints at REF, by (file, function ID), of the functions of `files` that existed
/// there.
pub struct AtRevision {
    pub revision: String,
    fingerprints: FxHashMap<(PathBuf, String), u64>,
}

impl AtRevision {
    /// Whether function `id` of `file` had this fingerprint at the revision.
    pub fn unchanged(&self, file: &Path, id: &str, fingerprint: u64) -> bool {
        self.fingerprints
            .get(&(canonical(file), id.to_owned()))
            .is_some_and(|&f| f == fingerprint)
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.fsmonitor=false"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped());
    command
}

fn run(mut command: Command, what: &str) -> Result<Vec<u8>, GitError> {
    let out = command.output().map_err(|error| GitError::CannotRun {
        what: what.to_owned(),
        error,
    })?;
    if !out.status.success() {
        return Err(GitError::Refused {
            what: what.to_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(out.stdout)
}

/// Reads the project's Python files at `revision` and computes their functions' fingerprints.
/// `files`: the project's files now (whose versions at the revision are read); files that
/// existed only then are read too, so that calls into them count as they did.
pub fn at_revision(
    config: &Config,
    files: &[PathBuf],
    revision: &str,
) -> Result<AtRevision, GitError> {
    if revision.starts_with('-') {
        return Err(GitError::NotARevision(revision.to_owned()));
    }
    let root = canonical(&config.root);
    let top = run(
        {
            let mut c = git(&root);
            c.args(["rev-parse", "--show-toplevel"]);
            c
        },
        "find the repository",
    )?;
    let top = canonical(Path::new(String::from_utf8_lossy(&top).trim()));
    let commit = run(
        {
            let mut c = git(&top);
            c.args(["rev-parse", "--verify", "--end-of-options"])
                .arg(format!("{revision}^{{commit}}"));
            c
        },
        &format!("find the revision `{revision}`"),
    )?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let listing = run(
        {
            let mut c = git(&top);
            c.args(["ls-tree", "-r", "-z", "--full-tree", &commit]);
            c
        },
        &format!("list the files of `{revision}`"),
    )?;
    // Blobs at the revision by path relative to the repository.
    let mut blobs: FxHashMap<PathBuf, String> = FxHashMap::default();
    for entry in listing.split(|&b| b == 0) {
        let entry = String::from_utf8_lossy(entry);
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let mut meta = meta.split(' ');
        let (_, kind, sha) = (meta.next(), meta.next(), meta.next());
        if kind == Some("blob")
            && path.ends_with(".py")
            && let Some(sha) = sha
        {
            blobs.insert(PathBuf::from(path), sha.to_owned());
        }
    }
    let now: Vec<PathBuf> = files.iter().map(|f| canonical(f)).collect();
    let relative_root = root.strip_prefix(&top).unwrap_or(Path::new("")).to_owned();
    let mut wanted: Vec<(PathBuf, String)> = vec![];
    for (file, canonical) in files.iter().zip(&now) {
        if let Ok(relative) = canonical.strip_prefix(&top)
            && let Some(sha) = blobs.get(relative)
        {
            wanted.push((file.clone(), sha.clone()));
        }
    }
    for (relative, sha) in &blobs {
        let path = top.join(relative);
        if relative.starts_with(&relative_root) && !now.contains(&path) && !path.exists() {
            wanted.push((path, sha.clone()));
        }
    }
    let contents = cat_blobs(&top, &wanted)?;
    let mut workspace = Workspace::new(Database::default(), config.clone());
    let added = workspace.add_files(contents);
    let db = &workspace.db;
    let mut fingerprints = FxHashMap::default();
    for file in added {
        let path = canonical(file.path(db));
        for f in &static_report(db, file).functions {
            fingerprints.insert((path.clone(), f.id.to_string()), f.fingerprint);
        }
    }
    Ok(AtRevision {
        revision: revision.to_owned(),
        fingerprints,
    })
}

/// The blobs `wanted` (path to give it, object name) through one `git cat-file --batch`.
fn cat_blobs(
    top: &Path,
    wanted: &[(PathBuf, String)],
) -> Result<Vec<(PathBuf, FileContents)>, GitError> {
    let mut child = git(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| GitError::CannotRun {
            what: "read files".to_owned(),
            error,
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let names: Vec<String> = wanted.iter().map(|(_, sha)| sha.clone()).collect();
    let writer = std::thread::spawn(move || {
        for name in names {
            if writeln!(stdin, "{name}").is_err() {
                break;
            }
        }
    });
    let mut reader = std::io::BufReader::new(child.stdout.take().expect("piped"));
    let mut out = vec![];
    for (path, _) in wanted {
        let mut header = String::new();
        reader
            .read_line(&mut header)
            .map_err(GitError::Unreadable)?;
        // `<object> blob <size>`, or `<object> missing`.
        let size: Option<usize> = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok());
        let Some(size) = size else {
            continue;
        };
        let mut bytes = vec![0; size];
        reader
            .read_exact(&mut bytes)
            .map_err(GitError::Unreadable)?;
        let mut newline = [0u8; 1];
        let _ = reader.read_exact(&mut newline);
        out.push((path.clone(), FileContents::decode(bytes)));
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(out)
}
