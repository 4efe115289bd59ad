//! `textDocument/didChange`: the document's edits, applied in order by the owner thread.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::ls_types::*;

pub(crate) fn handle(backend: &Backend, params: DidChangeTextDocumentParams) {
    backend.send(Event::Change {
        uri: params.text_document.uri,
        version: params.text_document.version,
        changes: params.content_changes,
    });
}
