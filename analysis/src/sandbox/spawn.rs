//! The `fork`/`exec` step of a confined process, and the probes of what the kernel offers.
//!
//! Between `fork` and `exec` the child (a copy of a multi-threaded process) may only make
//! system calls: everything that allocates — the Landlock ruleset, the seccomp programs, the
//! user-namespace maps — is built by the parent beforehand. With namespaces the child forks once
//! more after `unshare`: the first process of the new PID namespace is its init (it reaps, and
//! every process of the namespace dies with it), and it forks Python, which keeps ordinary signal
//! semantics (an init ignores the signals it sends itself); the launcher outside only waits and
//! passes on how Python ended. Both die with Lacuna (`PR_SET_PDEATHSIG`); processes are started from one
//! long-lived thread because that signal follows the *thread* that forked.
#![allow(unsafe_code)]

use nix::libc;
use seccompiler::BpfProgram;
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

pub struct Plan {
    pub namespaces: bool,
    pub network_namespace: bool,
    pub ruleset: Option<landlock::RulesetCreated>,
    pub filters: Vec<BpfProgram>,
    pub memory_mb: u64,
}

/// The most a confined process may write into one file (scratch files included).
const FILE_SIZE_LIMIT: u64 = 1 << 30;
/// Processes (and threads) one confined process may have in its user namespace.
const PROCESS_LIMIT: u64 = 256;

/// Installs the confinement of `plan` to run in the child of `command` before `exec`.
pub fn prepare(command: &mut Command, plan: Plan) {
    let parent = std::process::id() as libc::pid_t;
    let uid = unsafe { libc::getuid() };
    let gid = unsafe { libc::getgid() };
    let uid_map = format!("{uid} {uid} 1").into_bytes();
    let gid_map = format!("{gid} {gid} 1").into_bytes();
    let mut flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS;
    if plan.network_namespace {
        flags |= libc::CLONE_NEWNET;
    }
    let namespaces = plan.namespaces;
    let ruleset = Mutex::new(plan.ruleset);
    let filters = plan.filters;
    let memory = plan.memory_mb.saturating_mul(1024 * 1024);
    command.process_group(0);
    // SAFETY: the closure runs in the forked child before `exec`. It makes system calls only
    // (`prctl`, `unshare`, `open`/`write`/`close`, `fork`, `waitpid`, `setrlimit`,
    // `landlock_restrict_self`, `seccomp`) on data the parent prepared; it does not allocate.
    // The mutex is locked by no other thread of the child (it has only this one).
    unsafe {
        command.pre_exec(move || {
            die_with_parent(parent)?;
            if namespaces {
                if libc::unshare(flags) != 0 {
                    return Err(io::Error::last_os_error());
                }
                write_proc(c"/proc/self/setgroups", b"deny")?;
                write_proc(c"/proc/self/uid_map", &uid_map)?;
                write_proc(c"/proc/self/gid_map", &gid_map)?;
                // The launcher learns how Python ended through this pipe (the namespace's init
                // cannot re-raise a signal on itself).
                let mut ends = [0; 2];
                if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                    return Err(io::Error::last_os_error());
                }
                match bare_fork() {
                    -1 => return Err(io::Error::last_os_error()),
                    0 => {
                        // PID 1 of the new namespace: reaps, and reports how Python ended.
                        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                            return Err(io::Error::last_os_error());
                        }
                        libc::close(ends[0]);
                        match bare_fork() {
                            -1 => return Err(io::Error::last_os_error()),
                            0 => {
                                // Python, PID 2: it dies with the namespace's init.
                                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                                    return Err(io::Error::last_os_error());
                                }
                                limit(libc::RLIMIT_NPROC, PROCESS_LIMIT)?;
                            }
                            python => init(python, ends[1]),
                        }
                    }
                    init => {
                        libc::close(ends[1]);
                        relay(init, ends[0])
                    }
                }
            }
            limit(libc::RLIMIT_CORE, 0)?;
            limit(libc::RLIMIT_FSIZE, FILE_SIZE_LIMIT)?;
            if memory > 0 {
                limit(libc::RLIMIT_AS, memory)?;
            }
            if let Some(ruleset) = ruleset.lock().ok().and_then(|mut r| r.take()) {
                ruleset
                    .restrict_self()
                    .map_err(|_| io::Error::from_raw_os_error(libc::EPERM))?;
            }
            for program in &filters {
                seccompiler::apply_filter(program)
                    .map_err(|_| io::Error::from_raw_os_error(libc::EPERM))?;
            }
            Ok(())
        });
    }
}

/// `fork` as the bare system call. This runs in the child of a multi-threaded process, where
/// glibc's `fork` would first run the handlers libraries registered with `pthread_atfork`:
/// libz3's takes a lock that one of Lacuna's threads (a solver) may have held when the child
/// was forked, and the child waited for it forever, spinning (seen on runs that start a
/// worker for each function while others solve). The system call runs no handler; the child
/// only makes system calls until it execs Python.
unsafe fn bare_fork() -> libc::pid_t {
    let none: libc::c_long = 0;
    // `clone` with only the signal sent at exit is `fork`; its other arguments (a stack, thread
    // ids, TLS) are unused, so their order, which differs between architectures, does not matter.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as libc::c_long,
            none,
            none,
            none,
            none,
        ) as libc::pid_t
    }
}

/// Dies with the process that started it, even when that one is killed.
unsafe fn die_with_parent(parent: libc::pid_t) -> io::Result<()> {
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
    Ok(())
}

unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

unsafe fn limit(resource: libc::__rlimit_resource_t, value: u64) -> io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Closes every descriptor but `keep`.
unsafe fn close_all_but(keep: libc::c_int) {
    unsafe {
        libc::syscall(libc::SYS_close_range, 0u32, (keep - 1) as u32, 0u32);
        libc::syscall(libc::SYS_close_range, (keep + 1) as u32, u32::MAX, 0u32);
    }
}

/// The namespace's init: reaps every process of the namespace and, when Python ends, writes
/// its wait status to `report` and exits (which ends the namespace and all it holds).
unsafe fn init(python: libc::pid_t, report: libc::c_int) -> ! {
    unsafe {
        close_all_but(report);
        let mut status = 0;
        loop {
            let r = libc::waitpid(-1, &mut status, 0);
            if r == python {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        libc::write(report, (&raw const status).cast(), size_of::<libc::c_int>());
        libc::_exit(0)
    }
}

/// The launcher, outside the namespace: holds no other descriptor (so the parent sees Python's
/// `exec` and its end), waits for the namespace's init and ends as Python did.
unsafe fn relay(init: libc::pid_t, report: libc::c_int) -> ! {
    unsafe {
        close_all_but(report);
        let mut status = 0;
        loop {
            let r = libc::waitpid(init, &mut status, 0);
            if r == init {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        let mut python = 0;
        let n = libc::read(report, (&raw mut python).cast(), size_of::<libc::c_int>());
        if n == size_of::<libc::c_int>() as isize {
            status = python;
        }
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// The Landlock ABI of the running kernel (0: none).
pub fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if v < 0 { 0 } else { v as i32 }
}

/// Whether this kernel has seccomp filters.
pub fn seccomp_available() -> bool {
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) >= 0 }
}

/// Whether a child can create the namespaces (tried for real with `true`).
pub fn namespaces_available() -> bool {
    let mut probe = Command::new("true");
    probe
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    prepare(
        &mut probe,
        Plan {
            namespaces: true,
            network_namespace: true,
            ruleset: None,
            filters: vec![],
            memory_mb: 0,
        },
    );
    spawn(probe)
        .and_then(|mut c| c.wait())
        .is_ok_and(|s| s.success())
}

type Request = (Command, Sender<io::Result<Child>>);

/// Starts `command` from Lacuna's one long-lived spawning thread.
pub fn spawn(command: Command) -> io::Result<Child> {
    static SPAWNER: Mutex<Option<Sender<Request>>> = Mutex::new(None);
    let mut guard = SPAWNER.lock().unwrap_or_else(|e| e.into_inner());
    let sender = guard.get_or_insert_with(|| {
        let (tx, rx) = channel::<Request>();
        std::thread::Builder::new()
            .name("lacuna-spawner".into())
            .spawn(move || {
                for (mut command, reply) in rx {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("start the spawning thread");
        tx
    });
    let (reply, answer) = channel();
    sender
        .send((command, reply))
        .map_err(|_| io::Error::other("the spawning thread is gone"))?;
    drop(guard);
    answer
        .recv()
        .map_err(|_| io::Error::other("the spawning thread is gone"))?
}

/// How a process run to its end (or its time limit) ended.
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

/// Runs `command` (stdout and stderr captured) for at most `timeout`; past it, its whole
/// process group is killed.
pub fn run_with_timeout(mut command: Command, timeout: Duration) -> io::Result<Outcome> {
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = spawn(command)?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = vec![];
            if let Some(mut pipe) = pipe {
                let _ = pipe.by_ref().take(16 << 20).read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = reader(child.stdout.take().map(|p| Box::new(p) as _));
    let err = reader(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let pid = nix::unistd::Pid::from_raw(child.id() as i32);
            let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Outcome {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        timed_out,
    })
}
