//! What exploring a function found: the tests worth keeping with what each showed, the sides
//! covered and the MC/DC obligations shown, and for every side left uncovered what was tried
//! (the attempts the explanations read), with the external calls, conditions and loops seen.
//! Plain data: the search fills it, explanations, emitters and the server read it.

use super::inputs::Candidate;
use crate::agent::protocol::{ExecuteRequest, Literal, Position, SideEffect, Status};
use crate::agent::state::{ChangedArguments, ObjectState};
use crate::model::mcdc::{Independence, Obligation};
use crate::symbolic::Expr;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A generated test: an input worth keeping, and what it did.
#[derive(Clone, Debug, Serialize, Deserialize)]
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
    /// The module-level state the run changed, by access path (`moneyed.classes.CURRENCIES`):
    /// the emitted test puts it back when it ends, so that the next test starts from the
    /// modules as imported, as each run in the generator did.
    #[serde(default)]
    pub module_state: Vec<String>,
    /// When it was found, from the start of the search.
    pub found_after: Duration,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    Returned {
        repr: String,
        type_name: String,
        #[serde(with = "crate::agent::protocol::stored_literal")]
        literal: Option<Literal>,
        /// The items of a tuple subclass's value (a named tuple) as a tuple literal.
        #[serde(default, with = "crate::agent::protocol::stored_literal")]
        items: Option<Literal>,
        /// For another value: the standard-library value it is, or its public fields.
        #[serde(default)]
        state: ObjectState,
        /// The public fields of the method's receiver that the call set or changed, as they
        /// were after it returned.
        #[serde(default)]
        receiver: ObjectState,
        /// The container arguments the call changed, as they were after it returned.
        #[serde(default)]
        arguments: ChangedArguments,
    },
    Raised {
        type_name: String,
        message: String,
    },
    /// Timed out, crashed or ran out of memory: kept for explanations, never emitted.
    Failed(Status),
}

/// What the search learned about a branch side it could not cover.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
        /// The constructor writes it (from what it is given), when no method does.
        #[serde(default)]
        constructed: bool,
    },
}

/// What is known of each condition as last seen evaluated.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ConditionSeen {
    #[serde(with = "stored_expr")]
    pub expr: Option<Expr>,
    pub values: BTreeSet<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExternalCallSeen {
    pub callee: String,
    /// The file the call site is in.
    pub file: Option<String>,
    pub pos: Option<Position>,
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

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Exploration {
    pub tests: Vec<GeneratedTest>,
    /// Covered sides, with the index of the test that covered each first.
    #[serde(with = "pairs")]
    pub covered: BTreeMap<(usize, bool), usize>,
    pub reached: FxHashSet<usize>,
    /// Boolean values evaluated to their last operand, whose outcome cannot be observed.
    pub unobservable: FxHashSet<usize>,
    pub independence: FxHashMap<usize, Independence>,
    /// For each side not covered, what was tried.
    #[serde(with = "pairs")]
    pub attempts: BTreeMap<(usize, bool), Vec<Attempt>>,
    /// For each (decision, condition, value) whose other value was asked for, what was tried:
    /// why an MC/DC obligation stays unmet.
    #[serde(with = "pairs")]
    pub condition_attempts: BTreeMap<(usize, u16, bool), Vec<Attempt>>,
    /// Per (decision, condition): the symbolic expression and values seen.
    #[serde(with = "pairs")]
    pub conditions: BTreeMap<(usize, u16), ConditionSeen>,
    /// External calls seen, by callee and position, with the `$ret` variables they returned.
    pub external_calls: Vec<ExternalCallSeen>,
    /// Which external call each `$ret:n` variable of the latest run came from, per run
    /// rendered to the callee's index in `external_calls`.
    pub return_symbols: FxHashMap<String, usize>,
    /// Max iterations seen per loop (by its source line).
    pub loop_iterations: BTreeMap<u32, u32>,
    /// The classes of object inputs by parameter (`self` for the receiver), and who writes
    /// their fields (those classes' only): for explaining conditions on object state the agent
    /// saw only concretely.
    pub object_classes: BTreeMap<String, String>,
    #[serde(with = "pairs")]
    pub writers: FxHashMap<(String, String), Vec<String>>,
    pub executions: u32,
    pub elapsed: Duration,
    pub solver_queries: u64,
    /// Why nothing could run, when nothing could.
    pub failure: Option<String>,
    /// Sides taken only by runs that did not finish (timed out, out of memory, crashed), with
    /// the first such run: never kept as tests, so these sides stay uncovered.
    #[serde(with = "pairs")]
    pub unfinished: BTreeMap<(usize, bool), Unfinished>,
    /// Sides a run took that the same input did not take when run again: they depend on
    /// state earlier calls change (a module-level cache, a counter). Never claimed as covered,
    /// and never as dead: the code runs.
    pub unrepeatable: BTreeSet<(usize, bool)>,
    /// Runs whose inputs could not be built (a constructor, a method call setting an object's
    /// state, or a factory raised), with the first such failure.
    pub unbuilt: Option<Unbuilt>,
    /// Annotations of its parameters the agent could not read (see `Signature::unread`).
    pub unread_annotations: Vec<String>,
    /// What ended the search.
    pub stop: Stop,
    /// The runs that raised before any decision, by exception type and place, most runs
    /// first (at most [`MAX_UNDECIDED`] kinds): what a decision never reached hit instead.
    #[serde(default)]
    pub undecided: Vec<FailingAlike>,
    /// Inputs near the project's own tests' run once coverage was done, for what they break
    /// of those tests' invariants, and how many were kept for it ([`crate::explore::search::AnomalyCheck`]).
    #[serde(default)]
    pub neighbours: Neighbours,
    /// The function's `except` clauses (`FunctionSyntax::handlers`, in order) and whether a
    /// kept test enters each.
    #[serde(default)]
    pub handlers: Vec<bool>,
}

impl Exploration {
    /// The `except` clauses a kept test enters, of how many.
    pub fn handlers_entered(&self) -> (usize, usize) {
        let entered = self.handlers.iter().filter(|e| **e).count();
        (entered, self.handlers.len())
    }
}

/// What the search's look at inputs near the project's own tests' found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Neighbours {
    /// Inputs run.
    pub run: u32,
    /// Runs within what the tests speak for (inputs and paths like theirs), checked against
    /// their invariants.
    pub checked: u32,
    /// Kept as tests: their runs broke an invariant few others broke.
    pub kept: u32,
    /// By invariant (its key), the checked runs not kept as tests that broke it: with the
    /// tests that break it, what the ranking's uniqueness counts.
    pub breaking: BTreeMap<String, u32>,
}

/// What ended a search (besides covering everything, which the report judges from the tests
/// kept). Only the time limits make the same code and configuration give another result on
/// another run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stop {
    /// Nothing was left to try (or everything was covered).
    #[default]
    Exhausted,
    /// The function's own time budget (`function-time-ms`) ran out.
    Time,
    /// Its share of the run's time budget (`--budget`, `run-time-s`) ran out: the share, which
    /// was below its own time budget.
    RunShare(Duration),
    /// Its share of the run's time budget was spent before its turn came.
    RunSpent,
    /// The execution budget (`function-executions`) ran out.
    Executions,
    /// No new branch side or MC/DC obligation for this long (`stall-share` of its time).
    Stalled(Duration),
    /// No new branch side or MC/DC obligation in this many runs (`stall-share` of
    /// `function-executions`, in a reproducible run).
    StalledRuns(u32),
    /// Every run raised the same exception at the same line before its first decision.
    FailingAlike(FailingAlike),
}

/// Runs that all fail the same way before the function's first decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailingAlike {
    /// `KeyError: 'region'`.
    pub exception: String,
    /// The line (of a project file) it was raised at.
    pub line: Option<u32>,
    /// The project file of that line, when the agent said.
    #[serde(default)]
    pub file: Option<String>,
    pub runs: u32,
}

/// How many kinds of failure before the first decision [`Exploration::undecided`] keeps.
pub const MAX_UNDECIDED: usize = 4;

impl Exploration {
    /// Counts a run that raised `exception` (its type `type_name`) before any decision.
    pub fn count_undecided(&mut self, type_name: &str, exception: FailingAlike) {
        let same = |f: &FailingAlike| {
            f.exception.split(':').next() == Some(type_name)
                && f.line == exception.line
                && f.file == exception.file
        };
        if let Some(seen) = self.undecided.iter_mut().find(|f| same(f)) {
            seen.runs += 1;
        } else if self.undecided.len() < MAX_UNDECIDED {
            self.undecided.push(exception);
        }
        self.undecided.sort_by_key(|f| std::cmp::Reverse(f.runs));
    }
}

impl Stop {
    /// What a user reads about a stop that is not the end of the search's work, or `None`.
    pub fn describe(&self) -> Option<String> {
        match self {
            Stop::Exhausted | Stop::Executions | Stop::Time => None,
            Stop::RunShare(share) => Some(format!(
                "stopped by its share of the run's time budget ({} ms): another run may differ",
                share.as_millis()
            )),
            Stop::RunSpent => Some(
                "the run's time budget was spent before its turn: raise `--budget` (or `run-time-s`) or check fewer files".into(),
            ),
            Stop::Stalled(after) => Some(format!(
                "stopped after {} ms without a new branch side: not every side is covered, another run may differ",
                after.as_millis()
            )),
            Stop::StalledRuns(runs) => Some(format!(
                "stopped after {runs} runs without a new branch side: not every side is covered"
            )),
            Stop::FailingAlike(f) => Some(format!(
                "stopped after {} runs in a row raised `{}`{} before reaching a decision, on every input tried",
                f.runs,
                // `<NamedNodeMap object at 0x7f2c…>`: the address differs from run to run.
                without_addresses(&f.exception),
                f.line.map(|l| format!(" at line {l}")).unwrap_or_default()
            )),
        }
    }
}

/// `text` without the memory addresses Python's reprs carry (`<… object at 0x7f94a698bd90>`),
/// which differ from run to run.
pub fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" at 0x") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " at 0x".len()..];
        let hex = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        if hex == 0 {
            out.push_str(" at 0x");
        }
        rest = &after[hex..];
    }
    out.push_str(rest);
    out
}

/// Runs whose inputs could not be built.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Unbuilt {
    pub runs: u32,
    /// The first failure: `shop:Cart(...) raised TypeError: …`.
    pub error: String,
    /// The class (`module:Qual`) whose construction raised, when it was a class's.
    pub class: Option<String>,
}

/// A run that took a side and did not finish.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Unfinished {
    pub status: Status,
    pub request: ExecuteRequest,
}

impl Exploration {
    /// Whether one of the first `conditions` conditions of decision `decision` ran without a
    /// symbolic form (an operation the recorder does not model): the solver never saw it on
    /// the paths that reached it.
    pub fn ran_unmodelled(&self, decision: usize, conditions: usize) -> bool {
        (0..conditions as u16).any(|c| {
            self.conditions
                .get(&(decision, c))
                .is_some_and(|seen| seen.expr.is_none())
        })
    }

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
                        .insert(Obligation { condition, value });
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
    pub(crate) fn conditions_concrete(&self, d: usize) -> bool {
        self.reached.contains(&d)
            && !self
                .conditions
                .range((d, 0)..(d + 1, 0))
                .any(|(_, seen)| seen.expr.is_some())
    }
}

/// Maps keyed by tuples, kept as lists of pairs (JSON keys are strings).
mod pairs {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<'a, M, K, V, S>(map: &'a M, s: S) -> Result<S::Ok, S::Error>
    where
        &'a M: IntoIterator<Item = (&'a K, &'a V)>,
        K: Serialize + 'a,
        V: Serialize + 'a,
        S: Serializer,
    {
        s.collect_seq(map)
    }

    pub fn deserialize<'de, M, K, V, D>(d: D) -> Result<M, D::Error>
    where
        M: FromIterator<(K, V)>,
        K: Deserialize<'de>,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}

/// Expressions kept in the store in the agent's form, read back through its checks.
mod stored_expr {
    use crate::symbolic::Expr;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(e: &Option<Expr>, s: S) -> Result<S::Ok, S::Error> {
        e.as_ref().map(Expr::to_json).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Expr>, D::Error> {
        match Option::<serde_json::Value>::deserialize(d)? {
            None => Ok(None),
            Some(v) => Expr::from_json(&v)
                .map(Some)
                .map_err(serde::de::Error::custom),
        }
    }
}
