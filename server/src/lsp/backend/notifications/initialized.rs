//! `initialized`: registers the file watchers (`pyproject.toml`, Python files) and pulls the
//! settings when the client offers `workspace/configuration`.

use super::super::Backend;
use tower_lsp_server::ls_types::*;

pub(crate) async fn handle(backend: &Backend, _: InitializedParams) {
    let watchers = ["**/pyproject.toml", "**/*.py"]
        .into_iter()
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.into()),
            kind: None,
        })
        .collect();
    let registration = Registration {
        id: "lacuna-watched-files".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
            watchers,
        })
        .ok(),
    };
    let _ = backend.client.register_capability(vec![registration]).await;
    backend.pull_settings().await;
}
