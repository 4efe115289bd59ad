//! The owner's view of the project on disk: the configuration re-read, and files created,
//! changed or deleted outside the editor.

use super::{Owner, path_of};
use crate::lsp::results;
use lacuna_analysis::config::Config;
use lacuna_analysis::guidance::dependence::Declarations;
use lacuna_analysis::workspace::FileContents;
use std::path::PathBuf;
use std::sync::Arc;
use tower_lsp_server::ls_types::{FileChangeType, Uri};

impl Owner {
    /// Re-reads the project file and applies the editor settings over it.
    pub(super) fn reconfigure(&mut self) {
        let base = match self.base_config.source.clone() {
            Some(file) => Config::load(&file).unwrap_or_else(|e| {
                self.outbox
                    .warn(format!("Lacuna: {e} (keeping the previous configuration)"));
                self.base_config.clone()
            }),
            None => {
                Config::discover(&self.config.root).unwrap_or_else(|_| self.base_config.clone())
            }
        };
        let mut base = base;
        // The roots of files no other root names, for the project's files as they are now.
        lacuna_analysis::workspace::add_roots_for(&mut base, &self.workspace.paths());
        self.base_config = base;
        let config = Arc::new(self.settings.apply(self.base_config.clone()));
        if self
            .results
            .set_declarations(Declarations::read(&config.guidance))
        {
            // Jobs already queued explore with the declarations they started with.
            self.scheduler.forget_queued();
        }
        let key_changed = self.results.set_config_key(results::config_key(&config))
            | self
                .results
                .set_interpreter(results::interpreter_of(&config));
        if self.results.set_suite_key(results::suite_key(&config)) {
            self.send_observations();
        }
        if config != self.config || key_changed {
            self.config = config.clone();
            *self.shared.config.write().expect("config lock") = Some(config.clone());
            self.workspace.set_config((*config).clone());
        }
        let uris: Vec<Uri> = self.docs.keys().cloned().collect();
        for uri in &uris {
            self.publish(uri);
        }
        self.schedule(&uris, None, false);
    }

    pub(super) fn files_changed(&mut self, changes: Vec<(PathBuf, FileChangeType)>) {
        let mut reconfigure = false;
        for (path, kind) in changes {
            let is_config = path.file_name().is_some_and(|n| n == "pyproject.toml");
            if is_config || path == self.config.guidance {
                // Workers import the guidance module: they start again to see the new one.
                self.disk_changed |= path == self.config.guidance;
                reconfigure = true;
                continue;
            }
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let open = self
                .docs
                .keys()
                .any(|u| path_of(u).is_some_and(|p| p == path));
            if open {
                continue; // the editor's text wins
            }
            let contents = if kind == FileChangeType::DELETED {
                FileContents::Deleted
            } else {
                FileContents::read(&path)
            };
            // A new file no import root names (under a directory that is no identifier) gets
            // its root as the project's files at start-up do: the configuration is read again.
            reconfigure |= kind != FileChangeType::DELETED
                && !self.base_config.src_configured
                && lacuna_analysis::workspace::module_name(&self.base_config.src, &path).is_none();
            self.workspace.file(&path, contents);
            self.disk_changed = true;
        }
        if reconfigure {
            self.reconfigure();
        } else {
            let uris: Vec<Uri> = self.docs.keys().cloned().collect();
            for uri in &uris {
                self.publish(uri);
            }
        }
        if self.suite_state.first.is_none() {
            self.check_suite();
        }
    }
}
