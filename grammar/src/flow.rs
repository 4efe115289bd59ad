//! What a function's statements read and store: the facts an explanation follows back from a
//! decision to the parameters, fields and module state it depends on (`now = time.monotonic()`
//! … `if at <= now:`). Read on request ([`crate::flow`]) for the functions being explained,
//! never held by the static model.

use crate::ids::FunctionId;
use crate::text::TextRange;
use compact_str::CompactString;

/// The flow facts of each `def` of a module, by its ID.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ModuleFlow {
    pub functions: rustc_hash::FxHashMap<FunctionId, FunctionFlow>,
}

impl ModuleFlow {
    /// The flow facts of the function `id` (none: a function without statements).
    pub fn function(&self, id: &FunctionId) -> FunctionFlow {
        self.functions.get(id).cloned().unwrap_or_default()
    }
}

/// The statements of one function's own body, in source order; a nested function's or class's
/// body is its own (its definition is one statement that stores its name).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct FunctionFlow {
    pub statements: Vec<Statement>,
}

impl FunctionFlow {
    /// The statement whose range holds `at` (relative to the function's anchor).
    pub fn statement_at(&self, at: u32) -> Option<&Statement> {
        self.statements
            .iter()
            .find(|s| s.range.start <= at && at < s.range.end.max(s.range.start + 1))
    }
}

/// One simple statement, or the header of a compound one (`if c:`, `for x in xs:`,
/// `except E as e:`), whose block's statements follow it.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Statement {
    /// Relative to the function's anchor.
    pub range: TextRange,
    /// How many blocks of the function it is nested in (0: the body's own statements).
    pub depth: u32,
    /// The names it reads, in source order; not an attribute's name, a keyword argument's
    /// name, an assignment's plain target or an annotation.
    pub reads: Vec<NameRead>,
    /// Names bound only inside one of its expressions: a comprehension's targets, a lambda's
    /// parameters.
    pub scoped: Vec<ScopedName>,
    /// The names it stores to, each with what flows into it.
    pub stores: Vec<Store>,
    /// The names it declares `global` or `nonlocal`.
    pub outside: Vec<CompactString>,
}

impl Statement {
    /// What it stores to `name`, when it does.
    pub fn store(&self, name: &str) -> Option<&Store> {
        self.stores.iter().find(|s| s.name == name)
    }
}

/// A name read, with the attribute read on it (`self._entries.get(k)`: `self` with
/// `_entries`, then `k`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NameRead {
    pub name: CompactString,
    pub attribute: Option<CompactString>,
    /// Where the name is, relative to the function's anchor.
    pub at: u32,
}

/// A name bound inside an expression only (`k` of `[k for k in keys]`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScopedName {
    pub name: CompactString,
    pub at: u32,
}

/// A store to a name: `name = …`, `name += …`, `name[k] = …`, `name.update(…)`, a `for` or
/// `with … as` target, an `import`, a nested `def`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Store {
    pub name: CompactString,
    pub kind: StoreKind,
    /// The names whose values flow into it: the assigned value's (of a conditional expression,
    /// its two values, not its condition), a subscript's key, a loop's iterable, a method
    /// call's arguments.
    pub from: Vec<NameRead>,
    /// `name = other`, with `other` a plain name: the name it aliases.
    pub alias: Option<CompactString>,
}

/// How a statement stores to a name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StoreKind {
    /// Bound afresh (`name = …`, a `for` or `with … as` target, `import`, `def`): what it held
    /// before no longer matters.
    Rebind,
    /// `name += …`: a new value made from the old one.
    Augment,
    /// The object it names is changed (`name[k] = …`, `name.x = …`, `name.append(…)`): the
    /// name itself is not bound, so a module global stays global.
    Change,
}

impl StoreKind {
    /// Whether the store makes the name a local of its function, as Python's scoping does.
    pub fn binds(self) -> bool {
        matches!(self, StoreKind::Rebind | StoreKind::Augment)
    }
}
