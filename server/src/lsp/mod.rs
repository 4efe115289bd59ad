//! The language server (`lacuna lsp`, stdio). Data flow: `backend` turns LSP messages into
//! `event`s; `main_loop` owns the database, applies them in order, asks the `scheduler` what to
//! explore and publishes through `results` into the `snapshot` handlers read; `generate`
//! explores on its own thread; `outbox` sends to the client in order; `store` keeps results
//! between sessions; `hover`, `actions` and `guidance` explain gaps and close them.

mod actions;
mod backend;
mod budget;
mod convert;
mod cursor;
mod document;
mod event;
mod framing;
mod generate;
mod guidance;
mod hover;
mod ledger;
mod main_loop;
mod outbox;
mod results;
mod scheduler;
mod settings;
mod snapshot;
mod suite;

use crate::store::{self, outcome};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tower_lsp_server::{LspService, Server};

pub use framing::DEFAULT_MAX_MESSAGE;

/// How long in-flight work may take to finish after `exit`.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// Serves LSP on stdin/stdout until the client exits: exit code 0 after `shutdown` then
/// `exit`, 1 when the client exits (or its input ends) without `shutdown`, as the LSP asks.
pub fn run(static_only: bool, max_message: u64) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let shut_down = Arc::new(AtomicBool::new(false));
    let flag = shut_down.clone();
    runtime.block_on(async move {
        let (service, socket) =
            LspService::build(|client| backend::Backend::new(client, static_only, flag)).finish();
        let transport = framing::guard(tokio::io::stdin(), tokio::io::stdout(), max_message);
        let serve = Server::new(transport.input, transport.output, socket).serve(service);
        // After `exit`, tower-lsp still waits for every handler in flight, and a handler may
        // wait for a client that no longer answers (the configuration it asked for): the
        // process ends shortly after `exit` whatever is still pending.
        tokio::select! {
            () = serve => {}
            () = async {
                transport.exit.notified().await;
                tokio::time::sleep(EXIT_GRACE).await;
            } => {}
        }
        // The server's side is closed: the writer ends after its last message.
        let _ = tokio::time::timeout(EXIT_GRACE, transport.writer).await;
    });
    // Reading stdin blocks a thread of the runtime that nothing can cancel: waiting for it
    // (dropping the runtime) would keep the process alive after `exit`. Background threads
    // (generation may be mid-exploration) end with the process.
    runtime.shutdown_background();
    Ok(if shut_down.load(Ordering::SeqCst) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
