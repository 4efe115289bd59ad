//! What a function's statements read and store: the facts an explanation follows back from a
//! decision to the parameters, fields and module state it depends on (`now = time.monotonic()`
//! … `if at <= now:`). Read on request ([`crate::flow`]) for the functions being explained,
//! never held by the static model.

use crate::ids::FunctionId;
use crate::text::TextRange;
use compact_str::CompactString;

/// The flow facts of each body of a module, by its ID: the module's own (`<module>`), each
/// class's and each `def`'s.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ModuleFlow {
    pub functions: rustc_hash::FxHashMap<FunctionId, FunctionFlow>,
}

impl ModuleFlow {
    /// The flow facts of the body `id` (none: a body without statements).
    pub fn function(&self, id: &FunctionId) -> FunctionFlow {
        self.get(id).cloned().unwrap_or_default()
    }

    pub fn get(&self, id: &FunctionId) -> Option<&FunctionFlow> {
        self.functions.get(id)
    }

    /// The statements of the module's own body (not those of its classes and functions).
    pub fn module(&self) -> &[Statement] {
        self.functions
            .iter()
            .find(|(id, _)| id.as_str() == "<module>")
            .map_or(&[], |(_, f)| &f.statements)
    }

    /// Every statement of the module, in every body.
    pub fn statements(&self) -> impl Iterator<Item = &Statement> {
        self.functions.values().flat_map(|f| &f.statements)
    }
}

/// The statements of one body (a function's, a class's, the module's), in source order; a
/// nested function's or class's body is its own (its definition is one statement that stores
/// its name).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct FunctionFlow {
    pub statements: Vec<Statement>,
    /// The conditions of its decisions that a proof can read, each at its range (relative to
    /// the function's anchor, as [`crate::Condition::range`]).
    pub tests: Vec<(TextRange, Test)>,
}

impl FunctionFlow {
    /// The readable test of the condition at `range`, when it is one.
    pub fn test(&self, range: TextRange) -> Option<&Test> {
        self.tests.iter().find(|(r, _)| *r == range).map(|(_, t)| t)
    }

    /// Whether the block `block` (relative to the function's anchor) always leaves the
    /// function: its last statement is a `return` or a `raise`.
    pub fn block_leaves(&self, block: TextRange) -> bool {
        let inside = || {
            self.statements
                .iter()
                .filter(move |s| block.contains_range(s.range))
        };
        let Some(top) = inside().map(|s| s.depth).min() else {
            return false;
        };
        inside().rfind(|s| s.depth == top).is_some_and(|s| s.leaves)
    }

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
    /// A `return` or a `raise`: control leaves the function here.
    pub leaves: bool,
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
/// `with … as` target, an `import`, a nested `def`, `del name`, a `case` pattern's capture.
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
    /// The value stored, when it is arithmetic over number literals and names
    /// (`n = count * 2 + 1`, `n += 1`): what a proof may read of what the name holds.
    pub arithmetic: Option<Arithmetic>,
}

/// An arithmetic value: number literals, `True`, `False` and names, combined by `+ - * / // %
/// **` and unary `-` and `+` (an augmented store by `+= -= *= /= //= %=`).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Arithmetic {
    /// Whether it may be a float: a float literal, `/`, `**`, `/=`.
    pub float: bool,
    /// The names it reads (for the whole to be a number, each must be one).
    pub names: Vec<CompactString>,
    /// Its value, when it is one number literal (`10`, `-2.5`, `True`).
    pub literal: Option<f64>,
}

// `literal` is a parsed literal, never NaN: the equality is a total one.
impl Eq for Arithmetic {}

/// How a statement stores to a name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StoreKind {
    /// Bound afresh (`name = …`, a `for` or `with … as` target, `import`, `def`, `del`, a
    /// capture): what it held before no longer matters.
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

/// A condition a proof can read: a name's truth (`ready`), or two names or number literals
/// compared (`count >= 10`, `0 < x`, `low != high`). Anything else (a call, an attribute, a
/// chained comparison, `is`, `in`, `True`) is no test.
#[derive(Clone, PartialEq, Debug)]
pub enum Test {
    Truth(CompactString),
    Compare {
        left: Operand,
        op: CompareOp,
        right: Operand,
    },
}

// The numbers are parsed literals, never NaN: the equality is a total one.
impl Eq for Test {}

#[derive(Clone, PartialEq, Debug)]
pub enum Operand {
    Name(CompactString),
    /// A finite number literal, optionally negated (`-1`, `2.5`, `1_000`).
    Number(f64),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CompareOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}
