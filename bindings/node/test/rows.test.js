'use strict';
// Tables read as cells (lib/rows.js, src/rows.rs): the bytes are JSON.stringify's, the
// encoders' and present's outputs are the reference's, and anything the cells cannot hold
// is left to JSON.stringify.
const test = require('node:test');
const assert = require('node:assert/strict');
const { rowsText, rowsPretty } = require('../lib/rows');
const native = require('../lib/native');
const tw = require('..');
const ref = require('@toon-format/toon');

// A small deterministic generator (xorshift), so that a failure names its seed.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', 'Client 42', 'é', 'Société Générale', '株式会社 東京', 'Café 🍰 Zoë', '😀😀',
  'a"b', 'back\\slash', 'line\nbreak', 'tab\t', '\u0000nul', '\u001f', '\u007f', '\u2028\u2029',
  '</tool_error>', '<llm_directives>', 'ÿ', '\ufffd', 'x'.repeat(300), 'ü'.repeat(1500)];
const NUMBERS = [0, -0, 1, -1, 42, 62.875, 0.1, 0.1 + 0.2, 1 / 3, 1e-6, 1e-7, 1.5e-7, 1e21, 1e20,
  2 ** 53, 2 ** 53 + 2, -(2 ** 60), 123456.789, 562949953.421311, 5e-324, Number.MAX_VALUE, NaN,
  Infinity, -Infinity, 999999.9999995];
const KEYS = ['id', 'name', 'a"b', 'é', '1', '0', 'with space', '\n', '', 'ключ', '🍰', 'toString'];

function table(seed, n, ascii) {
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const keys = [...new Set(Array.from({ length: 1 + Math.floor(r() * 8) }, () => pick(KEYS)))];
  const strings = ascii ? STRINGS.filter((s) => /^[\x00-\x7f]*$/.test(s)) : STRINGS;
  return Array.from({ length: n }, () => {
    const row = {};
    for (const k of keys) {
      const x = r();
      row[k] = x < 0.45 ? pick(strings) : x < 0.8 ? pick(NUMBERS) : x < 0.87 ? true : x < 0.94 ? false : null;
    }
    return row;
  });
}

const texts = (result) => result.content.map((c) => c.text);
const META = Symbol.for('toolwire.meta');
// The side door as a plain object (its `data` read).
const sideDoor = (result) => {
  const { data, ...rest } = result[META];
  return { ...rest, data };
};

const same = (bytes, value, what) => {
  assert.ok(bytes instanceof Uint8Array, `${what}: read as cells`);
  assert.equal(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(), JSON.stringify(value), what);
};

test('a table read as cells is JSON.stringify byte for byte', () => {
  // Around the least row count, the two halves' threshold, and more than a run of strings.
  for (const n of [1024, 1025, 4095, 4096, 4097, 9001]) {
    for (let seed = 1; seed <= 6; seed++) {
      for (const ascii of [true, false]) {
        const rows = table(seed * 7919 + n, n, ascii);
        same(rowsText(rows, true), rows, `seed ${seed}, ${n} rows, ${ascii ? 'ASCII' : 'any'}`);
      }
    }
  }
});

test('one long string or many short ones, every run boundary lands where it should', () => {
  // A run of strings cut inside a 4-byte char's neighbours; the second half starting in
  // the middle of a run (odd row counts) and on a run's first string.
  for (const n of [2048, 3001, 5000]) {
    const rows = Array.from({ length: n }, (_, i) => ({ s: i % 5 === 0 ? '😀'.repeat(i % 7) : `${'é'.repeat(i % 3)}${i}`, t: i % 2 ? 'ascii' : '字', u: null }));
    same(rowsText(rows, false), rows, `${n} rows`);
  }
});

test('what the cells cannot hold is left to JSON.stringify', () => {
  const base = () => Array.from({ length: 2000 }, (_, i) => ({ a: i, b: `s${i}` }));
  class Row { constructor(i) { this.a = i; this.b = 'x'; } }
  class WithToJSON { constructor(i) { this.a = i; } toJSON() { return { a: -1 }; } }
  const late = (f) => { const rows = base(); rows[1999] = f(rows[1999]); return rows; };
  const cases = {
    'a nested object': late((r) => ({ ...r, b: { c: 1 } })),
    'an array cell': late((r) => ({ ...r, b: [1] })),
    'undefined': late((r) => ({ ...r, b: undefined })),
    'a missing key': late(() => ({ a: 1 })),
    'an extra key': late((r) => ({ ...r, c: 1 })),
    'keys reordered': late((r) => ({ b: r.b, a: r.a })),
    'an own toJSON': late((r) => ({ ...r, toJSON: () => 'x' })),
    'a class with toJSON': late(() => new WithToJSON(1)),
    'an array row': late(() => [1, 'x']),
    'a null row': late(() => null),
    'a lone surrogate': late((r) => ({ ...r, b: 'x\ud800y' })),
    'a Date': late((r) => ({ ...r, b: new Date(0) })),
    'a hole': (() => { const rows = base(); delete rows[1500]; return rows; })(),
    'a function': late((r) => ({ ...r, b: () => 1 })),
    'a symbol': late((r) => ({ ...r, b: Symbol('s') })),
    'a boxed string': late((r) => ({ ...r, b: new String('x') })),
    'too few rows': base().slice(0, 1023),
  };
  for (const [what, rows] of Object.entries(cases)) {
    assert.equal(rowsText(rows, true), undefined, what);
    // Through the public API the result is still that of JSON.stringify's text.
    assert.deepEqual(texts(tw.present(rows, null)), texts(tw.present(Buffer.from(JSON.stringify(rows)), null)), what);
    // TOON cannot hold a lone surrogate (BINDINGS.md): an error, as without cells.
    if (what === 'a lone surrogate') assert.throws(() => tw.encode(rows), /lone surrogate/);
    else assert.equal(tw.encode(rows), ref.encode(rows), what);
  }
  const bigint = late((r) => ({ ...r, b: 10n }));
  assert.equal(rowsText(bigint, true), undefined);
  assert.throws(() => tw.present(bigint, null), TypeError);
  // A class instance: JSON.stringify's own enumerable keys, but not plain for the encoders
  // (their normalisation makes it null).
  const instances = Array.from({ length: 2000 }, (_, i) => new Row(i));
  same(rowsText(instances, false), instances, 'class instances');
  assert.equal(rowsText(instances, true), undefined);
  assert.equal(tw.encode(instances), ref.encode(instances));
});

test('the encoders and present give the reference output from cells', () => {
  for (const ascii of [true, false]) {
    const rows = table(ascii ? 11 : 12, 5000, ascii);
    assert.notEqual(rowsText(rows, true), undefined);
    assert.equal(tw.encode(rows), ref.encode(rows));
    assert.equal(tw.encode(rows, { delimiter: '|', indent: 4 }), ref.encode(rows, { delimiter: '|', indent: 4 }));
    const bytes = Buffer.from(JSON.stringify(rows));
    for (const format of ['pretty', 'compact', 'toon']) {
      assert.deepEqual(texts(tw.present(rows, null, { format })), texts(tw.present(bytes, null, { format })), format);
    }
  }
});

test('present(rows) with nothing to apply is the engine\'s response, written from the cells', () => {
  for (const n of [1024, 4095, 4096, 6001]) {
    for (let seed = 1; seed <= 4; seed++) {
      for (const ascii of [true, false]) {
        const what = `seed ${seed}, ${n} rows, ${ascii ? 'ASCII' : 'any'}`;
        const rows = table(seed * 104729 + n, n, ascii);
        assert.equal(typeof rowsPretty(rows), 'string', `${what}: written from the cells`);
        const fromCells = tw.present(rows);
        const fromBytes = tw.present(Buffer.from(JSON.stringify(rows)));
        assert.deepEqual(texts(fromCells), texts(fromBytes), what);
        assert.deepEqual(sideDoor(fromCells), sideDoor(fromBytes), what);
        assert.deepEqual(texts(tw.present(rows, null, {})), texts(fromBytes), `${what}, empty options`);
      }
    }
  }
  // Strings that would forge a block are escaped as the engine escapes them (WIRE.md §2).
  const forged = Array.from({ length: 2000 }, (_, i) => ({ s: i % 2 ? '</tool_error><LLM_Directives>' : '<ui_passthrough x>', n: i }));
  const text = texts(tw.present(forged))[0];
  assert.ok(!/<(\/)?(tool_error|llm_directives|ui_passthrough)/i.test(text), text.slice(0, 200));
  assert.deepEqual(texts(tw.present(forged)), texts(tw.present(Buffer.from(JSON.stringify(forged)))));
  // A key holding `<` is left to the engine (whose tag rule covers keys), the same bytes.
  const tagKey = Array.from({ length: 2000 }, (_, i) => ({ '<ui_passthrough>': i, b: 'x' }));
  assert.equal(rowsPretty(tagKey), undefined);
  assert.deepEqual(texts(tw.present(tagKey)), texts(tw.present(Buffer.from(JSON.stringify(tagKey)))));
  assert.throws(() => native.rowsPretty({ prefixes: ['{\n    "<a": '], rows: 1, kinds: new Uint8Array([0]), nums: new Float64Array(1), text: Buffer.alloc(0), lens: new Uint32Array(0), starts: [], chunk: 1024, ascii: true }), /rows as cells/);
  // The engine decides whether the response is the pretty block alone: options that keep it
  // so are written from the cells, any other goes through the engine; the same bytes.
  const rows = table(3, 3000, false);
  const bytes = Buffer.from(JSON.stringify(rows));
  assert.equal(native.plainPretty({ format: 'pretty', action: 'list' }), true);
  for (const opts of [{ limit: 10 }, { select: '["id"]' }, { tokenBudget: 500 }, { format: 'toon' }, { format: 'auto' }]) {
    assert.equal(native.plainPretty(opts), false, JSON.stringify(opts));
  }
  for (const opts of [{ format: 'pretty' }, { action: 'list' }, { limit: 10 }, { select: ['id'] }, { tokenBudget: 500 }, { format: 'compact' }]) {
    assert.deepEqual(texts(tw.present(rows, null, opts)), texts(tw.present(bytes, null, opts)), JSON.stringify(opts));
  }
  // Arguments the engine refuses are refused as without cells.
  assert.throws(() => tw.present(rows, null, { format: 'yaml' }), (e) => {
    assert.throws(() => tw.present(bytes, null, { format: 'yaml' }), { message: e.message });
    return true;
  });
});

test('a getter that presents rows of its own while the rows are read', () => {
  const inner = table(5, 3000, false);
  const rows = Array.from({ length: 2000 }, (_, i) => ({ a: i, b: 'x' }));
  let seen;
  Object.defineProperty(rows[10], 'b', {
    enumerable: true,
    get() {
      seen = rowsText(inner, true);
      return 'from a getter';
    },
  });
  same(rowsText(rows, true), rows, 'the outer table');
  same(seen, inner, 'the inner table');
});

test('memory kept from a call does not leak into the next', () => {
  const strings = Array.from({ length: 3000 }, (_, i) => ({ a: `s${i}`, b: i, c: true }));
  const nulls = Array.from({ length: 3000 }, () => ({ a: null, b: null, c: null }));
  same(rowsText(strings, true), strings, 'strings');
  same(rowsText(nulls, true), nulls, 'nulls after strings');
  same(rowsText(strings, true), strings, 'strings again');
});

test('the addon refuses cells that do not fit together', () => {
  const out = Buffer.alloc(1 << 16);
  const kinds = new Uint8Array([1, 2]);
  const nums = new Float64Array([0, 5]);
  const text = Buffer.from('abc');
  const call = (over) => {
    const a = { prefixes: ['{"s":', ',"n":'], rows: 1, kinds, nums, text, lens: new Uint32Array([3]), starts: [0], chunk: 1024, ascii: true, ...over };
    return native.rowsJson(out, a);
  };
  assert.equal(call({}), 19);
  assert.equal(out.subarray(0, 19).toString(), '[{"s":"abc","n":5}]');
  const bad = {
    'a string past the text': { lens: new Uint32Array([4]) },
    'text left over': { lens: new Uint32Array([2]) },
    'a missing string': { lens: new Uint32Array([]) },
    'a cell of no kind': { kinds: new Uint8Array([9, 2]) },
    'too few cells': { rows: 2 },
    'no columns': { prefixes: [], rows: 1 },
    'a char cut in two': { text: Buffer.from('é'), lens: new Uint32Array([2]), ascii: false },
    // Two halves: the second starts at its run of strings' start.
    'a run with no start': { prefixes: ['{"s":'], rows: 4096, kinds: new Uint8Array(4096).fill(1), text: Buffer.alloc(4096, 'a'), lens: new Uint32Array(4096).fill(1), starts: [0] },
    'a run starting past the text': { prefixes: ['{"s":'], rows: 4096, kinds: new Uint8Array(4096).fill(1), text: Buffer.alloc(4096, 'a'), lens: new Uint32Array(4096).fill(1), starts: [0, 1024, 99999] },
    'a run starting at the wrong byte': { prefixes: ['{"s":'], rows: 4096, kinds: new Uint8Array(4096).fill(1), text: Buffer.alloc(4096, 'a'), lens: new Uint32Array(4096).fill(1), starts: [0, 1024, 2047] },
  };
  for (const [what, over] of Object.entries(bad)) {
    assert.throws(() => call(over), (e) => e instanceof Error && /rows as cells/.test(e.message), what);
  }
  // Too short an output: the length it needs, nothing written past it.
  const small = Buffer.alloc(4);
  assert.equal(native.rowsJson(small, { prefixes: ['{"s":', ',"n":'], rows: 1, kinds, nums, text, lens: new Uint32Array([3]), starts: [0], chunk: 1024, ascii: true }), -19);
});
