//! [`Doc`]: the engine's one document representation, a flat tape of values.
//!
//! Every input (JSON bytes, TOON text, any `serde::Serialize` value) becomes a `Doc`, and every
//! encoder (TOON, JSON) reads one. A `Doc` is a vector of 8-byte nodes in document order (a
//! float's value, and a length of 2^27 or more, sit in side tables): a container node
//! records its length and the index just past its subtree, so a whole subtree is skipped in
//! O(1). Object members are a key node (a string) followed by the
//! value's nodes. Strings and integer lexemes are spans, either borrowed from the input
//! bytes (no escapes, no copy) or stored in the document's own heap (unescaped text, digits
//! of integers that came from serde).
//!
//! Strings are WTF-8: UTF-8, except that a lone surrogate (which JSON can spell `\ud800`) is
//! stored as its 3-byte generalized form. [`Str::to_str`] returns `None` for such strings;
//! the JSON writer prints them back as `\udxxx`, the TOON encoder rejects them.
//!
//! Limits of the representation: the input and the heap are each at most 4 GiB, and one
//! document holds at most 2^32 nodes.

use std::collections::HashSet;

mod builder;
mod tape;
use tape::Tape;
pub(crate) use tape::{Nodes, PERMUTED_PAIRS, drop_spare_tapes, spare_tape_bytes};
#[cfg(test)]
mod tests;
mod value;

pub use builder::{DocBuilder, HeapStr, KeysToken, Mark};
pub(crate) use value::*;
pub use value::{Array, Elements, Members, Number, Object, Str, Value, ValueRef};

/// A span of bytes in the input (`src`) or in the document's heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) len: u32,
}

impl Span {
    #[inline]
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// An `f64` held as two `u32` halves: with no 8-byte field, a [`Node`] (what a tape cell
/// reads back as) aligns to 4 bytes and takes 12 bytes instead of 16, and so does the float
/// table of a tape (docs/DECISIONS.md, "An 8-byte tape").
#[derive(Clone, Copy)]
pub(crate) struct F64([u32; 2]);

impl F64 {
    #[inline(always)]
    pub(crate) fn new(x: f64) -> F64 {
        let bits = x.to_bits();
        F64([bits as u32, (bits >> 32) as u32])
    }

    #[inline(always)]
    pub(crate) fn get(self) -> f64 {
        f64::from_bits(u64::from(self.0[0]) | (u64::from(self.0[1]) << 32))
    }
}

/// Compares the values, as `f64` does (`NaN` is unequal to itself, `0.0 == -0.0`).
impl PartialEq for F64 {
    fn eq(&self, other: &F64) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for F64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// The bytes a [`Node::StrBare`] never holds besides those a [`Node::StrPlain`] never holds:
/// with the quote, the backslash and the control bytes, every byte that forces an unquoted
/// TOON value into quotes under any delimiter.
#[inline]
pub(crate) fn is_toon_byte(b: u8) -> bool {
    forces_toon_quotes(b) || matches!(b, b',' | b'|' | b'\\')
}

/// The bytes that put an unquoted TOON value into quotes whatever the delimiter, besides the
/// quote, the backslash and the control bytes: a plain string with one of them is a
/// [`Node::StrQuoted`].
#[inline]
pub(crate) fn forces_toon_quotes(b: u8) -> bool {
    matches!(b, b'{' | b'}' | b'[' | b']' | b':')
}

/// What a plain string holds of the bytes that force quotes in TOON: which node it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Toon {
    /// `,` or `|`, and none of `{}[]:` ([`Node::StrPlain`]).
    Delim,
    /// None of them ([`Node::StrBare`]).
    Bare,
    /// One of `{}[]:` ([`Node::StrQuoted`]).
    Quoted,
}

impl Toon {
    /// This class once the string is known to hold the [`is_toon_byte`]s `src[at + i]` for
    /// each bit `i` of `bits` (a block mask of them, not empty): the bytes are looked at one
    /// per bit until one decides, which for most strings (a timestamp's first `:`) is the
    /// first.
    #[inline(always)]
    pub(crate) fn with(self, src: &[u8], at: usize, mut bits: u64) -> Toon {
        if self == Toon::Quoted {
            return self;
        }
        while bits != 0 {
            let b = src.get(at + bits.trailing_zeros() as usize).copied();
            if b.is_some_and(forces_toon_quotes) {
                return Toon::Quoted;
            }
            bits &= bits - 1;
        }
        Toon::Delim
    }

    /// The class of a plain string from its bytes, by definition.
    pub(crate) fn of_bytes(s: &[u8]) -> Toon {
        if s.iter().any(|&b| forces_toon_quotes(b)) {
            Toon::Quoted
        } else if s.iter().any(|&b| is_toon_byte(b)) {
            Toon::Delim
        } else {
            Toon::Bare
        }
    }
}

/// One tape entry, as the tape's 8-byte cell reads back (`tape::Nodes::at`): the readers
/// match on it, the builder writes it, and neither sees the packing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    /// An integer lexeme `-?(0|[1-9][0-9]*)` in the input.
    IntSrc(Span),
    /// An integer lexeme in the heap.
    IntHeap(Span),
    Float(F64),
    /// A non-integer whose lexeme in the input is exactly how the writers write its value
    /// (`num::is_written_as_read`, checked by the parser): copied when written, converted
    /// when read.
    FloatSrc(Span),
    /// A string borrowed from the input as is.
    StrSrc(Span),
    /// A string value borrowed from the input whose bytes are ASCII from space to DEL other than
    /// `"`, `\` and `<` (the parser's plain run, `json::parse`): the JSON writers copy it
    /// between quotes without looking for escapes, inside a frame too. Otherwise a
    /// [`Node::StrSrc`]; keys are never plain. The parser makes a [`Node::StrBare`] or a
    /// [`Node::StrQuoted`] of a plain string where it can, so its plain strings hold `,` or
    /// `|` (the TOON encoder looks at their bytes).
    StrPlain(Span),
    /// A [`Node::StrPlain`] that holds none of `{}[]:,|` either (the parser's block masks,
    /// `scan::Str::toon`): with no quote, backslash or control byte, no byte of it forces
    /// quotes in TOON under any delimiter, so the TOON encoder checks only the rules about
    /// the whole string (its ends, number-like, `true`/`false`/`null`).
    StrBare(Span),
    /// A [`Node::StrPlain`] that holds one of `{}[]:` ([`forces_toon_quotes`]): TOON quotes it
    /// under every delimiter, so the TOON encoder writes it between quotes without looking
    /// at it. A [`Node::StrPlain`] holds none of them, only `,` or `|`.
    StrQuoted(Span),
    /// A string in the heap (unescaped).
    StrHeap(Span),
    /// `len` elements follow; `end` is the index just past the subtree.
    Array {
        len: u32,
        end: u32,
    },
    /// `len` members (key node + value nodes) follow; `end` is the index just past the subtree.
    Object {
        len: u32,
        end: u32,
        /// Set by [`DocBuilder::end_object`] when the object lists exactly the keys, in
        /// order, of the object closed last before it at the same depth (the previous row of
        /// a collection): the TOON shape analysis then skips comparing its keys. Cleared
        /// wherever nodes are copied or rebuilt, where that neighbour may change.
        same_keys: bool,
        /// Set by the JSON parser when it read the object through a row layout with every
        /// value a string, number or literal (so `end` is two nodes per member past it): the
        /// TOON shape analysis then reads no value's kind. False where not known.
        flat: bool,
    },
}

const FLAG_RESERVED_TAG: u8 = 1;
const FLAG_LONE_SURROGATE: u8 = 2;

/// A parsed document: a tape of values borrowing from the input bytes `'s`.
#[derive(Clone, Debug)]
pub struct Doc<'s> {
    src: &'s [u8],
    nodes: Tape,
    heap: Vec<u8>,
    flags: u8,
    /// An upper bound of the nesting depth (containers inside containers; a scalar root is 0).
    max_depth: u32,
    /// What a layer above derived once from this document (see [`Doc::keep`]).
    memo: Memo,
}

/// A value stored at most once per document by a layer above `doc` (the TOON encoder's
/// shape of a root table: a server encodes the same collection call after call). Its type is
/// erased, so `doc` needs to know nothing of it. A clone starts empty (and computes again).
#[derive(Default)]
pub(crate) struct Memo(std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>);

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Memo(set)"
        } else {
            "Memo(empty)"
        })
    }
}

impl<'s> Doc<'s> {
    /// Stores `init()` in the document's memo unless it holds a value already. Nobody waits
    /// for another thread's `init` (which may need the thread pool the waiter holds): threads
    /// racing to fill an empty memo each compute, the first to finish stores.
    pub(crate) fn keep<T: std::any::Any + Send + Sync>(&self, init: impl FnOnce() -> T) {
        if self.memo.0.get().is_none() {
            let _ = self.memo.0.set(Box::new(init()));
        }
    }

    /// The value in the document's memo, if it is a `T`.
    #[inline]
    pub(crate) fn kept<T: std::any::Any + Send + Sync>(&self) -> Option<&T> {
        self.memo.0.get()?.downcast_ref()
    }

    /// The root value.
    ///
    /// # Panics
    ///
    /// Never for a document produced by this crate's parsers; a [`DocBuilder`] that was
    /// finished without a value yields `null` instead.
    #[inline]
    pub fn root(&self) -> Value<'_> {
        Value { doc: self, idx: 0 }
    }

    /// True when any string or key of the input, including parts a selector skipped, holds a
    /// reserved tag sequence (WIRE.md §2).
    #[inline]
    pub fn has_reserved_tag(&self) -> bool {
        self.flags & FLAG_RESERVED_TAG != 0
    }

    /// True when any string or key of the input, including parts a selector skipped, holds a
    /// lone surrogate.
    #[inline]
    pub fn has_lone_surrogate(&self) -> bool {
        self.flags & FLAG_LONE_SURROGATE != 0
    }

    /// Number of tape nodes (a measure of the document's size in memory: 8 bytes each).
    #[inline]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The bytes of strings and lexemes the document keeps in its own heap.
    #[inline]
    pub fn heap_len(&self) -> usize {
        self.heap.len()
    }

    /// The heap bytes the document holds (its tape's and its heap's capacity): what keeping
    /// it costs against the memory contract.
    pub(crate) fn held_bytes(&self) -> usize {
        self.nodes.held_bytes() + self.heap.capacity()
    }

    /// The document without its tape's slack (a window kept for a second use: large blocks
    /// shrink in place).
    pub(crate) fn shrunk(mut self) -> Doc<'s> {
        self.nodes.shrink();
        self
    }

    /// The input bytes the document borrows from.
    #[inline]
    pub fn src(&self) -> &'s [u8] {
        self.src
    }

    #[inline]
    pub(crate) fn src_bytes(&self, span: Span) -> &[u8] {
        &self.src[span.range()]
    }

    /// The value of a [`Node::FloatSrc`] lexeme.
    #[inline]
    pub(crate) fn float_src_value(&self, span: Span) -> f64 {
        crate::num::float_value(self.src_bytes(span))
    }

    #[inline]
    pub(crate) fn heap_bytes(&self, span: Span) -> &[u8] {
        &self.heap[span.range()]
    }

    /// How many input bytes the tape nodes `from..to` were read from, measured from the first
    /// scalar among the first few nodes that borrows from the input to the last such among
    /// the last few (0 when there is none): a size hint for a buffer that receives an
    /// encoding of those nodes (a part of a table's rows), not a bound.
    pub(crate) fn src_extent(&self, from: usize, to: usize) -> usize {
        /// The nodes looked at from each end.
        const LOOK: usize = 8;
        let src_span = |n: Node| match n {
            Node::IntSrc(s)
            | Node::FloatSrc(s)
            | Node::StrSrc(s)
            | Node::StrPlain(s)
            | Node::StrBare(s)
            | Node::StrQuoted(s) => Some(s.range()),
            _ => None,
        };
        let Some(nodes) = self.nodes().get_slice(from..to) else {
            return 0;
        };
        let first = nodes.iter().take(LOOK).find_map(src_span);
        let last = nodes.iter().rev().take(LOOK).find_map(src_span);
        match (first, last) {
            (Some(a), Some(b)) => b.end.saturating_sub(a.start),
            _ => 0,
        }
    }

    /// The tape itself, for encoders' hot loops (the JSON writers, the TOON encoder).
    #[inline(always)]
    pub(crate) fn nodes(&self) -> Nodes<'_> {
        self.nodes.view()
    }

    /// The node at tape index `idx`.
    #[inline(always)]
    pub(crate) fn node(&self, idx: usize) -> Node {
        self.nodes.view().at(idx)
    }

    /// An upper bound of the nesting depth of any value in the document (containers inside
    /// containers; a scalar is 0, `[]` is 1). Encoders skip their depth walk when it is within
    /// their limit.
    #[inline]
    pub fn max_depth(&self) -> usize {
        self.max_depth as usize
    }

    /// The bytes of the string (or key) node at tape index `idx`; empty for any other node
    /// (builders only write string keys, and a hand-made tape must never cause a panic).
    #[inline]
    pub(crate) fn key_at(&self, idx: usize) -> &[u8] {
        match self.nodes().string(idx) {
            Some((false, s)) => self.src_bytes(s),
            Some((true, s)) => self.heap_bytes(s),
            None => b"",
        }
    }

    /// The value whose node is at tape index `idx` (the start of a value, not a key).
    #[inline]
    pub(crate) fn value_at(&self, idx: usize) -> Value<'_> {
        debug_assert!(idx < self.nodes.len());
        Value { doc: self, idx }
    }

    /// Index just past the subtree that starts at `idx`.
    #[inline]
    pub(crate) fn next_sibling(&self, idx: usize) -> usize {
        self.nodes.view().next_sibling(idx)
    }
}
