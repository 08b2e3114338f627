//! The parser's state ([`Parser`]) and what its two walks (the general one and the row-layout
//! path) share: whitespace, strings (plain ones ended by the block masks, the others lexed
//! byte by byte), numbers, literals, keys, and positioned errors.

use std::borrow::Cow;

use super::layout::{RowState, Sep};
use super::options::{MAX_INPUT, ParseOptions};
use super::scan::{self, Kernel, kernel};
use super::swar::*;
use crate::doc::{Doc, DocBuilder, Mark, Toon};
use crate::error::{Category, Error, Result};
use crate::num::{float_value, is_written_as_read};

/// One open container on the explicit stack.
pub(super) struct Frame {
    /// The builder mark (None while skipping).
    pub(super) mark: Option<Mark>,
    /// Elements or members completed so far.
    pub(super) count: usize,
    pub(super) is_object: bool,
    /// Every key so far repeated the key at its place in the last object remembered at this
    /// level ([`Parser::key`]).
    pub(super) repeated: bool,
    /// Every member so far matched the row layout of this level ([`Parser::row_members`]),
    /// which goes on with the member after the value being parsed.
    pub(super) row: bool,
}

/// A lexed string: borrowed from the input (`Plain` when its bytes are ASCII from space to DEL
/// other than `"`, `\` and `<`, as the block masks found it), or unescaped in the scratch buffer.
#[derive(Clone, Copy)]
pub(crate) enum StrTok {
    Src {
        start: usize,
        len: usize,
    },
    /// A plain string: [`Node::StrPlain`], [`Node::StrBare`] or [`Node::StrQuoted`] by its
    /// TOON bytes.
    ///
    /// [`Node::StrPlain`]: crate::doc::Node::StrPlain
    /// [`Node::StrBare`]: crate::doc::Node::StrBare
    /// [`Node::StrQuoted`]: crate::doc::Node::StrQuoted
    Plain {
        start: usize,
        len: usize,
        toon: Toon,
    },
    Scratch,
}

/// The parser state shared by [`parse`](super::parse) and `parse_selected`.
pub(crate) struct Parser<'s, 'o> {
    pub(crate) src: &'s [u8],
    pub(crate) pos: usize,
    pub(crate) opts: &'o ParseOptions,
    pub(crate) b: DocBuilder<'s>,
    pub(super) stack: Vec<Frame>,
    pub(crate) scratch: Vec<u8>,
    /// The block kernel, or `None` for the bytewise path (the old parser, kept as the
    /// oracle of the differential tests).
    pub(super) classify: Option<fn(&[u8; scan::BLOCK]) -> scan::Raw>,
    /// The kernel's string classifier (`None` with `classify`).
    pub(super) classify_str: Option<scan::StrKernel>,
    /// The start of the block whose string masks are in `blk` (`usize::MAX`: none yet).
    pub(super) blk_at: usize,
    pub(super) blk: scan::Str,
    /// Per nesting level (below [`ROW_LEVELS`](super::layout::ROW_LEVELS)), the row layout:
    /// the pieces ([`Sep`]) of the last object the general loop parsed to its end there, its
    /// members' then its closing one (empty: none). The next object at that level whose bytes repeat them
    /// piece by piece (the next row of a collection, whatever its whitespace) needs no key
    /// lexed and no structural byte looked at: only its values ([`Parser::row_members`]).
    /// Layouts are made and walked alike when parsing and when only validating (the values
    /// a selection skips): the pieces are bytes of the input either way. Without a kernel
    /// (the bytewise oracle), no layouts.
    pub(super) layouts: Vec<Vec<Sep>>,
    pub(super) rows: Vec<RowState>,
}

/// The block classifier parsers use on this thread.
fn classifier() -> Option<fn(&[u8; scan::BLOCK]) -> scan::Raw> {
    kernel().map(Kernel::classifier)
}

/// The string classifier parsers use on this thread (the portable one without a kernel;
/// then it is not used).
fn str_classifier() -> scan::StrKernel {
    kernel().unwrap_or(Kernel::Fallback).str_classifier()
}

impl<'s, 'o> Parser<'s, 'o> {
    /// Checks the input limit and prepares a builder with room for about `nodes` nodes.
    pub(crate) fn new(src: &'s [u8], opts: &'o ParseOptions, nodes: usize) -> Result<Self> {
        let max = opts.max_input_bytes.min(MAX_INPUT);
        if src.len() > max {
            return Err(Error::at(
                Category::Limit,
                format!("input longer than the limit of {max} bytes"),
                src,
                max,
            ));
        }
        let mut p = Parser {
            src,
            pos: 0,
            opts,
            b: DocBuilder::with_capacity(src, nodes + 1, 0),
            stack: Vec::new(),
            scratch: Vec::new(),
            classify: classifier(),
            classify_str: classifier().map(|_| str_classifier()),
            blk_at: usize::MAX,
            blk: scan::Str::default(),
            layouts: Vec::new(),
            rows: Vec::new(),
        };
        p.skip_ws();
        if p.pos == src.len() {
            return Err(Error::at(
                Category::Eof,
                "empty input, expected a JSON value",
                src,
                p.pos,
            ));
        }
        Ok(p)
    }

    /// A parser at `pos` of `src` that builds into `b`, reusing `scratch` (the windowed
    /// root-array parser resumes one of these per window; the input limit was checked by the
    /// first).
    pub(crate) fn resume(
        src: &'s [u8],
        opts: &'o ParseOptions,
        pos: usize,
        b: DocBuilder<'s>,
        scratch: Vec<u8>,
    ) -> Self {
        Parser {
            src,
            pos,
            opts,
            b,
            stack: Vec::new(),
            scratch,
            classify: classifier(),
            classify_str: classifier().map(|_| str_classifier()),
            blk_at: usize::MAX,
            blk: scan::Str::default(),
            layouts: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// Checks that only whitespace follows the document (the position is past its end).
    pub(crate) fn expect_end(&mut self) -> Result<()> {
        self.skip_ws();
        if self.pos < self.src.len() {
            return Err(self.err(
                Category::Syntax,
                "trailing characters after the document",
                self.pos,
            ));
        }
        Ok(())
    }

    /// The builder and the scratch buffer, for the next [`Parser::resume`].
    pub(crate) fn into_parts(self) -> (DocBuilder<'s>, Vec<u8>) {
        (self.b, self.scratch)
    }

    /// Checks that only whitespace follows the document and returns it.
    pub(crate) fn finish(mut self) -> Result<Doc<'s>> {
        self.expect_end()?;
        Ok(self.b.finish())
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn err(
        &self,
        category: Category,
        message: impl Into<Cow<'static, str>>,
        at: usize,
    ) -> Error {
        Error::at(category, message, self.src, at)
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn eof(&self, expected: &str) -> Error {
        self.err(
            Category::Eof,
            format!("unexpected end of input, {expected}"),
            self.src.len(),
        )
    }

    /// `"{expected}, found 'x'"` for the byte at `at`, or the matching UTF-8 / end-of-input
    /// error.
    #[cold]
    #[inline(never)]
    pub(crate) fn unexpected(&self, expected: &str, at: usize) -> Error {
        let rest = &self.src[at.min(self.src.len())..];
        let Some(&b) = rest.first() else {
            return self.eof(expected);
        };
        let ch = if b < 0x80 {
            b as char
        } else {
            let n = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            match rest.get(..n).map(std::str::from_utf8) {
                Some(Ok(s)) => s.chars().next().unwrap_or(char::REPLACEMENT_CHARACTER),
                _ => return self.err(Category::Utf8, "invalid UTF-8", at),
            }
        };
        if at == 0 && ch == '\u{feff}' {
            return self.err(
                Category::Syntax,
                "unexpected byte order mark (U+FEFF) at the start of the input",
                at,
            );
        }
        self.err(Category::Syntax, format!("{expected}, found {ch:?}"), at)
    }

    #[inline(always)]
    pub(crate) fn skip_ws(&mut self) {
        if let Some(b' ' | b'\n' | b'\r' | b'\t') = self.src.get(self.pos) {
            self.skip_ws_run();
        }
    }

    /// [`Parser::skip_ws`] past the first whitespace byte: byte by byte for a short run
    /// (a classified block costs more than a few bytes), then with the block masks.
    fn skip_ws_run(&mut self) {
        let stop = match self.classify {
            Some(_) => self.pos + 16,
            None => usize::MAX,
        };
        while let Some(&b) = self.src.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return;
            }
            self.pos += 1;
            if self.pos == stop {
                return self.skip_ws_blocks();
            }
        }
    }

    /// The string masks of the 64-byte block that holds `at` (`at < src.len()`),
    /// classified when the parser first gets there. Blocks start at multiples of 64 in the
    /// input.
    #[inline(always)]
    fn block(&mut self, src: &[u8], at: usize, classify: scan::StrKernel) -> (usize, scan::Str) {
        let base = at & !(scan::BLOCK - 1);
        if base != self.blk_at {
            classify.classify_at_into(src, base, &mut self.blk);
            self.blk_at = base;
        }
        (base, self.blk)
    }

    /// [`Parser::skip_ws`] with the whitespace masks of the blocks: the position moves to
    /// the first byte that is not whitespace, or to the end.
    fn skip_ws_blocks(&mut self) {
        let Some(classify) = self.classify else {
            return;
        };
        let mut at = self.pos;
        while at < self.src.len() {
            // Blocks from the position (whitespace needs no context).
            let raw = scan::classify_at(classify, self.src, at);
            // The padding past the end is spaces, so a set bit is a byte of the input.
            if raw.ws != u64::MAX {
                self.pos = at + (!raw.ws).trailing_zeros() as usize;
                return;
            }
            at += scan::BLOCK;
        }
        self.pos = self.src.len();
    }

    /// The first quote or special byte (backslash, control, ≥ 0x80, `<`) at or after
    /// `start`, from the block masks: `Ok((i, toon))` when it is a quote (the string from
    /// `start` is plain: no unescaping, UTF-8 or tag check needed; `toon` says which bytes
    /// forcing quotes in TOON it holds), `Err(i)` when it is a special byte or the end of the
    /// input (`src[start..i]` is plain). Without a kernel, `Err(start)`.
    #[inline(always)]
    fn plain_run(&mut self, start: usize) -> std::result::Result<(usize, Toon), usize> {
        let Some(classify) = self.classify_str else {
            return Err(start);
        };
        self.plain_with::<true>(self.src, start, classify)
    }

    /// The kernel's string classifier, for [`Parser::plain_with`] (`None` on the bytewise
    /// path).
    #[inline(always)]
    pub(crate) fn string_classifier(&self) -> Option<scan::StrKernel> {
        self.classify_str
    }

    /// [`Parser::plain_run`] with the kernel's string classifier `classify`; without `TOON`
    /// (a string only validated and skipped), the TOON bytes are not looked at
    /// ([`Toon::Bare`] is returned).
    #[inline(always)]
    pub(crate) fn plain_with<const TOON: bool>(
        &mut self,
        src: &[u8],
        start: usize,
        classify: scan::StrKernel,
    ) -> std::result::Result<(usize, Toon), usize> {
        let mut at = start;
        let mut toon = Toon::Bare;
        while at < src.len() {
            let (base, raw) = self.block(src, at, classify);
            let stop = (raw.quote | raw.special) >> (at - base);
            let mut t = if TOON { raw.toon >> (at - base) } else { 0 };
            if stop != 0 {
                let n = stop.trailing_zeros();
                let i = at + n as usize;
                // `n < 64`: the bytes before the stop.
                t &= !(u64::MAX << n);
                if t != 0 {
                    toon = toon.with(src, at, t);
                }
                return if raw.quote >> (i - base) & 1 != 0 {
                    Ok((i, toon))
                } else {
                    Err(i)
                };
            }
            if t != 0 {
                toon = toon.with(src, at, t);
            }
            at = base + scan::BLOCK;
        }
        Err(src.len())
    }

    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    #[inline(always)]
    pub(crate) fn push_str(&mut self, tok: StrTok) {
        match tok {
            StrTok::Src { start, len } => self.b.str_src(start, len),
            StrTok::Plain { start, len, toon } => self.b.str_plain(start, len, toon),
            StrTok::Scratch => self.b.str_heap(&self.scratch),
        }
    }

    /// The bytes of a lexed string (valid until the next string is lexed).
    #[inline(always)]
    pub(crate) fn tok_bytes(&self, tok: StrTok) -> &[u8] {
        match tok {
            StrTok::Src { start, len } | StrTok::Plain { start, len, .. } => {
                &self.src[start..start + len]
            }
            StrTok::Scratch => &self.scratch,
        }
    }

    /// Checks that a new container at `depth` (1 = the root container) is allowed.
    #[inline(always)]
    pub(crate) fn check_depth(&self, depth: usize) -> Result<()> {
        if depth > self.opts.max_depth {
            return Err(self.err(
                Category::Depth,
                format!(
                    "nesting deeper than the limit of {} arrays/objects",
                    self.opts.max_depth
                ),
                self.pos,
            ));
        }
        Ok(())
    }

    /// Lexes the key of member number `count + 1` (at the current position, after
    /// whitespace) and the `:` after it; leaves the position after the `:`.
    #[inline(always)]
    pub(crate) fn member_key(&mut self, count: usize) -> Result<StrTok> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("expected a string key", self.pos));
        }
        if count >= self.opts.max_keys_per_object {
            return Err(self.err(
                Category::Limit,
                format!(
                    "object with more than the limit of {} keys",
                    self.opts.max_keys_per_object
                ),
                self.pos,
            ));
        }
        let tok = self.lex_string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("expected ':' after an object key", self.pos));
        }
        self.pos += 1;
        Ok(tok)
    }

    /// When the input at the current position (where a key's opening quote belongs) is `"` + the key
    /// `src[start..start + len]` + `"` + optional whitespace + `:`, moves past the `:` and
    /// returns true. The caller knows that earlier key was lexed without error, so these
    /// identical bytes are valid and set no new flags. `count` members came before.
    #[inline(always)]
    pub(crate) fn repeats_key(&mut self, start: usize, len: usize, count: usize) -> bool {
        let at = self.pos + 1;
        let src = self.src;
        if count >= self.opts.max_keys_per_object {
            return false;
        }
        // The common case in one compare: the earlier key was `"key":` (its `:` right after
        // the closing quote), and so is this one.
        if let (Some(new), Some(old)) = (
            src.get(self.pos..at + len + 2),
            src.get(start.wrapping_sub(1)..start + len + 2),
        ) {
            if old[0] == b'"' && old[len + 1] == b'"' && old[len + 2] == b':' {
                if bytes_eq(new, old) {
                    self.pos = at + len + 2;
                    return true;
                }
                return false;
            }
        }
        let (Some(new), Some(old)) = (src.get(at..at + len), src.get(start..start + len)) else {
            return false;
        };
        if src.get(self.pos) != Some(&b'"')
            || src.get(at + len) != Some(&b'"')
            || !bytes_eq(new, old)
        {
            return false;
        }
        let mut i = at + len + 1;
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = src.get(i) {
            i += 1;
        }
        if src.get(i) != Some(&b':') {
            return false;
        }
        self.pos = i + 1;
        true
    }

    /// Lexes the string whose opening quote is at the current position, validates it, sets
    /// the document flags, and leaves the position after the closing quote.
    #[inline(always)]
    pub(crate) fn lex_string(&mut self) -> Result<StrTok> {
        let src = self.src;
        let start = self.pos + 1;
        let clean = match self.plain_run(start) {
            Ok((i, toon)) => {
                if i - start > self.opts.max_string_bytes {
                    return Err(self.string_too_long(start));
                }
                self.pos = i + 1;
                return Ok(StrTok::Plain {
                    start,
                    len: i - start,
                    toon,
                });
            }
            Err(clean) => clean,
        };
        // `src[start..clean]` holds no quote and no special byte, so scanning from `clean`
        // finds the same stop and the same flags as scanning from `start`; it is ASCII, so
        // the UTF-8 of the string is that from `clean` on. `hi`: the run may hold non-ASCII
        // bytes not validated yet.
        let scanned = match src.get(clean) {
            // Non-ASCII text: scanned and validated in one pass up to its closing quote. An
            // escape or a byte that is not UTF-8 after it, and the run is scanned again.
            Some(&b) if b >= 0x80 => match scan_run_utf8(src, clean) {
                (i, lt, true) if src.get(i) == Some(&b'"') => Some((i, false, lt)),
                _ => None,
            },
            _ => None,
        };
        let (i, hi, lt) = scanned.unwrap_or_else(|| scan_run(src, clean));
        match src.get(i) {
            Some(b'"') => {
                if hi {
                    self.check_utf8(start, i)?;
                }
                if i - start > self.opts.max_string_bytes {
                    return Err(self.string_too_long(start));
                }
                if lt && crate::tag::contains_reserved_tag(&src[start..i]) {
                    self.b.mark_reserved_tag();
                }
                self.pos = i + 1;
                Ok(StrTok::Src {
                    start,
                    len: i - start,
                })
            }
            _ => self.lex_escaped(start, i, hi),
        }
    }

    #[cold]
    #[inline(never)]
    fn string_too_long(&self, start: usize) -> Error {
        self.err(
            Category::Limit,
            format!(
                "string longer than the limit of {} bytes",
                self.opts.max_string_bytes
            ),
            start + self.opts.max_string_bytes,
        )
    }

    #[inline]
    fn check_utf8(&self, start: usize, end: usize) -> Result<()> {
        match std::str::from_utf8(&self.src[start..end]) {
            Ok(_) => Ok(()),
            // A sequence cut by the end of the input: the string is cut short, not invalid.
            Err(e) if e.error_len().is_none() && end == self.src.len() => {
                Err(self.eof("expected '\"' to close the string"))
            }
            Err(e) => Err(self.err(Category::Utf8, "invalid UTF-8", start + e.valid_up_to())),
        }
    }

    /// The slow path of [`Parser::lex_string`]: `src[i]` is a backslash, a control byte or
    /// the end of the input; `src[start..i]` is a clean run (`hi`: it may hold non-ASCII).
    #[cold]
    #[inline(never)]
    fn lex_escaped(&mut self, start: usize, mut i: usize, mut hi: bool) -> Result<StrTok> {
        let src = self.src;
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        let mut run = start;
        let result = loop {
            if hi {
                if let Err(e) = self.check_utf8(run, i) {
                    break Err(e);
                }
            }
            scratch.extend_from_slice(&src[run..i]);
            match src.get(i) {
                None => break Err(self.eof("expected '\"' to close the string")),
                Some(b'"') => break Ok(()),
                Some(b'\\') => {}
                Some(&c) => {
                    break Err(self.err(
                        Category::Syntax,
                        format!("unescaped control character U+{c:04X} in a string"),
                        i,
                    ));
                }
            }
            // An escape at `i`.
            let Some(&e) = src.get(i + 1) else {
                break Err(self.eof("expected an escape character"));
            };
            let simple = match e {
                b'"' => Some(b'"'),
                b'\\' => Some(b'\\'),
                b'/' => Some(b'/'),
                b'b' => Some(0x08),
                b'f' => Some(0x0C),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                _ => None,
            };
            if let Some(c) = simple {
                scratch.push(c);
                i += 2;
            } else if e == b'u' {
                let cp = match self.hex4(i + 2) {
                    Ok(cp) => cp,
                    Err(e) => break Err(e),
                };
                i += 6;
                let ch = if (0xD800..0xDC00).contains(&cp) {
                    // A high surrogate: combine with a following low one if there is one.
                    let low = if src.get(i..i + 2) == Some(b"\\u") {
                        self.hex4(i + 2)
                            .ok()
                            .filter(|l| (0xDC00..0xE000).contains(l))
                    } else {
                        None
                    };
                    match low {
                        Some(low) => {
                            i += 6;
                            char::from_u32(
                                0x10000 + ((cp as u32 - 0xD800) << 10) + (low as u32 - 0xDC00),
                            )
                        }
                        None => None,
                    }
                } else {
                    char::from_u32(cp as u32)
                };
                match ch {
                    Some(ch) => {
                        let mut buf = [0u8; 4];
                        scratch.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    None => {
                        // A lone surrogate: kept as WTF-8.
                        scratch.extend_from_slice(&crate::escape::surrogate_to_wtf8(cp));
                        self.b.mark_lone_surrogate();
                    }
                }
            } else {
                let msg = if e.is_ascii_graphic() {
                    format!("invalid escape sequence '\\{}'", e as char)
                } else {
                    "invalid escape sequence".to_string()
                };
                break Err(self.err(Category::Syntax, msg, i));
            }
            run = i;
            let (next, h, _) = scan_run(src, i);
            i = next;
            hi = h;
        };
        let out = result.and_then(|()| {
            if i - start > self.opts.max_string_bytes {
                return Err(self.string_too_long(start));
            }
            if crate::tag::contains_reserved_tag(&scratch) {
                self.b.mark_reserved_tag();
            }
            self.pos = i + 1;
            Ok(StrTok::Scratch)
        });
        self.scratch = scratch;
        out
    }

    /// Four hex digits at `at` (the digits of a `\u` escape).
    fn hex4(&self, at: usize) -> Result<u16> {
        let mut v = 0u16;
        for k in 0..4 {
            match self.src.get(at + k) {
                None => return Err(self.eof("expected 4 hex digits")),
                Some(&b) => match hex_val(b) {
                    Some(d) => v = v << 4 | d,
                    None => {
                        return Err(self.err(
                            Category::Syntax,
                            "invalid \\u escape, expected 4 hex digits",
                            at + k,
                        ));
                    }
                },
            }
        }
        Ok(v)
    }

    /// `true`, `false` or `null` at the current position (its first byte already matched).
    #[inline(always)]
    pub(super) fn literal(&mut self, word: &'static [u8]) -> Result<()> {
        let end = self.pos + word.len();
        if self.src.get(self.pos..end) == Some(word) {
            self.pos = end;
            return Ok(());
        }
        Err(self.bad_literal(word))
    }

    #[cold]
    #[inline(never)]
    fn bad_literal(&self, word: &'static [u8]) -> Error {
        let mut i = self.pos;
        for &w in word {
            match self.src.get(i) {
                Some(&b) if b == w => i += 1,
                _ => break,
            }
        }
        let word = std::str::from_utf8(word).unwrap_or("");
        self.unexpected(&format!("invalid literal, expected '{word}'"), i)
    }

    /// A number at the current position (`-` or a digit); returns whether it is a
    /// non-integer. When skipping (`!EMIT`), a non-integer that could overflow is still
    /// converted and checked, so [`Parser::emit_number`] can later push it infallibly.
    #[inline(always)]
    pub(crate) fn number<const EMIT: bool>(&mut self) -> Result<bool> {
        let src = self.src;
        let start = self.pos;
        let mut i = start;
        if src.get(i) == Some(&b'-') {
            i += 1;
        }
        let int_start = i;
        match src.get(i) {
            Some(b'0') => {
                i += 1;
                if let Some(b'0'..=b'9') = src.get(i) {
                    return Err(self.err(
                        Category::Syntax,
                        "a number cannot have leading zeros",
                        int_start,
                    ));
                }
            }
            Some(b'1'..=b'9') => {
                i += 1;
                i = skip_digits(src, i);
            }
            _ => return Err(self.unexpected("expected a digit after '-'", i)),
        }
        let int_digits = i - int_start;
        let mut is_float = false;
        let mut has_exp = false;
        if src.get(i) == Some(&b'.') {
            i += 1;
            if !matches!(src.get(i), Some(b'0'..=b'9')) {
                return Err(self.unexpected("expected a digit after the decimal point", i));
            }
            i = skip_digits(src, i);
            is_float = true;
        }
        if let Some(b'e' | b'E') = src.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = src.get(i) {
                i += 1;
            }
            if !matches!(src.get(i), Some(b'0'..=b'9')) {
                return Err(self.unexpected("expected a digit in the exponent", i));
            }
            i = skip_digits(src, i);
            is_float = true;
            has_exp = true;
        }
        self.pos = i;
        if !is_float {
            if EMIT {
                self.b.int_src(start, i - start);
            }
            return Ok(false);
        }
        // A fraction written the way the writers would write its value is kept as its text:
        // nothing to convert now, nothing to format later.
        if EMIT && !has_exp && is_written_as_read(&src[start..i], int_digits) {
            self.b.float_src(start, i - start);
            return Ok(true);
        }
        // Without an exponent, a number below 10^308 cannot overflow: skipped values only
        // need the (slower) conversion when it could.
        if EMIT || has_exp || int_digits > 308 {
            let x = float_value(&src[start..i]);
            if x.is_infinite() {
                return Err(self.err(
                    Category::Number,
                    "number out of the range of a 64-bit float",
                    start,
                ));
            }
            if EMIT {
                self.b.float(x);
            }
        }
        Ok(true)
    }

    /// Pushes the number `src[start..end]` that [`Parser::number`] already validated.
    #[inline]
    pub(crate) fn emit_number(&mut self, start: usize, end: usize, is_float: bool) {
        if is_float {
            let lex = &self.src[start..end];
            let neg = usize::from(lex[0] == b'-');
            let int_digits = lex
                .iter()
                .skip(neg)
                .take_while(|b| b.is_ascii_digit())
                .count();
            let exp = lex.iter().any(|&b| b | 0x20 == b'e');
            if !exp && is_written_as_read(lex, int_digits) {
                self.b.float_src(start, end - start);
            } else {
                self.b.float(float_value(lex));
            }
        } else {
            self.b.int_src(start, end - start);
        }
    }
}
