//! Results reused by fingerprint: a second `lacuna check` reports every function from the
//! results store and prints what a fresh run prints; an edited function (and what its
//! fingerprint says depends on it) is explored again, nothing else; `--changed-since REF`
//! explores only what differs from a git revision and gives every other function an outcome.

use super::{example, stderr};
use std::path::Path;
use std::process::{Command, Output};

const FILE: &str = "shop/pricing.py";

/// `lacuna check --format json ARGS` on the project at `root`, `HOME` a temporary directory;
/// it exits 0.
fn check(root: &Path, args: &[&str]) -> (Output, serde_json::Value) {
    let (out, doc) = check_failing(root, args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    (out, doc)
}

/// The document without what measures the run rather than the code: times and the
/// `generation` object (the run's costs, and how many functions it explored and reused).
fn without_costs(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !k.ends_with("_ms") && *k != "generation")
            .map(|(k, v)| (k.clone(), without_costs(v)))
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(without_costs).collect(),
        v => v.clone(),
    }
}

/// Function name → fingerprint.
fn fingerprints(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["fingerprint"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn files_of(dir: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_second_run_reuses_every_function_and_prints_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let (_, first) = check(&root, &["--emit-tests", "first", FILE]);
    let explored = first["generation"]["explored"].as_u64().unwrap();
    assert!(explored > 3, "{}", first["generation"]);
    assert_eq!(first["generation"]["reused"], 0);
    assert!(root.join(".lacuna/store.redb").exists());

    let (out, second) = check(&root, &["--emit-tests", "second", FILE]);
    assert_eq!(
        second["generation"]["explored"], 0,
        "{}",
        second["generation"]
    );
    assert_eq!(second["generation"]["reused"], explored);
    assert_eq!(second["generation"]["executions"], 0);
    assert_eq!(without_costs(&second), without_costs(&first));
    assert_eq!(
        files_of(&root.join("second")),
        files_of(&root.join("first"))
    );
    assert_contains!(
        stderr(&out),
        &format!("lacuna: 0 functions explored, {explored} reported from the results store")
    );

    // One function edited: it alone changes fingerprint, and it alone is explored again.
    let path = root.join(FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("if qty > 100:", "if qty > 200:")).unwrap();
    let (_, third) = check(&root, &[FILE]);
    let before = fingerprints(&second);
    let changed: Vec<String> = fingerprints(&third)
        .into_iter()
        .zip(&before)
        .filter(|(now, then)| now != *then)
        .map(|((name, _), _)| name)
        .collect();
    assert_eq!(changed, ["bulk_unit_price"]);
    assert_eq!(
        third["generation"]["explored"], 1,
        "{}",
        third["generation"]
    );
    assert_eq!(third["generation"]["reused"], explored - 1);

    // `--no-cache` explores everything again, and leaves the store alone.
    let modified = std::fs::metadata(root.join(".lacuna/store.redb"))
        .unwrap()
        .modified()
        .unwrap();
    let (_, fresh) = check(&root, &["--no-cache", FILE]);
    assert_eq!(fresh["generation"]["explored"], explored);
    assert_eq!(fresh["generation"]["reused"], 0);
    assert_eq!(
        std::fs::metadata(root.join(".lacuna/store.redb"))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn changed_since_explores_only_what_differs_from_the_revision() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let path = root.join(FILE);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("if qty > 100:", "if qty > 200:")).unwrap();

    // No store: the unchanged functions are not explored, and say why.
    let cache = dir.path().join("store");
    let cache = cache.to_str().unwrap();
    let (out, doc) = check(
        &root,
        &["--cache-dir", cache, "--changed-since", "HEAD", FILE],
    );
    assert_eq!(doc["generation"]["explored"], 1, "{}", doc["generation"]);
    assert_eq!(doc["generation"]["reused"], 0);
    let unchanged = doc["generation"]["unchanged"].as_u64().unwrap();
    assert!(unchanged > 3);
    let functions: Vec<&serde_json::Value> = doc["files"][0]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let outcome = |name: &str| {
        functions
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(outcome("bulk_unit_price")["outcome"], "explored");
    let discount = outcome("discount_rate");
    assert_eq!(discount["outcome"], "unchanged");
    assert_eq!(
        discount["not_explored"],
        "unchanged since HEAD, and the results store has no exploration of it"
    );
    assert_eq!(
        functions
            .iter()
            .filter(|f| f["outcome"] == "unchanged")
            .count() as u64,
        unchanged
    );
    assert_contains!(
        stderr(&out),
        &format!(
            "lacuna: 1 functions explored, 0 reported from the results store, {unchanged} unchanged since HEAD and not explored"
        )
    );

    // With the store filled by a whole run, the unchanged functions are reported from it.
    let (_, whole) = check(&root, &["--cache-dir", cache, FILE]);
    assert_eq!(whole["generation"]["explored"], unchanged);
    let (_, again) = check(
        &root,
        &["--cache-dir", cache, "--changed-since", "HEAD", FILE],
    );
    assert_eq!(again["generation"]["explored"], 0);
    assert_eq!(again["generation"]["reused"], unchanged + 1);
    assert!(again["generation"].get("unchanged").is_none());
    assert_eq!(without_costs(&again), without_costs(&whole));

    // A revision git does not know is a usage error.
    let home = tempfile::tempdir().unwrap();
    let out = example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna")).args([
            "check",
            "--changed-since",
            "no-such-branch",
            FILE,
        ]),
        home.path(),
    )
    .current_dir(&root)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "git cannot find the revision `no-such-branch`"
    );
}

/// The names of the functions a JSON document reports.
fn names(doc: &serde_json::Value) -> Vec<String> {
    fingerprints(doc)
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// `--shard i/n` spreads functions by the exploration times an unsharded run stored: the slow
/// function alone in one shard, the five quick ones in the other (the stable hash, used when
/// no time is stored, puts the slow one with four of them); merged, the shards are the run.
#[test]
fn shards_are_balanced_by_the_times_the_store_keeps() {
    let (_dir, root) = super::python_project("balance", &[]);
    let mut module = String::from(
        "import time\n\n\ndef slow(x: int, y: int) -> int:\n    time.sleep(0.4)\n    if x > 5 and y < 3:\n        return 1\n    return 0\n",
    );
    for name in ["rate", "clamp", "sign", "parity", "grade"] {
        module.push_str(&format!(
            "\n\ndef {name}(a: int) -> int:\n    if a > 1:\n        return 1\n    return 0\n"
        ));
    }
    std::fs::write(root.join("work.py"), module).unwrap();
    let quick = ["rate", "clamp", "sign", "parity", "grade"];

    // No stored times: the stable hash.
    let (_, hashed) = check(&root, &["--no-cache", "--shard", "1/2"]);
    assert_eq!(names(&hashed), ["slow", "clamp", "sign", "parity", "grade"]);

    let (_, whole) = check(&root, &[]);
    let time = |name: &str| {
        whole["files"][0]["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()["time_ms"]
            .as_u64()
            .unwrap()
    };
    let quick_total: u64 = quick.iter().map(|n| time(n)).sum();
    assert!(
        time("slow") > quick_total,
        "slow {} ms, the others {quick_total} ms together",
        time("slow")
    );
    let (_, first) = check(&root, &["--shard", "1/2"]);
    let (_, second) = check(&root, &["--shard", "2/2"]);
    assert_eq!(names(&first), ["slow"]);
    assert_eq!(names(&second), quick);

    for (i, doc) in [&first, &second].iter().enumerate() {
        std::fs::write(
            root.join(format!("shard-{i}.json")),
            serde_json::to_vec(doc).unwrap(),
        )
        .unwrap();
    }
    let merged = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["merge", "shard-0.json", "shard-1.json"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(without_costs(&merged), without_costs(&whole));
}

/// A declaration added to the guidance module explores again the functions whose exploration
/// saw the call it mocks, and only those.
#[test]
fn a_guidance_change_explores_again_only_the_functions_it_concerns() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let (_, first) = check(&root, &[FILE]);
    let explored = first["generation"]["explored"].as_u64().unwrap();
    std::fs::write(
        root.join("tests/lacuna_guidance.py"),
        "def mock(target):\n    def mark(function):\n        function.__lacuna_mock__ = target\n        return function\n\n    return mark\n\n\n@mock(\"time.time\")\ndef time_time(*args, **kwargs) -> float:\n    \"\"\"Generated tests choose what `time.time` returns.\"\"\"\n",
    )
    .unwrap();
    let (_, second) = check(&root, &[FILE]);
    assert_eq!(
        second["generation"]["explored"], 1,
        "{}",
        second["generation"]
    );
    assert_eq!(second["generation"]["reused"], explored - 1);
}

/// `lacuna check --format json ARGS` on the project at `root`, `HOME` a temporary directory,
/// whatever its exit code.
fn check_failing(root: &Path, args: &[&str]) -> (Output, serde_json::Value) {
    let home = tempfile::tempdir().unwrap();
    let out = example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .args(["check", "--format", "json"])
            .args(args),
        home.path(),
    )
    .current_dir(root)
    .output()
    .expect("the lacuna binary runs");
    let doc =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (out, doc)
}

/// The diagnostics of a document with `code`, as `file:line message`.
fn coded(doc: &serde_json::Value, code: &str) -> Vec<String> {
    doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["code"] == code)
                .map(move |d| format!("{}:{} {}", f["path"], d["line"], d["message"]))
        })
        .collect()
}

/// The LCN108 diagnostics of a document.
fn import_errors(doc: &serde_json::Value) -> Vec<String> {
    coded(doc, "LCN108")
}

/// A function whose module does not import is reported from the store with its LCN108 error
/// while nothing it depends on changes; an edit elsewhere does not explore it again; the
/// missing module appearing does.
#[test]
fn a_module_that_does_not_import_is_tried_again_only_when_what_it_depends_on_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"app\"\n").unwrap();
    std::fs::create_dir(root.join("app")).unwrap();
    std::fs::write(root.join("app/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("app/feed.py"),
        "import feedkit\n\n\ndef kind(x):\n    if x > 0:\n        return feedkit.POSITIVE\n    return 'neg'\n",
    )
    .unwrap();
    std::fs::write(
        root.join("app/other.py"),
        "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n",
    )
    .unwrap();
    let (_, first) = check_failing(root, &["app"]);
    assert_eq!(
        first["generation"]["explored"], 2,
        "{}",
        first["generation"]
    );
    let errors = import_errors(&first);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("feedkit"), "{errors:?}");

    let (out, second) = check_failing(root, &["app"]);
    assert_eq!(second["generation"]["explored"], 0, "{}", stderr(&out));
    assert_eq!(second["generation"]["reused"], 2);
    assert_eq!(without_costs(&second), without_costs(&first));
    assert_eq!(
        out.status.code(),
        Some(1),
        "the exit code still says it failed"
    );

    // Another module edited: only its function is explored again.
    std::fs::write(
        root.join("app/other.py"),
        "def sign(x):\n    if x <= 0:\n        return -1\n    return 1\n",
    )
    .unwrap();
    let (_, third) = check_failing(root, &["app"]);
    assert_eq!(
        third["generation"]["explored"], 1,
        "{}",
        third["generation"]
    );
    assert_eq!(import_errors(&third), errors);

    // The missing module is there now: the function is explored and its module imports.
    std::fs::write(root.join("feedkit.py"), "POSITIVE = 'pos'\n").unwrap();
    let (_, fourth) = check_failing(root, &["app"]);
    assert_eq!(
        fourth["generation"]["explored"], 1,
        "{}",
        fourth["generation"]
    );
    assert_eq!(import_errors(&fourth), Vec::<String>::new());
}

/// A module whose import never ends is one error on the line it was running, for all its
/// functions after a single wait (the agent interrupts the import and says where it was); the
/// next run reports it from the store without importing it again.
#[test]
fn a_module_whose_import_never_ends_is_one_located_error_and_is_not_waited_for_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"app\"\n").unwrap();
    std::fs::write(
        root.join("waits.py"),
        "import time\n\ntime.sleep(300)\n\n\ndef kind(x):\n    if x > 0:\n        return 'pos'\n    return 'neg'\n\n\ndef sign(x):\n    if x < 0:\n        return -1\n    return 1\n",
    )
    .unwrap();
    let (out, first) = check_failing(root, &["waits.py"]);
    assert_eq!(
        import_errors(&first),
        [
            "\"waits.py\":3 \"cannot import `waits`: the import did not finish within 15 s: `waits` was still running line 3; 2 functions not explored. Fix: move what runs at module level there into a function (or under `if __name__ == \\\"__main__\\\":`), so that importing the module only defines what it holds\""
        ],
        "{}",
        stderr(&out)
    );
    let (out, second) = check_failing(root, &["waits.py"]);
    assert_eq!(second["generation"]["explored"], 0, "{}", stderr(&out));
    assert_eq!(second["generation"]["reused"], 2);
    assert_eq!(import_errors(&second), import_errors(&first));
}

/// The LCN107 diagnostics of a document.
fn not_explored(doc: &serde_json::Value) -> Vec<String> {
    coded(doc, "LCN107")
}

#[test]
fn a_module_that_ends_the_process_when_imported_is_said_so_and_not_tried_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"app\"\n").unwrap();
    std::fs::write(
        root.join("ends.py"),
        "import os\n\nos._exit(3)\n\n\ndef kind(x):\n    if x > 0:\n        return 'pos'\n    return 'neg'\n",
    )
    .unwrap();
    let (out, first) = check_failing(root, &["ends.py"]);
    assert_eq!(
        not_explored(&first),
        [
            "\"ends.py\":6 \"not explored: the agent's worker ended (exit code 3) twice while importing `ends` to read `kind`: the module ends the process when it is imported (`os._exit`, a crash in an extension module)\""
        ],
        "{}",
        stderr(&out)
    );
    let (out, second) = check_failing(root, &["ends.py"]);
    assert_eq!(second["generation"]["explored"], 0, "{}", stderr(&out));
    assert_eq!(second["generation"]["reused"], 1);
    assert_eq!(not_explored(&second), not_explored(&first));
}

#[test]
fn results_another_interpreter_computed_are_not_reused() {
    let (python, _) = crate::test_python();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("calc");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"calc\"\n").unwrap();
    std::fs::write(
        root.join("calc.py"),
        "def sign(x: int) -> str:\n    if x < 0:\n        return 'negative'\n    return 'other'\n",
    )
    .unwrap();
    // Two virtual environments' interpreters: both the test interpreter, at two paths.
    let venv = |name: &str| {
        let bin = dir.path().join(name).join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(&python, bin.join("python")).unwrap();
        dir.path().join(name)
    };
    let (first, second) = (venv("first"), venv("second"));
    let run = |venv: &Path| {
        let home = tempfile::tempdir().unwrap();
        let out = example::isolate(
            Command::new(env!("CARGO_BIN_EXE_lacuna"))
                .args(["check", "--format", "json", "calc.py"]),
            home.path(),
        )
        .env("VIRTUAL_ENV", venv)
        .current_dir(&root)
        .output()
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            doc["generation"]["explored"].as_u64().unwrap(),
            doc["generation"]["reused"].as_u64().unwrap(),
        )
    };
    assert_eq!(run(&first), (1, 0));
    assert_eq!(run(&first), (0, 1), "the same interpreter: reused");
    assert_eq!(run(&second), (1, 0), "another interpreter: explored again");
}
