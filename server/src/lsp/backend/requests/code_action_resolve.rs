//! `codeAction/resolve`: the owner thread computes the action's edit; one it can no longer make
//! is answered with ContentModified.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(backend: &Backend, action: CodeAction) -> Result<CodeAction> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    backend.send(Event::Resolve { action, reply: tx });
    match rx.await {
        Ok(Ok(action)) => Ok(action),
        Ok(Err(refusal)) => Err(Error {
            code: tower_lsp_server::jsonrpc::ErrorCode::ContentModified,
            message: refusal.to_string().into(),
            data: None,
        }),
        Err(_) => Err(Error::internal_error()),
    }
}
