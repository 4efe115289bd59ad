//! Parsing a large file in parts: tree-sitter's tree costs about 46 bytes per byte of source, so
//! a file past [`PART_BYTES`] is parsed one run of top-level statements at a time (tree-sitter's
//! included ranges keep every offset and position those of the whole file) and each part is
//! lowered, then dropped, before the next is parsed.
//!
//! A part is cut at the start of a top-level statement, at column 0, that follows only complete,
//! error-free statements in a parse of a longer stretch; the text before the cut is then parsed
//! on its own and kept only if it, too, is error-free statements and nothing else. A cut inside
//! a string or brackets leaves them open before it, so that check refuses it; a cut before
//! `else:` cannot happen, as `else:` starts no statement. What the byte limit cut through is
//! parsed again at the start of the next part. On a file without syntax errors the result is the
//! whole file's parse, exactly (`tests/parts.rs` holds that on real code).

use tree_sitter::{InputEdit, Node, Parser, Point, Range, Tree};

/// Files larger than this are parsed in parts of about this size.
pub const PART_BYTES: usize = 256 << 10;

/// How far a part may grow while no clean cut is found (a syntax error, or one statement this
/// long), before it is cut where a statement starts, errors or not: this many times the part
/// size, and at least [`MIN_FORCED_BYTES`].
const MAX_GROWTH: usize = 4;
const MIN_FORCED_BYTES: usize = 1 << 20;

/// How many cuts are tried, latest first, before the part grows (or, past the growth limit,
/// the latest is taken, clean or not).
const CUTS_TRIED: usize = 3;

/// One part's tree: every statement (and comment) under its root belongs to the part.
pub(super) struct Part {
    pub tree: Tree,
}

impl Part {
    /// The part's top-level statements and comments; the root itself when it is not a module
    /// (the last part, given up by tree-sitter as one error).
    pub fn statements(&self) -> Vec<Node<'_>> {
        let root = self.tree.root_node();
        if !is_module(root) {
            return vec![root];
        }
        let mut cursor = root.walk();
        root.children(&mut cursor).collect()
    }
}

/// Parses `text` in parts of about `part_bytes`, handing each part to `lower` in order.
/// Answers `false` when the parser gave up.
pub(super) fn parse_in_parts(
    parser: &mut Parser,
    text: &str,
    part_bytes: usize,
    mut lower: impl FnMut(&Part),
) -> bool {
    let parsed = parse_parts(parser, text, part_bytes.max(1), &mut lower);
    // The parser is shared: it parses whole files again after this.
    let _ = parser.set_included_ranges(&[]);
    parsed.is_some()
}

fn parse_parts(
    parser: &mut Parser,
    text: &str,
    part_bytes: usize,
    lower: &mut dyn FnMut(&Part),
) -> Option<()> {
    let mut start = (0usize, Point { row: 0, column: 0 });
    let mut size = part_bytes;
    let forced_at = part_bytes.saturating_mul(MAX_GROWTH).max(MIN_FORCED_BYTES);
    loop {
        let end = line_end_after(text, start.0 + size);
        let end_point = super::edits::point_after(text, start.0, start.1, end);
        let tree = parse_range(parser, text, start, (end, end_point), None)?;
        if end == text.len() {
            lower(&Part { tree });
            return Some(());
        }
        let forced = size >= forced_at;
        let mut fallback = None;
        for cut in cuts(tree.root_node(), forced) {
            // The text before the cut parsed again on its own, reusing what of the longer
            // parse the cut does not touch.
            let mut shortened = tree.clone();
            shortened.edit(&InputEdit {
                start_byte: cut.0,
                old_end_byte: end,
                new_end_byte: cut.0,
                start_position: cut.1,
                old_end_position: end_point,
                new_end_position: cut.1,
            });
            let before = parse_range(parser, text, start, cut, Some(&shortened))?;
            if is_clean(before.root_node()) {
                fallback = Some((cut, before));
                break;
            }
            if forced && fallback.is_none() {
                fallback = Some((cut, before));
            }
        }
        // Only one tree at a time.
        drop(tree);
        if let Some((cut, before)) = fallback {
            lower(&Part { tree: before });
            start = cut;
            size = part_bytes;
            continue;
        }
        // No clean cut in this stretch: a longer one.
        size = size.saturating_mul(2);
    }
}

fn parse_range(
    parser: &mut Parser,
    text: &str,
    (start_byte, start_point): (usize, Point),
    (end_byte, end_point): (usize, Point),
    old: Option<&Tree>,
) -> Option<Tree> {
    let range = Range {
        start_byte,
        end_byte,
        start_point,
        end_point,
    };
    parser.set_included_ranges(&[range]).ok()?;
    parser.parse(text, old)
}

/// Where a part may end, latest first: the starts of top-level statements at column 0 that
/// follow only error-free statements (any statement with `forced`), never the first one, never
/// a comment (a comment at column 0 can sit inside an indented body).
fn cuts(root: Node<'_>, forced: bool) -> Vec<(usize, Point)> {
    // An ERROR root's children are tokens and pieces, not statements.
    if !is_module(root) {
        return vec![];
    }
    let mut cursor = root.walk();
    let children: Vec<Node<'_>> = root.children(&mut cursor).collect();
    let first_error = children
        .iter()
        .position(|c| c.has_error())
        .unwrap_or(children.len());
    let limit = if forced {
        children.len()
    } else {
        first_error + 1
    }
    .min(children.len());
    children[..limit]
        .iter()
        .skip(1)
        .rev()
        .filter(|c| c.is_named() && !c.is_extra() && c.start_position().column == 0)
        .take(CUTS_TRIED)
        .map(|c| (c.start_byte(), c.start_position()))
        .collect()
}

/// A module of complete statements, not one error among them.
fn is_clean(root: Node<'_>) -> bool {
    is_module(root) && !root.has_error()
}

fn is_module(node: Node<'_>) -> bool {
    node.kind() == "module"
}

/// The offset just past the first line break at or after `at`, or the end of the text.
fn line_end_after(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    text.as_bytes()[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i + 1)
}
