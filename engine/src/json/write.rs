//! JSON writers: `JSON.stringify(x)` and `JSON.stringify(x, null, 2)` over a [`Value`].
//!
//! [`write_compact`] and [`write_pretty`] (and their `to_vec_*` / `to_string_*` forms) write a
//! value of a [`Doc`](crate::Doc) byte for byte as JavaScript's `JSON.stringify(x)` and
//! `JSON.stringify(x, null, 2)` would print the same JSON value: the pretty form indents by two
//! spaces, writes `": "` after keys, ends lines with LF, has no trailing newline and writes
//! empty containers as `[]` and `{}`. The three exceptions (WIRE.md §1.3) are deliberate:
//!
//! * **Key order is the input's.** JavaScript moves integer-like keys (`"1"`, `"42"`) to the
//!   front of an object; the writers keep the order of the document.
//! * **Reserved tags are neutralised.** A `<` that starts a reserved tag sequence (WIRE.md §2,
//!   for example `<tool_error>`) is written `\u003c`, in strings and keys alike. This is
//!   valid JSON and lossless for any JSON reader.
//! * **Integers keep all their digits.** A number stored as an integer lexeme prints every
//!   digit (JavaScript would round past 2^53); `-0` prints `0`.
//!
//! Everything else follows `JSON.stringify`: strings escape `"` `\` and C0 controls (`\b`
//! `\f` `\n` `\r` `\t`, others `\u00xx` in lowercase hex), lone surrogates as `\udxxx`, and
//! nothing else (no `\/`, U+2028 and non-ASCII literal). Floats print as ECMAScript
//! `String(x)` (`1e+21`, `1e-7`, `5e-324`, `-0` as `0`); non-finite floats, which no parser of
//! this crate produces but a hand-built document can hold, print `null` as in JavaScript.
//!
//! The output is valid UTF-8 whenever the document's strings are valid WTF-8 (always the case
//! for documents from this crate's parsers and from `ser::to_doc`).
//!
//! The walk is iterative, with an explicit stack on the heap, so documents of any depth are
//! written without recursion (a hand-built tape can be nested far deeper than any parser
//! allows).
//!
//! The byte-level decisions live in a [`Formatter`], shaped like `serde_json`'s: the default
//! methods write compact JSON ([`CompactFormatter`]); [`PrettyFormatter`] overrides the few
//! that place newlines and indentation. [`write_with`] runs any formatter.
//!
//! ```
//! use toolwire::DocBuilder;
//! use toolwire::json::{to_string_compact, to_string_pretty};
//!
//! let mut b = DocBuilder::new(b"");
//! let o = b.begin_object();
//! b.string(b"ids");
//! let a = b.begin_array();
//! b.int_lexeme(b"12345678901234567890123");
//! b.float(0.1 + 0.2);
//! b.end_array(a, 2);
//! b.string(b"note");
//! b.string(b"<tool_error>");
//! b.end_object(o, 2);
//! let doc = b.finish();
//!
//! assert_eq!(
//!     to_string_compact(doc.root()),
//!     r#"{"ids":[12345678901234567890123,0.30000000000000004],"note":"\u003ctool_error>"}"#
//! );
//! assert_eq!(
//!     to_string_pretty(doc.root()),
//!     "{\n  \"ids\": [\n    12345678901234567890123,\n    0.30000000000000004\n  ],\n  \"note\": \"\\u003ctool_error>\"\n}"
//! );
//! ```

use crate::doc::{Node, Value};
use crate::sink::{Pieces, Sink};

/// The bytes of JSON output, separated from the walk over the document (the shape of
/// `serde_json::ser::Formatter`).
///
/// Every method has a default that writes compact JSON exactly as `JSON.stringify(x)` does;
/// a formatter overrides the ones it needs. The walker calls, for a non-empty array:
/// `begin_array`, then per element `begin_array_value(first)` and the element, then
/// `end_array`; for a non-empty object: `begin_object`, then per member
/// `begin_object_key(first)`, `write_key`, `begin_object_value` and the value, then
/// `end_object`. Empty containers go through `write_empty_array` / `write_empty_object`.
pub trait Formatter {
    /// Writes `null`.
    #[inline]
    fn write_null<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_clean(b"null");
    }

    /// Writes `true` or `false`.
    #[inline]
    fn write_bool<W: Sink + ?Sized>(&mut self, out: &mut W, value: bool) {
        out.write_clean(if value { b"true" } else { b"false" });
    }

    /// Writes an integer lexeme with all its digits (`-0` as `0`).
    #[inline]
    fn write_int_lexeme<W: Sink + ?Sized>(&mut self, out: &mut W, lexeme: &[u8]) {
        crate::num::write_int_lexeme(out, lexeme);
    }

    /// Writes a float as ECMAScript `String(x)`; non-finite as `null`.
    #[inline]
    fn write_f64<W: Sink + ?Sized>(&mut self, out: &mut W, value: f64) {
        crate::num::write_f64(out, value);
    }

    /// Writes a non-integer kept as its input text, which is exactly what the default
    /// [`Formatter::write_f64`] writes for its value. By default through
    /// [`Formatter::write_f64`] (so a formatter that overrides it keeps its own form); the
    /// crate's formatters copy the text.
    #[inline]
    fn write_f64_text<W: Sink + ?Sized>(&mut self, out: &mut W, text: &[u8]) {
        self.write_f64(out, crate::num::float_value(text));
    }

    /// Writes a string value (WTF-8) as a JSON string literal.
    #[inline]
    fn write_string<W: Sink + ?Sized>(&mut self, out: &mut W, value: &[u8]) {
        crate::escape::write_json_string(out, value);
    }

    /// Writes a string value the parser found plain: ASCII from space to DEL other than `"`,
    /// `\` and `<`, so nothing in it needs escaping. By default [`Formatter::write_string`],
    /// so a formatter that changes strings sees every one; the crate's formatters copy it
    /// between quotes without the escape scan.
    #[inline]
    fn write_plain_string<W: Sink + ?Sized>(&mut self, out: &mut W, value: &[u8]) {
        self.write_string(out, value);
    }

    /// Writes an object key (WTF-8) as a JSON string literal.
    #[inline]
    fn write_key<W: Sink + ?Sized>(&mut self, out: &mut W, key: &[u8]) {
        crate::escape::write_json_string(out, key);
    }

    /// Writes `[]`.
    #[inline]
    fn write_empty_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_clean(b"[]");
    }

    /// Writes `{}`.
    #[inline]
    fn write_empty_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_clean(b"{}");
    }

    /// Opens a non-empty array.
    #[inline]
    fn begin_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_byte(b'[');
    }

    /// Closes a non-empty array.
    #[inline]
    fn end_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_byte(b']');
    }

    /// Before each element; `first` for the first one.
    #[inline]
    fn begin_array_value<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
        if !first {
            out.write_byte(b',');
        }
    }

    /// Opens a non-empty object.
    #[inline]
    fn begin_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_byte(b'{');
    }

    /// Closes a non-empty object.
    #[inline]
    fn end_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_byte(b'}');
    }

    /// Before each key; `first` for the first member.
    #[inline]
    fn begin_object_key<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
        if !first {
            out.write_byte(b',');
        }
    }

    /// Between a key and its value.
    #[inline]
    fn begin_object_value<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_byte(b':');
    }

    /// True when what [`Formatter::begin_object_key`], [`Formatter::write_key`] and
    /// [`Formatter::begin_object_value`] write for a member depends only on the key, whether
    /// it is the first and the nesting depth, and those calls change no state: then the
    /// walk of [`write_with`] writes the members of an object with the keys of the last
    /// object at its depth (a row of a collection, `same_keys` on the tape) by copying the
    /// bytes it wrote for that object's members. `false` by default: every call is made.
    #[inline]
    fn member_prefixes_repeat(&self) -> bool {
        false
    }
}

/// `JSON.stringify(x)`: every [`Formatter`] default, no whitespace.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompactFormatter;

impl Formatter for CompactFormatter {
    #[inline]
    fn write_f64_text<W: Sink + ?Sized>(&mut self, out: &mut W, text: &[u8]) {
        out.write_clean(text);
    }

    #[inline]
    fn write_plain_string<W: Sink + ?Sized>(&mut self, out: &mut W, value: &[u8]) {
        crate::escape::write_plain_json_string(out, value);
    }

    #[inline]
    fn member_prefixes_repeat(&self) -> bool {
        true
    }
}

/// `JSON.stringify(x, null, n)`: one member or element per line, indented by `n` spaces per
/// level (2 by default, as WIRE.md's `Json::Pretty`).
#[derive(Clone, Copy, Debug)]
pub struct PrettyFormatter {
    width: usize,
    depth: usize,
}

impl Default for PrettyFormatter {
    fn default() -> Self {
        PrettyFormatter::new()
    }
}

impl PrettyFormatter {
    /// Two spaces per level: `JSON.stringify(x, null, 2)`.
    #[inline]
    pub fn new() -> Self {
        PrettyFormatter::with_indent(2)
    }

    /// `width` spaces per level. JavaScript clamps its `space` argument to 10; this does
    /// not, and a width of 0 still breaks lines (unlike `JSON.stringify(x, null, 0)`).
    #[inline]
    pub fn with_indent(width: usize) -> Self {
        PrettyFormatter { width, depth: 0 }
    }

    /// LF, then the indentation of the current depth ([`crate::sink::write_line_start`]).
    #[inline]
    fn newline<W: Sink + ?Sized>(&self, out: &mut W) {
        crate::sink::write_line_start(out, self.width * self.depth);
    }
}

impl Formatter for PrettyFormatter {
    #[inline]
    fn write_f64_text<W: Sink + ?Sized>(&mut self, out: &mut W, text: &[u8]) {
        out.write_clean(text);
    }

    #[inline]
    fn write_plain_string<W: Sink + ?Sized>(&mut self, out: &mut W, value: &[u8]) {
        crate::escape::write_plain_json_string(out, value);
    }

    /// The indentation is the depth's, the same for every object at one depth.
    #[inline]
    fn member_prefixes_repeat(&self) -> bool {
        true
    }

    #[inline]
    fn begin_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
        self.depth += 1;
        out.write_byte(b'[');
    }

    #[inline]
    fn end_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
        self.depth = self.depth.saturating_sub(1);
        self.newline(out);
        out.write_byte(b']');
    }

    #[inline]
    fn begin_array_value<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
        if !first {
            out.write_byte(b',');
        }
        self.newline(out);
    }

    #[inline]
    fn begin_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
        self.depth += 1;
        out.write_byte(b'{');
    }

    #[inline]
    fn end_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
        self.depth = self.depth.saturating_sub(1);
        self.newline(out);
        out.write_byte(b'}');
    }

    #[inline]
    fn begin_object_key<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
        if !first {
            out.write_byte(b',');
        }
        self.newline(out);
    }

    #[inline]
    fn begin_object_value<W: Sink + ?Sized>(&mut self, out: &mut W) {
        out.write_clean(b": ");
    }
}

/// An open, non-empty container on the walker's stack.
struct Open {
    /// Tape index just past the container's subtree.
    end: usize,
    object: bool,
    first: bool,
    /// An object whose member prefixes are copied from [`Prefixes`] at its depth.
    replay: bool,
    /// Members written so far (an object's).
    member: usize,
}

/// The bytes written before each member's value (separator, line break and indentation,
/// quoted key, `:`), as the sink received them (escaped into a framing sink), of the last
/// object walked at each depth: an object marked `same_keys` has the keys of exactly that
/// object (the builder compares each object with the last one closed at its depth, and the
/// walk covers one contiguous range of the tape, so within it the last object at a depth is
/// the one before in the tape), so its prefixes are those bytes again.
#[derive(Default)]
struct Prefixes {
    /// Per depth, the member prefixes of the last object begun there (closed by the time the
    /// next object at that depth begins: objects at one depth never nest).
    levels: Vec<Pieces>,
}

/// Writes `value` through `fmt` into `out`. Iterative: any depth, no recursion.
///
/// The tape lists a subtree in document order, so the walk is one pass over a slice of
/// nodes; a stack of open containers (their end indices) says where to close them and
/// whether the next node is an object key. Measured against a walk through the public
/// `Value`/`Elements`/`Members` API, this halves the instructions spent outside string and
/// number formatting. With a formatter whose [`Formatter::member_prefixes_repeat`], the
/// members of a row with the previous row's keys cost one copy each before their values.
pub fn write_with<F, W>(value: Value<'_>, out: &mut W, fmt: &mut F)
where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    let doc = value.doc();
    let start = value.index();
    // A container left open by a hand-made builder records `end` 0: walk at least its node.
    let end = doc.next_sibling(start).clamp(start + 1, doc.nodes().len());
    walk(doc, start, end, None, out, fmt);
}

/// Writes the elements of `arr` after its first `skip` as elements of an open array (its
/// `begin_array` written; `first` when no element of it was written before) through `fmt`,
/// in one walk of the tape (one [`Prefixes`] for all of them).
pub(crate) fn write_elements<F, W>(
    arr: crate::doc::Array<'_>,
    skip: usize,
    first: bool,
    out: &mut W,
    fmt: &mut F,
) where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    let value = arr.as_value();
    let doc = value.doc();
    let end = doc.next_sibling(value.index()).min(doc.nodes().len());
    let Some(from) = arr.iter().nth(skip) else {
        return;
    };
    if from.index() >= end {
        return;
    }
    let outer = Open {
        end,
        object: false,
        first,
        replay: false,
        member: 0,
    };
    walk(doc, from.index(), end, Some(outer), out, fmt);
}

/// The walk of [`write_with`] over tape nodes `start..end`, inside the container `outer` when
/// given (never closed here).
fn walk<F, W>(
    doc: &crate::doc::Doc<'_>,
    start: usize,
    end: usize,
    outer: Option<Open>,
    out: &mut W,
    fmt: &mut F,
) where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    let nodes = doc.nodes();
    let base = usize::from(outer.is_some());
    let mut stack: Vec<Open> = outer.into_iter().collect();
    let repeat = fmt.member_prefixes_repeat();
    let escapes = out.escapes();
    let mut prefixes = Prefixes::default();
    let mut i = start;
    while i < end {
        // A dropped stream stops the work (checked every 4096 nodes: cheap).
        if (i - start) & 0xFFF == 0xFFF && out.cancelled() {
            return;
        }
        // Close the containers that end here (a tape index can end several at once).
        while stack.len() > base {
            let top = &stack[stack.len() - 1];
            if top.end > i {
                break;
            }
            close(out, fmt, top.object);
            stack.pop();
        }
        let depth = stack.len();
        if let Some(top) = stack.last_mut() {
            let first = std::mem::replace(&mut top.first, false);
            if top.object {
                let member = top.member;
                top.member += 1;
                let key = doc.key_at(i);
                let copied = top.replay && replay_prefix(&prefixes.levels[depth], member, out);
                if copied {
                    #[cfg(debug_assertions)]
                    {
                        // The copy is what the calls would have written (the builder's mark
                        // is right and the walk's last object at this depth is its reference).
                        let mut fresh = Vec::new();
                        if escapes {
                            let mut esc = crate::escape::EscapingSink::new(&mut fresh);
                            member_prefix(&mut esc, fmt, key, first);
                        } else {
                            member_prefix(&mut fresh, fmt, key, first);
                        }
                        let copy = prefixes.levels[depth].get(member);
                        debug_assert_eq!(copy, &fresh[..], "a repeated member prefix differs");
                    }
                } else if repeat && !top.replay {
                    let level = &mut prefixes.levels[depth];
                    let from = level.bytes.len();
                    if escapes {
                        let mut esc = crate::escape::EscapingSink::new(&mut level.bytes);
                        member_prefix(&mut esc, fmt, key, first);
                    } else {
                        member_prefix(&mut level.bytes, fmt, key, first);
                    }
                    level.end_piece();
                    write_prefix(out, &level.bytes[from..], escapes);
                } else {
                    // No repeats, or more members than the object copied from (a hand-made
                    // tape whose counts disagree): the calls themselves.
                    member_prefix(out, fmt, key, first);
                }
                i += 1;
                if i >= end {
                    // A key without a value (a hand-made tape): keep the output JSON.
                    fmt.write_null(out);
                    break;
                }
            } else {
                fmt.begin_array_value(out, first);
            }
        }
        match nodes.at(i) {
            Node::Array { len: 0, .. } => fmt.write_empty_array(out),
            Node::Object { len: 0, .. } => fmt.write_empty_object(out),
            Node::Array { end, .. } => {
                fmt.begin_array(out);
                stack.push(Open {
                    end: end as usize,
                    object: false,
                    first: true,
                    replay: false,
                    member: 0,
                });
            }
            Node::Object {
                end,
                len,
                same_keys,
                ..
            } => {
                fmt.begin_object(out);
                let replay = repeat && same_keys && {
                    let level = prefixes.levels.get(depth + 1);
                    level.is_some_and(|l| l.len() == len as usize)
                };
                if repeat && !replay {
                    if prefixes.levels.len() <= depth + 1 {
                        prefixes.levels.resize_with(depth + 2, Pieces::default);
                    }
                    prefixes.levels[depth + 1].clear();
                }
                stack.push(Open {
                    end: end as usize,
                    object: true,
                    first: true,
                    replay,
                    member: 0,
                });
            }
            leaf => write_leaf(out, fmt, doc, leaf),
        }
        i += 1;
    }
    while stack.len() > base {
        let top = stack.pop().expect("above the base");
        close(out, fmt, top.object);
    }
}

/// Copies member `member`'s prefix of `level` into `out`; false when it has none.
#[inline]
fn replay_prefix<W: Sink + ?Sized>(level: &Pieces, member: usize, out: &mut W) -> bool {
    let Some(prefix) = level.try_get(member) else {
        return false;
    };
    write_prefix(out, prefix, out.escapes());
    true
}

/// Writes prefix bytes as the sink received them when they were made: already escaped into
/// a framing sink. Shared by the tape walk and the presenter's row view.
#[inline]
pub(crate) fn write_prefix<W: Sink + ?Sized>(out: &mut W, bytes: &[u8], escaped: bool) {
    if escaped {
        out.write_escaped(bytes);
    } else {
        out.write(bytes);
    }
}

/// What precedes a member's value: separator, key, `:` (with the formatter's line breaks).
/// Shared by the tape walk and the presenter's row view.
#[inline]
pub(crate) fn member_prefix<F, W>(out: &mut W, fmt: &mut F, key: &[u8], first: bool)
where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    fmt.begin_object_key(out, first);
    fmt.write_key(out, key);
    fmt.begin_object_value(out);
}

/// Writes a primitive tape node of `doc` through `fmt` (a container writes `null`: callers
/// pass primitives only). Shared by the tape walk and the presenter's row view.
#[inline(always)]
pub(crate) fn write_leaf<F, W>(out: &mut W, fmt: &mut F, doc: &crate::doc::Doc<'_>, node: Node)
where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    match node {
        Node::Null | Node::Array { .. } | Node::Object { .. } => fmt.write_null(out),
        Node::Bool(b) => fmt.write_bool(out, b),
        Node::IntSrc(s) => fmt.write_int_lexeme(out, doc.src_bytes(s)),
        Node::IntHeap(s) => fmt.write_int_lexeme(out, doc.heap_bytes(s)),
        Node::Float(x) => fmt.write_f64(out, x.get()),
        Node::FloatSrc(s) => fmt.write_f64_text(out, doc.src_bytes(s)),
        Node::StrSrc(s) => fmt.write_string(out, doc.src_bytes(s)),
        Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
            fmt.write_plain_string(out, doc.src_bytes(s))
        }
        Node::StrHeap(s) => fmt.write_string(out, doc.heap_bytes(s)),
    }
}

#[inline]
fn close<F, W>(out: &mut W, fmt: &mut F, object: bool)
where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    if object {
        fmt.end_object(out);
    } else {
        fmt.end_array(out);
    }
}

/// Writes `value` as `JSON.stringify(value)` (with the deviations in the module docs).
#[inline]
pub fn write_compact<W: Sink + ?Sized>(value: Value<'_>, out: &mut W) {
    write_with(value, out, &mut CompactFormatter);
}

/// Writes `value` as `JSON.stringify(value, null, 2)` (with the deviations in the module
/// docs).
#[inline]
pub fn write_pretty<W: Sink + ?Sized>(value: Value<'_>, out: &mut W) {
    write_with(value, out, &mut PrettyFormatter::new());
}

/// A first guess at the output size, to reserve once instead of doubling from empty: the
/// input length for a root parsed from text, and a few bytes per node in any case.
fn size_hint(value: Value<'_>, per_node: usize) -> usize {
    let doc = value.doc();
    let idx = value.index();
    let nodes = doc.next_sibling(idx) - idx;
    let src = if idx == 0 { doc.src().len() } else { 0 };
    src.max(nodes.saturating_mul(per_node))
        .saturating_add(nodes.saturating_mul(per_node / 2))
}

/// `JSON.stringify(value)` as bytes.
pub fn to_vec_compact(value: Value<'_>) -> Vec<u8> {
    let mut out = crate::sink::output_with_capacity(size_hint(value, 6));
    write_compact(value, &mut out);
    out
}

/// `JSON.stringify(value, null, 2)` as bytes.
pub fn to_vec_pretty(value: Value<'_>) -> Vec<u8> {
    let mut out = crate::sink::output_with_capacity(size_hint(value, 12));
    write_pretty(value, &mut out);
    out
}

/// Bytes from the writers are UTF-8 for WTF-8 documents; a hand-built document holding
/// invalid UTF-8 gets U+FFFD for the invalid bytes instead of a panic.
fn into_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `JSON.stringify(value)` as a `String`.
pub fn to_string_compact(value: Value<'_>) -> String {
    into_string(to_vec_compact(value))
}

/// `JSON.stringify(value, null, 2)` as a `String`.
pub fn to_string_pretty(value: Value<'_>) -> String {
    into_string(to_vec_pretty(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::DocBuilder;

    /// A fraction kept as its text (`0.5`) reaches a formatter that overrides `write_f64`
    /// as its value, like one converted at parse time (`1.5e3`, `0.50`); the crate's own
    /// formatters copy the text.
    #[test]
    fn kept_fraction_texts_reach_a_custom_write_f64() {
        struct Hex;
        impl Formatter for Hex {
            fn write_f64<W: Sink + ?Sized>(&mut self, out: &mut W, value: f64) {
                out.write(format!("{:#x}", value.to_bits()).as_bytes());
            }
        }
        let doc = crate::json::parse(b"[0.5,1.5e3,0.50]", &Default::default()).unwrap();
        let mut out = Vec::new();
        write_with(doc.root(), &mut out, &mut Hex);
        let hex = |x: f64| format!("{:#x}", x.to_bits());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("[{},{},{}]", hex(0.5), hex(1500.0), hex(0.5))
        );
        assert_eq!(to_string_compact(doc.root()), "[0.5,1500,0.5]");
        assert_eq!(to_string_pretty(doc.root()), "[\n  0.5,\n  1500,\n  0.5\n]");
    }

    #[test]
    fn nested_empties_and_scalars() {
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        b.string(b"a");
        let a = b.begin_array();
        let e = b.begin_array();
        b.end_array(e, 0);
        let eo = b.begin_object();
        b.end_object(eo, 0);
        b.null();
        b.bool(false);
        b.end_array(a, 4);
        b.string(b"b");
        b.float(-0.0);
        b.end_object(o, 2);
        let doc = b.finish();
        assert_eq!(
            to_string_compact(doc.root()),
            r#"{"a":[[],{},null,false],"b":0}"#
        );
        assert_eq!(
            to_string_pretty(doc.root()),
            "{\n  \"a\": [\n    [],\n    {},\n    null,\n    false\n  ],\n  \"b\": 0\n}"
        );
        let mut four = Vec::new();
        write_with(doc.root(), &mut four, &mut PrettyFormatter::with_indent(4));
        assert_eq!(
            String::from_utf8(four).unwrap(),
            "{\n    \"a\": [\n        [],\n        {},\n        null,\n        false\n    ],\n    \"b\": 0\n}"
        );
    }

    #[test]
    fn hand_made_tapes_never_panic_and_stay_json() {
        // Containers never closed, a key without a value, a non-string key.
        let mut b = DocBuilder::new(b"");
        let _ = b.begin_array();
        b.i64(1);
        let _ = b.begin_object();
        b.string(b"k");
        let doc = b.finish();
        for out in [to_string_compact(doc.root()), to_string_pretty(doc.root())] {
            assert_eq!(out, "[]");
        }
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        b.string(b"a");
        b.i64(1);
        b.string(b"b");
        // (The builder's duplicate-key check would index past the tape with a count of 2.)
        b.end_object(o, 1);
        let doc = b.finish();
        assert_eq!(to_string_compact(doc.root()), r#"{"a":1,"b":null}"#);
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        b.i64(7);
        b.bool(true);
        b.end_object(o, 1);
        let doc = b.finish();
        assert_eq!(to_string_compact(doc.root()), r#"{"":true}"#);
        // Invalid UTF-8 pushed by hand: replaced in the `String` forms, kept in bytes.
        let mut b = DocBuilder::new(b"");
        b.string(b"a\xffb");
        let doc = b.finish();
        assert_eq!(to_vec_compact(doc.root()), b"\"a\xffb\"");
        assert_eq!(to_string_compact(doc.root()), "\"a\u{fffd}b\"");
    }

    #[test]
    fn indentation_beyond_the_static_buffer() {
        // 300 levels of 2 spaces: 600 > 512, so the long path writes in chunks.
        let depth = 300;
        let mut b = DocBuilder::new(b"");
        let marks: Vec<_> = (0..depth).map(|_| b.begin_array()).collect();
        b.i64(7);
        for m in marks.into_iter().rev() {
            b.end_array(m, 1);
        }
        let doc = b.finish();
        let s = to_string_pretty(doc.root());
        let mut want = String::new();
        for d in 0..depth {
            want.push('[');
            want.push('\n');
            want.push_str(&" ".repeat(2 * (d + 1)));
        }
        want.push('7');
        for d in (0..depth).rev() {
            want.push('\n');
            want.push_str(&" ".repeat(2 * d));
            want.push(']');
        }
        assert_eq!(s, want);
    }

    /// `F` with every call made: the oracle of the walk's copied member prefixes.
    struct Calls<F>(F);

    impl<F: Formatter> Formatter for Calls<F> {
        fn write_null<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.write_null(out)
        }
        fn write_bool<W: Sink + ?Sized>(&mut self, out: &mut W, value: bool) {
            self.0.write_bool(out, value)
        }
        fn write_int_lexeme<W: Sink + ?Sized>(&mut self, out: &mut W, lexeme: &[u8]) {
            self.0.write_int_lexeme(out, lexeme)
        }
        fn write_f64<W: Sink + ?Sized>(&mut self, out: &mut W, value: f64) {
            self.0.write_f64(out, value)
        }
        fn write_f64_text<W: Sink + ?Sized>(&mut self, out: &mut W, text: &[u8]) {
            self.0.write_f64_text(out, text)
        }
        fn write_string<W: Sink + ?Sized>(&mut self, out: &mut W, value: &[u8]) {
            self.0.write_string(out, value)
        }
        fn write_key<W: Sink + ?Sized>(&mut self, out: &mut W, key: &[u8]) {
            self.0.write_key(out, key)
        }
        fn write_empty_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.write_empty_array(out)
        }
        fn write_empty_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.write_empty_object(out)
        }
        fn begin_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.begin_array(out)
        }
        fn end_array<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.end_array(out)
        }
        fn begin_array_value<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
            self.0.begin_array_value(out, first)
        }
        fn begin_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.begin_object(out)
        }
        fn end_object<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.end_object(out)
        }
        fn begin_object_key<W: Sink + ?Sized>(&mut self, out: &mut W, first: bool) {
            self.0.begin_object_key(out, first)
        }
        fn begin_object_value<W: Sink + ?Sized>(&mut self, out: &mut W) {
            self.0.begin_object_value(out)
        }
    }

    /// `value` written through `fmt`, plainly and into a framing sink.
    fn both<F: Formatter>(value: Value<'_>, mut fmt: impl FnMut() -> F) -> (Vec<u8>, Vec<u8>) {
        let mut plain = Vec::new();
        write_with(value, &mut plain, &mut fmt());
        let mut framed = Vec::new();
        write_with(
            value,
            &mut crate::escape::EscapingSink::new(&mut framed),
            &mut fmt(),
        );
        (plain, framed)
    }

    /// The elements of root array `doc` after `skip`, through `write_elements` (one walk)
    /// and element by element with every call made, plainly and framed; the two pairs.
    fn elements<F: Formatter>(
        doc: &crate::doc::Doc<'_>,
        skip: usize,
        mut fmt: impl FnMut() -> F,
    ) -> [(Vec<u8>, Vec<u8>); 2] {
        let arr = doc.root().as_array().unwrap();
        let mut got = (Vec::new(), Vec::new());
        let mut f = fmt();
        f.begin_array(&mut got.0);
        write_elements(arr, skip, true, &mut got.0, &mut f);
        let mut f = fmt();
        let mut esc = crate::escape::EscapingSink::new(&mut got.1);
        f.begin_array(&mut esc);
        write_elements(arr, skip, true, &mut esc, &mut f);
        let mut want = (Vec::new(), Vec::new());
        let mut f = Calls(fmt());
        f.begin_array(&mut want.0);
        for (k, v) in arr.iter().skip(skip).enumerate() {
            f.begin_array_value(&mut want.0, k == 0);
            write_with(v, &mut want.0, &mut f);
        }
        let mut f = Calls(fmt());
        let mut esc = crate::escape::EscapingSink::new(&mut want.1);
        f.begin_array(&mut esc);
        for (k, v) in arr.iter().skip(skip).enumerate() {
            f.begin_array_value(&mut esc, k == 0);
            write_with(v, &mut esc, &mut f);
        }
        [got, want]
    }

    /// Every subtree of `src` and every run of its root array's elements: the walk that
    /// copies repeated member prefixes writes what the calls write, in both formatters,
    /// plainly and into a framing sink.
    fn check_repeated_prefixes(src: &str) -> usize {
        let doc = crate::json::parse(src.as_bytes(), &Default::default()).unwrap();
        let marked = doc
            .nodes()
            .iter()
            .filter(|n| {
                matches!(
                    n,
                    Node::Object {
                        same_keys: true,
                        ..
                    }
                )
            })
            .count();
        let mut values = vec![doc.root()];
        while let Some(v) = values.pop() {
            match v.get() {
                crate::ValueRef::Array(a) => values.extend(a.iter()),
                crate::ValueRef::Object(o) => values.extend(o.iter().map(|(_, x)| x)),
                _ => {}
            }
            let idx = v.index();
            assert_eq!(
                both(v, PrettyFormatter::new),
                both(v, || Calls(PrettyFormatter::new())),
                "{src} at {idx}"
            );
            assert_eq!(
                both(v, || CompactFormatter),
                both(v, || Calls(CompactFormatter)),
                "{src} at {idx}"
            );
        }
        if let Some(arr) = doc.root().as_array() {
            for skip in 0..=arr.len() {
                let [got, want] = elements(&doc, skip, PrettyFormatter::new);
                assert_eq!(got, want, "{src}, pretty, skip {skip}");
                let [got, want] = elements(&doc, skip, || CompactFormatter);
                assert_eq!(got, want, "{src}, compact, skip {skip}");
            }
        }
        marked
    }

    #[test]
    fn repeated_member_prefixes_are_what_the_calls_write() {
        for src in [
            r#"[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"b":7,"a":8},{"a":1},{"b":7,"a":8}]"#,
            r#"[{"g":{"x":1,"y":2},"k":1},{"g":{"x":1,"y":2},"k":2}]"#,
            r#"[{"c":{"a":1,"b":2},"s":{"x":1,"y":2}},{"c":{"x":1,"y":2},"s":{"x":1,"y":2}}]"#,
            r#"[{"a":1,"b":2},{"a":1,"a":2},{"a":1,"b":2}]"#,
            r#"[{"k\"q":1,"<tool_error>":[{"e\u0001":{},"f":[]}]},{"k\"q":2,"<tool_error>":[{"e\u0001":{},"f":[1]}]}]"#,
            r#"{"rows":[{"a":{"b":{"c":1,"d":2},"e":3},"f":4},{"a":{"b":{"c":5,"d":6},"e":7},"f":8}],"z":{"c":1,"d":2}}"#,
            r#"[[{"a":1,"b":2}],[{"a":1,"b":2},{"a":1,"b":2}],{"a":1,"b":2},{}]"#,
        ] {
            check_repeated_prefixes(src);
        }
        // Wide rows (more than the remembered keys' fast path) too.
        let wide = |v: usize| {
            let fields: Vec<String> = (0..40).map(|i| format!(r#""k{i}":{v}"#)).collect();
            format!("{{{}}}", fields.join(","))
        };
        assert!(check_repeated_prefixes(&format!("[{},{},{}]", wide(1), wide(2), wide(3))) == 2);
    }

    /// Plain string values (`Node::StrPlain`: ASCII from space to DEL without `"`, `\` or `<`, found
    /// by the block masks) are copied without an escape scan; every other string takes the
    /// escaping path; bare ones (`Node::StrBare`: plain without `{}[]:,|`) and quoted ones
    /// (`Node::StrQuoted`: plain with one of `{}[]:`) skip TOON's byte scan for quotes. Each
    /// byte at a string's start, middle and end, short and past a block: the node kind is
    /// what the bytes say, and the crate's formatters write what their
    /// calls write through `write_string` (plain and framed), as does the TOON encoder
    /// against a parse without the kernels (no plain nodes).
    #[test]
    fn plain_strings_are_copied_and_everything_else_escaped() {
        let mut texts: Vec<String> = Vec::new();
        let pad = "p".repeat(70);
        let mut pieces: Vec<String> = (0x20u8..0x7f)
            .map(|b| match b {
                b'"' => r#"\""#.to_owned(),
                b'\\' => r"\\".to_owned(),
                b => (b as char).to_string(),
            })
            .collect();
        pieces.extend(
            [
                r"\n",
                r"\u0001",
                r"\u00e9",
                "é",
                "中",
                r"\ud800",
                "<tool_error>",
                "\u{7f}",
            ]
            .map(str::to_owned),
        );
        for piece in &pieces {
            for (a, b) in [
                ("", "x"),
                ("x", "x"),
                ("x", ""),
                (pad.as_str(), pad.as_str()),
                // The byte in one block, the string's end in the next.
                ("", pad.as_str()),
            ] {
                texts.push(format!("{a}{piece}{b}"));
            }
        }
        texts.push(String::new());
        let rows: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| format!(r#"{{"i":{i},"s":"{t}"}}"#))
            .collect();
        let src = format!("[{}]", rows.join(","));
        let doc = crate::json::parse(src.as_bytes(), &Default::default()).unwrap();
        let kernel = crate::json::scan::kernel().is_some();
        let mut plain = 0;
        for (n, t) in texts.iter().enumerate() {
            let row = doc.root().as_array().unwrap().iter().nth(n).unwrap();
            let s = row.as_object().unwrap().get(b"s").unwrap();
            // `t` is the string's text in the input, between its quotes.
            let want_plain = kernel
                && t.bytes()
                    .all(|c| (0x20..0x80).contains(&c) && !matches!(c, b'"' | b'\\' | b'<'));
            let is_plain = matches!(
                doc.nodes().at(s.index()),
                Node::StrPlain(_) | Node::StrBare(_) | Node::StrQuoted(_)
            );
            assert_eq!(is_plain, want_plain, "{t:?}");
            // Bare: plain, and none of the bytes that force quotes in TOON; quoted: plain
            // with one that forces them under every delimiter.
            let want_bare = want_plain && !t.bytes().any(crate::json::scan::is_toon_byte);
            let is_bare = matches!(doc.nodes().at(s.index()), Node::StrBare(_));
            assert_eq!(is_bare, want_bare, "{t:?}");
            let want_quoted = want_plain && t.bytes().any(crate::doc::forces_toon_quotes);
            let is_quoted = matches!(doc.nodes().at(s.index()), Node::StrQuoted(_));
            assert_eq!(is_quoted, want_quoted, "{t:?}");
            plain += usize::from(is_plain);
        }
        assert!(!kernel || plain > 80, "{plain} plain strings");
        check_repeated_prefixes(&src);
        // Under each delimiter: the kinds of plain strings are about all three.
        let toon = |d: &crate::Doc<'_>| {
            use crate::toon::{Delimiter, EncodeOptions};
            [Delimiter::Comma, Delimiter::Tab, Delimiter::Pipe].map(|delim| {
                crate::toon::to_vec(d.root(), &EncodeOptions::new().delimiter(delim)).unwrap()
            })
        };
        // TOON cannot hold a lone surrogate: its rows are left out there.
        let toon_rows: Vec<&str> = rows
            .iter()
            .filter(|r| !r.contains(r"\ud800"))
            .map(String::as_str)
            .collect();
        let toon_src = format!("[{}]", toon_rows.join(","));
        let toon_doc = crate::json::parse(toon_src.as_bytes(), &Default::default()).unwrap();
        let bytewise = crate::json::with_kernel(None, || {
            let d = crate::json::parse(src.as_bytes(), &Default::default()).unwrap();
            let t = crate::json::parse(toon_src.as_bytes(), &Default::default()).unwrap();
            for n in d.nodes().iter().chain(t.nodes().iter()) {
                assert!(
                    !matches!(n, Node::StrPlain(_) | Node::StrBare(_) | Node::StrQuoted(_)),
                    "no plain nodes without a kernel"
                );
            }
            (toon(&t), to_vec_pretty(d.root()))
        })
        .unwrap();
        assert!(toon(&toon_doc) == bytewise.0, "TOON of plain nodes");
        assert!(
            to_vec_pretty(doc.root()) == bytewise.1,
            "pretty JSON of plain nodes"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Rows drawn from a few key sets (so many are marked `same_keys`), nested objects
        /// and keys that need escaping: the copies equal the calls.
        #[test]
        fn repeated_member_prefixes_equal_the_calls_on_generated_rows(
            rows in proptest::collection::vec(
                (0usize..4, 0u8..4, proptest::option::of(0usize..3)),
                0..24,
            )
        ) {
            const KEYS: [&[&str]; 4] = [
                &["id", "name"],
                &["id", "name", "tag"],
                &[r#"a\"b"#, "<llm_directives>", r"\u00e9\n"],
                &["name", "id"],
            ];
            let row = |(set, v, inner): &(usize, u8, Option<usize>)| {
                let mut fields: Vec<String> = KEYS[*set]
                    .iter()
                    .map(|k| format!(r#""{k}":{v}"#))
                    .collect();
                if let Some(i) = inner {
                    let inner: Vec<String> =
                        KEYS[*i].iter().map(|k| format!(r#""{k}":"x""#)).collect();
                    fields.push(format!(r#""in":{{{}}}"#, inner.join(",")));
                }
                format!("{{{}}}", fields.join(","))
            };
            let src = format!("[{}]", rows.iter().map(row).collect::<Vec<_>>().join(","));
            check_repeated_prefixes(&src);
        }
    }
}
