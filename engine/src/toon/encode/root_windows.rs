//! A root array's TOON, a window at a time (for JSON text read window by window, which never
//! holds the whole tape: `toon::encode_json` and the wire's `Data::Json`): [`RootAnalysis`]
//! decides the array's form over every window, then [`write_root_header`] and
//! [`write_root_window`] (or [`write_kept_windows`], kept windows in one parallel run)
//! write exactly what [`encode`](super::encode) writes for the whole array.
//!
//! The form is the encoder's: `[]` when empty, inline when every element is a primitive,
//! tabular when every row has the first row's shape, the list form otherwise. A window after
//! the first is analysed with the array's first row repeated in front of it, so the encoder's
//! own shape analysis compares its rows with the first row: the shape must come out the same
//! (same fields, same nesting), and `ordered` only stays set when every row of every window
//! lists its keys in the first row's order. A later part of the array analysed on another
//! thread ([`RootAnalysis::continuing`]) repeats the first row in every window, and
//! [`RootAnalysis::then`] joins it to the part before.

use super::{
    Enc, EncodeOptions, ItemHeads, Lead, OwnedShape, RowPart, Shape, Sink, parallel_table,
    tabular_shape,
};
use crate::doc::{Array, Elements};
use crate::json::WindowRun;

/// The TOON form of a root array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RootForm {
    /// `[]`.
    Empty,
    /// `[N]: a,b,c`.
    Inline,
    /// `[N]{fields}:` and one line per row.
    Table(OwnedShape),
    /// `[N]:` and one `- ` item per element.
    List,
}

/// The form of a root array, found window by window (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct RootAnalysis {
    rows: usize,
    primitive: bool,
    /// The first row's shape while every row so far has it.
    table: Option<OwnedShape>,
    windows: usize,
    /// Every window repeats the array's first row (the analysis of a later part of the array).
    continuing: bool,
}

impl RootAnalysis {
    /// The analysis of an array from its first window on.
    pub(crate) fn new() -> RootAnalysis {
        RootAnalysis {
            rows: 0,
            primitive: true,
            table: None,
            windows: 0,
            continuing: false,
        }
    }

    /// The analysis of a later part of the array, read in parallel with the part before it:
    /// each of its windows has the array's first row in front ([`Self::then`] joins them).
    pub(crate) fn continuing() -> RootAnalysis {
        RootAnalysis {
            continuing: true,
            ..RootAnalysis::new()
        }
    }

    /// Takes the next window's rows into account: the array's first window as it is, every
    /// later one with the array's first row in front of it.
    pub(crate) fn add(&mut self, window: Array<'_>, opts: &EncodeOptions) {
        let first_window = self.windows == 0;
        let repeated = self.continuing || !first_window;
        self.windows += 1;
        self.rows += window.len().saturating_sub(usize::from(repeated));
        if self.primitive {
            self.primitive = window.iter().all(|v| v.is_primitive());
        }
        if self.primitive || (!first_window && self.table.is_none()) {
            return;
        }
        let shape = if parallel(window, opts) {
            parallel_table(window, opts.parallel_threshold).map(|(shape, _)| shape)
        } else {
            tabular_shape(window, None)
        };
        self.table = match (shape, self.table.take()) {
            (Some(shape), None) => Some(OwnedShape::of(&shape)),
            (Some(shape), Some(mut table)) if table.same_fields(&shape) => {
                table.ordered &= shape.ordered;
                Some(table)
            }
            _ => None,
        };
    }

    /// The analysis of this part followed by `later`, a [`Self::continuing`] analysis of the
    /// rest of the array.
    pub(crate) fn then(self, later: RootAnalysis) -> RootAnalysis {
        if later.windows == 0 {
            return self;
        }
        let table = match (self.table, later.table) {
            (Some(mut table), Some(rest)) if table.fields == rest.fields => {
                table.ordered &= rest.ordered;
                Some(table)
            }
            _ => None,
        };
        RootAnalysis {
            rows: self.rows + later.rows,
            primitive: self.primitive && later.primitive,
            table,
            windows: self.windows + later.windows,
            continuing: self.continuing,
        }
    }

    /// The array's form once every window was added.
    pub(crate) fn form(self) -> RootForm {
        if self.rows == 0 {
            RootForm::Empty
        } else if self.primitive {
            RootForm::Inline
        } else if let Some(table) = self.table {
            RootForm::Table(table)
        } else {
            RootForm::List
        }
    }
}

/// True when the encoder would cut `window`'s rows into parallel chunks.
fn parallel(window: Array<'_>, opts: &EncodeOptions) -> bool {
    opts.parallel && window.len() >= opts.parallel_threshold && rayon::current_num_threads() > 1
}

/// The header of a root array of `rows` elements in `form` (the whole text when empty).
pub(crate) fn write_root_header<W: Sink + ?Sized>(
    form: &RootForm,
    rows: usize,
    opts: &EncodeOptions,
    out: &mut W,
) {
    let mut enc = Enc::new(opts, false);
    enc.lead(out, Lead::Plain(0));
    if *form == RootForm::Empty {
        out.write(b"[]");
        return;
    }
    enc.bracket(out, rows, false);
    if let RootForm::Table(table) = form {
        enc.fields(out, &table.shape().fields);
    }
    out.write_byte(b':');
}

/// The elements of one window of a root array in `form` but its first `skip` (a repeat of the
/// array's first row), after the header and the windows before it; `written`: how many
/// elements those windows held.
pub(crate) fn write_root_window<W: Sink + ?Sized>(
    form: &RootForm,
    window: Array<'_>,
    skip: usize,
    written: usize,
    opts: &EncodeOptions,
    out: &mut W,
) {
    let mut enc = Enc::new(opts, true);
    match form {
        RootForm::Empty => {}
        RootForm::Inline => {
            for (i, v) in window.iter().skip(skip).enumerate() {
                out.write_byte(if written + i == 0 { b' ' } else { enc.delim });
                enc.primitive(out, v);
            }
        }
        RootForm::Table(table) => {
            let shape = table.shape();
            let chunks = parallel(window, opts)
                .then(|| parallel_table(window, opts.parallel_threshold))
                .flatten();
            match chunks {
                Some((_, mut chunks)) => {
                    // The skipped rows are the first chunk's first.
                    if let Some((rows, n)) = chunks.first_mut() {
                        for _ in 0..skip.min(*n) {
                            rows.next();
                        }
                        *n -= skip.min(*n);
                    }
                    enc.rows_parallel(out, &chunks, &shape, 1);
                }
                None => enc.rows(out, window.iter().skip(skip), &shape, 1),
            }
        }
        RootForm::List => {
            let mut items = window.iter();
            for _ in 0..skip {
                items.next();
            }
            enc.list_items(out, items, 1);
        }
    }
}

/// Input bytes of a part of a kept window ([`write_kept_windows`]): a quarter of a default
/// window, so that the parts in flight (four per pool thread) hold a few MiB of output at
/// most, even for rows whose TOON is as long as their JSON.
const KEPT_PART_BYTES: usize = 256 << 10;

/// `n` elements of a kept window from `rows` after `hops` of them, as table rows (`shape`)
/// or list items at depth 1: the worker that encodes the part hops to its first element, so
/// the writing thread walks nothing.
struct WindowPart<'a, 'd> {
    rows: Elements<'d>,
    hops: usize,
    n: usize,
    shape: Option<&'a Shape<'a>>,
}

impl RowPart for WindowPart<'_, '_> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        let mut rows = self.rows.clone();
        for _ in 0..self.hops {
            rows.next();
        }
        let rows = rows.take(self.n);
        match self.shape {
            Some(shape) => enc.rows(w, rows, shape, 1),
            None => {
                let mut heads = ItemHeads::default();
                for v in rows {
                    enc.list_item(w, v, 1, &mut heads);
                }
            }
        }
    }
}

/// The elements of windows of a root array in `form` that follow one another, after the
/// header and the windows before them: all of them when the first reading kept them all, or a
/// run of kept ones between rows parsed again (`windows`: each window's array, how many of its
/// first elements repeat an earlier row, and its input bytes): the rows cut into one run of
/// parts of about [`KEPT_PART_BYTES`] of input, encoded by the pool as one stream
/// ([`Enc::parts_parallel`]), so both threads stay busy across window boundaries. Window by
/// window ([`write_root_window`]), each window's shape is checked again on the writing thread
/// and its few parts end in a join: on two threads that second reading of 100k kept rows
/// took 7.6–13 ms against 4.7 ms for the same rows of one document (docs/DECISIONS.md,
/// "Read once in parallel"). False, with nothing written, when the rows are too few to run
/// in parallel or the form is not a table or a list; the caller then goes window by window.
pub(crate) fn write_kept_windows<W: Sink + ?Sized>(
    form: &RootForm,
    windows: WindowRun<'_, '_>,
    opts: &EncodeOptions,
    out: &mut W,
) -> bool {
    let rows: usize = windows.iter().map(|(arr, skip, _)| arr.len() - skip).sum();
    if !(opts.parallel && rows >= opts.parallel_threshold && rayon::current_num_threads() > 1) {
        return false;
    }
    let owned;
    let shape = match form {
        RootForm::Table(table) => {
            owned = table.shape();
            Some(&owned)
        }
        RootForm::List => None,
        RootForm::Empty | RootForm::Inline => return false,
    };
    let mut parts = Vec::new();
    for (arr, skip, bytes) in windows {
        let all = arr.iter();
        let n = arr.len() - skip;
        let per = n.div_ceil(bytes.div_ceil(KEPT_PART_BYTES).max(1)).max(1);
        // A table's rows all span the same nodes (the same keys, one node per key and per
        // primitive cell, the same nested groups), so a part's first row is found by
        // arithmetic; a list's items differ, and the part's worker hops to its first.
        let span = shape.and(arr.even_span());
        parts.extend((0..n).step_by(per).map(|from| {
            let first = skip + from;
            let (rows, hops) = match span {
                Some(span) => {
                    let rows = all.resume(all.position() + first * span, arr.len() - first);
                    debug_assert!(
                        rows.clone().next().and_then(|v| v.as_object()).is_some(),
                        "a table part starts on a row"
                    );
                    (rows, 0)
                }
                None => (all.clone(), first),
            };
            WindowPart {
                rows,
                hops,
                n: per.min(n - from),
                shape,
            }
        }));
    }
    Enc::new(opts, true).parts_parallel(out, &parts);
    true
}
