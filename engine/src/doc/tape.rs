//! [`Tape`]: the nodes of a [`Doc`](super::Doc), packed in 8-byte cells, and the spare cell
//! vectors a process keeps for its next documents.
//!
//! A cell is a 32-bit head (a 5-bit tag and a 27-bit length) and a 32-bit word (a span's
//! start, a container's end, or the index of a float in the tape's float table). The few
//! nodes that do not fit (a float's 64 bits, a string or lexeme of 128 MiB or more, an array
//! or object of 2^27 or more members) keep what does not fit in a side table: a third less
//! tape than the 12-byte [`Node`] it is read back as (and was stored as before), so the
//! tape of a collection is smaller than its JSON and a first reading keeps more of it
//! (docs/DECISIONS.md, "An 8-byte tape").
//!
//! A large tape is fresh memory: its pages are faulted in as the parser first writes them,
//! and on a virtual machine a first touch costs more than the parsing (measured on the 2-core
//! CI machines: 3.6 µs per 4 KiB page, 25 ms of the 37 ms a whole parse of 15 MB of flat
//! invoices took). The allocator gives a block that large back to the kernel when it is
//! freed, so a server or a binding that parses a large document per call paid those faults on
//! every call. Instead, a dropped tape of at least [`SPARE_MIN`] bytes is kept while all the
//! kept ones stay within [`SPARE_MAX`] bytes, and the next tape that fits in one
//! ([`Tape::with_capacity`]) reuses it, as a reused simdjson parser reuses its buffers
//! (docs/DECISIONS.md, "Spare tapes"). Several are kept, not one: the windowed
//! reader holds one tape per window of a large input it reads once (about 1 MB each, up to
//! 27 MiB in all), and inside Node every one of them was fresh memory on every call (6,200
//! page faults a call on 15 MB of rows).

use std::sync::Mutex;

use super::{F64, Node, Span};

/// Tapes smaller than this are left to the allocator, which reuses such blocks itself:
/// glibc maps a block afresh from 128 KiB on (its threshold rises only when a larger mapped
/// block is freed). At 1 MiB, the windowed reader's tapes (1 MiB each, shrunk to about
/// 0.9 MiB when a window is kept for a second reading) were freed each call and mapped
/// afresh for the next one whenever nothing larger had been freed to raise that threshold:
/// 3,300 page faults a call of the Node binding's `encodeJson` of 15 MB of flat rows.
const SPARE_MIN: usize = 128 << 10;

/// The bytes of all the tapes kept: what a process holds between calls at most.
const SPARE_MAX: usize = 32 << 20;

/// One node as stored: `head` is the tag (its low [`TAG_BITS`] bits) and a length, `x` a
/// span's start, a container's end or a float's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Cell {
    head: u32,
    x: u32,
}

const TAG_BITS: u32 = 5;
const TAG_MASK: u32 = (1 << TAG_BITS) - 1;
/// The longest length a head holds; longer ones are in the tape's length table.
const LEN_MAX: usize = (1 << (32 - TAG_BITS)) - 1;

const NULL: u32 = 0;
/// The length is the value (0 or 1).
const BOOL: u32 = 1;
const INT_SRC: u32 = 2;
const INT_HEAP: u32 = 3;
/// `x` is the index in the float table.
const FLOAT: u32 = 4;
const FLOAT_SRC: u32 = 5;
const STR_SRC: u32 = 6;
/// [`STR_PLAIN`], [`STR_BARE`], [`STR_QUOTED`]: in the order of [`super::Toon`].
const STR_PLAIN: u32 = 7;
const STR_BARE: u32 = 8;
const STR_QUOTED: u32 = 9;
const STR_HEAP: u32 = 10;
const ARRAY: u32 = 11;
/// Objects are 12 to 15: plus [`SAME_KEYS`] and [`FLAT`].
const OBJECT: u32 = 12;
const SAME_KEYS: u32 = 1;
const FLAT: u32 = 2;
const OBJECT_SAME_KEYS: u32 = OBJECT | SAME_KEYS;
const OBJECT_FLAT: u32 = OBJECT | FLAT;
const OBJECT_SAME_FLAT: u32 = OBJECT | SAME_KEYS | FLAT;
/// Added to the tag of a span or container whose length is in the length table, at the
/// index the head's length field holds.
const LONG: u32 = 16;

/// The cell of a node whose length `len` fits in the head (at most [`LEN_MAX`]).
#[inline(always)]
fn short_cell(tag: u32, x: u32, len: usize) -> Cell {
    debug_assert!(len <= LEN_MAX);
    Cell {
        head: tag | ((len as u32) << TAG_BITS),
        x,
    }
}

/// The tag a plain string of TOON class `toon` is stored with.
#[inline(always)]
pub(crate) fn plain_tag(toon: super::Toon) -> u32 {
    STR_PLAIN + toon as u32
}

/// The node of cell `c`.
#[inline(always)]
fn decode(c: Cell, floats: &[F64], lens: &[u32]) -> Node {
    node(c.head & TAG_MASK, c.x, c.head >> TAG_BITS, floats, lens)
}

/// The node of tag `tag`, word `x` and head length `len`: one jump on the whole tag (an
/// object's marks are tags of their own, and so is a length in the table), which the
/// encoders' own match on the node folds into.
#[inline(always)]
fn node(tag: u32, x: u32, len: u32, floats: &[F64], lens: &[u32]) -> Node {
    let s = Span { start: x, len };
    let object = |same_keys, flat| Node::Object {
        len,
        end: x,
        same_keys,
        flat,
    };
    match tag {
        NULL => Node::Null,
        BOOL => Node::Bool(len != 0),
        INT_SRC => Node::IntSrc(s),
        INT_HEAP => Node::IntHeap(s),
        FLOAT => Node::Float(floats[x as usize]),
        FLOAT_SRC => Node::FloatSrc(s),
        STR_SRC => Node::StrSrc(s),
        STR_PLAIN => Node::StrPlain(s),
        STR_BARE => Node::StrBare(s),
        STR_QUOTED => Node::StrQuoted(s),
        STR_HEAP => Node::StrHeap(s),
        ARRAY => Node::Array { len, end: x },
        OBJECT => object(false, false),
        OBJECT_SAME_KEYS => object(true, false),
        OBJECT_FLAT => object(false, true),
        OBJECT_SAME_FLAT => object(true, true),
        LONG..=TAG_MASK => long(tag & !LONG, x, len, floats, lens),
        // The tag is 5 bits: never reached.
        _ => Node::Null,
    }
}

/// The node of a [`LONG`] cell: its head's length is the index of its length in `lens`.
#[cold]
#[inline(never)]
fn long(tag: u32, x: u32, k: u32, floats: &[F64], lens: &[u32]) -> Node {
    node(tag, x, lens[k as usize], floats, lens)
}

/// The kept tapes (empty, with their room), in the order they were dropped.
static SPARES: Mutex<Vec<Vec<Cell>>> = Mutex::new(Vec::new());

fn bytes(v: &Vec<Cell>) -> usize {
    v.capacity().saturating_mul(size_of::<Cell>())
}

/// Of the kept tapes whose room is from half of `n` nodes to eight times more, the one with
/// the most (of equal ones, the last dropped), taken from the spares (empty).
fn take_spare(n: usize) -> Option<Vec<Cell>> {
    let mut spares = SPARES.try_lock().ok()?;
    let fits = |v: &Vec<Cell>| v.capacity() >= n / 2 && v.capacity() / 8 <= n;
    // `max_by_key` keeps the last of equal keys: the last dropped.
    let i = spares
        .iter()
        .enumerate()
        .filter(|(_, v)| fits(v))
        .max_by_key(|(_, v)| v.capacity())
        .map(|(i, _)| i)?;
    Some(spares.remove(i))
}

/// The bytes of all the kept tapes now.
pub(crate) fn spare_tape_bytes() -> usize {
    SPARES.lock().map_or(0, |s| s.iter().map(bytes).sum())
}

/// Gives every kept tape back to the allocator.
pub(crate) fn drop_spare_tapes() {
    if let Ok(mut s) = SPARES.lock() {
        s.clear();
    }
}

/// The most pairs [`Tape::permute_pairs`] reorders.
pub(crate) const PERMUTED_PAIRS: usize = 64;

/// The nodes of a document: cells whose memory goes back to the spares when dropped, and
/// the side tables of the nodes that do not fit in one.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    cells: Vec<Cell>,
    /// The values of [`Node::Float`]s, in the order they were pushed.
    floats: Vec<F64>,
    /// The lengths of [`LONG`] cells.
    lens: Vec<u32>,
}

impl Tape {
    /// An empty tape with room for about `n` nodes: of the kept tapes whose room is from half
    /// of that to eight times more, the one with the most (of equal ones, the last dropped).
    /// `n` is the parser's estimate: the same input parsed again asks for more than the
    /// finished tape it left (shrunk to its length; a window of the windowed reader asks for
    /// one node per 8 bytes, and 1 MiB of flat rows with non-ASCII names took one per 9.5, a
    /// tape of 0.84 of the estimate, which a bound of 7/8 never reused), and a dense document
    /// needs several times more (one node per 2 bytes of `[0,1,…]`, where the estimate is one
    /// per 10), so the larger tape is the one likely to hold it without growing (one that
    /// must grow is reallocated once, with its nodes copied). A document much smaller leaves
    /// a kept tape for a larger one (finishing would give the slack back to the allocator).
    pub(crate) fn with_capacity(n: usize) -> Tape {
        Tape {
            cells: take_spare(n).unwrap_or_else(|| Vec::with_capacity(n)),
            floats: Vec::new(),
            lens: Vec::new(),
        }
    }

    /// The nodes, to read.
    #[inline(always)]
    pub(crate) fn view(&self) -> Nodes<'_> {
        Nodes {
            cells: &self.cells,
            floats: &self.floats,
            lens: &self.lens,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The bytes the tape holds (its capacity, with the side tables').
    pub(crate) fn held_bytes(&self) -> usize {
        bytes(&self.cells)
            + self.floats.capacity() * size_of::<F64>()
            + self.lens.capacity() * size_of::<u32>()
    }

    /// The cell of a node whose length is `len`, with `tag` and `x`.
    #[inline(always)]
    fn cell(&mut self, tag: u32, x: u32, len: usize) -> Cell {
        if len <= LEN_MAX {
            short_cell(tag, x, len)
        } else {
            self.long_cell(tag, x, len)
        }
    }

    #[cold]
    #[inline(never)]
    fn long_cell(&mut self, tag: u32, x: u32, len: usize) -> Cell {
        let k = self.lens.len();
        debug_assert!(len <= u32::MAX as usize && k <= LEN_MAX);
        self.lens.push(len as u32);
        Cell {
            head: tag | LONG | ((k as u32) << TAG_BITS),
            x,
        }
    }

    /// The cell of `n` (a [`Node::Float`]'s value goes to the float table).
    #[inline(always)]
    fn encode(&mut self, n: Node) -> Cell {
        let span = |t: &mut Tape, tag, s: Span| t.cell(tag, s.start, s.len as usize);
        match n {
            Node::Null => Cell { head: NULL, x: 0 },
            Node::Bool(b) => Cell {
                head: BOOL | (u32::from(b) << TAG_BITS),
                x: 0,
            },
            Node::IntSrc(s) => span(self, INT_SRC, s),
            Node::IntHeap(s) => span(self, INT_HEAP, s),
            Node::Float(f) => {
                let x = self.floats.len() as u32;
                self.floats.push(f);
                Cell { head: FLOAT, x }
            }
            Node::FloatSrc(s) => span(self, FLOAT_SRC, s),
            Node::StrSrc(s) => span(self, STR_SRC, s),
            Node::StrPlain(s) => span(self, STR_PLAIN, s),
            Node::StrBare(s) => span(self, STR_BARE, s),
            Node::StrQuoted(s) => span(self, STR_QUOTED, s),
            Node::StrHeap(s) => span(self, STR_HEAP, s),
            Node::Array { len, end } => self.cell(ARRAY, end, len as usize),
            Node::Object {
                len,
                end,
                same_keys,
                flat,
            } => {
                let tag = OBJECT | (u32::from(same_keys) * SAME_KEYS) | (u32::from(flat) * FLAT);
                self.cell(tag, end, len as usize)
            }
        }
    }

    /// Appends `n`.
    #[inline(always)]
    pub(crate) fn push(&mut self, n: Node) {
        let c = self.encode(n);
        self.cells.push(c);
    }

    /// The head of a [`Node::StrSrc`] of `len` bytes, when its length fits in the head
    /// (the parser's row layouts push their keys with it, [`Tape::push_head`]).
    #[inline]
    pub(crate) fn str_src_head(len: usize) -> Option<u32> {
        (len <= LEN_MAX).then_some(STR_SRC | ((len as u32) << TAG_BITS))
    }

    /// The length a head from [`Tape::str_src_head`] holds.
    #[inline]
    pub(crate) fn str_src_head_len(head: u32) -> usize {
        debug_assert_eq!(head & TAG_MASK, STR_SRC);
        (head >> TAG_BITS) as usize
    }

    /// Appends the cell of `head` (from [`Tape::str_src_head`]) and `x`.
    #[inline(always)]
    pub(crate) fn push_head(&mut self, head: u32, x: usize) {
        debug_assert!(x <= u32::MAX as usize && head & TAG_MASK == STR_SRC);
        self.cells.push(Cell { head, x: x as u32 });
    }

    /// [`Tape::push_span`] of a span whose length fits in the head (at most
    /// [`Tape::HEAD_LEN_MAX`], which its caller checked with its own bound): no second check.
    #[inline(always)]
    pub(crate) fn push_short_span(&mut self, tag: u32, start: usize, len: usize) {
        debug_assert!(start <= u32::MAX as usize);
        self.cells.push(short_cell(tag, start as u32, len));
    }

    /// The longest span whose length a cell's head holds.
    pub(crate) const HEAD_LEN_MAX: usize = LEN_MAX;

    /// Appends a span node of tag `tag` (the parser's strings: one push whatever the class).
    #[inline(always)]
    pub(crate) fn push_span(&mut self, tag: u32, start: usize, len: usize) {
        debug_assert!(start <= u32::MAX as usize);
        let c = self.cell(tag, start as u32, len);
        self.cells.push(c);
    }

    /// Replaces node `i` (a container closed).
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, n: Node) {
        let c = self.encode(n);
        self.cells[i] = c;
    }

    /// Puts the `order.len()` two-cell pairs that start at cell `at` in `order`: pair `j`
    /// becomes the one that was pair `order[j]`. The cells move whole (a float's index into
    /// the side table, a long length's, go with them).
    pub(crate) fn permute_pairs(&mut self, at: usize, order: &[u32]) {
        let n = order.len();
        debug_assert!(n <= PERMUTED_PAIRS);
        let Some(pairs) = self.cells.get_mut(at..at + 2 * n) else {
            return;
        };
        let mut old = [Cell { head: 0, x: 0 }; 2 * PERMUTED_PAIRS];
        let Some(old) = old.get_mut(..2 * n) else {
            return;
        };
        old.copy_from_slice(pairs);
        for (j, &from) in order.iter().enumerate() {
            let from = from as usize;
            pairs[2 * j] = old[2 * from];
            pairs[2 * j + 1] = old[2 * from + 1];
        }
    }

    /// Marks the object at `i` [`Node::Object::same_keys`] (no effect on another node).
    #[inline]
    pub(crate) fn mark_same_keys(&mut self, i: usize) {
        self.mark(i, SAME_KEYS);
    }

    /// Marks the object at `i` [`Node::Object::flat`] (no effect on another node).
    #[inline]
    pub(crate) fn mark_flat(&mut self, i: usize) {
        self.mark(i, FLAT);
    }

    #[inline]
    fn mark(&mut self, i: usize, bit: u32) {
        if let Some(c) = self.cells.get_mut(i) {
            if c.head & TAG_MASK & !LONG & OBJECT == OBJECT {
                c.head |= bit;
            }
        }
    }

    /// The entries of the float table and of the length table (what the tests check stays
    /// bounded).
    #[cfg(test)]
    pub(crate) fn side_lens(&self) -> (usize, usize) {
        (self.floats.len(), self.lens.len())
    }

    /// Reserves room for `n` more nodes: in a kept tape (as [`Tape::with_capacity`] picks
    /// one for the nodes there will be) when this one has no room and a spare fits, its
    /// nodes copied there. A builder that learns its size as it goes (the Python binding's
    /// walk of a long list) then reuses the tape the last call dropped: 100k nested rows,
    /// 29 MB of tape, faulted in on every `dumps` before.
    pub(crate) fn reserve(&mut self, n: usize) {
        let need = self.cells.len().saturating_add(n);
        if need > self.cells.capacity() && need.saturating_mul(size_of::<Cell>()) >= SPARE_MIN {
            if let Some(mut spare) = take_spare(need) {
                spare.extend_from_slice(&self.cells);
                // The old cells (a few rows of nodes) go back to the allocator.
                self.cells = spare;
            }
        }
        self.cells.reserve(n);
    }

    /// Keeps the first `len` nodes, and of the side tables what those nodes use.
    ///
    /// The side tables are appended as nodes are pushed and containers closed, and a
    /// truncation (a dropped value, an object rebuilt without its duplicate keys) only ever
    /// drops nodes pushed after every closed node it keeps: so the entries of the dropped
    /// nodes are the tables' last ones, from the least index any of them holds. Without this,
    /// an object rebuilt at each of 100 levels would push its floats a hundred times over.
    pub(crate) fn truncate(&mut self, len: usize) {
        let Some(dropped) = self.cells.get(len..) else {
            return;
        };
        let (mut floats, mut lens) = (self.floats.len(), self.lens.len());
        for c in dropped {
            let tag = c.head & TAG_MASK;
            if tag == FLOAT {
                floats = floats.min(c.x as usize);
            } else if tag & LONG != 0 {
                lens = lens.min((c.head >> TAG_BITS) as usize);
            }
        }
        self.cells.truncate(len);
        self.floats.truncate(floats);
        self.lens.truncate(lens);
    }

    pub(crate) fn clear(&mut self) {
        self.cells.clear();
        self.floats.clear();
        self.lens.clear();
    }

    /// Gives back the slack of a generous estimate (large blocks shrink in place).
    pub(crate) fn shrink(&mut self) {
        if self.cells.capacity() > self.cells.len() + 1024 {
            self.cells.shrink_to_fit();
        }
    }
}

impl Clone for Tape {
    fn clone(&self) -> Tape {
        let mut t = Tape::with_capacity(self.cells.len());
        t.cells.extend_from_slice(&self.cells);
        t.floats.clone_from(&self.floats);
        t.lens.clone_from(&self.lens);
        t
    }
}

impl Drop for Tape {
    /// Keeps this tape's memory when it is at least [`SPARE_MIN`] and fits within
    /// [`SPARE_MAX`] with the kept ones, after giving up kept tapes smaller than it (the
    /// smallest first) to make room: the larger tapes are the ones worth keeping.
    fn drop(&mut self) {
        let size = bytes(&self.cells);
        if !(SPARE_MIN..=SPARE_MAX).contains(&size) {
            return;
        }
        let Ok(mut spares) = SPARES.try_lock() else {
            return;
        };
        let mut held: usize = spares.iter().map(bytes).sum();
        while held + size > SPARE_MAX {
            let Some((i, smallest)) = spares
                .iter()
                .enumerate()
                .min_by_key(|(_, v)| v.capacity())
                .map(|(i, v)| (i, bytes(v)))
            else {
                break;
            };
            if smallest >= size {
                return;
            }
            // `remove`, not `swap_remove`: the order of dropping is the tie-break of a take.
            drop(spares.remove(i));
            held -= smallest;
        }
        self.cells.clear();
        spares.push(std::mem::take(&mut self.cells));
    }
}

/// The nodes of a tape (or of a range of it), read as [`Node`]s: what the encoders' hot loops
/// index.
#[derive(Clone, Copy)]
pub(crate) struct Nodes<'a> {
    cells: &'a [Cell],
    floats: &'a [F64],
    lens: &'a [u32],
}

impl<'a> Nodes<'a> {
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.cells.len()
    }

    /// Node `i`.
    ///
    /// # Panics
    ///
    /// When `i` is out of range, as a slice's index.
    #[inline(always)]
    pub(crate) fn at(&self, i: usize) -> Node {
        decode(self.cells[i], self.floats, self.lens)
    }

    /// Node `i`, if there is one.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<Node> {
        let c = *self.cells.get(i)?;
        Some(decode(c, self.floats, self.lens))
    }

    /// Index just past the subtree that starts at `i`, read from its cell alone.
    ///
    /// # Panics
    ///
    /// When `i` is out of range.
    #[inline(always)]
    pub(crate) fn next_sibling(&self, i: usize) -> usize {
        let c = self.cells[i];
        if c.head & TAG_MASK & !LONG >= ARRAY {
            c.x as usize
        } else {
            i + 1
        }
    }

    /// Node `i` when it is a string (or key): whether its bytes are in the document's heap
    /// ([`Node::StrHeap`]) rather than the input, and its span; read from the cell without
    /// decoding the node (the keys of the JSON writers' every member).
    ///
    /// # Panics
    ///
    /// When `i` is out of range.
    #[inline(always)]
    pub(crate) fn string(&self, i: usize) -> Option<(bool, Span)> {
        let c = self.cells[i];
        let (tag, len) = if c.head & LONG == 0 {
            (c.head & TAG_MASK, c.head >> TAG_BITS)
        } else {
            let len = *self.lens.get((c.head >> TAG_BITS) as usize)?;
            (c.head & TAG_MASK & !LONG, len)
        };
        (STR_SRC..=STR_HEAP)
            .contains(&tag)
            .then_some((tag == STR_HEAP, Span { start: c.x, len }))
    }

    /// The end of node `i` when it is an object of `k` members marked both
    /// [`Node::Object::same_keys`] and [`Node::Object::flat`] (one compare of its head; an
    /// object whose length is in the table is never one here).
    #[inline(always)]
    pub(crate) fn same_flat_end(&self, i: usize, k: usize) -> Option<usize> {
        let c = self.cells.get(i)?;
        (k <= LEN_MAX && c.head == OBJECT_SAME_FLAT | ((k as u32) << TAG_BITS))
            .then_some(c.x as usize)
    }

    /// The nodes `r`.
    ///
    /// # Panics
    ///
    /// When `r` is out of range, as a slice's.
    #[inline(always)]
    pub(crate) fn slice(&self, r: std::ops::Range<usize>) -> Nodes<'a> {
        Nodes {
            cells: &self.cells[r],
            ..*self
        }
    }

    /// The nodes `r`, if in range.
    #[inline]
    pub(crate) fn get_slice(&self, r: std::ops::Range<usize>) -> Option<Nodes<'a>> {
        Some(Nodes {
            cells: self.cells.get(r)?,
            ..*self
        })
    }

    /// The nodes in order.
    #[inline]
    pub(crate) fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = Node> + ExactSizeIterator + use<'a> {
        let (floats, lens) = (self.floats, self.lens);
        self.cells.iter().map(move |&c| decode(c, floats, lens))
    }

    /// Where the cells are in memory (the test hook that sees a spare tape reused).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.cells.as_ptr().cast()
    }
}
