use super::*;
use serde_json::{Value, json};

/// `evidence` is written as `expected` (keys sorted, as every edge writes them), and read back
/// from it as itself.
fn written_as(evidence: Evidence, expected: Value) {
    let written = evidence.to_json();
    assert_eq!(
        serde_json::to_string(&written).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
    let read: Evidence = serde_json::from_value(expected).unwrap();
    assert_eq!(read, evidence);
}

fn side(cause: Cause, fact: Fact) -> UncoveredSide {
    UncoveredSide::new(cause, "f:if:1a2b", false, fact)
}

fn call() -> ExternalCall {
    ExternalCall {
        callee: "os.path.exists".into(),
        line: 4,
        external: ExternalKind::Environment,
        arguments_from_inputs: vec!["path".into()],
        returns: Some("bool".into()),
        pure: false,
        file: None,
        raised: false,
    }
}

#[test]
fn an_external_call_with_and_without_its_marks() {
    written_as(
        Evidence::Side(side(Cause::ExternalCall, Fact::ExternalCall(call()))),
        json!({
            "cause": "external-call", "decision": "f:if:1a2b", "side": "false",
            "callee": "os.path.exists", "line": 4, "external": "environment",
            "arguments_from_inputs": ["path"], "returns": "bool",
        }),
    );
    let mut marked = side(
        Cause::ExternalCall,
        Fact::ExternalCall(ExternalCall {
            pure: true,
            file: Some("pkg/other.py".into()),
            raised: true,
            returns: None,
            ..call()
        }),
    );
    marked.guard = Some("f:if:9f".into());
    marked.needs = Some("not (x > 0)".into());
    marked.closest = Some("f(1)".into());
    marked.suite = Some(SuiteView {
        function: "f".into(),
        reached: 2,
        shows: SuiteShows::Closest {
            closest: "tests/test_a.py::test_f".into(),
            at_decision: true,
        },
    });
    written_as(
        Evidence::Side(marked),
        json!({
            "cause": "external-call", "decision": "f:if:1a2b", "side": "false",
            "callee": "os.path.exists", "line": 4, "external": "environment",
            "arguments_from_inputs": ["path"], "returns": null, "pure": true,
            "file": "pkg/other.py", "raised": true, "guard": "f:if:9f",
            "path_condition": "not (x > 0)", "closest": "f(1)",
            "suite": {"function": "f", "reached": 2, "closest": "tests/test_a.py::test_f", "at_decision": true},
        }),
    );
}

#[test]
fn every_fact_of_a_side_is_told_apart_by_its_keys() {
    let cases = [
        (
            Cause::ExternalCall,
            Fact::Interpreter(InterpreterFacts {
                external: ExternalKind::Environment,
                interpreter: vec!["sys.version_info".into()],
            }),
            json!({"external": "environment", "interpreter": ["sys.version_info"]}),
        ),
        (
            Cause::ObjectCreation,
            Fact::ObjectState(ObjectState {
                class: Some("m:Stack".into()),
                field: "_items".into(),
                path: "self._items".into(),
                writers: vec!["push".into()],
                calls_needed: Some(3),
            }),
            json!({"class": "m:Stack", "field": "_items", "path": "self._items", "writers": ["push"], "calls_needed": 3}),
        ),
        (
            Cause::ObjectCreation,
            Fact::ObjectState(ObjectState {
                class: None,
                field: "_items".into(),
                path: "self._items".into(),
                writers: vec![],
                calls_needed: None,
            }),
            json!({"class": null, "field": "_items", "path": "self._items", "writers": [], "calls_needed": null}),
        ),
        (
            Cause::ObjectCreation,
            Fact::Unbuilt(Unbuilt {
                class: Some("m:Cart".into()),
                error: "TypeError".into(),
                runs: 3,
            }),
            json!({"class": "m:Cart", "error": "TypeError", "runs": 3}),
        ),
        (
            Cause::Budget,
            Fact::Unbuilt(Unbuilt {
                class: None,
                error: "TypeError".into(),
                runs: 3,
            }),
            json!({"error": "TypeError", "runs": 3}),
        ),
        (
            Cause::Budget,
            Fact::Unfinished(UnfinishedRun {
                run: "timeout".into(),
                timeout_ms: 1000,
                input: None,
            }),
            json!({"run": "timeout", "timeout_ms": 1000, "input": null}),
        ),
        (
            Cause::Boundary,
            Fact::LoopBound(LoopBound {
                needed: 40,
                bound: 32,
            }),
            json!({"needed": 40, "bound": 32}),
        ),
        (
            Cause::SolverLimit,
            Fact::Undecided(Undecided {
                reason: "timeout".into(),
            }),
            json!({"reason": "timeout"}),
        ),
        (
            Cause::SolverLimit,
            Fact::Unmodelled(Unmodelled {
                operations: vec!["hash".into()],
            }),
            json!({"operations": ["hash"]}),
        ),
        (
            Cause::SolverLimit,
            Fact::Untracked(Untracked {
                parameters: vec!["x".into()],
            }),
            json!({"parameters": ["x"]}),
        ),
        (
            Cause::Budget,
            Fact::ModuleState(ModuleState {
                globals: vec!["CACHE".into()],
                unrepeatable: false,
            }),
            json!({"globals": ["CACHE"]}),
        ),
        (
            Cause::Budget,
            Fact::ModuleState(ModuleState {
                globals: vec![],
                unrepeatable: true,
            }),
            json!({"globals": [], "unrepeatable": true}),
        ),
        (
            Cause::Infeasible,
            Fact::Dead(DeadProof {
                guards: vec![GuardSide {
                    decision: "f:if:9f".into(),
                    side: true,
                }],
            }),
            json!({"guards": [{"decision": "f:if:9f", "side": "true"}]}),
        ),
        (
            Cause::Infeasible,
            Fact::Dead(DeadProof { guards: vec![] }),
            json!({"guards": []}),
        ),
        (Cause::Budget, Fact::Unspecific {}, json!({})),
    ];
    for (cause, fact, keys) in cases {
        let mut expected = keys;
        expected["cause"] = json!(cause.as_str());
        expected["decision"] = json!("f:if:1a2b");
        expected["side"] = json!("false");
        written_as(Evidence::Side(side(cause, fact)), expected);
    }
}

#[test]
fn what_the_suite_shows() {
    for (shows, keys) in [
        (
            SuiteShows::Covered {
                covered_by: "t::a".into(),
            },
            json!({"covered_by": "t::a"}),
        ),
        (SuiteShows::Nothing {}, json!({})),
    ] {
        let mut s = side(Cause::Budget, Fact::Unspecific {});
        s.suite = Some(SuiteView {
            function: "f".into(),
            reached: 0,
            shows,
        });
        let mut suite = keys;
        suite["function"] = json!("f");
        suite["reached"] = json!(0);
        written_as(
            Evidence::Side(s),
            json!({"cause": "budget", "decision": "f:if:1a2b", "side": "false", "suite": suite}),
        );
    }
}

fn obligation(cause: Option<ObligationCause>, fact: Fact) -> UnmetObligation {
    UnmetObligation {
        kind: ObligationKind::McdcObligation,
        decision: "f:if:1a2b".into(),
        condition: 1,
        value: false,
        infeasible: false,
        vector: Some(vec![
            VectorCondition {
                condition: 0,
                text: Some("a".into()),
                value: true,
            },
            VectorCondition {
                condition: 1,
                text: None,
                value: false,
            },
        ]),
        shown: vec![ShownCondition {
            text: "a".into(),
            as_false: true,
            as_true: false,
        }],
        cause,
        fact,
    }
}

#[test]
fn an_obligation_with_each_kind_of_cause() {
    let base = json!({
        "kind": "mcdc-obligation", "decision": "f:if:1a2b", "condition": 1, "value": false,
        "infeasible": false,
        "vector": [{"condition": 0, "text": "a", "value": true}, {"condition": 1, "text": null, "value": false}],
        "shown": [{"text": "a", "false": true, "true": false}],
    });
    written_as(
        Evidence::Obligation(obligation(None, Fact::Unspecific {})),
        base.clone(),
    );
    let mut unobservable = base.clone();
    unobservable["cause"] = json!("unobservable");
    written_as(
        Evidence::Obligation(obligation(
            Some(ObligationCause::Unobservable),
            Fact::Unspecific {},
        )),
        unobservable,
    );
    let mut returned = base.clone();
    returned["cause"] = json!("external-call");
    returned["callee"] = json!("time.time");
    returned["external"] = json!("environment");
    returned["returns"] = json!(null);
    written_as(
        Evidence::Obligation(obligation(
            Some(ObligationCause::Cause(Cause::ExternalCall)),
            Fact::ReturnOf(ReturnOf {
                callee: "time.time".into(),
                external: ExternalKind::Environment,
                returns: None,
            }),
        )),
        returned,
    );
    let mut called = base.clone();
    called["cause"] = json!("external-call");
    called["callee"] = json!("os.path.exists");
    called["line"] = json!(4);
    called["external"] = json!("environment");
    called["arguments_from_inputs"] = json!(["path"]);
    called["returns"] = json!("bool");
    written_as(
        Evidence::Obligation(obligation(
            Some(ObligationCause::Cause(Cause::ExternalCall)),
            Fact::ExternalCall(call()),
        )),
        called,
    );
    let mut infeasible = base;
    infeasible["vector"] = json!(null);
    infeasible["infeasible"] = json!(true);
    written_as(
        Evidence::Obligation(UnmetObligation {
            vector: None,
            infeasible: true,
            ..obligation(None, Fact::Unspecific {})
        }),
        infeasible,
    );
}

#[test]
fn a_suspicious_assertion_an_import_failure_and_a_function_not_explored() {
    written_as(
        Evidence::Suspicious(SuspiciousAssertion {
            rank: 1,
            score: Measure(2.0),
            ordinary: true,
            function: "paging.rules:page_count".into(),
            invariant: "return >= 1".into(),
            point: "exit".into(),
            condition: None,
            value: "0".into(),
            input: "page_count(0, 10)".into(),
            similarity: Measure(0.75),
            support: InvariantSupport {
                calls: 12,
                samples: 10,
                confidence: Measure(0.999),
                tests: vec!["tests/test_rules.py::test_pages".into()],
                seen: vec!["return = 1".into()],
            },
            violations: vec![BrokenInvariant {
                invariant: "return >= 1".into(),
                point: "exit".into(),
                value: "0".into(),
                uniqueness: Measure(f64::NAN),
            }],
            test: EmittedAssertion {
                file: None,
                name: "test_page_count".into(),
                line: 7,
                assertion: "assert result == 0".into(),
                source: "def test_page_count():\n    ...".into(),
                imports: vec!["from paging.rules import page_count".into()],
            },
        }),
        json!({
            "rank": 1, "score": 2.0, "ordinary": true, "function": "paging.rules:page_count",
            "invariant": "return >= 1", "point": "exit", "condition": null, "value": "0",
            "input": "page_count(0, 10)", "similarity": 0.75,
            "support": {"calls": 12, "samples": 10, "confidence": 0.999, "tests": ["tests/test_rules.py::test_pages"], "seen": ["return = 1"]},
            "violations": [{"invariant": "return >= 1", "point": "exit", "value": "0", "uniqueness": null}],
            "test": {"file": null, "name": "test_page_count", "line": 7, "assertion": "assert result == 0", "source": "def test_page_count():\n    ...", "imports": ["from paging.rules import page_count"]},
        }),
    );
    written_as(
        Evidence::ImportFailed(ImportFailed {
            error: "ModuleNotFoundError".into(),
            exception: "No module named 'yaml'".into(),
            missing: Some("yaml".into()),
            install: Some("PyYAML".into()),
            modules: vec!["pkg.config".into()],
            functions: 3,
            chain: vec![ImportLink {
                module: Some("pkg.config".into()),
                file: "pkg/config.py".into(),
                line: 1,
            }],
        }),
        json!({
            "error": "ModuleNotFoundError", "exception": "No module named 'yaml'",
            "missing": "yaml", "install": "PyYAML", "modules": ["pkg.config"], "functions": 3,
            "chain": [{"module": "pkg.config", "file": "pkg/config.py", "line": 1}],
        }),
    );
    written_as(
        Evidence::NotExplored(NotExplored {
            reason: "its module cannot be imported".into(),
            branch_sides: 4,
        }),
        json!({"reason": "its module cannot be imported", "branch_sides": 4}),
    );
}
