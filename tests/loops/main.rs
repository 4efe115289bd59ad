//! `for` loops as branch points: the functions of `tests/fixtures/loops` branch only by loops
//! (over a list, a `range(n)`, a dict, nested, with `for … else`, beside a comprehension, an
//! `async for` over an async generator) or iterate over what no input controls. The real binary explores them; the emitted tests pass
//! under pytest as generated; per function, the branch sides Lacuna counts and reports covered
//! are those coverage.py measures on the emitted tests; the uncovered loop sides are explained.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[path = "../support/coverage.rs"]
mod coverage;
#[path = "../support/fixture.rs"]
mod fixture;
use fixture::{copy_tree, test_python};

#[test]
fn loops_are_explored_and_counted_as_coverage_py_counts_them() {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/loops"),
        &root,
    );
    let home = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(["check", "--format", "json", "--emit-tests"])
        .arg(out_dir.path())
        .arg(".")
        .env("VIRTUAL_ENV", &venv)
        .env("HOME", home.path())
        .current_dir(&root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("0 without their assertion, 0 left out"),
        "every emitted test passes as generated: {stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    // Lacuna's claims: per function, branch sides covered / total; and what it says of the
    // sides it could not cover.
    let mut claims = BTreeMap::new();
    let mut diagnostics = String::new();
    for file in doc["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        let module = Path::new(path).file_name().unwrap().to_string_lossy();
        for f in file["functions"].as_array().unwrap() {
            let total = f["branches"]["total"].as_u64().unwrap();
            if total == 0 {
                continue;
            }
            assert!(
                f.get("not_explored").is_none(),
                "{}: a function whose only branching is a loop is explored",
                f["name"]
            );
            claims.insert(
                format!("{module} {}", f["name"].as_str().unwrap()),
                (f["branches"]["covered"].as_u64().unwrap(), total),
            );
        }
        for d in file["diagnostics"].as_array().unwrap() {
            diagnostics.push_str(&format!(
                "{module}:{} {} [{}] {}\n",
                d["line"],
                d["code"].as_str().unwrap(),
                d["data"]["side"].as_str().unwrap_or("-"),
                d["message"].as_str().unwrap()
            ));
        }
    }
    insta::assert_snapshot!("diagnostics", diagnostics);

    // What coverage.py measures on the emitted tests, under real pytest.
    let coverage = coverage::measured(
        &python,
        out_dir.path(),
        &root.join("loops"),
        &root,
        home.path(),
    );
    let mut measured = BTreeMap::new();
    for (path, file) in coverage["files"].as_object().unwrap() {
        let module = Path::new(path).file_name().unwrap().to_string_lossy();
        for (name, function) in file["functions"].as_object().unwrap() {
            let summary = &function["summary"];
            let total = summary["num_branches"].as_u64().unwrap();
            if name.is_empty() || total == 0 {
                continue;
            }
            measured.insert(
                format!("{module} {name}"),
                (summary["covered_branches"].as_u64().unwrap(), total),
            );
        }
    }

    let mut table = String::new();
    for (name, (covered, total)) in &claims {
        let (c, t) = measured.get(name).copied().unwrap_or((0, 0));
        table.push_str(&format!(
            "{name}: lacuna {covered}/{total}, coverage.py {c}/{t}\n"
        ));
    }
    insta::assert_snapshot!("claims", table);
    assert_eq!(
        claims.get("streams.py served"),
        Some(&(2, 2)),
        "an `async for` is a branch point: entered and run out of items, as coverage.py counts it"
    );
    assert_eq!(
        claims, measured,
        "per function, Lacuna's sides and claims are coverage.py's branches and measure"
    );
}
