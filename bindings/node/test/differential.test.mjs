// Differential property test against the real @toon-format/toon 4.4 on seeded random values
// with JavaScript's specials, every delimiter and indent: byte-identical TOON (or the same
// error class), identical decoded values (strict and lenient), identical replacer results.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as ref from '@toon-format/toon';
import * as tw from '../index.mjs';

const require = createRequire(import.meta.url);
const { generator } = require('./support/gen.js');

const CASES = Number(process.env.TOOLWIRE_DIFF_CASES || 3000);
const SEED = Number(process.env.TOOLWIRE_DIFF_SEED || 20261201);

function outcome(f) {
  try {
    return { ok: f() };
  } catch (e) {
    return { err: e.constructor.name === 'ToonDecodeError' ? 'ToonDecodeError' : e.constructor.name };
  }
}

test(`encode and decode equal @toon-format/toon on ${CASES} generated values (seed ${SEED})`, () => {
  const next = generator(SEED);
  const configs = [];
  for (const delimiter of [undefined, ',', '\t', '|']) for (const indentSize of [undefined, 1, 2, 4]) configs.push({ delimiter, indentSize });
  let compared = 0;
  for (let i = 0; i < CASES; i++) {
    const v = next();
    const opts = configs[i % configs.length];
    const want = outcome(() => ref.encode(v, opts));
    const got = outcome(() => tw.encode(v, opts));
    assert.deepEqual(got, want, `case ${i} with ${JSON.stringify(opts)}`);
    if (want.ok === undefined) continue;
    const lines = outcome(() => Array.from(tw.encodeLines(v, opts)));
    assert.deepEqual(lines, outcome(() => Array.from(ref.encodeLines(v, opts))), `case ${i} encodeLines`);
    for (const strict of [true, false]) {
      const d = { indentSize: opts.indentSize, strict };
      const dw = outcome(() => ref.decode(want.ok, d));
      const dg = outcome(() => tw.decode(want.ok, d));
      assert.deepStrictEqual(dg, dw, `case ${i} decode of ${JSON.stringify(want.ok)} ${JSON.stringify(d)}`);
    }
    compared++;
  }
  assert.ok(compared > CASES / 2, `only ${compared} values were encodable`);
});

test('replacer: same calls, same results', () => {
  const next = generator(SEED + 1);
  const replacer = (log) => (key, value, path) => {
    log.push([key, path.join('/')]);
    if (key.startsWith('n')) return undefined;
    if (typeof value === 'number') return value * 2;
    if (key === 'id') return { wrapped: value, at: new Date(0) };
    return value;
  };
  for (let i = 0; i < 500; i++) {
    const v = next();
    const lw = [];
    const lg = [];
    const want = outcome(() => ref.encode(v, { replacer: replacer(lw) }));
    const got = outcome(() => tw.encode(v, { replacer: replacer(lg) }));
    assert.deepEqual(got, want, `case ${i}`);
    assert.deepEqual(lg, lw, `case ${i} replacer calls`);
  }
});

// JSON.stringify's text: integer-like keys already first, numbers already JavaScript's (encodeJson
// keeps the text's own key order and integer digits, which JSON.parse would change).
test('encodeJson of JSON text equals encode(JSON.parse(text))', () => {
  const next = generator(SEED + 2);
  for (let i = 0; i < 1000; i++) {
    let text;
    try {
      text = JSON.stringify(next());
    } catch {
      continue; // BigInt: not JSON
    }
    if (text === undefined) continue;
    const want = outcome(() => ref.encode(JSON.parse(text)));
    assert.deepEqual(outcome(() => tw.encodeJson(text)), want, text);
    assert.deepEqual(outcome(() => tw.encodeJson(Buffer.from(text))), want, text);
  }
});

// Outputs of several MiB come back in ~1 MiB parts: multi-byte characters that straddle a
// part boundary must survive (every alignment of 1-, 2-, 3- and 4-byte characters).
test('large outputs: byte-identical across part boundaries', () => {
  for (const pad of ['', 'a', 'ab', 'abc']) {
    const rows = Array.from({ length: 90000 }, (_, i) => ({ id: i, s: `${pad}é日本😀${'x'.repeat(i % 7)}`, t: i % 3 ? 'ascii only' : '«»' }));
    const want = ref.encode(rows);
    assert.ok(Buffer.byteLength(want) > 2 << 20);
    assert.equal(tw.encode(rows), want);
    assert.equal(tw.encodeJson(Buffer.from(JSON.stringify(rows))), want);
  }
});

test('rows with Dates (the fast path) and patched toJSON equal the package', () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, at: new Date(i * 86400000), bad: i % 7 ? new Date(i) : new Date(NaN) }));
  assert.equal(tw.encode(rows), ref.encode(rows));
  const d = new Date(0);
  d.toJSON = (key) => `key:${key}`; // an own toJSON that reads its argument: the slow path
  assert.equal(tw.encode({ d }), ref.encode({ d }));
});
