//! Text as tree-sitter reads it, and edits between versions: a lone `\r` read as the line break
//! Python reads, the edit that turns one version of a file into the next, and the point after
//! a stretch of text.

/// `text` as tree-sitter should read it: Python reads a lone `\r` as a line break (as the LSP
/// does), tree-sitter's grammar does not, so each becomes `\n` — byte for byte, every offset
/// stays the same. Borrowed when there is none.
pub(super) fn lone_cr_as_newline(text: &str) -> std::borrow::Cow<'_, str> {
    if has_lone_cr(text) {
        std::borrow::Cow::Owned(without_lone_cr(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

pub(super) fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// `text` with every `\r` not followed by `\n` replaced by `\n`.
pub(super) fn without_lone_cr(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            out.push_str(&text[start..i]);
            out.push('\n');
            start = i + 1;
        }
    }
    out.push_str(&text[start..]);
    out
}

/// The single edit turning `old` into `new`: their common prefix and suffix are kept.
pub(super) fn text_edit(old: &str, new: &str) -> tree_sitter::InputEdit {
    let (o, n) = (old.as_bytes(), new.as_bytes());
    let mut prefix = o.iter().zip(n).take_while(|(a, b)| a == b).count();
    while !new.is_char_boundary(prefix) || !old.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = o.len().min(n.len()) - prefix;
    let suffix = o
        .iter()
        .rev()
        .zip(n.iter().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    let mut suffix = suffix;
    while !old.is_char_boundary(o.len() - suffix) || !new.is_char_boundary(n.len() - suffix) {
        suffix -= 1;
    }
    let point = |text: &str, offset: usize| {
        point_after(text, 0, tree_sitter::Point { row: 0, column: 0 }, offset)
    };
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: o.len() - suffix,
        new_end_byte: n.len() - suffix,
        start_position: point(old, prefix),
        old_end_position: point(old, o.len() - suffix),
        new_end_position: point(new, n.len() - suffix),
    }
}

/// The position of byte `end`, counted from `start` at `from`.
pub(super) fn point_after(
    text: &str,
    start: usize,
    from: tree_sitter::Point,
    end: usize,
) -> tree_sitter::Point {
    let bytes = &text.as_bytes()[start..end];
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => tree_sitter::Point {
            row: from.row + bytes.iter().filter(|&&b| b == b'\n').count(),
            column: bytes.len() - last - 1,
        },
        None => tree_sitter::Point {
            row: from.row,
            column: from.column + bytes.len(),
        },
    }
}
