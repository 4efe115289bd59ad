//! Suspicious assertions (ZoomIn): generated tests whose asserted value breaks what the project's
//! own passing tests established at the same program point, in an execution comparable to one
//! of theirs, ranked for inspection. Owns the check of generated runs against the invariants,
//! the coverage-profile filter, the relation of violations to assertions, the ranking and the
//! `LCN300` diagnostics, and the check the search runs on inputs near the suite's ([`Watch`]);
//! the agent records, `invariants` infers, the search picks inputs, the CLI and the server
//! report.
//!
//! Provenance tracked: the value a generated test asserts is the return value (or the exception)
//! of the target's outermost invocation in its run, so a violation relates to one of the test's
//! assertions when it is of an invariant of the target's exit point over what that assertion
//! reads: the whole value (`result == …`), its type's name, or one of its fields
//! (`result.months == …` for `return.months`, `len(return.months)`). Violations at the entry (an
//! unusual input) and over parameters only are counted but relate to no assertion (an unusual
//! input ranks its test after those of ordinary ones); invariants of other functions the run
//! reached are not checked.

use crate::agent::protocol::ExecuteRequest;
use crate::config::Suspicious;
use crate::diagnostic::evidence::{
    BrokenInvariant, EmittedAssertion, InvariantSupport, Measure, SuspiciousAssertion,
};
use crate::diagnostic::{Code, Diagnostic, Evidence, Related};
use crate::emit::{AssertionSite, Reads};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::{Exploration, Outcome};
use crate::explore::search::AnomalyCheck;
use crate::guidance::declared::Declared;
use crate::invariants::{self, Invariant, Number, Point, Property, Relation, Support};
use crate::suite::{
    FunctionObservations, Invocation, Observations, ProfileSide, ProgramPoint, Sample,
};
use lacuna_grammar::TextRange;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How the check is tuned.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Jaccard similarity a violation's profile needs with one of the suite's.
    pub similarity: f64,
    pub support: Support,
    /// Behaviours the user accepted: (`module:qualname`, invariant as written), not checked.
    pub accepted: BTreeSet<(String, String)>,
    /// Learn conditional invariants (those of the invocations taking one side) too.
    pub conditional: bool,
    /// Rank by uniqueness; else the generated tests' order.
    pub rank: bool,
    /// Inputs near the suite's and the kept ones each exploration runs, once its coverage
    /// search is done, for runs that break an invariant ([`Watch`]); 0 runs none.
    pub neighbours: usize,
}

impl Settings {
    pub fn of(config: &Suspicious) -> Settings {
        Settings {
            similarity: config.similarity,
            support: Support {
                min_calls: config.min_support,
                ..Support::default()
            },
            accepted: BTreeSet::new(),
            conditional: config.conditional,
            rank: config.rank,
            neighbours: config.neighbours,
        }
    }

    /// With the behaviours accepted in the guidance module at `path` (none when unreadable).
    pub fn accepting(mut self, path: &Path) -> Settings {
        if let Ok(text) = std::fs::read_to_string(path) {
            self.accepted = Declared::read(&text).accepted();
        }
        self
    }
}

/// One generated test's run, observed again with its program points recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct ObservedTest {
    /// The target, `module:qualname`.
    pub function: String,
    /// The index of the generated test in its exploration.
    pub test: usize,
    pub invocations: Vec<Invocation>,
    /// What its emitted assertions read of the returned value, in order: a violation counts
    /// for the test when it reaches one of them.
    pub reads: Vec<Reads>,
}

/// Runs again the generated tests of `exploration` that a file holds with assertions (by
/// index, with what their assertions read), recording their program points.
pub fn observe(
    pool: &crate::agent::Pool,
    target: &FunctionUnderTest,
    exploration: &Exploration,
    asserted: &BTreeMap<usize, Vec<Reads>>,
) -> Vec<ObservedTest> {
    let function = target.observed_name();
    let mut out = vec![];
    for (i, t) in exploration.tests.iter().enumerate() {
        let Some(reads) = asserted.get(&i) else {
            continue;
        };
        if matches!(t.outcome, Outcome::Failed(_)) || t.side_effect.is_some() {
            continue;
        }
        if let Ok(invocations) = pool.observe(&t.request) {
            out.push(ObservedTest {
                function: function.clone(),
                test: i,
                invocations,
                reads: reads.clone(),
            });
        }
    }
    out
}

/// A generated run that broke an invariant.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    pub invariant: Invariant,
    /// The values of its variables in the run: `items = 0, return = 1`.
    pub value: String,
    /// The run's parameters at the entry: `items = 0, per_page = 1`.
    pub input: String,
    /// The best Jaccard similarity of the run's profile with one of the suite's.
    pub similarity: f64,
    /// 1 / the number of generated tests that broke the same invariant.
    pub uniqueness: f64,
}

/// A generated assertion some violation reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct Suspicion {
    /// `module:qualname`.
    pub function: String,
    pub test: usize,
    /// 1 = the most suspicious of the run.
    pub rank: usize,
    /// The sum of the uniqueness of its violations.
    pub score: f64,
    /// Most unique first.
    pub violations: Vec<Violation>,
    /// The test's input broke no invariant of the entry: an input the suite would take as
    /// ordinary (ranked before the others).
    pub ordinary: bool,
}

/// The suspicious assertions of a run, with what was counted on the way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ranking {
    pub assertions: Vec<Suspicion>,
    /// Generated tests checked.
    pub checked: usize,
    /// Invariants learned, over every function the suite reached that was checked.
    pub invariants: usize,
    /// Violations before and after the similarity filter.
    pub violations: usize,
    pub comparable: usize,
    /// Generated runs whose input had a type the suite never passed at the function's entry
    /// (an entry invariant `type(x) is …` broken): their exit violations are not counted.
    pub ill_typed: usize,
    /// Exit violations left out because the same run's input broke an entry invariant of the
    /// same form (`len(return) > 0` after `len(items) > 0`).
    pub carried: usize,
}

/// Jaccard similarity of two profiles (two empty ones are the same).
pub fn jaccard(a: &BTreeSet<ProfileSide>, b: &BTreeSet<ProfileSide>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// The parameters of an entry sample as `name = value`, leaving out derived variables.
fn input_of(entry: &crate::suite::Sample) -> String {
    entry
        .iter()
        .filter(|(k, _)| !k.contains(['(', ' ', '.']))
        .map(|(k, v)| format!("{k} = {}", invariants::render(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The invariants the suite's observations `seen` of a function establish, as `settings` asks.
fn learn(seen: &FunctionObservations, settings: &Settings) -> Vec<Invariant> {
    let mut found = invariants::infer_function(&seen.entry, &seen.exit, &settings.support);
    if !settings.conditional {
        found.retain(|i| i.condition.is_none());
    }
    found
}

/// What one generated run broke of the invariants of its target.
struct RunCheck<'a> {
    /// The best Jaccard similarity of the run's profile with one of the suite's.
    similarity: f64,
    /// The input had a type the suite never passed at the entry: its exit is not checked.
    ill_typed: bool,
    /// Exit invariants broken in the form the run's input already broke at the entry (an
    /// empty result of an empty input, where the suite passed none): left out of `broken`.
    carried: usize,
    /// The invariants broken (those the user accepted left out), each with whether the run
    /// is comparable to the suite's (its profile similar enough to one of theirs).
    broken: Vec<(&'a Invariant, bool)>,
}

/// Checks the outermost invocation `run` of `function` against `invariants`, learned from the
/// suite's observations `seen` of it.
fn check_run<'a>(
    seen: &FunctionObservations,
    invariants: &'a [Invariant],
    run: &Invocation,
    settings: &Settings,
    function: &str,
) -> RunCheck<'a> {
    let profile: BTreeSet<ProfileSide> = run.sides.iter().copied().collect();
    let similarity = seen
        .profiles
        .iter()
        .map(|p| jaccard(&profile, &p.sides.iter().copied().collect()))
        .fold(0.0f64, f64::max);
    // What the suite's exits showed holds for the inputs the suite passed: an input of
    // another type (`build_tzinfo(0, …)` where every call of the suite passed a text)
    // is outside what they speak for.
    let ill_typed = invariants.iter().any(|i| {
        i.point == Point::Entry
            && i.property.is_type()
            && i.applies(&run.sides)
            && i.property.holds(&run.entry) == Some(false)
    });
    let broken = invariants
        .iter()
        .filter(|i| !(ill_typed && i.point == Point::Exit))
        .filter(|i| {
            !settings
                .accepted
                .contains(&(function.to_owned(), i.property.to_string()))
                && i.applies(&run.sides)
        })
        .filter(|i| {
            let sample = match i.point {
                Point::Entry => &run.entry,
                Point::Exit => &run.exit,
            };
            i.property.holds(sample) == Some(false)
        })
        .map(|i| (i, similarity >= settings.similarity))
        .collect::<Vec<_>>();
    // What the suite's exits showed, they showed for inputs like its own: a result unlike
    // theirs in the way the input is already unlike theirs (`len(return) > 0` broken by the
    // empty result of an empty list, where every call of the suite passed a non-empty one and
    // `len(items) > 0` is broken too) is the input's doing, not an anomaly of the code. An
    // exit invariant about one value is left out when an entry invariant of one of its forms
    // (`Property::forms`: the same kind over the same measure) is broken by the same run. A
    // relation between an input and the result counts when that input is the unusual one
    // (`items >= return` for `pages(0, 1) == 1`, where the suite never passed 0 items: how the
    // result follows `items` is what it checks); it is left out when another input, not in
    // the relation, is unusual in the measure the relation takes of the result
    // (`len(return) > len(separator)` broken by the empty result of an empty `string`, where
    // every call of the suite passed a non-empty one: the relation held because `string` was
    // never empty, and says nothing of an empty one).
    let entry_broken = || broken.iter().filter(|(i, _)| i.point == Point::Entry);
    let unusual: BTreeSet<String> = entry_broken()
        .flat_map(|(i, _)| i.property.forms())
        .collect();
    let unusual_inputs: BTreeSet<&str> = entry_broken()
        .filter(|(i, _)| !i.property.forms().is_empty())
        .flat_map(|(i, _)| i.property.variables())
        .collect();
    let carried_over = |i: &Invariant| {
        if i.point != Point::Exit {
            return false;
        }
        if i.property.forms().iter().any(|f| unusual.contains(f))
            || unlike_supporting_inputs(i, &seen.exit, &run.exit)
        {
            return true;
        }
        let Property::Compare { .. } = i.property else {
            return false;
        };
        let vars = i.property.variables();
        vars.iter().filter(|v| v.contains("return")).any(|result| {
            let m = invariants::measure(result);
            unusual_inputs
                .iter()
                .any(|input| !vars.contains(input) && invariants::measure(input) == m)
        })
    };
    let carried = broken.iter().filter(|(i, _)| carried_over(i)).count();
    let broken = broken
        .into_iter()
        .filter(|(i, _)| !carried_over(i))
        .collect();
    RunCheck {
        similarity,
        ill_typed,
        carried,
        broken,
    }
}

/// The exit samples of the calls that support `i`: those that took its branch side and kept it.
fn supporting<'a>(i: &Invariant, exit: &'a ProgramPoint) -> Vec<&'a Sample> {
    (0..exit.samples.len())
        .filter(|&j| i.applies(exit.sides.get(j).map_or(&[][..], |s| &s[..])))
        .map(|j| &exit.samples[j])
        .filter(|s| i.property.holds(s) == Some(true))
        .collect()
}

/// Whether `p`, a property of one input, held in every one of `supporting` that has its
/// variable (at least one does) and the run's sample breaks it.
fn broken_only_by_the_run(p: &Property, supporting: &[&Sample], run: &Sample) -> bool {
    let var = p.variables()[0];
    p.holds(run) == Some(false)
        && supporting.iter().any(|s| s.contains_key(var))
        && supporting.iter().all(|s| p.holds(s) != Some(false))
}

/// The inputs of a run (variables of its exit sample that are not the result) measured as
/// `result` is (`self.years`, `other.years` for `return.years`).
fn inputs_measured_as<'a>(result: &str, run: &'a Sample) -> impl Iterator<Item = &'a str> {
    let measure = invariants::measure(result);
    run.keys()
        .map(String::as_str)
        .filter(|v| !v.contains("return") && *v != "type(exception)")
        .filter(move |v| invariants::measure(v) == measure)
}

/// Whether the input of a run that breaks the exit invariant `i` is unlike the inputs of the
/// calls that support `i` (`supporting`), as the entry rule asks of every call: for a property
/// of one value of the result, a parameter measured the same way (`self.years` for
/// `return.years > 0`) kept the same property in every such call (`self.years > 0`) and the
/// run's does not (the sum of two durations of zero years, where every call of your tests that
/// returned a duration added some); for a relation, another input measured as its result side
/// kept a sign (`other.years > 0`) the run's does not. The entry's invariants speak of every
/// call; this speaks of the calls `i` was learned from (those that took its branch side, those
/// that returned a value with that field).
fn unlike_supporting_inputs(i: &Invariant, exit: &ProgramPoint, run: &Sample) -> bool {
    let vars = i.property.variables();
    let supporting = supporting(i, exit);
    vars.iter().filter(|v| v.contains("return")).any(|result| {
        inputs_measured_as(result, run)
            .filter(|input| !vars.contains(input))
            .any(|input| match i.property.over(input) {
                Some(p) => broken_only_by_the_run(&p, &supporting, run),
                None => [Relation::Gt, Relation::Ge, Relation::Lt, Relation::Le]
                    .into_iter()
                    .map(|relation| Property::Bound {
                        var: input.to_owned(),
                        relation,
                        bound: Number::Int(0),
                    })
                    .any(|p| broken_only_by_the_run(&p, &supporting, run)),
            })
    })
}

/// By function (`module:qualname`), then invariant (its key): how many runs near the suite's
/// inputs that were not kept as tests broke it (`Neighbours::breaking` of its exploration).
pub type NearRuns = BTreeMap<String, BTreeMap<String, u32>>;

/// The runs near the suite's of each explored function, for [`rank`].
pub fn near_runs<'a>(
    explored: impl IntoIterator<Item = (&'a FunctionUnderTest, &'a Exploration)>,
) -> NearRuns {
    explored
        .into_iter()
        .filter(|(_, e)| !e.neighbours.breaking.is_empty())
        .map(|(f, e)| (f.observed_name(), e.neighbours.breaking.clone()))
        .collect()
}

/// Checks every observed test against the invariants of its target, filters by profile
/// similarity, relates violations to the assertions and ranks them. A violation's uniqueness
/// counts the generated tests that show it and the runs near the suite's (`near`) that did.
pub fn rank(
    observations: &Observations,
    observed: &[ObservedTest],
    near: &NearRuns,
    settings: &Settings,
) -> Ranking {
    let by_function: BTreeMap<&str, &FunctionObservations> = observations
        .functions
        .iter()
        .map(|f| (f.function.as_str(), f))
        .collect();
    let mut ranking = Ranking::default();
    let mut learned: BTreeMap<&str, Vec<Invariant>> = BTreeMap::new();
    // (function, test) → violations related to its assertion, before uniqueness.
    let mut related_to: BTreeMap<(&str, usize), Vec<Violation>> = BTreeMap::new();
    // The tests whose input broke an invariant of the entry.
    let mut unusual: BTreeSet<(&str, usize)> = BTreeSet::new();
    // (function, invariant key) → generated tests breaking it (comparable runs only).
    let mut breaking: BTreeMap<(&str, String), BTreeSet<usize>> = BTreeMap::new();
    for t in observed {
        let Some(seen) = by_function.get(t.function.as_str()) else {
            continue;
        };
        let invariants = learned.entry(t.function.as_str()).or_insert_with(|| {
            let found = learn(seen, settings);
            ranking.invariants += found.len();
            found
        });
        // The outermost invocation of the target returns last.
        let Some(run) = t
            .invocations
            .iter()
            .rev()
            .find(|i| i.function == t.function)
        else {
            continue;
        };
        ranking.checked += 1;
        let check = check_run(seen, invariants, run, settings, &t.function);
        ranking.ill_typed += usize::from(check.ill_typed);
        ranking.carried += check.carried;
        ranking.violations += check.broken.len();
        if check.broken.iter().any(|(i, _)| i.point == Point::Entry) {
            unusual.insert((t.function.as_str(), t.test));
        }
        for &(invariant, comparable) in &check.broken {
            if !comparable {
                continue;
            }
            ranking.comparable += 1;
            breaking
                .entry((t.function.as_str(), invariant.key()))
                .or_default()
                .insert(t.test);
            if invariant.point == Point::Exit && related(invariant, &t.reads).is_some() {
                let sample = &run.exit;
                related_to
                    .entry((t.function.as_str(), t.test))
                    .or_default()
                    .push(Violation {
                        invariant: invariant.clone(),
                        value: invariant.property.values_in(sample),
                        input: input_of(&run.entry),
                        similarity: check.similarity,
                        uniqueness: 0.0,
                    });
            }
        }
    }
    let mut assertions: Vec<Suspicion> = related_to
        .into_iter()
        .map(|((function, test), mut violations)| {
            for v in &mut violations {
                let key = v.invariant.key();
                let near = near
                    .get(function)
                    .and_then(|runs| runs.get(&key))
                    .copied()
                    .unwrap_or(0) as usize;
                let n = breaking.get(&(function, key)).map_or(1, |s| s.len()) + near;
                v.uniqueness = 1.0 / n as f64;
            }
            violations.sort_by(|a, b| {
                b.uniqueness
                    .total_cmp(&a.uniqueness)
                    .then(b.invariant.confidence.total_cmp(&a.invariant.confidence))
                    .then_with(|| a.invariant.key().cmp(&b.invariant.key()))
            });
            Suspicion {
                function: function.to_owned(),
                test,
                rank: 0,
                score: violations.iter().map(|v| v.uniqueness).sum(),
                violations,
                ordinary: !unusual.contains(&(function, test)),
            }
        })
        .collect();
    // A total order: ordinary inputs first (an unusual result of an input the suite would take
    // as ordinary is what is worth inspecting first; one of an input unlike all of theirs
    // may be the input's doing), then score, then the most unique of its violations (one no
    // other test shows points at one behaviour; several shared ones at invariants the code
    // often breaks), then more violations, then the confidence of the invariant most
    // uniquely broken, then names.
    let confidence = |s: &Suspicion| s.violations.first().map_or(0.0, |v| v.invariant.confidence);
    let most_unique = |s: &Suspicion| s.violations.first().map_or(0.0, |v| v.uniqueness);
    if !settings.rank {
        // Plain anomaly detection: every violation, in the order of the generated tests.
        assertions.sort_by(|a, b| a.function.cmp(&b.function).then(a.test.cmp(&b.test)));
    } else {
        assertions.sort_by(|a, b| {
            b.ordinary
                .cmp(&a.ordinary)
                .then(b.score.total_cmp(&a.score))
                .then(most_unique(b).total_cmp(&most_unique(a)))
                .then(b.violations.len().cmp(&a.violations.len()))
                .then(confidence(b).total_cmp(&confidence(a)))
                .then_with(|| a.function.cmp(&b.function))
                .then(a.test.cmp(&b.test))
        });
    }
    for (i, a) in assertions.iter_mut().enumerate() {
        a.rank = i + 1;
    }
    ranking.assertions = assertions;
    ranking
}

/// The emitted test of a suspicious assertion, when it was written to a file.
#[derive(Clone, Debug, PartialEq)]
pub struct EmittedAt {
    pub site: AssertionSite,
    /// The test file, when the tests were written.
    pub file: Option<PathBuf>,
}

/// The field of the returned value a variable of an exit point reads: `months` for
/// `return.months`, `len(return.months)` or `return.months.days`; none for the value itself.
fn returned_field(variable: &str) -> Option<&str> {
    let (_, rest) = variable.split_once("return.")?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Whether an assertion reading `reads` of the returned value depends on `variable` of the
/// exit point (dynamic data flow, as the emitter writes assertions): the value itself reaches
/// every variable of the value; its type's name only `type(return)`; a field what is read
/// through that field. Parameters at the exit reach no assertion.
fn reaches(reads: &Reads, variable: &str) -> bool {
    let of_value = variable.contains("return") || variable.contains("exception");
    match reads {
        Reads::Value => of_value,
        Reads::Type => variable == "type(return)" || variable == "type(exception)",
        Reads::Field(field) => returned_field(variable) == Some(field.as_str()),
    }
}

/// The first of a test's assertions (in order) a violation of `invariant` reaches.
fn related<'a>(invariant: &Invariant, reads: &'a [Reads]) -> Option<&'a Reads> {
    let variables = invariant.property.variables();
    reads
        .iter()
        .find(|r| variables.iter().any(|v| reaches(r, v)))
}

/// The assertion of a test (in order) a suspicion relates to: the first its most unique
/// violation reaches.
pub fn site_of<'a>(s: &Suspicion, sites: &'a [EmittedAt]) -> Option<&'a EmittedAt> {
    let reads: Vec<Reads> = sites.iter().map(|at| at.site.reads.clone()).collect();
    let first = related(&s.violations.first()?.invariant, &reads)?;
    sites.iter().find(|at| at.site.reads == *first)
}

/// A branch side of `f` as a reader sees it: `` `b == 0` was true``. Positions are CPython's
/// (1-based lines, UTF-8 columns).
fn condition_text(f: &FunctionUnderTest, side: ProfileSide) -> Option<String> {
    let (line, col, end_line, end_col, taken) = side;
    let offset = |line: u32, col: u32| {
        Some(f.lines.line_range(line.checked_sub(1)?)?.start as usize + col as usize)
    };
    let start = offset(line, col?)?;
    let end = offset(end_line, end_col?)?;
    let text = f.text.get(start..end)?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(format!(
        "`{text}` was {}",
        if taken { "true" } else { "false" }
    ))
}

/// Where a test of the suite is defined, from its node id (`tests/test_a.py::TestX::test_y[1]`
/// under `root`): the file and the range of the function's name.
fn test_location(root: &Path, id: &str) -> Option<(PathBuf, TextRange)> {
    let (file, rest) = id.split_once("::")?;
    let file = root.join(file);
    let name = rest.rsplit("::").next()?.split('[').next()?;
    let text = std::fs::read_to_string(&file).ok()?;
    let at = text.find(&format!("def {name}("))? + 4;
    Some((file, TextRange::new(at as u32, (at + name.len()) as u32)))
}

/// The `LCN300` diagnostic of a suspicion, on the `def` of the function whose invariant broke;
/// `root` is where the suite's node ids start.
pub fn diagnostic(
    s: &Suspicion,
    f: &FunctionUnderTest,
    at: &EmittedAt,
    root: &Path,
) -> Option<Diagnostic> {
    let top = s.violations.first()?;
    let inv = &top.invariant;
    let range = f.syntax.name_range.absolute(f.anchor);
    let condition = inv.condition.and_then(|side| condition_text(f, side));
    let message = format!(
        "generated test `{}` asserts {}, but in {} call{} from your tests{} `{}` held (here {}): is this result intended?",
        at.site.name,
        at.site.claim(),
        inv.samples,
        if inv.samples == 1 { "" } else { "s" },
        condition
            .as_deref()
            .map(|c| format!(" where {c}"))
            .unwrap_or_default(),
        inv.property,
        top.value,
    );
    let mut d = Diagnostic::new(Code::SuspiciousAssertion, range, message);
    d.function = Some(f.qualname.clone());
    if let Some(file) = &at.file {
        d.related.push(Related {
            path: Some(file.clone()),
            range: TextRange::new(at.site.range.0, at.site.range.1),
            message: format!("the generated assertion (rank {})", s.rank),
        });
    }
    if let Some(test) = inv.tests.first()
        && let Some((file, name)) = test_location(root, test)
    {
        let more = inv.tests.len() - 1;
        d.related.push(Related {
            path: Some(file),
            range: name,
            message: match more {
                0 => format!("`{}` holds in your test `{test}`", inv.property),
                n => format!(
                    "`{}` holds in your test `{test}` and {n} more",
                    inv.property
                ),
            },
        });
    }
    d.evidence = Some(Evidence::Suspicious(SuspiciousAssertion {
        rank: s.rank,
        score: Measure(s.score),
        ordinary: s.ordinary,
        function: s.function.clone(),
        invariant: inv.property.to_string(),
        point: inv.point.as_str().to_owned(),
        condition,
        value: top.value.clone(),
        input: top.input.clone(),
        similarity: Measure(top.similarity),
        support: InvariantSupport {
            calls: inv.calls,
            samples: inv.samples,
            confidence: Measure(inv.confidence),
            tests: inv.tests.clone(),
            seen: inv.seen.clone(),
        },
        violations: s
            .violations
            .iter()
            .map(|v| BrokenInvariant {
                invariant: v.invariant.property.to_string(),
                point: v.invariant.point.as_str().to_owned(),
                value: v.value.clone(),
                uniqueness: Measure(v.uniqueness),
            })
            .collect(),
        test: EmittedAssertion {
            file: at.file.as_ref().map(|p| p.display().to_string()),
            name: at.site.name.clone(),
            line: at.site.line,
            assertion: at.site.assertion.clone(),
            source: at.site.source.clone(),
            imports: at.site.imports.clone(),
        },
    }));
    Some(d)
}

/// The check the search runs on inputs near the project's own tests' once its coverage search
/// is done ([`AnomalyCheck`]): the invariants of every function the suite reached, learned
/// once per run.
#[derive(Debug)]
pub struct Watch {
    settings: Settings,
    /// By function (`module:qualname`): what the suite showed of it and its invariants; only
    /// functions with an invariant of their exit.
    functions: BTreeMap<String, (FunctionObservations, Vec<Invariant>)>,
}

impl Watch {
    pub fn new(observations: &Observations, settings: Settings) -> Watch {
        let functions = if settings.neighbours == 0 {
            BTreeMap::new()
        } else {
            observations
                .functions
                .iter()
                .filter_map(|seen| {
                    let invariants = learn(seen, &settings);
                    invariants
                        .iter()
                        .any(|i| i.point == Point::Exit)
                        .then(|| (seen.function.clone(), (seen.clone(), invariants)))
                })
                .collect()
        };
        Watch {
            settings,
            functions,
        }
    }

    /// The check of `target`'s runs through `pool`, when the suite established something of
    /// its exit.
    pub fn of<'a>(
        &'a self,
        pool: &'a crate::agent::Pool,
        target: &FunctionUnderTest,
    ) -> Option<Watched<'a>> {
        let (function, (seen, invariants)) =
            self.functions.get_key_value(&target.observed_name())?;
        Some(Watched {
            settings: &self.settings,
            pool,
            function,
            seen,
            invariants,
        })
    }
}

/// [`Watch`] for one function.
pub struct Watched<'a> {
    settings: &'a Settings,
    pool: &'a crate::agent::Pool,
    function: &'a str,
    seen: &'a FunctionObservations,
    invariants: &'a [Invariant],
}

impl AnomalyCheck for Watched<'_> {
    fn runs(&self) -> usize {
        self.settings.neighbours
    }

    /// The invariants of the exit that the run breaks and that an assertion of the returned
    /// value would read: what would make the test it becomes a suspicious assertion. `None`
    /// for a run not comparable to the suite's (its profile unlike theirs), and for an input
    /// of a type the suite never passed or breaking another invariant of the entry: an input
    /// unlike every one the suite passed (`price = -668` where all its prices were positive)
    /// speaks of itself, not of the code — what is worth inspecting is an input the tests
    /// would take as ordinary and a result they would not.
    fn breaks(&self, request: &ExecuteRequest) -> Option<Vec<String>> {
        let invocations = self.pool.observe(request).ok()?;
        let run = invocations
            .iter()
            .rev()
            .find(|i| i.function == self.function)?;
        let check = check_run(
            self.seen,
            self.invariants,
            run,
            self.settings,
            self.function,
        );
        if check.ill_typed
            || check.similarity < self.settings.similarity
            || check.broken.iter().any(|(i, _)| i.point == Point::Entry)
        {
            return None;
        }
        Some(
            check
                .broken
                .iter()
                .filter(|(i, _)| {
                    i.point == Point::Exit
                        && related(i, std::slice::from_ref(&Reads::Value)).is_some()
                })
                .map(|(i, _)| i.key())
                .collect(),
        )
    }
}

/// Whether the suite's passing tests establish any invariant of `function` (`module:qualname`):
/// without one, its generated tests need not run again.
pub fn has_invariants(observations: &Observations, function: &str, settings: &Settings) -> bool {
    observations
        .functions
        .iter()
        .find(|f| f.function == function)
        .is_some_and(|f| {
            !invariants::infer_function(&f.entry, &f.exit, &settings.support).is_empty()
        })
}

/// The `LCN300` diagnostics of one explored function on its own (the editor's view: ranks and
/// uniqueness among its generated tests, the tests as `lacuna check --emit-tests` would name
/// them, no file written).
pub fn function_diagnostics(
    pool: &crate::agent::Pool,
    observations: &Observations,
    target: &FunctionUnderTest,
    exploration: &Exploration,
    settings: &Settings,
    root: &Path,
) -> Vec<Diagnostic> {
    let key = target.observed_name();
    if exploration.failure.is_some() || !has_invariants(observations, &key, settings) {
        return vec![];
    }
    let tests = exploration.tests.iter().collect();
    let Some(file) = crate::emit::module_tests(
        &target.module,
        &[(target.qualname.clone(), tests)],
        &mut vec![],
    ) else {
        return vec![];
    };
    let mut sites: BTreeMap<usize, Vec<EmittedAt>> = BTreeMap::new();
    for site in file.assertions() {
        sites
            .entry(site.origin.1)
            .or_default()
            .push(EmittedAt { site, file: None });
    }
    let asserted: BTreeMap<usize, Vec<Reads>> = sites
        .iter()
        .map(|(&i, sites)| (i, sites.iter().map(|at| at.site.reads.clone()).collect()))
        .collect();
    let observed = observe(pool, target, exploration, &asserted);
    let ranking = rank(
        observations,
        &observed,
        &near_runs([(target, exploration)]),
        settings,
    );
    ranking
        .assertions
        .iter()
        .filter_map(|s| diagnostic(s, target, site_of(s, sites.get(&s.test)?)?, root))
        .collect()
}

#[cfg(test)]
mod tests;
