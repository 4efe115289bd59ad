//! Causes named by data dependence: the external call or the object state a condition
//! depends on, from the symbolic conditions the search recorded or, when the agent saw the
//! condition only concretely, from the statements before it (`flow`).

use super::{
    Explanation, ExternalKind, Source, display_path, external, flow, position_range, quoted,
};
use crate::diagnostic::evidence::{self, Fact, ObjectState};
use crate::diagnostic::{Cause, Related};
use crate::explore::coverage::FunctionUnderTest;
use crate::explore::exploration::{Dependency, Exploration};
use lacuna_grammar::TextRange;

pub(super) fn external_call(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    index: usize,
) -> Explanation {
    let call = &exploration.external_calls[index];
    let line = call.pos.map(|p| p.0).unwrap_or(0);
    let kind = ExternalKind::of(&call.callee);
    let why = match kind {
        ExternalKind::Environment => format!(
            "depends on the return value of `{}` (line {line}), which generated inputs cannot control",
            call.callee
        ),
        ExternalKind::Opaque => format!(
            "depends on the return value of `{}` (line {line}), which the solver cannot see into",
            call.callee
        ),
    };
    let own = f.file.to_string_lossy();
    let elsewhere = call.file.as_deref() != Some(own.as_ref());
    let mut e = Explanation::new(
        Cause::ExternalCall,
        why,
        Fact::ExternalCall(evidence::ExternalCall {
            callee: call.callee.clone(),
            line,
            external: kind,
            arguments_from_inputs: call.arg_vars.clone(),
            returns: external::return_annotation(&call.callee, &call.returns),
            // Its value follows from its arguments: a mock would replace the code's own logic.
            pure: external::is_pure(&call.callee),
            // Called from another project function: the line is in that file.
            file: call.file.clone().filter(|_| elsewhere),
            raised: false,
        }),
    );
    if !elsewhere && let Some(range) = position_range(f, call.pos) {
        e.related.push(Related {
            path: None,
            range,
            message: format!("`{}` is called here", call.callee),
        });
    }
    e.source = Some(Source::External(index));
    e
}

/// A condition on object state no constructor argument or setter reaches.
pub(super) fn object_state(dep: &Dependency, needed: Option<u64>) -> Option<Explanation> {
    let Dependency::Field {
        path,
        class,
        field,
        writers,
        constructed,
    } = dep
    else {
        return None;
    };
    let class_name = class
        .as_deref()
        .map(|c| c.rsplit([':', '.']).next().unwrap_or(c))
        .unwrap_or("the object");
    // A private field as its source names it (`_Timer__nesting` is `__nesting`).
    use lacuna_grammar::mangling::demangled;
    let shown = display_path(path)
        .split('.')
        .map(|part| demangled(class_name, part).unwrap_or(part))
        .collect::<Vec<_>>()
        .join(".");
    let named = demangled(class_name, field).unwrap_or(field);
    let why = match (needed, writers.as_slice()) {
        (Some(n), [_, ..]) => format!(
            "needs a `{class_name}` whose `{named}` takes {n} calls of {} to build, more than the generator makes",
            quoted(writers)
        ),
        (_, []) if *constructed => format!(
            "depends on `{shown}`, which only `{class_name}`'s constructor sets, from what it is given: no object the generator built had the value needed"
        ),
        (_, []) => {
            format!("depends on `{shown}`, which nothing in `{class_name}`'s public API sets")
        }
        (None, _) => format!(
            "depends on `{shown}`; `{class_name}.{named}` is only changed by {}",
            quoted(writers)
        ),
    };
    let mut e = Explanation::new(
        Cause::ObjectCreation,
        why,
        Fact::ObjectState(ObjectState {
            class: class.clone(),
            field: field.clone(),
            path: path.clone(),
            writers: writers.clone(),
            calls_needed: needed,
        }),
    );
    e.source = class
        .as_ref()
        .map(|c| Source::Field(c.clone(), field.clone()));
    Some(e)
}

/// An external call the condition depends on although no symbol says so (its result was
/// `None`, or not a scalar, or the value went through operations the agent does not follow):
/// a call made in the condition or in a statement binding what it reads (`flag =
/// os.environ.get("X")` … `if flag == "1":`), the nearest first.
pub(super) fn static_external(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    sources: &flow::Sources,
) -> Option<usize> {
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    let calls: Vec<(usize, u32)> = exploration
        .external_calls
        .iter()
        .enumerate()
        // A mocked call's value is an input already: it is not what stops the generator.
        .filter(|(_, c)| {
            c.file.as_deref() == Some(own.as_ref()) && c.blocked.is_none() && !c.mocked
        })
        .filter_map(|(i, c)| {
            let at = position_range(f, c.pos)?;
            body.contains_range(at)
                .then(|| (i, f.lines.line_col(at.start).line))
        })
        .collect();
    // Calls that read the world before deterministic ones (`datetime.date.today()` before
    // `datetime.date(1970, 1, 1)` on the same path), the nearest first.
    let kind = |i: usize| ExternalKind::of(&exploration.external_calls[i].callee);
    let direct = [ExternalKind::Environment, ExternalKind::Opaque]
        .into_iter()
        .find_map(|wanted| {
            sources.spans.iter().find_map(|&(start, end)| {
                calls
                    .iter()
                    .find(|&&(i, line)| (start..=end).contains(&line) && kind(i) == wanted)
                    .map(|(i, _)| *i)
            })
        });
    direct.or_else(|| through_helpers(f, exploration, sources))
}

/// An external call made by a function of the same file that the condition's statements
/// call (`release = _read_release()`, where `_read_release` opens a file).
pub(super) fn through_helpers(
    f: &FunctionUnderTest,
    exploration: &Exploration,
    sources: &flow::Sources,
) -> Option<usize> {
    let own = f.file.to_string_lossy();
    let body = f.syntax.range.absolute(f.anchor);
    let elsewhere: Vec<(usize, TextRange)> = exploration
        .external_calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.file.as_deref() == Some(own.as_ref()) && c.blocked.is_none())
        .filter_map(|(i, c)| Some((i, position_range(f, c.pos)?)))
        .filter(|(_, at)| !body.contains_range(*at))
        .collect();
    if elsewhere.is_empty() {
        return None;
    }
    let helper_of = |at: TextRange| {
        f.file_syntax
            .functions
            .iter()
            .filter(|g| g.syntax.kind == lacuna_grammar::FunctionKind::Def)
            .filter(|g| g.syntax.range.absolute(g.anchor).contains_range(at))
            .min_by_key(|g| g.syntax.range.len())
            .map(|g| g.syntax.name.clone())
    };
    let kind = |i: usize| ExternalKind::of(&exploration.external_calls[i].callee);
    // The first span (the condition, then the statements it reads back through) with a call
    // of `name` (`name(…)`, `self.name(…)`).
    let called = |name: &str| {
        sources.spans.iter().position(|&(start, end)| {
            f.syntax.calls.iter().any(|call| {
                let line = f.lines.line_col(call.range.absolute(f.anchor).start).line;
                call.callee.rsplit('.').next() == Some(name) && (start..=end).contains(&line)
            })
        })
    };
    let mut found: Vec<(bool, usize, usize)> = elsewhere
        .iter()
        .filter_map(|&(i, at)| {
            let span = called(&helper_of(at)?)?;
            Some((kind(i) != ExternalKind::Environment, span, i))
        })
        .collect();
    found.sort();
    found.first().map(|&(_, _, i)| i)
}

/// Object state the agent saw only concretely (`self.status is not Status.DRAFT`, or a local
/// bound from a field): a field the condition reads, directly or through the statements
/// before it, that only methods change.
pub(super) fn static_object_state(
    exploration: &Exploration,
    sources: &flow::Sources,
) -> Option<Explanation> {
    sources.fields.iter().find_map(|(root, field)| {
        let class = exploration.object_classes.get(root)?;
        let writers = exploration.writers.get(&(class.clone(), field.clone()))?;
        object_state(
            &Dependency::Field {
                path: format!("{root}.{field}"),
                class: Some(class.clone()),
                field: field.clone(),
                writers: writers.clone(),
                constructed: false,
            },
            None,
        )
    })
}

/// What the Python running the tests fixes, and no input changes.
const INTERPRETER: &[&str] = &[
    "sys.version_info",
    "sys.hexversion",
    "sys.version",
    "sys.platform",
    "sys.implementation",
    "sys.byteorder",
    "sys.maxsize",
];

/// The facts of the interpreter a condition reads (`sys.version_info`, `sys.platform`):
/// directly (`sys.version_info >= (3, 8)`, `from sys import platform`), or through module
/// constants every binding of which computes from them alone (`PY2 = sys.version_info[0] ==
/// 2`).
pub(super) fn interpreter_facts(f: &FunctionUnderTest, sources: &flow::Sources) -> Vec<String> {
    let fact = |name: &str, attribute: Option<&str>| -> Option<String> {
        let import = f.file_syntax.imports.iter().find(|i| {
            i.local == name && !i.wildcard && (i.scope.as_str() == "<module>" || i.scope == f.id)
        })?;
        let dotted = match attribute {
            Some(a) => format!("{}.{a}", import.target),
            None => import.target.clone(),
        };
        INTERPRETER.contains(&dotted.as_str()).then_some(dotted)
    };
    let mut out: Vec<String> = vec![];
    let mut add = |found: Option<String>| {
        if let Some(found) = found
            && !out.contains(&found)
        {
            out.push(found);
        }
    };
    for (global, attribute) in &sources.global_attributes {
        add(fact(global, Some(attribute)));
    }
    for global in &sources.globals {
        add(fact(global, None));
        let stores: Vec<_> = f
            .flow
            .statements()
            .flat_map(|s| &s.stores)
            .filter(|store| store.name == *global && store.kind.binds())
            .collect();
        let in_module = f
            .flow
            .module()
            .iter()
            .flat_map(|s| &s.stores)
            .filter(|store| store.name == *global && store.kind.binds())
            .count();
        let declared_elsewhere = f
            .flow
            .statements()
            .any(|s| s.outside.iter().any(|n| n == global));
        if stores.is_empty() || stores.len() != in_module || declared_elsewhere {
            continue;
        }
        let facts: Option<Vec<String>> = stores
            .iter()
            .flat_map(|store| &store.from)
            .map(|read| fact(&read.name, read.attribute.as_deref()))
            .collect();
        if let Some(facts) = facts.filter(|facts| !facts.is_empty()) {
            for found in facts {
                add(Some(found));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::explore::exploration::Dependency;

    #[test]
    fn a_private_field_is_named_as_its_source_names_it() {
        let dep = Dependency::Field {
            path: "self._Timer__nesting".into(),
            class: Some("cachetools:_TimedCache._Timer".into()),
            field: "_Timer__nesting".into(),
            writers: vec!["__enter__".into(), "__exit__".into()],
            constructed: false,
        };
        let e = super::object_state(&dep, None).unwrap();
        assert_eq!(
            e.why,
            "depends on `self.__nesting`; `_Timer.__nesting` is only changed by `__enter__` and `__exit__`"
        );
    }
}
