//! What the owner publishes and request handlers read: per document, the version, text and
//! diagnostics last published, and the state a handler needs besides (the position encoding,
//! the configuration and settings, whether the client pulls diagnostics, the guidance module's
//! text while it is open). Handlers never read the database: only this.

use super::document::{Encoding, Text};
use super::settings::Settings;
use lacuna_analysis::config::Config;
use lacuna_analysis::diagnostic::Diagnostic;
use rustc_hash::FxHashMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use tower_lsp_server::ls_types::Uri;

/// What was last published for a document: what hover and code actions answer from.
#[derive(Clone, Debug)]
pub struct Published {
    pub version: i32,
    pub text: Text,
    pub diagnostics: Vec<Diagnostic>,
}

/// State shared with the request handlers: read-only for them.
pub struct Shared {
    pub encoding: RwLock<Encoding>,
    pub published: RwLock<FxHashMap<Uri, Published>>,
    pub config: RwLock<Option<Arc<Config>>>,
    pub settings: RwLock<Settings>,
    /// The client pulls diagnostics (`textDocument/diagnostic`) instead of receiving them.
    pub pull: std::sync::atomic::AtomicBool,
    /// The guidance module's text while the editor has it open (otherwise the disk's is
    /// current): what hover points into.
    pub open_guidance: RwLock<Option<String>>,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            encoding: RwLock::new(Encoding::Utf16),
            published: RwLock::default(),
            config: RwLock::default(),
            settings: RwLock::default(),
            pull: Default::default(),
            open_guidance: RwLock::default(),
        }
    }
}

impl Shared {
    pub fn encoding(&self) -> Encoding {
        *self.encoding.read().expect("encoding lock")
    }

    /// The guidance module's path and current text: the editor's while it is open there, else
    /// the disk's; none when it does not exist.
    pub fn guidance(&self) -> Option<(PathBuf, String)> {
        let path = self
            .config
            .read()
            .expect("config lock")
            .as_ref()?
            .guidance
            .clone();
        let open = self.open_guidance.read().expect("guidance lock").clone();
        let text = open.or_else(|| std::fs::read_to_string(&path).ok())?;
        Some((path, text))
    }
}
