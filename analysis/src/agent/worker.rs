//! One agent process: spawned in its own process group with the protocol on its stdin/stdout,
//! greeted, configured, then asked one request at a time. A reader thread turns stdout into
//! lines; a request that gets no answer in time gets the whole process group killed. A
//! dead worker is never reused.

use super::embed;
use super::protocol::PROTOCOL;
use serde_json::Value as Json;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long an agent may take to start and greet.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// The most of a worker's standard error kept for diagnostics.
const STDERR_TAIL: usize = 8 * 1024;

#[derive(Clone, Debug)]
pub struct WorkerSpec {
    pub python: PathBuf,
    /// The installed agent directory (holding `run_agent.py`).
    pub agent_dir: PathBuf,
    /// Environment variables set for the worker (others are inherited).
    pub env: Vec<(String, String)>,
    /// The `configure` request sent after the handshake.
    pub configure: super::protocol::Configure,
    /// The kernel's confinement of the worker (its scratch directory, what it may do).
    pub policy: crate::sandbox::Policy,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("{0}")]
    Contained(#[from] crate::sandbox::ContainmentError),
    #[error("could not start `{python}`: {why}")]
    Spawn { python: String, why: String },
    #[error("the agent did not start: {0}")]
    Handshake(String),
    #[error("the agent did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the agent exited ({0})")]
    Died(String),
    /// The caller stopped a streaming request; the worker was killed.
    #[error("stopped")]
    Stopped,
}

pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    next_id: u64,
    pub python_version: String,
    /// What identifies the packages its interpreter can import (the greeting's `environment`).
    pub environment: String,
    /// A scratch directory of its own, removed after it ([`Worker::spawn_alone`]).
    own_scratch: Option<tempfile::TempDir>,
}

impl Worker {
    /// A worker whose working directory, `TMPDIR` and the only directory it may write to are
    /// a new, empty directory inside `spec`'s scratch directory, removed after it: what it
    /// finds there is what its own runs wrote — not what another worker's left, which the
    /// order the workers of a run happened to run in decided (`dbm.whichdb` found the files
    /// `dbm.open` had made, or not).
    pub fn spawn_alone(spec: &WorkerSpec) -> Result<Worker, WorkerError> {
        let dir = tempfile::Builder::new()
            .prefix("worker-")
            .tempdir_in(&spec.policy.scratch)
            .map_err(|e| WorkerError::Spawn {
                python: spec.python.display().to_string(),
                why: format!("cannot create its scratch directory: {e}"),
            })?;
        let mut own = spec.clone();
        own.policy.scratch = dir.path().to_owned();
        own.configure.scratch = dir.path().to_owned();
        let mut worker = Worker::spawn(&own)?;
        worker.own_scratch = Some(dir);
        Ok(worker)
    }

    pub fn spawn(spec: &WorkerSpec) -> Result<Worker, WorkerError> {
        let mut command = Command::new(&spec.python);
        // Isolated from the user's site directory and PYTHON* variables, as `-I` would be, but
        // `-I` also ignores PYTHONHASHSEED: with string hashing randomised per process, sets
        // iterate in another order after a worker is replaced, and so would the exploration.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("PYTHON") {
                command.env_remove(name);
            }
        }
        command
            .arg("-s")
            .arg("-B")
            .arg(spec.agent_dir.join("run_agent.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONIOENCODING", "utf-8")
            .env("PYTHONDONTWRITEBYTECODE", "1");
        for (k, v) in &spec.env {
            command.env(k, v);
        }
        embed::ensure_intact(&spec.agent_dir).map_err(|e| WorkerError::Spawn {
            python: spec.python.display().to_string(),
            why: format!(
                "the agent at {} is not this build's: {e}",
                spec.agent_dir.display()
            ),
        })?;
        crate::sandbox::confine(&mut command, &spec.policy)?;
        let mut child = crate::sandbox::spawn(command).map_err(|e| WorkerError::Spawn {
            python: spec.python.display().to_string(),
            why: e.to_string(),
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = channel();
        std::thread::Builder::new()
            .name("lacuna-agent-stdout".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    match line {
                        Ok(line) => {
                            if tx.send(line).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    }
                }
            })
            .expect("spawn a reader thread");
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr.clone();
        std::thread::Builder::new()
            .name("lacuna-agent-stderr".into())
            .spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr_pipe.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    let mut t = tail.lock().expect("stderr lock");
                    t.extend(&buf[..n]);
                    while t.len() > STDERR_TAIL {
                        t.pop_front();
                    }
                }
            })
            .expect("spawn a reader thread");
        let mut worker = Worker {
            child,
            stdin,
            lines,
            stderr,
            next_id: 1,
            python_version: String::new(),
            environment: String::new(),
            own_scratch: None,
        };
        let hello = worker.read(START_TIMEOUT).map_err(|e| {
            WorkerError::Handshake(format!("{e}; it printed: {}", worker.stderr_tail()))
        })?;
        let hello: Json = serde_json::from_str(&hello)
            .map_err(|e| WorkerError::Handshake(format!("bad greeting `{hello}`: {e}")))?;
        if hello["type"] != "hello" || hello["protocol"] != PROTOCOL {
            worker.kill();
            return Err(WorkerError::Handshake(format!(
                "unexpected greeting {hello} (this build speaks protocol {PROTOCOL})"
            )));
        }
        worker.python_version = hello["python"].as_str().unwrap_or("?").to_owned();
        worker.environment = hello["environment"].as_str().unwrap_or_default().to_owned();
        let configured = worker
            .request(
                serde_json::to_value(super::protocol::Request::Configure(spec.configure.clone()))
                    .expect("requests serialise"),
                START_TIMEOUT,
            )
            .map_err(|e| WorkerError::Handshake(format!("configure: {e}")))?;
        if configured["ok"] != true {
            worker.kill();
            return Err(WorkerError::Handshake(format!(
                "configure failed: {configured}"
            )));
        }
        Ok(worker)
    }

    /// Sends one request and waits for its answer. On a timeout or death the worker is
    /// killed and must be dropped.
    pub fn request(&mut self, request: Json, timeout: Duration) -> Result<Json, WorkerError> {
        let line = self.request_text(request, timeout)?;
        Ok(serde_json::from_str(&line).expect("an answer is checked to be JSON"))
    }

    /// [`Worker::request`], with the answer as the agent wrote it: for an answer read into a
    /// type of its own (an execution's, where a path's events are most of the time Lacuna
    /// spends on it), without building a JSON tree first.
    pub fn request_text(
        &mut self,
        mut request: Json,
        timeout: Duration,
    ) -> Result<String, WorkerError> {
        /// What an answer is matched to its request by; the rest is skipped.
        #[derive(serde::Deserialize)]
        struct Envelope {
            #[serde(default)]
            id: Option<u64>,
        }
        let id = self.next_id;
        self.next_id += 1;
        request["id"] = id.into();
        let mut line = serde_json::to_vec(&request).expect("requests serialise");
        line.push(b'\n');
        if self
            .stdin
            .write_all(&line)
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.death());
        }
        loop {
            let line = self.read(timeout)?;
            match serde_json::from_str::<Envelope>(&line) {
                Ok(envelope) if envelope.id == Some(id) => return Ok(line),
                Ok(_) => {}
                Err(e) => {
                    // Not a protocol line: ignored, but said (a lost answer is waited for).
                    tracing::warn!(error = %e, bytes = line.len(), "the agent sent a line that is not JSON");
                }
            }
        }
    }

    /// Sends one request whose answer comes after any number of partial messages
    /// (`{"partial": id, …}`), each given to `on_partial` as it arrives; `timeout` bounds the
    /// wait for each line, not the whole request.
    pub fn request_streaming(
        &mut self,
        request: &super::protocol::Request,
        timeout: Duration,
        mut on_partial: impl FnMut(Json) -> std::ops::ControlFlow<()>,
    ) -> Result<Json, WorkerError> {
        let mut request = serde_json::to_value(request).expect("requests serialise");
        let id = self.next_id;
        self.next_id += 1;
        request["id"] = id.into();
        let mut line = serde_json::to_vec(&request).expect("requests serialise");
        line.push(b'\n');
        if self
            .stdin
            .write_all(&line)
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.death());
        }
        loop {
            let line = self.read(timeout)?;
            let response = match serde_json::from_str::<Json>(&line) {
                Ok(response) => response,
                Err(e) => {
                    // Not a protocol line: ignored, but said (a lost answer is waited for).
                    tracing::warn!(error = %e, bytes = line.len(), "the agent sent a line that is not JSON");
                    continue;
                }
            };
            if response["partial"] == id {
                if on_partial(response).is_break() {
                    self.kill();
                    return Err(WorkerError::Stopped);
                }
            } else if response["id"] == id {
                return Ok(response);
            }
        }
    }

    fn read(&mut self, timeout: Duration) -> Result<String, WorkerError> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(WorkerError::Timeout(timeout))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.death()),
        }
    }

    fn death(&mut self) -> WorkerError {
        // The launcher passes on how the worker ended a moment after its pipes close: wait for
        // it briefly before killing what is left.
        let deadline = std::time::Instant::now() + Duration::from_millis(500);
        let mut ended = None;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                ended = Some(status);
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
        let status = match ended {
            Some(s) => describe_exit(&s),
            None => self
                .child
                .wait()
                .map(|s| describe_exit(&s))
                .unwrap_or_else(|e| e.to_string()),
        };
        let tail = self.stderr_tail();
        if tail.is_empty() {
            WorkerError::Died(status)
        } else {
            WorkerError::Died(format!("{status}; last output: {tail}"))
        }
    }

    /// Kills the worker's whole process group (children it may have forked included).
    pub fn kill(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().expect("stderr lock");
        let bytes: Vec<u8> = t.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_owned()
    }

    /// Asks the agent to stop and waits briefly for it.
    pub fn shutdown(mut self) {
        let shutdown =
            serde_json::to_value(super::protocol::Request::Shutdown).expect("requests serialise");
        let _ = self.request(shutdown, Duration::from_secs(2));
        self.kill();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

fn describe_exit(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(signal) = status.signal() {
        let name = nix::sys::signal::Signal::try_from(signal)
            .map(|s| s.as_str().to_owned())
            .unwrap_or_else(|_| signal.to_string());
        format!("killed by {name}")
    } else {
        format!("exit code {}", status.code().unwrap_or(-1))
    }
}
