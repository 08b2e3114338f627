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
/// confirms the chunk starts on the way ([`Chunked::verified`]).
pub(super) fn analyze<'d, I>(
    rows: I,
    chunks: Option<&mut Chunked<'d>>,
    shape: &mut Shape<'d>,
) -> bool
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
pub(super) fn scan_rows<'d, I>(
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
    analyze(obj.iter().map(|(_, v)| v), None, &mut shape).then_some(shape)
}
