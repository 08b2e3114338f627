//! The JSON parser: bytes → [`Doc`], one pass, no recursion.
//!
//! # Why a purpose-built scanner and not simd-json
//!
//! ARCHITECTURE.md planned simd-json. It cannot meet three of our contracts: it rejects
//! integers beyond 64 bits (WIRE.md §1.3 keeps every digit), it rejects lone surrogate
//! escapes such as `"\ud800"` (valid JSON; we keep them as WTF-8), and its tape cannot skip
//! unselected subtrees without materialising them (WIRE.md §4 pushes `_select` into the
//! parser). So this is a small scanner on byte dispatch, writing straight into a
//! [`DocBuilder`](crate::doc::DocBuilder).
//!
//! # The block kernels
//!
//! [`scan`] classifies the input 64 bytes at a time (quotes, backslashes, `{}[]:,`,
//! whitespace, and the bytes a string must look at: backslash, control, ≥ 0x80, `<`), with
//! the best kernel the CPU runs (AVX2, SSE2, NEON, or portable words), chosen once at run
//! time. The parser keeps the masks of the block under its position: a run of whitespace
//! ends at the first clear bit of the whitespace mask, and a string whose bytes hold none of
//! the special ones ends at the first quote bit, with no per-byte work, no UTF-8 check and no
//! tag check (it has no byte ≥ 0x80 and no `<`). Any other string (escapes, non-ASCII, `<`,
//! control bytes, the end of the input) takes the bytewise lexer below, which finds its end
//! 16 bytes at a time with SSE2 on x86_64 and 8 at a time with SWAR words elsewhere. Because
//! those masks need no string context, a parser can start at any position (the windowed
//! reader resumes one per window, the selection rereads members). The same kernels also build
//! a simdjson-style structural index (escape runs, in-string mask, pseudo-structural
//! characters), which the parser does not walk: building that index alone costs more
//! instructions than this whole parse (docs/DECISIONS.md). The bytewise parser is kept
//! (`test_hooks::with_kernel(None, ..)`) as the oracle of the differential tests.
//!
//! # How it works
//!
//! * Strings without escapes are borrowed from the input (`str_src`); strings with escapes
//!   are unescaped into a reused scratch buffer and copied into the document heap. A valid
//!   surrogate pair becomes one UTF-8 scalar; a lone surrogate (`\ud800`) is stored as its
//!   3-byte WTF-8 form.
//! * Integers (lexeme `-?(0|[1-9][0-9]*)`) are kept as their span of the input, all digits.
//!   Other numbers (`1.0`, `1e2`) are the nearest f64: Clinger's exact fast path when the
//!   significand fits in 53 bits and the power of ten in ±22, otherwise Rust's correctly
//!   rounded `str::parse::<f64>` (the same value `JSON.parse` gives). A non-integer that
//!   overflows f64 (`1e400`) is a [`Category::Number`] error; one that underflows
//!   (`1e-400`) is `0`, as in `JSON.parse`.
//! * Containers are tracked on an explicit stack (no recursion), so depth is limited only by
//!   [`ParseOptions::max_depth`] and the parser runs on any thread stack.
//! * UTF-8 is validated per string (only strings may hold non-ASCII bytes; any other
//!   non-ASCII byte is an error anyway), at the cost of one `from_utf8` per string that has
//!   a byte ≥ 0x80.
//! * Every string and key, including those a selector skips, is checked for a reserved tag
//!   sequence (only when it holds a `<`; on the unescaped text) and for a lone surrogate;
//!   the document flags record both (WIRE.md §2).
//!
//! # Errors
//!
//! Every error carries a byte offset, line and column, and a [`Category`]:
//! [`Syntax`](Category::Syntax), [`Eof`](Category::Eof) (the input ended early; also an
//! empty or all-whitespace input), [`Utf8`](Category::Utf8), [`Number`](Category::Number),
//! [`Depth`](Category::Depth), [`Limit`](Category::Limit). When the input has several
//! problems, the input size is checked first, then the first problem met scanning forward
//! is reported (a string's length is checked at its closing quote). A UTF-8 byte order
//! mark at the start is rejected (as `JSON.parse` and serde_json do).
//!
//! # Implementation-defined cases (JSONTestSuite `i_` files)
//!
//! RFC 8259 leaves these to the parser. Our decisions (tested file by file in
//! `tests/tests/json_suite.rs`):
//!
//! | file | decision | reason |
//! |---|---|---|
//! | `i_number_double_huge_neg_exp` | accept | `123.456e-789` underflows to 0, as `JSON.parse` |
//! | `i_number_huge_exp` | reject (Number) | `0.4e006699…` overflows f64 |
//! | `i_number_neg_int_huge_exp` | reject (Number) | `-1e+9999` overflows f64 |
//! | `i_number_pos_double_huge_exp` | reject (Number) | `1.5e+9999` overflows f64 |
//! | `i_number_real_neg_overflow` | reject (Number) | `-123123e100000` overflows f64 |
//! | `i_number_real_pos_overflow` | reject (Number) | `123123e100000` overflows f64 |
//! | `i_number_real_underflow` | accept | `123e-10000000` underflows to 0 |
//! | `i_number_too_big_neg_int` | accept | integers keep all their digits |
//! | `i_number_too_big_pos_int` | accept | integers keep all their digits |
//! | `i_number_very_big_negative_int` | accept | integers keep all their digits |
//! | `i_object_key_lone_2nd_surrogate` | accept | lone surrogate kept as WTF-8, flagged |
//! | `i_string_1st_surrogate_but_2nd_missing` | accept | lone surrogate kept as WTF-8 |
//! | `i_string_1st_valid_surrogate_2nd_invalid` | accept | lone high surrogate, then a BMP char |
//! | `i_string_UTF-16LE_with_BOM` | reject (Utf8) | UTF-16 is not UTF-8 |
//! | `i_string_UTF-8_invalid_sequence` | reject (Utf8) | invalid UTF-8 |
//! | `i_string_UTF8_surrogate_U+D800` | reject (Utf8) | raw `ED A0 80` is not UTF-8 (only the `\ud800` escape is allowed) |
//! | `i_string_incomplete_surrogate_and_escape_valid` | accept | lone surrogate, then `\n` |
//! | `i_string_incomplete_surrogate_pair` | accept | lone surrogate, then text |
//! | `i_string_incomplete_surrogates_escape_valid` | accept | two lone surrogates, then `\n` |
//! | `i_string_invalid_lonely_surrogate` | accept | lone surrogate kept as WTF-8 |
//! | `i_string_invalid_surrogate` | accept | lone surrogate, then text |
//! | `i_string_invalid_utf-8` | reject (Utf8) | byte `FF` |
//! | `i_string_inverted_surrogates_U+1D11E` | accept | low then high: two lone surrogates |
//! | `i_string_iso_latin_1` | reject (Utf8) | Latin-1 byte `E9` |
//! | `i_string_lone_second_surrogate` | accept | lone low surrogate kept as WTF-8 |
//! | `i_string_lone_utf8_continuation_byte` | reject (Utf8) | stray continuation byte |
//! | `i_string_not_in_unicode_range` | reject (Utf8) | beyond U+10FFFF |
//! | `i_string_overlong_sequence_2_bytes` | reject (Utf8) | overlong encoding |
//! | `i_string_overlong_sequence_6_bytes` | reject (Utf8) | overlong encoding |
//! | `i_string_overlong_sequence_6_bytes_null` | reject (Utf8) | overlong encoding |
//! | `i_string_truncated-utf-8` | reject (Utf8) | truncated sequence |
//! | `i_string_utf16BE_no_BOM` | reject (Syntax) | starts with a NUL byte |
//! | `i_string_utf16LE_no_BOM` | reject (Syntax) | NUL byte after `[` |
//! | `i_structure_500_nested_arrays` | reject (Depth) | deeper than the default limit 128 (accepted with `max_depth(500)`) |
//! | `i_structure_UTF-8_BOM_empty_object` | reject (Syntax) | byte order mark, as `JSON.parse` |

use std::borrow::Cow;

use crate::doc::{Doc, DocBuilder, Mark, Toon};
use crate::error::{Category, Error, Result};

/// The largest input a [`Doc`] can address (its spans are 32-bit).
const MAX_INPUT: usize = u32::MAX as usize;

/// Limits for [`parse`](crate::json::parse) and
/// [`parse_selected`](crate::json::parse_selected).
///
/// Every limit, when exceeded, is a positioned error: [`Category::Depth`] for the depth,
/// [`Category::Limit`] for the others.
///
/// ```
/// use toolwire::json::{ParseOptions, parse};
/// let opts = ParseOptions::new().max_depth(2);
/// assert!(parse(b"[[1]]", &opts).is_ok());
/// let err = parse(b"[[[1]]]", &opts).unwrap_err();
/// assert_eq!(err.classify(), toolwire::Category::Depth);
/// assert_eq!(err.column(), 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    pub(crate) max_depth: usize,
    pub(crate) max_input_bytes: usize,
    pub(crate) max_string_bytes: usize,
    pub(crate) max_keys_per_object: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions::new()
    }
}

impl ParseOptions {
    /// Default [`max_depth`](ParseOptions::max_depth): 128 nested arrays/objects.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// Default [`max_input_bytes`](ParseOptions::max_input_bytes): 1 GiB.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 1 << 30;
    /// Default [`max_string_bytes`](ParseOptions::max_string_bytes): 256 MiB.
    pub const DEFAULT_MAX_STRING_BYTES: usize = 256 << 20;
    /// Default [`max_keys_per_object`](ParseOptions::max_keys_per_object): 1 000 000.
    pub const DEFAULT_MAX_KEYS_PER_OBJECT: usize = 1_000_000;

    /// The defaults: depth 128, input 1 GiB, string 256 MiB, 1 000 000 keys per object.
    pub const fn new() -> Self {
        ParseOptions {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_input_bytes: Self::DEFAULT_MAX_INPUT_BYTES,
            max_string_bytes: Self::DEFAULT_MAX_STRING_BYTES,
            max_keys_per_object: Self::DEFAULT_MAX_KEYS_PER_OBJECT,
        }
    }

    /// Most arrays/objects open at once. `0` accepts only a scalar document; `1` accepts
    /// `[1, 2]` but not `[[1]]`. The error points at the bracket that goes too deep.
    pub const fn max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// Largest input in bytes. Values above 4 GiB − 1 (the most a [`Doc`] can address)
    /// are lowered to it. The error points at the first byte past the limit.
    pub const fn max_input_bytes(mut self, n: usize) -> Self {
        self.max_input_bytes = if n > MAX_INPUT { MAX_INPUT } else { n };
        self
    }

    /// Longest string or key, in bytes as written in the input (between the quotes,
    /// escapes counted as written). The error points at the first byte past the limit.
    pub const fn max_string_bytes(mut self, n: usize) -> Self {
        self.max_string_bytes = n;
        self
    }

    /// Most members in one object, counted as written (duplicate keys included). The error
    /// points at the first key past the limit.
    pub const fn max_keys_per_object(mut self, n: usize) -> Self {
        self.max_keys_per_object = n;
        self
    }
}

/// Parses a whole JSON text into a [`Doc`] that borrows unescaped strings and integer
/// lexemes from `bytes`.
///
/// Integers keep all their digits, other numbers are the nearest f64, duplicate keys keep
/// the last value at the first key's position, lone surrogate escapes are kept (as WTF-8).
/// The implementation-defined cases of RFC 8259 (huge exponents, invalid UTF-8, BOM, deep
/// nesting) are decided as in the table of the parser's module documentation: overflowing
/// non-integers, invalid UTF-8 and a byte order mark are rejected.
///
/// ```
/// use toolwire::json::{ParseOptions, parse};
/// let doc = parse(br#"{"id": 123456789012345678901234567890, "x": 1.50}"#, &ParseOptions::new())?;
/// assert_eq!(format!("{:?}", doc.root()), r#"{"id": 123456789012345678901234567890, "x": 1.5}"#);
/// # Ok::<(), toolwire::Error>(())
/// ```
///
/// # Errors
///
/// A positioned [`Error`] for invalid JSON or an exceeded limit (see [`ParseOptions`]):
/// [`Category::Syntax`], [`Category::Eof`] (the input ended early; an empty or
/// all-whitespace input is `Eof` too, message `empty input, expected a JSON value`),
/// [`Category::Utf8`], [`Category::Number`] (a non-integer beyond f64), [`Category::Depth`],
/// [`Category::Limit`]. The input size is checked first; otherwise the first problem met
/// scanning forward is reported (a string's length is checked at its closing quote).
pub fn parse<'s>(bytes: &'s [u8], opts: &ParseOptions) -> Result<Doc<'s>> {
    // About one node per 6 input bytes on row-shaped data (`"k":123,`); the vectors grow
    // if that is short. Capacity that is never touched costs no physical memory.
    // About one node per 10 input bytes (the invoice corpus has 10.4); denser documents grow
    // the tape by reallocation, sparser ones get the slack back in `DocBuilder::finish`.
    let mut p = Parser::new(bytes, opts, (bytes.len() / 10).min(1 << 26))?;
    p.value::<true>(0)?;
    p.finish()
}

/// One open container on the explicit stack.
struct Frame {
    /// The builder mark (None while skipping).
    mark: Option<Mark>,
    /// Elements or members completed so far.
    count: usize,
    is_object: bool,
    /// Every key so far repeated the key at its place in the last object remembered at this
    /// level ([`Parser::key`]).
    repeated: bool,
    /// Every member so far matched the row layout of this level ([`Parser::row_members`]),
    /// which goes on with the member after the value being parsed.
    row: bool,
}

/// Nesting levels (1 = the root) whose objects get a row layout.
const ROW_LEVELS: usize = 8;

/// Objects with more members get no row layout (nor do their next ones).
pub(crate) const ROW_MEMBERS: usize = 256;

/// A piece of an object as it stood in the input: `src[at..at + len]`, the bytes from the end
/// of a member's value (for the first member, from the `{`) through the `:` after the next
/// key and the whitespace after it, whose key starts at offset `key` (for the closing piece,
/// the bytes from the end of the last value through the `}`; no key).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sep {
    /// The first 16 bytes (little-endian; zero past `len`) and the mask of the `len` of
    /// them that are the piece's: a piece of up to 16 bytes is matched with one load.
    head: u128,
    mask: u128,
    at: u32,
    len: u32,
    key: u32,
    /// The key's tape head ([`DocBuilder::key_head`], which holds its length; for the
    /// closing piece an empty key's, never pushed).
    key_head: u32,
}

impl Sep {
    /// The piece `src[at..end]` whose key is `key_len` bytes from offset `key`; `None` when
    /// that key is too long for a tape head.
    pub(crate) fn new(
        src: &[u8],
        at: usize,
        end: usize,
        key: usize,
        key_len: usize,
    ) -> Option<Sep> {
        let key_head = DocBuilder::key_head_of(key_len)?;
        let len = end - at;
        let n = len.min(16);
        let mut head = [0u8; 16];
        head[..n].copy_from_slice(&src[at..at + n]);
        Some(Sep {
            head: u128::from_le_bytes(head),
            mask: u128::MAX >> (8 * (16 - n)),
            at: at as u32,
            len: len as u32,
            key: key as u32,
            key_head,
        })
    }

    /// How many bytes the piece has.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// The key's tape head ([`DocBuilder::key_head`]).
    #[inline(always)]
    pub(crate) fn key_head(&self) -> u32 {
        self.key_head
    }

    /// Where the key is in a copy of the piece that starts at `pos`, and its length.
    #[inline(always)]
    pub(crate) fn key_at(&self, pos: usize) -> (usize, usize) {
        (
            pos + self.key as usize,
            DocBuilder::key_head_len(self.key_head),
        )
    }

    /// Whether `src[pos..]` starts with this piece's bytes (`src[at..at + len]`).
    #[inline(always)]
    pub(crate) fn matches(&self, src: &[u8], pos: usize) -> bool {
        let len = self.len as usize;
        if len <= 16 {
            if let Some(w) = src.get(pos..pos + 16) {
                let mut b = [0u8; 16];
                b.copy_from_slice(w);
                return (u128::from_le_bytes(b) ^ self.head) & self.mask == 0;
            }
        }
        let at = self.at as usize;
        match src.get(pos..pos + len) {
            Some(here) => bytes_eq(here, &src[at..at + len]),
            None => false,
        }
    }
}

/// What [`Parser::row_members`] stopped at.
enum RowStop {
    /// The object matched its layout to the `}` (the position is past it): this many
    /// members.
    Closed(usize),
    /// The members before this one are complete; the bytes that follow are not the
    /// layout's (nothing of them consumed).
    Member(usize),
    /// The key of this member is pushed and its value is not a string, number or literal
    /// (the position is at it, whitespace skipped).
    Value(usize),
}

/// What [`Parser::rows_run`] did.
struct RowsRun {
    /// Objects closed before the last one.
    extra: usize,
    /// The last one (open unless `stop` is [`RowStop::Closed`]; `None` while skipping), and
    /// whether its keys so far are the builder's remembered ones.
    mark: Option<Mark>,
    repeated: bool,
    stop: RowStop,
}

/// A layout as [`Parser::walk`] walks it: its member pieces and its closing one, with the
/// parser's string classifier and string bound.
#[derive(Clone, Copy)]
struct Walker<'l> {
    close: &'l Sep,
    members: &'l [Sep],
    classify: scan::StrKernel,
    max_string: usize,
}

/// The parser's memory of one nesting level for its row layouts.
#[derive(Default)]
struct RowState {
    /// The pieces of the object being parsed at this level by the general loop, so far.
    next: Vec<Sep>,
    /// `next` is complete so far (every key taken from the input as is, no more than
    /// [`ROW_MEMBERS`]).
    next_ok: bool,
    /// Whether the layout's keys are the keys the builder remembers at this level, as of
    /// the builder's key generation `gen` (`checked`: known at all).
    agree: bool,
    checked: bool,
    generation: u32,
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
    Plain {
        start: usize,
        len: usize,
        toon: Toon,
    },
    Scratch,
}

/// The parser state shared by [`parse`] and `parse_selected`.
pub(crate) struct Parser<'s, 'o> {
    pub(crate) src: &'s [u8],
    pub(crate) pos: usize,
    pub(crate) opts: &'o ParseOptions,
    pub(crate) b: DocBuilder<'s>,
    stack: Vec<Frame>,
    pub(crate) scratch: Vec<u8>,
    /// The block kernel, or `None` for the bytewise path (the old parser, kept as the
    /// oracle of the differential tests).
    classify: Option<fn(&[u8; scan::BLOCK]) -> scan::Raw>,
    /// The kernel's string classifier (`None` with `classify`).
    classify_str: Option<scan::StrKernel>,
    /// The start of the block whose string masks are in `blk` (`usize::MAX`: none yet).
    blk_at: usize,
    blk: scan::Str,
    /// Per nesting level (below [`ROW_LEVELS`]), the row layout: the pieces ([`Sep`]) of
    /// the last object the general loop parsed to its end there, its members' then its
    /// closing one (empty: none). The next object at that level whose bytes repeat them
    /// piece by piece (the next row of a collection, whatever its whitespace) needs no key
    /// lexed and no structural byte looked at: only its values ([`Parser::row_members`]).
    /// Layouts are made and walked alike when parsing and when only validating (the values
    /// a selection skips): the pieces are bytes of the input either way. Without a kernel
    /// (the bytewise oracle), no layouts.
    layouts: Vec<Vec<Sep>>,
    rows: Vec<RowState>,
}

pub(crate) mod scan;
mod swar;
#[cfg(test)]
mod tests;

use crate::num::{float_value, is_written_as_read};
use scan::Kernel;
use swar::*;

thread_local! {
    /// The kernel a test or bench forced on this thread (`Some(None)`: the bytewise path).
    static FORCED: std::cell::Cell<Option<Option<Kernel>>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with every parser on this thread using `kernel` (`None`: the bytewise path
/// without block masks); `None` when this CPU cannot run `kernel`.
pub(crate) fn with_kernel<T>(kernel: Option<Kernel>, f: impl FnOnce() -> T) -> Option<T> {
    if kernel.is_some_and(|k| !k.is_available()) {
        return None;
    }
    struct Restore(Option<Option<Kernel>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            FORCED.set(self.0);
        }
    }
    let _restore = Restore(FORCED.replace(Some(kernel)));
    Some(f())
}

/// The kernel parsers use on this thread (`None`: the bytewise path).
pub(crate) fn kernel() -> Option<Kernel> {
    FORCED.get().unwrap_or_else(|| Some(Kernel::detected()))
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

    /// Lexes the key of member `count` and the `:` after it (as [`Parser::member_key`]) and
    /// pushes it (`EMIT`). While every key so far repeated the remembered one at its place
    /// (`*repeated`, [`DocBuilder::remembered_key`]), this one is first compared with that
    /// key's bytes: a repeat (the next row of a collection) needs no lexing, and once every key
    /// repeated, the closed object no key comparison ([`DocBuilder::end_object_repeated`]).
    /// Identical bytes of a key lexed before in this document set no new flags. Returns where
    /// the key is in the input when it is there as is (no escapes).
    #[inline(always)]
    fn key<const EMIT: bool>(
        &mut self,
        count: usize,
        repeated: &mut bool,
    ) -> Result<Option<(usize, usize)>> {
        if EMIT && *repeated {
            if let Some((start, len)) = self.b.remembered_key(count) {
                let at = self.pos + 1;
                if self.repeats_key(start, len, count) {
                    self.b.str_src(at, len);
                    return Ok(Some((at, len)));
                }
            }
            *repeated = false;
        }
        let key = self.member_key(count)?;
        let span = match key {
            StrTok::Plain { start, len, .. } | StrTok::Src { start, len } => Some((start, len)),
            StrTok::Scratch => None,
        };
        if EMIT {
            // Keys are never plain nodes ([`Node::StrPlain`] is for values).
            match key {
                StrTok::Plain { start, len, .. } => self.b.str_src(start, len),
                key => self.push_str(key),
            }
        }
        Ok(span)
    }

    /// Records the piece of member `count` of the object the general loop is parsing at
    /// `level`: from `at` to the position (just past the `:`), its key at `key` when that is
    /// in the input as is (otherwise the object gets no layout).
    #[inline(always)]
    fn note_member(&mut self, level: usize, count: usize, at: usize, key: Option<(usize, usize)>) {
        if self.classify.is_none() || level >= ROW_LEVELS {
            return;
        }
        if self.rows.len() <= level {
            self.rows.resize_with(level + 1, RowState::default);
            self.layouts.resize_with(level + 1, Vec::new);
        }
        let row = &mut self.rows[level];
        if count == 0 {
            row.next.clear();
            row.next_ok = true;
        }
        let sep = match key {
            Some((k, key_len)) if row.next_ok && row.next.len() == count && count < ROW_MEMBERS => {
                Sep::new(self.src, at, self.pos, k - at, key_len)
            }
            _ => None,
        };
        match sep {
            Some(sep) => row.next.push(sep),
            None => row.next_ok = false,
        }
    }

    /// The general loop closed the object at `level` whose last value ended at `at` (the
    /// position is past the `}`): when its pieces are all known, they are the level's layout.
    #[inline(always)]
    fn note_close(&mut self, level: usize, at: usize) {
        let Some(row) = self.rows.get_mut(level) else {
            return;
        };
        if row.next_ok && !row.next.is_empty() {
            // A closing piece has no key (0 bytes, which always fit).
            row.next.extend(Sep::new(self.src, at, self.pos, 0, 0));
            std::mem::swap(&mut row.next, &mut self.layouts[level]);
            row.checked = false;
        }
        row.next_ok = false;
    }

    /// Whether the keys of the layout at `level` are the ones the builder remembers at the
    /// level of the object just opened (so an object that repeats the layout is
    /// `repeated`); rechecked only when the layout or those keys changed.
    #[inline(always)]
    fn row_agrees(&mut self, level: usize, seps: &[Sep]) -> bool {
        let generation = self.b.keys_gen();
        let row = &self.rows[level];
        if row.checked && row.generation == generation {
            return row.agree;
        }
        let src = self.src;
        let keys = seps[..seps.len() - 1]
            .iter()
            .map(|s| &src[(s.at + s.key) as usize..][..DocBuilder::key_head_len(s.key_head)]);
        let agree = self.b.remembered_keys_are(keys);
        let row = &mut self.rows[level];
        row.agree = agree;
        row.generation = generation;
        row.checked = true;
        agree
    }

    /// Parses objects at `level` (the position is at a `{`) through the level's layout
    /// ([`Parser::row_members`]), each opened and, when it matched to its `}`, closed
    /// (`EMIT`; otherwise only validated); while `in_array` and the next element of the array
    /// is an object too, that one next, without going back to the general loop (the rows of
    /// a collection). Returns how many objects it closed before the last one, and where it
    /// stopped in that one (closed, or open at `mark`).
    #[inline(never)]
    fn rows_run<const EMIT: bool>(&mut self, level: usize, in_array: bool) -> Result<RowsRun> {
        let seps = std::mem::take(&mut self.layouts[level]);
        let mut extra = 0;
        let run = loop {
            let mark = EMIT.then(|| self.b.begin_object());
            let repeated = EMIT && self.row_agrees(level, &seps);
            let stop = match self.row_walk::<EMIT>(&seps, 0) {
                Ok(stop) => stop,
                Err(e) => break Err(e),
            };
            if let RowStop::Closed(n) = stop {
                let same = mark.is_some_and(|m| self.b.end_object_repeated::<true>(m, n, repeated));
                if in_array && self.next_row() {
                    extra += 1;
                    if same {
                        break self.same_rows(&seps).map(|(closed, mark, stop)| RowsRun {
                            extra: extra + closed,
                            mark: Some(mark),
                            repeated: true,
                            stop,
                        });
                    }
                    continue;
                }
            }
            break Ok(RowsRun {
                extra,
                mark,
                repeated,
                stop,
            });
        };
        if let Ok(RowsRun {
            stop: RowStop::Member(i @ 1..),
            ..
        }) = run
        {
            self.continue_layout(level, &seps[..i]);
        }
        self.layouts[level] = seps;
        run
    }

    /// The rows of a run (the position is at the `{` of one) after a row that
    /// [`DocBuilder::end_object_repeated`] closed as `same_keys` and `flat` through the
    /// layout `seps`: each one that matches the layout to its `}` is too, opened and closed
    /// with none of the builder's checks ([`DocBuilder::begin_same_row`]). A loop of its
    /// own, apart from the first row's: fewer values live through it. Returns how many rows
    /// it closed before the last one, and where it stopped in that one (open at the mark
    /// unless the stop is [`RowStop::Closed`], the end of the run).
    #[inline(never)]
    fn same_rows(&mut self, seps: &[Sep]) -> Result<(usize, Mark, RowStop)> {
        let mut closed = 0;
        let walker = self.walker(seps);
        loop {
            let mark = self.b.begin_same_row();
            let stop = match walker {
                Some(w) => self.walk::<true>(w, 0)?,
                None => RowStop::Member(0),
            };
            let RowStop::Closed(n) = stop else {
                return Ok((closed, mark, stop));
            };
            self.b.end_same_row(mark, n);
            if !self.next_row() {
                return Ok((closed, mark, stop));
            }
            closed += 1;
        }
    }

    /// Moves past `,` and the whitespace around it to the `{` of the next element when that
    /// is what follows (otherwise stays).
    #[inline(always)]
    pub(crate) fn next_row(&mut self) -> bool {
        let at = self.pos;
        // The common case, rows written without whitespace between them: `,{` in one compare.
        if self.src.get(at..at + 2) == Some(b",{") {
            self.pos = at + 1;
            return true;
        }
        self.skip_ws();
        if self.peek() == Some(b',') {
            self.pos += 1;
            self.skip_ws();
            if self.peek() == Some(b'{') {
                return true;
            }
        }
        self.pos = at;
        false
    }

    /// The object at `level` matched the layout's pieces `seps` and goes on in the general
    /// loop: they are the first pieces of the layout it makes.
    fn continue_layout(&mut self, level: usize, seps: &[Sep]) {
        let row = &mut self.rows[level];
        row.next.clear();
        row.next.extend_from_slice(seps);
        row.next_ok = true;
    }

    /// Parses the members of the object open at `level` from member `from` on while its bytes
    /// repeat the level's layout piece by piece (the position is where piece `from` starts:
    /// at the `{`, or at the end of the value before), pushing (`EMIT`) each key and each
    /// string, number and literal value. Those bytes are the ones the general loop validated
    /// (a key at the same member count, so within the same limits, and flags already set), so
    /// they need no lexing: identical input, identical document and errors. When it stops
    /// before the end, the general loop goes on, and the layout's pieces so far are the first
    /// of the next one.
    #[inline(always)]
    fn row_members<const EMIT: bool>(&mut self, level: usize, from: usize) -> Result<RowStop> {
        let seps = std::mem::take(&mut self.layouts[level]);
        let stop = self.row_walk_apart::<EMIT>(&seps, from);
        if let Ok(RowStop::Member(i @ 1..)) = stop {
            self.continue_layout(level, &seps[..i]);
        }
        self.layouts[level] = seps;
        stop
    }

    /// [`Parser::row_walk`] on its own: inlined into the general loop it took more
    /// instructions (the registers the general loop holds spilled).
    #[inline(never)]
    fn row_walk_apart<const EMIT: bool>(&mut self, seps: &[Sep], from: usize) -> Result<RowStop> {
        self.row_walk::<EMIT>(seps, from)
    }

    /// The loop of [`Parser::row_members`] and [`Parser::rows_run`] (inlined into the run: a
    /// call per row cost its prologue and a result through memory).
    #[inline(always)]
    fn row_walk<const EMIT: bool>(&mut self, seps: &[Sep], from: usize) -> Result<RowStop> {
        match self.walker(seps) {
            Some(w) => self.walk::<EMIT>(w, from),
            None => Ok(RowStop::Member(from)),
        }
    }

    /// What [`Parser::walk`] takes of the layout `seps` and of the parser (once for a run of
    /// rows): `None` for an empty layout, or without a kernel (layouts are made only with
    /// one).
    #[inline(always)]
    fn walker<'l>(&self, seps: &'l [Sep]) -> Option<Walker<'l>> {
        let (close, members) = seps.split_last()?;
        Some(Walker {
            close,
            members,
            classify: self.classify_str?,
            max_string: self.opts.max_string_bytes.min(DocBuilder::SHORT_STR_MAX),
        })
    }

    /// The loop of [`Parser::row_walk`], from member `from`.
    #[inline(always)]
    fn walk<const EMIT: bool>(&mut self, w: Walker<'_>, from: usize) -> Result<RowStop> {
        let Walker {
            close,
            members,
            classify,
            max_string,
        } = w;
        let src = self.src;
        // The position lives in a register through the row; `self.pos` is set where the
        // general lexers take over, and read back after them.
        let mut pos = self.pos;
        // No counter through the loop: a member's number is how many pieces are left.
        let mut rest = members.get(from..).unwrap_or_default().iter();
        while let Some(sep) = rest.next() {
            let i = members.len() - 1 - rest.len();
            if !sep.matches(src, pos) {
                self.pos = pos;
                return Ok(RowStop::Member(i));
            }
            if EMIT {
                self.b.key_head(sep.key_head, pos + sep.key as usize);
            }
            pos += sep.len as usize;
            match self.walk_scalar::<EMIT>(src, pos, classify, max_string)? {
                Some(next) => pos = next,
                None => {
                    self.pos = pos;
                    return Ok(RowStop::Value(i));
                }
            }
        }
        self.pos = pos;
        if close.matches(src, pos) {
            self.pos = pos + close.len as usize;
            return Ok(RowStop::Closed(members.len()));
        }
        Ok(RowStop::Member(members.len()))
    }

    /// The string, number or literal at `pos` (a value's place in a row layout), pushed
    /// (`EMIT`) or only validated, strings without escapes from the block masks of
    /// `classify`: the position after it, or `None` (nothing read) when the value there is
    /// something else. `max_string` is the options' string limit taken once by the caller,
    /// and at most [`DocBuilder::SHORT_STR_MAX`]: a longer string goes to the general
    /// lexer, which checks the options' limit itself.
    #[inline(always)]
    pub(crate) fn walk_scalar<const EMIT: bool>(
        &mut self,
        src: &'s [u8],
        pos: usize,
        classify: scan::StrKernel,
        max_string: usize,
    ) -> Result<Option<usize>> {
        let next = match src.get(pos) {
            Some(b'"') => {
                let start = pos + 1;
                match self.plain_with::<EMIT>(src, start, classify) {
                    Ok((end, toon)) if end - start <= max_string => {
                        if EMIT {
                            self.b.str_plain_short(start, end - start, toon);
                        }
                        end + 1
                    }
                    _ => {
                        self.pos = pos;
                        let tok = self.lex_string()?;
                        if EMIT {
                            self.push_str(tok);
                        }
                        self.pos
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => match short_int(src, pos) {
                // A short integer from one word (a count, an amount in cents).
                Some(end) => {
                    if EMIT {
                        self.b.int_src(pos, end - pos);
                    }
                    end
                }
                None => {
                    self.pos = pos;
                    self.number::<EMIT>()?;
                    self.pos
                }
            },
            Some(b't') => {
                self.pos = pos;
                self.literal(b"true")?;
                if EMIT {
                    self.b.bool(true);
                }
                pos + 4
            }
            Some(b'f') => {
                self.pos = pos;
                self.literal(b"false")?;
                if EMIT {
                    self.b.bool(false);
                }
                pos + 5
            }
            Some(b'n') => {
                self.pos = pos;
                self.literal(b"null")?;
                if EMIT {
                    self.b.null();
                }
                pos + 4
            }
            _ => return Ok(None),
        };
        Ok(Some(next))
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

    /// Validates and skips one value at the current position (whitespace already skipped)
    /// inside `depth` open containers: [`Parser::value`] without output, with the scalars
    /// dispatched here so a skipped member costs no call into the container loop. Same
    /// errors, same document flags.
    #[inline(always)]
    pub(crate) fn skip_value(&mut self, depth: usize) -> Result<()> {
        match self.peek() {
            Some(b'"') => self.lex_string().map(drop),
            Some(b'-' | b'0'..=b'9') => self.number::<false>().map(drop),
            Some(b't' | b'f' | b'n') => self.skip_literal(depth),
            _ => self.value::<false>(depth),
        }
    }

    /// Skips `true`, `false` or `null` at the current position without branching on
    /// which (a random `true`/`false` column would mispredict); anything else takes
    /// [`Parser::value`] for its error.
    #[inline(always)]
    fn skip_literal(&mut self, depth: usize) -> Result<()> {
        let at = self.pos;
        let n = match self.src.get(at..at + 8) {
            Some(w) => {
                let mut word = [0u8; 8];
                word.copy_from_slice(w);
                let w = u64::from_le_bytes(word);
                let w4 = w as u32;
                let four = w4 == u32::from_le_bytes(*b"true") || w4 == u32::from_le_bytes(*b"null");
                let five = w & 0xFF_FFFF_FFFF == u64::from_le_bytes(*b"false\0\0\0");
                usize::from(four) * 4 + usize::from(five) * 5
            }
            None => 0,
        };
        if n == 0 {
            return self.value::<false>(depth);
        }
        self.pos = at + n;
        Ok(())
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
        // finds the same stop and the same flags as scanning from `start`.
        let (i, hi, lt) = scan_run(src, clean);
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
    fn literal(&mut self, word: &'static [u8]) -> Result<()> {
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

    /// Parses (`EMIT`) or validates and skips (`!EMIT`) one complete value at the current
    /// position (whitespace first), inside `depth` open containers. Skipped values still set
    /// the document flags.
    pub(crate) fn value<const EMIT: bool>(&mut self, depth: usize) -> Result<()> {
        // The explicit stack: `self.stack[base..]` are the containers opened by this call.
        let base = self.stack.len();
        'value: loop {
            self.skip_ws();
            let Some(c) = self.peek() else {
                return Err(self.eof("expected a value"));
            };
            match c {
                b'"' => {
                    let tok = self.lex_string()?;
                    if EMIT {
                        self.push_str(tok);
                    }
                }
                b'{' | b'[' => {
                    let level = depth + (self.stack.len() - base) + 1;
                    self.check_depth(level)?;
                    let is_object = c == b'{';
                    // The next rows of a collection: their members as the level's layout.
                    let laid_out =
                        is_object && self.layouts.get(level).is_some_and(|l| !l.is_empty());
                    let mut general = true;
                    let mut mark = None;
                    if laid_out {
                        let in_array = self.stack.len() > base
                            && self.stack.last().is_some_and(|f| !f.is_object);
                        let run = self.rows_run::<EMIT>(level, in_array)?;
                        if let Some(top) = self.stack.last_mut().filter(|_| run.extra > 0) {
                            top.count += run.extra;
                        }
                        let frame = |count, row| Frame {
                            mark: run.mark,
                            count,
                            is_object,
                            repeated: run.repeated,
                            row,
                        };
                        match run.stop {
                            RowStop::Member(0) => mark = run.mark,
                            RowStop::Closed(_) => general = false,
                            // The container loop below counts the member just completed.
                            RowStop::Member(i) => {
                                self.stack.push(frame(i - 1, false));
                                general = false;
                            }
                            RowStop::Value(i) => {
                                self.stack.push(frame(i, true));
                                continue 'value;
                            }
                        }
                    } else {
                        mark = match (EMIT, is_object) {
                            (false, _) => None,
                            (true, true) => Some(self.b.begin_object()),
                            (true, false) => Some(self.b.begin_array()),
                        };
                    }
                    if general {
                        let brace = self.pos;
                        self.pos += 1;
                        self.skip_ws();
                        let close = if is_object { b'}' } else { b']' };
                        if self.peek() == Some(close) {
                            self.pos += 1;
                            if let Some(m) = mark {
                                if is_object {
                                    self.b.end_object(m, 0);
                                } else {
                                    self.b.end_array(m, 0);
                                }
                            }
                        } else {
                            let mut repeated = EMIT;
                            if is_object {
                                let key = self.key::<EMIT>(0, &mut repeated)?;
                                self.skip_ws();
                                self.note_member(level, 0, brace, key);
                            }
                            self.stack.push(Frame {
                                mark,
                                count: 0,
                                is_object,
                                repeated,
                                row: false,
                            });
                            continue 'value;
                        }
                    }
                }
                b't' => {
                    self.literal(b"true")?;
                    if EMIT {
                        self.b.bool(true);
                    }
                }
                b'f' => {
                    self.literal(b"false")?;
                    if EMIT {
                        self.b.bool(false);
                    }
                }
                b'n' => {
                    self.literal(b"null")?;
                    if EMIT {
                        self.b.null();
                    }
                }
                b'-' | b'0'..=b'9' => {
                    self.number::<EMIT>()?;
                }
                _ => return Err(self.unexpected("expected a value", self.pos)),
            }
            // A value is complete: close the containers it completes.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                let level = depth + (self.stack.len() - base);
                let Some(top) = self.stack.last_mut() else {
                    return Ok(());
                };
                top.count += 1;
                let (mut count, is_object, repeated) = (top.count, top.is_object, top.repeated);
                if top.row {
                    match self.row_members::<EMIT>(level, count)? {
                        RowStop::Closed(n) => {
                            if let Some(Frame { mark: Some(m), .. }) = self.stack.pop() {
                                self.b.end_object_repeated::<false>(m, n, repeated);
                            }
                            continue;
                        }
                        RowStop::Value(i) => {
                            if let Some(top) = self.stack.last_mut() {
                                top.count = i;
                            }
                            continue 'value;
                        }
                        RowStop::Member(i) => {
                            if let Some(top) = self.stack.last_mut() {
                                top.count = i;
                                top.row = false;
                            }
                            count = i;
                        }
                    }
                }
                let value_end = self.pos;
                self.skip_ws();
                match (self.peek(), is_object) {
                    (Some(b','), false) => {
                        self.pos += 1;
                        continue 'value;
                    }
                    (Some(b','), true) => {
                        self.pos += 1;
                        self.skip_ws();
                        let mut repeated = repeated;
                        let key = self.key::<EMIT>(count, &mut repeated)?;
                        if let Some(top) = self.stack.last_mut() {
                            top.repeated = repeated;
                        }
                        self.skip_ws();
                        self.note_member(level, count, value_end, key);
                        continue 'value;
                    }
                    (Some(b']'), false) | (Some(b'}'), true) => {
                        self.pos += 1;
                        if let Some(Frame {
                            mark,
                            count,
                            is_object,
                            repeated,
                            ..
                        }) = self.stack.pop()
                        {
                            if is_object {
                                if let Some(m) = mark {
                                    self.b.end_object_repeated::<false>(m, count, repeated);
                                }
                                self.note_close(level, value_end);
                            } else if let Some(m) = mark {
                                self.b.end_array(m, count);
                            }
                        }
                    }
                    (_, false) => {
                        return Err(
                            self.unexpected("expected ',' or ']' after an array element", self.pos)
                        );
                    }
                    (_, true) => {
                        return Err(
                            self.unexpected("expected ',' or '}' after an object member", self.pos)
                        );
                    }
                }
            }
        }
    }
}
