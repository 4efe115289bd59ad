//! The persistent store under `.lacuna/` in the project: the last generation outcome of every
//! function, keyed by configuration, module and function, and checked against the function's
//! fingerprint on read — so a reopened project shows its diagnostics at once, and an edited
//! function is never shown with results computed for its old text. redb commits are
//! crash-safe: a `kill -9` at any moment leaves a store that opens.

use super::ledger::Ledger;
use super::outcome::FunctionOutcome;
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

const OUTCOMES: TableDefinition<&str, &[u8]> = TableDefinition::new("outcomes");
/// The project's suite as it ran last (`ledger::Ledger`), by the configuration it ran under.
const SUITE: TableDefinition<&str, &[u8]> = TableDefinition::new("suite");

pub struct Store {
    db: Database,
}

/// Runs a store operation, turning a panic inside redb (a corrupted page it did not expect)
/// into an error: a damaged store must never take the server down.
fn guarded<T>(operation: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(operation))
        .unwrap_or_else(|_| Err("the store is corrupted (redb panicked reading it)".into()))
}

/// Fails when `path` is a symbolic link: the store is written where the project is, never
/// where a link in a (possibly hostile) repository points.
fn refuse_link(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link, which Lacuna does not follow",
            path.display()
        )),
        _ => Ok(()),
    }
}

/// Opens the database at `path` and reads every entry once, so that a damaged file is found
/// now rather than on some later read.
fn open_checked(path: &Path) -> Result<Database, String> {
    guarded(|| {
        let mut db = Database::create(path).map_err(|e| e.to_string())?;
        db.check_integrity().map_err(|e| e.to_string())?;
        let txn = db.begin_read().map_err(|e| e.to_string())?;
        match txn.open_table(OUTCOMES) {
            Ok(table) => {
                for entry in table.iter().map_err(|e| e.to_string())? {
                    let (_, value) = entry.map_err(|e| e.to_string())?;
                    serde_json::from_slice::<FunctionOutcome>(value.value())
                        .map_err(|e| format!("an entry does not decode: {e}"))?;
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(e.to_string()),
        }
        drop(txn);
        Ok(db)
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
    pub fn open(root: &Path) -> Result<(Store, Option<String>), String> {
        let dir = root.join(".lacuna");
        refuse_link(&dir)?;
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
        refuse_link(&path)?;
        match open_checked(&path) {
            Ok(db) => Ok((Store { db }, None)),
            Err(why) => {
                let aside = dir.join("store.redb.corrupt");
                std::fs::rename(&path, &aside).map_err(|e| {
                    format!(
                        "{} cannot be read ({why}) nor moved aside: {e}",
                        path.display()
                    )
                })?;
                let db = open_checked(&path)
                    .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
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
    pub fn put(&self, entries: &[(String, FunctionOutcome)]) -> Result<(), String> {
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
        guarded(|| write().map_err(|e| e.to_string()))
    }

    /// The suite's ledger stored for this configuration key; none when none is, or when it
    /// does not decode (the suite then runs again).
    pub fn suite(&self, key: &str) -> Option<Ledger> {
        self.suite_entry(key)
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
    pub fn put_suite(&self, entries: &[(&str, &dyn erased::Json)]) -> Result<(), String> {
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
        guarded(|| write().map_err(|e| e.to_string()))
    }

    /// Removes everything (the `lacuna.rerun` of a whole workspace, or a format change).
    pub fn clear(&self) -> Result<(), String> {
        let clear = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            txn.delete_table(OUTCOMES)?;
            txn.delete_table(SUITE)?;
            txn.commit()?;
            Ok(())
        };
        guarded(|| clear().map_err(|e| e.to_string()))
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
            error,
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
