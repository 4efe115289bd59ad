//! What a decision reads: the names in its condition, followed back through the statements
//! before it that bind or change them (`now = time.monotonic()` … `expired = [k for k, (at, _)
//! in self._entries.items() if at <= now]` … `if expired:`), down to the parameters, object
//! fields and call sites it depends on. Read from the syntax layer's flow facts
//! ([`lacuna_grammar::FunctionFlow`]), within one function: it explains conditions the agent
//! saw only concretely, where no symbolic expression says what they depend on.

use crate::explore::coverage::FunctionUnderTest;
use lacuna_grammar::{DecisionKind, FunctionKind, NameRead, Statement, StoreKind, TextRange};

/// What a decision depends on, as far as its function's statements say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// Line spans (0-based, inclusive) of the code the decision depends on: the decision's
    /// own first, then the statements that bind what it reads, nearest first.
    pub spans: Vec<(u32, u32)>,
    /// Parameters read (the receiver excluded).
    pub params: Vec<String>,
    /// `(root, field)` pairs read, the root being the receiver or a parameter.
    pub fields: Vec<(String, String)>,
    /// Names read that the function does not bind and that are not builtins: module globals
    /// and imported modules, which other code may change.
    pub globals: Vec<String>,
    /// `(global, attribute)` pairs read (`sys.version_info`).
    pub global_attributes: Vec<(String, String)>,
}

const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "enumerate",
    "float",
    "frozenset",
    "int",
    "isinstance",
    "issubclass",
    "len",
    "list",
    "max",
    "min",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
];

/// What decision `d` of `f` depends on.
pub fn sources(f: &FunctionUnderTest, d: usize) -> Sources {
    let decision = &f.syntax.decisions[d];
    let own = f.own_flow().statement_at(decision.range.start);
    // A comprehension's `if`, a ternary or a boolean value reads names its statement binds
    // (`for k, v in …` of the comprehension): the whole statement is its condition.
    let whole = matches!(
        decision.kind,
        DecisionKind::ComprehensionIf | DecisionKind::Ternary | DecisionKind::BoolValue
    );
    let within = match own {
        Some(statement) if whole => statement.range,
        _ => decision.range,
    };
    read_back(f, own, within)
}

/// What the code at `at` (relative to the function's anchor: a loop's header) reads, from the
/// statements before it.
pub fn sources_at(f: &FunctionUnderTest, at: TextRange) -> Sources {
    read_back(f, f.own_flow().statement_at(at.start), at)
}

/// Follows what `within` (part of the statement `own`) reads back through the statements
/// before it that store to those names, down to parameters, fields and module globals.
fn read_back(f: &FunctionUnderTest, own: Option<&Statement>, within: TextRange) -> Sources {
    let line = |at: u32| f.lines.line_col(f.anchor.offset + at).line;
    let lines = |r: TextRange| (line(r.start), line(r.end));
    let inside = |at: u32| within.start <= at && at < within.end;
    let span = lines(within);
    let depth = own.map_or(0, |s| s.depth);
    let reads: Vec<&NameRead> = own
        .into_iter()
        .flat_map(|s| &s.reads)
        .filter(|r| inside(r.at))
        .collect();
    let scoped: Vec<&str> = own
        .into_iter()
        .flat_map(|s| &s.scoped)
        .filter(|n| inside(n.at))
        .map(|n| n.name.as_str())
        .collect();
    let statements = &f.own_flow().statements;
    let before: Vec<&Statement> = statements
        .iter()
        .filter(|s| line(s.range.end) < span.0)
        .collect();
    let params: Vec<&str> = f
        .syntax
        .params
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| !receiver(f, n))
        .collect();
    let mut out = Sources {
        spans: vec![span],
        ..Sources::default()
    };
    let mut work: Vec<String> = vec![];
    let mut seen: Vec<String> = vec![];
    // Attributes read on names that are neither the receiver nor a parameter (`version.x`):
    // fields when the name turns out to be an alias of one (`version = self`).
    let mut attributes: Vec<(String, String)> = vec![];
    absorb(f, reads, &params, &mut out, &mut work, &mut attributes);
    while let Some(name) = work.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        if let Some(root) = statements
            .iter()
            .find_map(|s| s.store(&name).and_then(|store| store.alias.as_deref()))
            .filter(|root| receiver(f, root) || params.contains(root))
        {
            for (_, attr) in attributes.iter().filter(|(n, _)| *n == name) {
                if !out.fields.iter().any(|(r, a)| *r == root && a == attr) {
                    out.fields.push((root.to_owned(), attr.clone()));
                }
            }
        }
        // A name the function declares `global` (or `nonlocal`) is module state even where
        // the function assigns it: other calls may have changed it.
        let outside = statements
            .iter()
            .any(|s| s.outside.iter().any(|n| *n == name));
        let bound = !outside
            && (scoped.contains(&name.as_str())
                || statements
                    .iter()
                    .flat_map(|s| &s.stores)
                    .any(|store| store.name == name && store.kind.binds()));
        if !bound && !BUILTINS.contains(&name.as_str()) && !out.globals.contains(&name) {
            out.globals.push(name.clone());
        }
        for s in before.iter().rev() {
            let Some(store) = s.store(&name) else {
                continue;
            };
            let span = lines(s.range);
            if !out.spans.contains(&span) {
                out.spans.push(span);
            }
            absorb(
                f,
                &store.from,
                &params,
                &mut out,
                &mut work,
                &mut attributes,
            );
            // A plain rebinding hides what came before it, unless it is in a nested block
            // (`if attempts > 10: budget = 20`), which may not run.
            if s.depth <= depth && store.kind == StoreKind::Rebind {
                break;
            }
        }
    }
    out.global_attributes = attributes
        .into_iter()
        .filter(|(name, _)| out.globals.contains(name))
        .collect();
    out.fields = through_methods(f, std::mem::take(&mut out.fields));
    out
}

/// The receiver's fields a method reads, directly or through the receiver's other methods.
pub fn receiver_fields(f: &FunctionUnderTest) -> Vec<String> {
    let Some(me) = f.syntax.params.first().filter(|_| receiver_of(f)) else {
        return vec![];
    };
    let direct = f
        .syntax
        .field_reads
        .iter()
        .map(|field| (me.name.to_string(), field.to_string()))
        .collect();
    through_methods(f, direct)
        .into_iter()
        .map(|(_, field)| field)
        .collect()
}

fn receiver_of(f: &FunctionUnderTest) -> bool {
    f.syntax.is_method() && !f.syntax.is_staticmethod()
}

/// Fields read through the receiver's own methods: `self.available(sku)` reads what
/// `available` reads (`self._stock`, `self._reserved`), and so on down its calls.
fn through_methods(f: &FunctionUnderTest, fields: Vec<(String, String)>) -> Vec<(String, String)> {
    let Some(class) = f.syntax.class.as_deref() else {
        return fields;
    };
    if !fields.iter().any(|(root, _)| receiver(f, root)) {
        return fields;
    }
    let reads = |method: &str| -> Option<Vec<String>> {
        let qualname = format!("{class}.{method}");
        f.file_syntax
            .functions
            .iter()
            .find(|m| *m.syntax.qualname == *qualname && m.syntax.kind == FunctionKind::Def)
            .map(|m| m.syntax.field_reads.iter().map(|r| r.to_string()).collect())
    };
    let mut out: Vec<(String, String)> = vec![];
    let mut expanded: Vec<String> = vec![];
    let mut work: std::collections::VecDeque<(String, String)> = fields.into();
    while let Some((root, attr)) = work.pop_front() {
        if receiver(f, &root)
            && let Some(inner) = reads(&attr)
        {
            if !expanded.contains(&attr) {
                expanded.push(attr);
                work.extend(inner.into_iter().map(|field| (root.clone(), field)));
            }
            continue;
        }
        if !out.contains(&(root.clone(), attr.clone())) {
            out.push((root, attr));
        }
    }
    out
}

pub(super) fn receiver(f: &FunctionUnderTest, name: &str) -> bool {
    f.syntax.is_method()
        && !f.syntax.is_staticmethod()
        && f.syntax.params.first().is_some_and(|p| p.name == name)
}

/// Records what `reads` read: parameters, fields of the receiver or of parameters, and the
/// other names to follow back.
fn absorb<'r>(
    f: &FunctionUnderTest,
    reads: impl IntoIterator<Item = &'r NameRead>,
    params: &[&str],
    out: &mut Sources,
    work: &mut Vec<String>,
    attributes: &mut Vec<(String, String)>,
) {
    for read in reads {
        let name = read.name.as_str();
        let is_param = params.contains(&name);
        if let Some(attr) = read.attribute.as_deref() {
            if is_param || receiver(f, name) {
                if !out.fields.iter().any(|(r, a)| r == name && a == attr) {
                    out.fields.push((name.to_owned(), attr.to_owned()));
                }
            } else if !attributes.iter().any(|(n, a)| n == name && a == attr) {
                attributes.push((name.to_owned(), attr.to_owned()));
            }
        }
        if is_param && !out.params.iter().any(|p| p == name) {
            out.params.push(name.to_owned());
        }
        if !is_param && !receiver(f, name) {
            work.push(name.to_owned());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
