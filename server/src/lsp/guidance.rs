//! The guidance module (`tests/lacuna_guidance.py` by default): plain Python the project owns,
//! where code actions declare mocks (`@mock("os.path.exists")`) and factories (`@factory`). This
//! module writes those declarations as text edits that leave the user's code alone: the header
//! once, imports merged into an existing `from … import …` line, no duplicate declarations.

use heck::ToSnakeCase;
use lacuna_analysis::guidance::declared::Declared;
use lacuna_grammar::{FinalReturn, Outline, OutlineFunction, TextRange};
use std::fmt::Write;

/// The guidance module could not be created for `lacuna.guidanceModule`.
#[derive(Debug, thiserror::Error)]
#[error("cannot create {}: {error}", path.display())]
pub struct NotCreated {
    pub path: std::path::PathBuf,
    pub error: std::io::Error,
}

/// The beginning of a new guidance module: what it is, and the two markers.
pub const HEADER: &str = r#""""Guidance for Lacuna's test generator: mocks and factories.

Plain Python that belongs to this project. A function marked `@mock("module.function")` declares
a call whose return value generated tests control: the generator chooses it, and the emitted
pytest tests patch the real function. A function marked `@factory` builds an object through its
public methods; the generator calls it with the values it solves for.
"""


def mock(target):
    """Marks the declaration of a mocked call."""

    def mark(function):
        function.__lacuna_mock__ = target
        return function

    return mark


def factory(function):
    """Marks a factory: the generator builds the return type through it."""
    function.__lacuna_factory__ = True
    return function
"#;

/// One insertion into the guidance module's current text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insertion {
    pub at: u32,
    pub text: String,
}

fn identifier(dotted: &str) -> String {
    let name = dotted
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .trim_matches('_')
        .to_owned();
    // A declaration named `open` would hide the builtin from the guidance module's own code.
    if SHADOWED.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// Builtins and keywords a declaration's name must not be.
const SHADOWED: &[&str] = &[
    "open", "input", "print", "len", "id", "hash", "type", "object", "list", "dict", "set", "str",
    "int", "float", "bool", "tuple", "range", "min", "max", "sum", "iter", "next", "map", "filter",
    "format", "vars", "dir", "exec", "eval", "compile", "import", "from", "class", "def", "return",
    "None", "True", "False",
];

/// The guidance module's text with its declarations, read once through the syntax layer.
pub struct GuidanceText<'t> {
    pub text: &'t str,
    pub declared: Declared,
}

impl<'t> GuidanceText<'t> {
    pub fn read(text: &'t str) -> GuidanceText<'t> {
        GuidanceText {
            text,
            declared: Declared::read(text),
        }
    }
}

/// A mock's declaration: the callee's name in `@mock`, and what it returns as the annotation
/// the generator reads (quoted unless it is a builtin type, so the module needs no imports).
/// The body never runs: the generator chooses the value of every call, and the emitted tests
/// patch the callee with the values chosen.
pub fn mock_declaration(callee: &str, returns: Option<&str>) -> String {
    let name = identifier(callee);
    let annotation = match returns {
        Some(r) if ["bool", "int", "float", "str", "None"].contains(&r) => format!(" -> {r}"),
        Some(r) => format!(" -> {r:?}"),
        None => String::new(),
    };
    format!(
        "@mock({callee:?})\ndef {name}(*args, **kwargs){annotation}:\n    \"\"\"Generated tests choose what `{callee}` returns.\"\"\"\n"
    )
}

/// A method that changes the field a branch depends on, with its parameters (without `self`).
pub struct Writer<'a> {
    pub name: &'a str,
    pub params: &'a [String],
}

pub fn factory_name(class: &str) -> String {
    format!("make_{}", class.to_snake_case())
}

/// The factory the guidance module declares for `class` (its qualname): the function the
/// code action would write (`make_stack`), or any top-level `@factory` whose return annotation
/// names the class (`-> Stack`, `-> "shop.Stack"`). Its name, and where that name stands.
pub fn existing_factory(guidance: &GuidanceText<'_>, class: &str) -> Option<(String, TextRange)> {
    guidance
        .declared
        .factory_of(class, &factory_name(class))
        .map(|f| (f.name.clone(), f.name_range))
}

/// A factory skeleton for `class`: its constructor's parameters, then one parameter per
/// writer — a flag for a method without arguments, a list of arguments (one call each) for the
/// others — and a body that builds the object through those calls.
pub fn factory_declaration(
    class: &str,
    init: &[String],
    field: &str,
    writers: &[Writer<'_>],
) -> String {
    let var = object_variable(class, init, writers);
    let mut params: Vec<String> = init.to_vec();
    let mut body = String::new();
    let _ = writeln!(body, "    {var} = {class}({})", init.join(", "));
    for w in writers {
        let (param, code) = writer_call(w, &var, "    ");
        params.push(param);
        body.push_str(&code);
    }
    let _ = writeln!(body, "    return {var}");
    format!(
        "@factory\ndef {}({}) -> {class}:\n    \"\"\"Builds a `{class}` in the states generated tests need (`{field}` changes only through its methods).\"\"\"\n{body}",
        factory_name(class),
        params.join(", "),
    )
}

/// The local variable a factory builds `class` in: the class's name in snake case (`stack`
/// for `Stack`), unless that is a name the factory already uses — the class itself (a
/// lowercase class such as `peekable`: `peekable = peekable(iterable)` would make `peekable`
/// local and raise `UnboundLocalError`), the first part of a dotted class, a parameter, a
/// writer's argument or the factory's own name — then `new_<name>` (`new_peekable`), numbered
/// if that is taken too.
fn object_variable(class: &str, init: &[String], writers: &[Writer<'_>]) -> String {
    let short = class.rsplit('.').next().unwrap_or(class);
    let snake = identifier(&short.to_snake_case());
    let base = if snake.is_empty() {
        "instance".to_owned()
    } else {
        snake
    };
    let parameter = |p: &String| {
        p.trim_start_matches('*')
            .split([':', '='])
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let mut taken: Vec<String> = vec![
        short.to_owned(),
        class.split('.').next().unwrap_or(class).to_owned(),
        factory_name(class),
    ];
    taken.extend(init.iter().map(parameter));
    for w in writers {
        taken.extend(w.params.iter().map(parameter));
        taken.push(
            writer_call(w, "x", "")
                .0
                .split(':')
                .next()
                .unwrap_or("")
                .to_owned(),
        );
    }
    if !taken.contains(&base) {
        return base;
    }
    let fresh = format!("new_{base}");
    (1..)
        .map(|n| {
            if n == 1 {
                fresh.clone()
            } else {
                format!("{fresh}_{n}")
            }
        })
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or(fresh)
}

/// A factory's parameter for writer `w` and the lines (at `indent`) that call it on `var`: a
/// flag for a method without arguments, a list of arguments (one call each) for the others.
fn writer_call(w: &Writer<'_>, var: &str, indent: &str) -> (String, String) {
    match w.params {
        [] => {
            let flag = format!("call_{}", w.name);
            let code = format!("{indent}if {flag}:\n{indent}    {var}.{}()\n", w.name);
            (format!("{flag}: bool"), code)
        }
        [one] => {
            let list = format!("{}_args", w.name);
            let code = format!(
                "{indent}for {one} in {list}:\n{indent}    {var}.{}({one})\n",
                w.name
            );
            (format!("{list}: list"), code)
        }
        many => {
            let list = format!("{}_calls", w.name);
            let args = many.join(", ");
            let code = format!(
                "{indent}for {args} in {list}:\n{indent}    {var}.{}({args})\n",
                w.name
            );
            (format!("{list}: list[tuple]"), code)
        }
    }
}

/// A top-level function of the guidance module that builds a class: where its parameters
/// and its body stand, for extending it with the writers a side needs.
pub struct Factory<'g> {
    function: &'g OutlineFunction,
}

/// Where an extension goes: after the last parameter, and before the closing
/// `return <variable>` (its line, indentation and variable).
struct Anchors<'g> {
    params_end: u32,
    params_empty: bool,
    params_comma: bool,
    closing: &'g FinalReturn,
}

impl<'g> Factory<'g> {
    /// The top-level function `name` of the guidance module.
    pub fn find(guidance: &'g GuidanceText<'_>, name: &str) -> Option<Factory<'g>> {
        guidance
            .declared
            .outline
            .function(name)
            .map(|function| Factory { function })
    }

    /// The writers of `wanted` it does not call yet (as a method of anything).
    pub fn missing<'w>(&self, wanted: &[&'w str]) -> Vec<&'w str> {
        wanted
            .iter()
            .filter(|w| {
                !self
                    .function
                    .calls
                    .iter()
                    .any(|c| c.rsplit_once('.').is_some_and(|(_, m)| m == **w))
            })
            .copied()
            .collect()
    }

    /// Whether it is written the way an extension needs: parameters without `*`, and a last
    /// `return <variable>`.
    pub fn extendable(&self) -> bool {
        self.anchors().is_ok()
    }

    fn anchors(&self) -> Result<Anchors<'g>, NotExtendable> {
        let f = self.function;
        if f.star_params {
            return Err(NotExtendable::StarParameters(f.name.clone()));
        }
        let closing = f
            .final_return
            .as_ref()
            .ok_or_else(|| NotExtendable::NoFinalReturn(f.name.clone()))?;
        Ok(Anchors {
            params_end: f.last_param_end.unwrap_or(f.params.start),
            params_empty: f.last_param_end.is_none(),
            params_comma: f.params_comma,
            closing,
        })
    }

    /// The insertions that extend it with calls of `writers`: one parameter each at the end
    /// of its parameters, and their calls just before its last `return <variable>`. An error
    /// when it is not written that way (it then stays as it is).
    pub fn extend(&self, writers: &[Writer<'_>]) -> Result<Vec<Insertion>, NotExtendable> {
        let a = self.anchors()?;
        let (mut params, mut code) = (String::new(), String::new());
        for w in writers {
            let (param, calls) = writer_call(w, &a.closing.variable, &a.closing.indent);
            let sep = match (params.is_empty(), a.params_empty, a.params_comma) {
                (true, true, _) => "",
                (true, false, true) => " ",
                _ => ", ",
            };
            let _ = write!(params, "{sep}{param}");
            code.push_str(&calls);
        }
        Ok(vec![
            Insertion {
                at: a.params_end,
                text: params,
            },
            Insertion {
                at: a.closing.line_start,
                text: code,
            },
        ])
    }
}

/// Why a factory of the guidance module cannot be extended with more calls.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotExtendable {
    #[error("`{0}` takes `*` parameters: add the new ones by hand")]
    StarParameters(String),
    #[error("`{0}` does not end by returning a variable: add the calls by hand")]
    NoFinalReturn(String),
}

/// Where a top-level import of `name` from `module` goes: merged into an existing
/// `from module import …` statement, or after the last top-level import (after the docstring
/// when there is none).
fn import(text: &str, outline: &Outline, module: &str, name: &str) -> Option<Insertion> {
    if let Some(from) = outline.from_imports.iter().find(|f| f.module == module) {
        if from.names.iter().any(|n| n == name) {
            return None;
        }
        return Some(Insertion {
            at: from.names_end,
            text: format!(", {name}"),
        });
    }
    let statement = format!("from {module} import {name}\n");
    let Some(end) = outline.imports.iter().map(|i| i.range.end as usize).max() else {
        return Some(Insertion {
            at: outline.docstring_end,
            text: format!("\n{statement}"),
        });
    };
    Some(match text[end.min(text.len())..].starts_with('\n') {
        true => Insertion {
            at: end as u32 + 1,
            text: statement,
        },
        false => Insertion {
            at: end as u32,
            text: format!("\n{statement}"),
        },
    })
}

/// The insertions that add `declaration` (and its import) to the guidance module whose text is
/// `existing` (`None`: the file does not exist yet).
pub fn insert(
    existing: Option<&GuidanceText<'_>>,
    declaration: &str,
    needs: Option<(&str, &str)>,
) -> Vec<Insertion> {
    let text = existing.map_or("", |g| g.text);
    let mut out = vec![];
    let fresh =
        existing.is_none_or(|g| !g.declared.defines("mock") || !g.declared.defines("factory"));
    if fresh && text.trim().is_empty() {
        out.push(Insertion {
            at: 0,
            text: HEADER.to_owned(),
        });
    } else if fresh {
        // A module the user started by hand: the markers go at its end.
        out.push(Insertion {
            at: text.len() as u32,
            text: format!(
                "{}\n\n{}",
                separator(text),
                HEADER
                    .split_once("\"\"\"\n\n\n")
                    .map_or(HEADER, |(_, rest)| rest)
            ),
        });
    }
    if let Some((module, name)) = needs {
        let found = match existing {
            Some(g) if !text.trim().is_empty() => import(text, &g.declared.outline, module, name),
            _ => import(HEADER, &lacuna_grammar::outline(HEADER), module, name),
        };
        if let Some(mut i) = found {
            if text.trim().is_empty() {
                // The header is inserted at 0 in the same edit: imports go after its docstring.
                out[0].text.insert_str(i.at as usize, &i.text);
            } else {
                i.at = i.at.min(text.len() as u32);
                out.push(i);
            }
        }
    }
    let start = if text.trim().is_empty() {
        ""
    } else {
        separator(text)
    };
    out.push(Insertion {
        at: text.len() as u32,
        text: format!("{start}\n\n{declaration}"),
    });
    // One edit per offset: clients that apply same-position insertions in reverse (or reject
    // them) still get the header before the declaration.
    let mut merged: Vec<Insertion> = vec![];
    for i in out {
        match merged.iter_mut().find(|m| m.at == i.at) {
            Some(m) => m.text.push_str(&i.text),
            None => merged.push(i),
        }
    }
    merged
}

/// What makes the text end with exactly one line break before new code is appended.
fn separator(text: &str) -> &'static str {
    if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    }
}

/// Applies insertions as an editor applies an LSP edit: insertions at the same offset appear in
/// the order given.
pub fn apply(text: &str, insertions: &[Insertion]) -> String {
    let mut sorted: Vec<&Insertion> = insertions.iter().collect();
    sorted.sort_by_key(|i| i.at);
    let mut out = String::with_capacity(text.len());
    let mut from = 0usize;
    for i in sorted {
        let at = (i.at as usize).min(text.len());
        out.push_str(&text[from..at]);
        out.push_str(&i.text);
        from = at;
    }
    out.push_str(&text[from..]);
    out
}

/// The range of an insertion, for LSP edits.
pub fn range(i: &Insertion) -> TextRange {
    TextRange::new(i.at, i.at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_module_gets_the_header_then_the_mock() {
        let edits = insert(
            None,
            &mock_declaration("os.path.exists", Some("bool")),
            None,
        );
        let text = apply("", &edits);
        assert!(text.starts_with("\"\"\"Guidance for Lacuna"));
        assert!(
            text.contains(
                "@mock(\"os.path.exists\")\ndef os_path_exists(*args, **kwargs) -> bool:"
            )
        );
        assert!(
            GuidanceText::read(&text)
                .declared
                .mocks_call("os.path.exists")
        );
        // A second declaration appends, and the header is not repeated.
        let again = apply(
            &text,
            &insert(
                Some(&GuidanceText::read(&text)),
                &mock_declaration("datetime.datetime.now", Some("datetime.datetime")),
                None,
            ),
        );
        assert_eq!(again.matches("def mock(").count(), 1);
        assert!(again.ends_with(
            "def datetime_datetime_now(*args, **kwargs) -> \"datetime.datetime\":\n    \"\"\"Generated tests choose what `datetime.datetime.now` returns.\"\"\"\n"
        ));
    }

    #[test]
    fn factories_are_found_by_name_or_by_what_they_build() {
        let text = "from shop import Stack\n\n\n@factory\ndef full(n: int) -> \"shop.Stack\":\n    return Stack()\n\n\ndef make_queue():\n    pass\n";
        let (name, range) =
            existing_factory(&GuidanceText::read(text), "Stack").expect("a factory for Stack");
        assert_eq!(name, "full");
        assert_eq!(&text[range.start as usize..range.end as usize], "full");
        assert_eq!(
            existing_factory(&GuidanceText::read(text), "Queue")
                .map(|f| f.0)
                .as_deref(),
            Some("make_queue")
        );
        // A function that is not marked, or builds something else, is not one.
        assert!(
            existing_factory(
                &GuidanceText::read("def build() -> Stack:\n    pass\n"),
                "Stack"
            )
            .is_none()
        );
        assert!(existing_factory(&GuidanceText::read(text), "Order").is_none());
    }

    #[test]
    fn a_mock_of_a_builtin_does_not_hide_it() {
        let declaration = mock_declaration("open", Some("io.StringIO"));
        assert!(
            declaration
                .starts_with("@mock(\"open\")\ndef open_(*args, **kwargs) -> \"io.StringIO\":"),
            "{declaration}"
        );
    }

    #[test]
    fn factories_of_lowercase_classes_build_in_a_variable_of_their_own() {
        // `peekable = peekable(iterable)` would make `peekable` local to the factory and
        // raise UnboundLocalError: the variable is never the class, a parameter or an argument.
        let decl = factory_declaration(
            "peekable",
            &["iterable".into()],
            "_cache",
            &[Writer {
                name: "prepend",
                params: &["new_peekable".to_owned()],
            }],
        );
        insta::assert_snapshot!(decl);
        let plain = factory_declaration("lru", &["size".into()], "_n", &[]);
        assert!(
            plain.contains("    new_lru = lru(size)\n    return new_lru\n"),
            "{plain}"
        );
        // A parameter of the class's snake-case name is not shadowed either.
        let decl = factory_declaration("OrderLine", &["order_line".into()], "_n", &[]);
        assert!(
            decl.contains("    new_order_line = OrderLine(order_line)\n"),
            "{decl}"
        );
        let decl = factory_declaration("shop.Stack", &[], "_n", &[]);
        assert!(decl.contains("    stack = shop.Stack()\n"), "{decl}");
    }

    #[test]
    fn factories_merge_their_import() {
        let decl = factory_declaration(
            "Stack",
            &[],
            "_items",
            &[
                Writer {
                    name: "push",
                    params: &["item".to_owned()],
                },
                Writer {
                    name: "clear",
                    params: &[],
                },
            ],
        );
        assert_eq!(
            decl,
            "@factory\ndef make_stack(push_args: list, call_clear: bool) -> Stack:\n    \"\"\"Builds a `Stack` in the states generated tests need (`_items` changes only through its methods).\"\"\"\n    stack = Stack()\n    for item in push_args:\n        stack.push(item)\n    if call_clear:\n        stack.clear()\n    return stack\n"
        );
        let first = apply("", &insert(None, &decl, Some(("app.stack", "Stack"))));
        assert!(
            first.contains("\"\"\"\n\nfrom app.stack import Stack\n\n\ndef mock("),
            "{first}"
        );
        let order = factory_declaration("Queue", &["size".into()], "_n", &[]);
        let second = apply(
            &first,
            &insert(
                Some(&GuidanceText::read(&first)),
                &order,
                Some(("app.stack", "Queue")),
            ),
        );
        assert!(
            second.contains("from app.stack import Stack, Queue\n"),
            "{second}"
        );
        assert_eq!(second.matches("from app.stack").count(), 1);
    }

    #[test]
    fn imports_merge_into_a_parenthesised_from_and_follow_the_last_import() {
        let mine = "\"\"\"Mine.\"\"\"\nfrom app.stack import (\n    Stack,  # the stack\n)\nimport os\n\n\ndef mock(t):\n    return lambda f: f\n\n\ndef factory(f):\n    return f\n";
        let read = GuidanceText::read(mine);
        let decl = factory_declaration("Queue", &[], "_n", &[]);
        let merged = apply(
            mine,
            &insert(Some(&read), &decl, Some(("app.stack", "Queue"))),
        );
        assert!(
            merged.starts_with("\"\"\"Mine.\"\"\"\nfrom app.stack import (\n    Stack, Queue,  # the stack\n)\nimport os\n"),
            "{merged}"
        );
        let other = apply(
            mine,
            &insert(Some(&read), &decl, Some(("app.queue", "Queue"))),
        );
        assert!(
            other.contains("\nimport os\nfrom app.queue import Queue\n\n\ndef mock("),
            "{other}"
        );
        // Already imported: nothing to add.
        let again = insert(Some(&read), &decl, Some(("app.stack", "Stack")));
        assert_eq!(again.len(), 1, "{again:?}");
    }

    #[test]
    fn a_factory_with_a_commented_parameter_list_is_extended_after_its_last_parameter() {
        let text = "def make_stack(\n    size,  # how many\n) -> Stack:\n    stack = Stack(size)\n    return stack\n";
        let read = GuidanceText::read(text);
        let flag = [Writer {
            name: "clear",
            params: &[],
        }];
        let edits = Factory::find(&read, "make_stack")
            .unwrap()
            .extend(&flag)
            .unwrap();
        assert_eq!(
            apply(text, &edits),
            "def make_stack(\n    size, call_clear: bool  # how many\n) -> Stack:\n    stack = Stack(size)\n    if call_clear:\n        stack.clear()\n    return stack\n"
        );
    }

    #[test]
    fn a_hand_written_module_keeps_its_code() {
        let mine = "import os\n\nLIMIT = 3";
        let text = apply(
            mine,
            &insert(
                Some(&GuidanceText::read(mine)),
                &mock_declaration("os.getcwd", Some("str")),
                None,
            ),
        );
        assert!(text.starts_with("import os\n\nLIMIT = 3\n"));
        assert!(text.contains("def mock(target):"));
        assert!(text.contains("@mock(\"os.getcwd\")"));
    }

    #[test]
    fn a_factory_is_extended_with_the_writers_it_lacks() {
        let text = "@factory\ndef make_session(user, login_args: list) -> Session:\n    session = Session(user)\n    for password in login_args:\n        session.login(password)\n    return session\n\n\ndef after():\n    return 1\n";
        assert_eq!(
            Factory::find(&GuidanceText::read(text), "make_session")
                .unwrap()
                .missing(&["login", "grant"]),
            ["grant"]
        );
        let params = ["role".to_owned()];
        let writers = [Writer {
            name: "grant",
            params: &params,
        }];
        let edits = Factory::find(&GuidanceText::read(text), "make_session")
            .unwrap()
            .extend(&writers)
            .unwrap();
        assert_eq!(
            apply(text, &edits),
            "@factory\ndef make_session(user, login_args: list, grant_args: list) -> Session:\n    session = Session(user)\n    for password in login_args:\n        session.login(password)\n    for role in grant_args:\n        session.grant(role)\n    return session\n\n\ndef after():\n    return 1\n"
        );
        // Without parameters, with a trailing comma, or returning an expression.
        let bare = "def make_stack(\n) -> Stack:\n    stack = Stack()\n    return stack\n";
        let flag = [Writer {
            name: "clear",
            params: &[],
        }];
        assert_eq!(
            apply(
                bare,
                &Factory::find(&GuidanceText::read(bare), "make_stack")
                    .unwrap()
                    .extend(&flag)
                    .unwrap()
            ),
            "def make_stack(call_clear: bool\n) -> Stack:\n    stack = Stack()\n    if call_clear:\n        stack.clear()\n    return stack\n"
        );
        let trailing = "def make_stack(size,) -> Stack:\n    s = Stack(size)\n    return s\n";
        assert!(
            apply(
                trailing,
                &Factory::find(&GuidanceText::read(trailing), "make_stack")
                    .unwrap()
                    .extend(&flag)
                    .unwrap()
            )
            .starts_with("def make_stack(size, call_clear: bool) -> Stack:")
        );
        let returns_a_call = "def make_stack():\n    return Stack()\n";
        let read = GuidanceText::read(returns_a_call);
        let factory = Factory::find(&read, "make_stack").unwrap();
        assert!(!factory.extendable() && factory.extend(&flag).is_err());
        assert!(Factory::find(&GuidanceText::read(text), "make_other").is_none());
    }
}
