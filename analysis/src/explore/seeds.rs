//! Where inputs start: default values declared in a signature, literals of the function's
//! source, and the type of an unannotated parameter guessed from how the function uses it
//! (its methods, and whether it is called — with what its calls must return).

use super::shape::Shape;
use super::value::ModelValue;
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// Default values declared in a signature (`describe`'s `default` reprs), by access path:
/// `qty` for a parameter, `self.__init__.capacity` for a constructor argument.
pub fn defaults(list: &Json, path: &str, out: &mut BTreeMap<String, ModelValue>) {
    let Some(params) = list.as_array() else {
        return;
    };
    for p in params {
        let name = p["name"].as_str().unwrap_or_default();
        let full = if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        };
        if let Some(value) = p["default"].as_str().and_then(parse_repr) {
            out.insert(full.clone(), value);
        }
        if p["type"]["kind"] == "class" {
            defaults(&p["type"]["init"], &format!("{full}.__init__"), out);
        }
    }
}

/// A Python literal's repr as a model value (ints, floats, booleans, simple strings).
pub fn parse_repr(repr: &str) -> Option<ModelValue> {
    let r = repr.trim();
    match r {
        "True" => return Some(ModelValue::Bool(true)),
        "False" => return Some(ModelValue::Bool(false)),
        _ => {}
    }
    if let Ok(n) = r.parse::<i64>() {
        return Some(ModelValue::Int(n.to_string()));
    }
    if let Ok(x) = r.parse::<f64>() {
        return Some(ModelValue::Real(x));
    }
    let quoted =
        (r.starts_with('\'') && r.ends_with('\'')) || (r.starts_with('"') && r.ends_with('"'));
    if quoted && r.len() >= 2 && !r[1..r.len() - 1].contains('\\') {
        return Some(ModelValue::Str(r[1..r.len() - 1].to_owned()));
    }
    None
}

/// A guess at the type of an unannotated parameter from how the function uses it:
/// `p.get(...)` or `p.items()` makes a dict, `p.append(...)` a list, `p.startswith(...)` a str.
pub fn guess_from_uses(name: &str, source: &str) -> Shape {
    let code = code_only(source);
    let source = code.as_str();
    const DICT: &[&str] = &[
        "get",
        "items",
        "keys",
        "values",
        "setdefault",
        "update",
        "pop",
    ];
    const LIST: &[&str] = &["append", "extend", "insert", "sort", "index"];
    const STR: &[&str] = &[
        "startswith",
        "endswith",
        "lower",
        "upper",
        "strip",
        "split",
        "isdigit",
        "isalpha",
        "replace",
        "find",
        "format",
        "join",
        "encode",
    ];
    let bytes = source.as_bytes();
    let mut votes = [0u32; 3];
    // Weaker evidence, from how it is indexed, tested for membership and passed to builtins:
    // [dict, list].
    let mut containers = [0u32; 2];
    let mut from = 0;
    while let Some(i) = source[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before_ok = at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b'.');
        if !before_ok {
            continue;
        }
        let after_word = bytes
            .get(from)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_');
        if !after_word {
            let line_start = source[..at].rfind('\n').map_or(0, |j| j + 1);
            let before = source[line_start..at].trim_end();
            let next = bytes.get(from + 1).copied().unwrap_or(b' ');
            if bytes.get(from) == Some(&b'[') {
                if next.is_ascii_digit() || next == b'-' {
                    containers[1] += 1;
                } else if next.is_ascii_alphabetic()
                    || next == b'_'
                    || next == b'\''
                    || next == b'"'
                {
                    containers[0] += 1;
                }
            } else if before.ends_with(" in") || before.ends_with("(in") {
                let statement = source[line_start..at].trim_start();
                containers[usize::from(statement.starts_with("for "))] += 1;
            } else if before.ends_with("dict(") {
                containers[0] += 1;
            } else if ["iter(", "len(", "sorted(", "list(", "tuple(", "enumerate("]
                .iter()
                .any(|f| before.ends_with(f))
            {
                containers[1] += 1;
            }
        }
        if bytes.get(from) != Some(&b'.') {
            continue;
        }
        let method: String = source[from + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if DICT.contains(&method.as_str()) {
            votes[0] += 1;
        } else if LIST.contains(&method.as_str()) {
            votes[1] += 1;
        } else if STR.contains(&method.as_str()) {
            votes[2] += 1;
        }
    }
    let by_methods = match votes.iter().enumerate().max_by_key(|(_, v)| **v) {
        Some((0, v)) if *v > 0 => Shape::Dict(Box::new(Shape::Str), Box::new(Shape::Any)),
        Some((1, v)) if *v > 0 => Shape::List(Box::new(Shape::Any)),
        Some((2, v)) if *v > 0 => Shape::Str,
        // Still any type, the likeliest container tried first.
        _ if containers != [0, 0] => {
            let first = if containers[0] >= containers[1] {
                Shape::Dict(Box::new(Shape::Str), Box::new(Shape::Any))
            } else {
                Shape::List(Box::new(Shape::Any))
            };
            let mut variants = vec![first.clone()];
            variants.extend(
                super::shape::any_variants()
                    .into_iter()
                    .filter(|v| std::mem::discriminant(v) != std::mem::discriminant(&first)),
            );
            Shape::Union(variants)
        }
        _ => Shape::Any,
    };
    match (called(name, source), by_methods) {
        (Some(returns), Shape::Any) => Shape::Callable {
            returns: Box::new(returns),
            named: None,
        },
        // `format.format(value)` and `format(value)`: a format string or a function.
        (Some(returns), other) => {
            let callable = Shape::Callable {
                returns: Box::new(returns),
                named: None,
            };
            match other {
                Shape::Union(mut members) => {
                    members.insert(1, callable);
                    members.truncate(8);
                    Shape::Union(members)
                }
                other => Shape::Union(vec![other, callable]),
            }
        }
        (None, other) => other,
    }
}

/// Whether the function calls `name` (`predicate(v)`, `map(func, xs)`, `sorted(xs,
/// key=func)`), and if so the guess at what the calls return: a truth value when a result is
/// tested (`if predicate(v):`, `filter(predicate, xs)`), anything otherwise.
pub fn called(name: &str, source: &str) -> Option<Shape> {
    let code = code_only(source);
    let source = code.as_str();
    let bytes = source.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found = false;
    let mut tested = false;
    let mut from = 0;
    while let Some(i) = source[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        if at > 0 && (word(bytes[at - 1]) || bytes[at - 1] == b'.') {
            continue;
        }
        if bytes.get(from).is_some_and(|&b| word(b)) {
            continue;
        }
        let line_start = source[..at].rfind('\n').map_or(0, |j| j + 1);
        let before = source[line_start..at].trim_end();
        if bytes.get(from) == Some(&b'(') {
            if before.ends_with("def") || before.ends_with("class") {
                continue;
            }
            found = true;
            let last = before.rsplit([' ', '(']).next().unwrap_or(before);
            tested |= matches!(
                last,
                "if" | "elif" | "while" | "not" | "and" | "or" | "assert"
            );
            continue;
        }
        // Passed to a higher-order builtin.
        for (prefix, truth) in [
            ("map(", false),
            ("filter(", true),
            ("key=", false),
            ("reduce(", false),
            ("any(map(", true),
            ("all(map(", true),
        ] {
            if before.ends_with(prefix) {
                found = true;
                tested |= truth;
            }
        }
    }
    found.then_some(if tested { Shape::Bool } else { Shape::Any })
}

/// `source` with the text of its string literals and comments blanked out (quotes, lengths and
/// lines kept): a docstring's `value (int, str)` is not a call of `value`.
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                let triple = bytes[i..].starts_with(&[q, q, q]);
                let width = if triple { 3 } else { 1 };
                i += width;
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        out[i] = b' ';
                        if i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
                            out[i + 1] = b' ';
                        }
                        i += 2;
                        continue;
                    }
                    if triple && bytes[i..].starts_with(&[q, q, q]) || !triple && bytes[i] == q {
                        i += width;
                        break;
                    }
                    if !triple && bytes[i] == b'\n' {
                        break;
                    }
                    if bytes[i] != b'\n' {
                        out[i] = b' ';
                    }
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by spaces: the text is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| source.to_owned())
}

/// The text of the module-level assignments whose names `function_source` reads (`DEFAULTS =
/// {"currency": "EUR", …}` for a function testing `key in DEFAULTS`): their literals are the
/// values the function compares with too.
pub fn globals_read(module: &str, function_source: &str) -> String {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let reads = |name: &str| {
        function_source.match_indices(name).any(|(i, _)| {
            let bytes = function_source.as_bytes();
            let before = i.checked_sub(1).map(|j| bytes[j]);
            let after = bytes.get(i + name.len()).copied();
            !before.is_some_and(|b| is_word(b) || b == b'.') && !after.is_some_and(is_word)
        })
    };
    let mut out = String::new();
    let mut taking = false;
    for line in module.lines() {
        let top = !line.starts_with([' ', '\t', ')', ']', '}']) && !line.trim().is_empty();
        if top {
            let name: String = line
                .bytes()
                .take_while(|&b| is_word(b))
                .map(char::from)
                .collect();
            let rest = line[name.len()..].trim_start();
            let assigns = (rest.starts_with('=') && !rest.starts_with("=="))
                || (rest.starts_with(':') && rest.contains('='));
            taking = !name.is_empty()
                && ![
                    "def", "class", "import", "from", "async", "if", "for", "while", "with", "try",
                ]
                .contains(&name.as_str())
                && assigns
                && reads(&name);
        }
        if taking {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// String and number literals that appear in a function's source, as seeds.
pub fn literals(source: &str) -> (Vec<String>, Vec<i64>) {
    let mut strings: Vec<String> = vec![];
    let mut numbers: Vec<i64> = vec![];
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' || b == b'\'' {
            let quote = b;
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != quote && bytes[j] != b'\n' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            if j < bytes.len() && bytes[j] == quote {
                let s = &source[start..j];
                if s.len() <= 40 && !s.contains('\\') && !strings.iter().any(|x| x == s) {
                    strings.push(s.to_owned());
                }
                // A regular expression: strings it matches. Patterns are written as raw
                // literals (whose backslashes are the pattern's own), or short plain ones.
                let raw = i > 0 && matches!(bytes[i - 1], b'r' | b'R');
                if raw || (s.len() <= 40 && !s.contains('\\')) {
                    for example in super::regex::examples(s, 6) {
                        if !strings.contains(&example) {
                            strings.push(example);
                        }
                    }
                }
            }
            i = j + 1;
            continue;
        }
        if b.is_ascii_digit()
            && (i == 0
                || !(bytes[i - 1].is_ascii_alphanumeric()
                    || bytes[i - 1] == b'_'
                    || bytes[i - 1] == b'.'))
        {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'.' {
                continue;
            }
            if let Ok(n) = source[start..i].replace('_', "").parse::<i64>()
                && !numbers.contains(&n)
            {
                numbers.push(n);
            }
            continue;
        }
        i += 1;
    }
    (strings, numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guesses_types_from_uses() {
        let src = "def vat_rate(config, country):\n    rates = config.get('rates', {})\n    if country.upper() in rates: pass";
        assert!(matches!(guess_from_uses("config", src), Shape::Dict(..)));
        assert_eq!(guess_from_uses("country", src), Shape::Str);
        // Tested for membership: any type, a dict first.
        assert!(
            matches!(guess_from_uses("rates", src), Shape::Union(v) if matches!(v[0], Shape::Dict(..))),
        );
        assert_eq!(guess_from_uses("region", src), Shape::Any);
        let src = "def first(keys):\n    return keys[0]";
        assert!(
            matches!(guess_from_uses("keys", src), Shape::Union(v) if matches!(v[0], Shape::List(..))),
        );
        let callable = |returns| Shape::Callable {
            returns: Box::new(returns),
            named: None,
        };
        let src = "def valfilter(predicate, d, func, key):\n    for k, v in d.items():\n        if predicate(v):\n            rv[k] = func(v)\n    return sorted(rv, key=key)";
        assert_eq!(guess_from_uses("predicate", src), callable(Shape::Bool));
        assert_eq!(guess_from_uses("func", src), callable(Shape::Any));
        assert_eq!(guess_from_uses("key", src), callable(Shape::Any));
        assert!(matches!(guess_from_uses("d", src), Shape::Dict(..)));
        let src = "def clamp(value, format):\n    if isinstance(format, str):\n        return format.format(value)\n    return format(value)";
        assert_eq!(
            guess_from_uses("format", src),
            Shape::Union(vec![Shape::Str, callable(Shape::Any)])
        );
        assert_eq!(guess_from_uses("value", src), Shape::Any);
        // Words of a docstring or a comment are not uses.
        let src = "def ordinal(value):\n    \"\"\"Args:\n        value (int, str): value.get(x)\n    \"\"\"\n    return int(value)  # value(1)\n";
        assert_eq!(guess_from_uses("value", src), Shape::Any);
        assert_eq!(parse_repr("1000"), Some(ModelValue::Int("1000".into())));
        assert_eq!(parse_repr("'EUR'"), Some(ModelValue::Str("EUR".into())));
        assert_eq!(parse_repr("<factory>"), None);
    }

    #[test]
    fn reads_the_literals_of_the_globals_a_function_uses() {
        let module = "import os\nDEFAULTS: dict = {\n    \"currency\": \"EUR\",\n}\nOTHER = 'x'\nMAX = 50\n\ndef f(key):\n    if key in DEFAULTS or key == MAX_X:\n        pass\n";
        let function = "def f(key):\n    if key in DEFAULTS or key == MAX_X:\n        pass\n";
        let text = globals_read(module, function);
        assert_eq!(text, "DEFAULTS: dict = {\n    \"currency\": \"EUR\",\n}\n");
        assert_eq!(
            literals(&text).0,
            vec!["currency".to_owned(), "EUR".to_owned()]
        );
    }

    #[test]
    fn mines_literals() {
        let (s, n) =
            literals("if coupon.startswith('SAVE') and qty > 1_000 or x == \"a\\\"b\": y = 2.5");
        assert_eq!(s, vec!["SAVE".to_owned()]);
        assert_eq!(n, vec![1000]);
    }
}
