//! Property tests on hostile input to the Rust side's decoders: the agent's responses (a worker
//! running project code could write anything on its protocol line) and `pyproject.toml`.
//! Everything decodes to a value or an error, never a panic.

use lacuna_analysis::agent::protocol::Execution;
use lacuna_analysis::config::Config;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

/// Arbitrary JSON, a few levels deep, with the protocol's own keys likely.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("k".to_owned()),
        Just("op".to_owned()),
        Just("args".to_owned()),
        Just("sort".to_owned()),
        Just("name".to_owned()),
        Just("value".to_owned()),
        Just("pos".to_owned()),
        Just("f".to_owned()),
        Just("expr".to_owned()),
        "[a-z]{1,5}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        prop_oneof![
            Just("branch".to_owned()),
            Just("constraint".to_owned()),
            Just("call".to_owned()),
            Just("int".to_owned()),
            Just("ok".to_owned()),
            ".{0,8}"
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A forged execution: valid keys with arbitrary values.
fn execution() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just(json!("ok")), Just(json!("raised")), json_value()],
        prop::collection::vec(json_value(), 0..6),
        json_value(),
        json_value(),
    )
        .prop_map(|(status, events, returned, fields)| {
            json!({"status": status, "events": events, "return": returned, "fields": fields})
        })
}

/// Cases per run: `default`, or `LACUNA_FUZZ_CASES` for a longer run.
fn fuzz_cases(default: u32) -> u32 {
    std::env::var("LACUNA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(fuzz_cases(500)))]

    #[test]
    fn forged_agent_responses_decode_or_fail(value in execution()) {
        let _ = serde_json::from_value::<Execution>(value.clone());
        let _ = serde_json::from_str::<Execution>(&value.to_string());
    }

    #[test]
    fn arbitrary_json_never_decodes_to_a_panic(value in json_value()) {
        let _ = serde_json::from_value::<Execution>(value.clone());
        let _ = lacuna_analysis::symbolic::Expr::from_json(&value);
    }

    #[test]
    fn pyproject_parsing_never_panics(text in pyproject()) {
        let _ = Config::parse(Path::new("/p/pyproject.toml"), &text);
    }
}

/// `pyproject.toml`-looking text: the real tables and keys, with values of any type.
fn pyproject() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        Just("[tool.lacuna]".to_owned()),
        Just("[tool.lacuna.budget]".to_owned()),
        Just("[tool.lacuna.mcdc]".to_owned()),
        Just("[tool.lacuna.sandbox]".to_owned()),
        Just("[tool]".to_owned()),
        (
            prop_oneof![
                Just("workers"),
                Just("loop-bound"),
                Just("memory-mb"),
                Just("max-file-size"),
                Just("function-time-ms"),
                Just("run-time-s"),
                Just("stall-share"),
                Just("python"),
                Just("src"),
                Just("exclude"),
                Just("allow-write"),
                Just("enabled"),
            ],
            prop_oneof![
                any::<i64>().prop_map(|n| n.to_string()),
                Just("true".to_owned()),
                Just("\"x\"".to_owned()),
                Just("[\"a\", 1]".to_owned()),
                Just("{ a = 1 }".to_owned()),
                Just("1e400".to_owned()),
                "[^\n]{0,10}",
            ],
        )
            .prop_map(|(k, v)| format!("{k} = {v}")),
        "[^\n]{0,20}",
    ];
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}
