//! Strings a regular expression matches, for a function that tests its input against one
//! (`SIZE_RE.match(text)`): the solver does not model regular expressions, and random text
//! rarely matches `^(\d+)\s*(k|m|g)?b?$`. A pattern among the function's literals gives a few
//! examples — the shortest, then others taking other alternatives, optional parts and
//! repetition counts — which join the strings the search draws from. Parsing is
//! `regex-syntax`'s; Python's syntax for the usual patterns is the same.

use super::rng::Rng;
use regex_syntax::hir::{Class, Hir, HirKind};

/// Characters that make a literal worth reading as a pattern.
const META: &[char] = &['^', '$', '\\', '[', '(', '|', '+', '*', '?', '{'];

/// Longest example kept: the search's strings are short.
const MAX_LEN: usize = 40;

/// Up to `count` distinct strings `pattern` matches, the shortest first; none when it is no
/// pattern (no metacharacter, or not one `regex-syntax` reads).
pub fn examples(pattern: &str, count: usize) -> Vec<String> {
    if !pattern.contains(META) {
        return vec![];
    }
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(pattern)
    else {
        return vec![];
    };
    let mut out: Vec<String> = vec![];
    for variant in 0..count * 3 {
        if out.len() >= count {
            break;
        }
        let mut choices = (variant > 0).then(|| Rng::for_function(&format!("{pattern}#{variant}")));
        let mut text = String::new();
        write(&hir, &mut choices, &mut text);
        if text.len() <= MAX_LEN && !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// Appends a string `hir` matches: the first alternative and fewest repetitions without
/// `choices`, random ones with.
fn write(hir: &Hir, choices: &mut Option<Rng>, out: &mut String) {
    let mut pick = |n: usize| choices.as_mut().map_or(0, |rng| rng.below(n));
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(class) => {
            let ranges: Vec<(u32, u32)> = match class {
                Class::Unicode(c) => c
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())))
                    .collect(),
                Class::Bytes(c) => c
                    .ranges()
                    .iter()
                    .map(|r| (u32::from(r.start()), u32::from(r.end())))
                    .collect(),
            };
            // Printable characters first: a class such as `[^/]` starts at NUL.
            let printable: Vec<(u32, u32)> = ranges
                .iter()
                .filter_map(|&(a, b)| {
                    let (a, b) = (a.max(0x20), b.min(0x7e));
                    (a <= b).then_some((a, b))
                })
                .collect();
            let ranges = if printable.is_empty() {
                ranges
            } else {
                printable
            };
            if ranges.is_empty() {
                return;
            }
            let (a, b) = ranges[pick(ranges.len())];
            let c = a + pick((b - a + 1).min(26) as usize) as u32;
            if let Some(c) = char::from_u32(c) {
                out.push(c);
            }
        }
        HirKind::Repetition(r) => {
            let extra = r.max.map_or(2, |max| (max - r.min).min(2));
            let times = r.min.min(8) + pick(extra as usize + 1) as u32;
            for _ in 0..times {
                write(&r.sub, choices, out);
            }
        }
        HirKind::Capture(c) => write(&c.sub, choices, out),
        HirKind::Concat(parts) => {
            for p in parts {
                write(p, choices, out);
            }
        }
        HirKind::Alternation(branches) => {
            let b = pick(branches.len());
            write(&branches[b], choices, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_match_the_pattern_and_take_its_alternatives() {
        let pattern = r"^(\d+)\s*(k|m|g)?b?$";
        let found = examples(pattern, 8);
        assert_eq!(found[0], "0", "the shortest first");
        let matcher = |s: &str| {
            let digits = s.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && {
                let rest = s[digits..].trim_start();
                let rest = rest.strip_prefix(['k', 'm', 'g']).unwrap_or(rest);
                rest.is_empty() || rest == "b"
            }
        };
        assert!(found.iter().all(|s| matcher(s)), "{found:?}");
        assert!(
            found.iter().any(|s| s.ends_with(['k', 'm', 'g'])),
            "an example takes the unit: {found:?}"
        );
    }

    #[test]
    fn plain_text_and_broken_patterns_give_nothing() {
        assert!(examples("hello", 4).is_empty());
        assert!(examples("(unclosed", 4).is_empty());
        assert_eq!(examples(r"[^/]+\.json", 1), [" .json"]);
    }
}
