//! The search: dynamic symbolic execution of one function. Inputs run in the agent; each run's
//! path condition is negated step by step (uncovered branch sides and unseen condition values
//! first) and solved; models become new inputs. Object state the solver asks for but no input
//! can set directly (`self._items.__len__ >= 5`) is built through the methods that write the
//! field; choices the solver cannot see (enum members, `None`, the type of an unannotated
//! parameter) are enumerated. The search stops when everything is covered or the budget
//! (time, executions) is spent, and says for every side it missed what it learned.

use super::coverage::{ConditionIndex, FunctionUnderTest, Observed, Origin, observe};
use super::inputs::{
    Builder, Candidate, Domains, ObjectShape, Shape, call_return, constructor_choice,
    factory_param, kind_shape,
};
use super::mutate::{MAX_PADDED, Rng, Sources, mutate, padded};
use super::seeds::{globals_read, literals};
use super::solver::{Answer, Model, Solver, Value as ModelValue};
use crate::agent::protocol::{ExecuteRequest, Literal, Mock, RANDOM_SEED, SideEffect, Target};
use crate::agent::{Event, Execution, Pool, Status, Value, ValueTree};
use crate::guidance::{FactoryDecl, Guidance};
use crate::model::mcdc::Independence;
use crate::symbolic::{Expr, Op, Sort, VarPath, VarRoot};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Budget {
    pub time: Duration,
    pub executions: u32,
    pub execution_timeout_ms: u64,
    pub loop_bound: u32,
    pub solver_timeout_ms: u64,
    /// Once branches are covered, keep going for unmet MC/DC obligations (and prefer flips
    /// that would show one).
    pub target_obligations: bool,
}

/// How the function is called.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub params: Vec<(String, Shape)>,
    /// Parameters that can only be passed by keyword (after `*` or `*args`).
    pub keyword_only: Vec<String>,
    /// `*args`: its name and the shape of each argument it collects. How many are passed is
    /// the choice `*args` (0 to 3); the `k`-th is the input `args[k]`.
    pub varargs: Option<(String, Shape)>,
    /// Default values of parameters and constructor arguments, by access path.
    pub defaults: BTreeMap<String, ModelValue>,
    /// The receiver for a method (an instance of its class), named `self`.
    pub receiver: Option<ObjectShape>,
    /// Methods that write each field, per class (`module:Qual`): from the class model.
    pub writers: FxHashMap<(String, String), Vec<String>>,
    /// The mocks and factories of the project's guidance module.
    pub guidance: std::sync::Arc<Guidance>,
}

impl Signature {
    /// Where the solver finds the domains of the inputs' variables.
    pub fn domains(&self) -> Domains {
        Domains {
            params: self
                .params
                .iter()
                .cloned()
                .chain(
                    self.receiver
                        .iter()
                        .map(|r| ("self".to_owned(), Shape::Object(r.clone()))),
                )
                .collect(),
            varargs: self.varargs.clone(),
            mocks: self
                .guidance
                .mocks
                .iter()
                .map(|m| m.returns.clone())
                .collect(),
            factories: self.guidance.factories.clone(),
        }
    }
}

/// A generated test: an input worth keeping, and what it did.
#[derive(Clone, Debug)]
pub struct GeneratedTest {
    pub request: ExecuteRequest,
    /// The variables and choices the request was built from.
    pub candidate: Candidate,
    pub outcome: Outcome,
    /// Branch sides this input covered first.
    pub new_sides: Vec<(usize, bool)>,
    /// MC/DC obligations this input showed first: (decision, condition, value).
    pub new_obligations: Vec<(usize, u16, bool)>,
    pub sides: BTreeSet<(usize, bool)>,
    /// A side effect the run attempted (refused by the sandbox, or allowed but destructive: a
    /// deletion even in the scratch directory, even one that failed): under plain pytest the
    /// test would perform it for real, so it is never emitted as a plain call.
    pub side_effect: Option<SideEffect>,
    /// The mocked callees the run called: the emitted test patches these.
    pub mocked: BTreeSet<String>,
    /// The run drew from the `random` module's generator: the emitted test seeds it as the
    /// run did, so that it takes the same path.
    pub draws_random: bool,
    /// When it was found, from the start of the search.
    pub found_after: Duration,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Returned {
        repr: String,
        type_name: String,
        literal: Option<Literal>,
    },
    Raised {
        type_name: String,
        message: String,
    },
    /// Timed out, crashed or ran out of memory: kept for explanations, never emitted.
    Failed(Status),
}

/// What the search learned about a branch side it could not cover.
#[derive(Clone, Debug, PartialEq)]
pub enum Attempt {
    /// Negating the condition on an observed path is unsatisfiable.
    Unsat,
    /// The solver gave up.
    Unknown(String),
    /// The condition uses operations the solver does not model.
    Unsupported(Vec<String>),
    /// The condition depends only on values no input controls: external call results and
    /// object fields no constructor sets.
    Uncontrollable(Vec<Dependency>),
    /// Reaching the object state the condition needs takes more calls of the methods that
    /// write the field than the bound allows.
    ObjectState(Dependency, u64),
    /// A model was found but the run did not take the expected side.
    Diverged,
    /// Covering it needs more loop iterations (or method calls) than the bound allows.
    BoundHit { needed: u64, bound: u32 },
    /// The condition was evaluated only on values without a symbolic expression.
    ConcreteOnly,
}

/// A value a condition depends on that no input sets directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// The return value of an external call (index into `Exploration::external_calls`).
    ExternalCall(usize),
    /// A field of an object input (`self._items.__len__`): its class (`module:Qual`), the
    /// field, and the methods that write it.
    Field {
        path: String,
        class: Option<String>,
        field: String,
        writers: Vec<String>,
    },
}

/// What is known of each condition as last seen evaluated.
#[derive(Clone, Debug, Default)]
pub struct ConditionSeen {
    pub expr: Option<Expr>,
    pub values: BTreeSet<bool>,
}

#[derive(Clone, Debug)]
pub struct ExternalCallSeen {
    pub callee: String,
    /// The file the call site is in.
    pub file: Option<String>,
    pub pos: Option<crate::agent::protocol::Position>,
    pub arg_vars: Vec<String>,
    pub returned_symbol: bool,
    pub raised: bool,
    /// Every run in which it returned raised later: what it returned was never accepted by
    /// the code after it.
    pub then_raised: bool,
    pub blocked: Option<String>,
    pub calls: u32,
    /// The types of the values it returned (`bool`, `NoneType`, `datetime.datetime`).
    pub returns: BTreeSet<String>,
    /// The guidance module mocks it: its value is an input the generator chooses.
    pub mocked: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Exploration {
    pub tests: Vec<GeneratedTest>,
    /// Covered sides, with the index of the test that covered each first.
    pub covered: BTreeMap<(usize, bool), usize>,
    pub reached: FxHashSet<usize>,
    /// Boolean values evaluated to their last operand, whose outcome cannot be observed.
    pub unobservable: FxHashSet<usize>,
    pub independence: FxHashMap<usize, Independence>,
    /// For each side not covered, what was tried.
    pub attempts: BTreeMap<(usize, bool), Vec<Attempt>>,
    /// For each (decision, condition, value) whose other value was asked for, what was tried:
    /// why an MC/DC obligation stays unmet.
    pub condition_attempts: BTreeMap<(usize, u16, bool), Vec<Attempt>>,
    /// Per (decision, condition): the symbolic expression and values seen.
    pub conditions: BTreeMap<(usize, u16), ConditionSeen>,
    /// External calls seen, by callee and position, with the `$ret` variables they returned.
    pub external_calls: Vec<ExternalCallSeen>,
    /// Which external call each `$ret:n` variable of the latest run came from, per run
    /// rendered to the callee's index in `external_calls`.
    pub return_symbols: FxHashMap<String, usize>,
    /// Max iterations seen per loop (by its source line).
    pub loop_iterations: BTreeMap<u32, u32>,
    /// The classes of object inputs by parameter (`self` for the receiver), and who writes
    /// their fields: for explaining conditions on object state the agent saw only concretely.
    pub object_classes: BTreeMap<String, String>,
    pub writers: FxHashMap<(String, String), Vec<String>>,
    pub executions: u32,
    pub elapsed: Duration,
    pub solver_queries: u64,
    /// Why nothing could run, when nothing could.
    pub failure: Option<String>,
    /// The calls and classes whose guidance declarations this exploration depends on
    /// (`guidance::dependence`).
    pub guidance_subjects: BTreeSet<String>,
}

struct Search<'a> {
    f: &'a FunctionUnderTest,
    index: ConditionIndex,
    pool: &'a Pool,
    solver: Solver,
    signature: &'a Signature,
    budget: &'a Budget,
    strings: Vec<String>,
    numbers: Vec<i64>,
    /// The function's source.
    source: &'a str,
    start: Instant,
    out: Exploration,
    seen_candidates: FxHashSet<String>,
    /// Flips tried, by (hash of the path before the flipped step, hash of the negation).
    tried_flips: FxHashSet<(u64, u64)>,
    frontier: Vec<(u32, Candidate)>,
    all_conditions: FxHashSet<(usize, u16, bool)>,
    /// The most calls of each mocked callee (by its index in the guidance) seen in one run:
    /// how many return values the next requests carry.
    mock_calls: FxHashMap<usize, u32>,
    /// The same for callable inputs, by path, within the loop bound.
    callable_calls: BTreeMap<String, usize>,
    /// Inputs already given another type to turn a type test: (path, kind).
    retyped: FxHashSet<(String, String)>,
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

/// Explores one function within the budget.
///
/// Each exploration has a z3 context of its own: models depend on the terms a context has
/// seen, so sharing the thread's context would make a function's exploration depend on which
/// functions were explored before it on the same thread.
pub fn explore(
    f: &FunctionUnderTest,
    signature: &Signature,
    pool: &Pool,
    budget: &Budget,
    source: &str,
) -> Exploration {
    z3::with_z3_config(&z3::Config::new(), || {
        explore_in_context(f, signature, pool, budget, source)
    })
}

fn explore_in_context(
    f: &FunctionUnderTest,
    signature: &Signature,
    pool: &Pool,
    budget: &Budget,
    source: &str,
) -> Exploration {
    // The function's own literals first, then those of the module constants it reads.
    let (mut strings, mut numbers) = literals(source);
    let (more_strings, more_numbers) = literals(&globals_read(&f.text, source));
    for s in more_strings {
        if !strings.contains(&s) {
            strings.push(s);
        }
    }
    for n in more_numbers {
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    let mut search = Search {
        f,
        index: ConditionIndex::new(f),
        pool,
        solver: Solver::new(budget.solver_timeout_ms).with_domains(signature.domains()),
        signature,
        budget,
        strings,
        numbers,
        source,
        start: Instant::now(),
        out: Exploration::default(),
        seen_candidates: FxHashSet::default(),
        tried_flips: FxHashSet::default(),
        frontier: vec![],
        all_conditions: FxHashSet::default(),
        mock_calls: FxHashMap::default(),
        callable_calls: BTreeMap::new(),
        retyped: FxHashSet::default(),
        rng: Rng::for_function(&format!("{}.{}", f.module, f.qualname)),
        progress: Progress::default(),
        phase: Phase::Solver,
        paths: FxHashSet::default(),
        corpus: vec![],
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
    search.out.writers = signature.writers.clone();
    search.run();
    search.out.elapsed = search.start.elapsed();
    search.out.solver_queries = search.solver.stats.queries;
    search.out.guidance_subjects = crate::guidance::dependence::subjects(signature, &search.out);
    search.out
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

    fn done(&self) -> bool {
        self.start.elapsed() >= self.budget.time
            || self.out.executions >= self.budget.executions
            || (self.out.covered.len() >= self.total_sides()
                && (!self.budget.target_obligations || self.mcdc_complete()))
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
        for seed in self.seeds() {
            self.push(0, seed);
        }
        while !self.done() {
            if self.stale() {
                if self.phase == Phase::Mutations {
                    break;
                }
                // Flips that kept finding paths but nothing the function is judged by: the
                // mutations get the rest of the budget.
                self.phase = Phase::SolverStale;
                self.frontier.clear();
            }
            let Some((_, candidate)) = self.pop() else {
                let widened = self.phase == Phase::Solver && self.widen();
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
        self.finish();
    }

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

    /// A candidate with the signature's default values.
    fn base(&self) -> Candidate {
        Candidate {
            vars: self.signature.defaults.clone(),
            ..Candidate::default()
        }
    }

    /// The first inputs: defaults, then every alternative of every choice.
    fn seeds(&self) -> Vec<Candidate> {
        let mut seeds = vec![self.base()];
        for (path, count) in &self.choices() {
            for k in 1..*count {
                let mut c = self.base();
                c.choices.insert(path.clone(), k);
                seeds.push(c);
            }
        }
        // Literals of the function for scalar parameters.
        for (name, shape) in &self.signature.params {
            match shape {
                Shape::Int => {
                    for n in self.numbers.iter().take(6) {
                        for v in [*n, n + 1, n - 1] {
                            let mut c = self.base();
                            c.vars.insert(name.clone(), ModelValue::Int(v.to_string()));
                            seeds.push(c);
                        }
                    }
                }
                Shape::Str => {
                    for s in self.strings.iter().take(6) {
                        let mut c = self.base();
                        c.vars.insert(name.clone(), ModelValue::Str(s.clone()));
                        seeds.push(c);
                    }
                }
                _ => {}
            }
        }
        for (name, shape) in &self.signature.params {
            for want in [Shape::Float, Shape::Str] {
                let Some(pick) = variant_of(shape, &want) else {
                    continue;
                };
                for value in self.special_values(&want) {
                    let mut c = self.base();
                    if let Some(k) = pick {
                        c.choices.insert(name.clone(), k);
                    }
                    c.vars.insert(name.clone(), value);
                    seeds.push(c);
                }
            }
        }
        seeds
    }

    /// Values no path condition asks for, worth a try for an input of `shape`: non-finite
    /// floats where the function tests for them (`math.isfinite`, `float("inf")`), numbers as
    /// text where it converts text to numbers.
    fn special_values(&self, shape: &Shape) -> Vec<ModelValue> {
        let special = ["isfinite", "isinf", "isnan", "inf", "nan"]
            .iter()
            .any(|w| self.source.contains(w));
        let converts = self.source.contains("float(") || self.source.contains("int(");
        match shape {
            Shape::Float if special => [f64::INFINITY, f64::NEG_INFINITY, f64::NAN]
                .into_iter()
                .map(ModelValue::Real)
                .collect(),
            Shape::Str if converts => {
                let mut texts = vec!["1000", "1.5", "-2"];
                if special {
                    texts.extend(["inf", "-inf", "nan"]);
                }
                texts
                    .into_iter()
                    .map(|t| ModelValue::Str(t.to_owned()))
                    .collect()
            }
            _ => vec![],
        }
    }

    /// When the frontier is empty: cross choices with the inputs that covered most, so that
    /// choices the solver cannot see get combined with values it found.
    fn widen(&mut self) -> bool {
        let choices = self.choices();
        let bases: Vec<Candidate> = self
            .out
            .tests
            .iter()
            .rev()
            .take(8)
            .map(|t| t.candidate.clone())
            .collect();
        let mut added = false;
        for base in bases {
            for (path, count) in &choices {
                for k in 0..*count {
                    let mut c = base.clone();
                    c.choices.insert(path.clone(), k);
                    if self.seen_candidates.insert(c.key()) {
                        self.frontier.push((0, c));
                        added = true;
                    }
                }
            }
        }
        added
    }

    /// When the solver has no target left: mutations of the inputs kept so far, for as long as
    /// a side still uncovered could be reached by some input (not one that only depends on
    /// external calls or object state, nor one the solver proved unsatisfiable) and mutations
    /// keep finding something new (see `stale`).
    fn mutate(&mut self) -> bool {
        const BATCH: usize = 16;
        if self.phase != Phase::Mutations {
            self.phase = Phase::Mutations;
            self.progress.grew = self.out.executions;
        }
        if self.stale() || !self.worth_mutating() {
            return false;
        }
        let choices = self.choices();
        let mut bases: Vec<Candidate> = self
            .out
            .tests
            .iter()
            .map(|t| t.candidate.clone())
            .chain(self.corpus.iter().cloned())
            .collect();
        bases.push(self.base());
        let mut added = false;
        for _ in 0..BATCH * 4 {
            let base = &bases[self.rng.below(bases.len())];
            let mut request = self.request(base);
            // What mocks the function never called return is no input of it.
            for (m, mock) in request.mocks.iter_mut().enumerate() {
                if !self.mock_calls.contains_key(&m) {
                    mock.returns.clear();
                }
            }
            let sources = Sources {
                strings: &self.strings,
                numbers: &self.numbers,
                choices: &choices,
                bound: self.budget.loop_bound as usize,
            };
            let Some(next) = mutate(base, &request, &sources, &mut self.rng) else {
                continue;
            };
            if self.seen_candidates.insert(next.key()) {
                self.frontier.push((0, next));
                added = true;
                if self.frontier.len() >= BATCH {
                    break;
                }
            }
        }
        added
    }

    /// Sides covered plus MC/DC obligations shown.
    fn progress_made(&self) -> usize {
        self.out.covered.len()
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

    /// Keeps an input that took a path not seen before as a base for mutations (the latest
    /// `CORPUS` of them).
    fn remember(&mut self, candidate: &Candidate, observed: &Observed) {
        const CORPUS: usize = 64;
        let path = prefix_hashes(&observed.path).last().copied().unwrap_or(0);
        if self.paths.insert(path) {
            if self.corpus.len() >= CORPUS {
                self.corpus.remove(0);
            }
            self.corpus.push(candidate.clone());
        }
    }

    /// Whether some uncovered side might be reached by an input the solver did not propose.
    fn worth_mutating(&self) -> bool {
        self.f
            .syntax
            .decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.expr.is_some())
            .flat_map(|(d, _)| [(d, true), (d, false)])
            .filter(|side| !self.out.covered.contains_key(side))
            .any(|side| {
                self.out.attempts.get(&side).is_none_or(|attempts| {
                    attempts.is_empty()
                        || attempts.iter().any(|a| {
                            !matches!(
                                a,
                                Attempt::Unsat
                                    | Attempt::Uncontrollable(_)
                                    | Attempt::ObjectState(..)
                                    | Attempt::BoundHit { .. }
                            )
                        })
                })
            })
    }

    /// Every choice of the inputs (parameters, receiver, the values of mocked calls) with its
    /// number of alternatives.
    fn choices(&self) -> Vec<(String, usize)> {
        let mut choices = vec![];
        let calls = |path: &str| self.callable_calls.get(path).copied().unwrap_or(1);
        for (name, shape) in &self.signature.params {
            collect_choices(shape, name, &calls, &mut choices);
        }
        if let Some((name, _)) = &self.signature.varargs {
            choices.push((varargs_choice(name), 4));
        }
        if let Some(receiver) = &self.signature.receiver {
            collect_choices(
                &Shape::Object(receiver.clone()),
                "self",
                &calls,
                &mut choices,
            );
        }
        // Only the mocks this function was seen calling: the guidance module declares mocks
        // for the whole project, and the alternatives of one never called are no inputs.
        for (m, decl) in self.signature.guidance.mocks.iter().enumerate() {
            if !self.mock_calls.contains_key(&m) {
                continue;
            }
            for k in 0..self.mock_call_count(m) {
                collect_choices(
                    &decl.returns,
                    &format!("$mock:{m}[{k}]"),
                    &calls,
                    &mut choices,
                );
            }
        }
        choices
    }

    /// How many values mock `m` returns: one per call seen so far, within the loop bound.
    fn mock_call_count(&self, m: usize) -> usize {
        self.mock_calls
            .get(&m)
            .copied()
            .unwrap_or(1)
            .clamp(1, self.budget.loop_bound.max(1)) as usize
    }

    fn request(&self, candidate: &Candidate) -> ExecuteRequest {
        // A mocked call returns one value per call; what the candidate leaves unset inside a
        // returned object takes the declaration's defaults (a valid `datetime`).
        let calls = |m: usize| self.mock_call_count(m);
        let mut with_defaults;
        let mut candidate = candidate;
        if self
            .signature
            .guidance
            .mocks
            .iter()
            .any(|m| !m.defaults.is_empty())
        {
            with_defaults = candidate.clone();
            for (m, decl) in self.signature.guidance.mocks.iter().enumerate() {
                for k in 0..calls(m) {
                    for (rel, value) in &decl.defaults {
                        with_defaults
                            .vars
                            .entry(format!("$mock:{m}[{k}].{rel}"))
                            .or_insert_with(|| value.clone());
                    }
                }
            }
            candidate = &with_defaults;
        }
        let builder = Builder {
            candidate,
            bound: self.budget.loop_bound as usize,
            strings: &self.strings,
            factories: &self.signature.guidance.factories,
            callable_calls: &self.callable_calls,
        };
        let mocks = self
            .signature
            .guidance
            .mocks
            .iter()
            .enumerate()
            .map(|(m, decl)| Mock {
                target: decl.target.clone(),
                returns: (0..calls(m))
                    .map(|k| builder.build(&decl.returns, &format!("$mock:{m}[{k}]")))
                    .collect(),
            })
            .collect();
        ExecuteRequest {
            target: Target {
                module: self.f.module.clone(),
                qualname: self.f.qualname.clone(),
                call: self.f.call.clone(),
            },
            receiver: self
                .signature
                .receiver
                .as_ref()
                .map(|r| builder.build(&Shape::Object(r.clone()), "self")),
            args: self
                .signature
                .params
                .iter()
                .filter(|(name, _)| !self.signature.keyword_only.contains(name))
                .map(|(name, shape)| builder.build(shape, name))
                .chain(self.signature.varargs.iter().flat_map(|(name, shape)| {
                    let count = candidate.choices.get(&varargs_choice(name)).copied();
                    (0..count.unwrap_or(0))
                        .map(|k| builder.build(shape, &format!("{name}[{k}]")))
                        .collect::<Vec<_>>()
                }))
                .collect(),
            kwargs: self
                .signature
                .params
                .iter()
                .filter(|(name, _)| self.signature.keyword_only.contains(name))
                .map(|(name, shape)| (name.clone(), builder.build(shape, name)))
                .collect(),
            mocks,
            timeout_ms: self.budget.execution_timeout_ms,
            random_seed: RANDOM_SEED,
        }
    }

    fn execute(&mut self, candidate: &Candidate) -> Option<Observed> {
        let request = self.request(candidate);
        let run = match self.pool.execute(&request) {
            Ok(run) => run,
            Err(e) => {
                self.out.failure = Some(e.to_string());
                return None;
            }
        };
        self.out.executions += 1;
        if std::env::var_os("LACUNA_DEBUG_SEARCH").is_some() {
            eprintln!(
                "run {}.{} {} {:?}: {:?} {:?}",
                self.f.module,
                self.f.qualname,
                candidate.key(),
                run.status,
                run.exception.as_ref().map(|e| (&e.type_name, &e.message)),
                run.error
            );
        }
        if run.status == Status::InputError {
            self.repair(candidate, &request);
            // Building the input ran project code (a constructor, a factory's method calls)
            // on symbolic values: the conditions it raised on are flipped like any other.
            let observed = observe(self.f, &self.index, &run);
            self.expand(candidate, &observed);
        }
        if matches!(run.status, Status::Error | Status::InputError) {
            if self.out.executions == 1 && run.status == Status::Error {
                self.out.failure = run.error.clone();
            }
            return None;
        }
        let mut observed = observe(self.f, &self.index, &run);
        if self.shows_something_new(&observed) {
            self.confirm(&request, &mut observed);
        }
        self.record(request, candidate, &run, &observed);
        self.record_callables(&run);
        self.retype(candidate, &run);
        Some(observed)
    }

    fn record(
        &mut self,
        request: ExecuteRequest,
        candidate: &Candidate,
        run: &Execution,
        observed: &Observed,
    ) {
        for step in &observed.path {
            if let Origin::Condition(dc) = step.origin {
                let entry = self.out.conditions.entry(dc).or_default();
                entry.expr = Some(step.expr.clone());
                entry.values.insert(step.value);
            }
        }
        for &(d, c, v) in &observed.conditions {
            let entry = self.out.conditions.entry((d, c)).or_default();
            entry.values.insert(v);
        }
        self.record_external_calls(run);
        for (pos, n) in &observed.loop_iterations {
            let e = self.out.loop_iterations.entry(pos.0).or_default();
            *e = (*e).max(*n);
        }
        self.out.reached.extend(observed.reached.iter().copied());
        self.out
            .unobservable
            .extend(observed.unobservable.iter().copied());
        let new_sides: Vec<(usize, bool)> = observed
            .sides
            .iter()
            .copied()
            .filter(|s| !self.out.covered.contains_key(s))
            .collect();
        let mut new_obligations = vec![];
        for (&d, shown) in &observed.independence {
            let known = self.out.independence.entry(d).or_default();
            for o in shown.iter() {
                if !known.contains(o) {
                    new_obligations.push((d, o.condition, o.value));
                }
            }
            known.union(*shown);
        }
        let new_conditions = observed
            .conditions
            .iter()
            .filter(|c| self.all_conditions.insert(**c))
            .count();
        let outcome = match run.status {
            Status::Returned => {
                let r = run
                    .returned
                    .clone()
                    .unwrap_or(crate::agent::protocol::ReturnValue {
                        repr: "None".into(),
                        type_name: "NoneType".into(),
                        literal: Some(Literal::None),
                    });
                Outcome::Returned {
                    repr: r.repr,
                    type_name: r.type_name,
                    literal: r.literal,
                }
            }
            Status::Raised => {
                let e = run.exception.clone();
                Outcome::Raised {
                    type_name: e.as_ref().map(|e| e.type_name.clone()).unwrap_or_default(),
                    message: e.map(|e| e.message).unwrap_or_default(),
                }
            }
            other => Outcome::Failed(other),
        };
        let keep = !new_sides.is_empty()
            || !new_obligations.is_empty()
            || (self.out.tests.is_empty() && new_conditions > 0);
        if keep && !matches!(outcome, Outcome::Failed(_)) {
            let index = self.out.tests.len();
            for s in &new_sides {
                self.out.covered.insert(*s, index);
            }
            self.out.tests.push(GeneratedTest {
                request,
                candidate: candidate.clone(),
                outcome,
                new_sides,
                new_obligations,
                sides: observed.sides.iter().copied().collect(),
                found_after: self.start.elapsed(),
                mocked: run
                    .events
                    .iter()
                    .filter_map(|e| match e {
                        Event::Call {
                            callee,
                            mocked: true,
                            ..
                        } => Some(callee.clone()),
                        _ => None,
                    })
                    .collect(),
                side_effect: run.effects.first().cloned().or_else(|| {
                    run.events.iter().find_map(|e| match e {
                        Event::Blocked { event, detail, .. } => Some(SideEffect {
                            event: event.clone(),
                            detail: detail.clone(),
                            refused: true,
                        }),
                        _ => None,
                    })
                }),
                draws_random: run.draws_random,
            });
        }
    }

    fn record_external_calls(&mut self, run: &Execution) {
        let mut mocked: FxHashMap<usize, u32> = FxHashMap::default();
        for event in &run.events {
            if let Event::Call {
                callee,
                mocked: true,
                ..
            } = event
                && let Some(m) = self
                    .signature
                    .guidance
                    .mocks
                    .iter()
                    .position(|d| &d.target == callee)
            {
                *mocked.entry(m).or_default() += 1;
            }
        }
        for (m, n) in mocked {
            let e = self.mock_calls.entry(m).or_default();
            *e = (*e).max(n);
        }
        for event in &run.events {
            let (callee, file, pos, arg_vars, ret_var, raised, blocked, returned, is_mock) =
                match event {
                    Event::Call {
                        callee,
                        f,
                        pos,
                        arg_vars,
                        ret_var,
                        raised,
                        ret,
                        mocked,
                        ..
                    } => (
                        callee.clone(),
                        *f,
                        *pos,
                        arg_vars.clone(),
                        ret_var.clone(),
                        raised.is_some(),
                        None,
                        ret.as_ref().and_then(|r| r.type_name.clone()),
                        *mocked,
                    ),
                    Event::Blocked {
                        event,
                        detail,
                        f,
                        pos,
                        ..
                    } => (
                        event.clone(),
                        *f,
                        *pos,
                        vec![],
                        None,
                        true,
                        Some(detail.clone()),
                        None,
                        false,
                    ),
                    _ => continue,
                };
            let file = file.and_then(|i| run.files.get(i)).cloned();
            let index = match self
                .out
                .external_calls
                .iter()
                // A refused side effect is kept apart from the call it happened in, even when
                // both are called `open`.
                .position(|c| {
                    c.callee == callee
                        && c.pos == pos
                        && c.file == file
                        && c.blocked.is_some() == blocked.is_some()
                }) {
                Some(i) => i,
                None => {
                    self.out.external_calls.push(ExternalCallSeen {
                        callee,
                        file,
                        pos,
                        arg_vars: vec![],
                        returned_symbol: false,
                        raised: true,
                        then_raised: true,
                        blocked: None,
                        calls: 0,
                        returns: BTreeSet::new(),
                        mocked: false,
                    });
                    self.out.external_calls.len() - 1
                }
            };
            let seen = &mut self.out.external_calls[index];
            seen.calls += 1;
            seen.returns.extend(returned);
            seen.mocked |= is_mock;
            for v in arg_vars {
                if !seen.arg_vars.contains(&v) {
                    seen.arg_vars.push(v);
                }
            }
            // "raised" stays true only while every call raised.
            seen.raised &= raised;
            if !raised {
                seen.then_raised &= run.status == Status::Raised;
            }
            if blocked.is_some() {
                seen.blocked = blocked;
            }
            if let Some(v) = ret_var {
                seen.returned_symbol = true;
                self.out.return_symbols.insert(v, index);
            }
        }
    }

    /// Whether a run covers a side or shows an MC/DC obligation not seen before.
    fn shows_something_new(&self, observed: &Observed) -> bool {
        observed
            .sides
            .iter()
            .any(|s| !self.out.covered.contains_key(s))
            || observed.independence.iter().any(|(d, shown)| {
                let known = self.out.independence.get(d).copied().unwrap_or_default();
                shown.iter().any(|o| !known.contains(o))
            })
    }

    /// Runs an input that shows something new a second time and keeps, of what it showed, only
    /// what both runs showed: a side an input takes only some of the time (a branch on
    /// `random.random()`) is not claimed, since its test could not reproduce it.
    fn confirm(&mut self, request: &ExecuteRequest, observed: &mut Observed) {
        let Ok(again) = self.pool.execute(request) else {
            return;
        };
        self.out.executions += 1;
        let second = match again.status {
            Status::Returned | Status::Raised => observe(self.f, &self.index, &again),
            _ => Observed::default(),
        };
        observed.sides.retain(|s| second.sides.contains(s));
        for (d, shown) in observed.independence.iter_mut() {
            let other = second.independence.get(d).copied().unwrap_or_default();
            shown.by_value[0] &= other.by_value[0];
            shown.by_value[1] &= other.by_value[1];
        }
    }

    /// Callable inputs return one value per call: the next requests carry as many as the most
    /// calls seen, within the loop bound.
    fn record_callables(&mut self, run: &Execution) {
        let bound = self.budget.loop_bound.max(1) as usize;
        for (path, &n) in &run.callables {
            let n = (n as usize).clamp(1, bound);
            let e = self.callable_calls.entry(path.clone()).or_insert(1);
            *e = (*e).max(n);
        }
    }

    /// A type test on an input (`isinstance(value, str)`) turns the other way for a value of
    /// another kind: each kind that would is tried once, on the input that saw the test.
    /// The receiver keeps its class: the method is called on it.
    fn retype(&mut self, candidate: &Candidate, run: &Execution) {
        for test in &run.type_tests {
            if test.name == "self" && self.signature.receiver.is_some() {
                continue;
            }
            for kind in &test.flip {
                let Some(shape) = kind_shape(kind) else {
                    continue;
                };
                if !self.retyped.insert((test.name.clone(), kind.clone())) {
                    continue;
                }
                let mut next = candidate.clone();
                next.types.insert(test.name.clone(), shape.clone());
                for value in self.special_values(&shape) {
                    let mut special = next.clone();
                    special.vars.insert(test.name.clone(), value);
                    self.push(1, special);
                }
                self.push(2, next);
            }
        }
    }

    /// An input could not be built (a constructor rejected its arguments): try the usual
    /// suspects — positive numbers, non-empty strings — for every scalar of the request.
    fn repair(&mut self, candidate: &Candidate, request: &ExecuteRequest) {
        // Until some input is valid, repairs come first; after, they wait with the flips of
        // the inputs' construction (a factory's flags), oldest first, instead of starving them.
        let priority = if self.out.tests.is_empty() { 2 } else { 0 };
        // Scalars anywhere in the inputs, and the factories that build them.
        let (mut scalars, mut built) = (vec![], vec![]);
        for t in request.args.iter().chain(request.receiver.iter()) {
            t.walk(&mut |node| match (&node.sym, &node.value) {
                (Some(s), Value::Int { .. } | Value::Str { .. } | Value::Float { .. }) => {
                    scalars.push((s.clone(), node.value.clone()))
                }
                // A factory that rejects its arguments: the constructor may do better.
                (Some(s), Value::Factory { .. }) => built.push(s.clone()),
                _ => {}
            });
        }
        for path in built {
            let mut next = candidate.clone();
            next.choices.insert(constructor_choice(&path), 1);
            self.push(priority, next);
        }
        for (path, value) in scalars {
            let replacements: Vec<ModelValue> = match value {
                Value::Int { .. } => ["1", "10", "100"]
                    .iter()
                    .map(|v| ModelValue::Int((*v).into()))
                    .collect(),
                Value::Float { .. } => vec![ModelValue::Real(1.0), ModelValue::Real(10.0)],
                Value::Str { .. } => vec![ModelValue::Str("a".into())],
                _ => vec![],
            };
            for r in replacements {
                let mut next = candidate.clone();
                next.vars.insert(path.clone(), r);
                self.push(priority, next);
            }
        }
    }

    /// A condition the solver could not decide (`len(frame) > 4096` with long texts) or does
    /// not model (`flag.lower() in ("1", "true")`): its numbers join those mutations draw
    /// from, and its variables are tried at its literals — a text of a number's length and one
    /// longer, an integer one either side, a text equal to each of its texts.
    fn around_undecided(&mut self, candidate: &Candidate, expr: &Expr) {
        let mut numbers = vec![];
        expr.for_each_int(&mut |n| numbers.push(n));
        let mut vars: Vec<(String, Sort)> = vec![];
        expr.for_each_var(&mut |v, sort| vars.push((v.to_owned(), sort)));
        let mut texts = vec![];
        expr.for_each_str(&mut |t| texts.push(t.to_owned()));
        for text in texts.iter().take(8) {
            for (var, _) in vars.iter().filter(|(_, sort)| *sort == Sort::Str) {
                let mut next = candidate.clone();
                next.vars.insert(var.clone(), ModelValue::Str(text.clone()));
                self.push(1, next);
            }
        }
        for &n in &numbers {
            if !self.numbers.contains(&n) {
                self.numbers.push(n);
            }
            for (var, sort) in &vars {
                let values: Vec<ModelValue> = match sort {
                    Sort::Str => usize::try_from(n)
                        .ok()
                        .filter(|&n| n <= MAX_PADDED)
                        .map(|n| {
                            vec![
                                ModelValue::Str(padded("", n + 1)),
                                ModelValue::Str(padded("", n)),
                            ]
                        })
                        .unwrap_or_default(),
                    Sort::Int => vec![
                        ModelValue::Int(n.saturating_add(1).to_string()),
                        ModelValue::Int(n.saturating_sub(1).to_string()),
                    ],
                    _ => vec![],
                };
                for value in values {
                    let mut next = candidate.clone();
                    next.vars.insert(var.clone(), value);
                    self.push(1, next);
                }
            }
        }
    }

    /// Negates the steps of an observed path, targets first, and queues the models.
    fn expand(&mut self, candidate: &Candidate, observed: &Observed) {
        let controllable = controllable_names(&self.request(candidate));
        let path = &observed.path;
        let mut flips: Vec<(u32, usize)> = vec![];
        let hashes = prefix_hashes(path);
        for (i, step) in path.iter().enumerate() {
            // Unrolling a loop further than the bound is not explored.
            if step.occurrence >= self.budget.loop_bound {
                let loop_decision = match step.origin {
                    Origin::Condition((d, _)) => Some(d),
                    _ => None,
                };
                self.note_bound(path, i, loop_decision);
                continue;
            }
            let priority = match step.origin {
                Origin::Condition((d, c)) => {
                    let decision_open = !self.out.covered.contains_key(&(d, true))
                        || !self.out.covered.contains_key(&(d, false));
                    let value_unseen = !self.all_conditions.contains(&(d, c, !step.value));
                    let obligation_open = self.out.independence.get(&d).is_none_or(|ind| {
                        !ind.contains(crate::model::mcdc::Obligation {
                            condition: c,
                            value: !step.value,
                        })
                    });
                    if decision_open {
                        3
                    } else if value_unseen {
                        2
                    } else if obligation_open && self.budget.target_obligations {
                        1
                    } else {
                        // Still worth a try: other decisions may depend on this path (a
                        // counter incremented by a loop, a flag set on one side).
                        0
                    }
                }
                Origin::Loop | Origin::Other => 1,
                // The inputs' construction: once the function's own steps are tried.
                Origin::Building => 0,
            };
            // A flip tried with objects built through a factory is tried again when they are
            // built through their constructors instead.
            let mut negated = text_hash(&step.negation());
            for (choice, _) in candidate
                .choices
                .iter()
                .filter(|(c, _)| c.ends_with("#constructor"))
            {
                use std::hash::{Hash, Hasher};
                let mut hasher = rustc_hash::FxHasher::default();
                (negated, choice).hash(&mut hasher);
                negated = hasher.finish();
            }
            let key = (hashes[i], negated);
            if !self.tried_flips.insert(key) {
                continue;
            }
            // A condition on nothing an input can steer cannot be flipped by any input: say
            // what it depends on instead of asking the solver.
            let mut vars = vec![];
            step.expr.for_each_var(&mut |v, _| {
                if !vars.iter().any(|x: &String| x == v) {
                    vars.push(v.to_owned());
                }
            });
            let steerable = vars
                .iter()
                .any(|v| controllable.contains(v) || self.constructible(v));
            if !steerable {
                let target = match step.origin {
                    Origin::Condition((d, c)) => Some((d, c, !step.value)),
                    _ => None,
                };
                let deps: Vec<Dependency> =
                    vars.iter().filter_map(|v| self.dependency(v)).collect();
                if !deps.is_empty() {
                    self.note(target, Attempt::Uncontrollable(deps));
                }
                continue;
            }
            flips.push((priority, i));
        }
        flips.sort_by_key(|&(p, i)| (std::cmp::Reverse(p), i));
        flips.truncate(24);
        if flips.is_empty() {
            return;
        }
        // External calls keep the values they returned, and object fields the values they
        // held: a model may only change inputs. When a flip is impossible so, and possible with
        // other values of those, the side depends on them.
        let pins = pins(path, &observed.fixed_values, &controllable);
        let offset = pins.len();
        let prefix: Vec<Expr> = pins
            .iter()
            .map(|(_, pin)| pin.clone())
            .chain(path.iter().map(|s| s.assertion()))
            .collect();
        let indices: Vec<usize> = flips.iter().map(|&(_, i)| i + offset).collect();
        let answers = self.solver.negations(&prefix, &indices);
        for (j, mut answer) in answers {
            let i = j - offset;
            if std::env::var_os("LACUNA_DEBUG_SEARCH").is_some() {
                eprintln!("flip {} -> {:?}", path[i].negation(), answer);
            }
            let mut fixed: Vec<String> = vec![];
            if answer == Answer::Unsat && offset > 0 {
                let mut free: Vec<Expr> = path[..i].iter().map(|s| s.assertion()).collect();
                free.push(path[i].negation());
                let unpinned = self.solver.check(&free);
                if matches!(unpinned, Answer::Sat(_)) {
                    let mut in_step = vec![];
                    path[i]
                        .expr
                        .for_each_var(&mut |v, _| in_step.push(v.to_owned()));
                    fixed = pins
                        .iter()
                        .map(|(v, _)| v.clone())
                        .filter(|v| in_step.contains(v))
                        .collect();
                    if fixed.is_empty() {
                        fixed = pins.iter().map(|(v, _)| v.clone()).collect();
                    }
                    answer = unpinned;
                }
            } else if matches!(answer, Answer::Sat(_)) && reads_pinned_field(&path[i], &pins) {
                // Inputs alone seem to do, but the object may not be buildable with them (a
                // constructor's check the path does not show): building its state through
                // its writers is tried too.
                let mut free: Vec<Expr> = path[..i].iter().map(|s| s.assertion()).collect();
                free.push(path[i].negation());
                if let Answer::Sat(model) = self.solver.check(&free)
                    && let Applied::Candidate(next) =
                        self.apply(candidate, &model, &controllable, &FxHashMap::default())
                {
                    let priority = flips.iter().find(|(_, j)| *j == i).map_or(0, |(p, _)| *p);
                    self.push(priority.saturating_sub(1), next);
                }
            }
            // A path's own loop exits can make a flip unsatisfiable (`len(xs) == 0` on this
            // path, `len(xs) >= 20` wanted): try again with only the decisions' conditions.
            if answer == Answer::Unsat
                && path[..i]
                    .iter()
                    .any(|s| !matches!(s.origin, Origin::Condition(_)))
            {
                let mut relaxed: Vec<Expr> = path[..i]
                    .iter()
                    .filter(|s| matches!(s.origin, Origin::Condition(_)))
                    .map(|s| s.assertion())
                    .collect();
                relaxed.push(path[i].negation());
                answer = self.solver.check(&relaxed);
            }
            let priority = flips.iter().find(|(_, j)| *j == i).map_or(0, |(p, _)| *p);
            let target = match path[i].origin {
                Origin::Condition((d, c)) => Some((d, c, !path[i].value)),
                _ => None,
            };
            if !fixed.is_empty() {
                // Object fields are built through their writers below, and explained there.
                let deps: Vec<Dependency> = fixed
                    .iter()
                    .filter_map(|v| self.dependency(v))
                    .filter(|d| matches!(d, Dependency::ExternalCall(_)))
                    .collect();
                if !deps.is_empty() {
                    self.note(target, Attempt::Uncontrollable(deps));
                }
            }
            // A clock's value changes from one run to the next: a model right at the boundary
            // the pinned value sets is likely to miss it, so values away from it are tried too.
            let drifting = fixed.is_empty() && {
                let mut found = false;
                path[i].expr.for_each_var(&mut |v, sort| {
                    found |= sort == Sort::Real && pins.iter().any(|(p, _)| p == v);
                });
                found
            };
            match answer {
                Answer::Sat(mut model) => {
                    // The prefix is asserted once for all flips, so the model also values the
                    // variables of later steps, arbitrarily: only those this flip constrains
                    // are taken (an arbitrary `qty = 0` would make the input unbuildable).
                    let mut constrained: FxHashSet<String> = FxHashSet::default();
                    for step in &path[..=i] {
                        step.expr.for_each_var(&mut |v, _| {
                            constrained.insert(v.to_owned());
                        });
                    }
                    model.values.retain(|name, _| constrained.contains(&**name));
                    match self.apply(candidate, &model, &controllable, &observed.fixed_values) {
                        Applied::Candidate(next) => {
                            if drifting {
                                for variant in away_from_boundary(candidate, &next) {
                                    self.push(priority.saturating_sub(1), variant);
                                }
                            }
                            self.push(priority, next)
                        }
                        Applied::Uncontrollable(vars) => {
                            let mut in_step = vec![];
                            path[i]
                                .expr
                                .for_each_var(&mut |v, _| in_step.push(v.to_owned()));
                            let deps: Vec<Dependency> = vars
                                .iter()
                                .filter(|v| in_step.contains(v))
                                .filter_map(|v| self.dependency(v))
                                .collect();
                            if !deps.is_empty() {
                                self.note(target, Attempt::Uncontrollable(deps));
                            }
                        }
                        Applied::Object(var, needed) => {
                            if let Some(dep) = self.dependency(&var) {
                                self.note(target, Attempt::ObjectState(dep, needed));
                            }
                        }
                        Applied::Bound(needed) => self.note(
                            target,
                            Attempt::BoundHit {
                                needed,
                                bound: self.budget.loop_bound,
                            },
                        ),
                    }
                }
                Answer::Unsat => self.note(target, Attempt::Unsat),
                Answer::Unknown(why) => {
                    self.around_undecided(candidate, &path[i].expr);
                    self.note(target, Attempt::Unknown(why))
                }
                Answer::Unsupported(ops) => {
                    self.around_undecided(candidate, &path[i].expr);
                    self.note(
                        target,
                        Attempt::Unsupported(ops.iter().map(|o| o.to_string()).collect()),
                    )
                }
            }
        }
    }

    /// Turns a model into the next candidate: controllable variables are set directly; object
    /// fields the model wants are reached through the methods that write them.
    fn apply(
        &self,
        candidate: &Candidate,
        model: &Model,
        controllable: &FxHashSet<String>,
        fixed: &FxHashMap<String, Expr>,
    ) -> Applied {
        let mut next = candidate.clone();
        let mut changed = false;
        let mut uncontrollable = vec![];
        for (name, value) in &model.values {
            // A field or a call's return the model leaves as it was asks for nothing.
            if !controllable.contains(&**name)
                && fixed.get(&**name).is_some_and(|e| same_value(value, e))
            {
                continue;
            }
            if controllable.contains(&**name) || element_of_container(controllable, name) {
                if next.vars.get(&**name) != Some(value) {
                    next.vars.insert(name.to_string(), value.clone());
                    changed = true;
                }
                // Lengths beyond the bound cannot be built.
                if name.ends_with(".__len__")
                    && let ModelValue::Int(d) = value
                    && d.parse::<u64>()
                        .is_ok_and(|n| n > u64::from(self.budget.loop_bound))
                {
                    return Applied::Bound(d.parse().unwrap_or(0));
                }
                continue;
            }
            match self.object_calls(candidate, name, value) {
                Some(Ok((path, calls))) => {
                    if next.calls.get(&path) != Some(&calls) {
                        next.calls.insert(path, calls);
                        changed = true;
                    }
                }
                Some(Err(needed)) => return Applied::Object(name.to_string(), needed),
                None => match self.factory_slots(candidate, name, value) {
                    Some(Ok(slots)) => {
                        for (slot, v) in slots {
                            if next.vars.get(&slot) != Some(&v) {
                                next.vars.insert(slot, v);
                                changed = true;
                            }
                        }
                    }
                    Some(Err(needed)) => return Applied::Object(name.to_string(), needed),
                    None => {
                        if current_value(candidate, name).as_ref() != Some(value) {
                            uncontrollable.push(name.to_string());
                        }
                    }
                },
            }
        }
        if changed {
            Applied::Candidate(next)
        } else {
            uncontrollable.sort();
            Applied::Uncontrollable(uncontrollable)
        }
    }

    /// What a variable no input controls stands for.
    fn dependency(&self, name: &str) -> Option<Dependency> {
        let path = VarPath::parse(name)?;
        match &path.root {
            VarRoot::ExternalReturn(n) => self
                .out
                .return_symbols
                .get(&format!("$ret:{n}"))
                .map(|&i| Dependency::ExternalCall(i)),
            // A mocked call's value is an input: the solver chooses it.
            VarRoot::Mock(_) => None,
            VarRoot::Param(_) => {
                let (object, field, _) = self.field_of(&path)?;
                let writers = self
                    .signature
                    .writers
                    .get(&(object.class.clone(), field.clone()))
                    .cloned()
                    .unwrap_or_default();
                Some(Dependency::Field {
                    path: name.to_owned(),
                    class: Some(object.class.clone()),
                    field,
                    writers,
                })
            }
        }
    }

    /// The object input a field path goes through, the field of it the path reads, and the
    /// object's path in the input: `order.__init__.customer._orders.__len__` is the `_orders`
    /// field of the `Customer` passed as `order`'s `customer` constructor argument (or factory
    /// argument, when a factory builds `Order`), at `order.__init__.customer`.
    fn field_of(&self, path: &VarPath) -> Option<(&ObjectShape, String, String)> {
        let VarRoot::Param(root) = &path.root else {
            return None;
        };
        let mut object = if root == "self" {
            self.signature.receiver.as_ref()?
        } else {
            match &self.signature.params.iter().find(|(n, _)| n == root)?.1 {
                Shape::Object(o) => o,
                _ => return None,
            }
        };
        let mut prefix = root.clone();
        let steps: Vec<&str> = path.fields().collect();
        let mut i = 0;
        while i < steps.len() {
            let step = steps[i];
            // `x.__init__.p` (or `x.__factory__.p`) and a field named like a constructor
            // argument holding an object both lead into that argument's object.
            let through = step == "__init__" || step == "__factory__";
            let param = if through {
                i += 1;
                steps.get(i).copied()
            } else {
                Some(step)
            };
            let factory = self.signature.guidance.factory_for(&object.class);
            let params = factory.map_or(&object.init, |f| &f.params);
            let inner = param.and_then(|p| {
                params.iter().find_map(|(n, s)| match s {
                    Shape::Object(o) if n == p => Some((p, o)),
                    _ => None,
                })
            });
            match inner {
                Some((p, o)) if i + 1 < steps.len() => {
                    prefix = match factory {
                        Some(_) => factory_param(&prefix, p),
                        None => format!("{prefix}.__init__.{p}"),
                    };
                    object = o;
                    i += 1;
                }
                _ if through => return None,
                _ => return Some((object, step.to_owned(), prefix)),
            }
        }
        None
    }

    /// The factory arguments that would give a factory-built object's field the value a model
    /// wants: every list the factory takes gets that many elements (one call of a writer each,
    /// in the skeleton the code action writes), every flag is set.
    fn factory_slots(
        &self,
        candidate: &Candidate,
        name: &str,
        value: &ModelValue,
    ) -> Option<Result<Vec<(String, ModelValue)>, u64>> {
        let path = VarPath::parse(name)?;
        let (object, _, prefix) = self.field_of(&path)?;
        let factory = self.factory(candidate, &object.class, &prefix)?;
        let wanted = match value {
            ModelValue::Int(d) if name.ends_with(".__len__") => {
                d.parse::<i64>().ok()?.max(0) as u64
            }
            _ => 1,
        };
        if wanted > u64::from(self.budget.loop_bound) {
            return Some(Err(wanted));
        }
        let slots: Vec<(String, ModelValue)> = factory
            .params
            .iter()
            .filter_map(|(p, s)| match s {
                Shape::List(_) | Shape::Set(_) => Some((
                    format!("{}.__len__", factory_param(&prefix, p)),
                    ModelValue::Int(wanted.to_string()),
                )),
                Shape::Bool => Some((factory_param(&prefix, p), ModelValue::Bool(wanted > 0))),
                _ => None,
            })
            .collect();
        (!slots.is_empty()).then_some(Ok(slots))
    }

    /// The factory that builds the object of `class` at `path` in `candidate`, if one does.
    fn factory(&self, candidate: &Candidate, class: &str, path: &str) -> Option<&FactoryDecl> {
        self.signature
            .guidance
            .factory_for(class)
            .filter(|_| candidate.choices.get(&constructor_choice(path)) != Some(&1))
    }

    /// Whether a field variable can be reached through the methods that write the field.
    fn constructible(&self, name: &str) -> bool {
        let Some(path) = VarPath::parse(name) else {
            return false;
        };
        // Only the object's own top-level construction calls are built (the receiver or a
        // parameter), not those of objects nested in constructor arguments.
        let Some((object, field, _)) = self.field_of(&path) else {
            return false;
        };
        if self.signature.guidance.factory_for(&object.class).is_some() {
            return true;
        }
        let top = match &path.root {
            VarRoot::Param(r) if r == "self" => self.signature.receiver.as_ref(),
            VarRoot::Param(r) => self.signature.params.iter().find_map(|(n, s)| match s {
                Shape::Object(o) if n == r => Some(o),
                _ => None,
            }),
            VarRoot::ExternalReturn(_) | VarRoot::Mock(_) => None,
        };
        top.is_some_and(|t| std::ptr::eq(t, object))
            && self
                .signature
                .writers
                .get(&(object.class.clone(), field))
                .is_some_and(|w| !w.is_empty())
    }

    /// The method calls that would give an object input's field the value a model wants:
    /// `self._items.__len__ = 5` → five calls of a method that writes `_items`.
    fn object_calls(
        &self,
        candidate: &Candidate,
        name: &str,
        value: &ModelValue,
    ) -> Option<Result<(String, Vec<usize>), u64>> {
        let path = VarPath::parse(name)?;
        let VarRoot::Param(root) = &path.root else {
            return None;
        };
        let fields: Vec<&str> = path.fields().collect();
        let field = *fields.first()?;
        let shape = if root == "self" {
            self.signature.receiver.as_ref()?
        } else {
            match self.signature.params.iter().find(|(n, _)| n == root)?.1 {
                Shape::Object(ref o) => o,
                _ => return None,
            }
        };
        if self.factory(candidate, &shape.class, root).is_some() {
            return None; // built through its factory: see `factory_slots`
        }
        let writers = self
            .signature
            .writers
            .get(&(shape.class.clone(), field.to_owned()))?;
        let method = shape
            .methods
            .iter()
            .position(|(m, _)| writers.contains(m))?;
        let count = if fields.last() == Some(&"__len__") {
            match value {
                ModelValue::Int(d) => d.parse::<i64>().ok()?.max(0) as u64,
                _ => return None,
            }
        } else {
            1
        };
        if count > u64::from(self.budget.loop_bound) {
            return Some(Err(count));
        }
        Some(Ok((root.clone(), vec![method; count as usize])))
    }

    /// A loop on `path` reached the bound at step `at`: the decisions after it that depend on
    /// no symbolic input (a counter the loop increments) are blocked by the bound.
    fn note_bound(
        &mut self,
        path: &[super::coverage::PathStep],
        at: usize,
        loop_decision: Option<usize>,
    ) {
        let needed = u64::from(self.budget.loop_bound) + 1;
        let later: FxHashSet<usize> = path[at..]
            .iter()
            .filter_map(|s| match s.origin {
                Origin::Condition((d, _)) if Some(d) != loop_decision => Some(d),
                _ => None,
            })
            .collect();
        for (d, _) in self.f.syntax.decisions.iter().enumerate() {
            let after = later.contains(&d) || self.out.conditions_concrete(d);
            if after && Some(d) != loop_decision {
                self.note(
                    Some((d, 0, true)),
                    Attempt::BoundHit {
                        needed,
                        bound: self.budget.loop_bound,
                    },
                );
            }
        }
    }

    fn note(&mut self, target: Option<(usize, u16, bool)>, attempt: Attempt) {
        let Some((d, c, v)) = target else { return };
        let list = self.out.condition_attempts.entry((d, c, v)).or_default();
        if !list.contains(&attempt) {
            list.push(attempt.clone());
        }
        for outcome in [true, false] {
            if self.out.covered.contains_key(&(d, outcome)) {
                continue;
            }
            let list = self.out.attempts.entry((d, outcome)).or_default();
            if !list.contains(&attempt) {
                list.push(attempt.clone());
            }
        }
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

impl Exploration {
    /// This exploration as far as the tests `kept` (indices into `tests`) reproduce it: a
    /// side counts as covered only when a kept test covers it, an MC/DC obligation only when
    /// the kept test that first showed it is kept.
    pub fn restricted_to(&self, kept: &BTreeSet<usize>) -> Exploration {
        let mut out = self.clone();
        out.covered.clear();
        out.independence.clear();
        for &i in kept {
            if let Some(t) = self.tests.get(i) {
                for s in &t.sides {
                    out.covered.entry(*s).or_insert(i);
                }
                for &(d, condition, value) in &t.new_obligations {
                    out.independence
                        .entry(d)
                        .or_default()
                        .insert(crate::model::mcdc::Obligation { condition, value });
                }
            }
        }
        for (side, _) in self.covered.iter() {
            if !out.covered.contains_key(side) {
                out.attempts.entry(*side).or_default();
            }
        }
        out
    }

    /// Whether decision `d` was reached with none of its conditions symbolic.
    fn conditions_concrete(&self, d: usize) -> bool {
        self.reached.contains(&d)
            && !self
                .conditions
                .range((d, 0)..(d + 1, 0))
                .any(|(_, seen)| seen.expr.is_some())
    }
}

enum Applied {
    Candidate(Candidate),
    Uncontrollable(Vec<String>),
    /// An object field needs this many writer calls, more than the bound.
    Object(String, u64),
    Bound(u64),
}

/// Variants of `next` whose real-valued inputs the model changed from `before` are moved away
/// from the value it chose: doubled, halved, one more and one less.
fn away_from_boundary(before: &Candidate, next: &Candidate) -> Vec<Candidate> {
    let mut out = vec![];
    for (name, value) in &next.vars {
        let ModelValue::Real(x) = value else { continue };
        if before.vars.get(name) == Some(value) {
            continue;
        }
        for moved in [x * 2.0, x / 2.0, x + 1.0, x - 1.0] {
            let mut variant = next.clone();
            variant.vars.insert(name.clone(), ModelValue::Real(moved));
            out.push(variant);
        }
    }
    out
}

/// Equalities keeping each value no input sets directly (an external call's return, an
/// object field), as the path uses it, at what it was in the execution: (symbol,
/// `symbol == value`).
fn pins(
    path: &[super::coverage::PathStep],
    values: &FxHashMap<String, Expr>,
    controllable: &FxHashSet<String>,
) -> Vec<(String, Expr)> {
    let mut out: Vec<(String, Expr)> = vec![];
    for step in path {
        step.expr.for_each_var(&mut |name, sort| {
            if out.iter().any(|(n, _)| n == name) || controllable.contains(name) {
                return;
            }
            let Some(value) = values.get(name) else {
                return;
            };
            let fits = matches!(
                (sort, value),
                (Sort::Int, Expr::Int(_)) | (Sort::Bool, Expr::Bool(_)) | (Sort::Str, Expr::Str(_))
            ) || matches!((sort, value), (Sort::Real, Expr::Real(x)) if x.is_finite());
            if fits {
                out.push((
                    name.to_owned(),
                    Expr::app(Op::Eq, vec![Expr::var(name, sort), value.clone()]),
                ));
            }
        });
    }
    out
}

/// Whether a step reads an object field the solver was asked to keep.
fn reads_pinned_field(step: &super::coverage::PathStep, pins: &[(String, Expr)]) -> bool {
    let mut found = false;
    step.expr.for_each_var(&mut |v, _| {
        found |= !v.starts_with('$') && pins.iter().any(|(p, _)| p == v);
    });
    found
}

/// Whether a model's value is the literal `e`.
fn same_value(value: &ModelValue, e: &Expr) -> bool {
    match (value, e) {
        (ModelValue::Int(a), Expr::Int(b)) => a.as_str() == &**b,
        (ModelValue::Bool(a), Expr::Bool(b)) => a == b,
        (ModelValue::Str(a), Expr::Str(b)) => a.as_str() == &**b,
        (ModelValue::Real(a), Expr::Real(b)) => a == b,
        (ModelValue::Real(a), Expr::Int(b)) => b.parse::<f64>().is_ok_and(|b| b == *a),
        _ => false,
    }
}

fn current_value(candidate: &Candidate, name: &str) -> Option<ModelValue> {
    candidate.vars.get(name).cloned()
}

/// Every variable name a request's trees define (and the lengths of its containers).
/// Whether `name` is an element (`xs[2]`) of a container input whose length the solver
/// controls: the element exists once the model's length is built, though this candidate's
/// shorter container has no such variable yet.
fn element_of_container(controllable: &FxHashSet<String>, name: &str) -> bool {
    name.match_indices('[').any(|(i, _)| {
        let rest = &name[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0
            && rest[digits..].starts_with(']')
            && controllable.contains(&format!("{}.__len__", &name[..i]))
    })
}

fn controllable_names(request: &ExecuteRequest) -> FxHashSet<String> {
    let mut out = FxHashSet::default();
    fn walk(t: &ValueTree, out: &mut FxHashSet<String>) {
        if let Some(s) = &t.sym {
            out.insert(s.clone());
            if matches!(
                t.value,
                Value::List { .. } | Value::Tuple { .. } | Value::Set { .. } | Value::Dict { .. }
            ) {
                out.insert(format!("{s}.__len__"));
            }
        }
        match &t.value {
            Value::List { items } | Value::Tuple { items } | Value::Set { items } => {
                items.iter().for_each(|i| walk(i, out))
            }
            Value::Dict { items } => items.iter().for_each(|(k, v)| {
                walk(k, out);
                walk(v, out)
            }),
            Value::Object {
                args,
                kwargs,
                calls,
                ..
            } => {
                args.iter()
                    .chain(kwargs.values())
                    .for_each(|a| walk(a, out));
                for c in calls {
                    c.args
                        .iter()
                        .chain(c.kwargs.values())
                        .for_each(|a| walk(a, out));
                }
            }
            Value::Factory { args, kwargs, .. } => args
                .iter()
                .chain(kwargs.values())
                .for_each(|a| walk(a, out)),
            Value::Callable { returns } => returns.iter().for_each(|r| walk(r, out)),
            _ => {}
        }
    }
    for t in request
        .args
        .iter()
        .chain(request.kwargs.values())
        .chain(request.receiver.iter())
        .chain(request.mocks.iter().flat_map(|m| m.returns.iter()))
    {
        walk(t, &mut out);
    }
    out
}

/// The choice of how many arguments `*name` collects.
fn varargs_choice(name: &str) -> String {
    format!("*{name}")
}

/// How an input of `shape` takes values of shape `want`: `Some(None)` when it is one,
/// `Some(Some(k))` when its choice's alternative `k` is one.
fn variant_of(shape: &Shape, want: &Shape) -> Option<Option<usize>> {
    if shape == want {
        return Some(None);
    }
    shape.variants().iter().position(|v| v == want).map(Some)
}

/// The choices of an input of `shape` at `path`, with their number of alternatives;
/// `calls(path)` is how many values the callable input at `path` returns.
fn collect_choices(
    shape: &Shape,
    path: &str,
    calls: &dyn Fn(&str) -> usize,
    out: &mut Vec<(String, usize)>,
) {
    let count = shape.choice_count();
    if count > 1 && !out.iter().any(|(p, _)| p == path) {
        out.push((path.to_owned(), count.min(8)));
    }
    match shape {
        Shape::Optional(inner) => collect_choices(inner, path, calls, out),
        Shape::Union(members) => {
            for m in members {
                if let Shape::Callable { .. } = m {
                    collect_choices(m, path, calls, out);
                }
            }
        }
        Shape::Callable { returns, .. } => {
            for k in 0..calls(path) {
                collect_choices(returns, &call_return(path, k), calls, out);
            }
        }
        Shape::Object(o) => {
            for (name, s) in &o.init {
                collect_choices(s, &format!("{path}.__init__.{name}"), calls, out);
            }
        }
        _ => {}
    }
}

/// Hashes of a path's prefixes: `out[i]` identifies the steps before step `i`. Long paths
/// (loops run thousands of times) make keys of their text too large to keep.
fn prefix_hashes(path: &[super::coverage::PathStep]) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let mut out = Vec::with_capacity(path.len() + 1);
    let mut hasher = rustc_hash::FxHasher::default();
    out.push(hasher.finish());
    for step in path {
        step.assertion().to_string().hash(&mut hasher);
        out.push(hasher.finish());
    }
    out
}

fn text_hash(e: &Expr) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    e.to_string().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::coverage::PathStep;

    fn step(expr: Expr, value: bool) -> PathStep {
        PathStep {
            expr,
            value,
            origin: Origin::Other,
            occurrence: 0,
        }
    }

    #[test]
    fn pins_keep_external_returns_at_their_values() {
        // requested > $ret:0, and a float the call returned that the path does not use.
        let path = vec![step(
            Expr::app(
                Op::Gt,
                vec![
                    Expr::var("requested", Sort::Int),
                    Expr::var("$ret:0", Sort::Int),
                ],
            ),
            false,
        )];
        let mut values = FxHashMap::default();
        values.insert("$ret:0".to_owned(), Expr::int(4));
        values.insert("$ret:1".to_owned(), Expr::Real(0.5));
        let pinned = pins(&path, &values, &FxHashSet::default());
        assert_eq!(pinned.len(), 1);
        assert_eq!(pinned[0].0, "$ret:0");
        assert_eq!(pinned[0].1.to_string(), "$ret:0 == 4");
        // A value of another sort than the symbol's, or not finite, is not a pin.
        values.insert("$ret:0".to_owned(), Expr::Real(f64::NAN));
        assert!(pins(&path, &values, &FxHashSet::default()).is_empty());
        // An input is never pinned.
        values.insert("$ret:0".to_owned(), Expr::int(4));
        let controllable: FxHashSet<String> = ["$ret:0".to_owned()].into_iter().collect();
        assert!(pins(&path, &values, &controllable).is_empty());
    }

    #[test]
    fn values_are_moved_away_from_a_drifting_boundary() {
        let before = Candidate::default();
        let mut next = Candidate::default();
        next.vars.insert("timeout".into(), ModelValue::Real(0.5));
        next.vars.insert("n".into(), ModelValue::Int("3".into()));
        let moved: Vec<ModelValue> = away_from_boundary(&before, &next)
            .into_iter()
            .map(|c| c.vars["timeout"].clone())
            .collect();
        assert_eq!(moved, [1.0, 0.25, 1.5, -0.5].map(ModelValue::Real).to_vec());
        assert!(away_from_boundary(&next, &next).is_empty());
    }

    #[test]
    fn prefix_hashes_tell_paths_apart() {
        let a = step(Expr::var("x", Sort::Bool), true);
        let b = step(Expr::var("y", Sort::Bool), true);
        let one = prefix_hashes(&[a.clone(), b.clone()]);
        let two = prefix_hashes(&[a.clone(), step(Expr::var("y", Sort::Bool), false)]);
        assert_eq!(one.len(), 3);
        assert_eq!(one[..2], two[..2], "same steps, same prefixes");
        assert_ne!(one[2], two[2]);
        assert_ne!(prefix_hashes(&[b, a])[1], one[1]);
    }

    /// A parameter's domain comes from the type the agent described, not from its name: a
    /// project's `hour` is any int, a mocked `datetime.now()`'s `hour` (or a `datetime`
    /// parameter's) is an hour, a mocked `uuid4()`'s hex digits are 32 hex digits.
    #[test]
    fn only_value_type_arguments_are_kept_within_their_domains() {
        use serde_json::json;
        let datetime = json!({"kind": "class", "class": "datetime:datetime", "methods": [],
            "init": [{"name": "hour", "kind": "positional_or_keyword", "type": {"kind": "int"},
                      "default": "12", "domain": {"min": 0, "max": 23}}]});
        let uuid = json!({"kind": "class", "class": "uuid:UUID", "methods": [],
            "init": [{"name": "hex", "kind": "positional_or_keyword", "type": {"kind": "str"},
                      "default": "'0'", "domain": {"length": 32, "alphabet": "0123456789abcdef"}}]});
        let slot = json!({"kind": "class", "class": "shop.slots:Slot", "methods": [],
            "init": [{"name": "hour", "kind": "positional_or_keyword", "type": {"kind": "int"}}]});
        let guidance = Guidance::from_describe(&json!({"mocks": [
            {"target": "datetime.datetime.now", "returns": datetime},
            {"target": "uuid.uuid4", "returns": uuid},
        ]}));
        let signature = Signature {
            params: vec![
                ("hour".into(), Shape::Int),
                ("slot".into(), Shape::from_describe(&slot)),
                (
                    "when".into(),
                    Shape::from_describe(&json!({"kind": "optional", "of": datetime})),
                ),
            ],
            keyword_only: vec![],
            varargs: None,
            defaults: BTreeMap::new(),
            receiver: None,
            writers: FxHashMap::default(),
            guidance: std::sync::Arc::new(guidance),
        };
        let mut solver = Solver::new(5_000).with_domains(signature.domains());
        let mut past_midnight = |name: &str| {
            let above = Expr::app(Op::Gt, vec![Expr::var(name, Sort::Int), Expr::int(23)]);
            solver.check(&[above])
        };
        assert!(matches!(past_midnight("hour"), Answer::Sat(_)));
        assert!(matches!(
            past_midnight("slot.__init__.hour"),
            Answer::Sat(_)
        ));
        assert_eq!(past_midnight("$mock:0[2].__init__.hour"), Answer::Unsat);
        assert_eq!(past_midnight("when.__init__.hour"), Answer::Unsat);
        let late = Expr::app(
            Op::Ge,
            vec![
                Expr::var("$mock:0[0].__init__.hour", Sort::Int),
                Expr::int(22),
            ],
        );
        let Answer::Sat(model) = solver.check(&[late]) else {
            panic!("an hour of 22 or 23 exists");
        };
        assert!(matches!(
            &model.values["$mock:0[0].__init__.hour"],
            ModelValue::Int(h) if h == "22" || h == "23"
        ));
        let hex = Expr::var("$mock:1[0].__init__.hex", Sort::Str);
        let starts = |prefix: &str| {
            Expr::app(
                Op::StrStartsWith,
                vec![hex.clone(), Expr::Str(prefix.into())],
            )
        };
        assert_eq!(solver.check(&[starts("g")]), Answer::Unsat);
        let Answer::Sat(model) = solver.check(&[starts("00000000")]) else {
            panic!("a hex string starting with zeros exists");
        };
        assert!(matches!(
            &model.values["$mock:1[0].__init__.hex"],
            ModelValue::Str(s) if s.len() == 32 && s.chars().all(|c| c.is_ascii_hexdigit())
        ));
    }
}
