//! The formats CI tools read: SARIF for code scanning, workflow-command annotations for pull
//! requests, lcov and Cobertura for coverage services. Each module turns the checked files into
//! its own typed document; only the edge serialises. None of them computes anything the text
//! and JSON outputs do not already show.

pub mod cobertura;
pub mod coverage;
pub mod github;
pub mod lcov;
pub mod sarif;

use super::report::CheckedFile;
use lacuna_analysis::diagnostic::{Diagnostic, Evidence};

/// The file of a report as a relative URI with `/` separators (what code scanning and coverage
/// services resolve against the repository root).
pub fn uri(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// What identifies a diagnostic across edits that move code: the file, the function, the
/// decision (its ID hashes its text, not its place), the side or the MC/DC obligation — never
/// a line number. Diagnostics without a decision (syntax errors, not-explored functions,
/// imports) are told apart by their code, function and rank among their likes in the file.
pub fn fingerprints<'a>(file: &'a CheckedFile, diagnostics: &[&'a Diagnostic]) -> Vec<String> {
    let path = uri(&file.display);
    let mut seen: rustc_hash::FxHashMap<String, usize> = Default::default();
    diagnostics
        .iter()
        .map(|d| {
            let site = match &d.evidence {
                Some(Evidence::Side(side)) => format!("{}:{}", side.decision, side.side),
                Some(Evidence::Obligation(o)) => {
                    format!("{}:c{}={}", o.decision, o.condition, o.value)
                }
                _ => d.function.clone().unwrap_or_default(),
            };
            let key = format!("{path}:{}:{site}", d.code.as_str());
            let n = seen.entry(key.clone()).or_default();
            *n += 1;
            if *n == 1 { key } else { format!("{key}#{n}") }
        })
        .collect()
}
