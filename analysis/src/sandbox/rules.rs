//! The Landlock ruleset of a confined process: read and execute everywhere, write only beneath
//! the scratch directory (and the directories the user allowed), `/dev/null` writable; no TCP
//! bind or connect unless the user allowed the network; no signals to processes outside the
//! domain and no abstract unix sockets out of it. Built in the parent; enforced in the child.

use super::Policy;
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};

pub fn ruleset(policy: &Policy, kernel_abi: i32) -> Result<RulesetCreated, String> {
    let abi = abi_of(kernel_abi);
    let fail = |e: &dyn std::fmt::Display| format!("Landlock: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| fail(&e))?;
    if !policy.allow_network && kernel_abi >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| fail(&e))?;
    }
    if kernel_abi >= 6 {
        ruleset = ruleset
            .scope(Scope::Signal | Scope::AbstractUnixSocket)
            .map_err(|e| fail(&e))?;
    }
    let mut created = ruleset.create().map_err(|e| fail(&e))?;
    let beneath = |path: &std::path::Path, access| -> Result<PathBeneath<PathFd>, String> {
        let fd = PathFd::new(path).map_err(|e| format!("Landlock: {}: {e}", path.display()))?;
        Ok(PathBeneath::new(fd, access))
    };
    created = created
        .add_rule(beneath("/".as_ref(), AccessFs::from_read(abi))?)
        .map_err(|e| fail(&e))?;
    for dir in std::iter::once(&policy.scratch).chain(&policy.allow_write) {
        created = created
            .add_rule(beneath(dir, AccessFs::from_all(abi))?)
            .map_err(|e| fail(&e))?;
    }
    created = created
        .add_rule(beneath(
            "/dev/null".as_ref(),
            AccessFs::ReadFile | AccessFs::WriteFile,
        )?)
        .map_err(|e| fail(&e))?;
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
