//! Shapes: the form analysis of arrays and objects, and the parallel chunks of large tables.

use rayon::prelude::*;

use super::*;

/// One field of a tabular header, in a flat preorder list: a group is followed by its subfields.
#[derive(Clone, Copy, Debug)]
pub(super) struct Field<'d> {
    pub(super) key: &'d [u8],
    /// Entries in this field's subtree, itself included: 1 for a leaf column.
    pub(super) span: u32,
}

/// The uniform shape of a set of objects (rows of a tabular array, entries of a keyed object).
#[derive(Debug, Default)]
pub(super) struct Shape<'d> {
    pub(super) fields: Vec<Field<'d>>,
    /// Every row, at every level, lists its keys in the first row's order: cells can be read
    /// positionally instead of by key.
    pub(super) ordered: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Unknown,
    Leaf,
    Group,
}

/// Row chunks `(first row, row count)` of a large array, for the parallel paths.
pub(super) type Chunks<'d> = [(Elements<'d>, usize)];

/// A large array cut into chunks of rows (see [`parallel_table`]).
pub(super) struct Chunked<'d> {
    pub(super) parts: Vec<(Elements<'d>, usize)>,
    /// Tape index just past the array: where the last chunk's rows end.
    pub(super) end: usize,
    /// Set once the parallel row scan of [`analyze`] has hopped over every chunk's rows and
    /// landed exactly on the next chunk's start (the last on `end`): every start is then an
    /// element's.
    pub(super) verified: bool,
}

/// At most `left` elements of `it`, stopping before tape index `stop`: a row scan from a
/// guessed start never reads past the next chunk's guessed start.
pub(super) struct Bounded<'d> {
    pub(super) it: Elements<'d>,
    pub(super) left: usize,
    pub(super) stop: usize,
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
/// confirms the chunk starts on the way ([`Chunked::verified`]). `siblings`: the rows are
/// consecutive values of one container (see [`scan_rows`]).
pub(super) fn analyze<'d, I>(
    rows: I,
    siblings: bool,
    chunks: Option<&mut Chunked<'d>>,
    shape: &mut Shape<'d>,
) -> bool
where
    I: Iterator<Item = Value<'d>> + Clone,
{
    let Some(Level {
        doc,
        keys,
        mut kinds,
    }) = first_keys(rows.clone())
    else {
        return false;
    };
    let uniform = match chunks {
        None => scan_rows(
            doc,
            rows.clone(),
            siblings,
            &keys,
            &mut kinds,
            &mut shape.ordered,
            |_, _, _| {},
        ),
        Some(chunked) => {
            let (parts, end) = (&chunked.parts, chunked.end);
            let bounded = (0..parts.len())
                .map(|c| Bounded {
                    it: parts[c].0.clone(),
                    left: parts[c].1,
                    stop: parts.get(c + 1).map_or(end, |(next, _)| next.position()),
                })
                .collect();
            let scanned = scan_parts(
                doc,
                bounded,
                siblings,
                &keys,
                &mut kinds,
                &mut shape.ordered,
            );
            if scanned.is_some() {
                // Chunk 0 starts at the first element; each chunk's hops over its rows landed on
                // the next start: by induction every start is an element's.
                chunked.verified = true;
            }
            scanned == Some(true)
        }
    };
    uniform && analyze_groups(doc, rows, siblings, &keys, &kinds, shape)
}

/// One level of a shape being analysed: its document, the first row's keys and the column
/// kinds found so far.
struct Level<'d> {
    doc: &'d Doc<'d>,
    keys: Vec<&'d [u8]>,
    kinds: Vec<Kind>,
}

/// The level whose keys are those of the first of `rows`, when it is a non-empty object.
fn first_keys<'d>(mut rows: impl Iterator<Item = Value<'d>>) -> Option<Level<'d>> {
    let first = rows.next()?.as_object()?;
    if first.is_empty() {
        return None;
    }
    let keys: Vec<&'d [u8]> = first.iter().map(|(key, _)| key.as_bytes()).collect();
    let kinds = vec![Kind::Unknown; keys.len()];
    Some(Level {
        doc: first.as_value().doc(),
        keys,
        kinds,
    })
}

/// A column of at least this many objects is scanned in parallel.
pub(super) const PARALLEL_COLUMN: usize = 32 << 10;

/// The values at the tape indices of a column (4 bytes a row where a `Value` takes 16: a
/// million rows' nested group is 4 MB while it is analysed).
#[derive(Clone)]
struct Column<'a, 'd> {
    doc: &'d Doc<'d>,
    at: std::slice::Iter<'a, u32>,
}

impl<'d> Iterator for Column<'_, 'd> {
    type Item = Value<'d>;

    #[inline]
    fn next(&mut self) -> Option<Value<'d>> {
        self.at.next().map(|&i| self.doc.value_at(i as usize))
    }
}

/// Analyses the objects of one column (a nested group of every row, by tape index) as
/// [`analyze`] does, the row scan in parallel parts when the column is long.
fn analyze_column<'d>(
    doc: &'d Doc<'d>,
    column: &[u32],
    siblings: bool,
    shape: &mut Shape<'d>,
) -> bool {
    let all = Column {
        doc,
        at: column.iter(),
    };
    if column.len() < PARALLEL_COLUMN {
        return analyze(all, siblings, None, shape);
    }
    let Some(Level {
        doc,
        keys,
        mut kinds,
    }) = first_keys(all.clone())
    else {
        return false;
    };
    let parts = column
        .chunks(
            column
                .len()
                .div_ceil(rayon::current_num_threads().max(1) * 4),
        )
        .map(|part| Column {
            doc,
            at: part.iter(),
        })
        .collect();
    let scanned = scan_parts(doc, parts, siblings, &keys, &mut kinds, &mut shape.ordered);
    scanned == Some(true) && analyze_groups(doc, all, siblings, &keys, &kinds, shape)
}

/// Appends the fields of a uniform level (`keys`, of the column `kinds` its scan found) to
/// `shape.fields`, each nested group followed by its own fields: false when a group is not
/// uniform.
fn analyze_groups<'d, I>(
    doc: &'d Doc<'d>,
    rows: I,
    siblings: bool,
    keys: &[&'d [u8]],
    kinds: &[Kind],
    shape: &mut Shape<'d>,
) -> bool
where
    I: Iterator<Item = Value<'d>> + Clone,
{
    // The objects of a column are each other's neighbours at their depth (the object closed
    // last before row i's is row i-1's) when the rows are and the column is the only one
    // holding objects: tables hold no arrays, so a row's other members close no object there.
    let one_group = kinds.iter().filter(|&&k| k == Kind::Group).count() == 1;
    let ordered = shape.ordered;
    for (j, &key) in keys.iter().enumerate() {
        let at = shape.fields.len();
        shape.fields.push(Field { key, span: 1 });
        if kinds[j] == Kind::Group {
            let column: Vec<u32> = if ordered {
                // Every row (an object, checked by the scan) lists its keys in `keys`' order:
                // the j-th member is `key`, read straight off the tape.
                rows.clone()
                    .map(|row| {
                        let mut i = row.index() + 1;
                        for _ in 0..j {
                            i = doc.next_sibling(i + 1);
                        }
                        (i + 1) as u32
                    })
                    .collect()
            } else {
                rows.clone()
                    .filter_map(|row| row.as_object().and_then(|o| member(o, j, key)))
                    .map(|v| v.index() as u32)
                    .collect()
            };
            if !analyze_column(doc, &column, siblings && one_group, shape) {
                return false;
            }
            shape.fields[at].span = (shape.fields.len() - at) as u32;
        }
    }
    true
}

/// Rows scanned by one task of [`scan_parts`].
pub(super) trait Part<'d>: Iterator<Item = Value<'d>> + Send {
    /// After the scan: every row of the part was read (and, for a guessed chunk, it ended
    /// exactly where the next one starts).
    fn complete(&self) -> bool;

    /// Passes over the rows from here on that [`scan_rows`] would pass over unread after a
    /// row found with the keys in order while every column is a leaf: objects of `k`
    /// members marked `same_keys` and `flat`, straight off the tape (none by default).
    #[inline]
    fn skip_same_flat(&mut self, _nodes: crate::doc::Nodes<'_>, _k: usize) {}
}

impl<'d> Part<'d> for Bounded<'d> {
    fn complete(&self) -> bool {
        self.left == 0 && self.it.position() == self.stop
    }

    #[inline]
    fn skip_same_flat(&mut self, nodes: crate::doc::Nodes<'_>, k: usize) {
        let (mut at, mut left) = (self.it.position(), self.left.min(self.it.len()));
        let all = left;
        while left > 0 && at < self.stop {
            let Some(end) = nodes.same_flat_end(at, k) else {
                break;
            };
            at = end;
            left -= 1;
        }
        let skipped = all - left;
        self.left -= skipped;
        self.it = self.it.resume(at, self.it.len() - skipped);
    }
}

impl<'d> Part<'d> for Column<'_, 'd> {
    fn complete(&self) -> bool {
        self.at.len() == 0
    }
}

/// [`scan_rows`] over `parts` in parallel, their column kinds merged into `kinds` and their
/// order into `ordered`. `None` when a part is not uniform or not complete, else whether the
/// parts agree on the kinds.
fn scan_parts<'d, P: Part<'d>>(
    doc: &'d Doc<'d>,
    parts: Vec<P>,
    siblings: bool,
    keys: &[&'d [u8]],
    kinds: &mut [Kind],
    ordered: &mut bool,
) -> Option<bool> {
    let scanned: Option<Vec<(Vec<Kind>, bool)>> = parts
        .into_par_iter()
        .map(|mut rows| {
            let mut kinds = vec![Kind::Unknown; keys.len()];
            let mut ordered = true;
            let skip = |rows: &mut &mut P, nodes: crate::doc::Nodes<'_>, k: usize| {
                rows.skip_same_flat(nodes, k)
            };
            let uniform = scan_rows(
                doc,
                &mut rows,
                siblings,
                keys,
                &mut kinds,
                &mut ordered,
                skip,
            );
            (uniform && rows.complete()).then_some((kinds, ordered))
        })
        .collect();
    Some(scanned?.into_iter().all(|(part, part_ordered)| {
        *ordered &= part_ordered;
        kinds.iter_mut().zip(part).all(|(a, b)| {
            if *a == Kind::Unknown {
                *a = b;
            }
            b == Kind::Unknown || *a == b
        })
    }))
}

/// Checks that every row is an object with exactly the key set `keys` and that each column
/// holds only primitives or only non-empty objects, recording the column kinds. Clears
/// `ordered` when some row lists its keys in another order.
///
/// With `siblings` (the rows are consecutive values of one array or object), a row whose
/// node says it has its predecessor's keys ([`Node::Object`]'s `same_keys`: the object closed
/// last at its depth, which for a sibling is the row before it) after a row found with
/// `keys` in order has them too: its keys are not compared, only its values' kinds read.
///
/// `skip` may pass over rows that the loop would pass over unread ([`Part::skip_same_flat`]);
/// it is called after such a row.
pub(super) fn scan_rows<'d, I>(
    doc: &'d Doc<'d>,
    mut rows: I,
    siblings: bool,
    keys: &[&'d [u8]],
    kinds: &mut [Kind],
    ordered: &mut bool,
    skip: impl Fn(&mut I, crate::doc::Nodes<'_>, usize),
) -> bool
where
    I: Iterator<Item = Value<'d>>,
{
    let k = keys.len();
    let nodes = doc.nodes();
    let mut prev_in_order = false;
    // Every column's kind is known to be a leaf: a known row whose values are all scalars
    // (`flat`) then needs no look at them.
    let mut leaves = kinds.iter().all(|&c| c == Kind::Leaf);
    // Every column's kind is known: a known row's values need only be checked against them.
    let mut settled = !kinds.contains(&Kind::Unknown);
    while let Some(row) = rows.next() {
        let ri = row.index();
        let known = match nodes.at(ri) {
            Node::Object {
                len,
                same_keys,
                flat,
                ..
            } if len as usize == k => {
                let known = siblings && same_keys && prev_in_order;
                if known && flat && leaves {
                    skip(&mut rows, nodes, k);
                    continue;
                }
                known
            }
            _ => return false,
        };
        if known && settled {
            // What the loop below does for such a row, without its key and order checks
            // and its bookkeeping: each value must be of its column's kind.
            let mut i = ri + 1;
            for &want in kinds.iter() {
                match member_kind(nodes, i + 1) {
                    Some((kind, next)) if kind == want => i = next,
                    _ => return false,
                }
            }
            continue;
        }
        let mut in_order = true;
        let mut i = ri + 1;
        for j in 0..k {
            let col = if known || key_eq(keys[j], doc.key_at(i)) {
                j
            } else {
                in_order = false;
                *ordered = false;
                let key = doc.key_at(i);
                match keys.iter().position(|&x| x == key) {
                    Some(c) => c,
                    None => return false,
                }
            };
            let Some((kind, next)) = member_kind(nodes, i + 1) else {
                return false;
            };
            i = next;
            if kinds[col] == Kind::Unknown {
                kinds[col] = kind;
                leaves = kinds.iter().all(|&c| c == Kind::Leaf);
                settled = !kinds.contains(&Kind::Unknown);
            } else if kinds[col] != kind {
                return false;
            }
        }
        prev_in_order = in_order;
    }
    true
}

/// The column kind of the member value at tape index `v` and the index after it; `None`
/// for what no table column holds (an array, an empty object).
#[inline(always)]
fn member_kind(nodes: crate::doc::Nodes<'_>, v: usize) -> Option<(Kind, usize)> {
    match nodes.at(v) {
        Node::Array { .. } | Node::Object { len: 0, .. } => None,
        Node::Object { end, .. } => Some((Kind::Group, end as usize)),
        _ => Some((Kind::Leaf, v + 1)),
    }
}

/// The value of `key`, expected at position `j`.
#[inline]
pub(super) fn member<'d>(o: Object<'d>, j: usize, key: &[u8]) -> Option<Value<'d>> {
    match o.iter().nth(j) {
        Some((k, v)) if k.as_bytes() == key => Some(v),
        _ => o.get(key),
    }
}

/// The tabular shape of an array, if it has one (row scan in parallel with `chunks`).
pub(super) fn tabular_shape<'d>(
    arr: Array<'d>,
    chunks: Option<&mut Chunked<'d>>,
) -> Option<Shape<'d>> {
    // Cheap rejection before any allocation.
    let first = arr.iter().next()?.as_object()?;
    if first.is_empty() {
        return None;
    }
    if chunks.is_none() {
        if let Some(shape) = marked_leaf_table(arr, first) {
            return Some(shape);
        }
    }
    let mut shape = Shape {
        fields: Vec::new(),
        ordered: true,
    };
    analyze(arr.iter(), true, chunks, &mut shape).then_some(shape)
}

/// The shape of `arr` when the tape already says it is a table of leaves: the first row
/// (`first`) holds only strings, numbers and literals, and every row after it is marked as
/// repeating its predecessor's keys with only such values (`same_keys` and `flat`, the
/// parser's marks of a row walked through its layout). The header is the first row's keys,
/// read off the tape; no other key is compared and no column kind collected, which is what
/// [`analyze`] would conclude from the same rows. `None`: not shown by the marks (analyse).
///
/// The nested arrays of a collection (each row's `lines`) are small tables met once a row:
/// there the analysis's vectors and its key comparisons were most of the cost.
pub(super) fn marked_leaf_table<'d>(arr: Array<'d>, first: Object<'d>) -> Option<Shape<'d>> {
    let k = first.len();
    let mut fields = Vec::with_capacity(k);
    let marked = marked_leaf_rows(arr, first.as_value().index(), k, |_, key| {
        fields.push(Field { key, span: 1 });
        true
    });
    marked.then_some(Shape {
        fields,
        ordered: true,
    })
}

/// Whether the tape shows `arr` a table of `k` leaves a row as [`marked_leaf_table`] says,
/// its first row's object at tape index `first`: `key` is called with each column's place and
/// the first row's key there, and a key it refuses ends the check (false).
pub(super) fn marked_leaf_rows<'d>(
    arr: Array<'d>,
    first: usize,
    k: usize,
    mut key: impl FnMut(usize, &'d [u8]) -> bool,
) -> bool {
    let doc = arr.as_value().doc();
    let nodes = doc.nodes();
    let Node::Array { end, .. } = nodes.at(arr.as_value().index()) else {
        return false;
    };
    let mut i = first + 1;
    for f in 0..k {
        if matches!(nodes.at(i + 1), Node::Array { .. } | Node::Object { .. })
            || !key(f, doc.key_at(i))
        {
            return false;
        }
        i += 2;
    }
    for _ in 1..arr.len() {
        match nodes.same_flat_end(i, k) {
            Some(next) => i = next,
            None => return false,
        }
    }
    i == end as usize
}

/// The shape of a root table as its document keeps it (`Doc::keep`); `None` when the root
/// array is not a table.
pub(super) struct RootTable(pub(super) Option<OwnedShape>);

/// A tabular header that outlives the document it was found in (a window of the windowed
/// reading, a document that keeps its root table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OwnedShape {
    pub(super) fields: Vec<(Box<[u8]>, u32)>,
    pub(super) ordered: bool,
}

impl OwnedShape {
    pub(super) fn of(shape: &Shape<'_>) -> OwnedShape {
        OwnedShape {
            fields: shape
                .fields
                .iter()
                .map(|f| (Box::from(f.key), f.span))
                .collect(),
            ordered: shape.ordered,
        }
    }

    pub(super) fn shape(&self) -> Shape<'_> {
        Shape {
            fields: self
                .fields
                .iter()
                .map(|(key, span)| Field { key, span: *span })
                .collect(),
            ordered: self.ordered,
        }
    }

    pub(super) fn same_fields(&self, shape: &Shape<'_>) -> bool {
        self.fields.len() == shape.fields.len()
            && self
                .fields
                .iter()
                .zip(&shape.fields)
                .all(|((key, span), f)| **key == *f.key && *span == f.span)
    }
}

/// The tabular shape of `arr`, with its row chunks for the parallel encoder when `parallel`
/// gives the threshold; `None` when `arr` is not a table.
///
/// The shape of a root array that [`keep_root_table`] kept with its document is not analysed
/// again (a server encodes the same collection call after call, and each encoding writes its
/// header at once). The chunks are then computed from the rows' span, which is exact for a
/// table (every row spans the nodes its shape implies: one per leaf, a group's per group);
/// a table whose nodes do not divide evenly (never) is encoded on one thread.
pub(super) fn table<'d>(arr: Array<'d>, parallel: Option<usize>) -> Option<Table<'d>> {
    let doc = arr.as_value().doc();
    let Some(RootTable(kept)) = doc
        .kept::<RootTable>()
        .filter(|_| arr.as_value().index() == 0)
    else {
        return analyse_table(arr, parallel);
    };
    let shape = kept.as_ref()?.shape();
    let chunks = parallel.and_then(|threshold| guessed_chunks(arr, chunk_rows(threshold)));
    Some((shape, chunks))
}

/// [`table`] without the kept shape: the analysis.
fn analyse_table<'d>(arr: Array<'d>, parallel: Option<usize>) -> Option<Table<'d>> {
    match parallel {
        Some(threshold) => {
            parallel_table(arr, threshold).map(|(shape, chunks)| (shape, Some(chunks)))
        }
        None => tabular_shape(arr, None).map(|shape| (shape, None)),
    }
}

/// Analyses the root array `arr` (in parallel with `parallel`'s threshold) and keeps its shape
/// with its document for [`table`].
pub(super) fn keep_root_table(arr: Array<'_>, parallel: Option<usize>) {
    debug_assert_eq!(arr.as_value().index(), 0);
    arr.as_value()
        .doc()
        .keep(|| RootTable(analyse_table(arr, parallel).map(|(shape, _)| OwnedShape::of(&shape))));
}

/// A table's shape and, for the parallel encoder, its row chunks.
pub(super) type Table<'d> = (Shape<'d>, Option<Vec<(Elements<'d>, usize)>>);

/// Rows per chunk of a parallel table encoded with `threshold`.
fn chunk_rows(threshold: usize) -> usize {
    (threshold / 2).clamp(1, 4096)
}

/// Appends the encoded chunks `bufs` to `w` in order (already escaped when `escaped`). Into
/// one growing buffer ([`Sink::contiguous`]) the copy is parallel too: one reserve for the
/// whole batch, cut into one disjoint piece per chunk, each filled by a rayon task (the
/// output's page faults are spread the same way). A streaming sink gets the chunks one by one,
/// so its buffers stay small.
pub(super) fn stitch<W: Sink + ?Sized>(w: &mut W, bufs: &[Vec<u8>], escaped: bool) {
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
pub(super) const STITCH_PARALLEL_MIN: usize = 256 << 10;

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
pub(super) fn parallel_table<'d>(
    arr: Array<'d>,
    threshold: usize,
) -> Option<(Shape<'d>, Vec<(Elements<'d>, usize)>)> {
    let mut chunked = Chunked {
        parts: guessed_chunks(arr, chunk_rows(threshold))?,
        end: arr.tape_end(),
        verified: false,
    };
    let shape = tabular_shape(arr, Some(&mut chunked))?;
    chunked.verified.then_some((shape, chunked.parts))
}

/// Chunks of `chunk` rows whose starts are guessed from a uniform row span (unconfirmed);
/// `None` when the array's nodes do not divide evenly among its rows.
pub(super) fn guessed_chunks(arr: Array<'_>, chunk: usize) -> Option<Vec<(Elements<'_>, usize)>> {
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
pub(super) fn keyed_shape<'d>(obj: Object<'d>) -> Option<Shape<'d>> {
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
    analyze(obj.iter().map(|(_, v)| v), true, None, &mut shape).then_some(shape)
}
