//! `lacuna check` and the results store (`--cache-dir`, default `.lacuna/` at the project
//! root, the store the language server keeps): which functions are reported from the store
//! instead of explored again — those whose fingerprint and the guidance declarations they
//! depend on are those a stored exploration was computed for, under the same configuration and
//! the same Lacuna binary — and what this run adds to it. The store is opened only to read
//! before exploring and to write after, so that runs in parallel (shards, a language server)
//! take turns; one that stays busy (a language server has it open) is run without.

use crate::store::{FailureContext, Store, StoredExploration, config_key};
use lacuna_analysis::config::Config;
use lacuna_analysis::guidance::dependence::Declarations;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The store as one run uses it.
pub struct Cache {
    pub dir: PathBuf,
    /// Configuration and binary: what every key starts with.
    key: String,
    declarations: Declarations,
}

/// How long a run waits for another process to close the store: other runs hold it for
/// moments; a language server holds it for its whole session, and the run goes on without.
const WAIT: Duration = Duration::from_secs(10);

impl Cache {
    /// The store in `dir` for a run under `config`, with the guidance module's `declarations`
    /// as the run's workers read them.
    pub fn new(dir: PathBuf, config: &Config, declarations: Declarations) -> Cache {
        Cache {
            dir,
            key: format!("{}|{}", config_key(config), build()),
            declarations,
        }
    }

    /// The same store for the explorations of a run whose workers run `interpreter`: what a
    /// function does depends on the Python running it, so results another interpreter
    /// computed (the system's `python3` before the project's `.venv` existed) are not this
    /// run's.
    pub fn for_interpreter(mut self, interpreter: &std::path::Path) -> Cache {
        self.key = format!("{}|{}", self.key, interpreter.display());
        self
    }

    /// The key of a function of `module`.
    pub fn key(&self, module: &str, function: &str) -> String {
        format!("{}|{module}|{function}", self.key)
    }

    /// The key of a function's last exploration time: the same whatever the configuration,
    /// since it only balances shards.
    pub fn time_key(module: &str, function: &str) -> String {
        format!("{module}|{function}")
    }

    /// Opens the store ([`open_store`]).
    pub fn open(&self) -> Option<Store> {
        open_store(&self.dir)
    }

    /// The stored exploration of a function, when it was computed for `fingerprint` and the
    /// guidance declarations as they are now (and, when it failed, in this `failure` context).
    pub fn current(
        &self,
        store: &Store,
        key: &str,
        fingerprint: u64,
        failure: &FailureContext<'_>,
    ) -> Option<StoredExploration> {
        store
            .exploration(key)
            .filter(|s| s.current(fingerprint, &self.declarations, failure))
    }

    /// What this run explored, for the next one: a failed exploration with the `failure`
    /// context it failed in.
    pub fn entry(
        &self,
        fingerprint: u64,
        result: &lacuna_analysis::generation::FunctionResult,
        failure: &FailureContext<'_>,
    ) -> StoredExploration {
        let subjects: Option<Vec<String>> = result
            .guidance_subjects
            .as_ref()
            .map(|s| s.iter().cloned().collect());
        StoredExploration {
            fingerprint,
            guidance: self.declarations.key_of(subjects.as_deref()),
            guidance_subjects: subjects,
            exploration: result.exploration.clone(),
            failed_in: result.exploration.failure.is_some().then(|| failure.key()),
            import_failure: result.import_failure.clone(),
        }
    }
}

/// The default store of a project: `.lacuna/` at its root.
pub fn default_dir(root: &Path) -> PathBuf {
    root.join(".lacuna")
}

/// What identifies the running binary: a digest of its file, so that another build (whose
/// search may differ) never reports what this one stored, while the same release on another
/// machine (a CI runner restoring the store) does.
fn build() -> String {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD
        .get_or_init(|| {
            std::env::current_exe()
                .and_then(std::fs::File::open)
                .and_then(|mut f| {
                    let mut hasher = blake3::Hasher::new();
                    std::io::copy(&mut f, &mut hasher)?;
                    Ok(hasher.finalize().to_hex()[..16].to_owned())
                })
                .unwrap_or_else(|_| env!("CARGO_PKG_VERSION").to_owned())
        })
        .clone()
}

/// Opens the store in `dir`, waiting while another process has it open; none (with a warning)
/// when it cannot be opened.
pub fn open_store(dir: &Path) -> Option<Store> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(20);
    loop {
        match Store::open_dir(dir) {
            Ok((store, notice)) => {
                if let Some(notice) = notice {
                    eprintln!("lacuna: warning: {notice}");
                }
                return Some(store);
            }
            Err(crate::store::OpenError::Busy) if started.elapsed() < WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            Err(e) => {
                eprintln!(
                    "lacuna: warning: the results store in {} is not used: {e}",
                    dir.display()
                );
                return None;
            }
        }
    }
}
