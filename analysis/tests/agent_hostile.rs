//! Hostile code against the sandbox and the pool. Every attack aims at a canary this test
//! created — a `HOME` directory it made, files in it, a project copy, a socket it listens on —
//! never at the machine. After every attack the canaries are intact and the pool still answers
//! an ordinary execution correctly.

#[path = "support/agent.rs"]
mod support;

use lacuna_analysis::agent::protocol::{Literal, Target};
use lacuna_analysis::agent::{Event, ExecuteRequest, Pool, Status, Value, ValueTree};
use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

const HOSTILE: &str = r#"
import faulthandler, os, shutil, socket, subprocess, sys, time

def delete_home():
    shutil.rmtree(os.path.expanduser("~"))

def write_etc():
    with open("/etc/lacuna-canary", "w") as f:
        f.write("owned")

def remove_project(path):
    shutil.rmtree(path)

def overwrite(path):
    with open(path, "w") as f:
        f.write("owned")

def rename(path):
    os.rename(path, path + ".moved")

def connect(port):
    socket.create_connection(("127.0.0.1", port), timeout=1).sendall(b"owned")

def spawn(path):
    subprocess.run(["touch", path])

def system(path):
    os.system("touch " + path)

def fork_bomb():
    while True:
        os.fork()

def memory_bomb():
    return len("a" * (10 ** 10))

def kill_parent():
    os.kill(os.getppid(), 9)

def leave():
    sys.exit(3)

def hard_exit():
    os._exit(3)

def segfault():
    faulthandler._sigsegv()

def spin():
    while True:
        pass

def c_loop():
    return sum(range(10 ** 13))

def sleep():
    time.sleep(60)

def recurse(n):
    return recurse(n + 1)

def garbage():
    os.write(1, b'{"id": 1, "status": "returned"}\n')
    os.write(2, b"noise on stderr\n" * 1000)
    print("x" * 100000)
    return 7

def chdir():
    os.chdir("/")

def setenv():
    os.environ["LACUNA_OWNED"] = "1"

def swallow(path):
    try:
        os.remove(path)
    except PermissionError:
        return "refused"
    return "deleted"

class Wiper:
    def __init__(self, path):
        os.remove(path)

    def run(self):
        return "ran"

class Spinner:
    def __init__(self):
        while True:
            pass

    def run(self):
        return "ran"

def ordinary(x):
    if x > 3:
        return x * 2
    return -x
"#;

fn request(qualname: &str, args: Vec<ValueTree>, timeout_ms: u64) -> ExecuteRequest {
    ExecuteRequest {
        target: Target {
            module: "hostile".into(),
            qualname: qualname.into(),
            call: Default::default(),
        },
        receiver: None,
        args,
        kwargs: BTreeMap::new(),
        mocks: vec![],
        timeout_ms,
        random_seed: 0,
    }
}

fn text(s: &str) -> ValueTree {
    ValueTree::new(Value::Str { value: s.into() })
}

fn int(v: i64) -> ValueTree {
    ValueTree::named(
        Value::Int {
            value: v.to_string(),
        },
        "x",
    )
}

/// The pool still answers an ordinary execution correctly.
fn still_serving(pool: &Pool) {
    let run = pool
        .execute(&request("ordinary", vec![int(5)], 2_000))
        .unwrap();
    assert_eq!(run.status, Status::Returned, "{run:?}");
    assert_eq!(
        run.returned.unwrap().literal,
        Some(Literal::Int("10".into()))
    );
}

fn blocked_events(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Blocked { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn hostile_code_hurts_nothing_and_the_pool_keeps_serving() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("hostile.py"), HOSTILE).unwrap();
    let canary = home.path().join("canary.txt");
    std::fs::write(&canary, "alive").unwrap();
    let project_canary = project.path().join("keep.txt");
    std::fs::write(&project_canary, "alive").unwrap();
    let touched = home.path().join("touched");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port() as i64;

    let pool = support::pool(project.path(), home.path(), 1);
    let home_str = home.path().display().to_string();
    let canary_str = canary.display().to_string();
    let touched_str = touched.display().to_string();
    let project_str = project.path().display().to_string();

    // (function, args, expected status, expected blocked audit event)
    let attacks: Vec<(&str, Vec<ValueTree>, Status, Option<&str>)> = vec![
        ("delete_home", vec![], Status::Raised, Some("shutil.rmtree")),
        ("write_etc", vec![], Status::Raised, Some("open")),
        (
            "remove_project",
            vec![text(&project_str)],
            Status::Raised,
            Some("shutil.rmtree"),
        ),
        (
            "overwrite",
            vec![text(&canary_str)],
            Status::Raised,
            Some("open"),
        ),
        (
            "rename",
            vec![text(&canary_str)],
            Status::Raised,
            Some("os.rename"),
        ),
        (
            "connect",
            vec![ValueTree::new(Value::Int {
                value: port.to_string(),
            })],
            Status::Raised,
            None,
        ),
        (
            "spawn",
            vec![text(&touched_str)],
            Status::Raised,
            Some("subprocess.Popen"),
        ),
        (
            "system",
            vec![text(&touched_str)],
            Status::Raised,
            Some("os.system"),
        ),
        ("fork_bomb", vec![], Status::Raised, Some("os.fork")),
        ("kill_parent", vec![], Status::Raised, Some("os.kill")),
        ("chdir", vec![], Status::Raised, Some("os.chdir")),
        ("setenv", vec![], Status::Raised, Some("os.putenv")),
        ("memory_bomb", vec![], Status::Memory, None),
        ("leave", vec![], Status::Raised, None),
        ("recurse", vec![int(0)], Status::Raised, None),
        ("spin", vec![], Status::Timeout, None),
        ("sleep", vec![], Status::Timeout, None),
        ("c_loop", vec![], Status::Timeout, None),
        ("hard_exit", vec![], Status::Crashed, None),
        ("segfault", vec![], Status::Crashed, None),
    ];
    for (function, args, status, blocked) in attacks {
        let run = pool.execute(&request(function, args, 500)).unwrap();
        assert_eq!(run.status, status, "{function}: {run:?}");
        if let Some(event) = blocked {
            assert!(
                blocked_events(&run.events).iter().any(|e| e == event),
                "{function}: expected `{event}` to be blocked: {run:?}"
            );
        }
        if function == "connect" {
            assert!(
                blocked_events(&run.events)
                    .iter()
                    .any(|e| e.starts_with("socket.")),
                "{run:?}"
            );
        }
        assert_eq!(
            std::fs::read_to_string(&canary).unwrap(),
            "alive",
            "after {function}"
        );
        assert_eq!(
            std::fs::read_to_string(&project_canary).unwrap(),
            "alive",
            "after {function}"
        );
        assert!(Path::new(&home_str).is_dir(), "after {function}");
        assert!(!touched.exists(), "after {function}");
        assert!(
            !Path::new("/etc/lacuna-canary").exists(),
            "after {function}"
        );
        assert!(
            listener.accept().is_err(),
            "after {function}: a connection got through"
        );
        assert!(std::env::var_os("LACUNA_OWNED").is_none());
        still_serving(&pool);
    }

    // Building an input runs project code (a constructor, a factory's calls): it is held
    // to the same sandbox and time limit as the function under test.
    for (class, args, status) in [
        ("Wiper", vec![text(&canary_str)], Status::InputError),
        ("Spinner", vec![], Status::Timeout),
    ] {
        let mut attack = request(&format!("{class}.run"), vec![], 500);
        attack.receiver = Some(ValueTree::new(Value::Object {
            class: format!("hostile:{class}"),
            args,
            kwargs: BTreeMap::new(),
            calls: vec![],
        }));
        let run = pool.execute(&attack).unwrap();
        assert_eq!(run.status, status, "{class}: {run:?}");
        assert_eq!(std::fs::read_to_string(&canary).unwrap(), "alive");
        still_serving(&pool);
    }

    // User code may handle the refusal like any other failure.
    let run = pool
        .execute(&request("swallow", vec![text(&canary_str)], 500))
        .unwrap();
    assert_eq!(
        run.returned.unwrap().literal,
        Some(Literal::Str("refused".into()))
    );
    assert!(canary.exists());

    // Garbage on the standard streams cannot corrupt the protocol.
    let run = pool.execute(&request("garbage", vec![], 2_000)).unwrap();
    assert_eq!(
        run.returned.unwrap().literal,
        Some(Literal::Int("7".into()))
    );
    assert!(run.stdout.len() <= 4096 && run.stdout.starts_with("xxx"));

    let stats = pool.stats();
    assert!(stats.crashes >= 2, "{stats:?}");
    std::thread::sleep(Duration::from_millis(50));
    still_serving(&pool);
}

#[test]
fn many_threads_share_the_pool() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("hostile.py"), HOSTILE).unwrap();
    let pool = support::pool(project.path(), home.path(), 2);
    std::thread::scope(|s| {
        for t in 0..6 {
            let pool = &pool;
            s.spawn(move || {
                for i in 0..20 {
                    let x = t * 100 + i;
                    let run = pool
                        .execute(&request("ordinary", vec![int(x)], 2_000))
                        .unwrap();
                    let expected = if x > 3 { x * 2 } else { -x };
                    assert_eq!(
                        run.returned.unwrap().literal,
                        Some(Literal::Int(expected.to_string()))
                    );
                }
            });
        }
    });
    assert_eq!(pool.stats().started, 2);
}

/// Project modules named like standard modules the agent uses (`resource`, `datetime`, `json`,
/// `signal`) are never what the agent imports: it has imported the real ones before the project
/// is on the path. Their module-level code would write a canary into `HOME`; the agent starts,
/// describes and runs a function, the function's side effects are recorded, and no canary
/// appears.
#[test]
fn project_modules_cannot_shadow_what_the_agent_imports() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    for name in ["resource", "datetime", "json", "signal", "uuid", "types"] {
        std::fs::write(
            project.path().join(format!("{name}.py")),
            format!(
                "import os\nwith open(os.path.join(os.path.expanduser('~'), 'shadowed-{name}'), 'w') as f:\n    f.write('ran')\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(
        project.path().join("app.py"),
        "import os\n\n\ndef when(hour: int, stamp: 'dt.datetime' = None) -> int:\n    if hour > 12:\n        os.remove('gone')\n    return hour\n",
    )
    .unwrap();
    let pool = support::pool(project.path(), home.path(), 1);
    pool.warm_up().expect("the agent starts");
    let described = pool
        .ask(&support::describe("app", "when"), Duration::from_secs(10))
        .unwrap()
        .unwrap();
    assert_eq!(described["params"][0]["type"]["kind"], "int", "{described}");
    let mut req = request("when", vec![int(13)], 2_000);
    req.target.module = "app".into();
    let run = pool.execute(&req).unwrap();
    // The deletion in the scratch directory failed, and is recorded all the same.
    assert_eq!(run.status, Status::Raised, "{run:?}");
    assert_eq!(
        run.effects
            .first()
            .map(|e| (e.event.as_str(), e.detail.as_str(), e.refused)),
        Some(("os.remove", "gone", false)),
        "{run:?}"
    );
    let shadowed: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("shadowed-"))
        .collect();
    assert!(shadowed.is_empty(), "{shadowed:?}");
}

/// User code the agent itself calls — the `repr`, `str` and `__del__` of what a function returns
/// or raises, string annotations and defaults it describes, metaclass hooks — and code that
/// switches the in-process hook off (through `gc`) all run inside the confined worker: the
/// canary in HOME survives every one, and the pool keeps serving.
#[test]
fn user_code_the_agent_calls_itself_is_confined_too() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let canary = home.path().join("canary");
    std::fs::write(&canary, "alive").unwrap();
    let source = format!(
        r#"
import gc, os
C = {canary:?}

def rm():
    try:
        os.remove(C)
    except OSError:
        pass
    return "x"

class Nasty:
    def __repr__(self):
        return rm()
    __str__ = __repr__
    def __del__(self):
        rm()

class NastyError(Exception):
    def __str__(self):
        return rm()

def returns_nasty(x):
    if x > 3:
        return Nasty()
    return x

def raises_nasty(x):
    if x > 3:
        raise NastyError()
    return x

def annotated(x: '__import__("os").remove(C) or int' = Nasty()):
    if x:
        return 1
    return 0

def hook_off(x):
    for o in gc.get_objects():
        if type(o).__name__ == "Sandbox":
            o.active = False
    os.remove(C)
    return x

def ordinary(x):
    if x > 3:
        return x * 2
    return -x
"#,
        canary = canary.display().to_string()
    );
    std::fs::write(project.path().join("hostile.py"), source).unwrap();
    std::fs::write(
        project.path().join("meta.py"),
        format!(
            r#"
import os
C = {canary:?}

class Meta(type):
    def __instancecheck__(cls, other):
        try:
            os.remove(C)
        except OSError:
            pass
        return False

class Shape(metaclass=Meta):
    def area(self, n: int) -> int:
        if n > 0:
            return n
        return 0
"#,
            canary = canary.display().to_string()
        ),
    )
    .unwrap();
    let pool = support::pool(project.path(), home.path(), 1);
    for qualname in ["returns_nasty", "raises_nasty", "annotated", "hook_off"] {
        let _ = pool
            .execute(&request(qualname, vec![int(5)], 2_000))
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&canary).unwrap(),
            "alive",
            "{qualname}"
        );
        still_serving(&pool);
    }
    for (module, qualname) in [("hostile", "annotated"), ("meta", "Shape.area")] {
        let _ = pool.ask(
            &support::describe(module, qualname),
            Duration::from_secs(10),
        );
        assert_eq!(
            std::fs::read_to_string(&canary).unwrap(),
            "alive",
            "{qualname}"
        );
        still_serving(&pool);
    }
}
