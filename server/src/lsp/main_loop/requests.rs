//! The requests the owner answers from its own state: re-running functions (`lacuna.rerun`),
//! the code actions offered for a document and resolving one, the guidance module's path
//! (created when it does not exist), and the class a factory builds.

use super::Owner;
use crate::lsp::actions::{self, ClassApi, Refusal, Resolving};
use crate::lsp::guidance::NotCreated;
use lacuna_analysis::db::module_index;
use std::path::PathBuf;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionOrCommand, CodeActionParams, Position, Uri,
};

impl Owner {
    /// Re-runs a function (the one at `at` of `uri`, or the one named) or, with neither,
    /// everything; answers the function's qualified name.
    pub(super) fn rerun(
        &mut self,
        uri: Option<Uri>,
        function: Option<String>,
        at: Option<Position>,
        reply: tokio::sync::oneshot::Sender<Option<String>>,
    ) {
        // The function is answered by its qualified name and re-run by its ID: two
        // definitions bound to one name are two functions.
        let (function, only) = match (&uri, at) {
            (Some(uri), Some(at)) => match self.function_at(uri, at) {
                Some((qualname, id)) => (Some(qualname), Some(id)),
                None => (None, None),
            },
            _ => (function.clone(), function),
        };
        let _ = reply.send(function);
        let uris: Vec<Uri> = match uri {
            Some(uri) => vec![uri],
            None => {
                // Everything again: what is stored goes too.
                self.results.clear(&self.outbox);
                self.docs.keys().cloned().collect()
            }
        };
        self.disk_changed = true;
        self.schedule(&uris, only.as_deref(), true);
        self.check_suite();
    }

    /// The actions offered for the diagnostics of `params`'s range, checked against the
    /// guidance module as the editor has it.
    pub(super) fn code_actions(&self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let (guidance, _) = actions::guidance_text(&self.docs, &self.config);
        let published = self.shared.published.read().expect("published lock");
        published
            .get(&params.text_document.uri)
            .map(|doc| actions::offer(params, doc, guidance.as_deref()))
            .unwrap_or_default()
    }

    pub(super) fn guidance_module(&self) -> Result<(PathBuf, bool), NotCreated> {
        let path = self.config.guidance.clone();
        if path.exists() || self.generator.is_none() {
            return Ok((path, false));
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut f| {
                    std::io::Write::write_all(&mut f, crate::lsp::guidance::HEADER.as_bytes())
                })
        };
        match write() {
            Ok(()) => Ok((path, true)),
            Err(error) => Err(NotCreated { path, error }),
        }
    }

    pub(super) fn resolve(&self, action: CodeAction) -> Result<CodeAction, Refusal> {
        let class_api = |qualified: &str| self.class_api(qualified);
        let at = Resolving {
            docs: &self.docs,
            config: &self.config,
            encoding: self.shared.encoding(),
            class_api: &class_api,
        };
        actions::resolve(action, &at)
    }

    /// A class's constructor parameters and public methods, by `module:Qual` name.
    fn class_api(&self, qualified: &str) -> Option<ClassApi> {
        let (module, qualname) = qualified.split_once(':')?;
        let db = &self.workspace.db;
        let file = module_index(db, self.workspace.project).file(module)?;
        lacuna_analysis::db::file_classes(db, file)
            .iter()
            .map(|&c| lacuna_analysis::db::class_model(db, c))
            .find(|m| m.qualname == qualname)
            .map(|m| ClassApi {
                init: m.init_params.clone().unwrap_or_default(),
                methods: m.public_methods.clone(),
                prerequisites: m
                    .public_methods
                    .iter()
                    .map(|(method, _)| (method.clone(), m.prerequisites(method)))
                    .collect(),
            })
    }
}
