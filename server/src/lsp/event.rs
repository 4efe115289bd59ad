//! What reaches the owner, in order: the editor's notifications (opened, changed, saved,
//! closed documents, settings, files changed on disk), the requests that need the owner's
//! state (code actions, resolving one, the guidance module's path, exporting tests) with the
//! channel their answer goes back by, and the generation thread's results.

use super::outcome::FunctionOutcome;
use super::settings::Settings;
use std::path::PathBuf;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionOrCommand, CodeActionParams, FileChangeType,
    TextDocumentContentChangeEvent, Uri,
};

pub enum Event {
    Initialize {
        root: Option<PathBuf>,
        settings: Settings,
        generate: bool,
        /// What the user is told when `generate` is false.
        why_static: &'static str,
    },
    Open {
        uri: Uri,
        text: String,
        version: i32,
    },
    Change {
        uri: Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    },
    Save {
        uri: Uri,
    },
    Close {
        uri: Uri,
    },
    Settings(Settings),
    FilesChanged(Vec<(PathBuf, FileChangeType)>),
    /// `lacuna.rerun`: a document (none: all), one function of it by ID or qualified name,
    /// or the one at a position; `reply` gets the function re-run (none: the whole file).
    Rerun {
        uri: Option<Uri>,
        function: Option<String>,
        at: Option<tower_lsp_server::ls_types::Position>,
        reply: tokio::sync::oneshot::Sender<Option<String>>,
    },
    Export {
        directory: Option<PathBuf>,
        reply: tokio::sync::oneshot::Sender<Result<Vec<PathBuf>, ExportError>>,
    },
    Explored {
        uri: Uri,
        version: i32,
        module: String,
        outcome: FunctionOutcome,
    },
    JobDone {
        job: u64,
    },
    /// The interpreter `likely` names runs `probed` (its `sys.executable`): found when the
    /// server starts (`at_start`), or when the generation thread started its workers with it.
    Interpreter {
        likely: String,
        probed: String,
        at_start: bool,
    },
    /// The project's suite ran (part of it).
    SuiteRan(Box<super::suite::Ran>),
    /// The suspicious assertions of a function explored earlier, checked against new
    /// observations of the suite: they replace its `LCN300` diagnostics.
    Suspicious {
        module: String,
        function: String,
        fingerprint: u64,
        diagnostics: Vec<super::outcome::StoredDiagnostic>,
    },
    /// The guidance module's path, created with its header when missing (not in static mode,
    /// which writes nothing): `(path, created)`.
    Guidance {
        reply: tokio::sync::oneshot::Sender<Result<(PathBuf, bool), super::guidance::NotCreated>>,
    },
    /// The code actions for a range, checked against the guidance module as resolving them
    /// will see it (so that an action that would be refused is never offered).
    CodeActions {
        params: CodeActionParams,
        reply: tokio::sync::oneshot::Sender<Vec<CodeActionOrCommand>>,
    },
    /// Computes the edit of a code action offered earlier.
    Resolve {
        action: CodeAction,
        reply: tokio::sync::oneshot::Sender<Result<CodeAction, super::actions::Refusal>>,
    },
}

/// Why the generated tests could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("generation is off (untrusted workspace or static mode): nothing to export")]
    GenerationOff,
    #[error(transparent)]
    Interpreter(#[from] lacuna_analysis::agent::interpreter::InterpreterError),
    #[error("cannot write tests to {}: {error}", dir.display())]
    Write { dir: PathBuf, error: std::io::Error },
}
