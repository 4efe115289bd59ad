//! Proxy fidelity: the functions of `tests/fixtures/proxies` branch on what their arguments
//! are — identity with `True`/`False`, `__dict__`, `vars`, `dir`, `__slots__`, `__class__`,
//! `type`, values nested in containers reaching `json`, `struct`, `re`, `os.path`, `heapq`,
//! `datetime` — so that a proxy behaving unlike its value would make Lacuna claim a side the
//! emitted tests do not take (or emit tests that fail). The real binary explores them; the
//! emitted tests pass under pytest as generated; and, per function, the branch sides Lacuna
//! reports covered are those coverage.py measures on the emitted tests.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[path = "../support/coverage.rs"]
mod coverage;
#[path = "../support/fixture.rs"]
mod fixture;
use fixture::{copy_tree, test_python};

#[test]
fn proxies_take_the_paths_of_their_values_and_coverage_confirms_every_claim() {
    let (python, venv) = test_python();
    let project = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/proxies"),
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

    // Lacuna's claims: per function, branch sides covered / total.
    let mut claims = BTreeMap::new();
    for file in doc["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        let module = Path::new(path).file_name().unwrap().to_string_lossy();
        for f in file["functions"].as_array().unwrap() {
            let total = f["branches"]["total"].as_u64().unwrap();
            if total == 0 {
                continue;
            }
            claims.insert(
                format!("{module} {}", f["name"].as_str().unwrap()),
                (f["branches"]["covered"].as_u64().unwrap(), total),
            );
        }
    }

    // What coverage.py measures on the emitted tests, under real pytest.
    let coverage = coverage::measured(
        &python,
        out_dir.path(),
        &root.join("fidelity"),
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
    insta::assert_snapshot!(table);
    for (name, claim) in &claims {
        assert_eq!(
            Some(claim),
            measured.get(name),
            "{name}: Lacuna's claim differs from coverage.py's measure"
        );
    }
}
