//! Test generation for a set of files: starts the agent pool with the project's interpreter,
//! turns each explorable function of the database into a target (its syntax, positions, MC/DC
//! tables, and its signature as the agent describes it), explores the targets in parallel (one
//! solver per thread: z3 solvers stay on their thread), and returns one result per function.

use crate::agent::protocol::{Call, Form};
use crate::agent::{Pool, WorkerError, WorkerSpec, embed, interpreter};
use crate::config::Config;
use crate::db::{
    Db, SourceFile, class_model, file_classes, file_functions, function_model, line_index,
    module_index,
};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::Exploration;
use crate::explore::search::{Budget, explore};
use crate::explore::shape::Shape;
use crate::explore::signature::Signature;
use crate::explore::value::ModelValue;
use crate::guidance::Guidance;
use lacuna_grammar::{FunctionKind, FunctionSyntax};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
}

/// Why a target could not be described: the agent's message, and the import failure behind it
/// when its module could not be imported.
#[derive(Clone, Debug)]
pub struct NotDescribed {
    pub message: String,
    pub import: Option<Box<crate::imports::ImportFailure>>,
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

/// Starts the pool for a project. Its workers are confined by the kernel (see `sandbox`); the
/// messages are the repository's sandbox requests that were refused.
pub fn start_pool(config: &Config) -> Result<(Pool, Vec<String>), String> {
    let python = interpreter::discover(
        &config.root,
        config.python.as_deref(),
        config.grants.allow_unconfined,
    )
    .map_err(|e| e.to_string())?;
    let agent_dir = embed::install(&embed::cache_dir()).map_err(|e| {
        format!(
            "cannot write the agent to {}: {e}",
            embed::cache_dir().display()
        )
    })?;
    let scratch_dir = scratch_directory()?;
    let scratch = canonical(scratch_dir.path());
    let (policy, refused) = config.sandbox_policy(&scratch);
    let spec = WorkerSpec {
        python: python.path,
        agent_dir,
        env: vec![],
        configure: serde_json::json!({
            "op": "configure",
            "roots": [canonical(&config.root)],
            "exclude": [],
            "sys_path": config.src.iter().map(|p| canonical(p)).collect::<Vec<_>>(),
            "scratch": scratch,
            "memory_mb": config.budget.memory_mb,
            "max_events": config.budget.path_length,
            "sandbox": {
                "allow_write": policy.allow_write,
                "allow_network": policy.allow_network,
                "allow_subprocess": policy.allow_subprocess,
            },
        }),
        policy,
    };
    let pool = Pool::new(spec, config.workers()).with_scratch(scratch_dir);
    pool.warm_up().map_err(|e: WorkerError| e.to_string())?;
    Ok((pool, refused))
}

/// A new scratch directory, named after this process (`lacuna-scratch-<pid>-…`), after the
/// removal of those left by Lacuna processes that no longer run (killed before they could
/// remove theirs).
pub fn scratch_directory() -> Result<tempfile::TempDir, String> {
    let tmp = std::env::temp_dir();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix("lacuna-scratch-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("lacuna-scratch-{}-", std::process::id()))
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())
}

pub fn budget(config: &Config) -> Budget {
    Budget {
        time: Duration::from_millis(config.budget.function_time_ms),
        run_share: None,
        stall_share: Some(config.budget.stall_share.0).filter(|s| *s < 1.0),
        executions: config.budget.function_executions,
        execution_timeout_ms: config.budget.execution_timeout_ms,
        loop_bound: config.budget.loop_bound,
        solver_timeout_ms: config.budget.solver_timeout_ms,
        solver_memory_mb: config.budget.solver_memory_mb,
        target_obligations: config.mcdc.enabled,
    }
}

/// Special methods Python calls while it makes, finalises or subclasses a class, with a
/// receiver a test cannot build first. Other special methods (`__eq__`, `__getitem__`,
/// `__str__`) are called like any method: `Version(1, 2, 3).__getitem__(0)`.
const CLASS_HOOKS: &[&str] = &[
    "__new__",
    "__init__",
    "__del__",
    "__init_subclass__",
    "__class_getitem__",
];

/// Whether a function can be called directly by a generated test.
pub fn explorable(syntax: &FunctionSyntax) -> Result<(), &'static str> {
    match syntax.kind {
        FunctionKind::Def => {}
        FunctionKind::Module => {
            return Err(
                "code at module level runs on import and is not explored: move the branches into a function to have them tested",
            );
        }
        FunctionKind::ClassBody => {
            return Err(
                "code in a class body runs when the class is defined and is not explored: move the branches into a method",
            );
        }
    }
    if syntax.qualname.contains("<locals>") {
        return Err(
            "nested in another function, it cannot be called directly: move it to module level to have it tested",
        );
    }
    if syntax.is_async && syntax.is_generator {
        return Err(
            "async generators are not explored yet: move its branches into a plain function it calls",
        );
    }
    if syntax.is_async && is_context_manager(syntax) {
        return Err(
            "async context managers are not explored yet: move its branches into a plain function it calls",
        );
    }
    if CLASS_HOOKS.contains(&syntax.name.as_str()) {
        return Err(
            "constructors and class hooks are not explored on their own: their branches are reached through the methods and factories that build the class",
        );
    }
    if syntax.decisions.is_empty() {
        return Err("no decisions");
    }
    Ok(())
}

fn is_context_manager(syntax: &FunctionSyntax) -> bool {
    syntax.decorators.iter().any(|d| {
        matches!(
            d.rsplit('.').next(),
            Some("contextmanager" | "asynccontextmanager")
        )
    })
}

fn is_overload(decorator: &str) -> bool {
    decorator.rsplit('.').next() == Some("overload")
}

fn is_singledispatch(decorator: &str) -> bool {
    matches!(
        decorator.rsplit('.').next(),
        Some("singledispatch" | "singledispatchmethod")
    )
}

/// How a test reaches the definition `syntax` (whose header spans `header`, 1-based lines):
/// the name it is known by (unique in its module) and the call. A registration of a
/// `singledispatch` function is called through the dispatcher; a property's accessors through
/// attribute access; generators are iterated, coroutines run, context managers entered; a name
/// bound by several definitions is told apart by the lines of each.
fn reach(syntax: &FunctionSyntax, all: &[&FunctionSyntax], header: (u32, u32)) -> (String, Call) {
    let in_scope = |name: &str| match &syntax.class {
        Some(class) => format!("{class}.{name}"),
        None => name.to_owned(),
    };
    for decorator in &syntax.decorators {
        let (head, argument) = match decorator.split_once('(') {
            Some((head, rest)) => (head, rest.strip_suffix(')').map(str::trim)),
            None => (decorator.as_str(), None),
        };
        let Some(dispatcher) = head.strip_suffix(".register") else {
            continue;
        };
        let through = in_scope(dispatcher);
        let dispatches = all
            .iter()
            .any(|f| *f.qualname == *through && f.decorators.iter().any(|d| is_singledispatch(d)));
        if !dispatches {
            continue;
        }
        // The registered type: the decorator's argument, or the first parameter's annotation.
        let skip = usize::from(syntax.is_method() && !syntax.is_staticmethod());
        let registered = argument
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .or_else(|| {
                syntax
                    .params
                    .get(skip)
                    .and_then(|p| p.annotation.as_deref().map(str::to_owned))
            });
        let name = match registered {
            Some(t) => format!("{through}.register({t})"),
            None => format!("{through}.register@{}", header.1),
        };
        return (
            name,
            Call {
                through: Some(through),
                lines: Some(header),
                form: Form::Dispatch,
            },
        );
    }
    let accessor = syntax.decorators.iter().find_map(|d| {
        if d.ends_with(".setter") {
            Some(Form::PropertySet)
        } else if d.ends_with(".deleter") {
            Some(Form::PropertyDelete)
        } else {
            None
        }
    });
    // A dataclass's `__post_init__` runs when the class is called.
    if syntax.name == "__post_init__"
        && let Some(class) = &syntax.class
    {
        return (
            syntax.qualname.to_string(),
            Call {
                through: Some(class.clone()),
                lines: None,
                form: Form::Construct,
            },
        );
    }
    let form = if syntax.is_property() {
        Form::PropertyGet
    } else if let Some(accessor) = accessor {
        accessor
    } else if syntax.is_generator && is_context_manager(syntax) {
        Form::With
    } else if syntax.is_generator {
        Form::Generator
    } else if syntax.is_async {
        Form::Async
    } else {
        Form::Plain
    };
    match form {
        Form::PropertyGet | Form::PropertySet | Form::PropertyDelete => {
            let name = match form {
                Form::PropertySet => format!("{}.setter", syntax.qualname),
                Form::PropertyDelete => format!("{}.deleter", syntax.qualname),
                _ => syntax.qualname.to_string(),
            };
            let through = (*name != *syntax.qualname).then(|| syntax.qualname.to_string());
            return (
                name,
                Call {
                    through,
                    lines: Some(header),
                    form,
                },
            );
        }
        _ => {}
    }
    // `typing.overload` stubs are no definitions a call reaches: the implementation is.
    let bindings = all
        .iter()
        .filter(|f| f.qualname == syntax.qualname && !f.decorators.iter().any(|d| is_overload(d)))
        .count();
    if bindings > 1 {
        return (
            format!("{}@{}", syntax.qualname, header.1),
            Call {
                through: Some(syntax.qualname.to_string()),
                lines: Some(header),
                form,
            },
        );
    }
    // The header's lines let the agent tell the definition from an object the name was
    // bound to afterwards (`now = Clock()`), which a call by the name would run instead.
    (
        syntax.qualname.to_string(),
        Call {
            form,
            lines: Some(header),
            ..Call::default()
        },
    )
}

/// A function to explore: its file, ID, what the search needs, and its source text.
pub type Target = (
    SourceFile,
    lacuna_grammar::FunctionId,
    FunctionUnderTest,
    String,
);

/// The functions of `files` to explore, with the reasons others are skipped.
/// Why a module cannot be imported by name (`1abc`, `class`, `my-module`), so that neither the
/// agent nor a test can reach its functions; `None` when it can.
fn unimportable(module: &str) -> Option<String> {
    const KEYWORDS: &[&str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
    ];
    let bad = module.split('.').find(|part| {
        let mut chars = part.chars();
        let starts = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
        !starts || !chars.all(|c| c == '_' || c.is_alphanumeric()) || KEYWORDS.contains(part)
    })?;
    Some(format!(
        "the module name `{bad}` is not a Python identifier, so `import` cannot reach it; rename the file"
    ))
}

/// Why a file has no module name: a part of its path that is not an identifier
/// (`my-module.py`, `data-v2/x.py`), or no source root above it.
fn unnamed(src: &[PathBuf], file: &Path) -> String {
    let under_root = src.iter().find_map(|root| file.strip_prefix(root).ok());
    let Some(relative) = under_root else {
        return format!(
            "`{}` is under no source root (`src` in `[tool.lacuna]`), so `import` cannot reach it",
            file.display()
        );
    };
    let bad = relative.components().find_map(|c| {
        let part = c.as_os_str().to_string_lossy();
        let stem = part
            .strip_suffix(".py")
            .or_else(|| part.strip_suffix(".pyi"))
            .unwrap_or(&part);
        let mut chars = stem.chars();
        let starts = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
        (!starts || !chars.all(|c| c == '_' || c.is_alphanumeric())).then(|| part.into_owned())
    });
    match bad {
        Some(part) => format!(
            "the name `{part}` is not a Python identifier, so `import` cannot reach it; rename it (`{}`)",
            part.replace(
                |c: char| !(c == '_' || c == '.' || c.is_alphanumeric()),
                "_"
            )
        ),
        None => format!("`{}` has no module name", relative.display()),
    }
}

pub fn targets(db: &dyn Db, files: &[SourceFile]) -> (Vec<Target>, Vec<Skipped>) {
    let index = module_index(db, db.project());
    let mut out = vec![];
    let mut skipped = vec![];
    for &file in files {
        let (module, unimportable) = match index.name(file) {
            Some(module) => (module, unimportable(module)),
            None => (
                "",
                Some(unnamed(&db.project().config(db).src, file.path(db))),
            ),
        };
        let path = canonical(file.path(db));
        let lines = line_index(db, file).clone();
        let text = file.contents(db).text().cloned().unwrap_or_default();
        let functions = file_functions(db, file);
        let all: Vec<&FunctionSyntax> = functions.iter().map(|n| &**n.syntax(db)).collect();
        for &node in functions {
            let syntax = node.syntax(db).clone();
            // A function nested in a decorator is called as the functions it decorates.
            let anchor = node.anchor(db);
            let header = (
                lines.line_col(syntax.range.absolute(anchor).start).line + 1,
                lines
                    .line_col(syntax.name_range.absolute(anchor).start)
                    .line
                    + 1,
            );
            let (called_as, call) = match wrapped_by(&syntax, &all) {
                Some(name) => (name, Call::default()),
                None => reach(&syntax, &all, header),
            };
            let checked = FunctionSyntax {
                qualname: match &call.through {
                    Some(through) => through.as_str().into(),
                    None => called_as.as_str().into(),
                },
                ..(*syntax).clone()
            };
            let verdict = match &unimportable {
                Some(why) => Err(why.clone()),
                None => explorable(&checked).map_err(str::to_owned),
            };
            let under_test = |qualname: String, call: Call| FunctionUnderTest {
                id: node.id(db).clone(),
                module: module.to_owned(),
                qualname,
                call,
                file: path.clone(),
                anchor: node.anchor(db),
                lines: lines.clone(),
                syntax: syntax.clone(),
                tables: function_model(db, node).tables.to_vec(),
                text: text.clone(),
            };
            if let Err(reason) = verdict {
                // A function without branch sides is not a gap.
                if let Some(diagnostic) = crate::explain::not_explored::not_explored(
                    node.id(db),
                    &syntax,
                    node.anchor(db),
                    &reason,
                ) {
                    skipped.push(Skipped {
                        file,
                        function: node.id(db).clone(),
                        reason: reason.clone(),
                        branch_sides: crate::explain::not_explored::branch_sides(&syntax),
                        diagnostic,
                        observed_as: unimportable
                            .is_none()
                            .then(|| under_test(syntax.qualname.to_string(), Call::default())),
                    });
                }
                continue;
            }
            let range = syntax.range.absolute(node.anchor(db));
            let source = text
                .get(range.start as usize..range.end as usize)
                .unwrap_or_default()
                .to_owned();
            out.push((
                file,
                node.id(db).clone(),
                under_test(called_as, call),
                source,
            ));
        }
    }
    (out, skipped)
}

/// The wrapper a module-level decorator defines (`_comparator.<locals>.wrapper`) runs when a
/// function it decorates (`@_comparator def __lt__`) is called: the qualified name of the
/// first of those that is no target of its own (no decisions) and could be called directly.
fn wrapped_by(nested: &FunctionSyntax, all: &[&FunctionSyntax]) -> Option<String> {
    let (decorator, inner) = nested.qualname.split_once(".<locals>.")?;
    if decorator.contains('.') || inner.contains('.') {
        return None;
    }
    all.iter()
        .filter(|f| f.decisions.is_empty() && f.decorators.iter().any(|d| d == decorator))
        .find(|f| {
            explorable(&FunctionSyntax {
                decisions: nested.decisions.clone(),
                ..(**f).clone()
            })
            .is_ok()
        })
        .map(|f| f.qualname.to_string())
}

/// Which methods write each field, for every class of the project: `("module:Qual", field)`.
pub fn writers(db: &dyn Db, files: &[SourceFile]) -> FxHashMap<(String, String), Vec<String>> {
    let index = module_index(db, db.project());
    let mut out = FxHashMap::default();
    for &file in files {
        let Some(module) = index.name(file) else {
            continue;
        };
        for &class in file_classes(db, file) {
            let model = class_model(db, class);
            for field in &model.fields {
                let methods: Vec<String> = field.writers.iter().map(|(m, _)| m.clone()).collect();
                if !methods.is_empty() {
                    out.insert(
                        (format!("{module}:{}", model.qualname), field.name.clone()),
                        methods,
                    );
                }
            }
        }
    }
    out
}

/// What the search knows of the project beyond the function: who writes each field, and the
/// guidance module's mocks and factories.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub writers: FxHashMap<(String, String), Vec<String>>,
    pub guidance: Arc<Guidance>,
    /// The scalar arguments the project's own passing tests called each function with, by
    /// `module:qualname` (see `observed_inputs`).
    pub observed: ObservedInputs,
}

/// The suite's arguments per function (`module:qualname`), shared by the explorations.
pub type ObservedInputs = Arc<FxHashMap<String, Vec<BTreeMap<String, ModelValue>>>>;

/// Arguments seeded per function from the suite: enough to start from each distinct way the
/// tests call it, few enough not to crowd out the search.
pub const OBSERVED: usize = 16;

/// The scalar arguments of the suite's calls of each function (its entry samples' parameters
/// that hold a number, a boolean or a text), distinct, at most `OBSERVED` per function.
pub fn observed_inputs(
    observations: &crate::suite::Observations,
) -> FxHashMap<String, Vec<BTreeMap<String, ModelValue>>> {
    use crate::suite::Variable;
    let mut out = FxHashMap::default();
    for f in &observations.functions {
        let mut inputs: Vec<BTreeMap<String, ModelValue>> = vec![];
        for sample in &f.entry.samples {
            // Parameters by their own names; derived variables (`len(x)`, `x is None`,
            // `type(x)`, `self._items`) are not arguments.
            let input: BTreeMap<String, ModelValue> = sample
                .iter()
                .filter(|(k, _)| *k != "self" && k.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .filter_map(|(k, v)| {
                    let value = match v {
                        Variable::Bool(b) => ModelValue::Bool(*b),
                        Variable::Int(i) => ModelValue::Int(i.clone()),
                        Variable::Float(f) => ModelValue::Real(f.parse().ok()?),
                        Variable::Str(s) => ModelValue::Str(s.clone()),
                    };
                    Some((k.clone(), value))
                })
                .collect();
            if !input.is_empty() && !inputs.contains(&input) {
                inputs.push(input);
            }
            if inputs.len() == OBSERVED {
                break;
            }
        }
        if !inputs.is_empty() {
            out.insert(f.function.clone(), inputs);
        }
    }
    out
}

/// The signature of a target, as the agent describes it.
pub fn signature(
    pool: &Pool,
    target: &FunctionUnderTest,
    facts: &Facts,
    source: &str,
) -> Result<Signature, NotDescribed> {
    let request = serde_json::json!({
        "op": "describe",
        "target": crate::agent::protocol::Target {
            module: target.module.clone(),
            qualname: target.qualname.clone(),
            call: target.call.clone(),
        },
    });
    let response = pool
        .raw(request, Duration::from_secs(20))
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    if let Some(error) = response.get("error").and_then(|e| e.as_str()) {
        return Err(NotDescribed {
            message: error.to_owned(),
            import: response
                .get("import_error")
                .and_then(crate::imports::ImportFailure::from_agent)
                .map(Box::new),
        });
    }
    let default_refs: std::collections::BTreeMap<&str, &str> = response["params"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some((p["name"].as_str()?, p["default_ref"].as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    // The kinds of values the agent saw an unannotated parameter's uses ask for.
    let instances: std::collections::BTreeMap<&str, Vec<Shape>> = response["params"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let kinds = p["type"]["instances"].as_array()?;
                    Some((
                        p["name"].as_str()?,
                        kinds.iter().map(Shape::from_describe).collect(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let params = crate::explore::shape::params(&response["params"])
        .into_iter()
        .map(|(name, shape)| {
            // An unannotated parameter's type is guessed from how the function uses it: the
            // kinds its uses ask for first, then the guess's.
            let shape = match (shape, instances.get(name.as_str())) {
                (Shape::Any, Some(kinds)) => {
                    let guess = crate::explore::seeds::guess_from_uses(&name, source);
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
            let shape = match shape {
                Shape::Any => crate::explore::seeds::guess_from_uses(&name, source),
                // What a callable returns, when its annotation does not say, too.
                Shape::Callable { returns, named } if *returns == Shape::Any => Shape::Callable {
                    returns: Box::new(
                        crate::explore::seeds::called(&name, source).unwrap_or(Shape::Any),
                    ),
                    named,
                },
                s => s,
            };
            // A parameter whose default is a function or a class (`factory=dict`) takes
            // callables, that one first.
            let shape = match (shape, default_refs.get(name.as_str())) {
                (Shape::Any, Some(r)) => Shape::Callable {
                    returns: Box::new(Shape::Any),
                    named: Some((*r).to_owned()),
                },
                (Shape::Callable { returns, .. }, Some(r)) => Shape::Callable {
                    returns,
                    named: Some((*r).to_owned()),
                },
                (s, _) => s,
            };
            (name, shape)
        })
        .collect();
    let mut defaults = std::collections::BTreeMap::new();
    crate::explore::seeds::defaults(&response["params"], "", &mut defaults);
    crate::explore::seeds::defaults(&response["owner"]["init"], "self.__init__", &mut defaults);
    let receiver = match response["kind"].as_str() {
        Some("method") => match Shape::from_describe(&response["owner"]) {
            Shape::Object(o) => Some(o),
            _ => None,
        },
        _ => None,
    };
    Ok(Signature {
        params,
        keyword_only: crate::explore::shape::keyword_only(&response["params"]),
        varargs: response["params"].as_array().and_then(|a| {
            a.iter()
                .find(|p| p["kind"] == "var_positional")
                .and_then(|p| {
                    Some((
                        p["name"].as_str()?.to_owned(),
                        Shape::from_describe(&p["type"]),
                    ))
                })
        }),
        defaults,
        receiver,
        writers: facts.writers.clone(),
        guidance: facts.guidance.clone(),
        observed: facts
            .observed
            .get(&target.observed_name())
            .cloned()
            .unwrap_or_default(),
        unread: response["unread"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|u| u.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// Explores every target on `threads` threads sharing the pool.
pub fn explore_all(
    pool: &Pool,
    targets: Vec<Target>,
    facts: &Facts,
    budget: &Budget,
    threads: usize,
) -> Vec<FunctionResult> {
    explore_all_reporting(pool, targets, facts, budget, None, threads, &|_| {})
}

/// A time budget shared by the functions of a run (`--budget`, `run-time-s`). Each function,
/// when its turn comes, is given the time left to the run (in thread-time: the run's time on
/// each exploring thread) in proportion to what it has to cover among the functions still
/// waiting — its branch sides, and MC/DC obligations when they are targeted, as EvoSuite's
/// continuous test generation allocates by complexity — never more than its own time budget
/// nor past the run's end; what a function leaves unused goes back to the ones after it.
pub struct RunBudget {
    end: Instant,
    /// The function's own time budget, an upper bound on every share.
    own: Duration,
    state: Mutex<Shares>,
}

struct Shares {
    /// Thread-time not yet given to a function.
    left: Duration,
    /// The weights of the functions whose turn has not come.
    waiting: u64,
}

impl RunBudget {
    pub fn new(total: Duration, own: Duration, threads: usize, weights: u64) -> RunBudget {
        RunBudget {
            end: Instant::now() + total,
            own,
            state: Mutex::new(Shares {
                left: total * threads.max(1) as u32,
                waiting: weights,
            }),
        }
    }

    /// What a function has to cover: its branch sides, and its MC/DC obligations when the
    /// search targets them (at least 1).
    pub fn weight(target: &FunctionUnderTest, obligations: bool) -> u64 {
        let modelled = target.syntax.decisions.iter().filter(|d| d.expr.is_some());
        let sides: usize = modelled.clone().count() * 2;
        let shown: usize = if obligations {
            modelled
                .filter(|d| d.conditions.len() >= 2)
                .map(|d| 2 * d.conditions.len())
                .sum()
        } else {
            0
        };
        (sides + shown).max(1) as u64
    }

    /// The share of a function of `weight` whose turn has come (zero when the run's time is
    /// spent).
    pub fn take(&self, weight: u64) -> Duration {
        let mut shares = self.state.lock().expect("run budget lock");
        let waiting = shares.waiting.max(weight);
        shares.waiting = waiting - weight;
        let to_end = self.end.saturating_duration_since(Instant::now());
        let share = shares
            .left
            .mul_f64(weight as f64 / waiting as f64)
            .min(self.own)
            .min(to_end);
        shares.left = shares.left.saturating_sub(share);
        share
    }

    /// Gives back what a function given `share` did not use of it.
    pub fn give_back(&self, share: Duration, used: Duration) {
        let mut shares = self.state.lock().expect("run budget lock");
        shares.left += share.saturating_sub(used);
    }
}

/// What [`explore_all_reporting`] says as it goes, from the exploring threads.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A function's exploration starts: its module and qualified name.
    Started { module: &'a str, qualname: &'a str },
    /// A function's exploration ended.
    Finished,
}

/// [`explore_all`], telling `report` when each function starts and ends (for a progress
/// display; it must not block).
pub fn explore_all_reporting(
    pool: &Pool,
    targets: Vec<Target>,
    facts: &Facts,
    budget: &Budget,
    run_time: Option<Duration>,
    threads: usize,
    report: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<FunctionResult> {
    let obligations = budget.target_obligations;
    let run = run_time.map(|total| {
        let weights = targets
            .iter()
            .map(|t| RunBudget::weight(&t.2, obligations))
            .sum();
        RunBudget::new(total, budget.time, threads, weights)
    });
    let queue = Mutex::new(targets.into_iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let next = queue.lock().expect("queue lock").pop();
                    let Some((i, (file, function, target, source))) = next else {
                        return;
                    };
                    report(Progress::Started {
                        module: &target.module,
                        qualname: &target.qualname,
                    });
                    let turn = Instant::now();
                    let share = run
                        .as_ref()
                        .map(|r| (r, r.take(RunBudget::weight(&target, obligations))));
                    let described = match share {
                        Some((_, share)) if share.is_zero() => Err(None),
                        _ => signature(pool, &target, facts, &source).map_err(Some),
                    };
                    let (exploration, import_failure, guidance_subjects) = match described {
                            Err(None) => (
                                Exploration {
                                    failure: Some(
                                        "the run's time budget was spent before its turn: raise `--budget` (or `run-time-s`) or check fewer files".into(),
                                    ),
                                    stop: crate::explore::exploration::Stop::RunSpent,
                                    ..Exploration::default()
                                },
                                None,
                                None,
                            ),
                            Ok(sig) => {
                                let mut own = budget.clone();
                                if let Some((_, share)) = share {
                                    // Describing the function took part of its share.
                                    own.time = share.saturating_sub(turn.elapsed());
                                    own.run_share = (share < budget.time).then_some(share);
                                }
                                let e = explore(&target, &sig, pool, &own, &source);
                                let subjects = crate::guidance::dependence::subjects(&sig, &e);
                                (e, None, Some(subjects))
                            }
                            Err(Some(e)) => (
                                Exploration {
                                    failure: Some(match &e.import {
                                        Some(_) => format!(
                                            "cannot import `{}`: {} (LCN108)",
                                            target.module, e.message
                                        ),
                                        None => e.message,
                                    }),
                                    ..Exploration::default()
                                },
                                e.import.map(|b| *b),
                                None,
                            ),
                        };
                    if let Some((run, share)) = share {
                        run.give_back(share, turn.elapsed());
                    }
                    report(Progress::Finished);
                    results.lock().expect("results lock").push((
                        i,
                        FunctionResult {
                            file,
                            function,
                            target,
                            exploration,
                            import_failure,
                            guidance_subjects,
                        },
                    ));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results lock");
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            wrapped_by(&wrapper, &all).as_deref(),
            Some("Version.__lt__")
        );
        // Not a decorator's wrapper: nothing to call it through.
        assert_eq!(
            wrapped_by(&syntax(&module, "Version.__getitem__"), &all),
            None
        );
    }
}
