//! Nonlinear queries are solved in a `lacuna solve-query` process that is stopped at a hard
//! deadline: z3 4.8 runs past its own time limit on some of them (affine 3.0.1's
//! `Affine.rotation_angle`: a determinant positive and `_scaling`'s `delta` below `1e-10`,
//! over integer matrix entries — the query in `tests/fixtures/solver/affine_scaling.json`).

use super::fixtures;
use lacuna_analysis::explore::isolated::{Request, Worker, isolate_with};
use lacuna_analysis::explore::solver::Answer;
use lacuna_analysis::explore::value::ModelValue;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn worker() -> Worker {
    isolate_with(PathBuf::from(env!("CARGO_BIN_EXE_lacuna")));
    Worker::default()
}

fn product_above_two() -> Request {
    serde_json::from_str(
        r#"{"declarations": "(declare-const |x| Real)\n(declare-const |y| Real)\n",
            "assertions": ["(> (* |x| |y|) 2.0)"],
            "vars": [["x", "Real"], ["y", "Real"]], "timeout_ms": 1000, "memory_mb": 0}"#,
    )
    .unwrap()
}

fn real(answer: &Answer, name: &str) -> f64 {
    match answer.model().and_then(|m| m.values.get(name)) {
        Some(ModelValue::Real(x)) => *x,
        other => panic!("no real `{name}` in {answer:?}: {other:?}"),
    }
}

#[test]
fn a_nonlinear_query_is_answered_by_the_solving_process_with_a_model() {
    let mut worker = worker();
    for _ in 0..3 {
        let answer = worker.solve(&product_above_two(), None);
        assert!(real(&answer, "x") * real(&answer, "y") > 2.0, "{answer:?}");
    }
}

#[test]
fn a_query_that_runs_past_its_time_limit_is_stopped_and_the_next_one_answered() {
    let text = std::fs::read_to_string(fixtures().join("solver/affine_scaling.json")).unwrap();
    let hanging: Request = serde_json::from_str(&text).unwrap();
    let mut worker = worker();
    // z3 4.8 runs on until the process is killed; a later z3 stops at its own limit. Either
    // way the answer is the solver's limit, never a verdict.
    match worker.solve(&hanging, None) {
        Answer::Unknown(why) => assert!(
            why.contains("ran past its time limit and was stopped")
                || why.contains("cancel")
                || why.contains("timeout"),
            "{why}"
        ),
        other => panic!("expected the solver's limit, got {other:?}"),
    }
    let answer = worker.solve(&product_above_two(), None);
    assert!(real(&answer, "x") * real(&answer, "y") > 2.0, "{answer:?}");
}

/// `s` longer than 320 characters: z3 4.8's string solver runs past its time limit on it.
fn long_string_path(negate: Vec<usize>) -> Request {
    let text = format!(
        r#"{{"declarations": "(declare-const |s| String)\n(declare-const |n| Int)\n",
            "assertions": ["(<= (str.len |s|) 320)", "(= |n| 3)"], "negate": {negate:?},
            "vars": [["s", "Str"], ["n", "Int"]], "timeout_ms": 500, "memory_mb": 0}}"#
    );
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_paths_negations_are_answered_in_order_and_one_past_its_limit_does_not_take_the_next() {
    let mut worker = worker();
    let answers = worker.solve_path(&long_string_path(vec![0, 1]), None);
    assert_eq!(answers.len(), 2, "{answers:?}");
    // `len(s) > 320`: a string that long (a z3 that bounds strings), or the solver's limit.
    match &answers[0] {
        Answer::Sat(model) => match model.values.get("s") {
            Some(ModelValue::Str(s)) => assert!(s.chars().count() > 320, "{s:?}"),
            other => panic!("no string `s`: {other:?}"),
        },
        Answer::Unknown(why) => assert!(
            why.contains("ran past its time limit and was stopped")
                || why.contains("cancel")
                || why.contains("timeout"),
            "{why}"
        ),
        other => panic!("expected a model or the solver's limit, got {other:?}"),
    }
    // `len(s) <= 320 ∧ n != 3`, whatever became of the first.
    match answers[1].model().and_then(|m| m.values.get("n")) {
        Some(ModelValue::Int(n)) => assert_ne!(n.to_string(), "3"),
        other => panic!("no integer `n` in {:?}: {other:?}", answers[1]),
    }
    // Only the second: the prefix is asserted, the first condition kept.
    let answers = worker.solve_path(&long_string_path(vec![1]), None);
    assert_eq!(answers.len(), 1);
    assert!(matches!(answers[0], Answer::Sat(_)), "{answers:?}");
}

/// The query that runs past its limit, asked with the function's time ending first: stopped
/// at the budget's end (not its limit and grace), and said so; the negations after it are not
/// sent; a query asked once the budget is over is not solved at all.
#[test]
fn no_query_runs_past_the_functions_time() {
    let text = std::fs::read_to_string(fixtures().join("solver/affine_scaling.json")).unwrap();
    let hanging: Request = serde_json::from_str(&text).unwrap();
    let mut worker = worker();
    let soon = Instant::now() + Duration::from_millis(300);
    match worker.solve(&hanging, Some(soon)) {
        // A z3 that stops at its own limit (500 ms, past the budget's end) may answer with
        // it when the budget's end and its own come close.
        Answer::Unknown(why) => assert!(
            why.contains("the function's time budget ran out while z3 was solving")
                || why.contains("cancel")
                || why.contains("timeout"),
            "{why}"
        ),
        other => panic!("expected the budget's end, got {other:?}"),
    }
    let over = Instant::now();
    let answers = worker.solve_path(&long_string_path(vec![0, 1]), Some(over));
    assert_eq!(
        answers,
        vec![
            Answer::Unknown("the function's time budget ran out".to_owned()),
            Answer::Unknown("the function's time budget ran out".to_owned()),
        ]
    );
    // The worker is still usable with time left.
    let answer = worker.solve(&product_above_two(), None);
    assert!(real(&answer, "x") * real(&answer, "y") > 2.0, "{answer:?}");
}
