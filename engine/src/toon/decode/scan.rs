//! Byte-level scanning for the TOON decoder: lines, quote-aware searches, cells, tokens.
//!
//! Every target byte is ASCII, and ASCII bytes never occur inside a multi-byte UTF-8
//! sequence, so every offset found here is a character boundary of the (validated) input.

use memchr::{memchr, memchr2};

/// `true`, `false`, `null`, a number, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Literal {
    True,
    False,
    Null,
    /// An integer lexeme `-?(0|[1-9][0-9]*)`.
    Int,
    /// Any other token of the TOON number grammar.
    Float,
    /// Not a literal: the token is a string.
    Str,
}

/// Classifies an unquoted, space-trimmed token (TOON §4). The number grammar is
/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` with ASCII digits only; anything else
/// (`05`, `.5`, `1.`, `+1`, `0x10`, `Infinity`, `True`) is a string.
pub(crate) fn classify(tok: &[u8]) -> Literal {
    match tok {
        b"true" => return Literal::True,
        b"false" => return Literal::False,
        b"null" => return Literal::Null,
        _ => {}
    }
    let mut i = usize::from(tok.first() == Some(&b'-'));
    let int_start = i;
    while i < tok.len() && tok[i].is_ascii_digit() {
        i += 1;
    }
    if i == int_start || (tok[int_start] == b'0' && i - int_start > 1) {
        return Literal::Str;
    }
    if i == tok.len() {
        return Literal::Int;
    }
    if tok[i] == b'.' {
        i += 1;
        let frac = i;
        while i < tok.len() && tok[i].is_ascii_digit() {
            i += 1;
        }
        if i == frac {
            return Literal::Str;
        }
    }
    if i < tok.len() && (tok[i] == b'e' || tok[i] == b'E') {
        i += 1;
        if i < tok.len() && (tok[i] == b'+' || tok[i] == b'-') {
            i += 1;
        }
        let exp = i;
        while i < tok.len() && tok[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp {
            return Literal::Str;
        }
    }
    if i == tok.len() {
        Literal::Float
    } else {
        Literal::Str
    }
}

/// Trims U+0020 (and only U+0020: tabs and NBSP are content, TOON §12) from both ends of
/// `src[s..e]`.
#[inline]
pub(crate) fn trim_spaces(src: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && src[s] == b' ' {
        s += 1;
    }
    while e > s && src[e - 1] == b' ' {
        e -= 1;
    }
    (s, e)
}

/// Offset of the first `target` in `src[from..to]` outside quote spans.
///
/// A `"` anywhere (also mid-token) opens or closes a quote span; inside one, a backslash
/// escapes the next byte. A search starts outside quotes at `from`.
pub(crate) fn find_unquoted(src: &[u8], from: usize, to: usize, target: u8) -> Option<usize> {
    let mut i = from;
    let mut in_quotes = false;
    while i < to {
        if in_quotes {
            let j = i + memchr2(b'"', b'\\', &src[i..to])?;
            if src[j] == b'\\' {
                i = (j + 2).min(to);
            } else {
                in_quotes = false;
                i = j + 1;
            }
        } else {
            let j = i + memchr2(target, b'"', &src[i..to])?;
            if src[j] == target {
                return Some(j);
            }
            in_quotes = true;
            i = j + 1;
        }
    }
    None
}

/// Offset of the quote closing the one at `src[open]`, within `src[..to]`.
pub(crate) fn closing_quote(src: &[u8], open: usize, to: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < to {
        let j = i + memchr2(b'"', b'\\', &src[i..to])?;
        if src[j] == b'"' {
            return Some(j);
        }
        i = j + 2;
    }
    None
}

/// Walks `src[from..to]` outside quote spans (inside quotes a `\\` skips the next byte),
/// keeping the `{`/`}` nesting depth, and returns the first offset whose byte, with the depth
/// after that byte, satisfies `stop`.
#[inline]
fn scan_braces(
    src: &[u8],
    from: usize,
    to: usize,
    stop: impl Fn(u8, usize) -> bool,
) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_quotes = false;
    let mut i = from;
    while i < to {
        let b = src[i];
        if in_quotes {
            if b == b'\\' {
                i += 1;
            } else if b == b'"' {
                in_quotes = false;
            }
        } else if b == b'"' {
            in_quotes = true;
        } else {
            match b {
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
            if stop(b, depth) {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// Offset of the `}` matching the `{` at `src[open]` (quote-aware), within `src[..to]`.
pub(crate) fn matching_brace(src: &[u8], open: usize, to: usize) -> Option<usize> {
    scan_braces(src, open, to, |b, depth| b == b'}' && depth == 0)
}

/// End of the field entry starting at `from`: the first `delim` at brace depth zero outside
/// quotes, or `to`.
pub(crate) fn field_entry_end(src: &[u8], from: usize, to: usize, delim: u8) -> usize {
    scan_braces(src, from, to, |b, depth| b == delim && depth == 0).unwrap_or(to)
}

/// The cells of a delimited sequence (inline array values, tabular row, entry row): split on
/// the active delimiter outside quote spans, each cell trimmed of spaces. An empty sequence
/// has no cells; otherwise `k` delimiters give `k + 1` cells.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cells {
    pos: usize,
    end: usize,
    delim: u8,
    done: bool,
    /// Cells returned so far.
    pub(crate) count: usize,
}

impl Cells {
    pub(crate) fn new(start: usize, end: usize, delim: u8) -> Cells {
        Cells {
            pos: start,
            end,
            delim,
            done: start >= end,
            count: 0,
        }
    }

    /// The next cell as a trimmed range of `src`.
    #[inline]
    pub(crate) fn next(&mut self, src: &[u8]) -> Option<(usize, usize)> {
        if self.done {
            return None;
        }
        let cell_end = match find_unquoted(src, self.pos, self.end, self.delim) {
            Some(d) => d,
            None => {
                self.done = true;
                self.end
            }
        };
        let cell = trim_spaces(src, self.pos, cell_end);
        self.pos = cell_end + 1;
        self.count += 1;
        Some(cell)
    }

    /// Counts the cells left (used on error paths only).
    pub(crate) fn count_rest(mut self, src: &[u8]) -> usize {
        let mut n = 0;
        while self.next(src).is_some() {
            n += 1;
        }
        n
    }
}

/// One structural line after the lexical pre-pass (§5.1, §12): comment and blank lines never
/// become a `Line`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line {
    /// Offset of the content (after the indentation).
    pub(crate) start: usize,
    /// End of the content: before the LF, a CR of a CRLF, and trailing spaces.
    pub(crate) end: usize,
    /// Indentation depth.
    pub(crate) depth: usize,
}

/// Why the pre-pass rejected a line (strict mode only).
#[derive(Clone, Copy, Debug)]
pub(crate) enum LineError {
    /// A tab at this offset is part of the indentation.
    Tab(usize),
    /// `spaces` of indentation, not a multiple of the indent size, before offset `at`.
    Width { spaces: usize, at: usize },
}

/// What the next raw line is.
pub(crate) enum RawLine {
    Content(Line),
    /// A blank line starting at this offset.
    Blank(usize),
    Comment,
}

/// Splits the input into lines with `memchr` and classifies them, without allocating.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    /// Offset of the next raw line; `> src.len()` once the last line was read.
    pos: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl LineSplitter {
    pub(crate) fn new() -> LineSplitter {
        LineSplitter { pos: 0 }
    }

    /// The next raw line, classified, or `None` at the end of the input.
    pub(crate) fn next(
        &mut self,
        src: &[u8],
        strict: bool,
        indent: usize,
    ) -> Option<Result<RawLine, LineError>> {
        if self.pos > src.len() {
            return None;
        }
        let line_start = self.pos;
        let (raw_end, next) = match memchr(b'\n', &src[line_start..]) {
            Some(i) => (line_start + i, line_start + i + 1),
            None => (src.len(), src.len() + 1),
        };
        self.pos = next;
        // Exactly one CR before the LF (or at the end of the input) belongs to the
        // terminator; a second one is content.
        let mut end = raw_end;
        if end > line_start && src[end - 1] == b'\r' {
            end -= 1;
        }
        let mut start = line_start;
        if start == 0 && src[..end].starts_with(BOM) {
            start = BOM.len();
        }
        // Indentation: spaces, and tabs (which strict mode rejects).
        let mut i = start;
        let mut spaces = 0usize;
        let mut tabs = 0usize;
        let mut first_tab = None;
        while i < end {
            match src[i] {
                b' ' => spaces += 1,
                b'\t' => {
                    tabs += 1;
                    first_tab.get_or_insert(i);
                }
                _ => break,
            }
            i += 1;
        }
        // Strict mode: the indentation is the spaces before the first tab, and the content
        // starts at that tab (so a tab-only line is not blank).
        let content_start = match first_tab {
            Some(t) if strict => t,
            _ => i,
        };
        let mut content_end = end;
        while content_end > content_start && src[content_end - 1] == b' ' {
            content_end -= 1;
        }
        if first_tab.is_none() && content_start < content_end && src[content_start] == b'#' {
            return Some(Ok(RawLine::Comment));
        }
        if content_start == content_end {
            return Some(Ok(RawLine::Blank(line_start)));
        }
        // Levels and the spaces left over; a shift and a mask for the usual power-of-two
        // widths (two integer divisions a line were a measurable part of decoding rows).
        let (levels, rest) = if indent.is_power_of_two() {
            (spaces >> indent.trailing_zeros(), spaces & (indent - 1))
        } else {
            (spaces / indent, spaces % indent)
        };
        let depth = if strict {
            if let Some(t) = first_tab {
                return Some(Err(LineError::Tab(t)));
            }
            if rest != 0 {
                return Some(Err(LineError::Width {
                    spaces,
                    at: content_start,
                }));
            }
            levels
        } else {
            // Non-strict (§14.4): every tab counts as one level, spaces count in units.
            levels + tabs
        };
        Some(Ok(RawLine::Content(Line {
            start: content_start,
            end: content_end,
            depth,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_grammar() {
        for t in ["0", "-0", "42", "-7", "123456789012345678901234567890"] {
            assert_eq!(classify(t.as_bytes()), Literal::Int, "{t}");
        }
        for t in ["1.5", "-1E+03", "2.5e2", "0e1", "-0.0", "3E-02", "0.5"] {
            assert_eq!(classify(t.as_bytes()), Literal::Float, "{t}");
        }
        for t in [
            "05", "-05", "01.5", ".5", "1.", "+1", "0x10", "1_000", "-", "", "1e", "1e+", "NaN",
            "True", "٤٢", "1.5x",
        ] {
            assert_eq!(classify(t.as_bytes()), Literal::Str, "{t}");
        }
        assert_eq!(classify(b"true"), Literal::True);
        assert_eq!(classify(b"null"), Literal::Null);
    }

    #[test]
    fn quote_aware_search() {
        let s = br#"a"b:c"d: 1"#;
        assert_eq!(find_unquoted(s, 0, s.len(), b':'), Some(7));
        let s = br#""a\"b:"c"#;
        assert_eq!(find_unquoted(s, 0, s.len(), b':'), None);
        assert_eq!(closing_quote(s, 0, s.len()), Some(6));
        let s = br#"{a,"}"{b}}x"#;
        assert_eq!(matching_brace(s, 0, s.len()), Some(9));
        assert_eq!(field_entry_end(s, 1, 9, b','), 2);
    }

    #[test]
    fn cells_split_and_trim() {
        let s = br#" a , "b,c" ,,d "#;
        let mut c = Cells::new(0, s.len(), b',');
        let mut out = Vec::new();
        while let Some((a, b)) = c.next(s) {
            out.push(std::str::from_utf8(&s[a..b]).unwrap());
        }
        assert_eq!(out, ["a", "\"b,c\"", "", "d"]);
        assert_eq!(Cells::new(3, 3, b',').next(s), None);
    }
}
