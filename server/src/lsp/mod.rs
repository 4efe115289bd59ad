//! The language server (`lacuna lsp`, stdio). Data flow: `backend` turns LSP messages into
//! events; `main_loop` owns the database and decides what to publish; `generate` explores on
//! its own thread; `outbox` sends to the client in order; `store` keeps results between
//! sessions; `hover`, `actions` and `guidance` explain gaps and close them.

mod actions;
mod backend;
mod budget;
mod convert;
mod document;
mod framing;
mod generate;
mod guidance;
mod hover;
mod main_loop;
mod outbox;
mod outcome;
mod settings;
mod store;

use tower_lsp_server::{LspService, Server};

/// Serves LSP on stdin/stdout until the client exits.
pub fn run(static_only: bool) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) =
            LspService::build(|client| backend::Backend::new(client, static_only))
                .custom_method(framing::MALFORMED, backend::Backend::malformed)
                .finish();
        Server::new(
            framing::guard(tokio::io::stdin()),
            tokio::io::stdout(),
            socket,
        )
        .serve(service)
        .await;
    });
    // Background threads (generation may be mid-exploration) end with the process.
    Ok(())
}
