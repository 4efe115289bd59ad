//! `textDocument/codeAction`: the owner thread lists the quick fixes at the range; none is
//! answered as `null`.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(
    backend: &Backend,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    backend.send(Event::CodeActions { params, reply: tx });
    let actions = rx.await.map_err(|_| Error::internal_error())?;
    Ok((!actions.is_empty()).then_some(actions))
}
