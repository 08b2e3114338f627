//! JSON text of a table of JavaScript rows, written from its cells (`lib/rows.js`).
//!
//! `JSON.stringify` of 100k rows costs V8 about as much as the engine's whole pretty
//! response of them, and every path from JavaScript objects (`present`, `encode`, `make`)
//! began with it. The JS layer reads a table whose rows are objects of one shape (the same
//! keys in the same order, each holding strings, numbers, booleans and `null`, or objects and
//! arrays of one shape in their turn) into flat arrays instead (a property read per value,
//! strings joined into UTF-8 a chunk at a time), and
//! [`rows_json`] writes the bytes `JSON.stringify(rows)` gives (docs/DECISIONS.md, "Node
//! binding: rows read as cells"). When the engine would only lay those bytes out again —
//! `present(rows)` whose response the engine says is the pretty data block alone (no
//! presenter, no option that changes it: `plainPretty`) — [`rows_pretty`] writes that block
//! itself; when a presenter's call reads them (`make(rows)` of `toolwire/presenter`) or
//! `encode(rows)` encodes them (`codec::encode_cells`), [`rows_doc`] builds the engine's
//! document of them, which no text is written for or parsed from — for a large table on a
//! thread of its own while the cells are still being read ([`CellsStream`]), from copies of
//! them it owns.

use napi::bindgen_prelude::{Float64Array, Uint8Array, Uint32Array};
use napi_derive::napi;
use toolwire::doc::{HeapStr, KeysToken};
use toolwire::json::{ParseOptions, write_f64, write_json_string, write_json_string_body_plain};
use toolwire::{Doc, DocBuilder, Sink, ValueRef};

use crate::{JsText, Result, mark};

/// A cell's kind, one byte per value, in the order `JSON.stringify` meets them (a row's own
/// object has none). An array's length is its next number.
const NULL: u8 = 0;
const STRING: u8 = 1;
const NUMBER: u8 = 2;
const TRUE: u8 = 3;
const FALSE: u8 = 4;
const OBJECT: u8 = 5;
const ARRAY: u8 = 6;

/// Rows from this many are written in two halves on two threads.
const PARALLEL_ROWS: usize = 4096;
/// Objects and arrays nested deeper than this in a shape are refused (the writer recurses).
const MAX_DEPTH: usize = 32;

/// The cells of a table as `lib/rows.js` reads them: `shape`, the rows' shape, value by value
/// in preorder (0 a scalar, 1 an object followed by its key count, 2 an array followed by its
/// elements' shape; the first is the rows' object); `keys`, the objects' keys, each before
/// its value's keys, as `JSON.stringify` writes it; `kinds` one byte per value (0 null,
/// 1 string, 2 number, 3 true, 4 false, 5 an object, 6 an array), row after row, a row's own
/// object having none; `nums` the numbers and each array's length, in order; `text` the
/// strings' UTF-8 one after another, `lens` their lengths in UTF-16 units, `starts` where
/// each run of `chunk` of them starts in `text`; `ascii` when `text` is ASCII; `mid` the
/// kinds, numbers and strings before row `rows / 2`.
#[napi(object)]
pub struct TableCells {
    pub shape: Vec<u32>,
    pub keys: Vec<String>,
    pub rows: u32,
    pub kinds: Uint8Array,
    pub nums: Float64Array,
    pub text: Uint8Array,
    pub lens: Uint32Array,
    pub starts: Vec<f64>,
    pub chunk: u32,
    pub ascii: bool,
    pub mid: Vec<f64>,
}

/// Writes `JSON.stringify(rows)` of the rows the cells hold into `out`, and returns its
/// length; or, when `out` is too short, nothing and the length `out` must have. Cells that
/// do not fit together are an internal error, never a read out of bounds.
#[napi(catch_unwind)]
pub fn rows_json(mut out: Uint8Array, table: TableCells) -> Result<i64> {
    let json = Cells::of(&table)?.write(table.rows as usize, Layout::Compact)?;
    let len = json.len();
    // SAFETY: a synchronous call on the JS thread: no JavaScript runs until it returns, so
    // nothing else reads, writes, detaches or transfers the memory of `out` or of the cells
    // (which a pool thread read in `write`) meanwhile.
    let dst = unsafe { out.as_mut() };
    let Some(dst) = dst.get_mut(..len) else {
        return Ok(-(len as i64));
    };
    dst.copy_from_slice(&json);
    Ok(len as i64)
}

/// The pretty data block `present(rows)` gives when it is the whole response, written
/// from the cells: the bytes of the engine's response text (`JSON.stringify(rows, null, 2)`
/// with WIRE.md §2's tag rule), without first writing `JSON.stringify(rows)` for the engine
/// to read again. Keys must not hold `<`.
#[napi(catch_unwind, ts_return_type = "string")]
pub fn rows_pretty(table: TableCells) -> Result<JsText> {
    if table.keys.iter().any(|k| k.contains('<')) {
        return Err(bad("a key holds `<`"));
    }
    // The cells' memory, read on a pool thread in `write`, is safe as in `rows_json`: a
    // synchronous call on the JS thread.
    Ok(JsText(
        Cells::of(&table)?.write(table.rows as usize, Layout::Pretty)?,
    ))
}

/// The rows the cells hold as the engine's document: the values its parse of
/// `JSON.stringify(rows)` gives, without that text written and read again (a presenter's
/// call, `make(rows)`). Strings are spans of the cells' UTF-8 (which lives as long as the
/// document), each key is copied once and pushed again for every object, numbers are what
/// `JSON.stringify` writes read back (integers below 10^21 as their digits, -0 as 0,
/// non-finite ones as `null`). WIRE.md §2's tag flag is set from the strings and keys as the
/// parser sets it; the cells hold no lone surrogate (`lib/rows.js` refuses such tables).
pub(crate) fn rows_doc(table: &TableCells) -> Result<Doc<'_>> {
    Cells::of(table)?.doc(table.rows as usize)
}

/// A table's document built on a thread of its own while `lib/rows.js` is still reading its
/// cells (`make(rows)`), so that the JS thread's read and the document's build take their
/// time side by side instead of one after the other. The reader sends what it has read every
/// few chunks of strings ([`CellsStream::publish`]): a copy of the new cells, made on the JS
/// thread, so the builder reads only memory it owns (never the reader's arrays, which JS
/// code keeps writing, growing and may drop). The builder pushes the rows those cells
/// complete; [`CellsStream::finish`] sends the rest and takes the document — the same as
/// [`rows_doc`]'s, its strings in its heap rather than spans of the cells' text. Dropped
/// without `finish`, or stopped (a row that does not fit, an exception in a getter): the
/// builder stops at its next batch and its thread ends before that call returns.
#[napi]
pub struct CellsStream {
    tx: Option<std::sync::mpsc::Sender<Batch>>,
    built: Option<std::thread::JoinHandle<std::result::Result<Doc<'static>, String>>>,
    /// The kinds, numbers, strings and text bytes sent so far.
    sent: [usize; 4],
    /// The rows those complete.
    rows_sent: usize,
    /// The rows of the table.
    rows: usize,
}

/// Cells read since the last batch, and how many rows the cells sent so far complete.
struct Batch {
    rows: usize,
    kinds: Vec<u8>,
    nums: Vec<f64>,
    lens: Vec<u32>,
    text: Vec<u8>,
}

#[napi]
impl CellsStream {
    /// A stream of the cells of `rows` rows of the shape `shape` and `keys` describe (as
    /// [`TableCells`] holds them).
    #[napi(constructor)]
    pub fn new(shape: Vec<u32>, keys: Vec<String>, rows: u32) -> Result<Self> {
        let row = Shape::of_rows(&shape, &keys)?;
        let (tx, rx) = std::sync::mpsc::channel();
        let rows = rows as usize;
        let live = Live::take().ok_or_else(|| bad("every builder's thread is taken"))?;
        let built = std::thread::Builder::new()
            .name("toolwire-cells".into())
            .spawn(move || {
                let _live = live;
                build_streamed(&row, &keys, rows, &rx).map_err(|e| e.reason.clone())
            })
            .map_err(|e| bad(&format!("no thread to build the rows on: {e}")))?;
        Ok(CellsStream {
            tx: Some(tx),
            built: Some(built),
            sent: [0; 4],
            rows_sent: 0,
            rows,
        })
    }

    /// Sends the cells read since the last call: the reader's arrays (perhaps grown since)
    /// hold kinds up to `p`, numbers up to `q`, strings up to `s` and their text up to byte
    /// `at`, which complete the first `rows` rows.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn publish(
        &mut self,
        rows: u32,
        kinds: Uint8Array,
        nums: Float64Array,
        lens: Uint32Array,
        text: Uint8Array,
        p: u32,
        q: u32,
        s: u32,
        at: u32,
    ) -> Result<()> {
        self.send(
            rows as usize,
            &kinds,
            &nums,
            &lens,
            &text,
            [p, q, s, at].map(|x| x as usize),
        )
    }

    /// Stops the build and waits for its thread to end (at once when it waits for a batch,
    /// else after the one it builds).
    #[napi]
    pub fn abort(&mut self) {
        self.tx = None;
        if let Some(built) = self.built.take() {
            let _ = built.join();
        }
    }
}

impl Drop for CellsStream {
    fn drop(&mut self) {
        self.abort();
    }
}

impl CellsStream {
    /// [`CellsStream::publish`] of the first `ends` of the arrays, a copy of each part past
    /// what was sent before.
    fn send(
        &mut self,
        rows: usize,
        kinds: &[u8],
        nums: &[f64],
        lens: &[u32],
        text: &[u8],
        ends: [usize; 4],
    ) -> Result<()> {
        let Some(tx) = &self.tx else {
            return Err(bad("the stream has ended"));
        };
        let [p, q, s, at] = ends;
        let [p0, q0, s0, at0] = self.sent;
        if rows < self.rows_sent || rows > self.rows {
            return Err(bad("rows sent out of order"));
        }
        let (Some(kinds), Some(nums), Some(lens), Some(text)) = (
            kinds.get(p0..p),
            nums.get(q0..q),
            lens.get(s0..s),
            text.get(at0..at),
        ) else {
            return Err(bad("cells sent out of order"));
        };
        let batch = Batch {
            rows,
            kinds: kinds.to_vec(),
            nums: nums.to_vec(),
            lens: lens.to_vec(),
            text: text.to_vec(),
        };
        self.sent = ends;
        self.rows_sent = rows;
        // A builder that failed has gone: `finish` says why.
        let _ = tx.send(batch);
        Ok(())
    }

    /// The document of the table whose last cells `table` holds (the whole arrays, as
    /// [`rows_doc`] takes them): the rest sent, the build waited for.
    pub(crate) fn finish(&mut self, table: &TableCells) -> Result<Doc<'static>> {
        if table.rows as usize != self.rows {
            self.abort();
            return Err(bad("the stream is of another table"));
        }
        let ends = [
            table.kinds.len(),
            table.nums.len(),
            table.lens.len(),
            table.text.len(),
        ];
        if let Err(e) = self.send(
            self.rows,
            &table.kinds,
            &table.nums,
            &table.lens,
            &table.text,
            ends,
        ) {
            self.abort();
            return Err(e);
        }
        self.tx = None;
        let built = self
            .built
            .take()
            .ok_or_else(|| bad("the stream has ended"))?;
        match built.join() {
            Ok(Ok(doc)) => Ok(doc),
            // The builder's own error, as it made it (`bad`).
            Ok(Err(reason)) => Err(napi::Error::new(napi::Status::GenericFailure, reason)),
            Err(_) => Err(bad("the rows' builder failed")),
        }
    }
}

/// Builders' threads alive at most: a stream made past them is refused (`lib/rows.js` then
/// builds after the read), so streams left unfinished until they are collected cannot start
/// threads without a bound.
const STREAM_THREADS: usize = 8;

/// Builders' threads alive now.
static LIVE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One of the [`STREAM_THREADS`], given back when dropped.
struct Live;

impl Live {
    fn take() -> Option<Live> {
        use std::sync::atomic::Ordering;
        LIVE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < STREAM_THREADS).then_some(n + 1)
        })
        .ok()
        .map(|_| Live)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Nodes and heap bytes a streamed document reserves at most from its first rows' guess.
const STREAM_RESERVE: (usize, usize) = (1 << 24, 1 << 27);

/// [`CellsStream`]'s thread: each batch's complete rows pushed as they come.
fn build_streamed(
    row: &Shape,
    keys: &[String],
    rows: usize,
    rx: &std::sync::mpsc::Receiver<Batch>,
) -> Result<Doc<'static>> {
    let owner = 0u8;
    let mut st = DocState::new(b"", keys, 0, 0, std::ptr::from_ref(&owner) as usize)?;
    let (mut kinds, mut nums, mut lens, mut text) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut at, mut built, mut ascii) = (Place::START, 0, true);
    let m = st.b.begin_array();
    // Ends when the stream is finished or dropped.
    while let Ok(batch) = rx.recv() {
        ascii &= batch.text.is_ascii();
        st.lt |= batch.text.contains(&b'<');
        kinds.extend_from_slice(&batch.kinds);
        nums.extend_from_slice(&batch.nums);
        lens.extend_from_slice(&batch.lens);
        text.extend_from_slice(&batch.text);
        if batch.rows <= built {
            continue;
        }
        // Each row holds a value at least, which has a kind.
        if batch.rows - built > kinds.len() - at.kinds {
            return Err(bad("too few cells for the rows"));
        }
        if built == 0 {
            // Room for all rows as the first ones suggest (bounded: `rows` is the caller's).
            let scale = rows as f64 / batch.rows as f64 * 1.0625;
            let nodes = ((2 * kinds.len() + batch.rows) as f64 * scale) as usize;
            let heap = ((text.len() + nums.len() * 8) as f64 * scale) as usize;
            st.b.reserve(nodes.min(STREAM_RESERVE.0), heap.min(STREAM_RESERVE.1));
        }
        let cells = Cells::received(&kinds, &nums, &text, &lens, ascii);
        let mut t = DocTape {
            tape: Tape::new(&cells, at, Layout::Compact)?,
            st: &mut st,
            text: None,
        };
        t.rows(row, batch.rows - built)?;
        at = t.tape.at();
        built = batch.rows;
    }
    if built != rows {
        return Err(bad("rows are missing"));
    }
    let cells = Cells::received(&kinds, &nums, &text, &lens, ascii);
    if !Tape::new(&cells, at, Layout::Compact)?.done() {
        return Err(bad("cells are left over"));
    }
    st.b.end_array(m, rows);
    Ok(st.b.finish())
}

/// A value of the rows' shape, for [`Cells::doc`].
enum Shape {
    Scalar,
    Object {
        /// The object's keys' indices in [`TableCells::keys`], first to last (each key's
        /// value's keys come after it).
        keys: Vec<usize>,
        values: Vec<Shape>,
        /// Which object of the shape this is (its [`KeysToken`]).
        id: u64,
        /// True when every value is a scalar.
        scalars: bool,
    },
    Array(Box<Shape>),
}

impl Shape {
    /// The value at the head of `shape` at `depth`, its keys the next of `keys` (JSON texts)
    /// from `at`, which it moves past them; `objects` counts the objects read so far.
    fn read(
        shape: &mut std::slice::Iter<'_, u32>,
        keys: &[String],
        at: &mut usize,
        objects: &mut u64,
        depth: usize,
    ) -> Result<Shape> {
        if depth > MAX_DEPTH {
            return Err(bad("the shape is too deep"));
        }
        match shape.next() {
            Some(0) => Ok(Shape::Scalar),
            Some(1) => {
                let m = *shape
                    .next()
                    .ok_or_else(|| bad("an object has no key count"))?
                    as usize;
                // Each key is one of the keys left (a count past them is refused before
                // room is made for it).
                if m > keys.len() - *at {
                    return Err(bad("a key is missing"));
                }
                let id = *objects;
                *objects += 1;
                let mut own = Vec::with_capacity(m);
                let mut values = Vec::with_capacity(m);
                for _ in 0..m {
                    own.push(*at);
                    *at += 1;
                    values.push(Shape::read(shape, keys, at, objects, depth + 1)?);
                }
                Ok(Shape::Object {
                    keys: own,
                    scalars: values.iter().all(|v| matches!(v, Shape::Scalar)),
                    values,
                    id,
                })
            }
            Some(2) => Ok(Shape::Array(Box::new(Shape::read(
                shape,
                keys,
                at,
                objects,
                depth + 1,
            )?))),
            _ => Err(bad("a value of no shape")),
        }
    }

    /// The rows' shape: an object of one key or more, which reads all of `shape` and `keys`.
    fn of_rows(shape: &[u32], keys: &[String]) -> Result<Shape> {
        let (mut rest, mut at) = (shape.iter(), 0);
        let row = Shape::read(&mut rest, keys, &mut at, &mut 0, 1)?;
        if !matches!(&row, Shape::Object { keys: own, .. } if !own.is_empty())
            || rest.next().is_some()
            || at != keys.len()
        {
            return Err(bad("the rows are not objects of one shape"));
        }
        Ok(row)
    }
}

/// What a document of the cells is built into: the builder, and the keys each object pushes.
struct DocState<'s> {
    b: DocBuilder<'s>,
    /// True when some string holds `<`: each is then checked for a reserved tag.
    lt: bool,
    /// The keys, decoded (in the order of [`TableCells::keys`]), and where each went in the
    /// builder's heap once pushed.
    keys: Vec<Vec<u8>>,
    kept: Vec<Option<HeapStr>>,
    /// The minter of this document's [`KeysToken`]s (an address held while it is built).
    owner: usize,
}

impl<'s> DocState<'s> {
    /// A builder of room for `nodes` nodes and `heap` heap bytes over `src`, whose keys are
    /// the JSON texts `keys`, and whose tokens `owner` mints.
    fn new(
        src: &'s [u8],
        keys: &[String],
        nodes: usize,
        heap: usize,
        owner: usize,
    ) -> Result<Self> {
        let names = keys
            .iter()
            .map(|key| {
                let doc = toolwire::json::parse(key.as_bytes(), &ParseOptions::default())
                    .map_err(|_| bad("a key is not JSON"))?;
                match doc.root().get() {
                    ValueRef::String(name) => Ok(name.as_bytes().to_vec()),
                    _ => Err(bad("a key is not a string")),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        // The keys once, besides what the caller counts.
        let heap = heap + names.iter().map(Vec::len).sum::<usize>();
        Ok(DocState {
            b: DocBuilder::with_capacity(src, nodes, heap),
            lt: false,
            kept: vec![None; names.len()],
            keys: names,
            owner,
        })
    }
}

/// The cells read in order into a [`DocState`].
struct DocTape<'a, 't, 's> {
    tape: Tape<'a>,
    st: &'t mut DocState<'s>,
    /// Where the strings' bytes are when they are the document's source; `None`: they are
    /// copied into its heap.
    text: Option<&'a [u8]>,
}

impl DocTape<'_, '_, '_> {
    /// A scalar of kind `kind`.
    #[inline(always)]
    fn scalar(&mut self, kind: u8) -> Result<()> {
        match kind {
            NULL => self.st.b.null(),
            STRING => {
                let s = self
                    .tape
                    .strings
                    .next()
                    .ok_or_else(|| bad("a string is missing"))?;
                if self.st.lt {
                    self.st.b.note_string(s);
                }
                match self.text {
                    // `s` is a slice of `text`, the builder's source.
                    Some(text) => {
                        let start = s.as_ptr() as usize - text.as_ptr() as usize;
                        self.st.b.str_src(start, s.len());
                    }
                    None => self.st.b.str_heap(s),
                }
            }
            NUMBER => number(&mut self.st.b, self.tape.num()?),
            TRUE => self.st.b.bool(true),
            FALSE => self.st.b.bool(false),
            _ => return Err(bad("a cell of the wrong kind")),
        }
        Ok(())
    }

    /// A value of shape `shape`; true when it is a string, number or literal.
    fn value(&mut self, shape: &Shape) -> Result<bool> {
        let kind = self.tape.kind()?;
        match (shape, kind) {
            (_, NULL) => self.st.b.null(),
            (Shape::Scalar, _) => self.scalar(kind)?,
            (
                Shape::Object {
                    keys,
                    values,
                    id,
                    scalars,
                },
                OBJECT,
            ) => {
                self.object(keys, values, *id, *scalars)?;
                return Ok(false);
            }
            (Shape::Array(element), ARRAY) => {
                let n = self.tape.num()?;
                // Each element takes a kind at least.
                if !(n >= 0.0 && n.fract() == 0.0 && n <= self.tape.left() as f64) {
                    return Err(bad("an array's length is past its cells"));
                }
                let m = self.st.b.begin_array();
                for _ in 0..n as usize {
                    self.value(element)?;
                }
                self.st.b.end_array(m, n as usize);
                return Ok(false);
            }
            _ => return Err(bad("a cell of the wrong kind")),
        }
        Ok(true)
    }

    /// `n` rows of shape `row` (the rows' object, [`Shape::of_rows`]).
    fn rows(&mut self, row: &Shape, n: usize) -> Result<()> {
        let Shape::Object {
            keys,
            values,
            id,
            scalars,
        } = row
        else {
            return Err(bad("the rows are not objects of one shape"));
        };
        for _ in 0..n {
            self.object(keys, values, *id, *scalars)?;
        }
        Ok(())
    }

    /// An object of keys `keys` whose values have shapes `values` (all scalars: `scalars`).
    fn object(&mut self, keys: &[usize], values: &[Shape], id: u64, scalars: bool) -> Result<()> {
        let m = self.st.b.begin_object();
        let mut flat = true;
        for (&k, shape) in keys.iter().zip(values) {
            match self.st.kept[k] {
                Some(s) => self.st.b.str_heap_again(s),
                None => {
                    let name = &self.st.keys[k];
                    self.st.b.note_string(name);
                    self.st.kept[k] = Some(self.st.b.str_heap_kept(name));
                }
            }
            if scalars {
                // Rows of scalars (most tables): a kind's dispatch a value, not a shape's.
                let kind = self.tape.kind()?;
                self.scalar(kind)?;
            } else {
                flat &= self.value(shape)?;
            }
        }
        let token = KeysToken::new(self.st.owner, id);
        self.st.b.end_object_keyed_as(m, keys.len(), token, flat);
        Ok(())
    }
}

/// Pushes `x` as the parser pushes what `JSON.stringify` writes of it.
#[inline]
fn number(b: &mut DocBuilder<'_>, x: f64) {
    // Below 2^53 an integer (or -0, written `0`) is its digits, anything else finite a float;
    // from 2^53 on every double is an integer, written as digits below 10^21; past finite,
    // `null`.
    if x.abs() < 9_007_199_254_740_992.0 {
        let i = x as i64;
        if i as f64 == x {
            b.i64(i);
        } else {
            b.float(x);
        }
        return;
    }
    if !x.is_finite() {
        b.null();
        return;
    }
    let mut lexeme = Vec::with_capacity(32);
    write_f64(&mut lexeme, x);
    if lexeme.iter().all(|&c| c.is_ascii_digit() || c == b'-') {
        b.int_lexeme(&lexeme);
    } else {
        b.float(x);
    }
}

/// How [`Cells::write`] lays values out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// `JSON.stringify(rows)`.
    Compact,
    /// The engine's pretty data block: `JSON.stringify(rows, null, 2)` with WIRE.md §2's tag
    /// rule for strings (`\u003c`).
    Pretty,
}

impl Layout {
    /// What comes after the rows' `[`, between two rows, and before their `]`.
    fn rows(self) -> (&'static [u8], &'static [u8], &'static [u8]) {
        match self {
            Layout::Compact => (b"", b",", b""),
            Layout::Pretty => (b"\n  ", b",\n  ", b"\n"),
        }
    }

    /// A line break and the indent of a value at `depth` (none when compact).
    fn line(self, depth: usize) -> Vec<u8> {
        match self {
            Layout::Compact => Vec::new(),
            Layout::Pretty => {
                let mut line = vec![b' '; 1 + 2 * depth];
                line[0] = b'\n';
                line
            }
        }
    }
}

/// A value of the rows' shape, with the bytes around it in one layout.
enum Node {
    Scalar,
    Object {
        /// Per key, what precedes its value: `{` or `,`, the line, the key and `:`.
        prefixes: Vec<Vec<u8>>,
        values: Vec<Node>,
        /// The line and `}` after the last value.
        close: Vec<u8>,
    },
    Array {
        /// `[` and the line before the first element.
        open: Vec<u8>,
        /// `,` and the line between two elements.
        between: Vec<u8>,
        /// The line and `]` after the last element.
        close: Vec<u8>,
        element: Box<Node>,
    },
}

impl Node {
    /// The layout of a value of shape `shape` at `depth`, its keys' JSON texts in `keys`.
    fn of(shape: &Shape, keys: &[String], layout: Layout, depth: usize) -> Node {
        let inner = layout.line(depth + 1);
        let colon: &[u8] = if layout == Layout::Pretty {
            b": "
        } else {
            b":"
        };
        match shape {
            Shape::Scalar => Node::Scalar,
            Shape::Object {
                keys: own, values, ..
            } => Node::Object {
                prefixes: own
                    .iter()
                    .enumerate()
                    .map(|(j, &k)| {
                        let sep: &[u8] = if j == 0 { b"{" } else { b"," };
                        [sep, &inner, keys[k].as_bytes(), colon].concat()
                    })
                    .collect(),
                values: values
                    .iter()
                    .map(|v| Node::of(v, keys, layout, depth + 1))
                    .collect(),
                close: [&layout.line(depth)[..], b"}"].concat(),
            },
            Shape::Array(element) => Node::Array {
                element: Box::new(Node::of(element, keys, layout, depth + 1)),
                open: [b"[", &inner[..]].concat(),
                between: [b",", &inner[..]].concat(),
                close: [&layout.line(depth)[..], b"]"].concat(),
            },
        }
    }
}

/// The cells of a table read by `lib/rows.js`.
struct Cells<'a> {
    shape: &'a [u32],
    keys: &'a [String],
    kinds: &'a [u8],
    nums: &'a [f64],
    /// The strings' UTF-8, one after another in cell order.
    text: &'a [u8],
    /// Each string's length in UTF-16 units (`String#length`).
    lens: &'a [u32],
    /// Where in `text` each run of `chunk` strings starts (the JS layer encodes them so).
    starts: &'a [f64],
    chunk: usize,
    /// True when every byte of `text` is ASCII: a length is then its byte length.
    ascii: bool,
    /// The kinds, numbers and strings before the middle row.
    mid: (usize, usize, usize),
}

impl<'a> Cells<'a> {
    /// The cells a [`CellsStream`]'s builder received so far (no shape or runs of strings:
    /// it reads them in order, from a place it keeps).
    fn received(
        kinds: &'a [u8],
        nums: &'a [f64],
        text: &'a [u8],
        lens: &'a [u32],
        ascii: bool,
    ) -> Cells<'a> {
        Cells {
            shape: &[],
            keys: &[],
            kinds,
            nums,
            text,
            lens,
            starts: &[],
            chunk: 1,
            ascii,
            mid: (0, 0, 0),
        }
    }

    /// The cells of the addon's argument.
    fn of(table: &'a TableCells) -> Result<Cells<'a>> {
        let index = |i: usize| match table.mid.get(i) {
            Some(&x) if x >= 0.0 && x.fract() == 0.0 && x <= u32::MAX as f64 => Ok(x as usize),
            _ => Err(bad("the middle row has no start")),
        };
        Ok(Cells {
            shape: &table.shape,
            keys: &table.keys,
            kinds: &table.kinds,
            nums: &table.nums,
            text: &table.text,
            lens: &table.lens,
            starts: &table.starts,
            chunk: (table.chunk as usize).max(1),
            ascii: table.ascii,
            mid: (index(0)?, index(1)?, index(2)?),
        })
    }

    /// The array of the `rows` rows as `layout` lays it out: written on this thread, or from
    /// [`PARALLEL_ROWS`] rows in two halves on two threads, the second appended to the first
    /// (whose buffer has room for the whole guessed from the cells).
    fn write(&self, rows: usize, layout: Layout) -> Result<Vec<u8>> {
        let row = Node::of(
            &Shape::of_rows(self.shape, self.keys)?,
            self.keys,
            layout,
            1,
        );
        if rows == 0 {
            return Ok(b"[]".to_vec());
        }
        let (open, between, close) = layout.rows();
        let per_cell = self.keys.iter().map(String::len).max().unwrap_or(0)
            + if layout == Layout::Pretty { 8 } else { 4 };
        let guess = |cells: usize, text: usize| cells * per_cell + text;
        let mut out = Vec::new();
        toolwire::sink::reserve_output(&mut out, guess(self.kinds.len(), self.text.len()) + 8);
        out.write_byte(b'[');
        out.write(open);
        let halves = rows >= PARALLEL_ROWS
            && rayon::current_num_threads() > 1
            && rayon::current_thread_index().is_none();
        if halves {
            let mid = rows / 2;
            let (kinds, nums, strings) = self.mid;
            let at = Place {
                kinds,
                nums,
                strings,
                byte: self.string_byte(strings)?,
            };
            let second = Vec::with_capacity(guess(
                self.kinds.len().saturating_sub(at.kinds),
                self.text.len().saturating_sub(at.byte),
            ));
            let (a, b) = rayon::join(
                || self.part(&row, 0..mid, Place::START, layout, false, out),
                || self.part(&row, mid..rows, at, layout, true, second),
            );
            let ((first, end), (second, _)) = (a?, b?);
            if end != at {
                return Err(bad("the halves do not meet"));
            }
            out = first;
            out.write(between);
            out.write(&second);
        } else {
            out = self.part(&row, 0..rows, Place::START, layout, true, out)?.0;
        }
        out.write(close);
        out.write_byte(b']');
        Ok(out)
    }

    /// The rows of `rows`, objects of shape `row`, laid out as `layout` says, appended to
    /// `out` from the cells at `from`; and where the cells read end. The last rows must read
    /// every cell.
    fn part(
        &self,
        row: &Node,
        rows: std::ops::Range<usize>,
        from: Place,
        layout: Layout,
        last: bool,
        mut out: Vec<u8>,
    ) -> Result<(Vec<u8>, Place)> {
        let mut tape = Tape::new(self, from, layout)?;
        let between = layout.rows().1;
        let Node::Object {
            prefixes,
            values,
            close,
        } = row
        else {
            return Err(bad("a row is not an object"));
        };
        for i in rows.clone() {
            if i > rows.start {
                out.write(between);
            }
            tape.members(prefixes, values, close, &mut out)?;
        }
        if last && !tape.done() {
            return Err(bad("cells are left over"));
        }
        Ok((out, tape.at()))
    }

    /// Where the bytes of the `index`th string start.
    fn string_byte(&self, index: usize) -> Result<usize> {
        let run = index / self.chunk;
        let start = match self.starts.get(run) {
            Some(&s) if s >= 0.0 && s.fract() == 0.0 => s as usize,
            None if index == 0 => 0,
            _ => return Err(bad("a run of strings has no start")),
        };
        let mut strings = Strings::new(self, run * self.chunk, start)?;
        while strings.index < index {
            strings.next().ok_or_else(|| bad("a string is missing"))?;
        }
        Ok(self.text.len() - strings.text.len())
    }
}

impl<'a> Cells<'a> {
    /// The `rows` rows as a document ([`rows_doc`]).
    fn doc(&self, rows: usize) -> Result<Doc<'a>> {
        let row = Shape::of_rows(self.shape, self.keys)?;
        // Each row holds a value at least, which has a kind.
        if rows > self.kinds.len() {
            return Err(bad("too few cells for the rows"));
        }
        let owner = 0u8;
        // A node per value, a key per value at most, and the rows' objects; each integer's
        // digits (8 bytes on average, most likely).
        let mut st = DocState::new(
            self.text,
            self.keys,
            2 * self.kinds.len() + rows + 1,
            self.nums.len() * 8,
            std::ptr::from_ref(&owner) as usize,
        )?;
        st.lt = self.text.contains(&b'<');
        let m = st.b.begin_array();
        let mut t = DocTape {
            tape: Tape::new(self, Place::START, Layout::Compact)?,
            st: &mut st,
            text: Some(self.text),
        };
        t.rows(&row, rows)?;
        if !t.tape.done() {
            return Err(bad("cells are left over"));
        }
        st.b.end_array(m, rows);
        Ok(st.b.finish())
    }
}

/// A place in the cells: the next kind, number and string, and that string's first byte.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Place {
    kinds: usize,
    nums: usize,
    strings: usize,
    byte: usize,
}

impl Place {
    const START: Place = Place {
        kinds: 0,
        nums: 0,
        strings: 0,
        byte: 0,
    };
}

/// The cells of [`Cells`] read in order.
struct Tape<'a> {
    kinds: &'a [u8],
    nums: &'a [f64],
    /// The next kind and the next number.
    k: usize,
    q: usize,
    strings: Strings<'a>,
    /// The length of all the strings' text.
    text: usize,
    /// Strings with WIRE.md §2's tag rule (`\u003c`), as the engine's data block writes them;
    /// else as `JSON.stringify` does.
    tag_safe: bool,
}

impl<'a> Tape<'a> {
    /// The cells from `at`, to be laid out as `layout` says.
    fn new(cells: &Cells<'a>, at: Place, layout: Layout) -> Result<Tape<'a>> {
        if at.kinds > cells.kinds.len() || at.nums > cells.nums.len() {
            return Err(bad("cells start past their end"));
        }
        Ok(Tape {
            kinds: cells.kinds,
            nums: cells.nums,
            k: at.kinds,
            q: at.nums,
            strings: Strings::new(cells, at.strings, at.byte)?,
            text: cells.text.len(),
            tag_safe: layout == Layout::Pretty,
        })
    }

    fn kind(&mut self) -> Result<u8> {
        next(self.kinds, &mut self.k).ok_or_else(|| bad("a cell is missing"))
    }

    fn num(&mut self) -> Result<f64> {
        next(self.nums, &mut self.q).ok_or_else(|| bad("a number is missing"))
    }

    /// A value of shape `node`.
    fn value(&mut self, node: &Node, out: &mut Vec<u8>) -> Result<()> {
        let kind = self.kind()?;
        match (node, kind) {
            (Node::Scalar, _) | (_, NULL) => self.scalar(kind, out),
            (
                Node::Object {
                    prefixes,
                    values,
                    close,
                },
                OBJECT,
            ) => self.members(prefixes, values, close, out),
            (
                Node::Array {
                    open,
                    between,
                    close,
                    element,
                },
                ARRAY,
            ) => {
                let n = self.num()?;
                // Each element takes a kind at least.
                if !(n >= 0.0 && n.fract() == 0.0 && n <= (self.kinds.len() - self.k) as f64) {
                    return Err(bad("an array's length is past its cells"));
                }
                if n == 0.0 {
                    out.write(b"[]");
                    return Ok(());
                }
                out.write(open);
                for i in 0..n as usize {
                    if i > 0 {
                        out.write(between);
                    }
                    self.value(element, out)?;
                }
                out.write(close);
                Ok(())
            }
            _ => Err(bad("a cell of the wrong kind")),
        }
    }

    /// An object's values, of shapes `values` after `prefixes`, and `close`.
    fn members(
        &mut self,
        prefixes: &[Vec<u8>],
        values: &[Node],
        close: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        if prefixes.is_empty() {
            out.write(b"{}");
            return Ok(());
        }
        for (prefix, node) in prefixes.iter().zip(values) {
            out.write(prefix);
            self.value(node, out)?;
        }
        out.write(close);
        Ok(())
    }

    /// A scalar of kind `kind`.
    fn scalar(&mut self, kind: u8, out: &mut Vec<u8>) -> Result<()> {
        match kind {
            NULL => out.write(b"null"),
            STRING => {
                let s = self
                    .strings
                    .next()
                    .ok_or_else(|| bad("a string is missing"))?;
                if self.tag_safe {
                    write_json_string(out, s);
                } else {
                    out.write_byte(b'"');
                    write_json_string_body_plain(out, s);
                    out.write_byte(b'"');
                }
            }
            NUMBER => write_f64(out, self.num()?),
            TRUE => out.write(b"true"),
            FALSE => out.write(b"false"),
            _ => return Err(bad("a cell of the wrong kind")),
        }
        Ok(())
    }

    /// Where the cells read end.
    fn at(&self) -> Place {
        Place {
            kinds: self.k,
            nums: self.q,
            strings: self.strings.index,
            byte: self.text - self.strings.text.len(),
        }
    }

    fn done(&self) -> bool {
        self.k == self.kinds.len() && self.q == self.nums.len() && self.strings.done()
    }

    /// The kinds not read yet.
    fn left(&self) -> usize {
        self.kinds.len() - self.k
    }
}

/// The item of `items` at `at`, moving `at` past it.
fn next<T: Copy>(items: &[T], at: &mut usize) -> Option<T> {
    let x = *items.get(*at)?;
    *at += 1;
    Some(x)
}

/// The strings of [`Cells`] one at a time.
struct Strings<'a> {
    text: &'a [u8],
    lens: std::slice::Iter<'a, u32>,
    /// The index of the next string.
    index: usize,
    ascii: bool,
}

impl<'a> Strings<'a> {
    /// The strings from the `index`th, whose bytes start at `byte`.
    fn new(cells: &Cells<'a>, index: usize, byte: usize) -> Result<Strings<'a>> {
        match (cells.text.get(byte..), cells.lens.get(index..)) {
            (Some(text), Some(lens)) => Ok(Strings {
                text,
                lens: lens.iter(),
                index,
                ascii: cells.ascii,
            }),
            _ => Err(bad("strings start past their end")),
        }
    }

    fn next(&mut self) -> Option<&'a [u8]> {
        let units = *self.lens.next()? as usize;
        let bytes = if self.ascii {
            units
        } else {
            utf8_len(self.text, units)?
        };
        let (s, rest) = self.text.split_at_checked(bytes)?;
        self.text = rest;
        self.index += 1;
        Some(s)
    }

    fn done(&self) -> bool {
        self.text.is_empty() && self.lens.len() == 0
    }
}

/// The bytes of the first `units` UTF-16 units of UTF-8 `text` (a 4-byte sequence is two
/// units); `None` when `text` is shorter or a unit would be cut.
fn utf8_len(text: &[u8], units: usize) -> Option<usize> {
    // An ASCII string (most, even in text with accents) is its units.
    if text.get(..units).is_some_and(<[u8]>::is_ascii) {
        return Some(units);
    }
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    let mut left = units;
    // Eight bytes at a time while they hold no more units than are left: a unit per byte
    // that is not a continuation (10xxxxxx), and a second per 4-byte lead (11110xxx). A
    // character cut at the word's end has its continuations skipped below.
    while left >= 8 {
        let Some(word) = text.get(i..i + 8) else {
            break;
        };
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let continuations = (w & !(w << 1) & HIGH).count_ones() as usize;
        let leads4 = (w & (w << 1) & (w << 2) & (w << 3) & HIGH).count_ones() as usize;
        let n = 8 - continuations + leads4;
        if n > left {
            break;
        }
        left -= n;
        i += 8;
    }
    while text.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
        i += 1;
    }
    while left > 0 {
        let (bytes, n) = match *text.get(i)? {
            0..=0x7F => (1, 1),
            0xC0..=0xDF => (2, 1),
            0xE0..=0xEF => (3, 1),
            0xF0..=0xF7 => (4, 2),
            _ => return None,
        };
        if n > left {
            return None;
        }
        i += bytes;
        left -= n;
    }
    (i <= text.len()).then_some(i)
}

fn bad(what: &str) -> napi::Error {
    mark("internal", &format!("rows as cells: {what}"), None)
}

#[cfg(test)]
mod tests {
    use super::utf8_len;
    use proptest::prelude::*;

    proptest! {
        /// The bytes of any text's first characters, counted in UTF-16 units, with more text
        /// after them (the next strings of the cells).
        #[test]
        fn utf8_len_is_the_prefix_of_those_units(s in "\\PC{0,40}", rest in "\\PC{0,12}", cut in any::<usize>()) {
            let ends: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
            let end = ends[cut % ends.len()];
            let units = s[..end].encode_utf16().count();
            let text = format!("{s}{rest}");
            prop_assert_eq!(utf8_len(text.as_bytes(), units), Some(end));
        }
    }

    #[test]
    fn utf8_len_of_every_prefix_of_mostly_ascii_text() {
        // Runs of ASCII with 2-, 3- and 4-byte characters between, at every offset of a word.
        let s = "Société Générale 123, Café 🍰 Zoë, 株式会社 東京 abcdefghijklmnop🍰🍰x Müller";
        for rest in ["", "next string", "é"] {
            let text = format!("{s}{rest}");
            for (end, _) in s.char_indices().chain([(s.len(), ' ')]) {
                let units = s[..end].encode_utf16().count();
                assert_eq!(utf8_len(text.as_bytes(), units), Some(end), "{end}");
            }
        }
    }

    #[test]
    fn utf8_len_refuses_a_cut_character_and_short_text() {
        let cake = "ab🍰cdefghijkl";
        // One unit of the cake's two.
        assert_eq!(utf8_len(cake.as_bytes(), 3), None);
        assert_eq!(utf8_len(cake.as_bytes(), 4), Some(6));
        assert_eq!(utf8_len("é".as_bytes(), 2), None);
        assert_eq!(utf8_len("日本日本日本日本日本".as_bytes(), 10), Some(30));
        assert_eq!(utf8_len("日本日本日本日本日本".as_bytes(), 11), None);
    }
}
