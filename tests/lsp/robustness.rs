//! Hostile and broken input: the server answers what it can, skips what it cannot read, and
//! never goes deaf, dies or grows without bound; it exits when told to, with the code the LSP
//! asks for; it runs nothing unless the workspace is trusted with an explicit `true`.

use super::client::Server;
use super::{codes, has, home, project};
use serde_json::{Value, json};
use std::time::Duration;

/// A static-only server, initialized on a project; returns it with the module's URI, opened.
fn serving(args: &[&str]) -> (tempfile::TempDir, Server, String) {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), args);
    server.initialize(&root, json!({}));
    let uri = server.open(&module, 1);
    (dir, server, uri)
}

/// The server still answers requests.
fn still_serving(server: &mut Server, uri: &str) {
    let hover = server.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");
}

fn error_with_null_id(server: &mut Server) -> Value {
    server
        .wait_for(|m| m.get("error").is_some() && m["id"].is_null())
        .expect("an error answer")
}

#[test]
fn requests_with_ids_that_are_not_integers_get_invalid_request_and_the_server_keeps_serving() {
    let (_dir, mut server, uri) = serving(&["--static-only"]);
    for id in ["1.5", r#"{"a":1}"#, "[1]", "true"] {
        server.send_raw(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"foo"}}"#));
        let error = error_with_null_id(&mut server);
        assert_eq!(
            error["error"],
            json!({"code": -32600, "message": "Invalid Request: `id` must be an integer or a string"}),
            "id {id}"
        );
        still_serving(&mut server, &uri);
    }
    server.shutdown();
}

#[test]
fn garbage_between_messages_is_skipped_with_a_log_message() {
    let (_dir, mut server, uri) = serving(&["--static-only"]);
    server.send_bytes(b"\xff");
    still_serving(&mut server, &uri);
    server.send_bytes(b"garbage\r\n\xfe\xfd\r\n");
    still_serving(&mut server, &uri);
    let logs: Vec<&str> = server
        .notifications
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .filter_map(|m| m["params"]["message"].as_str())
        .filter(|m| m.starts_with("Lacuna: skipped"))
        .collect();
    assert_eq!(
        logs,
        [
            "Lacuna: skipped 1 byte that was not part of a message",
            "Lacuna: skipped 13 bytes that were not part of a message"
        ]
    );
    server.shutdown();
}

#[test]
fn messages_above_the_maximum_size_are_refused_and_skipped() {
    let (_dir, mut server, uri) = serving(&["--static-only", "--max-message-size", "4096"]);
    let padding = "x".repeat(10_000);
    server.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{{"padding":"{padding}"}}}}"#
    ));
    let error = error_with_null_id(&mut server);
    assert_eq!(
        error["error"]["message"],
        "Invalid Request: a message of 10079 bytes is larger than the maximum message size \
         (4096 bytes, `lacuna lsp --max-message-size`); it was skipped"
    );
    assert_eq!(error["error"]["code"], -32600);
    still_serving(&mut server, &uri);
    server.shutdown();
}

#[test]
fn absurd_content_lengths_get_an_error_not_a_crash() {
    for length in [
        "18446744073709551615",
        "1000000000000",
        "99999999999999999999999",
    ] {
        let (_dir, mut server, _uri) = serving(&[]);
        server.send_bytes(format!("Content-Length: {length}\r\n\r\n{{}}").as_bytes());
        let error = error_with_null_id(&mut server);
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("Invalid Request: a message of ")
                && message
                    .contains("bytes is larger than the maximum message size (67108864 bytes"),
            "{message}"
        );
        assert_eq!(
            server.wait_exit(Duration::from_millis(300)),
            None,
            "the server is still running after Content-Length: {length}"
        );
    }
}

#[test]
fn shutdown_then_exit_ends_the_process_with_0_every_time() {
    for run in 0..10 {
        let (_dir, mut server, _uri) = serving(if run % 2 == 0 {
            &["--static-only"]
        } else {
            &[]
        });
        let id = server.request_async("shutdown", Value::Null);
        let response = server.response(id);
        assert_eq!(response["result"], Value::Null, "{response}");
        server.notify("exit", Value::Null);
        let status = server
            .wait_exit(Duration::from_secs(5))
            .unwrap_or_else(|| panic!("run {run}: the server did not exit"));
        assert_eq!(status.code(), Some(0), "run {run}");
    }
}

#[test]
fn exit_without_shutdown_ends_the_process_with_1() {
    let (_dir, mut server, _uri) = serving(&[]);
    server.notify("exit", Value::Null);
    let status = server.wait_exit(Duration::from_secs(5)).expect("exited");
    assert_eq!(status.code(), Some(1));
}

/// What the server says, in status and log, when it runs nothing.
const UNTRUSTED: &str = "static analysis only: the workspace is not trusted (the client did not \
                         send `\"trusted\": true`), so no project code runs";

#[test]
fn only_an_explicit_true_trusts_the_workspace() {
    for options in [
        Value::Null,
        json!({}),
        json!({"trusted": null}),
        json!({"trusted": "false"}),
        json!({"trusted": 0}),
        json!({"trusted": 1}),
        json!({"trusted": "true"}),
    ] {
        let (dir, root, module) = project();
        let mut server = Server::start(&home(&dir), &[]);
        server.initialize(&root, options.clone());
        let status = server.wait_for(|m| m["method"] == "lacuna/status").unwrap();
        assert_eq!(
            status["params"],
            json!({"state": "static", "message": UNTRUSTED}),
            "options {options}"
        );
        let uri = server.open(&module, 1);
        server.diagnostics_where(&uri, |_| true);
        server.request(
            "workspace/executeCommand",
            json!({"command": "lacuna.rerun", "arguments": [{"uri": uri}]}),
        );
        let _ = server.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
        );
        let logs: Vec<&Value> = server
            .notifications
            .iter()
            .filter(|m| {
                m["method"] == "window/logMessage"
                    && m["params"]["message"] == format!("Lacuna: {UNTRUSTED}.")
            })
            .collect();
        assert_eq!(logs.len(), 1, "said once, options {options}");
        assert!(
            !server
                .notifications
                .iter()
                .any(|m| m["params"]["state"] == "generating"),
            "nothing runs with options {options}"
        );
        assert!(!root.join(".lacuna").exists(), "options {options}");
        server.shutdown();
    }
}

#[test]
fn a_corrupted_store_is_moved_aside_and_diagnostics_are_still_published() {
    let (dir, root, module) = project();
    std::fs::write(&module, "def broken(:\n").unwrap();
    std::fs::create_dir_all(root.join(".lacuna")).unwrap();
    let store = root.join(".lacuna/store.redb");
    {
        let db = redb::Database::create(&store).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let table: redb::TableDefinition<&str, &[u8]> = redb::TableDefinition::new("outcomes");
            let mut table = txn.open_table(table).unwrap();
            for i in 0..500 {
                table
                    .insert(format!("m.f{i}").as_str(), [7u8; 300].as_slice())
                    .unwrap();
            }
        }
        txn.commit().unwrap();
    }
    let len = std::fs::metadata(&store).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&store)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let shown = server
        .wait_for(|m| m["method"] == "window/showMessage")
        .unwrap();
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "Lacuna: the results store {} could not be read (",
            store.display()
        )) && message.ends_with("store.redb.corrupt and a new one started"),
        "{message}"
    );
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN001"));
    assert_eq!(codes(&diagnostics), ["LCN001"]);
    assert!(root.join(".lacuna/store.redb.corrupt").exists());
    server.shutdown();
}

#[test]
fn a_lacuna_directory_that_is_a_link_is_not_followed() {
    let (dir, root, module) = project();
    std::fs::write(&module, "def broken(:\n").unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join(".lacuna")).unwrap();
    let mut server = Server::start(&home(&dir), &[]);
    server.initialize(&root, json!({"trusted": true}));
    let shown = server
        .wait_for(|m| m["method"] == "window/showMessage")
        .unwrap();
    assert_eq!(
        shown["params"]["message"],
        format!(
            "Lacuna: results will not be kept between sessions: {} is a symbolic link, which \
             Lacuna does not follow",
            root.join(".lacuna").display()
        )
    );
    let uri = server.open(&module, 1);
    let diagnostics = server.diagnostics_where(&uri, has("LCN001"));
    assert_eq!(codes(&diagnostics), ["LCN001"]);
    server.shutdown();
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}
