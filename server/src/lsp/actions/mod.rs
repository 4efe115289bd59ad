//! Code actions that close a gap (Covana's loop, cooperative testing): on an uncovered side that
//! depends on an external call, "Mock `os.path.exists` in generated tests"; on one that depends on
//! object state, "Create a factory for `Stack`"; on one that needs more iterations than the
//! bound, "Raise the loop bound to 64 in pyproject.toml". `offer` answers from the published
//! snapshot, leaving out a mock or factory the guidance module already declares as it has the
//! module then; `resolve` computes the edit against the document version the action was
//! offered for, and refuses it if that document changed since. Both run on the owner's thread.

mod failing;
mod offer;
mod resolve;

pub use offer::offer;
pub use resolve::{ClassApi, Refusal, Resolving, resolve};

use super::document::Document;
use lacuna_analysis::config::Config;
use rustc_hash::FxHashMap;
use serde_json::Value;
use tower_lsp_server::ls_types::Uri;

/// The strings of a JSON array (none for anything else).
fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `Order` of `shop.orders:Order`.
pub fn short_class(qualified: &str) -> &str {
    lacuna_analysis::guidance::declared::last_segment(qualified)
}

/// The guidance module's URI.
pub fn guidance_uri(config: &Config) -> Option<Uri> {
    Uri::from_file_path(&config.guidance)
}

/// The guidance module's text and version as the editor has it, else the disk's text.
pub fn guidance_text(
    docs: &FxHashMap<Uri, Document>,
    config: &Config,
) -> (Option<String>, Option<i32>) {
    match guidance_uri(config).and_then(|uri| docs.get(&uri)) {
        Some(doc) => (Some(doc.text.text.clone()), Some(doc.version)),
        None => (std::fs::read_to_string(&config.guidance).ok(), None),
    }
}
