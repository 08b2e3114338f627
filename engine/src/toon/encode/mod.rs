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

use crate::doc::{Array, Doc, Elements, Members, Node, Object, Value, ValueRef, key_eq};
use crate::error::{Category, Error, Result};
use crate::json::JsonInput;
use crate::sink::Sink;

use super::Delimiter;

mod from_json;
mod quote;
mod root_windows;
mod rows;
mod shape;
#[cfg(test)]
mod tests;
mod windowed;
mod writer;

pub(crate) use from_json::{ToonFacts, encode_json as encode_json_text, write_windows};
use quote::*;
pub(crate) use root_windows::{
    RootAnalysis, RootForm, write_kept_windows, write_root_header, write_root_window,
};
use rows::*;
pub(crate) use rows::{Cells, Item, TableRows, encode_list, encode_table, string_cell};
use shape::*;
pub use windowed::WindowedEncoder;
use writer::*;

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
    json_input: JsonInput,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            delimiter: Delimiter::Comma,
            indent: 2,
            max_depth: DEFAULT_MAX_DEPTH,
            parallel: true,
            parallel_threshold: DEFAULT_PARALLEL_THRESHOLD,
            json_input: JsonInput::Heap,
        }
    }
}

impl EncodeOptions {
    /// Comma delimiter, 2-space indent, depth limit 128, parallel from 4096 rows, JSON text
    /// on the heap.
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

    /// Where the JSON text of [`encode_json`](super::encode_json) is held (default
    /// [`JsonInput::Heap`]); other encoders ignore it.
    #[must_use]
    pub fn json_input(mut self, input: JsonInput) -> Self {
        self.json_input = input;
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

    /// Where the JSON text of [`encode_json`](super::encode_json) is held.
    pub fn get_json_input(&self) -> JsonInput {
        self.json_input
    }
}

/// Analyses the shape of `doc`'s root array now and keeps it with the document, so that every
/// later TOON encoding of the document (through any response or call) writes its table header
/// without scanning the rows first: what a server does with a collection it loads once and
/// encodes call after call. Writes nothing; the bytes of every encoding stay the same. Without
/// it each encoding analyses the rows itself (and keeps nothing: a document encoded once
/// does not pay for the copy of its keys). A document whose root is not an array of objects
/// is left alone; a clone of the document does not keep what was prepared.
///
/// ```
/// use toolwire::json::{parse, ParseOptions};
/// use toolwire::toon::{self, EncodeOptions};
///
/// let doc = parse(br#"[{"id":1,"ok":true},{"id":2,"ok":false}]"#, &ParseOptions::default())?;
/// toon::prepare(&doc);
/// assert_eq!(toon::to_string(doc.root(), &EncodeOptions::new())?, "[2]{id,ok}:\n  1,true\n  2,false");
/// # Ok::<(), toolwire::Error>(())
/// ```
pub fn prepare(doc: &Doc<'_>) {
    let Some(arr) = doc.root().as_array() else {
        return;
    };
    if arr.iter().next().and_then(|v| v.as_object()).is_none() {
        return;
    }
    let parallel = arr.len() >= DEFAULT_PARALLEL_THRESHOLD && rayon::current_num_threads() > 1;
    keep_root_table(arr, parallel.then_some(DEFAULT_PARALLEL_THRESHOLD));
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
    for (i, node) in nodes.slice(start..end).iter().enumerate() {
        let i = (start + i) as u32;
        while i == top {
            ends.pop();
            top = ends.last().copied().unwrap_or(u32::MAX);
        }
        if let Node::Array { end, .. } | Node::Object { end, .. } = node {
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
    let mut v = crate::sink::output_with_capacity(likely_len(value));
    encode(value, opts, &mut v)?;
    Ok(v)
}

/// The bytes `value`'s text (TOON, or the data block of a response) most likely takes: room
/// reserved up front, so a large table is not copied by a growing buffer (a serial copy that
/// would cap the parallel encoder's speed-up). The TOON of a document parsed from JSON is
/// almost always shorter than that JSON, that of a document built with its strings in its
/// heap (a binding's walk of objects) about its heap and a few bytes per node, and 32 bytes
/// per node bounds the reservation for a small value of a large document. Capacity that
/// stays untouched costs address space, not memory.
pub(crate) fn likely_len(value: Value<'_>) -> usize {
    let doc = value.doc();
    let nodes = doc.next_sibling(value.index()) - value.index();
    let likely = doc.src().len() + doc.heap_len() + nodes.saturating_mul(4);
    likely.min(nodes.saturating_mul(32))
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
