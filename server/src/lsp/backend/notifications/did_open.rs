//! `textDocument/didOpen`: the document's text and version, for the owner thread.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::ls_types::*;

pub(crate) fn handle(backend: &Backend, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    backend.send(Event::Open {
        uri: doc.uri,
        text: doc.text,
        version: doc.version,
    });
}
