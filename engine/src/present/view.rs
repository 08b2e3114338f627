//! The data block of a presentation that copies no row: a *view* of the input array through
//! the compiled row plan ([`FastRow`]).
//!
//! When a presenter's plan has a flat fast path (an object schema whose `properties` are
//! all leaves, with or without an `enum`, or wholesale-redacted; no `additionalProperties`,
//! no embeds) and nothing after the data reads more than the first kept row (no collection
//! UI, collection rules or collection suggestion callbacks; item rules and suggestions get
//! the first row, materialised alone by [`RowBlock::first_row`]; or those stages read the
//! input array itself, when every row is kept, nothing is redacted and every row is
//! canonical), [`validate`] runs the checks of `Writer::fast_row` over the kept rows
//! without writing anything: type masks, `enum`s, `required`, the in-order key guess. It
//! also asks that every kept (non-redacted) cell is a primitive. Any row that fails sends
//! the whole presentation to the general writer, which produces today's derived document
//! and its exact `OUTPUT_VALIDATION_FAILED` messages.
//!
//! On success the view records, per row, where each declared field's value sits on the input
//! tape: nothing at all while every row is *canonical* (exactly the declared fields, in schema
//! order, all primitives: field `j` is at `row + 2 + 2j`), else a table of `u32` offsets from
//! the row (0: absent), `4 × fields` bytes per row. That is a [`RowBlock`], which the wire
//! writes straight from the input tape (`wire/rows.rs`): the declared members present in the
//! row, in schema order, redacted ones as the censor, nulls kept as the fast path keeps them;
//! under `_select`, the requested fields in request order.

use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::Plan;
use super::fast_row::FastRow;
use super::schema::{kind, kinds};
use crate::doc::{Array, Doc, Node, key_eq};
use crate::wire::RowBlock;

/// Validates the first `kept` rows of `arr` under `plan`'s flat fast path, writing
/// nothing. `None` when the plan has no flat fast path or some row needs the general
/// writer (a failed check, a kept cell that is a container).
/// `select`: the `_select` names (checked, distinct), or `None` for every field.
pub(crate) fn validate<'d>(
    plan: &Plan,
    arr: Array<'d>,
    kept: usize,
    select: Option<&[&str]>,
) -> Option<RowBlock<'d>> {
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
    Some(RowBlock {
        keys: f.keys.iter().cloned().collect(),
        redacted: f.redacted.iter().copied().collect(),
        censor: Arc::from(plan.cfg.censor.as_str()),
        doc,
        first,
        rows: kept,
        order,
        offsets,
        uniform,
        reserved_tag: doc.has_reserved_tag() || crate::tag::contains_reserved_tag(censor),
        lone_surrogate: doc.has_lone_surrogate() || crate::escape::has_lone_surrogate(censor),
        derived: OnceLock::new(),
    })
}

/// Rows from which [`validate`] scans in parallel chunks of [`CHUNK_ROWS`]
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
    // The previous row was canonical: a row marked with its keys (`same_keys`: the rows are
    // siblings, so its predecessor's) has the declared keys in order too.
    let mut prev_canonical = false;
    for r in 0..rows {
        // (`get`: a hand-made tape whose lengths lie ends the view, never in a panic.)
        let Some(Node::Object {
            len,
            end,
            same_keys,
            ..
        }) = nodes.get(ri)
        else {
            return None;
        };
        // The common row first: exactly the declared fields, in order, kept cells
        // primitive (nothing to record).
        let known = same_keys && prev_canonical;
        prev_canonical = false;
        if len as usize == n {
            match canonical_row(f, doc, ri, known) {
                Probe::Canonical => {
                    prev_canonical = true;
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
                let k = kind(&nodes.at(v));
                if k & f.masks[p] == 0
                    || (!f.redacted[p] && k & (kinds::ARR | kinds::OBJ) != 0)
                    || !in_enum(f, doc, p, v)
                {
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

/// The value at tape index `v` is one of field `j`'s `enum` values (true without an `enum`).
#[inline]
fn in_enum(f: &FastRow, doc: &Doc<'_>, j: usize, v: usize) -> bool {
    f.enums[j]
        .as_ref()
        .is_none_or(|e| e.iter().any(|x| x.matches(doc.value_at(v))))
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
/// canonical layout, with the same key comparison and type masks as the full pass; with
/// `known_keys` its keys are known to be the declared ones in order (only the values are
/// checked).
#[inline]
fn canonical_row(f: &FastRow, doc: &Doc<'_>, ri: usize, known_keys: bool) -> Probe {
    let nodes = doc.nodes();
    for j in 0..f.keys.len() {
        let k = ri + 1 + 2 * j;
        if !known_keys && !key_eq(&f.keys[j], doc.key_at(k)) {
            return Probe::Other;
        }
        let kd = kind(&nodes.at(k + 1));
        if kd & (kinds::ARR | kinds::OBJ) != 0 {
            // Also for a redacted field: the members after it do not sit at `2 + 2j`.
            return Probe::Other;
        }
        if kd & f.masks[j] == 0 || !in_enum(f, doc, j, k + 1) {
            return Probe::Invalid;
        }
    }
    Probe::Canonical
}
