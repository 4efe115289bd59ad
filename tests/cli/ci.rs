//! The formats CI tools read, each read back by an independent validator or parser: SARIF
//! against the 2.1.0 JSON schema, annotations as GitHub's runner parses workflow commands,
//! lcov through Debian's `lcov`, Cobertura through an XML parser; selection of diagnostics by
//! code and the exit codes `--fail-on` gives.

use super::{example, stderr, stdout};
use std::path::Path;
use std::process::{Command, Output};

/// The example project's modules whose exploration is reproducible: `Stock.add` in
/// `shop/inventory.py` is covered on some runs and not on others, and what `shop/orders.py`
/// covers depends on the hour it runs at (`datetime.now()`), so snapshots leave them out.
const FILES: &[&str] = &["shop/config.py", "shop/model.py", "shop/pricing.py"];

/// `lacuna check ARGS` on the project at `root`, `HOME` a temporary directory.
fn check(root: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    example::isolate(
        Command::new(env!("CARGO_BIN_EXE_lacuna"))
            .arg("check")
            .arg("--quiet")
            .args(args),
        home.path(),
    )
    .current_dir(root)
    .output()
    .expect("the lacuna binary runs")
}

fn sarif_schema() -> jsonschema::Validator {
    let text = include_str!("schemas/sarif-schema-2.1.0.json");
    let mut schema: serde_json::Value = serde_json::from_str(text).unwrap();
    // The published schema's one pattern that is not a valid regular expression (an unbalanced
    // `]` in `language`, an erratum of the 2.1.0 schema, in `run` and `toolComponent`): the
    // validator refuses to compile it, so it is read as the language tag it means. Lacuna never
    // writes `language`.
    const ERRATUM: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    let mut fixed = 0;
    for definition in ["run", "toolComponent"] {
        let language = &mut schema["definitions"][definition]["properties"]["language"]["pattern"];
        assert_eq!(language, ERRATUM);
        *language = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".into();
        fixed += 1;
    }
    assert_eq!(fixed, text.matches("]?$").count());
    jsonschema::draft7::new(&schema).expect("the SARIF schema compiles")
}

fn sarif(root: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "sarif"];
    all.extend_from_slice(args);
    let out = check(root, &all);
    assert!(
        out.status.code() == Some(0),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = sarif_schema()
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0: {errors:#?}");
    log
}

/// The SARIF log of the example project is valid SARIF 2.1.0; it has a rule for every code,
/// levels from the severities, full regions, related locations and code flows where an
/// explanation names places, and fingerprints that do not change when code moves.
#[test]
fn sarif_is_valid_and_its_fingerprints_survive_code_moving() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let mut log = sarif(&root, FILES);
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for entry in
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/diagnostics"))
            .unwrap()
    {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(code) = name.strip_suffix(".md").filter(|c| c.starts_with("LCN")) {
            assert!(rules.contains(&code), "no rule for {code}: {rules:?}");
        }
    }
    let results = run["results"].as_array().unwrap();
    assert!(results.len() > 10, "{results:#?}");
    let levels: std::collections::BTreeSet<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(
        levels.into_iter().collect::<Vec<_>>(),
        ["note", "warning"],
        "information and hints are notes, uncovered sides warnings"
    );
    assert!(
        results
            .iter()
            .any(|r| r["codeFlows"][0]["threadFlows"][0]["locations"]
                .as_array()
                .is_some_and(|l| l.len() >= 2)),
        "an uncovered side's path is a code flow"
    );
    assert!(results.iter().any(|r| r["relatedLocations"].is_array()));
    let fingerprints = |log: &serde_json::Value| -> Vec<String> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["partialFingerprints"]["lacuna/v1"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    let before = fingerprints(&log);
    let unique: std::collections::BTreeSet<&String> = before.iter().collect();
    assert_eq!(unique.len(), before.len(), "fingerprints are unique");

    // Moving every function of a module down by three lines changes regions, not fingerprints.
    let pricing = root.join("shop/pricing.py");
    let text = std::fs::read_to_string(&pricing).unwrap();
    std::fs::write(&pricing, format!("# moved\n\n\n{text}")).unwrap();
    let moved = sarif(&root, FILES);
    assert_eq!(fingerprints(&moved), before);
    let line = |log: &serde_json::Value| {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    == "shop/pricing.py"
            })
            .map(|r| {
                r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap()
            })
            .unwrap()
    };
    assert_eq!(line(&moved), line(&log) + 3);

    log["runs"][0]["tool"]["driver"]["version"] = "[version]".into();
    log["runs"][0]["tool"]["driver"]["semanticVersion"] = "[version]".into();
    insta::assert_json_snapshot!(log);
}

/// One workflow command per diagnostic, in the form GitHub's runner parses: the level, then
/// `key=value` properties (`file`, `line`, `endLine`, `col`, `endColumn`, `title`) with `%`,
/// `:`, `,` and line breaks escaped, then `::` and the escaped message.
#[test]
fn github_annotations_parse_as_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let out = check(&root, &[&["--format", "github"], FILES].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let unescape = |s: &str| {
        s.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
    };
    let json = check(&root, &[&["--format", "json"], FILES].concat());
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let expected: usize = doc["summary"]["diagnostics"].as_u64().unwrap() as usize;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expected, "{text}");
    for line in &lines {
        // The runner's grammar: `::command key=value,key=value::message`.
        let rest = line.strip_prefix("::").unwrap();
        let (head, message) = rest.split_once("::").unwrap();
        let (command, properties) = head.split_once(' ').unwrap();
        assert!(["error", "warning", "notice"].contains(&command), "{line}");
        let properties: std::collections::BTreeMap<&str, String> = properties
            .split(',')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap();
                (k, unescape(v))
            })
            .collect();
        assert_eq!(
            properties.keys().copied().collect::<Vec<_>>(),
            ["col", "endColumn", "endLine", "file", "line", "title"],
            "{line}"
        );
        assert!(properties["file"].starts_with("shop/"), "{line}");
        assert!(properties["title"].starts_with("LCN"), "{line}");
        let start: u32 = properties["line"].parse().unwrap();
        let end: u32 = properties["endLine"].parse().unwrap();
        assert!(start >= 1 && end >= start, "{line}");
        assert!(!message.contains('\n') && !unescape(message).is_empty());
    }
    insta::assert_snapshot!(text);
}

fn codes(out: &Output) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(out), stderr(out)));
    let mut codes: Vec<String> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap().clone())
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    codes.sort();
    codes
}

/// `--select`, `--extend-select` and `--ignore` take codes or prefixes, on top of the same keys
/// of `[tool.lacuna]`; every output and the exit code see only what is selected; `--fail-on`
/// sets the lowest severity that fails the run; an unknown code is a usage error (2).
#[test]
fn diagnostics_are_selected_by_code_or_prefix_and_fail_on_sets_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("pyproject.toml"),
        "[project]\nname = \"p\"\n\n[tool.lacuna]\nignore = [\"LCN003\"]\n",
    )
    .unwrap();
    std::fs::write(d.join("broken.py"), "def f(:\n    pass\n").unwrap();
    let chain = format!(
        "def g(x):\n    if {}:\n        pass\n",
        vec!["x"; 3000].join(" or ")
    );
    std::fs::write(d.join("chain.py"), chain).unwrap();
    let json = |extra: &[&str]| check(d, &[&["--static", "--format", "json"], extra].concat());

    // The configuration leaves out LCN003; the syntax error fails the run.
    let out = json(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(codes(&out), ["LCN001"]);
    // Named on the command line, a code the configuration ignores is back.
    let out = json(&["--extend-select", "LCN003"]);
    assert_eq!(codes(&out), ["LCN001", "LCN003"]);
    // Ignored, the syntax error no longer fails the run; information does only with
    // `--fail-on info`.
    let out = json(&["--extend-select", "lcn003", "--ignore", "LCN001"]);
    assert_eq!(
        (codes(&out), out.status.code()),
        (vec!["LCN003".to_owned()], Some(0))
    );
    for (fail_on, code) in [("warning", 0), ("info", 1)] {
        let out = json(&[
            "--extend-select",
            "LCN003",
            "--ignore",
            "LCN001",
            "--fail-on",
            fail_on,
        ]);
        assert_eq!(out.status.code(), Some(code), "--fail-on {fail_on}");
    }
    // A prefix selects a family; the longer prefix decides.
    let out = json(&[
        "--select",
        "LCN0",
        "--ignore",
        "LCN00",
        "--extend-select",
        "LCN003",
    ]);
    assert_eq!(codes(&out), ["LCN003"]);
    // SARIF and annotations report the same selection.
    let out = check(d, &["--static", "--format", "github", "--select", "LCN003"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("title=LCN003"));

    // Unknown codes: on the command line and in the configuration, exit 2 naming them.
    let out = json(&["--select", "LCN9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--select") && stderr(&out).contains("LCN9"),
        "{}",
        stderr(&out)
    );
    std::fs::write(
        d.join("pyproject.toml"),
        "[tool.lacuna]\nextend-select = [\"E501\"]\n",
    )
    .unwrap();
    let out = json(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("extend-select") && stderr(&out).contains("E501"),
        "{}",
        stderr(&out)
    );
}

/// `lcov --summary` of Debian's `lcov` on a tracefile: (lines, functions, branches) as
/// (hit, found), `None` where it found no data.
type Summary = [Option<(u64, u64)>; 3];

fn lcov_summary(tracefile: &Path) -> Summary {
    let out = Command::new("lcov")
        .args(["--summary", "--rc", "lcov_branch_coverage=1"])
        .arg(tracefile)
        .output()
        .expect("Debian's lcov is installed (.ci/run installs it: apt-get install lcov)");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    let figure = |what: &str| {
        let line = text.lines().find(|l| l.trim_start().starts_with(what))?;
        let inner = line.split_once('(')?.1.split_once(')')?.0;
        let mut words = inner.split_whitespace();
        let hit = words.next()?.parse().ok()?;
        let found = words.nth(1)?.parse().ok()?;
        Some((hit, found))
    };
    [figure("lines"), figure("functions"), figure("branches")]
}

fn records<'a>(text: &'a str, kind: &str) -> Vec<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(kind)?.strip_prefix(':'))
        .collect()
}

/// `--lcov` and `--cobertura` write the coverage the JSON document reports: Debian's `lcov`
/// reads the same branch sides found and covered from an lcov 1 tracefile, and the same lines
/// and functions from an lcov 2 one, whose branches are named and whose `MCDC` records count the
/// MC/DC obligations; Python's XML parser reads the same figures from the Cobertura file; the
/// project's own suite is written on its own with `--coverage-of suite`.
#[test]
fn lcov_and_cobertura_carry_the_reported_coverage_and_lcov_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let run = |extra: &[&str]| {
        let out = check(&root, &[&["--format", "json"], FILES, extra].concat());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc
    };
    let functions_with_sides = |doc: &serde_json::Value| {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["functions"].as_array().unwrap())
            // A function without branch sides is in the tracefile once a test ran it.
            .filter(|f| f["branches"]["total"].as_u64().unwrap() > 0 || f["outcome"] == "explored")
            .count() as u64
    };

    // lcov 1: numbered branches, read by Debian's lcov 1.16.
    let doc = run(&[
        "--lcov",
        "v1.info",
        "--lcov-format",
        "1",
        "--cobertura",
        "coverage.xml",
    ]);
    let summary = &doc["summary"];
    let (branches, covered) = (
        summary["branches"].as_u64().unwrap(),
        summary["covered"].as_u64().unwrap(),
    );
    let v1 = lcov_summary(&root.join("v1.info"));
    assert_eq!(v1[2], Some((covered, branches)), "{v1:?}");
    assert_eq!(v1[1].unwrap().1, functions_with_sides(&doc));
    let v1_text = std::fs::read_to_string(root.join("v1.info")).unwrap();
    assert!(records(&v1_text, "MCDC").is_empty());

    // Cobertura, through Python's XML parser.
    let python = example::python();
    let script = r#"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
taken = found = 0
for line in root.iter("line"):
    if line.get("branch") == "true":
        t, f = line.get("condition-coverage").split("(")[1].rstrip(")").split("/")
        taken += int(t); found += int(f)
print(root.get("branches-covered"), root.get("branches-valid"), taken, found,
      root.get("lines-covered"), root.get("lines-valid"))
"#;
    let out = Command::new(&python)
        .args(["-c", script])
        .arg(root.join("coverage.xml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let figures: Vec<u64> = stdout(&out)
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let (lines_hit, lines_found) = v1[0].unwrap();
    assert_eq!(
        figures,
        [covered, branches, covered, branches, lines_hit, lines_found]
    );

    // lcov 2.2: named branches and MC/DC records; lcov 1.16 still reads lines and functions.
    let doc = run(&["--lcov", "v2.info"]);
    let text = std::fs::read_to_string(root.join("v2.info")).unwrap();
    let v2 = lcov_summary(&root.join("v2.info"));
    assert_eq!([v2[0], v2[1]], [v1[0], v1[1]]);
    let names: std::collections::BTreeSet<&str> = records(&text, "BRDA")
        .iter()
        .map(|r| r.split(',').nth(2).unwrap())
        .collect();
    assert!(
        names.is_subset(&["true", "false", "enter", "exit", "pass", "fail"].into()),
        "{names:?}"
    );
    assert_eq!(
        records(&text, "BRDA").len() as u64,
        doc["summary"]["branches"].as_u64().unwrap()
    );
    let sum = |kind: &str| -> u64 {
        records(&text, kind)
            .iter()
            .map(|n| n.parse::<u64>().unwrap())
            .sum()
    };
    assert_eq!(sum("MCF"), doc["summary"]["obligations"].as_u64().unwrap());
    assert_eq!(
        sum("MCH"),
        doc["summary"]["obligations_covered"].as_u64().unwrap()
    );
    for m in records(&text, "MCDC") {
        let fields: Vec<&str> = m.splitn(6, ',').collect();
        let group: u32 = fields[1].parse().unwrap();
        let index: u32 = fields[4].parse().unwrap();
        assert!(
            ["t", "f"].contains(&fields[2]) && ["0", "1"].contains(&fields[3]),
            "{m}"
        );
        assert!(index < group && !fields[5].is_empty(), "{m}");
    }
    let shown: String = text
        .lines()
        .map(|l| match l.strip_prefix("FNDA:") {
            Some(r) if !r.starts_with("0,") => {
                format!("FNDA:[executions],{}\n", r.split_once(',').unwrap().1)
            }
            _ => format!("{l}\n"),
        })
        .collect();
    insta::assert_snapshot!(shown);

    // The project's own suite, on its own.
    let doc = run(&[
        "--lcov",
        "suite.info",
        "--lcov-format",
        "1",
        "--coverage-of",
        "suite",
    ]);
    let suite_sides: u64 = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .filter_map(|f| f["suite"]["branches"].as_u64())
        .sum();
    let suite = lcov_summary(&root.join("suite.info"));
    assert_eq!(suite[2], Some((suite_sides, branches)), "{suite:?}");
    let text = std::fs::read_to_string(root.join("suite.info")).unwrap();
    assert_eq!(records(&text, "TN")[0], "project_suite");
}

/// The document without what measures one machine's run: durations and the `generation` costs
/// (worker processes started, executions per machine).
fn without_costs(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(map) => map
            .into_iter()
            .filter(|(k, _)| !k.ends_with("_ms") && k != "generation")
            .map(|(k, v)| (k, without_costs(v)))
            .collect(),
        serde_json::Value::Array(items) => items.into_iter().map(without_costs).collect(),
        v => v,
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn merge(root: &Path, files: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lacuna"))
        .arg("merge")
        .args(files)
        .current_dir(root)
        .output()
        .unwrap()
}

/// Four shards of a run, merged, are the run: the same JSON document (but for the costs of
/// each machine), the same SARIF log and the same lcov tracefile on the example project (the
/// causes corpus is left out: under a loaded machine some of its functions' explorations vary
/// from run to run, sharded or not); each shard explores only its part; `lacuna merge`
/// refuses a set of shards that is not complete. The shards start from the store the whole
/// run left, as CI's shards restore one: they are balanced by its exploration times and report
/// its explorations, so a loaded machine cannot make a time-cut exploration differ.
#[test]
fn four_shards_merged_are_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let examples = example::example_project(dir.path());
    for (root, formats, paths) in [(&examples, &["json", "sarif"][..], FILES)] {
        for &format in formats {
            let mut args = vec!["--format", format];
            args.extend_from_slice(paths);
            // With the JSON document, the coverage too.
            let lcov = |name: &str| -> Vec<String> {
                if format == "json" {
                    vec!["--lcov".into(), format!("{name}.info")]
                } else {
                    vec![]
                }
            };
            let with = |extra: Vec<String>| -> Vec<String> {
                args.iter().map(|a| a.to_string()).chain(extra).collect()
            };
            let whole = check(root, &strs(&with(lcov("whole"))));
            assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
            let mut parts = vec![];
            let mut explored = 0;
            for i in 1..=4 {
                let shard = format!("{i}/4");
                let mut extra = lcov(&format!("shard-{i}"));
                extra.extend(["--shard".to_owned(), shard.clone()]);
                let out = check(root, &strs(&with(extra)));
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                if format == "json" {
                    assert_eq!(doc["shard"], shard);
                    explored += doc["files"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .flat_map(|f| f["functions"].as_array().unwrap())
                        .count();
                } else {
                    assert_eq!(
                        doc["runs"][0]["automationDetails"]["id"],
                        format!("lacuna/check/shard-{i}-of-4")
                    );
                    let errors = sarif_schema().iter_errors(&doc).count();
                    assert_eq!(errors, 0);
                }
                let file = format!("shard-{i}.{format}");
                std::fs::write(root.join(&file), &out.stdout).unwrap();
                parts.push(file);
            }
            let merged = merge(root, &parts);
            assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
            let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
            let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
            if format == "json" {
                assert_eq!(
                    explored as u64,
                    whole["summary"]["functions"].as_u64().unwrap(),
                    "every function is in exactly one shard"
                );
                assert!(whole["summary"]["diagnostics"].as_u64().unwrap() > 0);
            }
            assert_eq!(
                without_costs(merged),
                without_costs(whole),
                "{format} {root:?}"
            );
            if format == "json" {
                let infos: Vec<String> = (1..=4).map(|i| format!("shard-{i}.info")).collect();
                let out = merge(
                    root,
                    &[&["--lcov".to_owned(), "merged.info".to_owned()], &infos[..]].concat(),
                );
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                let read = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
                assert_eq!(read("merged.info"), read("whole.info"));
                assert!(read("whole.info").contains("BRDA:"));
            }
            // Three shards of four are not a run.
            let out = merge(root, &parts[..3]);
            assert_eq!(out.status.code(), Some(2));
            assert_contains!(stderr(&out), "4/4");
        }
    }
}

/// A reproducible run explores by counts, not by the clock: four cold shards started at once,
/// on a machine they load, merged, are exactly the one run made alone — the example project's
/// inventory too, whose `Stock.add` a timed run covers on some runs and not on others.
#[test]
fn four_cold_shards_of_a_reproducible_run_merged_are_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let mut args = vec!["--format", "json", "--reproducible", "--no-cache"];
    args.extend_from_slice(FILES);
    args.push("shop/inventory.py");
    let whole = check(&root, &args);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    let homes: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let running: Vec<_> = (1..=4)
        .map(|i| {
            example::isolate(
                Command::new(env!("CARGO_BIN_EXE_lacuna"))
                    .args(["check", "--quiet", "--shard", &format!("{i}/4")])
                    .args(&args),
                homes[i - 1].path(),
            )
            .current_dir(&root)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut parts = vec![];
    for (i, child) in running.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let file = format!("shard-{}.json", i + 1);
        std::fs::write(root.join(&file), &out.stdout).unwrap();
        parts.push(file);
    }
    let merged = merge(&root, &parts);
    assert_eq!(merged.status.code(), Some(0), "{}", stderr(&merged));
    let merged: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let add = whole["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["functions"].as_array().unwrap())
        .find(|f| f["name"] == "Stock.add")
        .expect("Stock.add is explored");
    assert!(add["executions"].as_u64().unwrap() > 0, "{add}");
    assert_eq!(without_costs(merged), without_costs(whole));
}

/// `--reproducible` cannot share a run's time: with `--budget` the command line says so, and
/// so does a configuration that asks for both.
#[test]
fn a_reproducible_run_refuses_a_run_budget() {
    let dir = tempfile::tempdir().unwrap();
    let root = example::example_project(dir.path());
    let out = check(
        &root,
        &["--reproducible", "--budget", "30", "shop/config.py"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_contains!(stderr(&out), "cannot be used with");
    let pyproject = root.join("pyproject.toml");
    let text = std::fs::read_to_string(&pyproject).unwrap();
    std::fs::write(
        &pyproject,
        text.replace(
            "[tool.lacuna.budget]\n",
            "[tool.lacuna.budget]\nreproducible = true\n",
        ),
    )
    .unwrap();
    let out = check(&root, &["--budget", "30", "shop/config.py"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_contains!(
        stderr(&out),
        "`--budget` shares time among functions, and `reproducible` of `[tool.lacuna.budget]` explores by counts, not by the clock: give one or the other"
    );
}
