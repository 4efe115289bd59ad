//! The independent check of MC/DC: the example project's generated tests are run under a second,
//! simple tracer (`tracer.py`: conditions evaluated from the decision's AST on the frame's
//! values, independence decided by flipping each condition, no tables), and every (condition,
//! value) pair Lacuna reports as shown must be shown there too.

#[path = "../support/example.rs"]
mod example;

use serde_json::Value;
use std::process::Command;

#[test]
fn reported_independence_is_confirmed_by_a_second_tracer() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let generated = root.join("tests/generated");
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json", "--emit-tests"])
        .arg(&generated)
        .current_dir(&root)
        .env("HOME", &home)
        .output()
        .unwrap();
    let report_path = dir.path().join("report.json");
    std::fs::write(&report_path, &out.stdout).unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let traced_path = dir.path().join("traced.json");
    let tracer = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcdc/tracer.py");
    let status = Command::new(example::python())
        .arg(&tracer)
        .args([&report_path, &root, &generated, &traced_path])
        .env("HOME", &home)
        .status()
        .unwrap();
    assert!(status.success(), "the tracer failed");
    let traced: Value =
        serde_json::from_str(&std::fs::read_to_string(&traced_path).unwrap()).unwrap();
    assert_eq!(traced["pytest_exit"], 0, "the generated tests pass");

    let decisions = traced["decisions"].as_object().unwrap();
    let (mut checked, mut equal, mut skipped) = (0, 0, vec![]);
    let mut disagreements = vec![];
    for (key, d) in decisions {
        if let Some(why) = d["skipped"].as_str() {
            skipped.push(format!("{key}: {why}"));
            continue;
        }
        checked += 1;
        let shown: Vec<&Value> = d["shown"].as_array().unwrap().iter().collect();
        let reported: Vec<&Value> = d["reported"].as_array().unwrap().iter().collect();
        let missing: Vec<_> = reported.iter().filter(|p| !shown.contains(p)).collect();
        if !missing.is_empty() {
            disagreements.push(format!(
                "{key}: Lacuna reports {missing:?} that the tracer does not see (it saw {shown:?} in {} evaluations)",
                d["evaluations"]
            ));
        }
        if shown == reported {
            equal += 1;
        }
    }
    let total: usize = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .map(|f| f["mcdc"].as_array().map_or(0, Vec::len))
        .sum();
    println!(
        "MC/DC cross-check: {checked} of {total} decisions checked, {equal} identical independence sets; skipped:\n  {}",
        skipped.join("\n  ")
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The project's own tests run through the agent too: their MC/DC is reported beside.
    let discount = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .find(|f| f["name"] == "discount_rate")
        .unwrap();
    let own = &discount["suite"];
    assert!(own["branches"].as_u64().unwrap() >= 4, "{discount}");
    assert!(
        (1..=discount["obligations"]["total"].as_u64().unwrap())
            .contains(&own["obligations"].as_u64().unwrap()),
        "{discount}"
    );
    assert!(checked >= 10, "too few decisions checked: {checked}");
}
