//! Every branch side Lacuna proves dead from the source (`LCN106` "can never hold") on real
//! code is checked against a witness search: the decision's side and the guards the proof used
//! are evaluated by CPython for every combination of representative values of every type the
//! proof's reading allows each name (module constants at their value). A combination that takes
//! the side refutes the claim; none may. The corpus: a sample of the standard library (every
//! fourth module, in path order), the example project, the causes corpus and the fixtures.

use lacuna_analysis::explain::reading::Reading;
use lacuna_analysis::explain::{DeadSide, dead_sides};
use lacuna_analysis::explore::coverage::FunctionUnderTest;
use lacuna_grammar::{LineIndex, parse};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn python() -> String {
    std::env::var("LACUNA_TEST_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn stdlib() -> PathBuf {
    let out = std::process::Command::new(python())
        .args([
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python runs");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn python_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .filter_entry(|e| e.file_name() != "site-packages")
        .build()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    files
}

/// One claim, as the witness search reads it.
struct Claim {
    place: String,
    /// A Python expression that is true exactly when the side and its guards hold.
    formula: String,
    /// Per name: `None` for a free name, or the constant it was read as.
    names: Vec<(String, Option<f64>)>,
    /// Per name: the reading's type (`int`, `float`, `text`), for the values tried.
    types: Vec<&'static str>,
}

fn claims_of(path: &Path) -> Vec<Claim> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return vec![];
    };
    let module = Arc::new(parse(&text));
    let flow = Arc::new(lacuna_grammar::flow(&text));
    let text: Arc<str> = text.into();
    let lines = Arc::new(LineIndex::new(&text));
    let mut out = vec![];
    for function in &module.functions {
        if function.syntax.decisions.is_empty() {
            continue;
        }
        let f = FunctionUnderTest {
            id: function.id.clone(),
            module: "m".into(),
            qualname: function.syntax.qualname.to_string(),
            call: Default::default(),
            file: path.to_owned(),
            syntax: function.syntax.clone(),
            anchor: function.anchor,
            lines: lines.clone(),
            tables: vec![],
            text: text.clone(),
            file_syntax: module.clone(),
            seeds: Default::default(),
            flow: flow.clone(),
        };
        for claim in dead_sides(&f) {
            out.push(claim_of(&f, path, &claim));
        }
    }
    out
}

fn claim_of(f: &FunctionUnderTest, path: &Path, dead: &DeadSide) -> Claim {
    let source = |d: usize| {
        let r = f.syntax.decisions[d].range.absolute(f.anchor);
        f.text[r.start as usize..r.end as usize].to_owned()
    };
    let holds = |d: usize, side: bool| {
        let s = source(d);
        if side {
            format!("bool({s})")
        } else {
            format!("(not ({s}))")
        }
    };
    let mut parts = vec![holds(dead.decision, dead.outcome)];
    parts.extend(dead.guards.iter().map(|&(g, side)| holds(g, side)));
    let line = f
        .lines
        .line_col(
            f.syntax.decisions[dead.decision]
                .range
                .absolute(f.anchor)
                .start,
        )
        .line
        + 1;
    Claim {
        place: format!("{}:{line} {} {}", path.display(), f.qualname, dead.outcome),
        formula: parts.join(" and "),
        names: dead
            .names
            .iter()
            .map(|(name, r)| {
                let constant = match r {
                    Reading::Constant(x) => Some(*x),
                    _ => None,
                };
                (name.clone(), constant)
            })
            .collect(),
        types: dead
            .names
            .iter()
            .map(|(name, r)| type_of(f, name, *r))
            .collect(),
    }
}

/// The values a name's reading allows: integers (and `None` where the annotation is
/// optional), floats (NaN and infinities included, `None` where optional), or texts.
fn type_of(f: &FunctionUnderTest, name: &str, reading: Reading) -> &'static str {
    let optional = f
        .syntax
        .params
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.annotation.as_deref())
        .is_some_and(|a| a.contains("Optional") || a.contains("None"));
    match (reading, optional) {
        (Reading::Int, false) => "int",
        (Reading::Int, true) => "optional_int",
        (Reading::Float, false) => "float",
        (Reading::Float, true) => "optional_float",
        (Reading::Text, _) => "text",
        (Reading::Constant(_), _) => "constant",
    }
}

const SEARCH: &str = r#"
import itertools, json, math, re, sys

def literals(formula):
    out = set()
    for m in re.finditer(r"(?<![\w.])-?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?", formula):
        try:
            x = float(m.group(0).replace("_", ""))
        except ValueError:
            continue
        out.add(x)
    return out

def values(kind, formula):
    ints = {-2, -1, 0, 1, 2, True, False}
    for x in literals(formula):
        if math.isfinite(x) and abs(x) < 1e15:
            for d in (-1, 0, 1):
                ints.add(int(x) + d)
    floats = {math.nan, math.inf, -math.inf, 0.5, -0.5}
    for x in literals(formula):
        for d in (-0.5, 0.0, 0.5):
            floats.add(x + d)
    texts = {"", "a", "right", "0", b"", b"a"}
    if kind == "int":
        return sorted(ints, key=repr)
    if kind == "optional_int":
        return sorted(ints, key=repr) + [None]
    if kind == "float":
        return sorted(floats, key=repr) + sorted(ints, key=repr)
    if kind == "optional_float":
        return sorted(floats, key=repr) + sorted(ints, key=repr) + [None]
    if kind == "text":
        return sorted(texts, key=repr) + [None]
    raise ValueError(kind)

refuted, checked, combinations = [], 0, 0
for line in sys.stdin:
    claim = json.loads(line)
    formula = compile(claim["formula"].strip(), "<claim>", "eval")
    domains = []
    for (name, constant), kind in zip(claim["names"], claim["types"]):
        domains.append([constant] if constant is not None else values(kind, claim["formula"]))
    names = [n for n, _ in claim["names"]]
    checked += 1
    for combo in itertools.islice(itertools.product(*domains), 200000):
        combinations += 1
        try:
            if eval(formula, {"__builtins__": __builtins__}, dict(zip(names, combo))):
                refuted.append([claim["place"], dict(zip(names, map(repr, combo)))])
                break
        except Exception:
            pass
print(json.dumps({"checked": checked, "combinations": combinations, "refuted": refuted}))
"#;

#[test]
fn every_dead_side_claimed_survives_a_witness_search() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<PathBuf> = python_files(&stdlib()).into_iter().step_by(4).collect();
    let stdlib_files = files.len();
    for dir in ["examples", "tests/corpus/causes", "tests/fixtures"] {
        files.extend(python_files(&root.join(dir)));
    }
    let claims: Vec<Claim> = files.par_iter().flat_map(|p| claims_of(p)).collect();
    let input: String = claims
        .iter()
        .map(|c| {
            serde_json::json!({
                "place": c.place,
                "formula": c.formula.replace('\n', " "),
                "names": c.names,
                "types": c.types,
            })
            .to_string()
                + "\n"
        })
        .collect();
    let mut child = std::process::Command::new(python())
        .args(["-c", SEARCH])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the witness search ran");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!(
        "dead-code claims: {} files ({stdlib_files} of the standard library), {} claims checked, {} combinations tried, {} refuted",
        files.len(),
        report["checked"],
        report["combinations"],
        report["refuted"].as_array().unwrap().len()
    );
    for claim in &claims {
        eprintln!("  claimed: {}", claim.place);
    }
    assert_eq!(report["checked"].as_u64(), Some(claims.len() as u64));
    assert!(
        report["refuted"].as_array().unwrap().is_empty(),
        "claims refuted by a witness: {:#}",
        report["refuted"]
    );
    // The corpus has dead code to find: the example's `level > 100` inside `level < 50`.
    assert!(
        claims
            .iter()
            .any(|c| c.place.contains("inventory.py") && c.place.contains("reorder_level")),
        "the example's dead side is proven"
    );
}
