//! The kernel's containment of a confined process, checked on canaries this test creates: a
//! Python process confined as a worker is tried against files, processes, signals, limits and
//! the network; each attempt fails, and the canaries are intact.

use lacuna_analysis::sandbox::{self, Layer, Layers, Policy};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn python() -> String {
    std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Runs `code` confined with `scratch` as its scratch directory; its standard output.
fn confined(scratch: &Path, code: &str, policy: impl FnOnce(&mut Policy)) -> String {
    let mut p = Policy {
        scratch: scratch.to_owned(),
        memory_mb: 1024,
        ..Policy::default()
    };
    policy(&mut p);
    let mut command = Command::new(python());
    command.args(["-c", code]);
    sandbox::confine(&mut command, &p).expect("confined");
    let out = sandbox::run_with_timeout(command, Duration::from_secs(20)).unwrap();
    assert!(!out.timed_out);
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
        + &String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .map(|l| format!(" | {l}"))
            .unwrap_or_default()
}

#[test]
fn this_kernel_has_every_layer() {
    let layers = Layers::current();
    assert!(layers.has(Layer::Landlock), "{layers}");
    assert!(layers.has(Layer::Seccomp), "{layers}");
    assert!(layers.has(Layer::Namespaces), "{layers}");
}

#[test]
fn writes_outside_scratch_fail() {
    let home = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let canary = home.path().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    let code = format!(
        r#"
import os, shutil
def attempt(f):
    try:
        f(); return "done"
    except OSError as e:
        return type(e).__name__
print(attempt(lambda: os.remove({c:?})),
      attempt(lambda: open({c:?}, "w").write("x")),
      attempt(lambda: shutil.rmtree({h:?})),
      attempt(lambda: open("local", "w").write("ok")),
      os.getpid() < 10)
"#,
        c = canary.display().to_string(),
        h = home.path().display().to_string()
    );
    let out = confined(scratch.path(), &code, |_| {});
    assert_eq!(
        out,
        "PermissionError PermissionError PermissionError done True"
    );
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "alive");
    assert!(scratch.path().join("local").is_file());
}

#[test]
fn processes_sockets_and_signals_fail() {
    let scratch = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        r#"
import os, socket, subprocess, resource
def attempt(f):
    try:
        f(); return "done"
    except OSError as e:
        return type(e).__name__
print(attempt(lambda: subprocess.run(["true"])),
      attempt(lambda: os.fork()),
      attempt(lambda: socket.create_connection(("127.0.0.1", {port}), timeout=1)),
      attempt(lambda: os.kill(0, 0)),
      attempt(lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (1, 1))))
"#
    );
    let out = confined(scratch.path(), &code, |_| {});
    assert_eq!(
        out,
        "PermissionError PermissionError PermissionError PermissionError PermissionError"
    );
}
