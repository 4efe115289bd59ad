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
        let mut out = format!(
            "your tests: {} in {:.1} s",
            parts.join(", "),
            ms as f64 / 1000.0
        );
        // Which did not pass, and why, as pytest said it: a test that passes under plain
        // pytest may fail here because the sandbox refused what it did.
        let failed: Vec<_> = suite
            .tests
            .iter()
            .filter(|t| {
                matches!(
                    t.outcome,
                    Outcome::Failed | Outcome::Error | Outcome::Crashed
                )
            })
            .collect();
        for t in failed.iter().take(SHOWN_FAILURES) {
            out.push_str(&format!("\n  {} {}", t.id, t.outcome.as_str()));
            if let Some(reason) = t.message.as_deref().and_then(reason) {
                out.push_str(&format!(": {reason}"));
            }
        }
        if failed.len() > SHOWN_FAILURES {
            out.push_str(&format!(
                "\n  … and {} more (`--format json` lists every test with pytest's message)",
                failed.len() - SHOWN_FAILURES
            ));
        }
        return Some(out);
    }
    Some(format!(
        "your tests: {}",
        lacuna_analysis::suite::none_found(config)
    ))
}

/// Tests that did not pass, named with their reason under the summary line.
const SHOWN_FAILURES: usize = 5;

/// The line of pytest's report that says why a test failed: its first `E   ` line (the
/// exception, before an assertion's diff), else its last line; at most 200 characters.
fn reason(message: &str) -> Option<String> {
    let mut lines = message.lines().map(str::trim_end).filter(|l| !l.is_empty());
    let line = lines
        .clone()
        .find_map(|l| l.strip_prefix("E ").map(str::trim_start))
        .or_else(|| lines.next_back().map(str::trim))?;
    let mut cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    Some(cut)
}

#[cfg(test)]
mod tests {
    use super::reason;

    #[test]
    fn a_failures_reason_is_its_exception_line() {
        let message = "    def test_x():\n>       run()\n\nE   PermissionError: blocked by Lacuna's sandbox: subprocess.Popen msgfmt\n\ntests/test_a.py:3: PermissionError\n";
        assert_eq!(
            reason(message).as_deref(),
            Some("PermissionError: blocked by Lacuna's sandbox: subprocess.Popen msgfmt")
        );
        let diff = "E       AssertionError: assert 's' == 'es'\nE         \nE         - es\nE         + s\n";
        assert_eq!(
            reason(diff).as_deref(),
            Some("AssertionError: assert 's' == 'es'")
        );
        assert_eq!(
            reason("AssertionError\n").as_deref(),
            Some("AssertionError")
        );
        assert_eq!(reason("\n"), None);
    }
}
