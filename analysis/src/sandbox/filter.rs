//! The seccomp filters of a confined process, compiled in the parent: system calls that reach
//! outside the process's own tree (ptrace, other processes' memory and limits, pidfds), change
//! the machine (mounts, modules, clocks, keys, BPF, io_uring) or leave the sandbox (namespaces)
//! fail with `EPERM`; so do new processes and sockets unless the user granted them, and terminal
//! injection; so does changing any file's mode, owner, times or extended attributes, which
//! Landlock does not cover (inside the scratch directory too). `clone3` answers `ENOSYS`, so that the C library falls back to `clone`, whose flags
//! the filter can read (a thread is allowed, a process is not).

use super::Policy;
use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};
use std::collections::BTreeMap;

/// Always refused.
const REFUSED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_open,
    libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_getfd,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_bpf,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_perf_event_open,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_quotactl,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_syslog,
    libc::SYS_vhangup,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    // Metadata Landlock does not cover: modes, owners, times and extended attributes of any file.
    libc::SYS_chmod,
    libc::SYS_fchmod,
    libc::SYS_fchmodat,
    libc::SYS_fchmodat2,
    libc::SYS_chown,
    libc::SYS_fchown,
    libc::SYS_lchown,
    libc::SYS_fchownat,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_utimensat,
    libc::SYS_futimesat,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
];

/// Refused unless the user granted subprocesses.
const PROCESSES: &[libc::c_long] = &[libc::SYS_fork, libc::SYS_vfork];

const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

/// The programs to install, in order.
pub fn programs(policy: &Policy) -> Result<Vec<BpfProgram>, seccompiler::BackendError> {
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &call in REFUSED {
        refused.insert(call, vec![]);
    }
    let arg = SeccompCondition::new;
    let rule = SeccompRule::new;
    // Limits of another process (`prlimit(getppid(), …)`); a process's own are pid 0.
    refused.insert(
        libc::SYS_prlimit64,
        vec![rule(vec![arg(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            0,
        )?])?],
    );
    // Signals to the whole process group (the launcher outside the namespace) or to every
    // process the worker may signal.
    refused.insert(
        libc::SYS_kill,
        vec![
            rule(vec![arg(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, 0)?])?,
            rule(vec![arg(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                u64::from(u32::MAX),
            )?])?,
        ],
    );
    refused.insert(
        libc::SYS_ioctl,
        vec![
            rule(vec![arg(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                TIOCSTI,
            )?])?,
            rule(vec![arg(
                1,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                TIOCLINUX,
            )?])?,
        ],
    );
    if !policy.allow_subprocess {
        for &call in PROCESSES {
            refused.insert(call, vec![]);
        }
        // A `clone` without CLONE_THREAD makes a process.
        refused.insert(
            libc::SYS_clone,
            vec![rule(vec![arg(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(libc::CLONE_THREAD as u64),
                0,
            )?])?],
        );
    }
    if !policy.allow_network {
        refused.insert(libc::SYS_socket, vec![]);
    }
    let eperm = compile(refused, libc::EPERM)?;
    let mut unavailable = BTreeMap::new();
    unavailable.insert(libc::SYS_clone3, vec![]);
    let enosys = compile(unavailable, libc::ENOSYS)?;
    Ok(vec![eperm, enosys])
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
) -> Result<BpfProgram, seccompiler::BackendError> {
    let arch = std::env::consts::ARCH.try_into()?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )?;
    filter.try_into()
}
