//! What the owner sends the generation thread: the saves of a debounce flushed into jobs (one
//! per document, only the functions without a current outcome), the function at a position that
//! `lacuna.rerun` re-runs, and the exploration behind an export of the generated tests.

use super::{Owner, path_of};
use crate::lsp::cursor;
use crate::lsp::event::ExportError;
use crate::lsp::generate::{Job, Request};
use crate::lsp::outbox::Status;
use crate::lsp::results;
use crate::lsp::scheduler::Wanted;
use lacuna_analysis::db::{SourceFile, field_writers, static_report};
use lacuna_analysis::explore::coverage::FunctionUnderTest;
use lacuna_analysis::generation;
use std::path::PathBuf;
use tower_lsp_server::ls_types::Uri;

impl Owner {
    pub(super) fn flush_saves(&mut self) {
        let uris = self.scheduler.take_saves(self.docs.keys());
        if uris.is_empty() {
            return;
        }
        // A virtual environment created (or removed) since: outcomes of the interpreter used
        // before are not shown, and every open document is generated again.
        if self
            .results
            .set_interpreter(results::interpreter_of(&self.config))
        {
            let all: Vec<Uri> = self.docs.keys().cloned().collect();
            for uri in &all {
                self.publish(uri);
            }
            if self.settings.generate_on_save() {
                self.schedule(&all, None, false);
            }
            self.check_suite();
            return;
        }
        if self.settings.generate_on_save() {
            self.schedule(&uris, None, false);
        }
        // Idle when nothing needed generating: the suite's turn now.
        self.check_suite();
    }

    /// The qualified name and the ID of the function at `at` in the document `uri`, as
    /// `lacuna.rerun` re-runs it ([`cursor::function_at`]); none outside every explorable
    /// function.
    pub(super) fn function_at(
        &self,
        uri: &Uri,
        at: tower_lsp_server::ls_types::Position,
    ) -> Option<(String, String)> {
        let doc = self.docs.get(uri)?;
        let offset = doc.text.offset(at, self.shared.encoding());
        let file = path_of(uri).and_then(|p| self.workspace.lookup(&p))?;
        let (targets, _) = generation::targets(&self.workspace.db, &[file]);
        let functions: Vec<&FunctionUnderTest> = targets.iter().map(|t| &t.under_test).collect();
        let found = cursor::function_at(&functions, offset)?;
        let target = targets
            .iter()
            .find(|t| std::ptr::eq(&t.under_test, found))?;
        Some((found.qualname.clone(), target.function.to_string()))
    }

    /// Sends the functions of `uris` that need exploring to the generation thread, one job per
    /// document. `force`: explore even what has a current outcome (`lacuna.rerun`).
    pub(super) fn schedule(&mut self, uris: &[Uri], only: Option<&str>, force: bool) {
        let Some(generator) = self.generator.clone() else {
            return;
        };
        // Which methods write which fields: computed once per call, and only when needed.
        for uri in uris {
            let Some(doc) = self.docs.get(uri) else {
                continue;
            };
            let version = doc.version;
            let Some(file) = path_of(uri).and_then(|p| self.workspace.lookup(&p)) else {
                continue;
            };
            let report = static_report(&self.workspace.db, file).clone();
            let (targets, _skipped) = generation::targets(&self.workspace.db, &[file]);
            let module = self.module_of(file).unwrap_or_default();
            let mut wanted = vec![];
            for target in targets {
                let id = target.function.to_string();
                if only.is_some_and(|f| f != id && f != target.under_test.qualname) {
                    continue;
                }
                let Some(fingerprint) = report
                    .functions
                    .iter()
                    .find(|f| f.id.as_str() == id)
                    .map(|f| f.fingerprint)
                else {
                    continue;
                };
                let key = self.results.key(&module, &id);
                if force {
                    self.results.forget(&key);
                } else if self.results.outcome(&module, &id, fingerprint).is_some() {
                    continue;
                }
                wanted.push(Wanted {
                    target,
                    key,
                    fingerprint,
                });
            }
            let Some(planned) = self.scheduler.plan(version, wanted, force) else {
                continue;
            };
            let job = Job {
                id: planned.id,
                uri: uri.clone(),
                version,
                config: self.config.clone(),
                targets: planned.targets,
                writers: field_writers(&self.workspace.db, self.workspace.project).clone(),
                reload: std::mem::take(&mut self.disk_changed),
            };
            // Generation has the processor: a run of the suite under way stops.
            if self.suite_state.running {
                self.suite_state.again = true;
                self.suite_stop
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
            if generator.send(Request::Explore(job)).is_err() {
                self.outbox
                    .status(Status::error("the generation thread stopped".into()));
            }
        }
    }

    pub(super) fn export(
        &mut self,
        directory: Option<PathBuf>,
        reply: tokio::sync::oneshot::Sender<Result<Vec<PathBuf>, ExportError>>,
    ) {
        let Some(generator) = self.generator.clone() else {
            let _ = reply.send(Err(ExportError::GenerationOff));
            return;
        };
        let dir = match directory {
            Some(d) if d.is_absolute() => d,
            Some(d) => self.config.root.join(d),
            None => self.config.root.join("tests").join("generated"),
        };
        let db = &self.workspace.db;
        let project: Vec<SourceFile> = (**self.workspace.project.files(db)).clone();
        let writers = field_writers(db, self.workspace.project).clone();
        let (targets, _) = generation::targets(db, &project);
        let mut with_fingerprints = vec![];
        for target in targets {
            let report = static_report(db, target.file);
            if let Some(f) = report.functions.iter().find(|f| f.id == target.function) {
                let fingerprint = f.fingerprint;
                with_fingerprints.push((target, fingerprint));
            }
        }
        let request = Request::Export {
            config: self.config.clone(),
            targets: with_fingerprints,
            writers,
            dir,
            reply,
        };
        let _ = generator.send(request);
    }
}
