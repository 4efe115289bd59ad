//! `workspace/executeCommand`: the server's commands (re-run, export the tests, open the
//! guidance module), each sent to the owner thread and answered with what it did.

use super::super::Backend;
use crate::lsp::event::Event;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub const RERUN: &str = "lacuna.rerun";
pub const EXPORT: &str = "lacuna.exportTests";
pub const GUIDANCE: &str = "lacuna.guidanceModule";

pub(crate) async fn handle(
    backend: &Backend,
    params: ExecuteCommandParams,
) -> Result<Option<LSPAny>> {
    let arg = params.arguments.into_iter().next().unwrap_or(Value::Null);
    match params.command.as_str() {
        RERUN => {
            let uri = arg
                .get("uri")
                .and_then(Value::as_str)
                .map(|s| s.parse::<Uri>())
                .transpose()
                .map_err(|_| Error::invalid_params("`uri` is not a URI"))?;
            let function = arg
                .get("function")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let at = arg
                .get("position")
                .map(|p| serde_json::from_value::<Position>(p.clone()))
                .transpose()
                .map_err(|_| {
                    Error::invalid_params("`position` is not a `{line, character}` position")
                })?;
            let (tx, rx) = tokio::sync::oneshot::channel();
            backend.send(Event::Rerun {
                uri,
                function,
                at,
                reply: tx,
            });
            // With a position: which function it re-runs (none: the whole file).
            match (at, rx.await) {
                (Some(_), Ok(function)) => Ok(Some(serde_json::json!({ "function": function }))),
                _ => Ok(None),
            }
        }
        EXPORT => {
            let directory = arg
                .get("directory")
                .and_then(Value::as_str)
                .map(std::path::PathBuf::from);
            let (tx, rx) = tokio::sync::oneshot::channel();
            backend.send(Event::Export {
                directory,
                reply: tx,
            });
            match rx.await {
                Ok(Ok(files)) => Ok(Some(serde_json::json!({
                    "written": files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()
                }))),
                Ok(Err(why)) => Err(Error {
                    code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
                    message: why.to_string().into(),
                    data: None,
                }),
                Err(_) => Err(Error::internal_error()),
            }
        }
        GUIDANCE => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            backend.send(Event::Guidance { reply: tx });
            match rx.await {
                Ok(Ok((path, created))) => Ok(Some(serde_json::json!({
                    "path": path.display().to_string(),
                    "created": created,
                }))),
                Ok(Err(not_created)) => Err(Error {
                    code: tower_lsp_server::jsonrpc::ErrorCode::ServerError(-32803),
                    message: not_created.to_string().into(),
                    data: None,
                }),
                Err(_) => Err(Error::internal_error()),
            }
        }
        other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
    }
}
