//! Text positions: byte ranges, the anchors functions and classes are positioned from, and the
//! line index that turns byte offsets into (line, column) pairs.
//!
//! Everything inside a function or class is stored relative to its [`Anchor`], so that editing
//! code above a function leaves the function's syntax (and every fact derived from it) unchanged.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A half-open byte range `[start, end)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: u32, end: u32) -> Self {
        debug_assert!(start <= end);
        TextRange { start, end }
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn contains_range(self, other: TextRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    pub fn contains(self, offset: u32) -> bool {
        self.start <= offset && offset < self.end
    }

    /// This range, taken as relative to `anchor`, made absolute.
    pub fn absolute(self, anchor: Anchor) -> TextRange {
        TextRange::new(self.start + anchor.offset, self.end + anchor.offset)
    }

    /// This absolute range made relative to `anchor`. `None` when it starts before the anchor.
    pub fn relative_to(self, anchor: Anchor) -> Option<TextRange> {
        Some(TextRange::new(
            self.start.checked_sub(anchor.offset)?,
            self.end.checked_sub(anchor.offset)?,
        ))
    }
}

impl fmt::Debug for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Where a function or class starts in its file: the byte offset and the 0-based line of its
/// first token (the first decorator when it has any).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct Anchor {
    pub offset: u32,
    pub line: u32,
}

/// A 0-based line and a 0-based column counted in UTF-8 bytes (the unit of tree-sitter and of
/// CPython's `co_positions()`).
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default, Serialize, Deserialize,
)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Line starts of one text, for converting between byte offsets and line/column positions.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LineIndex {
    starts: Vec<u32>,
    len: u32,
}

/// The index of an empty text: one line.
impl Default for LineIndex {
    fn default() -> Self {
        LineIndex::new("")
    }
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        // Lines end at `\n`, `\r\n` or a lone `\r`, as in Python and the LSP.
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
                .map(|(i, _)| i as u32 + 1),
        );
        starts.shrink_to_fit();
        LineIndex {
            starts,
            len: text.len() as u32,
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The position of a byte offset. Offsets past the end clamp to the end.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        LineCol {
            line: line as u32,
            col: offset - self.starts[line],
        }
    }

    /// The byte offset of a position; `None` when the line does not exist. Columns past the end
    /// of the line clamp to the line's end.
    pub fn offset(&self, pos: LineCol) -> Option<u32> {
        let start = *self.starts.get(pos.line as usize)?;
        let next = self
            .starts
            .get(pos.line as usize + 1)
            .copied()
            .unwrap_or(self.len);
        Some((start + pos.col).min(next))
    }

    /// Each line of `text` (the text this index was built from) with its 0-based number, its
    /// line break left out: the lines every position of the index counts (a lone `\r` ends
    /// one, as it does for Python).
    pub fn lines<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (u32, &'a str)> + 'a {
        (0..self.starts.len() as u32).filter_map(move |i| {
            let range = self.line_range(i)?;
            let line = text.get(range.start as usize..range.end as usize)?;
            Some((i, line.trim_end_matches(['\n', '\r'])))
        })
    }

    /// The byte range of a line, including its line break.
    pub fn line_range(&self, line: u32) -> Option<TextRange> {
        let start = *self.starts.get(line as usize)?;
        let end = self
            .starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.len);
        Some(TextRange::new(start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_round_trips() {
        let text = "ab\ncdé\n\nx";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() as u32 {
            let pos = index.line_col(offset);
            assert_eq!(index.offset(pos), Some(offset), "{offset} -> {pos:?}");
        }
        assert_eq!(index.line_col(3), LineCol { line: 1, col: 0 });
        assert_eq!(index.line_col(8), LineCol { line: 2, col: 0 });
        assert_eq!(index.line_count(), 4);
    }

    #[test]
    fn empty_index_answers() {
        let index = LineIndex::default();
        assert_eq!(index.line_col(0), LineCol { line: 0, col: 0 });
        assert_eq!(index.line_col(7), LineCol { line: 0, col: 0 });
        assert_eq!(index.line_count(), 1);
    }

    #[test]
    fn relative_ranges_survive_moves() {
        let anchor = Anchor {
            offset: 100,
            line: 7,
        };
        let abs = TextRange::new(120, 130);
        let rel = abs.relative_to(anchor).unwrap();
        assert_eq!(rel, TextRange::new(20, 30));
        assert_eq!(rel.absolute(anchor), abs);
        assert_eq!(TextRange::new(5, 9).relative_to(anchor), None);
    }
}
