//! The data block of a presentation that copies no row: a *view* of the input array through
//! the compiled row plan ([`FastRow`]).
//!
//! When a presenter's plan has a flat fast path (an object schema whose `properties` are all
//! leaves or wholesale-redacted, no `additionalProperties`, no embeds) and nothing after the
//! data reads more than the first kept row (no collection UI, collection rules or collection
//! suggestion callbacks; item rules and suggestions get the first row, materialised alone by
//! [`RowView::first_row`]), [`RowView::validate`] runs the checks of `Writer::fast_row` over the
//! kept rows without writing anything: type masks, `required`, the in-order key guess. It
//! also asks that every kept (non-redacted) cell is a primitive. Any row that fails sends the
//! whole presentation to the general writer, which produces today's derived document and its
//! exact `OUTPUT_VALIDATION_FAILED` messages.
//!
//! On success the view records, per row, where each declared field's value sits on the input
//! tape: nothing at all while every row is *canonical* (exactly the declared fields, in schema
//! order, all primitives: field `j` is at `row + 2 + 2j`), else a table of `u32` offsets from
//! the row (0: absent), `4 × fields` bytes per row. The writers then produce, straight from
//! the input tape, the bytes the encoders would produce for the derived document: the declared
//! members present in the row, in schema order, redacted ones as the censor, nulls kept as
//! the fast path keeps them; under `_select`, the requested fields in request order. JSON goes
//! through the same [`Formatter`] calls and
//! [`write_leaf`](crate::json::write_leaf); TOON through [`crate::toon::encode_table`] (the
//! encoder's header, cell, quoting and parallel chunk code) when every row holds the same
//! non-empty set of fields (the derived array would be tabular), else through
//! [`crate::toon::encode_list`] (its list form: `- key: value` items).
//!
//! The testing side door ([`crate::wire::ToolResponse::data`]) materialises the derived
//! document on first use (the values `fast_row` writes, strings copied); `Format::Auto` judges a
//! materialised sample of its first [`AUTO_SAMPLE_ROWS`] rows, as [`choose_auto`] would.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::estimate::{AUTO_SAMPLE_ROWS, choose_auto};
use super::run::{FastRow, kind};
use super::schema::kinds;
use super::{Config, Plan};
use crate::doc::{Array, Doc, DocBuilder, Node, key_eq};
use crate::json::{CompactFormatter, Formatter, PrettyFormatter, write_leaf};
use crate::sink::Sink;
use crate::toon::{Cells, EncodeOptions, Item, TableRows, encode_list, encode_table, string_cell};
use crate::wire::Format;

/// A presented array of rows read through the row plan (see the module docs).
#[derive(Clone)]
pub(crate) struct RowView<'d> {
    fast: Arc<FastRow>,
    cfg: Arc<Config>,
    doc: &'d Doc<'d>,
    /// Tape index of the first kept row (meaningless when `rows == 0`).
    first: usize,
    /// Kept rows.
    rows: usize,
    /// The declared fields the data block shows, in its order: schema order, or the
    /// `_select` request order.
    order: Vec<usize>,
    /// Per row and declared field, the value's offset from the row's node (0: absent);
    /// `None` when every row is canonical.
    offsets: Option<Vec<u32>>,
    /// Every row holds the same non-empty set of declared fields (the derived array would be
    /// a TOON table).
    uniform: bool,
    /// Flags of the derived document: the input's, and the censor's.
    reserved_tag: bool,
    lone_surrogate: bool,
    /// The derived document for the side door, made on first use. It owns its strings (no
    /// borrowed source), so the view stays covariant in `'d`.
    derived: OnceLock<Doc<'static>>,
}

impl std::fmt::Debug for RowView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowView")
            .field("rows", &self.rows)
            .field("fields", &self.fast.keys.len())
            .field("canonical", &self.offsets.is_none())
            .field("uniform", &self.uniform)
            .finish_non_exhaustive()
    }
}

impl<'d> RowView<'d> {
    /// Validates the first `kept` rows of `arr` under `plan`'s flat fast path, writing
    /// nothing. `None` when the plan has no flat fast path or some row needs the general
    /// writer (a failed check, a kept cell that is a container).
    /// `select`: the `_select` names (checked, distinct), or `None` for every field.
    pub(crate) fn validate(
        plan: &Plan,
        arr: Array<'d>,
        kept: usize,
        select: Option<&[&str]>,
    ) -> Option<RowView<'d>> {
        let f = plan.fast.as_ref()?;
        if !f.flat {
            return None;
        }
        let order: Vec<usize> = match select {
            None => (0..f.keys.len()).collect(),
            Some(names) => names
                .iter()
                .map(|name| f.find(name.as_bytes()))
                .collect::<Option<_>>()?,
        };
        let mut shown = vec![false; f.keys.len()];
        for &j in &order {
            shown[j] = true;
        }
        let kept = kept.min(arr.len());
        let doc = arr.as_value().doc();
        let first = arr.as_value().index() + 1;
        let parallel = kept >= PARALLEL_ROWS && rayon::current_num_threads() >= PARALLEL_THREADS;
        // A failed parallel scan (a bad row, or rows whose sizes differ) leaves the verdict to
        // the sequential scan.
        let scan = match parallel
            .then(|| parallel_scan(f, &shown, arr, kept))
            .flatten()
        {
            Some(scan) => scan,
            None => scan_rows(f, doc, &shown, first, kept)?.0,
        };
        let Scan {
            first_present,
            mut uniform,
            offsets,
        } = scan;
        uniform &= first_present.iter().any(|&p| p);
        let censor = plan.cfg.censor.as_bytes();
        Some(RowView {
            fast: Arc::clone(f),
            cfg: Arc::clone(&plan.cfg),
            doc,
            first,
            rows: kept,
            order,
            offsets,
            uniform,
            reserved_tag: doc.has_reserved_tag() || crate::tag::contains_reserved_tag(censor),
            lone_surrogate: doc.has_lone_surrogate()
                || crate::json::escape::has_lone_surrogate(censor),
            derived: OnceLock::new(),
        })
    }

    /// The tape index of field `j`'s value in row `r` (whose node is at `ri`), if present.
    #[inline(always)]
    fn value_at(&self, ri: usize, r: usize, j: usize) -> Option<usize> {
        match &self.offsets {
            None => Some(ri + 2 + 2 * j),
            Some(t) => match t[r * self.fast.keys.len() + j] {
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
            Some((j, (!self.fast.redacted[j]).then(|| nodes[v])))
        })
    }

    /// The row after the one at `ri`.
    #[inline(always)]
    fn next_row(&self, ri: usize) -> usize {
        self.doc.next_sibling(ri)
    }

    fn censor(&self) -> &[u8] {
        self.cfg.censor.as_bytes()
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

    /// Writes the data block in `format` (already resolved by [`RowView::resolve`]).
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
    fn write_json<F: Formatter, W: Sink + ?Sized>(&self, out: &mut W, fmt: &mut F) {
        if self.rows == 0 {
            fmt.write_empty_array(out);
            return;
        }
        let f = &*self.fast;
        let nodes = self.doc.nodes();
        // The censor's literal, once (a formatter writes strings the same at any depth).
        let mut censor: Vec<u8> = Vec::new();
        fmt.write_string(&mut censor, self.censor());
        fmt.begin_array(out);
        let mut ri = self.first;
        for r in 0..self.rows {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if r & 0x3FF == 0x3FF && out.cancelled() {
                return;
            }
            if r > 0 {
                ri = self.next_row(ri);
            }
            fmt.begin_array_value(out, r == 0);
            let mut first = true;
            for &j in &self.order {
                let Some(v) = self.value_at(ri, r, j) else {
                    continue;
                };
                if first {
                    fmt.begin_object(out);
                }
                fmt.begin_object_key(out, first);
                first = false;
                fmt.write_key(out, &f.keys[j]);
                fmt.begin_object_value(out);
                if f.redacted[j] {
                    out.write(&censor);
                } else {
                    write_leaf(out, fmt, self.doc, nodes[v]);
                }
            }
            if first {
                fmt.write_empty_object(out);
            } else {
                fmt.end_object(out);
            }
        }
        fmt.end_array(out);
    }

    /// The TOON header's keys: the fields of the first row (every row's, when uniform).
    fn table_keys(&self) -> Vec<&[u8]> {
        let f = &*self.fast;
        if self.rows == 0 {
            return Vec::new();
        }
        self.order
            .iter()
            .copied()
            .filter(|&j| self.value_at(self.first, 0, j).is_some())
            .map(|j| &f.keys[j][..])
            .collect()
    }

    /// The derived document's first `rows` rows with the fields `order`: the values
    /// `Writer::fast_row` writes (then `_select` keeps), with the same flags, every string
    /// copied (the document borrows nothing).
    fn materialise(&self, rows: usize, order: &[usize]) -> Doc<'static> {
        let f = &*self.fast;
        let n = f.keys.len();
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
        let mut ri = self.first;
        for r in 0..rows {
            if r > 0 {
                ri = self.next_row(ri);
            }
            let o = b.begin_object();
            let mut count = 0;
            for &j in order {
                let Some(v) = self.value_at(ri, r, j) else {
                    continue;
                };
                // The key node sits right before its value.
                b.str_heap(doc.key_at(v - 1));
                if f.redacted[j] {
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
        let all: Vec<usize> = (0..self.fast.keys.len()).collect();
        self.materialise(self.rows.min(1), &all)
    }

    /// `ToolResponse::block_len_bound` of the derived document, computed from the view: the
    /// same per-node bound over the nodes the derived tape would hold.
    pub(crate) fn len_bound(&self) -> usize {
        use crate::wire::node_len_bound;
        let nodes = self.doc.nodes();
        let f = &*self.fast;
        let array = Node::Array { len: 0, end: 0 };
        let object = Node::Object { len: 0, end: 0 };
        let censor = self.censor().len();
        let censor_bound = node_len_bound(
            &Node::StrHeap(crate::doc::Span {
                start: 0,
                len: censor as u32,
            }),
            2,
        );
        let mut bound = node_len_bound(&array, 0);
        let mut ri = self.first;
        for r in 0..self.rows {
            if r > 0 {
                ri = self.next_row(ri);
            }
            bound += node_len_bound(&object, 1);
            for &j in &self.order {
                if let Some(v) = self.value_at(ri, r, j) {
                    bound += node_len_bound(&nodes[v - 1], 2);
                    bound += if f.redacted[j] {
                        censor_bound
                    } else {
                        node_len_bound(&nodes[v], 2)
                    };
                }
            }
        }
        bound
    }
}

/// Rows from which [`RowView::validate`] scans in parallel chunks of [`CHUNK_ROWS`]
/// ([`parallel_scan`]), in a pool of at least [`PARALLEL_THREADS`] threads. The first
/// version found its chunks by a sequential hop per row and was slower than the sequential
/// scan on two threads; with computed chunk starts it is not (see the presenter bench).
const PARALLEL_ROWS: usize = 8192;
/// See [`PARALLEL_ROWS`].
const PARALLEL_THREADS: usize = 2;
/// Rows per chunk of the parallel scan.
const CHUNK_ROWS: usize = 4096;

/// What [`scan_rows`] found over consecutive rows.
struct Scan {
    /// Presence of each declared field in the first row, shown fields only (empty: no row).
    first_present: Vec<bool>,
    /// Every row has the first row's presence.
    uniform: bool,
    /// Per row and declared field, the value's offset from the row (0: absent); `None` when
    /// every row is canonical.
    offsets: Option<Vec<u32>>,
}

impl Scan {
    /// The scan of consecutive chunks `parts` (`starts`: their first row and row count).
    fn merge(parts: &[Scan], starts: &[(usize, usize)], n: usize) -> Scan {
        let first_present = parts
            .first()
            .map_or_else(Vec::new, |p| p.first_present.clone());
        let uniform = parts
            .iter()
            .all(|p| p.uniform && p.first_present == first_present);
        let offsets = parts.iter().any(|p| p.offsets.is_some()).then(|| {
            let rows: usize = starts.iter().map(|&(_, k)| k).sum();
            let mut t = Vec::with_capacity(rows * n);
            for (p, &(_, k)) in parts.iter().zip(starts) {
                match &p.offsets {
                    Some(o) => t.extend_from_slice(o),
                    None => canonical_offsets(&mut t, k, n),
                }
            }
            t
        });
        Scan {
            first_present,
            uniform,
            offsets,
        }
    }
}

/// Appends the offsets of `rows` canonical rows of `n` fields.
fn canonical_offsets(t: &mut Vec<u32>, rows: usize, n: usize) {
    for _ in 0..rows {
        t.extend((0..n).map(|j| (2 + 2 * j) as u32));
    }
}

/// The checks of `Writer::fast_row` over `rows` consecutive rows from the tape index `ri`,
/// writing nothing; `shown` marks the fields the data block shows. `None` when a row needs
/// the general writer.
/// [`scan_rows`] over the first `kept` rows of `arr` in parallel chunks of [`CHUNK_ROWS`].
///
/// No walk finds the chunks: their starts are computed as if every row spanned the same
/// number of tape nodes (the common case: rows with the same fields), and each chunk's scan
/// must end exactly where the next chunk was computed to start (the last one where row
/// `kept` would). Chunk 0 starts at row 0, so by induction every start is then a row's.
/// `None` when the rows' nodes do not divide evenly, a computed start is not confirmed, or a
/// row fails: the caller then scans sequentially.
fn parallel_scan(f: &FastRow, shown: &[bool], arr: Array<'_>, kept: usize) -> Option<Scan> {
    let doc = arr.as_value().doc();
    let first = arr.as_value().index() + 1;
    let span = arr.even_span()?;
    let starts: Vec<(usize, usize)> = (0..kept.div_ceil(CHUNK_ROWS))
        .map(|c| {
            (
                first + c * CHUNK_ROWS * span,
                CHUNK_ROWS.min(kept - c * CHUNK_ROWS),
            )
        })
        .collect();
    let parts: Vec<Scan> = starts
        .par_iter()
        .map(|&(ri, rows)| {
            let (scan, stop) = scan_rows(f, doc, shown, ri, rows)?;
            (stop == ri + rows * span).then_some(scan)
        })
        .collect::<Option<_>>()?;
    Some(Scan::merge(&parts, &starts, f.keys.len()))
}

/// Scans `rows` rows from the row node at `ri`; also returns the tape index after the last.
fn scan_rows(
    f: &FastRow,
    doc: &Doc<'_>,
    shown: &[bool],
    mut ri: usize,
    rows: usize,
) -> Option<(Scan, usize)> {
    let nodes = doc.nodes();
    let n = f.keys.len();
    let mut slots = vec![0u32; n];
    let mut first_present: Vec<bool> = Vec::new();
    // The first row's presence is every shown field (what a canonical row has).
    let mut first_is_full = false;
    let mut offsets: Option<Vec<u32>> = None;
    let mut uniform = true;
    for r in 0..rows {
        // (`get`: a hand-made tape whose lengths lie ends the view, never in a panic.)
        let Some(&Node::Object { len, end }) = nodes.get(ri) else {
            return None;
        };
        // The common row first: exactly the declared fields, in order, kept cells
        // primitive (nothing to record).
        if len as usize == n {
            match canonical_row(f, doc, ri) {
                Probe::Canonical => {
                    if r == 0 {
                        first_present = shown.to_vec();
                        first_is_full = true;
                    } else {
                        uniform &= first_is_full;
                    }
                    if let Some(t) = &mut offsets {
                        canonical_offsets(t, 1, n);
                    }
                    ri = end as usize;
                    continue;
                }
                Probe::Invalid => return None,
                Probe::Other => {}
            }
        }
        slots.fill(0);
        let mut i = ri + 1;
        let mut hint = 0;
        for _ in 0..len {
            let key = doc.key_at(i);
            let v = i + 1;
            let p = if hint < n && key_eq(&f.keys[hint], key) {
                Some(hint)
            } else {
                f.find(key)
            };
            if let Some(p) = p {
                let k = kind(&nodes[v]);
                if k & f.masks[p] == 0 || (!f.redacted[p] && k & (kinds::ARR | kinds::OBJ) != 0) {
                    return None;
                }
                slots[p] = (v - ri) as u32;
                hint = p + 1;
            }
            i = doc.next_sibling(v);
        }
        if f.required.iter().any(|&q| slots[q] == 0) {
            return None;
        }
        let canonical = len as usize == n
            && slots
                .iter()
                .enumerate()
                .all(|(j, &o)| o as usize == 2 + 2 * j);
        // Presence of the shown fields (the others do not reach the data block).
        let present = slots.iter().zip(shown).map(|(&o, &s)| s && o != 0);
        if r == 0 {
            first_present = present.collect();
            first_is_full = first_present == shown;
        } else {
            uniform &= present.eq(first_present.iter().copied());
        }
        match &mut offsets {
            Some(t) => t.extend_from_slice(&slots),
            None if !canonical => {
                let mut t = Vec::with_capacity(rows * n);
                canonical_offsets(&mut t, r, n);
                t.extend_from_slice(&slots);
                offsets = Some(t);
            }
            None => {}
        }
        ri = end as usize;
    }
    Some((
        Scan {
            first_present,
            uniform,
            offsets,
        },
        ri,
    ))
}

/// What [`canonical_row`] found.
enum Probe {
    /// Exactly the declared fields in schema order, kept cells primitive, types valid.
    Canonical,
    /// A declared field in order so far has a wrong type: the row fails the fast path.
    Invalid,
    /// Something else (other order, other keys, a container): the full per-row pass decides.
    Other,
}

/// Checks the row at `ri` (an object of as many members as declared fields) against the
/// canonical layout, with the same key comparison and type masks as the full pass.
#[inline]
fn canonical_row(f: &FastRow, doc: &Doc<'_>, ri: usize) -> Probe {
    let nodes = doc.nodes();
    for j in 0..f.keys.len() {
        let k = ri + 1 + 2 * j;
        if !key_eq(&f.keys[j], doc.key_at(k)) {
            return Probe::Other;
        }
        let kd = kind(&nodes[k + 1]);
        if kd & (kinds::ARR | kinds::OBJ) != 0 {
            // Also for a redacted field: the members after it do not sit at `2 + 2j`.
            return Probe::Other;
        }
        if kd & f.masks[j] == 0 {
            return Probe::Invalid;
        }
    }
    Probe::Canonical
}

/// Pushes the primitive node `idx` of `doc` with its bytes copied.
fn push_owned(b: &mut DocBuilder<'_>, doc: &Doc<'_>, idx: usize) {
    match doc.nodes()[idx] {
        Node::Null => b.null(),
        Node::Bool(x) => b.bool(x),
        Node::Float(x) => b.float(x),
        Node::StrSrc(s) => b.str_heap(doc.src_bytes(s)),
        Node::StrHeap(s) => b.str_heap(doc.heap_bytes(s)),
        Node::IntSrc(s) => b.int_lexeme(doc.src_bytes(s)),
        Node::IntHeap(s) => b.int_lexeme(doc.heap_bytes(s)),
        // Kept cells are primitives (checked by `validate`).
        Node::Array { .. } | Node::Object { .. } => b.null(),
    }
}

/// The view as TOON table rows, with the censor's cell encoded once.
struct ToonRows<'a, 'd> {
    view: &'a RowView<'d>,
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
        let keys = &self.view.fast.keys;
        for (j, node) in self.view.shown_cells(row) {
            match node {
                Some(node) => item.node(w, &keys[j], self.view.doc, node),
                None => item.encoded(w, &keys[j], &self.censor),
            }
        }
    }
}
