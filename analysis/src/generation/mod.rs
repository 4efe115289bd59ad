//! Test generation for a set of files: starts the agent pool with the project's interpreter,
//! turns each explorable function of the database into a target (its syntax, positions, MC/DC
//! tables, and its signature as the agent describes it), explores the targets in parallel (one
//! solver per thread: z3 solvers stay on their thread), and returns one result per function.

mod run;
mod session;
mod start;
mod suite_inputs;
mod targets;

pub use run::{Progress, RunBudget, explore_all, explore_all_reporting};
pub use session::{ImportMemo, Share, explore_target};
pub use start::{
    LoadedGuidance, Notice, StartError, Started, scratch_directory, start, start_pool,
    start_pool_with,
};
pub use suite_inputs::SuiteInputs;
pub use targets::{ExplorationTarget, explorable, targets};

use crate::agent::Pool;
use crate::config::Config;
use crate::db::SourceFile;
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::Exploration;
use crate::explore::ranges::Range;
use crate::explore::search::Budget;
use crate::explore::shape::{ObjectShape, Shape};
use crate::explore::signature::Signature;
use crate::guidance::Guidance;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// One explored function.
pub struct FunctionResult {
    pub file: SourceFile,
    pub function: lacuna_grammar::FunctionId,
    pub target: FunctionUnderTest,
    pub exploration: Exploration,
    /// Why its module could not be imported, when that is why it was not explored.
    pub import_failure: Option<crate::imports::ImportFailure>,
    /// The calls and classes whose guidance declarations the exploration depends on
    /// (`guidance::dependence::subjects`); none when it failed before it could say.
    pub guidance_subjects: Option<std::collections::BTreeSet<String>>,
    /// Whether its exploration's failure is the agent's answer about the code
    /// ([`NotDescribed::answered`]): the same code and installed packages fail the same way.
    pub failure_settled: bool,
}

/// Why a target could not be described: the agent's message, and the import failure behind it
/// when its module could not be imported.
#[derive(Clone, Debug)]
pub struct NotDescribed {
    pub message: String,
    pub import: Option<Box<crate::imports::ImportFailure>>,
    /// Whether it is the agent's answer about the code (the module does not import, the name
    /// is bound to something else), which the same code and packages give again — not a worker
    /// that timed out or crashed.
    pub answered: bool,
}

impl std::fmt::Display for NotDescribed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for NotDescribed {
    fn from(message: String) -> NotDescribed {
        NotDescribed {
            message,
            import: None,
            answered: false,
        }
    }
}

/// A function with branch sides that is not explored, and why.
#[derive(Clone)]
pub struct Skipped {
    pub file: SourceFile,
    pub function: lacuna_grammar::FunctionId,
    pub reason: String,
    /// Its branch sides, none of which generated tests cover.
    pub branch_sides: usize,
    /// `LCN107` "not explored: <reason>" on the function's name (on its first decision for
    /// module and class bodies), absolute.
    pub diagnostic: crate::diagnostic::Diagnostic,
    /// The function as the project's own suite reaches it (by its own qualified name), for
    /// the suite's coverage: a generator, a constructor or a nested function the generator
    /// does not call is still run by the project's tests. None when its module has no name.
    pub observed_as: Option<FunctionUnderTest>,
}

pub fn budget(config: &Config) -> Budget {
    let reproducible = config.budget.reproducible;
    let time = Duration::from_millis(config.budget.function_time_ms);
    Budget {
        // In a reproducible run the function's time is a safety bound only.
        time: if reproducible {
            time * crate::config::REPRODUCIBLE_SAFETY
        } else {
            time
        },
        run_share: None,
        stall_share: Some(config.budget.stall_share.0).filter(|s| *s < 1.0),
        executions: config.budget.function_executions,
        execution_timeout_ms: config.budget.execution_timeout_ms,
        loop_bound: config.budget.loop_bound,
        solver_timeout_ms: if reproducible {
            config.budget.solver_timeout_ms * crate::config::REPRODUCIBLE_SOLVER_SAFETY
        } else {
            config.budget.solver_timeout_ms
        },
        solver_memory_mb: config.budget.solver_memory_mb,
        target_obligations: config.mcdc.enabled,
        reproducible,
        solver_rlimit: config.budget.solver_timeout_ms * crate::config::RLIMIT_PER_MS,
    }
}

/// What the search knows of the project beyond the function: who writes each field, the
/// guidance module's mocks and factories, and what the project's own tests show.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub writers: Arc<crate::model::class::FieldWriters>,
    pub guidance: Arc<Guidance>,
    /// What the project's own passing tests give: the arguments they call each function with,
    /// the call sequences they make on objects.
    pub suite: Arc<SuiteInputs>,
    /// The suite's invariants, for the inputs near its own each exploration keeps for what
    /// they break (none when suspicious assertions are off or the suite established nothing).
    pub watch: Option<Arc<crate::suspicious::Watch>>,
}

/// The stack of a thread that explores functions: z3 rewrites and solves terms recursively, and
/// the path conditions of real code (a loop over a long text, a chain of string operations)
/// nest deeply, past what a thread's default 2 MiB holds; an overflow there kills the whole
/// process. Only the pages a thread touches are ever allocated.
pub const EXPLORATION_STACK: usize = 512 << 20;

/// The signature of a target, as the agent describes it.
pub fn signature(
    pool: &Pool,
    target: &FunctionUnderTest,
    facts: &Facts,
) -> Result<Signature, NotDescribed> {
    let described = crate::agent::protocol::Target {
        module: target.module.clone(),
        qualname: target.qualname.clone(),
        call: target.call.clone(),
    };
    let observed = facts.suite.classes_for(target);
    let describe = || {
        pool.describe(described.clone(), observed.clone(), Duration::from_secs(20))
            .map_err(|e| e.to_string())
    };
    let response = match describe()? {
        // A worker that ended while describing is asked once more, in a new worker: one that
        // ends again ends whenever the function's module is imported or read (`os._exit` at
        // module level, a crash in an extension module), which the same code does every time.
        Err(crate::agent::WorkerError::Died(first)) => match describe()? {
            Err(crate::agent::WorkerError::Died(_)) => {
                return Err(NotDescribed {
                    message: format!(
                        "the agent's worker ended ({first}) twice while importing `{}` to read `{}`: the module ends the process when it is imported (`os._exit`, a crash in an extension module)",
                        target.module, target.qualname
                    ),
                    import: None,
                    answered: true,
                });
            }
            other => other.map_err(|e| e.to_string())?,
        },
        other => other.map_err(|e| e.to_string())?,
    };
    if let Some(error) = &response.error {
        return Err(NotDescribed {
            answered: true,
            message: error.clone(),
            import: response
                .import_error
                .as_ref()
                .and_then(crate::imports::ImportFailure::from_agent)
                .map(Box::new),
        });
    }
    let default_refs: std::collections::BTreeMap<&str, &str> = response
        .params
        .iter()
        .filter_map(|p| Some((p.name.as_deref()?, p.default_ref.as_deref()?)))
        .collect();
    // The kinds of values the agent saw an unannotated parameter's uses ask for.
    let instances: std::collections::BTreeMap<&str, Vec<Shape>> = response
        .params
        .iter()
        .filter_map(|p| {
            let kinds = p.tree.instances.as_ref()?;
            Some((
                p.name.as_deref()?,
                kinds.iter().map(Shape::from_describe).collect(),
            ))
        })
        .collect();
    // An unannotated parameter's shape, from how the code uses it.
    let guessed = |name: &str, shape: Shape| match shape {
        Shape::Any => crate::explore::seeds::guess_from_uses(name, &target.seeds.param_uses),
        // What a callable returns, when its annotation does not say, too.
        Shape::Callable { returns, named } if *returns == Shape::Any => Shape::Callable {
            returns: Box::new(
                crate::explore::seeds::called(name, &target.seeds.param_uses).unwrap_or(Shape::Any),
            ),
            named,
        },
        s => s,
    };
    let params: Vec<(String, Shape)> = crate::explore::shape::params(&response.params)
        .into_iter()
        .map(|(name, shape)| {
            // An unannotated parameter's type is guessed from how the function uses it: the
            // kinds its uses ask for first, then the guess's.
            let shape = match (shape, instances.get(name.as_str())) {
                (Shape::Any, Some(kinds)) => {
                    let guess =
                        crate::explore::seeds::guess_from_uses(&name, &target.seeds.param_uses);
                    let mut variants = kinds.clone();
                    let rest = match guess.variants() {
                        v if v.is_empty() => vec![guess],
                        v => v,
                    };
                    variants.extend(rest.into_iter().filter(|v| !kinds.contains(v)));
                    Shape::Union(variants)
                }
                (shape, _) => shape,
            };
            let shape = guessed(&name, shape);
            let shape = crate::explore::shape::called_like_its_default(
                shape,
                default_refs.get(name.as_str()).copied(),
            );
            let default = response
                .params
                .iter()
                .find(|p| p.name.as_deref() == Some(name.as_str()))
                .and_then(|p| p.default.as_deref());
            let shape = crate::explore::shape::takes_its_none_default(shape, default);
            (name, shape)
        })
        .collect();
    let mut defaults = std::collections::BTreeMap::new();
    crate::explore::seeds::defaults(&response.params, "", &mut defaults);
    let mut default_choices = std::collections::BTreeMap::new();
    crate::explore::seeds::none_defaults(&response.params, "", &params, &mut default_choices);
    crate::explore::seeds::defaults(&response.owner.init, "self.__init__", &mut defaults);
    let receiver = match response.kind.as_deref() {
        Some("method") => match Shape::from_describe(&response.owner) {
            Shape::Object(o) => Some(o),
            _ => None,
        },
        // A nested function's: the call of the function around it that returns it, whose
        // parameters the nested function's code uses as its own.
        Some("returned") => match Shape::from_describe(&response.owner) {
            Shape::Object(mut o) => {
                o.init = std::mem::take(&mut o.init)
                    .into_iter()
                    .map(|(name, shape)| {
                        let shape = guessed(&name, shape);
                        (name, shape)
                    })
                    .collect();
                Some(o)
            }
            _ => None,
        },
        _ => None,
    };
    if let Some(o) = &receiver {
        crate::explore::seeds::none_defaults(
            &response.owner.init,
            "self.__init__.",
            &o.init,
            &mut default_choices,
        );
    }
    let mined = facts.suite.sequences_for(receiver.as_ref(), &params);
    let ranges = ordinary_ranges(
        facts.suite.ranges_of(target),
        receiver.as_ref(),
        &params,
        &mined,
    );
    Ok(Signature {
        params,
        keyword_only: crate::explore::shape::keyword_only(&response.params),
        varargs: response
            .params
            .iter()
            .find(|p| p.kind.as_deref() == Some("var_positional"))
            .and_then(|p| Some((p.name.clone()?, Shape::from_describe(&p.tree)))),
        defaults,
        default_choices,
        receiver,
        writers: facts.writers.clone(),
        guidance: facts.guidance.clone(),
        observed: facts.suite.arguments_of(target),
        ranges,
        mined,
        unread: response.unread.clone(),
    })
}

/// The ranges the search keeps its models within: of the numbers the suite passed each
/// parameter; of the fields of object inputs as the suite's calls held them, each as the
/// constructor argument of the same name (`self.a` → `self.__init__.a`: an attrs class, a
/// dataclass, a named tuple, a `date`); and of the arguments the suite's sequences passed
/// their constructors.
fn ordinary_ranges(
    observed: BTreeMap<String, Range>,
    receiver: Option<&ObjectShape>,
    params: &[(String, Shape)],
    mined: &BTreeMap<String, Vec<crate::explore::signature::MinedSequence>>,
) -> BTreeMap<String, Range> {
    let objects: Vec<(&str, &ObjectShape)> = receiver
        .map(|o| ("self", o))
        .into_iter()
        .chain(params.iter().flat_map(|(name, shape)| {
            shape
                .objects()
                .into_iter()
                .map(move |(_, o)| (name.as_str(), o))
        }))
        .collect();
    let mut out = BTreeMap::new();
    for (key, range) in observed {
        let Some((root, field)) = key.split_once('.') else {
            out.insert(key, range);
            continue;
        };
        let argument = objects
            .iter()
            .any(|(path, o)| *path == root && o.init.iter().any(|(name, _)| name == field));
        if argument {
            out.insert(format!("{root}.__init__.{field}"), range);
        }
    }
    for (path, o) in objects {
        if let Some(sequences) = mined.get(&o.class) {
            out.extend(constructor_ranges(path, &o.init, sequences));
        }
    }
    out
}

/// The ranges of the constructor arguments of an object input at `path` (`self`, `other`), as
/// `path.__init__.name`, from the constructor calls of the suite's sequences on its class.
fn constructor_ranges(
    path: &str,
    init: &[(String, Shape)],
    sequences: &[crate::explore::signature::MinedSequence],
) -> BTreeMap<String, Range> {
    use crate::explore::signature::MinedArgument;
    let calls: Vec<BTreeMap<String, crate::explore::value::ModelValue>> = sequences
        .iter()
        .map(|s| {
            s.constructor
                .iter()
                .zip(init)
                .filter_map(|(argument, (name, _))| match argument {
                    MinedArgument::Value(v) => Some((format!("{path}.__init__.{name}"), v.clone())),
                    _ => None,
                })
                .collect()
        })
        .collect();
    crate::explore::ranges::ranges(&calls)
}

#[cfg(test)]
mod tests {
    use super::targets::{Place, Unreached, enclosing_call, wrapped_by};
    use super::*;
    use lacuna_grammar::FunctionSyntax;

    const SOURCE: &str = r#"
def _comparator(operator):
    def wrapper(self, other):
        if not isinstance(other, (Version, tuple)):
            return NotImplemented
        return operator(self, other)
    return wrapper

class Version:
    def __init__(self, major):
        if major < 0:
            raise ValueError(major)
        self.major = major

    @_comparator
    def __lt__(self, other):
        return self.major < other.major

    def __getitem__(self, index):
        if index < 0:
            raise IndexError(index)
        return self.major
"#;

    fn syntax(module: &lacuna_grammar::Module, qualname: &str) -> FunctionSyntax {
        module
            .functions
            .iter()
            .find(|f| *f.syntax.qualname == *qualname)
            .map(|f| (*f.syntax).clone())
            .expect(qualname)
    }

    /// Shares follow the weights of the functions still waiting, never exceed a function's
    /// own time budget, and what a function leaves goes to the next ones.
    #[test]
    fn the_run_budget_is_shared_by_weight_and_leftovers_pass_on() {
        let s = Duration::from_secs;
        let run = RunBudget::new(s(10), s(6), 1, 10);
        let first = run.take(2);
        assert_eq!(first, s(2), "2 of the 10 weights of 10 s");
        run.give_back(first, Duration::from_millis(500));
        // 9.5 s left for weights 8: the next of weight 4 gets half of it.
        assert_eq!(run.take(4), Duration::from_millis(4_750));
        // It used all of it; the last of weight 4 gets what is left, up to its own 6 s.
        assert_eq!(run.take(4), Duration::from_millis(4_750));
        assert_eq!(run.take(1), Duration::ZERO, "nothing is left");
        let generous = RunBudget::new(s(100), s(3), 2, 4);
        assert_eq!(
            generous.take(2),
            s(3),
            "never above the function's own budget"
        );
    }

    #[test]
    fn special_methods_are_explored_but_constructors_are_not() {
        let module = lacuna_grammar::parse(SOURCE);
        assert!(explorable(&syntax(&module, "Version.__getitem__")).is_ok());
        assert!(explorable(&syntax(&module, "Version.__init__")).is_err());
    }

    #[test]
    fn a_decorators_wrapper_is_called_as_the_function_it_decorates() {
        let module = lacuna_grammar::parse(SOURCE);
        let all: Vec<&FunctionSyntax> = module.functions.iter().map(|f| &*f.syntax).collect();
        let wrapper = syntax(&module, "_comparator.<locals>.wrapper");
        assert_eq!(
            wrapped_by(&wrapper, &all).map(|i| &*all[i].qualname),
            Some("Version.__lt__")
        );
        // Not a decorator's wrapper: nothing to call it through.
        assert_eq!(
            wrapped_by(&syntax(&module, "Version.__getitem__"), &all),
            None
        );
    }

    const NESTED: &str = r#"
class Basket:
    def __init__(self, items):
        def check(v):
            if v < 0:
                raise ValueError(v)
        for v in items:
            check(v)
        self.items = items

    def below(self, limit):
        def under(v):
            if v < limit:
                return True
            return False
        return [v for v in self.items if under(v)]

def outer(n):
    def middle(m):
        def inner(k):
            if k:
                return 1
            return 2
        return inner(m)
    return middle(n)

def factory(n):
    def add(y):
        if y > n:
            return y
        return n
    return add

def retry(times):
    def decorator(func):
        if times < 1:
            return func
        def wrapper(*args):
            if times > 1:
                return func(*args)
            return None
        return wrapper
    return decorator
"#;

    /// `enclosing_call` for the function named `qualname` in `NESTED`.
    fn enclosed(qualname: &str) -> Result<(String, crate::agent::protocol::Call), Unreached> {
        enclosed_in(NESTED, qualname).map(|(reached, _)| (reached.called_as, reached.call))
    }

    /// `enclosing_call` for the function named `qualname` in `source`, with the qualified name
    /// of the definition its call runs.
    fn enclosed_in(
        source: &str,
        qualname: &str,
    ) -> Result<(super::targets::Reached, String), Unreached> {
        let module = lacuna_grammar::parse(source);
        let lines = lacuna_grammar::LineIndex::new(source);
        let all: Vec<&FunctionSyntax> = module.functions.iter().map(|f| &*f.syntax).collect();
        let places: Vec<Place> = module
            .functions
            .iter()
            .map(|f| {
                let range = f.syntax.range.absolute(f.anchor);
                let line = |offset| lines.line_col(offset).line + 1;
                Place {
                    header: (
                        line(range.start),
                        line(f.syntax.name_range.absolute(f.anchor).start),
                    ),
                    range,
                }
            })
            .collect();
        let at = all.iter().position(|f| &*f.qualname == qualname).unwrap();
        enclosing_call(at, &all, &places).map(|reached| {
            let caller = all[reached.caller].qualname.to_string();
            (reached, caller)
        })
    }

    #[test]
    fn a_nested_function_is_called_through_the_function_around_it() {
        let (name, call) = enclosed("Basket.below.<locals>.under").unwrap();
        assert_eq!(name, "Basket.below.<locals>.under");
        assert_eq!(call.through.as_deref(), Some("Basket.below"));
        assert_eq!(call.lines, Some((11, 11)), "the method's definition");
        // Nested twice: through the outermost.
        let (_, call) = enclosed("outer.<locals>.middle.<locals>.inner").unwrap();
        assert_eq!(call.through.as_deref(), Some("outer"));
        assert_eq!(call.lines, Some((18, 18)));
    }

    /// The inputs of a nested function explored through the function around it are that
    /// function's parameters: what seeds them is read from the definition the call runs.
    #[test]
    fn a_nested_function_is_seeded_as_the_call_that_runs_it() {
        let (_, caller) = enclosed_in(NESTED, "outer.<locals>.middle.<locals>.inner").unwrap();
        assert_eq!(caller, "outer");
        let (_, caller) = enclosed_in(NESTED, "Basket.below.<locals>.under").unwrap();
        assert_eq!(caller, "Basket.below");
        const DECORATED: &str = r#"
def logged(func):
    def wrapper(*args):
        if args:
            return func(*args)
    return wrapper

def outer(xs):
    def inner(y):
        if y > 0:
            return xs
    return inner(1)

@logged
def run(job, limit):
    return job
"#;
        // A decorator's wrapper nested in a function called through a decorated one: the
        // decorated function's call.
        let module = lacuna_grammar::parse(DECORATED);
        let all: Vec<&FunctionSyntax> = module.functions.iter().map(|f| &*f.syntax).collect();
        let wrapper = syntax(&module, "logged.<locals>.wrapper");
        assert_eq!(
            wrapped_by(&wrapper, &all).map(|i| &*all[i].qualname),
            Some("run")
        );
        let (_, caller) = enclosed_in(DECORATED, "outer.<locals>.inner").unwrap();
        assert_eq!(caller, "outer");
    }

    /// The seeds of a definition explored through another's call: the caller's parameter
    /// uses, the literals of both.
    #[test]
    fn seeds_through_a_call_are_the_callers_uses_and_both_literals() {
        const SOURCE: &str = r#"
def outer(items):
    def count(limit):
        if len(items) > limit + 7:
            return "many"
    return count(3)

def logged(func):
    def wrapper(*args):
        if args == ("stop",):
            return None
        return func(*args)
    return wrapper

@logged
def run(job):
    return job["name"]
"#;
        let seeds = lacuna_grammar::seeds(SOURCE);
        let module = lacuna_grammar::parse(SOURCE);
        let id = |qualname: &str| {
            let f = module
                .functions
                .iter()
                .find(|f| &*f.syntax.qualname == qualname)
                .unwrap();
            seeds.function(&f.id)
        };
        let through =
            super::targets::called_through(id("outer"), &id("outer.<locals>.count"), false);
        let uses: Vec<&str> = through.param_uses.iter().map(|u| &*u.param).collect();
        assert_eq!(uses, ["items"], "the enclosing function's parameter's uses");
        let through =
            super::targets::called_through(id("run"), &id("logged.<locals>.wrapper"), false);
        let uses: Vec<&str> = through.param_uses.iter().map(|u| &*u.param).collect();
        assert_eq!(uses, ["job"], "the decorated function's parameter's uses");
        let texts: Vec<&str> = through
            .literals
            .iter()
            .filter_map(|l| match l {
                lacuna_grammar::Literal::Str { value, .. } => Some(value.as_str()),
                lacuna_grammar::Literal::Int(_) => None,
            })
            .collect();
        assert_eq!(
            texts,
            ["name", "stop"],
            "the caller's literals, then the wrapper's"
        );
    }

    /// A function nested in a module-level function that returns it is called as what a call
    /// of that function returned, `factory(n)(y)`.
    #[test]
    fn a_nested_function_returned_is_called_as_the_call_returned_it() {
        let (name, call) = enclosed("factory.<locals>.add").unwrap();
        assert_eq!(name, "factory.<locals>.add");
        assert_eq!(call.through.as_deref(), Some("factory"));
        assert_eq!(call.lines, Some((28, 28)), "the nested definition's header");
        assert_eq!(call.form, crate::agent::protocol::Form::Returned);
        let (_, caller) = enclosed_in(NESTED, "factory.<locals>.add").unwrap();
        assert_eq!(caller, "factory", "seeded as the call of `factory`");
    }

    /// A function nested beside others, called by one the function around them calls
    /// (munch's `munchify` → `munchify_cycles` → `pre_munchify_cycles` → `pre_munchify`), is
    /// reached through the call of the function around them.
    #[test]
    fn a_nested_function_a_sibling_calls_is_reached_through_the_function_around_it() {
        const SIBLINGS: &str = r#"
def munchify(x):
    def walk(obj):
        return convert(obj)

    def convert(obj):
        if isinstance(obj, dict):
            return dict(obj)
        return obj

    def unused(obj):
        if obj:
            return obj

    return walk(x)
"#;
        let (reached, caller) = enclosed_in(SIBLINGS, "munchify.<locals>.convert").unwrap();
        assert_eq!(reached.called_as, "munchify.<locals>.convert");
        assert_eq!(reached.call.through.as_deref(), Some("munchify"));
        assert_eq!(caller, "munchify");
        assert!(
            enclosed_in(SIBLINGS, "munchify.<locals>.unused")
                .map(|(reached, _)| reached.called_as)
                .unwrap_err()
                .to_string()
                .starts_with("nested in `munchify`, which passes it on without calling it"),
        );
    }

    #[test]
    fn a_nested_function_no_call_reaches_says_why() {
        const PASSED_ON: &str = r#"
def register(table):
    def add(y):
        if y:
            return y
    table.append(add)
"#;
        assert_eq!(
            enclosed_in(PASSED_ON, "register.<locals>.add")
                .map(|(reached, _)| reached.called_as)
                .unwrap_err()
                .to_string(),
            "nested in `register`, which passes it on without calling it (stores it, or hands it to another call), so no call of `register` runs it: test what calls it, or move it to module level"
        );
        assert_eq!(
            enclosed("retry.<locals>.decorator")
                .unwrap_err()
                .to_string(),
            "nested in `retry`, which returns it without calling it: it runs when a function is decorated `@retry(…)`, at import, which no generated test repeats; the wrapper it returns is explored through the functions of the project it decorates"
        );
        assert_eq!(
            enclosed("retry.<locals>.decorator.<locals>.wrapper")
                .unwrap_err()
                .to_string(),
            "nested in `retry.<locals>.decorator`, which returns it without calling it, so no call of `retry.<locals>.decorator` runs it: a function of the project decorated `@retry(…)` is explored through it; otherwise test what calls the function it returns, or move it to module level"
        );
        assert!(
            enclosed("Basket.__init__.<locals>.check")
                .unwrap_err()
                .to_string()
                .starts_with("nested in `Basket.__init__`, which is not explored: constructors"),
        );
    }
}
