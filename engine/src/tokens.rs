//! Token counts with tiktoken's vocabularies (feature `tokenizer`; embedded, works offline).
//!
//! A vocabulary is loaded on first use (about 100 ms for `o200k_base`) and then shared:
//! only calls that count tokens pay for it, so a server that never counts starts as fast as
//! without the feature.
//!
//! ## Linear counting
//!
//! tiktoken first splits text into pieces with a regular expression (words, runs of
//! punctuation, runs of whitespace, numbers of up to three digits), then merges the bytes of
//! each piece. The merge is super-linear in the length of one piece (a 3.2 MB run of one
//! letter took 17 s), and it allocates per byte of the piece. [`count`] bounds that work:
//!
//! * The text is cut into segments at *safe points*, byte offsets where every piece of the
//!   whole text ends and where the pieces on each side do not depend on the other side, so
//!   counting the segments one by one gives exactly the whole text's count:
//!   * after an ASCII digit followed by an ASCII byte that is not a digit (a number piece
//!     never extends past its last digit, and nothing glues a digit to what follows);
//!   * after a line break preceded by an ASCII byte that is neither whitespace nor a line
//!     break and followed by spaces or tabs and then a printable ASCII byte other than `/`
//!     (the indentation of pretty JSON and TOON).
//!
//!   Segments are about [`SEGMENT_BYTES`] long, so the token buffer stays small.
//! * A *run* (consecutive characters of one class: letters and marks, whitespace, or
//!   punctuation; digits always split into pieces of at most three) longer than
//!   [`RUN_LIMIT`] bytes is cut every [`RUN_CHUNK`] bytes, never closer than [`RUN_CHUNK`] to
//!   its ends. Only the pieces crossing a cut change (each is counted as its parts); every
//!   other piece is counted exactly, because each cut lies between two characters of the
//!   same class, where the first piece counted after the cut ends where the whole text's
//!   piece ends (the greedy classes stop at the same character) and the pieces before it are
//!   decided by characters before the cut.
//!
//! So [`count`] is exact for any text without a run longer than [`RUN_LIMIT`] bytes (every
//! normal text: words, numbers, JSON, TOON, code), and within a few tokens per cut otherwise
//! (tested against unchunked counting). [`count_bound`] is the same count where runs are cut,
//! except that the bytes between the cuts count one token each, plus [`RUN_CHUNK`]` + 8` per
//! run end: a token is at least one byte, so the result is never below the exact count.
//! Both take time and memory linear in the text.

use tiktoken_rs::CoreBPE;

/// A tokenizer vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vocabulary {
    /// `o200k_base` (GPT-4o, GPT-4.1, GPT-5 and the `o` series).
    O200k,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

/// Target length of the segments one tokenizer call sees.
pub const SEGMENT_BYTES: usize = 16 * 1024;

/// Runs of one character class longer than this are cut (see the module docs).
pub const RUN_LIMIT: usize = 8 * 1024;

/// Distance between the cuts of a long run.
pub const RUN_CHUNK: usize = 2 * 1024;

fn bpe(v: Vocabulary) -> &'static CoreBPE {
    match v {
        Vocabulary::O200k => tiktoken_rs::o200k_base_singleton(),
        Vocabulary::Cl100k => tiktoken_rs::cl100k_base_singleton(),
    }
}

/// Loads `v` now (the first count otherwise does): for a server that wants the cost at
/// start-up rather than on its first call.
pub fn preload(v: Vocabulary) {
    let _ = bpe(v);
}

/// The token count of `text` as tiktoken's `encode_ordinary` gives it (special tokens are
/// plain text), in linear time; exact unless `text` holds a run of more than [`RUN_LIMIT`]
/// bytes of one character class (module docs).
///
/// ```
/// use toolwire::tokens::{count, Vocabulary};
/// assert_eq!(count(Vocabulary::O200k, ""), 0);
/// assert_eq!(count(Vocabulary::O200k, "hello world"), 2);
/// ```
pub fn count(v: Vocabulary, text: &str) -> usize {
    let bpe = bpe(v);
    walk(text, false, &mut |seg| bpe.encode_ordinary(seg).len())
}

/// What a response of several text blocks costs an agent in `v`: each block counted on its
/// own (the agent receives them as separate content items, so no piece of one block merges
/// with the next), summed. `toolwire budget` and `toolwire bench` both count this way.
///
/// ```
/// use toolwire::tokens::{count, count_blocks, Vocabulary};
/// let blocks = ["hello", " world"];
/// assert_eq!(count_blocks(Vocabulary::O200k, blocks), 2);
/// assert_eq!(count(Vocabulary::O200k, "hello world"), 2);
/// ```
pub fn count_blocks<'a>(v: Vocabulary, blocks: impl IntoIterator<Item = &'a str>) -> usize {
    blocks.into_iter().map(|b| count(v, b)).sum()
}

/// An upper bound of [`count`]'s exact value (the unchunked tiktoken count), equal to
/// [`count`] for text without a run longer than [`RUN_LIMIT`] bytes: what a token budget
/// checks against.
pub fn count_bound(v: Vocabulary, text: &str) -> usize {
    let bpe = bpe(v);
    walk(text, true, &mut |seg| bpe.encode_ordinary(seg).len())
}

/// [`count_bound`], stopped as soon as it passes `limit`: `Ok(count)` when it is at most
/// `limit`, else `Err(bytes)`, the bytes of `text` read when the count passed it (so a
/// caller can estimate the whole from the part: `limit × text.len() / bytes`). Costs the
/// text up to that point only.
///
/// ```
/// use toolwire::tokens::{count_bound_within, Vocabulary};
/// assert_eq!(count_bound_within(Vocabulary::O200k, "hello world", 2), Ok(2));
/// assert!(count_bound_within(Vocabulary::O200k, "hello world", 1).is_err());
/// ```
///
/// # Errors
///
/// `Err(bytes read)` when the count is over `limit`.
pub fn count_bound_within(v: Vocabulary, text: &str, limit: usize) -> Result<usize, usize> {
    let bpe = bpe(v);
    let mut read = 0usize;
    let total = walk_until(text, true, limit, &mut |seg| {
        read += seg.len();
        bpe.encode_ordinary(seg).len()
    });
    if total <= limit {
        Ok(total)
    } else {
        Err(read.max(1))
    }
}

/// The o200k_base count of `text`, or `None` when it is not UTF-8.
pub fn count_bytes(v: Vocabulary, text: &[u8]) -> Option<usize> {
    std::str::from_utf8(text).ok().map(|t| count(v, t))
}

/// Character classes of the pre-tokenizers (approximated at the byte level for ASCII,
/// decoded for the rest).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Space,
    Other,
}

fn class_of(c: char) -> Class {
    if c.is_alphabetic() || is_mark(c) {
        Class::Letter
    } else if c.is_numeric() {
        Class::Digit
    } else if c.is_whitespace() {
        Class::Space
    } else {
        Class::Other
    }
}

/// Combining marks (`\p{M}`), which the pre-tokenizers glue to letters. Only the common
/// blocks: a mark outside them ends a run early, which only adds a cut opportunity less.
fn is_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x0610..=0x061A | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0x302A..=0x302F
        | 0x3099..=0x309A | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F)
}

/// Counts `text` segment by segment with `seg` (the tokenizer); `bound` counts the middle of
/// long runs as bytes.
fn walk(text: &str, bound: bool, seg: &mut dyn FnMut(&str) -> usize) -> usize {
    walk_until(text, bound, usize::MAX, seg)
}

/// [`walk`], returning as soon as the count passes `limit` (with that count).
fn walk_until(text: &str, bound: bool, limit: usize, seg: &mut dyn FnMut(&str) -> usize) -> usize {
    let bytes = text.as_bytes();
    let mut total = 0usize;
    let mut seg_start = 0usize;
    let mut i = 0usize;
    // The current run: its class and start.
    let mut run_class = Class::Other;
    let mut run_start = 0usize;
    let mut count_seg =
        |from: usize, to: usize| -> usize { if from >= to { 0 } else { seg(&text[from..to]) } };
    while i < bytes.len() {
        let b = bytes[i];
        let (c, w) = if b < 0x80 {
            (b as char, 1)
        } else {
            // `text` is a str: `i` is a char boundary.
            let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
            (c, c.len_utf8())
        };
        let class = if b < 0x80 {
            match b {
                b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
                b'0'..=b'9' => Class::Digit,
                b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => Class::Space,
                _ => Class::Other,
            }
        } else {
            class_of(c)
        };
        if class != run_class || i == 0 {
            run_class = class;
            run_start = i;
        }
        // A long run: cut it every RUN_CHUNK bytes, keeping RUN_CHUNK clear of its ends.
        if class != Class::Digit && i - run_start >= RUN_LIMIT {
            let run_end = run_extent(text, i, class);
            let first = run_start + RUN_CHUNK;
            let last = run_end.saturating_sub(RUN_CHUNK);
            if first < last {
                let first = floor_char(text, first);
                let last = floor_char(text, last);
                total += count_seg(seg_start, first);
                if bound {
                    // The pieces crossing the first and last cut start or end within a few
                    // bytes of the run's ends (punctuation also takes the line breaks after
                    // it); everything between is at most one token a byte.
                    let tail = if class == Class::Other {
                        bytes[run_end..]
                            .iter()
                            .take_while(|&&b| b == b'\r' || b == b'\n')
                            .count()
                    } else {
                        0
                    };
                    total += (last - first) + 2 * (RUN_CHUNK + 8) + tail;
                } else {
                    let mut at = first;
                    // A run of one repeated character (the usual pathological string) cuts
                    // into equal chunks: count each distinct chunk once.
                    let mut prev: (&str, usize) = ("", 0);
                    while at < last {
                        let next = floor_char(text, (at + RUN_CHUNK).min(last));
                        let next = if next <= at { last } else { next };
                        let chunk = &text[at..next];
                        if chunk != prev.0 {
                            prev = (chunk, count_seg(at, next));
                        }
                        total += prev.1;
                        at = next;
                    }
                }
                seg_start = last;
                i = run_end;
                run_class = Class::Other;
                run_start = i;
                if total > limit {
                    return total;
                }
                continue;
            }
        }
        i += w;
        // Safe points (module docs), once the segment is long enough.
        if i - seg_start >= SEGMENT_BYTES && i < bytes.len() && is_safe_point(bytes, i) {
            total += count_seg(seg_start, i);
            seg_start = i;
            if total > limit {
                return total;
            }
        }
    }
    total + count_seg(seg_start, bytes.len())
}

/// The end of the run of `class` that contains byte `i`.
fn run_extent(text: &str, mut i: usize, class: Class) -> usize {
    while i < text.len() {
        let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
        if class_of(c) != class {
            break;
        }
        i += c.len_utf8();
    }
    i
}

/// The largest char boundary at or before `i`.
fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// True when a segment may end before byte `p` (module docs).
fn is_safe_point(b: &[u8], p: usize) -> bool {
    let prev = b[p - 1];
    let next = b[p];
    if prev.is_ascii_digit() {
        return next < 0x80 && !next.is_ascii_digit();
    }
    if prev == b'\n' && p >= 2 && b[p - 2].is_ascii_graphic() {
        let mut j = p;
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        return j < b.len() && b[j].is_ascii_graphic() && (j > p || b[j] != b'/');
    }
    false
}

/// The longest text one tokenizer call would see when counting `text` (with `bound`:
/// as [`count_bound`]), and the bytes all calls would see together, without tokenizing
/// (`test_hooks::tokenizer_calls`).
pub(crate) fn tokenizer_calls(text: &str, bound: bool) -> (usize, usize) {
    let (mut longest, mut seen) = (0, 0);
    walk(text, bound, &mut |s| {
        longest = longest.max(s.len());
        seen += s.len();
        1
    });
    (longest, seen)
}
