//! Suspicious assertions (`LCN300`) end to end: a project with its own passing pytest suite and
//! a planted one-line fault that crashes nothing and leaves the suite passing; the generated
//! test that enshrines the fault is ranked first, its file carries the rank beside the
//! assertion, and the assertion fails once the fault is fixed.

use super::{fixtures, stderr, stdout, test_python};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PRISTINE: &str = "    return (items + per_page - 1) // per_page\n";
const FAULTY: &str = "    return (items + per_page) // per_page\n";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "__pycache__" || entry.file_name() == ".pytest_cache" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of the fixture with the fault planted (checked to change exactly one line).
fn faulty_project(dir: &Path) -> PathBuf {
    let root = dir.join("paging-project");
    copy_dir(&fixtures().join("suspicious"), &root);
    let rules = root.join("paging/rules.py");
    let text = std::fs::read_to_string(&rules).unwrap();
    assert_eq!(text.matches(PRISTINE).count(), 1);
    std::fs::write(&rules, text.replace(PRISTINE, FAULTY)).unwrap();
    root
}

fn pytest(python: &Path, dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(args)
        .env("HOME", home)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn check(root: &Path, home: &Path, venv: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .arg("check")
        .args(args)
        .arg(".")
        .env("VIRTUAL_ENV", venv)
        .env("HOME", home)
        .current_dir(root)
        .output()
        .unwrap()
}

fn suspicious(doc: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out: Vec<serde_json::Value> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap())
        .filter(|d| d["code"] == "LCN300")
        .cloned()
        .collect();
    out.sort_by_key(|d| d["data"]["rank"].as_u64());
    out
}

#[test]
fn a_planted_fault_is_the_most_suspicious_assertion() {
    let (python, venv) = test_python();
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = faulty_project(dir.path());
    // The fault crashes nothing and the project's own suite still passes.
    let suite = pytest(&python, &root, home.path(), &[]);
    assert!(suite.status.success(), "{}", stdout(&suite));

    let emitted = dir.path().join("emitted");
    let out = check(
        &root,
        home.path(),
        &venv,
        &[
            "--format",
            "json",
            "--emit-tests",
            emitted.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked = suspicious(&doc);
    assert!(!ranked.is_empty(), "no LCN300: {}", stderr(&out));
    let ranks: Vec<u64> = ranked
        .iter()
        .map(|d| d["data"]["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, (1..=ranked.len() as u64).collect::<Vec<_>>());
    let mut first = ranked[0].clone();
    assert_eq!(first["function"], "page_count");

    // The emitted file carries the rank beside the assertion.
    let file = PathBuf::from(first["data"]["test"]["file"].as_str().unwrap());
    let line = first["data"]["test"]["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(&file).unwrap();
    let written = text.lines().nth(line - 1).unwrap();
    assert!(
        written.ends_with("# LCN300: suspicious assertion, rank 1: check this value"),
        "{written}"
    );

    // Found: once the fault is fixed, the top-ranked assertion fails.
    let rules = root.join("paging/rules.py");
    let fixed = std::fs::read_to_string(&rules)
        .unwrap()
        .replace(FAULTY, PRISTINE);
    std::fs::write(&rules, fixed).unwrap();
    let name = first["data"]["test"]["name"].as_str().unwrap().to_owned();
    let selected = format!("{}::{name}", file.display());
    let rerun = pytest(&python, &emitted, home.path(), &[&selected]);
    assert!(!rerun.status.success(), "{}", stdout(&rerun));
    assert_contains!(stdout(&rerun), "1 failed");

    // What users read.
    first["data"]["test"]["file"] = "[emitted]/test_lacuna_paging_rules.py".into();
    for related in first["related"].as_array_mut().unwrap() {
        if let Some(path) = related["path"].as_str()
            && path.starts_with(emitted.to_str().unwrap())
        {
            related["path"] = "[emitted]/test_lacuna_paging_rules.py".into();
        }
    }
    insta::assert_json_snapshot!(first);
}

/// The text output shows the top of the ranking (`show`), and says how many it leaves out;
/// with the check off there is none.
#[test]
fn text_output_shows_the_top_of_the_ranking() {
    let (_, venv) = test_python();
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = faulty_project(dir.path());
    let out = check(&root, home.path(), &venv, &[]);
    let text = stdout(&out);
    assert!(
        text.contains("warning[LCN300]: generated test `test_page_count_2` asserts `page_count(0, 1) == 1`, but in 6 calls from your tests `items >= return` held (here items = 0, return = 1): is this result intended?"),
        "{text}"
    );

    let pyproject = root.join("pyproject.toml");
    let config = std::fs::read_to_string(&pyproject).unwrap();
    std::fs::write(
        &pyproject,
        format!("{config}\n[tool.lacuna.suspicious]\nshow = 0\n"),
    )
    .unwrap();
    let text = stdout(&check(&root, home.path(), &venv, &[]));
    assert!(!text.contains("LCN300]"), "{text}");
    assert!(
        text.contains(
            "1 more suspicious assertion (LCN300) ranked below the top 0: `--format json` lists them all"
        ),
        "{text}"
    );

    std::fs::write(
        &pyproject,
        format!("{config}\n[tool.lacuna.suspicious]\nenabled = false\n"),
    )
    .unwrap();
    let text = stdout(&check(&root, home.path(), &venv, &[]));
    assert!(!text.contains("LCN300"), "{text}");
}

/// `clip` clamps to 0–255; the suite calls it 300 times in range and once with a negative value.
/// That one call breaks `return <= value` and `return == value`, so a generated test asserting
/// that a negative value gives 0 is what the suite established, not a suspicion: every call
/// counts, not a sample of them.
#[test]
fn one_call_among_hundreds_breaks_an_invariant() {
    let (python, venv) = test_python();
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = dir.path().join("clip-project");
    std::fs::create_dir_all(root.join("colour")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"colour\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    )
    .unwrap();
    std::fs::write(root.join("colour/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("colour/clip.py"),
        "def clip(value: int) -> int:\n    \"\"\"The value clamped to 0..255.\"\"\"\n    return 0 if value < 0 else 255 if value > 255 else value\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tests/test_clip.py"),
        "from colour.clip import clip\n\n\ndef test_in_range():\n    for value in range(0, 256):\n        assert clip(value) == value\n    for value in range(0, 256, 6):\n        assert clip(value) == value\n\n\ndef test_negative():\n    assert clip(-20) == 0\n",
    )
    .unwrap();
    let suite = pytest(&python, &root, home.path(), &[]);
    assert!(suite.status.success(), "{}", stdout(&suite));

    let out = check(&root, home.path(), &venv, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let flagged: Vec<String> = suspicious(&doc)
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        !flagged
            .iter()
            .any(|m| m.contains("<= value") || m.contains("== value")),
        "{flagged:#?}"
    );
}

/// A heating controller with a one-line fault: `gap < -1` where `gap < 0` was meant, so a room
/// one degree warmer than its setpoint "needs" -1 degrees. The project's suite passes (it never
/// tries a gap of -1), and the coverage search covers both sides without computing the faulty
/// value (a gap below -1, and 0). With `neighbours = 64`, once coverage is done, each
/// exploration runs inputs near the suite's: the one with a gap of -1 breaks `return >= 0`, which every call of the suite kept,
/// is kept as a test, and is the most suspicious assertion; once the fault is fixed that test
/// fails. Without `neighbours` (the default) no generated test computes the faulty value.
#[test]
fn a_fault_only_an_input_near_the_suites_exposes_is_ranked_first() {
    let (python, venv) = test_python();
    const PRISTINE: &str = "    if gap < 0:\n";
    const FAULTY: &str = "    if gap < -1:\n";
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = dir.path().join("heating-project");
    std::fs::create_dir_all(root.join("heating")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    let pyproject = "[project]\nname = \"heating\"\nversion = \"0.1.0\"\n";
    let near = |n: usize| format!("{pyproject}\n[tool.lacuna.suspicious]\nneighbours = {n}\n");
    std::fs::write(root.join("pyproject.toml"), near(64)).unwrap();
    std::fs::write(root.join("heating/__init__.py"), "").unwrap();
    let module = root.join("heating/demand.py");
    std::fs::write(
        &module,
        format!("def heating_demand(setpoint, temperature):\n    \"\"\"Degrees of heating needed to reach `setpoint`; none when it is warm enough.\"\"\"\n    gap = setpoint - temperature\n{FAULTY}        return 0\n    return gap\n"),
    )
    .unwrap();
    std::fs::write(
        root.join("tests/test_demand.py"),
        "from heating.demand import heating_demand\n\n\ndef test_cold_room_needs_heating():\n    assert heating_demand(21, 18) == 3\n    assert heating_demand(22, 15) == 7\n\n\ndef test_warm_room_needs_none():\n    assert heating_demand(20, 25) == 0\n    assert heating_demand(18, 21) == 0\n\n\ndef test_at_the_setpoint():\n    assert heating_demand(19, 19) == 0\n",
    )
    .unwrap();
    let suite = pytest(&python, &root, home.path(), &[]);
    assert!(suite.status.success(), "{}", stdout(&suite));

    let emitted = dir.path().join("emitted");
    let emit = [
        "--format",
        "json",
        "--emit-tests",
        emitted.to_str().unwrap(),
    ];
    let out = check(&root, home.path(), &venv, &emit);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ranked = suspicious(&doc);
    let first = ranked.first().expect("an LCN300");
    assert_eq!(first["data"]["rank"], 1);
    assert_eq!(first["function"], "heating_demand");
    assert_eq!(first["data"]["invariant"], "return >= 0");
    assert_eq!(first["data"]["value"], "return = -1");

    // Found: once the fault is fixed, the top-ranked assertion fails.
    let fixed = std::fs::read_to_string(&module)
        .unwrap()
        .replace(FAULTY, PRISTINE);
    std::fs::write(&module, &fixed).unwrap();
    let file = first["data"]["test"]["file"].as_str().unwrap();
    let name = first["data"]["test"]["name"].as_str().unwrap();
    let rerun = pytest(
        &python,
        &emitted,
        home.path(),
        &[&format!("{file}::{name}")],
    );
    assert_contains!(stdout(&rerun), "1 failed");

    // Without the inputs near the suite's (the default), no generated test computes the
    // faulty value.
    std::fs::write(&module, fixed.replace(PRISTINE, FAULTY)).unwrap();
    std::fs::write(root.join("pyproject.toml"), pyproject).unwrap();
    let out = check(&root, home.path(), &venv, &["--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let broken: Vec<String> = suspicious(&doc)
        .iter()
        .filter_map(|d| d["data"]["invariant"].as_str().map(str::to_owned))
        .collect();
    assert!(!broken.iter().any(|i| i == "return >= 0"), "{broken:?}");
}
