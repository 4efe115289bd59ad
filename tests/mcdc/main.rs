//! The independent check of MC/DC, on the example project, the causes corpus and a fixture with
//! every kind of decision (`tests/fixtures/decision_forms`): the
//! generated tests run under a second, simple tracer (`tracer.py`: the modules under test
//! rewritten at the source level so that every condition of every reported decision records its
//! value as it is evaluated, independence decided from the recorded vectors by the definition of
//! masking MC/DC, no tables, no bytecode positions), and every (condition, value) pair Lacuna
//! reports as shown must be shown there too.

#[path = "../support/example.rs"]
mod example;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Generates tests for the project at `root` with `lacuna check --format json --emit-tests`,
/// runs them under the second tracer, asserts that it confirms every pair Lacuna reports,
/// checks at least `minimum` decisions and finds the same independence set as Lacuna in at
/// least `identical` of them, prints the figures and returns Lacuna's report.
fn cross_check(root: &Path, name: &str, minimum: usize, identical: usize) -> Value {
    let dir = root.parent().unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let generated = root.join("tests/generated");
    let out = example::isolate(&mut Command::new(env!("CARGO_BIN_EXE_lacuna")), &home)
        .args(["check", "--format", "json", "--emit-tests"])
        .arg(&generated)
        .current_dir(root)
        .output()
        .unwrap();
    let report_path = dir.join("report.json");
    std::fs::write(&report_path, &out.stdout).unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let traced_path = dir.join("traced.json");
    let tracer = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcdc/tracer.py");
    let status = example::isolate(&mut Command::new(example::python()), &home)
        .arg(&tracer)
        .arg(&report_path)
        .arg(root)
        .arg(&generated)
        .arg(&traced_path)
        .status()
        .unwrap();
    assert!(status.success(), "the tracer failed");
    let traced: Value =
        serde_json::from_str(&std::fs::read_to_string(&traced_path).unwrap()).unwrap();
    assert_eq!(traced["pytest_exit"], 0, "the generated tests pass");

    let decisions = traced["decisions"].as_object().unwrap();
    let (mut checked, mut equal, mut skipped) = (0, 0, vec![]);
    let mut disagreements = vec![];
    let mut different = vec![];
    for (key, d) in decisions {
        if let Some(why) = d["skipped"].as_str() {
            skipped.push(format!("{key}: {why}"));
            continue;
        }
        checked += 1;
        let errors = d["model_errors"].as_array().unwrap();
        if !errors.is_empty() {
            disagreements.push(format!(
                "{key}: evaluations the tracer's structure does not replay: {errors:?}"
            ));
        }
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
        } else {
            different.push(format!("{key}: tracer {shown:?}, Lacuna {reported:?}"));
        }
    }
    let total: usize = functions(&report)
        .map(|f| f["mcdc"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(decisions.len(), total, "the tracer read every decision");
    println!(
        "MC/DC cross-check on {name}: {checked} of {total} decisions checked, {equal} identical independence sets; skipped: {}",
        if skipped.is_empty() {
            "none".to_owned()
        } else {
            format!("\n  {}", skipped.join("\n  "))
        }
    );
    for d in &different {
        println!("  under-reported: {d}");
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(
        equal >= identical,
        "Lacuna shows fewer obligations than the tests show in {} decisions",
        different.len()
    );
    assert!(
        checked >= minimum,
        "too few decisions checked: {checked} of {total}"
    );
    report
}

fn functions(report: &Value) -> impl Iterator<Item = &Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
}

#[test]
fn reported_independence_is_confirmed_by_a_second_tracer() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let report = cross_check(&root, "examples", 26, 26);
    // The project's own tests run through the agent too: their MC/DC is reported beside.
    let discount = functions(&report)
        .find(|f| f["name"] == "discount_rate")
        .unwrap();
    let own = &discount["suite"];
    assert!(own["branches"].as_u64().unwrap() >= 4, "{discount}");
    assert!(
        (1..=discount["obligations"]["total"].as_u64().unwrap())
            .contains(&own["obligations"].as_u64().unwrap()),
        "{discount}"
    );
}

#[test]
fn reported_independence_on_the_corpus_is_confirmed_by_a_second_tracer() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::corpus_project(dir.path());
    cross_check(&root, "the causes corpus", 17, 17);
}

#[test]
fn reported_independence_on_every_kind_of_decision_is_confirmed_by_a_second_tracer() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::decision_forms_project(dir.path());
    cross_check(&root, "the decision forms", 8, 7);
}
