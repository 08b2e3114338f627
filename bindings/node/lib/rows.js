'use strict';
// A table of JavaScript rows read as cells: the bytes of JSON.stringify(rows) without
// JSON.stringify (src/rows.rs writes them), or for a presenter's call and for `encode` the
// engine's document of those values, built from the cells with no text at all (presentRows,
// encodeRows). V8's stringify of 100k rows costs as much as the engine's whole response;
// reading the cells costs a property read each, the strings joined into UTF-8 a chunk at a
// time (docs/DECISIONS.md, "Node binding: rows read as cells").
//
// The rows' shape is taken from the first rows: each value a scalar (string, number, boolean,
// null), an object with given own enumerable keys in a given order, or an array whose
// elements have one shape. Taken only when every row fits that shape, with no toJSON on any
// object or array and only well-formed strings: then JSON.stringify's text is determined by
// the cells alone, and it is also the text of @toon-format/toon's normalised value when the
// objects are plain (-0 and non-finite numbers print as `0` and `null` either way). Anything
// else gives undefined at the first value that breaks it, and the caller stringifies as before.

const native = require('./native');

/** Arrays shorter than this are stringified: a reader compiled for them would not pay. */
const MIN_ROWS = 1024;
/** Shapes of more values than this are stringified (the reader is code with a branch each). */
const MAX_NODES = 128;
/** Objects and arrays nested deeper than this in a row are stringified. */
const MAX_DEPTH = 16;
/** Tables of more cells are stringified (13 bytes a cell at most beside their JSON text). */
const MAX_CELLS = 1 << 27;
/** Strings concatenated before each is encoded: a rope this small flattens in cache. */
const CHUNK = 1024;
/** Readers kept, by shape. */
const READERS = 64;
/** Rows, and elements of an array, whose values give the shape. */
const SAMPLE = 16;
/** Tables of this many rows or more have their document built while they are read. */
const STREAM_ROWS = 8192;
/** Chunks of strings read between two sends of the cells to the document's builder. */
const PUBLISH = 4;

// A cell's kind (src/rows.rs). An array's length is its next number.
const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;
const OBJECT = 5;
const ARRAY = 6;

// Shapes: SCALAR (a string, number or boolean, or null), UNKNOWN (only null or an accessor
// seen; read as a scalar), { keys, values } an object, { element } an array (`element`
// UNKNOWN while every sampled array is empty).
const SCALAR = 's';
const UNKNOWN = '?';
// A property whose value is not read to sample the shape: an accessor (the reader calls it
// once, as JSON.stringify does).
const ACCESSOR = Symbol('accessor');

// The value of own data property `key` of `o` (ACCESSOR for an accessor), without calling it.
function peek(o, key) {
  const d = Object.getOwnPropertyDescriptor(o, key);
  return d === undefined ? undefined : 'value' in d ? d.value : ACCESSOR;
}

// The shape of value `v` at depth `depth`, or undefined when no reader would take it.
function shapeOf(v, depth, tally) {
  tally.cells++;
  if (v === null || v === ACCESSOR) return UNKNOWN;
  const type = typeof v;
  if (type === 'string' || type === 'number' || type === 'boolean') return SCALAR;
  if (type !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(v)) {
    let element = UNKNOWN;
    for (let i = 0; i < v.length && i < SAMPLE && element !== undefined; i++) element = merge(element, shapeOf(peek(v, i), depth + 1, tally));
    return element === undefined ? undefined : { element };
  }
  const keys = Object.keys(v);
  if (keys.length > MAX_NODES) return undefined;
  const values = [];
  for (const k of keys) {
    const s = shapeOf(peek(v, k), depth + 1, tally);
    if (s === undefined) return undefined;
    values.push(s);
  }
  return { keys, values };
}

// The shape that takes values of shapes `a` and `b`, or undefined when none does.
function merge(a, b) {
  if (a === undefined || b === undefined) return undefined;
  if (a === UNKNOWN) return b;
  if (b === UNKNOWN || a === b) return a;
  if (a === SCALAR || b === SCALAR) return undefined;
  if (a.keys !== undefined && b.keys !== undefined) {
    if (a.keys.length !== b.keys.length || a.keys.some((k, j) => k !== b.keys[j])) return undefined;
    const values = [];
    for (let j = 0; j < a.values.length; j++) {
      const s = merge(a.values[j], b.values[j]);
      if (s === undefined) return undefined;
      values.push(s);
    }
    return { keys: a.keys, values };
  }
  if (a.element !== undefined && b.element !== undefined) {
    const element = merge(a.element, b.element);
    return element === undefined ? undefined : { element };
  }
  return undefined;
}

// Values in shape `s`: each is a cell at most between two of the reader's room checks.
function nodes(s) {
  if (s === SCALAR || s === UNKNOWN) return 1;
  if (s.keys !== undefined) return s.values.reduce((a, v) => a + nodes(v), 1);
  return 1 + nodes(s.element);
}

const readers = new Map();
// False where code cannot be made from strings (--disallow-code-generation-from-strings):
// every table is then stringified.
let canCompile = true;

// The reader of rows of shape `row` (an object's): a function with one property read per
// key, so that V8 reads each as a named property of the rows' shared shape. It fills
// `st` (kinds, nums, lens: grown as they fill; p, q, s: the cells, numbers and strings
// written; mid: those counts where row n >> 1 starts) and returns true, or false at the first
// row it cannot take. Also the shape as src/rows.rs reads it: `shape` (per value in preorder,
// 0 a scalar, 1 an object followed by its key count, 2 an array followed by its element's)
// and `keys` (each key before its value's, as JSON.stringify writes them; `names` as they
// are).
function reader(row) {
  const shape = [];
  const keys = [];
  const K = [];
  const lines = [];
  const room = nodes(row);
  // Room for the cells read until the next check (at a row's start and an element's).
  const roomCheck = `if (p + ${room} > cap) { if (!grow(st, p, q, s, ${room}, i, n)) return false; ({ kinds, nums, lens } = st); cap = kinds.length; }`;
  let ids = 0;
  // Code that reads value `expr` of shape `s` at depth `d` into the cells (`d` 0: a row).
  const read = (s, expr, d) => {
    if (s === SCALAR || s === UNKNOWN) {
      shape.push(0);
      lines.push(
        `v = ${expr};`,
        'if (typeof v === "string") { kinds[p++] = ' + STRING + '; lens[s++] = v.length; t += v;',
        `  if (++c === ${CHUNK}) { if (!utf8.put(t, i, p, q, s, kinds, nums, lens)) return false; t = ""; c = 0; } }`,
        `else if (typeof v === "number") { kinds[p++] = ${NUMBER}; nums[q++] = v; }`,
        `else if (v === true) kinds[p++] = ${TRUE};`,
        `else if (v === false) kinds[p++] = ${FALSE};`,
        `else if (v === null) kinds[p++] = ${NULL};`,
        'else return false;',
      );
      return;
    }
    // Each object and array its own names.
    const id = ids++;
    const o = `o${id}`;
    lines.push(`const ${o} = ${expr};`);
    if (d > 0) lines.push(`if (${o} === null) kinds[p++] = ${NULL}; else {`);
    if (s.keys !== undefined) {
      shape.push(1, s.keys.length);
      const at = K.length;
      K.push(...s.keys);
      lines.push(
        `if (typeof ${o} !== "object" || ${o} === null || Array.isArray(${o}) || ${o}.toJSON !== undefined) return false;`,
        `if (plain) { const pr = Object.getPrototypeOf(${o}); if (pr !== Object.prototype && pr !== null) return false; }`,
        `const k${id} = Object.keys(${o});`,
        `if (k${id}.length !== ${s.keys.length}${s.keys.map((_, j) => ` || k${id}[${j}] !== K[${at + j}]`).join('')}) return false;`,
      );
      if (d > 0) lines.push(`kinds[p++] = ${OBJECT};`);
      s.keys.forEach((k, j) => {
        keys.push(JSON.stringify(k));
        read(s.values[j], `${o}[${JSON.stringify(k)}]`, d + 1);
      });
    } else {
      shape.push(2);
      const [n, e] = [`n${id}`, `e${id}`];
      lines.push(
        `if (!Array.isArray(${o}) || ${o}.toJSON !== undefined) return false;`,
        `const ${n} = ${o}.length;`,
        `kinds[p++] = ${ARRAY}; nums[q++] = ${n};`,
        `for (let ${e} = 0; ${e} < ${n}; ${e}++) {`,
        roomCheck,
      );
      read(s.element, `${o}[${e}]`, d + 1);
      lines.push('}');
    }
    if (d > 0) lines.push('}');
  };
  lines.push(
    'let p = 0, q = 0, s = 0, t = "", c = 0, v;',
    'let { kinds, nums, lens } = st, cap = kinds.length;',
    'const half = n >> 1;',
    'for (let i = 0; i < n; i++) {',
    'if (i === half) st.mid = [p, q, s];',
    roomCheck,
  );
  read(row, 'rows[i]', 0);
  lines.push(
    '}',
    'if (c > 0 && !utf8.put(t, n - 1)) return false;',
    'st.p = p; st.q = q; st.s = s;',
    'return true;',
  );
  let fn;
  try {
    // eslint-disable-next-line no-new-func
    fn = new Function('K', 'grow', `return function read(rows, n, plain, st, utf8) {\n${lines.join('\n')}\n};`)(K, grow);
  } catch (e) {
    if (e instanceof EvalError) canCompile = false;
    return null;
  }
  return { read: fn, shape, keys, names: K };
}

// The reader of rows shaped as `row`, compiled once per shape.
function readerOf(row) {
  const id = JSON.stringify(row);
  let r = readers.get(id);
  if (r !== undefined) return r;
  r = reader(row);
  if (r === null) return null;
  if (readers.size >= READERS) readers.delete(readers.keys().next().value);
  readers.set(id, r);
  return r;
}

// Room in `st` for `need` more cells after cell `p` (q numbers, s strings) of row `i` of
// `n`: at least twice the room, and what the rows so far suggest they all take; false past
// MAX_CELLS.
function grow(st, p, q, s, need, i, n) {
  const size = Math.max(p + need, st.kinds.length * 2, Math.ceil(((p + need) / (i + 1)) * n * 1.125));
  if (p + need > MAX_CELLS) return false;
  const cells = Math.min(size, MAX_CELLS);
  const next = fresh(cells);
  next.kinds.set(st.kinds.subarray(0, p));
  next.nums.set(st.nums.subarray(0, q));
  next.lens.set(st.lens.subarray(0, s));
  st.kinds = next.kinds;
  st.nums = next.nums;
  st.lens = next.lens;
  return true;
}

const textEncoder = new TextEncoder();
/** U+FFFD in UTF-8. */
const REPLACEMENT = Buffer.from('\ufffd');

// The rows' strings as UTF-8, one chunk of them at a time.
class Utf8 {
  constructor(rows) {
    this.bytes = Buffer.allocUnsafe(64 << 10);
    this.reset(rows);
  }

  reset(rows) {
    this.rows = rows;
    this.at = 0;
    this.units = 0;
    this.guessed = false;
    // Where each chunk's bytes start (src/rows.rs starts its second half there).
    this.starts = [];
    // The builder of the rows' document, sent the cells every PUBLISH chunks (CellsStream).
    this.stream = null;
    this.chunks = 0;
  }

  // Appends chunk `t`, made from rows up to `row`; false when it is not well-formed (a lone
  // surrogate, which JSON.stringify escapes and UTF-8 cannot hold). A stream is sent the
  // cells so far (`p` kinds, `q` numbers, `s` strings of the arrays), which complete the
  // rows before `row`.
  put(t, row, p, q, s, kinds, nums, lens) {
    const start = this.at;
    this.starts.push(start);
    this.units += t.length;
    for (let rest = t; ;) {
      const r = textEncoder.encodeInto(rest, this.bytes.subarray(this.at));
      this.at += r.written;
      if (r.read === rest.length) break;
      rest = rest.slice(r.read);
      this.grow(Math.max(this.bytes.length * 2, this.at + rest.length * 3));
    }
    // encodeInto writes a lone surrogate as U+FFFD: only a chunk holding one (or a real
    // U+FFFD) is scanned for them (a scan of every chunk was 5% of non-ASCII tables).
    if (this.at > start && this.bytes.subarray(start, this.at).indexOf(REPLACEMENT) !== -1 && !t.isWellFormed()) return false;
    if (!this.guessed) {
      // Room for all of them, guessed from the first chunk.
      this.guessed = true;
      const guess = Math.ceil((this.at * this.rows) / (row + 1) * 1.125);
      if (guess > this.bytes.length) this.grow(guess);
    }
    if (this.stream !== null && kinds !== undefined && ++this.chunks % PUBLISH === 0) {
      try {
        this.stream.publish(row, kinds, nums, lens, this.bytes, p, q, s, this.at);
      } catch {
        // Refused (it never is): the document is built after the read instead.
        this.stream.abort();
        this.stream = null;
      }
    }
    return true;
  }

  grow(size) {
    const next = Buffer.allocUnsafe(size);
    this.bytes.copy(next, 0, 0, this.at);
    this.bytes = next;
  }
}

// Memory of the cells kept from call to call while it totals at most SCRATCH bytes: fresh
// typed arrays are zeroed or faulted in for every call (9 of 23 ms of reading 100k rows).
// Only a call that completes synchronously uses it (a getter that presents rows of its own
// while the reader runs gets fresh memory).
const SCRATCH = 32 << 20;
let scratch = null;
let busy = false;

// The last read's state (its arrays let go) and stream (an ended stream holds no thread or
// cells), kept until the next read replaces them: the reader's optimized code refers to
// them weakly, and V8 throws such code away once they are collected. With both gone between
// two calls (a gc(), another library's garbage), each call compiled its reader again while
// it ran (`node --trace-deopt`: "weak objects"; see docs/DECISIONS.md, "The reader's code
// kept"). A state of the same shape made for the purpose does not keep the code.
const NO_CELLS = fresh(0);
let lastState = null;
let lastStream = null;

// Typed arrays for `cells` cells (the numbers and strings are fewer: their pages past what is
// written are never touched).
function fresh(cells) {
  return { kinds: new Uint8Array(cells), nums: new Float64Array(cells), lens: new Uint32Array(cells) };
}

function cellsFor(n, cells) {
  if (busy || cells * 13 > SCRATCH) return { ...fresh(cells), utf8: new Utf8(n) };
  if (scratch === null) scratch = { ...fresh(cells), utf8: new Utf8(n) };
  else if (scratch.kinds.length < cells) Object.assign(scratch, fresh(cells));
  scratch.utf8.reset(n);
  return scratch;
}

// The shape of the first rows (that of an object), the values in it, and the cells the rows
// hold on average; or undefined when no reader would take them.
function sample(rows, n) {
  const tally = { cells: 0 };
  let row = UNKNOWN;
  const m = Math.min(n, SAMPLE);
  for (let i = 0; i < m && row !== undefined; i++) row = merge(row, shapeOf(peek(rows, i), 0, tally));
  if (row === undefined || row === UNKNOWN || row.keys === undefined || row.keys.length === 0) return undefined;
  const values = nodes(row);
  return values > MAX_NODES ? undefined : { row, values, cells: tally.cells / m };
}

// Reads `rows` as cells when they are such a table, and returns what `write(cells, stream)`
// makes of them (`cells`: the addon's TableCells; `stream`: with `streamed`, for STREAM_ROWS
// rows or more, the CellsStream that built their document meanwhile, else undefined); else
// undefined. `plain`: objects must also be plain. `keysOk`: whether a writer takes the shape's
// keys.
function withCells(rows, plain, write, keysOk, streamed) {
  const n = rows.length;
  if (n < MIN_ROWS || !canCompile) return undefined;
  const sampled = sample(rows, n);
  if (sampled === undefined) return undefined;
  const r = readerOf(sampled.row);
  if (r === null || (keysOk !== undefined && !keysOk(r.names))) return undefined;
  const guess = Math.ceil(sampled.cells * n * 1.0625) + sampled.values;
  if (guess > MAX_CELLS) return undefined;
  const cells = cellsFor(n, guess);
  const own = cells === scratch;
  const st = { kinds: cells.kinds, nums: cells.nums, lens: cells.lens, mid: [0, 0, 0], p: 0, q: 0, s: 0 };
  lastState = st;
  let stream;
  if (streamed && n >= STREAM_ROWS) {
    try {
      stream = new native.CellsStream(r.shape, r.keys, n);
      lastStream = stream;
    } catch {
      // No thread for it: built after the read.
    }
  }
  if (own) busy = true;
  try {
    cells.utf8.stream = stream ?? null;
    if (!r.read(rows, n, plain, st, cells.utf8)) return undefined;
    const { utf8 } = cells;
    return write({
      shape: r.shape,
      keys: r.keys,
      rows: n,
      kinds: st.kinds.subarray(0, st.p),
      nums: st.nums.subarray(0, st.q),
      text: utf8.bytes.subarray(0, utf8.at),
      lens: st.lens.subarray(0, st.s),
      starts: utf8.starts,
      chunk: CHUNK,
      ascii: utf8.at === utf8.units,
      mid: st.mid,
    }, utf8.stream ?? undefined);
  } finally {
    // Finished by `write`, or left: its thread ends either way.
    stream?.abort();
    cells.utf8.stream = null;
    if (own) {
      busy = false;
      // Arrays grown by the read are kept in their turn.
      if (st.kinds !== cells.kinds && st.kinds.length * 13 <= SCRATCH) Object.assign(scratch, { kinds: st.kinds, nums: st.nums, lens: st.lens });
      if (cells.utf8.bytes.length > SCRATCH) scratch.utf8 = new Utf8(0);
    }
    Object.assign(st, NO_CELLS);
  }
}

/**
 * The bytes of JSON.stringify(rows) read as cells, or undefined when `rows` is not such a
 * table (the caller stringifies it). `plain`: objects must also be plain (the encoders'
 * normalisation turns other objects into null).
 */
function rowsText(rows, plain) {
  return withCells(rows, plain, cellsJson);
}

// The bytes of JSON.stringify of the rows `cells` hold.
function cellsJson(cells) {
  // A number takes 24 bytes at most; keys 2 more than their JSON (`,` and `:`).
  const key = cells.keys.reduce((a, k) => Math.max(a, k.length + 2), 0);
  let out = Buffer.allocUnsafe(cells.text.length + cells.kinds.length * (12 + key) + cells.rows * 4);
  let len = native.rowsJson(out, cells);
  if (len < 0) {
    out = Buffer.allocUnsafe(-len);
    len = native.rowsJson(out, cells);
  }
  return out.subarray(0, len);
}

/**
 * The pretty data block of present(rows) when that is the whole response (the engine's text:
 * JSON.stringify(rows, null, 2) with WIRE.md §2's tag rule), written from the cells; or
 * undefined when `rows` is not such a table, or a key holds `<` (the engine's path then).
 */
function rowsPretty(rows) {
  return withCells(rows, false, (cells) => native.rowsPretty(cells), (names) => names.every((k) => !k.includes('<')));
}

/**
 * What `present(cells, stream)` makes of `rows` read as cells (the addon's TableCells, valid
 * for that call only; `stream`, when there is one, the CellsStream that built their document
 * while they were read), or undefined when `rows` is not such a table.
 */
function presentRows(rows, present) {
  return withCells(rows, false, present, undefined, true);
}

/**
 * What `encode(cells, stream)` makes of `rows` read as cells whose objects are plain (the
 * encoders' normalisation), their document built while they are read as for presentRows; or
 * undefined when `rows` is not such a table.
 */
function encodeRows(rows, encode) {
  return withCells(rows, true, encode, undefined, true);
}

/**
 * For a call that presents `rows` off the JS thread, STREAM_ROWS of them or more: `{ reply }`,
 * what `present(cells, stream)` gives for them read as cells (presentAsync's promise,
 * presentStream's control), their document built while they are read; `{ json }`, the bytes
 * of JSON.stringify(rows) written from the cells, when no thread could build it; or undefined
 * when `rows` is not such a table.
 */
function presentRowsAsync(rows, present) {
  return withCells(rows, false, (cells, stream) => (stream === undefined ? { json: cellsJson(cells) } : { reply: present(cells, stream) }), undefined, true);
}

module.exports = { MIN_ROWS, STREAM_ROWS, rowsText, rowsPretty, presentRows, presentRowsAsync, encodeRows };
