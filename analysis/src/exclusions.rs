//! coverage.py's exclusions, honoured as its users write them: a source line matching one of the
//! project's exclusion patterns (coverage.py's default, `# pragma: no cover`, or its
//! `[tool.coverage.report] exclude_lines` and `exclude_also`) leaves out what it starts, as
//! coverage.py does: a `def` or `class` line (or one of its decorators) the whole definition,
//! an `if`, `elif`, `while` or `for` line the decision with the block it guards, any other
//! decision on the line (a conditional expression, a comprehension's `if`, `and`/`or`) that
//! decision, an `except` line its handler. What is left out is neither counted, nor targeted,
//! nor diagnosed; each function keeps the number of branch sides it lost
//! (`FunctionSyntax::excluded_sides`). Owns which lines are excluded and what that removes from
//! a module's syntax.

use lacuna_grammar::{DecisionKind, LineIndex, Module};
use regex::Regex;
use std::sync::Arc;

/// The project's exclusion patterns, compiled.
#[derive(Debug, Default)]
pub struct Exclusions {
    patterns: Vec<Regex>,
}

impl Exclusions {
    /// From coverage.py's patterns (regular expressions searched in each line); a pattern
    /// Rust's engine cannot read is left out.
    pub fn new(patterns: &[String]) -> Exclusions {
        Exclusions {
            patterns: patterns.iter().filter_map(|p| Regex::new(p).ok()).collect(),
        }
    }

    /// The 0-based lines of `text` some pattern matches.
    fn lines(&self, text: &str, index: &LineIndex) -> Vec<u32> {
        if self.patterns.is_empty() {
            return vec![];
        }
        index
            .lines(text)
            .filter(|(_, line)| self.patterns.iter().any(|p| p.is_match(line)))
            .map(|(i, _)| i)
            .collect()
    }

    /// Leaves out of `module` (the syntax of `text`, whose lines `index` holds) the decisions
    /// and definitions an excluded line starts, counting the sides each function lost.
    pub fn apply(&self, module: &mut Module, text: &str, index: &LineIndex) {
        let excluded = self.lines(text, index);
        if excluded.is_empty() {
            return;
        }
        let line = |offset: u32| index.line_col(offset).line;
        let is_excluded = |l: u32| excluded.binary_search(&l).is_ok();
        // Byte spans left out whole: definitions whose header is excluded, and the blocks an
        // excluded `if`/`elif`/`while`/`for` line guards.
        let mut spans: Vec<(u32, u32)> = vec![];
        for f in &module.functions {
            let whole = f.syntax.range.absolute(f.anchor);
            let name = f.syntax.name_range.absolute(f.anchor);
            if f.syntax.kind != lacuna_grammar::FunctionKind::Module
                && (line(whole.start)..=line(name.start)).any(is_excluded)
            {
                spans.push((whole.start, whole.end));
            }
            for d in &f.syntax.decisions {
                let keyword = d.keyword.absolute(f.anchor);
                // A side whose code starts on an excluded line (`raise NotImplementedError  #
                // pragma: no cover`, or its `else:` line): coverage.py drops the arc into it,
                // which leaves the decision one way to go — no branch. The block goes with it.
                for side in &d.sides {
                    let Some(block) = side.target.map(|t| t.absolute(f.anchor)) else {
                        continue;
                    };
                    let first = first_code_line(text, index, block.start);
                    if is_excluded(first)
                        || (first > 0
                            && is_excluded(first - 1)
                            && opens_else(text, index, first - 1))
                    {
                        spans.push((keyword.start, keyword.end));
                        spans.push((block.start, block.end));
                    }
                }
                if !is_excluded(line(keyword.start)) {
                    continue;
                }
                let guards = matches!(
                    d.kind,
                    DecisionKind::If | DecisionKind::Elif | DecisionKind::While | DecisionKind::For
                );
                let end = match d.side(true).target {
                    Some(block) if guards => block.absolute(f.anchor).end,
                    _ => d.range.absolute(f.anchor).end,
                };
                spans.push((keyword.start, end.max(keyword.end)));
            }
        }
        let inside = |offset: u32| spans.iter().any(|&(s, e)| s <= offset && offset < e);
        for f in &mut module.functions {
            let anchor = f.anchor;
            // An `except` line (or its block's first line) excluded leaves the handler out,
            // as one in a block left out.
            let kept = |h: &lacuna_grammar::Handler| {
                let (clause, first) = (h.clause.absolute(anchor), h.first.absolute(anchor));
                !inside(clause.start)
                    && !is_excluded(line(clause.start))
                    && !is_excluded(line(first.start))
            };
            if !f.syntax.handlers.iter().all(kept) {
                Arc::make_mut(&mut f.syntax).handlers.retain(kept);
            }
            let left_out = f
                .syntax
                .decisions
                .iter()
                .filter(|d| inside(d.keyword.absolute(anchor).start))
                .count();
            if left_out == 0 {
                continue;
            }
            let syntax = Arc::make_mut(&mut f.syntax);
            syntax
                .decisions
                .retain(|d| !inside(d.keyword.absolute(anchor).start));
            syntax.excluded_sides += 2 * left_out as u32;
        }
    }
}

/// The 0-based line of the first code at or after `offset` (a block's range may start with
/// the whitespace before its first statement).
fn first_code_line(text: &str, index: &LineIndex, offset: u32) -> u32 {
    let rest = text.get(offset as usize..).unwrap_or("");
    let skipped = rest.len() - rest.trim_start().len();
    index.line_col(offset + skipped as u32).line
}

/// Whether 0-based `line` of `text` is an `else:` clause's header.
fn opens_else(text: &str, index: &LineIndex, line: u32) -> bool {
    let Some(range) = index.line_range(line) else {
        return false;
    };
    let header = text
        .get(range.start as usize..range.end as usize)
        .unwrap_or("");
    let header = header.trim_start();
    header.starts_with("else:") || header.starts_with("else :")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sides_of(text: &str, patterns: &[&str]) -> Vec<(String, usize, u32)> {
        let mut module = lacuna_grammar::parse(text);
        let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        Exclusions::new(&patterns).apply(&mut module, text, &LineIndex::new(text));
        module
            .functions
            .iter()
            .map(|f| {
                (
                    f.syntax.qualname.to_string(),
                    f.syntax.branch_count(),
                    f.syntax.excluded_sides,
                )
            })
            .collect()
    }

    #[test]
    fn an_excluded_line_leaves_out_what_it_starts() {
        let text = r#"import sys

if sys.version_info < (3, 8):  # pragma: no cover
    raise ImportError


def parse(text, strict):
    if not text:  # pragma: no cover
        if strict:
            raise ValueError(text)
        return None
    else:
        value = text.strip()
    for part in value.split(","):
        if part == "x":
            return part
    return value if strict else None  # pragma: no cover


@decorated  # pragma: no cover
def debug(x):
    if x:
        return 1
    return 2


class Shape:  # pragma: no cover
    def area(self):
        return 0 if self else 1


def kept(x):
    if x:
        raise NotImplementedError  # pragma: no cover
    return x


def either(x):
    if x > 0:
        return 1
    else:  # pragma: no cover
        if x == 0:
            return 0
        return -1
"#;
        let default = [crate::config::DEFAULT_EXCLUDE_LINE];
        assert_eq!(
            sides_of(text, &default),
            [
                ("<module>".to_owned(), 0, 2),
                ("parse".to_owned(), 4, 6),
                ("debug".to_owned(), 0, 2),
                ("Shape".to_owned(), 0, 0),
                ("Shape.area".to_owned(), 0, 2),
                ("kept".to_owned(), 0, 2),
                ("either".to_owned(), 0, 4),
            ]
        );
        // `exclude_lines` replaces the default: the pragma counts no more, the pattern does.
        let own = sides_of(text, &[r"raise NotImplementedError", r"^\s*if x:"]);
        assert_eq!(own[5], ("kept".to_owned(), 0, 2));
        assert_eq!(own[1], ("parse".to_owned(), 10, 0));
    }

    #[test]
    fn an_excluded_except_line_leaves_out_its_handler() {
        let text = r#"def load(path):
    try:
        return open(path).read()
    except FileNotFoundError:
        return ""
    except OSError:  # pragma: no cover
        raise
    except ValueError:
        raise  # pragma: no cover


def guarded(x):
    if x:  # pragma: no cover
        try:
            return int(x)
        except ValueError:
            return 0
    return x
"#;
        let mut module = lacuna_grammar::parse(text);
        let patterns = [crate::config::DEFAULT_EXCLUDE_LINE.to_owned()];
        Exclusions::new(&patterns).apply(&mut module, text, &LineIndex::new(text));
        let index = LineIndex::new(text);
        let handlers: Vec<(String, Vec<u32>)> = module
            .functions
            .iter()
            .map(|f| {
                let lines = f.syntax.handlers.iter();
                let first = |h: &lacuna_grammar::Handler| {
                    index.line_col(h.first.absolute(f.anchor).start).line + 1
                };
                (f.syntax.qualname.to_string(), lines.map(first).collect())
            })
            .collect();
        assert_eq!(
            handlers,
            [
                ("<module>".to_owned(), vec![]),
                ("load".to_owned(), vec![5]),
                ("guarded".to_owned(), vec![]),
            ]
        );
    }
}
