//! What a proof of dead code may assume about a name: the values *every* caller and every path
//! can give it. A parameter is what its annotation says — an unannotated one (or `Any`, or a
//! class) is any object, about which nothing is assumed; a local is what every binding of it
//! in the function computes from such names and number literals; a module name is its literal
//! when the module binds it once, to a number or a boolean, and never rebinds it. Anything else
//! is unknown, and no proof may read it. Must not guess: a name is read only when its reading
//! covers every value it can hold. What binds a name, and to what, is read from the syntax
//! layer's flow facts ([`lacuna_grammar::ModuleFlow`]).

use crate::explore::coverage::FunctionUnderTest;
use lacuna_grammar::Store;

/// The values a name can hold, as far as a proof may rely on them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    /// Integers (and booleans), or `None` where an annotation allows it: ordered like reals,
    /// never NaN.
    Int,
    /// Floats: ordered like reals except NaN, which every ordering and `==` refuse.
    Float,
    /// Text or bytes: truthiness only.
    Text,
    /// A module constant bound to this number (booleans as 0 and 1).
    Constant(f64),
}

/// The reading of `name` inside `f`, when one covers every value it can hold.
pub fn reading(f: &FunctionUnderTest, name: &str) -> Option<Reading> {
    if let Some(param) = f.syntax.params.iter().find(|p| p.name == name) {
        // `*args`, `**kwargs` and the receiver are containers or objects.
        if matches!(
            param.kind,
            lacuna_grammar::ParamKind::VarPositional | lacuna_grammar::ParamKind::VarKeyword
        ) {
            return None;
        }
        return annotation(param.annotation.as_deref()?);
    }
    if declared_outside(f, name) {
        return constant(f, name);
    }
    if !bindings(f, name).is_empty() {
        return local(f, name, &mut vec![]);
    }
    constant(f, name)
}

/// The reading an annotation guarantees: builtin scalars, optionally `None`.
pub fn annotation(text: &str) -> Option<Reading> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let t = t.trim_matches(|c| c == '"' || c == '\'');
    let inner = t
        .strip_prefix("Optional[")
        .or_else(|| t.strip_prefix("typing.Optional["))
        .and_then(|r| r.strip_suffix(']'))
        .map(str::to_owned)
        .or_else(|| {
            let parts: Vec<&str> = t.split('|').collect();
            (parts.len() == 2 && parts.contains(&"None"))
                .then(|| parts.iter().find(|p| **p != "None").unwrap().to_string())
        });
    match inner.as_deref().unwrap_or(t) {
        "int" | "bool" => Some(Reading::Int),
        "float" => Some(Reading::Float),
        "str" | "bytes" => Some(Reading::Text),
        _ => None,
    }
}

/// `global name` / `nonlocal name` in the function: the name belongs to another scope.
fn declared_outside(f: &FunctionUnderTest, name: &str) -> bool {
    f.own_flow()
        .statements
        .iter()
        .any(|s| s.outside.iter().any(|n| n == name))
}

/// The stores that bind `name` in the function's own body: assignments, augmented ones,
/// `for`, `with … as`, `except … as`, `:=`, `del`, `import`, `def`, `class`, captures (not
/// `name[k] = …`, which changes the object, not the name).
fn bindings<'f>(f: &'f FunctionUnderTest, name: &str) -> Vec<&'f Store> {
    f.own_flow()
        .statements
        .iter()
        .flat_map(|s| &s.stores)
        .filter(|store| store.name == name && store.kind.binds())
        .collect()
}

/// Whether a function nested in `f` declares `nonlocal name`, and so may rebind it.
fn rebound_inside(f: &FunctionUnderTest, name: &str) -> bool {
    let nested = format!("{}.<locals>.", f.syntax.qualname);
    f.flow
        .functions
        .iter()
        .filter(|(id, _)| id.as_str().starts_with(&nested))
        .flat_map(|(_, flow)| &flow.statements)
        .any(|s| s.outside.iter().any(|n| n == name))
}

/// A local whose every binding is `name = expr` or `name op= expr` over numbers and names with
/// a numeric reading.
fn local(f: &FunctionUnderTest, name: &str, visiting: &mut Vec<String>) -> Option<Reading> {
    if visiting.iter().any(|v| v == name) {
        // A binding that reads the name itself adds nothing to the others.
        return Some(Reading::Int);
    }
    if rebound_inside(f, name) {
        return None;
    }
    visiting.push(name.to_owned());
    let mut joined = Reading::Int;
    for store in bindings(f, name) {
        let value = store.arithmetic.as_ref()?;
        let mut kind = if value.float {
            Reading::Float
        } else {
            Reading::Int
        };
        for word in &value.names {
            kind = join(kind, named(f, word, visiting)?)?;
        }
        joined = join(joined, kind)?;
    }
    visiting.pop();
    Some(joined)
}

/// The reading of a name an arithmetic value reads: a parameter's annotation, a local's
/// bindings, a module constant.
fn named(f: &FunctionUnderTest, word: &str, visiting: &mut Vec<String>) -> Option<Reading> {
    if let Some(p) = f.syntax.params.iter().find(|p| p.name == word) {
        return annotation(p.annotation.as_deref()?);
    }
    if !bindings(f, word).is_empty() && !declared_outside(f, word) {
        return local(f, word, visiting);
    }
    constant(f, word)
}

fn join(a: Reading, b: Reading) -> Option<Reading> {
    match (a, b) {
        (Reading::Int | Reading::Constant(_), Reading::Int | Reading::Constant(_)) => {
            Some(Reading::Int)
        }
        (
            Reading::Int | Reading::Float | Reading::Constant(_),
            Reading::Int | Reading::Float | Reading::Constant(_),
        ) => Some(Reading::Float),
        _ => None,
    }
}

/// A module name bound exactly once, in the module's own body and outside any block, to a
/// number or a boolean literal, bound nowhere else in the module and declared `global` by no
/// function.
pub fn constant(f: &FunctionUnderTest, name: &str) -> Option<Reading> {
    let flow = &f.flow;
    if flow
        .statements()
        .any(|s| s.outside.iter().any(|n| n == name))
    {
        return None;
    }
    let mut stores = flow.statements().flat_map(|s| {
        s.stores
            .iter()
            .filter(|store| store.name == name && store.kind.binds())
            .map(move |store| (s, store))
    });
    let (statement, store) = stores.next()?;
    if stores.next().is_some() || statement.depth > 0 {
        return None;
    }
    if !flow.module().iter().any(|s| std::ptr::eq(s, statement)) {
        return None;
    }
    store
        .arithmetic
        .as_ref()
        .and_then(|a| a.literal)
        .map(Reading::Constant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::flow::tests::function;

    #[test]
    fn annotations() {
        assert_eq!(annotation("int"), Some(Reading::Int));
        assert_eq!(annotation("Optional[int]"), Some(Reading::Int));
        assert_eq!(annotation("float | None"), Some(Reading::Float));
        assert_eq!(annotation("Any"), None);
        assert_eq!(annotation("List[int]"), None);
        assert_eq!(annotation("Shape"), None);
    }

    #[test]
    fn module_constants() {
        let module = r#"
LIMIT = 10
CACHE = {}
FLAG = True
MOVED = 1
NOTE = """
SHADOW = 3
"""
SHADOW = 4
if FLAG:
    GUARDED = 1

def f():
    global MOVED
    MOVED = 2
"#;
        let f = function(module, "f");
        assert_eq!(constant(&f, "LIMIT"), Some(Reading::Constant(10.0)));
        assert_eq!(constant(&f, "FLAG"), Some(Reading::Constant(1.0)));
        assert_eq!(constant(&f, "CACHE"), None);
        assert_eq!(constant(&f, "MOVED"), None);
        assert_eq!(constant(&f, "MISSING"), None);
        assert_eq!(constant(&f, "GUARDED"), None);
        // A line of a string binds nothing.
        assert_eq!(constant(&f, "SHADOW"), Some(Reading::Constant(4.0)));
        let g = |text: &str| function(text, "g");
        let imported = g("import LIMIT\nLIMIT = 3\ndef g(): pass\n");
        assert_eq!(constant(&imported, "LIMIT"), None);
        assert_eq!(constant(&g("def g():\n    LIMIT = 3\n"), "LIMIT"), None);
        let in_class = g("LIMIT = 3\nclass C:\n    LIMIT = 4\ndef g(): pass\n");
        assert_eq!(constant(&in_class, "LIMIT"), None);
        let captured =
            g("LIMIT = 3\ndef g():\n    match 1:\n        case LIMIT:\n            pass\n");
        assert_eq!(constant(&captured, "LIMIT"), None);
    }

    #[test]
    fn locals_are_read_from_every_binding() {
        let text = r#"
def g(n: int, x: float):
    a, level = 1, 2
    count = 0
    count += n
    ratio = n
    ratio /= 2
    mixed = n if n else x
    def inner():
        nonlocal shared
        shared = 1.5
    shared = 1
    with open(p) as handle:
        pass
    return level
"#;
        let f = function(text, "g");
        assert_eq!(reading(&f, "count"), Some(Reading::Int));
        assert_eq!(reading(&f, "ratio"), Some(Reading::Float));
        assert_eq!(reading(&f, "level"), None, "unpacked");
        assert_eq!(reading(&f, "mixed"), None, "a conditional value");
        assert_eq!(reading(&f, "shared"), None, "rebound by a nested function");
        assert_eq!(reading(&f, "handle"), None);
        assert_eq!(reading(&f, "x"), Some(Reading::Float));
    }
}
