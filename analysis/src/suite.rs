//! The project's own test suite, run with real pytest inside a worker of the agent (the same
//! interpreter, kernel confinement, audit sandbox and memory limit as generated inputs: the suite
//! is user code too), through the agent's pytest plugin. The project's pytest configuration
//! applies (rootdir, `pyproject.toml`/`pytest.ini`/`setup.cfg`, `conftest.py`, fixtures,
//! parametrize, classes, `unittest.TestCase`, markers, `addopts`).
//!
//! Every test reports its outcome and duration; a passing test's run (branch events and lines,
//! as a generated input's) is mapped onto each explored function for the suite's coverage and
//! MC/DC, and feeds the [`Observations`]: program points, coverage profiles, call sequences on
//! objects, and the functions each test reached. Failing, erroring, skipped and xfailed tests
//! feed nothing.
//!
//! The run takes a worker of its own, dropped afterwards (pytest leaves its modules behind). A
//! test that kills its worker (`os._exit`, a crash) is reported as `crashed`, and the run
//! resumes in a new worker without the tests already run.

use crate::agent::protocol::{Event, Execution, Position, Status};
use crate::agent::{Pool, WorkerError};
use crate::config::Config;
use crate::explore::coverage::{ConditionIndex, FunctionUnderTest, observe};
use crate::model::mcdc::Independence;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

/// How long the worker may stay silent (collection of a large suite included).
const SILENCE: Duration = Duration::from_secs(180);
/// Branch events recorded per test.
pub const MAX_EVENTS_PER_TEST: u32 = 100_000;
/// Workers the run may start after its worker died.
const RESTARTS: usize = 5;

/// How a test ended, as pytest counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passed,
    Failed,
    /// Its setup or teardown failed.
    Error,
    Skipped,
    Xfailed,
    Xpassed,
    /// It killed the worker (not one of pytest's outcomes).
    Crashed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
            Outcome::Xfailed => "xfailed",
            Outcome::Xpassed => "xpassed",
            Outcome::Crashed => "crashed",
        }
    }
}

/// One test of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    /// pytest's node id (`tests/test_a.py::TestX::test_y[1-2]`).
    pub id: String,
    pub outcome: Outcome,
    pub duration_ms: u64,
    /// The end of pytest's report of a failure or error.
    pub message: Option<String>,
    /// The project functions (`module:qualname`) a passing test reached.
    pub reached: Vec<String>,
}

/// A file pytest could not collect.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct CollectionError {
    pub path: String,
    pub message: String,
    /// The module an import could not find, when that is why.
    #[serde(default)]
    pub missing: Option<String>,
}

/// The value of a variable at a program point.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum Variable {
    Bool(bool),
    /// A decimal integer (at most 30 digits).
    Int(String),
    /// `float.__repr__`.
    Float(String),
    /// A string of at most 40 characters, or a type's qualified name.
    Str(String),
}

/// One program point of a function (its entry or its exit): how many times passing tests
/// reached it and its distinct samples with the number of calls that gave each, each sample a
/// map from variable (`self._items`,
/// `len(self._items)`, `type(x)`, `x is None`, `return`, `type(exception)`) to value.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct ProgramPoint {
    pub calls: u64,
    pub samples: Vec<Sample>,
    /// The test (pytest's node id) each sample came from, in the same order.
    #[serde(default)]
    pub tests: Vec<Option<String>>,
    /// At an exit, the branch sides each sample's invocation took (its coverage profile), in
    /// the same order; empty at an entry.
    #[serde(default)]
    pub sides: Vec<Vec<ProfileSide>>,
    /// How many calls gave each sample, in the same order (missing: one).
    #[serde(default)]
    pub counts: Vec<u64>,
    /// Whether its samples stand for the calls read: no invariant is learned from a point
    /// that says otherwise (observations kept by builds that marked a full point so). The
    /// agent keeps a sample of a full point's calls and counts only those as read.
    #[serde(default)]
    pub complete: bool,
    /// How many of its calls were read (the agent reads a function's first thousand calls,
    /// then a falling share of them); missing: every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<u64>,
}

impl ProgramPoint {
    /// How many calls gave sample `i`.
    pub fn weight(&self, i: usize) -> u64 {
        self.counts.get(i).copied().unwrap_or(1)
    }

    /// How many calls gave the samples `indices`.
    pub fn weight_of(&self, indices: &[usize]) -> u64 {
        indices.iter().map(|&i| self.weight(i)).sum()
    }

    /// How many of its calls were read: its samples come from these.
    pub fn read_calls(&self) -> u64 {
        self.read.unwrap_or(self.calls)
    }
}

/// The variables of one program point in one invocation.
pub type Sample = BTreeMap<String, Variable>;

/// One invocation of a project function in a generated input's run, recorded as the suite's
/// are: its entry and exit samples and its coverage profile.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Invocation {
    /// `module:qualname`.
    pub function: String,
    pub entry: Sample,
    pub exit: Sample,
    pub sides: Vec<ProfileSide>,
}

/// A branch side of a profile: the position of the tested value (line, column, end line, end
/// column; columns absent on Python 3.9–3.10) and the side taken.
pub type ProfileSide = (u32, Option<u32>, u32, Option<u32>, bool);

/// A distinct coverage profile of a function's invocations: the branch sides it took, as
/// (position of the tested value, side), and how many invocations had it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Profile {
    pub sides: Vec<ProfileSide>,
    pub count: u64,
}

/// What passing tests show of one function.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct FunctionObservations {
    /// `module:qualname`.
    pub function: String,
    pub file: String,
    pub entry: ProgramPoint,
    pub exit: ProgramPoint,
    pub profiles: Vec<Profile>,
}

/// An argument of a constructor or method call in a call sequence.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Argument {
    None,
    Bool {
        value: bool,
    },
    Int {
        #[serde(default)]
        value: Option<String>,
    },
    Float {
        value: String,
    },
    /// A string: its value when at most 40 characters long, else its length.
    Str {
        #[serde(default)]
        value: Option<String>,
        #[serde(default)]
        len: Option<u64>,
    },
    List {
        len: u64,
    },
    Tuple {
        len: u64,
    },
    Dict {
        len: u64,
    },
    Set {
        len: u64,
    },
    Frozenset {
        len: u64,
    },
    Bytes {
        len: u64,
    },
    Bytearray {
        len: u64,
    },
    /// An object: of a project class the observer followed, how it was built up to the call
    /// it was passed to.
    Object {
        class: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        built: Option<Box<Built>>,
    },
}

/// How an object passed as an argument was built up to that call: its constructor's arguments
/// and the first methods called on it, with theirs.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct Built {
    pub constructor: Option<Vec<Argument>>,
    pub calls: Vec<MethodCall>,
}

/// A method called on an object of a project class.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct MethodCall {
    pub method: String,
    pub args: Vec<Argument>,
}

/// A distinct sequence of calls on objects of one project class (Palus's dynamic model): the
/// constructor's arguments (none when the constructor is not project code, as a dataclass's),
/// then the methods called on the object from outside it, in order.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct CallSequence {
    pub class: String,
    pub constructor: Option<Vec<Argument>>,
    pub calls: Vec<MethodCall>,
    pub count: u64,
}

/// What the suite's passing tests show.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
pub struct Observations {
    pub functions: Vec<FunctionObservations>,
    pub sequences: Vec<CallSequence>,
}

/// Distinct samples kept per program point (as the agent keeps them).
const SAMPLES: usize = 1000;

impl Observations {
    /// Takes in the observations of a run of part of the suite: `rerun` says which tests it
    /// ran again (by node id), whose earlier samples go. A function every test of which ran
    /// again (any function whose code changed: all the tests that reached it are stale) is
    /// replaced whole; for the others, samples are merged (at most the number the agent keeps,
    /// the newer first; beyond it the older are left out, with the calls they stood for) and
    /// profile and call-sequence counts added, so that after a partial run
    /// those counts are upper bounds.
    pub fn merge_rerun(&mut self, newer: Observations, rerun: impl Fn(&str) -> bool) {
        let only_rerun =
            |point: &ProgramPoint| point.tests.iter().all(|t| t.as_deref().is_some_and(&rerun));
        for f in newer.functions {
            let Some(old) = self.functions.iter_mut().find(|o| o.function == f.function) else {
                self.functions.push(f);
                continue;
            };
            if only_rerun(&old.entry) && only_rerun(&old.exit) {
                *old = f;
                continue;
            }
            for (mine, theirs) in [(&mut old.entry, f.entry), (&mut old.exit, f.exit)] {
                let kept: Vec<usize> = (0..mine.samples.len())
                    .filter(|&i| {
                        !mine
                            .tests
                            .get(i)
                            .and_then(|t| t.as_deref())
                            .is_some_and(&rerun)
                    })
                    .collect();
                let dropped = (0..mine.samples.len())
                    .filter(|i| !kept.contains(i))
                    .map(|i| mine.weight(i))
                    .sum::<u64>();
                let mut merged = ProgramPoint {
                    calls: mine.calls.saturating_sub(dropped) + theirs.calls,
                    read: Some(mine.read_calls().saturating_sub(dropped) + theirs.read_calls()),
                    complete: mine.complete && theirs.complete,
                    counts: (0..theirs.samples.len())
                        .map(|i| theirs.weight(i))
                        .collect(),
                    samples: theirs.samples,
                    tests: theirs.tests,
                    sides: theirs.sides,
                };
                for i in kept {
                    if merged.samples.len() >= SAMPLES {
                        // Not kept: its calls are no longer among those read (as the agent
                        // leaves out a sample past its share).
                        let read = merged.read_calls().saturating_sub(mine.weight(i));
                        merged.read = Some(read);
                        continue;
                    }
                    merged.samples.push(mine.samples[i].clone());
                    merged.tests.push(mine.tests.get(i).cloned().flatten());
                    merged.counts.push(mine.weight(i));
                    if let Some(s) = mine.sides.get(i) {
                        merged.sides.push(s.clone());
                    }
                }
                *mine = merged;
            }
            for p in f.profiles {
                match old.profiles.iter_mut().find(|o| o.sides == p.sides) {
                    Some(o) => o.count += p.count,
                    None => old.profiles.push(p),
                }
            }
        }
        for s in newer.sequences {
            let same = |o: &&mut CallSequence| {
                (&o.class, &o.constructor, &o.calls) == (&s.class, &s.constructor, &s.calls)
            };
            match self.sequences.iter_mut().find(same) {
                Some(o) => o.count += s.count,
                None => self.sequences.push(s),
            }
        }
    }
}

/// The suite's run.
#[derive(Default)]
pub struct SuiteRuns {
    pub tests: Vec<TestResult>,
    pub collection_errors: Vec<CollectionError>,
    pub observations: Observations,
    /// Why the suite could not run, or not completely.
    pub failure: Option<String>,
    /// The passing tests whose runs reached the bound on branch events
    /// ([`MAX_EVENTS_PER_TEST`], over the distinct frames of a test): what they cover is a
    /// lower bound.
    pub truncated: Vec<String>,
    /// The passing tests' runs: the test's id, the functions it reached (by [`Self::names`]),
    /// and its frames (by [`Self::frames`]).
    runs: Vec<(String, Vec<u32>, Vec<u32>)>,
    /// The distinct frames of the passing tests' runs: one frame's branch, loop and value
    /// events, as a run of their own (the suite's coverage and MC/DC are unions over frames,
    /// so a frame that repeats another's events adds nothing and is kept once), with its
    /// file canonicalised.
    frames: Vec<(PathBuf, Execution)>,
    frame_ids: FxHashMap<FrameKey, u32>,
    /// Function names (`module:qualname`), interned.
    names: Vec<String>,
    name_ids: FxHashMap<String, u32>,
    /// Reported file names, canonicalised once.
    canonical: FxHashMap<String, PathBuf>,
}

/// What tells one frame's events from another's: its file, and each event's kind, position,
/// outcome and link (the suite's runs have no symbolic expressions).
type FrameKey = (
    u32,
    Vec<(u8, Option<Position>, bool, Option<u32>, Option<Position>)>,
);

/// What the suite covers of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteCoverage {
    pub sides: BTreeSet<(usize, bool)>,
    pub independence: BTreeMap<usize, Independence>,
}

#[derive(Deserialize)]
struct WireTest {
    id: String,
    outcome: Outcome,
    #[serde(default)]
    duration_ms: u64,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    reached: Vec<String>,
    #[serde(default)]
    run: Option<Execution>,
}

#[derive(Deserialize)]
struct WireEnd {
    status: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    collection_errors: Vec<CollectionError>,
    #[serde(default)]
    observations: Observations,
}

fn cut(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The configured test directories and files that exist.
fn test_paths(config: &Config) -> Vec<PathBuf> {
    config
        .tests
        .iter()
        .filter(|p| p.exists())
        .cloned()
        .collect()
}

/// Test directories that hold no import root: none of their files is project code.
fn test_dirs(config: &Config) -> Vec<PathBuf> {
    config
        .tests
        .iter()
        .filter(|d| d.is_dir() && !config.src.iter().any(|s| s.starts_with(d)))
        .cloned()
        .collect()
}

/// Runs the project's suite under pytest. An empty run when no test directory exists.
pub fn run(pool: &Pool, config: &Config) -> SuiteRuns {
    run_selected(pool, config, None, None)
}

/// Why a run in the background ended early: `stop` said so.
pub const STOPPED: &str = "stopped to leave the processor to generation";

/// Runs part of the project's suite: `only` lists test files and pytest node ids (relative to
/// the project's root), all of the configured tests when `None`. The configured test
/// directories still say which files are tests rather than project code. `background`: a run
/// in the background, whose worker lowers its scheduling priority (`nice` 10) and which ends as
/// soon as the function says so (checked as each test starts and ends; `failure` is then
/// [`STOPPED`]).
pub fn run_selected(
    pool: &Pool,
    config: &Config,
    only: Option<&[String]>,
    background: Option<&dyn Fn() -> bool>,
) -> SuiteRuns {
    let mut out = SuiteRuns::default();
    let paths: Vec<PathBuf> = match only {
        Some(selected) => selected.iter().map(PathBuf::from).collect(),
        None => test_paths(config),
    };
    if paths.is_empty() {
        return out;
    }
    let mut deselect: Vec<String> = vec![];
    let mut collected = BTreeMap::new();
    for _ in 0..=RESTARTS {
        let mut args = config.pytest_args.clone();
        for id in &deselect {
            args.push("--deselect".into());
            args.push(id.clone());
        }
        let request = crate::agent::protocol::Request::Suite(crate::agent::protocol::SuiteRun {
            rootdir: config.root.clone(),
            paths: paths.clone(),
            test_dirs: test_dirs(config),
            args,
            timeout_ms: config.budget.test_timeout_ms,
            max_events: MAX_EVENTS_PER_TEST,
            nice: if background.is_some() { 10 } else { 0 },
        });
        let mut worker = match pool.dedicated() {
            Ok(w) => w,
            Err(e) => {
                out.failure = Some(format!("the suite could not start: {e}"));
                return out;
            }
        };
        let mut started: Option<String> = None;
        let silence = SILENCE.max(Duration::from_millis(config.budget.test_timeout_ms) * 3);
        let answer = worker.request_streaming(&request, silence, |message| {
            if background.is_some_and(|stop| stop()) {
                return std::ops::ControlFlow::Break(());
            }
            if let Some(id) = message.get("started").and_then(|s| s.as_str()) {
                started = Some(id.to_owned());
            } else if let Some(test) = message.get("test") {
                started = None;
                match serde_json::from_value::<WireTest>(test.clone()) {
                    Ok(t) => out.add(t),
                    Err(e) => {
                        out.failure = Some(format!("a malformed test report: {e}"));
                    }
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        match answer {
            Ok(end) => {
                worker.shutdown();
                match serde_json::from_value::<WireEnd>(end) {
                    Ok(end) if end.status == "completed" => {
                        for e in end.collection_errors {
                            collected.entry(e.path.clone()).or_insert(e);
                        }
                        out.observations = end.observations;
                        if let Some(error) = end.error {
                            out.failure = Some(format!("pytest stopped: {}", cut(&error, 2000)));
                        }
                    }
                    Ok(end) => {
                        out.failure = Some(end.error.unwrap_or(end.status));
                    }
                    Err(e) => out.failure = Some(format!("a malformed suite report: {e}")),
                }
                break;
            }
            Err(WorkerError::Stopped) => {
                out.failure = Some(STOPPED.to_owned());
                return out;
            }
            Err(e) => {
                let why = match &e {
                    WorkerError::Timeout(_) => {
                        "the worker was silent too long and was killed".to_owned()
                    }
                    other => other.to_string(),
                };
                let Some(id) = started else {
                    out.failure = Some(format!("the suite's worker stopped: {}", cut(&why, 2000)));
                    break;
                };
                out.tests.push(TestResult {
                    id: id.clone(),
                    outcome: Outcome::Crashed,
                    duration_ms: 0,
                    message: Some(cut(&why, 2000)),
                    reached: vec![],
                });
                deselect = out.tests.iter().map(|t| t.id.clone()).collect();
            }
        }
    }
    out.collection_errors = collected.into_values().collect();
    if out.failure.is_none() {
        out.failure = out.missing_dependency();
    }
    out
}

impl SuiteRuns {
    fn add(&mut self, t: WireTest) {
        if let Some(run) = t.run.filter(|_| t.outcome == Outcome::Passed)
            && run.status == Status::Returned
            && (!run.events.is_empty() || !run.lines.is_empty())
        {
            let mut reached: Vec<u32> = t.reached.iter().map(|n| self.name_id(n)).collect();
            reached.sort_unstable();
            if run.truncated {
                self.truncated.push(t.id.clone());
            }
            let frames = self.frames_of(run);
            self.runs.push((t.id.clone(), reached, frames));
        }
        self.tests.push(TestResult {
            id: t.id,
            outcome: t.outcome,
            duration_ms: t.duration_ms,
            message: t.message.map(|m| cut(&m, 2000)),
            reached: t.reached,
        });
    }

    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.name_ids.insert(name.to_owned(), id);
        id
    }

    /// The ids of a run's frames, each kept once over the whole suite.
    fn frames_of(&mut self, mut run: Execution) -> Vec<u32> {
        let mut groups: Vec<(usize, Vec<Event>)> = vec![];
        let mut group_of: FxHashMap<(usize, u64), usize> = FxHashMap::default();
        run.lines.clear();
        for event in std::mem::take(&mut run.events) {
            let (file, frame) = match &event {
                Event::Branch { f, frame, .. }
                | Event::Loop { f, frame, .. }
                | Event::Value { f, frame, .. } => (*f, *frame),
                _ => continue,
            };
            let g = *group_of.entry((file, frame)).or_insert_with(|| {
                groups.push((file, vec![]));
                groups.len() - 1
            });
            groups[g].1.push(event);
        }
        let mut ids = Vec::with_capacity(groups.len());
        for (file, mut events) in groups {
            let Some(name) = run.files.get(file) else {
                continue;
            };
            let file_id = self.name_id(name);
            let steps = events
                .iter_mut()
                .map(|e| match e {
                    Event::Branch {
                        f,
                        pos,
                        taken,
                        link,
                        ..
                    } => {
                        *f = 0;
                        (0, *pos, *taken, *link, None)
                    }
                    Event::Loop {
                        f,
                        pos,
                        taken,
                        stmt,
                        ..
                    } => {
                        *f = 0;
                        (1, *pos, *taken, None, *stmt)
                    }
                    Event::Value { f, pos, value, .. } => {
                        *f = 0;
                        (2, *pos, *value, None, None)
                    }
                    _ => (3, None, false, None, None),
                })
                .collect();
            let key = (file_id, steps);
            let id = match self.frame_ids.get(&key) {
                Some(&id) => id,
                None => {
                    let canonical = self
                        .canonical
                        .entry(name.clone())
                        .or_insert_with(|| std::fs::canonicalize(name).unwrap_or(name.into()))
                        .clone();
                    let frame = Execution {
                        files: vec![canonical.to_string_lossy().into_owned()],
                        events,
                        lines: BTreeMap::new(),
                        ..run.clone()
                    };
                    let id = self.frames.len() as u32;
                    self.frames.push((canonical, frame));
                    self.frame_ids.insert(key, id);
                    id
                }
            };
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The frames of `f`'s file among `frames`, as [`observe`] sees them.
    fn observe_frames<'a>(
        &'a self,
        f: &'a FunctionUnderTest,
        index: &'a ConditionIndex,
        frames: impl Iterator<Item = u32> + 'a,
    ) -> impl Iterator<Item = crate::explore::coverage::Observed> + 'a {
        frames
            .map(|id| &self.frames[id as usize])
            .filter(|(file, _)| *file == f.file)
            .map(|(_, run)| observe(f, index, run))
    }

    /// Whether a test's reached functions (by id) include `function`.
    fn reaches(&self, reached: &[u32], function: &str) -> bool {
        self.name_ids
            .get(function)
            .is_some_and(|id| reached.binary_search(id).is_ok())
    }

    /// One message for the tests whose runs were cut at the bound on events, or None.
    pub fn truncation(&self) -> Option<String> {
        let first = self.truncated.first()?;
        let n = self.truncated.len();
        Some(format!(
            "{n} passing test{s} took more than {MAX_EVENTS_PER_TEST} branch events in distinct frames and {were} recorded up to there (first: {first}): what {they} {cover} may be more than reported",
            s = if n == 1 { "" } else { "s" },
            were = if n == 1 { "was" } else { "were" },
            they = if n == 1 { "it" } else { "they" },
            cover = if n == 1 { "covers" } else { "cover" },
        ))
    }

    /// One message for the modules the suite's files could not import: the first missing
    /// one named, with how many files it stopped.
    pub fn missing_dependency(&self) -> Option<String> {
        let mut missing: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &self.collection_errors {
            if let Some(m) = &e.missing {
                *missing.entry(m.as_str()).or_default() += 1;
            }
        }
        if missing.is_empty() {
            return None;
        }
        let names: Vec<String> = missing
            .iter()
            .map(|(m, n)| format!("`{m}` ({n} file{})", if *n == 1 { "" } else { "s" }))
            .collect();
        Some(format!(
            "the project's tests import modules the interpreter does not have: {}; install them in the project's environment",
            names.join(", ")
        ))
    }

    /// Tests by outcome.
    pub fn counts(&self) -> BTreeMap<Outcome, usize> {
        let mut counts = BTreeMap::new();
        for t in &self.tests {
            *counts.entry(t.outcome).or_default() += 1;
        }
        counts
    }

    /// The branch sides of `f` (decision index, side) each passing test that reached it
    /// covered, by test id, in the order the tests ran.
    pub fn coverage_by_test(&self, f: &FunctionUnderTest) -> Vec<(&str, BTreeSet<(usize, bool)>)> {
        let index = ConditionIndex::new(f);
        let key = f.observed_name();
        self.runs
            .iter()
            .filter(|(_, reached, _)| self.reaches(reached, &key))
            .map(|(id, _, frames)| {
                let sides = self
                    .observe_frames(f, &index, frames.iter().copied())
                    .flat_map(|o| o.sides)
                    .collect();
                (id.as_str(), sides)
            })
            .collect()
    }

    /// What the suite's passing runs cover of `f`.
    pub fn coverage(&self, f: &FunctionUnderTest) -> SuiteCoverage {
        let index = ConditionIndex::new(f);
        let mut out = SuiteCoverage::default();
        let mut independence: FxHashMap<usize, Independence> = FxHashMap::default();
        let key = f.observed_name();
        let frames: BTreeSet<u32> = self
            .runs
            .iter()
            .filter(|(_, reached, _)| self.reaches(reached, &key))
            .flat_map(|(_, _, frames)| frames.iter().copied())
            .collect();
        for observed in self.observe_frames(f, &index, frames.into_iter()) {
            out.sides.extend(observed.sides.iter().copied());
            for (d, shown) in observed.independence {
                independence.entry(d).or_default().union(shown);
            }
        }
        out.independence = independence.into_iter().collect();
        out
    }

    /// The tests that reached `function` (`module:qualname`): those to run again when it
    /// changes.
    pub fn tests_reaching(&self, function: &str) -> Vec<&str> {
        self.tests
            .iter()
            .filter(|t| t.reached.iter().any(|r| r == function))
            .map(|t| t.id.as_str())
            .collect()
    }
}

mod places;

pub use places::{likely_tests, none_found};

#[cfg(test)]
mod tests;
