//! The editor's documents as the owner keeps them: opened (published, generated when generation
//! runs on save), changed (the database's text, published again), saved (a save the debounce
//! flushes into a job) and closed (the file on disk again, its diagnostics cleared).

use super::{Owner, path_of};
use crate::lsp::document::{Document, Text};
use crate::lsp::outbox::Outgoing;
use lacuna_analysis::workspace::FileContents;
use std::sync::Arc;
use std::time::Instant;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

impl Owner {
    pub(super) fn opened(&mut self, uri: Uri, text: String, version: i32) {
        let Some(path) = path_of(&uri) else { return };
        self.workspace
            .file(&path, FileContents::Text(Arc::from(text.as_str())));
        self.docs.insert(
            uri.clone(),
            Document {
                text: Text::new(text),
                version,
            },
        );
        self.set_version(&uri, version);
        self.publish(&uri);
        if self.settings.generate_on_save() {
            self.schedule(&[uri], None, false);
        }
    }

    pub(super) fn changed(
        &mut self,
        uri: Uri,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        let encoding = self.shared.encoding();
        let Some(doc) = self.docs.get_mut(&uri) else {
            return;
        };
        doc.apply(changes, version, encoding);
        let text: Arc<str> = Arc::from(doc.text.text.as_str());
        if let Some(path) = path_of(&uri) {
            self.workspace.file(&path, FileContents::Text(text));
        }
        self.set_version(&uri, version);
        self.publish(&uri);
    }

    pub(super) fn saved(&mut self, uri: Uri) {
        if !self.docs.contains_key(&uri) {
            return;
        }
        self.disk_changed = true;
        self.scheduler.saved(uri, Instant::now());
    }

    pub(super) fn closed(&mut self, uri: Uri) {
        self.docs.remove(&uri);
        self.versions.lock().expect("versions lock").remove(&uri);
        self.shared
            .published
            .write()
            .expect("published lock")
            .remove(&uri);
        if let Some(path) = path_of(&uri) {
            // What the project sees is the file on disk again.
            self.workspace.file(&path, FileContents::read(&path));
        }
        self.outbox.send(Outgoing::Publish {
            uri,
            version: None,
            diagnostics: vec![],
        });
    }
}
