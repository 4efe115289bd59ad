//! `workspace/didChangeConfiguration`: the `lacuna` settings sent with it, or pulled from the
//! client when it sends none; settings that do not read are shown as a warning.

use super::super::Backend;
use crate::lsp::event::Event;
use crate::lsp::settings::Settings;
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(backend: &Backend, params: DidChangeConfigurationParams) {
    match params.settings.get("lacuna") {
        Some(value) => match Settings::from_json(value) {
            Ok(settings) => backend.send(Event::Settings(settings)),
            Err(e) => {
                backend
                    .client
                    .show_message(MessageType::WARNING, format!("Lacuna: {e}"))
                    .await
            }
        },
        None => backend.pull_settings().await,
    }
}
