//! A minimal LSP client for tests: starts the real `lacuna lsp`, frames JSON-RPC messages, and
//! collects what the server sends on a reader thread, answering the server's own requests
//! (configuration, progress, registration) the way an editor does.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct Server {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Every notification received so far, in order.
    pub notifications: Vec<Value>,
    pending: Vec<Value>,
}

/// How long to wait for something the server is expected to send.
pub const PATIENCE: Duration = Duration::from_secs(90);

impl Server {
    /// The diagnostics published last for `uri` (none published yet: empty).
    /// Forgets the messages received but not consumed: a later `wait_for` sees only new ones.
    pub fn discard_pending(&mut self) {
        self.pending.clear();
    }

    /// Waits until the generation started by the last notifications is done: a `generating`
    /// status, then `idle`.
    pub fn settle(&mut self) {
        let mut started = false;
        loop {
            let status = self
                .wait_for(|m| m["method"] == "lacuna/status")
                .expect("generation settles");
            match status["params"]["state"].as_str() {
                Some("generating") => started = true,
                Some("idle") if started => return,
                Some("error") => panic!("generation failed: {status}"),
                _ => {}
            }
        }
    }

    pub fn latest_diagnostics(&self, uri: &str) -> Vec<Value> {
        self.notifications
            .iter()
            .rev()
            .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .and_then(|m| m["params"]["diagnostics"].as_array().cloned())
            .unwrap_or_default()
    }

    /// Tells the server that `paths` changed on disk, as an editor's file watcher does.
    pub fn files_changed(&mut self, paths: &[PathBuf]) {
        let changes: Vec<Value> = paths
            .iter()
            .map(|p| json!({"uri": uri(p), "type": 2}))
            .collect();
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": changes }),
        );
    }

    pub fn start(home: &Path, args: &[&str]) -> Server {
        Server::start_without(home, args, &[])
    }

    /// [`Server::start`], with the variables `unset` removed from the server's environment.
    pub fn start_without(home: &Path, args: &[&str], unset: &[&str]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lacuna"));
        for name in unset {
            command.env_remove(name);
        }
        // The causes corpus reads TIDEPOOL_* variables: none may be set.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("TIDEPOOL_") {
                command.env_remove(name);
            }
        }
        let mut child = command
            .arg("lsp")
            .args(args)
            .env("HOME", home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("lacuna lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("Content-Length header")];
                reader.read_exact(&mut body).unwrap();
                let message: Value = serde_json::from_slice(&body).expect("the server sends JSON");
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            incoming: rx,
            next_id: 0,
            notifications: vec![],
            pending: vec![],
        }
    }

    /// Writes bytes as they are: no framing added.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits up to `within` for the server to exit; its status (none: still running).
    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn send_raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id.
    pub fn request_async(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Sends a request and waits for its response (the whole message: `result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.request_async(method, params);
        self.response(id)
    }

    /// The code actions offered for diagnostic `d` of `uri`, over its range (the response).
    pub fn code_actions(&mut self, uri: &str, d: &Value) -> Value {
        self.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": d["range"],
                "context": {"diagnostics": [d]}
            }),
        )
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response to request {id}"))
    }

    /// Receives one message, answering the server's requests on the way.
    fn receive(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.incoming.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
            };
            if let (Some(id), Some(method)) = (message.get("id"), message.get("method")) {
                let result = match method.as_str() {
                    Some("workspace/configuration") => json!([self.settings()]),
                    _ => Value::Null,
                };
                let id = id.clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
                // Kept, so tests can see what the server asked (a diagnostics refresh…).
                self.notifications.push(message);
                continue;
            }
            if message.get("method").is_some() {
                self.notifications.push(message.clone());
            }
            return Some(message);
        }
    }

    fn settings(&self) -> Value {
        json!({"budget": {"functionExecutions": 300}})
    }

    /// Waits for the first message (new or already received but not consumed) matching `want`.
    pub fn wait_for(&mut self, want: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.pending.iter().position(&want) {
            return Some(self.pending.remove(i));
        }
        let deadline = Instant::now() + PATIENCE;
        while let Some(m) = self.receive(deadline) {
            if want(&m) {
                return Some(m);
            }
            self.pending.push(m);
        }
        None
    }

    /// Waits for diagnostics of `uri` satisfying `want`.
    pub fn diagnostics_where(&mut self, uri: &str, want: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = uri.to_owned();
        let found = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && want(
                    m["params"]["diagnostics"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or(&[]),
                )
        });
        let found = found.unwrap_or_else(|| panic!("no matching diagnostics for {uri}"));
        found["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn initialize(&mut self, root: &Path, options: Value) -> Value {
        self.initialize_with(
            root,
            options,
            json!({
                "workspace": {"configuration": true, "didChangeWatchedFiles": {"dynamicRegistration": true}},
                "window": {"workDoneProgress": true},
                "textDocument": {"hover": {"contentFormat": ["markdown"]}}
            }),
        )
    }

    /// `initialize` with the client capabilities given.
    pub fn initialize_with(&mut self, root: &Path, options: Value, capabilities: Value) -> Value {
        let uri = uri(root);
        let response = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "project"}],
                "initializationOptions": options,
                "capabilities": capabilities
            }),
        );
        self.notify("initialized", json!({}));
        response
    }

    pub fn open(&mut self, path: &Path, version: i32) -> String {
        let uri = uri(path);
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}}),
        );
        uri
    }

    pub fn shutdown(mut self) {
        let id = self.request_async("shutdown", Value::Null);
        let _ = self.wait_for(|m| m.get("id") == Some(&json!(id)));
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
