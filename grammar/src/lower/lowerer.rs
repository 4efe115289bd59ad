//! The walk's state: a builder for each function and class met so far, the stack of scopes, and
//! the syntax errors; its [`Visit`] impl hands each node to what records it ([`super::body`],
//! [`super::scopes`], [`super::seeds`]), and [`Lowerer::finish`] assembles the module.

use super::compact::Compact;
use super::source::{self, KindSet, Source, Visit, range};
use super::{Asked, Lowered, definitions, flow, imports, seeds};
use crate::decision::DecisionKind;
use crate::flow::ModuleFlow;
use crate::ids::FunctionId;
use crate::syntax::*;
use crate::text::{Anchor, TextRange};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use tree_sitter::Node;

/// Most syntax errors reported for one file; past this, the rest add nothing.
const MAX_SYNTAX_ERRORS: usize = 50;

pub(super) struct FunctionBuilder {
    pub(super) function: Function,
    /// Occurrences of each (kind, text) so far, for decision IDs.
    pub(super) decision_keys: FxHashMap<(DecisionKind, String), u32>,
    /// The receiver's name and the class, for methods (and functions nested in them).
    pub(super) receiver: Option<(String, usize)>,
    /// What its code says of the generator's seeds, when they are recorded.
    pub(super) recording: seeds::Recording,
    /// Its local names that hold a field of the receiver, as the walk has reached them.
    pub(super) aliases: definitions::FieldAliases,
}

impl FunctionBuilder {
    pub(super) fn new(
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

pub(super) struct ClassBuilder {
    pub(super) class: Class,
}

pub(super) struct Scope {
    pub(super) node: usize,
    pub(super) function: usize,
    /// Prefix of the qualified names of definitions directly inside.
    pub(super) prefix: String,
    /// Set for a class body: the class's index.
    pub(super) class: Option<usize>,
}

pub(super) struct Lowerer<'a> {
    pub(super) source: Source<'a>,
    pub(super) functions: Vec<FunctionBuilder>,
    pub(super) classes: Vec<ClassBuilder>,
    pub(super) imports: Vec<Import>,
    pub(super) scopes: Vec<Scope>,
    /// `and`/`or`/`not`/parenthesis nodes that are structure of a decision already lowered.
    pub(super) structural: FxHashSet<usize>,
    pub(super) errors: Vec<SyntaxError>,
    /// Whole ranges of the outermost ERROR nodes, for recovery.
    pub(super) error_regions: Vec<TextRange>,
    pub(super) error_depth: usize,
    pub(super) qualnames: FxHashMap<String, u32>,
    pub(super) interesting: &'static KindSet,
    /// The recording of the generator's seeds ([`seeds`]), when asked for.
    pub(super) seeds: Option<seeds::SeedState>,
    /// The flow facts of the functions met so far ([`flow`]), when asked for.
    pub(super) flow: Option<ModuleFlow>,
}

impl<'a> Lowerer<'a> {
    /// A lowerer for `text`, whose module spans `module` with the given token hash.
    /// With `asked`, the generator's seeds or the flow facts are recorded too.
    pub(super) fn new(text: &'a str, module: TextRange, text_hash: u64, asked: Asked) -> Self {
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
    pub(super) fn record_module_flow(&mut self, statements: Vec<Node<'_>>) {
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

    pub(super) fn scope(&self) -> &Scope {
        self.scopes
            .last()
            .expect("the module scope is never popped")
    }

    pub(super) fn current(&mut self) -> &mut FunctionBuilder {
        let index = self.scope().function;
        &mut self.functions[index]
    }

    pub(super) fn unique_id(&mut self, qualname: &Arc<str>) -> FunctionId {
        let count = self.qualnames.entry(qualname.to_string()).or_insert(0);
        *count += 1;
        if *count == 1 {
            FunctionId(qualname.clone())
        } else {
            FunctionId::new(format!("{qualname}#{count}"))
        }
    }

    /// A range of the current function, relative to its anchor.
    pub(super) fn relative(&mut self, r: TextRange) -> TextRange {
        let anchor = self.current().function.anchor.offset;
        TextRange::new(r.start.saturating_sub(anchor), r.end.saturating_sub(anchor))
    }

    /// The module, with the seeds or the flow facts when they were recorded.
    pub(super) fn finish(mut self) -> Lowered {
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
            "except_clause" | "except_group_clause" => self.add_handler(node),
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
