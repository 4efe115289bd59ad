//! What the generator seeds a function's inputs with, read from its code while it is lowered:
//! the string and integer literals of its code and of its docstring's examples, those of the
//! module's assignments to the names it reads, whether it tests for non-finite numbers, and how
//! it uses its parameters (the evidence for an unannotated one's type). Recorded only when
//! asked for ([`super::seeds`]): the static model never holds them.

use super::source::{self, range};
use super::{FunctionBuilder, Lowerer, definitions, literal};
use crate::syntax::{FunctionKind, FunctionSeeds, Literal, ModuleSeeds, ParamUse, UseKind};
use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::Range;
use tree_sitter::Node;

/// The most literals kept per function or module name (a data table's are seeds enough).
const MAX_LITERALS: usize = 512;

/// The most distinct names read kept per function while it is lowered (of which those the
/// module assigns matter).
const MAX_READS: usize = 2048;

/// The most distinct uses of its parameters kept per function (each with its count).
const MAX_PARAM_USES: usize = 256;

/// The longest string literal kept as a seed: a longer one is a message or a template, never
/// a value compared with, unless it is raw (a regular expression, whose matches are the seeds).
pub const MAX_SEED_STRING: usize = 40;

/// Names whose reading (`math.isinf`, `from math import inf`) says the function tests for
/// non-finite numbers.
const NON_FINITE_NAMES: &[&str] = &["isfinite", "isinf", "isnan", "inf", "nan"];

/// Whether a literal is worth keeping as a seed: an integer, a string of at most
/// [`MAX_SEED_STRING`] characters, or a raw string.
fn is_seed(literal: &Literal) -> bool {
    match literal {
        Literal::Int(_) => true,
        Literal::Str { value, raw } => *raw || value.chars().count() <= MAX_SEED_STRING,
    }
}

/// A name the module's body assigns (`DEFAULTS = {"currency": "EUR"}`), with the seed
/// literals of the statement: the values a function reading the name compares with too.
struct Global {
    name: CompactString,
    literals: Vec<Literal>,
}

/// The module-wide state of the recording.
#[derive(Default)]
pub(super) struct SeedState {
    /// The names the module's body assigns, each with its statement's literals, in source
    /// order (a name assigned twice is listed twice).
    globals: Vec<Global>,
    /// The module-level assignment being walked: the indices of its names in `globals`, and
    /// where it ends.
    assigning: Option<(Range<usize>, u32)>,
    /// Identifiers that name no value read: an attribute's name (`x` of `o.x`), a keyword
    /// argument's name, a definition's and its parameters' names.
    not_read: FxHashSet<usize>,
    /// The string nodes that are functions' docstrings.
    docstrings: FxHashSet<usize>,
}

impl SeedState {
    /// Node IDs are only unique within one tree: a new part of a file parsed in parts starts
    /// afresh.
    pub(super) fn new_tree(&mut self) {
        self.not_read.clear();
        self.docstrings.clear();
    }
}

/// The names and dotted names an `except` clause catches (`except (KeyError, err.Fatal) as e`).
fn caught(clause: Node<'_>) -> Vec<Node<'_>> {
    let Some(types) = clause.child_by_field_name("value").or_else(|| {
        source::named_children(clause)
            .into_iter()
            .find(|c| c.kind() != "block")
    }) else {
        return vec![];
    };
    let mut out = vec![];
    let mut pending = vec![types];
    while let Some(node) = pending.pop() {
        match node.kind() {
            "tuple" | "parenthesized_expression" => {
                pending.extend(source::named_children(node).into_iter().rev());
            }
            "as_pattern" => pending.extend(node.named_child(0)),
            "identifier" | "attribute" => out.push(node),
            _ => {}
        }
    }
    out
}

/// One function's recording.
#[derive(Default)]
pub(super) struct Recording {
    seeds: FunctionSeeds,
    /// Its parameters' names, and a method's own receiver (`self`, `cls`), whose uses say
    /// nothing of a type to guess.
    params: Vec<CompactString>,
    own_receiver: Option<CompactString>,
    seen_literals: FxHashSet<Literal>,
    /// The names its code reads, in first-read order.
    reads: Vec<CompactString>,
    seen_reads: FxHashSet<CompactString>,
}

impl Recording {
    pub(super) fn new(params: Vec<CompactString>, own_receiver: Option<CompactString>) -> Self {
        Recording {
            params,
            own_receiver,
            ..Recording::default()
        }
    }
}

impl Lowerer<'_> {
    /// Records what `node` says of the seeds of the functions being walked (after the node's
    /// own lowering: a `def`'s docstring belongs to the function it starts).
    pub(super) fn record_seeds(&mut self, node: Node<'_>) {
        let Some(mut state) = self.seeds.take() else {
            return;
        };
        if matches!(
            node.kind(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            self.mark_definition_names(&mut state, node);
        }
        self.record_param_uses(node);
        match node.kind() {
            "function_definition" => self.record_doctest_literals(&mut state, node),
            "attribute" => {
                if let Some(name) = node.child_by_field_name("attribute") {
                    state.not_read.insert(name.id());
                    self.record_attribute(name);
                }
            }
            "assignment" => self.record_global(&mut state, node),
            "string" | "integer" => self.record_literal(&mut state, node),
            "identifier" => self.record_read(&state, node),
            "except_clause" | "except_group_clause" => self.record_handled(node),
            "keyword_argument" => {
                if let Some(name) = node.child_by_field_name("name") {
                    state.not_read.insert(name.id());
                }
            }
            _ => {}
        }
        self.seeds = Some(state);
    }

    /// The literals of the examples in a function's docstring ([`literal::doctest_literals`]).
    fn record_doctest_literals(&mut self, state: &mut SeedState, node: Node<'_>) {
        let docstring = node
            .child_by_field_name("body")
            .and_then(|body| body.named_child(0))
            .filter(|first| first.kind() == "expression_statement")
            .and_then(|statement| statement.named_child(0))
            .filter(|string| string.kind() == "string")
            .and_then(|string| {
                state.docstrings.insert(string.id());
                literal::value(&self.source, string)
            });
        let Some(Literal::Str { value, .. }) = docstring else {
            return;
        };
        if !value.contains(">>>") {
            return;
        }
        for literal in literal::doctest_literals(&value) {
            self.add_literal(literal);
        }
    }

    /// Calls `record` on each `def` whose code the node being walked is: the innermost one and
    /// those enclosing it (a nested function's literals, reads and uses of an enclosing
    /// function's parameters are its enclosing one's too). Only a `def` is explored, so only a
    /// `def` keeps these facts.
    fn for_each_code_owner(&mut self, mut record: impl FnMut(&mut Recording)) {
        for s in 0..self.scopes.len() {
            let builder = &mut self.functions[self.scopes[s].function];
            if builder.function.syntax.kind == FunctionKind::Def {
                record(&mut builder.recording);
            }
        }
    }

    /// A string or integer literal ([`FunctionSeeds::literals`], [`Global::literals`]); not
    /// a function's docstring, whose examples are read instead.
    fn record_literal(&mut self, state: &mut SeedState, node: Node<'_>) {
        if state.docstrings.contains(&node.id()) {
            return;
        }
        let Some(literal) = literal::value(&self.source, node) else {
            return;
        };
        if let Some((names, end)) = &state.assigning
            && node.start_byte() < *end as usize
            && is_seed(&literal)
        {
            for global in &mut state.globals[names.clone()] {
                if global.literals.len() < MAX_LITERALS && !global.literals.contains(&literal) {
                    global.literals.push(literal.clone());
                }
            }
        }
        self.add_literal(literal);
    }

    /// `literal` among those of the functions whose code is being walked, when it is a seed
    /// ([`is_seed`]).
    fn add_literal(&mut self, literal: Literal) {
        let non_finite = literal::is_non_finite(&literal);
        let seed = is_seed(&literal);
        self.for_each_code_owner(|recording| {
            recording.seeds.non_finite |= non_finite;
            if seed
                && recording.seen_literals.len() < MAX_LITERALS
                && recording.seen_literals.insert(literal.clone())
            {
                recording.seeds.literals.push(literal.clone());
            }
        });
    }

    /// The uses of a parameter `node` makes ([`FunctionSeeds::param_uses`]).
    fn record_param_uses(&mut self, node: Node<'_>) {
        let field = |name: &str| node.child_by_field_name(name);
        let mut uses: Vec<(Node<'_>, UseKind)> = vec![];
        match node.kind() {
            "attribute" => {
                if let (Some(object), Some(name)) = (field("object"), field("attribute")) {
                    uses.push((object, UseKind::Attribute(self.source.text(name).into())));
                }
            }
            "subscript" => {
                let index = source::named_children(node).get(1).copied();
                let kind = index.and_then(|index| match index.kind() {
                    "integer" => Some(UseKind::IndexedByNumber),
                    "unary_operator" => (index
                        .child_by_field_name("argument")
                        .is_some_and(|a| a.kind() == "integer"))
                    .then_some(UseKind::IndexedByNumber),
                    "string" | "identifier" | "attribute" => Some(UseKind::IndexedByKey),
                    // `attrs[0::2]`: a sequence, sliced.
                    "slice" => Some(UseKind::IndexedByNumber),
                    _ => None,
                });
                if let (Some(value), Some(kind)) = (field("value"), kind) {
                    uses.push((value, kind));
                }
            }
            "comparison_operator" => {
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for pair in children.windows(2) {
                    if matches!(pair[0].kind(), "in" | "not in") {
                        uses.push((pair[1], UseKind::Membership));
                    }
                }
            }
            // `not p(v)`: the call's truth is what is used.
            "not_operator" => {
                let called = field("argument")
                    .filter(|a| a.kind() == "call")
                    .and_then(|call| call.child_by_field_name("function"));
                if let Some(function) = called {
                    uses.push((function, UseKind::Called { tested: true }));
                }
            }
            // `first, second = pair`: a sequence of that many items.
            "assignment" => {
                if let (Some(left), Some(right)) = (field("left"), field("right"))
                    && matches!(
                        left.kind(),
                        "pattern_list" | "tuple_pattern" | "list_pattern"
                    )
                {
                    let names = source::named_children(left);
                    let starred = names.iter().any(|n| n.kind() == "list_splat_pattern");
                    if !starred && let Ok(n) = u8::try_from(names.len()) {
                        uses.push((right, UseKind::Unpacked(n)));
                    }
                }
            }
            "for_statement" | "for_in_clause" => {
                if let Some(right) = field("right") {
                    uses.push((right, UseKind::Iterated));
                }
            }
            "except_clause" | "except_group_clause" => {
                uses.extend(caught(node).into_iter().map(|n| (n, UseKind::Caught)));
            }
            "call" => {
                let function = field("function");
                if let Some(function) = function.filter(|f| f.kind() == "identifier") {
                    let call = self.relative(range(node));
                    let tested = self
                        .current()
                        .function
                        .syntax
                        .decisions
                        .iter()
                        .any(|d| d.conditions.iter().any(|c| c.range == call));
                    uses.push((function, UseKind::Called { tested }));
                }
                let callee = function
                    .filter(|f| f.kind() == "identifier")
                    .map(|f| self.source.text(f));
                for argument in field("arguments")
                    .map(source::named_children)
                    .unwrap_or_default()
                {
                    match argument.kind() {
                        "identifier" => {
                            if let Some(callee) = callee {
                                uses.push((argument, UseKind::ArgumentOf(callee.into())));
                            }
                        }
                        "keyword_argument" => {
                            let name = argument.child_by_field_name("name");
                            if name.is_some_and(|n| self.source.text(n) == "key")
                                && let Some(value) = argument.child_by_field_name("value")
                            {
                                uses.push((value, UseKind::KeyFunction));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => return,
        }
        for (used, kind) in uses {
            if used.kind() != "identifier" {
                continue;
            }
            let name = self.source.text(used);
            self.for_each_code_owner(|recording| {
                if recording.own_receiver.as_deref() == Some(name)
                    || !recording.params.iter().any(|p| p == name)
                {
                    return;
                }
                let uses = &mut recording.seeds.param_uses;
                if let Some(seen) = uses.iter_mut().find(|u| u.param == name && u.kind == kind) {
                    seen.count = seen.count.saturating_add(1);
                } else if uses.len() < MAX_PARAM_USES {
                    uses.push(ParamUse {
                        param: name.into(),
                        kind: kind.clone(),
                        count: 1,
                    });
                }
            });
        }
    }

    /// A definition's name and its parameters' names name no value read.
    fn mark_definition_names(&self, state: &mut SeedState, node: Node<'_>) {
        if let Some(name) = node.child_by_field_name("name") {
            state.not_read.insert(name.id());
        }
        let Some(parameters) = node.child_by_field_name("parameters") else {
            return;
        };
        for parameter in source::named_children(parameters) {
            let name = match parameter.kind() {
                "identifier" => Some(parameter),
                "default_parameter" | "typed_default_parameter" => {
                    parameter.child_by_field_name("name")
                }
                "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                    source::named_children(parameter)
                        .into_iter()
                        .find(|n| n.kind() == "identifier")
                }
                _ => None,
            };
            if let Some(name) = name.filter(|n| n.kind() == "identifier") {
                state.not_read.insert(name.id());
            }
        }
    }

    /// A name read (of the module's assignments, whose literals are seeds too;
    /// [`FunctionSeeds::non_finite`]).
    fn record_read(&mut self, state: &SeedState, node: Node<'_>) {
        if state.not_read.contains(&node.id()) {
            return;
        }
        let text = self.source.text(node);
        let non_finite = NON_FINITE_NAMES.contains(&text);
        let name = CompactString::from(text);
        self.for_each_code_owner(|recording| {
            recording.seeds.non_finite |= non_finite;
            if recording.seen_reads.len() < MAX_READS && recording.seen_reads.insert(name.clone()) {
                recording.reads.push(name.clone());
            }
        });
    }

    /// The exception types an `except` clause names ([`FunctionSeeds::handled`]): not a
    /// parameter of a function being walked (`except exception as e`), whose class a caller
    /// chooses ([`UseKind::Caught`]).
    fn record_handled(&mut self, clause: Node<'_>) {
        const MAX_HANDLED: usize = 8;
        let mut names: Vec<String> = vec![];
        for node in caught(clause) {
            if node.kind() == "identifier" && self.is_param(self.source.text(node)) {
                continue;
            }
            names.extend(super::source::dotted_name(&self.source, node));
        }
        self.for_each_code_owner(|recording| {
            for name in &names {
                if recording.seeds.handled.len() < MAX_HANDLED
                    && !recording.seeds.handled.contains(name)
                {
                    recording.seeds.handled.push(name.clone());
                }
            }
        });
    }

    /// Whether `name` is a parameter of a function being walked (not a method's receiver).
    fn is_param(&self, name: &str) -> bool {
        self.scopes.iter().any(|scope| {
            let recording = &self.functions[scope.function].recording;
            recording.own_receiver.as_deref() != Some(name)
                && recording.params.iter().any(|p| p == name)
        })
    }

    /// An attribute's name: only whether it tests for non-finite numbers is kept
    /// ([`FunctionSeeds::non_finite`]).
    fn record_attribute(&mut self, name: Node<'_>) {
        if NON_FINITE_NAMES.contains(&self.source.text(name)) {
            self.for_each_code_owner(|recording| recording.seeds.non_finite = true);
        }
    }

    /// A module-level assignment: the names it binds, whose literals follow.
    fn record_global(&self, state: &mut SeedState, node: Node<'_>) {
        if self.scope().function != 0 {
            return;
        }
        let mut names: Vec<Node<'_>> = vec![];
        if let Some(left) = node.child_by_field_name("left") {
            definitions::bound_names(left, &mut names);
        }
        let first = state.globals.len();
        for name in names {
            state.globals.push(Global {
                name: self.source.text(name).into(),
                literals: Vec::new(),
            });
        }
        state.assigning = Some((first..state.globals.len(), node.end_byte() as u32));
    }
}

/// The seeds of each `def` of `functions` (the lowering's builders), those of the module's
/// assignments to the names it reads after its own; a method's receiver's, its class's
/// constructor's literals.
pub(super) fn finish(state: SeedState, functions: &mut [FunctionBuilder]) -> ModuleSeeds {
    let mut out = FxHashMap::default();
    let mut methods = vec![];
    let mut constructors: FxHashMap<String, Vec<Literal>> = FxHashMap::default();
    for builder in functions {
        if builder.function.syntax.kind != FunctionKind::Def {
            continue;
        }
        let syntax = &builder.function.syntax;
        if let Some(class) = &syntax.class {
            if matches!(syntax.name.as_str(), "__init__" | "__new__") {
                // `__init__` first when a class defines both: it takes what the call passes.
                let held = constructors.entry(class.clone()).or_default();
                if held.is_empty() || syntax.name == "__init__" {
                    *held = builder.recording.seeds.literals.clone();
                }
            } else {
                methods.push((builder.function.id.clone(), class.clone()));
            }
        }
        let recording = std::mem::take(&mut builder.recording);
        let mut seeds = recording.seeds;
        let read: FxHashSet<&str> = recording.reads.iter().map(|r| r.as_str()).collect();
        for global in state
            .globals
            .iter()
            .filter(|g| read.contains(g.name.as_str()))
        {
            for literal in &global.literals {
                if !seeds.literals.contains(literal) {
                    seeds.literals.push(literal.clone());
                }
            }
        }
        if seeds != FunctionSeeds::default() {
            out.insert(builder.function.id.clone(), seeds);
        }
    }
    for (id, class) in methods {
        if let Some(literals) = constructors.get(&class).filter(|l| !l.is_empty()) {
            out.entry(id).or_default().receiver_literals = literals.clone();
        }
    }
    ModuleSeeds { functions: out }
}
