//! `shutdown`: remembers that it came, so that `exit` ends the process with 0.

use super::super::Backend;
use std::sync::atomic::Ordering;
use tower_lsp_server::jsonrpc::Result;

pub(crate) async fn handle(backend: &Backend) -> Result<()> {
    backend.shut_down.store(true, Ordering::SeqCst);
    Ok(())
}
