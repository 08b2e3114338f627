//! TOON 4.4 encoder: a [`Value`] of a [`Doc`](crate::doc::Doc) to TOON text, written straight
//! into a [`Sink`].
//!
//! # Form choice
//!
//! The encoder walks the value once, top-down, and decides the form of each container when it
//! reaches it, from a shape analysis of that container alone (run once per container):
//!
//! * **Primitive**: `null`, `true`/`false`, numbers as WIRE.md §1.3 ([`crate::num`]), strings
//!   unquoted unless a quoting trigger applies (see [`EncodeOptions`] for the list).
//! * **Object**: `key: value` lines, nested objects as `key:` plus members one level deeper.
//!   An object with at least two entries whose values are all non-empty objects with the same
//!   key set (and, recursively, uniform primitive or object columns) is written in **keyed
//!   tabular** form `key[N:]{f1,f2}:` with one `entry: c1,c2` row per entry (§9.5). The root
//!   object may take that form too (`[N:]{…}:`); an empty root object is an empty document.
//! * **Array**, in this order: empty → `key: []` (`[]` at the root); all primitives → inline
//!   `key[N]: a,b`; all objects with the same key set whose columns are primitive or, recursively,
//!   uniform non-empty objects → **tabular** `key[N]{f1,g{h,i}}:` plus one row per object, nested
//!   field groups flattened depth-first; anything else → **list** form `key[N]:` plus `- item`
//!   lines. An array that is itself a list item is never tabular: it is `- [N]: a,b` or
//!   `- [N]:` plus list items.
//! * **Objects as list items**: `-` alone when empty; otherwise the first member goes on the
//!   hyphen line (`- key: v`, `- key[N]{…}:` with rows two levels deeper, `- key[N:]{…}:`,
//!   `- key:` with members two levels deeper) and the other members follow one level deeper.
//!
//! Field order of tabular headers is the first row's; other rows may order their keys
//! differently (a per-row lookup is then used instead of the positional fast path). One
//! delimiter, the document's, governs every quoting decision and every header.
//!
//! The shape analysis of a table reads the tape directly: per row, it compares each key with
//! the first row's (word loads, no `memcmp` call) and classifies each cell; rows are then
//! written straight off the tape when every row has the first row's key order.
//!
//! # Errors and the `check` contract
//!
//! Only two things can make a value unencodable: a lone surrogate in a string or key (TOON text
//! is UTF-8), and nesting deeper than [`EncodeOptions::max_depth`]. [`check`] finds both (plus an
//! invalid indent option) without writing anything; once `check` has accepted a value with some
//! options, [`encode`] with the same value and options cannot fail. [`encode`] runs `check` first,
//! so an error never leaves partial output in the sink.
//!
//! Lone surrogates are looked for only when the document says it holds one
//! ([`Doc::has_lone_surrogate`](crate::doc::Doc::has_lone_surrogate)).
//!
//! # Parallel tabular arrays
//!
//! An array of at least [`EncodeOptions::parallel_threshold`] objects is cut into chunks of
//! `clamp(threshold / 2, 1, 4096)` rows. Nothing walks the rows to find where the chunks start:
//! every row of a table spans the same number of tape nodes, so the starts are computed from
//! that span, and the shape analysis, which scans the chunks in parallel and merges their
//! column kinds, also checks that each chunk's rows end exactly where the next chunk starts
//! (an array that fails this is not a table). If the array is tabular, each chunk is encoded by
//! a rayon task of the *current* pool (scope it with `ThreadPool::install`) into its own
//! `Vec<u8>`, and the chunk buffers are appended to the sink in order, so the output is
//! byte-identical to the sequential encoder. Chunks are processed in batches of
//! `4 × threads`, and their buffers are reused from batch to batch: extra memory is bounded by
//! one batch of encoded rows (`4 × threads × chunk rows × row size`, about 8k rows per thread
//! with the defaults) plus one 32-byte cursor per chunk, and the sink receives the first rows
//! after the first batch, not after the whole array. Into one growing buffer
//! ([`Sink::contiguous`]) a batch is appended by a parallel copy too.
//!
//! Measured (criterion, 1M flat invoice rows, 2-core VM, 2026-11-30): 99.9 ms on one thread,
//! 53.0 ms on two (1.88×).

use rayon::prelude::*;

use crate::doc::{Array, Doc, Elements, Members, Node, Number, Object, Value, ValueRef, key_eq};
use crate::error::{Category, Error, Result};
use crate::sink::Sink;

use super::Delimiter;

#[path = "encode_windows.rs"]
mod windows;
pub(crate) use windows::{RootAnalysis, RootForm, write_root_header, write_root_window};

/// The largest accepted [`EncodeOptions::max_depth`]; larger settings are clamped to it so the
/// recursive encoder stays far from the stack limit of a 2 MiB thread.
pub const MAX_DEPTH_LIMIT: usize = 1000;

/// The largest accepted [`EncodeOptions::indent`] (bounds the output size per nesting level).
pub const MAX_INDENT: usize = 64;

/// Default [`EncodeOptions::max_depth`].
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Default [`EncodeOptions::parallel_threshold`].
pub const DEFAULT_PARALLEL_THRESHOLD: usize = 4096;

/// Options of the TOON encoder, builder style.
///
/// ```
/// use toolwire::toon::{Delimiter, EncodeOptions};
/// let opts = EncodeOptions::new().delimiter(Delimiter::Pipe).indent(4).parallel(false);
/// assert_eq!(opts.get_delimiter(), Delimiter::Pipe);
/// ```
///
/// Strings are quoted when they are empty; start or end with a space or tab; start with `-` or
/// `#`; are `true`, `false` or `null`; look like a number
/// (`^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`); contain `:` `"` `\` `[` `]` `{` `}`, a control
/// character U+0000–U+001F, or the document delimiter; or, for a root string only, start with
/// U+FEFF. Keys are unquoted exactly when they match `^[A-Za-z_][A-Za-z0-9_.]*$`. Quoted text
/// escapes `\\` `\"` `\n` `\r` `\t` and other control characters as `\u00xx`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    delimiter: Delimiter,
    indent: usize,
    max_depth: usize,
    parallel: bool,
    parallel_threshold: usize,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            delimiter: Delimiter::Comma,
            indent: 2,
            max_depth: DEFAULT_MAX_DEPTH,
            parallel: true,
            parallel_threshold: DEFAULT_PARALLEL_THRESHOLD,
        }
    }
}

impl EncodeOptions {
    /// Comma delimiter, 2-space indent, depth limit 128, parallel from 4096 rows.
    pub fn new() -> Self {
        Self::default()
    }

    /// The document delimiter, declared in every array header (except the comma).
    #[must_use]
    pub fn delimiter(mut self, delimiter: Delimiter) -> Self {
        self.delimiter = delimiter;
        self
    }

    /// Spaces per indentation level (`indentSize`); [`check`] accepts 1 to [`MAX_INDENT`].
    #[must_use]
    pub fn indent(mut self, spaces: usize) -> Self {
        self.indent = spaces;
        self
    }

    /// Maximum container nesting: the root array or object is level 1, so `max_depth(0)` only
    /// accepts primitives. Clamped to [`MAX_DEPTH_LIMIT`].
    #[must_use]
    pub fn max_depth(mut self, levels: usize) -> Self {
        self.max_depth = levels.min(MAX_DEPTH_LIMIT);
        self
    }

    /// Whether large tabular arrays may be encoded in parallel (default `true`).
    #[must_use]
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    /// Row count from which a tabular array is encoded in parallel chunks (default 4096; values
    /// below 1 count as 1).
    #[must_use]
    pub fn parallel_threshold(mut self, rows: usize) -> Self {
        self.parallel_threshold = rows.max(1);
        self
    }

    /// The document delimiter.
    pub fn get_delimiter(&self) -> Delimiter {
        self.delimiter
    }

    /// Spaces per indentation level.
    pub fn get_indent(&self) -> usize {
        self.indent
    }

    /// Maximum container nesting.
    pub fn get_max_depth(&self) -> usize {
        self.max_depth
    }

    /// Whether parallel encoding is allowed.
    pub fn get_parallel(&self) -> bool {
        self.parallel
    }

    /// Row count from which tabular arrays are encoded in parallel.
    pub fn get_parallel_threshold(&self) -> usize {
        self.parallel_threshold
    }
}

/// Checks that `value` can be encoded with `opts`, without writing anything.
///
/// After `check` succeeds, [`encode`] of the same value with the same options cannot fail.
///
/// # Errors
///
/// * [`Category::Encode`]: the indent is 0 or above [`MAX_INDENT`], or a string or key holds a
///   lone surrogate.
/// * [`Category::Depth`]: containers nest deeper than [`EncodeOptions::max_depth`].
pub fn check(value: Value<'_>, opts: &EncodeOptions) -> Result<()> {
    if !(1..=MAX_INDENT).contains(&opts.indent) {
        return Err(Error::new(
            Category::Encode,
            "toon: indent must be between 1 and 64 spaces",
        ));
    }
    let max = opts.max_depth.min(MAX_DEPTH_LIMIT);
    if !value.doc().has_lone_surrogate() {
        // The common case: only the depth can fail. The document's builder recorded an upper
        // bound of its depth; only a document that may be too deep needs the pass over the
        // tape (7 ms of 65 ms on 1M rows, all of it serial).
        if value.doc().max_depth() <= max {
            return Ok(());
        }
        return check_depth(value, max);
    }
    // The document holds a lone surrogate somewhere (maybe outside `value`): walk the values.

    enum Frame<'d> {
        Arr(Elements<'d>),
        Obj(Members<'d>),
    }
    // Iterative walk: the depth limit is enforced before any recursion happens anywhere.
    let mut stack: Vec<Frame<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(v) = next.take() {
            match v.get() {
                ValueRef::String(s) if crate::escape::has_lone_surrogate(s.as_bytes()) => {
                    return Err(surrogate_error("string"));
                }
                ValueRef::Array(a) => {
                    if stack.len() >= max {
                        return Err(depth_error(max));
                    }
                    stack.push(Frame::Arr(a.iter()));
                }
                ValueRef::Object(o) => {
                    if stack.len() >= max {
                        return Err(depth_error(max));
                    }
                    stack.push(Frame::Obj(o.iter()));
                }
                _ => {}
            }
        }
        let Some(top) = stack.last_mut() else {
            return Ok(());
        };
        match top {
            Frame::Arr(it) => match it.next() {
                Some(v) => next = Some(v),
                None => {
                    stack.pop();
                }
            },
            Frame::Obj(it) => match it.next() {
                Some((k, v)) => {
                    if crate::escape::has_lone_surrogate(k.as_bytes()) {
                        return Err(surrogate_error("key"));
                    }
                    next = Some(v);
                }
                None => {
                    stack.pop();
                }
            },
        }
    }
}

/// The depth check alone, as one sequential pass over the tape: `ends` holds the end index of
/// every open container, so its length is the nesting level.
fn check_depth(value: Value<'_>, max: usize) -> Result<()> {
    let doc = value.doc();
    let nodes = doc.nodes();
    let start = value.index();
    let end = doc.next_sibling(start);
    let mut ends: Vec<u32> = Vec::new();
    // End of the innermost open container (cached: most nodes are not one).
    let mut top = u32::MAX;
    for (i, node) in nodes[start..end].iter().enumerate() {
        let i = (start + i) as u32;
        while i == top {
            ends.pop();
            top = ends.last().copied().unwrap_or(u32::MAX);
        }
        if let Node::Array { end, .. } | Node::Object { end, .. } = *node {
            if ends.len() >= max {
                return Err(depth_error(max));
            }
            ends.push(end);
            top = end;
        }
    }
    Ok(())
}

#[cold]
fn surrogate_error(what: &'static str) -> Error {
    Error::new(
        Category::Encode,
        match what {
            "key" => "toon: a key holds a lone surrogate, which TOON (UTF-8 text) cannot represent",
            _ => "toon: a string holds a lone surrogate, which TOON (UTF-8 text) cannot represent",
        },
    )
}

#[cold]
fn depth_error(max: usize) -> Error {
    Error::new(
        Category::Depth,
        format!("toon: values nest deeper than max_depth ({max} levels)"),
    )
}

/// Encodes `value` as TOON into `out` (no trailing newline).
///
/// # Errors
///
/// Those of [`check`], which runs first: on error nothing has been written.
pub fn encode<W: Sink + ?Sized>(value: Value<'_>, opts: &EncodeOptions, out: &mut W) -> Result<()> {
    check(value, opts)?;
    let mut enc = Enc::new(opts, false);
    enc.root(out, value);
    Ok(())
}

/// Encodes `value` as TOON into a new vector.
///
/// # Errors
///
/// See [`encode`].
pub fn to_vec(value: Value<'_>, opts: &EncodeOptions) -> Result<Vec<u8>> {
    // Reserve what the output will most likely need, so a large table is not copied by a
    // growing buffer (a serial copy that would cap the parallel encoder's speed-up): the TOON
    // of a document parsed from JSON is almost always shorter than that JSON, and 32 bytes per
    // node bounds the reservation for a small value of a large document. Capacity that stays
    // untouched costs address space, not memory.
    let doc = value.doc();
    let nodes = doc.next_sibling(value.index()) - value.index();
    let mut v = Vec::with_capacity(doc.src().len().min(nodes.saturating_mul(32)));
    encode(value, opts, &mut v)?;
    Ok(v)
}

/// Encodes `value` as TOON into a new string.
///
/// # Errors
///
/// See [`encode`]. Also [`Category::Encode`] if the output is not UTF-8, which only happens
/// when a document holds a lone surrogate without flagging it (a broken `DocBuilder` caller).
pub fn to_string(value: Value<'_>, opts: &EncodeOptions) -> Result<String> {
    String::from_utf8(to_vec(value, opts)?).map_err(|_| surrogate_error("string"))
}

// ---------------------------------------------------------------------------------------------
// Byte classes.

/// Bytes that force quoting anywhere in a string value: `:` `"` `\` `[` `]` `{` `}`, C0
/// controls, and the delimiter.
const fn quote_table(delim: u8) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b':' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[delim as usize] = true;
    t
}

static QUOTE_COMMA: [bool; 256] = quote_table(b',');
static QUOTE_TAB: [bool; 256] = quote_table(b'\t');
static QUOTE_PIPE: [bool; 256] = quote_table(b'|');

/// Escape class of each byte inside quotes: 0 = literal, `u` = `\u00xx`, else the letter after
/// the backslash.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Bytes allowed after the first in an unquoted key: `[A-Za-z0-9_.]`.
static KEY_REST: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
        b += 1;
    }
    t
};

/// True when a string value must be quoted (whole-string rules, then one table scan).
#[inline]
fn needs_quotes(s: &[u8], table: &[bool; 256]) -> bool {
    let (Some(&first), Some(&last)) = (s.first(), s.last()) else {
        return true;
    };
    if matches!(first, b' ' | b'-' | b'#') || last == b' ' {
        return true;
    }
    if s.iter().any(|&b| table[b as usize]) {
        return true;
    }
    match first {
        b'0'..=b'9' | b'+' => is_numeric_like(s),
        b't' | b'f' | b'n' => matches!(s, b"true" | b"false" | b"null"),
        _ => false,
    }
}

/// `^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`
fn is_numeric_like(s: &[u8]) -> bool {
    fn digits(s: &[u8], i: &mut usize) -> bool {
        let start = *i;
        while *i < s.len() && s[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    }
    let mut i = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    if !digits(s, &mut i) {
        return false;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !digits(s, &mut i) {
            return false;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(s, &mut i) {
            return false;
        }
    }
    i == s.len()
}

#[inline]
fn is_unquoted_key(k: &[u8]) -> bool {
    match k.split_first() {
        Some((&f, rest)) => {
            (f.is_ascii_alphabetic() || f == b'_') && rest.iter().all(|&b| KEY_REST[b as usize])
        }
        None => false,
    }
}

/// Writes `s` in double quotes with TOON escapes, copying clean runs in bulk.
fn write_quoted<W: Sink + ?Sized>(w: &mut W, s: &[u8]) {
    w.write_byte(b'"');
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let e = ESCAPE[b as usize];
        if e == 0 {
            continue;
        }
        if start < i {
            w.write_clean(&s[start..i]);
        }
        if e == b'u' {
            w.write(&crate::escape::u00(b));
        } else {
            w.write(&[b'\\', e]);
        }
        start = i + 1;
    }
    if start < s.len() {
        w.write_clean(&s[start..]);
    }
    w.write_byte(b'"');
}

#[inline]
fn write_key<W: Sink + ?Sized>(w: &mut W, k: &[u8]) {
    if is_unquoted_key(k) {
        w.write_clean(k);
    } else {
        write_quoted(w, k);
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes.

/// One field of a tabular header, in a flat preorder list: a group is followed by its subfields.
#[derive(Clone, Copy, Debug)]
struct Field<'d> {
    key: &'d [u8],
    /// Entries in this field's subtree, itself included: 1 for a leaf column.
    span: u32,
}

/// The uniform shape of a set of objects (rows of a tabular array, entries of a keyed object).
#[derive(Debug, Default)]
struct Shape<'d> {
    fields: Vec<Field<'d>>,
    /// Every row, at every level, lists its keys in the first row's order: cells can be read
    /// positionally instead of by key.
    ordered: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unknown,
    Leaf,
    Group,
}

/// Row chunks `(first row, row count)` of a large array, for the parallel paths.
type Chunks<'d> = [(Elements<'d>, usize)];

/// A large array cut into chunks of rows (see [`parallel_table`]).
struct Chunked<'d> {
    parts: Vec<(Elements<'d>, usize)>,
    /// Tape index just past the array: where the last chunk's rows end.
    end: usize,
    /// Set once the parallel row scan of [`analyze`] has hopped over every chunk's rows and
    /// landed exactly on the next chunk's start (the last on `end`): every start is then an
    /// element's.
    verified: bool,
}

/// At most `left` elements of `it`, stopping before tape index `stop`: a row scan from a
/// guessed start never reads past the next chunk's guessed start.
struct Bounded<'d> {
    it: Elements<'d>,
    left: usize,
    stop: usize,
}

impl<'d> Iterator for Bounded<'d> {
    type Item = Value<'d>;

    #[inline]
    fn next(&mut self) -> Option<Value<'d>> {
        if self.left == 0 || self.it.position() >= self.stop {
            return None;
        }
        self.left -= 1;
        self.it.next()
    }
}

/// Analyses `rows` (values that must all be objects with one key set): appends the fields of
/// this level, and recursively of nested groups, to `shape.fields`. False when not uniform.
/// With `chunks` (the same rows, cut up), the row scan of this level runs in parallel, and
/// confirms the chunk starts on the way ([`Chunked::verified`]).
fn analyze<'d, I>(rows: I, chunks: Option<&mut Chunked<'d>>, shape: &mut Shape<'d>) -> bool
where
    I: Iterator<Item = Value<'d>> + Clone,
{
    let mut it = rows.clone();
    let Some(first) = it.next().and_then(|v| v.as_object()) else {
        return false;
    };
    let k = first.len();
    if k == 0 {
        return false;
    }
    let keys: Vec<&'d [u8]> = first.iter().map(|(key, _)| key.as_bytes()).collect();
    let doc = first.as_value().doc();
    let mut kinds = vec![Kind::Unknown; k];
    let uniform = match chunks {
        None => scan_rows(doc, rows.clone(), &keys, &mut kinds, &mut shape.ordered),
        Some(chunked) => {
            let (parts, end) = (&chunked.parts, chunked.end);
            let scanned: Option<Vec<(Vec<Kind>, bool)>> = parts
                .par_iter()
                .enumerate()
                .map(|(c, (start, n))| {
                    let stop = parts.get(c + 1).map_or(end, |(next, _)| next.position());
                    let mut rows = Bounded {
                        it: start.clone(),
                        left: *n,
                        stop,
                    };
                    let mut kinds = vec![Kind::Unknown; k];
                    let mut ordered = true;
                    let uniform = scan_rows(doc, &mut rows, &keys, &mut kinds, &mut ordered);
                    // Every row of the chunk scanned, ending exactly where the next begins.
                    (uniform && rows.left == 0 && rows.it.position() == stop)
                        .then_some((kinds, ordered))
                })
                .collect();
            if scanned.is_some() {
                // Chunk 0 starts at the first element; each chunk's hops over its rows landed on
                // the next start: by induction every start is an element's.
                chunked.verified = true;
            }
            scanned.is_some_and(|parts| {
                parts.into_iter().all(|(part, ordered)| {
                    shape.ordered &= ordered;
                    kinds.iter_mut().zip(part).all(|(a, b)| {
                        if *a == Kind::Unknown {
                            *a = b;
                        }
                        b == Kind::Unknown || *a == b
                    })
                })
            })
        }
    };
    if !uniform {
        return false;
    }
    for (j, &key) in keys.iter().enumerate() {
        let at = shape.fields.len();
        shape.fields.push(Field { key, span: 1 });
        if kinds[j] == Kind::Group {
            let column: Vec<Value<'d>> = rows
                .clone()
                .filter_map(|row| row.as_object().and_then(|o| member(o, j, key)))
                .collect();
            if !analyze(column.iter().copied(), None, shape) {
                return false;
            }
            shape.fields[at].span = (shape.fields.len() - at) as u32;
        }
    }
    true
}

/// Checks that every row is an object with exactly the key set `keys` and that each column
/// holds only primitives or only non-empty objects, recording the column kinds. Clears
/// `ordered` when some row lists its keys in another order.
fn scan_rows<'d, I>(
    doc: &'d Doc<'d>,
    rows: I,
    keys: &[&'d [u8]],
    kinds: &mut [Kind],
    ordered: &mut bool,
) -> bool
where
    I: Iterator<Item = Value<'d>>,
{
    let k = keys.len();
    let nodes = doc.nodes();
    for row in rows {
        let ri = row.index();
        match nodes[ri] {
            Node::Object { len, .. } if len as usize == k => {}
            _ => return false,
        }
        let mut i = ri + 1;
        for j in 0..k {
            let key = doc.key_at(i);
            let col = if key_eq(keys[j], key) {
                j
            } else {
                *ordered = false;
                match keys.iter().position(|&x| x == key) {
                    Some(c) => c,
                    None => return false,
                }
            };
            let v = i + 1;
            let kind = match nodes[v] {
                Node::Array { .. } | Node::Object { len: 0, .. } => return false,
                Node::Object { end, .. } => {
                    i = end as usize;
                    Kind::Group
                }
                _ => {
                    i = v + 1;
                    Kind::Leaf
                }
            };
            if kinds[col] == Kind::Unknown {
                kinds[col] = kind;
            } else if kinds[col] != kind {
                return false;
            }
        }
    }
    true
}

/// The value of `key`, expected at position `j`.
#[inline]
fn member<'d>(o: Object<'d>, j: usize, key: &[u8]) -> Option<Value<'d>> {
    match o.iter().nth(j) {
        Some((k, v)) if k.as_bytes() == key => Some(v),
        _ => o.get(key),
    }
}

/// The tabular shape of an array, if it has one (row scan in parallel with `chunks`).
fn tabular_shape<'d>(arr: Array<'d>, chunks: Option<&mut Chunked<'d>>) -> Option<Shape<'d>> {
    // Cheap rejection before any allocation.
    let first = arr.iter().next()?.as_object()?;
    if first.is_empty() {
        return None;
    }
    let mut shape = Shape {
        fields: Vec::new(),
        ordered: true,
    };
    analyze(arr.iter(), chunks, &mut shape).then_some(shape)
}

/// Appends the encoded chunks `bufs` to `w` in order (already escaped when `escaped`). Into
/// one growing buffer ([`Sink::contiguous`]) the copy is parallel too: one reserve for the
/// whole batch, cut into one disjoint piece per chunk, each filled by a rayon task (the
/// output's page faults are spread the same way). A streaming sink gets the chunks one by one,
/// so its buffers stay small.
fn stitch<W: Sink + ?Sized>(w: &mut W, bufs: &[Vec<u8>], escaped: bool) {
    let total: usize = bufs.iter().map(Vec::len).sum();
    if total < STITCH_PARALLEL_MIN || !w.contiguous() {
        for buf in bufs {
            if escaped {
                w.write_escaped(buf);
            } else {
                w.write(buf);
            }
        }
        return;
    }
    let spare = if escaped {
        w.spare_escaped(total)
    } else {
        w.spare(total)
    };
    let mut pieces = Vec::with_capacity(bufs.len());
    let mut rest = &mut spare[..total];
    for buf in bufs {
        let (piece, tail) = rest.split_at_mut(buf.len());
        pieces.push(piece);
        rest = tail;
    }
    pieces
        .into_par_iter()
        .zip(bufs.par_iter())
        .for_each(|(piece, buf)| {
            // `piece` is exactly `buf.len()` bytes (the split above); the loop compiles to a
            // plain copy.
            for (dst, &b) in piece.iter_mut().zip(buf) {
                dst.write(b);
            }
        });
    // SAFETY: the pieces cover `spare[..total]` and each was initialised above; nothing
    // touched the sink since `spare`/`spare_escaped`.
    unsafe {
        if escaped {
            w.advance_escaped(total);
        } else {
            w.advance(total);
        }
    }
}

/// Below this many bytes per batch, stitching copies on the calling thread.
const STITCH_PARALLEL_MIN: usize = 256 << 10;

/// The tabular shape of a large array and its chunks for the parallel encoder, or `None`
/// when the array is not tabular.
///
/// Finding where chunk `k` starts by walking takes `k × chunk` hops along the tape, one node
/// read (and on a large table one cache miss) per row: done serially before the parallel
/// work, it capped the two-thread speed-up. No walk is needed: the rows of a table all span
/// the same number of tape nodes (one object node, then per field a key node and either one
/// primitive node or a nested object whose fields are uniform in turn), so the chunk starts
/// are computed from that span ([`guessed_chunks`]), and the parallel row scan of the shape
/// analysis ([`analyze`]) confirms them on the way. An array whose nodes do not divide evenly
/// among its rows, or whose scan does not confirm the starts, is not a table. (The parallel
/// and sequential encoders giving the same bytes is property-tested and fuzzed.)
fn parallel_table<'d>(
    arr: Array<'d>,
    threshold: usize,
) -> Option<(Shape<'d>, Vec<(Elements<'d>, usize)>)> {
    let chunk = (threshold / 2).clamp(1, 4096);
    let mut chunked = Chunked {
        parts: guessed_chunks(arr, chunk)?,
        end: arr.tape_end(),
        verified: false,
    };
    let shape = tabular_shape(arr, Some(&mut chunked))?;
    chunked.verified.then_some((shape, chunked.parts))
}

/// Chunks of `chunk` rows whose starts are guessed from a uniform row span (unconfirmed);
/// `None` when the array's nodes do not divide evenly among its rows.
fn guessed_chunks(arr: Array<'_>, chunk: usize) -> Option<Vec<(Elements<'_>, usize)>> {
    let (len, all, span) = (arr.len(), arr.iter(), arr.even_span()?);
    let first = all.position();
    Some(
        (0..len.div_ceil(chunk))
            .map(|k| {
                let at = first + k * chunk * span;
                (all.resume(at, len - k * chunk), chunk.min(len - k * chunk))
            })
            .collect(),
    )
}

/// The keyed tabular shape of an object, if it has one: at least two entries, every value a
/// non-empty object, uniform columns.
fn keyed_shape<'d>(obj: Object<'d>) -> Option<Shape<'d>> {
    if obj.len() < 2 {
        return None;
    }
    // Cheap rejection before any allocation: the common object has primitive values.
    if obj
        .iter()
        .any(|(_, v)| v.as_object().is_none_or(|o| o.is_empty()))
    {
        return None;
    }
    let mut shape = Shape {
        fields: Vec::new(),
        ordered: true,
    };
    analyze(obj.iter().map(|(_, v)| v), None, &mut shape).then_some(shape)
}

// ---------------------------------------------------------------------------------------------
// Tables whose rows are not one tape array (the presenter's row view).

/// A run of consecutive table rows that one parallel task encodes (lines start with a LF).
trait RowPart: Sync {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S);
}

/// `n` rows of a tape array from `start`.
struct TapeRows<'a, 'd> {
    start: Elements<'d>,
    n: usize,
    shape: &'a Shape<'a>,
    depth: usize,
}

impl RowPart for TapeRows<'_, '_> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        enc.rows(w, self.start.clone().take(self.n), self.shape, self.depth);
    }
}

/// The rows of a root tabular array of primitive cells kept outside a tape array: the
/// presenter's row view (`present::view`) writes its rows through this, so they are
/// byte-identical to [`encode`] of the same rows as a document.
pub(crate) trait TableRows: Sync {
    /// A cheap handle of one row.
    type Row: Copy + Send + Sync;
    /// Number of rows.
    fn count(&self) -> usize;
    /// The first row (only called when `count() > 0`).
    fn first(&self) -> Self::Row;
    /// The row after `row` (only called while rows remain).
    fn next(&self, row: Self::Row) -> Self::Row;
    /// Writes the cells of `row` through `cells`, in header order.
    fn write_cells<W: Sink + ?Sized>(&self, cells: &mut Cells<'_>, w: &mut W, row: Self::Row);
    /// Writes the members of `row` through `item` (the list form, [`encode_list`]).
    fn write_item<W: Sink + ?Sized>(&self, item: &mut Item<'_, '_>, w: &mut W, row: Self::Row);
}

/// What [`TableRows::write_item`] writes a row with in the list form: `- key: value` for the
/// first member, `key: value` one level deeper for the others, `-` for a row without members
/// (the encoder's list item of an object with primitive values).
pub(crate) struct Item<'e, 'o> {
    enc: &'e mut Enc<'o>,
    first: bool,
}

impl Item<'_, '_> {
    /// Starts the line of a member `key`.
    #[inline]
    fn key<W: Sink + ?Sized>(&mut self, w: &mut W, key: &[u8]) {
        if std::mem::replace(&mut self.first, false) {
            self.enc.line(w, 1);
            w.write(b"- ");
        } else {
            self.enc.line(w, 2);
        }
        write_key(w, key);
        w.write(b": ");
    }

    /// A member holding the primitive tape node `node` of `doc`.
    #[inline]
    pub(crate) fn node<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: &[u8],
        doc: &Doc<'_>,
        node: Node,
    ) {
        self.key(w, key);
        self.enc.node(w, doc, node);
    }

    /// A member holding a value already encoded by [`string_cell`] with these options.
    #[inline]
    pub(crate) fn encoded<W: Sink + ?Sized>(&mut self, w: &mut W, key: &[u8], cell: &[u8]) {
        self.key(w, key);
        w.write(cell);
    }

    /// Ends the item: `-` alone when it had no member.
    #[inline]
    fn finish<W: Sink + ?Sized>(&mut self, w: &mut W) {
        if self.first {
            self.enc.line(w, 1);
            w.write_byte(b'-');
        }
    }
}

/// What [`TableRows::write_cells`] writes a row with: the delimiter between cells, and the
/// encoder's own cell functions (quoting and escaping as for tape rows).
pub(crate) struct Cells<'e> {
    enc: &'e Enc<'e>,
    first: bool,
}

impl Cells<'_> {
    /// Writes the delimiter unless this is the row's first cell.
    #[inline]
    fn sep<W: Sink + ?Sized>(&mut self, w: &mut W) {
        if !std::mem::replace(&mut self.first, false) {
            w.write_byte(self.enc.delim);
        }
    }

    /// A cell holding the primitive tape node `node` of `doc`.
    #[inline]
    pub(crate) fn node<W: Sink + ?Sized>(&mut self, w: &mut W, doc: &Doc<'_>, node: Node) {
        self.sep(w);
        self.enc.node(w, doc, node);
    }

    /// A cell already encoded by [`string_cell`] with this table's options.
    #[inline]
    pub(crate) fn encoded<W: Sink + ?Sized>(&mut self, w: &mut W, cell: &[u8]) {
        self.sep(w);
        w.write(cell);
    }
}

/// The cell text of the string `s` in a table encoded with `opts` (quoted and escaped as
/// needed): for a string repeated in every row, such as a censor.
pub(crate) fn string_cell(s: &[u8], opts: &EncodeOptions) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    Enc::new(opts, true).string(&mut out, s);
    out
}

/// `n` rows of a [`TableRows`] from `start`, as table rows or (`list`) list items.
struct SourceRows<'a, T: TableRows> {
    rows: &'a T,
    start: T::Row,
    n: usize,
    list: bool,
}

impl<T: TableRows> RowPart for SourceRows<'_, T> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        enc.source_rows(w, self.rows, self.start, self.n, self.list);
    }
}

/// The rows of `rows` after a header, sequential or in parallel chunks as [`encode`] cuts
/// them; `list`: as list items.
fn source_body<T: TableRows, W: Sink + ?Sized>(
    enc: &mut Enc<'_>,
    rows: &T,
    opts: &EncodeOptions,
    out: &mut W,
    list: bool,
) {
    let n = rows.count();
    if opts.parallel && n >= opts.parallel_threshold && rayon::current_num_threads() > 1 {
        let chunk = (opts.parallel_threshold / 2).clamp(1, 4096);
        let mut parts = Vec::with_capacity(n.div_ceil(chunk));
        let mut row = rows.first();
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk);
            parts.push(SourceRows {
                rows,
                start: row,
                n: k,
                list,
            });
            left -= k;
            for _ in 0..k {
                if left > 0 {
                    row = rows.next(row);
                }
            }
        }
        enc.parts_parallel(out, &parts);
    } else {
        enc.source_rows(out, rows, rows.first(), n, list);
    }
}

/// Encodes a root array of `rows.count()` objects with primitive values that do not form a
/// table as [`encode`] would: `[N]:` plus one list item per row, `[]` when empty; large
/// arrays in parallel chunks. The same contract as [`encode_table`].
pub(crate) fn encode_list<T: TableRows, W: Sink + ?Sized>(
    rows: &T,
    opts: &EncodeOptions,
    out: &mut W,
) {
    let n = rows.count();
    let mut enc = Enc::new(opts, false);
    enc.line(out, 0);
    if n == 0 {
        out.write(b"[]");
        return;
    }
    enc.bracket(out, n, false);
    out.write_byte(b':');
    source_body(&mut enc, rows, opts, out, true);
}

/// Encodes a root array of `rows.count()` objects whose keys are `keys` (every row has every
/// key, cells are primitives) as [`encode`] would: the tabular form `[N]{keys}:` plus one line
/// per row, `[]` when empty; large tables in parallel chunks as in [`encode`]. The caller has
/// run the checks of [`check`] (such rows hold no container, so only a lone surrogate could
/// fail, which the response's TOON fallback excludes).
pub(crate) fn encode_table<T: TableRows, W: Sink + ?Sized>(
    rows: &T,
    keys: &[&[u8]],
    opts: &EncodeOptions,
    out: &mut W,
) {
    let n = rows.count();
    let mut enc = Enc::new(opts, false);
    enc.line(out, 0);
    if n == 0 || keys.is_empty() {
        // Empty rows are not tabular; callers never pass them (see the contract above).
        debug_assert!(n == 0, "encode_table: rows without keys");
        out.write(b"[]");
        return;
    }
    let fields: Vec<Field<'_>> = keys.iter().map(|&key| Field { key, span: 1 }).collect();
    enc.bracket(out, n, false);
    enc.fields(out, &fields);
    out.write_byte(b':');
    source_body(&mut enc, rows, opts, out, false);
}

// ---------------------------------------------------------------------------------------------
// The writer.

/// How a line that opens a value starts.
#[derive(Clone, Copy)]
enum Lead {
    /// Indentation of this depth.
    Plain(usize),
    /// A list item's hyphen line for a field at this depth: indentation of `depth - 1`, `- `.
    Hyphen(usize),
}

/// Formatter state: options, the delimiter's byte class table, and whether a line was started.
struct Enc<'o> {
    opts: &'o EncodeOptions,
    delim: u8,
    table: &'static [bool; 256],
    indent: usize,
    started: bool,
}

impl<'o> Enc<'o> {
    fn new(opts: &'o EncodeOptions, started: bool) -> Self {
        let delim = opts.delimiter.as_byte();
        let table = match opts.delimiter {
            Delimiter::Comma => &QUOTE_COMMA,
            Delimiter::Tab => &QUOTE_TAB,
            Delimiter::Pipe => &QUOTE_PIPE,
        };
        Enc {
            opts,
            delim,
            table,
            indent: opts.indent,
            started,
        }
    }

    /// Starts a line at `depth` (a line feed first unless this is the document's first line).
    #[inline]
    fn line<W: Sink + ?Sized>(&mut self, w: &mut W, depth: usize) {
        let n = depth * self.indent;
        if self.started {
            crate::sink::write_line_start(w, n);
        } else {
            crate::sink::write_spaces(w, n);
        }
        self.started = true;
    }

    #[inline]
    fn lead<W: Sink + ?Sized>(&mut self, w: &mut W, lead: Lead) {
        match lead {
            Lead::Plain(d) => self.line(w, d),
            Lead::Hyphen(d) => {
                self.line(w, d - 1);
                w.write_clean(b"- ");
            }
        }
    }

    #[inline]
    fn string<W: Sink + ?Sized>(&self, w: &mut W, s: &[u8]) {
        if needs_quotes(s, self.table) {
            write_quoted(w, s);
        } else {
            // Unquoted text has no `"`, `\\` or control character (they force quotes).
            w.write_clean(s);
        }
    }

    #[inline]
    fn primitive<W: Sink + ?Sized>(&self, w: &mut W, v: Value<'_>) {
        match v.get() {
            ValueRef::Null => w.write_clean(b"null"),
            ValueRef::Bool(true) => w.write_clean(b"true"),
            ValueRef::Bool(false) => w.write_clean(b"false"),
            ValueRef::Number(Number::Int(lex)) => crate::num::write_int_lexeme(w, lex),
            ValueRef::Number(Number::Float(x)) => crate::num::write_f64(w, x),
            ValueRef::String(s) => self.string(w, s.as_bytes()),
            // Callers only pass primitives; containers cannot reach here.
            ValueRef::Array(_) | ValueRef::Object(_) => w.write(b"null"),
        }
    }

    /// `[N]`, `[N|]`, `[N:]`, `[N:|]`…
    fn bracket<W: Sink + ?Sized>(&self, w: &mut W, n: usize, keyed: bool) {
        w.write_byte(b'[');
        crate::num::write_u64(w, n as u64);
        if keyed {
            w.write_byte(b':');
        }
        if self.delim != b',' {
            w.write_byte(self.delim);
        }
        w.write_byte(b']');
    }

    fn fields<W: Sink + ?Sized>(&self, w: &mut W, fields: &[Field<'_>]) {
        w.write_byte(b'{');
        let mut i = 0;
        while i < fields.len() {
            if i > 0 {
                w.write_byte(self.delim);
            }
            let f = fields[i];
            write_key(w, f.key);
            let span = f.span as usize;
            if span > 1 {
                self.fields(w, &fields[i + 1..i + span]);
            }
            i += span;
        }
        w.write_byte(b'}');
    }

    /// The cells of one row, depth-first through nested groups.
    fn cells<W: Sink + ?Sized>(
        &self,
        w: &mut W,
        obj: Object<'_>,
        fields: &[Field<'_>],
        ordered: bool,
        first: &mut bool,
    ) {
        let mut members = obj.iter();
        let mut i = 0;
        while i < fields.len() {
            let f = fields[i];
            let span = f.span as usize;
            let v = if ordered {
                members.next().map(|(_, v)| v)
            } else {
                obj.get(f.key)
            };
            if span == 1 {
                if !*first {
                    w.write_byte(self.delim);
                }
                *first = false;
                match v {
                    Some(v) => self.primitive(w, v),
                    None => w.write(b"null"),
                }
            } else if let Some(o) = v.and_then(|v| v.as_object()) {
                self.cells(w, o, &fields[i + 1..i + span], ordered, first);
            }
            i += span;
        }
    }

    /// A primitive tape node.
    #[inline]
    fn node<W: Sink + ?Sized>(&self, w: &mut W, doc: &Doc<'_>, node: Node) {
        match node {
            Node::Null => w.write_clean(b"null"),
            Node::Bool(true) => w.write_clean(b"true"),
            Node::Bool(false) => w.write_clean(b"false"),
            Node::IntSrc(s) => crate::num::write_int_lexeme(w, doc.src_bytes(s)),
            Node::IntHeap(s) => crate::num::write_int_lexeme(w, doc.heap_bytes(s)),
            Node::Float(x) => crate::num::write_f64(w, x),
            Node::StrSrc(s) => self.string(w, doc.src_bytes(s)),
            Node::StrHeap(s) => self.string(w, doc.heap_bytes(s)),
            // Only primitives reach here.
            Node::Array { .. } | Node::Object { .. } => w.write(b"null"),
        }
    }

    /// [`Enc::cells`] for a row whose keys are in header order, straight off the tape.
    fn cells_tape<W: Sink + ?Sized>(
        &self,
        w: &mut W,
        doc: &Doc<'_>,
        obj: usize,
        fields: &[Field<'_>],
        first: &mut bool,
    ) {
        let nodes = doc.nodes();
        let mut i = obj + 1;
        let mut f = 0;
        while f < fields.len() {
            let span = fields[f].span as usize;
            let v = i + 1;
            if span == 1 {
                if !*first {
                    w.write_byte(self.delim);
                }
                *first = false;
                self.node(w, doc, nodes[v]);
                i = v + 1;
            } else {
                self.cells_tape(w, doc, v, &fields[f + 1..f + span], first);
                i = doc.next_sibling(v);
            }
            f += span;
        }
    }

    /// `count` rows from `rows`, one line each at `depth`.
    fn rows<'d, W: Sink + ?Sized, I: Iterator<Item = Value<'d>>>(
        &mut self,
        w: &mut W,
        rows: I,
        shape: &Shape<'_>,
        depth: usize,
    ) {
        for (n, row) in rows.enumerate() {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if n & 0x3FF == 0x3FF && w.cancelled() {
                return;
            }
            self.line(w, depth);
            if shape.ordered {
                self.cells_tape(w, row.doc(), row.index(), &shape.fields, &mut true);
            } else if let Some(o) = row.as_object() {
                self.cells(w, o, &shape.fields, false, &mut true);
            }
        }
    }

    /// `n` rows of a [`TableRows`] from `start`: one line each at depth 1, or (`list`) one
    /// list item each.
    fn source_rows<W: Sink + ?Sized, T: TableRows>(
        &mut self,
        w: &mut W,
        rows: &T,
        start: T::Row,
        n: usize,
        list: bool,
    ) {
        let mut row = start;
        for i in 0..n {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if i & 0x3FF == 0x3FF && w.cancelled() {
                return;
            }
            if i > 0 {
                row = rows.next(row);
            }
            if list {
                let mut item = Item {
                    enc: self,
                    first: true,
                };
                rows.write_item(&mut item, w, row);
                item.finish(w);
                continue;
            }
            self.line(w, 1);
            rows.write_cells(
                &mut Cells {
                    enc: self,
                    first: true,
                },
                w,
                row,
            );
        }
    }

    /// Rows of a large tabular array, encoded in parallel chunks and stitched in order.
    fn rows_parallel<'d, W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        starts: &Chunks<'d>,
        shape: &Shape<'_>,
        depth: usize,
    ) {
        let parts: Vec<TapeRows<'_, 'd>> = starts
            .iter()
            .map(|(start, n)| TapeRows {
                start: start.clone(),
                n: *n,
                shape,
                depth,
            })
            .collect();
        self.parts_parallel(w, &parts);
    }

    /// Encodes `parts` (consecutive runs of table rows) in parallel, each into its own
    /// buffer, and appends the buffers to `w` in order: in batches of `4 × threads` parts
    /// whose buffers are reused from batch to batch.
    fn parts_parallel<W: Sink + ?Sized, P: RowPart>(&mut self, w: &mut W, parts: &[P]) {
        let batch = rayon::current_num_threads().max(1) * 4;
        let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); batch.min(parts.len())];
        let opts = self.opts;
        // Into a framing sink, each worker escapes its own chunk: the stitching thread then
        // only copies (escaping is fused and parallel too).
        let escape = w.escapes();
        for group in parts.chunks(batch) {
            if w.cancelled() {
                return;
            }
            bufs.par_iter_mut()
                .zip(group.par_iter())
                .for_each(|(buf, part)| {
                    buf.clear();
                    let mut enc = Enc::new(opts, true);
                    if escape {
                        let mut esc = crate::escape::EscapingSink::new(buf);
                        part.write(&mut enc, &mut esc);
                    } else {
                        part.write(&mut enc, buf);
                    }
                });
            stitch(w, &bufs[..group.len()], escape);
        }
        self.started = true;
    }

    fn root<W: Sink + ?Sized>(&mut self, w: &mut W, v: Value<'_>) {
        match v.get() {
            ValueRef::Array(a) => self.array(w, None, a, Lead::Plain(0), 1, false),
            ValueRef::Object(o) => {
                if o.is_empty() {
                    return;
                }
                if let Some(shape) = keyed_shape(o) {
                    self.keyed(w, None, o, &shape, Lead::Plain(0), 1);
                } else {
                    for (k, v) in o {
                        self.member(w, k.as_bytes(), v, Lead::Plain(0), 0);
                    }
                }
            }
            ValueRef::String(s) => {
                let s = s.as_bytes();
                if s.starts_with("\u{feff}".as_bytes()) {
                    write_quoted(w, s);
                } else {
                    self.string(w, s);
                }
            }
            _ => self.primitive(w, v),
        }
    }

    /// One object member whose key line is at `depth` and starts as `lead` says.
    fn member<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: &[u8],
        v: Value<'_>,
        lead: Lead,
        depth: usize,
    ) {
        match v.get() {
            ValueRef::Array(a) => self.array(w, Some(key), a, lead, depth + 1, false),
            ValueRef::Object(o) => {
                if let Some(shape) = keyed_shape(o) {
                    self.keyed(w, Some(key), o, &shape, lead, depth + 1);
                } else {
                    self.lead(w, lead);
                    write_key(w, key);
                    w.write_byte(b':');
                    for (k, v) in o {
                        self.member(w, k.as_bytes(), v, Lead::Plain(depth + 1), depth + 1);
                    }
                }
            }
            _ => {
                self.lead(w, lead);
                write_key(w, key);
                w.write(b": ");
                self.primitive(w, v);
            }
        }
    }

    /// A keyed tabular object: header, then one `entry: cells` row per entry at `body`.
    fn keyed<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: Option<&[u8]>,
        obj: Object<'_>,
        shape: &Shape<'_>,
        lead: Lead,
        body: usize,
    ) {
        self.lead(w, lead);
        if let Some(k) = key {
            write_key(w, k);
        }
        self.bracket(w, obj.len(), true);
        self.fields(w, &shape.fields);
        w.write_byte(b':');
        for (k, v) in obj {
            self.line(w, body);
            write_key(w, k.as_bytes());
            w.write(b": ");
            if let Some(o) = v.as_object() {
                self.cells(w, o, &shape.fields, shape.ordered, &mut true);
            }
        }
    }

    /// An array whose header line starts as `lead`; rows or list items go at depth `body`.
    /// `anon`: the array is itself a list item (never tabular, `[0]:` when empty).
    fn array<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: Option<&[u8]>,
        arr: Array<'_>,
        lead: Lead,
        body: usize,
        anon: bool,
    ) {
        let n = arr.len();
        self.lead(w, lead);
        if let Some(k) = key {
            write_key(w, k);
        }
        if n == 0 && !anon {
            w.write(if key.is_some() { b": []" } else { b"[]" });
            return;
        }
        if arr.iter().all(|v| v.is_primitive()) {
            self.bracket(w, n, false);
            w.write_byte(b':');
            for (i, v) in arr.iter().enumerate() {
                w.write_byte(if i == 0 { b' ' } else { self.delim });
                self.primitive(w, v);
            }
            return;
        }
        if !anon {
            let parallel = self.opts.parallel
                && n >= self.opts.parallel_threshold
                && rayon::current_num_threads() > 1
                && arr
                    .iter()
                    .next()
                    .and_then(|v| v.as_object())
                    .is_some_and(|o| !o.is_empty());
            let table = if parallel {
                parallel_table(arr, self.opts.parallel_threshold)
                    .map(|(shape, chunks)| (shape, Some(chunks)))
            } else {
                tabular_shape(arr, None).map(|shape| (shape, None))
            };
            if let Some((shape, chunks)) = table {
                self.bracket(w, n, false);
                self.fields(w, &shape.fields);
                w.write_byte(b':');
                match &chunks {
                    Some(chunks) => self.rows_parallel(w, chunks, &shape, body),
                    None => self.rows(w, arr.iter(), &shape, body),
                }
                return;
            }
        }
        self.bracket(w, n, false);
        w.write_byte(b':');
        for v in arr {
            self.list_item(w, v, body);
        }
    }

    /// One `- …` item of a list-form array at depth `depth`.
    fn list_item<W: Sink + ?Sized>(&mut self, w: &mut W, v: Value<'_>, depth: usize) {
        match v.get() {
            ValueRef::Array(a) => self.array(w, None, a, Lead::Hyphen(depth + 1), depth + 1, true),
            ValueRef::Object(o) => {
                if o.is_empty() {
                    self.line(w, depth);
                    w.write_byte(b'-');
                    return;
                }
                for (i, (k, v)) in o.iter().enumerate() {
                    let lead = if i == 0 {
                        Lead::Hyphen(depth + 1)
                    } else {
                        Lead::Plain(depth + 1)
                    };
                    self.member(w, k.as_bytes(), v, lead, depth + 1);
                }
            }
            _ => {
                self.line(w, depth);
                w.write(b"- ");
                self.primitive(w, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_table_equals_the_sequential_analysis() {
        // Tables (flat, nested groups, keys in another order, one row, a tail shorter than a
        // chunk) and arrays that are not: rows whose sizes differ but whose nodes divide
        // evenly (spans 3 and 5 alternate, so the computed starts are wrong for odd chunks),
        // a last row with an extra field, a last row whose group turns into a leaf, arrays.
        let rows = |n: usize, row: &dyn Fn(usize) -> String| {
            let rows: Vec<String> = (0..n).map(row).collect();
            format!("[{}]", rows.join(","))
        };
        let flat = |n: usize| rows(n, &|i| format!(r#"{{"a":{i},"b":"x"}}"#));
        let cases = [
            flat(1),
            flat(10),
            flat(41),
            rows(41, &|i| {
                format!(r#"{{"a":{i},"g":{{"x":{i},"y":{{"z":1}}}},"b":2}}"#)
            }),
            rows(30, &|i| {
                if i % 7 == 3 {
                    r#"{"b":"x","a":1}"#.into()
                } else {
                    r#"{"a":1,"b":"x"}"#.into()
                }
            }),
            rows(40, &|i| {
                if i % 2 == 0 {
                    r#"{"a":1}"#.into()
                } else {
                    r#"{"a":1,"b":2}"#.into()
                }
            }),
            flat(39).replace("]", r#",{"a":1,"b":"x","c":3}]"#),
            rows(20, &|i| {
                if i == 19 {
                    r#"{"a":1,"g":7}"#.into()
                } else {
                    r#"{"a":1,"g":{"x":1}}"#.into()
                }
            }),
            r#"[[1,[2]],[3,[4]],[5,[6]],[7,[8]],[9,[10]]]"#.to_string(),
        ];
        let mut tables = 0;
        for src in &cases {
            let doc =
                crate::json::parse(src.as_bytes(), &crate::json::ParseOptions::new()).unwrap();
            let arr = doc.root().as_array().unwrap();
            let seq = tabular_shape(arr, None);
            for threshold in [2, 4, 6, 8, 100] {
                let chunk = (threshold / 2).clamp(1, 4096);
                let par = parallel_table(arr, threshold);
                assert_eq!(par.is_some(), seq.is_some(), "{src} {threshold}");
                let (Some((shape, parts)), Some(want)) = (&par, &seq) else {
                    continue;
                };
                tables += 1;
                assert_eq!(
                    format!("{shape:?}"),
                    format!("{want:?}"),
                    "{src} {threshold}"
                );
                // The chunk starts are the walk's; each iterator runs to the array's end.
                let mut it = arr.iter();
                for (k, (start, n)) in parts.iter().enumerate() {
                    assert_eq!(start.position(), it.position(), "{src} {threshold} {k}");
                    assert_eq!((*n, start.len()), (chunk.min(it.len()), it.len()));
                    it.nth(n - 1);
                }
                assert_eq!(it.len(), 0);
            }
        }
        assert_eq!(
            tables,
            5 * 5,
            "every table case was a table for every threshold"
        );
    }

    #[test]
    fn numeric_like_grammar() {
        for yes in [
            "0", "05", "+1", "-1", "1.5", "1e5", "1E+5", "1.5e-05", "00.00",
        ] {
            assert!(is_numeric_like(yes.as_bytes()), "{yes}");
        }
        for no in [
            "", "+", "-", "1.", ".5", "1e", "1e+", "1.e5", "1x", "0x10", "1_0", "١",
        ] {
            assert!(!is_numeric_like(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn tables_hold_exactly_the_spec_bytes() {
        for (table, delim) in [
            (&QUOTE_COMMA, b','),
            (&QUOTE_TAB, b'\t'),
            (&QUOTE_PIPE, b'|'),
        ] {
            for b in 0..=255u8 {
                let want = b < 0x20 || b":\"\\[]{}".contains(&b) || b == delim;
                assert_eq!(
                    table[b as usize], want,
                    "byte {b:#04x}, delimiter {delim:#04x}"
                );
            }
        }
        for b in 0..=255u8 {
            let want = b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
            assert_eq!(KEY_REST[b as usize], want, "byte {b:#04x}");
        }
    }
}
