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
//! itself.

use napi::bindgen_prelude::{Float64Array, Uint8Array, Uint32Array};
use napi_derive::napi;
use toolwire::Sink;
use toolwire::json::{write_f64, write_json_string, write_json_string_body_plain};

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
    /// The value at the head of `shape` at `depth`, its keys taken from `keys`.
    fn read(
        shape: &mut std::slice::Iter<'_, u32>,
        keys: &mut std::slice::Iter<'_, String>,
        layout: Layout,
        depth: usize,
    ) -> Result<Node> {
        if depth > MAX_DEPTH {
            return Err(bad("the shape is too deep"));
        }
        let inner = layout.line(depth + 1);
        let colon: &[u8] = if layout == Layout::Pretty {
            b": "
        } else {
            b":"
        };
        match shape.next() {
            Some(0) => Ok(Node::Scalar),
            Some(1) => {
                let m = *shape
                    .next()
                    .ok_or_else(|| bad("an object has no key count"))?;
                let mut prefixes = Vec::new();
                let mut values = Vec::new();
                for j in 0..m {
                    let key = keys.next().ok_or_else(|| bad("a key is missing"))?;
                    let sep: &[u8] = if j == 0 { b"{" } else { b"," };
                    prefixes.push([sep, &inner, key.as_bytes(), colon].concat());
                    values.push(Node::read(shape, keys, layout, depth + 1)?);
                }
                Ok(Node::Object {
                    prefixes,
                    values,
                    close: [&layout.line(depth)[..], b"}"].concat(),
                })
            }
            Some(2) => Ok(Node::Array {
                element: Box::new(Node::read(shape, keys, layout, depth + 1)?),
                open: [b"[", &inner[..]].concat(),
                between: [b",", &inner[..]].concat(),
                close: [&layout.line(depth)[..], b"]"].concat(),
            }),
            _ => Err(bad("a value of no shape")),
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
        let (mut shape, mut keys) = (self.shape.iter(), self.keys.iter());
        let row = Node::read(&mut shape, &mut keys, layout, 1)?;
        if !matches!(row, Node::Object { ref values, .. } if !values.is_empty())
            || shape.next().is_some()
            || keys.next().is_some()
        {
            return Err(bad("the rows are not objects of one shape"));
        }
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
    let mut i = 0;
    let mut left = units;
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
