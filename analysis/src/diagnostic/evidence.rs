//! The facts behind a diagnostic, typed (`Evidence`: an uncovered side's or an unmet obligation's
//! cause and fact, a suspicious assertion, an import failure, a function not explored). Plain
//! data, no LSP: written as JSON (`to_json`, keys sorted) only by the edges that send it out.

use super::Cause;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::PathBuf;

/// What a diagnostic's machine-readable payload says, one variant per kind of diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Evidence {
    /// An MC/DC obligation left unmet (`LCN200`, `LCN201`).
    Obligation(UnmetObligation),
    /// A branch side no generated test takes (`LCN100`–`LCN106`).
    Side(UncoveredSide),
    /// A generated assertion that breaks an invariant of the project's tests (`LCN300`).
    Suspicious(SuspiciousAssertion),
    /// A module of the project that cannot be imported (`LCN108`).
    ImportFailed(ImportFailed),
    /// A function with branch sides that was not explored (`LCN107`).
    NotExplored(NotExplored),
}

impl Evidence {
    /// The JSON form every edge writes: an object whose keys are sorted.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The cause's fact of an uncovered side or of an unmet obligation.
    pub fn fact(&self) -> Option<&Fact> {
        match self {
            Evidence::Side(side) => Some(&side.fact),
            Evidence::Obligation(obligation) => Some(&obligation.fact),
            _ => None,
        }
    }

    pub fn side(&self) -> Option<&UncoveredSide> {
        match self {
            Evidence::Side(side) => Some(side),
            _ => None,
        }
    }

    pub fn side_mut(&mut self) -> Option<&mut UncoveredSide> {
        match self {
            Evidence::Side(side) => Some(side),
            _ => None,
        }
    }

    pub fn obligation(&self) -> Option<&UnmetObligation> {
        match self {
            Evidence::Obligation(obligation) => Some(obligation),
            _ => None,
        }
    }

    pub fn suspicious(&self) -> Option<&SuspiciousAssertion> {
        match self {
            Evidence::Suspicious(s) => Some(s),
            _ => None,
        }
    }
}

/// Why a branch side stayed uncovered, and what the editor adds to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UncoveredSide {
    /// The cause the explanation found (its name: `external-call` for both kinds of external
    /// call, which the diagnostic's code tells apart).
    #[serde(with = "cause_name")]
    pub cause: Cause,
    /// The decision's ID.
    pub decision: String,
    /// The side: `true` (a loop's enter side) or `false`, written `"true"`/`"false"`.
    #[serde(with = "side_name")]
    pub side: bool,
    #[serde(flatten)]
    pub fact: Fact,
    /// The decision whose uncovered side this one is only reached through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// What the side needs, as Python (`not (x > 0)`): the editor's.
    #[serde(
        rename = "path_condition",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub needs: Option<String>,
    /// The generated input that reached the decision and took the other side, as the calls
    /// of a test (one per line): the editor's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest: Option<String>,
    /// What the project's own tests show of the side: the editor's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteView>,
}

impl UncoveredSide {
    pub fn new(cause: Cause, decision: impl Into<String>, side: bool, fact: Fact) -> Self {
        UncoveredSide {
            cause,
            decision: decision.into(),
            side,
            fact,
            guard: None,
            needs: None,
            closest: None,
            suite: None,
        }
    }
}

/// The fact a cause rests on. Each kind has keys of its own, so that its JSON form (its fields
/// beside the side's or the obligation's) says which it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fact {
    /// The return value of a call generated inputs cannot control.
    ExternalCall(ExternalCall),
    /// The external call whose returned value a condition reads (an obligation's).
    ReturnOf(ReturnOf),
    /// A fact of the interpreter the tests run under (`sys.version_info`).
    Interpreter(InterpreterFacts),
    /// A field of an object input that only methods change.
    ObjectState(ObjectState),
    /// No run got past building its inputs.
    Unbuilt(Unbuilt),
    /// The only run that took the side did not finish.
    Unfinished(UnfinishedRun),
    /// More loop iterations (or writer calls) than the bound allows.
    LoopBound(LoopBound),
    /// The solver answered unknown.
    Undecided(Undecided),
    /// Operations the solver does not model.
    Unmodelled(Unmodelled),
    /// Parameters read through operations the generator does not follow.
    Untracked(Untracked),
    /// Module state the condition reads, which generated inputs do not set.
    ModuleState(ModuleState),
    /// The guards a proof of dead code used.
    Dead(DeadProof),
    /// Nothing more specific than the cause.
    Unspecific {},
}

impl Fact {
    /// The external call named: its callee.
    pub fn callee(&self) -> Option<&str> {
        match self {
            Fact::ExternalCall(call) => Some(&call.callee),
            Fact::ReturnOf(call) => Some(&call.callee),
            _ => None,
        }
    }

    /// What the call that decides it reads (`environment`, `opaque`).
    pub fn external(&self) -> Option<ExternalKind> {
        match self {
            Fact::ExternalCall(call) => Some(call.external),
            Fact::ReturnOf(call) => Some(call.external),
            Fact::Interpreter(facts) => Some(facts.external),
            _ => None,
        }
    }

    /// The type the named external call returns, for its mock.
    pub fn returns(&self) -> Option<&str> {
        match self {
            Fact::ExternalCall(call) => call.returns.as_deref(),
            Fact::ReturnOf(call) => call.returns.as_deref(),
            _ => None,
        }
    }

    /// The class (`module:Qual`) of the object a factory would build.
    pub fn class(&self) -> Option<&str> {
        match self {
            Fact::ObjectState(state) => state.class.as_deref(),
            Fact::Unbuilt(unbuilt) => unbuilt.class.as_deref(),
            _ => None,
        }
    }

    /// The field object state depends on.
    pub fn field(&self) -> Option<&str> {
        match self {
            Fact::ObjectState(state) => Some(&state.field),
            _ => None,
        }
    }

    /// The methods that write the field object state depends on.
    pub fn writers(&self) -> Option<&[String]> {
        match self {
            Fact::ObjectState(state) => Some(&state.writers),
            _ => None,
        }
    }

    /// How many loop iterations or writer calls the side needs, when that is known.
    pub fn needed(&self) -> Option<u64> {
        match self {
            Fact::ObjectState(state) => state.calls_needed,
            Fact::LoopBound(bound) => Some(bound.needed),
            _ => None,
        }
    }
}

/// Kinds of external calls, because their fixes differ: an *environment* call's result depends
/// on the world outside the inputs (the fix is a mock); an *opaque* call is deterministic but
/// not modelled (a mock is only the fallback).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExternalKind {
    Environment,
    Opaque,
}

impl ExternalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExternalKind::Environment => "environment",
            ExternalKind::Opaque => "opaque",
        }
    }
}

/// An external call a condition depends on, at its call site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalCall {
    pub callee: String,
    /// 1-based line of the call site (0 when unknown).
    pub line: u32,
    pub external: ExternalKind,
    /// The inputs its arguments were computed from.
    pub arguments_from_inputs: Vec<String>,
    /// What it returns, as a mock's annotation (`bool`, `Optional[str]`).
    pub returns: Option<String>,
    /// Its value follows from its arguments: a mock would replace the code's own logic.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pure: bool,
    /// The file of the call site, when another project function made the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// It raised every time it was called (or every run raised after it): what follows never
    /// ran.
    #[serde(default, skip_serializing_if = "is_false")]
    pub raised: bool,
}

/// The external call whose returned value a condition of an obligation reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReturnOf {
    pub callee: String,
    pub external: ExternalKind,
    pub returns: Option<String>,
}

/// The facts of the interpreter a condition reads (`sys.version_info`, `sys.platform`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpreterFacts {
    /// Always `environment`: the Python running the tests fixes them.
    pub external: ExternalKind,
    pub interpreter: Vec<String>,
}

/// A field of an object input that no constructor argument or setter reaches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectState {
    /// `module:Qual`, when the object's class is known.
    pub class: Option<String>,
    pub field: String,
    /// The access path read (`self._items.__len__`).
    pub path: String,
    /// The methods that write the field.
    pub writers: Vec<String>,
    /// The writer calls the state needs, more than the generator makes.
    pub calls_needed: Option<u64>,
}

/// No run got past building its inputs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unbuilt {
    /// The class (`module:Qual`) whose construction raised, when it was a class's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The first failure.
    pub error: String,
    pub runs: u32,
}

/// The only run that took a side and did not finish.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnfinishedRun {
    /// How it ended: `timeout`, `memory`, `crash`…
    pub run: String,
    pub timeout_ms: u64,
    /// The input, as a test's calls (`setup; call`).
    pub input: Option<String>,
}

/// A side that needs more loop iterations than the loop bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopBound {
    pub needed: u64,
    pub bound: u32,
}

/// The solver could not decide a condition: why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undecided {
    pub reason: String,
}

/// The operations of a condition the solver does not model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmodelled {
    pub operations: Vec<String>,
}

/// The parameters a condition reads through operations the generator does not model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Untracked {
    pub parameters: Vec<String>,
}

/// The module globals (no constants) a condition reads: state other calls change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleState {
    pub globals: Vec<String>,
    /// The same input took the side on one run and not on another.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unrepeatable: bool,
}

/// A side z3 proved dead: the guards its proof used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadProof {
    pub guards: Vec<GuardSide>,
}

/// One side of a decision (a guard of a proof).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardSide {
    pub decision: String,
    #[serde(with = "side_name")]
    pub side: bool,
}

/// What the project's own tests show of an uncovered side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteView {
    /// The function's name as the suite's ledger knows it.
    pub function: String,
    /// How many of the tests call the function.
    pub reached: usize,
    #[serde(flatten)]
    pub shows: SuiteShows,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SuiteShows {
    /// A test of the suite takes the side.
    Covered { covered_by: String },
    /// None takes it; the one that comes closest, and whether it reached the decision.
    Closest { closest: String, at_decision: bool },
    /// No test calls the function.
    Nothing {},
}

/// An MC/DC obligation the generated tests leave unmet, with the vector that would meet it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmetObligation {
    pub kind: ObligationKind,
    /// The decision's ID.
    pub decision: String,
    /// The condition's 0-based index in evaluation order.
    pub condition: u16,
    pub value: bool,
    /// No vector that would show it is satisfiable.
    pub infeasible: bool,
    /// The evaluated conditions of a vector that would show it.
    pub vector: Option<Vec<VectorCondition>>,
    /// What the tests show, per condition.
    pub shown: Vec<ShownCondition>,
    /// Why the search could not meet it, when that is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<ObligationCause>,
    /// The fact behind that cause ([`Fact::Unspecific`] for none).
    #[serde(flatten)]
    pub fact: Fact,
}

/// The `kind` of an obligation's JSON: one value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ObligationKind {
    #[default]
    #[serde(rename = "mcdc-obligation")]
    McdcObligation,
}

/// One condition of a vector: its index, text and value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorCondition {
    pub condition: u16,
    pub text: Option<String>,
    pub value: bool,
}

/// Whether the tests showed a condition's independent effect as false and as true.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownCondition {
    pub text: String,
    #[serde(rename = "false")]
    pub as_false: bool,
    #[serde(rename = "true")]
    pub as_true: bool,
}

/// Why an obligation is unmet: a cause, or conditions CPython evaluates without testing them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObligationCause {
    Cause(Cause),
    Unobservable,
}

impl ObligationCause {
    pub fn as_str(self) -> &'static str {
        match self {
            ObligationCause::Cause(cause) => cause.as_str(),
            ObligationCause::Unobservable => "unobservable",
        }
    }
}

impl Serialize for ObligationCause {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ObligationCause {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        if name == "unobservable" {
            return Ok(ObligationCause::Unobservable);
        }
        cause_name::parse(&name)
            .map(ObligationCause::Cause)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown cause `{name}`")))
    }
}

/// A suspicious assertion (`LCN300`): the invariant it breaks, with its support, and the
/// generated test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuspiciousAssertion {
    /// 1 for the most suspicious of the run.
    pub rank: usize,
    pub score: Measure,
    /// The input breaks no invariant of the function's entry.
    pub ordinary: bool,
    /// The function (`module:qualname`).
    pub function: String,
    pub invariant: String,
    /// The program point (`exit`, `entry`).
    pub point: String,
    /// The branch side a conditional invariant holds on (`` `b == 0` was true``).
    pub condition: Option<String>,
    /// The generated run's value.
    pub value: String,
    pub input: String,
    pub similarity: Measure,
    pub support: InvariantSupport,
    pub violations: Vec<BrokenInvariant>,
    pub test: EmittedAssertion,
}

/// What supports an invariant in the project's passing tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantSupport {
    pub calls: u64,
    pub samples: usize,
    pub confidence: Measure,
    pub tests: Vec<String>,
    pub seen: Vec<String>,
}

/// One invariant a generated run breaks, with its value and how unique the break is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokenInvariant {
    pub invariant: String,
    pub point: String,
    pub value: String,
    pub uniqueness: Measure,
}

/// The generated test and its assertion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmittedAssertion {
    /// The emitted file, when tests were written.
    pub file: Option<String>,
    pub name: String,
    pub line: u32,
    pub assertion: String,
    pub source: String,
    pub imports: Vec<String>,
}

/// A number measured (a score, a similarity, a confidence). Compared by its bits, so that a
/// diagnostic is `Eq`; a value that is not finite is written `null`, as JSON has no other.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measure(pub f64);

impl PartialEq for Measure {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Measure {}

impl Serialize for Measure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_unit()
        }
    }
}

impl<'de> Deserialize<'de> for Measure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Measure(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN)))
    }
}

/// Why a module of the project cannot be imported, and the fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportFailed {
    /// The exception's type (`ModuleNotFoundError`).
    pub error: String,
    /// Its message.
    pub exception: String,
    /// The module `import` could not find, when that is the failure.
    pub missing: Option<String>,
    /// The distribution to install, for a missing dependency.
    pub install: Option<String>,
    /// The modules of the project that fail because of it.
    pub modules: Vec<String>,
    /// How many functions are not explored because of it.
    pub functions: usize,
    /// The project modules being imported, outermost first.
    pub chain: Vec<ImportLink>,
}

/// One import statement of an import's chain: a project module that was being imported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportLink {
    /// Its module name (none for a file the compiler rejected before it ran).
    pub module: Option<String>,
    pub file: PathBuf,
    /// 1-based line of the statement that was running.
    pub line: u32,
}

/// A function with branch sides that was not explored: why, and the sides it leaves untested.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotExplored {
    pub reason: String,
    pub branch_sides: usize,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A branch side as JSON names it: `"true"` or `"false"`.
mod side_name {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(side: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if *side { "true" } else { "false" })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        match String::deserialize(d)?.as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(serde::de::Error::custom(format!("no side `{other}`"))),
        }
    }
}

/// A cause as JSON names it ([`Cause::as_str`]); `external-call` is read as
/// [`Cause::ExternalCall`].
mod cause_name {
    use super::Cause;
    use serde::{Deserialize, Deserializer, Serializer};

    const ALL: [Cause; 6] = [
        Cause::ExternalCall,
        Cause::ObjectCreation,
        Cause::Boundary,
        Cause::SolverLimit,
        Cause::Infeasible,
        Cause::Budget,
    ];

    pub fn parse(name: &str) -> Option<Cause> {
        ALL.into_iter().find(|c| c.as_str() == name)
    }

    pub fn serialize<S: Serializer>(cause: &Cause, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(cause.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Cause, D::Error> {
        let name = String::deserialize(d)?;
        parse(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown cause `{name}`")))
    }
}

#[cfg(test)]
mod tests;
