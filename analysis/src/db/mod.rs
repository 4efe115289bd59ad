//! The salsa database: inputs (the project's configuration and files) and the tracked queries
//! that turn them into facts. Every fact a later stage needs about a file or a function is a query
//! here, so editing one function recomputes only what depends on it.
//!
//! Functions and classes are tracked structs whose `syntax` and `anchor` are tracked separately:
//! moving a function (editing code above it) changes only its anchor, and the per-function
//! queries, which read the syntax alone, are not re-executed.

mod queries;

pub use queries::*;

use crate::config::Config;
use crate::workspace::FileContents;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The database trait analysis queries are written against.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The project the database holds.
    fn project(&self) -> Project;

    /// Previous parses, for incremental re-parsing.
    fn parses(&self) -> &ParseCache;
}

/// A Python file. Files are never removed from the database; a deleted file's contents become
/// [`FileContents::Deleted`].
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub contents: FileContents,
}

/// The project: its configuration and the files it checks.
#[salsa::input(debug)]
pub struct Project {
    #[returns(ref)]
    pub config: Arc<Config>,
    #[returns(ref)]
    pub files: Arc<Vec<SourceFile>>,
}

/// Receives salsa's events; tests use it to see which queries ran.
pub type EventLog = Arc<Mutex<Vec<String>>>;

#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    project: Option<Project>,
    parses: Arc<ParseCache>,
}

/// The last parse of recently edited files, so that re-parsing after an edit is incremental.
/// Not part of any query's value: a parse reusing it gives exactly the same result as a fresh
/// one, only faster. Bounded: files not edited lately fall out.
#[derive(Default)]
pub struct ParseCache {
    entries: Mutex<Vec<(SourceFile, lacuna_grammar::PreviousParse)>>,
    /// Files parsed once: a tree is kept only from a file's second parse on, so a one-shot
    /// check of a whole project pays nothing for the cache.
    seen: Mutex<rustc_hash::FxHashSet<SourceFile>>,
}

impl ParseCache {
    const CAPACITY: usize = 32;

    /// Parses `text` for `file`, reusing and then replacing the file's previous parse.
    pub fn parse(&self, file: SourceFile, text: &str) -> lacuna_grammar::Module {
        let previous = {
            let mut entries = self.entries.lock().expect("parse cache lock");
            entries
                .iter()
                .position(|(f, _)| *f == file)
                .map(|i| entries.remove(i).1)
        };
        let edited = !self.seen.lock().expect("parse cache lock").insert(file);
        if !edited {
            return lacuna_grammar::parse(text);
        }
        let (module, next) = lacuna_grammar::parse_after(text, previous.as_ref());
        if let Some(next) = next {
            let mut entries = self.entries.lock().expect("parse cache lock");
            if entries.len() >= Self::CAPACITY {
                entries.remove(0);
            }
            entries.push((file, next));
        }
        module
    }
}

#[salsa::db]
impl salsa::Database for Database {}

#[salsa::db]
impl Db for Database {
    fn project(&self) -> Project {
        self.project
            .expect("the database is created through `Workspace::new`, which sets the project")
    }

    fn parses(&self) -> &ParseCache {
        &self.parses
    }
}

impl Default for Database {
    fn default() -> Self {
        Database {
            storage: salsa::Storage::new(None),
            project: None,
            parses: Arc::default(),
        }
    }
}

impl Database {
    /// A database that records the name and key of every query it executes into `log`.
    pub fn with_event_log(log: EventLog) -> Self {
        Database {
            storage: salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
                if let salsa::EventKind::WillExecute { database_key } = event.kind {
                    log.lock()
                        .expect("event log lock")
                        .push(format!("{database_key:?}"));
                }
            }))),
            project: None,
            parses: Arc::default(),
        }
    }
}

/// Owns the database and the path → file table; applies changes. The single writer: readers
/// work on clones of the database (see [`Workspace::snapshot`]).
pub struct Workspace {
    pub db: Database,
    pub project: Project,
    files: rustc_hash::FxHashMap<PathBuf, SourceFile>,
}

impl Workspace {
    pub fn new(mut db: Database, config: Config) -> Self {
        let project = Project::new(&db, Arc::new(config), Arc::new(vec![]));
        db.project = Some(project);
        Workspace {
            db,
            project,
            files: Default::default(),
        }
    }

    /// The file at `path`, created (and added to the project) on first use.
    pub fn file(&mut self, path: &Path, contents: FileContents) -> SourceFile {
        use salsa::Setter;
        if let Some(&file) = self.files.get(path) {
            if file.contents(&self.db) != &contents {
                file.set_contents(&mut self.db).to(contents);
            }
            return file;
        }
        let file = SourceFile::new(&self.db, path.to_owned(), contents);
        self.files.insert(path.to_owned(), file);
        let mut files = (**self.project.files(&self.db)).clone();
        files.push(file);
        self.project.set_files(&mut self.db).to(Arc::new(files));
        file
    }

    /// Adds many files at once (one new revision instead of one per file).
    pub fn add_files(&mut self, entries: Vec<(PathBuf, FileContents)>) -> Vec<SourceFile> {
        use salsa::Setter;
        let mut files = (**self.project.files(&self.db)).clone();
        let mut out = Vec::with_capacity(entries.len());
        for (path, contents) in entries {
            if let Some(&file) = self.files.get(&path) {
                if file.contents(&self.db) != &contents {
                    file.set_contents(&mut self.db).to(contents);
                }
                out.push(file);
                continue;
            }
            let file = SourceFile::new(&self.db, path.clone(), contents);
            self.files.insert(path, file);
            files.push(file);
            out.push(file);
        }
        self.project.set_files(&mut self.db).to(Arc::new(files));
        out
    }

    pub fn lookup(&self, path: &Path) -> Option<SourceFile> {
        self.files.get(path).copied()
    }

    /// The paths of the project's files.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.keys().cloned().collect()
    }

    pub fn set_config(&mut self, config: Config) {
        use salsa::Setter;
        self.project.set_config(&mut self.db).to(Arc::new(config));
    }

    /// A read-only handle for background work. Drop it before the next change: a change waits
    /// until every snapshot is gone (or cancels the work running on them).
    pub fn snapshot(&self) -> Database {
        self.db.clone()
    }
}
