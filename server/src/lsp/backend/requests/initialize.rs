//! `initialize`: reads the client's capabilities, trust and settings, starts the owner thread
//! and answers with the server's capabilities.

use super::super::Backend;
use super::execute_command::{EXPORT, GUIDANCE, RERUN};
use crate::lsp::document::Encoding;
use crate::lsp::event::Event;
use crate::lsp::outbox::Outbox;
use crate::lsp::settings::Settings;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(
    backend: &Backend,
    params: InitializeParams,
) -> Result<InitializeResult> {
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
        .map_err(|e| Error::invalid_params(e.to_string()))?;
    let caps = &params.capabilities;
    let utf8 = caps
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
    *backend.shared.encoding.write().expect("encoding lock") = if utf8 {
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
    backend
        .shared
        .pull
        .store(pull, std::sync::atomic::Ordering::Relaxed);
    let _ = backend.configuration.set(
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
    let outbox = Outbox::start(backend.client.clone(), progress);
    let events = crate::lsp::main_loop::spawn(backend.shared.clone(), outbox);
    let _ = events.send(Event::Initialize {
        root,
        settings,
        generate: trusted && !backend.static_only,
        why_static: if backend.static_only {
            "static analysis only: `lacuna lsp --static-only`"
        } else {
            "static analysis only: the workspace is not trusted (the client did not send \
             `\"trusted\": true`), so no project code runs"
        },
    });
    let _ = backend.events.set(events);
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
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                resolve_provider: Some(true),
                work_done_progress_options: Default::default(),
            })),
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

fn workspace_root(params: &InitializeParams) -> Option<std::path::PathBuf> {
    let folder = params.workspace_folders.as_ref()?.first()?;
    folder.uri.to_file_path().map(|p| p.into_owned())
}
