//! End-to-end tests of the `lacuna` command line: the real binary on real files, its JSON
//! document, its human output and its exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn lacuna(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the lacuna binary runs")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn static_json_document() {
    let out = lacuna(
        &fixtures(),
        &["check", "--static", "--format", "json", "static"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a syntax error is an error: {}",
        stderr(&out)
    );
    let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["lacuna"] = "[version]".into();
    insta::assert_json_snapshot!(doc);
}

#[test]
fn static_human_output() {
    let out = lacuna(&fixtures(), &["check", "--static", "static"]);
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn exit_code_zero_without_errors() {
    let out = lacuna(&fixtures(), &["check", "--static", "static/orders.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn configuration_errors_name_key_and_file_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.lacuna.budget]\nloop-bound = \"many\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("m.py"), "x = 1\n").unwrap();
    let out = lacuna(dir.path(), &["check", "--static"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("pyproject.toml"), "{err}");
    assert!(err.contains("loop-bound"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = lacuna(dir.path(), &["check", "--static", "no/such/dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no/such/dir"), "{}", stderr(&out));
    let out = lacuna(dir.path(), &["check", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_files_get_diagnostics_not_crashes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("latin.py"), b"s = '\xe9t\xe9'\nif s:\n    pass\n").unwrap();
    std::fs::write(
        d.join("cookie.py"),
        b"# -*- coding: latin-1 -*-\ns = '\xe9'\nt = s or 'x'\n",
    )
    .unwrap();
    let deep = format!(
        "def f(x):\n    return {}x{}\n",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    std::fs::write(d.join("deep.py"), deep).unwrap();
    let chain = format!(
        "def g(x):\n    if {}:\n        pass\n",
        vec!["x"; 3000].join(" or ")
    );
    std::fs::write(d.join("chain.py"), chain).unwrap();
    let out = lacuna(d, &["check", "--static", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_path = |p: &str| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap_or_else(|| panic!("{p} missing: {doc:#}"))
            .clone()
    };
    assert_eq!(by_path("latin.py")["diagnostics"][0]["code"], "LCN002");
    assert!(
        by_path("latin.py")["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("offset 5")
    );
    assert_eq!(
        by_path("cookie.py")["diagnostics"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(by_path("chain.py")["diagnostics"][0]["code"], "LCN003");
    let _ = by_path("deep.py");
}

#[test]
fn the_example_project() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = lacuna(
        &root,
        &["check", "--static", "--format", "json", "examples"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Per function: name, line, branch sides, obligations — the facts later stages build on.
    let mut table = String::new();
    for file in doc["files"].as_array().unwrap() {
        table.push_str(&format!("{}\n", file["path"].as_str().unwrap()));
        for f in file["functions"].as_array().unwrap() {
            table.push_str(&format!(
                "  {}:{} branches={} obligations={}\n",
                f["name"].as_str().unwrap(),
                f["line"],
                f["branches"]["total"],
                f["obligations"]["total"]
            ));
        }
    }
    table.push_str(&format!("summary {}\n", doc["summary"]));
    insta::assert_snapshot!(table);
}
