//! JSON text of a table of JavaScript rows, written from its cells (`lib/rows.js`).
//!
//! `JSON.stringify` of 100k flat rows costs V8 about as much as the engine's whole pretty
//! response of them, and every path from JavaScript objects (`present`, `encode`, `make`)
//! began with it. The JS layer reads a table whose rows are objects with the same keys in
//! the same order and only strings, numbers, booleans and `null` in their cells into flat
//! arrays instead (a property read per cell, strings joined into UTF-8 a chunk at a time), and
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

/// A cell's kind, one byte per cell in `kinds`, row by row.
const NULL: u8 = 0;
const STRING: u8 = 1;
const NUMBER: u8 = 2;
const TRUE: u8 = 3;
const FALSE: u8 = 4;

/// Rows from this many are written in two halves on two threads.
const PARALLEL_ROWS: usize = 4096;

/// The cells of a table read by `lib/rows.js`.
struct Cells<'a> {
    /// Per column, what precedes its value: `{"key":` for the first, `,"key":` after (each
    /// key as `JSON.stringify` writes it).
    prefixes: &'a [String],
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
}

/// How [`Cells::write`] lays rows out.
#[derive(Clone, Copy)]
struct Layout {
    /// Between the array's `[` and its first row.
    open: &'static [u8],
    /// Between two rows.
    between: &'static [u8],
    /// After a row's last value.
    row_close: &'static [u8],
    /// Between the last row and the array's `]`.
    close: &'static [u8],
    /// Strings with WIRE.md §2's tag rule (`\u003c`), as the engine's data block writes them;
    /// else as `JSON.stringify` does.
    tag_safe: bool,
}

/// `JSON.stringify(rows)`.
const COMPACT: Layout = Layout {
    open: b"",
    between: b",",
    row_close: b"}",
    close: b"",
    tag_safe: false,
};

/// The engine's pretty data block of the rows: `JSON.stringify(rows, null, 2)` with the tag
/// rule (the prefixes carry each key's line: `{\n    "key": `, `,\n    "key": `).
const PRETTY: Layout = Layout {
    open: b"\n  ",
    between: b",\n  ",
    row_close: b"\n  }",
    close: b"\n",
    tag_safe: true,
};

/// The cells of a table as `lib/rows.js` reads them: `prefixes`, per column, what precedes
/// its value (`{"key":` for the first, `,"key":` after, or the pretty layout's lines);
/// `kinds` one byte per cell (0 null, 1 string, 2 number, 3 true, 4 false), row after row;
/// `nums` the numbers (at the cell's index); `text` the strings' UTF-8 one after another,
/// `lens` their lengths in UTF-16 units, `starts` where each run of `chunk` of them starts in
/// `text`; `ascii` when `text` is ASCII.
#[napi(object)]
pub struct TableCells {
    pub prefixes: Vec<String>,
    pub rows: u32,
    pub kinds: Uint8Array,
    pub nums: Float64Array,
    pub text: Uint8Array,
    pub lens: Uint32Array,
    pub starts: Vec<f64>,
    pub chunk: u32,
    pub ascii: bool,
}

/// Writes `JSON.stringify(rows)` of the rows the cells hold into `out`, and returns its
/// length; or, when `out` is too short, nothing and the length `out` must have. Cells that
/// do not fit together are an internal error, never a read out of bounds.
#[napi(catch_unwind)]
pub fn rows_json(mut out: Uint8Array, table: TableCells) -> Result<i64> {
    let json = Cells::of(&table).write(table.rows as usize, COMPACT)?;
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
/// to read again. `prefixes` are `{\n    "key": ` for the first column and
/// `,\n    "key": ` after (keys without `<`).
#[napi(catch_unwind, ts_return_type = "string")]
pub fn rows_pretty(table: TableCells) -> Result<JsText> {
    if table.prefixes.iter().any(|p| p.contains('<')) {
        return Err(bad("a key holds `<`"));
    }
    // The cells' memory, read on a pool thread in `write`, is safe as in `rows_json`: a
    // synchronous call on the JS thread.
    Ok(JsText(
        Cells::of(&table).write(table.rows as usize, PRETTY)?,
    ))
}

impl<'a> Cells<'a> {
    /// The cells of the addon's argument.
    fn of(table: &'a TableCells) -> Cells<'a> {
        Cells {
            prefixes: &table.prefixes,
            kinds: &table.kinds,
            nums: &table.nums,
            text: &table.text,
            lens: &table.lens,
            starts: &table.starts,
            chunk: (table.chunk as usize).max(1),
            ascii: table.ascii,
        }
    }

    /// The array of the `rows` rows as `layout` lays it out: written on this thread, or from
    /// [`PARALLEL_ROWS`] rows in two halves on two threads, the second appended to the first
    /// (whose buffer has room for the whole guessed from the cells).
    fn write(&self, rows: usize, layout: Layout) -> Result<Vec<u8>> {
        let m = self.prefixes.len();
        if m == 0
            || rows.checked_mul(m) != Some(self.kinds.len())
            || self.kinds.len() > self.nums.len()
        {
            return Err(bad("the cells do not match the rows"));
        }
        let per_row = self.prefixes.iter().map(String::len).sum::<usize>()
            + layout.between.len()
            + layout.row_close.len()
            + m * 8;
        let mut out = Vec::new();
        toolwire::sink::reserve_output(
            &mut out,
            rows * per_row + self.text.len() + layout.open.len() + layout.close.len() + 2,
        );
        out.write_byte(b'[');
        out.write(layout.open);
        let halves = rows >= PARALLEL_ROWS
            && rayon::current_num_threads() > 1
            && rayon::current_thread_index().is_none();
        if halves {
            let mid = rows / 2;
            let (index, byte) = self.string_of(mid)?;
            let second =
                Vec::with_capacity((rows - mid) * per_row + self.text.len().saturating_sub(byte));
            let (a, b) = rayon::join(
                || self.part(0..mid, Strings::new(self, 0, 0)?, layout, out),
                || self.part(mid..rows, Strings::new(self, index, byte)?, layout, second),
            );
            let ((first, end), (second, _)) = (a?, b?);
            if end != (index, byte) {
                return Err(bad("the halves' strings do not meet"));
            }
            out = first;
            out.write(layout.between);
            out.write(&second);
        } else {
            out = self
                .part(0..rows, Strings::new(self, 0, 0)?, layout, out)?
                .0;
        }
        out.write(layout.close);
        out.write_byte(b']');
        Ok(out)
    }

    /// The rows of `rows` as JSON objects separated as `layout` says, appended to `out`,
    /// their strings read from `strings`; and where the strings read end (the next one's
    /// index and byte).
    fn part(
        &self,
        rows: std::ops::Range<usize>,
        mut strings: Strings<'_>,
        layout: Layout,
        mut out: Vec<u8>,
    ) -> Result<(Vec<u8>, (usize, usize))> {
        let m = self.prefixes.len();
        let kinds = &self.kinds[rows.start * m..rows.end * m];
        let nums = &self.nums[rows.start * m..rows.end * m];
        for (row, kinds) in kinds.chunks_exact(m).enumerate() {
            if row > 0 {
                out.write(layout.between);
            }
            for (j, (&kind, prefix)) in kinds.iter().zip(self.prefixes).enumerate() {
                out.write(prefix.as_bytes());
                match kind {
                    NULL => out.write(b"null"),
                    STRING => {
                        let s = strings.next().ok_or_else(|| bad("a string is missing"))?;
                        if layout.tag_safe {
                            write_json_string(&mut out, s);
                        } else {
                            out.write_byte(b'"');
                            write_json_string_body_plain(&mut out, s);
                            out.write_byte(b'"');
                        }
                    }
                    NUMBER => write_f64(&mut out, nums[row * m + j]),
                    TRUE => out.write(b"true"),
                    FALSE => out.write(b"false"),
                    _ => return Err(bad("a cell of no kind")),
                }
            }
            out.write(layout.row_close);
        }
        if rows.end * m == self.kinds.len() && !strings.done() {
            return Err(bad("strings are left over"));
        }
        Ok((out, (strings.index, self.text.len() - strings.text.len())))
    }

    /// The index of the first string in row `row` or after, and where its bytes start.
    fn string_of(&self, row: usize) -> Result<(usize, usize)> {
        let m = self.prefixes.len();
        let index = self.kinds[..row * m]
            .iter()
            .filter(|&&k| k == STRING)
            .count();
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
        Ok((index, self.text.len() - strings.text.len()))
    }
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
