//! `textDocument/didClose`: tells the owner thread the document was closed.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::ls_types::*;

pub(crate) fn handle(backend: &Backend, params: DidCloseTextDocumentParams) {
    backend.send(Event::Close {
        uri: params.text_document.uri,
    });
}
