// The rest of the @toon-format/toon 4.4 surface against the real package: rawString and
// escapeString, every indentSize the package accepts (0, fractions, above the engine's 64),
// and the streaming decoders' events.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as ref from '@toon-format/toon';
import * as tw from '../index.mjs';

const NESTED = {
  a: [{ x: 1, y: { z: 2 } }, { x: 3, y: { z: 4 } }],
  b: { c: [1, 2], d: { e: 'x', f: [] } },
  l: [[1, 2], { k: 1, m: [3, { n: 'deep' }] }, 'str'],
  '12': 'integer-like key',
  q: 'needs: quotes',
};

test('escapeString equals the package on every escape', () => {
  for (const s of ['', 'plain', 'a"b', 'back\\slash', 'nl\ncr\rtab\t', '\u0000\u0001\u001f\u007f', 'ünï €', '"\\"']) {
    assert.equal(tw.escapeString(s), ref.escapeString(s), JSON.stringify(s));
  }
});

test('rawString: verbatim at primitive positions, ignored for containers, as the package', () => {
  const cases = [
    [{ a: 'x' }, (k, v) => (k === 'a' ? ref.rawString('x,y') : v), (k, v) => (k === 'a' ? tw.rawString('x,y') : v)],
    [[{ a: 1, b: 2 }, { a: 3, b: 4 }], (k, v) => (k === 'a' ? ref.rawString('"q"') : v), (k, v) => (k === 'a' ? tw.rawString('"q"') : v)],
    [{ list: [1, 2, 3] }, (k, v) => (typeof v === 'number' ? ref.rawString(`<${v}>`) : v), (k, v) => (typeof v === 'number' ? tw.rawString(`<${v}>`) : v)],
    [{ o: { p: 1 } }, (k, v) => (k === 'o' ? ref.rawString('ignored') : v), (k, v) => (k === 'o' ? tw.rawString('ignored') : v)],
    [{ a: 1 }, (k, v) => (k === '' ? ref.rawString('root') : v), (k, v) => (k === '' ? tw.rawString('root') : v)],
    [5, (k, v) => ref.rawString(`"${ref.escapeString(String(v))}"`), (k, v) => tw.rawString(`"${tw.escapeString(String(v))}"`)],
  ];
  for (const [value, rr, tr] of cases) {
    for (const delimiter of [',', '\t', '|']) {
      assert.equal(tw.encode(value, { replacer: tr, delimiter }), ref.encode(value, { replacer: rr, delimiter }), JSON.stringify(value));
    }
  }
  // Raw strings in the data itself, and data that contains the placeholder's private-use
  // character (the placeholder must never collide with it).
  const data = { a: tw.rawString('1,2'), b: [tw.rawString('x'), 'y'], c: '\uE000tw0_0\uE001' };
  const refData = { a: ref.rawString('1,2'), b: [ref.rawString('x'), 'y'], c: '\uE000tw0_0\uE001' };
  assert.equal(tw.encode(data), ref.encode(refData));
  assert.equal(tw.encode(tw.rawString('top')), ref.encode(ref.rawString('top')));
  assert.throws(() => tw.rawString('ok\n  # comment'), TypeError);
  assert.throws(() => ref.rawString('ok\n  # comment'), TypeError);
});

test('every indentSize the package accepts gives its text', () => {
  for (const indentSize of [0, 1, 1.5, 3, 64, 65, 100, '2', null, NaN]) {
    for (const v of [NESTED, [NESTED, NESTED], { x: [[[1]]] }]) {
      const want = ref.encode(v, { indentSize });
      assert.equal(tw.encode(v, { indentSize }), want, `indentSize ${indentSize}`);
      assert.equal(tw.encodeJson(JSON.stringify(v), { indentSize }), want, `encodeJson indentSize ${indentSize}`);
      assert.deepEqual(Array.from(tw.encodeLines(v, { indent: indentSize })), Array.from(ref.encodeLines(v, { indent: indentSize })));
    }
  }
  assert.throws(() => ref.encode(NESTED, { indentSize: -1 }), RangeError);
  assert.throws(() => tw.encode(NESTED, { indentSize: -1 }), RangeError);
});

test('decodeStreamSync and decodeStream yield the package events', async () => {
  const texts = [ref.encode(NESTED), ref.encode([NESTED, 1, 'x']), ref.encode([]), ref.encode({}), 'a: 1\nb: "x,y"', '42', ref.encode([[], [[]], {}])];
  for (const text of texts) {
    const lines = text.split('\n');
    const want = Array.from(ref.decodeStreamSync(lines));
    assert.deepEqual(Array.from(tw.decodeStreamSync(lines)), want, text);
    const got = [];
    for await (const e of tw.decodeStream((async function* gen() { yield* lines; })())) got.push(e);
    assert.deepEqual(got, want, text);
  }
  assert.throws(() => Array.from(tw.decodeStreamSync(['a[2]: 1'])), tw.ToonDecodeError);
});

// Large strings go to the addon as bytes when they are ASCII (lib/text.js `fastText`, one
// `encodeInto` pass): every kind of non-ASCII char, at the start, the middle and the very end
// of a text above the 4096-char threshold, must take the string path and give the package's
// text; a lone surrogate there is the package's TypeError.
test('large texts: ASCII as bytes, any other char through the string path', () => {
  const pad = 'x'.repeat(5000);
  for (const ch of ['', 'é', 'ÿ', '\u0080', '中', '😀', '\u007f']) {
    for (const at of ['start', 'middle', 'end']) {
      const s = at === 'start' ? ch + pad : at === 'middle' ? pad + ch + pad : pad + ch;
      const rows = [{ id: 1, s }, { id: 2, s: 'b' }];
      assert.equal(tw.encode(rows), ref.encode(rows), `encode, ${JSON.stringify(ch)} at the ${at}`);
      const json = JSON.stringify(rows);
      assert.equal(tw.encodeJson(json), ref.encode(JSON.parse(json)), `encodeJson, ${JSON.stringify(ch)} at the ${at}`);
    }
  }
  for (const lone of ['\ud800', '\udfff']) {
    for (const s of [lone + pad, pad + lone + pad, pad + lone]) {
      assert.throws(() => ref.encode([s]), TypeError);
      assert.throws(() => tw.encode([s]), TypeError);
    }
  }
});
