//! A data block written straight from the rows of an input array through a field list: the
//! *row view* of a presentation that copies no row (the presenter's validation builds it,
//! `present::view`). The writers produce, from the input tape, exactly the bytes the encoders
//! write for the derived document: the listed fields present in each row, in the block's
//! order, redacted ones as the censor. JSON goes through the same [`Formatter`] calls and
//! [`write_leaf`]; TOON through the encoder's table code ([`encode_table`]: header, cells,
//! quoting, parallel chunks) when every row shows the same non-empty set of fields, else its
//! list form ([`encode_list`]).
//!
//! The testing side door materialises the derived document on first use; `Format::Auto`
//! judges a materialised sample of its first [`AUTO_SAMPLE_ROWS`] rows, as [`choose_auto`]
//! would.

use std::sync::{Arc, OnceLock};

use super::bounds::node_len_bound;
use super::estimate::{AUTO_SAMPLE_ROWS, choose_auto};
use super::format::Format;
use crate::doc::{Doc, DocBuilder, Node};
use crate::json::{
    CompactFormatter, Formatter, PrettyFormatter, member_prefix, write_leaf, write_prefix,
};
use crate::sink::{Pieces, Sink};
use crate::toon::{Cells, EncodeOptions, Item, TableRows, encode_list, encode_table, string_cell};

/// The rows of a data block read through a field list (see the module docs).
#[derive(Clone)]
pub(crate) struct RowBlock<'d> {
    /// The declared fields, by index.
    pub(crate) keys: Arc<[Box<[u8]>]>,
    /// Per field: written as the censor.
    pub(crate) redacted: Arc<[bool]>,
    /// What redacted fields show.
    pub(crate) censor: Arc<str>,
    pub(crate) doc: &'d Doc<'d>,
    /// Tape index of the first row (meaningless when `rows == 0`).
    pub(crate) first: usize,
    /// Rows in the block.
    pub(crate) rows: usize,
    /// The fields the data block shows, in its order (indices into `keys`).
    pub(crate) order: Vec<usize>,
    /// Per row and field, the value's offset from the row's node (0: absent); `None` when
    /// every row is canonical (exactly the fields, in order: field `j` at `row + 2 + 2j`).
    pub(crate) offsets: Option<Vec<u32>>,
    /// Every row shows the same non-empty set of fields (the derived array would be a TOON
    /// table).
    pub(crate) uniform: bool,
    /// Flags of the derived document: the input's, and the censor's.
    pub(crate) reserved_tag: bool,
    pub(crate) lone_surrogate: bool,
    /// The derived document for the side door, made on first use. It owns its strings (no
    /// borrowed source), so the block stays covariant in `'d`.
    pub(crate) derived: OnceLock<Doc<'static>>,
}

impl std::fmt::Debug for RowBlock<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowBlock")
            .field("rows", &self.rows)
            .field("fields", &self.keys.len())
            .field("canonical", &self.offsets.is_none())
            .field("uniform", &self.uniform)
            .finish_non_exhaustive()
    }
}

impl<'d> RowBlock<'d> {
    /// The tape index of field `j`'s value in row `r` (whose node is at `ri`), if present.
    #[inline(always)]
    fn value_at(&self, ri: usize, r: usize, j: usize) -> Option<usize> {
        match &self.offsets {
            None => Some(ri + 2 + 2 * j),
            Some(t) => match t[r * self.keys.len() + j] {
                0 => None,
                o => Some(ri + o as usize),
            },
        }
    }

    /// The shown fields of row `r` (its node at `ri`) in data-block order, absent ones
    /// skipped: `(field, Some(value node))`, or `(field, None)` where the censor goes.
    #[inline(always)]
    fn shown_cells(&self, (ri, r): (usize, usize)) -> impl Iterator<Item = (usize, Option<Node>)> {
        let nodes = self.doc.nodes();
        self.order.iter().filter_map(move |&j| {
            let v = self.value_at(ri, r, j)?;
            Some((j, (!self.redacted[j]).then(|| nodes.at(v))))
        })
    }

    /// The row after the one at `ri`.
    #[inline(always)]
    fn next_row(&self, ri: usize) -> usize {
        self.doc.next_sibling(ri)
    }

    /// `n` rows from the one at tape index `ri` (row number `r`) on, as (tape index, row
    /// number): each row where the one before ends.
    #[inline]
    fn rows_from(
        &self,
        (ri, r): (usize, usize),
        n: usize,
    ) -> impl Iterator<Item = (usize, usize)> + '_ {
        std::iter::successors(Some((ri, r)), move |&(ri, r)| {
            Some((self.next_row(ri), r + 1))
        })
        .take(n)
    }

    fn censor(&self) -> &[u8] {
        self.censor.as_bytes()
    }

    /// The format the data block is written in (what `ResponseBuilder::build` decides for a
    /// document): `Auto` resolved on a sample, TOON falling back to compact JSON when the
    /// derived document would hold a reserved tag or a lone surrogate (WIRE.md §2).
    pub(crate) fn resolve(&self, format: Format) -> Format {
        let format = match format {
            Format::Auto => {
                let sample = self.materialise(self.rows.min(AUTO_SAMPLE_ROWS), &self.order);
                choose_auto(sample.root())
            }
            f => f,
        };
        match format {
            // The rows are flat (depth 2), so `toon::check` can only fail on a lone
            // surrogate, which falls back first.
            Format::Toon(_) if self.reserved_tag || self.lone_surrogate => Format::Compact,
            f => f,
        }
    }

    /// Writes the data block in `format` (already resolved by [`RowBlock::resolve`]).
    pub(crate) fn write<W: Sink + ?Sized>(&self, format: Format, out: &mut W) {
        match format {
            Format::Pretty => self.write_json(out, &mut PrettyFormatter::new()),
            Format::Compact | Format::Auto => self.write_json(out, &mut CompactFormatter),
            Format::Toon(d) => {
                let opts = EncodeOptions::new().delimiter(d);
                let rows = ToonRows {
                    view: self,
                    censor: string_cell(self.censor(), &opts),
                };
                if self.uniform {
                    encode_table(&rows, &self.table_keys(), &opts, out);
                } else {
                    encode_list(&rows, &opts, out);
                }
            }
        }
    }

    /// The derived array as JSON through `fmt`: the calls `json::write_with` makes for it.
    /// What precedes each field's value (separator, line break and indentation, quoted key,
    /// colon) is the same in every row of the crate's formatters, so it is made once per
    /// field and copied. From [`JSON_PARALLEL_ROWS`] rows on, parts of [`JSON_PART_ROWS`]
    /// rows are written on the pool and handed over in order, as the TOON encoder's tables.
    fn write_json<F, W>(&self, out: &mut W, fmt: &mut F)
    where
        F: Formatter + Clone + Sync,
        W: Sink + ?Sized,
    {
        if self.rows == 0 {
            fmt.write_empty_array(out);
            return;
        }
        // The censor's literal, once (a formatter writes strings the same at any depth).
        let mut censor: Vec<u8> = Vec::new();
        fmt.write_string(&mut censor, self.censor());
        fmt.begin_array(out);
        let escapes = out.escapes();
        let prefixes = fmt
            .member_prefixes_repeat()
            .then(|| member_prefixes(&self.keys, &self.order, fmt, escapes));
        let rows = JsonRows {
            view: self,
            censor: &censor,
            prefixes: prefixes.as_ref(),
        };
        let parallel = self.rows >= JSON_PARALLEL_ROWS
            && rayon::current_thread_index().is_none()
            && rayon::current_num_threads() > 1;
        if parallel {
            // Each part's first row (tape index, row number).
            let starts: Vec<(usize, usize)> = self
                .rows_from((self.first, 0), self.rows)
                .step_by(JSON_PART_ROWS)
                .collect();
            let at_rows = fmt.clone();
            crate::sink::write_ordered(
                out,
                starts.len(),
                |i, buf| {
                    let (ri, r) = starts[i];
                    let n = JSON_PART_ROWS.min(self.rows - r);
                    let mut fmt = at_rows.clone();
                    if escapes {
                        let mut esc = crate::escape::EscapingSink::new(buf);
                        rows.write(&mut esc, &mut fmt, (ri, r), n, true);
                    } else {
                        rows.write(buf, &mut fmt, (ri, r), n, false);
                    }
                },
                |w, buf| {
                    if escapes {
                        w.write_escaped_owned(buf);
                    } else {
                        w.write_owned(buf);
                    }
                },
            );
            if out.cancelled() {
                return;
            }
        } else if !rows.write(out, fmt, (self.first, 0), self.rows, escapes) {
            return;
        }
        fmt.end_array(out);
    }

    /// The TOON header's keys: the fields of the first row (every row's, when uniform).
    fn table_keys(&self) -> Vec<&[u8]> {
        if self.rows == 0 {
            return Vec::new();
        }
        self.order
            .iter()
            .copied()
            .filter(|&j| self.value_at(self.first, 0, j).is_some())
            .map(|j| &self.keys[j][..])
            .collect()
    }

    /// The derived document's first `rows` rows with the fields `order`: the values
    /// `Writer::fast_row` writes (then `_select` keeps), with the same flags, every string
    /// copied (the document borrows nothing).
    fn materialise(&self, rows: usize, order: &[usize]) -> Doc<'static> {
        let n = self.keys.len();
        let doc = self.doc;
        let censor = self.censor();
        let mut b = DocBuilder::with_capacity(b"", 1 + rows * (1 + 2 * n), 0);
        if self.reserved_tag {
            b.mark_reserved_tag();
        }
        if self.lone_surrogate {
            b.mark_lone_surrogate();
        }
        let m = b.begin_array();
        for (ri, r) in self.rows_from((self.first, 0), rows) {
            let o = b.begin_object();
            let mut count = 0;
            for &j in order {
                let Some(v) = self.value_at(ri, r, j) else {
                    continue;
                };
                // The key node sits right before its value.
                b.str_heap(doc.key_at(v - 1));
                if self.redacted[j] {
                    b.str_heap(censor);
                } else {
                    push_owned(&mut b, doc, v);
                }
                count += 1;
            }
            b.end_object_unique(o, count);
        }
        b.end_array(m, rows);
        b.finish()
    }

    /// The derived document (materialised on first use: the testing side door only).
    pub(crate) fn derived(&self) -> &Doc<'static> {
        self.derived
            .get_or_init(|| self.materialise(self.rows, &self.order))
    }

    /// The first kept row as the derived document holds it before `_select` (every declared
    /// field present), alone in an array: what item rules and suggestions read.
    pub(crate) fn first_row(&self) -> Doc<'static> {
        let all: Vec<usize> = (0..self.keys.len()).collect();
        self.materialise(self.rows.min(1), &all)
    }

    /// The bytes the block most likely takes in `format` (resolved): its first rows, up to
    /// [`LIKELY_SAMPLE_ROWS`], measured cell by cell with the format's punctuation, a quarter
    /// more, times the rows. The room `ToolResponse::block_bytes` makes, so that the buffer
    /// is not grown (copied, its fresh pages faulted) while the rows are written; a guess,
    /// never a bound.
    pub(crate) fn likely_len(&self, format: Format) -> usize {
        let sample = self.rows.min(LIKELY_SAMPLE_ROWS);
        if sample == 0 {
            return 64;
        }
        // Per cell, per row, and whether each row repeats the keys (a TOON table's header
        // names them once).
        let (per_cell, per_row, keyed) = match format {
            Format::Pretty => (12, 8, true),
            Format::Toon(_) if self.uniform => (2, 4, false),
            Format::Toon(_) => (6, 6, true),
            Format::Compact | Format::Auto => (6, 3, true),
        };
        let nodes = self.doc.nodes();
        let mut bytes = 0usize;
        for (ri, r) in self.rows_from((self.first, 0), sample) {
            bytes += per_row;
            for &j in &self.order {
                let Some(v) = self.value_at(ri, r, j) else {
                    continue;
                };
                let value = if self.redacted[j] {
                    self.censor().len()
                } else {
                    leaf_len(nodes.at(v))
                };
                bytes += per_cell + value + if keyed { self.keys[j].len() } else { 0 };
            }
        }
        let header: usize = self.keys.iter().map(|k| k.len() + 1).sum();
        (bytes + bytes / 4)
            .div_ceil(sample)
            .saturating_mul(self.rows)
            .saturating_add(header + 64)
    }

    /// `ToolResponse::block_len_bound` of the derived document, computed from the view: the
    /// same per-node bound over the nodes the derived tape would hold.
    pub(crate) fn len_bound(&self) -> usize {
        let nodes = self.doc.nodes();
        let array = Node::Array { len: 0, end: 0 };
        let object = Node::Object {
            len: 0,
            end: 0,
            same_keys: false,
            flat: false,
        };
        let censor = self.censor().len();
        let censor_bound = node_len_bound(
            &Node::StrHeap(crate::doc::Span {
                start: 0,
                len: censor as u32,
            }),
            2,
        );
        let mut bound = node_len_bound(&array, 0);
        for (ri, r) in self.rows_from((self.first, 0), self.rows) {
            bound += node_len_bound(&object, 1);
            for &j in &self.order {
                if let Some(v) = self.value_at(ri, r, j) {
                    bound += node_len_bound(&nodes.at(v - 1), 2);
                    bound += if self.redacted[j] {
                        censor_bound
                    } else {
                        node_len_bound(&nodes.at(v), 2)
                    };
                }
            }
        }
        bound
    }
}

/// Rows from which a row view's JSON is written in parallel parts (the TOON encoder's
/// default threshold).
const JSON_PARALLEL_ROWS: usize = 4096;

/// Rows per part of a row view's JSON written in parallel.
const JSON_PART_ROWS: usize = 2048;

/// What writing a row view's rows as JSON elements needs, shared by the parts.
struct JsonRows<'a, 'd> {
    view: &'a RowBlock<'d>,
    /// The censor's JSON literal.
    censor: &'a [u8],
    /// The fields' member prefixes, in the sink's form (`member_prefixes`; `None`: the
    /// formatter's calls).
    prefixes: Option<&'a Pieces>,
}

impl JsonRows<'_, '_> {
    /// Writes `n` rows from `from` (the first row's tape index and number) as elements of
    /// the open array through `fmt` (at the array's depth); `escaped`: `out` takes the
    /// prefixes as they were made for an escaping sink. False when the sink was cancelled.
    fn write<F: Formatter, W: Sink + ?Sized>(
        &self,
        out: &mut W,
        fmt: &mut F,
        from: (usize, usize),
        n: usize,
        escaped: bool,
    ) -> bool {
        let view = self.view;
        let nodes = view.doc.nodes();
        let (mut ri, first_row) = from;
        // Stepped by hand, not with `rows_from`: its iterator measured 5% slower here.
        for r in first_row..first_row + n {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if r & 0x3FF == 0x3FF && out.cancelled() {
                return false;
            }
            if r > first_row {
                ri = view.next_row(ri);
            }
            fmt.begin_array_value(out, r == 0);
            let mut first = true;
            for (k, &j) in view.order.iter().enumerate() {
                let Some(v) = view.value_at(ri, r, j) else {
                    continue;
                };
                if first {
                    fmt.begin_object(out);
                }
                match self.prefixes {
                    Some(p) => write_prefix(out, p.get(2 * k + usize::from(!first)), escaped),
                    None => member_prefix(out, fmt, &view.keys[j], first),
                }
                first = false;
                if view.redacted[j] {
                    out.write(self.censor);
                } else {
                    write_leaf(out, fmt, view.doc, nodes.at(v));
                }
            }
            if first {
                fmt.write_empty_object(out);
            } else {
                fmt.end_object(out);
            }
        }
        true
    }
}

/// The bytes a row's member calls write before each shown field's value
/// (`begin_object_key`, `write_key`, `begin_object_value`) through a copy of `fmt` (which has
/// begun the rows' array) inside a row object, in the form the sink takes them (escaped for a
/// framing sink): for the field at place `k` of `order`, piece `2k` as the row's first
/// member, `2k + 1` as a later one.
fn member_prefixes<F: Formatter + Clone>(
    keys: &[Box<[u8]>],
    order: &[usize],
    fmt: &F,
    escapes: bool,
) -> Pieces {
    let mut row = fmt.clone();
    row.begin_object(&mut Vec::new());
    let mut pieces = Pieces::default();
    for &j in order {
        for first in [true, false] {
            if escapes {
                let mut esc = crate::escape::EscapingSink::new(&mut pieces.bytes);
                member_prefix(&mut esc, &mut row, &keys[j], first);
            } else {
                member_prefix(&mut pieces.bytes, &mut row, &keys[j], first);
            }
            pieces.end_piece();
        }
    }
    pieces
}

/// The rows [`RowBlock::likely_len`] measures.
const LIKELY_SAMPLE_ROWS: usize = 64;

/// About the length of a primitive node's text: its bytes and quotes (escapes not counted),
/// a float's usual digits.
fn leaf_len(node: Node) -> usize {
    match node {
        Node::Null | Node::Bool(_) => 5,
        Node::Float(_) => 20,
        Node::FloatSrc(s) | Node::IntSrc(s) | Node::IntHeap(s) => s.len as usize,
        Node::StrSrc(s)
        | Node::StrPlain(s)
        | Node::StrBare(s)
        | Node::StrQuoted(s)
        | Node::StrHeap(s) => s.len as usize + 2,
        Node::Array { .. } | Node::Object { .. } => 4,
    }
}

/// Pushes the primitive node `idx` of `doc` with its bytes copied.
fn push_owned(b: &mut DocBuilder<'_>, doc: &Doc<'_>, idx: usize) {
    match doc.nodes().at(idx) {
        Node::Null => b.null(),
        Node::Bool(x) => b.bool(x),
        Node::Float(x) => b.float(x.get()),
        Node::FloatSrc(s) => b.float(doc.float_src_value(s)),
        Node::StrSrc(s) | Node::StrPlain(s) | Node::StrBare(s) | Node::StrQuoted(s) => {
            b.str_heap(doc.src_bytes(s))
        }
        Node::StrHeap(s) => b.str_heap(doc.heap_bytes(s)),
        Node::IntSrc(s) => b.int_lexeme(doc.src_bytes(s)),
        Node::IntHeap(s) => b.int_lexeme(doc.heap_bytes(s)),
        // Kept cells are primitives (checked by the presenter's validation).
        Node::Array { .. } | Node::Object { .. } => b.null(),
    }
}

/// The view as TOON table rows, with the censor's cell encoded once.
struct ToonRows<'a, 'd> {
    view: &'a RowBlock<'d>,
    censor: Vec<u8>,
}

impl TableRows for ToonRows<'_, '_> {
    /// `(row node, row number)`.
    type Row = (usize, usize);

    fn count(&self) -> usize {
        self.view.rows
    }

    fn first(&self) -> (usize, usize) {
        (self.view.first, 0)
    }

    fn next(&self, (ri, r): (usize, usize)) -> (usize, usize) {
        (self.view.next_row(ri), r + 1)
    }

    #[inline]
    fn write_cells<W: Sink + ?Sized>(&self, cells: &mut Cells<'_>, w: &mut W, row: Self::Row) {
        for (_, node) in self.view.shown_cells(row) {
            match node {
                Some(node) => cells.node(w, self.view.doc, node),
                None => cells.encoded(w, &self.censor),
            }
        }
    }

    #[inline]
    fn write_item<W: Sink + ?Sized>(&self, item: &mut Item<'_, '_>, w: &mut W, row: Self::Row) {
        let keys = &self.view.keys;
        for (j, node) in self.view.shown_cells(row) {
            match node {
                Some(node) => item.node(w, &keys[j], self.view.doc, node),
                None => item.encoded(w, &keys[j], &self.censor),
            }
        }
    }
}
