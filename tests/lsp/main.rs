//! End-to-end tests of the language server: the real `lacuna lsp` binary over stdio, on a
//! project in a temporary directory, with the real agent, CPython and z3 underneath. `HOME`
//! points into the temporary directory too.

mod client;
mod efficacy;
#[path = "../support/example.rs"]
mod example;
mod neovim;
mod robustness;
mod sequence_fuzz;
mod suite;
mod suspicious;

use client::Server;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The module every session opens; the VS Code extension's contract tests use it too.
const CONFIG_PY: &str = include_str!("../fixtures/lsp/config.py");

use example::python;

/// A project with one module, `app/config.py`; returns (temp dir, project root, module path).
fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    std::fs::create_dir_all(root.join("app")).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[tool.lacuna]\npython = {:?}\n\n[tool.lacuna.budget]\nfunction-executions = 300\nfunction-time-ms = 30000\n",
            python()
        ),
    )
    .unwrap();
    std::fs::write(root.join("app/__init__.py"), "").unwrap();
    let module = root.join("app/config.py");
    std::fs::write(&module, CONFIG_PY).unwrap();
    (dir, root, module)
}

fn home(dir: &tempfile::TempDir) -> PathBuf {
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    home
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect()
}

fn has(code: &str) -> impl Fn(&[Value]) -> bool + '_ {
    move |ds| ds.iter().any(|d| d["code"] == code)
}

#[test]
fn opening_generates_tests_and_explains_the_external_call() {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), &[]);
    let init = server.initialize(&root, json!({"trusted": true}));
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["codeActionProvider"]["resolveProvider"], true);
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(
        caps["executeCommandProvider"]["commands"],
        json!([
            "lacuna.rerun",
            "lacuna.exportTests",
            "lacuna.guidanceModule"
        ])
    );
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN101"));
    let emcp: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "LCN101")
        .collect();
    assert_eq!(emcp.len(), 1, "{diagnostics:#?}");
    let d = emcp[0];
    assert_eq!(
        d["range"],
        json!({"start": {"line": 5, "character": 7}, "end": {"line": 5, "character": 27}})
    );
    assert_eq!(d["source"], "lacuna");
    assert_eq!(d["severity"], 2);
    assert_eq!(
        d["message"],
        "true branch never taken: depends on the return value of `os.path.exists` (line 6), which generated inputs cannot control"
    );
    assert_eq!(d["data"]["callee"], "os.path.exists");
    assert_eq!(d["data"]["external"], "environment");
    assert!(
        d["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("docs/diagnostics/LCN101.md")
    );
    // The other decision is covered both ways: nothing else to say.
    assert_eq!(codes(&diagnostics), ["LCN101"]);
    let coverage = server
        .wait_for(|m| m["method"] == "lacuna/coverage" && m["params"]["uri"] == uri.as_str())
        .unwrap();
    assert_eq!(coverage["params"]["total"], 4);
    assert_eq!(coverage["params"]["covered"], 3);

    // Hover explains the cause, the dependence, the needed condition, the closest input, the fix.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 12}}),
    );
    let markdown = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    for expected in [
        "**Lacuna `LCN101`**",
        "depends on the world outside the inputs",
        "**Data dependence.**",
        "```python\nos.path.exists(path)\n```",
        "**Closest generated input**",
        "load(",
        "Mock `os.path.exists` in generated tests",
        "docs/diagnostics/LCN101.md",
    ] {
        assert!(
            markdown.contains(expected),
            "hover lacks {expected:?}:\n{markdown}"
        );
    }

    // The code action writes a mock declaration into a new guidance module.
    let actions = server.code_actions(&uri, d);
    let action = actions["result"][0].clone();
    assert_eq!(action["title"], "Mock `os.path.exists` in generated tests");
    assert_eq!(action["kind"], "quickfix");
    let resolved = server.request("codeAction/resolve", action.clone());
    let guidance = root.join("tests/lacuna_guidance.py");
    let text = apply_workspace_edit(&resolved["result"]["edit"], &guidance);
    assert!(
        text.contains("@mock(\"os.path.exists\")\ndef os_path_exists(*args, **kwargs)"),
        "{text}"
    );
    let parses = std::process::Command::new(python())
        .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"])
        .arg(&guidance)
        .status()
        .unwrap();
    assert!(parses.success());
    // Offered again, it is refused rather than duplicated.
    let action_again = action.clone();
    let again = server.request("codeAction/resolve", action);
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already mocked"),
        "{again}"
    );
    // However the declaration is laid out or quoted, it is the same declaration: the action
    // is not offered again, and resolving it is still refused.
    let relaid = text.replace(
        "@mock(\"os.path.exists\")",
        "@mock(\n    'os.path.exists' ,\n)",
    );
    assert_ne!(relaid, text);
    std::fs::write(&guidance, &relaid).unwrap();
    let offered = server.code_actions(&uri, d);
    assert!(offered.get("error").is_none(), "{offered}");
    assert!(
        offered["result"].as_array().is_none_or(|a| a
            .iter()
            .all(|a| a["title"] != "Mock `os.path.exists` in generated tests")),
        "{offered}"
    );
    let again = server.request("codeAction/resolve", action_again);
    assert!(
        again["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already mocked")),
        "{again}"
    );
    server.shutdown();
}

/// Applies an LSP workspace edit that creates and/or inserts into one file, as an editor would.
/// Applies the edits of `edit` to the file at `path` (the only document it may change), as an
/// editor would; returns the new text.
fn apply_workspace_edit(edit: &Value, path: &Path) -> String {
    let changed = apply_edits(edit);
    assert!(
        changed.iter().all(|p| p == path),
        "the edit changes {changed:?}, not only {}",
        path.display()
    );
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Applies every document change of `edit` (creations, insertions and replacements) on disk;
/// returns the files changed.
fn apply_edits(edit: &Value) -> Vec<PathBuf> {
    try_apply_edits(edit).unwrap_or_else(|e| panic!("{e}"))
}

/// As an editor applies a workspace edit: all or nothing; a `create` of a file that exists
/// fails the whole edit unless its options say to overwrite or ignore it (the protocol's rule).
fn try_apply_edits(edit: &Value) -> Result<Vec<PathBuf>, String> {
    let operations = edit["documentChanges"].as_array().unwrap();
    for op in operations.iter().filter(|op| op["kind"] == "create") {
        let path = PathBuf::from(op["uri"].as_str().unwrap().trim_start_matches("file://"));
        let options = &op["options"];
        let tolerated = options["overwrite"] == true || options["ignoreIfExists"] == true;
        if path.exists() && !tolerated {
            return Err(format!("{} already exists", path.display()));
        }
    }
    let mut changed = vec![];
    for op in operations {
        if op["kind"] == "create" {
            let path = PathBuf::from(op["uri"].as_str().unwrap().trim_start_matches("file://"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            continue;
        }
        let path = PathBuf::from(
            op["textDocument"]["uri"]
                .as_str()
                .unwrap()
                .trim_start_matches("file://"),
        );
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        // Last position first; at one position, the last edit first, so that insertions at
        // the same position end up in the order given (as the protocol says).
        let mut edits: Vec<(usize, &Value)> =
            op["edits"].as_array().unwrap().iter().enumerate().collect();
        edits.sort_by_key(|(k, e)| {
            let s = &e["range"]["start"];
            std::cmp::Reverse((
                s["line"].as_u64().unwrap(),
                s["character"].as_u64().unwrap(),
                *k,
            ))
        });
        for (_, e) in edits {
            let index = lacuna_grammar::LineIndex::new(&text);
            let offset = |p: &Value| {
                index
                    .offset(lacuna_grammar::LineCol {
                        line: p["line"].as_u64().unwrap() as u32,
                        col: p["character"].as_u64().unwrap() as u32,
                    })
                    .unwrap() as usize
            };
            let (start, end) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
            text.replace_range(start..end, e["newText"].as_str().unwrap());
        }
        std::fs::write(&path, &text).unwrap();
        changed.push(path);
    }
    Ok(changed)
}

#[test]
fn edits_get_static_diagnostics_and_stale_results_are_never_published() {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    // Rapid edits while generation runs: a syntax error, then more text.
    for version in 2..=6 {
        server.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{
                    "range": {"start": {"line": 9, "character": 18}, "end": {"line": 9, "character": 18}},
                    "text": if version == 2 { " +" } else { " 1" }
                }]
            }),
        );
    }
    let last = server
        .wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["version"] == 6
        })
        .unwrap();
    // `return "short" + 1 1 1 1` does not parse.
    assert!(codes(last["params"]["diagnostics"].as_array().unwrap()).contains(&"LCN001"));
    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    // A hover round trip: everything published before it has been received.
    let _ = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    let versions: Vec<i64> = server
        .notifications
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .filter_map(|m| m["params"]["version"].as_i64())
        .collect();
    assert!(
        versions.windows(2).all(|w| w[0] <= w[1]),
        "published out of order: {versions:?}"
    );
    server.shutdown();
}

#[test]
fn untrusted_workspaces_get_static_diagnostics_only() {
    let (dir, root, module) = project();
    std::fs::write(&module, format!("{CONFIG_PY}\ndef broken(:\n")).unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": false}));
    let status = server.wait_for(|m| m["method"] == "lacuna/status").unwrap();
    assert_eq!(status["params"]["state"], "static");
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN001"));
    assert_eq!(codes(&diagnostics), ["LCN001"]);
    let _ = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 8}}),
    );
    assert!(
        !server
            .notifications
            .iter()
            .any(|m| m["params"]["state"] == "generating"),
        "nothing runs in an untrusted workspace"
    );
    assert!(
        !root.join(".lacuna").exists(),
        "and nothing is written into it"
    );
    server.shutdown();
}

/// `select`, `ignore` and `extend-select` of `[tool.lacuna]` filter what the editor shows
/// exactly as they filter `lacuna check`'s report.
#[test]
fn the_configured_selection_filters_published_diagnostics() {
    let (dir, root, module) = project();
    let pyproject = std::fs::read_to_string(root.join("pyproject.toml")).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        pyproject.replace(
            "[tool.lacuna]\n",
            "[tool.lacuna]\nselect = [\"LCN0\"]\nignore = [\"LCN001\"]\n",
        ),
    )
    .unwrap();
    let chain = vec!["x"; 3000].join(" or ");
    std::fs::write(
        &module,
        format!("def g(x):\n    if {chain}:\n        pass\n\ndef broken(:\n"),
    )
    .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": false}));
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN003"));
    assert_eq!(
        codes(&diagnostics),
        ["LCN003"],
        "the syntax error (LCN001) is ignored: {diagnostics:#?}"
    );
    server.shutdown();
}

/// A `# lacuna: ignore[…]` marker silences the published diagnostics of its codes on its line,
/// as in `lacuna check`; a coverage exclusion leaves its decision out altogether.
#[test]
fn suppressed_and_excluded_lines_publish_nothing() {
    let (dir, root, module) = project();
    let chain = vec!["x"; 3000].join(" or ");
    std::fs::write(
        &module,
        format!(
            "def g(x):\n    if {chain}:\n        pass\n\ndef h(x):\n    if {chain}:  # lacuna: ignore[LCN003]\n        pass\n\ndef k(x):\n    if {chain}:  # pragma: no cover\n        pass\n\ndef broken(:  # lacuna: ignore\n"
        ),
    )
    .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": false}));
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN003"));
    let lines: Vec<(String, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [("LCN003".to_owned(), 1)],
        "only `g`'s oversized decision: {diagnostics:#?}"
    );
    server.shutdown();
}

#[test]
fn malformed_messages_get_an_error_and_the_server_keeps_serving() {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), &["--static-only"]);
    server.initialize(&root, json!({}));
    server.send_raw("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    let error = server.wait_for(|m| m.get("error").is_some()).unwrap();
    assert_eq!(error["error"]["code"], -32700, "parse error: {error}");
    let unknown = server.request("textDocument/hover", json!({"nonsense": true}));
    assert!(unknown.get("error").is_some());
    let uri = server.open(&module, 1);
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null);
    server.shutdown();
}

#[test]
fn results_persist_across_restarts() {
    let (dir, root, module) = project();
    let home = home(&dir);
    let mut first = Server::start(&home, &[]);
    first.initialize(&root, json!({"trusted": true}));
    let uri = first.open(&module, 1);
    first.diagnostics_where(&uri, has("LCN101"));
    first.shutdown();
    assert!(root.join(".lacuna/store.redb").exists());
    assert_eq!(
        std::fs::read_to_string(root.join(".lacuna/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );

    let mut second = Server::start(&home, &[]);
    second.initialize(&root, json!({"trusted": true}));
    second.open(&module, 1);
    let first_publish = second
        .wait_for(|m| m["method"] == "textDocument/publishDiagnostics")
        .unwrap();
    assert_eq!(
        codes(first_publish["params"]["diagnostics"].as_array().unwrap()),
        ["LCN101"]
    );
    let _ = second.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert!(
        !second
            .notifications
            .iter()
            .any(|m| m["params"]["state"] == "generating"),
        "a stored result needs no generation"
    );
    second.shutdown();
}

/// What a function does depends on the Python running it: results another interpreter
/// computed (the system's `python3`, before the project's `.venv` existed) are not shown, the
/// functions are generated again with the new one.
#[test]
fn results_another_interpreter_computed_are_not_shown() {
    let (dir, root, module) = project();
    // No `python` configured: the interpreter is discovered (`.venv/` before `python3`).
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.lacuna.budget]\nfunction-executions = 300\nfunction-time-ms = 30000\n",
    )
    .unwrap();
    let home = home(&dir);
    let generated = |server: &Server| {
        server
            .notifications
            .iter()
            .any(|m| m["params"]["state"] == "generating")
    };
    let mut first = Server::start_without(&home, &[], &["VIRTUAL_ENV"]);
    first.initialize(&root, json!({"trusted": true}));
    let uri = first.open(&module, 1);
    first.diagnostics_where(&uri, has("LCN101"));
    assert!(generated(&first));
    first.shutdown();

    // The same session again: the stored results are shown, nothing is generated.
    let mut again = Server::start_without(&home, &[], &["VIRTUAL_ENV"]);
    again.initialize(&root, json!({"trusted": true}));
    again.open(&module, 1);
    again.diagnostics_where(&uri, has("LCN101"));
    let _ = again.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert!(
        !generated(&again),
        "the same interpreter's results are reused"
    );
    again.shutdown();

    // A `.venv` appears: its interpreter runs the workers from now on.
    std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
    std::os::unix::fs::symlink(python(), root.join(".venv/bin/python")).unwrap();
    let mut second = Server::start_without(&home, &[], &["VIRTUAL_ENV"]);
    second.initialize(&root, json!({"trusted": true}));
    second.open(&module, 1);
    second
        .wait_for(|m| m["params"]["state"] == "generating")
        .expect("generated again with the new interpreter");
    second.diagnostics_where(&uri, has("LCN101"));
    second.shutdown();
}

/// Results are keyed by the interpreter the workers run, not by the name it was found by: a
/// `python` that is a wrapper (a pyenv shim, a script) running another interpreter from one
/// session to the next gets its functions generated again.
#[test]
fn results_are_keyed_by_the_interpreter_a_wrapper_runs() {
    let (dir, root, module) = project();
    let venv = |name: &str| {
        let bin = dir.path().join(name).join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(python(), bin.join("python")).unwrap();
        bin.join("python")
    };
    let (first, second) = (venv("first"), venv("second"));
    let wrapper = dir.path().join("python-wrapper");
    let wrap = |target: &std::path::Path| {
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\nexec {} \"$@\"\n", target.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    wrap(&first);
    std::fs::write(
        root.join("pyproject.toml"),
        format!(
            "[tool.lacuna]\npython = {:?}\n\n[tool.lacuna.budget]\nfunction-executions = 300\nfunction-time-ms = 30000\n",
            wrapper.display().to_string()
        ),
    )
    .unwrap();
    let home = home(&dir);
    let generated = |server: &Server| {
        server
            .notifications
            .iter()
            .any(|m| m["params"]["state"] == "generating")
    };
    let session = |expect_generation: bool| {
        let mut server = Server::start(&home, &[]);
        server.initialize(&root, json!({"trusted": true}));
        let uri = server.open(&module, 1);
        if expect_generation {
            let found = server.wait_for(|m| m["params"]["state"] == "generating");
            assert!(
                found.is_some(),
                "generated with the interpreter the wrapper runs: {:#?}",
                server.notifications
            );
        }
        server.diagnostics_where(&uri, has("LCN101"));
        let _ = server.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
        );
        let did = generated(&server);
        server.shutdown();
        did
    };
    assert!(session(true));
    assert!(
        !session(false),
        "the same interpreter behind the wrapper: the stored results are shown"
    );
    // The wrapper now runs another interpreter: what the first computed is not shown.
    wrap(&second);
    assert!(session(true));
}

#[test]
fn a_crashing_worker_does_not_stop_the_server_and_tests_export() {
    let (dir, root, module) = project();
    std::fs::write(
        root.join("app/crash.py"),
        "import os\n\n\ndef crash(n: int) -> int:\n    if n > 7:\n        os._exit(3)\n    return n\n",
    )
    .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let crash = server.open(&root.join("app/crash.py"), 1);
    let uri = server.open(&module, 1);
    server.diagnostics_where(&uri, has("LCN101"));
    server
        .wait_for(|m| m["method"] == "lacuna/coverage" && m["params"]["uri"] == crash.as_str())
        .expect("the crashing function was explored");
    let out = dir.path().join("exported");
    let exported = server.request(
        "workspace/executeCommand",
        json!({"command": "lacuna.exportTests", "arguments": [{"directory": out}]}),
    );
    let written = exported["result"]["written"]
        .as_array()
        .expect("files written");
    assert!(!written.is_empty(), "{exported}");
    for file in written {
        let text = std::fs::read_to_string(file.as_str().unwrap()).unwrap();
        assert!(text.contains("def test_"), "{text}");
    }
    // The guidance module: created with its header on first request, never overwritten.
    let guidance = |server: &mut Server| {
        server.request(
            "workspace/executeCommand",
            json!({"command": "lacuna.guidanceModule", "arguments": []}),
        )["result"]
            .clone()
    };
    let first = guidance(&mut server);
    let path = root.join("tests/lacuna_guidance.py");
    assert_eq!(
        first,
        json!({"path": path.display().to_string(), "created": true})
    );
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("def mock(target):")
    );
    assert_eq!(guidance(&mut server)["created"], false);
    server.shutdown();
}

#[test]
fn clients_that_pull_diagnostics_are_asked_to_refresh_and_get_them() {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), &[]);
    let init = server.initialize_with(
        &root,
        json!({"trusted": true}),
        json!({
            "workspace": {"configuration": true, "diagnostics": {"refreshSupport": true}},
            "textDocument": {"diagnostic": {"dynamicRegistration": false}}
        }),
    );
    assert!(
        init["result"]["capabilities"]["diagnosticProvider"].is_object(),
        "{init}"
    );
    let uri = server.open(&module, 1);
    server
        .wait_for(|m| m["method"] == "lacuna/coverage" && m["params"]["uri"] == uri.as_str())
        .unwrap();
    let report = server.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(report["result"]["kind"], "full", "{report}");
    let items = report["result"]["items"].as_array().unwrap();
    assert!(codes(items).contains(&"LCN101"), "{items:#?}");
    assert!(
        server
            .notifications
            .iter()
            .any(|m| m["method"] == "workspace/diagnostic/refresh"),
        "the server asks the client to pull again when results arrive"
    );
    server.shutdown();
}

/// A project with the module `app/<name>.py` holding `source`, open in a started server, once
/// its diagnostics include `code`: (temp dir, project root, server, URI, diagnostics).
fn open_module(
    name: &str,
    source: &str,
    code: &str,
) -> (tempfile::TempDir, PathBuf, Server, String, Vec<Value>) {
    let (dir, root, _) = project();
    let module = root.join(format!("app/{name}.py"));
    std::fs::write(&module, source).unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has(code));
    (dir, root, server, uri, diagnostics)
}

#[test]
fn dead_branches_are_proven_and_faded() {
    let (_dir, _, server, _, diagnostics) = open_module(
        "levels",
        "def reorder_level(daily: int, lead: int) -> int:\n    level = daily * lead\n    if level < 50:\n        if level > 100:\n            level = 100\n    return level\n",
        "LCN106",
    );
    let dead = diagnostics.iter().find(|d| d["code"] == "LCN106").unwrap();
    assert_eq!(dead["range"]["start"], json!({"line": 3, "character": 11}));
    assert_eq!(dead["tags"], json!([1]), "editors fade dead code: {dead}");
    assert_eq!(
        dead["message"],
        "true branch never taken: dead: `level > 100` cannot hold where `level < 50` (line 3)"
    );
    server.shutdown();
}

#[test]
fn a_factory_the_guidance_module_has_is_not_offered_again() {
    let (_dir, root, mut server, uri, diagnostics) = open_module(
        "stack",
        "class Stack:\n    def __init__(self):\n        self._items = []\n\n    def push(self, item):\n        self._items.append(item)\n\n    def count(self):\n        return len(self._items)\n\n\ndef is_full(stack: Stack) -> bool:\n    if stack.count() >= 100:\n        return True\n    return False\n",
        "LCN103",
    );
    let d = diagnostics.iter().find(|d| d["code"] == "LCN103").unwrap();
    let titles = |server: &mut Server| -> Vec<String> {
        server.code_actions(&uri, d)["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["title"].as_str().map(str::to_owned))
            .collect()
    };
    let create = "Create a factory for `Stack`".to_owned();
    let offered = titles(&mut server);
    assert!(offered.contains(&create), "{offered:?}");
    let create_action = server.code_actions(&uri, d)["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == create.as_str())
        .cloned()
        .unwrap();
    let without_create: Vec<String> = offered.iter().filter(|t| **t != create).cloned().collect();

    // The editor has the guidance module open, with a factory not saved yet.
    let guidance = root.join("tests/lacuna_guidance.py");
    let guidance_uri = client::uri(&guidance);
    let factory = "from app.stack import Stack\n\n\n@factory\ndef make_stack() -> Stack:\n    return Stack()\n";
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": guidance_uri, "languageId": "python", "version": 1, "text": factory}}),
    );
    assert_eq!(
        titles(&mut server),
        without_create,
        "the bound is still offered"
    );

    // On disk, a factory under another name that builds a `Stack`: neither offered nor accepted.
    server.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": guidance_uri}}),
    );
    std::fs::create_dir_all(guidance.parent().unwrap()).unwrap();
    std::fs::write(
        &guidance,
        "import app.stack\n\n\n@factory\ndef full_stack(n: int) -> \"app.stack.Stack\":\n    stack = app.stack.Stack()\n    for i in range(n):\n        stack.push(i)\n    return stack\n",
    )
    .unwrap();
    assert_eq!(titles(&mut server), without_create);
    // Hover points at the factory to extend instead.
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": d["range"]["start"]}),
    );
    let markdown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        markdown.contains("factory [`full_stack`](file://") && markdown.contains("#L5)"),
        "{markdown}"
    );
    let refused = server.request("codeAction/resolve", create_action);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("already has a factory")),
        "{refused}"
    );

    // Without it, the action is back.
    std::fs::write(&guidance, "\"\"\"Nothing yet.\"\"\"\n").unwrap();
    assert!(titles(&mut server).contains(&create));
    server.shutdown();
}

/// A module created after start-up in a directory whose name is no identifier
/// (`python-client`) is imported from that directory as soon as the editor's watcher reports
/// it, as one there at start-up is — not "not explored: rename `python-client`" until the
/// configuration is next read.
#[test]
fn a_module_created_later_where_no_import_can_name_it_is_explored() {
    let (dir, root, _) = project();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let client = root.join("python-client/client.py");
    std::fs::create_dir_all(client.parent().unwrap()).unwrap();
    std::fs::write(
        &client,
        "import time\n\n\ndef late() -> bool:\n    if time.time() > 4e9:\n        return True\n    return False\n",
    )
    .unwrap();
    server.files_changed(std::slice::from_ref(&client));
    let uri = server.open(&client, 1);
    let diagnostics = server.diagnostics_where(&uri, |ds| {
        has("LCN101")(ds) || ds.iter().any(|d| d["code"] == "LCN107")
    });
    assert_eq!(codes(&diagnostics), ["LCN101"], "{diagnostics:#?}");
    server.shutdown();
}

#[test]
fn a_guidance_change_re_explores_only_the_functions_it_concerns() {
    let (dir, root, module) = project();
    let clock = root.join("app/clock.py");
    std::fs::write(
        &clock,
        "import time\n\n\ndef late() -> bool:\n    if time.time() > 4e9:\n        return True\n    return False\n",
    )
    .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let config_uri = server.open(&module, 1);
    let clock_uri = server.open(&clock, 1);
    let diagnostics = server.diagnostics_where(&config_uri, has("LCN101"));
    server.diagnostics_where(&clock_uri, has("LCN101"));
    let d = diagnostics.iter().find(|d| d["code"] == "LCN101").unwrap();
    let action = server.code_actions(&config_uri, d)["result"][0].clone();
    assert_eq!(action["title"], "Mock `os.path.exists` in generated tests");
    let resolved = server.request("codeAction/resolve", action);
    let changed = apply_edits(&resolved["result"]["edit"]);
    let mark = server.notifications.len();
    server.files_changed(&changed);
    // Generation starts again, and settles.
    let statuses = |server: &Server| -> Vec<Value> {
        server.notifications[mark..]
            .iter()
            .filter(|m| m["method"] == "lacuna/status")
            .map(|m| m["params"].clone())
            .collect()
    };
    while !statuses(&server)
        .iter()
        .skip_while(|s| s["state"] != "generating")
        .any(|s| s["state"] == "idle")
    {
        server
            .wait_for(|m| m["method"] == "lacuna/status")
            .expect("generation settles");
    }
    let explored: Vec<Value> = statuses(&server)
        .iter()
        .filter(|s| s["state"] == "generating")
        .map(|s| s["function"].clone())
        .collect();
    assert_eq!(
        explored,
        [json!("load")],
        "only the caller of the mocked call is explored again"
    );
    assert!(
        !has("LCN101")(&server.latest_diagnostics(&config_uri)),
        "the mock covers the side"
    );
    assert!(
        has("LCN101")(&server.latest_diagnostics(&clock_uri)),
        "the other module keeps its results"
    );
    server.shutdown();
}

/// A server on the project, trusted, once `module` has two `LCN107`: its diagnostics then.
fn two_not_explored(
    dir: &tempfile::TempDir,
    root: &std::path::Path,
    module: &std::path::Path,
) -> (Server, Vec<Value>) {
    let mut server = Server::start(&home(dir), &[]);
    server.initialize(root, json!({"trusted": true}));
    let uri = server.open(module, 1);
    let skipped_two = |d: &[Value]| d.iter().filter(|d| d["code"] == "LCN107").count() == 2;
    let diagnostics = server.diagnostics_where(&uri, skipped_two);
    (server, diagnostics)
}

#[test]
fn functions_not_explored_are_published_with_their_reason() {
    let (dir, root, module) = project();
    // An async generator is skipped before exploring; `now` fails when explored: its name is
    // bound to another object after the definition. Each is its LCN107, as `lacuna check` says.
    let source = "async def countdown(n):\n    while n > 0:\n        yield n\n        n -= 1\n\n\ndef plain(n: int) -> int:\n    if n > 1:\n        return n\n    return 1\n\n\nclass Clock:\n    def __call__(self):\n        return 0\n\n\ndef now(x: int) -> int:\n    if x > 0:\n        return 1\n    return 0\n\n\nnow = Clock()\n";
    std::fs::write(&module, source).unwrap();
    let (server, diagnostics) = two_not_explored(&dir, &root, &module);
    let skipped: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "LCN107")
        .collect();
    assert_eq!(
        skipped[0]["message"],
        "not explored: async generators are not explored yet: move its branches into a plain function it calls"
    );
    assert_eq!(
        skipped[0]["range"],
        json!({"start": {"line": 0, "character": 10}, "end": {"line": 0, "character": 19}})
    );
    assert_eq!(
        skipped[1]["message"],
        "not explored: `now` is bound again to a `Clock` object: no call by its name reaches the definition at line 18"
    );
    assert_eq!(
        skipped[1]["range"],
        json!({"start": {"line": 17, "character": 4}, "end": {"line": 17, "character": 7}})
    );
    assert_eq!(skipped[1]["data"]["function"], "now");
    assert!(
        !diagnostics.iter().any(|d| d["code"] == "LCN100"),
        "a function not explored has no uncovered-side claims: {diagnostics:#?}"
    );
    assert_eq!(skipped[0]["severity"], 3, "information");
    server.shutdown();
}

/// A module whose import fails is its `LCN108`, as `lacuna check` says it: once, on the line
/// that raised, naming how many functions it leaves unexplored — not one `LCN107` per function.
#[test]
fn a_module_whose_import_fails_is_said_once_where_it_fails() {
    let (dir, root, module) = project();
    // The import raises late: the agent is asked once (one log line), not once per function.
    let source = "def kind(x):\n    if x > 0:\n        return 'pos'\n    return 'neg'\n\n\ndef sign(x):\n    if x < 0:\n        return -1\n    return 1\n\n\nraise RuntimeError('no configuration')\n";
    std::fs::write(&module, source).unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let uri = server.open(&module, 1);
    // Published as each function's outcome comes: the second counts both.
    let failed = |d: &[Value]| {
        d.iter().any(|d| {
            d["code"] == "LCN108"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("2 functions"))
        })
    };
    let diagnostics = server.diagnostics_where(&uri, failed);
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["LCN108"], "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"],
        json!({"start": {"line": 12, "character": 0}, "end": {"line": 12, "character": 38}})
    );
    assert_eq!(diagnostics[0]["severity"], 1, "an error");
    let message = diagnostics[0]["message"].as_str().unwrap();
    let interpreter = python();
    let resolved = std::fs::canonicalize(&interpreter)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| interpreter.clone());
    insta::assert_snapshot!(
        message
            .replace(&interpreter, "<python>")
            .replace(&resolved, "<python>")
    );
    let said: Vec<&str> = server
        .notifications
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .filter_map(|m| m["params"]["message"].as_str())
        .filter(|m| m.contains("cannot import"))
        .collect();
    assert_eq!(
        said.len(),
        1,
        "the module's import is tried once: {said:#?}"
    );
    server.shutdown();
}

/// A class with a lowercase name (`more_itertools.peekable`): the factory the code action
/// writes builds it in a variable of its own, and runs.
#[test]
fn a_factory_for_a_lowercase_class_runs() {
    let (_dir, root, mut server, uri, diagnostics) = open_module(
        "peek",
        "class peekable:\n    def __init__(self, iterable):\n        self._it = iter(iterable)\n        self._cache = []\n\n    def prepend(self, item):\n        self._cache.append(item)\n\n    def cached(self):\n        return len(self._cache)\n\n\ndef is_primed(p: peekable) -> bool:\n    if p.cached() >= 100:\n        return True\n    return False\n",
        "LCN103",
    );
    let d = diagnostics.iter().find(|d| d["code"] == "LCN103").unwrap();
    let action = server.code_actions(&uri, d)["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Create a factory for `peekable`")
        .cloned()
        .unwrap_or_else(|| panic!("no factory action: {d}"));
    let resolved = server.request("codeAction/resolve", action);
    apply_edits(&resolved["result"]["edit"]);
    server.shutdown();
    let guidance = root.join("tests/lacuna_guidance.py");
    let text = std::fs::read_to_string(&guidance).unwrap();
    let factory = &text[text
        .find("@factory\ndef make_peekable")
        .expect("the factory")..];
    insta::assert_snapshot!(factory);
    // The factory builds the object under the real interpreter (no UnboundLocalError).
    let run = std::process::Command::new(python())
        .args([
            "-c",
            "import sys, importlib.util as u\nsys.path.insert(0, '.')\nspec = u.spec_from_file_location('g', 'tests/lacuna_guidance.py')\ng = u.module_from_spec(spec)\nspec.loader.exec_module(g)\np = g.make_peekable([1, 2], [3, 4])\nprint(type(p).__name__, p.cached())\n",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "peekable 2\n",
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// Two actions resolved before either is applied, while the guidance module does not exist:
/// the first creates it; the second, computed for a module that did not exist, fails to apply
/// instead of writing the module's header a second time; offered again, it adds its mock alone.
#[test]
fn two_actions_resolved_before_either_is_applied_never_duplicate_the_module_header() {
    let (_dir, root, mut server, uri, diagnostics) = open_module(
        "files",
        "import os\n\n\ndef kind(path: str) -> str:\n    if os.path.isdir(path):\n        return \"dir\"\n    if os.path.islink(path):\n        return \"link\"\n    return \"other\"\n",
        "LCN101",
    );
    let external: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "LCN101")
        .collect();
    assert_eq!(external.len(), 2, "{diagnostics:?}");
    let action_for =
        |server: &mut Server, d: &Value| server.code_actions(&uri, d)["result"][0].clone();
    let first = action_for(&mut server, external[0]);
    let second = action_for(&mut server, external[1]);
    let first = server.request("codeAction/resolve", first)["result"]["edit"].clone();
    let second_resolved =
        server.request("codeAction/resolve", second.clone())["result"]["edit"].clone();
    let guidance = root.join("tests/lacuna_guidance.py");
    try_apply_edits(&first).unwrap();
    let after_first = std::fs::read_to_string(&guidance).unwrap();
    let refused = try_apply_edits(&second_resolved);
    assert!(refused.is_err(), "the stale edit must not apply");
    assert_eq!(std::fs::read_to_string(&guidance).unwrap(), after_first);
    // Resolved again, against the module as it now is: the mock alone.
    let again = server.request("codeAction/resolve", second)["result"]["edit"].clone();
    try_apply_edits(&again).unwrap();
    let text = std::fs::read_to_string(&guidance).unwrap();
    let header = after_first.lines().next().unwrap();
    assert_eq!(text.matches(header).count(), 1, "{text}");
    assert!(text.contains("@mock(\"os.path.isdir\")"), "{text}");
    assert!(text.contains("@mock(\"os.path.islink\")"), "{text}");
    server.shutdown();
}
