//! Open documents as the editor has them: text and version, incremental edits applied in
//! order, and conversion between LSP positions and byte offsets in the negotiated encoding
//! (UTF-8 when the client offers it, UTF-16 otherwise, as the protocol requires).

use lacuna_grammar::{LineCol, LineIndex, TextRange};
use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// A text with its line index: everything needed to convert positions.
#[derive(Clone, Debug)]
pub struct Text {
    pub text: String,
    pub lines: LineIndex,
}

impl Text {
    pub fn new(text: String) -> Text {
        let lines = LineIndex::new(&text);
        Text { text, lines }
    }

    /// The byte offset of an LSP position, clamped to the text.
    pub fn offset(&self, pos: Position, encoding: Encoding) -> u32 {
        let Some(line) = self.lines.line_range(pos.line) else {
            return self.text.len() as u32;
        };
        // A character past the line's end is its end, before the line break (LSP: "defaults
        // back to the line length").
        let content =
            self.text[line.start as usize..line.end as usize].trim_end_matches(['\n', '\r']);
        let col = match encoding {
            Encoding::Utf8 => (pos.character as usize).min(content.len()),
            Encoding::Utf16 => {
                let mut units = 0;
                let mut bytes = content.len();
                for (i, c) in content.char_indices() {
                    if units >= pos.character as usize {
                        bytes = i;
                        break;
                    }
                    units += c.len_utf16();
                }
                bytes
            }
        };
        self.lines
            .offset(LineCol {
                line: pos.line,
                col: col as u32,
            })
            .unwrap_or(self.text.len() as u32)
    }

    pub fn position(&self, offset: u32, encoding: Encoding) -> Position {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len() as u32) as usize);
        let lc = self.lines.line_col(offset as u32);
        let character = match encoding {
            Encoding::Utf8 => lc.col,
            Encoding::Utf16 => {
                let start = offset - lc.col as usize;
                self.text[start..offset].encode_utf16().count() as u32
            }
        };
        Position::new(lc.line, character)
    }

    pub fn range(&self, range: TextRange, encoding: Encoding) -> Range {
        Range::new(
            self.position(range.start, encoding),
            self.position(range.end, encoding),
        )
    }

    pub fn text_range(&self, range: Range, encoding: Encoding) -> TextRange {
        let start = self.offset(range.start, encoding);
        let end = self.offset(range.end, encoding).max(start);
        TextRange::new(start, end)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// An open document.
#[derive(Clone, Debug)]
pub struct Document {
    pub text: Text,
    pub version: i32,
}

impl Document {
    /// Applies the edits of one `didChange`, in order (each is relative to the text the
    /// previous one produced).
    pub fn apply(
        &mut self,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
        encoding: Encoding,
    ) {
        for change in changes {
            match change.range {
                None => self.text = Text::new(change.text),
                Some(range) => {
                    let r = self.text.text_range(range, encoding);
                    let mut text = std::mem::take(&mut self.text.text);
                    text.replace_range(r.start as usize..r.end as usize, &change.text);
                    self.text = Text::new(text);
                }
            }
        }
        self.version = version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_count_surrogate_pairs() {
        let t = Text::new("x = '𝄞é'\ny = 1\n".to_owned());
        // The closing `'`: 5 (`x = '`) + 2 (the clef, a surrogate pair) + 1 (é) = 8 UTF-16 units.
        let quote = t.text.rfind('\'').unwrap() as u32;
        assert_eq!(t.position(quote, Encoding::Utf16), Position::new(0, 8));
        assert_eq!(t.offset(Position::new(0, 8), Encoding::Utf16), quote);
        assert_eq!(t.position(quote, Encoding::Utf8), Position::new(0, quote));
        assert_eq!(
            t.offset(Position::new(1, 4), Encoding::Utf16),
            t.text.len() as u32 - 2
        );
    }

    #[test]
    fn a_character_past_the_end_of_a_line_is_its_end_before_the_line_break() {
        let t = Text::new("ab\r\ncd\n\re".to_owned());
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            assert_eq!(t.offset(Position::new(0, 99), encoding), 2);
            assert_eq!(t.offset(Position::new(1, 99), encoding), 6);
            assert_eq!(t.offset(Position::new(2, 99), encoding), 7);
            assert_eq!(t.offset(Position::new(3, 99), encoding), 9);
            assert_eq!(t.offset(Position::new(9, 0), encoding), 9);
        }
    }

    #[test]
    fn incremental_edits_apply_in_order() {
        let mut d = Document {
            text: Text::new("def f(x):\n    return x\n".to_owned()),
            version: 1,
        };
        let edit = |l1, c1, l2, c2, s: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: s.to_owned(),
        };
        d.apply(
            vec![edit(1, 11, 1, 12, "x + 1"), edit(0, 6, 0, 7, "y, x")],
            2,
            Encoding::Utf16,
        );
        assert_eq!(d.text.text, "def f(y, x):\n    return x + 1\n");
        assert_eq!(d.version, 2);
    }
}
