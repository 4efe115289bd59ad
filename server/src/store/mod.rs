//! The persistent store under `.lacuna/` in the project (or the directory `--cache-dir`
//! names), shared by the language server and `lacuna check`: the last generation outcome of
//! every function, keyed by configuration, module and function, and checked against the
//! function's fingerprint (and the guidance declarations it depends on) on read — so a reopened
//! project shows its diagnostics at once, a second `lacuna check` explores only what changed,
//! and an edited function is never shown with results computed for its old text. redb commits
//! are crash-safe: a `kill -9` at any moment leaves a store that opens. What is read back is
//! decoded into typed values and checked as the agent's answers are (literals, expressions);
//! nothing in it is ever run as code.

pub mod outcome;

use lacuna_analysis::config::Config;
use lacuna_analysis::explore::exploration::Exploration;
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_analysis::imports::ImportFailure;
use outcome::FunctionOutcome;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

const OUTCOMES: TableDefinition<&str, &[u8]> = TableDefinition::new("outcomes");
/// The project's suite as it ran last (the server's ledger), by the configuration it ran under.
const SUITE: TableDefinition<&str, &[u8]> = TableDefinition::new("suite");
/// `lacuna check`'s explorations, whole (what emitting tests and explaining gaps read), by
/// configuration, module and function.
const EXPLORATIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("explorations");
/// The last exploration time of each function in milliseconds, by module and function: what
/// `--shard` balances by. Written by unsharded runs only, so that every shard of a run reads
/// the same times.
const TIMES: TableDefinition<&str, u64> = TableDefinition::new("times");
/// The interpreter the workers ran when the server last started them, by the one
/// `interpreter::likely` named for it (`python3` → the `sys.executable` it runs): what the
/// server's outcomes are keyed by before its workers start.
const INTERPRETERS: TableDefinition<&str, &str> = TableDefinition::new("interpreters");

/// What identifies the configuration outcomes were computed for.
pub fn config_key(config: &Config) -> String {
    let text = format!(
        "{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        env!("CARGO_PKG_VERSION"),
        config.python,
        config.budget,
        config.mcdc,
        config.sandbox,
        config.guidance,
        // What the search keeps beside coverage: inputs whose runs break an invariant.
        config.suspicious,
    );
    format!("{:016x}", lacuna_grammar::ids::fnv1a(text.as_bytes()))
}

/// One function's exploration as `lacuna check` keeps it.
#[derive(Serialize, Deserialize)]
pub struct StoredExploration {
    pub fingerprint: u64,
    /// The calls and classes whose guidance declarations it depends on; none when it failed
    /// before it could say (it then depends on every declaration).
    pub guidance_subjects: Option<Vec<String>>,
    /// Those declarations when it ran (`Declarations::key_of`).
    pub guidance: u64,
    pub exploration: Exploration,
    /// For an exploration that failed (nothing could run), what the failure depends on besides
    /// the function's own code: its module's imports as the project has them and the
    /// interpreter's installed packages ([`FailureContext`]).
    #[serde(default)]
    pub failed_in: Option<String>,
    /// The failure to import its module, when that is why it failed.
    #[serde(default)]
    pub import_failure: Option<ImportFailure>,
}

/// What a failed exploration depends on besides the function's code: the digest of the
/// project files importing its module runs (`db::import_digest`) and the agent's `environment`
/// (its interpreter and installed packages). A missing package installed, or a module the
/// import goes through edited, and the function is explored again.
pub struct FailureContext<'a> {
    pub imports: u64,
    pub environment: &'a str,
}

impl FailureContext<'_> {
    pub fn key(&self) -> String {
        format!("{:016x}|{}", self.imports, self.environment)
    }
}

impl StoredExploration {
    /// Whether it was computed for this fingerprint and the guidance module's `declarations`,
    /// as far as it depends on them, and — when it failed — in this `failure` context.
    pub fn current(
        &self,
        fingerprint: u64,
        declarations: &Declarations,
        failure: &FailureContext<'_>,
    ) -> bool {
        self.fingerprint == fingerprint
            && self.guidance == declarations.key_of(self.guidance_subjects.as_deref())
            && (self.exploration.failure.is_none()
                || self.failed_in.as_deref() == Some(failure.key().as_str()))
    }
}

/// Why a store could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// Another process has it open (a language server, another run): nothing is wrong with it.
    Busy,
    Failed(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Busy => f.write_str(
                "another Lacuna process (a language server, another run) has the results store open",
            ),
            OpenError::Failed(why) => f.write_str(why),
        }
    }
}

pub struct Store {
    db: Database,
}

/// Why the store's file cannot be read: what redb says, an entry that does not decode, or a
/// panic inside redb.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    #[error(transparent)]
    Database(#[from] redb::DatabaseError),
    #[error(transparent)]
    Transaction(#[from] redb::TransactionError),
    #[error(transparent)]
    Table(#[from] redb::TableError),
    #[error(transparent)]
    Storage(#[from] redb::StorageError),
    #[error("an entry does not decode: {0}")]
    Entry(serde_json::Error),
    #[error("the store is corrupted (redb panicked reading it)")]
    Panicked,
}

/// Runs a store operation, turning a panic inside redb (a corrupted page it did not expect)
/// into an error: a damaged store must never take the server down.
fn guarded<T>(operation: impl FnOnce() -> Result<T, Unreadable>) -> Result<T, Unreadable> {
    catch_unwind(AssertUnwindSafe(operation)).unwrap_or(Err(Unreadable::Panicked))
}

/// Why a write to the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Database(#[from] redb::Error),
    #[error("the store is corrupted (redb panicked writing it)")]
    Corrupted,
}

/// Runs a write, as [`guarded`] runs a read: a panic inside redb is an error.
fn guarded_write(operation: impl FnOnce() -> Result<(), redb::Error>) -> Result<(), StoreError> {
    catch_unwind(AssertUnwindSafe(operation))
        .map_err(|_| StoreError::Corrupted)?
        .map_err(StoreError::from)
}

/// Fails when `path` is a symbolic link: the store is written where the project is, never
/// where a link in a (possibly hostile) repository points.
fn refuse_link(path: &Path) -> Result<(), SymbolicLink> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(SymbolicLink(path.to_owned())),
        _ => Ok(()),
    }
}

/// A store directory or file that is a symbolic link ([`refuse_link`]).
#[derive(Debug, thiserror::Error)]
#[error("{} is a symbolic link, which Lacuna does not follow", .0.display())]
pub struct SymbolicLink(PathBuf);

/// Opens the database at `path` and reads every entry once, so that a damaged file is found
/// now rather than on some later read. `Ok(None)`: another process has it open.
fn open_checked(path: &Path) -> Result<Option<Database>, Unreadable> {
    guarded(|| {
        let mut db = match Database::create(path) {
            Ok(db) => db,
            Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        db.check_integrity()?;
        let txn = db.begin_read()?;
        match txn.open_table(OUTCOMES) {
            Ok(table) => {
                for entry in table.iter()? {
                    let (_, value) = entry?;
                    serde_json::from_slice::<FunctionOutcome>(value.value())
                        .map_err(Unreadable::Entry)?;
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(e.into()),
        }
        drop(txn);
        Ok(Some(db))
    })
}

/// A value stored as JSON, whatever its type.
pub mod erased {
    pub trait Json {
        fn bytes(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Json for T {
        fn bytes(&self) -> Vec<u8> {
            serde_json::to_vec(self).unwrap_or_default()
        }
    }
}

impl Store {
    /// Opens (or creates) `<root>/.lacuna/store.redb`, with a `.gitignore` that keeps the
    /// directory out of version control. A store that cannot be read is moved aside to
    /// `store.redb.corrupt` and a new one started: the second value says so. A `.lacuna`
    /// (or store) that is a symbolic link is refused.
    pub fn open(root: &Path) -> Result<(Store, Option<String>), OpenError> {
        Store::open_dir(&root.join(".lacuna"))
    }

    /// Opens (or creates) `<dir>/store.redb`, as [`Store::open`] does; another process having
    /// it open is [`OpenError::Busy`], never a reason to move it aside.
    pub fn open_dir(dir: &Path) -> Result<(Store, Option<String>), OpenError> {
        Store::open_in(dir).map_err(|e| match e {
            None => OpenError::Busy,
            Some(why) => OpenError::Failed(why),
        })
    }

    fn open_in(dir: &Path) -> Result<(Store, Option<String>), Option<String>> {
        let dir = dir.to_owned();
        refuse_link(&dir).map_err(|e| Some(e.to_string()))?;
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let ignore = dir.join(".gitignore");
        if std::fs::symlink_metadata(&ignore).is_err() {
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&ignore)
                .and_then(|mut f| {
                    std::io::Write::write_all(
                        &mut f,
                        b"# Written by Lacuna: its results store.\n*\n",
                    )
                });
        }
        let path = dir.join("store.redb");
        refuse_link(&path).map_err(|e| Some(e.to_string()))?;
        match open_checked(&path) {
            Ok(Some(db)) => Ok((Store { db }, None)),
            Ok(None) => Err(None),
            Err(why) => {
                let aside = dir.join("store.redb.corrupt");
                std::fs::rename(&path, &aside).map_err(|e| {
                    format!(
                        "{} cannot be read ({why}) nor moved aside: {e}",
                        path.display()
                    )
                })?;
                let db = open_checked(&path)
                    .map_err(|e| format!("cannot create {}: {e}", path.display()))?
                    .ok_or(None)?;
                let notice = format!(
                    "the results store {} could not be read ({why}): it was moved to {} and a \
                     new one started",
                    path.display(),
                    aside.display()
                );
                Ok((Store { db }, Some(notice)))
            }
        }
    }

    /// The stored outcome of a function, when it was computed for this fingerprint.
    pub fn get(&self, key: &str, fingerprint: u64) -> Option<FunctionOutcome> {
        guarded(|| {
            let read = || -> Option<FunctionOutcome> {
                let txn = self.db.begin_read().ok()?;
                let table = txn.open_table(OUTCOMES).ok()?;
                let value = table.get(key).ok()??;
                serde_json::from_slice(value.value()).ok()
            };
            Ok(read())
        })
        .ok()
        .flatten()
        .filter(|outcome| outcome.fingerprint == fingerprint)
    }

    /// Stores outcomes in one transaction, replacing older ones of the same functions.
    pub fn put(&self, entries: &[(String, FunctionOutcome)]) -> Result<(), StoreError> {
        let write = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            {
                let mut table = txn.open_table(OUTCOMES)?;
                for (key, outcome) in entries {
                    let bytes = serde_json::to_vec(outcome).unwrap_or_default();
                    table.insert(key.as_str(), bytes.as_slice())?;
                }
            }
            txn.commit()?;
            Ok(())
        };
        guarded_write(write)
    }

    /// A value of the suite's table, decoded.
    pub fn suite_entry<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        guarded(|| {
            let read = || -> Option<T> {
                let txn = self.db.begin_read().ok()?;
                let table = txn.open_table(SUITE).ok()?;
                let value = table.get(key).ok()??;
                serde_json::from_slice(value.value()).ok()
            };
            Ok(read())
        })
        .ok()
        .flatten()
    }

    /// Stores values of the suite's table (its ledger, its observations) in one transaction.
    pub fn put_suite(&self, entries: &[(&str, &dyn erased::Json)]) -> Result<(), StoreError> {
        let write = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            {
                let mut table = txn.open_table(SUITE)?;
                for (key, value) in entries {
                    table.insert(*key, value.bytes().as_slice())?;
                }
            }
            txn.commit()?;
            Ok(())
        };
        guarded_write(write)
    }

    /// The stored exploration of a function, whatever it was computed for (the caller checks
    /// [`StoredExploration::current`]); none when none is or it does not decode.
    pub fn exploration(&self, key: &str) -> Option<StoredExploration> {
        guarded(|| {
            let read = || -> Option<StoredExploration> {
                let txn = self.db.begin_read().ok()?;
                let table = txn.open_table(EXPLORATIONS).ok()?;
                let value = table.get(key).ok()??;
                serde_json::from_slice(value.value()).ok()
            };
            Ok(read())
        })
        .ok()
        .flatten()
    }

    /// Stores explorations in one transaction, replacing older ones of the same functions.
    pub fn put_explorations(
        &self,
        entries: &[(String, StoredExploration)],
    ) -> Result<(), StoreError> {
        let write = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            {
                let mut table = txn.open_table(EXPLORATIONS)?;
                for (key, stored) in entries {
                    let bytes = serde_json::to_vec(stored).unwrap_or_default();
                    table.insert(key.as_str(), bytes.as_slice())?;
                }
            }
            txn.commit()?;
            Ok(())
        };
        guarded_write(write)
    }

    /// The last exploration time (ms) of each of `keys` that has one.
    pub fn times(&self, keys: &[String]) -> rustc_hash::FxHashMap<String, u64> {
        guarded(|| {
            let mut out = rustc_hash::FxHashMap::default();
            let Ok(txn) = self.db.begin_read() else {
                return Ok(out);
            };
            let Ok(table) = txn.open_table(TIMES) else {
                return Ok(out);
            };
            for key in keys {
                if let Ok(Some(ms)) = table.get(key.as_str()) {
                    out.insert(key.clone(), ms.value());
                }
            }
            Ok(out)
        })
        .unwrap_or_default()
    }

    /// Records exploration times (ms), replacing older ones.
    pub fn put_times(&self, entries: &[(String, u64)]) -> Result<(), StoreError> {
        let write = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            {
                let mut table = txn.open_table(TIMES)?;
                for (key, ms) in entries {
                    table.insert(key.as_str(), *ms)?;
                }
            }
            txn.commit()?;
            Ok(())
        };
        guarded_write(write)
    }

    /// The interpreter the workers last ran for `likely` ([`INTERPRETERS`]).
    pub fn interpreter(&self, likely: &str) -> Option<String> {
        guarded(|| {
            let read = || -> Option<String> {
                let txn = self.db.begin_read().ok()?;
                let table = txn.open_table(INTERPRETERS).ok()?;
                let value = table.get(likely).ok()??;
                Some(value.value().to_owned())
            };
            Ok(read())
        })
        .ok()
        .flatten()
    }

    /// Records the interpreter the workers ran for `likely`.
    pub fn put_interpreter(&self, likely: &str, probed: &str) -> Result<(), StoreError> {
        let write = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            txn.open_table(INTERPRETERS)?.insert(likely, probed)?;
            txn.commit()?;
            Ok(())
        };
        guarded_write(write)
    }

    /// Removes everything (the `lacuna.rerun` of a whole workspace, or a format change).
    pub fn clear(&self) -> Result<(), StoreError> {
        let clear = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            txn.delete_table(OUTCOMES)?;
            txn.delete_table(SUITE)?;
            txn.delete_table(EXPLORATIONS)?;
            txn.delete_table(TIMES)?;
            txn.delete_table(INTERPRETERS)?;
            txn.commit()?;
            Ok(())
        };
        guarded_write(clear)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_survive_reopening_and_fingerprints_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let outcome = FunctionOutcome {
            fingerprint: 7,
            covered: 1,
            total: 2,
            ..FunctionOutcome::default()
        };
        {
            let (store, _) = Store::open(dir.path()).unwrap();
            store.put(&[("k".to_owned(), outcome.clone())]).unwrap();
        }
        let (store, notice) = Store::open(dir.path()).unwrap();
        assert_eq!(notice, None);
        assert_eq!(store.get("k", 7), Some(outcome));
        assert_eq!(
            store.get("k", 8),
            None,
            "another fingerprint: the result is stale"
        );
        assert!(dir.path().join(".lacuna/.gitignore").exists());
        store.clear().unwrap();
        assert_eq!(store.get("k", 7), None);
    }

    #[test]
    fn a_store_another_process_holds_is_busy_and_left_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let (_held, _) = Store::open(dir.path()).unwrap();
        let second = Store::open_dir(&dir.path().join(".lacuna"));
        assert!(matches!(second, Err(OpenError::Busy)), "{:?}", second.err());
        assert!(!dir.path().join(".lacuna/store.redb.corrupt").exists());
    }

    #[test]
    fn explorations_round_trip_and_count_only_for_their_code_and_guidance() {
        use lacuna_analysis::agent::protocol::Literal;
        use lacuna_analysis::explore::exploration::{ConditionSeen, Outcome};
        let dir = tempfile::tempdir().unwrap();
        let mut e = Exploration::default();
        e.covered.insert((0, true), 0);
        e.attempts.insert((1, false), vec![]);
        e.conditions.insert(
            (0, 1),
            ConditionSeen {
                expr: Some(lacuna_analysis::symbolic::Expr::int(3)),
                values: [true].into(),
            },
        );
        e.writers
            .insert(("m:C".into(), "f".into()), vec!["set_f".into()]);
        e.executions = 12;
        let stored = StoredExploration {
            fingerprint: 7,
            guidance_subjects: Some(vec!["exists".into()]),
            guidance: Declarations::default().key(["exists".to_owned()].iter()),
            exploration: e,
            failed_in: None,
            import_failure: None,
        };
        {
            let (store, _) = Store::open(dir.path()).unwrap();
            store.put_explorations(&[("k".into(), stored)]).unwrap();
        }
        let (store, _) = Store::open(dir.path()).unwrap();
        let back = store.exploration("k").expect("stored");
        assert_eq!(back.exploration.covered.get(&(0, true)), Some(&0));
        assert_eq!(back.exploration.executions, 12);
        assert_eq!(
            back.exploration.conditions[&(0, 1)].expr,
            Some(lacuna_analysis::symbolic::Expr::int(3))
        );
        let here = FailureContext {
            imports: 1,
            environment: "env",
        };
        assert!(back.current(7, &Declarations::default(), &here));
        assert!(
            !back.current(8, &Declarations::default(), &here),
            "another fingerprint"
        );
        let mocked = Declarations::parse(
            "import lacuna\n\n@lacuna.mock(\"os.path.exists\")\ndef exists(path):\n    return True\n",
        );
        assert!(
            !back.current(7, &mocked, &here),
            "a declaration it depends on changed"
        );
        // Floats JSON cannot write, and literals read back through the agent's checks.
        let outcome = Outcome::Returned {
            repr: "nan".into(),
            type_name: "float".into(),
            literal: Some(Literal::Float(f64::NEG_INFINITY)),
            items: None,
            state: Default::default(),
            receiver: Default::default(),
            arguments: Default::default(),
        };
        let text = serde_json::to_string(&outcome).unwrap();
        assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), outcome);
        let forged = text.replace("-inf", "__import__('os')");
        let Outcome::Returned { literal, .. } = serde_json::from_str::<Outcome>(&forged).unwrap()
        else {
            panic!("{forged}");
        };
        assert_eq!(literal, None, "a literal that does not check is dropped");
    }

    #[test]
    fn a_failed_exploration_counts_only_where_it_failed() {
        let dir = tempfile::tempdir().unwrap();
        let here = FailureContext {
            imports: 1,
            environment: "env",
        };
        let failure = ImportFailure {
            error: "ModuleNotFoundError".into(),
            message: "No module named 'yaml'".into(),
            missing: Some("yaml".into()),
            missing_in_project: false,
            chain: vec![],
        };
        let stored = StoredExploration {
            fingerprint: 7,
            guidance_subjects: None,
            guidance: Declarations::default().key_of(None),
            exploration: Exploration {
                failure: Some("cannot import `m`".into()),
                ..Exploration::default()
            },
            failed_in: Some(here.key()),
            import_failure: Some(failure.clone()),
        };
        {
            let (store, _) = Store::open(dir.path()).unwrap();
            store.put_explorations(&[("k".into(), stored)]).unwrap();
        }
        let (store, _) = Store::open(dir.path()).unwrap();
        let back = store.exploration("k").expect("stored");
        assert_eq!(back.import_failure, Some(failure));
        let declarations = Declarations::default();
        assert!(back.current(7, &declarations, &here));
        let edited = FailureContext {
            imports: 2,
            environment: "env",
        };
        assert!(
            !back.current(7, &declarations, &edited),
            "a module the import goes through changed"
        );
        let installed = FailureContext {
            imports: 1,
            environment: "env with yaml",
        };
        assert!(
            !back.current(7, &declarations, &installed),
            "a package was installed"
        );
        let mocked = Declarations::parse(
            "import lacuna\n\n@lacuna.mock(\"os.path.exists\")\ndef exists(path):\n    return True\n",
        );
        assert!(
            !back.current(7, &mocked, &here),
            "a failure that could not say what it depends on depends on every declaration"
        );
    }

    fn a_store(dir: &Path) -> std::path::PathBuf {
        let (store, _) = Store::open(dir).unwrap();
        let entries: Vec<_> = (0..200)
            .map(|i| {
                let outcome = FunctionOutcome {
                    fingerprint: i,
                    covered: 1,
                    total: 2,
                    ..FunctionOutcome::default()
                };
                (format!("module.f{i}"), outcome)
            })
            .collect();
        store.put(&entries).unwrap();
        dir.join(".lacuna/store.redb")
    }

    #[test]
    fn a_truncated_store_is_moved_aside_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let path = a_store(dir.path());
        let len = std::fs::metadata(&path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len / 2).unwrap();
        drop(file);
        let (store, notice) = Store::open(dir.path()).unwrap();
        let notice = notice.expect("the user is told");
        assert!(
            notice.starts_with(&format!(
                "the results store {} could not be read (",
                path.display()
            )),
            "{notice}"
        );
        assert!(
            notice.ends_with("store.redb.corrupt and a new one started"),
            "{notice}"
        );
        assert!(dir.path().join(".lacuna/store.redb.corrupt").exists());
        assert_eq!(store.get("module.f3", 3), None, "the new store is empty");
        store
            .put(&[("k".into(), FunctionOutcome::default())])
            .unwrap();
    }

    #[test]
    fn a_linked_lacuna_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(".lacuna")).unwrap();
        let error = Store::open(dir.path()).err().expect("refused");
        assert_eq!(
            error.to_string(),
            format!(
                "{} is a symbolic link, which Lacuna does not follow",
                dir.path().join(".lacuna").display()
            )
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }

    /// Cases per run: `default`, or `LACUNA_FUZZ_CASES` for a longer run.
    fn fuzz_cases(default: u32) -> u32 {
        std::env::var("LACUNA_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(fuzz_cases(64)))]

        /// A store with bytes overwritten or cut anywhere opens (rebuilt when damaged) or is
        /// refused with a message: never a panic, and what opens can be read and written.
        #[test]
        fn corrupted_stores_never_panic(
            flips in proptest::collection::vec((proptest::prelude::any::<u64>(), proptest::prelude::any::<u8>()), 0..32),
            cut in proptest::option::of(proptest::prelude::any::<u64>()),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let path = a_store(dir.path());
            let mut bytes = std::fs::read(&path).unwrap();
            for (at, byte) in flips {
                let len = bytes.len() as u64;
                bytes[(at % len) as usize] = byte;
            }
            if let Some(cut) = cut {
                bytes.truncate((cut % (bytes.len() as u64 + 1)) as usize);
            }
            std::fs::write(&path, &bytes).unwrap();
            if let Ok((store, _)) = Store::open(dir.path()) {
                let _ = store.get("module.f3", 3);
                let _ = store.put(&[("k".into(), FunctionOutcome::default())]);
            }
        }
    }
}
