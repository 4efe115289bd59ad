//! Definitions: parameters, decorators, class kinds, class-body fields and properties, and the
//! writes a method makes to fields of `self`.

use super::source::{Source, collapse_whitespace, named_children, range};
use crate::syntax::{
    ClassField, ClassKind, FieldWrite, FieldWriteKind, Param, ParamKind, Property,
};
use compact_str::CompactString;
use tree_sitter::Node;

/// Methods of the builtin containers (and `collections`) that change their receiver: calling
/// one on a field is a write to that field.
const MUTATING_METHODS: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "add",
    "discard",
    "update",
    "setdefault",
    "popitem",
    "sort",
    "reverse",
    "appendleft",
    "popleft",
    "extendleft",
    "rotate",
    "put",
    "put_nowait",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
    "__setitem__",
    "__delitem__",
];

pub(super) fn params(source: &Source<'_>, parameters: Option<Node<'_>>) -> Vec<Param> {
    let Some(parameters) = parameters else {
        return vec![];
    };
    let mut out: Vec<Param> = vec![];
    let mut keyword_only = false;
    for p in named_children(parameters) {
        let text = |n: Option<Node<'_>>| n.map(|n| collapse_whitespace(source.text(n)));
        let positional = if keyword_only {
            ParamKind::KeywordOnly
        } else {
            ParamKind::Positional
        };
        let (name, kind, annotation, default) = match p.kind() {
            "identifier" => (source.text(p).to_owned(), positional, None, None),
            "default_parameter" => (
                text(p.child_by_field_name("name")).unwrap_or_default(),
                positional,
                None,
                text(p.child_by_field_name("value")),
            ),
            "typed_default_parameter" => (
                text(p.child_by_field_name("name")).unwrap_or_default(),
                positional,
                text(p.child_by_field_name("type")),
                text(p.child_by_field_name("value")),
            ),
            "typed_parameter" => {
                let annotation = text(p.child_by_field_name("type"));
                let Some(inner) = named_children(p).into_iter().find(|c| c.kind() != "type") else {
                    continue;
                };
                let (name, kind) = splat(source, inner, positional);
                if kind == ParamKind::VarPositional {
                    keyword_only = true;
                }
                (name, kind, annotation, None)
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                let (name, kind) = splat(source, p, positional);
                if kind == ParamKind::VarPositional {
                    keyword_only = true;
                }
                (name, kind, None, None)
            }
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                for earlier in &mut out {
                    if earlier.kind == ParamKind::Positional {
                        earlier.kind = ParamKind::PositionalOnly;
                    }
                }
                continue;
            }
            _ => (collapse_whitespace(source.text(p)), positional, None, None),
        };
        out.push(Param {
            name: name.into(),
            kind,
            annotation: annotation.map(Into::into),
            default: default.map(Into::into),
        });
    }
    out
}

fn splat(source: &Source<'_>, node: Node<'_>, positional: ParamKind) -> (String, ParamKind) {
    let name = named_children(node)
        .first()
        .map(|n| source.text(*n).to_owned())
        .unwrap_or_default();
    match node.kind() {
        "list_splat_pattern" => (name, ParamKind::VarPositional),
        "dictionary_splat_pattern" => (name, ParamKind::VarKeyword),
        _ => (source.text(node).to_owned(), positional),
    }
}

/// The decorators of a definition (its parent `decorated_definition`), without the `@`.
pub(super) fn decorators(source: &Source<'_>, definition: Node<'_>) -> Vec<String> {
    let Some(parent) = definition
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return vec![];
    };
    named_children(parent)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            let text = collapse_whitespace(source.text(d));
            text.trim_start_matches('@').trim().to_owned()
        })
        .collect()
}

/// A decorator's name without its call arguments: `dataclass(frozen=True)` → `dataclass`.
fn decorator_name(decorator: &str) -> &str {
    decorator.split('(').next().unwrap_or(decorator).trim()
}

pub(super) fn class_kind(decorators: &[String], bases: &[String]) -> ClassKind {
    for d in decorators {
        match decorator_name(d) {
            "dataclass" | "dataclasses.dataclass" | "pydantic.dataclasses.dataclass" => {
                return ClassKind::Dataclass;
            }
            "attr.s" | "attr.attrs" | "attr.define" | "attr.frozen" | "attr.mutable"
            | "attrs.define" | "attrs.frozen" | "attrs.mutable" | "define" | "frozen"
            | "mutable" | "attrs" => return ClassKind::Attrs,
            _ => {}
        }
    }
    for b in bases {
        let base = b.split('[').next().unwrap_or(b);
        let last = base.rsplit('.').next().unwrap_or(base);
        match last {
            "NamedTuple" => return ClassKind::NamedTuple,
            "Enum" | "IntEnum" | "StrEnum" | "Flag" | "IntFlag" | "ReprEnum" => {
                return ClassKind::Enum;
            }
            "TypedDict" => return ClassKind::TypedDict,
            "Protocol" => return ClassKind::Protocol,
            _ => {}
        }
    }
    ClassKind::Plain
}

/// Fields declared by the statements directly in a class body (`x: int = 0`, `count = 0`), and
/// properties made with `property(...)`.
pub(super) fn class_body_fields(
    source: &Source<'_>,
    body: Node<'_>,
    anchor: u32,
) -> (Vec<ClassField>, Vec<Property>) {
    let mut fields = vec![];
    let mut properties = vec![];
    for statement in named_children(body) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        let Some(assignment) = statement
            .named_child(0)
            .filter(|n| n.kind() == "assignment")
        else {
            continue;
        };
        let Some(left) = assignment
            .child_by_field_name("left")
            .filter(|l| l.kind() == "identifier")
        else {
            continue;
        };
        let name = source.text(left).to_owned();
        let annotation = assignment
            .child_by_field_name("type")
            .map(|t| collapse_whitespace(source.text(t)));
        let right = assignment.child_by_field_name("right");
        let default = right.map(|r| collapse_whitespace(source.text(r)));
        if let Some(r) = right
            && r.kind() == "call"
            && r.child_by_field_name("function")
                .is_some_and(|f| matches!(source.text(f), "property" | "builtins.property"))
        {
            let args = r
                .child_by_field_name("arguments")
                .map(|a| named_children(a).len())
                .unwrap_or(0);
            properties.push(Property {
                name: name.into(),
                has_setter: args >= 2,
                has_deleter: args >= 3,
            });
            continue;
        }
        let class_level = annotation
            .as_deref()
            .is_none_or(|a| a.starts_with("ClassVar") || a.starts_with("typing.ClassVar"));
        let init = !default
            .as_deref()
            .is_some_and(|d| d.replace(' ', "").contains("init=False"));
        let r = range(statement);
        fields.push(ClassField {
            name,
            annotation,
            default,
            class_level,
            init,
            range: crate::TextRange::new(r.start - anchor, r.end - anchor),
        });
    }
    (fields, properties)
}

/// Whether a node of this kind groups assignment targets (`a, (b, *c)`, `[a, b]`, `(a)`): the
/// names inside it are bound as its own would be.
pub(super) fn groups_targets(kind: &str) -> bool {
    matches!(
        kind,
        "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "expression_list"
            | "tuple"
            | "list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "list_splat"
            | "as_pattern_target"
    )
}

/// The names a binding target binds: `x`, `a, (b, *c)`, `[d, e]`; a subscript or an attribute
/// (`xs[0]`, `o.x`) binds none.
pub(super) fn bound_names<'t>(target: Node<'t>, out: &mut Vec<Node<'t>>) {
    match target.kind() {
        "identifier" => out.push(target),
        kind if groups_targets(kind) => {
            let mut cursor = target.walk();
            for child in target.named_children(&mut cursor) {
                bound_names(child, out);
            }
        }
        _ => {}
    }
}

/// Whether an attribute is the function of a call: a method looked up to be called
/// (`order.total()`), no field read.
pub(super) fn called(attribute: Node<'_>) -> bool {
    attribute
        .parent()
        .filter(|p| p.kind() == "call")
        .and_then(|p| p.child_by_field_name("function"))
        .is_some_and(|f| f.id() == attribute.id())
}

/// `name.attr` as (`name`, `attr`), when the attribute's object is a plain name.
pub(super) fn name_attribute<'a>(
    source: &Source<'a>,
    node: Node<'_>,
) -> Option<(&'a str, &'a str)> {
    if node.kind() != "attribute" {
        return None;
    }
    let object = node.child_by_field_name("object")?;
    if object.kind() != "identifier" {
        return None;
    }
    Some((
        source.text(object),
        source.text(node.child_by_field_name("attribute")?),
    ))
}

pub(super) fn receiver_field<'a>(
    source: &Source<'a>,
    node: Node<'_>,
    receiver: &str,
) -> Option<&'a str> {
    if node.kind() != "attribute" {
        return None;
    }
    let object = node.child_by_field_name("object")?;
    if object.kind() != "identifier" || source.text(object) != receiver {
        return None;
    }
    Some(source.text(node.child_by_field_name("attribute")?))
}

/// Functions of the standard library that change the container passed as their first
/// argument (`heapq.heappush(self._order, item)`, `insort(self._items, x)`): a call of one on
/// a field is a write to that field.
const LIBRARY_MUTATORS: &[&str] = &[
    "heappush",
    "heappop",
    "heapify",
    "heappushpop",
    "heapreplace",
    "insort",
    "insort_left",
    "insort_right",
    "shuffle",
];

/// The name of the mutating library function `function` calls (`heapq.heappush` or a plain
/// `heappush`), if it is one.
fn library_mutator<'a>(source: &Source<'a>, function: Node<'_>) -> Option<&'a str> {
    let name = match function.kind() {
        "identifier" => function,
        "attribute" => function.child_by_field_name("attribute")?,
        _ => return None,
    };
    let text = source.text(name);
    LIBRARY_MUTATORS.contains(&text).then_some(text)
}

/// The local names of a function bound to a field of its receiver (`_maxes = self._maxes`),
/// by name: changing what such a name holds (`_maxes.append(v)`, `_maxes[i] = v`) changes the
/// field. A name is an alias from its binding to the field until it is bound to anything else.
pub(super) type FieldAliases = rustc_hash::FxHashMap<CompactString, CompactString>;

/// Updates `aliases` for what an assignment binds: a plain name bound to `receiver.field`
/// becomes an alias of the field, a plain name bound to anything else stops being one.
pub(super) fn track_aliases(
    source: &Source<'_>,
    node: Node<'_>,
    receiver: &str,
    aliases: &mut FieldAliases,
) {
    if !matches!(node.kind(), "assignment" | "augmented_assignment") {
        return;
    }
    let Some(left) = node.child_by_field_name("left") else {
        return;
    };
    let targets = assignment_targets(left);
    let values = assignment_values(node.child_by_field_name("right"), targets.len());
    let paired = targets.len() == values.len() && node.kind() == "assignment";
    for (i, target) in targets.iter().enumerate() {
        let mut names = vec![];
        bound_names(*target, &mut names);
        for name in names {
            aliases.remove(source.text(name));
        }
        if paired
            && target.kind() == "identifier"
            && let Some(field) = receiver_field(source, values[i], receiver)
        {
            aliases.insert(source.text(*target).into(), field.into());
        }
    }
}

fn assignment_targets(left: Node<'_>) -> Vec<Node<'_>> {
    match left.kind() {
        "pattern_list" | "tuple_pattern" | "list_pattern" => named_children(left),
        _ => vec![left],
    }
}

fn assignment_values(right: Option<Node<'_>>, targets: usize) -> Vec<Node<'_>> {
    match right {
        Some(r) if matches!(r.kind(), "expression_list" | "tuple") && targets > 1 => {
            named_children(r)
        }
        Some(r) => vec![r],
        None => vec![],
    }
}

/// The field of `receiver` whose value `node` is: `self.field`, or a name aliasing it.
fn held_field(
    source: &Source<'_>,
    node: Node<'_>,
    receiver: &str,
    aliases: &FieldAliases,
) -> Option<CompactString> {
    if let Some(field) = receiver_field(source, node, receiver) {
        return Some(field.into());
    }
    (node.kind() == "identifier")
        .then(|| aliases.get(source.text(node)).cloned())
        .flatten()
}

/// The field writes an assignment, augmented assignment, `del` or call makes to `receiver`
/// (directly or through one of `aliases`), with absolute ranges.
pub(super) fn field_writes(
    source: &Source<'_>,
    node: Node<'_>,
    receiver: &str,
    params: &[Param],
    aliases: &FieldAliases,
) -> Vec<FieldWrite> {
    let is_param = |n: Option<Node<'_>>| {
        n.filter(|n| n.kind() == "identifier")
            .map(|n| source.text(n))
            .filter(|t| params.iter().any(|p| p.name == *t))
            .map(CompactString::from)
    };
    let mut out = vec![];
    match node.kind() {
        "assignment" | "augmented_assignment" => {
            let (Some(left), right) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return out;
            };
            let aug = node.kind() == "augmented_assignment";
            let targets = assignment_targets(left);
            let values = assignment_values(right, targets.len());
            for (i, target) in targets.iter().enumerate() {
                let value = if targets.len() == values.len() {
                    values.get(i).copied()
                } else {
                    None
                };
                if let Some(field) = receiver_field(source, *target, receiver) {
                    out.push(FieldWrite {
                        field: field.into(),
                        kind: if aug {
                            FieldWriteKind::AugAssign
                        } else {
                            FieldWriteKind::Assign
                        },
                        from_param: if aug { None } else { is_param(value) },
                        range: range(node),
                    });
                } else if target.kind() == "subscript"
                    && let Some(field) = target
                        .child_by_field_name("value")
                        .and_then(|v| held_field(source, v, receiver, aliases))
                {
                    out.push(FieldWrite {
                        field,
                        kind: FieldWriteKind::Subscript,
                        from_param: None,
                        range: range(node),
                    });
                }
            }
        }
        "delete_statement" => {
            for target in named_children(node) {
                let targets = if target.kind() == "expression_list" {
                    named_children(target)
                } else {
                    vec![target]
                };
                for t in targets {
                    let (field, kind) = if let Some(f) = receiver_field(source, t, receiver) {
                        (f.into(), FieldWriteKind::Assign)
                    } else if t.kind() == "subscript"
                        && let Some(f) = t
                            .child_by_field_name("value")
                            .and_then(|v| held_field(source, v, receiver, aliases))
                    {
                        (f, FieldWriteKind::Subscript)
                    } else {
                        continue;
                    };
                    out.push(FieldWrite {
                        field,
                        kind,
                        from_param: None,
                        range: range(node),
                    });
                }
            }
        }
        "call" => {
            let Some(function) = node.child_by_field_name("function") else {
                return out;
            };
            if function.kind() == "attribute"
                && let (Some(object), Some(method)) = (
                    function.child_by_field_name("object"),
                    function.child_by_field_name("attribute"),
                )
                && let Some(field) = held_field(source, object, receiver, aliases)
                && MUTATING_METHODS.contains(&source.text(method))
            {
                out.push(FieldWrite {
                    field,
                    kind: FieldWriteKind::Mutate(source.text(method).to_owned()),
                    from_param: None,
                    range: range(node),
                });
            } else if let Some(name) = library_mutator(source, function)
                && let Some(first) = node
                    .child_by_field_name("arguments")
                    .and_then(|a| named_children(a).into_iter().next())
                && let Some(field) = held_field(source, first, receiver, aliases)
            {
                out.push(FieldWrite {
                    field,
                    kind: FieldWriteKind::Mutate(name.to_owned()),
                    from_param: None,
                    range: range(node),
                });
            } else if function.kind() == "identifier" && source.text(function) == "setattr" {
                let args = node
                    .child_by_field_name("arguments")
                    .map(named_children)
                    .unwrap_or_default();
                if let [object, name, value, ..] = args.as_slice()
                    && object.kind() == "identifier"
                    && source.text(*object) == receiver
                    && name.kind() == "string"
                {
                    let field = source.text(*name).trim_matches(|c| c == '"' || c == '\'');
                    out.push(FieldWrite {
                        field: field.into(),
                        kind: FieldWriteKind::Assign,
                        from_param: is_param(Some(*value)),
                        range: range(node),
                    });
                }
            }
        }
        _ => {}
    }
    out
}

/// Whether an attribute node is only stored to (the target of `=` or `del`), not read.
pub(super) fn is_store_target(node: Node<'_>) -> bool {
    let mut child = node;
    let mut parent = node.parent();
    while let Some(p) = parent {
        match p.kind() {
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                child = p;
                parent = p.parent();
            }
            "assignment" => {
                return p
                    .child_by_field_name("left")
                    .is_some_and(|l| l.id() == child.id());
            }
            "delete_statement" => return true,
            _ => return false,
        }
    }
    false
}
