//! Where inputs start: default values declared in a signature, the literals of the function's
//! code and of the module names it reads (from the syntax layer), and the type of an
//! unannotated parameter guessed from how the function uses it (its methods, and whether it is
//! called — with what its calls must return).

use super::coverage::FunctionUnderTest;
use super::shape::Shape;
use super::value::ModelValue;
use crate::agent::description::Param;
use lacuna_grammar::{Literal, ParamUse, UseKind};
use std::collections::BTreeMap;

/// Default values declared in a signature (`describe`'s `default` reprs), by access path:
/// `qty` for a parameter, `self.__init__.capacity` for a constructor argument.
pub fn defaults(params: &[Param], path: &str, out: &mut BTreeMap<String, ModelValue>) {
    for p in params {
        let name = p.name.as_deref().unwrap_or_default();
        let full = if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        };
        if let Some(value) = p.default.as_deref().and_then(parse_repr) {
            out.insert(full.clone(), value);
        }
        if p.tree.kind.as_deref() == Some("class") {
            defaults(&p.tree.init, &format!("{full}.__init__"), out);
        }
    }
}

/// The choice giving each parameter whose declared default is `None` (`describe`'s `default`
/// repr) that default: the index of `None` among the variants of its shape (`Optional`, a
/// union, "any"), by its path (`path` then its name). The constructor parameters of an object
/// it takes (`{path}{name}.__init__.`) are given theirs the same way: `SortedList(iterable=None)`
/// is built as a call without arguments builds it. A parameter whose shape has no `None`
/// variant is left out.
pub fn none_defaults(
    list: &[Param],
    path: &str,
    params: &[(String, Shape)],
    out: &mut BTreeMap<String, usize>,
) {
    for p in list {
        let name = p.name.as_deref().unwrap_or_default();
        let Some((_, shape)) = params.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let full = format!("{path}{name}");
        if p.default.as_deref() == Some("None")
            && let Some(k) = shape.variants().iter().position(|v| *v == Shape::None)
        {
            out.insert(full.clone(), k);
        }
        if p.tree.kind() == "class"
            && let Shape::Object(o) = shape
        {
            none_defaults(&p.tree.init, &format!("{full}.__init__."), &o.init, out);
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

/// A guess at the type of an unannotated parameter from how the function uses it (the syntax
/// layer's [`ParamUse`]s): `p.get(...)` or `p.items()` makes a dict, `p.append(...)` a list,
/// `p.startswith(...)` a str; being indexed, tested for membership or passed to a builtin is
/// weaker evidence, for a container; being called makes a callable.
pub fn guess_from_uses(name: &str, uses: &[ParamUse]) -> Shape {
    // The methods of each kind no other of the three has (as `dir()` lists them in CPython
    // 3.11; `pop` is a dict's and a list's: the dict's, whose `pop(key)` is the likelier).
    const DICT: &[&str] = &[
        "fromkeys",
        "get",
        "items",
        "keys",
        "popitem",
        "setdefault",
        "update",
        "values",
        "pop",
    ];
    const LIST: &[&str] = &["append", "extend", "insert", "remove", "reverse", "sort"];
    const STR: &[&str] = &[
        "capitalize",
        "casefold",
        "center",
        "encode",
        "endswith",
        "expandtabs",
        "find",
        "format",
        "format_map",
        "isalnum",
        "isalpha",
        "isascii",
        "isdecimal",
        "isdigit",
        "isidentifier",
        "islower",
        "isnumeric",
        "isprintable",
        "isspace",
        "istitle",
        "isupper",
        "join",
        "ljust",
        "lower",
        "lstrip",
        "partition",
        "removeprefix",
        "removesuffix",
        "replace",
        "rfind",
        "rindex",
        "rjust",
        "rpartition",
        "rsplit",
        "rstrip",
        "split",
        "splitlines",
        "startswith",
        "strip",
        "swapcase",
        "title",
        "translate",
        "upper",
        "zfill",
    ];
    // `except p`: an exception class, one that catches what the code raises and one that
    // lets most of it through.
    if uses
        .iter()
        .any(|u| u.param == name && u.kind == UseKind::Caught)
    {
        return Shape::Class(vec![
            "builtins:Exception".to_owned(),
            "builtins:ValueError".to_owned(),
        ]);
    }
    let mut votes = [0u32; 3];
    // Weaker evidence, from how it is indexed, tested for membership and passed to builtins:
    // [dict, list].
    let mut containers = [0u32; 2];
    // The most frequent unpacking, with its count.
    let mut unpacked: Option<(u8, u32)> = None;
    for ParamUse { kind, count, .. } in uses.iter().filter(|u| u.param == name) {
        match kind {
            UseKind::Attribute(method) => {
                if DICT.contains(&method.as_str()) {
                    votes[0] += count;
                } else if LIST.contains(&method.as_str()) {
                    votes[1] += count;
                } else if STR.contains(&method.as_str()) {
                    votes[2] += count;
                }
            }
            UseKind::IndexedByKey | UseKind::Membership => containers[0] += count,
            UseKind::IndexedByNumber | UseKind::Iterated => containers[1] += count,
            UseKind::ArgumentOf(callee) => match callee.as_str() {
                "dict" => containers[0] += count,
                "iter" | "len" | "sorted" | "list" | "tuple" | "enumerate" => {
                    containers[1] += count
                }
                _ => {}
            },
            UseKind::KeyFunction | UseKind::Called { .. } | UseKind::Caught => {}
            UseKind::Unpacked(n) if unpacked.is_none_or(|(_, seen)| *count > seen) => {
                unpacked = Some((*n, *count));
            }
            UseKind::Unpacked(_) => {}
        }
    }
    // `first, second = pair`: a tuple of that many items first, then every other kind.
    if let Some((n, _)) = unpacked
        && votes == [0, 0, 0]
    {
        let mut variants = vec![Shape::Tuple(vec![Shape::Any; usize::from(n)])];
        variants.extend(super::shape::any_variants());
        return Shape::Union(variants);
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
    match (called(name, uses), by_methods) {
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

/// Whether the function calls the parameter `name` (`predicate(v)`, `map(func, xs)`,
/// `sorted(xs, key=func)`), and if so the guess at what the calls return: a truth value when a
/// result is tested (`if predicate(v):`, `filter(predicate, xs)`), anything otherwise.
pub fn called(name: &str, uses: &[ParamUse]) -> Option<Shape> {
    let mut found = false;
    let mut tested = false;
    for kind in uses.iter().filter(|u| u.param == name).map(|u| &u.kind) {
        match kind {
            UseKind::Called { tested: t } => {
                found = true;
                tested |= t;
            }
            UseKind::KeyFunction => found = true,
            UseKind::ArgumentOf(callee) => match callee.as_str() {
                "map" | "reduce" => found = true,
                "filter" => {
                    found = true;
                    tested = true;
                }
                _ => {}
            },
            _ => {}
        }
    }
    found.then_some(if tested { Shape::Bool } else { Shape::Any })
}

/// The string and integer literals of `f`'s code, then those of the module's assignments to
/// the names it reads (`DEFAULTS = {"currency": "EUR", …}` for a function testing `key in
/// DEFAULTS`: the values it compares with too), as seeds: strings of at most
/// [`lacuna_grammar::MAX_SEED_STRING`] characters (the syntax layer keeps no longer one unless
/// it is raw), and strings a regular expression among them matches.
pub fn literals(f: &FunctionUnderTest) -> (Vec<String>, Vec<i64>) {
    literal_values(&f.seeds.literals)
}

/// The texts and numbers of `literals`, as [`literals`] takes them.
pub fn literal_values(literals: &[Literal]) -> (Vec<String>, Vec<i64>) {
    let mut strings: Vec<String> = vec![];
    let mut numbers: Vec<i64> = vec![];
    for literal in literals {
        match literal {
            Literal::Int(n) => {
                if !numbers.contains(n) {
                    numbers.push(*n);
                }
            }
            Literal::Str { value, raw } => {
                // A longer one is a raw string: a regular expression's source, not a value.
                let short = value.chars().count() <= lacuna_grammar::MAX_SEED_STRING;
                if short && !strings.iter().any(|s| s == value.as_str()) {
                    strings.push(value.to_string());
                }
                if *raw || short {
                    for example in super::regex::examples(value, 6) {
                        if !strings.contains(&example) {
                            strings.push(example);
                        }
                    }
                }
            }
        }
    }
    (strings, numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guess for parameter `name` of the first function of `src`.
    fn guess(src: &str, name: &str) -> Shape {
        let module = lacuna_grammar::parse(src);
        let f = module
            .functions
            .iter()
            .find(|f| f.syntax.kind == lacuna_grammar::FunctionKind::Def)
            .unwrap();
        guess_from_uses(name, &lacuna_grammar::seeds(src).function(&f.id).param_uses)
    }

    #[test]
    fn guesses_types_from_uses() {
        let src = "def vat_rate(config, country, rates, region):\n    local = config.get('rates', {})\n    if country.upper() in rates: pass";
        assert!(matches!(guess(src, "config"), Shape::Dict(..)));
        assert_eq!(guess(src, "country"), Shape::Str);
        // Any method only `str` has (of str, list and dict) says text.
        let text = "def build(full_name, sep):\n    i = full_name.rfind(sep)\n    return full_name[i + 1:]";
        assert_eq!(guess(text, "full_name"), Shape::Str);
        let text = "def drop(items, x):\n    items.remove(x)";
        assert!(matches!(guess(text, "items"), Shape::List(..)));
        // Tested for membership: any type, a dict first.
        assert!(matches!(guess(src, "rates"), Shape::Union(v) if matches!(v[0], Shape::Dict(..))),);
        assert_eq!(guess(src, "region"), Shape::Any);
        let src = "def first(keys):\n    return keys[0]";
        assert!(matches!(guess(src, "keys"), Shape::Union(v) if matches!(v[0], Shape::List(..))),);
        // Sliced: a sequence, a list first.
        let src = "def pairs(attrs):\n    return dict(zip(attrs[0::2], attrs[1::2]))";
        assert!(matches!(guess(src, "attrs"), Shape::Union(v) if matches!(v[0], Shape::List(..))),);
        // Unpacked into two names: a pair first; not so with a starred name.
        let src = "def swap(pair, rest):\n    first, second = pair\n    head, *tail = rest\n    return second, first";
        assert!(
            matches!(guess(src, "pair"), Shape::Union(v) if v[0] == Shape::Tuple(vec![Shape::Any, Shape::Any]))
        );
        assert_eq!(guess(src, "rest"), Shape::Any);
        let callable = |returns| Shape::Callable {
            returns: Box::new(returns),
            named: None,
        };
        let src = "def valfilter(predicate, d, func, key):\n    for k, v in d.items():\n        if predicate(v):\n            rv[k] = func(v)\n    return sorted(rv, key=key)";
        assert_eq!(guess(src, "predicate"), callable(Shape::Bool));
        assert_eq!(guess(src, "func"), callable(Shape::Any));
        assert_eq!(guess(src, "key"), callable(Shape::Any));
        assert!(matches!(guess(src, "d"), Shape::Dict(..)));
        let src = "def clamp(value, format):\n    if isinstance(format, str):\n        return format.format(value)\n    return format(value)";
        assert_eq!(
            guess(src, "format"),
            Shape::Union(vec![Shape::Str, callable(Shape::Any)])
        );
        assert_eq!(guess(src, "value"), Shape::Any);
        // Words of a docstring or a comment are not uses; a nested function's are.
        let src = "def ordinal(value, pick):\n    \"\"\"Args:\n        value (int, str): value.get(x)\n    \"\"\"\n    def inner():\n        return not pick(value)\n    return int(value)  # value(1)\n";
        assert_eq!(guess(src, "value"), Shape::Any);
        assert_eq!(guess(src, "pick"), callable(Shape::Bool));
        assert_eq!(parse_repr("1000"), Some(ModelValue::Int("1000".into())));
        assert_eq!(parse_repr("'EUR'"), Some(ModelValue::Str("EUR".into())));
        assert_eq!(parse_repr("<factory>"), None);
    }
}
