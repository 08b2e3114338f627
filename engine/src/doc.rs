//! [`Doc`]: the engine's one document representation, a flat tape of values.
//!
//! Every input (JSON bytes, TOON text, any `serde::Serialize` value) becomes a `Doc`, and every
//! encoder (TOON, JSON) reads one. A `Doc` is a vector of 16-byte nodes in document order:
//! a container node records its length and the index just past its subtree, so a whole
//! subtree is skipped in O(1). Object members are a key node (a string) followed by the
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

/// One tape entry. 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    /// An integer lexeme `-?(0|[1-9][0-9]*)` in the input.
    IntSrc(Span),
    /// An integer lexeme in the heap.
    IntHeap(Span),
    Float(f64),
    /// A string borrowed from the input as is.
    StrSrc(Span),
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
    },
}

const FLAG_RESERVED_TAG: u8 = 1;
const FLAG_LONE_SURROGATE: u8 = 2;

/// A parsed document: a tape of values borrowing from the input bytes `'s`.
#[derive(Clone, Debug)]
pub struct Doc<'s> {
    src: &'s [u8],
    nodes: Vec<Node>,
    heap: Vec<u8>,
    flags: u8,
    /// An upper bound of the nesting depth (containers inside containers; a scalar root is 0).
    max_depth: u32,
}

impl<'s> Doc<'s> {
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

    /// Number of tape nodes (a measure of the document's size in memory: 16 bytes each).
    #[inline]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
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

    #[inline]
    pub(crate) fn heap_bytes(&self, span: Span) -> &[u8] {
        &self.heap[span.range()]
    }

    /// The tape itself, for encoders' hot loops (the JSON writers, the TOON encoder).
    #[inline]
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
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
        match self.nodes[idx] {
            Node::StrSrc(s) => self.src_bytes(s),
            Node::StrHeap(s) => self.heap_bytes(s),
            _ => b"",
        }
    }

    /// Index just past the subtree that starts at `idx`.
    #[inline]
    pub(crate) fn next_sibling(&self, idx: usize) -> usize {
        match self.nodes[idx] {
            Node::Array { end, .. } | Node::Object { end, .. } => end as usize,
            _ => idx + 1,
        }
    }
}

/// A value inside a [`Doc`]: a cheap copyable handle (a reference and an index).
#[derive(Clone, Copy)]
pub struct Value<'d> {
    doc: &'d Doc<'d>,
    idx: usize,
}

/// What a [`Value`] is, with its content.
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'d> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number<'d>),
    /// A string.
    String(Str<'d>),
    /// An array.
    Array(Array<'d>),
    /// An object.
    Object(Object<'d>),
}

/// A number as the engine keeps it (WIRE.md §1.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number<'d> {
    /// An integer lexeme `-?(0|[1-9][0-9]*)` with every digit; `-0` is given as `0`.
    Int(&'d [u8]),
    /// Any other number, as the nearest f64.
    Float(f64),
}

impl Number<'_> {
    /// The number as the nearest f64 (integers beyond 2^53 round, as in JavaScript).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Number::Float(x) => x,
            // An integer lexeme is always valid f64 syntax; huge ones give infinity, never panic.
            Number::Int(lex) => std::str::from_utf8(lex)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(f64::NAN),
        }
    }
}

/// A string inside a [`Doc`], in WTF-8 (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Str<'d>(&'d [u8]);

impl<'d> Str<'d> {
    /// The WTF-8 bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'d [u8] {
        self.0
    }

    /// The text, or `None` when it holds a lone surrogate.
    #[inline]
    pub fn to_str(&self) -> Option<&'d str> {
        std::str::from_utf8(self.0).ok()
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the empty string.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&String::from_utf8_lossy(self.0), f)
    }
}

impl<'d> Value<'d> {
    /// What this value is.
    #[inline]
    pub fn get(&self) -> ValueRef<'d> {
        let doc = self.doc;
        match doc.nodes[self.idx] {
            Node::Null => ValueRef::Null,
            Node::Bool(b) => ValueRef::Bool(b),
            Node::IntSrc(s) => ValueRef::Number(Number::Int(crate::num::normalize_int_lexeme(
                doc.src_bytes(s),
            ))),
            Node::IntHeap(s) => ValueRef::Number(Number::Int(crate::num::normalize_int_lexeme(
                doc.heap_bytes(s),
            ))),
            Node::Float(x) => ValueRef::Number(Number::Float(x)),
            Node::StrSrc(s) => ValueRef::String(Str(doc.src_bytes(s))),
            Node::StrHeap(s) => ValueRef::String(Str(doc.heap_bytes(s))),
            Node::Array { len, .. } => ValueRef::Array(Array {
                doc,
                idx: self.idx,
                len,
            }),
            Node::Object { len, .. } => ValueRef::Object(Object {
                doc,
                idx: self.idx,
                len,
            }),
        }
    }

    /// The document this value belongs to.
    #[inline]
    pub fn doc(&self) -> &'d Doc<'d> {
        self.doc
    }

    /// Tape index of this value (stable for the life of the document).
    #[inline]
    pub fn index(&self) -> usize {
        self.idx
    }

    /// True for `null`.
    #[inline]
    pub fn is_null(&self) -> bool {
        matches!(self.doc.nodes[self.idx], Node::Null)
    }

    /// True for strings, numbers, booleans and `null`.
    #[inline]
    pub fn is_primitive(&self) -> bool {
        !matches!(
            self.doc.nodes[self.idx],
            Node::Array { .. } | Node::Object { .. }
        )
    }

    /// The string, if this is one.
    #[inline]
    pub fn as_str(&self) -> Option<Str<'d>> {
        match self.get() {
            ValueRef::String(s) => Some(s),
            _ => None,
        }
    }

    /// The array, if this is one.
    #[inline]
    pub fn as_array(&self) -> Option<Array<'d>> {
        match self.get() {
            ValueRef::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, if this is one.
    #[inline]
    pub fn as_object(&self) -> Option<Object<'d>> {
        match self.get() {
            ValueRef::Object(o) => Some(o),
            _ => None,
        }
    }
}

impl std::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            ValueRef::Null => f.write_str("null"),
            ValueRef::Bool(b) => write!(f, "{b}"),
            ValueRef::Number(Number::Int(l)) => f.write_str(&String::from_utf8_lossy(l)),
            ValueRef::Number(Number::Float(x)) => write!(f, "{x:?}"),
            ValueRef::String(s) => write!(f, "{s:?}"),
            ValueRef::Array(a) => f.debug_list().entries(a.iter()).finish(),
            ValueRef::Object(o) => f.debug_map().entries(o.iter()).finish(),
        }
    }
}

/// An array inside a [`Doc`].
#[derive(Clone, Copy)]
pub struct Array<'d> {
    doc: &'d Doc<'d>,
    idx: usize,
    len: u32,
}

impl<'d> Array<'d> {
    /// The tape index just past the array's last element.
    #[inline]
    pub(crate) fn tape_end(&self) -> usize {
        self.doc.next_sibling(self.idx)
    }

    /// The number of tape nodes each element spans if they all span the same: `Some` when
    /// the array's nodes divide evenly among its (one or more) elements. Only a guess: a
    /// caller that relies on it confirms it, for example by checking that hopping over the
    /// elements of a run lands where the span says the next run starts.
    #[inline]
    pub(crate) fn even_span(&self) -> Option<usize> {
        let (nodes, len) = (self.tape_end() - self.idx - 1, self.len());
        (len > 0 && nodes % len == 0).then(|| nodes / len)
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> Elements<'d> {
        Elements {
            doc: self.doc,
            next: self.idx + 1,
            remaining: self.len,
        }
    }

    /// The array as a value.
    #[inline]
    pub fn as_value(&self) -> Value<'d> {
        Value {
            doc: self.doc,
            idx: self.idx,
        }
    }
}

impl std::fmt::Debug for Array<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.as_value(), f)
    }
}

impl<'d> IntoIterator for Array<'d> {
    type Item = Value<'d>;
    type IntoIter = Elements<'d>;
    fn into_iter(self) -> Elements<'d> {
        self.iter()
    }
}

/// Iterator over the elements of an [`Array`].
#[derive(Clone)]
pub struct Elements<'d> {
    doc: &'d Doc<'d>,
    next: usize,
    remaining: u32,
}

impl<'d> Iterator for Elements<'d> {
    type Item = Value<'d>;

    #[inline]
    fn next(&mut self) -> Option<Value<'d>> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let v = Value {
            doc: self.doc,
            idx: self.next,
        };
        self.next = self.doc.next_sibling(self.next);
        Some(v)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Elements<'_> {}

impl<'d> Elements<'d> {
    /// The tape index of the next element (the array's end when none is left).
    #[inline]
    pub(crate) fn position(&self) -> usize {
        self.next
    }

    /// `count` elements of the same array starting at tape index `at`. The caller must know
    /// that `at` is where an element starts (it only decides what is read, never memory
    /// safety: every tape access is bounds-checked).
    #[inline]
    pub(crate) fn resume(&self, at: usize, count: usize) -> Elements<'d> {
        Elements {
            doc: self.doc,
            next: at,
            remaining: u32::try_from(count).unwrap_or(u32::MAX),
        }
    }
}

/// An object inside a [`Doc`]. Keys are unique (duplicates were merged when it was built:
/// the last value wins, at the first key's position).
#[derive(Clone, Copy)]
pub struct Object<'d> {
    doc: &'d Doc<'d>,
    idx: usize,
    len: u32,
}

impl<'d> Object<'d> {
    /// Number of members.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there are no members.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The members `(key, value)`, in order.
    #[inline]
    pub fn iter(&self) -> Members<'d> {
        Members {
            doc: self.doc,
            next: self.idx + 1,
            remaining: self.len,
        }
    }

    /// The value of `key`, if present (a linear scan).
    pub fn get(&self, key: &[u8]) -> Option<Value<'d>> {
        self.iter()
            .find(|(k, _)| k.as_bytes() == key)
            .map(|(_, v)| v)
    }

    /// The object as a value.
    #[inline]
    pub fn as_value(&self) -> Value<'d> {
        Value {
            doc: self.doc,
            idx: self.idx,
        }
    }
}

impl std::fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.as_value(), f)
    }
}

impl<'d> IntoIterator for Object<'d> {
    type Item = (Str<'d>, Value<'d>);
    type IntoIter = Members<'d>;
    fn into_iter(self) -> Members<'d> {
        self.iter()
    }
}

/// Iterator over the members of an [`Object`].
#[derive(Clone)]
pub struct Members<'d> {
    doc: &'d Doc<'d>,
    next: usize,
    remaining: u32,
}

impl<'d> Iterator for Members<'d> {
    type Item = (Str<'d>, Value<'d>);

    #[inline]
    fn next(&mut self) -> Option<(Str<'d>, Value<'d>)> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let key = match (Value {
            doc: self.doc,
            idx: self.next,
        })
        .get()
        {
            ValueRef::String(s) => s,
            // The builder only ever writes string keys.
            _ => Str(b""),
        };
        let v = Value {
            doc: self.doc,
            idx: self.next + 1,
        };
        self.next = self.doc.next_sibling(self.next + 1);
        Some((key, v))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

impl ExactSizeIterator for Members<'_> {}

/// Slice equality without a `memcmp` call, for the short keys of table rows: two
/// overlapping word loads cover 4..=16 bytes.
#[inline]
pub(crate) fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    #[inline(always)]
    fn w8(s: &[u8], i: usize) -> u64 {
        u64::from_le_bytes([
            s[i],
            s[i + 1],
            s[i + 2],
            s[i + 3],
            s[i + 4],
            s[i + 5],
            s[i + 6],
            s[i + 7],
        ])
    }
    #[inline(always)]
    fn w4(s: &[u8], i: usize) -> u32 {
        u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]])
    }
    match n {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4),
        8..=16 => w8(a, 0) == w8(b, 0) && w8(a, n - 8) == w8(b, n - 8),
        _ => a == b,
    }
}

/// A position returned by [`DocBuilder::begin_array`] / [`DocBuilder::begin_object`].
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Mark(u32);

/// Builds a [`Doc`] in document order. Used by the JSON parser, the TOON decoder, the serde
/// serializer and the presenters.
///
/// Push a value with one of the scalar methods, or open a container with `begin_*`, push its
/// children (for objects: key, then value, per member) and close it with `end_*`. The first
/// value pushed is the root.
#[derive(Debug)]
pub struct DocBuilder<'s> {
    doc: Doc<'s>,
    /// Containers open now (for the document's depth bound).
    depth: u32,
}

impl<'s> DocBuilder<'s> {
    /// A builder whose spans may borrow from `src`.
    pub fn new(src: &'s [u8]) -> Self {
        DocBuilder {
            doc: Doc {
                src,
                nodes: Vec::new(),
                heap: Vec::new(),
                flags: 0,
                max_depth: 0,
            },
            depth: 0,
        }
    }

    /// Like [`DocBuilder::new`], with room for `nodes` nodes and `heap` heap bytes.
    pub fn with_capacity(src: &'s [u8], nodes: usize, heap: usize) -> Self {
        DocBuilder {
            doc: Doc {
                src,
                nodes: Vec::with_capacity(nodes),
                heap: Vec::with_capacity(heap),
                flags: 0,
                max_depth: 0,
            },
            depth: 0,
        }
    }

    /// The input bytes spans refer to.
    #[inline]
    pub fn src(&self) -> &'s [u8] {
        self.doc.src
    }

    /// Number of nodes pushed so far.
    #[inline]
    pub fn node_count(&self) -> usize {
        self.doc.nodes.len()
    }

    /// Pushes `null`.
    #[inline]
    pub fn null(&mut self) {
        self.doc.nodes.push(Node::Null);
    }

    /// Pushes a boolean.
    #[inline]
    pub fn bool(&mut self, b: bool) {
        self.doc.nodes.push(Node::Bool(b));
    }

    /// Pushes a non-integer number (WIRE.md §1.3: non-integers are f64).
    #[inline]
    pub fn float(&mut self, x: f64) {
        self.doc.nodes.push(Node::Float(x));
    }

    /// Pushes an integer whose lexeme `-?(0|[1-9][0-9]*)` is `src[start..start + len]`.
    #[inline]
    pub fn int_src(&mut self, start: usize, len: usize) {
        debug_assert!(crate::num::is_int_lexeme(&self.doc.src[start..start + len]));
        self.doc.nodes.push(Node::IntSrc(span(start, len)));
    }

    /// Pushes an integer given as its lexeme `-?(0|[1-9][0-9]*)`, copied into the heap.
    #[inline]
    pub fn int_lexeme(&mut self, lexeme: &[u8]) {
        debug_assert!(crate::num::is_int_lexeme(lexeme));
        let s = self.push_heap(lexeme);
        self.doc.nodes.push(Node::IntHeap(s));
    }

    /// Pushes an `i64`.
    #[inline]
    pub fn i64(&mut self, x: i64) {
        let mut buf = itoa::Buffer::new();
        self.int_lexeme(buf.format(x).as_bytes());
    }

    /// Pushes a `u64`.
    #[inline]
    pub fn u64(&mut self, x: u64) {
        let mut buf = itoa::Buffer::new();
        self.int_lexeme(buf.format(x).as_bytes());
    }

    /// Pushes a string (or key) that is `src[start..start + len]` verbatim. The caller is
    /// responsible for the document flags ([`DocBuilder::mark_reserved_tag`]).
    #[inline]
    pub fn str_src(&mut self, start: usize, len: usize) {
        self.doc.nodes.push(Node::StrSrc(span(start, len)));
    }

    /// Pushes a string (or key) of WTF-8 bytes copied into the heap. The caller is
    /// responsible for the document flags.
    #[inline]
    pub fn str_heap(&mut self, bytes: &[u8]) {
        let s = self.push_heap(bytes);
        self.doc.nodes.push(Node::StrHeap(s));
    }

    /// Pushes a string (or key) of WTF-8 bytes copied into the heap, scanning it for
    /// reserved tags and lone surrogates to set the document flags.
    #[inline]
    pub fn string(&mut self, bytes: &[u8]) {
        self.note_string(bytes);
        self.str_heap(bytes);
    }

    /// Scans `bytes` (a string or key, kept or skipped) and sets the document flags.
    #[inline]
    pub fn note_string(&mut self, bytes: &[u8]) {
        if crate::tag::contains_reserved_tag(bytes) {
            self.mark_reserved_tag();
        }
        if crate::escape::has_lone_surrogate(bytes) {
            self.mark_lone_surrogate();
        }
    }

    /// Records that the input holds a reserved tag sequence.
    #[inline]
    pub fn mark_reserved_tag(&mut self) {
        self.doc.flags |= FLAG_RESERVED_TAG;
    }

    /// Records that the input holds a lone surrogate.
    #[inline]
    pub fn mark_lone_surrogate(&mut self) {
        self.doc.flags |= FLAG_LONE_SURROGATE;
    }

    #[inline]
    fn open(&mut self) {
        self.depth += 1;
        self.doc.max_depth = self.doc.max_depth.max(self.depth);
    }

    /// Opens an array.
    #[inline]
    pub fn begin_array(&mut self) -> Mark {
        self.open();
        let m = Mark(self.doc.nodes.len() as u32);
        self.doc.nodes.push(Node::Array { len: 0, end: 0 });
        m
    }

    /// Closes the array opened at `mark`, which received `len` elements.
    #[inline]
    pub fn end_array(&mut self, mark: Mark, len: usize) {
        self.depth = self.depth.saturating_sub(1);
        let end = self.doc.nodes.len() as u32;
        self.doc.nodes[mark.0 as usize] = Node::Array {
            len: len as u32,
            end,
        };
    }

    /// Opens an object.
    #[inline]
    pub fn begin_object(&mut self) -> Mark {
        self.open();
        let m = Mark(self.doc.nodes.len() as u32);
        self.doc.nodes.push(Node::Object { len: 0, end: 0 });
        m
    }

    /// Closes the object opened at `mark`, which received `len` members (key, value pairs).
    /// Duplicate keys are merged as `JSON.parse` does: the last value wins, at the position
    /// of the first occurrence of the key.
    pub fn end_object(&mut self, mark: Mark, len: usize) {
        let start = self.close_object(mark, len);
        if len > 1 && self.has_duplicate_keys(start, len) {
            self.merge_duplicate_keys(start, len);
        }
    }

    /// Closes the object opened at `mark` whose `len` keys the caller guarantees are distinct
    /// (for example an object built from a selector's distinct keys): no duplicate check.
    /// Debug builds verify the guarantee.
    #[inline]
    pub fn end_object_unique(&mut self, mark: Mark, len: usize) {
        let start = self.close_object(mark, len);
        debug_assert!(
            len <= 1 || !self.has_duplicate_keys(start, len),
            "duplicate keys in end_object_unique"
        );
    }

    /// Writes the object node at `mark` (its length and end) and returns its index.
    #[inline]
    fn close_object(&mut self, mark: Mark, len: usize) -> usize {
        self.depth = self.depth.saturating_sub(1);
        let start = mark.0 as usize;
        let end = self.doc.nodes.len();
        self.doc.nodes[start] = Node::Object {
            len: len as u32,
            end: end as u32,
        };
        start
    }

    fn key_bytes(&self, idx: usize) -> &[u8] {
        self.doc.key_at(idx)
    }

    fn member_key_indices(&self, start: usize, len: usize) -> Vec<usize> {
        let mut keys = Vec::with_capacity(len);
        let mut i = start + 1;
        for _ in 0..len {
            keys.push(i);
            i = self.doc.next_sibling(i + 1);
        }
        keys
    }

    fn has_duplicate_keys(&self, start: usize, len: usize) -> bool {
        // Small objects (the common case: rows of a table): compare pairwise without
        // allocating. Larger ones: a hash set, so 100k keys stay linear.
        const SMALL: usize = 16;
        if len <= SMALL {
            let mut keys: [&[u8]; SMALL] = [b""; SMALL];
            let mut i = start + 1;
            for n in 0..len {
                let k = self.key_bytes(i);
                if keys[..n].contains(&k) {
                    return true;
                }
                keys[n] = k;
                i = self.doc.next_sibling(i + 1);
            }
            return false;
        }
        let mut seen = HashSet::with_capacity(len);
        self.member_key_indices(start, len)
            .into_iter()
            .any(|i| !seen.insert(self.key_bytes(i)))
    }

    /// The rare path: rebuild the object's members without duplicates.
    #[cold]
    fn merge_duplicate_keys(&mut self, start: usize, len: usize) {
        let keys = self.member_key_indices(start, len);
        let end = self.doc.nodes.len();
        // For each distinct key (in first-seen order), the index of its last occurrence.
        let mut order: Vec<(usize, usize)> = Vec::new(); // (first key idx, last key idx)
        {
            let mut pos: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
            for &k in &keys {
                let kb = self.key_bytes(k);
                match pos.get(kb) {
                    Some(&p) => order[p].1 = k,
                    None => {
                        pos.insert(kb, order.len());
                        order.push((k, k));
                    }
                }
            }
        }
        let mut rebuilt: Vec<Node> = Vec::with_capacity(end - start);
        rebuilt.push(Node::Null); // placeholder for the object node
        for &(first, last) in &order {
            rebuilt.push(self.doc.nodes[first]);
            let v0 = last + 1;
            let v1 = self.doc.next_sibling(v0);
            // Relocate the value subtree: container `end`s are absolute indices.
            let new_base = start + rebuilt.len();
            for node in &self.doc.nodes[v0..v1] {
                rebuilt.push(match *node {
                    Node::Array { len, end } => Node::Array {
                        len,
                        end: (end as usize - v0 + new_base) as u32,
                    },
                    Node::Object { len, end } => Node::Object {
                        len,
                        end: (end as usize - v0 + new_base) as u32,
                    },
                    n => n,
                });
            }
        }
        let new_end = start + rebuilt.len();
        rebuilt[0] = Node::Object {
            len: order.len() as u32,
            end: new_end as u32,
        };
        self.doc.nodes.truncate(start);
        self.doc.nodes.extend_from_slice(&rebuilt);
    }

    /// Copies the subtree at `idx` of `from` in one pass over its nodes: containers are
    /// relocated, heap spans are copied into this builder's heap, and spans into `from`'s
    /// input are kept when `from` reads the same input (else copied into the heap).
    pub(crate) fn copy_from(&mut self, from: &Doc<'_>, idx: usize) {
        // The copied subtree is at most as deep as its whole document.
        self.doc.max_depth = self.doc.max_depth.max(self.depth + from.max_depth);
        let end = from.next_sibling(idx).clamp(idx + 1, from.nodes.len());
        let same_src = std::ptr::eq(from.src, self.doc.src);
        let base = self.doc.nodes.len();
        let reloc = |e: u32| (e as usize - idx + base) as u32;
        // Disjoint borrows: the heap grows while the nodes are extended from a slice iterator
        // (one reservation, no capacity check per node).
        let heap = &mut self.doc.heap;
        let mut to_heap = |bytes: &[u8]| {
            let start = heap.len();
            heap.extend_from_slice(bytes);
            span(start, bytes.len())
        };
        self.doc
            .nodes
            .extend(from.nodes[idx..end].iter().map(|node| match *node {
                Node::Array { len, end } => Node::Array {
                    len,
                    end: reloc(end),
                },
                Node::Object { len, end } => Node::Object {
                    len,
                    end: reloc(end),
                },
                Node::StrHeap(s) => Node::StrHeap(to_heap(from.heap_bytes(s))),
                Node::IntHeap(s) => Node::IntHeap(to_heap(from.heap_bytes(s))),
                Node::StrSrc(s) if !same_src => Node::StrHeap(to_heap(from.src_bytes(s))),
                Node::IntSrc(s) if !same_src => Node::IntHeap(to_heap(from.src_bytes(s))),
                n => n,
            }));
    }

    /// Removes everything pushed after `mark` and the container node at `mark` itself
    /// (used to drop a partially built value).
    pub fn truncate_to(&mut self, mark: Mark) {
        self.doc.nodes.truncate(mark.0 as usize);
    }

    /// A builder for the next window of rows that reuses `doc`'s allocations (the windowed
    /// root-array parser: one tape's worth of memory for a whole input).
    pub(crate) fn recycle(mut doc: Doc<'s>) -> DocBuilder<'s> {
        doc.nodes.clear();
        doc.heap.clear();
        doc.flags = 0;
        doc.max_depth = 0;
        DocBuilder { doc, depth: 0 }
    }

    /// Finishes a window of rows: like [`DocBuilder::finish`], keeping the capacity for
    /// [`DocBuilder::recycle`].
    pub(crate) fn finish_window(self) -> Doc<'s> {
        self.doc
    }

    /// Finishes the document. A builder that received no value yields `null`.
    pub fn finish(mut self) -> Doc<'s> {
        if self.doc.nodes.is_empty() {
            self.doc.nodes.push(Node::Null);
        }
        // Give back a generous capacity estimate's slack (large blocks shrink in place).
        if self.doc.nodes.capacity() > self.doc.nodes.len() + 1024 {
            self.doc.nodes.shrink_to_fit();
        }
        self.doc
    }

    fn push_heap(&mut self, bytes: &[u8]) -> Span {
        let start = self.doc.heap.len();
        self.doc.heap.extend_from_slice(bytes);
        span(start, bytes.len())
    }
}

#[inline]
fn span(start: usize, len: usize) -> Span {
    debug_assert!(start <= u32::MAX as usize && len <= u32::MAX as usize);
    Span {
        start: start as u32,
        len: len as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_eq_matches_slice_equality_at_every_length_and_position() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| b'a' + i % 26).collect();
            assert!(key_eq(&a, &a.clone()), "len {n}");
            for p in 0..n {
                let mut b = a.clone();
                b[p] ^= 0x20;
                assert!(!key_eq(&a, &b), "len {n}, byte {p}");
            }
            let longer = [a.as_slice(), b"x"].concat();
            assert!(!key_eq(&a, &longer), "len {n} vs {}", n + 1);
        }
    }

    #[test]
    fn max_depth_bounds_every_value() {
        // [[{"a": []}], 1] has depth 4; a sibling closing does not lower the record.
        let mut b = DocBuilder::new(b"");
        let root = b.begin_array();
        let inner = b.begin_array();
        let o = b.begin_object();
        b.string(b"a");
        let e = b.begin_array();
        b.end_array(e, 0);
        b.end_object(o, 1);
        b.end_array(inner, 1);
        b.i64(1);
        b.end_array(root, 2);
        let doc = b.finish();
        assert_eq!(doc.max_depth(), 4);
        assert_eq!(DocBuilder::new(b"").finish().max_depth(), 0);
        // A copied subtree carries its document's bound.
        let mut c = DocBuilder::new(b"");
        let m = c.begin_array();
        c.copy_from(&doc, 0);
        c.end_array(m, 1);
        assert!(c.finish().max_depth() >= 5);
    }

    #[test]
    fn node_is_16_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 16);
    }

    fn sample(src: &[u8]) -> Doc<'_> {
        // {"a": [1, "x", {"b": null}], "c": 2.5, "d": true}
        let mut b = DocBuilder::new(src);
        let o = b.begin_object();
        b.string(b"a");
        let a = b.begin_array();
        b.int_src(0, 1);
        b.str_src(1, 1);
        let inner = b.begin_object();
        b.string(b"b");
        b.null();
        b.end_object(inner, 1);
        b.end_array(a, 3);
        b.string(b"c");
        b.float(2.5);
        b.string(b"d");
        b.bool(true);
        b.end_object(o, 3);
        b.finish()
    }

    #[test]
    fn builds_and_walks() {
        let doc = sample(b"1x");
        assert_eq!(
            format!("{:?}", doc.root()),
            r#"{"a": [1, "x", {"b": null}], "c": 2.5, "d": true}"#
        );
        let o = doc.root().as_object().unwrap();
        assert_eq!(o.len(), 3);
        assert!(o.get(b"d").is_some());
        assert!(o.get(b"zz").is_none());
        let a = o.get(b"a").unwrap().as_array().unwrap();
        assert_eq!(a.iter().len(), 3);
        assert!(!doc.has_reserved_tag());
    }

    #[test]
    fn duplicate_keys_last_wins_at_first_position() {
        // {"k": [1, 2], "m": {"x": 1}, "k": {"z": [true]}, "m": 3}
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        b.string(b"k");
        let a = b.begin_array();
        b.i64(1);
        b.i64(2);
        b.end_array(a, 2);
        b.string(b"m");
        let m = b.begin_object();
        b.string(b"x");
        b.i64(1);
        b.end_object(m, 1);
        b.string(b"k");
        let z = b.begin_object();
        b.string(b"z");
        let za = b.begin_array();
        b.bool(true);
        b.end_array(za, 1);
        b.end_object(z, 1);
        b.string(b"m");
        b.i64(3);
        b.end_object(o, 4);
        let doc = b.finish();
        assert_eq!(
            format!("{:?}", doc.root()),
            r#"{"k": {"z": [true]}, "m": 3}"#
        );
        assert_eq!(doc.next_sibling(0), doc.node_count());
    }

    #[test]
    fn many_keys_dedup_is_linear_and_correct() {
        let mut b = DocBuilder::new(b"");
        let o = b.begin_object();
        for i in 0..1000u64 {
            b.string(format!("k{}", i % 500).as_bytes());
            b.u64(i);
        }
        b.end_object(o, 1000);
        let doc = b.finish();
        let obj = doc.root().as_object().unwrap();
        assert_eq!(obj.len(), 500);
        assert_eq!(format!("{:?}", obj.get(b"k7").unwrap()), "507");
    }

    #[test]
    fn flags_and_negative_zero() {
        let mut b = DocBuilder::new(b"-0");
        let a = b.begin_array();
        b.int_src(0, 2);
        b.string(b"x<Tool_Error>");
        b.end_array(a, 2);
        let doc = b.finish();
        assert!(doc.has_reserved_tag());
        assert!(!doc.has_lone_surrogate());
        let first = doc.root().as_array().unwrap().iter().next().unwrap();
        assert!(matches!(first.get(), ValueRef::Number(Number::Int(b"0"))));
        assert!(DocBuilder::new(b"").finish().root().is_null());
    }
}
