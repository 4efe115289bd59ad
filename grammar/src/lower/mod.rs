//! Lowering: one walk over the tree-sitter tree that builds the typed [`Module`] view (and, when
//! asked, the generator's seeds, [`seeds`], or the explanations' flow facts, [`flow`]).
//!
//! The walk is iterative (see [`source::walk`]) and every recursive step on expressions is
//! bounded, so no input — however deeply nested — can overflow the stack. Code inside ERROR
//! nodes is still modelled; the error itself is reported once, at its outermost node.

mod compact;
mod decisions;
mod definitions;
mod edits;
mod flow;
mod imports;
mod literal;
pub mod outline;
mod parts;
mod readable;
mod recover;
mod scopes;
mod seeds;
pub use seeds::MAX_SEED_STRING;
mod source;

use crate::decision::{BranchSide, Condition, Decision, DecisionKind};
use crate::flow::ModuleFlow;
use crate::ids::{DecisionId, FunctionId};
use crate::syntax::*;
use crate::text::{Anchor, TextRange};
use compact::Compact;
use compact_str::CompactString;
use edits::{lone_cr_as_newline, text_edit};
use recover::finish_and_recover;
use rustc_hash::{FxHashMap, FxHashSet};
use source::{KindSet, Source, Visit, range};
use std::cell::RefCell;
use std::sync::Arc;
use tree_sitter::{Node, Parser};

/// Most syntax errors reported for one file; past this, the rest add nothing.
const MAX_SYNTAX_ERRORS: usize = 50;

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_python::LANGUAGE.into())
            .expect("the bundled Python grammar matches the tree-sitter version");
        parser
    });
}

/// Parses Python source and builds its typed view. Never fails: what does not parse is
/// reported in [`Module::syntax_errors`] and the rest is modelled.
pub fn parse(text: &str) -> Module {
    parse_tree(text, None, Asked::Model).0.module
}

/// The generator's seeds for each `def` of a module ([`ModuleSeeds`]): what [`parse`] leaves
/// out of the model, read by the same lowering when the generator asks.
pub fn seeds(text: &str) -> ModuleSeeds {
    parse_tree(text, None, Asked::Seeds)
        .0
        .seeds
        .unwrap_or_default()
}

/// What each `def` of a module reads and stores, statement by statement ([`ModuleFlow`]):
/// what [`parse`] leaves out of the model, read by the same lowering when an explanation asks.
pub fn flow(text: &str) -> ModuleFlow {
    parse_tree(text, None, Asked::Flow)
        .0
        .flow
        .unwrap_or_default()
}

/// What a lowering records besides the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Asked {
    Model,
    Seeds,
    Flow,
}

/// A module as lowered, with the generator's seeds or the flow facts when they were asked for.
struct Lowered {
    module: Module,
    seeds: Option<ModuleSeeds>,
    flow: Option<ModuleFlow>,
}

/// What [`parse`] does with a file past [`PART_BYTES`]: parse it one run of top-level
/// statements at a time, each part about `part_bytes` long, lowering each part before the next
/// is parsed, so that tree-sitter's tree never holds more than a part. On a file without syntax
/// errors the module is the one a whole parse gives.
pub fn parse_in_parts(text: &str, part_bytes: usize) -> Module {
    lower_in_parts(&lone_cr_as_newline(text), part_bytes, Asked::Model).module
}

pub use parts::PART_BYTES;

/// A parse kept to make the next parse of an edited version of the same file incremental.
pub struct PreviousParse {
    text: std::sync::Arc<str>,
    tree: tree_sitter::Tree,
}

/// Like [`parse`], reusing `previous` — the parse of an earlier version of the same file —
/// so that tree-sitter re-parses only around what changed. The result is the same as a fresh
/// parse; the returned [`PreviousParse`] serves the next call.
pub fn parse_after(
    text: &str,
    previous: Option<&PreviousParse>,
) -> (Module, Option<PreviousParse>) {
    let (Lowered { module, .. }, tree) = parse_tree(text, previous, Asked::Model);
    let next = tree.map(|tree| PreviousParse {
        text: std::sync::Arc::from(text),
        tree,
    });
    (module, next)
}

/// The module (with what else was `asked`), and the tree it was lowered from (`None` when the
/// parser gave up).
fn parse_tree(
    text: &str,
    previous: Option<&PreviousParse>,
    asked: Asked,
) -> (Lowered, Option<tree_sitter::Tree>) {
    let normalised = lone_cr_as_newline(text);
    let text: &str = &normalised;
    if text.len() > PART_BYTES {
        // No tree is kept: keeping one is what parsing in parts avoids.
        return (lower_in_parts(text, PART_BYTES, asked), None);
    }
    let old_tree = previous.map(|p| {
        let mut tree = p.tree.clone();
        tree.edit(&text_edit(&p.text, text));
        tree
    });
    let mut tree = PARSER.with(|p| p.borrow_mut().parse(text, old_tree.as_ref()));
    // tree-sitter's error recovery can end differently when it starts from an old tree; a text
    // with errors is parsed afresh, so that its syntax errors are the ones a fresh parse finds.
    if old_tree.is_some() && tree.as_ref().is_some_and(|t| t.root_node().has_error()) {
        tree = PARSER.with(|p| p.borrow_mut().parse(text, None));
    }
    let lowered = lower_tree(text, tree.as_ref(), asked);
    (lowered, tree)
}

fn lower_tree(text: &str, tree: Option<&tree_sitter::Tree>, asked: Asked) -> Lowered {
    let Some(tree) = tree else {
        let module = Module {
            syntax_errors: vec![SyntaxError {
                range: TextRange::new(0, 0),
                message: "the parser gave up on this file".to_owned(),
            }],
            ..Module::default()
        };
        return Lowered {
            module,
            seeds: (asked == Asked::Seeds).then(ModuleSeeds::default),
            flow: (asked == Asked::Flow).then(ModuleFlow::default),
        };
    };
    let root = tree.root_node();
    let source = Source { text };
    let text_hash = source.token_hash(root, &|n| is_definition(n));
    let mut lowerer = Lowerer::new(text, range(root), text_hash, asked);
    source::walk(root, &mut lowerer);
    lowerer.record_module_flow(source::named_children(root));
    finish_and_recover(lowerer)
}

/// Parses and lowers `text` part by part (see [`parts`]).
fn lower_in_parts(text: &str, part_bytes: usize, asked: Asked) -> Lowered {
    let mut lowerer = Lowerer::new(text, TextRange::default(), 0, asked);
    let mut text_hash = source::TOKEN_HASH_START;
    let mut extent: Option<TextRange> = None;
    let parsed = PARSER.with(|parser| {
        parts::parse_in_parts(&mut parser.borrow_mut(), text, part_bytes, |part| {
            // Node IDs are only unique within one tree.
            lowerer.structural.clear();
            if let Some(seeds) = &mut lowerer.seeds {
                seeds.new_tree();
            }
            if part.tree.root_node().child_count() == 0 {
                // An empty module's hash is that of its one (empty) token, as a whole parse has it.
                text_hash =
                    lowerer
                        .source
                        .token_hash_from(text_hash, part.tree.root_node(), &|n| is_definition(n));
            }
            for statement in part.statements() {
                text_hash = lowerer
                    .source
                    .token_hash_from(text_hash, statement, &|n| is_definition(n));
                source::walk(statement, &mut lowerer);
                lowerer.record_module_flow(vec![statement]);
            }
            let root = part.tree.root_node();
            extent = Some(TextRange::new(
                extent.map_or(root.start_byte() as u32, |e| e.start),
                root.end_byte() as u32,
            ));
        })
    });
    if !parsed {
        return lower_tree(text, None, asked);
    }
    let module = Arc::make_mut(&mut lowerer.functions[0].function.syntax);
    let extent = extent.unwrap_or_default();
    module.range = extent;
    module.body = extent;
    module.text_hash = text_hash;
    finish_and_recover(lowerer)
}

struct FunctionBuilder {
    function: Function,
    /// Occurrences of each (kind, text) so far, for decision IDs.
    decision_keys: FxHashMap<(DecisionKind, String), u32>,
    /// The receiver's name and the class, for methods (and functions nested in them).
    receiver: Option<(String, usize)>,
    /// What its code says of the generator's seeds, when they are recorded.
    recording: seeds::Recording,
    /// Its local names that hold a field of the receiver, as the walk has reached them.
    aliases: definitions::FieldAliases,
}

impl FunctionBuilder {
    fn new(
        function: Function,
        receiver: Option<(String, usize)>,
        recording: seeds::Recording,
    ) -> Self {
        FunctionBuilder {
            function,
            decision_keys: FxHashMap::default(),
            receiver,
            recording,
            aliases: Default::default(),
        }
    }
}

struct ClassBuilder {
    class: Class,
}

struct Scope {
    node: usize,
    function: usize,
    /// Prefix of the qualified names of definitions directly inside.
    prefix: String,
    /// Set for a class body: the class's index.
    class: Option<usize>,
}

struct Lowerer<'a> {
    source: Source<'a>,
    functions: Vec<FunctionBuilder>,
    classes: Vec<ClassBuilder>,
    imports: Vec<Import>,
    scopes: Vec<Scope>,
    /// `and`/`or`/`not`/parenthesis nodes that are structure of a decision already lowered.
    structural: FxHashSet<usize>,
    errors: Vec<SyntaxError>,
    /// Whole ranges of the outermost ERROR nodes, for recovery.
    error_regions: Vec<TextRange>,
    error_depth: usize,
    qualnames: FxHashMap<String, u32>,
    interesting: &'static KindSet,
    /// The recording of the generator's seeds ([`seeds`]), when asked for.
    seeds: Option<seeds::SeedState>,
    /// The flow facts of the functions met so far ([`flow`]), when asked for.
    flow: Option<ModuleFlow>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `text`, whose module spans `module` with the given token hash.
    /// With `asked`, the generator's seeds or the flow facts are recorded too.
    fn new(text: &'a str, module: TextRange, text_hash: u64, asked: Asked) -> Self {
        let source = Source { text };
        let body: Arc<str> = Arc::from("<module>");
        let module = Function {
            id: FunctionId(body.clone()),
            anchor: Anchor::default(),
            syntax: Arc::new(FunctionSyntax {
                kind: FunctionKind::Module,
                name: "<module>".into(),
                qualname: body,
                range: module,
                body: module,
                text_hash,
                ..FunctionSyntax::default()
            }),
        };
        Lowerer {
            source,
            functions: vec![FunctionBuilder::new(module, None, Default::default())],
            classes: vec![],
            imports: vec![],
            scopes: vec![Scope {
                // The module scope is never popped: no node's ID is needed.
                node: usize::MAX,
                function: 0,
                prefix: String::new(),
                class: None,
            }],
            structural: FxHashSet::default(),
            errors: vec![],
            error_regions: vec![],
            error_depth: 0,
            qualnames: FxHashMap::default(),
            interesting: KindSet::get(asked == Asked::Seeds),
            seeds: (asked == Asked::Seeds).then(seeds::SeedState::default),
            flow: (asked == Asked::Flow).then(ModuleFlow::default),
        }
    }

    /// Adds the flow facts of `statements` of the module's own body, when they are asked for.
    fn record_module_flow(&mut self, statements: Vec<Node<'_>>) {
        if let Some(flows) = &mut self.flow {
            let id = self.functions[0].function.id.clone();
            let facts = flow::statements(&self.source, statements, 0);
            flows
                .functions
                .entry(id)
                .or_default()
                .statements
                .extend(facts);
        }
    }

    fn scope(&self) -> &Scope {
        self.scopes
            .last()
            .expect("the module scope is never popped")
    }

    fn current(&mut self) -> &mut FunctionBuilder {
        let index = self.scope().function;
        &mut self.functions[index]
    }

    fn unique_id(&mut self, qualname: &Arc<str>) -> FunctionId {
        let count = self.qualnames.entry(qualname.to_string()).or_insert(0);
        *count += 1;
        if *count == 1 {
            FunctionId(qualname.clone())
        } else {
            FunctionId::new(format!("{qualname}#{count}"))
        }
    }

    /// A range of the current function, relative to its anchor.
    fn relative(&mut self, r: TextRange) -> TextRange {
        let anchor = self.current().function.anchor.offset;
        TextRange::new(r.start.saturating_sub(anchor), r.end.saturating_sub(anchor))
    }

    fn add_decision(&mut self, node: Node<'_>) {
        let structural = &mut self.structural;
        let Some(found) = decisions::decision_of(&self.source, node, &mut |id| {
            structural.insert(id);
        }) else {
            return;
        };
        let range = self.relative(found.range);
        let keyword = self.relative(found.keyword);
        let targets = found.targets.map(|t| t.map(|t| self.relative(t)));
        if self.flow.is_some()
            && let Ok(lowered) = &found.lowered
        {
            self.record_tests(node, &lowered.conditions);
        }
        let builder = self.current();
        let occurrence = {
            let n = builder
                .decision_keys
                .entry((found.kind, found.text.clone()))
                .or_insert(0);
            *n += 1;
            *n
        };
        let id = DecisionId::new(
            &builder.function.id,
            found.kind.as_str(),
            &found.text,
            occurrence,
        );
        let anchor = builder.function.anchor.offset;
        let (expr, unmodelled, conditions) = match found.lowered {
            Ok(lowered) => {
                let conditions = lowered
                    .conditions
                    .into_iter()
                    .enumerate()
                    .map(|(i, leaf)| Condition {
                        index: i as u16,
                        range: TextRange::new(leaf.range.start - anchor, leaf.range.end - anchor),
                        text: leaf.text.into(),
                        branches: leaf
                            .branches
                            .into_iter()
                            .map(|b| TextRange::new(b.start - anchor, b.end - anchor))
                            .collect(),
                        literal: leaf.literal,
                    })
                    .collect();
                (Some(lowered.expr), None, conditions)
            }
            Err(why) => (None, Some(why), vec![]),
        };
        let sides = [
            BranchSide {
                outcome: true,
                target: targets[0],
            },
            BranchSide {
                outcome: false,
                target: targets[1],
            },
        ];
        Arc::make_mut(&mut builder.function.syntax)
            .decisions
            .push(Decision {
                id,
                kind: found.kind,
                range,
                keyword,
                expr,
                unmodelled,
                conditions: conditions.into(),
                sides,
            });
    }

    /// The readable tests of a decision's leaf conditions, for the flow facts.
    fn record_tests(&mut self, decision: Node<'_>, leaves: &[decisions::Leaf]) {
        let function = &self.functions[self.scope().function].function;
        let (id, anchor) = (function.id.clone(), function.anchor.offset);
        let tests: Vec<_> = leaves
            .iter()
            .filter_map(|leaf| {
                let (start, end) = (leaf.range.start as usize, leaf.range.end as usize);
                let node = decision.descendant_for_byte_range(start, end)?;
                let test = readable::test(&self.source, node, leaf.range)?;
                let range = TextRange::new(leaf.range.start - anchor, leaf.range.end - anchor);
                Some((range, test))
            })
            .collect();
        if let Some(flows) = &mut self.flow {
            flows.functions.entry(id).or_default().tests.extend(tests);
        }
    }

    fn add_call(&mut self, node: Node<'_>) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let callee =
            dotted_name(&self.source, function).unwrap_or_else(|| self.source.collapsed(function));
        let arg_count = node
            .child_by_field_name("arguments")
            .map(|a| source::named_children(a).len() as u32)
            .unwrap_or(0);
        let r = self.relative(range(node));
        Arc::make_mut(&mut self.current().function.syntax)
            .calls
            .push(CallSite {
                callee: callee.into(),
                range: r,
                arg_count,
            });
    }

    /// The names `node` binds in the function it is in ([`FunctionSyntax::bindings`]).
    fn record_bindings(&mut self, node: Node<'_>) {
        if self.current().function.syntax.kind != FunctionKind::Def {
            return;
        }
        let mut names: Vec<Node<'_>> = vec![];
        match node.kind() {
            "assignment" | "augmented_assignment" | "for_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    definitions::bound_names(left, &mut names);
                }
            }
            "as_pattern" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    definitions::bound_names(alias, &mut names);
                }
            }
            "named_expression" => names.extend(node.child_by_field_name("name")),
            "delete_statement" | "global_statement" | "nonlocal_statement" => {
                for child in source::named_children(node) {
                    definitions::bound_names(child, &mut names);
                }
            }
            _ => {}
        }
        for name in names {
            let binding = Binding {
                name: self.source.text(name).into(),
                range: self.relative(range(name)),
            };
            Arc::make_mut(&mut self.current().function.syntax)
                .bindings
                .push(binding);
        }
    }

    fn record_field_access(&mut self, node: Node<'_>) {
        let index = self.scope().function;
        let anchor = self.functions[index].function.anchor.offset;
        let builder = &mut self.functions[index];
        if node.kind() == "attribute" {
            if definitions::is_store_target(node) {
                return;
            }
            let Some((object, field)) = definitions::name_attribute(&self.source, node) else {
                return;
            };
            let receiver = builder.receiver.as_ref().map(|(r, _)| r.as_str());
            let syntax = Arc::make_mut(&mut builder.function.syntax);
            if receiver == Some(object) {
                if !syntax.field_reads.iter().any(|r| r == field) {
                    syntax.field_reads.push(field.into());
                }
            } else if !definitions::called(node)
                && syntax.params.iter().any(|p| p.name == object)
                && !syntax
                    .param_field_reads
                    .iter()
                    .any(|r| r.param == object && r.field == field)
            {
                syntax.param_field_reads.push(ParamFieldRead {
                    param: object.into(),
                    field: field.into(),
                });
            }
            return;
        }
        let Some((receiver, _)) = &builder.receiver else {
            return;
        };
        let syntax = Arc::make_mut(&mut builder.function.syntax);
        let writes = definitions::field_writes(
            &self.source,
            node,
            receiver,
            &syntax.params,
            &builder.aliases,
        );
        definitions::track_aliases(&self.source, node, receiver, &mut builder.aliases);
        for mut w in writes {
            w.range = TextRange::new(w.range.start - anchor, w.range.end - anchor);
            syntax.field_writes.push(w);
        }
    }

    fn add_loop(&mut self, node: Node<'_>) {
        let (kind, header_end, iter) = match node.kind() {
            "for_statement" => {
                let right = node.child_by_field_name("right");
                (
                    LoopKind::For,
                    right.map(|r| r.end_byte()),
                    right.map(|r| self.source.collapsed(r)),
                )
            }
            _ => (
                LoopKind::While,
                node.child_by_field_name("condition").map(|c| c.end_byte()),
                None,
            ),
        };
        let whole = range(node);
        let header = TextRange::new(
            whole.start,
            header_end.map(|e| e as u32).unwrap_or(whole.end),
        );
        let range = self.relative(whole);
        let header = self.relative(header);
        Arc::make_mut(&mut self.current().function.syntax)
            .loops
            .push(Loop {
                kind,
                range,
                header,
                iter,
            });
    }

    fn add_assert(&mut self, node: Node<'_>) {
        let parts = source::named_children(node);
        let Some(test) = parts.first() else {
            return;
        };
        let assert = Assert {
            range: self.relative(range(node)),
            test: self.relative(range(*test)),
            message: parts.get(1).map(|m| self.relative(range(*m))),
        };
        Arc::make_mut(&mut self.current().function.syntax)
            .asserts
            .push(assert);
    }

    /// The names a `return` of the function being walked returns: `return check`, either
    /// side of `return check if strict else loose` ([`FunctionSyntax::returned`]).
    fn record_returned(&mut self, node: Node<'_>) {
        let mut pending: Vec<Node<'_>> = source::named_children(node).into_iter().take(1).collect();
        let mut names = vec![];
        while let Some(value) = pending.pop() {
            match value.kind() {
                "identifier" => names.push(CompactString::from(self.source.text(value))),
                "parenthesized_expression" => pending.extend(value.named_child(0)),
                // `a if test else b`: the test is not returned.
                "conditional_expression" => {
                    pending.extend(value.named_child(2));
                    pending.extend(value.named_child(0));
                }
                _ => {}
            }
        }
        let syntax = Arc::make_mut(&mut self.current().function.syntax);
        for name in names {
            if !syntax.returned.contains(&name) {
                syntax.returned.push(name);
            }
        }
    }

    fn mark_generator(&mut self) {
        let index = self
            .scopes
            .iter()
            .rev()
            .find(|s| self.functions[s.function].function.syntax.kind == FunctionKind::Def)
            .map(|s| s.function);
        if let Some(i) = index {
            Arc::make_mut(&mut self.functions[i].function.syntax).is_generator = true;
        }
    }

    /// The module, with the seeds or the flow facts when they were recorded.
    fn finish(mut self) -> Lowered {
        // Each class learns the field writes of its methods, relative to the class anchor.
        for builder in &self.functions {
            let Some((_, class)) = &builder.receiver else {
                continue;
            };
            let class = &mut self.classes[*class].class;
            let method = if builder.function.syntax.class.as_deref() == Some(&class.syntax.qualname)
            {
                builder.function.syntax.name.clone()
            } else {
                // A function nested in a method writes on behalf of that method.
                builder
                    .function
                    .syntax
                    .qualname
                    .strip_prefix(&format!("{}.", class.syntax.qualname))
                    .and_then(|rest| rest.split('.').next())
                    .unwrap_or(&builder.function.syntax.name)
                    .into()
            };
            for w in &builder.function.syntax.field_writes {
                let shift = builder.function.anchor.offset - class.anchor.offset;
                let mut write = w.clone();
                write.range = TextRange::new(w.range.start + shift, w.range.end + shift);
                Arc::make_mut(&mut class.syntax).writes.push(MethodWrite {
                    method: method.clone(),
                    write,
                });
            }
        }
        let seeds = self
            .seeds
            .take()
            .map(|state| seeds::finish(state, &mut self.functions));
        for builder in &mut self.functions {
            Arc::make_mut(&mut builder.function.syntax).compact();
            builder.function.id.compact();
        }
        for builder in &mut self.classes {
            Arc::make_mut(&mut builder.class.syntax).compact();
        }
        self.imports.compact();
        self.errors.compact();
        // Collected in place, these would keep the builders' larger allocations.
        let mut functions: Vec<Function> = self.functions.into_iter().map(|b| b.function).collect();
        functions.shrink_to_fit();
        let mut classes: Vec<Class> = self.classes.into_iter().map(|b| b.class).collect();
        classes.shrink_to_fit();
        let module = Module {
            imports: self.imports,
            functions,
            classes,
            syntax_errors: self.errors,
        };
        Lowered {
            module,
            seeds,
            flow: self.flow,
        }
    }
}

impl Visit for Lowerer<'_> {
    fn enter(&mut self, node: Node<'_>) -> bool {
        if !self.interesting.contains(node.kind_id()) && !node.is_error() && !node.is_missing() {
            return true;
        }
        if node.is_error() || node.is_missing() {
            if self.error_depth == 0 && self.errors.len() < MAX_SYNTAX_ERRORS {
                // Point at the first line of the error: an ERROR node can span the rest of
                // the file, but the mistake is where it starts.
                let whole = range(node);
                if node.is_error() {
                    self.error_regions.push(whole);
                }
                let first_line_end = self.source.text[whole.start as usize..whole.end as usize]
                    .find('\n')
                    .map_or(whole.end, |i| whole.start + i as u32);
                self.errors.push(SyntaxError {
                    range: TextRange::new(whole.start, first_line_end),
                    message: source::syntax_error_message(&self.source, node),
                });
            }
            if node.is_error() {
                self.error_depth += 1;
            }
        }
        match node.kind() {
            "function_definition" => self.enter_function(node),
            "class_definition" => self.enter_class(node),
            "if_statement"
            | "elif_clause"
            | "while_statement"
            | "for_statement"
            | "conditional_expression"
            | "if_clause" => self.add_decision(node),
            "assert_statement" => {
                self.add_decision(node);
                self.add_assert(node);
            }
            "boolean_operator" | "comparison_operator" if !self.structural.contains(&node.id()) => {
                self.add_decision(node)
            }
            "call" => {
                self.add_call(node);
                self.record_field_access(node);
            }
            "attribute" | "assignment" | "augmented_assignment" | "delete_statement" => {
                self.record_field_access(node);
                self.record_bindings(node);
            }
            "as_pattern" | "named_expression" | "global_statement" | "nonlocal_statement" => {
                self.record_bindings(node)
            }
            "import_statement" | "import_from_statement" => {
                let scope = self.current().function.id.clone();
                let found = imports::imports(&self.source, node, &scope);
                self.imports.extend(found);
            }
            "yield" => self.mark_generator(),
            "return_statement" => self.record_returned(node),
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => {
                let whole = self.relative(range(node));
                Arc::make_mut(&mut self.current().function.syntax)
                    .comprehensions
                    .push(whole);
            }
            _ => {}
        }
        if matches!(node.kind(), "for_statement" | "while_statement") {
            self.add_loop(node);
        }
        if node.kind() == "for_statement" {
            self.record_bindings(node);
        }
        self.record_seeds(node);
        true
    }

    fn exit(&mut self, node: Node<'_>) {
        if node.is_error() {
            self.error_depth -= 1;
        }
        if self.scopes.len() > 1 && self.scope().node == node.id() {
            self.scopes.pop();
        }
    }
}

fn is_definition(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "function_definition" | "class_definition" | "decorated_definition"
    )
}

/// `a.b.c` when the node is a chain of attribute accesses on a name.
fn dotted_name(source: &Source<'_>, node: Node<'_>) -> Option<String> {
    let mut parts = vec![];
    let mut node = node;
    loop {
        match node.kind() {
            "identifier" => {
                parts.push(source.text(node));
                break;
            }
            "attribute" => {
                parts.push(source.text(node.child_by_field_name("attribute")?));
                node = node.child_by_field_name("object")?;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}
