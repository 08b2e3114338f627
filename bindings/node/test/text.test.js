'use strict';
// The JSON text handed to the addon (lib/text.js) is JSON.stringify's, byte for byte: a
// large array is stringified in slices into one buffer, and non-ASCII text is encoded on
// from its first non-ASCII char.
const test = require('node:test');
const assert = require('node:assert/strict');
const { fastText, jsonText } = require('../lib/text');
const tw = require('..');
const ref = require('@toon-format/toon');

const bytesOf = (t) => (typeof t === 'string' ? Buffer.from(t) : Buffer.from(t.buffer, t.byteOffset, t.byteLength));

test('jsonText of large arrays is JSON.stringify byte for byte', () => {
  const odd = [undefined, () => 1, Symbol('s'), NaN, -0, Infinity, null, new Date(0), { toJSON: () => 'j' }, 'é', '😀', '\u2028', 'a"b\\c\n'];
  const cases = {
    holes: Object.assign(new Array(3000), { 5: 1, 2999: 'x' }),
    odd: Array.from({ length: 2000 }, (_, i) => odd[i % odd.length]),
    // The first slice is small and the later ones large: the buffer grows past its guess.
    growing: Array.from({ length: 3000 }, (_, i) => (i < 128 ? i : { s: '字'.repeat(i % 97), n: [i, { i }] })),
    asciiThenEmoji: Array.from({ length: 5000 }, (_, i) => (i < 4000 ? `row ${i}` : `🍰 ${i}`)),
    nested: Array.from({ length: 1500 }, (_, i) => [[i], { a: [i, 'ü'] }, []]),
    empty: [],
  };
  for (const [name, v] of Object.entries(cases)) {
    assert.ok(bytesOf(jsonText(v)).equals(Buffer.from(JSON.stringify(v))), name);
  }
  const withToJSON = Object.assign(Array.from({ length: 2000 }, (_, i) => i), { toJSON: () => 'whole' });
  assert.equal(jsonText(withToJSON), '"whole"');
  assert.equal(jsonText(undefined), undefined);
});

test('fastText of non-ASCII text is its UTF-8', () => {
  for (const s of ['x'.repeat(5000) + 'é', 'é' + 'x'.repeat(5000), '😀'.repeat(3000), '中'.repeat(4097)]) {
    assert.ok(bytesOf(fastText(s)).equals(Buffer.from(s)));
  }
});

test('encode and present of large non-ASCII arrays match the package and JSON.stringify', () => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: i, name: ['Zoë', '東京', '🍰 cake', 'plain'][i % 4], tags: i % 2 ? ['ü'] : [] }));
  assert.equal(tw.encode(rows), ref.encode(rows));
  assert.equal(tw.present(rows, null, { format: 'pretty' }).content[0].text, JSON.stringify(rows, null, 2));
});

test('a long non-ASCII text is the same string made in parts, whatever character a part ends in', () => {
  // Texts over 32 KiB that are not ASCII come from the addon in parts of 32 KiB of UTF-8:
  // each shift cuts a 2-, 3- or 4-byte character (or none) at a part's end, and an ASCII
  // stretch makes a one-byte part between two-byte ones.
  for (let shift = 0; shift < 4; shift++) {
    const rows = [
      'x'.repeat(shift),
      ...Array.from({ length: 3000 }, (_, i) => ['é', '字', '😀', 'ab'][i % 4].repeat(1 + (i % 7))),
      'a'.repeat(70000),
      '末😀',
    ];
    for (const format of ['pretty', 'compact']) {
      const want = format === 'pretty' ? JSON.stringify(rows, null, 2) : JSON.stringify(rows);
      const got = tw.present(rows, null, { format }).content[0].text;
      assert.ok(got === want, `shift ${shift} ${format}`);
    }
  }
  assert.equal(tw.present('é'.repeat(40000)).content[0].text, 'é'.repeat(40000));
});
