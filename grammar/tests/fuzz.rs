//! Property tests on random text: lowering, incremental re-parsing and parsing in parts never
//! panic; an incremental re-parse gives the model a fresh parse gives, and so does a parse in
//! parts of a text without syntax errors.

use lacuna_grammar::{parse, parse_after, parse_in_parts};
use proptest::prelude::*;

/// Python-looking text: tokens that open and close blocks, decisions and strings, in any order.
fn python() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("def f(x):".to_owned()),
        Just("class C:".to_owned()),
        Just("if ".to_owned()),
        Just("elif ".to_owned()),
        Just("else:".to_owned()),
        Just("while ".to_owned()),
        Just("for i in ".to_owned()),
        Just(" and ".to_owned()),
        Just(" or not ".to_owned()),
        Just("x > 1".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just(":".to_owned()),
        Just("\n".to_owned()),
        Just("\r".to_owned()),
        Just("\r\n".to_owned()),
        Just("    ".to_owned()),
        Just("\t".to_owned()),
        Just("return ".to_owned()),
        Just("'s".to_owned()),
        Just("\"\"\"".to_owned()),
        Just("lambda y: ".to_owned()),
        Just("match x:\n    case 1:".to_owned()),
        "[a-z0-9_ ]{0,6}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(token, 0..80).prop_map(|t| t.concat())
}

fn char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Cases per run: `default`, or `LACUNA_FUZZ_CASES` for a longer run.
fn fuzz_cases(default: u32) -> u32 {
    std::env::var("LACUNA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(300)))]

    #[test]
    fn lowering_never_panics(text in python()) {
        let module = parse(&text);
        let _ = module.functions.len();
        // The flow facts are read for every function the model has, each inside its range.
        let flow = lacuna_grammar::flow(&text);
        for f in &module.functions {
            for s in flow.function(&f.id).statements {
                prop_assert!(f.syntax.range.contains_range(s.range), "{:?} in {:?}", s.range, f.syntax.range);
            }
        }
    }

    #[test]
    fn incremental_reparse_never_panics(
        text in python(),
        edits in prop::collection::vec((any::<usize>(), 0usize..20, python()), 1..5),
    ) {
        let (_, mut previous) = parse_after(&text, None);
        let mut text = text;
        for (at, len, insert) in edits {
            let start = char_boundary(&text, at % (text.len() + 1));
            let end = char_boundary(&text, start + len);
            text.replace_range(start..end, &insert);
            let (incremental, next) = parse_after(&text, previous.as_ref());
            let fresh = parse(&text);
            prop_assert_eq!(incremental.functions.len(), fresh.functions.len());
            prop_assert_eq!(incremental.syntax_errors.len(), fresh.syntax_errors.len());
            previous = next;
        }
    }

    #[test]
    fn parsing_in_parts_never_panics_and_agrees(text in python(), part_bytes in 1usize..64) {
        let parts = parse_in_parts(&text, part_bytes);
        let whole = parse(&text);
        if whole.syntax_errors.is_empty() {
            prop_assert_eq!(parts, whole);
        }
    }
}
