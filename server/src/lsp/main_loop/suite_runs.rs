//! The owner's runs of the project's suite: which tests are stale and when they run (once
//! generation is idle), what a run changed, and the observations passed on to generation.

use super::{Owner, path_of};
use crate::lsp::generate::Request;
use crate::lsp::suite;
use lacuna_analysis::db::{SourceFile, static_report};
use lacuna_analysis::generation;
use rustc_hash::FxHashMap;
use tower_lsp_server::ls_types::Uri;

impl Owner {
    /// Runs the tests of the project's suite that are stale (all of them the first time),
    /// once generation is idle and no run is under way; says so once when none is.
    pub(super) fn check_suite(&mut self) {
        let Some(suite) = self.suite.clone() else {
            return;
        };
        if self.suite_state.running {
            self.suite_state.again = true;
            return;
        }
        if !self.scheduler.idle() {
            return; // the end of the job checks again
        }
        self.suite_state.first = None;
        // The suite runs the code on disk, fingerprints are the editor's: an open document
        // with unsaved changes waits for its save, which checks again.
        let unsaved = self.docs.iter().any(|(uri, doc)| {
            path_of(uri)
                .and_then(|p| std::fs::read_to_string(p).ok())
                .is_some_and(|disk| disk != doc.text.text)
        });
        if unsaved {
            return;
        }
        let stamp = self.suite_stamp();
        let Some(selection) = self.results.suite().plan(&stamp) else {
            if !std::mem::replace(&mut self.suite_state.checked, true) {
                let counts = self.results.suite().tests.len();
                self.outbox.log(format!(
                    "Lacuna: your tests are up to date: {} from an earlier run, none stale",
                    crate::lsp::ledger::plural(counts, "result")
                ));
            }
            return;
        };
        self.suite_state.checked = true;
        let db = &self.workspace.db;
        let files: Vec<SourceFile> = (**self.workspace.project.files(db)).clone();
        let (targets, _) = generation::targets(db, &files);
        self.outbox.log(format!(
            "Lacuna: running your tests: {}",
            selection.describe()
        ));
        self.suite_state.running = true;
        self.suite_stop
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let run = suite::Run {
            config: self.config.clone(),
            selection,
            stamp,
            functions: targets.into_iter().map(|t| t.under_test).collect(),
        };
        if suite.send(run).is_err() {
            self.suite_state.running = false;
            self.outbox
                .log("Lacuna: the thread that runs your tests stopped");
        }
    }

    /// The project as the suite's ledger compares it: test files' digests and every
    /// function's fingerprint.
    pub(super) fn suite_stamp(&self) -> crate::lsp::ledger::Stamp {
        let db = &self.workspace.db;
        let mut fingerprints = FxHashMap::default();
        for &file in self.workspace.project.files(db).iter() {
            let Some(module) = self.module_of(file) else {
                continue;
            };
            for f in &static_report(db, file).functions {
                fingerprints.insert(format!("{module}:{}", f.qualname), f.fingerprint);
            }
        }
        crate::lsp::ledger::Stamp::new(suite::test_files(&self.config), fingerprints)
    }

    /// Publishes the open documents of `module` again.
    pub(super) fn publish_module(&mut self, module: &str) {
        let uris: Vec<Uri> = self
            .docs
            .keys()
            .filter(|uri| {
                path_of(uri)
                    .and_then(|p| self.workspace.lookup(&p))
                    .and_then(|file| self.module_of(file))
                    .is_some_and(|m| m == module)
            })
            .cloned()
            .collect();
        for uri in &uris {
            self.publish(uri);
        }
    }

    /// Sends the suite's observations to the generation thread.
    pub(super) fn send_observations(&self) {
        if let Some(generator) = &self.generator {
            let _ = generator.send(Request::Observations {
                config: self.config.clone(),
                observations: self.results.observations(),
            });
        }
    }

    pub(super) fn suite_ran(&mut self, ran: suite::Ran) {
        self.suite_state.running = false;
        if ran.stopped {
            self.outbox.log(
                "Lacuna: your tests: stopped to leave the processor to generation; they run \
                 again once it is idle",
            );
            if std::mem::take(&mut self.suite_state.again) {
                self.check_suite();
            }
            return;
        }
        if ran.ran {
            let selection = ran.selection.clone();
            self.results
                .merge_observations(ran.observations, |test| selection.reruns(test));
        }
        let failed = ran.failure.is_some();
        let ran_tests = ran.ran;
        let errors = ran.collection_errors.len();
        let reported = ran.records.len();
        let ledger = self.results.suite();
        ledger.merge(&ran.selection, &ran.stamp, ran.records, ran.ran);
        let counts: Vec<String> = ledger
            .counts()
            .iter()
            .map(|(outcome, n)| format!("{n} {outcome}"))
            .collect();
        self.results.store_suite(&self.outbox);
        let mut summary = format!(
            "Lacuna: your tests ran: {} reported; all recorded: {}",
            crate::lsp::ledger::plural(reported, "test"),
            if counts.is_empty() {
                "none".to_owned()
            } else {
                counts.join(", ")
            }
        );
        if errors > 0 {
            summary.push_str(&format!(
                "; {} could not be collected",
                crate::lsp::ledger::plural(errors, "file")
            ));
        }
        if failed {
            summary.push_str(" (the run was incomplete: see above)");
        }
        self.outbox.log(summary);
        self.send_observations();
        let uris: Vec<Uri> = self.docs.keys().cloned().collect();
        for uri in &uris {
            self.publish(uri);
        }
        // Something changed during the run, or a test it was to run again was not reported
        // (its file runs whole now); a run that could not start waits for the next change.
        if std::mem::take(&mut self.suite_state.again) || ran_tests {
            self.check_suite();
        }
    }
}
