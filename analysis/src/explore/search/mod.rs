//! The search: dynamic symbolic execution of one function. Inputs run in the agent; each run's
//! path condition is negated step by step (uncovered branch sides and unseen condition values
//! first; negations aimed at nothing open wait until no other input is queued) and solved;
//! models become new inputs. Object state the solver asks for but no input
//! can set directly (`self._items.__len__ >= 5`) is built through the methods that write the
//! field; choices the solver cannot see (enum members, `None`, the type of an unannotated
//! parameter) are enumerated. The search stops when everything is covered, the budget (time,
//! executions) is spent, nothing new was found for a share of its time (a stall), or every
//! run failed the same way before the first decision — and says which ([`Stop`]) and, for
//! every side it missed, what it learned.
//!
//! This module owns the loop and its phases (solver targets, then mutations), the frontier's
//! priorities and de-duplication, and the budget; `seeding`, `request`, `record`, `flip` and
//! `objects` own the rest, and `watch` the inputs kept for what they break once coverage is
//! done. Inputs run through an [`Executor`] (the agent's pool); the search
//! knows nothing of the guidance module's staleness rule or of the server.

mod flip;
mod objects;
mod ordinary;
mod record;
mod request;
mod seeding;
mod watch;

pub use watch::AnomalyCheck;

use super::coverage::{ConditionIndex, FunctionUnderTest};
use super::exploration::{Attempt, Exploration, FailingAlike, Stop};
use super::inputs::Candidate;
use super::rng::Rng;
use super::seeds::literals;
use super::shape::Shape;
use super::signature::Signature;
use super::solver::Solver;
use crate::agent::protocol::{ExecuteRequest, Execution};
use crate::agent::{Pool, WorkerError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Budget {
    /// The function's time: its own (`function-time-ms`), or its share of the run's budget.
    pub time: Duration,
    /// The share of the run's budget given to the function, when below its own time budget
    /// (`time` is what is left of it once the function is described).
    pub run_share: Option<Duration>,
    /// The search stops after this share of `time` without a new branch side or MC/DC
    /// obligation (`stall-share`); `None` never.
    pub stall_share: Option<f64>,
    pub executions: u32,
    pub execution_timeout_ms: u64,
    pub loop_bound: u32,
    pub solver_timeout_ms: u64,
    /// Memory the solver may hold, all explorations together ([`Solver::limit_memory`]).
    pub solver_memory_mb: u64,
    /// Once branches are covered, keep going for unmet MC/DC obligations (and prefer flips
    /// that would show one).
    pub target_obligations: bool,
    /// A reproducible run: the search is bounded by counts, not by the clock — the stall by
    /// runs without a new side (`stall_share` of `executions`), each solver check by z3's
    /// work (`solver_rlimit`) — and `time` is only a safety bound, so that the same code and
    /// configuration give the same exploration on a loaded machine as on an idle one.
    pub reproducible: bool,
    /// z3's resource limit per check in a reproducible run.
    pub solver_rlimit: u64,
}

/// What runs an input: the agent's pool, or, in the search's own unit tests, a script.
pub trait Executor: Sync {
    /// Runs one request; an error means nothing could run (no worker could start).
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError>;
}

impl Executor for Pool {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        Pool::execute(self, request)
    }
}

impl Executor for crate::agent::Pinned<'_> {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        crate::agent::Pinned::execute(self, request)
    }
}

struct Search<'a> {
    f: &'a FunctionUnderTest,
    index: ConditionIndex,
    executor: &'a dyn Executor,
    solver: Solver,
    signature: &'a Signature,
    budget: &'a Budget,
    strings: Vec<String>,
    numbers: Vec<i64>,
    start: Instant,
    /// In a reproducible run, what the function's time bound counts besides the clock: its
    /// executions that reached their limit ([`Search::spent`]).
    charged: Duration,
    out: Exploration,
    seen_candidates: FxHashSet<String>,
    /// Flips tried, by (hash of the path before the flipped step, hash of the negation).
    tried_flips: FxHashSet<(u64, u64)>,
    frontier: Vec<(u32, Candidate)>,
    /// Runs whose flips aimed at nothing open wait here until the frontier is empty.
    deferred: std::collections::VecDeque<flip::Deferred>,
    all_conditions: FxHashSet<(usize, u16, bool)>,
    /// The most calls of each mocked callee (by its index in the guidance) seen in one run:
    /// how many return values the next requests carry.
    mock_calls: FxHashMap<usize, u32>,
    /// The same for callable inputs, by path, within the loop bound.
    callable_calls: BTreeMap<String, usize>,
    /// Inputs already given another type to turn a type test: (path, kind).
    retyped: FxHashSet<(String, String)>,
    /// The choices of constructors' arguments whose every alternative has been tried for an
    /// input that could not be built ([`Search::repair`]).
    repaired: FxHashSet<String>,
    /// Mutations' randomness, seeded with the function's name.
    rng: Rng,
    /// Sides covered plus obligations shown, and the executions when that last grew (or
    /// when the current phase began).
    progress: Progress,
    /// Which phase the search is in.
    phase: Phase,
    /// Hashes of the paths taken so far, and the latest inputs that took a new one.
    paths: FxHashSet<u64>,
    corpus: Vec<Candidate>,
    /// Whether the inputs with a writer method called on an object input were tried.
    sequences_tried: bool,
    /// The calls of callable inputs tried raising (`inputs::call_raises` choices, with the
    /// exception chosen).
    raising_tried: FxHashSet<(String, usize)>,
    /// The exceptions a callable input's call is tried raising (`inputs::raisable`).
    raisable: Vec<String>,
    /// The lines of the function's body the kept tests execute.
    lines: FxHashSet<u32>,
    /// The line each `except` clause's block starts its code at (`FunctionSyntax::handlers`):
    /// entered when a run executes it.
    handler_lines: Vec<u32>,
    /// Whether the suite's arguments were queued (once, when the frontier first ran dry).
    observed_tried: bool,
    /// When the search last showed something new (or began).
    grew_at: Instant,
    /// The runs in a row that raised the same exception (of this type) at the same line
    /// before any decision, while no run has reached one.
    failing: Option<(String, FailingAlike)>,
    /// What says which inputs near the project's own tests' to keep once coverage is done.
    watch: Option<&'a dyn AnomalyCheck>,
}

/// What the search has shown, and when that last grew (in executions).
#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    made: usize,
    grew: u32,
}

/// The search's phases: the solver's targets (and choices crossed with the inputs found), then
/// mutations. Each ends after `STALE` executions in a row that show nothing new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Solver,
    /// The solver's targets stopped paying: what is left of them is dropped.
    SolverStale,
    Mutations,
}

/// Executions in a row without a side covered or an obligation shown that end a phase.
const STALE: u32 = 200;

/// Runs that all raise the same exception at the same line before the function's first
/// decision (and no run ever reached one) after which the search stops: the inputs it builds
/// do not get past that line.
pub const FAILING_ALIKE: u32 = 20;

/// Explores one function within the budget.
///
/// Each exploration has a z3 context of its own: models depend on the terms a context has
/// seen, so sharing the thread's context would make a function's exploration depend on which
/// functions were explored before it on the same thread.
pub fn explore(
    f: &FunctionUnderTest,
    signature: &Signature,
    executor: &dyn Executor,
    budget: &Budget,
) -> Exploration {
    explore_watching(f, signature, executor, budget, None)
}

/// [`explore`], then, with a `watch`, inputs near the project's own tests' kept for what their
/// runs break (see `watch`).
pub fn explore_watching(
    f: &FunctionUnderTest,
    signature: &Signature,
    executor: &dyn Executor,
    budget: &Budget,
    watch: Option<&dyn AnomalyCheck>,
) -> Exploration {
    // Every event of the search (`LACUNA_LOG=lacuna_analysis::explore=debug`) under the
    // function it explores.
    let _exploring =
        tracing::debug_span!("explore", function = %format_args!("{}.{}", f.module, f.qualname))
            .entered();
    z3::with_z3_config(&z3::Config::new(), || {
        let mut search = Search::new(f, signature, executor, budget);
        search.watch = watch;
        explore_in_context(search)
    })
}

fn explore_in_context(mut search: Search<'_>) -> Exploration {
    search.run();
    search.out.elapsed = search.start.elapsed();
    tracing::debug!(
        executions = search.out.executions,
        covered = search.out.covered.len(),
        stop = ?search.out.stop,
        elapsed_ms = search.out.elapsed.as_millis() as u64,
        "explored"
    );
    search.out.solver_queries = search.solver.stats.queries;
    search.out.unread_annotations = search.signature.unread.clone();
    search.out
}

impl<'a> Search<'a> {
    fn new(
        f: &'a FunctionUnderTest,
        signature: &'a Signature,
        executor: &'a dyn Executor,
        budget: &'a Budget,
    ) -> Search<'a> {
        // The function's own literals first, then those of the module constants it reads.
        let (strings, numbers) = literals(f);
        Solver::limit_memory(budget.solver_memory_mb);
        let start = Instant::now();
        let mut solver = Solver::new(budget.solver_timeout_ms).with_domains(signature.domains());
        // No query outlives the function's time (one in the process z3 is stopped in could
        // otherwise run its grace past it); in a reproducible run z3's work bounds each one.
        if budget.reproducible {
            solver = solver.counting(budget.solver_rlimit);
        } else if let Some(end) = start.checked_add(budget.time) {
            solver = solver.until(end);
        }
        let mut search = Search {
            f,
            index: ConditionIndex::new(f),
            executor,
            solver,
            signature,
            budget,
            strings,
            numbers,
            start,
            charged: Duration::ZERO,
            out: Exploration::default(),
            seen_candidates: FxHashSet::default(),
            tried_flips: FxHashSet::default(),
            frontier: vec![],
            deferred: Default::default(),
            all_conditions: FxHashSet::default(),
            mock_calls: FxHashMap::default(),
            callable_calls: BTreeMap::new(),
            retyped: FxHashSet::default(),
            repaired: FxHashSet::default(),
            rng: Rng::for_function(&format!("{}.{}", f.module, f.qualname)),
            progress: Progress::default(),
            phase: Phase::Solver,
            paths: FxHashSet::default(),
            corpus: vec![],
            sequences_tried: false,
            raising_tried: FxHashSet::default(),
            raisable: crate::explore::inputs::raisable(&f.module, &f.seeds.handled),
            observed_tried: false,
            lines: FxHashSet::default(),
            handler_lines: f
                .syntax
                .handlers
                .iter()
                .map(|h| f.lines.line_col(h.first.absolute(f.anchor).start).line + 1)
                .collect(),
            grew_at: Instant::now(),
            failing: None,
            watch: None,
        };
        if let Some(r) = &signature.receiver {
            search
                .out
                .object_classes
                .insert("self".into(), r.class.clone());
        }
        for (name, shape) in &signature.params {
            if let Shape::Object(o) = shape {
                search
                    .out
                    .object_classes
                    .insert(name.clone(), o.class.clone());
            }
        }
        // Only the writers of the classes its object inputs have: explanations read no
        // others, and the exploration is what the store keeps for every function.
        search.out.writers = signature
            .writers
            .methods
            .iter()
            .filter(|((class, _), _)| search.out.object_classes.values().any(|c| c == class))
            .map(|(key, methods)| (key.clone(), methods.clone()))
            .collect();
        search
    }
}

/// The priorities of the first inputs, on the frontier's scale ([`Search::push`]).
mod seed_priority {
    /// The defaults: run first, as a side not covered yet.
    pub const DEFAULTS: u32 = 3;
    /// Objects built as the project's own tests build them: right after, level with the
    /// repairs that take over while no input is valid, and older than those.
    pub const AS_THE_SUITE_BUILDS: u32 = 2;
    /// The other first inputs: when nothing more promising is left.
    pub const OTHERS: u32 = 0;
}

impl Search<'_> {
    fn total_sides(&self) -> usize {
        self.f
            .syntax
            .decisions
            .iter()
            .filter(|d| d.expr.is_some())
            .count()
            * 2
    }

    /// How many `except` clauses a kept test enters.
    pub(super) fn handlers_entered(&self) -> usize {
        self.handler_lines
            .iter()
            .filter(|l| self.lines.contains(l))
            .count()
    }

    /// Whether a run's lines enter an `except` clause no kept test enters.
    fn enters_a_new_handler(&self, observed: &crate::explore::coverage::Observed) -> bool {
        self.handler_lines
            .iter()
            .any(|l| observed.lines.contains(l) && !self.lines.contains(l))
    }

    /// The time the function's bound (`budget.time`) counts: the clock's. In a reproducible
    /// run, its executions that reached their limit, each at what such a run may take on its
    /// worker ([`crate::config::REPRODUCIBLE_SAFETY`] times the limit; so a function reaches
    /// the limit about as often as a timed run's budget allows) — the same on every run, where the
    /// clock is what waiting inputs and the machine's load make it (`Connection._send` stopped
    /// after 15 to 20 runs from one run to the next) — or the clock's divided by
    /// `REPRODUCIBLE_SAFETY`, the guard against what counts do not bound.
    fn spent(&self) -> Duration {
        let elapsed = self.start.elapsed();
        if self.budget.reproducible {
            self.charged
                .max(elapsed / crate::config::REPRODUCIBLE_SAFETY)
        } else {
            elapsed
        }
    }

    /// Counts a run that ran: toward the executions, and, in a reproducible run, toward the
    /// function's time bound when it reached its limit.
    fn count_run(&mut self, run: &crate::agent::protocol::Execution) {
        self.out.executions += 1;
        if self.budget.reproducible && run.status == crate::agent::protocol::Status::Timeout {
            self.charged += Duration::from_millis(self.budget.execution_timeout_ms)
                * crate::config::REPRODUCIBLE_SAFETY;
        }
    }

    /// Why the search must stop now, if it must.
    fn limit(&mut self) -> Option<Stop> {
        if self.out.covered.len() >= self.total_sides()
            && (!self.budget.target_obligations || self.mcdc_complete())
            && self.handlers_entered() == self.handler_lines.len()
            && (self.total_sides() > 0 || !self.out.tests.is_empty())
        {
            return Some(Stop::Exhausted);
        }
        // (A function without decisions has reached none however it runs: its kept tests
        // show that some inputs are valid.)
        if let Some((_, f)) = &self.failing
            && f.runs >= FAILING_ALIKE
            && self.out.reached.is_empty()
            && self.out.tests.is_empty()
        {
            return Some(Stop::FailingAlike(f.clone()));
        }
        if self.out.executions >= self.budget.executions {
            return Some(Stop::Executions);
        }
        if self.spent() >= self.budget.time {
            return Some(match self.budget.run_share {
                Some(share) => Stop::RunShare(share),
                None => Stop::Time,
            });
        }
        let now = self.progress_made();
        if now != self.progress.made {
            tracing::debug!(
                made = now,
                executions = self.out.executions,
                elapsed_ms = self.start.elapsed().as_millis() as u64,
                waited_ms = self.grew_at.elapsed().as_millis() as u64,
                "progress"
            );
            self.progress = Progress {
                made: now,
                grew: self.out.executions,
            };
            self.grew_at = Instant::now();
        }
        if let Some(share) = self.budget.stall_share {
            if self.budget.reproducible {
                let stall = (f64::from(self.budget.executions) * share).ceil() as u32;
                let runs = self.out.executions.saturating_sub(self.progress.grew);
                if runs >= stall.max(1) {
                    return Some(Stop::StalledRuns(runs));
                }
            } else {
                let since = self.grew_at.elapsed();
                if since >= self.budget.time.mul_f64(share) {
                    return Some(Stop::Stalled(since));
                }
            }
        }
        None
    }

    /// Counts a run toward [`FAILING_ALIKE`] and [`Exploration::undecided`]: one that raised
    /// before any decision of the function (those of the functions it calls before its
    /// first one, `_maybe_call(max_tries)`, are not its own).
    fn count_failure(
        &mut self,
        run: &crate::agent::protocol::Execution,
        observed: &crate::explore::coverage::Observed,
    ) {
        let raised = match &run.exception {
            Some(e) if observed.reached.is_empty() => e,
            _ => {
                self.failing = None;
                return;
            }
        };
        let exception = if raised.message.is_empty() {
            raised.type_name.clone()
        } else {
            format!("{}: {}", raised.type_name, raised.message)
        };
        let failure = FailingAlike {
            exception,
            line: raised.line,
            file: raised.file.clone(),
            runs: 1,
        };
        self.out.count_undecided(&raised.type_name, failure.clone());
        match &mut self.failing {
            // The same type at the same line (messages may name the input).
            Some((type_name, f)) if *type_name == raised.type_name && f.line == raised.line => {
                f.runs += 1;
            }
            _ => self.failing = Some((raised.type_name.clone(), failure)),
        }
    }

    fn mcdc_complete(&self) -> bool {
        self.f.syntax.decisions.iter().enumerate().all(|(d, dec)| {
            dec.expr.is_none()
                || dec.conditions.len() < 2
                || self
                    .out
                    .independence
                    .get(&d)
                    .is_some_and(|i| i.len() >= 2 * dec.conditions.len())
        })
    }

    fn run(&mut self) {
        // The defaults first; then objects as the project's own tests build them, ahead of
        // the repairs that take over while no input is valid (a constructor that refuses the
        // defaults, or state only a sequence of calls makes — `unlock(code)` before `take()` —
        // is then no wall the search stops at); then the other first inputs.
        let mut seeds = self.seeds().into_iter();
        if let Some(base) = seeds.next() {
            self.push(seed_priority::DEFAULTS, base);
        }
        for seed in self.mined_seeds() {
            self.push(seed_priority::AS_THE_SUITE_BUILDS, seed);
        }
        for seed in seeds {
            self.push(seed_priority::OTHERS, seed);
        }
        loop {
            if let Some(stop) = self.limit() {
                self.out.stop = stop;
                break;
            }
            if self.stale() {
                if self.phase == Phase::Mutations {
                    break;
                }
                // Flips that kept finding paths but nothing the function is judged by: the
                // mutations get the rest of the budget.
                self.phase = Phase::SolverStale;
                self.frontier.clear();
                self.deferred.clear();
            }
            let Some((_, candidate)) = self.pop() else {
                if self.solve_deferred() {
                    continue;
                }
                let widened = self.phase == Phase::Solver
                    && (self.observed_seeds() || self.widen() || self.call_sequences());
                if !widened && !self.mutate() {
                    break;
                }
                continue;
            };
            let Some(observed) = self.execute(&candidate) else {
                if self.out.failure.is_some() && self.out.executions == 0 {
                    break;
                }
                continue;
            };
            self.remember(&candidate, &observed);
            self.expand(&candidate, &observed);
        }
        self.watch();
        self.finish();
        self.out.handlers = self
            .handler_lines
            .iter()
            .map(|l| self.lines.contains(l))
            .collect();
    }

    /// Puts a candidate on the frontier, unless it was there before. `priority` is on the
    /// scale of the flips: 3 for one that would cover a side not covered yet, 2 for a
    /// condition's value not seen yet (and the repairs of inputs that could not be built), 1
    /// for their neighbours and an open MC/DC obligation, 0 for the rest.
    fn push(&mut self, priority: u32, candidate: Candidate) {
        if self.seen_candidates.insert(candidate.key()) {
            self.frontier.push((priority, candidate));
        }
    }

    fn pop(&mut self) -> Option<(u32, Candidate)> {
        // Highest priority first; among equals, the oldest.
        let best = self
            .frontier
            .iter()
            .enumerate()
            .max_by_key(|(i, (p, _))| (*p, std::cmp::Reverse(*i)))
            .map(|(i, _)| i)?;
        Some(self.frontier.remove(best))
    }

    /// Whether some decision of the function was never reached (neither side covered).
    fn unreached_decision(&self) -> bool {
        (0..self.f.syntax.decisions.len()).any(|d| {
            !self.out.covered.contains_key(&(d, true))
                && !self.out.covered.contains_key(&(d, false))
        })
    }

    /// Sides covered plus MC/DC obligations shown plus `except` clauses entered.
    fn progress_made(&self) -> usize {
        self.out.covered.len()
            + self.handlers_entered()
            + self
                .out
                .independence
                .values()
                .map(|i| i.len())
                .sum::<usize>()
    }

    /// Whether the current phase has gone `STALE` executions without covering anything new
    /// (in the mutation phase, the inputs the solver derives from mutated ones count as part
    /// of it).
    fn stale(&mut self) -> bool {
        let now = self.progress_made();
        if now != self.progress.made {
            self.progress = Progress {
                made: now,
                grew: self.out.executions,
            };
            return false;
        }
        self.out.executions.saturating_sub(self.progress.grew) >= STALE
    }

    /// For every side left uncovered, add what the observations say.
    fn finish(&mut self) {
        for (d, decision) in self.f.syntax.decisions.iter().enumerate() {
            if decision.expr.is_none() {
                continue;
            }
            let symbolic = (0..decision.conditions.len() as u16).any(|c| {
                self.out
                    .conditions
                    .get(&(d, c))
                    .is_some_and(|s| s.expr.is_some())
            });
            for outcome in [true, false] {
                if self.out.covered.contains_key(&(d, outcome)) {
                    self.out.attempts.remove(&(d, outcome));
                    continue;
                }
                let list = self.out.attempts.entry((d, outcome)).or_default();
                if self.out.reached.contains(&d)
                    && !symbolic
                    && !list.contains(&Attempt::ConcreteOnly)
                {
                    list.push(Attempt::ConcreteOnly);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
