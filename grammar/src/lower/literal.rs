//! Literals read from their nodes, so that escapes, prefixes (`r""`, `b""`, `f""`), implicit
//! concatenation, parentheses, bases and signs are Python's, never guessed from text:
//!
//! - the truth value a literal has whatever the input: `0`, `""`, `()`, `None` and `False` are
//!   false; `1`, `"x"`, `(a,)`, `...` and `True` are true. An f-string with a replacement
//!   field, a display with an unpacking (`[*xs]` may be empty) and every other expression have
//!   none;
//! - the value of a string or integer literal ([`value`]), the seeds of the generator.

use super::source::{Source, named_children};
use crate::syntax::Literal;
use tree_sitter::Node;

/// The value of a string (one piece of an implicit concatenation) or integer literal.
pub(super) fn value(source: &Source<'_>, node: Node<'_>) -> Option<Literal> {
    match node.kind() {
        "integer" => {
            let text = source.text(node).replace('_', "").to_ascii_lowercase();
            let (digits, radix) = match text.get(..2) {
                Some("0x") => (&text[2..], 16),
                Some("0o") => (&text[2..], 8),
                Some("0b") => (&text[2..], 2),
                _ => (text.as_str(), 10),
            };
            i64::from_str_radix(digits, radix).ok().map(Literal::Int)
        }
        "string" => {
            let (prefix, body) = string_body(source, node)?;
            let raw = prefix.contains(['r', 'R']);
            let bytes = prefix.contains(['b', 'B']);
            let value = if raw {
                body.to_owned()
            } else {
                unescape(body, bytes)?
            };
            Some(Literal::Str {
                value: value.into(),
                raw,
            })
        }
        _ => None,
    }
}

/// Whether a literal is the text of a non-finite number (`"inf"`, `"-Infinity"`, `"nan"`): a
/// function converting it tests for one.
pub(super) fn is_non_finite(literal: &Literal) -> bool {
    match literal {
        Literal::Str { value, .. } => {
            let text = value
                .trim()
                .trim_start_matches(['+', '-'])
                .to_ascii_lowercase();
            ["inf", "infinity", "nan"].contains(&text.as_str())
        }
        Literal::Int(_) => false,
    }
}

/// The string and integer literals of the examples a docstring holds (doctest's `>>> ` and
/// `... ` lines, and the output lines that follow them): Python code, read by the parser like
/// any other, whose values are the ones the documentation calls the function with.
pub(super) fn doctest_literals(docstring: &str) -> Vec<Literal> {
    let mut code = String::new();
    let mut in_example = false;
    for line in docstring.lines() {
        let line = line.trim_start();
        if let Some(rest) = line
            .strip_prefix(">>> ")
            .or_else(|| line.strip_prefix("... "))
        {
            in_example = true;
            code.push_str(rest);
        } else if in_example && !line.is_empty() {
            code.push_str(line);
        } else {
            in_example = false;
            continue;
        }
        code.push('\n');
    }
    if code.is_empty() {
        return vec![];
    }
    // Its own parser: the module's may be mid-parse (a file parsed in parts).
    thread_local! {
        static EXAMPLES: std::cell::RefCell<Option<tree_sitter::Parser>> = {
            let mut parser = tree_sitter::Parser::new();
            let ok = parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_ok();
            std::cell::RefCell::new(ok.then_some(parser))
        };
    }
    let tree = EXAMPLES.with(|parser| parser.borrow_mut().as_mut()?.parse(&code, None));
    let Some(tree) = tree else {
        return vec![];
    };
    struct Literals<'s, 'a> {
        source: &'s Source<'a>,
        found: Vec<Literal>,
    }
    impl super::source::Visit for Literals<'_, '_> {
        fn enter(&mut self, node: Node<'_>) -> bool {
            if let Some(literal) = value(self.source, node) {
                if !self.found.contains(&literal) {
                    self.found.push(literal);
                }
                return false;
            }
            true
        }
    }
    let source = Source { text: &code };
    let mut literals = Literals {
        source: &source,
        found: vec![],
    };
    super::source::walk(tree.root_node(), &mut literals);
    literals.found
}

/// Whether `node` is a string literal that is not an f-string (`"x"`, `r"x"`, `b"x"`; not
/// `f"x"`, with or without a replacement field).
pub(super) fn is_plain_string(source: &Source<'_>, node: Node<'_>) -> bool {
    node.kind() == "string"
        && string_body(source, node).is_some_and(|(prefix, _)| !prefix.contains(['f', 'F']))
}

/// A string's prefix (`rb`, `f`, …) and the text between its quotes; none for an f-string
/// with a replacement field.
fn string_body<'a>(source: &Source<'a>, node: Node<'_>) -> Option<(&'a str, &'a str)> {
    let parts = named_children(node);
    if parts.iter().any(|p| p.kind() == "interpolation") {
        return None;
    }
    // Between the opening (prefix and quotes) and as many closing quotes, from the text: the
    // parser's own pieces leave out a raw string's backslash before a line break.
    let text = source.text(node);
    let start = source.text(*parts.iter().find(|p| p.kind() == "string_start")?);
    let quotes = start.trim_start_matches(char::is_alphabetic).len();
    let body = text.get(start.len()..text.len().checked_sub(quotes)?)?;
    Some((&start[..start.len() - quotes], body))
}

/// Python's escape sequences in a string literal that is not raw; `\u`, `\U` and `\N` only in
/// strings (in bytes they stand for themselves). `None` for `\N{…}` (a name table is not worth
/// carrying) and malformed escapes (`\x4`, which Python refuses too).
pub(super) fn unescape(content: &str, bytes: bool) -> Option<String> {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let mut hex = |n: usize| -> Option<char> {
            let digits: String = (0..n).map_while(|_| chars.next()).collect();
            (digits.len() == n)
                .then(|| u32::from_str_radix(&digits, 16).ok())
                .flatten()
                .and_then(char::from_u32)
        };
        match e {
            '\n' => {}
            '\r' => {
                chars.next_if_eq(&'\n');
            }
            '\\' | '\'' | '"' => out.push(e),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            'x' => out.push(hex(2)?),
            'u' if !bytes => out.push(hex(4)?),
            'U' if !bytes => out.push(hex(8)?),
            '0'..='7' => {
                let mut value = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value)?);
            }
            'N' if !bytes => return None,
            // An unknown escape stands for itself, backslash included.
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// The truth value of the literal `node`, or none when it is not a literal (or its truth
/// depends on what it reads).
pub(super) fn truth(source: &Source<'_>, node: Node<'_>) -> Option<bool> {
    match node.kind() {
        "true" | "ellipsis" => Some(true),
        "false" | "none" => Some(false),
        "integer" | "float" => number_truth(source.text(node)),
        "string" => string_truth(source, node),
        "concatenated_string" => {
            let parts: Vec<Option<bool>> = named_children(node)
                .into_iter()
                .map(|part| string_truth(source, part))
                .collect();
            if parts.contains(&Some(true)) {
                Some(true)
            } else if parts.iter().all(|p| *p == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        "parenthesized_expression" => match named_children(node).as_slice() {
            [inner] => truth(source, *inner),
            _ => None,
        },
        "unary_operator" => {
            let operator = node.child_by_field_name("operator")?;
            let argument = node.child_by_field_name("argument")?;
            match (operator.kind(), argument.kind()) {
                ("-" | "+", "integer" | "float") => number_truth(source.text(argument)),
                _ => None,
            }
        }
        "tuple" | "list" | "set" | "dictionary" => {
            let items = named_children(node);
            let unpacks = items.iter().any(|item| {
                matches!(
                    item.kind(),
                    "list_splat" | "dictionary_splat" | "parenthesized_list_splat"
                )
            });
            if items.is_empty() {
                Some(false)
            } else if unpacks {
                None
            } else {
                Some(true)
            }
        }
        _ => None,
    }
}

/// A number literal's truth: every digit zero (in any base, with `_` separators, as an
/// imaginary `0j` too) is false.
fn number_truth(text: &str) -> Option<bool> {
    let text = text.to_ascii_lowercase().replace('_', "");
    let text = text.strip_suffix('j').unwrap_or(&text);
    let digits = ["0x", "0o", "0b"]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))
        .unwrap_or(text);
    if digits.is_empty() {
        return None;
    }
    let mantissa = digits.split('e').next().unwrap_or(digits);
    Some(mantissa.chars().any(|c| c.is_ascii_digit() && c != '0'))
}

/// A string's truth: whether its value is not empty (a backslash ending a line inside a string
/// that is not raw continues the line and adds nothing).
fn string_truth(source: &Source<'_>, node: Node<'_>) -> Option<bool> {
    match value(source, node)? {
        Literal::Str { value, .. } => Some(!value.is_empty()),
        Literal::Int(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read` of the one expression of a module holding `expr`.
    fn read<T>(expr: &str, read: fn(&Source<'_>, Node<'_>) -> T) -> T {
        let text = format!("{expr}\n");
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_python::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(&text, None).unwrap();
        let statement = tree.root_node().named_child(0).unwrap();
        let node = statement.named_child(0).unwrap();
        read(&Source { text: &text }, node)
    }

    fn of(expr: &str) -> Option<bool> {
        read(expr, truth)
    }

    #[test]
    fn escapes_decode_as_python_decodes_them() {
        assert_eq!(
            unescape("a\\tb\\101\\u00e9\\q", false).as_deref(),
            Some("a\tbA\u{e9}\\q")
        );
        assert_eq!(unescape("\\N{BULLET}", false), None);
        assert_eq!(unescape("\\x4", false), None);
        // In bytes, `\u` and `\N` are no escapes.
        assert_eq!(
            unescape("\\x41\\u00e9\\N", true).as_deref(),
            Some("A\\u00e9\\N")
        );
    }

    #[test]
    fn a_docstrings_examples_are_read_as_code() {
        let docstring = "Normalize a hex color.\n\n    >>> normalize_hex(\"#09C\")\n    '#0099cc'\n    >>> clamp(\n    ...     300, limit=0x10)\n    16\n\n    Not \"code\" here.\n";
        assert_eq!(
            doctest_literals(docstring),
            [
                Literal::Str {
                    value: "#09C".into(),
                    raw: false
                },
                Literal::Str {
                    value: "#0099cc".into(),
                    raw: false
                },
                Literal::Int(300),
                Literal::Int(16),
            ]
        );
        assert_eq!(doctest_literals("No examples, \"quoted\" words."), []);
    }

    #[test]
    fn string_and_integer_literals_have_pythons_values() {
        let text = |value: &str, raw: bool| {
            Some(Literal::Str {
                value: value.into(),
                raw,
            })
        };
        let cases: &[(&str, Option<Literal>)] = &[
            ("'EUR'", text("EUR", false)),
            (r#""a\"b""#, text("a\"b", false)),
            (r"'\d+\n'", text("\\d+\n", false)),
            (r"r'\d+'", text(r"\d+", true)),
            (r"'\x41\u00e9\101\q'", text("A\u{e9}A\\q", false)),
            (r"'\N{DASH}'", None),
            (r"'\x4'", None),
            ("b'ab'", text("ab", false)),
            (r"b'\x41\u00e9'", text(r"A\u00e9", false)),
            ("'''two\nlines'''", text("two\nlines", false)),
            ("'a\\\nb'", text("ab", false)),
            ("f'{x}'", None),
            ("f'plain'", text("plain", false)),
            ("1_000", Some(Literal::Int(1000))),
            ("0x1F", Some(Literal::Int(31))),
            ("0o17", Some(Literal::Int(15))),
            ("0b101", Some(Literal::Int(5))),
            ("99999999999999999999", None),
            ("1.5", None),
            ("name", None),
        ];
        for (expr, expected) in cases {
            assert_eq!(read(expr, value), *expected, "{expr}");
        }
    }

    #[test]
    fn literals_have_pythons_truth_and_other_expressions_none() {
        let cases: &[(&str, Option<bool>)] = &[
            ("True", Some(true)),
            ("False", Some(false)),
            ("None", Some(false)),
            ("...", Some(true)),
            ("0", Some(false)),
            ("0_0", Some(false)),
            ("0x0", Some(false)),
            ("0b10", Some(true)),
            ("0.0", Some(false)),
            ("0e5", Some(false)),
            ("1e-9", Some(true)),
            ("-0.0", Some(false)),
            ("-1", Some(true)),
            ("0j", Some(false)),
            ("2.5j", Some(true)),
            ("\"\"", Some(false)),
            ("''", Some(false)),
            ("b''", Some(false)),
            ("f''", Some(false)),
            ("\"ORDER\"", Some(true)),
            ("'\\n'", Some(true)),
            ("\"it's\"", Some(true)),
            ("'\\\n'", Some(false)),
            ("r'\\\n'", Some(true)),
            ("'a' 'b'", Some(true)),
            ("'' ''", Some(false)),
            ("'' f'{x}'", None),
            ("f'{x}'", None),
            ("f'a{x}'", None),
            ("()", Some(false)),
            ("[]", Some(false)),
            ("{}", Some(false)),
            ("(1,)", Some(true)),
            ("[0]", Some(true)),
            ("{'a': 1}", Some(true)),
            ("{0}", Some(true)),
            ("[*xs]", None),
            ("{**d}", None),
            ("(0)", Some(false)),
            ("prefix", None),
            ("x > 1", None),
            ("-x", None),
            ("not 0", None),
        ];
        for (expr, expected) in cases {
            assert_eq!(of(expr), *expected, "{expr}");
        }
    }
}
