//! Lowering: one walk over the tree-sitter tree that builds the typed [`Module`] view (and, when
//! asked, the generator's seeds, [`seeds`], or the explanations' flow facts, [`flow`]).
//!
//! The walk is iterative (see [`source::walk`]) and every recursive step on expressions is
//! bounded, so no input — however deeply nested — can overflow the stack. Code inside ERROR
//! nodes is still modelled; the error itself is reported once, at its outermost node.
//!
//! The entry points live here; [`lowerer`] holds the walk's state and hands each node on,
//! [`body`] records what a function's body holds, [`scopes`] enters definitions.

mod body;
mod compact;
mod decisions;
mod definitions;
mod edits;
mod flow;
mod imports;
mod literal;
mod lowerer;
pub mod outline;
mod parts;
mod readable;
mod recover;
mod scopes;
mod seeds;
pub use seeds::MAX_SEED_STRING;
mod source;

use crate::flow::ModuleFlow;
use crate::syntax::*;
use crate::text::TextRange;
use edits::{lone_cr_as_newline, text_edit};
use lowerer::{ClassBuilder, FunctionBuilder, Lowerer, Scope};
use recover::finish_and_recover;
use source::{Source, range};
use std::cell::RefCell;
use std::sync::Arc;
use tree_sitter::{Node, Parser};

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

fn is_definition(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "function_definition" | "class_definition" | "decorated_definition"
    )
}
