//! Nonlinear queries are solved in a `lacuna solve-query` process that is stopped at a hard
//! deadline: z3 4.8 runs past its own time limit on some of them (affine 3.0.1's
//! `Affine.rotation_angle`: a determinant positive and `_scaling`'s `delta` below `1e-10`,
//! over integer matrix entries — the query in `tests/fixtures/solver/affine_scaling.json`).

use super::fixtures;
use lacuna_analysis::explore::isolated::{Request, Worker, isolate_with};
use lacuna_analysis::explore::solver::Answer;
use lacuna_analysis::explore::value::ModelValue;
use std::path::PathBuf;

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
        let answer = worker.solve(&product_above_two());
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
    match worker.solve(&hanging) {
        Answer::Unknown(why) => assert!(
            why.contains("ran past its time limit and was stopped")
                || why.contains("cancel")
                || why.contains("timeout"),
            "{why}"
        ),
        other => panic!("expected the solver's limit, got {other:?}"),
    }
    let answer = worker.solve(&product_above_two());
    assert!(real(&answer, "x") * real(&answer, "y") > 2.0, "{answer:?}");
}
