//! Incrementality, observed through salsa's own events: editing the body of one function
//! re-executes that function's queries and its callers' fingerprints, and nothing else of the
//! other functions — even those below it, whose positions all shift.

use lacuna_analysis::config::Config;
use lacuna_analysis::db::{
    Database, EventLog, FunctionNode, Workspace, field_writers, file_functions, fingerprint,
    static_report,
};
use lacuna_analysis::workspace::FileContents;
use salsa::plumbing::AsId;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const A: &str = "\
def f(x):
    if x > 1:
        return 1
    return 0

def g(y):
    return f(y) + 1 if y else 0

def h(z):
    while z > 0:
        z -= 1
    return z
";

const B: &str = "\
from a import f

def k(w):
    return f(w) or w
";

fn text(s: &str) -> FileContents {
    FileContents::Text(Arc::from(s))
}

fn node<'db>(db: &'db Database, ws: &Workspace, path: &str, id: &str) -> FunctionNode<'db> {
    let file = ws.lookup(Path::new(path)).unwrap();
    file_functions(db, file)
        .iter()
        .copied()
        .find(|f| f.id(db).as_str() == id)
        .unwrap()
}

/// A workspace at `/project` holding `files` (names relative to it), with salsa's events logged.
fn logged_workspace(files: &[(&str, &str)]) -> (Workspace, EventLog, PathBuf) {
    let log = EventLog::default();
    let root = PathBuf::from("/project");
    let mut ws = Workspace::new(
        Database::with_event_log(log.clone()),
        Config::defaults(&root),
    );
    ws.add_files(
        files
            .iter()
            .map(|(name, source)| (root.join(name), text(source)))
            .collect(),
    );
    (ws, log, root)
}

#[test]
fn editing_one_body_reexecutes_only_its_queries_and_callers_fingerprints() {
    let (mut ws, log, root) = logged_workspace(&[("a.py", A), ("b.py", B)]);
    let files: Vec<_> = ["a.py", "b.py"]
        .iter()
        .map(|f| ws.lookup(&root.join(f)).unwrap())
        .collect();
    for &f in &files {
        static_report(&ws.db, f);
    }
    let ids = |ws: &Workspace| -> Vec<(String, String)> {
        [("a.py", "f"), ("a.py", "g"), ("a.py", "h"), ("b.py", "k")]
            .iter()
            .map(|(p, id)| {
                let n = node(&ws.db, ws, &format!("/project/{p}"), id);
                (id.to_string(), format!("{:?}", n.as_id()))
            })
            .collect()
    };
    let before = ids(&ws);
    let fp = |ws: &Workspace, id: &str| {
        let path = if id == "k" {
            "/project/b.py"
        } else {
            "/project/a.py"
        };
        fingerprint(&ws.db, node(&ws.db, ws, path, id))
    };
    let fingerprints: Vec<u64> = ["f", "g", "h", "k"].iter().map(|id| fp(&ws, id)).collect();
    log.lock().unwrap().clear();

    // Edit f's body so that everything below it moves.
    let edited = A.replace("return 1\n", "return 100 + x  # more text\n");
    ws.file(&root.join("a.py"), text(&edited));
    for &f in &files {
        static_report(&ws.db, f);
    }
    let after = ids(&ws);
    assert_eq!(
        before, after,
        "functions keep their identity across the edit"
    );
    let executed = log.lock().unwrap().clone();
    let ran = |query: &str, function: &str| {
        let id = &after.iter().find(|(f, _)| f == function).unwrap().1;
        executed.iter().any(|e| e == &format!("{query}({id})"))
    };

    // The edited function: its model and fingerprint are recomputed.
    for q in ["function_model", "fingerprint"] {
        assert!(ran(q, "f"), "{q}(f) should re-execute; ran: {executed:#?}");
    }
    // Its callers' fingerprints are recomputed (and change)…
    assert!(ran("fingerprint", "g"), "ran: {executed:#?}");
    assert!(ran("fingerprint", "k"), "ran: {executed:#?}");
    // …but nothing else of theirs, and nothing at all of h, although its position moved.
    for function in ["g", "h", "k"] {
        for q in ["function_model", "callees"] {
            assert!(
                !ran(q, function),
                "{q}({function}) re-executed; ran: {executed:#?}"
            );
        }
    }
    assert!(!ran("fingerprint", "h"), "ran: {executed:#?}");

    let now: Vec<u64> = ["f", "g", "h", "k"].iter().map(|id| fp(&ws, id)).collect();
    assert_ne!(now[0], fingerprints[0]);
    assert_ne!(now[1], fingerprints[1], "g calls f: impacted");
    assert_eq!(now[2], fingerprints[2], "h does not call f: not impacted");
    assert_ne!(
        now[3], fingerprints[3],
        "k calls a.f across modules: impacted"
    );
}

#[test]
fn comments_and_layout_do_not_change_fingerprints() {
    let root = PathBuf::from("/project");
    let mut ws = Workspace::new(Database::default(), Config::defaults(&root));
    ws.add_files(vec![(root.join("a.py"), text(A))]);
    let fp = |ws: &Workspace| fingerprint(&ws.db, node(&ws.db, ws, "/project/a.py", "g"));
    let before = fp(&ws);
    let relaid = A.replace(
        "return f(y) + 1 if y else 0",
        "return f(y)  +  1 if y else 0  # note",
    );
    ws.file(&root.join("a.py"), text(&relaid));
    assert_eq!(fp(&ws), before);
}

const STACK: &str = "\
class Stack:
    def __init__(self):
        self._items = []
        self.__order = 0

    def push(self, x):
        self._items.append(x)
        self.__order += 1

    def pop(self):
        return self._items.pop()
";

#[test]
fn the_writers_of_each_field_are_computed_once_per_revision_of_the_project() {
    let (mut ws, log, root) = logged_workspace(&[("stack.py", STACK), ("a.py", A)]);
    let writers = |ws: &Workspace| -> Vec<((String, String), Vec<String>)> {
        let mut all: Vec<_> = field_writers(&ws.db, ws.project)
            .methods
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        all.sort();
        all
    };
    let key = |field: &str| ("stack:Stack".to_owned(), field.to_owned());
    let first = writers(&ws);
    assert_eq!(
        first,
        vec![
            (key("_Stack__order"), vec!["push".to_owned()]),
            (key("__order"), vec!["push".to_owned()]),
            (key("_items"), vec!["push".to_owned(), "pop".to_owned()]),
        ]
    );
    let runs = |log: &EventLog| {
        log.lock()
            .unwrap()
            .iter()
            .filter(|e| e.starts_with("field_writers("))
            .count()
    };
    assert_eq!(runs(&log), 1);
    // Asked again at the same revision (every job of a server asks): not computed again.
    writers(&ws);
    assert_eq!(runs(&log), 1);
    // An edit that leaves `pop` writing nothing: computed again, and it says so.
    ws.file(
        &root.join("stack.py"),
        text(&STACK.replace("return self._items.pop()", "return None")),
    );
    let edited = writers(&ws);
    assert_eq!(runs(&log), 2);
    assert_eq!(
        edited.last(),
        Some(&(key("_items"), vec!["push".to_owned()]))
    );
}
