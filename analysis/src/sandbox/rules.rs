//! The Landlock ruleset of a confined process: read and execute everywhere, write only beneath
//! the scratch directory (and the directories the user allowed), `/dev/null` writable; no TCP
//! bind or connect unless the user allowed the network; no signals to processes outside the
//! domain and no abstract unix sockets out of it. Built in the parent; enforced in the child.

use super::Policy;
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};

/// Why the ruleset could not be built: what Landlock said, or a directory that cannot be
/// opened to write a rule for.
#[derive(Debug, thiserror::Error)]
pub enum LandlockError {
    #[error("Landlock: {0}")]
    Ruleset(landlock::RulesetError),
    #[error("Landlock: {}: {error}", path.display())]
    Path {
        path: std::path::PathBuf,
        error: landlock::PathFdError,
    },
}

pub fn ruleset(policy: &Policy, kernel_abi: i32) -> Result<RulesetCreated, LandlockError> {
    let abi = abi_of(kernel_abi);
    let fail = LandlockError::Ruleset;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?;
    if !policy.allow_network && kernel_abi >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(fail)?;
    }
    if kernel_abi >= 6 {
        ruleset = ruleset
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(fail)?;
    }
    let mut created = ruleset.create().map_err(fail)?;
    let beneath = |path: &std::path::Path, access| -> Result<PathBeneath<PathFd>, LandlockError> {
        let fd = PathFd::new(path).map_err(|error| LandlockError::Path {
            path: path.to_owned(),
            error,
        })?;
        Ok(PathBeneath::new(fd, access))
    };
    created = created
        .add_rule(beneath("/".as_ref(), AccessFs::from_read(abi))?)
        .map_err(fail)?;
    for dir in std::iter::once(&policy.scratch).chain(&policy.allow_write) {
        created = created
            .add_rule(beneath(dir, AccessFs::from_all(abi))?)
            .map_err(fail)?;
    }
    created = created
        .add_rule(beneath(
            "/dev/null".as_ref(),
            AccessFs::ReadFile | AccessFs::WriteFile,
        )?)
        .map_err(fail)?;
    Ok(created)
}

fn abi_of(kernel: i32) -> ABI {
    match kernel {
        ..=1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        _ => ABI::V7,
    }
}
