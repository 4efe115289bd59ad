//! Hostile shapes of source text: every one must give a model or diagnostics, never a panic or
//! a stack overflow (tests run on 2 MiB threads, so recursion on input depth would show).

use lacuna_grammar::{Unmodelled, parse};

fn decisions(text: &str) -> Vec<lacuna_grammar::Decision> {
    parse(text)
        .functions
        .into_iter()
        .flat_map(|f| f.syntax.decisions.clone())
        .collect()
}

#[test]
fn thousands_of_nested_parentheses() {
    let depth = 5_000;
    let text = format!(
        "def f(x):\n    if {}x{}:\n        return 1\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let module = parse(&text);
    // tree-sitter may or may not give up on this much nesting; either way we answer.
    let _ = module.functions.len();
    let _ = lacuna_grammar::flow(&text);
}

#[test]
fn hundreds_of_nested_blocks_have_their_depth() {
    let depth = 500;
    let mut text = String::from("def f(x):\n");
    for i in 0..depth {
        text.push_str(&" ".repeat(i + 1));
        text.push_str("if x:\n");
    }
    text.push_str(&" ".repeat(depth + 1));
    text.push_str("y = x\n");
    let module = parse(&text);
    let flow = lacuna_grammar::flow(&text).function(&module.functions[1].id);
    let last = flow.statements.last().expect("statements");
    assert_eq!(last.depth, depth as u32);
    assert_eq!(last.stores[0].name, "y");
}

#[test]
fn long_boolean_chains_are_unmodelled_not_fatal() {
    let chain = vec!["x"; 5_000].join(" and ");
    let d = decisions(&format!("def f(x):\n    if {chain}:\n        pass\n"));
    assert_eq!(
        d.len(),
        1,
        "inner `and`s are structure, not decisions of their own"
    );
    assert_eq!(d[0].unmodelled, Some(Unmodelled::TooDeep));
    assert!(d[0].expr.is_none());

    let wide = (0..70)
        .map(|i| format!("(x > {i})"))
        .collect::<Vec<_>>()
        .join(" or ");
    let d = decisions(&format!("def f(x):\n    if {wide}:\n        pass\n"));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].unmodelled, Some(Unmodelled::TooManyConditions(70)));
}

#[test]
fn thousands_of_nots_and_calls() {
    let nots = "not ".repeat(5_000);
    let d = decisions(&format!("def f(x):\n    while {nots}x:\n        pass\n"));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].unmodelled, Some(Unmodelled::TooDeep));

    let calls = format!("{}x{}", "f(".repeat(3_000), ")".repeat(3_000));
    let text = format!("def g(x):\n    return {calls}\n");
    let module = parse(&text);
    let _ = lacuna_grammar::flow(&text);
    assert!(
        module
            .functions
            .iter()
            .map(|f| f.syntax.calls.len())
            .sum::<usize>()
            > 0
    );
}

#[test]
fn deeply_nested_definitions() {
    let mut text = String::new();
    for i in 0..300 {
        text.push_str(&"    ".repeat(i));
        text.push_str(&format!("def f{i}(x):\n"));
    }
    text.push_str(&"    ".repeat(300));
    text.push_str("return x if x else 0\n");
    let module = parse(&text);
    assert_eq!(module.functions.len(), 301);
    let last = module.functions.last().unwrap();
    assert!(last.id.as_str().ends_with("f298.<locals>.f299"));
    assert_eq!(last.syntax.decisions.len(), 1);
}

#[test]
fn ten_megabytes_of_code() {
    let unit = "def f{i}(a, b):\n    if a > b and b > 0:\n        return a\n    return b or 1\n\n";
    let mut text = String::with_capacity(10 << 20);
    let mut i = 0;
    while text.len() < 10 << 20 {
        text.push_str(&unit.replace("{i}", &i.to_string()));
        i += 1;
    }
    let module = parse(&text);
    assert_eq!(module.functions.len(), i + 1);
    assert!(module.syntax_errors.is_empty());
}

#[test]
fn garbage_is_reported() {
    let module = parse("def (:\n  )))) ]] if if if\n\x00\x01 class\n");
    assert!(!module.syntax_errors.is_empty());
}

#[test]
fn line_continuations_are_not_operands() {
    let d = decisions("def f(a, b):\n    if a.x() != \\\n       b.y():\n        pass\n");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].conditions.len(), 1, "{:?}", d[0].conditions);
}

#[test]
fn carriage_returns_alone_end_lines_as_in_python() {
    let lf = "def f(x):\n    if x > 1:\n        return 1\n    return 2\n";
    let cr = lf.replace('\n', "\r");
    let (a, b) = (parse(lf), parse(&cr));
    assert!(b.syntax_errors.is_empty(), "{:?}", b.syntax_errors);
    assert_eq!(b.functions.len(), a.functions.len());
    assert_eq!(
        decisions(&cr).iter().map(|d| d.range).collect::<Vec<_>>(),
        decisions(lf).iter().map(|d| d.range).collect::<Vec<_>>(),
        "same offsets"
    );
    assert_eq!(decisions(&cr).len(), 1);
    let lines = lacuna_grammar::LineIndex::new(&cr);
    assert_eq!(lines.line_count(), 5);
    assert_eq!(lines.line_col(14).line, 1, "`if` is on the second line");
    // Mixed endings: `\r\n` stays one break.
    let mixed = "def f(x):\r\n    if x:\r        return 1\n    return 2\r\n";
    assert!(parse(mixed).syntax_errors.is_empty());
    assert_eq!(lacuna_grammar::LineIndex::new(mixed).line_count(), 5);
}
