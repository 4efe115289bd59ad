//! `textDocument/hover`: answered from the published snapshot by [`crate::lsp::hover`], with the
//! guidance module when there is one.

use super::super::Backend;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(backend: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params;
    let uri = position.text_document.uri;
    let guidance = backend.shared.guidance();
    let published = backend.shared.published.read().expect("published lock");
    let Some(doc) = published.get(&uri) else {
        return Ok(None);
    };
    let encoding = backend.shared.encoding();
    let offset = doc.text.offset(position.position, encoding);
    let guidance = guidance
        .as_ref()
        .map(|(path, text)| crate::lsp::hover::GuidanceModule { path, text });
    Ok(crate::lsp::hover::hover(
        &uri,
        doc,
        offset,
        encoding,
        guidance.as_ref(),
    ))
}
