//! The LSP surface: capabilities, and each handler turned into an event for the owner thread
//! (notifications) or answered from the published snapshot (hover, code actions, pulled
//! diagnostics). Handlers run concurrently; only the owner thread writes.

use super::document::Encoding;
use super::event::Event;
use super::outbox::Outbox;
use super::settings::Settings;
use super::snapshot::Shared;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

pub const RERUN: &str = "lacuna.rerun";
pub const EXPORT: &str = "lacuna.exportTests";
pub const GUIDANCE: &str = "lacuna.guidanceModule";

pub struct Backend {
    client: Client,
    shared: Arc<Shared>,
    events: OnceLock<Sender<Event>>,
    /// `lacuna lsp --static-only`.
    static_only: bool,
    configuration: OnceLock<bool>,
    /// `shutdown` was received: `exit` then ends the process with 0.
    shut_down: Arc<AtomicBool>,
}

impl Backend {
    pub fn new(client: Client, static_only: bool, shut_down: Arc<AtomicBool>) -> Backend {
        Backend {
            client,
            shared: Arc::new(Shared::default()),
            events: OnceLock::new(),
            static_only,
            configuration: OnceLock::new(),
            shut_down,
        }
    }

    fn send(&self, event: Event) {
        if let Some(tx) = self.events.get() {
            let _ = tx.send(event);
        }
    }

    /// Asks the client for the `lacuna` settings section.
    async fn pull_settings(&self) {
        if self.configuration.get() != Some(&true) {
            return;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("lacuna".into()),
        }];
        if let Ok(values) = self.client.configuration(items).await
            && let Some(value) = values.into_iter().next()
        {
            match Settings::from_json(&value) {
                Ok(settings) => self.send(Event::Settings(settings)),
                Err(e) => {
                    self.client
                        .show_message(MessageType::WARNING, format!("Lacuna: {e}"))
                        .await
                }
            }
        }
    }
}

fn workspace_root(params: &InitializeParams) -> Option<std::path::PathBuf> {
    let folder = params.workspace_folders.as_ref()?.first()?;
    folder.uri.to_file_path().map(|p| p.into_owned())
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        #[allow(deprecated)]
        let root = workspace_root(&params).or_else(|| {
            params
                .root_uri
                .as_ref()
                .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
        });
        let options = params.initialization_options.clone().unwrap_or(Value::Null);
        // Project code runs only when the client says, with a JSON `true`, that the workspace
        // is trusted: a missing option, `null`, `"true"` or `1` is not trust.
        let trusted = options.get("trusted") == Some(&Value::Bool(true));
        let settings = Settings::from_json(options.get("settings").unwrap_or(&Value::Null))
            .map_err(Error::invalid_params)?;
        let caps = &params.capabilities;
        let utf8 = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
        *self.shared.encoding.write().expect("encoding lock") = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let pull = caps
            .text_document
            .as_ref()
            .is_some_and(|t| t.diagnostic.is_some())
            && caps
                .workspace
                .as_ref()
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false);
        self.shared
            .pull
            .store(pull, std::sync::atomic::Ordering::Relaxed);
        let _ = self.configuration.set(
            caps.workspace
                .as_ref()
                .and_then(|w| w.configuration)
                .unwrap_or(false),
        );
        let progress = caps
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        let outbox = Outbox::start(self.client.clone(), progress);
        let events = super::main_loop::spawn(self.shared.clone(), outbox);
        let _ = events.send(Event::Initialize {
            root,
            settings,
            generate: trusted && !self.static_only,
            why_static: if self.static_only {
                "static analysis only: `lacuna lsp --static-only`"
            } else {
                "static analysis only: the workspace is not trusted (the client did not send \
                 `\"trusted\": true`), so no project code runs"
            },
        });
        let _ = self.events.set(events);
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "lacuna".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                position_encoding: Some(if utf8 {
                    PositionEncodingKind::UTF8
                } else {
                    PositionEncodingKind::UTF16
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        resolve_provider: Some(true),
                        work_done_progress_options: Default::default(),
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![RERUN.into(), EXPORT.into(), GUIDANCE.into()],
                    work_done_progress_options: Default::default(),
                }),
                diagnostic_provider: pull.then(|| {
                    DiagnosticServerCapabilities::Options(DiagnosticOptions {
                        identifier: Some("lacuna".into()),
                        inter_file_dependencies: true,
                        workspace_diagnostics: false,
                        work_done_progress_options: Default::default(),
                    })
                }),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let watchers = ["**/pyproject.toml", "**/*.py"]
            .into_iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.into()),
                kind: None,
            })
            .collect();
        let registration = Registration {
            id: "lacuna-watched-files".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                watchers,
            })
            .ok(),
        };
        let _ = self.client.register_capability(vec![registration]).await;
        self.pull_settings().await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.send(Event::Open {
            uri: doc.uri,
            text: doc.text,
            version: doc.version,
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.send(Event::Change {
            uri: params.text_document.uri,
            version: params.text_document.version,
            changes: params.content_changes,
        });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.send(Event::Save {
            uri: params.text_document.uri,
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.send(Event::Close {
            uri: params.text_document.uri,
        });
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        match params.settings.get("lacuna") {
            Some(value) => match Settings::from_json(value) {
                Ok(settings) => self.send(Event::Settings(settings)),
                Err(e) => {
                    self.client
                        .show_message(MessageType::WARNING, format!("Lacuna: {e}"))
                        .await
                }
            },
            None => self.pull_settings().await,
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let changes = params
            .changes
            .into_iter()
            .filter_map(|c| Some((c.uri.to_file_path()?.into_owned(), c.typ)))
            .collect();
        self.send(Event::FilesChanged(changes));
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let position = params.text_document_position_params;
        let uri = position.text_document.uri;
        let guidance = self.shared.guidance();
        let published = self.shared.published.read().expect("published lock");
        let Some(doc) = published.get(&uri) else {
            return Ok(None);
        };
        let encoding = self.shared.encoding();
        let offset = doc.text.offset(position.position, encoding);
        let guidance = guidance
            .as_ref()
            .map(|(path, text)| super::hover::GuidanceModule { path, text });
        Ok(super::hover::hover(
            &uri,
            doc,
            offset,
            encoding,
            guidance.as_ref(),
        ))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.send(Event::CodeActions { params, reply: tx });
        let actions = rx.await.map_err(|_| Error::internal_error())?;
        Ok((!actions.is_empty()).then_some(actions))
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.send(Event::Resolve { action, reply: tx });
        match rx.await {
            Ok(Ok(action)) => Ok(action),
            Ok(Err(message)) => Err(Error {
                code: tower_lsp_server::jsonrpc::ErrorCode::ContentModified,
                message: message.into(),
                data: None,
            }),
            Err(_) => Err(Error::internal_error()),
        }
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let published = self.shared.published.read().expect("published lock");
        let settings = self.shared.settings.read().expect("settings lock").clone();
        let encoding = self.shared.encoding();
        let uri = params.text_document.uri;
        let items = published
            .get(&uri)
            .map(|doc| {
                doc.diagnostics
                    .iter()
                    .filter_map(|d| {
                        super::convert::diagnostic(d, &uri, &doc.text, encoding, &settings, &|p| {
                            std::fs::read_to_string(p)
                                .ok()
                                .map(super::document::Text::new)
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: None,
                    items,
                },
            }),
        ))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let arg = params.arguments.into_iter().next().unwrap_or(Value::Null);
        match params.command.as_str() {
            RERUN => {
                let uri = arg
                    .get("uri")
                    .and_then(Value::as_str)
                    .map(|s| s.parse::<Uri>())
                    .transpose()
                    .map_err(|_| Error::invalid_params("`uri` is not a URI"))?;
                let function = arg
                    .get("function")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let at = arg
                    .get("position")
                    .map(|p| serde_json::from_value::<Position>(p.clone()))
                    .transpose()
                    .map_err(|_| {
                        Error::invalid_params("`position` is not a `{line, character}` position")
                    })?;
                let (tx, rx) = tokio::sync::oneshot::channel();
                self.send(Event::Rerun {
                    uri,
                    function,
                    at,
                    reply: tx,
                });
                // With a position: which function it re-runs (none: the whole file).
                match (at, rx.await) {
                    (Some(_), Ok(function)) => {
                        Ok(Some(serde_json::json!({ "function": function })))
                    }
                    _ => Ok(None),
                }
            }
            EXPORT => {
                let directory = arg
                    .get("directory")
                    .and_then(Value::as_str)
                    .map(std::path::PathBuf::from);
                let (tx, rx) = tokio::sync::oneshot::channel();
                self.send(Event::Export {
                    directory,
                    reply: tx,
                });
                match rx.await {
                    Ok(Ok(files)) => Ok(Some(serde_json::json!({
                        "written": files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()
                    }))),
                    Ok(Err(message)) => Err(Error {
                        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
                        message: message.into(),
                        data: None,
                    }),
                    Err(_) => Err(Error::internal_error()),
                }
            }
            GUIDANCE => {
                let (tx, rx) = tokio::sync::oneshot::channel();
                self.send(Event::Guidance { reply: tx });
                match rx.await {
                    Ok(Ok((path, created))) => Ok(Some(serde_json::json!({
                        "path": path.display().to_string(),
                        "created": created,
                    }))),
                    Ok(Err(message)) => Err(Error {
                        code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
                        message: message.into(),
                        data: None,
                    }),
                    Err(_) => Err(Error::internal_error()),
                }
            }
            other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
        }
    }
}
