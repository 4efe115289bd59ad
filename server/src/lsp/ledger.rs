//! What the project's own suite showed, kept between runs and sessions: per test its outcome,
//! the functions it reached with their fingerprints and the branch sides it covered of each;
//! per test file the digest it ran at. Decides which tests a change makes stale (test impact:
//! a changed test file runs its tests again, a changed function the tests that reached it) and
//! answers what the suite covers of a function. Pure data: no threads, no database, no clock.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Branch sides of a function a test covered: (decision ID, side).
pub type Sides = BTreeSet<(String, bool)>;

/// One test as it ran last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRecord {
    /// pytest's outcome (`passed`, `failed`, `error`, `skipped`, `xfailed`, `xpassed`,
    /// `crashed`).
    pub outcome: String,
    pub duration_ms: u64,
    /// The project functions (`module:qualname`) a passing test reached, with their
    /// fingerprints when it ran (none for a function the server does not model).
    pub reached: BTreeMap<String, Option<u64>>,
    /// Of each function it reached, the branch sides it covered: (decision ID, side).
    pub covered: BTreeMap<String, BTreeSet<(String, bool)>>,
    /// For a test that did not pass (which reports no functions reached): the digest of every
    /// function's fingerprint when it ran; it runs again when any of them changes.
    pub project: u64,
}

impl TestRecord {
    pub fn passed(&self) -> bool {
        self.outcome == "passed"
    }
}

/// The state of the project a run was planned against: the digest of every test file, the
/// fingerprint of every function, and their digest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamp {
    /// Test files, relative to the root with `/` separators.
    pub files: BTreeMap<String, u64>,
    /// `module:qualname` → fingerprint.
    pub fingerprints: FxHashMap<String, u64>,
    pub project: u64,
}

impl Stamp {
    pub fn new(files: BTreeMap<String, u64>, fingerprints: FxHashMap<String, u64>) -> Stamp {
        let mut all: Vec<(&String, &u64)> = fingerprints.iter().collect();
        all.sort();
        let text = format!("{all:?}");
        Stamp {
            files,
            fingerprints,
            project: lacuna_grammar::ids::fnv1a(text.as_bytes()),
        }
    }
}

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The whole suite, as configured (the first run).
    All,
    /// Test files whose digest changed (all their tests) and tests (node ids) a changed
    /// function makes stale.
    Only {
        files: Vec<String>,
        tests: Vec<String>,
    },
}

impl Selection {
    /// Whether the test `id` runs again in this selection.
    pub fn reruns(&self, id: &str) -> bool {
        match self {
            Selection::All => true,
            Selection::Only { files, tests } => {
                files.iter().any(|f| f == file_of(id)) || tests.iter().any(|t| t == id)
            }
        }
    }

    /// pytest's arguments: `None` for the configured paths.
    pub fn arguments(&self) -> Option<Vec<String>> {
        match self {
            Selection::All => None,
            Selection::Only { files, tests } => {
                Some(files.iter().chain(tests.iter()).cloned().collect())
            }
        }
    }

    /// For the log: what runs and why.
    pub fn describe(&self) -> String {
        match self {
            Selection::All => "all of them (no results from an earlier run)".into(),
            Selection::Only { files, tests } => {
                let mut parts = vec![];
                if !files.is_empty() {
                    parts.push(format!(
                        "the tests of {} ({})",
                        plural(files.len(), "new or changed test file"),
                        files.join(", ")
                    ));
                }
                if !tests.is_empty() {
                    parts.push(format!(
                        "{} reaching changed code ({})",
                        plural(tests.len(), "test"),
                        tests.join(", ")
                    ));
                }
                parts.join(" and ")
            }
        }
    }
}

pub fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The test file of a node id (`tests/test_a.py::TestX::test_y[1]` → `tests/test_a.py`).
fn file_of(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Test file → its digest when its tests last ran.
    pub files: BTreeMap<String, u64>,
    /// Node id → how the test ran last.
    pub tests: BTreeMap<String, TestRecord>,
    /// Whether the whole suite has run once (an empty suite included).
    pub complete: bool,
}

/// What the suite shows of one function at its current fingerprint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionSuite<'a> {
    /// The passing tests that reached it, with the sides each covered, in node-id order.
    pub tests: Vec<(&'a str, &'a BTreeSet<(String, bool)>)>,
}

impl FunctionSuite<'_> {
    /// Every side some test covered.
    pub fn covered(&self) -> BTreeSet<&(String, bool)> {
        self.tests.iter().flat_map(|(_, s)| s.iter()).collect()
    }

    /// The first test that covered `side` of `decision`.
    pub fn covering(&self, decision: &str, side: bool) -> Option<&str> {
        self.tests
            .iter()
            .find(|(_, s)| s.contains(&(decision.to_owned(), side)))
            .map(|(t, _)| *t)
    }

    /// The test that comes closest to `side` of `decision` without covering it: one that took
    /// the decision's other side if any did, else one that reached the function; the one that
    /// covered most of the function's sides among them (the first in node-id order on a tie).
    /// Returns the test and whether it reached the decision.
    pub fn closest(&self, decision: &str, side: bool) -> Option<(&str, bool)> {
        let other = (decision.to_owned(), !side);
        let at_decision = most_sides(self.tests.iter().filter(|(_, s)| s.contains(&other)));
        if let Some(t) = at_decision {
            return Some((t, true));
        }
        most_sides(self.tests.iter()).map(|t| (t, false))
    }
}

/// The test that covered most sides, the first on a tie.
fn most_sides<'a, 'b>(
    tests: impl DoubleEndedIterator<Item = &'b (&'a str, &'a BTreeSet<(String, bool)>)>,
) -> Option<&'a str>
where
    'a: 'b,
{
    tests.rev().max_by_key(|(_, s)| s.len()).map(|(t, _)| *t)
}

impl Ledger {
    /// What to run for the project as `now` stamps it; forgets the tests of test files that
    /// are gone. `None` when nothing is stale.
    pub fn plan(&mut self, now: &Stamp) -> Option<Selection> {
        if !self.complete {
            return Some(Selection::All);
        }
        self.files.retain(|f, _| now.files.contains_key(f));
        self.tests.retain(|id, _| {
            let file = file_of(id);
            // A node id pytest gives relative to another rootdir: kept, impact by function.
            now.files.contains_key(file) || !file.ends_with(".py")
        });
        let files: Vec<String> = now
            .files
            .iter()
            .filter(|(f, d)| self.files.get(*f) != Some(*d))
            .map(|(f, _)| f.clone())
            .collect();
        let tests: Vec<String> = self
            .tests
            .iter()
            .filter(|(id, _)| !files.iter().any(|f| f == file_of(id)))
            .filter(|(_, t)| self.stale(t, now))
            .map(|(id, _)| id.clone())
            .collect();
        (!files.is_empty() || !tests.is_empty()).then_some(Selection::Only { files, tests })
    }

    fn stale(&self, t: &TestRecord, now: &Stamp) -> bool {
        if !t.passed() {
            return t.project != now.project;
        }
        t.reached.iter().any(|(function, fingerprint)| {
            fingerprint.is_some() && now.fingerprints.get(function) != fingerprint.as_ref()
        })
    }

    /// Takes in a run of `selection` planned against `stamp`. `ran`: the run reached pytest
    /// (a run that could not start changes nothing, so that it is planned again). A test the
    /// selection named that the run did not report has its file run whole next time.
    pub fn merge(
        &mut self,
        selection: &Selection,
        stamp: &Stamp,
        records: Vec<(String, TestRecord)>,
        ran: bool,
    ) {
        if !ran {
            return;
        }
        match selection {
            Selection::All => {
                self.files = stamp.files.clone();
                self.tests.clear();
                self.complete = true;
            }
            Selection::Only { files, tests } => {
                for f in files {
                    self.tests.retain(|id, _| file_of(id) != f);
                    if let Some(d) = stamp.files.get(f) {
                        self.files.insert(f.clone(), *d);
                    }
                }
                for id in tests {
                    if self.tests.remove(id).is_some() && !records.iter().any(|(r, _)| r == id) {
                        self.files.remove(file_of(id));
                    }
                }
            }
        }
        self.tests.extend(records);
    }

    /// What the passing tests show of `function` (`module:qualname`) at `fingerprint`.
    pub fn function(&self, function: &str, fingerprint: u64) -> FunctionSuite<'_> {
        let tests = self
            .tests
            .iter()
            .filter(|(_, t)| t.passed() && t.reached.get(function) == Some(&Some(fingerprint)))
            .map(|(id, t)| (id.as_str(), t.covered.get(function).unwrap_or(&EMPTY)))
            .collect();
        FunctionSuite { tests }
    }

    /// Tests by outcome.
    pub fn counts(&self) -> BTreeMap<&str, usize> {
        let mut counts = BTreeMap::new();
        for t in self.tests.values() {
            *counts.entry(t.outcome.as_str()).or_default() += 1;
        }
        counts
    }
}

static EMPTY: BTreeSet<(String, bool)> = BTreeSet::new();

#[cfg(test)]
mod tests {
    use super::*;

    fn passed(reached: &[(&str, u64)], covered: &[(&str, &str, bool)]) -> TestRecord {
        let mut c: BTreeMap<String, BTreeSet<(String, bool)>> = BTreeMap::new();
        for (f, d, s) in covered {
            c.entry((*f).into()).or_default().insert(((*d).into(), *s));
        }
        TestRecord {
            outcome: "passed".into(),
            duration_ms: 1,
            reached: reached
                .iter()
                .map(|(f, p)| ((*f).into(), Some(*p)))
                .collect(),
            covered: c,
            project: 0,
        }
    }

    fn stamp(files: &[(&str, u64)], fingerprints: &[(&str, u64)]) -> Stamp {
        Stamp::new(
            files.iter().map(|(f, d)| ((*f).into(), *d)).collect(),
            fingerprints
                .iter()
                .map(|(f, p)| ((*f).into(), *p))
                .collect(),
        )
    }

    fn ran_all(now: &Stamp) -> Ledger {
        let mut l = Ledger::default();
        assert_eq!(l.plan(now), Some(Selection::All));
        l.merge(
            &Selection::All,
            now,
            vec![
                ("tests/test_a.py::test_f".into(), passed(&[("m:f", 1)], &[])),
                ("tests/test_a.py::test_g".into(), passed(&[("m:g", 2)], &[])),
                (
                    "tests/test_b.py::test_fg".into(),
                    passed(&[("m:f", 1), ("m:g", 2)], &[]),
                ),
            ],
            true,
        );
        l
    }

    #[test]
    fn nothing_changed_runs_nothing_and_a_changed_function_runs_the_tests_that_reached_it() {
        let now = stamp(
            &[("tests/test_a.py", 10), ("tests/test_b.py", 20)],
            &[("m:f", 1), ("m:g", 2)],
        );
        let mut l = ran_all(&now);
        assert_eq!(l.plan(&now), None);
        let edited = stamp(
            &[("tests/test_a.py", 10), ("tests/test_b.py", 20)],
            &[("m:f", 7), ("m:g", 2)],
        );
        assert_eq!(
            l.plan(&edited),
            Some(Selection::Only {
                files: vec![],
                tests: vec![
                    "tests/test_a.py::test_f".into(),
                    "tests/test_b.py::test_fg".into()
                ]
            })
        );
    }

    #[test]
    fn a_changed_test_file_runs_its_own_tests_and_a_removed_one_is_forgotten() {
        let now = stamp(
            &[("tests/test_a.py", 10), ("tests/test_b.py", 20)],
            &[("m:f", 1), ("m:g", 2)],
        );
        let mut l = ran_all(&now);
        let edited = stamp(&[("tests/test_a.py", 11)], &[("m:f", 1), ("m:g", 2)]);
        let plan = l.plan(&edited).expect("a plan");
        assert_eq!(
            plan,
            Selection::Only {
                files: vec!["tests/test_a.py".into()],
                tests: vec![]
            }
        );
        assert!(!l.tests.keys().any(|t| t.starts_with("tests/test_b.py")));
        l.merge(
            &plan,
            &edited,
            vec![("tests/test_a.py::test_h".into(), passed(&[("m:f", 1)], &[]))],
            true,
        );
        assert_eq!(
            l.tests.keys().collect::<Vec<_>>(),
            ["tests/test_a.py::test_h"]
        );
        assert_eq!(l.plan(&edited), None);
    }

    #[test]
    fn a_test_the_run_did_not_report_has_its_file_run_whole_next_time() {
        let now = stamp(
            &[("tests/test_a.py", 10), ("tests/test_b.py", 20)],
            &[("m:f", 1), ("m:g", 2)],
        );
        let mut l = ran_all(&now);
        let edited = stamp(
            &[("tests/test_a.py", 10), ("tests/test_b.py", 20)],
            &[("m:f", 1), ("m:g", 3)],
        );
        let plan = l.plan(&edited).expect("a plan");
        l.merge(
            &plan,
            &edited,
            vec![("tests/test_a.py::test_g".into(), passed(&[("m:g", 3)], &[]))],
            true,
        );
        assert_eq!(
            l.plan(&edited),
            Some(Selection::Only {
                files: vec!["tests/test_b.py".into()],
                tests: vec![]
            })
        );
    }

    #[test]
    fn a_failing_test_runs_again_when_any_function_changes() {
        let now = stamp(&[("tests/test_a.py", 10)], &[("m:f", 1)]);
        let mut l = Ledger::default();
        let failed = TestRecord {
            outcome: "failed".into(),
            duration_ms: 1,
            reached: BTreeMap::new(),
            covered: BTreeMap::new(),
            project: now.project,
        };
        l.merge(
            &Selection::All,
            &now,
            vec![("tests/test_a.py::t".into(), failed)],
            true,
        );
        assert_eq!(l.plan(&now), None);
        assert!(
            l.plan(&stamp(&[("tests/test_a.py", 10)], &[("m:f", 2)]))
                .is_some()
        );
    }

    #[test]
    fn the_closest_test_took_the_other_side_else_covered_most_of_the_function() {
        let a = passed(&[("m:f", 1)], &[("m:f", "d1", true)]);
        let b = passed(
            &[("m:f", 1)],
            &[
                ("m:f", "d1", true),
                ("m:f", "d2", false),
                ("m:f", "d2", true),
            ],
        );
        let c = passed(&[("m:f", 1)], &[("m:f", "d3", false)]);
        let mut l = Ledger::default();
        let now = stamp(&[], &[("m:f", 1)]);
        l.merge(
            &Selection::All,
            &now,
            vec![("t::a".into(), a), ("t::b".into(), b), ("t::c".into(), c)],
            true,
        );
        let f = l.function("m:f", 1);
        assert_eq!(f.covering("d1", true), Some("t::a"));
        assert_eq!(f.closest("d1", false), Some(("t::b", true)));
        assert_eq!(f.closest("d3", true), Some(("t::c", true)));
        assert_eq!(f.closest("d4", true), Some(("t::b", false)));
        assert_eq!(f.covered().len(), 4);
        assert!(l.function("m:f", 2).tests.is_empty(), "another fingerprint");
    }
}
