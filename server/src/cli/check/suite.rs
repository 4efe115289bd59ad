//! What `lacuna check` says of the project's own tests once they ran: how many pytest counted
//! of each outcome, or — when it found none — where it looked and which files look like tests
//! to it, with the `[tool.lacuna] tests` entry that would run them. Never silent: the
//! suspicious-assertion check and the inputs taken from the suite depend on them.

use lacuna_analysis::config::Config;
use lacuna_analysis::suite::{Outcome, SuiteRuns};

/// The line, without the `lacuna: ` prefix; `None` when the run failed (its warning says why).
pub(super) fn summary(suite: &SuiteRuns, config: &Config, ms: u128) -> Option<String> {
    if suite.failure.is_some() {
        return None;
    }
    if !suite.tests.is_empty() || !suite.collection_errors.is_empty() {
        let mut counts = std::collections::BTreeMap::<Outcome, usize>::new();
        for t in &suite.tests {
            *counts.entry(t.outcome).or_default() += 1;
        }
        let mut parts: Vec<String> = counts
            .iter()
            .map(|(outcome, n)| format!("{n} {}", outcome.as_str()))
            .collect();
        if !suite.collection_errors.is_empty() {
            let n = suite.collection_errors.len();
            parts.push(format!(
                "{n} {} pytest could not collect",
                if n == 1 { "file" } else { "files" }
            ));
        }
        return Some(format!(
            "your tests: {} in {:.1} s",
            parts.join(", "),
            ms as f64 / 1000.0
        ));
    }
    Some(format!(
        "your tests: {}",
        lacuna_analysis::suite::none_found(config)
    ))
}
