//! The solver against real CPython: every model z3 returns for a constraint written with
//! Python's semantics must make CPython evaluate that constraint to `True`; unsatisfiable
//! constraints are ones Python agrees have no solution in a brute-force range.

use lacuna_analysis::explore::solver::{Answer, Solver};
use lacuna_analysis::explore::value::ModelValue;
use lacuna_analysis::symbolic::Expr;
use lacuna_analysis::symbolic::python_str_literal;
use serde_json::json;
use std::process::Command;

fn python() -> String {
    std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn literal(v: &ModelValue) -> String {
    match v {
        ModelValue::Int(d) => d.clone(),
        ModelValue::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        ModelValue::Str(s) => {
            let mut out = String::new();
            python_str_literal(&mut out, s);
            out
        }
        ModelValue::Real(x) => format!("{x:?}"),
    }
}

fn ident(name: &str) -> String {
    let mut out = String::from("v_");
    for c in name.chars() {
        out.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    out
}

/// Evaluates each (assignments, expression) in one CPython process; returns the printed results.
fn evaluate(cases: &[(Vec<(String, String)>, String)]) -> Vec<String> {
    let mut script = String::new();
    for (assignments, expr) in cases {
        script.push_str("try:\n");
        for (name, value) in assignments {
            script.push_str(&format!("    {name} = {value}\n"));
        }
        script.push_str(&format!("    print(bool({expr}))\nexcept Exception as e:\n    print('error', type(e).__name__)\n"));
    }
    let out = Command::new(python())
        .arg("-c")
        .arg(&script)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn e(v: serde_json::Value) -> Expr {
    Expr::from_json(&v).unwrap()
}

fn var(name: &str, sort: &str) -> serde_json::Value {
    json!(["var", name, sort])
}

#[test]
fn models_satisfy_python_semantics() {
    let x = var("x", "int");
    let y = var("y", "int");
    let s = var("s", "str");
    let f = var("f", "float");
    let items = var("self._items.__len__", "int");
    let ret = var("$ret:3", "bool");
    let cases = vec![
        json!([
            "and",
            [">", x, ["int", "10"]],
            ["<", ["*", x, x], ["int", "200"]]
        ]),
        json!(["==", ["//", x, ["int", "-3"]], ["int", "-4"]]),
        json!([
            "and",
            ["==", ["%", x, ["int", "-5"]], ["int", "-2"]],
            [">", x, ["int", "0"]]
        ]),
        json!(["==", ["%", ["neg", x], ["int", "7"]], ["int", "3"]]),
        json!([
            "and",
            ["str.startswith", s, ["str", "ab"]],
            ["str.endswith", s, ["str", "yz"]],
            ["<", ["str.len", s], ["int", "6"]]
        ]),
        json!(["==", ["str.at", s, ["int", "-1"]], ["str", "q"]]),
        json!([
            "and",
            [
                "==",
                ["str.slice", s, ["int", "1"], ["int", "-1"]],
                ["str", "éé"]
            ],
            [">", ["str.len", s], ["int", "3"]]
        ]),
        json!([
            "and",
            ["str.contains", s, ["str", "needle"]],
            ["!=", s, ["str", "needle"]]
        ]),
        json!(["==", ["str.find", s, ["str", "x"]], ["int", "2"]]),
        json!([
            "and",
            ["str.isdigit", s],
            ["==", ["str.int", s], ["int", "42"]]
        ]),
        json!(["==", ["str", x], ["str", "-17"]]),
        json!([
            "and",
            [">", ["*", f, ["float", 3.0]], ["float", 1.5]],
            ["<", f, ["float", 0.75]]
        ]),
        json!([">", ["/", x, ["int", "4"]], ["float", 2.6]]),
        json!(["==", ["int", f], ["int", "-2"]]),
        json!(["and", [">=", items, ["int", "10"]], ["not", ret]]),
        json!([
            "and",
            ["==", ["abs", x], ["int", "5"]],
            ["<", x, ["int", "0"]]
        ]),
        json!(["==", ["max", x, y], ["int", "3"]]),
        json!([
            "==",
            [
                "ite",
                [">", x, ["int", "0"]],
                ["str", "pos"],
                ["str", "neg"]
            ],
            ["str", "neg"]
        ]),
        json!(["and", ["==", x, ["bool", true]], ["!=", s, ["str", ""]]]),
        json!(["<", s, ["str", "b"]]),
        json!(["and", ["==", ["**", x, ["int", "3"]], ["int", "-27"]]]),
        json!([
            "and",
            ["==", ["str.concat", s, ["str", "!"]], ["str", "hi!"]]
        ]),
    ];
    let mut solver = Solver::new(2_000);
    let mut evaluations = vec![];
    for case in &cases {
        let expr = e(case.clone());
        let answer = solver.check(std::slice::from_ref(&expr));
        let Answer::Sat(model) = answer else {
            panic!("expected a model for {case}: {answer:?}");
        };
        let assignments = model
            .values
            .iter()
            .map(|(name, v)| (ident(name), literal(v)))
            .collect();
        evaluations.push((assignments, expr.to_python(&ident)));
    }
    let results = evaluate(&evaluations);
    for ((case, (assignments, python)), result) in cases.iter().zip(&evaluations).zip(&results) {
        assert_eq!(
            result, "True",
            "{case}\n  python: {python}\n  model: {assignments:?}"
        );
    }
}

#[test]
fn unsatisfiable_constraints_have_no_python_solution() {
    let x = var("x", "int");
    let cases = vec![
        json!(["and", [">=", x, ["int", "10"]], ["<=", x, ["int", "0"]]]),
        json!(["and", ["<", x, ["int", "50"]], [">", x, ["int", "100"]]]),
        json!(["==", ["%", x, ["int", "4"]], ["int", "5"]]),
        json!([
            "and",
            [">", ["//", x, ["int", "2"]], ["int", "3"]],
            ["<", x, ["int", "8"]]
        ]),
    ];
    let mut solver = Solver::new(2_000);
    let mut evaluations = vec![];
    for case in &cases {
        let expr = e(case.clone());
        assert_eq!(
            solver.check(std::slice::from_ref(&expr)),
            Answer::Unsat,
            "{case}"
        );
        evaluations.push((
            vec![],
            format!(
                "any({} for v_x in range(-300, 300))",
                expr.to_python(&ident)
            ),
        ));
    }
    for (case, result) in cases.iter().zip(evaluate(&evaluations)) {
        assert_eq!(result, "False", "Python found a solution for {case}");
    }
}

#[test]
fn unmodelled_operations_are_reported() {
    let mut solver = Solver::new(500);
    let answer = solver.check(&[e(json!([
        ">",
        ["math.sin", var("f", "float")],
        ["float", 0.5]
    ]))]);
    assert_eq!(answer, Answer::Unsupported(vec!["math.sin".into()]));
    let answer = solver.check(&[e(json!([
        "==",
        ["str.lower", var("s", "str")],
        ["str", "ok"]
    ]))]);
    assert_eq!(answer, Answer::Unsupported(vec!["str.lower".into()]));
}

#[test]
fn path_negations_share_a_prefix() {
    // Path: x > 0, x < 10, x % 2 == 0 — flip each in turn.
    let x = var("x", "int");
    let path = vec![
        e(json!([">", x, ["int", "0"]])),
        e(json!(["<", x, ["int", "10"]])),
        e(json!(["==", ["%", x, ["int", "2"]], ["int", "0"]])),
        e(json!([">", x, ["int", "20"]])),
    ];
    let mut solver = Solver::new(2_000);
    let answers = solver.negations(&path, &[0, 1, 2, 3]);
    let value = |i: usize| match &answers[i].1 {
        Answer::Sat(m) => match &m.values["x"] {
            ModelValue::Int(d) => d.parse::<i64>().unwrap(),
            other => panic!("{other:?}"),
        },
        other => panic!("{i}: {other:?}"),
    };
    assert!(value(0) <= 0);
    assert!(value(1) >= 10, "{answers:?}");
    let v = value(2);
    assert!(v > 0 && v < 10 && v % 2 != 0);
    // x > 0, x < 10, x even, and not (x > 20): satisfiable.
    assert!(value(3) <= 20);
    let again = solver.negations(&path, &[1]);
    assert_eq!(again[0].1, answers[1].1);
    assert!(solver.stats.cache_hits >= 1);
}
