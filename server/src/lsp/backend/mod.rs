//! The LSP surface: the [`Backend`] the transport calls, and a thin [`LanguageServer`] impl that
//! hands each request to its handler in [`requests`] and each notification to [`notifications`].
//! Handlers run concurrently; only the owner thread writes.

mod notifications;
mod requests;

use super::event::Event;
use super::settings::Settings;
use super::snapshot::Shared;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;
use std::sync::{Arc, OnceLock};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

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

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        requests::initialize::handle(self, params).await
    }

    async fn initialized(&self, params: InitializedParams) {
        notifications::initialized::handle(self, params).await
    }

    async fn shutdown(&self) -> Result<()> {
        requests::shutdown::handle(self).await
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        notifications::did_open::handle(self, params)
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        notifications::did_change::handle(self, params)
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        notifications::did_save::handle(self, params)
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        notifications::did_close::handle(self, params)
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        notifications::did_change_configuration::handle(self, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        notifications::did_change_watched_files::handle(self, params)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        requests::hover::handle(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        requests::code_action::handle(self, params).await
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        requests::code_action_resolve::handle(self, action).await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        requests::diagnostic::handle(self, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        requests::execute_command::handle(self, params).await
    }
}
