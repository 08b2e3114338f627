//! A fast token estimator for `token_budget` (WIRE.md §5 stage 1).
//!
//! It mimics the pre-tokenizer of `o200k_base` in one pass over the bytes, one table lookup
//! per byte, and counts what byte-pair merging typically leaves of each piece:
//!
//! * a run of letters (ASCII or not, with one space before it glued on): one token per
//!   [`WORD_CHUNK`] ASCII letters (rounded up) plus one per non-ASCII character;
//! * a run of digits: one token per three digits (o200k splits numbers in groups of three); a
//!   space before digits is a token of its own;
//! * a run of punctuation (with one space before it and the line breaks after it glued on):
//!   one token per [`PUNCT_CHUNK`] bytes (rounded up) — JSON's `":"`, `",`LF and `"},{"` are
//!   single tokens;
//! * a line break: one token; indentation of two or more spaces: one token (its last space
//!   is glued to what follows).
//!
//! Measured on the invoice corpus (2,000 rows) against tiktoken `o200k_base`: flat pretty
//! +4.4%, flat compact +6.2%, flat TOON comma +3.3%, flat TOON pipe −0.2%, nested pretty
//! +1.8%, nested compact +1.8%, nested TOON comma +1.9%, nested TOON pipe +0.9%.
//!
//! The estimate is within 10% of tiktoken's `o200k_base` count on the invoice corpus in pretty
//! JSON, compact JSON and TOON (comma and pipe), flat and nested (the accuracy test lives in
//! the tests crate, `present_estimate.rs`, with tiktoken as a dev-dependency only).
//!
//! The estimator no longer decides `token_budget` (which measures the data block as written,
//! `present::fit`); it is what [`choose_auto`] compares without feature `tokenizer`.

use super::format::Format;
use crate::doc::Value;
use crate::toon::{Delimiter, EncodeOptions};

/// Bytes of a letter run per token.
pub const WORD_CHUNK: usize = 6;

/// Bytes of a punctuation run per token.
pub const PUNCT_CHUNK: usize = 5;

const L: u8 = 0; // letter (ASCII) or UTF-8 lead/continuation of a letter-like character
const D: u8 = 1; // digit
const S: u8 = 2; // space or tab
const N: u8 = 3; // CR or LF
const P: u8 = 4; // punctuation
const U: u8 = 5; // non-ASCII byte

const CLASS: [u8; 256] = {
    let mut t = [P; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_alphabetic() {
            L
        } else if b.is_ascii_digit() {
            D
        } else if b == b' ' || b == b'\t' {
            S
        } else if b == b'\n' || b == b'\r' {
            N
        } else if b >= 0x80 {
            U
        } else {
            P
        };
        i += 1;
    }
    t
};

/// Estimates the `o200k_base` token count of `text`.
///
/// ```
/// assert_eq!(toolwire::wire::estimate_tokens(b""), 0);
/// assert_eq!(toolwire::wire::estimate_tokens(b"{\"id\": 12345}"), 7);
/// ```
pub fn estimate_tokens(text: &[u8]) -> usize {
    let n = text.len();
    let class = |i: usize| if i < n { CLASS[text[i] as usize] } else { N };
    let mut tokens = 0usize;
    let mut i = 0;
    while i < n {
        match class(i) {
            L | U => {
                let (end, cost) = word(text, i);
                tokens += cost;
                i = end;
            }
            D => {
                let start = i;
                while i < n && class(i) == D {
                    i += 1;
                }
                tokens += (i - start).div_ceil(3);
            }
            N => {
                // `\s*[\r\n]+`: a line break (with blank lines) is one piece.
                while i < n && matches!(class(i), N) {
                    i += 1;
                }
                tokens += 1;
            }
            S => {
                let start = i;
                while i < n && class(i) == S {
                    i += 1;
                }
                let k = i - start;
                if i >= n || class(i) == N {
                    // Trailing whitespace joins the line break.
                    tokens += usize::from(i >= n);
                    continue;
                }
                // All but the last space are one piece; the last one is glued to a word or
                // punctuation that follows, but stands alone before a digit.
                tokens += usize::from(k >= 2);
                match class(i) {
                    L | U => {
                        let (end, cost) = word(text, i);
                        tokens += cost;
                        i = end;
                    }
                    P => {
                        let (end, cost) = punct(text, i);
                        tokens += cost;
                        i = end;
                    }
                    _ => tokens += 1,
                }
            }
            _ => {
                let (end, cost) = punct(text, i);
                tokens += cost;
                i = end;
            }
        }
    }
    tokens
}

/// A run of letters from `i`: its end and its estimated tokens.
#[inline]
fn word(text: &[u8], mut i: usize) -> (usize, usize) {
    let mut ascii = 0usize;
    let mut chars = 0usize;
    while i < text.len() {
        let b = text[i];
        match CLASS[b as usize] {
            L => ascii += 1,
            U => chars += usize::from(b & 0xC0 != 0x80),
            _ => break,
        }
        i += 1;
    }
    let cost = ascii.div_ceil(WORD_CHUNK) + chars;
    (i, cost.max(1))
}

/// A run of punctuation from `i` (with the line breaks right after it): its end and cost.
#[inline]
fn punct(text: &[u8], mut i: usize) -> (usize, usize) {
    let start = i;
    while i < text.len() && CLASS[text[i] as usize] == P {
        i += 1;
    }
    let len = i - start;
    while i < text.len() && CLASS[text[i] as usize] == N {
        i += 1;
    }
    (i, len.div_ceil(PUNCT_CHUNK))
}

/// Estimates the tokens of `value` encoded in `format` (encodes it, then estimates;
/// [`Format::Auto`] is estimated as compact JSON).
pub fn estimate_format_tokens(value: Value<'_>, format: Format) -> usize {
    let mut buf = Vec::new();
    write_format(value, format, &mut buf);
    estimate_tokens(&buf)
}

pub(crate) fn write_format(value: Value<'_>, format: Format, out: &mut Vec<u8>) {
    match format {
        Format::Pretty => crate::json::write_pretty(value, out),
        Format::Compact | Format::Auto => crate::json::write_compact(value, out),
        Format::Toon(d) => {
            let opts = EncodeOptions::new().delimiter(d).parallel(false);
            if crate::toon::encode(value, &opts, out).is_err() {
                out.clear();
                crate::json::write_compact(value, out);
            }
        }
    }
}

/// The format [`Format::Auto`] resolves to for `value`: the cheapest of pretty JSON, compact
/// JSON, TOON-comma and TOON-pipe (ties go to the earlier of TOON-comma, TOON-pipe, compact,
/// pretty), by `o200k_base` with feature `tokenizer` (exact counts, `tokens::count`)
/// and by [`estimate_tokens`] without it. A format whose text would be empty (TOON of `{}`)
/// is never chosen. TOON is not a candidate when the document holds a reserved tag or a lone
/// surrogate (it would fall back to compact JSON). A root array is judged on its first
/// 2,000 elements, and with feature `tokenizer` on no more of them than fit in 48 KiB of
/// compact JSON (at least one).
///
/// This is the one definition of `Auto`: [`crate::wire::ResponseBuilder`] uses it on its
/// data, and a [`Presenter`](crate::present::Presenter) on its data block's rows before it fits its
/// `token_budget` in the chosen format.
pub fn choose_auto(value: Value<'_>) -> Format {
    cheapest_format(
        value,
        &[
            Format::Toon(Delimiter::Comma),
            Format::Toon(Delimiter::Pipe),
            Format::Compact,
            Format::Pretty,
        ],
    )
}

/// The cheapest of `candidates` for `value`, judged as [`choose_auto`] judges its four (the
/// same sample, counts and TOON rules); ties go to the earlier candidate. `toolwire serve`
/// weighs every format a call can name, toon-tab included, for a collection without a
/// presenter.
pub fn cheapest_format(value: Value<'_>, candidates: &[Format]) -> Format {
    let doc = value.doc();
    let toon_ok = !doc.has_reserved_tag() && !doc.has_lone_surrogate();
    let sample_doc;
    let n = value.as_array().map_or(0, sample_rows);
    let sample = match value.as_array() {
        Some(a) if a.len() > n => {
            let mut b = crate::doc::DocBuilder::new(doc.src());
            let m = b.begin_array();
            for item in a.iter().take(n) {
                b.copy_from(doc, item.index());
            }
            b.end_array(m, n);
            sample_doc = b.finish();
            sample_doc.root()
        }
        _ => value,
    };
    let mut best = (usize::MAX, Format::Compact);
    let mut buf = Vec::new();
    for &f in candidates {
        if matches!(f, Format::Toon(_))
            && (!toon_ok || crate::toon::check(sample, &EncodeOptions::new()).is_err())
        {
            continue;
        }
        buf.clear();
        write_format(sample, f, &mut buf);
        if buf.is_empty() {
            continue;
        }
        let tokens = auto_cost(&buf);
        if tokens < best.0 {
            best = (tokens, f);
        }
    }
    best.1
}

/// What [`choose_auto`] compares.
fn auto_cost(text: &[u8]) -> usize {
    #[cfg(feature = "tokenizer")]
    if let Ok(t) = std::str::from_utf8(text) {
        return crate::tokens::count(crate::tokens::Vocabulary::O200k, t);
    }
    estimate_tokens(text)
}

/// The rows of `a` [`choose_auto`] judges.
fn sample_rows(a: crate::doc::Array<'_>) -> usize {
    let n = a.len().min(AUTO_SAMPLE_ROWS);
    if cfg!(feature = "tokenizer") {
        let mut bytes = 0usize;
        let mut buf = Vec::new();
        for (i, item) in a.iter().take(n).enumerate() {
            buf.clear();
            crate::json::write_compact(item, &mut buf);
            bytes += buf.len() + 1;
            if bytes > AUTO_SAMPLE_BYTES {
                return i.max(1);
            }
        }
    }
    n
}

/// With feature `tokenizer`, [`choose_auto`] counts the tokens of at most this many bytes of
/// compact JSON of a root array's rows in each candidate format (about 12,000 tokens).
pub(crate) const AUTO_SAMPLE_BYTES: usize = 48 * 1024;

/// Rows of a root array [`choose_auto`] looks at.
pub(crate) const AUTO_SAMPLE_ROWS: usize = 2000;
