//! The agent's JSON-lines protocol, typed (described in `docs/agent-protocol.md`): value trees
//! the generator sends, and what one execution reports back.

pub use super::literal::{
    LITERAL_MAX_DEPTH, LITERAL_MAX_DIGITS, LITERAL_MAX_NODES, LITERAL_MAX_TEXT, Literal,
    float_to_wire, wire_float,
};
use super::state::{ChangedArguments, ObjectState};
use crate::symbolic::Expr;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

pub const PROTOCOL: u32 = 1;

/// An input, as the generator chose it. `sym` names the variable a node becomes (an access
/// path, see `symbolic::VarPath`); nodes without one stay concrete.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueTree {
    #[serde(flatten)]
    pub value: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sym: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Value {
    /// Decimal digits.
    Int {
        value: String,
    },
    Bool {
        value: bool,
    },
    Str {
        value: String,
    },
    /// A JSON number, or `"inf"`, `"-inf"`, `"nan"`.
    Float {
        value: serde_json::Value,
    },
    None,
    /// Bytes, as the UTF-8 text they encode.
    Bytes {
        value: String,
    },
    List {
        items: Vec<ValueTree>,
    },
    Tuple {
        items: Vec<ValueTree>,
    },
    /// A tuple of any length (`tuple[str, ...]`): its length is an input, as a list's is.
    TupleOf {
        items: Vec<ValueTree>,
    },
    Set {
        items: Vec<ValueTree>,
    },
    /// An iterator over its items, in order (`iter([...])`).
    Iterator {
        items: Vec<ValueTree>,
    },
    /// An asynchronous iterator over its items, in order (an asynchronous generator yielding
    /// each).
    AsyncIterator {
        items: Vec<ValueTree>,
    },
    Dict {
        items: Vec<(ValueTree, ValueTree)>,
    },
    /// `class` is `module:Qual.name`.
    Enum {
        class: String,
        member: String,
    },
    Object {
        class: String,
        #[serde(default)]
        args: Vec<ValueTree>,
        #[serde(default)]
        kwargs: BTreeMap<String, ValueTree>,
        #[serde(default)]
        calls: Vec<MethodCall>,
    },
    Factory {
        function: String,
        #[serde(default)]
        args: Vec<ValueTree>,
        #[serde(default)]
        kwargs: BTreeMap<String, ValueTree>,
    },
    /// A callable whose n-th call returns `returns[n]` (the last one repeats), whatever its
    /// arguments.
    Callable {
        returns: Vec<ValueTree>,
    },
    /// A call of a callable input that raises instead of returning: only among a
    /// `callable`'s `returns`. `exception` is the class raised, as `module:Qual.name`
    /// (`builtins:ValueError`, `app.client:requests.RequestException` — a name the module
    /// binds); `Exception` when none.
    Raise {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exception: Option<String>,
    },
    /// An existing function or class (`builtins:dict`), passed as it is.
    Ref {
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodCall {
    pub method: String,
    #[serde(default)]
    pub args: Vec<ValueTree>,
    #[serde(default)]
    pub kwargs: BTreeMap<String, ValueTree>,
}

impl ValueTree {
    pub fn new(value: Value) -> Self {
        ValueTree { value, sym: None }
    }

    pub fn named(value: Value, sym: impl Into<String>) -> Self {
        ValueTree {
            value,
            sym: Some(sym.into()),
        }
    }

    /// Visits this node and every node inside it, parents first: container items, dict keys
    /// and values, constructor, method-call and factory arguments, a callable's return values.
    pub fn walk(&self, visit: &mut impl FnMut(&ValueTree)) {
        visit(self);
        let mut all = |trees: &mut dyn Iterator<Item = &ValueTree>| {
            trees.for_each(|t| t.walk(visit));
        };
        match &self.value {
            Value::List { items }
            | Value::Tuple { items }
            | Value::TupleOf { items }
            | Value::Set { items }
            | Value::Iterator { items }
            | Value::AsyncIterator { items } => all(&mut items.iter()),
            Value::Dict { items } => all(&mut items.iter().flat_map(|(k, v)| [k, v])),
            Value::Object {
                args,
                kwargs,
                calls,
                ..
            } => all(&mut args.iter().chain(kwargs.values()).chain(
                calls
                    .iter()
                    .flat_map(|c| c.args.iter().chain(c.kwargs.values())),
            )),
            Value::Factory { args, kwargs, .. } => all(&mut args.iter().chain(kwargs.values())),
            Value::Callable { returns } => all(&mut returns.iter()),
            _ => {}
        }
    }
}

/// The classes of the objects the project's own passing tests passed to a function (by
/// parameter name) and to its receiver's constructor (by position, `self` not counted), as
/// the observer names them (`module.Qual`): an unannotated parameter is tried as them first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ObservedClasses {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub init: BTreeMap<usize, Vec<String>>,
}

impl ObservedClasses {
    pub fn is_empty(&self) -> bool {
        self.params.is_empty() && self.init.is_empty()
    }
}

/// A request to the agent other than an execution (which is an [`ExecuteRequest`]), as it goes
/// on the wire: `{"op": "describe", "target": …}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Sent once to each worker, after the handshake: where the project is and what the
    /// worker's runs may do.
    Configure(Configure),
    /// The project's own tests under pytest, in a worker of their own: one partial message per
    /// test as it ends, then the run's end.
    Suite(SuiteRun),
    /// The target's signature as the agent reads it: its parameters' types (annotations
    /// resolved in its module), defaults and the kinds of values their uses ask for — among
    /// them the project classes the suite's passing tests passed (`observed`).
    Describe {
        target: Target,
        #[serde(skip_serializing_if = "ObservedClasses::is_empty")]
        observed: ObservedClasses,
    },
    /// The declarations of the guidance module: imported as `module` when the project's import
    /// roots hold it, otherwise from `path`.
    Guidance {
        module: Option<String>,
        path: std::path::PathBuf,
    },
    /// Asks the agent to stop.
    Shutdown,
}

/// A worker's configuration (`configure`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Configure {
    /// The project's roots: code under them (but `exclude`) is the project's.
    pub roots: Vec<std::path::PathBuf>,
    pub exclude: Vec<std::path::PathBuf>,
    /// Put first on `sys.path`: the project's import roots.
    pub sys_path: Vec<std::path::PathBuf>,
    /// The worker's working directory, the only one its runs may write in.
    pub scratch: std::path::PathBuf,
    /// The address-space limit of the worker.
    pub memory_mb: u64,
    /// Events recorded per execution before the path is cut (the agent's default when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u32>,
    /// What the in-process hook lets runs do beyond the scratch directory (the kernel's
    /// confinement is the worker's `Policy`).
    pub sandbox: SandboxGrants,
}

/// What runs may do beyond their scratch directory, as the user granted it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SandboxGrants {
    pub allow_write: Vec<std::path::PathBuf>,
    pub allow_network: bool,
    pub allow_subprocess: bool,
}

/// A run of the project's suite (`suite`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuiteRun {
    /// pytest's root directory: the project's.
    pub rootdir: std::path::PathBuf,
    /// The test files or node IDs to run.
    pub paths: Vec<std::path::PathBuf>,
    /// The directories holding the project's tests (their code is not the code under test).
    pub test_dirs: Vec<std::path::PathBuf>,
    /// Extra arguments for pytest (`pytest-args`, then what is deselected).
    pub args: Vec<String>,
    /// Per test.
    pub timeout_ms: u64,
    /// Events recorded per test before its path is cut.
    pub max_events: u32,
    /// The worker's scheduling priority (`nice`): 10 in the background.
    pub nice: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub module: String,
    /// The name the function is known by in reports and emitted tests (unique in its module).
    pub qualname: String,
    /// How it is reached, when not by calling `qualname`.
    #[serde(default, skip_serializing_if = "Call::is_plain")]
    pub call: Call,
}

/// How a test reaches one definition: through which name, which of the definitions bound to
/// that name it is, and in what form it is called.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The dotted name called, when it is not the target's `qualname` (`convert` for a
    /// registration of the `singledispatch` function `convert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub through: Option<String>,
    /// The lines of the definition's header, first decorator to `def`: which definition this
    /// is among those bound to one name (a code object's `co_firstlineno` falls in them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<(u32, u32)>,
    #[serde(default, skip_serializing_if = "Form::is_plain")]
    pub form: Form,
}

impl Call {
    pub fn is_plain(&self) -> bool {
        *self == Call::default()
    }
}

/// The form of the call a test makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// `f(...)`.
    #[default]
    Plain,
    /// A registration of a `singledispatch` function or method, called through its dispatcher
    /// with a first argument of the registered type.
    Dispatch,
    /// A generator function: its first `MAX_ITEMS` items, `list(itertools.islice(f(...), N))`.
    Generator,
    /// A coroutine function, run to completion: `asyncio.run(f(...))`.
    Async,
    /// A `contextlib.contextmanager` function, entered and left: `with f(...) as result:`.
    With,
    /// A method the class's constructor runs (a dataclass's `__post_init__`): the class is
    /// called, `Range(...)`.
    Construct,
    /// A property's getter, setter or deleter: `obj.name`, `obj.name = value`, `del obj.name`.
    PropertyGet,
    PropertySet,
    PropertyDelete,
    /// A function nested in another that returns it: the function around it (`through`) is
    /// called first, with the receiver's arguments, and what it returned is called,
    /// `threshold(10)(v)`.
    Returned,
}

impl Form {
    pub fn is_plain(&self) -> bool {
        *self == Form::Plain
    }
}

/// How many items of a generator a test takes (the agent's `targets.MAX_ITEMS`).
pub const MAX_ITEMS: usize = 100;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mock {
    pub target: String,
    pub returns: Vec<ValueTree>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecuteRequest {
    pub target: Target,
    pub receiver: Option<ValueTree>,
    pub args: Vec<ValueTree>,
    pub kwargs: BTreeMap<String, ValueTree>,
    pub mocks: Vec<Mock>,
    pub timeout_ms: u64,
    /// The seed of the `random` module's generator at the start of the execution (before the
    /// inputs are built): a run that draws from it draws the same numbers under pytest, where
    /// the emitted test seeds it the same way.
    pub random_seed: u64,
}

/// The seed every execution of the search starts from.
pub const RANDOM_SEED: u64 = 0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Returned,
    Raised,
    /// Stopped by the agent's timer, or killed by the pool when it did not answer.
    Timeout,
    /// Out of memory (a `MemoryError`, or killed by the address-space limit).
    Memory,
    /// The worker died (segmentation fault, `os._exit`, …) while running this input.
    Crashed,
    /// An input could not be built (a constructor or factory raised).
    InputError,
    /// The agent failed to process the request.
    Error,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ReturnValue {
    #[serde(deserialize_with = "short_text")]
    pub repr: String,
    #[serde(rename = "type", deserialize_with = "short_text")]
    pub type_name: String,
    /// The value, when it is made of literals; anything the agent sends that is not a valid
    /// literal tree within bounds reads as none.
    #[serde(default, deserialize_with = "literal")]
    pub literal: Option<Literal>,
    /// For a tuple of a subclass (a named tuple) that is no literal itself: its items as a
    /// tuple literal.
    #[serde(default, deserialize_with = "literal")]
    pub items: Option<Literal>,
    /// For any other value: the standard-library value it is, or its public fields.
    #[serde(flatten)]
    pub state: ObjectState,
}

/// Literals kept in the store, in their wire form and read back through [`Literal::from_json`].
pub mod stored_literal {
    use super::Literal;
    use serde::{Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(l: &Option<Literal>, s: S) -> Result<S::Ok, S::Error> {
        l.as_ref().map(Literal::to_json).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Literal>, D::Error> {
        super::literal(d)
    }
}

/// Floats kept in the store in the wire form (JSON has no infinity nor NaN).
pub mod stored_float {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        super::float_to_wire(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        super::wire_float(&value).ok_or_else(|| serde::de::Error::custom("not a float"))
    }
}

fn literal<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Literal>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(value.as_ref().and_then(Literal::from_json))
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct RaisedException {
    #[serde(rename = "type", deserialize_with = "short_text")]
    pub type_name: String,
    #[serde(deserialize_with = "short_text")]
    pub message: String,
    pub line: Option<u32>,
    /// The project file of `line`: the deepest project frame's.
    #[serde(default)]
    pub file: Option<String>,
}

/// A source range as CPython reports it: 1-based lines, 0-based UTF-8 byte columns; columns are
/// missing on Python < 3.11.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position(pub u32, pub Option<u32>, pub u32, pub Option<u32>);

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CallReturn {
    pub repr: String,
    pub sort: Option<String>,
    /// The returned value's type (`datetime.datetime`, `NoneType`).
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "k", rename_all = "kebab-case")]
pub enum Event {
    /// A conditional jump in project code: `taken` is the tested condition's value.
    Branch {
        f: usize,
        pos: Option<Position>,
        taken: bool,
        frame: u64,
        #[serde(default, deserialize_with = "opt_expr")]
        expr: Option<Expr>,
        #[serde(default)]
        link: Option<u32>,
    },
    /// One step of a `for` loop: `taken` is whether the loop continues (its body is entered
    /// again) rather than exits because the iterable ran out of items. `pos` is the value
    /// iterated, `stmt` the position CPython gives the step itself: the whole `for` statement
    /// (3.11, 3.12) or its iterable (3.13+).
    Loop {
        f: usize,
        pos: Option<Position>,
        taken: bool,
        frame: u64,
        #[serde(default, deserialize_with = "opt_expr")]
        expr: Option<Expr>,
        #[serde(default)]
        stmt: Option<Position>,
    },
    /// A symbolic truth value taken outside a jump (`bool()`, `any()`, a dict lookup…).
    Constraint {
        #[serde(default)]
        f: Option<usize>,
        #[serde(default)]
        pos: Option<Position>,
        value: bool,
        #[serde(deserialize_with = "expr")]
        expr: Expr,
    },
    /// The value a boolean operation or chained comparison returned or stored without a jump
    /// testing it (`return a or b`): `value` is its truth, the last operand's when that operand
    /// was evaluated; `pos` is the whole operation.
    Value {
        f: usize,
        pos: Option<Position>,
        value: bool,
        frame: u64,
        #[serde(default, deserialize_with = "opt_expr")]
        expr: Option<Expr>,
    },
    /// A call into code the agent does not follow.
    Call {
        n: u32,
        #[serde(deserialize_with = "short_text")]
        callee: String,
        #[serde(default)]
        f: Option<usize>,
        #[serde(default)]
        pos: Option<Position>,
        #[serde(default, deserialize_with = "bounded")]
        arg_vars: Vec<String>,
        #[serde(default)]
        ret: Option<CallReturn>,
        #[serde(default)]
        ret_var: Option<String>,
        #[serde(default)]
        raised: Option<serde_json::Value>,
        #[serde(default)]
        mocked: bool,
        /// What the symbols made from the return value stood for in this execution
        /// (`$ret:3`, `$ret:3.hour`, `$ret:3["mode"]`), as literals of the expression wire form.
        #[serde(default)]
        values: std::collections::BTreeMap<String, serde_json::Value>,
        /// Of a call that read a clock (`datetime.datetime.now`, `time.time`): what it
        /// returned, read through the checks of an asserted value (a literal, or a standard
        /// value from the closed set), which the emitted test replays; absent for another
        /// call, or a reading no test can write.
        #[serde(default, deserialize_with = "clock_reading")]
        clock: Option<Box<crate::agent::state::Assertable>>,
    },
    /// A side effect the sandbox refused.
    Blocked {
        n: u32,
        #[serde(deserialize_with = "short_text")]
        event: String,
        #[serde(deserialize_with = "short_text")]
        detail: String,
        #[serde(default)]
        f: Option<usize>,
        #[serde(default)]
        pos: Option<Position>,
    },
    /// The inputs are built: the events before it happened while the agent built them
    /// (constructors, a factory's method calls); an input error has no such event.
    Built,
}

fn clock_reading<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Box<crate::agent::state::Assertable>>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(crate::agent::state::Assertable::from_json(&value).map(Box::new))
}

fn expr<'de, D: Deserializer<'de>>(d: D) -> Result<Expr, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Expr::from_json(&value).map_err(serde::de::Error::custom)
}

fn opt_expr<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Expr>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    match value {
        None | Some(serde_json::Value::Null) => Ok(None),
        // An expression the Rust side cannot read is treated as concrete, not fatal.
        Some(v) => Ok(Expr::from_json(&v).ok()),
    }
}

/// What one execution did.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Execution {
    pub status: Status,
    #[serde(default, rename = "return")]
    pub returned: Option<ReturnValue>,
    #[serde(default)]
    pub exception: Option<RaisedException>,
    /// A method's receiver after it returned: the public fields the call set or changed
    /// (`timer.limit` after `timer.set_limit(5)`).
    #[serde(default)]
    pub receiver: ObjectState,
    /// The container arguments the call changed, as they were after it returned.
    #[serde(default)]
    pub arguments: ChangedArguments,
    #[serde(default, deserialize_with = "bounded")]
    pub files: Vec<String>,
    #[serde(default, deserialize_with = "bounded")]
    pub events: Vec<Event>,
    /// Executed lines per file index.
    #[serde(default)]
    pub lines: BTreeMap<String, Vec<u32>>,
    #[serde(default, deserialize_with = "output_text")]
    pub stdout: String,
    #[serde(default, deserialize_with = "output_text")]
    pub stderr: String,
    #[serde(default)]
    pub truncated: bool,
    /// Why the request failed (`input-error`, `error`), or what killed the worker.
    #[serde(default, deserialize_with = "optional_output_text")]
    pub error: Option<String>,
    /// For an `input-error`: the class (`module:Qual`) whose construction raised, when it was
    /// a class's constructor or one of the method calls that set its state.
    #[serde(default)]
    pub building: Option<String>,
    /// The method called on that object after its constructor that raised, when one did
    /// (`stop` of a `Timer` not started).
    #[serde(default)]
    pub building_method: Option<String>,
    /// What the symbols of object fields stood for when the inputs were built
    /// (`self._spent` → `["int", "0"]`), as literals of the expression wire form.
    #[serde(default)]
    pub fields: BTreeMap<String, serde_json::Value>,
    /// How many times each callable input was called, by its access path.
    #[serde(default)]
    pub callables: BTreeMap<String, u32>,
    /// The type tests (`isinstance`, `type`, `callable`) made on inputs.
    #[serde(default, deserialize_with = "bounded")]
    pub type_tests: Vec<TypeTest>,
    /// The run drew from the `random` module's shared generator (its state changed).
    #[serde(default)]
    pub draws_random: bool,
    /// Side effects the run attempted that a test must not repeat outside the generator,
    /// refused or not, in order (the first few).
    #[serde(default, deserialize_with = "bounded")]
    pub effects: Vec<SideEffect>,
    /// Module-level state of the project the run changed (and the worker put back, so that the
    /// next run starts from the modules as imported), in the order it was recorded.
    #[serde(default, deserialize_with = "bounded")]
    pub module_state: Vec<StateChange>,
}

/// A change a run made to the project's module-level state: `path` is the access path from a
/// module (`moneyed.classes.CURRENCIES`, `app.Counter.instances`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct StateChange {
    #[serde(deserialize_with = "short_text")]
    pub path: String,
    pub change: Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// The contents of the dict, list or set there.
    Contents,
    /// The name was bound to another object.
    Rebound,
    /// The name was bound by the run.
    Added,
    /// The name was unbound by the run.
    Deleted,
    /// The worker could not put it back (a class refusing its attribute).
    NotRestored,
}

/// Bounds on what a worker's response may hold: a forged or runaway response is cut to size
/// (texts) or refused (lists), so that it becomes an error execution, never a huge allocation
/// downstream or a panic.
pub const MAX_LIST: usize = 100_000;
/// Names, types, messages and `repr`s.
pub const MAX_SHORT_TEXT: usize = 1_000;
/// What user code printed, and error messages.
pub const MAX_OUTPUT_TEXT: usize = 16 * 1024;

fn bounded<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    let items = Vec::<T>::deserialize(d)?;
    if items.len() > MAX_LIST {
        return Err(serde::de::Error::custom(format!(
            "{} items where at most {MAX_LIST} are expected",
            items.len()
        )));
    }
    Ok(items)
}

fn cut(mut text: String, max: usize) -> String {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

fn short_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(cut(String::deserialize(d)?, MAX_SHORT_TEXT))
}

fn output_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(cut(String::deserialize(d)?, MAX_OUTPUT_TEXT))
}

fn optional_output_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(|t| cut(t, MAX_OUTPUT_TEXT)))
}

/// A side effect a run attempted: any deletion or renaming of a file (in the scratch directory
/// too, and whether or not it succeeded), a write outside the scratch directory, a socket, a
/// new process, a signal. `event` is the audit event (`shutil.rmtree`, `open`,
/// `subprocess.Popen`), `detail` what it was applied to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideEffect {
    #[serde(deserialize_with = "short_text")]
    pub event: String,
    #[serde(default, deserialize_with = "short_text")]
    pub detail: String,
    /// The sandbox refused it (it raised `PermissionError` in user code).
    #[serde(default)]
    pub refused: bool,
}

impl SideEffect {
    /// What the run tried, for a person: "delete `data`", "start a process (`ls`)".
    pub fn describe(&self) -> String {
        let detail = self.detail.trim_end_matches(" (write)");
        let what = match self.event.as_str() {
            "os.remove" | "os.rmdir" | "shutil.rmtree" => format!("delete `{detail}`"),
            "os.rename" | "shutil.move" => format!("move `{detail}`"),
            "os.truncate" => format!("truncate `{detail}`"),
            "open" => format!("write `{detail}`"),
            e if e.starts_with("socket.") => format!("use the network (`{e}`)"),
            "subprocess.Popen" | "os.system" | "os.exec" | "os.posix_spawn" | "os.spawn"
            | "os.fork" | "os.forkpty" | "pty.spawn" | "os.startfile" => {
                format!("start a process (`{}`)", self.event)
            }
            "os.kill" | "os.killpg" | "signal.pthread_kill" => "send a signal".to_owned(),
            e => format!("`{e}` `{detail}`"),
        };
        format!("the run tried to {what}")
    }
}

/// A type test on an input: its access path, the outcome, and the kinds of value that would
/// have given the other outcome (`int`, `float`, `str`, `bytes`, `none`, `bool`, `list`,
/// `tuple`, `dict`, `set`, `callable`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct TypeTest {
    pub name: String,
    pub value: bool,
    #[serde(default)]
    pub flip: Vec<String>,
    /// An `==`/`!=` with a value of another kind (`align == "right"` on an int): it says what
    /// an unannotated input may be, not what an annotated one is.
    #[serde(default)]
    pub equality: bool,
}

impl Execution {
    /// An execution the pool ended itself (the worker hung or died).
    pub fn ended(status: Status, error: impl Into<String>) -> Self {
        Execution {
            status,
            returned: None,
            exception: None,
            receiver: ObjectState::default(),
            arguments: ChangedArguments::default(),
            files: vec![],
            events: vec![],
            lines: BTreeMap::new(),
            stdout: String::new(),
            stderr: String::new(),
            truncated: false,
            error: Some(error.into()),
            building: None,
            building_method: None,
            fields: BTreeMap::new(),
            callables: BTreeMap::new(),
            type_tests: vec![],
            draws_random: false,
            effects: vec![],
            module_state: vec![],
        }
    }
}

#[cfg(test)]
mod tests;
