//! Everything the server sends to the client on its own initiative goes through one ordered
//! queue drained by one task: diagnostics, status, coverage, progress and log messages reach
//! the client in the order the owner decided them, so a result is never overtaken by an older
//! one.

use serde::{Deserialize, Serialize};
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{self as lsp, MessageType, NumberOrString, ProgressToken, Uri};

/// `lacuna/status`: what the server is doing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// `idle`, `generating`, `static` or `error`.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// While project code runs: the kernel's containment layers in force
    /// (`Landlock ABI 7 (files, TCP, signals), seccomp, namespaces (…)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

impl Status {
    pub fn idle() -> Status {
        Status {
            state: "idle".into(),
            function: None,
            message: None,
            sandbox: Some(lacuna_analysis::sandbox::Layers::current().to_string()),
        }
    }
    pub fn generating(function: &str, done: usize, total: usize) -> Status {
        Status {
            state: "generating".into(),
            function: Some(function.to_owned()),
            message: Some(format!("{function} ({}/{total})", done + 1)),
            sandbox: Some(lacuna_analysis::sandbox::Layers::current().to_string()),
        }
    }
    pub fn static_only(why: &str) -> Status {
        Status {
            state: "static".into(),
            function: None,
            message: Some(why.to_owned()),
            sandbox: None,
        }
    }
    pub fn error(message: String) -> Status {
        Status {
            state: "error".into(),
            function: None,
            message: Some(message),
            sandbox: None,
        }
    }
}

pub enum StatusNotification {}
impl Notification for StatusNotification {
    type Params = Status;
    const METHOD: &'static str = "lacuna/status";
}

/// `lacuna/coverage`: branch sides of a file covered by the generated tests, and by the
/// project's own suite (of the same total) once it has run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub uri: Uri,
    pub covered: usize,
    pub total: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<usize>,
}

pub enum CoverageNotification {}
impl Notification for CoverageNotification {
    type Params = Coverage;
    const METHOD: &'static str = "lacuna/coverage";
}

pub enum Outgoing {
    Publish {
        uri: Uri,
        version: Option<i32>,
        diagnostics: Vec<lsp::Diagnostic>,
    },
    /// Pull-diagnostics clients: ask them to pull again.
    Refresh,
    Status(Status),
    Coverage(Coverage),
    Log(MessageType, String),
    Show(MessageType, String),
}

#[derive(Clone)]
pub struct Outbox {
    tx: tokio::sync::mpsc::UnboundedSender<Outgoing>,
}

impl Outbox {
    /// Starts the task that drains the queue. `progress`: the client shows `$/progress`.
    pub fn start(client: Client, progress: bool) -> Outbox {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut ongoing = None;
            let mut tokens = 0u32;
            while let Some(message) = rx.recv().await {
                match message {
                    Outgoing::Publish {
                        uri,
                        version,
                        diagnostics,
                    } => client.publish_diagnostics(uri, diagnostics, version).await,
                    Outgoing::Refresh => {
                        let _ = client.workspace_diagnostic_refresh().await;
                    }
                    Outgoing::Status(status) => {
                        if progress {
                            match (status.state.as_str(), ongoing.take()) {
                                ("generating", None) => {
                                    tokens += 1;
                                    let token: ProgressToken = NumberOrString::String(format!(
                                        "lacuna/generation/{tokens}"
                                    ));
                                    if client
                                        .create_work_done_progress(token.clone())
                                        .await
                                        .is_ok()
                                    {
                                        let p = client
                                            .progress(token, "Lacuna: generating tests")
                                            .with_message(
                                                status.message.clone().unwrap_or_default(),
                                            )
                                            .begin()
                                            .await;
                                        ongoing = Some(p);
                                    }
                                }
                                ("generating", Some(p)) => {
                                    p.report(status.message.clone().unwrap_or_default()).await;
                                    ongoing = Some(p);
                                }
                                (_, Some(p)) => p.finish().await,
                                (_, None) => {}
                            }
                        }
                        client.send_notification::<StatusNotification>(status).await;
                    }
                    Outgoing::Coverage(c) => {
                        client.send_notification::<CoverageNotification>(c).await
                    }
                    Outgoing::Log(kind, message) => client.log_message(kind, message).await,
                    Outgoing::Show(kind, message) => client.show_message(kind, message).await,
                }
            }
        });
        Outbox { tx }
    }

    pub fn send(&self, message: Outgoing) {
        let _ = self.tx.send(message);
    }

    pub fn status(&self, status: Status) {
        self.send(Outgoing::Status(status));
    }

    pub fn log(&self, message: impl Into<String>) {
        self.send(Outgoing::Log(MessageType::INFO, message.into()));
    }

    pub fn warn(&self, message: impl Into<String>) {
        let message = message.into();
        self.send(Outgoing::Log(MessageType::WARNING, message.clone()));
        self.send(Outgoing::Show(MessageType::WARNING, message));
    }
}
