//! [`DocBuilder`]: writing a [`Doc`] in document order.

use super::*;

/// Where [`DocBuilder::str_heap_kept`] put a string's bytes in its builder's heap.
#[derive(Clone, Copy, Debug)]
pub struct HeapStr(Span);

/// A position returned by [`DocBuilder::begin_array`] / [`DocBuilder::begin_object`].
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Mark(pub(super) u32);

/// Builds a [`Doc`] in document order. Used by the JSON parser, the TOON decoder, the serde
/// serializer and the presenters.
///
/// Push a value with one of the scalar methods, or open a container with `begin_*`, push its
/// children (for objects: key, then value, per member) and close it with `end_*`. The first
/// value pushed is the root.
#[derive(Debug)]
pub struct DocBuilder<'s> {
    pub(super) doc: Doc<'s>,
    /// Containers open now (for the document's depth bound).
    pub(super) depth: u32,
    /// Per nesting level (up to [`KEY_LEVELS`]), the key nodes, in order, of the object closed
    /// last at that level when [`DocBuilder::end_object`] found it free of duplicates (and not
    /// wider than [`REMEMBERED_KEYS`]); empty when that object was not remembered: an object
    /// with exactly these keys (the next row of a collection, the next line item of a row)
    /// is free of them too, checked with one compare per key instead of a compare per pair.
    /// Per level, so that a row's nested objects do not evict the row's keys. Spans stay
    /// valid: the heap only grows until [`DocBuilder::recycle`], which starts a new builder.
    pub(super) prev_keys: Vec<Vec<Node>>,
    /// Per nesting level (up to [`KEY_LEVELS`]), the token and tape index of the object closed
    /// last at that level when [`DocBuilder::end_object_keyed`] closed it; `None` when any
    /// other call closed it (or it was dropped, or copied over).
    prev_token: [Option<(KeysToken, u32)>; KEY_LEVELS],
    /// Per nesting level, a number that changes whenever the keys remembered there
    /// (`prev_keys`) change: the parser's row layouts ([`DocBuilder::keys_gen`]) recheck
    /// that they name the remembered keys only then.
    keys_gen: [u32; KEY_LEVELS],
}

/// What the caller of [`DocBuilder::end_object_keyed`] knows of an object's keys: two
/// objects closed with equal tokens have the same keys in the same order (for example the
/// identity of a schema's property list and the set of its properties written, or the
/// Python binding's key objects of a dict equal to those of the dict before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeysToken {
    /// Who minted the token (an address that lives as long as the builder's work).
    pub(crate) owner: usize,
    /// Which of the owner's keys the object holds.
    pub(crate) keys: u64,
}

impl KeysToken {
    /// The token `keys` of the minter `owner`: a number that no other minter closing
    /// objects of the same builder uses (an address it holds for the builder's work).
    #[inline]
    pub const fn new(owner: usize, keys: u64) -> KeysToken {
        KeysToken { owner, keys }
    }
}

/// Nesting levels whose last object's keys are remembered (deeper objects are checked pair
/// by pair).
const KEY_LEVELS: usize = 8;

/// Objects up to this many members are checked for duplicate keys pair by pair; larger ones
/// through a hash set.
const SMALL_OBJECT: usize = 16;

/// Objects up to this many members (found free of duplicates) are remembered for the next
/// row: wide rows too, and a huge keyed object is not copied.
const REMEMBERED_KEYS: usize = 256;

impl<'s> DocBuilder<'s> {
    /// A builder whose spans may borrow from `src`.
    pub fn new(src: &'s [u8]) -> Self {
        DocBuilder {
            doc: Doc {
                src,
                nodes: Tape::default(),
                heap: Vec::new(),
                flags: 0,
                max_depth: 0,
                memo: Memo::default(),
            },
            depth: 0,
            prev_keys: Vec::new(),
            prev_token: [None; KEY_LEVELS],
            keys_gen: [0; KEY_LEVELS],
        }
    }

    /// Like [`DocBuilder::new`], with room for `nodes` nodes and `heap` heap bytes.
    pub fn with_capacity(src: &'s [u8], nodes: usize, heap: usize) -> Self {
        DocBuilder {
            doc: Doc {
                src,
                nodes: Tape::with_capacity(nodes),
                heap: Vec::with_capacity(heap),
                flags: 0,
                max_depth: 0,
                memo: Memo::default(),
            },
            depth: 0,
            prev_keys: Vec::new(),
            prev_token: [None; KEY_LEVELS],
            keys_gen: [0; KEY_LEVELS],
        }
    }

    /// Makes room for about `nodes` more nodes and `heap` more heap bytes (a caller that
    /// can tell, from the first rows of a collection, what the rest will take: the tape and
    /// the heap then do not grow, and copy themselves, a dozen times on the way).
    pub fn reserve(&mut self, nodes: usize, heap: usize) {
        self.doc.nodes.reserve(nodes);
        self.doc.heap.reserve(heap);
    }

    /// The heap bytes pushed so far.
    #[inline]
    pub fn heap_len(&self) -> usize {
        self.doc.heap.len()
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
        self.doc.nodes.push(Node::Float(super::F64::new(x)));
    }

    /// Pushes a non-integer number whose lexeme `src[start..start + len]` is exactly what
    /// `num::write_f64` writes for its nearest f64 (the parser checks it).
    #[inline]
    pub(crate) fn float_src(&mut self, start: usize, len: usize) {
        debug_assert!({
            let lex = &self.doc.src[start..start + len];
            let mut out = Vec::new();
            crate::num::write_f64(&mut out, crate::num::float_value(lex));
            out == lex
        });
        self.doc.nodes.push(Node::FloatSrc(span(start, len)));
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

    /// The head of a key that is `len` bytes of the input verbatim, for
    /// [`DocBuilder::key_head`]; `None` when its length does not fit in one.
    #[inline]
    pub(crate) fn key_head_of(len: usize) -> Option<u32> {
        Tape::str_src_head(len)
    }

    /// The length of the key a head from [`DocBuilder::key_head_of`] was made for.
    #[inline]
    pub(crate) fn key_head_len(head: u32) -> usize {
        Tape::str_src_head_len(head)
    }

    /// Pushes a key that is `src[start..]` verbatim, of the length `head` (from
    /// [`DocBuilder::key_head_of`]) holds: [`DocBuilder::str_src`] with its length checked
    /// once, when the head was made.
    #[inline(always)]
    pub(crate) fn key_head(&mut self, head: u32, start: usize) {
        self.doc.nodes.push_head(head, start);
    }

    /// Pushes a string value that is `src[start..start + len]` verbatim and plain: ASCII from
    /// space to DEL other than `"`, `\` and `<`, of the class `toon` says
    /// ([`Node::StrPlain`], [`Node::StrBare`] or [`Node::StrQuoted`]; the caller checked it).
    /// One push whatever the class: the tag is picked without a branch.
    #[inline(always)]
    pub(crate) fn str_plain(&mut self, start: usize, len: usize, toon: Toon) {
        debug_assert!(
            self.is_plain_of(start, len, toon),
            "a plain string is ASCII from space to DEL without quote, backslash or <, of its class"
        );
        self.doc
            .nodes
            .push_span(super::tape::plain_tag(toon), start, len);
    }

    /// Whether `src[start..start + len]` is a plain string of the class `toon` (the
    /// precondition of [`DocBuilder::str_plain`] and [`DocBuilder::str_plain_short`], for
    /// their debug assertions).
    fn is_plain_of(&self, start: usize, len: usize, toon: Toon) -> bool {
        let s = &self.doc.src[start..start + len];
        s.iter()
            .all(|&b| (0x20..0x80).contains(&b) && !matches!(b, b'"' | b'\\' | b'<'))
            && Toon::of_bytes(s) == toon
    }

    /// The longest string [`DocBuilder::str_plain_short`] takes.
    pub(crate) const SHORT_STR_MAX: usize = Tape::HEAD_LEN_MAX;

    /// [`DocBuilder::str_plain`] of a string of at most [`DocBuilder::SHORT_STR_MAX`] bytes
    /// (its caller's bound already holds that one): the length is not checked again.
    #[inline(always)]
    pub(crate) fn str_plain_short(&mut self, start: usize, len: usize, toon: Toon) {
        debug_assert!(
            self.is_plain_of(start, len, toon),
            "a plain string is ASCII from space to DEL without quote, backslash or <, of its class"
        );
        self.doc
            .nodes
            .push_short_span(super::tape::plain_tag(toon), start, len);
    }

    /// Pushes a string (or key) of WTF-8 bytes copied into the heap. The caller is
    /// responsible for the document flags.
    #[inline]
    pub fn str_heap(&mut self, bytes: &[u8]) {
        let s = self.push_heap(bytes);
        self.doc.nodes.push(Node::StrHeap(s));
    }

    /// [`DocBuilder::str_heap`], returning where the bytes went: the same string (a key of
    /// every row) is then pushed again with [`DocBuilder::str_heap_again`], not copied.
    #[inline]
    pub fn str_heap_kept(&mut self, bytes: &[u8]) -> HeapStr {
        let s = self.push_heap(bytes);
        self.doc.nodes.push(Node::StrHeap(s));
        HeapStr(s)
    }

    /// Pushes again a string (or key) that [`DocBuilder::str_heap_kept`] of this builder
    /// pushed: a node on the same heap bytes (the heap only grows while a builder is
    /// used). The caller is responsible for the document flags, as for `str_heap`.
    #[inline]
    pub fn str_heap_again(&mut self, s: HeapStr) {
        debug_assert!(s.0.start as usize + s.0.len as usize <= self.doc.heap.len());
        self.doc.nodes.push(Node::StrHeap(s.0));
    }

    /// Pushes a copy of `v`, a value of any document: numbers and literals as they are,
    /// every string and key copied with [`DocBuilder::string`] (so the flags of this
    /// document follow the copied values only).
    pub fn copy_value(&mut self, v: Value<'_>) {
        match v.get() {
            ValueRef::Null => self.null(),
            ValueRef::Bool(x) => self.bool(x),
            ValueRef::Number(Number::Int(l)) => self.int_lexeme(l),
            ValueRef::Number(Number::Float(x)) => self.float(x),
            ValueRef::String(s) => self.string(s.as_bytes()),
            ValueRef::Array(a) => {
                let m = self.begin_array();
                for e in a.iter() {
                    self.copy_value(e);
                }
                self.end_array(m, a.len());
            }
            ValueRef::Object(o) => {
                let m = self.begin_object();
                for (k, x) in o.iter() {
                    self.string(k.as_bytes());
                    self.copy_value(x);
                }
                self.end_object(m, o.len());
            }
        }
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
        // A short string (a table cell) is checked in one pass for the first bytes of both:
        // two SIMD searches cost more than they scan (the TOON decoder's rows, callgrind).
        if bytes.len() <= 32 && !bytes.iter().any(|&b| b == b'<' || b == 0xED) {
            return;
        }
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
    pub(super) fn open(&mut self) {
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
        self.doc.nodes.set(
            mark.0 as usize,
            Node::Array {
                len: len as u32,
                end,
            },
        );
    }

    /// Opens an object.
    #[inline]
    pub fn begin_object(&mut self) -> Mark {
        self.open();
        self.push_open_object()
    }

    /// The node of an object opened now, written again when it closes.
    #[inline(always)]
    fn push_open_object(&mut self) -> Mark {
        let m = Mark(self.doc.nodes.len() as u32);
        self.doc.nodes.push(Node::Object {
            len: 0,
            end: 0,
            same_keys: false,
            flat: false,
        });
        m
    }

    /// Closes the object opened at `mark`, which received `len` members (key, value pairs).
    /// Duplicate keys are merged as `JSON.parse` does: the last value wins, at the position
    /// of the first occurrence of the key.
    pub fn end_object(&mut self, mark: Mark, len: usize) {
        let start = self.close_object(mark, len);
        if len > 1 && self.same_keys_as_previous(start, len) {
            self.doc.nodes.mark_same_keys(start);
            return;
        }
        if len > 1 && self.has_duplicate_keys(start, len) {
            self.merge_duplicate_keys(start, len);
            // The dropped values' objects may be the last ones closed at the levels inside.
            self.forget_keys_below();
            return;
        }
        if (2..=REMEMBERED_KEYS).contains(&len) {
            self.remember_keys(start, len);
            return;
        }
        self.forget_keys();
    }

    /// Where in the input key number `i` (from 0) of the last object remembered at the level
    /// of the object open now is, when that key was taken verbatim from the input: the
    /// parser's guess for the key it is about to lex ([`DocBuilder::end_object_repeated`]).
    #[inline(always)]
    pub(crate) fn remembered_key(&self, i: usize) -> Option<(usize, usize)> {
        let level = (self.depth as usize).checked_sub(1)?;
        match self.prev_keys.get(level)?.get(i)? {
            Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
                Some((s.start as usize, s.len as usize))
            }
            _ => None,
        }
    }

    /// [`DocBuilder::end_object`] for an object whose caller knows (`repeated`) that each of
    /// its `len` keys is, byte for byte in the input, the key at the same place of
    /// [`DocBuilder::remembered_key`]: when those were all the remembered keys, the object
    /// has exactly them, so it is marked [`Node::Object::same_keys`] without comparing keys.
    /// `FLAT`: the caller read every one of its values as a string, number or literal, and
    /// the object is also marked [`Node::Object::flat`]; for the rows of a collection the
    /// node is then written once with both marks (setting them one after the other cost a
    /// parse of rows 8 instructions a row).
    /// Returns whether the object was marked `same_keys` that way: then, until the builder
    /// is given anything but objects like it, the next one may be opened and closed with
    /// [`DocBuilder::begin_same_row`] and [`DocBuilder::end_same_row`].
    #[inline]
    pub(crate) fn end_object_repeated<const FLAT: bool>(
        &mut self,
        mark: Mark,
        len: usize,
        repeated: bool,
    ) -> bool {
        let level = (self.depth as usize).wrapping_sub(1);
        let all = repeated && len > 1 && self.prev_keys.get(level).is_some_and(|k| k.len() == len);
        if !all {
            self.end_object(mark, len);
            if FLAT {
                self.mark_flat(mark);
            }
            return false;
        }
        let start = self.close_object_as(mark, len, true, FLAT);
        debug_assert!(self.same_keys_as_previous(start, len));
        true
    }

    /// Opens the object that follows, at the same level, one that
    /// [`DocBuilder::end_object_repeated::<true>`] closed as `same_keys` (returning true),
    /// with nothing pushed in between: the next row of a run. Its depth was reached before,
    /// and no token is recorded at its level, so only the node is pushed.
    #[inline(always)]
    pub(crate) fn begin_same_row(&mut self) -> Mark {
        self.depth += 1;
        debug_assert!(self.depth <= self.doc.max_depth);
        self.push_open_object()
    }

    /// Closes an object opened by [`DocBuilder::begin_same_row`] whose caller read, byte for
    /// byte, the keys of the row before it (`len` of them) and every value as a string,
    /// number or literal: it is `same_keys` and `flat`, as
    /// [`DocBuilder::end_object_repeated::<true>`] would find, without its checks (the
    /// remembered keys and the level's token are as the row before left them).
    #[inline(always)]
    pub(crate) fn end_same_row(&mut self, mark: Mark, len: usize) {
        self.depth -= 1;
        debug_assert!(self.prev_token[self.depth as usize].is_none());
        let start = self.write_object(mark, len, true, true);
        debug_assert!(self.same_keys_as_previous(start, len));
    }

    /// Marks the object closed at `mark` [`Node::Object::flat`]: its caller read every one
    /// of its values as a string, number or literal.
    #[inline]
    fn mark_flat(&mut self, mark: Mark) {
        self.doc.nodes.mark_flat(mark.0 as usize);
    }

    /// True when the object at `start` has exactly the keys, in order, of the last object
    /// remembered free of duplicates (so it is free of them too).
    #[inline]
    fn same_keys_as_previous(&self, start: usize, len: usize) -> bool {
        let Some(prev_keys) = self.prev_keys.get(self.depth as usize) else {
            return false;
        };
        if prev_keys.len() != len {
            return false;
        }
        let doc = &self.doc;
        let mut i = start + 1;
        for prev in prev_keys {
            let here = doc.key_at(i);
            let before = match *prev {
                Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
                    doc.src_bytes(s)
                }
                Node::StrHeap(s) => doc.heap_bytes(s),
                _ => return false,
            };
            if !key_eq(here, before) {
                return false;
            }
            i = doc.next_sibling(i + 1);
        }
        true
    }

    /// Forgets the keys remembered at this level: the object just closed here is not the one
    /// they belong to, and [`Node::Object::same_keys`] compares with the last object closed.
    #[inline]
    fn forget_keys(&mut self) {
        if let Some(keys) = self.prev_keys.get_mut(self.depth as usize) {
            keys.clear();
        }
        self.keys_changed(self.depth as usize..self.depth as usize + 1);
    }

    /// Records that the keys remembered at `levels` changed ([`DocBuilder::keys_gen`]).
    #[inline]
    fn keys_changed(&mut self, levels: std::ops::Range<usize>) {
        for g in self.keys_gen.iter_mut().take(levels.end).skip(levels.start) {
            *g = g.wrapping_add(1);
        }
    }

    /// The generation of the keys remembered at the level of the object open now: it
    /// changes whenever those keys change (none are remembered below [`KEY_LEVELS`] levels).
    #[inline(always)]
    pub(crate) fn keys_gen(&self) -> u32 {
        let level = (self.depth as usize).wrapping_sub(1);
        self.keys_gen.get(level).copied().unwrap_or(0)
    }

    /// True when the keys remembered at the level of the object open now are, in order,
    /// exactly `keys` (unescaped bytes): an object whose keys are those is `repeated` in the
    /// sense of [`DocBuilder::end_object_repeated`].
    pub(crate) fn remembered_keys_are<'k>(
        &self,
        mut keys: impl ExactSizeIterator<Item = &'k [u8]>,
    ) -> bool {
        let level = (self.depth as usize).wrapping_sub(1);
        let Some(prev) = self.prev_keys.get(level) else {
            return false;
        };
        prev.len() == keys.len()
            && prev.iter().all(|k| {
                let before = match *k {
                    Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
                        self.doc.src_bytes(s)
                    }
                    Node::StrHeap(s) => self.doc.heap_bytes(s),
                    _ => return false,
                };
                keys.next() == Some(before)
            })
    }

    /// Forgets the keys remembered at this level and every deeper one: objects there were
    /// dropped or copied in without [`DocBuilder::end_object`] seeing them.
    fn forget_keys_below(&mut self) {
        for keys in self.prev_keys.iter_mut().skip(self.depth as usize) {
            keys.clear();
        }
        for token in self.prev_token.iter_mut().skip(self.depth as usize) {
            *token = None;
        }
        self.keys_changed(self.depth as usize..KEY_LEVELS);
    }

    /// Remembers the key nodes of the object at `start` (found free of duplicates).
    #[cold]
    fn remember_keys(&mut self, start: usize, len: usize) {
        let level = self.depth as usize;
        if level >= KEY_LEVELS {
            return;
        }
        if self.prev_keys.len() <= level {
            self.prev_keys.resize_with(level + 1, Vec::new);
        }
        self.keys_changed(level..level + 1);
        let keys = &mut self.prev_keys[level];
        keys.clear();
        let mut i = start + 1;
        for _ in 0..len {
            keys.push(self.doc.node(i));
            i = self.doc.next_sibling(i + 1);
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
        self.forget_keys();
    }

    /// [`DocBuilder::end_object_unique`] for an object whose keys `token` names: when the
    /// object closed last at its level was closed here with an equal token, it has the same
    /// keys, so it is marked `same_keys` without comparing any (the encoder's
    /// shape analysis then reads only the values of a collection's rows). Debug builds verify
    /// both guarantees.
    #[inline]
    pub fn end_object_keyed(&mut self, mark: Mark, len: usize, token: KeysToken) {
        self.end_object_keyed_as(mark, len, token, false);
    }

    /// [`DocBuilder::end_object_keyed`] for an object that may also be marked
    /// `flat`: its caller pushed every one of its values as a string, number
    /// or literal (debug builds verify it).
    #[inline]
    pub fn end_object_keyed_as(&mut self, mark: Mark, len: usize, token: KeysToken, flat: bool) {
        let level = (self.depth as usize).wrapping_sub(1);
        // The object closed last at this level had the same token: the same keys in the
        // same order, marked with the node as it is written.
        let before = self
            .prev_token
            .get(level)
            .copied()
            .flatten()
            .filter(|&(t, _)| t == token && len > 1)
            .map(|(_, before)| before as usize);
        let start = self.close_object_as(mark, len, before.is_some(), flat);
        debug_assert!(
            len <= 1 || !self.has_duplicate_keys(start, len),
            "duplicate keys in end_object_keyed"
        );
        debug_assert!(
            before.is_none_or(|b| self.same_keys_at(b, start)),
            "unequal keys, equal tokens"
        );
        debug_assert!(
            !flat
                || (self.doc.nodes.len() == start + 1 + 2 * len
                    && (0..len).all(|j| !matches!(
                        self.doc.node(start + 2 + 2 * j),
                        Node::Array { .. } | Node::Object { .. }
                    ))),
            "a flat object holds only strings, numbers and literals"
        );
        self.forget_keys();
        if let Some(slot) = self.prev_token.get_mut(level) {
            *slot = Some((token, start as u32));
        }
    }

    /// True when the objects at tape indices `a` and `b` have the same keys in order.
    fn same_keys_at(&self, a: usize, b: usize) -> bool {
        let doc = &self.doc;
        let (Node::Object { len: la, .. }, Node::Object { len: lb, .. }) =
            (doc.node(a), doc.node(b))
        else {
            return false;
        };
        if la != lb {
            return false;
        }
        let (mut i, mut j) = (a + 1, b + 1);
        for _ in 0..la {
            if !key_eq(doc.key_at(i), doc.key_at(j)) {
                return false;
            }
            i = doc.next_sibling(i + 1);
            j = doc.next_sibling(j + 1);
        }
        true
    }

    /// Writes the object node at `mark` (its length and end) and returns its index; the object
    /// closed last at its level is now this one, whose token (if any) its caller records.
    #[inline]
    pub(super) fn close_object(&mut self, mark: Mark, len: usize) -> usize {
        self.close_object_as(mark, len, false, false)
    }

    /// [`DocBuilder::close_object`] with the object's [`Node::Object::same_keys`] and
    /// [`Node::Object::flat`] marks, written with the node.
    #[inline(always)]
    fn close_object_as(&mut self, mark: Mark, len: usize, same_keys: bool, flat: bool) -> usize {
        self.depth = self.depth.saturating_sub(1);
        if let Some(token) = self.prev_token.get_mut(self.depth as usize) {
            *token = None;
        }
        self.write_object(mark, len, same_keys, flat)
    }

    /// Writes the node of the object opened at `mark`, now closed after `len` members, with
    /// its marks; returns its index.
    #[inline(always)]
    fn write_object(&mut self, mark: Mark, len: usize, same_keys: bool, flat: bool) -> usize {
        let start = mark.0 as usize;
        let end = self.doc.nodes.len();
        self.doc.nodes.set(
            start,
            Node::Object {
                len: len as u32,
                end: end as u32,
                same_keys,
                flat,
            },
        );
        start
    }

    pub(super) fn key_bytes(&self, idx: usize) -> &[u8] {
        self.doc.key_at(idx)
    }

    pub(super) fn member_key_indices(&self, start: usize, len: usize) -> Vec<usize> {
        let mut keys = Vec::with_capacity(len);
        let mut i = start + 1;
        for _ in 0..len {
            keys.push(i);
            i = self.doc.next_sibling(i + 1);
        }
        keys
    }

    pub(super) fn has_duplicate_keys(&self, start: usize, len: usize) -> bool {
        // Small objects (the common case: rows of a table): compare pairwise without
        // allocating. Larger ones: a hash set, so 100k keys stay linear.
        const SMALL: usize = SMALL_OBJECT;
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
    pub(super) fn merge_duplicate_keys(&mut self, start: usize, len: usize) {
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
            rebuilt.push(self.doc.node(first));
            let v0 = last + 1;
            let v1 = self.doc.next_sibling(v0);
            // Relocate the value subtree: container `end`s are absolute indices.
            let new_base = start + rebuilt.len();
            for node in self.doc.nodes().slice(v0..v1).iter() {
                rebuilt.push(match node {
                    Node::Array { len, end } => Node::Array {
                        len,
                        end: (end as usize - v0 + new_base) as u32,
                    },
                    Node::Object { len, end, .. } => Node::Object {
                        len,
                        end: (end as usize - v0 + new_base) as u32,
                        same_keys: false,
                        flat: false,
                    },
                    n => n,
                });
            }
        }
        let new_end = start + rebuilt.len();
        rebuilt[0] = Node::Object {
            len: order.len() as u32,
            end: new_end as u32,
            same_keys: false,
            flat: false,
        };
        self.doc.nodes.truncate(start);
        for n in rebuilt {
            self.doc.nodes.push(n);
        }
    }

    /// Copies the subtree at `idx` of `from` in one pass over its nodes: containers are
    /// relocated, heap spans are copied into this builder's heap, and spans into `from`'s
    /// input are kept when `from` reads the same input (else copied into the heap).
    pub(crate) fn copy_from(&mut self, from: &Doc<'_>, idx: usize) {
        // The copied subtree is at most as deep as its whole document.
        self.doc.max_depth = self.doc.max_depth.max(self.depth + from.max_depth);
        // The next object built at this level (or inside, at a deeper one) follows the copied
        // value's objects, not the ones the remembered keys belong to.
        self.forget_keys_below();
        let end = from.next_sibling(idx).clamp(idx + 1, from.nodes.len());
        let same_src = std::ptr::eq(from.src, self.doc.src);
        let base = self.doc.nodes.len();
        let nodes = &mut self.doc.nodes;
        nodes.reserve(end - idx);
        let reloc = |e: u32| (e as usize - idx + base) as u32;
        // Disjoint borrows: the heap grows while the nodes are pushed (one reservation).
        let heap = &mut self.doc.heap;
        let mut to_heap = |bytes: &[u8]| {
            let start = heap.len();
            heap.extend_from_slice(bytes);
            span(start, bytes.len())
        };
        for node in from.nodes().slice(idx..end).iter() {
            nodes.push(match node {
                Node::Array { len, end } => Node::Array {
                    len,
                    end: reloc(end),
                },
                Node::Object { len, end, .. } => Node::Object {
                    len,
                    end: reloc(end),
                    same_keys: false,
                    flat: false,
                },
                Node::StrHeap(s) => Node::StrHeap(to_heap(from.heap_bytes(s))),
                Node::IntHeap(s) => Node::IntHeap(to_heap(from.heap_bytes(s))),
                Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s)
                    if !same_src =>
                {
                    Node::StrHeap(to_heap(from.src_bytes(s)))
                }
                Node::IntSrc(s) if !same_src => Node::IntHeap(to_heap(from.src_bytes(s))),
                Node::FloatSrc(s) if !same_src => {
                    Node::Float(super::F64::new(from.float_src_value(s)))
                }
                n => n,
            });
        }
    }

    /// Removes everything pushed after `mark` and the container node at `mark` itself
    /// (used to drop a partially built value).
    pub fn truncate_to(&mut self, mark: Mark) {
        self.doc.nodes.truncate(mark.0 as usize);
        // The remembered keys may be a dropped object's.
        self.prev_keys.iter_mut().for_each(Vec::clear);
        self.prev_token = [None; KEY_LEVELS];
        self.keys_changed(0..KEY_LEVELS);
    }

    /// Reorders the members of the object opened at `mark`, every one a key and a scalar
    /// (two nodes): member `j` becomes the one that was member `order[j]` (at most
    /// [`PERMUTED_PAIRS`](super::tape::PERMUTED_PAIRS) members).
    pub(crate) fn permute_members(&mut self, mark: Mark, order: &[u32]) {
        self.doc.nodes.permute_pairs(mark.0 as usize + 1, order);
    }

    /// Drops the object opened at `mark` and everything pushed into it, as if it had never
    /// been begun (a reading that must start over from the object's first byte).
    pub(crate) fn abandon_object(&mut self, mark: Mark) {
        self.truncate_to(mark);
        self.depth = self.depth.saturating_sub(1);
    }

    /// A builder for the next window of rows that reuses `doc`'s allocations (the windowed
    /// root-array parser: one tape's worth of memory for a whole input).
    pub(crate) fn recycle(mut doc: Doc<'s>) -> DocBuilder<'s> {
        doc.nodes.clear();
        doc.heap.clear();
        doc.flags = 0;
        doc.max_depth = 0;
        doc.memo = Memo::default();
        DocBuilder {
            doc,
            depth: 0,
            prev_keys: Vec::new(),
            prev_token: [None; KEY_LEVELS],
            keys_gen: [0; KEY_LEVELS],
        }
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
        self.doc.nodes.shrink();
        self.doc
    }

    pub(super) fn push_heap(&mut self, bytes: &[u8]) -> Span {
        let start = self.doc.heap.len();
        // Through the sink's copy: a key or a cell is short, and `extend_from_slice` called
        // `memcpy` for each (11% of the Python binding's walk of 10k nested rows, callgrind).
        crate::sink::Sink::write(&mut self.doc.heap, bytes);
        span(start, bytes.len())
    }
}

#[inline]
pub(super) fn span(start: usize, len: usize) -> Span {
    debug_assert!(start <= u32::MAX as usize && len <= u32::MAX as usize);
    Span {
        start: start as u32,
        len: len as u32,
    }
}
