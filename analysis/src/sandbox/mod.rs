//! Containment of every process that runs project code: the agent's workers, the project's
//! suite, the pytest check of emitted tests, the interpreter probe. The kernel enforces it —
//! Landlock (writes only beneath the scratch directory, no TCP, no signals out of the domain),
//! a seccomp filter (no ptrace, mounts, namespaces, processes unless granted, sockets unless
//! granted…), user/PID/network/mount/IPC namespaces (the worker is PID 1 of its own namespace, so
//! every child dies with it) and resource limits — applied between `fork` and `exec`, so no Python
//! ever runs unconfined. The agent's audit hook only turns a refusal into an explanation.
//!
//! This module decides *what* is confined and reports which layers hold; `spawn` owns the
//! `fork`/`exec` step and is the only place with `unsafe` code.

mod filter;
mod layers;
mod rules;
mod spawn;

pub use layers::{Layer, Layers};
pub use spawn::{Outcome as RunOutcome, run_with_timeout, spawn};

use std::path::PathBuf;
use std::process::Command;

/// What a confined process may do beyond reading files. Built from the user's grants (command
/// line, user-level configuration, a trusted editor workspace), narrowed by the repository.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Policy {
    /// The only directory writable by default (the process's working directory and `TMPDIR`).
    pub scratch: PathBuf,
    /// Further directories the user allowed writes beneath.
    pub allow_write: Vec<PathBuf>,
    pub allow_network: bool,
    pub allow_subprocess: bool,
    /// Run even when the kernel offers no file-system isolation (the user opted in).
    pub allow_unconfined: bool,
    /// The address-space limit, in MiB (0: none).
    pub memory_mb: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ContainmentError {
    #[error(
        "refusing to run project code: the kernel offers no file-system isolation here ({missing}); \
         pass --allow-unconfined (or set `allow-unconfined = true` under [sandbox] in your user \
         configuration) to run with the in-process hook only"
    )]
    Unavailable { missing: String },
    #[error("cannot set up the sandbox's file-system rules: {0}")]
    Rules(rules::LandlockError),
    #[error("cannot set up the sandbox's system-call filter: {0}")]
    Filter(seccompiler::BackendError),
}

/// Prepares `command` to run confined by `policy`: its working directory and `TMPDIR` are the
/// scratch directory, and every available layer is applied in the child before `exec`. Returns
/// the layers that will hold.
pub fn confine(command: &mut Command, policy: &Policy) -> Result<Layers, ContainmentError> {
    confine_with(command, policy, Layers::current())
}

/// `confine` with the given layers only (the tests of each layer and of the degraded mode).
pub fn confine_with(
    command: &mut Command,
    policy: &Policy,
    layers: Layers,
) -> Result<Layers, ContainmentError> {
    if !layers.has(Layer::Landlock) && !policy.allow_unconfined {
        return Err(ContainmentError::Unavailable {
            missing: layers.missing(),
        });
    }
    command.current_dir(&policy.scratch);
    command.env("TMPDIR", &policy.scratch);
    let ruleset = if layers.has(Layer::Landlock) {
        Some(rules::ruleset(policy, layers.landlock_abi).map_err(ContainmentError::Rules)?)
    } else {
        None
    };
    let filters = if layers.has(Layer::Seccomp) {
        filter::programs(policy).map_err(ContainmentError::Filter)?
    } else {
        vec![]
    };
    spawn::prepare(
        command,
        spawn::Plan {
            namespaces: layers.has(Layer::Namespaces),
            network_namespace: !policy.allow_network,
            ruleset,
            filters,
            memory_mb: policy.memory_mb,
        },
    );
    Ok(layers)
}
