//! What the generation thread tells the owner: a function's outcome (recorded and published
//! when it is for the document's current version), a job done, the interpreter the workers
//! run, and the suspicious assertions of an exploration.

use super::Owner;
use crate::lsp::outbox::Status;
use crate::lsp::outcome::{FunctionOutcome, StoredDiagnostic};
use tower_lsp_server::ls_types::Uri;

impl Owner {
    pub(super) fn explored(
        &mut self,
        uri: Uri,
        version: i32,
        module: String,
        outcome: FunctionOutcome,
    ) {
        // Never publish what was computed for an older version of the document.
        let current = self.docs.get(&uri).map(|d| d.version);
        if current != Some(version) {
            return;
        }
        let key = self.results.key(&module, &outcome.function);
        self.scheduler.explored(&key);
        self.results.record(key, outcome, &self.outbox);
        self.publish(&uri);
    }

    pub(super) fn job_done(&mut self, job: u64) {
        if self.scheduler.job_done(job) {
            self.outbox.status(Status::idle());
            self.check_suite();
        }
    }

    /// The outcomes shown are those of the interpreter the workers run. Found at start,
    /// another one than the store knew for the name: the open documents are generated again
    /// (without a stored one, they are already on their way); found by a job starting the
    /// workers, the job's outcomes are stored under it.
    pub(super) fn interpreter_found(&mut self, likely: String, probed: String, at_start: bool) {
        let remembered = self.results.interpreter() != likely;
        if self.results.set_probed(likely, probed) {
            let all: Vec<Uri> = self.docs.keys().cloned().collect();
            for uri in &all {
                self.publish(uri);
            }
            if at_start && remembered && self.settings.generate_on_save() {
                self.schedule(&all, None, false);
            }
        }
    }

    pub(super) fn suspicious_found(
        &mut self,
        module: String,
        function: String,
        fingerprint: u64,
        diagnostics: Vec<StoredDiagnostic>,
    ) {
        let key = self.results.key(&module, &function);
        if self
            .results
            .replace_suspicious(&key, fingerprint, diagnostics, &self.outbox)
        {
            self.publish_module(&module);
        }
    }
}
