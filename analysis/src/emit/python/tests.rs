use super::*;
use crate::agent::protocol::{Value, ValueTree};

#[test]
fn assertions_are_found_and_marked_where_they_are_rendered() {
    let test = |name: &str, index: usize, body: &str| EmittedTest {
        name: name.to_owned(),
        origin: ("pages".to_owned(), index),
        source: format!("def {name}():\n{body}\n\n"),
        without_assertion: None,
        weakened: false,
    };
    let mut file = TestFile {
        name: "test_lacuna_paging.py".to_owned(),
        header: "import pytest\n\n".to_owned(),
        tests: vec![
            test(
                "test_pages_1_raises_value_error",
                0,
                "    with pytest.raises(ValueError):\n        pages(0, 0)\n",
            ),
            test(
                "test_pages_2",
                1,
                "    result = pages(0, 1)\n    assert result == 1\n",
            ),
            test(
                "test_pages_3",
                2,
                "    result = pages(1, 1)\n    assert type(result).__name__ == 'Page'\n    assert result.number == 1\n",
            ),
        ],
    };
    let claims: Vec<(u32, String)> = file
        .assertions()
        .iter()
        .map(|a| (a.line, a.claim()))
        .collect();
    assert_eq!(
        claims,
        [
            (4, "`pages(0, 0)` raises `ValueError`".to_owned()),
            (10, "`pages(0, 1) == 1`".to_owned()),
            (15, "`type(pages(1, 1)).__name__ == 'Page'`".to_owned()),
            (16, "`pages(1, 1).number == 1`".to_owned()),
        ]
    );
    let reads: Vec<Reads> = file.assertions().into_iter().map(|a| a.reads).collect();
    assert_eq!(
        reads,
        [
            Reads::Value,
            Reads::Value,
            Reads::Type,
            Reads::Field("number".into())
        ]
    );
    let [_, second, _, field] = &file.assertions()[..] else {
        panic!("four assertions");
    };
    file.mark_suspicious(second, 1);
    file.mark_suspicious(field, 2);
    let text = file.render();
    assert!(
        text.lines()
            .nth(15)
            .unwrap()
            .ends_with("rank 2: check this value")
    );
    assert!(!text.lines().nth(14).unwrap().contains("LCN300"));
    let text = file.render();
    let site = &file.assertions()[1];
    assert_eq!(site.line, 10);
    assert_eq!(
        &text[site.range.0 as usize..site.range.1 as usize],
        "assert result == 1"
    );
    assert_eq!(
        text.lines().nth(9),
        Some("    assert result == 1  # LCN300: suspicious assertion, rank 1: check this value")
    );
}

#[test]
fn names_are_snake_case() {
    let ok = Outcome::Returned {
        repr: "1".into(),
        type_name: "int".into(),
        literal: Some(Literal::Int("1".into())),
        items: None,
        state: Default::default(),
        receiver: Default::default(),
        arguments: Default::default(),
    };
    assert_eq!(
        test_name("Stock.restock_plan", 2, &ok),
        "test_stock_restock_plan_2"
    );
    let raised = Outcome::Raised {
        type_name: "shop.inventory.OutOfStock".into(),
        message: String::new(),
    };
    assert_eq!(
        test_name("Stock.remove", 1, &raised),
        "test_stock_remove_1_raises_out_of_stock"
    );
}

#[test]
fn private_methods_are_reached_by_their_mangled_name() {
    assert_eq!(mangled("Stack.__grow"), "Stack._Stack__grow");
    assert_eq!(mangled("_Stack.__grow"), "_Stack._Stack__grow");
    assert_eq!(mangled("Outer.Inner.__grow"), "Outer.Inner._Inner__grow");
    for unchanged in ["Stack.__len__", "Stack._grow", "__grow", "__.__grow"] {
        assert_eq!(mangled(unchanged), unchanged);
    }
}

#[test]
fn literals_are_rendered_as_python() {
    let value = Literal::Tuple(vec![
        Literal::Str("it's\n".into()),
        Literal::Bytes(vec![0, b'a', b'\'']),
        Literal::Float(1e100),
        Literal::Float(f64::NEG_INFINITY),
        Literal::Float(2.0),
        Literal::Set(vec![Literal::Int("2".into()), Literal::Int("-1".into())]),
        Literal::FrozenSet(vec![]),
        Literal::Set(vec![]),
        Literal::Tuple(vec![Literal::Bool(true)]),
        Literal::Dict(vec![(Literal::None, Literal::List(vec![]))]),
    ]);
    assert_eq!(
        literal_expr(&value),
        r"('it\'s\n', b'\x00a\'', 1e100, float('-inf'), 2.0, {-1, 2}, frozenset(), set(), (True,), {None: []})"
    );
}

#[test]
fn names_from_the_worker_are_dotted_identifiers() {
    assert!(is_dotted_name("shop.inventory"));
    assert!(is_dotted_name("Stock._items"));
    for bad in [
        "",
        "a..b",
        "os; import shutil",
        "x()",
        "class",
        "a.<locals>.B",
        "1a",
    ] {
        assert!(!is_dotted_name(bad), "{bad}");
    }
    let mut imports = Imports::default();
    assert_eq!(imports.name("shop:Stock"), Some("Stock".into()));
    assert_eq!(imports.name("os; import shutil:x"), None);
    assert_eq!(imports.name("m:__import__('os')"), None);
}

#[test]
fn an_iterator_input_is_passed_as_an_iterator_over_its_items() {
    let mut imports = Imports::default();
    let mut writer = Writer {
        imports: &mut imports,
        setup: vec![],
        used: BTreeSet::new(),
    };
    let int = |v: &str| ValueTree::new(Value::Int { value: v.into() });
    let iterator = |items| ValueTree::new(Value::Iterator { items });
    assert_eq!(
        writer.expr(&iterator(vec![int("1"), int("-2")])),
        Some("iter([1, -2])".to_owned())
    );
    assert_eq!(writer.expr(&iterator(vec![])), Some("iter([])".to_owned()));
}

#[test]
fn no_variable_takes_the_name_of_a_builtin_a_test_calls() {
    let mut imports = Imports::default();
    let mut writer = Writer {
        imports: &mut imports,
        setup: vec![],
        used: BTreeSet::new(),
    };
    // An `Iter` built before `iter([...])` is passed, a `Type` before a `type(result)` check.
    assert_eq!(writer.unused("iter".into()), "iter_2");
    assert_eq!(writer.unused("type".into()), "type_2");
    assert_eq!(writer.unused("stock".into()), "stock");
}
