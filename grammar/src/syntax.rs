//! The typed, read-only view of one Python module: imports, classes, functions, call sites,
//! asserts, loops and decisions. Plain owned data (cheap to compare, so the database can tell
//! when a fact did not change). Functions and classes carry an [`Anchor`]; every range inside
//! them is relative to it, so moving a function does not change its syntax.

use crate::decision::Decision;
use crate::ids::FunctionId;
use crate::text::{Anchor, TextRange};
use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thin_vec::ThinVec;

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Module {
    pub imports: Vec<Import>,
    /// Every scope that holds code: the module body (`<module>`), then each class body and each
    /// `def`/`async def` in source order, nested ones included.
    pub functions: Vec<Function>,
    pub classes: Vec<Class>,
    /// Absolute ranges of code tree-sitter could not parse.
    pub syntax_errors: Vec<SyntaxError>,
}

impl Module {
    pub fn function(&self, id: &FunctionId) -> Option<&Function> {
        self.functions.iter().find(|f| &f.id == id)
    }

    pub fn class(&self, qualname: &str) -> Option<&Class> {
        self.classes.iter().find(|c| c.syntax.qualname == qualname)
    }

    /// What a local name of this module refers to through its imports: `exists` after
    /// `from os.path import exists` is `os.path.exists`; `np` after `import numpy as np` is
    /// `numpy`. Later imports win, as at run time.
    pub fn resolve_import(&self, local: &str) -> Option<&str> {
        self.imports
            .iter()
            .rev()
            .find(|i| i.local == local)
            .map(|i| i.target.as_str())
    }

    /// The fully qualified name a dotted callee refers to, resolving its first segment through
    /// the module's imports: `path.exists` after `from os import path` is `os.path.exists`.
    pub fn resolve_dotted(&self, dotted: &str) -> Option<String> {
        let (head, rest) = match dotted.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (dotted, None),
        };
        let target = self.resolve_import(head)?;
        Some(match rest {
            Some(rest) => format!("{target}.{rest}"),
            None => target.to_owned(),
        })
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct SyntaxError {
    pub range: TextRange,
    pub message: String,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Import {
    /// The name bound in the importing scope (`os` for `import os.path`, `p` for
    /// `from os import path as p`).
    pub local: String,
    /// What it refers to: `os`, `os.path`, `.models.Stack` (relative imports keep their dots).
    pub target: String,
    /// `from m import *`: `local` is `*` and `target` is the module.
    pub wildcard: bool,
    /// Absolute range of the import statement.
    pub range: TextRange,
    /// The qualified name of the scope holding the import (`<module>` for top-level imports).
    pub scope: FunctionId,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FunctionKind {
    /// The module's top-level code.
    Module,
    /// A class body.
    ClassBody,
    #[default]
    Def,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamKind {
    PositionalOnly,
    Positional,
    /// `*args`
    VarPositional,
    KeywordOnly,
    /// `**kwargs`
    VarKeyword,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Param {
    pub name: CompactString,
    pub kind: ParamKind,
    /// Annotation source text.
    pub annotation: Option<CompactString>,
    /// Default value source text.
    pub default: Option<CompactString>,
}

/// A call in a function body.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct CallSite {
    /// The callee as written when it is a dotted name (`os.path.exists`, `self.push`, `len`);
    /// otherwise the callee's text (`factory()()`, `d[k].get`).
    pub callee: CompactString,
    /// The whole call expression.
    pub range: TextRange,
    pub arg_count: u32,
}

impl CallSite {
    /// The callee with its first name resolved through the imports visible in `scope` (its
    /// function's own imports first, then the module's; a later import wins, as at run time),
    /// when that name is imported: `path.exists` after `from os import path` is
    /// `os.path.exists`. Computed, not stored: a project has hundreds of thousands of calls.
    pub fn resolved<'i>(
        &self,
        scope: &FunctionId,
        imports: impl DoubleEndedIterator<Item = ImportBinding<'i>> + Clone,
    ) -> Option<String> {
        let (head, rest) = match self.callee.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (self.callee.as_str(), None),
        };
        let bound = |wanted: &dyn Fn(&FunctionId) -> bool| {
            imports
                .clone()
                .rev()
                .find(|i| i.local == head && wanted(i.scope))
        };
        let import = bound(&|s| s == scope).or_else(|| bound(&|s| s.as_str() == "<module>"))?;
        Some(match rest {
            Some(rest) => format!("{}.{rest}", import.target),
            None => import.target.to_owned(),
        })
    }
}

/// One name an import binds, as [`CallSite::resolved`] reads it.
#[derive(Clone, Copy, Debug)]
pub struct ImportBinding<'a> {
    pub local: &'a str,
    pub target: &'a str,
    pub scope: &'a FunctionId,
}

impl Import {
    /// The binding this import makes (none for `from m import *`).
    pub fn binding(&self) -> Option<ImportBinding<'_>> {
        (!self.wildcard).then_some(ImportBinding {
            local: &self.local,
            target: &self.target,
            scope: &self.scope,
        })
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Assert {
    pub range: TextRange,
    pub test: TextRange,
    pub message: Option<TextRange>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopKind {
    For,
    While,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Loop {
    pub kind: LoopKind,
    /// The whole statement.
    pub range: TextRange,
    /// `for x in xs` / `while cond` up to the colon.
    pub header: TextRange,
    /// The iterable of a `for` (`range(n)`, `self._items`).
    pub iter: Option<String>,
}

/// An `except` clause (`except* …` too) of a function's `try` statement: the code that runs
/// when it catches. No decision of its own (coverage.py counts no branch into a handler), but
/// behaviour a test should show, so the search tries to enter it.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Handler {
    /// The whole clause, from `except` to the end of its block.
    pub clause: TextRange,
    /// The first statement of its block: executed when the clause is entered.
    pub first: TextRange,
}

/// A name a function's body binds, where it binds it (relative to the function).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Binding {
    pub name: CompactString,
    pub range: TextRange,
}

/// A string or integer literal of the code, as Python reads it.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Literal {
    /// A string's value, escapes decoded (bytes as the characters of their values); `raw` when
    /// written `r"…"`, whose backslashes are its own (a regular expression, usually). An
    /// f-string with a replacement field has no one value and is not a literal.
    Str { value: CompactString, raw: bool },
    /// An integer within 64 bits, in any base.
    Int(i64),
}

/// How a function's code uses one of its parameters: the evidence for the type of an
/// unannotated one.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct ParamUse {
    pub param: CompactString,
    pub kind: UseKind,
    /// How many times the code uses it so.
    pub count: u32,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum UseKind {
    /// `p.get(…)`, `p.real`: an attribute of it read or a method called.
    Attribute(CompactString),
    /// `p[0]`, `p[-1]`, `p[1:]`: indexed by a number, or sliced.
    IndexedByNumber,
    /// `p["key"]`, `p[k]`: indexed by a text or a name.
    IndexedByKey,
    /// `x in p`, `x not in p`.
    Membership,
    /// `for x in p`, `[… for x in p]`.
    Iterated,
    /// `len(p)`, `dict(p)`, `map(p, xs)`: an argument of a function called by its name.
    ArgumentOf(CompactString),
    /// `key=p`: the key function of a call.
    KeyFunction,
    /// `p(…)`; `tested`: the call is a condition of a decision (`if p(v):`, `not p(v)`).
    Called { tested: bool },
    /// `except p`, `except (p, OSError) as e`: the exception class(es) a handler catches.
    Caught,
    /// `a, b = p`: unpacked into this many names (no starred one).
    Unpacked(u8),
}

/// What the generator seeds a `def`'s inputs with, read from its code (and from the functions
/// nested in it): not part of the static model, read only when the generator asks
/// ([`crate::seeds`]).
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct FunctionSeeds {
    /// The string and integer literals of its code and of its docstring's examples (the
    /// docstring itself aside), then those of the module's assignments to the names it reads
    /// (`DEFAULTS = {"currency": "EUR"}` for a function testing `key in DEFAULTS`: the values
    /// it compares with too), deduplicated, in that order: integers, strings of at most 40
    /// characters and raw strings (regular expressions, whose matches are seeds).
    pub literals: Vec<Literal>,
    /// Whether it tests for non-finite numbers: it reads `isfinite`, `isinf`, `isnan`, `inf`
    /// or `nan` (`math.isinf(x)`, `from math import inf`), or has the text of one as a literal
    /// (`float("inf")`).
    pub non_finite: bool,
    /// How it uses its parameters, a method's receiver aside: each distinct use once, with its
    /// count, in order of first use.
    pub param_uses: Vec<ParamUse>,
    /// The exception types its `except` clauses name, as written (`ValueError`,
    /// `requests.RequestException`; each of a tuple's), deduplicated, in source order; a bare
    /// `except:` adds nothing. A callable input's call that raises one of them reaches the
    /// clause's block.
    pub handled: Vec<String>,
    /// For a method, the literals of its class's constructor's own code (`'/'` of
    /// `JsonPointer.__init__`, which splits its text on it): the receiver's constructor
    /// arguments are seeded with them.
    pub receiver_literals: Vec<Literal>,
}

/// The seeds of each `def` of a module that has any, by its ID.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ModuleSeeds {
    pub functions: rustc_hash::FxHashMap<FunctionId, FunctionSeeds>,
}

impl ModuleSeeds {
    /// The seeds of the function `id` (none recorded: nothing to seed with).
    pub fn function(&self, id: &FunctionId) -> FunctionSeeds {
        self.functions.get(id).cloned().unwrap_or_default()
    }
}

/// A read of an attribute of a parameter that is not the receiver: `order.status`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct ParamFieldRead {
    pub param: CompactString,
    pub field: CompactString,
}

/// A write to an attribute of `self` (or `cls`) in a method body.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct FieldWrite {
    pub field: CompactString,
    pub kind: FieldWriteKind,
    /// The parameter whose value is stored unchanged (`self.x = x`).
    pub from_param: Option<CompactString>,
    pub range: TextRange,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FieldWriteKind {
    /// `self.f = v` (or annotated).
    Assign,
    /// `self.f += v`
    AugAssign,
    /// `self.f[k] = v` or `del self.f[k]`.
    Subscript,
    /// `self.f.append(v)` and other calls of a method on the field.
    Mutate(String),
}

/// A `def`, a class body or the module body.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Function {
    pub id: FunctionId,
    pub anchor: Anchor,
    pub syntax: Arc<FunctionSyntax>,
}

/// Everything about a function that does not depend on where it stands in the file. Its
/// `Default` is a header with nothing in it: lowering starts from one and fills the lists in.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct FunctionSyntax {
    pub kind: FunctionKind,
    pub name: CompactString,
    /// Python's `__qualname__` (`Stack.push`, `outer.<locals>.inner`); the same text as the
    /// function's ID when its name is bound once, and then shared with it.
    pub qualname: Arc<str>,
    /// The qualified name of the class whose body defines this function directly.
    pub class: Option<String>,
    pub params: ThinVec<Param>,
    pub returns: Option<String>,
    /// Decorators' source text without `@`.
    pub decorators: ThinVec<String>,
    pub is_async: bool,
    pub is_generator: bool,
    /// The whole definition, decorators included.
    pub range: TextRange,
    pub name_range: TextRange,
    /// The statements of the body.
    pub body: TextRange,
    /// FNV-1a hash of the definition's tokens (comments and layout ignored): two functions with
    /// the same code have the same hash wherever they stand and however they are laid out.
    pub text_hash: u64,
    pub decisions: ThinVec<Decision>,
    pub calls: ThinVec<CallSite>,
    pub asserts: ThinVec<Assert>,
    pub loops: ThinVec<Loop>,
    /// Each comprehension and generator expression (`[f(x) for x in xs if p(x)]`), whole,
    /// relative to the function: a decision inside one is decided per item it iterates.
    pub comprehensions: ThinVec<TextRange>,
    /// The `except` clauses of its `try` statements (a nested function's are its own), in
    /// source order, relative to the function.
    pub handlers: ThinVec<Handler>,
    /// Writes to `self.<field>` (methods only).
    pub field_writes: ThinVec<FieldWrite>,
    /// Reads of `self.<field>` (methods only), deduplicated, in first-read order.
    pub field_reads: ThinVec<CompactString>,
    /// Reads of an attribute of another parameter (`order.status`; not a method called,
    /// `order.total()`), in code (never in a comment or a string), deduplicated, in first-read
    /// order.
    pub param_field_reads: ThinVec<ParamFieldRead>,
    /// The names its body binds again (`functions` only): assignment, augmented assignment and
    /// annotated targets, `for` targets, `with … as`, `except … as` and `case … as` names, `:=`,
    /// `del`, and the names of its `global` and `nonlocal` statements; a subscript or an
    /// attribute target (`xs[0] = …`, `o.x = …`) binds no name. In source order, each with the
    /// range of the name where it is bound (relative to the function).
    pub bindings: ThinVec<Binding>,
    /// The names its own `return` statements return as they are (`return check`: `check`),
    /// deduplicated, in source order; a nested function's returns are its own.
    pub returned: ThinVec<CompactString>,
    /// Branch sides an exclusion left out of `decisions` (`# pragma: no cover`): set by the
    /// analysis, which knows the project's exclusions; the lowering leaves it 0.
    pub excluded_sides: u32,
}

impl FunctionSyntax {
    /// Whether its body binds `name` again inside `within` (relative to the function; the
    /// whole function when none).
    pub fn binds(&self, name: &str, within: Option<TextRange>) -> bool {
        self.bindings
            .iter()
            .any(|b| b.name == name && within.is_none_or(|w| w.contains_range(b.range)))
    }

    /// The comprehensions or generator expressions `range` (relative to the function) lies in,
    /// innermost last.
    pub fn comprehensions_around(&self, range: TextRange) -> impl Iterator<Item = TextRange> + '_ {
        self.comprehensions
            .iter()
            .copied()
            .filter(move |c| c.contains_range(range))
    }

    pub fn branch_count(&self) -> usize {
        2 * self.decisions.len()
    }

    pub fn is_method(&self) -> bool {
        self.class.is_some() && self.kind == FunctionKind::Def
    }

    pub fn is_staticmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "staticmethod")
    }

    pub fn is_classmethod(&self) -> bool {
        self.decorators.iter().any(|d| d == "classmethod")
    }

    /// Decorated `@property` or as a cached property (`functools.cached_property`, a
    /// project's or a framework's own `cached_property`): read through an instance.
    pub fn is_property(&self) -> bool {
        self.decorators
            .iter()
            .any(|d| d == "property" || d == "cached_property" || d.ends_with(".cached_property"))
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassKind {
    Plain,
    Dataclass,
    Attrs,
    NamedTuple,
    Enum,
    TypedDict,
    Protocol,
}

/// A field declared in the class body: a dataclass/attrs/NamedTuple field, an annotated
/// attribute or a class attribute (`count = 0`).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct ClassField {
    pub name: String,
    pub annotation: Option<String>,
    pub default: Option<String>,
    /// `ClassVar[...]` or an unannotated class-body assignment.
    pub class_level: bool,
    /// Excluded from the generated `__init__` (`field(init=False)`, `attr.ib(init=False)`).
    pub init: bool,
    pub range: TextRange,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Property {
    pub name: CompactString,
    pub has_setter: bool,
    pub has_deleter: bool,
}

/// A field written by one method: the class model's raw material for assignability.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct MethodWrite {
    /// The method's name (`__init__`, `push`).
    pub method: CompactString,
    pub write: FieldWrite,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Class {
    pub anchor: Anchor,
    pub syntax: Arc<ClassSyntax>,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct ClassSyntax {
    pub name: String,
    pub qualname: String,
    pub kind: ClassKind,
    /// Base classes' source text (keyword arguments such as `metaclass=` excluded).
    pub bases: Vec<String>,
    pub decorators: Vec<String>,
    pub range: TextRange,
    pub name_range: TextRange,
    /// Names of the methods defined in the body, in source order.
    pub methods: Vec<CompactString>,
    pub fields: Vec<ClassField>,
    pub properties: Vec<Property>,
    /// Writes to `self.<field>` by each method (ranges relative to the class anchor).
    pub writes: Vec<MethodWrite>,
}

impl ClassSyntax {
    pub fn has_method(&self, name: &str) -> bool {
        self.methods.iter().any(|m| m == name)
    }

    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// The methods that write `field`, in source order, without repeats.
    pub fn writers_of(&self, field: &str) -> Vec<&str> {
        let mut out: Vec<&str> = vec![];
        for w in self.writes.iter().filter(|w| w.write.field == field) {
            if !out.contains(&w.method.as_str()) {
                out.push(&w.method);
            }
        }
        out
    }
}
