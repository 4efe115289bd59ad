//! How right Lacuna's causes are: `lacuna check --format json` with the real agent on the
//! labelled corpus `tests/corpus/causes/`, every branch side matched with its label, precision
//! and recall per cause, and Covana's count of candidates (Table 4 of Xiao et al., *Precise
//! identification of problems for structural test generation*, ICSE 2011).
//!
//! Labels are comments on the line of a decision's keyword:
//!
//! ```text
//! if os.path.exists(p):  # lacuna: true=external-call[os.path.exists]
//! if self._state is State.OPEN:  # lacuna: true=object-creation[Connection._state] false=covered
//! ```
//!
//! `true=`, `false=` or `both=` name the side (for `while` the true side is the one entering the
//! loop, for `assert` the one passing); the value is the true cause of the side staying
//! uncovered — `external-call`, `object-creation`, `boundary`, `solver-limit`, `infeasible`,
//! `budget` — or `covered` for a side the generated tests must cover. An external call may name
//! its callee as Lacuna names it, object state its `Class.field`: those make Covana's ground
//! truth of problems. A side without a label must be covered.
//!
//! Scoring: a side whose reported cause differs from its label is a false positive for the
//! reported cause and a false negative for the labelled one; an uncovered side with no
//! diagnostic is a false negative; a diagnostic on a side labelled `covered` is a false
//! positive.

#[path = "../support/example.rs"]
mod example;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const CAUSES: &[&str] = &[
    "external-call",
    "object-creation",
    "boundary",
    "solver-limit",
    "infeasible",
    "budget",
];

/// Precision and recall each cause must reach.
const TARGETS: &[(&str, f64)] = &[("external-call", 0.95), ("object-creation", 0.90)];

/// Share of Covana's external-call candidates that must be pruned.
const PRUNED_TARGET: f64 = 0.95;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/causes")
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Label {
    cause: String,
    /// The callee of an external call, `Class.field` of object state.
    detail: Option<String>,
}

/// (file relative to the corpus, 1-based line, side) → label.
type Labels = BTreeMap<(String, u32, String), Label>;

fn parse_labels(root: &Path) -> Labels {
    let mut labels = Labels::new();
    let mut files = vec![];
    collect_python(root, root, &mut files);
    for (relative, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("# lacuna:") else {
                continue;
            };
            for item in line[at + "# lacuna:".len()..].split_whitespace() {
                let place = format!("{relative}:{}", i + 1);
                let (side, value) = item
                    .split_once('=')
                    .unwrap_or_else(|| panic!("{place}: `{item}` is not side=cause"));
                let (cause, detail) = match value.split_once('[') {
                    Some((cause, rest)) => (
                        cause,
                        Some(
                            rest.strip_suffix(']')
                                .unwrap_or_else(|| panic!("{place}: unclosed `[` in `{item}`"))
                                .to_owned(),
                        ),
                    ),
                    None => (value, None),
                };
                assert!(
                    cause == "covered" || CAUSES.contains(&cause),
                    "{place}: unknown cause `{cause}`"
                );
                let sides: &[&str] = match side {
                    "true" => &["true"],
                    "false" => &["false"],
                    "both" => &["true", "false"],
                    other => panic!("{place}: unknown side `{other}`"),
                };
                for s in sides {
                    let previous = labels.insert(
                        (relative.clone(), i as u32 + 1, (*s).to_owned()),
                        Label {
                            cause: cause.to_owned(),
                            detail: detail.clone(),
                        },
                    );
                    assert!(previous.is_none(), "{place}: side {s} labelled twice");
                }
            }
        }
    }
    labels
}

fn collect_python(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "__pycache__") {
                collect_python(root, &path, out);
            }
        } else if path.extension().is_some_and(|e| e == "py") {
            let relative = path.strip_prefix(root).unwrap().to_string_lossy();
            out.push((relative.replace('\\', "/"), path));
        }
    }
}

/// Runs `lacuna check --format json` on a copy of the corpus configured with the test
/// interpreter; returns the document.
fn check_corpus() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let project = example::corpus_project(dir.path());
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = example::isolate(&mut Command::new(env!("CARGO_BIN_EXE_lacuna")), &home)
        .args(["check", "--format", "json"])
        .current_dir(&project)
        .output()
        .expect("the lacuna binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A branch side of an explored function.
struct Side {
    function: String,
    covered: bool,
    /// The reported cause, and the diagnostic's data.
    reported: Option<(String, Value)>,
}

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// Covana's count for one kind of problem.
#[derive(Default)]
struct Candidates {
    total: usize,
    identified: usize,
    fp: Vec<String>,
    fn_: Vec<String>,
}

#[test]
fn causes_are_precise_on_the_labelled_corpus() {
    let labels = parse_labels(&corpus());
    let doc = check_corpus();

    // Every side of every explored function, with what was reported about it.
    let mut sides: BTreeMap<(String, u32, String), Vec<Side>> = BTreeMap::new();
    let mut by_decision: BTreeMap<(String, String, String), (u32, String)> = BTreeMap::new();
    for file in doc["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap().to_owned();
        for function in file["functions"].as_array().unwrap() {
            let name = function["name"].as_str().unwrap();
            // Functions generation does not explore by design say why (LCN107); any other
            // function must have been explored.
            let by_design = file["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["code"] == "LCN107" && d["function"] == function["name"]);
            if let Some(why) = function["not_explored"].as_str()
                && !by_design
            {
                panic!("{path}: {name} was not explored: {why}");
            }
            for side in function["sides"].as_array().into_iter().flatten() {
                let line = side["line"].as_u64().unwrap() as u32;
                let which = side["side"].as_str().unwrap().to_owned();
                let decision = side["decision"].as_str().unwrap().to_owned();
                by_decision.insert(
                    (path.clone(), decision, which.clone()),
                    (line, name.to_owned()),
                );
                sides
                    .entry((path.clone(), line, which))
                    .or_default()
                    .push(Side {
                        function: name.to_owned(),
                        covered: side["covered"] == true,
                        reported: None,
                    });
            }
        }
        for d in file["diagnostics"].as_array().unwrap() {
            if d["kind"] != "uncovered-branch" {
                continue;
            }
            let data = &d["data"];
            let key = (
                path.clone(),
                data["decision"].as_str().unwrap().to_owned(),
                d["side"].as_str().unwrap().to_owned(),
            );
            let (line, function) = by_decision
                .get(&key)
                .unwrap_or_else(|| panic!("a diagnostic on no listed side: {d:#}"));
            let entry = sides
                .get_mut(&(path.clone(), *line, key.2.clone()))
                .unwrap()
                .iter_mut()
                .find(|s| s.function == *function)
                .unwrap();
            entry.reported = Some((d["cause"].as_str().unwrap().to_owned(), data.clone()));
        }
    }

    // Labels must stand on decisions that were explored, one decision per labelled line.
    for (path, line, side) in labels.keys() {
        let found = sides
            .get(&(path.clone(), *line, side.clone()))
            .unwrap_or_else(|| {
                panic!("{path}:{line}: labelled, but no explored decision has its keyword there")
            });
        assert_eq!(
            found.len(),
            1,
            "{path}:{line}: several decisions on one line"
        );
    }

    // Precision and recall per cause.
    let mut counts: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut wrong = vec![];
    let mut unobservable = vec![];
    let mut labelled_uncovered = 0;
    let mut labelled_covered = 0;
    let mut implicit_covered = 0;
    for ((path, line, side), found) in &sides {
        for s in found {
            let label = labels.get(&(path.clone(), *line, side.clone()));
            let truth = label.map_or("covered", |l| l.cause.as_str());
            match (label, truth) {
                (None, _) => implicit_covered += 1,
                (Some(_), "covered") => labelled_covered += 1,
                _ => labelled_uncovered += 1,
            }
            let got = match (&s.reported, s.covered) {
                (Some((cause, _)), _) => cause.as_str(),
                (None, true) => "covered",
                (None, false) => "unexplained",
            };
            if got == truth {
                if truth != "covered" {
                    counts.entry(cause_name(truth)).or_default().tp += 1;
                }
                continue;
            }
            if got == "unexplained" && truth == "covered" {
                // A boolean value whose last operand decides it: CPython does not test that
                // operand, so its outcome cannot be observed, nor claimed either way.
                unobservable.push(format!("{path}:{line} {side} side ({})", s.function));
                continue;
            }
            wrong.push(format!(
                "{path}:{line} {side} side ({}): labelled {truth}, got {got}{}",
                s.function,
                s.reported
                    .as_ref()
                    .and_then(|(_, d)| d["callee"].as_str().or(d["field"].as_str()))
                    .map(|x| format!(" ({x})"))
                    .unwrap_or_default()
            ));
            if truth != "covered" {
                counts.entry(cause_name(truth)).or_default().fn_ += 1;
            }
            if got != "covered" && got != "unexplained" {
                counts.entry(cause_name(got)).or_default().fp += 1;
            }
        }
    }

    // Covana's candidates: every external call reached, every field only methods change;
    // identified when an uncovered side is explained by it, a problem when a label names it.
    let mut emcp = Candidates::default();
    let mut ocp = Candidates::default();
    for file in doc["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        for function in file["functions"].as_array().unwrap() {
            let name = function["name"].as_str().unwrap();
            let lines: BTreeSet<u32> = function["sides"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| s["line"].as_u64().unwrap() as u32)
                .collect();
            let named = |cause: &str| -> (BTreeSet<String>, bool) {
                let mut names = BTreeSet::new();
                let mut unnamed = false;
                for ((p, line, _), label) in &labels {
                    if p == path && lines.contains(line) && label.cause == cause {
                        match &label.detail {
                            Some(d) => {
                                names.insert(d.clone());
                            }
                            None => unnamed = true,
                        }
                    }
                }
                (names, unnamed)
            };
            let (callees, any_callee) = named("external-call");
            let calls = function["external_calls"].as_array().cloned();
            let calls = calls.unwrap_or_default();
            for c in &calls {
                emcp.total += 1;
                let callee = c["callee"].as_str().unwrap();
                if c["identified"] == true {
                    emcp.identified += 1;
                    if !callees.contains(callee) && !any_callee {
                        emcp.fp
                            .push(format!("{name}: {callee} (line {})", c["line"]));
                    }
                }
            }
            for callee in &callees {
                if !calls
                    .iter()
                    .any(|c| c["callee"] == callee.as_str() && c["identified"] == true)
                {
                    emcp.fn_.push(format!("{name}: {callee}"));
                }
            }
            let (fields, any_field) = named("object-creation");
            let candidates = function["object_fields"].as_array().cloned();
            let candidates = candidates.unwrap_or_default();
            let qualified = |c: &Value| {
                let class = c["class"].as_str().unwrap();
                let class = class.rsplit(':').next().unwrap();
                format!("{class}.{}", c["field"].as_str().unwrap())
            };
            for c in &candidates {
                ocp.total += 1;
                if c["identified"] == true {
                    ocp.identified += 1;
                    let field = qualified(c);
                    if !fields.contains(&field) && !any_field {
                        ocp.fp.push(format!("{name}: {field}"));
                    }
                }
            }
            for field in &fields {
                if !candidates
                    .iter()
                    .any(|c| qualified(c) == *field && c["identified"] == true)
                {
                    ocp.fn_.push(format!("{name}: {field}"));
                }
            }
        }
    }

    let table = render(
        &counts,
        &emcp,
        &ocp,
        labelled_uncovered,
        labelled_covered,
        implicit_covered,
    );
    println!("{table}");
    if !wrong.is_empty() {
        println!("Sides whose cause differs from the label:");
        for w in &wrong {
            println!("  {w}");
        }
    }
    if !unobservable.is_empty() {
        println!("Sides neither covered nor explained (outcome not observable):");
        for u in &unobservable {
            println!("  {u}");
        }
    }
    for list in [&emcp.fp, &emcp.fn_, &ocp.fp, &ocp.fn_] {
        for item in list {
            println!("  candidate: {item}");
        }
    }

    assert!(
        labelled_uncovered >= 60,
        "the corpus labels {labelled_uncovered} uncovered sides; it is meant to have at least 60"
    );
    let mut failures = vec![];
    for (cause, target) in TARGETS {
        let c = counts
            .get(cause)
            .unwrap_or_else(|| panic!("no {cause} label"));
        if c.precision() < *target || c.recall() < *target {
            failures.push(format!(
                "{cause}: precision {}, recall {} (target {})",
                percent(c.precision()),
                percent(c.recall()),
                percent(*target)
            ));
        }
    }
    let pruned = ratio(emcp.total - emcp.identified, emcp.total);
    if pruned < PRUNED_TARGET {
        failures.push(format!(
            "{} of external-call candidates pruned (target {})",
            percent(pruned),
            percent(PRUNED_TARGET)
        ));
    }
    assert!(failures.is_empty(), "below target: {failures:#?}");
}

fn cause_name(cause: &str) -> &'static str {
    CAUSES
        .iter()
        .find(|c| **c == cause)
        .copied()
        .unwrap_or_else(|| panic!("unknown cause `{cause}`"))
}

fn render(
    counts: &BTreeMap<&str, Counts>,
    emcp: &Candidates,
    ocp: &Candidates,
    labelled_uncovered: usize,
    labelled_covered: usize,
    implicit_covered: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Corpus: {labelled_uncovered} sides labelled uncovered, {labelled_covered} labelled covered, {implicit_covered} unlabelled (must be covered)\n"
    );
    let _ = writeln!(
        out,
        "| cause | labelled | reported | correct | precision | recall |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for cause in CAUSES {
        let c = counts.get(cause).map_or((0, 0, 0), |c| (c.tp, c.fp, c.fn_));
        let k = Counts {
            tp: c.0,
            fp: c.1,
            fn_: c.2,
        };
        // Precision of a cause never reported, recall of one never labelled: not defined.
        let or_dash = |n: usize, x: f64| if n == 0 { "—".to_owned() } else { percent(x) };
        let _ = writeln!(
            out,
            "| {cause} | {} | {} | {} | {} | {} |",
            c.0 + c.2,
            c.0 + c.1,
            c.0,
            or_dash(c.0 + c.1, k.precision()),
            or_dash(c.0 + c.2, k.recall())
        );
    }
    let _ = writeln!(
        out,
        "\n| problem | candidates | identified | pruned | FP | FN |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for (name, c) in [
        ("external-method-call (EMCP)", emcp),
        ("object-creation (OCP)", ocp),
    ] {
        let pruned = c.total - c.identified;
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {pruned} ({}) | {} | {} |",
            c.total,
            c.identified,
            percent(ratio(pruned, c.total)),
            c.fp.len(),
            c.fn_.len()
        );
    }
    out
}
