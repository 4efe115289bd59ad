//! Starting a run: the project's interpreter found, the agent written out, a scratch
//! directory made, the workers confined by the kernel and warmed up, then the guidance module
//! read through them. `lacuna check`, the language server's generation and its export start
//! the same way and tell the user what the start reports ([`Started::notices`]) each in its
//! own place.

use crate::agent::{Pool, WorkerError, WorkerSpec, embed, interpreter};
use crate::config::Config;
use crate::guidance::dependence::Declarations;
use crate::guidance::{self, Guidance, GuidanceError};
use crate::sandbox::Layers;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A started run: its pool, what confines the workers, and the guidance module as they read it.
pub struct Started {
    pub pool: Pool,
    /// The kernel's layers that confine the workers.
    pub layers: Layers,
    /// The repository's sandbox requests that were refused (only the user widens the sandbox).
    pub refused: Vec<String>,
    /// The guidance module's mocks and factories, or why it could not be imported.
    pub guidance: Result<LoadedGuidance, GuidanceError>,
    /// How long the pool took to start, before the guidance module was read.
    pub pool_started_in: Duration,
}

/// The guidance module read: what the agent imported, and its declarations as written (what
/// each outcome depends on).
#[derive(Clone, Debug, Default)]
pub struct LoadedGuidance {
    pub guidance: Arc<Guidance>,
    pub declarations: Declarations,
}

/// What the user is told when a run starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// For the log: which layers confine the workers.
    Info(String),
    /// A weaker sandbox than the machine should give, or a sandbox request refused.
    Warning(String),
}

impl Started {
    /// In order: the sandbox's layers, then a weaker sandbox and each request refused.
    pub fn notices(&self) -> Vec<Notice> {
        notices(&self.layers, &self.refused)
    }
}

fn notices(layers: &Layers, refused: &[String]) -> Vec<Notice> {
    let mut out = vec![Notice::Info(format!("sandbox: {layers}"))];
    if !layers.complete() {
        out.push(Notice::Warning(format!(
            "the sandbox is weaker here: {}",
            layers.missing()
        )));
    }
    out.extend(refused.iter().cloned().map(Notice::Warning));
    out
}

/// Starts a run for `config` ([`start_pool_with`]) and reads its guidance module through the
/// workers.
pub fn start(
    config: &Config,
    found: Option<interpreter::Interpreter>,
) -> Result<Started, StartError> {
    let started = Instant::now();
    let (pool, refused) = start_pool_with(config, found)?;
    let pool_started_in = started.elapsed();
    let guidance = guidance::load(&pool, config).map(|g| LoadedGuidance {
        guidance: Arc::new(g),
        declarations: Declarations::read(&config.guidance),
    });
    Ok(Started {
        pool,
        layers: Layers::current(),
        refused,
        guidance,
        pool_started_in,
    })
}

/// Starts the pool for a project. Its workers are confined by the kernel (see `sandbox`); the
/// messages are the repository's sandbox requests that were refused.
pub fn start_pool(config: &Config) -> Result<(Pool, Vec<String>), StartError> {
    start_pool_with(config, None)
}

/// [`start_pool`] with the interpreter `interpreter::discover` found for `config` moments ago
/// (a language server's probe when it starts), not probed a second time; `None`: probed here.
pub fn start_pool_with(
    config: &Config,
    found: Option<interpreter::Interpreter>,
) -> Result<(Pool, Vec<String>), StartError> {
    let python = match found {
        Some(python) => python,
        None => interpreter::discover(
            &config.root,
            config.python.as_deref(),
            config.grants.allow_unconfined,
        )?,
    };
    let agent_dir = embed::install(&embed::cache_dir()).map_err(|source| StartError::Agent {
        dir: embed::cache_dir(),
        source,
    })?;
    let scratch_dir = scratch_directory().map_err(StartError::Scratch)?;
    let scratch = canonical(scratch_dir.path());
    let (policy, refused) = config.sandbox_policy(&scratch);
    let spec = WorkerSpec {
        python: python.path,
        agent_dir,
        env: vec![],
        configure: crate::agent::protocol::Configure {
            roots: vec![canonical(&config.root)],
            exclude: vec![],
            sys_path: config.src.iter().map(|p| canonical(p)).collect(),
            scratch,
            memory_mb: config.budget.memory_mb,
            max_events: Some(config.budget.path_length),
            sandbox: crate::agent::protocol::SandboxGrants {
                allow_write: policy.allow_write.clone(),
                allow_network: policy.allow_network,
                allow_subprocess: policy.allow_subprocess,
            },
        },
        policy,
    };
    let pool = Pool::new(spec, config.workers()).with_scratch(scratch_dir);
    pool.warm_up()?;
    Ok((pool, refused))
}

/// Why the agent's pool could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Interpreter(#[from] interpreter::InterpreterError),
    #[error("cannot write the agent to {}: {source}", dir.display())]
    Agent {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create a scratch directory: {0}")]
    Scratch(std::io::Error),
    #[error(transparent)]
    Worker(#[from] WorkerError),
}

/// A new scratch directory, named after this process (`lacuna-scratch-<pid>-…`), after the
/// removal of those left by Lacuna processes that no longer run (killed before they could
/// remove theirs).
pub fn scratch_directory() -> std::io::Result<tempfile::TempDir> {
    let tmp = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix("lacuna-scratch-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("lacuna-scratch-{}-", std::process::id()))
        .tempdir()
}

pub(super) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_says_which_layers_hold_then_what_is_weaker_and_what_was_refused() {
        let full = Layers {
            landlock_abi: 7,
            seccomp: true,
            namespaces: true,
        };
        assert_eq!(
            notices(&full, &[]),
            vec![Notice::Info(format!("sandbox: {full}"))]
        );
        let weaker = full.without("seccomp");
        let refused = vec!["`allow-network` in pyproject.toml is refused".to_owned()];
        assert_eq!(
            notices(&weaker, &refused),
            vec![
                Notice::Info(format!("sandbox: {weaker}")),
                Notice::Warning("the sandbox is weaker here: no seccomp".into()),
                Notice::Warning(refused[0].clone()),
            ]
        );
    }
}
