//! The hostile corpus: attacks on the machine, the project, Lacuna and the network, each run as
//! project code is run — a Python process confined by `sandbox::confine` — and each aimed only at
//! canaries this test creates: a `HOME` and a project in temporary directories, files and a
//! directory in them, a TCP and a UDP listener and a unix socket on this machine, and two
//! `sleep` processes that stand in for Lacuna and for another process of the user. After every
//! attack the canaries are intact.
//!
//! Each attack is also run with one layer at a time (the others switched off), to name the
//! layers that stop it on their own: the table in docs/benchmarks.md is printed by
//! `LACUNA_CONTAINMENT_TABLE=1 cargo test --test containment -- --nocapture`.

use lacuna_analysis::sandbox::{self, Layer, Layers, Policy};
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

fn python() -> String {
    std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// (name, route, Python statements). The statements see `C` (a canary file), `D` (a canary
/// directory holding a file), `H` (the canary HOME), `P` (the project, with `data/`), `A` (an
/// installed agent directory), `PORT`, `UPORT`, `USOCK`, `VICTIM` and `LACUNA` (pids).
/// `full_only` attacks would hurt the machine with a layer missing (a fork bomb) and run with
/// every layer only.
struct Attack {
    name: &'static str,
    route: &'static str,
    code: &'static str,
    full_only: bool,
    /// Its effect comes after the attack's own code returns (a thread, an `atexit` handler):
    /// judged by the canaries alone.
    deferred: bool,
}

const fn attack(name: &'static str, route: &'static str, code: &'static str) -> Attack {
    Attack {
        name,
        route,
        code,
        full_only: false,
        deferred: false,
    }
}

const ATTACKS: &[Attack] = &[
    attack("os.remove", "files", "os.remove(C)"),
    attack("os.unlink", "files", "os.unlink(C)"),
    attack("open for writing", "files", "open(C, 'w').write('x')"),
    attack("open for appending", "files", "open(C, 'a').write('x')"),
    attack(
        "os.open O_WRONLY|O_TRUNC",
        "files",
        "os.open(C, os.O_WRONLY | os.O_TRUNC)",
    ),
    attack("io.FileIO", "files", "io.FileIO(C, 'w')"),
    attack(
        "pathlib write_text",
        "files",
        "pathlib.Path(C).write_text('x')",
    ),
    attack("os.truncate", "files", "os.truncate(C, 0)"),
    attack("os.rename", "files", "os.rename(C, C + '.moved')"),
    attack(
        "os.replace into scratch",
        "files",
        "os.replace(C, 'stolen')",
    ),
    attack("shutil.rmtree", "files", "shutil.rmtree(D)"),
    attack("shutil.rmtree of HOME", "files", "shutil.rmtree(H)"),
    attack("shutil.move", "files", "shutil.move(D, 'moved')"),
    attack("os.mkdir", "files", "os.mkdir(os.path.join(H, 'new'))"),
    attack(
        "os.symlink",
        "files",
        "os.symlink(C, os.path.join(H, 'link'))",
    ),
    attack(
        "os.link into scratch, then write",
        "files",
        "os.link(C, 'hard'); open('hard', 'w').write('x')",
    ),
    attack("os.chmod", "files", "os.chmod(C, 0o777)"),
    attack(
        "os.fchmod",
        "files",
        "os.fchmod(os.open(C, os.O_RDONLY), 0o777)",
    ),
    attack("os.chown", "files", "os.chown(C, 1, 1)"),
    attack("os.utime", "files", "os.utime(C, (0, 0))"),
    attack("os.setxattr", "files", "os.setxattr(C, 'user.x', b'1')"),
    attack(
        "os.remove with dir_fd",
        "files",
        "os.remove('canary', dir_fd=os.open(H, os.O_RDONLY))",
    ),
    attack(
        "os.open with dir_fd",
        "files",
        "os.open('canary', os.O_WRONLY | os.O_TRUNC, dir_fd=os.open(H, os.O_RDONLY))",
    ),
    attack(
        "shutil.rmtree with dir_fd",
        "files",
        "shutil.rmtree('canary_dir', dir_fd=os.open(H, os.O_RDONLY))",
    ),
    attack(
        "posix.chdir, relative write",
        "files",
        "posix.chdir(H); open('canary', 'w').write('x')",
    ),
    attack("os.mkfifo", "files", "os.mkfifo(os.path.join(H, 'fifo'))"),
    attack(
        "tempfile.mkstemp in HOME",
        "files",
        "tempfile.mkstemp(dir=H)",
    ),
    attack(
        "sqlite3 database in HOME",
        "files",
        "sqlite3.connect(os.path.join(H, 'db.sqlite')).execute('create table t(x)')",
    ),
    attack(
        "ctypes unlink",
        "files",
        "assert ctypes.CDLL(None, use_errno=True).unlink(C.encode()) == 0",
    ),
    attack(
        "ctypes open for writing",
        "files",
        "assert ctypes.CDLL(None).open(C.encode(), os.O_WRONLY | os.O_TRUNC) >= 0",
    ),
    attack(
        "mmap for writing",
        "files",
        "mmap.mmap(os.open(C, os.O_RDWR), 0)",
    ),
    attack(
        "the project's data",
        "files",
        "shutil.rmtree(os.path.join(P, 'data'))",
    ),
    attack(
        "the installed agent",
        "files",
        "open(os.path.join(A, 'lacuna_agent', 'main.py'), 'a').write('import os')",
    ),
    attack(
        "another process's memory",
        "files",
        "open('/proc/%d/mem' % VICTIM, 'wb')",
    ),
    attack(
        "subprocess.run",
        "processes",
        "subprocess.run(['rm', '-rf', D], check=True)",
    ),
    attack(
        "os.system",
        "processes",
        "assert os.system('rm -rf ' + D) == 0",
    ),
    attack(
        "os.posix_spawn",
        "processes",
        "os.waitpid(os.posix_spawn('/bin/rm', ['rm', C], os.environ), 0)",
    ),
    attack(
        "multiprocessing.util.spawnv_passfds",
        "processes",
        "multiprocessing.util.spawnv_passfds(b'/bin/rm', [b'rm', C.encode()], ())",
    ),
    attack(
        "_posixsubprocess via subprocess.Popen",
        "processes",
        "subprocess.Popen(['rm', C]).wait()",
    ),
    attack(
        "os.fork, the child deletes",
        "processes",
        "pid = os.fork()\nif pid == 0:\n    os.remove(C); os._exit(0)\nos.waitpid(pid, 0)",
    ),
    attack(
        "os.execv of rm",
        "processes",
        "os.execv('/bin/rm', ['rm', C])",
    ),
    Attack {
        name: "a thread that outlives the call",
        route: "processes",
        code: "threading.Thread(target=lambda: (time.sleep(0.2), os.remove(C))).start()",
        full_only: false,
        deferred: true,
    },
    Attack {
        name: "an atexit handler",
        route: "processes",
        code: "atexit.register(lambda: os.remove(C))",
        full_only: false,
        deferred: true,
    },
    Attack {
        name: "fork bomb",
        route: "processes",
        code: "while True:\n    os.fork()",
        full_only: true,
        deferred: false,
    },
    attack(
        "os.kill another process",
        "signals",
        "os.kill(VICTIM, signal.SIGKILL)",
    ),
    attack(
        "os.kill Lacuna",
        "signals",
        "os.kill(LACUNA, signal.SIGKILL)",
    ),
    attack(
        "os.killpg",
        "signals",
        "os.killpg(os.getpgid(VICTIM), signal.SIGKILL)",
    ),
    attack("kill every process (signal 0)", "signals", "os.kill(-1, 0)"),
    attack(
        "pidfd_send_signal",
        "signals",
        "signal.pidfd_send_signal(os.pidfd_open(VICTIM), signal.SIGKILL)",
    ),
    attack(
        "prlimit on Lacuna's open files",
        "limits",
        "resource.prlimit(LACUNA, resource.RLIMIT_NOFILE, (3, 3))",
    ),
    attack(
        "prlimit on Lacuna's memory",
        "limits",
        "resource.prlimit(LACUNA, resource.RLIMIT_AS, (1 << 20, 1 << 20))",
    ),
    attack(
        "ptrace attach",
        "limits",
        "assert ctypes.CDLL(None).ptrace(16, VICTIM, 0, 0) == 0",
    ),
    Attack {
        name: "memory bomb",
        route: "limits",
        code: "x = bytearray(8 << 30)",
        full_only: true,
        deferred: false,
    },
    attack(
        "a file larger than 1 GiB in scratch",
        "limits",
        "f = open('big', 'wb'); f.truncate(2 << 30)",
    ),
    attack(
        "TIOCSTI into the terminal",
        "limits",
        "fcntl.ioctl(0, termios.TIOCSTI, b'x')",
    ),
    attack(
        "TCP connect",
        "network",
        "socket.create_connection(('127.0.0.1', PORT), timeout=1).sendall(b'owned')",
    ),
    attack(
        "TCP connect from a child",
        "network",
        "pid = os.fork()\nif pid == 0:\n    socket.create_connection(('127.0.0.1', PORT), timeout=1); os._exit(0)\nos.waitpid(pid, 0)",
    ),
    attack(
        "urllib to the listener",
        "network",
        "urllib.request.urlopen('http://127.0.0.1:%d/' % PORT, timeout=1)",
    ),
    attack(
        "UDP sendto",
        "network",
        "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'owned', ('127.0.0.1', UPORT))",
    ),
    attack(
        "unix socket connect",
        "network",
        "s = socket.socket(socket.AF_UNIX); s.connect(USOCK); s.sendall(b'owned')",
    ),
    attack(
        "TCP listen",
        "network",
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()",
    ),
    attack(
        "unshare a user namespace",
        "escape",
        "assert ctypes.CDLL(None).unshare(0x10000000) == 0",
    ),
    attack("chroot", "escape", "os.chroot(H)"),
    attack(
        "mount a tmpfs over HOME",
        "escape",
        "assert ctypes.CDLL(None).mount(b'none', H.encode(), b'tmpfs', 0, None) == 0",
    ),
    attack(
        "bpf",
        "escape",
        "assert ctypes.CDLL(None).syscall(321, 0, 0, 0) >= 0",
    ),
    attack(
        "keyctl",
        "escape",
        "assert ctypes.CDLL(None).syscall(250, 0, 0, 0) >= 0",
    ),
];

const PRELUDE: &str = "import atexit, ctypes, fcntl, io, mmap, multiprocessing.util, os, pathlib, posix, resource, shutil, signal, socket, sqlite3, subprocess, sys, tempfile, termios, threading, time, urllib.request\n";

struct Canaries {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    agent: PathBuf,
    tcp: TcpListener,
    udp: UdpSocket,
    unix: UnixListener,
    usock: PathBuf,
    victim: Child,
    lacuna: Child,
    mtime: i64,
}

impl Canaries {
    fn new() -> Canaries {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let agent =
            lacuna_analysis::agent::embed::install(&home.path().join(".cache/lacuna")).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let usock = home.path().join("sock");
        let unix = UnixListener::bind(&usock).unwrap();
        unix.set_nonblocking(true).unwrap();
        let spawn = stand_in;
        let mut c = Canaries {
            home,
            project,
            agent,
            tcp,
            udp,
            unix,
            usock,
            victim: spawn(),
            lacuna: spawn(),
            mtime: 0,
        };
        c.reset();
        c
    }

    fn c(&self) -> PathBuf {
        self.home.path().join("canary")
    }

    fn reset(&mut self) {
        let h = self.home.path().to_owned();
        let _ = std::fs::remove_file(self.c());
        std::fs::write(self.c(), "alive").unwrap();
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        std::fs::set_permissions(self.c(), std::fs::Permissions::from_mode(0o644)).unwrap();
        self.mtime = std::fs::metadata(self.c()).unwrap().mtime();
        std::fs::create_dir_all(h.join("canary_dir")).unwrap();
        std::fs::write(h.join("canary_dir/file"), "alive").unwrap();
        std::fs::create_dir_all(self.project.path().join("data")).unwrap();
        std::fs::write(self.project.path().join("data/precious"), "alive").unwrap();
    }

    fn bindings(&self) -> String {
        let h = self.home.path();
        format!(
            "C = {c:?}\nD = {d:?}\nH = {h:?}\nP = {p:?}\nA = {a:?}\nPORT = {port}\nUPORT = {uport}\nUSOCK = {usock:?}\nVICTIM = {victim}\nLACUNA = {lacuna}\n",
            c = self.c().display().to_string(),
            d = h.join("canary_dir").display().to_string(),
            h = h.display().to_string(),
            p = self.project.path().display().to_string(),
            a = self.agent.display().to_string(),
            port = self.tcp.local_addr().unwrap().port(),
            uport = self.udp.local_addr().unwrap().port(),
            usock = self.usock.display().to_string(),
            victim = self.victim.id(),
            lacuna = self.lacuna.id(),
        )
    }

    /// What an attack damaged, if anything (empty: every canary intact).
    fn damage(&mut self) -> Vec<String> {
        let mut damage = vec![];
        let h = self.home.path();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        if read(&self.c()) != "alive" {
            damage.push("canary file".into());
        }
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata(self.c())
            && (meta.mode() & 0o7777 != 0o644 || meta.mtime() != self.mtime)
        {
            damage.push("canary file's metadata".into());
        }
        if xattr_names(&self.c()) != 0 {
            damage.push("canary file's extended attributes".into());
        }
        if read(&h.join("canary_dir/file")) != "alive" {
            damage.push("canary directory".into());
        }
        if read(&self.project.path().join("data/precious")) != "alive" {
            damage.push("project data".into());
        }
        if !h.join("sock").exists() || !h.join(".cache").exists() {
            damage.push("HOME emptied".into());
            std::fs::create_dir_all(h).unwrap();
            let _ = std::fs::remove_file(&self.usock);
            self.unix = UnixListener::bind(&self.usock).unwrap();
            self.unix.set_nonblocking(true).unwrap();
            self.agent = lacuna_analysis::agent::embed::install(&h.join(".cache/lacuna")).unwrap();
        }
        let expected = ["canary", "canary_dir", "sock", ".cache"];
        for entry in std::fs::read_dir(h).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !expected.contains(&name.as_str()) {
                damage.push(format!("new file in HOME: {name}"));
                let _ = std::fs::remove_file(entry.path());
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        if lacuna_analysis::agent::embed::tampered(&self.agent) {
            damage.push("installed agent".into());
            lacuna_analysis::agent::embed::ensure_intact(&self.agent).unwrap();
        }
        if self.tcp.accept().is_ok() {
            damage.push("TCP listener reached".into());
        }
        let mut buf = [0u8; 64];
        if self.udp.recv_from(&mut buf).is_ok() {
            damage.push("UDP listener reached".into());
        }
        if let Ok((mut s, _)) = self.unix.accept() {
            let _ = s.read(&mut buf);
            damage.push("unix socket reached".into());
        }
        for (who, child) in [("victim", &mut self.victim), ("Lacuna", &mut self.lacuna)] {
            if !matches!(child.try_wait(), Ok(None)) {
                damage.push(format!("{who} killed"));
                *child = stand_in();
            }
            let limits =
                std::fs::read_to_string(format!("/proc/{}/limits", child.id())).unwrap_or_default();
            let own = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
            let line = |text: &str, what: &str| {
                text.lines()
                    .find(|l| l.starts_with(what))
                    .map(str::to_owned)
            };
            for what in ["Max open files", "Max address space"] {
                if line(&limits, what) != line(&own, what) {
                    damage.push(format!("{who}'s {what} lowered"));
                    *child = stand_in();
                }
            }
        }
        self.reset();
        damage
    }
}

/// How many extended attributes `path` has (`getfattr`'s view, without a crate for it).
fn xattr_names(path: &Path) -> usize {
    Command::new("python3")
        .args(["-c", "import os,sys; print(len(os.listxattr(sys.argv[1])))"])
        .arg(path)
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(0)
}

/// A process of the user's outside the sandbox, in a process group of its own.
fn stand_in() -> Child {
    Command::new("sleep")
        .arg("600")
        .process_group(0)
        .spawn()
        .unwrap()
}

impl Drop for Canaries {
    fn drop(&mut self) {
        let _ = self.victim.kill();
        let _ = self.lacuna.kill();
    }
}

/// Runs one attack confined; what the attack said it did.
fn run(canaries: &Canaries, attack: &Attack, disabled: &str) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let body: String = attack.code.lines().map(|l| format!("    {l}\n")).collect();
    let code = format!(
        "{PRELUDE}{}try:\n{body}    print('DONE')\nexcept BaseException as e:\n    print('REFUSED', type(e).__name__, e)\nsys.stdout.flush()\n",
        canaries.bindings()
    );
    let policy = Policy {
        scratch: scratch.path().to_owned(),
        memory_mb: 1024,
        allow_unconfined: true,
        ..Policy::default()
    };
    let mut command = Command::new(python());
    command
        .args(["-c", &code])
        .env("HOME", canaries.home.path());
    sandbox::confine_with(&mut command, &policy, Layers::current().without(disabled))
        .expect("confined");
    let out = sandbox::run_with_timeout(command, Duration::from_secs(20)).unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn this_kernel_has_every_layer() {
    let layers = Layers::current();
    assert!(layers.has(Layer::Landlock), "{layers}");
    assert!(layers.has(Layer::Seccomp), "{layers}");
    assert!(layers.has(Layer::Namespaces), "{layers}");
}

#[test]
fn every_attack_leaves_its_canaries_intact() {
    assert!(ATTACKS.len() >= 60, "{} attacks", ATTACKS.len());
    let mut canaries = Canaries::new();
    let mut failures = vec![];
    let mut table = String::from(
        "| route | attack | refused with every layer | stopped on its own by |\n|---|---|---|---|\n",
    );
    for attack in ATTACKS {
        let said = run(&canaries, attack, "");
        let damage = canaries.damage();
        if !damage.is_empty() || (said.starts_with("DONE") && !attack.deferred) {
            failures.push(format!(
                "{}: said {said:?}, damaged {damage:?}",
                attack.name
            ));
        }
        let mut alone = vec![];
        if !attack.full_only {
            for (layer, disabled) in [
                ("Landlock", "seccomp,namespaces"),
                ("seccomp", "landlock,namespaces"),
                ("namespaces", "landlock,seccomp"),
            ] {
                let said = run(&canaries, attack, disabled);
                if canaries.damage().is_empty() && (!said.starts_with("DONE") || attack.deferred) {
                    alone.push(layer);
                }
            }
        } else {
            alone.push("(run with every layer only)");
        }
        let refusal = match said.split_whitespace().nth(1) {
            Some(exception) => exception,
            None if attack.deferred => "(its effect came later, and failed)",
            None => "(the program it ran failed)",
        };
        table.push_str(&format!(
            "| {} | {} | {refusal} | {} |\n",
            attack.route,
            attack.name,
            alone.join(", ")
        ));
    }
    if std::env::var_os("LACUNA_CONTAINMENT_TABLE").is_some() {
        println!("{table}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
