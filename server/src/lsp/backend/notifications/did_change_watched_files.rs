//! `workspace/didChangeWatchedFiles`: the changed files' paths (URIs that are not files are
//! left out), for the owner thread.

use super::super::Backend;
use crate::lsp::event::Event;
use tower_lsp_server::ls_types::*;

pub(crate) fn handle(backend: &Backend, params: DidChangeWatchedFilesParams) {
    let changes = params
        .changes
        .into_iter()
        .filter_map(|c| Some((c.uri.to_file_path()?.into_owned(), c.typ)))
        .collect();
    backend.send(Event::FilesChanged(changes));
}
