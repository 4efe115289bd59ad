//! `textDocument/didSave`: tells the owner thread the document was saved.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::ls_types::*;

pub(crate) fn handle(backend: &Backend, params: DidSaveTextDocumentParams) {
    backend.send(Event::Save {
        uri: params.text_document.uri,
    });
}
