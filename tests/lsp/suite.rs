//! The project's own suite in the editor: it runs in the background once generation is idle,
//! hover on an uncovered side says whether the user's tests take it (and which comes closest),
//! `lacuna/coverage` counts the suite apart, and its results persist in `.lacuna/`: a restart
//! with nothing changed runs nothing, an edited function runs only the tests that reached it.

use super::client::Server;
use super::example::python;
use super::{has, home};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SETTINGS_PY: &str = r#"import os


def load(path):
    if os.path.isfile(path):
        return "file"
    return "default"


def mode():
    if os.environ.get("LACUNA_FIXTURE_MODE") == "fast":
        return 1
    return 0
"#;

const TESTS_PY: &str = r#"import os

from app.settings import load, mode


def test_load_a_file(tmp_path):
    config = tmp_path / "app.cfg"
    config.write_text("x")
    assert load(str(config)) == "file"


def test_load_nothing(tmp_path):
    assert load(str(tmp_path / "missing.cfg")) == "default"


def test_mode():
    assert mode() == 0


def test_runs_in_the_background():
    # The server's runs leave the processor to generation.
    assert os.nice(0) >= 10
"#;

fn project(dir: &Path) -> PathBuf {
    let root = std::fs::canonicalize(dir).unwrap().join("project");
    std::fs::create_dir_all(root.join("app")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[tool.lacuna]\npython = {:?}\n\n[tool.lacuna.budget]\nfunction-executions = 200\n\n[tool.lacuna.suspicious]\nenabled = false\n",
            python()
        ),
    )
    .unwrap();
    std::fs::write(root.join("app/__init__.py"), "").unwrap();
    std::fs::write(root.join("app/settings.py"), SETTINGS_PY).unwrap();
    std::fs::write(root.join("tests/test_settings.py"), TESTS_PY).unwrap();
    root
}

/// Waits for a log message starting with `prefix`; returns it.
fn log(server: &mut Server, prefix: &str) -> String {
    let m = server
        .wait_for(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(prefix))
        })
        .unwrap_or_else(|| panic!("no log message {prefix:?}"));
    m["params"]["message"].as_str().unwrap().to_owned()
}

/// The log messages received so far that start with `prefix`.
fn logged(server: &Server, prefix: &str) -> Vec<String> {
    server
        .notifications
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .filter_map(|m| m["params"]["message"].as_str())
        .filter(|t| t.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

fn suite_data(diagnostics: &[Value]) -> bool {
    diagnostics
        .iter()
        .any(|d| d["code"] == "LCN101" && d["data"]["suite"].is_object())
}

fn hover_at(server: &mut Server, uri: &str, d: &Value) -> String {
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": d["range"]["start"]}),
    );
    hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_suite_runs_in_the_background_is_explained_on_hover_and_persists_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let module = root.join("app/settings.py");
    let root_uri = super::client::uri(&root);

    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    assert_eq!(
        log(&mut server, "Lacuna: running your tests"),
        "Lacuna: running your tests: all of them (no results from an earlier run)"
    );
    assert_eq!(
        log(&mut server, "Lacuna: your tests ran"),
        "Lacuna: your tests ran: 4 tests reported; all recorded: 4 passed"
    );
    let diagnostics = server.diagnostics_where(&uri, suite_data);
    let coverage = server
        .wait_for(|m| m["method"] == "lacuna/coverage" && m["params"]["suite"].is_number())
        .expect("the file's coverage with the suite's count");
    // Both sides of each decision are the suite's; generated inputs cannot make a file exist
    // or set the environment variable.
    assert_eq!(coverage["params"]["suite"], 3, "{coverage}");
    assert_eq!(coverage["params"]["total"], 4, "{coverage}");
    let mut hovers = vec![];
    for d in diagnostics.iter().filter(|d| d["code"] == "LCN101") {
        let text = hover_at(&mut server, &uri, d);
        let paragraph = text
            .split("\n\n")
            .find(|p| p.starts_with("**Your tests.**"))
            .unwrap_or_else(|| panic!("no paragraph on the user's tests:\n{text}"))
            .replace(&root_uri, "<root>");
        hovers.push(format!("{}: {paragraph}", d["message"]));
    }
    insta::assert_snapshot!(hovers.join("\n"));
    server.shutdown();

    // Nothing changed: the suite does not run again.
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    assert_eq!(
        log(&mut server, "Lacuna: your tests are up to date"),
        "Lacuna: your tests are up to date: 4 results from an earlier run, none stale"
    );
    // The stored results still explain the sides at once.
    server.diagnostics_where(&uri, suite_data);
    assert!(
        logged(&server, "Lacuna: running your tests").is_empty(),
        "the suite ran again"
    );

    // One function changes: only the test that reached it runs again.
    let edited = SETTINGS_PY.replace("return 1\n", "return 2\n");
    std::fs::write(&module, &edited).unwrap();
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(
        log(&mut server, "Lacuna: running your tests"),
        "Lacuna: running your tests: 1 test reaching changed code (tests/test_settings.py::test_mode)"
    );
    assert_eq!(
        log(&mut server, "Lacuna: your tests ran"),
        "Lacuna: your tests ran: 1 test reported; all recorded: 4 passed"
    );
    server.diagnostics_where(&uri, |ds| has("LCN101")(ds) && suite_data(ds));

    // A test file changes: its own tests run again.
    let tests = root.join("tests/test_settings.py");
    std::fs::write(
        &tests,
        format!("{TESTS_PY}\n\ndef test_more():\n    assert mode() == 0\n"),
    )
    .unwrap();
    server.files_changed(std::slice::from_ref(&tests));
    assert_eq!(
        log(&mut server, "Lacuna: running your tests"),
        "Lacuna: running your tests: the tests of 1 new or changed test file (tests/test_settings.py)"
    );
    assert_eq!(
        log(&mut server, "Lacuna: your tests ran"),
        "Lacuna: your tests ran: 5 tests reported; all recorded: 5 passed"
    );
    server.shutdown();
}

#[test]
fn what_the_suite_showed_is_kept_so_a_restart_flags_suspicious_assertions_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = super::example::suspicious_project(dir.path());
    let module = root.join("paging/rules.py");
    let pristine = std::fs::read_to_string(&module).unwrap();
    std::fs::write(
        &module,
        pristine.replace(
            "    return (items + per_page - 1) // per_page\n",
            "    return (items + per_page) // per_page\n",
        ),
    )
    .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    // The first generation does not wait for the suite: the suspicious assertion comes once
    // the suite's observations do.
    log(&mut server, "Lacuna: running your tests: all of them");
    server.diagnostics_where(&uri, has("LCN300"));
    server.shutdown();

    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    server.diagnostics_where(&uri, has("LCN300"));
    log(&mut server, "Lacuna: your tests are up to date");
    // Generated again, the function is checked against the stored observations at once.
    server.discard_pending();
    let _ = server.request(
        "workspace/executeCommand",
        json!({"command": "lacuna.rerun", "arguments": [{"uri": uri}]}),
    );
    let published = server
        .wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        })
        .expect("the function's new outcome");
    assert!(
        has("LCN300")(published["params"]["diagnostics"].as_array().unwrap()),
        "{published:#}"
    );
    assert!(
        logged(&server, "Lacuna: running your tests").is_empty(),
        "the suite ran again"
    );
    server.shutdown();
}

#[test]
fn a_run_under_way_stops_when_generation_starts_and_runs_again_once_it_is_idle() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    std::fs::write(
        root.join("tests/test_slow.py"),
        "import time\n\n\ndef test_slow():\n    time.sleep(3)\n",
    )
    .unwrap();
    let module = root.join("app/settings.py");
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    log(&mut server, "Lacuna: running your tests: all of them");
    // A save that needs generation while the slow test runs.
    let edited = SETTINGS_PY.replace("return 1\n", "return 2\n");
    std::fs::write(&module, &edited).unwrap();
    server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(
        log(&mut server, "Lacuna: your tests: stopped"),
        "Lacuna: your tests: stopped to leave the processor to generation; they run again once it is idle"
    );
    assert_eq!(
        log(&mut server, "Lacuna: running your tests"),
        "Lacuna: running your tests: all of them (no results from an earlier run)"
    );
    assert_eq!(
        log(&mut server, "Lacuna: your tests ran"),
        "Lacuna: your tests ran: 5 tests reported; all recorded: 5 passed"
    );
    server.shutdown();
}
