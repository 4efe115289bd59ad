//! The project's own suite in the background: one thread runs what the owner selects (the whole
//! suite the first time, then only the tests a change made stale) under real pytest in a worker
//! of its own pool, never the generation thread's, and sends back per test its outcome, the
//! functions it reached and the branch sides it covered of each. It never touches the database:
//! the functions to map the runs onto come with the request.

use super::ledger::{Selection, Sides, Stamp, TestRecord};
use super::outbox::Outbox;
use lacuna_analysis::config::Config;
use lacuna_analysis::explore::coverage::FunctionUnderTest;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};

/// A run the owner asks for, with the project's state it was planned against.
pub struct Run {
    pub config: Arc<Config>,
    pub selection: Selection,
    pub stamp: Stamp,
    /// The project's functions, to map each test's run onto.
    pub functions: Vec<FunctionUnderTest>,
}

/// What a run showed.
pub struct Ran {
    pub selection: Selection,
    pub stamp: Stamp,
    pub records: Vec<(String, TestRecord)>,
    /// The run reached pytest.
    pub ran: bool,
    /// Generation started during the run, which ended early.
    pub stopped: bool,
    /// Why the suite could not run, or not completely.
    pub failure: Option<String>,
    /// Test files pytest could not collect.
    pub collection_errors: Vec<String>,
    /// What the run's passing tests showed (program points, profiles, call sequences).
    pub observations: lacuna_analysis::suite::Observations,
}

/// Starts the thread; each run's result goes to `deliver`, and the thread ends when it answers
/// false (the owner is gone). `stop`: set by the owner when generation starts during a run,
/// which then ends at the next test (its results are dropped: it is planned again once
/// generation is idle); the owner clears it before each run.
pub fn spawn(
    deliver: impl Fn(Ran) -> bool + Send + 'static,
    outbox: Outbox,
    stop: Arc<AtomicBool>,
) -> Sender<Run> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("lacuna-suite".into())
        .spawn(move || serve(rx, deliver, outbox, stop))
        .expect("cannot start the suite's thread");
    tx
}

fn serve(rx: Receiver<Run>, deliver: impl Fn(Ran) -> bool, outbox: Outbox, stop: Arc<AtomicBool>) {
    while let Ok(run) = rx.recv() {
        if !deliver(execute(run, &outbox, &stop)) {
            return;
        }
    }
}

fn execute(run: Run, outbox: &Outbox, stop: &AtomicBool) -> Ran {
    let mut out = Ran {
        selection: run.selection.clone(),
        stamp: run.stamp.clone(),
        records: vec![],
        ran: false,
        stopped: false,
        failure: None,
        collection_errors: vec![],
        observations: Default::default(),
    };
    if run.selection == Selection::All && !run.config.tests.iter().any(|p| p.exists()) {
        // No tests where the configuration says they are: an empty suite, run.
        outbox.log(format!(
            "Lacuna: your tests: {}",
            lacuna_analysis::suite::none_found(&run.config)
        ));
        out.ran = true;
        return out;
    }
    // The sandbox is widened only by the user: the user-level configuration's grants. A pool of
    // its own, dropped after the run: its workers import the code as it is now.
    let mut granted = (*run.config).clone();
    granted.grants = lacuna_analysis::config::Grants::user_level().unwrap_or_default();
    let pool = match lacuna_analysis::generation::start_pool(&granted) {
        Ok((pool, _)) => pool,
        Err(e) => {
            out.failure = Some(format!("cannot start the Python agent: {e}"));
            return out;
        }
    };
    let arguments = run.selection.arguments();
    let stopped = || stop.load(Ordering::SeqCst);
    let runs =
        lacuna_analysis::suite::run_selected(&pool, &granted, arguments.as_deref(), Some(&stopped));
    drop(pool);
    if runs.failure.as_deref() == Some(lacuna_analysis::suite::STOPPED) {
        out.stopped = true;
        return out;
    }
    if let Some(failure) = &runs.failure {
        outbox.log(format!("Lacuna: your tests: {failure}"));
    } else if run.selection == Selection::All
        && runs.tests.is_empty()
        && runs.collection_errors.is_empty()
    {
        outbox.log(format!(
            "Lacuna: your tests: {}",
            lacuna_analysis::suite::none_found(&granted)
        ));
    }
    // Sides covered, by test then function.
    let mut covered: BTreeMap<&str, BTreeMap<String, Sides>> = BTreeMap::new();
    for f in &run.functions {
        let key = f.observed_name();
        for (test, sides) in runs.coverage_by_test(f) {
            let sides = sides
                .into_iter()
                .filter_map(|(d, side)| {
                    let id = f.syntax.decisions.get(d)?.id.as_str().to_owned();
                    Some((id, side))
                })
                .collect();
            covered.entry(test).or_default().insert(key.clone(), sides);
        }
    }
    out.ran =
        !runs.tests.is_empty() || !runs.collection_errors.is_empty() || runs.failure.is_none();
    out.records = runs
        .tests
        .iter()
        .map(|t| {
            let record = TestRecord {
                outcome: t.outcome.as_str().to_owned(),
                duration_ms: t.duration_ms,
                reached: t
                    .reached
                    .iter()
                    .map(|f| (f.clone(), run.stamp.fingerprints.get(f).copied()))
                    .collect(),
                covered: covered.remove(t.id.as_str()).unwrap_or_default(),
                project: run.stamp.project,
            };
            (t.id.clone(), record)
        })
        .collect();
    out.collection_errors = runs
        .collection_errors
        .iter()
        .map(|e| e.path.clone())
        .collect();
    out.failure = runs.failure;
    out.observations = runs.observations;
    out
}

/// The project's test files (`test_*.py`, `*_test.py` under the configured test directories,
/// and test files named directly), relative to the root, each with the digest of its text and
/// of the `conftest.py` files above it: what a test's results depend on besides project code.
pub fn test_files(config: &Config) -> BTreeMap<String, u64> {
    let mut found = BTreeSet::new();
    for path in &config.tests {
        if path.is_file() {
            found.insert(path.clone());
        } else if path.is_dir() {
            walk(path, 0, &mut found);
        }
    }
    let mut out = BTreeMap::new();
    for file in found {
        let Ok(relative) = file.strip_prefix(&config.root) else {
            continue;
        };
        let Ok(text) = std::fs::read(&file) else {
            continue;
        };
        let mut digest = lacuna_grammar::ids::fnv1a(&text);
        for dir in file.ancestors().skip(1) {
            if let Ok(conftest) = std::fs::read(dir.join("conftest.py")) {
                digest ^= lacuna_grammar::ids::fnv1a(&conftest).rotate_left(1);
                digest = digest.wrapping_mul(0x100_0000_01b3);
            }
            if dir == config.root {
                break;
            }
        }
        let name = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.insert(name, digest);
    }
    out
}

fn walk(dir: &std::path::Path, depth: usize, found: &mut BTreeSet<std::path::PathBuf>) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !name.starts_with('.') && name != "__pycache__" && name != "node_modules" {
                walk(&entry.path(), depth + 1, found);
            }
        } else if kind.is_file()
            && name.ends_with(".py")
            && (name.starts_with("test_") || name.ends_with("_test.py"))
        {
            found.insert(entry.path());
        }
    }
}
