//! Tables whose rows are not one tape array (the presenter's row view), and the row parts parallel tasks encode.

use super::*;

/// A run of consecutive table rows that one parallel task encodes (lines start with a LF).
pub(super) trait RowPart: Sync {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S);

    /// About how many bytes the part encodes to (0: unknown), reserved in its buffer before
    /// it is encoded: growing a buffer of a part's size by doubling copied it a dozen times.
    fn size_hint(&self) -> usize {
        0
    }
}

/// `n` rows of a tape array from `start`.
pub(super) struct TapeRows<'a, 'd> {
    pub(super) start: Elements<'d>,
    pub(super) n: usize,
    /// The tape index just past the last row, when known (the next part's start).
    pub(super) end: Option<usize>,
    pub(super) shape: &'a Shape<'a>,
    pub(super) depth: usize,
}

impl RowPart for TapeRows<'_, '_> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        enc.rows(w, self.start.clone().take(self.n), self.shape, self.depth);
    }

    /// The input bytes of the rows: a table drops the keys and most quotes, so its rows
    /// rarely take more.
    fn size_hint(&self) -> usize {
        let mut rows = self.start.clone().take(self.n);
        let Some(first) = rows.next() else {
            return 0;
        };
        let doc = first.doc();
        let end = match self.end {
            Some(end) => end,
            None => doc.next_sibling(rows.last().unwrap_or(first).index()),
        };
        doc.src_extent(first.index(), end)
    }
}

/// `n` items of a list-form tape array from `start`, at `depth`.
pub(super) struct ListItems<'d> {
    pub(super) start: Elements<'d>,
    pub(super) n: usize,
    pub(super) depth: usize,
}

impl RowPart for ListItems<'_> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        let mut heads = ItemHeads::default();
        for v in self.start.clone().take(self.n) {
            enc.list_item(w, v, self.depth, &mut heads);
        }
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
    pub(super) enc: &'e mut Enc<'o>,
    pub(super) first: bool,
}

impl Item<'_, '_> {
    /// Starts the line of a member `key`.
    #[inline]
    pub(super) fn key<W: Sink + ?Sized>(&mut self, w: &mut W, key: &[u8]) {
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
    pub(super) fn finish<W: Sink + ?Sized>(&mut self, w: &mut W) {
        if self.first {
            self.enc.line(w, 1);
            w.write_byte(b'-');
        }
    }
}

/// What [`TableRows::write_cells`] writes a row with: the delimiter between cells, and the
/// encoder's own cell functions (quoting and escaping as for tape rows).
pub(crate) struct Cells<'e> {
    pub(super) enc: &'e Enc<'e>,
    pub(super) first: bool,
}

impl Cells<'_> {
    /// Writes the delimiter unless this is the row's first cell.
    #[inline]
    pub(super) fn sep<W: Sink + ?Sized>(&mut self, w: &mut W) {
        if !std::mem::replace(&mut self.first, false) {
            self.enc.delimiter(w);
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
pub(super) struct SourceRows<'a, T: TableRows> {
    pub(super) rows: &'a T,
    pub(super) start: T::Row,
    pub(super) n: usize,
    pub(super) list: bool,
}

impl<T: TableRows> RowPart for SourceRows<'_, T> {
    fn write<S: Sink + ?Sized>(&self, enc: &mut Enc<'_>, w: &mut S) {
        enc.source_rows(w, self.rows, self.start, self.n, self.list);
    }
}

/// The rows of `rows` after a header, sequential or in parallel chunks as [`encode`] cuts
/// them; `list`: as list items.
pub(super) fn source_body<T: TableRows, W: Sink + ?Sized>(
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
