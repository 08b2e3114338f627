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

// Texts of 1 MiB or more come back as V8 external strings (their characters in the addon's
// memory, freed when V8 collects the string) where Node makes them (20.4 on), at most
// 64 MiB of them alive at once; past that, copied into V8's heap as smaller texts are.
const native = require('../lib/native');
const [major, minor] = process.versions.node.split('.').map(Number);
const externalStrings = major > 20 || (major === 20 && minor >= 4);
require('node:v8').setFlagsFromString('--expose-gc');
const gc = require('node:vm').runInNewContext('gc');

test('a text of 1 MiB or more is the same string, external or copied, and freed with it', () => {
  const ascii = Array.from({ length: 20000 }, (_, i) => ({ id: `INV-${i}`, n: i * 7.25, ok: i % 3 === 0 }));
  const mixed = ascii.map((r, i) => ({ ...r, name: ['Zoë', '東京', '🍰 cake', 'plain'][i % 4] }));
  gc();
  const base = native.externalTextBytes();
  // In a frame of its own: once it returns, nothing references its texts.
  (() => {
    const held = [];
    for (const [name, rows, width] of [['ascii', ascii, 1], ['non-ASCII', mixed, 2]]) {
      const want = JSON.stringify(rows, null, 2);
      assert.ok(Buffer.byteLength(want) > 1 << 20, name);
      const before = native.externalTextBytes();
      const got = tw.present(rows, null, { format: 'pretty' }).content[0].text;
      held.push(got);
      if (externalStrings) {
        // Held by the addon: a byte a char for ASCII, two for UTF-16.
        assert.ok(native.externalTextBytes() - before >= width * want.length, name);
      }
      assert.ok(got === want, name);
      assert.equal(got.length, want.length);
      assert.equal(got.slice(-20), want.slice(-20));
      assert.ok(Buffer.from(got).equals(Buffer.from(want)), name);
      assert.equal(JSON.parse(got).length, rows.length);
    }
  })();
  gc();
  assert.equal(native.externalTextBytes(), base, 'collected strings free their texts');
});

test('external strings stay within their budget in a synchronous loop', () => {
  // V8 does not collect for the addon's memory: 40 texts of ~4 MB made in a loop would hold
  // 160 MB until a collection; the budget holds 64 MiB, the rest are copies.
  const rows = Array.from({ length: 40000 }, (_, i) => ({ id: `INV-${String(i).padStart(7, '0')}`, amount: i, paid: i % 2 === 0, note: `batch ${i % 97}` }));
  const buf = Buffer.from(JSON.stringify(rows));
  const want = JSON.stringify(rows, null, 2);
  assert.ok(want.length > 3.5e6);
  gc();
  (() => {
    let peak = 0;
    const kept = [];
    for (let i = 0; i < 40; i++) {
      const before = native.externalTextBytes();
      const text = tw.present(buf, null, { format: 'pretty' }).content[0].text;
      const now = native.externalTextBytes();
      if (i === 0 && externalStrings) assert.ok(now - before >= want.length, 'the first is external');
      peak = Math.max(peak, now);
      if (i % 2 === 0) kept.push(text);
    }
    assert.ok(peak <= 64 << 20, `external text peak ${peak}`);
    // Twenty kept texts of ~4 MB (80 MB): the budget was reached, and the texts made past
    // it (copies) are the same.
    for (const text of kept) assert.ok(text === want);
  })();
  gc();
  assert.equal(native.externalTextBytes(), 0);
});

test('a non-ASCII text too long to be external whole comes as external segments, the same text', () => {
  // 80 MB of UTF-16 against a budget of 64 MiB: segments of 16 MiB of UTF-8 (the first all
  // ASCII: one byte a char), each external while the budget allows, cut inside characters.
  const rows = Array.from({ length: 400000 }, (_, i) => (i < 200000
    ? { id: i, note: 'plain text for the first segments of the whole response' }
    : { id: i, note: `🍰 Zoë ${i} 東京 ${'é'.repeat(i % 7)}${'😀'.repeat(i % 5)} Société Générale` }));
  // The second segment's end moved inside a character: the cut goes back to its start.
  const first = Buffer.from(JSON.stringify(rows, null, 2));
  rows[0].note += 'x'.repeat([...Array(16).keys()].find((k) => (first[(32 << 20) - k] & 0xc0) === 0x80));
  gc();
  (() => {
    const want = JSON.stringify(rows, null, 2);
    assert.equal(Buffer.from(want)[32 << 20] & 0xc0, 0x80);
    assert.ok(want.length * 2 > 64 << 20);
    const before = native.externalTextBytes();
    const got = tw.present(rows).content[0].text;
    if (externalStrings) {
      const held = native.externalTextBytes() - before;
      assert.ok(held > 16 << 20 && held <= 64 << 20, `${held} bytes external`);
    }
    assert.ok(got === want);
  })();
  gc();
  assert.equal(native.externalTextBytes(), 0);
  // Its segments' buffers (external, then copied past the budget) are kept, within 64 MiB.
  assert.ok(native.keptTextBytes() > 0 && native.keptTextBytes() <= 64 << 20, `${native.keptTextBytes()} bytes kept`);
});

test('encodeJson gives one string up to 8 MiB of TOON, segments or parts past it, the same text', async () => {
  const ascii = (i) => ({ id: i, name: `Client ${i}`, note: 'plain' });
  // Non-ASCII in every such row, so that the gathered text is cut inside characters.
  const wide = (i) => ({ id: i, name: `株式会社 ${i} 🍰`, note: 'é'.repeat(i % 5) });
  const rows = (n) => Array.from({ length: n }, (_, i) => wide(i));
  const plain = (n) => Array.from({ length: n }, (_, i) => ascii(i));
  // ASCII for the first segment, then not: a one-byte segment, then two-byte ones.
  const late = (n) => Array.from({ length: n }, (_, i) => (i < 250000 ? ascii(i) : wide(i)));
  gc();
  await (async () => {
    for (const [what, data, whole] of [['20k', rows(20000), true], ['400k', rows(400000), false], ['ASCII 600k', plain(600000), false], ['late', late(500000), false]]) {
      const buf = Buffer.from(JSON.stringify(data));
      const before = native.externalTextBytes();
      const got = native.encodeJson(buf, ',', 2);
      assert.equal(typeof got === 'string', whole, what);
      const text = tw.encodeJson(buf);
      if (!whole && externalStrings && before === 0) {
        // Segments of up to 8 MiB of TOON, each an external string: a few, not 64 KiB parts.
        assert.ok(got.length <= Math.ceil(Buffer.byteLength(text) / (8 << 20)) + 1, `${what}: ${got.length} parts`);
        assert.ok(native.externalTextBytes() - before >= text.length, what);
      }
      // The async path writes the whole text at once: an independent reading of the same bytes.
      assert.ok(text === (await tw.encodeJsonAsync(buf)), what);
      assert.ok(typeof got === 'string' ? got === text : got.join('') === text, what);
    }
  })();
  // With the budget spent by texts still held, a long text comes as copied parts, the same.
  gc();
  await (async () => {
    const buf = Buffer.from(JSON.stringify(rows(400000)));
    const held = [];
    const texts = [];
    const grew = [];
    for (let i = 0; i < 4; i++) {
      const before = native.externalTextBytes();
      const got = native.encodeJson(buf, ',', 2);
      held.push(got);
      grew.push(native.externalTextBytes() - before);
      texts.push(got.join(''));
      assert.ok(native.externalTextBytes() <= 64 << 20);
    }
    // Two bytes a character when external (UTF-16): the later texts were copied, at least in part.
    if (externalStrings) assert.ok(grew[0] >= 2 * texts[0].length && grew[3] < 2 * texts[0].length, `${grew}`);
    for (const t of texts) assert.ok(t === texts[0]);
    assert.ok(texts[0] === (await tw.encodeJsonAsync(buf)));
  })();
  // Gathered as bytes while ASCII, then as UTF-16 from the first chunk that is not: the
  // switch late or early, a long string of 4-byte characters at each offset, texts below
  // one rope part, below the external-string size and above it, and past 8 MiB after the
  // switch.
  const cases = {
    'non-ASCII in the last row': Array.from({ length: 30000 }, (_, i) => (i === 29999 ? wide(i) : ascii(i))),
    'non-ASCII from the middle': Array.from({ length: 20000 }, (_, i) => (i < 10000 ? ascii(i) : wide(i))),
    'one short row': [wide(1)],
    'below a rope part': Array.from({ length: 300 }, (_, i) => wide(i)),
    'below 1 MiB': Array.from({ length: 8000 }, (_, i) => wide(i)),
    'past 8 MiB after the switch': Array.from({ length: 300000 }, (_, i) => (i < 1000 ? ascii(i) : wide(i))),
  };
  for (let k = 0; k < 4; k++) cases[`emoji shifted by ${k}`] = [{ a: `${'x'.repeat(k)}${'🍰'.repeat(50000)}` }];
  for (const [what, rows] of Object.entries(cases)) {
    const buf = Buffer.from(JSON.stringify(rows));
    const text = tw.encodeJson(buf);
    assert.equal(text, await tw.encodeJsonAsync(buf), what);
    if (rows.length <= 300) assert.equal(text, ref.encode(rows), what);
  }
});

test('the buffer of a long non-ASCII text V8 collected is the next one\'s, and none of it shows', { skip: !externalStrings }, () => {
  // Replies of 16 MB or more of UTF-8 take 32 MiB or more as UTF-16: such a buffer is kept
  // when its string is collected, and taken by the next text of at least half its size.
  const rows = (n, name) => Array.from({ length: n }, (_, i) => ({ id: `INV-${i}`, name: `${name} ${i % 7}`, n: i / 8 }));
  const present = (r) => native.presentPlain(Buffer.from(JSON.stringify(r)), {}).texts[0];
  const want = (r) => JSON.stringify(r, null, 2);
  gc();
  const base = native.externalTextBytes();
  const big = rows(260000, 'Zoë 東京');
  let held;
  (() => {
    const text = present(big);
    assert.ok(text.length * 2 >= 32 << 20, `${text.length} units`);
    held = native.externalTextBytes() - base;
    assert.ok(text === want(big));
  })();
  gc();
  assert.equal(native.externalTextBytes(), base);
  // Shorter, other characters: the kept buffer (its whole size held), the text exactly.
  const small = rows(180000, '🍰 café');
  (() => {
    const text = present(small);
    assert.equal(native.externalTextBytes() - base, held, 'the kept buffer');
    assert.ok(text === want(small));
    assert.equal(text.length, want(small).length);
  })();
  gc();
  // Too short for it (under half its size): a buffer of its own.
  const short = rows(90000, 'ü');
  (() => {
    const text = present(short);
    assert.ok(native.externalTextBytes() - base < held / 2, 'a buffer of its own');
    assert.ok(text === want(short));
  })();
  gc();
  assert.equal(native.externalTextBytes(), base);
});

test('the buffers of long texts V8 collected are kept for the next texts', { skip: !externalStrings }, async () => {
  // encodeJson gathers a long TOON text in segments of 8 MiB, each an external string: of
  // rows with non-ASCII names, UTF-16 buffers of 16 MiB; of ASCII rows, bytes. Once V8
  // collected the strings, their buffers are the next call's: no fresh pages.
  const wide = (i) => ({ id: i, name: `株式会社 ${i} 🍰`, note: 'é'.repeat(i % 5) });
  const plain = (i) => ({ id: i, name: `Client ${i}`, note: 'plain' });
  const rowsOf = (f, n) => Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => f(i))));
  for (const [what, buf] of [['UTF-16', rowsOf(wide, 400000)], ['bytes', rowsOf(plain, 600000)]]) {
    // Written whole and copied into V8: no external string, no kept buffer.
    const want = await tw.encodeJsonAsync(buf);
    gc();
    let first;
    (() => {
      const held = native.externalTextBytes();
      const got = native.encodeJson(buf, ',', 2);
      first = native.externalTextBytes() - held;
      assert.ok(Array.isArray(got) && got.length >= 2 && got.join('') === want, what);
    })();
    gc();
    const kept = native.keptTextBytes();
    assert.ok(first >= 16 << 20 && kept >= first && kept <= 64 << 20, `${what}: ${kept} kept of ${first}`);
    for (let i = 0; i < 2; i++) {
      (() => {
        const held = native.externalTextBytes();
        const got = native.encodeJson(buf, ',', 2);
        // Taken from the kept ones, not made afresh.
        assert.ok(native.keptTextBytes() <= kept - first / 2, `${what}: ${native.keptTextBytes()} kept during a call`);
        assert.equal(native.externalTextBytes() - held, first, what);
        assert.ok(got.join('') === want, what);
      })();
      gc();
      // The same buffers go round: what is kept between calls does not grow.
      assert.equal(native.keptTextBytes(), kept, what);
    }
  }
});
