//! Which functions of the database are explored, and how each is reached: its definition's
//! identity and the call that runs it (a method through an instance, a nested function through
//! its enclosing call, a decorator's wrapper as the function it decorates), the reason one is
//! not, and the writers of each class's fields.

use super::Skipped;
use super::start::canonical;
use crate::agent::protocol::{Call, Form};
use crate::db::{Db, SourceFile, file_functions, function_model, line_index, module_index};
use crate::explore::coverage::FunctionUnderTest;
use lacuna_grammar::{FunctionKind, FunctionSyntax};
use std::path::{Path, PathBuf};

/// Special methods Python calls while it makes, finalises or subclasses a class, with a
/// receiver a test cannot build first. Other special methods (`__eq__`, `__getitem__`,
/// `__str__`) are called like any method: `Version(1, 2, 3).__getitem__(0)`.
pub(super) const CLASS_HOOKS: &[&str] = &[
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
    Ok(())
}

pub(super) fn is_context_manager(syntax: &FunctionSyntax) -> bool {
    syntax.decorators.iter().any(|d| {
        matches!(
            d.rsplit('.').next(),
            Some("contextmanager" | "asynccontextmanager")
        )
    })
}

pub(super) fn is_overload(decorator: &str) -> bool {
    decorator.rsplit('.').next() == Some("overload")
}

pub(super) fn is_singledispatch(decorator: &str) -> bool {
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
pub(super) fn reach(
    syntax: &FunctionSyntax,
    all: &[&FunctionSyntax],
    header: (u32, u32),
) -> (String, Call) {
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

/// A function to explore: its file, its ID there, and what the search needs.
pub struct ExplorationTarget {
    pub file: SourceFile,
    pub function: lacuna_grammar::FunctionId,
    pub under_test: FunctionUnderTest,
}

/// The functions of `files` to explore, with the reasons others are skipped.
/// Why a module cannot be imported by name (`1abc`, `class`, `my-module`), so that neither the
/// agent nor a test can reach its functions; `None` when it can.
pub(super) fn unimportable(module: &str) -> Option<String> {
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
pub(super) fn unnamed(src: &[PathBuf], file: &Path) -> String {
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

pub fn targets(db: &dyn Db, files: &[SourceFile]) -> (Vec<ExplorationTarget>, Vec<Skipped>) {
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
        let file_syntax = crate::db::parsed(db, file).clone();
        let file_seeds = crate::db::file_seeds(db, file).clone();
        let file_flow = crate::db::file_flow(db, file).clone();
        let functions = file_functions(db, file);
        let all: Vec<&FunctionSyntax> = functions.iter().map(|n| &**n.syntax(db)).collect();
        let places: Vec<Place> = functions
            .iter()
            .map(|&node| {
                let (syntax, anchor) = (node.syntax(db), node.anchor(db));
                let range = syntax.range.absolute(anchor);
                let header = (
                    lines.line_col(range.start).line + 1,
                    lines
                        .line_col(syntax.name_range.absolute(anchor).start)
                        .line
                        + 1,
                );
                Place { header, range }
            })
            .collect();
        for (at, &node) in functions.iter().enumerate() {
            let syntax = node.syntax(db).clone();
            // A function nested in a decorator is called as the functions it decorates; one
            // nested in a function that calls it, through that function.
            let reached = match wrapped_by(&syntax, &all) {
                Some(decorated) => Ok(Reached {
                    called_as: all[decorated].qualname.to_string(),
                    call: Call::default(),
                    caller: decorated,
                }),
                None if syntax.qualname.contains(".<locals>.") => enclosing_call(at, &all, &places),
                None => {
                    let (called_as, call) = reach(&syntax, &all, places[at].header);
                    Ok(Reached {
                        called_as,
                        call,
                        caller: at,
                    })
                }
            };
            let (called_as, call, caller, unreached) = match reached {
                Ok(Reached {
                    called_as,
                    call,
                    caller,
                }) => (called_as, call, caller, None),
                Err(why) => (
                    syntax.name.to_string(),
                    Call::default(),
                    at,
                    Some(why.to_string()),
                ),
            };
            let checked = FunctionSyntax {
                qualname: match &call.through {
                    Some(through) => through.as_str().into(),
                    None => called_as.as_str().into(),
                },
                ..(*syntax).clone()
            };
            let verdict = match (&unimportable, unreached) {
                (Some(why), _) => Err(why.clone()),
                (None, unreached) => explorable(&checked)
                    .map_err(str::to_owned)
                    .and_then(|()| unreached.map_or(Ok(()), Err)),
            };
            // What the generator seeds the inputs with: those of the call that runs it (and,
            // for a function called as another returns it, its own parameters' uses too).
            let seeds = std::sync::Arc::new(match caller {
                caller if caller == at => file_seeds.function(node.id(db)),
                caller => called_through(
                    file_seeds.function(functions[caller].id(db)),
                    &file_seeds.function(node.id(db)),
                    call.form == Form::Returned,
                ),
            });
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
                file_syntax: file_syntax.clone(),
                seeds: seeds.clone(),
                flow: file_flow.clone(),
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
            out.push(ExplorationTarget {
                file,
                function: node.id(db).clone(),
                under_test: under_test(called_as, call),
            });
        }
    }
    (out, skipped)
}

/// Where a definition stands in its file: its header's lines (first decorator to `def`,
/// 1-based) and its whole range (absolute).
pub(super) struct Place {
    pub header: (u32, u32),
    pub range: lacuna_grammar::TextRange,
}

/// How a test reaches a definition: the name it is known by, the call, and which definition
/// that call runs (`caller`, an index into the file's definitions): itself, the function
/// around a nested one, or the function a decorator's wrapper decorates.
pub(super) struct Reached {
    pub called_as: String,
    pub call: Call,
    pub caller: usize,
}

/// The seeds of a definition explored through the call of another (`caller`'s): the inputs
/// are the caller's parameters, so their uses are the caller's; the literals are both
/// (a nested function's are its enclosing one's already, a decorator's wrapper's are not).
pub(super) fn called_through(
    caller: lacuna_grammar::FunctionSeeds,
    target: &lacuna_grammar::FunctionSeeds,
    target_params: bool,
) -> lacuna_grammar::FunctionSeeds {
    fn extend_new<T: Clone + PartialEq>(to: &mut Vec<T>, from: &[T]) {
        for item in from {
            if !to.contains(item) {
                to.push(item.clone());
            }
        }
    }
    let mut seeds = caller;
    extend_new(&mut seeds.literals, &target.literals);
    seeds.non_finite |= target.non_finite;
    extend_new(&mut seeds.handled, &target.handled);
    if target_params {
        extend_new(&mut seeds.param_uses, &target.param_uses);
    }
    seeds
}

/// A nested function's qualified name at each `.<locals>.`: `retry`, `decorator`, `wrapper`
/// for `retry.<locals>.decorator.<locals>.wrapper`.
struct Levels<'a>(Vec<&'a str>);

impl<'a> Levels<'a> {
    fn of(qualname: &'a str) -> Self {
        Levels(qualname.split(".<locals>.").collect())
    }

    /// How a function of the project is decorated to run this one, when it is a decorator's
    /// wrapper (`decorator.<locals>.wrapper`: `@decorator`) or a decorator factory's
    /// (`factory.<locals>.decorator.<locals>.wrapper`: `@factory(…)`), each level a plain
    /// function.
    fn decoration(&self) -> Option<Decoration<'a>> {
        if self.0.iter().any(|level| level.contains('.')) {
            return None;
        }
        match self.0.as_slice() {
            [decorator, _] => Some(Decoration::Plain(decorator)),
            [factory, _, _] => Some(Decoration::Factory(factory)),
            _ => None,
        }
    }
}

/// How a decorator is applied: `@decorator` or `@factory(…)`.
#[derive(Clone, Copy)]
enum Decoration<'a> {
    Plain(&'a str),
    Factory(&'a str),
}

impl Decoration<'_> {
    /// Whether the decorator text `d` (without `@`) applies it.
    fn applied_by(self, d: &str) -> bool {
        match self {
            Decoration::Plain(decorator) => d == decorator,
            Decoration::Factory(factory) => d
                .strip_prefix(factory)
                .is_some_and(|rest| rest.starts_with('(')),
        }
    }
}

impl std::fmt::Display for Decoration<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decoration::Plain(decorator) => write!(f, "@{decorator}"),
            Decoration::Factory(factory) => write!(f, "@{factory}(…)"),
        }
    }
}

/// Why no call reaches a function nested in another ([`enclosing_call`]); its text is the
/// reason the function is not explored.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unreached {
    #[error("not nested in a function")]
    NotNested,
    #[error(
        "a method of a class defined inside `{0}`, which no test can name: move the class to module level to have it tested"
    )]
    MethodOfLocalClass(String),
    #[error("nested in `{0}`, whose definition was not found")]
    EnclosingNotFound(String),
    /// The function around it is a decorator factory's decorator: it runs at import.
    #[error(
        "nested in `{0}`, which returns it without calling it: it runs when a function is decorated `@{0}(…)`, at import, which no generated test repeats; the wrapper it returns is explored through the functions of the project it decorates"
    )]
    RunsAtImport(String),
    #[error(
        "nested in `{0}`, which passes it on without calling it (stores it, or hands it to another call), so no call of `{0}` runs it: test what calls it, or move it to module level"
    )]
    PassedOn(String),
    /// The function around it returns it; `decoration` is how a function of the project would
    /// be decorated with it.
    #[error(
        "nested in `{enclosing}`, which returns it without calling it, so no call of `{enclosing}` runs it: {} what calls the function it returns, or move it to module level",
        decorating(.decoration)
    )]
    Returned {
        enclosing: String,
        decoration: Option<String>,
    },
    #[error("nested in `{enclosing}`, which is not explored: {why}")]
    NotExplored {
        enclosing: String,
        why: &'static str,
    },
}

/// What would reach a function returned by a decorator: a function of the project decorated
/// with it (`wrapped_by`).
fn decorating(decoration: &Option<String>) -> String {
    match decoration {
        Some(decoration) => format!(
            "a function of the project decorated `{decoration}` is explored through it; otherwise test"
        ),
        None => "test".to_owned(),
    }
}

/// How a test reaches `all[at]`, a function nested in another (`outer.<locals>.inner`) that
/// the function around it calls: through the call that runs the function around it (itself
/// nested, a decorator's wrapper or reached as any definition), whose inputs then drive the
/// nested function's decisions. Err says why no call reaches it: the function around it only
/// returns it or passes it on, is not explored itself, or the nested function is a method of
/// a class defined inside a function.
pub(super) fn enclosing_call(
    at: usize,
    all: &[&FunctionSyntax],
    places: &[Place],
) -> Result<Reached, Unreached> {
    let (call, caller) = through_enclosing(at, all, places, &all[at].decisions)?;
    Ok(Reached {
        called_as: all[at].qualname.to_string(),
        call,
        caller,
    })
}

/// The call of the function around `all[at]` that runs it, and the definition that call runs;
/// `decisions` are the targets' (the innermost nested function's), which the outermost
/// function is checked with.
fn through_enclosing(
    at: usize,
    all: &[&FunctionSyntax],
    places: &[Place],
    decisions: &lacuna_grammar::ThinVec<lacuna_grammar::Decision>,
) -> Result<(Call, usize), Unreached> {
    let nested = all[at];
    let Some((enclosing, name)) = nested.qualname.rsplit_once(".<locals>.") else {
        return Err(Unreached::NotNested);
    };
    if name.contains('.') {
        return Err(Unreached::MethodOfLocalClass(enclosing.to_owned()));
    }
    let around = (0..all.len())
        .filter(|&i| {
            i != at
                && *all[i].qualname == *enclosing
                && places[i].range.contains_range(places[at].range)
        })
        .min_by_key(|&i| places[i].range.len())
        .ok_or_else(|| Unreached::EnclosingNotFound(enclosing.to_owned()))?;
    let outer = all[around];
    if !called_within(outer, name, all) {
        let levels = Levels::of(&nested.qualname);
        // A decorator factory's decorator (`cached.<locals>.decorator`, returning a wrapper of
        // its own) runs when a function is decorated, at import.
        let inner = format!("{}.<locals>.", nested.qualname);
        if let Some(Decoration::Plain(_)) = levels.decoration()
            && all.iter().any(|f| f.qualname.starts_with(&inner))
        {
            return Err(Unreached::RunsAtImport(enclosing.to_owned()));
        }
        // A module-level function that returns it: a test calls what it returns.
        if let Some(call) = returned_by(outer, name, places[at].header) {
            return Ok((call, around));
        }
        if !outer.returned.iter().any(|r| r == name) {
            return Err(Unreached::PassedOn(enclosing.to_owned()));
        }
        return Err(Unreached::Returned {
            enclosing: enclosing.to_owned(),
            decoration: levels.decoration().map(|d| d.to_string()),
        });
    }
    let (called_as, call, caller) = if let Some(decorated) = wrapped_by(outer, all) {
        (
            all[decorated].qualname.to_string(),
            Call::default(),
            decorated,
        )
    } else if enclosing.contains(".<locals>.") {
        let (call, caller) = through_enclosing(around, all, places, decisions)?;
        (enclosing.to_owned(), call, caller)
    } else {
        explorable(&FunctionSyntax {
            decisions: decisions.clone(),
            ..outer.clone()
        })
        .map_err(|why| Unreached::NotExplored {
            enclosing: enclosing.to_owned(),
            why,
        })?;
        let (called_as, call) = reach(outer, all, places[around].header);
        (called_as, call, around)
    };
    let call = Call {
        through: Some(call.through.unwrap_or(called_as)),
        ..call
    };
    Ok((call, caller))
}

/// Whether a call of `outer` runs its nested function `name`: `outer` calls it, or calls a
/// function nested beside it that does, however many such steps (`munchify` calls
/// `munchify_cycles`, which calls `pre_munchify_cycles`, which calls `pre_munchify`).
fn called_within(outer: &FunctionSyntax, name: &str, all: &[&FunctionSyntax]) -> bool {
    let prefix = format!("{}.<locals>.", outer.qualname);
    let nested = |callee: &str| {
        all.iter()
            .find(|f| f.qualname.strip_prefix(prefix.as_str()) == Some(callee))
    };
    let mut reached: Vec<&str> = vec![];
    let mut next: Vec<&FunctionSyntax> = vec![outer];
    while let Some(f) = next.pop() {
        for call in &f.calls {
            let callee = call.callee.as_str();
            if callee == name {
                return true;
            }
            if !reached.contains(&callee)
                && let Some(g) = nested(callee)
            {
                reached.push(callee);
                next.push(g);
            }
        }
    }
    false
}

/// The call that reaches a function named `name` nested in `outer` (its header on the lines
/// `header`), when `outer` is a plain module-level function that returns it by name
/// (`return check`): `outer(…)(…)`, the receiver's arguments first.
fn returned_by(outer: &FunctionSyntax, name: &str, header: (u32, u32)) -> Option<Call> {
    let plain = outer.kind == FunctionKind::Def
        && outer.class.is_none()
        && !outer.qualname.contains('.')
        && !outer.is_async
        && !outer.is_generator
        && !is_context_manager(outer);
    (plain && outer.returned.iter().any(|r| r == name)).then(|| Call {
        through: Some(outer.qualname.to_string()),
        lines: Some(header),
        form: Form::Returned,
    })
}

/// The wrapper a module-level decorator defines (`_comparator.<locals>.wrapper`) runs when a
/// function it decorates (`@_comparator def __lt__`) is called: the first of those (its index
/// in `all`) that is no target of its own (no decisions) and could be called directly. A
/// decorator factory's (`cached.<locals>.decorator.<locals>.wrapper`) runs when a function
/// decorated by a call of it (`@cached(cache)`) is.
pub(super) fn wrapped_by(nested: &FunctionSyntax, all: &[&FunctionSyntax]) -> Option<usize> {
    let decoration = Levels::of(&nested.qualname).decoration()?;
    all.iter().position(|f| {
        f.decisions.is_empty()
            && f.handlers.is_empty()
            && f.decorators.iter().any(|d| decoration.applied_by(d))
            && explorable(&FunctionSyntax {
                decisions: nested.decisions.clone(),
                ..(*f).clone()
            })
            .is_ok()
    })
}
