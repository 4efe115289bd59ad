//! The persistent store under `.lacuna/` in the project: the last generation outcome of every
//! function, keyed by configuration, module and function, and checked against the function's
//! fingerprint on read — so a reopened project shows its diagnostics at once, and an edited
//! function is never shown with results computed for its old text. redb commits are
//! crash-safe: a `kill -9` at any moment leaves a store that opens.

use super::outcome::FunctionOutcome;
use redb::{Database, ReadableDatabase, TableDefinition};
use std::path::Path;

const OUTCOMES: TableDefinition<&str, &[u8]> = TableDefinition::new("outcomes");

pub struct Store {
    db: Database,
}

impl Store {
    /// Opens (or creates) `<root>/.lacuna/store.redb`, with a `.gitignore` that keeps the
    /// directory out of version control.
    pub fn open(root: &Path) -> Result<Store, String> {
        let dir = root.join(".lacuna");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            let _ = std::fs::write(&ignore, "# Written by Lacuna: its results store.\n*\n");
        }
        let path = dir.join("store.redb");
        let db =
            Database::create(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        Ok(Store { db })
    }

    /// The stored outcome of a function, when it was computed for this fingerprint.
    pub fn get(&self, key: &str, fingerprint: u64) -> Option<FunctionOutcome> {
        let txn = self.db.begin_read().ok()?;
        let table = txn.open_table(OUTCOMES).ok()?;
        let value = table.get(key).ok()??;
        let outcome: FunctionOutcome = serde_json::from_slice(value.value()).ok()?;
        (outcome.fingerprint == fingerprint).then_some(outcome)
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
        write().map_err(|e| e.to_string())
    }

    /// Removes everything (the `lacuna.rerun` of a whole workspace, or a format change).
    pub fn clear(&self) -> Result<(), String> {
        let clear = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            txn.delete_table(OUTCOMES)?;
            txn.commit()?;
            Ok(())
        };
        clear().map_err(|e| e.to_string())
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
            let store = Store::open(dir.path()).unwrap();
            store.put(&[("k".to_owned(), outcome.clone())]).unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
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
}
