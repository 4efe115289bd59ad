//! Lacuna's own per-line suppressions, as ruff's `# noqa` works: a comment `# lacuna:
//! ignore[LCN101, LCN2]` (codes or prefixes, as the `ignore` setting takes them) or a bare
//! `# lacuna: ignore` (every code) leaves out the diagnostics that start on its line. Owns
//! reading the markers of a file and deciding whether one suppresses a diagnostic; the CLI and
//! the language server both filter with it, after the selection.

use crate::diagnostic::Diagnostic;
use lacuna_grammar::LineIndex;
use std::collections::BTreeMap;

const MARKER: &str = "# lacuna: ignore";

/// The suppression markers of one file, by 0-based line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suppressions {
    /// `None`: every code; else the codes and prefixes named.
    lines: BTreeMap<u32, Option<Vec<String>>>,
}

impl Suppressions {
    /// The markers of `text`, whose lines `index` holds.
    pub fn of(text: &str, index: &LineIndex) -> Suppressions {
        let mut lines = BTreeMap::new();
        for (i, line) in index.lines(text) {
            let Some(at) = line.find(MARKER) else {
                continue;
            };
            let rest = &line[at + MARKER.len()..];
            let codes = rest
                .strip_prefix('[')
                .and_then(|r| r.split_once(']'))
                .map(|(codes, _)| {
                    codes
                        .split(',')
                        .map(|c| c.trim().to_ascii_uppercase())
                        .filter(|c| !c.is_empty())
                        .collect::<Vec<_>>()
                });
            lines.insert(i, codes);
        }
        Suppressions { lines }
    }

    /// Whether a marker on the line where `diagnostic` starts suppresses its code.
    pub fn suppresses(&self, diagnostic: &Diagnostic, lines: &LineIndex) -> bool {
        if self.lines.is_empty() {
            return false;
        }
        let line = lines.line_col(diagnostic.range.start).line;
        match self.lines.get(&line) {
            None => false,
            Some(None) => true,
            Some(Some(codes)) => {
                let code = diagnostic.code.as_str();
                codes.iter().any(|c| code.starts_with(c.as_str()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Cause, Code};
    use lacuna_grammar::TextRange;

    #[test]
    fn a_marker_suppresses_the_codes_it_names_on_its_line() {
        // A lone `\r` ends a line, as it does for Python and for the positions of diagnostics.
        let text = "a = 1  # lacuna: ignore[LCN101, lcn2]\rb = 2  # lacuna: ignore\nc = 3\n";
        let lines = LineIndex::new(text);
        let s = Suppressions::of(text, &lines);
        let at = |line: u32, code: Code| {
            let start = lines.line_range(line).unwrap().start;
            Diagnostic::new(code, TextRange::new(start, start + 1), String::new())
        };
        let external = Code::UncoveredBranch(Cause::ExternalCall);
        assert!(s.suppresses(&at(0, external), &lines));
        assert!(s.suppresses(&at(0, Code::McdcObligation), &lines));
        assert!(!s.suppresses(&at(0, Code::UncoveredBranch(Cause::Boundary)), &lines));
        assert!(s.suppresses(&at(1, Code::McdcObligation), &lines));
        assert!(!s.suppresses(&at(2, external), &lines));
    }
}
