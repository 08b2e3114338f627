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
use crate::sink::Sink;

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
}

/// `JSON.stringify(x)`: every [`Formatter`] default, no whitespace.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompactFormatter;

impl Formatter for CompactFormatter {
    #[inline]
    fn write_f64_text<W: Sink + ?Sized>(&mut self, out: &mut W, text: &[u8]) {
        out.write_clean(text);
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
}

/// Writes `value` through `fmt` into `out`. Iterative: any depth, no recursion.
///
/// The tape lists a subtree in document order, so the walk is one pass over a slice of
/// nodes; a stack of open containers (their end indices) says where to close them and
/// whether the next node is an object key. Measured against a walk through the public
/// `Value`/`Elements`/`Members` API, this halves the instructions spent outside string and
/// number formatting.
pub fn write_with<F, W>(value: Value<'_>, out: &mut W, fmt: &mut F)
where
    F: Formatter + ?Sized,
    W: Sink + ?Sized,
{
    let doc = value.doc();
    let start = value.index();
    let nodes = doc.nodes();
    // A container left open by a hand-made builder records `end` 0: walk at least its node.
    let end = doc.next_sibling(start).clamp(start + 1, nodes.len());
    let mut stack: Vec<Open> = Vec::new();
    let mut i = start;
    while i < end {
        // A dropped stream stops the work (checked every 4096 nodes: cheap).
        if (i - start) & 0xFFF == 0xFFF && out.cancelled() {
            return;
        }
        // Close the containers that end here (a tape index can end several at once).
        while let Some(top) = stack.last() {
            if top.end > i {
                break;
            }
            close(out, fmt, top.object);
            stack.pop();
        }
        if let Some(top) = stack.last_mut() {
            let first = std::mem::replace(&mut top.first, false);
            if top.object {
                fmt.begin_object_key(out, first);
                fmt.write_key(out, doc.key_at(i));
                fmt.begin_object_value(out);
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
        match nodes[i] {
            Node::Array { len: 0, .. } => fmt.write_empty_array(out),
            Node::Object { len: 0, .. } => fmt.write_empty_object(out),
            Node::Array { end, .. } => {
                fmt.begin_array(out);
                stack.push(Open {
                    end: end as usize,
                    object: false,
                    first: true,
                });
            }
            Node::Object { end, .. } => {
                fmt.begin_object(out);
                stack.push(Open {
                    end: end as usize,
                    object: true,
                    first: true,
                });
            }
            leaf => write_leaf(out, fmt, doc, leaf),
        }
        i += 1;
    }
    while let Some(top) = stack.pop() {
        close(out, fmt, top.object);
    }
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
        Node::Float(x) => fmt.write_f64(out, x),
        Node::FloatSrc(s) => fmt.write_f64_text(out, doc.src_bytes(s)),
        Node::StrSrc(s) => fmt.write_string(out, doc.src_bytes(s)),
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
    let mut out = Vec::with_capacity(size_hint(value, 6));
    write_compact(value, &mut out);
    out
}

/// `JSON.stringify(value, null, 2)` as bytes.
pub fn to_vec_pretty(value: Value<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(size_hint(value, 12));
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
}
