//! [`Value`] and its views: what a tape node is ([`ValueRef`], [`Number`], [`Str`]), arrays
//! and objects with their iterators, and the short-key compare of table rows.

use super::*;

/// A value inside a [`Doc`]: a cheap copyable handle (a reference and an index).
#[derive(Clone, Copy)]
pub struct Value<'d> {
    pub(super) doc: &'d Doc<'d>,
    pub(super) idx: usize,
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
pub struct Str<'d>(pub(super) &'d [u8]);

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
        match doc.node(self.idx) {
            Node::Null => ValueRef::Null,
            Node::Bool(b) => ValueRef::Bool(b),
            Node::IntSrc(s) => ValueRef::Number(Number::Int(crate::num::normalize_int_lexeme(
                doc.src_bytes(s),
            ))),
            Node::IntHeap(s) => ValueRef::Number(Number::Int(crate::num::normalize_int_lexeme(
                doc.heap_bytes(s),
            ))),
            Node::Float(x) => ValueRef::Number(Number::Float(x.get())),
            Node::FloatSrc(s) => ValueRef::Number(Number::Float(self.doc.float_src_value(s))),
            Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
                ValueRef::String(Str(doc.src_bytes(s)))
            }
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
        matches!(self.doc.node(self.idx), Node::Null)
    }

    /// True for strings, numbers, booleans and `null`.
    #[inline]
    pub fn is_primitive(&self) -> bool {
        !matches!(
            self.doc.node(self.idx),
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
    pub(super) doc: &'d Doc<'d>,
    pub(super) idx: usize,
    pub(super) len: u32,
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
    pub(super) doc: &'d Doc<'d>,
    pub(super) next: usize,
    pub(super) remaining: u32,
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
    pub(super) doc: &'d Doc<'d>,
    pub(super) idx: usize,
    pub(super) len: u32,
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
    pub(super) doc: &'d Doc<'d>,
    pub(super) next: usize,
    pub(super) remaining: u32,
}

impl<'d> Iterator for Members<'d> {
    type Item = (Str<'d>, Value<'d>);

    #[inline]
    fn next(&mut self) -> Option<(Str<'d>, Value<'d>)> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        // The builder only ever writes string keys (`key_at` reads no other node).
        let key = Str(self.doc.key_at(self.next));
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
