//! Small read-only helpers over tree-sitter nodes and the source text they index: node text,
//! ranges, whitespace-collapsed text, token streams, syntax-error messages, and the node kinds
//! the lowering acts on.

use crate::text::TextRange;
use tree_sitter::Node;

pub(super) struct Source<'a> {
    pub text: &'a str,
}

impl<'a> Source<'a> {
    pub fn text(&self, node: Node<'_>) -> &'a str {
        &self.text[node.byte_range()]
    }

    /// The node's text with every run of whitespace (line breaks and `\` continuations
    /// included) collapsed to one space.
    pub fn collapsed(&self, node: Node<'_>) -> String {
        collapse_whitespace(self.text(node))
    }

    /// FNV-1a hash of the token texts under `node`, each followed by a separator, comments
    /// dropped; subtrees for which `skip` answers true are left out.
    pub fn token_hash(&self, node: Node<'_>, skip: &dyn Fn(Node<'_>) -> bool) -> u64 {
        self.token_hash_from(TOKEN_HASH_START, node, skip)
    }

    /// [`Self::token_hash`] continued from `hash`, the hash of the tokens before `node`.
    pub fn token_hash_from(
        &self,
        hash: u64,
        node: Node<'_>,
        skip: &dyn Fn(Node<'_>) -> bool,
    ) -> u64 {
        struct Tokens<'s, 'a> {
            source: &'s Source<'a>,
            skip: &'s dyn Fn(Node<'_>) -> bool,
            hash: u64,
        }
        impl Visit for Tokens<'_, '_> {
            fn enter(&mut self, n: Node<'_>) -> bool {
                if (self.skip)(n) || n.kind() == "comment" {
                    return false;
                }
                if n.child_count() == 0 || is_atomic_token(n) {
                    for &b in self.source.text(n).as_bytes().iter().chain(&[0xff]) {
                        self.hash ^= u64::from(b);
                        self.hash = self.hash.wrapping_mul(0x0000_0100_0000_01b3);
                    }
                    return false;
                }
                true
            }
        }
        let mut tokens = Tokens {
            source: self,
            skip,
            hash,
        };
        walk(node, &mut tokens);
        tokens.hash
    }
}

/// The hash of no tokens (FNV-1a's offset basis).
pub(super) const TOKEN_HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

/// A pre-order visitor with exit events, driven by [`walk`] without recursion, so that deeply
/// nested source cannot overflow the stack.
pub(super) trait Visit {
    /// Called on entering a node; answer whether to visit its children.
    fn enter(&mut self, node: Node<'_>) -> bool;
    /// Called when a node and everything under it has been visited.
    fn exit(&mut self, _node: Node<'_>) {}
}

pub(super) fn walk(root: Node<'_>, visitor: &mut dyn Visit) {
    let mut cursor = root.walk();
    'outer: loop {
        let node = cursor.node();
        if visitor.enter(node) && cursor.goto_first_child() {
            continue;
        }
        visitor.exit(node);
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() {
                return;
            }
            visitor.exit(cursor.node());
        }
    }
}

/// String contents are kept whole so that `"a  b"` and `"a b"` stay different.
fn is_atomic_token(node: Node<'_>) -> bool {
    matches!(node.kind(), "string_content" | "escape_sequence")
}

pub(super) fn range(node: Node<'_>) -> TextRange {
    TextRange::new(node.start_byte() as u32, node.end_byte() as u32)
}

pub(super) fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('\n' | '\r')) {
            pending_space = true;
            continue;
        }
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// The unnamed children of `node` of the given kind (keywords and punctuation).
pub(super) fn token_child<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).find(|c| c.kind() == kind)
}

/// The named children of a node, without extras (comments, `\` line continuations).
pub(super) fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !c.is_extra())
        .collect()
}

/// The message for an ERROR or MISSING node.
pub(super) fn syntax_error_message(source: &Source<'_>, node: Node<'_>) -> String {
    if node.is_missing() {
        let kind = node.kind();
        return if kind.chars().all(|c| c.is_alphanumeric() || c == '_') && kind.len() > 1 {
            format!("expected {}", kind.replace('_', " "))
        } else {
            format!("expected `{kind}`")
        };
    }
    let mut first = node;
    while let Some(child) = first.child(0) {
        first = child;
    }
    let text = source.text(first).lines().next().unwrap_or("").trim();
    if text.is_empty() {
        "invalid syntax".to_owned()
    } else {
        let shown: String = text.chars().take(24).collect();
        let ellipsis = if text.chars().count() > 24 { "…" } else { "" };
        format!("invalid syntax: unexpected `{shown}{ellipsis}`")
    }
}

/// The node kinds the walk acts on, by numeric ID: most nodes (names, operators, punctuation)
/// are passed over without looking at their kind's name.
pub(super) struct KindSet(Vec<bool>);

impl KindSet {
    const NAMES: &'static [&'static str] = &[
        "function_definition",
        "class_definition",
        "if_statement",
        "elif_clause",
        "while_statement",
        "conditional_expression",
        "if_clause",
        "assert_statement",
        "boolean_operator",
        "comparison_operator",
        "call",
        "attribute",
        "assignment",
        "augmented_assignment",
        "delete_statement",
        "import_statement",
        "import_from_statement",
        "for_statement",
        "list_comprehension",
        "set_comprehension",
        "dictionary_comprehension",
        "generator_expression",
        "yield",
        "as_pattern",
        "named_expression",
        "global_statement",
        "nonlocal_statement",
        "return_statement",
        "except_clause",
        "except_group_clause",
    ];

    /// The kinds only the generator's seeds are read from (see `seeds`).
    const SEED_NAMES: &'static [&'static str] = &[
        "string",
        "integer",
        "identifier",
        "keyword_argument",
        "lambda",
        "subscript",
        "not_operator",
        "for_in_clause",
    ];

    /// The kinds the lowering looks at; with the seeds' too when `seeds`.
    pub(super) fn get(seeds: bool) -> &'static KindSet {
        static STRUCTURE: std::sync::OnceLock<KindSet> = std::sync::OnceLock::new();
        static WITH_SEEDS: std::sync::OnceLock<KindSet> = std::sync::OnceLock::new();
        let build = |names: &[&[&str]]| {
            let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
            let mut set = vec![false; language.node_kind_count()];
            for id in 0..language.node_kind_count() as u16 {
                if language
                    .node_kind_for_id(id)
                    .is_some_and(|name| names.iter().any(|n| n.contains(&name)))
                {
                    set[id as usize] = true;
                }
            }
            KindSet(set)
        };
        if seeds {
            WITH_SEEDS.get_or_init(|| build(&[Self::NAMES, Self::SEED_NAMES]))
        } else {
            STRUCTURE.get_or_init(|| build(&[Self::NAMES]))
        }
    }

    pub(super) fn contains(&self, id: u16) -> bool {
        self.0.get(id as usize).copied().unwrap_or(false)
    }
}

/// `a.b.c` when the node is a chain of attribute accesses on a name.
pub(super) fn dotted_name(source: &Source<'_>, node: Node<'_>) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::collapse_whitespace;

    #[test]
    fn collapses_whitespace_and_continuations() {
        assert_eq!(collapse_whitespace("a  >\n   10"), "a > 10");
        assert_eq!(collapse_whitespace("a and \\\n  b"), "a and b");
        assert_eq!(collapse_whitespace("  x "), "x");
    }
}
