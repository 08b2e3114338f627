'use strict';
// A table of JavaScript rows read as cells: the bytes of JSON.stringify(rows) without
// JSON.stringify (src/rows.rs writes them). V8's stringify of 100k flat rows costs as much as
// the engine's whole response; reading the cells costs a property read each, the strings
// joined into UTF-8 a chunk at a time (docs/DECISIONS.md, "Node binding: rows read as cells").
//
// Taken only when every row is an object with the first row's own enumerable keys in the
// same order, no toJSON, and only strings (well-formed), numbers, booleans and null in its
// cells: then JSON.stringify's text is determined by these alone, and it is also the text of
// @toon-format/toon's normalised value when the rows are plain objects (-0 and non-finite
// numbers print as `0` and `null` either way). Anything else gives undefined at the first
// row that breaks it, and the caller stringifies as before.

const native = require('./native');

/** Arrays shorter than this are stringified: a reader compiled for them would not pay. */
const MIN_ROWS = 1024;
/** Rows wider than this are stringified (the reader is code with a branch per key). */
const MAX_KEYS = 64;
/** Tables of more cells are stringified (13 bytes a cell beside their JSON text). */
const MAX_CELLS = 1 << 27;
/** Strings concatenated before each is encoded: a rope this small flattens in cache. */
const CHUNK = 1024;
/** Readers kept, by key list. */
const READERS = 64;

// A cell's kind (0, the arrays' zero: null).
const STRING = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;

const readers = new Map();
// False where code cannot be made from strings (--disallow-code-generation-from-strings):
// every table is then stringified.
let canCompile = true;

// The reader of rows with `keys`: a function with one property read per key, so that V8
// reads each as a named property of the rows' shared shape. It returns the number of string
// cells, or false at the first row it cannot take.
function reader(keys) {
  const id = JSON.stringify(keys);
  let read = readers.get(id);
  if (read) return read;
  const m = keys.length;
  const lines = [
    'let strings = 0, t = "", c = 0;',
    'for (let i = 0; i < n; i++) {',
    '  const r = rows[i];',
    '  if (typeof r !== "object" || r === null || Array.isArray(r) || r.toJSON !== undefined) return false;',
    '  if (plain) { const p = Object.getPrototypeOf(r); if (p !== Object.prototype && p !== null) return false; }',
    '  const k = Object.keys(r);',
    `  if (k.length !== ${m}${keys.map((_, j) => ` || k[${j}] !== K[${j}]`).join('')}) return false;`,
    `  const o = i * ${m};`,
    '  let v;',
  ];
  keys.forEach((key, j) => {
    lines.push(
      `  v = r[${JSON.stringify(key)}];`,
      `  if (typeof v === "string") { kinds[o + ${j}] = ${STRING}; lens[strings++] = v.length; t += v;`,
      `    if (++c === ${CHUNK}) { if (!utf8.put(t, i)) return false; t = ""; c = 0; } }`,
      `  else if (typeof v === "number") { kinds[o + ${j}] = ${NUMBER}; nums[o + ${j}] = v; }`,
      `  else if (v === true) kinds[o + ${j}] = ${TRUE};`,
      `  else if (v === false) kinds[o + ${j}] = ${FALSE};`,
      '  else if (v !== null) return false;',
    );
  });
  lines.push('}', 'if (c > 0 && !utf8.put(t, n - 1)) return false;', 'return strings;');
  try {
    // eslint-disable-next-line no-new-func
    read = new Function('K', `return function read(rows, n, plain, kinds, nums, lens, utf8) {\n${lines.join('\n')}\n};`)(keys);
  } catch {
    canCompile = false;
    return null;
  }
  if (readers.size >= READERS) readers.delete(readers.keys().next().value);
  readers.set(id, read);
  return read;
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
  }

  // Appends chunk `t`, made from rows up to `row`; false when it is not well-formed (a lone
  // surrogate, which JSON.stringify escapes and UTF-8 cannot hold).
  put(t, row) {
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

function cellsFor(n, m) {
  const cells = n * m;
  const bytes = cells * 13;
  if (busy || bytes > SCRATCH) return fresh(n, cells);
  if (scratch === null || scratch.kinds.length < cells) scratch = fresh(n, cells);
  scratch.utf8.reset(n);
  return scratch;
}

function fresh(n, cells) {
  return {
    kinds: new Uint8Array(cells),
    nums: new Float64Array(cells),
    lens: new Uint32Array(cells),
    utf8: new Utf8(n),
  };
}

// Reads `rows` as cells when they are such a table, and returns what `write(keys, cells)`
// makes of them (`cells`: the addon's TableCells but for the prefixes); else undefined.
// `plain`: rows must also be plain objects. `keysOk`: whether a writer takes the first
// row's keys.
function withCells(rows, plain, write, keysOk) {
  const n = rows.length;
  if (n < MIN_ROWS) return undefined;
  const first = rows[0];
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return undefined;
  const keys = Object.keys(first);
  const m = keys.length;
  if (m === 0 || m > MAX_KEYS || n * m > MAX_CELLS || !canCompile) return undefined;
  if (keysOk !== undefined && !keysOk(keys)) return undefined;
  const read = reader(keys);
  if (read === null) return undefined;
  const cells = cellsFor(n, m);
  const { kinds, nums, lens, utf8 } = cells;
  const own = cells === scratch;
  if (own) busy = true;
  try {
    // Kept kinds from an earlier table are cleared (a null cell writes none).
    if (own) kinds.fill(0, 0, n * m);
    const strings = read(rows, n, plain, kinds, nums, lens, utf8);
    if (strings === false) return undefined;
    const text = utf8.bytes.subarray(0, utf8.at);
    const ascii = utf8.at === utf8.units;
    return write(keys, { rows: n, kinds: kinds.subarray(0, n * m), nums: nums.subarray(0, n * m), text, lens: lens.subarray(0, strings), starts: utf8.starts, chunk: CHUNK, ascii });
  } finally {
    if (own) {
      busy = false;
      if (utf8.bytes.length > SCRATCH) scratch.utf8 = new Utf8(0);
    }
  }
}

/**
 * The bytes of JSON.stringify(rows) read as cells, or undefined when `rows` is not such a
 * table (the caller stringifies it). `plain`: rows must also be plain objects (the encoders'
 * normalisation turns other objects into null).
 */
function rowsText(rows, plain) {
  return withCells(rows, plain, (keys, cells) => {
    const table = { ...cells, prefixes: keys.map((k, j) => `${j === 0 ? '{' : ','}${JSON.stringify(k)}:`) };
    let out = Buffer.allocUnsafe(cells.text.length + cells.kinds.length * 12 + cells.rows * (2 + table.prefixes.reduce((a, p) => a + p.length, 0)));
    let len = native.rowsJson(out, table);
    if (len < 0) {
      out = Buffer.allocUnsafe(-len);
      len = native.rowsJson(out, table);
    }
    return out.subarray(0, len);
  });
}

/**
 * The pretty data block of present(rows) when that is the whole response (the engine's text:
 * JSON.stringify(rows, null, 2) with WIRE.md §2's tag rule), written from the cells; or
 * undefined when `rows` is not such a table, or a key holds `<` (the engine's path then).
 */
function rowsPretty(rows) {
  return withCells(
    rows,
    false,
    (keys, cells) => native.rowsPretty({ ...cells, prefixes: keys.map((k, j) => `${j === 0 ? '{' : ','}\n    ${JSON.stringify(k)}: `) }),
    (keys) => keys.every((k) => !k.includes('<')),
  );
}

module.exports = { MIN_ROWS, rowsText, rowsPretty };
