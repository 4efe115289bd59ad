use super::*;
use serde_json::json;

#[test]
fn responses_are_cut_to_size_or_refused() {
    let huge = "x".repeat(10 * MAX_OUTPUT_TEXT);
    let run: Execution = serde_json::from_value(json!({
        "status": "raised",
        "exception": {"type": huge, "message": "é".repeat(MAX_SHORT_TEXT), "line": 3},
        "stdout": huge,
        "effects": [{"event": "os.remove", "detail": huge}],
    }))
    .unwrap();
    let exception = run.exception.unwrap();
    assert_eq!(exception.type_name.len(), MAX_SHORT_TEXT);
    assert!(exception.message.len() <= MAX_SHORT_TEXT);
    assert_eq!(run.stdout.len(), MAX_OUTPUT_TEXT);
    assert_eq!(run.effects[0].detail.len(), MAX_SHORT_TEXT);
    // Too many events, or a field of the wrong type: not an execution at all (the pool
    // reports it as an error execution).
    let events: Vec<_> = (0..=MAX_LIST).map(|_| json!({"k": "built"})).collect();
    assert!(
        serde_json::from_value::<Execution>(json!({"status": "returned", "events": events}))
            .is_err()
    );
    assert!(
        serde_json::from_value::<Execution>(
            json!({"status": "returned", "return": {"repr": 1, "type": "int"}})
        )
        .is_err()
    );
}

#[test]
fn literals_are_read_only_when_well_formed() {
    let read = |v: serde_json::Value| Literal::from_json(&v);
    assert_eq!(
        read(json!({"kind": "int", "value": "-12"})),
        Some(Literal::Int("-12".into()))
    );
    assert_eq!(
        read(json!({"kind": "bytes", "hex": "00ff"})),
        Some(Literal::Bytes(vec![0, 255]))
    );
    assert_eq!(
        read(json!({"kind": "dict", "items": [[{"kind": "str", "value": "a"}, {"kind": "none"}]]})),
        Some(Literal::Dict(vec![(
            Literal::Str("a".into()),
            Literal::None
        )]))
    );
    assert!(
        read(json!({"kind": "float", "value": "nan"}))
            .unwrap()
            .is_nan()
    );
    // Code where digits belong, text where a tree belongs, unknown kinds, odd hex.
    for forged in [
        json!({"kind": "int", "value": "__import__('os').remove('x')"}),
        json!({"kind": "int", "value": "1_000"}),
        json!({"kind": "int", "value": "-"}),
        json!("__import__('os')"),
        json!({"kind": "float", "value": "1e5; import os"}),
        json!({"kind": "code", "value": "1"}),
        json!({"kind": "bytes", "hex": "0"}),
        json!({"kind": "dict", "items": [[{"kind": "none"}]]}),
        json!({"kind": "list", "items": [{"kind": "int", "value": "x"}]}),
    ] {
        assert_eq!(read(forged.clone()), None, "{forged}");
    }
    // Out of bounds: too deep, too many nodes, too long.
    let mut deep = json!({"kind": "none"});
    for _ in 0..=LITERAL_MAX_DEPTH {
        deep = json!({"kind": "list", "items": [deep]});
    }
    assert_eq!(read(deep), None);
    let wide: Vec<_> = (0..=LITERAL_MAX_NODES)
        .map(|_| json!({"kind": "none"}))
        .collect();
    assert_eq!(read(json!({"kind": "tuple", "items": wide})), None);
    let long = "x".repeat(LITERAL_MAX_TEXT + 1);
    assert_eq!(read(json!({"kind": "str", "value": long})), None);
}

#[test]
fn requests_go_on_the_wire_with_their_op() {
    let wire = |r: Request| serde_json::to_value(r).unwrap();
    assert_eq!(
        wire(Request::Describe {
            target: Target {
                module: "shop.orders".into(),
                qualname: "Order.total".into(),
                call: Call::default(),
            },
            observed: Default::default(),
        }),
        serde_json::json!({"op": "describe", "target": {"module": "shop.orders", "qualname": "Order.total"}})
    );
    // The classes the suite passed: by parameter name, and by position to the constructor.
    assert_eq!(
        wire(Request::Describe {
            target: Target {
                module: "shop.orders".into(),
                qualname: "Order.add".into(),
                call: Call::default(),
            },
            observed: ObservedClasses {
                params: BTreeMap::from([("line".into(), vec!["shop.orders.Line".into()])]),
                init: BTreeMap::from([(0, vec!["shop.customers.Customer".into()])]),
            },
        }),
        serde_json::json!({"op": "describe", "target": {"module": "shop.orders", "qualname": "Order.add"},
                           "observed": {"params": {"line": ["shop.orders.Line"]},
                                        "init": {"0": ["shop.customers.Customer"]}}})
    );
    assert_eq!(
        wire(Request::Guidance {
            module: None,
            path: "/p/tests/lacuna_guidance.py".into(),
        }),
        serde_json::json!({"op": "guidance", "module": null, "path": "/p/tests/lacuna_guidance.py"})
    );
    assert_eq!(
        wire(Request::Shutdown),
        serde_json::json!({"op": "shutdown"})
    );
    assert_eq!(
        wire(Request::Configure(Configure {
            roots: vec!["/p".into()],
            exclude: vec![],
            sys_path: vec!["/p/src".into()],
            scratch: "/tmp/s".into(),
            memory_mb: 1024,
            max_events: Some(5000),
            sandbox: SandboxGrants {
                allow_write: vec!["/tmp/out".into()],
                allow_network: false,
                allow_subprocess: true,
            },
        })),
        serde_json::json!({"op": "configure", "roots": ["/p"], "exclude": [],
            "sys_path": ["/p/src"], "scratch": "/tmp/s", "memory_mb": 1024, "max_events": 5000,
            "sandbox": {"allow_write": ["/tmp/out"], "allow_network": false,
                        "allow_subprocess": true}})
    );
    assert_eq!(
        wire(Request::Suite(SuiteRun {
            rootdir: "/p".into(),
            paths: vec!["/p/tests/test_a.py".into()],
            test_dirs: vec!["/p/tests".into()],
            args: vec!["-x".into()],
            timeout_ms: 10_000,
            max_events: 200_000,
            nice: 10,
        })),
        serde_json::json!({"op": "suite", "rootdir": "/p", "paths": ["/p/tests/test_a.py"],
            "test_dirs": ["/p/tests"], "args": ["-x"], "timeout_ms": 10000,
            "max_events": 200000, "nice": 10})
    );
}
