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
//! reader resumes one per window, the selection rereads members). There is no
//! simdjson-style structural index: building one alone cost more instructions than this
//! whole parse (docs/DECISIONS.md). The bytewise parser is kept
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
//!   non-ASCII byte is an error anyway): a string without escapes is scanned and validated
//!   in one pass from its first byte ≥ 0x80 (`swar::scan_run_utf8`); the runs of one with
//!   escapes, and any string found invalid, by `from_utf8` (its error position).
//! * Every string and key, including those a selector skips, is checked for a reserved tag
//!   sequence (only when it holds a `<`; on the unescaped text) and for a lone surrogate;
//!   the document flags record both (WIRE.md §2).
//!
//! # Errors
//!
//! Every error carries a byte offset, line and column, and a [`Category`]: [`Syntax`],
//! [`Eof`] (the input ended early; also an empty or all-whitespace input), [`Utf8`],
//! [`Number`], [`Depth`], [`Limit`]. When the input has several problems, the input size is
//! checked first, then the first problem met scanning forward is reported (a string's length
//! is checked at its closing quote). A UTF-8 byte order mark at the start is rejected (as
//! `JSON.parse` and serde_json do).
//!
//! # The files
//!
//! * `options.rs`: [`ParseOptions`], the limits.
//! * `lex.rs`: the parser's state and what both walks share: whitespace, strings (from the
//!   block masks or byte by byte), numbers, literals, keys, positioned errors.
//! * `general.rs`: the general walk of any value, its containers on an explicit stack.
//! * `layout.rs`: row layouts, the pieces of an object as it stood in the input, remembered
//!   per nesting level.
//! * `rows.rs`: the row-layout path: objects that repeat their level's layout, and the loop
//!   of the rows that follow one closed as `same_keys`.
//! * `scan/`: the block kernels; `swar.rs`: word-at-a-time helpers.
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
//!
//! [`Category`]: crate::Category
//! [`Category::Number`]: crate::Category::Number
//! [`Syntax`]: crate::Category::Syntax
//! [`Eof`]: crate::Category::Eof
//! [`Utf8`]: crate::Category::Utf8
//! [`Number`]: crate::Category::Number
//! [`Depth`]: crate::Category::Depth
//! [`Limit`]: crate::Category::Limit

mod general;
mod layout;
mod lex;
mod options;
mod rows;
pub(crate) mod scan;
mod swar;
#[cfg(test)]
mod tests;

pub(crate) use layout::{ROW_MEMBERS, Sep};
pub(crate) use lex::{Parser, StrTok};
pub use options::ParseOptions;
pub(crate) use scan::with_kernel;

use crate::doc::Doc;
use crate::error::Result;

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
///
/// [`Error`]: crate::Error
/// [`Category::Syntax`]: crate::Category::Syntax
/// [`Category::Eof`]: crate::Category::Eof
/// [`Category::Utf8`]: crate::Category::Utf8
/// [`Category::Number`]: crate::Category::Number
/// [`Category::Depth`]: crate::Category::Depth
/// [`Category::Limit`]: crate::Category::Limit
pub fn parse<'s>(bytes: &'s [u8], opts: &ParseOptions) -> Result<Doc<'s>> {
    // About one node per 6 input bytes on row-shaped data (`"k":123,`); the vectors grow
    // if that is short. Capacity that is never touched costs no physical memory.
    // About one node per 10 input bytes (the invoice corpus has 10.4); denser documents grow
    // the tape by reallocation, sparser ones get the slack back in `DocBuilder::finish`.
    let mut p = Parser::new(bytes, opts, (bytes.len() / 10).min(1 << 26))?;
    p.value::<true>(0)?;
    p.finish()
}
