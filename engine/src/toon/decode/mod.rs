//! TOON 4.4 decoder: TOON text (bytes) to a [`Doc`].
//!
//! The decoder reads the input line by line (lines found with `memchr`, never copied), keeps
//! one line of lookahead, and builds the document tape directly with a
//! [`DocBuilder`](crate::doc::DocBuilder). Unquoted strings, keys and integer lexemes are
//! spans borrowed from the input; only quoted strings with escapes are unescaped, through one
//! reused scratch buffer, into the document heap.
//!
//! # Strict and lenient mode
//!
//! Strict mode (the default, [`DecodeOptions::strict`]) enforces every rule of the spec's
//! §14 checklist. Lenient mode (`.strict(false)`) applies exactly the five recoveries of
//! §14.4 and nothing more:
//!
//! 1. declared lengths (`[N]`, `[N:]`) are not checked: every item, row or entry in the scope
//!    is kept, more or fewer than `N` (a row's cell count is still checked);
//! 2. indentation need not be a multiple of the indent size, and tabs may indent (each tab
//!    counts as one level; spaces count in whole indent units);
//! 3. blank lines inside an array's span are ignored (strict: an error);
//! 4. duplicate keys (sibling keys, entry keys, field names of a header) resolve as
//!    last-write-wins at the first key's position (strict: an error);
//! 5. the first line of a nested scope may sit deeper than one level; the scope adopts its
//!    depth (strict: an error).
//!
//! Every other malformed input is an error in both modes (bad headers, bad escapes, missing
//! colons, over-indented lines, trailing content after a root array, ...).
//!
//! # Errors
//!
//! Every error carries a line and column (1-based, column in bytes) and a stable
//! [`Category`]:
//!
//! * [`Category::Utf8`]: the input is not UTF-8 (positioned at the first bad byte; nothing is
//!   ever replaced by U+FFFD);
//! * [`Category::Count`]: a declared length or a header's field count does not match
//!   (`expected 3 list items, found 2`);
//! * [`Category::Indent`]: tabs in indentation, a width that is not a multiple of the indent
//!   size, an over-indented line or a depth jump;
//! * [`Category::Depth`]: containers nested deeper than [`DecodeOptions::max_depth`];
//! * [`Category::Number`]: a number outside the f64 range (`1e400`);
//! * [`Category::Eof`]: a quoted string still open at the very end of the input;
//! * [`Category::Syntax`]: everything else.
//!
//! # Numbers
//!
//! Tokens of the TOON number grammar become numbers: integer lexemes keep every digit
//! (`123456789012345678901234567890` stays exact), other numbers become the nearest f64, and
//! one that overflows f64 is an error ([`Category::Number`]). Tokens outside the grammar
//! (`05`, `+1`, `.5`, `0x10`, `NaN`) are strings.
//!
//! # Memory and time
//!
//! Memory is the document itself (8 bytes per value) plus scratch proportional to the
//! longest quoted string and the largest header. A declared length is only ever compared,
//! never used to reserve memory, so `[999999999]:` over a few bytes of input costs nothing.
//! Recursion depth is bounded by [`DecodeOptions::max_depth`] (checked before descending);
//! every loop consumes input, so decoding is linear in the input size except for the
//! duplicate-key check of the document builder.

mod scan;

use crate::doc::{Doc, DocBuilder, KeysToken, Mark};
use crate::error::{Category, Error, Result};

use super::Delimiter;
use scan::{
    Cells, Line, LineError, LineSplitter, Literal, RawLine, classify, closing_quote,
    field_entry_end, find_unquoted, matching_brace, trim_spaces,
};

/// Options of the TOON decoder.
///
/// ```
/// use toolwire::toon::{DecodeOptions, decode};
///
/// let doc = decode(b"a:\n    b: 1", &DecodeOptions::new().indent(4)).unwrap();
/// assert_eq!(format!("{:?}", doc.root()), r#"{"a": {"b": 1}}"#);
/// ```
#[derive(Clone, Debug)]
pub struct DecodeOptions {
    strict: bool,
    indent: usize,
    max_depth: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions::new()
    }
}

impl DecodeOptions {
    /// Strict mode, indent size 2, at most 128 levels of nesting.
    pub fn new() -> Self {
        DecodeOptions {
            strict: true,
            indent: 2,
            max_depth: 128,
        }
    }

    /// Strict mode (`true`, the default) or the spec's lenient mode (`false`; see the module
    /// docs for exactly what it forgives).
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Spaces per indentation level (default 2). `0` is treated as `1`.
    #[must_use]
    pub fn indent(mut self, spaces: usize) -> Self {
        self.indent = spaces.max(1);
        self
    }

    /// Most levels of nested containers (default 128); deeper input is a
    /// [`Category::Depth`] error. The decoder recurses once per level, so keep this within
    /// what the thread's stack allows (a few thousand).
    #[must_use]
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels;
        self
    }

    /// Whether strict mode is on.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The indent size in spaces.
    pub fn indent_size(&self) -> usize {
        self.indent
    }

    /// The nesting limit.
    pub fn depth_limit(&self) -> usize {
        self.max_depth
    }
}

/// Decodes TOON text into a [`Doc`] that borrows from `text`.
///
/// An empty or comment-only document decodes to `{}`.
///
/// ```
/// use toolwire::toon::{DecodeOptions, decode};
///
/// let doc = decode(b"users[2]{id,name}:\n  1,Ada\n  2,Bob", &DecodeOptions::new()).unwrap();
/// assert_eq!(
///     format!("{:?}", doc.root()),
///     r#"{"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]}"#
/// );
/// let err = decode(b"tags[3]: a,b", &DecodeOptions::new()).unwrap_err();
/// assert_eq!(err.to_string(), "1:5: expected 3 inline values, found 2");
/// ```
///
/// # Errors
///
/// Any malformed input, with a position and a [`Category`] (see the module docs).
pub fn decode<'s>(text: &'s [u8], opts: &DecodeOptions) -> Result<Doc<'s>> {
    if let Err(e) = std::str::from_utf8(text) {
        return Err(Error::at(
            Category::Utf8,
            "invalid utf-8",
            text,
            e.valid_up_to(),
        ));
    }
    let mut p = Parser {
        src: text,
        // A value needs at least two bytes of input (token and separator) in most forms;
        // this is a hint, never more than the input size.
        b: DocBuilder::with_capacity(text, text.len() / 8 + 1, 0),
        lines: LineSplitter::new(),
        peeked: None,
        pending_blank: None,
        started_arrays: 0,
        arm: false,
        strict: opts.strict,
        indent: opts.indent.max(1),
        max_depth: opts.max_depth,
        depth: 0,
        scratch: Vec::new(),
        keys: Vec::new(),
        fields: Vec::new(),
        field_heap: Vec::new(),
    };
    p.document()?;
    Ok(p.b.finish())
}

/// A field name of a header: borrowed from the input or unescaped into the field heap.
#[derive(Clone, Copy, Debug)]
enum Name {
    Src(usize, usize),
    Heap(usize, usize),
}

/// One entry of a header's field list, in pre-order: a group's subfields follow it.
#[derive(Clone, Copy, Debug)]
struct Field {
    name: Name,
    /// Where the name starts in the input (for error positions).
    at: usize,
    /// Number of direct subfields; 0 for a leaf field.
    children: usize,
}

/// A parsed array header (§6). Its field list, if any, is in `Parser::fields`.
#[derive(Clone, Copy, Debug)]
struct Header {
    /// The raw key token (quoted or not), if the header has a key.
    key: Option<(usize, usize)>,
    /// Offset of `[`.
    bracket: usize,
    /// The declared length (`usize::MAX` when it does not fit).
    len: usize,
    /// The digits of the declared length.
    digits: (usize, usize),
    delim: Delimiter,
    keyed: bool,
    has_fields: bool,
    /// Top-level fields and leaf fields (cells per row).
    top_fields: usize,
    leaves: usize,
    /// Inline values after the colon, trimmed.
    inline: Option<(usize, usize)>,
}

/// What a key-value candidate line is.
enum Head {
    Header(Header),
    /// Not a header; the first unquoted colon, if any.
    Plain(Option<usize>),
}

/// The minter of the decoder's [`KeysToken`]s (an address nothing else mints with).
static ROW_KEYS: u8 = 0;

struct Parser<'s> {
    src: &'s [u8],
    b: DocBuilder<'s>,
    lines: LineSplitter,
    peeked: Option<Line>,
    /// Offset of the first blank line since the last consumed line.
    pending_blank: Option<usize>,
    /// Array scopes on the stack that consumed their first line (strict blank-line rule).
    started_arrays: usize,
    /// The next consumed line is the first one of an array scope.
    arm: bool,
    strict: bool,
    indent: usize,
    max_depth: usize,
    depth: usize,
    /// Unescaping buffer, reused.
    scratch: Vec<u8>,
    /// Raw key tokens of the open objects' members (strict mode: for duplicate-key errors).
    keys: Vec<(usize, usize)>,
    /// The field list of the current header (one tabular scope is active at a time: rows
    /// hold only primitives).
    fields: Vec<Field>,
    field_heap: Vec<u8>,
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

impl<'s> Parser<'s> {
    // ----------------------------------------------------------------------------------
    // Errors

    #[cold]
    fn err(
        &self,
        category: Category,
        msg: impl Into<std::borrow::Cow<'static, str>>,
        at: usize,
    ) -> Error {
        Error::at(category, msg, self.src, at)
    }

    #[cold]
    fn syntax(&self, msg: &'static str, at: usize) -> Error {
        self.err(Category::Syntax, msg, at)
    }

    #[cold]
    fn indent_error(&self, expected: usize, line: Line) -> Error {
        self.err(
            Category::Indent,
            format!(
                "unexpected indentation: expected depth {expected}, found {}",
                line.depth
            ),
            line.start,
        )
    }

    /// A declared length does not match: says the length as written (it may not fit usize).
    #[cold]
    fn length_error(
        &self,
        h: &Header,
        what: (&'static str, &'static str),
        found: Option<usize>,
        at: usize,
    ) -> Error {
        let expected = String::from_utf8_lossy(&self.src[h.digits.0..h.digits.1]);
        self.count_message(&expected, h.len, what, found, at)
    }

    /// A row's cell count does not match the header's leaf fields.
    #[cold]
    fn count_error(
        &self,
        expected: usize,
        what: (&'static str, &'static str),
        found: Option<usize>,
        at: usize,
    ) -> Error {
        self.count_message(&expected, expected, what, found, at)
    }

    #[cold]
    fn count_message(
        &self,
        expected: &dyn std::fmt::Display,
        n: usize,
        what: (&'static str, &'static str),
        found: Option<usize>,
        at: usize,
    ) -> Error {
        let what = plural(n, what.0, what.1);
        let msg = match found {
            Some(found) => format!("expected {expected} {what}, found {found}"),
            None => format!("expected {expected} {what}, found more"),
        };
        self.err(Category::Count, msg, at)
    }

    fn enter(&mut self, at: usize) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.err(
                Category::Depth,
                format!("expected at most {} levels of nesting", self.max_depth),
                at,
            ));
        }
        self.depth += 1;
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ----------------------------------------------------------------------------------
    // Lines

    fn peek(&mut self) -> Result<Option<Line>> {
        if self.peeked.is_none() {
            while let Some(raw) = self.lines.next(self.src, self.strict, self.indent) {
                match raw {
                    Ok(RawLine::Content(line)) => {
                        self.peeked = Some(line);
                        break;
                    }
                    Ok(RawLine::Blank(at)) => {
                        self.pending_blank.get_or_insert(at);
                    }
                    Ok(RawLine::Comment) => {}
                    Err(LineError::Tab(at)) => {
                        return Err(self.err(
                            Category::Indent,
                            "tab in indentation: expected spaces",
                            at,
                        ));
                    }
                    Err(LineError::Width { spaces, at }) => {
                        return Err(self.err(
                            Category::Indent,
                            format!(
                                "expected indentation in multiples of {} spaces, found {spaces}",
                                self.indent
                            ),
                            at,
                        ));
                    }
                }
            }
        }
        Ok(self.peeked)
    }

    /// Consumes the peeked line (the caller peeked it).
    fn consume(&mut self) -> Result<Line> {
        let line = match self.peek()? {
            Some(l) => l,
            None => return Err(self.syntax("expected a line", self.src.len())),
        };
        self.peeked = None;
        if let Some(blank) = self.pending_blank.take() {
            if self.strict && self.started_arrays > 0 {
                return Err(self.syntax("blank line inside an array", blank));
            }
        }
        if self.arm {
            self.arm = false;
            self.started_arrays += 1;
        }
        Ok(line)
    }

    /// The depth of a header's content lines: one below the header, or (lenient mode) the
    /// depth of a first line that jumps deeper.
    fn content_depth(&mut self, base: usize) -> Result<usize> {
        match self.peek()? {
            Some(l) if l.depth > base + 1 => {
                if self.strict {
                    Err(self.indent_error(base + 1, l))
                } else {
                    Ok(l.depth)
                }
            }
            _ => Ok(base + 1),
        }
    }

    // ----------------------------------------------------------------------------------
    // Document (§5)

    fn document(&mut self) -> Result<()> {
        let Some(first) = self.peek()? else {
            let m = self.b.begin_object();
            self.b.end_object(m, 0);
            return Ok(());
        };
        if first.depth != 0 {
            return Err(self.indent_error(0, first));
        }
        let (s, e) = (first.start, first.end);
        let content = &self.src[s..e];
        if content == b"[]" {
            self.consume()?;
            let m = self.b.begin_array();
            self.b.end_array(m, 0);
            return self.expect_end();
        }
        let head = self.head(s, e)?;
        if let Head::Header(h) = head {
            if h.key.is_none() {
                self.consume()?;
                self.array(&h, 0)?;
                return self.expect_end();
            }
        }
        let is_kv = !matches!(head, Head::Plain(None));
        self.consume()?;
        let next = self.peek()?;
        if !is_kv {
            match next {
                None => return self.primitive(s, e),
                Some(l) if l.depth == 0 => {
                    return Err(
                        self.syntax("expected a single root value, found a second line", l.start)
                    );
                }
                // A deeper next line: this was meant to be a key; say so below.
                Some(_) => {}
            }
        }
        self.enter(s)?;
        let m = self.b.begin_object();
        let keys_base = self.keys.len();
        self.member(head, s, e, 0)?;
        let mut n = 1;
        while let Some(l) = self.peek()? {
            if l.depth != 0 {
                return Err(self.indent_error(0, l));
            }
            self.consume()?;
            let head = self.head(l.start, l.end)?;
            self.member(head, l.start, l.end, 0)?;
            n += 1;
        }
        self.end_object(m, n, keys_base)?;
        self.leave();
        Ok(())
    }

    /// After a root array: nothing may follow.
    fn expect_end(&mut self) -> Result<()> {
        match self.peek()? {
            None => Ok(()),
            Some(l) => Err(self.syntax("expected end of input after the root array", l.start)),
        }
    }

    // ----------------------------------------------------------------------------------
    // Objects (§8)

    /// Closes an object; strict mode turns a merged duplicate key into an error.
    fn end_object(&mut self, m: Mark, n: usize, keys_base: usize) -> Result<()> {
        let before = self.b.node_count();
        self.b.end_object(m, n);
        if self.strict && self.b.node_count() != before {
            return Err(self.duplicate_key_error(keys_base));
        }
        self.keys.truncate(keys_base);
        Ok(())
    }

    #[cold]
    fn duplicate_key_error(&mut self, keys_base: usize) -> Error {
        let mut seen = std::collections::HashSet::new();
        for i in keys_base..self.keys.len() {
            let (s, e) = self.keys[i];
            let name = self.key_text(s, e);
            if !seen.insert(name.clone()) {
                return self.err(
                    Category::Syntax,
                    format!(
                        "duplicate key \"{}\"",
                        String::from_utf8_lossy(&name).escape_debug()
                    ),
                    s,
                );
            }
        }
        self.syntax("duplicate key", self.keys.get(keys_base).map_or(0, |k| k.0))
    }

    /// The decoded bytes of a key token (error paths only).
    fn key_text(&mut self, s: usize, e: usize) -> Vec<u8> {
        if self.src[s] == b'"' && e > s + 1 {
            if self.unescape(s + 1, e - 1).is_ok() {
                return self.scratch.clone();
            }
            return self.src[s + 1..e - 1].to_vec();
        }
        self.src[s..e].to_vec()
    }

    /// Records a member's key token (strict mode) for duplicate-key errors.
    #[inline]
    fn record_key(&mut self, s: usize, e: usize) {
        if self.strict {
            self.keys.push((s, e));
        }
    }

    /// One member of an object: a key-value line or a keyed header line at `src[s..e]`,
    /// whose own depth is `depth`.
    fn member(&mut self, head: Head, s: usize, e: usize, depth: usize) -> Result<()> {
        let colon = match head {
            Head::Header(h) => {
                let Some((ks, ke)) = h.key else {
                    return Err(if h.keyed {
                        self.syntax("keyless keyed header is only valid at the document root", s)
                    } else {
                        self.syntax(
                            "keyless array header is only valid at the document root or as a list item",
                            s,
                        )
                    });
                };
                self.push_key_token(ks, ke)?;
                self.record_key(ks, ke);
                return self.array(&h, depth);
            }
            Head::Plain(colon) => colon,
        };
        let (ks, ke, after) = self.key_token(s, e, colon)?;
        self.record_key(ks, ke);
        let (vs, ve) = trim_spaces(self.src, after, e);
        if vs == ve {
            // `key:` opens a nested object (possibly empty).
            self.enter(s)?;
            let nested = match self.peek()? {
                Some(l) if l.depth > depth => {
                    if self.strict && l.depth > depth + 1 {
                        return Err(self.indent_error(depth + 1, l));
                    }
                    true
                }
                _ => false,
            };
            if nested {
                self.object_fields(depth + 1)?;
            } else {
                let m = self.b.begin_object();
                self.b.end_object(m, 0);
            }
            self.leave();
            return Ok(());
        }
        if &self.src[vs..ve] == b"[]" {
            self.enter(vs)?;
            let m = self.b.begin_array();
            self.b.end_array(m, 0);
            self.leave();
            return Ok(());
        }
        self.primitive(vs, ve)
    }

    /// The fields of a nested object whose lines sit at `min_depth` or (lenient, first line)
    /// deeper. The caller entered the depth level.
    fn object_fields(&mut self, min_depth: usize) -> Result<()> {
        let m = self.b.begin_object();
        let keys_base = self.keys.len();
        let mut depth = None;
        let mut n = 0;
        while let Some(l) = self.peek()? {
            if l.depth < min_depth {
                break;
            }
            let d = *depth.get_or_insert(l.depth);
            if l.depth != d {
                return Err(self.indent_error(d, l));
            }
            self.consume()?;
            let head = self.head(l.start, l.end)?;
            self.member(head, l.start, l.end, d)?;
            n += 1;
        }
        self.end_object(m, n, keys_base)
    }

    /// Parses the key of a key-value line or entry row at `src[s..e]` and pushes it.
    /// `colon` is the line's first unquoted colon. Returns the raw key token and the offset
    /// just past the colon.
    fn key_token(
        &mut self,
        s: usize,
        e: usize,
        colon: Option<usize>,
    ) -> Result<(usize, usize, usize)> {
        let src = self.src;
        if src[s] == b'"' {
            let Some(close) = closing_quote(src, s, e) else {
                return Err(self.unterminated(s, e));
            };
            let mut i = close + 1;
            while i < e && src[i] == b' ' {
                i += 1;
            }
            if i >= e || src[i] != b':' {
                return Err(self.syntax("expected `:` after the key", i.min(e)));
            }
            self.push_quoted(s + 1, close)?;
            return Ok((s, close + 1, i + 1));
        }
        let Some(colon) = colon else {
            return Err(self.syntax("expected `key: value`, found no `:`", s));
        };
        let (ks, ke) = trim_spaces(src, s, colon);
        self.b.note_string(&src[ks..ke]);
        self.b.str_src(ks, ke - ks);
        Ok((ks, ke, colon + 1))
    }

    /// Pushes a header key token: quoted (fully) or literal.
    fn push_key_token(&mut self, s: usize, e: usize) -> Result<()> {
        if self.src[s] == b'"' {
            // The header scanner only takes a quoted key whose quote closes right before `[`.
            return self.push_quoted(s + 1, e - 1);
        }
        self.b.note_string(&self.src[s..e]);
        self.b.str_src(s, e - s);
        Ok(())
    }

    // ----------------------------------------------------------------------------------
    // Headers (§6)

    /// Classifies the line `src[s..e]`: an array header (parsed, fields into `self.fields`)
    /// or a plain line with its first unquoted colon. A line shaped like a header that breaks
    /// the header grammar is an error.
    fn head(&mut self, s: usize, e: usize) -> Result<Head> {
        let src = self.src;
        let Some(colon) = find_unquoted(src, s, e, b':') else {
            return Ok(Head::Plain(None));
        };
        let bracket = if src[s] == b'"' {
            match closing_quote(src, s, e) {
                Some(q) if q + 1 < e && src[q + 1] == b'[' => q + 1,
                _ => return Ok(Head::Plain(Some(colon))),
            }
        } else {
            match find_unquoted(src, s, colon, b'[') {
                Some(b) => b,
                None => return Ok(Head::Plain(Some(colon))),
            }
        };
        if colon < bracket {
            return Ok(Head::Plain(Some(colon)));
        }
        let Some(bracket_end) = find_unquoted(src, bracket, e, b']') else {
            return Err(self.syntax("unterminated bracket segment: expected `]`", bracket));
        };
        // Field list: a `{` before the first colon after the bracket segment.
        let mut fields_at = None;
        let mut head_end = bracket_end + 1;
        let brace = find_unquoted(src, bracket_end, e, b'{');
        let c2 = find_unquoted(src, bracket_end, e, b':');
        if let (Some(brace), Some(c2)) = (brace, c2) {
            if brace < c2 {
                if brace != bracket_end + 1 {
                    return Err(self.gap_error(bracket_end + 1, brace, "field list"));
                }
                if let Some(close) = matching_brace(src, brace, e) {
                    head_end = close + 1;
                    fields_at = Some((brace, close));
                }
            }
        }
        let Some(colon) = find_unquoted(src, head_end, e, b':') else {
            return Err(self.syntax("expected `:` after the array header", e));
        };
        if colon != head_end {
            return Err(self.gap_error(head_end, colon, "colon"));
        }
        let key = if bracket > s {
            if matches!(src[bracket - 1], b' ' | b'\t') {
                return Err(self.syntax(
                    "unexpected whitespace between the key and its bracket segment",
                    bracket - 1,
                ));
            }
            Some((s, bracket))
        } else {
            None
        };
        // Bracket segment: N, N<delim>, N:, N:<delim>.
        let mut seg_end = bracket_end;
        let mut delim = Delimiter::Comma;
        if seg_end > bracket + 1 {
            match src[seg_end - 1] {
                b'\t' => {
                    delim = Delimiter::Tab;
                    seg_end -= 1;
                }
                b'|' => {
                    delim = Delimiter::Pipe;
                    seg_end -= 1;
                }
                _ => {}
            }
        }
        let mut keyed = false;
        if seg_end > bracket + 1 && src[seg_end - 1] == b':' {
            keyed = true;
            seg_end -= 1;
        }
        let digits = &src[bracket + 1..seg_end];
        if digits.is_empty()
            || !digits.iter().all(u8::is_ascii_digit)
            || (digits.len() > 1 && digits[0] == b'0')
        {
            return Err(self.syntax(
                "invalid array length: expected digits without leading zeros",
                bracket + 1,
            ));
        }
        // A length beyond usize can never be met: saturate.
        let len = digits.iter().try_fold(0usize, |acc, &d| {
            acc.checked_mul(10)?.checked_add(usize::from(d - b'0'))
        });
        let len = len.unwrap_or(usize::MAX);
        let (mut top_fields, mut leaves) = (0, 0);
        if let Some((open, close)) = fields_at {
            self.check_field_delimiters(open + 1, close, delim)?;
            self.fields.clear();
            self.field_heap.clear();
            // Only a recursion guard: whether rows nest too deep is checked when a row
            // builds its objects, where the error can point at the row.
            let budget = self.max_depth;
            top_fields = self.parse_fields(open + 1, close, delim.as_byte(), 0, budget)?;
            leaves = self.fields.iter().filter(|f| f.children == 0).count();
        } else if keyed {
            return Err(self.syntax("keyed header requires a field list", bracket));
        }
        let (as_, ae) = trim_spaces(src, colon + 1, e);
        if fields_at.is_some() && as_ < ae {
            return Err(self.syntax("unexpected content after a fields-bearing header", as_));
        }
        Ok(Head::Header(Header {
            key,
            bracket,
            len,
            digits: (bracket + 1, seg_end),
            delim,
            keyed,
            has_fields: fields_at.is_some(),
            top_fields,
            leaves,
            inline: (as_ < ae).then_some((as_, ae)),
        }))
    }

    #[cold]
    fn gap_error(&self, s: usize, e: usize, before: &'static str) -> Error {
        let gap = &self.src[s..e];
        if gap.iter().all(|&b| b == b' ' || b == b'\t') {
            self.err(
                Category::Syntax,
                format!("unexpected whitespace before the {before} of the array header"),
                s,
            )
        } else {
            self.err(
                Category::Syntax,
                format!("unexpected content before the {before} of the array header"),
                s,
            )
        }
    }

    /// A field list may only use the header's delimiter (outside quotes).
    fn check_field_delimiters(&self, s: usize, e: usize, delim: Delimiter) -> Result<()> {
        for other in [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe] {
            if other == delim {
                continue;
            }
            if let Some(at) = find_unquoted(self.src, s, e, other.as_byte()) {
                return Err(self.err(
                    Category::Syntax,
                    format!(
                        "field list uses the delimiter {}, but the header declares {}",
                        delim_name(other),
                        delim_name(delim)
                    ),
                    at,
                ));
            }
        }
        Ok(())
    }

    /// Parses the field entries of `src[s..e]` into `self.fields` (pre-order), recursing
    /// into nested groups at most `budget` levels. Returns the number of entries.
    fn parse_fields(
        &mut self,
        s: usize,
        e: usize,
        delim: u8,
        level: usize,
        budget: usize,
    ) -> Result<usize> {
        if level > budget {
            return Err(self.err(
                Category::Depth,
                format!("expected at most {} levels of nesting", self.max_depth),
                s,
            ));
        }
        let src = self.src;
        let mut entries: Vec<usize> = Vec::new();
        let mut pos = s;
        loop {
            let end = field_entry_end(src, pos, e, delim);
            let (ts, te) = trim_spaces(src, pos, end);
            if ts == te {
                return Err(self.syntax("expected a field name, found an empty entry", ts));
            }
            entries.push(self.fields.len());
            match find_unquoted(src, ts, te, b'{') {
                None => {
                    let name = self.field_name(ts, te)?;
                    self.fields.push(Field {
                        name,
                        at: ts,
                        children: 0,
                    });
                }
                Some(open) => {
                    if open == ts {
                        return Err(self.syntax("expected a field name before `{`", open));
                    }
                    if matches!(src[open - 1], b' ' | b'\t') {
                        return Err(self.syntax(
                            "unexpected whitespace before a nested field group",
                            open - 1,
                        ));
                    }
                    let Some(close) = matching_brace(src, open, te) else {
                        return Err(self.syntax("unmatched `{` in field list", open));
                    };
                    if close != te - 1 {
                        return Err(
                            self.syntax("unexpected content after a nested field group", close + 1)
                        );
                    }
                    let name = self.field_name(ts, open)?;
                    let idx = self.fields.len();
                    self.fields.push(Field {
                        name,
                        at: ts,
                        children: 0,
                    });
                    let n = self.parse_fields(open + 1, close, delim, level + 1, budget)?;
                    self.fields[idx].children = n;
                }
            }
            if end >= e {
                break;
            }
            pos = end + 1;
        }
        if self.strict {
            self.check_duplicate_fields(&entries)?;
        }
        Ok(entries.len())
    }

    /// Strict mode: field names at one level must be distinct.
    fn check_duplicate_fields(&self, entries: &[usize]) -> Result<()> {
        if entries.len() < 2 {
            return Ok(());
        }
        let mut names: Vec<(&[u8], usize)> = entries
            .iter()
            .map(|&i| (self.name_bytes(self.fields[i].name), self.fields[i].at))
            .collect();
        names.sort_unstable();
        // The first duplicate in document order: the smallest second occurrence.
        let mut worst: Option<(usize, &[u8])> = None;
        for w in names.windows(2) {
            if w[0].0 == w[1].0 && worst.is_none_or(|(at, _)| w[1].1 < at) {
                worst = Some((w[1].1, w[1].0));
            }
        }
        match worst {
            None => Ok(()),
            Some((at, name)) => Err(self.err(
                Category::Syntax,
                format!(
                    "duplicate field name \"{}\"",
                    String::from_utf8_lossy(name).escape_debug()
                ),
                at,
            )),
        }
    }

    fn name_bytes(&self, name: Name) -> &[u8] {
        match name {
            Name::Src(s, l) => &self.src[s..s + l],
            Name::Heap(s, l) => &self.field_heap[s..s + l],
        }
    }

    /// A field name token `src[s..e]`: quoted (fully) or literal.
    fn field_name(&mut self, s: usize, e: usize) -> Result<Name> {
        let src = self.src;
        if src[s] != b'"' {
            self.b.note_string(&src[s..e]);
            return Ok(Name::Src(s, e - s));
        }
        let Some(close) = closing_quote(src, s, e) else {
            return Err(self.unterminated(s, e));
        };
        if close != e - 1 {
            return Err(self.syntax("unexpected characters after the closing quote", close + 1));
        }
        if memchr::memchr(b'\\', &src[s + 1..close]).is_none() {
            self.b.note_string(&src[s + 1..close]);
            return Ok(Name::Src(s + 1, close - s - 1));
        }
        self.unescape(s + 1, close)?;
        self.b.note_string(&self.scratch);
        let start = self.field_heap.len();
        self.field_heap.extend_from_slice(&self.scratch);
        Ok(Name::Heap(start, self.scratch.len()))
    }

    // ----------------------------------------------------------------------------------
    // Arrays (§9) and keyed tabular objects (§9.5)

    /// Decodes the content of header `h`, whose line sits at depth `base`.
    fn array(&mut self, h: &Header, base: usize) -> Result<()> {
        if h.keyed {
            self.keyed(h, base)
        } else if let Some((s, e)) = h.inline {
            self.inline(h, s, e)
        } else if h.has_fields {
            self.tabular(h, base)
        } else {
            self.list(h, base)
        }
    }

    fn inline(&mut self, h: &Header, s: usize, e: usize) -> Result<()> {
        self.enter(h.bracket)?;
        let m = self.b.begin_array();
        let mut cells = Cells::new(s, e, h.delim.as_byte());
        let mut n = 0;
        while let Some((cs, ce)) = cells.next(self.src) {
            if self.strict && n == h.len {
                let found = n + 1 + cells.count_rest(self.src);
                return Err(self.length_error(
                    h,
                    ("inline value", "inline values"),
                    Some(found),
                    cs,
                ));
            }
            self.primitive(cs, ce)?;
            n += 1;
        }
        if self.strict && n != h.len {
            return Err(self.length_error(
                h,
                ("inline value", "inline values"),
                Some(n),
                h.bracket,
            ));
        }
        self.b.end_array(m, n);
        self.leave();
        Ok(())
    }

    fn list(&mut self, h: &Header, base: usize) -> Result<()> {
        let item_depth = self.content_depth(base)?;
        self.enter(h.bracket)?;
        let m = self.b.begin_array();
        let mut n = 0;
        while !self.strict || n < h.len {
            let Some(l) = self.peek()? else { break };
            if l.depth <= base {
                break;
            }
            if l.depth != item_depth {
                return Err(self.indent_error(item_depth, l));
            }
            if !is_list_item(&self.src[l.start..l.end]) {
                break;
            }
            self.arm = n == 0;
            self.list_item(item_depth)?;
            n += 1;
        }
        if n > 0 {
            self.started_arrays -= 1;
        }
        if self.strict {
            if n != h.len {
                return Err(self.length_error(h, ("list item", "list items"), Some(n), h.bracket));
            }
            let more = self
                .peek()?
                .filter(|l| l.depth == item_depth && is_list_item(&self.src[l.start..l.end]));
            if let Some(l) = more {
                return Err(self.length_error(h, ("list item", "list items"), None, l.start));
            }
        }
        self.b.end_array(m, n);
        self.leave();
        Ok(())
    }

    /// One list item (§9.4, §10); its hyphen line sits at `depth`.
    fn list_item(&mut self, depth: usize) -> Result<()> {
        let l = self.consume()?;
        let src = self.src;
        let mut a = l.start + 1;
        while a < l.end && src[a] == b' ' {
            a += 1;
        }
        let e = l.end;
        if a == e {
            // A bare `-`: an empty object.
            self.enter(l.start)?;
            let m = self.b.begin_object();
            self.b.end_object(m, 0);
            self.leave();
            return Ok(());
        }
        if &src[a..e] == b"[]" {
            self.enter(a)?;
            let m = self.b.begin_array();
            self.b.end_array(m, 0);
            self.leave();
            return Ok(());
        }
        let head = self.head(a, e)?;
        match head {
            Head::Header(h) if h.key.is_none() => {
                if h.keyed {
                    return Err(
                        self.syntax("keyless keyed header is only valid at the document root", a)
                    );
                }
                if h.has_fields {
                    return Err(self.syntax(
                        "keyless header with a field list is only valid at the document root",
                        a,
                    ));
                }
                self.array(&h, depth)
            }
            Head::Plain(None) => self.primitive(a, e),
            head => {
                // An object whose first field sits on the hyphen line, the rest one level
                // below it.
                self.enter(a)?;
                let m = self.b.begin_object();
                let keys_base = self.keys.len();
                self.member(head, a, e, depth + 1)?;
                let mut n = 1;
                while let Some(l) = self.peek()? {
                    if l.depth <= depth {
                        break;
                    }
                    if l.depth > depth + 1 {
                        return Err(self.indent_error(depth + 1, l));
                    }
                    self.consume()?;
                    let head = self.head(l.start, l.end)?;
                    self.member(head, l.start, l.end, depth + 1)?;
                    n += 1;
                }
                self.end_object(m, n, keys_base)?;
                self.leave();
                Ok(())
            }
        }
    }

    fn tabular(&mut self, h: &Header, base: usize) -> Result<()> {
        let row_depth = self.content_depth(base)?;
        let fields = std::mem::take(&mut self.fields);
        let heap = std::mem::take(&mut self.field_heap);
        self.enter(h.bracket)?;
        let m = self.b.begin_array();
        let delim = h.delim.as_byte();
        let mut n = 0;
        while !self.strict || n < h.len {
            let Some(l) = self.peek()? else { break };
            if l.depth <= base {
                break;
            }
            if l.depth != row_depth {
                return Err(self.indent_error(row_depth, l));
            }
            if !self.is_row(l, delim) {
                break;
            }
            self.arm = n == 0;
            self.consume()?;
            let mut cells = Cells::new(l.start, l.end, delim);
            self.row(
                &fields,
                &heap,
                h,
                &mut cells,
                l.start,
                ("value in row", "values in row"),
            )?;
            n += 1;
        }
        if n > 0 {
            self.started_arrays -= 1;
        }
        if self.strict {
            if n != h.len {
                return Err(self.length_error(h, ("row", "rows"), Some(n), h.bracket));
            }
            let more = self.peek()?.filter(|l| {
                l.depth == row_depth
                    && !self.src[l.start..l.end].starts_with(b"- ")
                    && self.is_row(*l, delim)
            });
            if let Some(l) = more {
                return Err(self.length_error(h, ("row", "rows"), None, l.start));
            }
        }
        self.b.end_array(m, n);
        self.leave();
        self.fields = fields;
        self.field_heap = heap;
        Ok(())
    }

    /// A line at row depth is a row unless an unquoted colon comes before the first unquoted
    /// delimiter (then it is a key-value line ending the rows, §9.3).
    fn is_row(&self, l: Line, delim: u8) -> bool {
        let to = find_unquoted(self.src, l.start, l.end, delim).unwrap_or(l.end);
        find_unquoted(self.src, l.start, to, b':').is_none()
    }

    fn keyed(&mut self, h: &Header, base: usize) -> Result<()> {
        let entry_depth = self.content_depth(base)?;
        let fields = std::mem::take(&mut self.fields);
        let heap = std::mem::take(&mut self.field_heap);
        self.enter(h.bracket)?;
        let m = self.b.begin_object();
        let keys_base = self.keys.len();
        let delim = h.delim.as_byte();
        let mut n = 0;
        let mut surplus_at = None;
        while let Some(l) = self.peek()? {
            if l.depth <= base {
                break;
            }
            if l.depth != entry_depth {
                return Err(self.indent_error(entry_depth, l));
            }
            let Some(colon) = find_unquoted(self.src, l.start, l.end, b':') else {
                return Err(self.syntax(
                    "expected an entry row (`key: values`), found no `:`",
                    l.start,
                ));
            };
            self.arm = n == 0;
            self.consume()?;
            if n == h.len {
                surplus_at.get_or_insert(l.start);
            }
            let (ks, ke, after) = self.key_token(l.start, l.end, Some(colon))?;
            self.record_key(ks, ke);
            let (cs, ce) = trim_spaces(self.src, after, l.end);
            let mut cells = Cells::new(cs, ce, delim);
            self.row(
                &fields,
                &heap,
                h,
                &mut cells,
                l.start,
                ("value in entry row", "values in entry row"),
            )?;
            n += 1;
        }
        if n > 0 {
            self.started_arrays -= 1;
        }
        if self.strict && n != h.len {
            let what = ("entry row", "entry rows");
            return Err(match surplus_at {
                Some(at) => self.length_error(h, what, Some(n), at),
                None => self.length_error(h, what, Some(n), h.bracket),
            });
        }
        self.end_object(m, n, keys_base)?;
        self.leave();
        self.fields = fields;
        self.field_heap = heap;
        Ok(())
    }

    /// One row object: the header's fields (depth-first for nested groups) take the cells in
    /// order; the cell count must equal the leaf-field count.
    fn row(
        &mut self,
        fields: &[Field],
        heap: &[u8],
        h: &Header,
        cells: &mut Cells,
        line_start: usize,
        what: (&'static str, &'static str),
    ) -> Result<()> {
        let mut idx = 0;
        if !self.group(fields, heap, &mut idx, h.top_fields, cells, line_start)? {
            return Err(self.count_error(h.leaves, what, Some(cells.count), line_start));
        }
        let rest = *cells;
        if let Some((at, _)) = cells.next(self.src) {
            let found = h.leaves + rest.count_rest(self.src);
            return Err(self.count_error(h.leaves, what, Some(found), at));
        }
        Ok(())
    }

    /// Emits an object of `count` fields starting at `fields[*idx]`. `Ok(false)` when the
    /// cells ran out.
    fn group(
        &mut self,
        fields: &[Field],
        heap: &[u8],
        idx: &mut usize,
        count: usize,
        cells: &mut Cells,
        at: usize,
    ) -> Result<bool> {
        self.enter(at)?;
        let m = self.b.begin_object();
        let first = *idx;
        let mut flat = true;
        for _ in 0..count {
            let f = fields[*idx];
            *idx += 1;
            flat &= f.children == 0;
            match f.name {
                Name::Src(s, l) => self.b.str_src(s, l),
                Name::Heap(s, l) => self.b.str_heap(&heap[s..s + l]),
            }
            if f.children == 0 {
                let Some((cs, ce)) = cells.next(self.src) else {
                    return Ok(false);
                };
                self.primitive(cs, ce)?;
            } else if !self.group(fields, heap, idx, f.children, cells, at)? {
                return Ok(false);
            }
        }
        if self.strict {
            // Strict mode rejected duplicate field names: every row of this header has these
            // keys in this order, named by where the group's first field is (the builder
            // then compares no key of the rows, and marks leaf rows flat).
            let keys = fields.get(first).map_or(u64::MAX, |f| f.at as u64);
            let token = KeysToken::new(&raw const ROW_KEYS as usize, keys);
            self.b.end_object_keyed_as(m, count, token, flat);
        } else {
            // Lenient mode merges duplicate field names here.
            self.b.end_object(m, count);
        }
        self.leave();
        Ok(true)
    }

    // ----------------------------------------------------------------------------------
    // Primitives (§4, §7)

    /// Pushes the primitive token `src[s..e]` (already trimmed).
    fn primitive(&mut self, s: usize, e: usize) -> Result<()> {
        let src = self.src;
        if s == e {
            self.b.str_src(s, 0);
            return Ok(());
        }
        if src[s] == b'"' {
            let Some(close) = closing_quote(src, s, e) else {
                return Err(self.unterminated(s, e));
            };
            if close != e - 1 {
                return Err(self.syntax("unexpected characters after the closing quote", close + 1));
            }
            return self.push_quoted(s + 1, close);
        }
        let tok = &src[s..e];
        match classify(tok) {
            Literal::True => self.b.bool(true),
            Literal::False => self.b.bool(false),
            Literal::Null => self.b.null(),
            Literal::Int => self.b.int_src(s, e - s),
            Literal::Float => {
                // The grammar is a subset of Rust's float syntax, and ASCII.
                let x: f64 = std::str::from_utf8(tok)
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(f64::NAN);
                if !x.is_finite() {
                    return Err(self.err(Category::Number, "number out of range", s));
                }
                self.b.float(x);
            }
            Literal::Str => {
                self.b.note_string(tok);
                self.b.str_src(s, e - s);
            }
        }
        Ok(())
    }

    /// Pushes the body `src[s..e]` of a quoted string: borrowed when it has no escapes.
    fn push_quoted(&mut self, s: usize, e: usize) -> Result<()> {
        if memchr::memchr(b'\\', &self.src[s..e]).is_none() {
            self.b.note_string(&self.src[s..e]);
            self.b.str_src(s, e - s);
            return Ok(());
        }
        self.unescape(s, e)?;
        self.b.string(&self.scratch);
        Ok(())
    }

    /// Unescapes `src[s..e]` into `self.scratch` (§7.1: `\\ \" \n \r \t \uXXXX`; no
    /// surrogates).
    fn unescape(&mut self, s: usize, e: usize) -> Result<()> {
        let src = self.src;
        self.scratch.clear();
        let mut i = s;
        while i < e {
            let Some(k) = memchr::memchr(b'\\', &src[i..e]) else {
                self.scratch.extend_from_slice(&src[i..e]);
                break;
            };
            let bs = i + k;
            self.scratch.extend_from_slice(&src[i..bs]);
            let Some(&c) = src.get(bs + 1).filter(|_| bs + 1 < e) else {
                return Err(self.syntax("unterminated escape sequence", bs));
            };
            let out = match c {
                b'\\' => b'\\',
                b'"' => b'"',
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                b'u' => {
                    let hex = src.get(bs + 2..bs + 6).filter(|_| bs + 6 <= e);
                    let cp = hex.and_then(|h| {
                        h.iter()
                            .try_fold(0u32, |acc, &d| Some(acc * 16 + (d as char).to_digit(16)?))
                    });
                    let Some(cp) = cp else {
                        return Err(self.syntax("invalid \\u escape: expected 4 hex digits", bs));
                    };
                    let Some(ch) = char::from_u32(cp) else {
                        return Err(self.syntax(
                            "invalid \\u escape: a surrogate (write supplementary characters as utf-8)",
                            bs,
                        ));
                    };
                    let mut buf = [0u8; 4];
                    self.scratch
                        .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    i = bs + 6;
                    continue;
                }
                _ => {
                    return Err(self.syntax(
                        "invalid escape: expected \\\\, \\\", \\n, \\r, \\t or \\uXXXX",
                        bs,
                    ));
                }
            };
            self.scratch.push(out);
            i = bs + 2;
        }
        Ok(())
    }

    /// A quoted token opened at `s` that does not close before `e` (the end of its line).
    #[cold]
    fn unterminated(&self, s: usize, e: usize) -> Error {
        // At the very end of the input, more input could close it.
        let at_eof = memchr::memchr(b'\n', &self.src[e..]).is_none();
        let category = if at_eof {
            Category::Eof
        } else {
            Category::Syntax
        };
        self.err(
            category,
            "unterminated quoted string: expected a closing quote",
            s,
        )
    }
}

fn is_list_item(content: &[u8]) -> bool {
    content == b"-" || content.starts_with(b"- ")
}

fn delim_name(d: Delimiter) -> &'static str {
    match d {
        Delimiter::Comma => "`,`",
        Delimiter::Tab => "tab",
        Delimiter::Pipe => "`|`",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> String {
        match decode(s.as_bytes(), &DecodeOptions::new()) {
            Ok(d) => format!("{:?}", d.root()),
            Err(e) => format!("ERR {:?} {e}", e.classify()),
        }
    }

    #[test]
    fn basics() {
        assert_eq!(dec(""), "{}");
        assert_eq!(dec("a: 1\nb: x"), r#"{"a": 1, "b": "x"}"#);
        assert_eq!(dec("[2]: 1,2"), "[1, 2]");
        assert_eq!(
            dec("tags[3]: a,b"),
            "ERR Count 1:5: expected 3 inline values, found 2"
        );
    }
}
