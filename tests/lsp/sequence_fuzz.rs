//! Random LSP message sequences: open, incremental and full changes (positions anywhere, in or
//! out of the text, UTF-16 units through multi-byte characters), saves, closes and re-opens,
//! hovers and code actions at random positions. After each sequence the server still answers,
//! every response carries the id it was asked with, and the diagnostics it published for the
//! final version are exactly those a fresh server publishes for the same text — an edit
//! sequence never leaves the model of a document different from a fresh read of it.

use super::client::Server;
use super::{home, project};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Text an edit may insert: Python that opens and closes blocks and decisions, line breaks of
/// every kind, multi-byte characters (a UTF-16 surrogate pair among them).
const INSERTS: &[&str] = &[
    "",
    "\n",
    "\r\n",
    "\r",
    "    ",
    "if x:\n    pass\n",
    "def g(a, b):\n    if a and b:\n        return 1\n    return 2\n",
    "while y < 3:\n    y += 1\n",
    "return \"é𝄞\"\n",
    "(",
    ")",
    "'''",
    "x = [i for i in range(3) if i]\n",
    "elif z:\n",
    "class C:\n    def m(self):\n        return self\n",
    "# lacuna\n",
    "\t",
];

#[derive(Clone, Debug)]
enum Op {
    /// An incremental change: (start line, start character, end line, end character, text).
    Edit(u32, u32, u32, u32, &'static str),
    /// A whole-text change to the given insert text repeated.
    Replace(&'static str, usize),
    Save,
    /// Close then open again with the current text.
    Reopen,
    Hover(u32, u32),
    CodeAction(u32, u32, u32, u32),
}

fn op() -> impl Strategy<Value = Op> {
    let insert = proptest::sample::select(INSERTS);
    prop_oneof![
        6 => (0..40u32, 0..30u32, 0..40u32, 0..30u32, insert.clone())
            .prop_map(|(a, b, c, d, s)| Op::Edit(a, b, c, d, s)),
        1 => (insert, 1..4usize).prop_map(|(s, n)| Op::Replace(s, n)),
        1 => Just(Op::Save),
        1 => Just(Op::Reopen),
        2 => (0..40u32, 0..30u32).prop_map(|(l, c)| Op::Hover(l, c)),
        2 => (0..40u32, 0..30u32, 0..40u32, 0..30u32)
            .prop_map(|(a, b, c, d)| Op::CodeAction(a, b, c, d)),
    ]
}

/// The byte offset of an LSP position (UTF-16 units) in `text`, clamped as the protocol asks:
/// a line past the end is the end of the text, a character past the line's end is its end.
/// Lines end at `\n`, `\r\n` or a lone `\r`, as Python reads them.
fn offset(text: &str, line: u32, character: u32) -> usize {
    let mut starts = vec![0];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                starts.push(i + 2);
                i += 2;
                continue;
            }
            b'\r' | b'\n' => starts.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    let Some(&start) = starts.get(line as usize) else {
        return text.len();
    };
    let content_end = starts
        .get(line as usize + 1)
        .map(|&next| {
            let mut end = next;
            while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
                end -= 1;
            }
            end
        })
        .unwrap_or(text.len());
    let mut units = 0u32;
    for (i, c) in text[start..content_end].char_indices() {
        if units >= character {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    content_end
}

fn range(a: u32, b: u32, c: u32, d: u32) -> Value {
    json!({"start": {"line": a, "character": b}, "end": {"line": c, "character": d}})
}

/// The last diagnostics published for `uri` at `version`, waiting for them.
fn diagnostics_at(server: &mut Server, uri: &str, version: i32) -> Vec<Value> {
    let published = server
        .wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        })
        .unwrap_or_else(|| panic!("no diagnostics published for version {version}"));
    published["params"]["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let (dir, root, module) = project();
    let mut server = Server::start(&home(&dir), &["--static-only"]);
    server.initialize(&root, json!({}));
    let uri = server.open(&module, 1);
    let mut text = std::fs::read_to_string(&module).unwrap();
    let mut version = 1;
    for op in ops {
        match op {
            Op::Edit(a, b, c, d, insert) => {
                version += 1;
                let start = offset(&text, *a, *b);
                let end = offset(&text, *c, *d).max(start);
                text.replace_range(start..end, insert);
                server.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"range": range(*a, *b, *c, *d), "text": insert}]
                    }),
                );
            }
            Op::Replace(insert, n) => {
                version += 1;
                text = insert.repeat(*n);
                server.notify(
                    "textDocument/didChange",
                    json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}]
                    }),
                );
            }
            Op::Save => server.notify(
                "textDocument/didSave",
                json!({"textDocument": {"uri": uri}}),
            ),
            Op::Reopen => {
                server.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": uri}}),
                );
                version += 1;
                server.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}}),
                );
            }
            Op::Hover(line, character) => {
                let answer = server.request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
                );
                prop_assert!(answer.get("error").is_none(), "hover failed: {answer}");
            }
            Op::CodeAction(a, b, c, d) => {
                let answer = server.request(
                    "textDocument/codeAction",
                    json!({
                        "textDocument": {"uri": uri},
                        "range": range(*a, *b, *c, *d),
                        "context": {"diagnostics": []}
                    }),
                );
                prop_assert!(
                    answer.get("error").is_none(),
                    "code action failed: {answer}"
                );
            }
        }
    }
    let edited = diagnostics_at(&mut server, &uri, version);
    server.shutdown();

    // A fresh server reading the final text.
    let fresh_module = root.join("app/fresh.py");
    std::fs::write(&fresh_module, &text).unwrap();
    let mut fresh = Server::start(&home(&dir), &["--static-only"]);
    fresh.initialize(&root, json!({}));
    let fresh_uri = fresh.open(&fresh_module, 1);
    let expected = diagnostics_at(&mut fresh, &fresh_uri, 1);
    fresh.shutdown();
    let without_uris = |ds: Vec<Value>| -> Vec<Value> {
        ds.into_iter()
            .map(|mut d| {
                if let Some(related) = d.get_mut("relatedInformation") {
                    *related = Value::Null;
                }
                d
            })
            .collect()
    };
    prop_assert_eq!(
        without_uris(edited),
        without_uris(expected),
        "diagnostics after the sequence differ from a fresh read of the text {:?}",
        text
    );
    Ok(())
}

/// Cases per run: `default`, or `LACUNA_FUZZ_CASES` for a longer run.
fn fuzz_cases(default: u32) -> u32 {
    std::env::var("LACUNA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(24)))]

    #[test]
    fn random_message_sequences_leave_the_same_model_as_a_fresh_read(
        ops in proptest::collection::vec(op(), 1..30)
    ) {
        run(&ops)?;
    }
}

#[test]
fn positions_are_clamped_and_counted_in_utf16_units() {
    let text = "a𝄞b\r\ncd\rx";
    assert_eq!(offset(text, 0, 1), 1);
    assert_eq!(offset(text, 0, 3), 5); // after the surrogate pair
    assert_eq!(offset(text, 0, 99), 6); // end of line 0, before `\r\n`
    assert_eq!(offset(text, 1, 1), 9);
    assert_eq!(offset(text, 2, 0), 11); // after the lone `\r`
    assert_eq!(offset(text, 7, 0), text.len());
}
