//! What a proof of dead code may assume about a name: the values *every* caller and every path
//! can give it. A parameter is what its annotation says — an unannotated one (or `Any`, or a
//! class) is any object, about which nothing is assumed; a local is what every binding of it
//! in the function computes from such names and number literals; a module name is its literal
//! when the module binds it once, to a number or a boolean, and never rebinds it. Anything else
//! is unknown, and no proof may read it. Must not guess: a name is read only when its reading
//! covers every value it can hold.

use crate::explore::coverage::FunctionUnderTest;

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
    let body = body_text(f);
    if declared_outside(&body, name) {
        return constant(&f.text, name);
    }
    if binding_lines(&body, name).next().is_some() {
        return local(f, &body, name, &mut vec![]);
    }
    constant(&f.text, name)
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

fn body_text(f: &FunctionUnderTest) -> String {
    let r = f.syntax.body.absolute(f.anchor);
    f.text
        .get(r.start as usize..r.end as usize)
        .unwrap_or_default()
        .to_owned()
}

/// `global name` / `nonlocal name` in the function: the name belongs to another scope.
fn declared_outside(body: &str, name: &str) -> bool {
    body.lines().any(|l| {
        let l = l.trim_start();
        ["global ", "nonlocal "].iter().any(|kw| {
            l.strip_prefix(kw)
                .is_some_and(|rest| rest.split(',').any(|n| n.trim() == name))
        })
    })
}

/// The lines of `text` that bind `name`, trimmed.
fn binding_lines<'t>(text: &'t str, name: &'t str) -> impl Iterator<Item = &'t str> + 't {
    text.lines().filter(move |l| binds(l, name)).map(str::trim)
}

/// Whether a line binds `name` in any way Python can: assignment, augmented assignment,
/// annotation, `for`, `as`, walrus, `del`, `import`, `def`, `class`, unpacking.
fn binds(line: &str, name: &str) -> bool {
    let l = line.trim_start();
    let word = |s: &str| {
        s.split(|c: char| !(c == '_' || c.is_alphanumeric()))
            .any(|w| w == name)
    };
    let starts = l
        .strip_prefix(name)
        .filter(|rest| !rest.starts_with(|c: char| c == '_' || c.is_alphanumeric()));
    let assignment = starts.is_some_and(|rest| {
        let rest = rest.trim_start();
        (rest.starts_with('=') && !rest.starts_with("=="))
            || rest.starts_with(',')
            || rest.starts_with(':')
            || [
                "+=", "-=", "*=", "/=", "//=", "%=", "|=", "&=", "^=", "**=", ">>=", "<<=", "@=",
            ]
            .iter()
            .any(|op| rest.starts_with(op))
    });
    let targets_before_eq = l.split_once('=').is_some_and(|(lhs, rhs)| {
        !rhs.starts_with('=')
            && !lhs.ends_with(['!', '<', '>', '='])
            && lhs.contains(',')
            && word(lhs)
    });
    assignment
        || targets_before_eq
        || (l.starts_with("for ") || l.starts_with("async for "))
            && l.split(" in ").next().is_some_and(word)
        || l.contains(&format!(" as {name}"))
        || l.contains(&format!("{name} :="))
        || l.contains(&format!("{name}:="))
        || l.starts_with("del ") && word(l)
        || (l.starts_with("import ") || l.starts_with("from ")) && word(l)
        || l.starts_with(&format!("def {name}("))
        || l.starts_with(&format!("async def {name}("))
        || l.starts_with(&format!("class {name}"))
}

/// A local whose every binding is `name = expr` or `name op= expr` over numbers and names with
/// a numeric reading.
fn local(
    f: &FunctionUnderTest,
    body: &str,
    name: &str,
    visiting: &mut Vec<String>,
) -> Option<Reading> {
    if visiting.iter().any(|v| v == name) {
        // A binding that reads the name itself adds nothing to the others.
        return Some(Reading::Int);
    }
    visiting.push(name.to_owned());
    let mut joined = Reading::Int;
    for line in binding_lines(body, name) {
        let rest = line.strip_prefix(name)?.trim_start();
        let rest = match rest.strip_prefix(':') {
            // `name: int = …`
            Some(annotated) => annotated.split_once('=').map(|(_, v)| v)?,
            None => rest,
        };
        let value = if let Some(v) = rest.strip_prefix('=') {
            v
        } else {
            let op = ["+=", "-=", "*=", "//=", "%=", "/="]
                .iter()
                .find(|op| rest.starts_with(**op))?;
            if *op == "/=" {
                joined = Reading::Float;
            }
            &rest[op.len()..]
        };
        let kind = expression(f, body, value, visiting)?;
        joined = join(joined, kind)?;
    }
    visiting.pop();
    Some(joined)
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

/// The reading of an arithmetic expression over number literals and numeric names (`+ - *
/// // %`: integers stay integers; `/` and `**` give floats). Anything else is unknown.
fn expression(
    f: &FunctionUnderTest,
    body: &str,
    text: &str,
    visiting: &mut Vec<String>,
) -> Option<Reading> {
    let text = text.split_once('#').map_or(text, |(code, _)| code).trim();
    if text.is_empty() {
        return None;
    }
    let mut kind = Reading::Int;
    let mut depth = 0i32;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || "+-*%".contains(c) {
            if c == '*' && chars.get(i + 1) == Some(&'*') {
                kind = join(kind, Reading::Float)?;
                i += 1;
            }
            i += 1;
            continue;
        }
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '/' => {
                if chars.get(i + 1) == Some(&'/') {
                    i += 1;
                } else {
                    kind = join(kind, Reading::Float)?;
                }
            }
            _ if c.is_ascii_digit() || c == '.' => {
                let start = i;
                while i + 1 < chars.len()
                    && (chars[i + 1].is_alphanumeric()
                        || chars[i + 1] == '.'
                        || chars[i + 1] == '_')
                {
                    i += 1;
                }
                let literal: String = chars[start..=i].iter().filter(|c| **c != '_').collect();
                if literal.parse::<i128>().is_ok() {
                } else if literal.parse::<f64>().is_ok_and(f64::is_finite) {
                    kind = join(kind, Reading::Float)?;
                } else {
                    return None;
                }
            }
            _ if c == '_' || c.is_alphabetic() => {
                let start = i;
                while i + 1 < chars.len() && (chars[i + 1] == '_' || chars[i + 1].is_alphanumeric())
                {
                    i += 1;
                }
                let word: String = chars[start..=i].iter().collect();
                // A call, an attribute or a subscript is not followed.
                if matches!(chars.get(i + 1), Some('(' | '.' | '[')) {
                    return None;
                }
                let named = match word.as_str() {
                    "True" | "False" => Reading::Int,
                    _ => {
                        if let Some(p) = f.syntax.params.iter().find(|p| p.name == word) {
                            annotation(p.annotation.as_deref()?)?
                        } else if binding_lines(body, &word).next().is_some()
                            && !declared_outside(body, &word)
                        {
                            local(f, body, &word, visiting)?
                        } else {
                            constant(&f.text, &word)?
                        }
                    }
                };
                kind = join(kind, named)?;
            }
            _ => return None,
        }
        i += 1;
    }
    (depth == 0).then_some(kind)
}

/// A module name bound exactly once, at the top level, to a number or a boolean literal, and
/// bound nowhere else in the module.
pub fn constant(module: &str, name: &str) -> Option<Reading> {
    if !name.starts_with(|c: char| c == '_' || c.is_alphabetic()) {
        return None;
    }
    let mut bindings = module
        .lines()
        .filter(|l| binds(l, name) || declared_outside(l, name));
    let line = bindings.next()?;
    if bindings.next().is_some() || line.starts_with(char::is_whitespace) {
        return None;
    }
    let value = line[name.len()..].trim_start();
    let value = value.strip_prefix(':').map_or(Some(value), |annotated| {
        annotated.split_once('=').map(|(_, v)| v)
    })?;
    let value = value.trim_start().strip_prefix('=')?;
    let value = value.split_once('#').map_or(value, |(code, _)| code).trim();
    match value {
        "True" => return Some(Reading::Constant(1.0)),
        "False" => return Some(Reading::Constant(0.0)),
        _ => {}
    }
    let (negative, digits) = match value.strip_prefix('-') {
        Some(d) => (true, d.trim_start()),
        None => (false, value),
    };
    let x = digits.replace('_', "").parse::<f64>().ok().filter(|x| {
        x.is_finite() && digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
    })?;
    Some(Reading::Constant(if negative { -x } else { x }))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let module = "LIMIT = 10\nCACHE = {}\nFLAG = True\nMOVED = 1\n\ndef f():\n    global MOVED\n    MOVED = 2\n";
        assert_eq!(constant(module, "LIMIT"), Some(Reading::Constant(10.0)));
        assert_eq!(constant(module, "FLAG"), Some(Reading::Constant(1.0)));
        assert_eq!(constant(module, "CACHE"), None);
        assert_eq!(constant(module, "MOVED"), None);
        assert_eq!(constant(module, "MISSING"), None);
        assert_eq!(constant("import LIMIT\nLIMIT = 3\n", "LIMIT"), None);
        assert_eq!(constant("def f():\n    LIMIT = 3\n", "LIMIT"), None);
    }

    #[test]
    fn bindings() {
        assert!(binds("    a, level = 1, 2", "level"));
        assert!(binds("    level += 1", "level"));
        assert!(binds("    for i, level in xs:", "level"));
        assert!(!binds("    if level == 2:", "level"));
        assert!(!binds("    x = level", "level"));
        assert!(binds("    with open(p) as level:", "level"));
    }
}
