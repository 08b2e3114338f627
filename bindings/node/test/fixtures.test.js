'use strict';
// The 564 official TOON 4.4 fixtures (read in place from the external suite) through the
// binding: encode fixtures through encode() (JS values) and encodeJson() (JSON text), decode
// fixtures through decode() and decodeFromLines().
const test = require('node:test');
const assert = require('node:assert/strict');
const tw = require('..');
const { fixtureFiles } = require('./support/helpers');

const TOTAL = { encode: 160, decode: 404 };

function encodeOptions(o) {
  return o ? { delimiter: o.delimiter, indentSize: o.indentSize } : undefined;
}

test('TOON spec encode fixtures', (t) => {
  const files = fixtureFiles('encode');
  if (!files) return t.skip('external suite missing');
  let run = 0;
  const failures = [];
  for (const { file, tests } of files) {
    for (const c of tests) {
      run++;
      const opts = encodeOptions(c.options);
      for (const [how, f] of [['encode', () => tw.encode(c.input, opts)],
        ['encodeJson', () => tw.encodeJson(JSON.stringify(c.input), opts)],
        ['encodeLines', () => Array.from(tw.encodeLines(c.input, opts)).join('\n')]]) {
        try {
          const got = f();
          if (got !== c.expected) failures.push(`${file} ${c.name} [${how}]: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(got)}`);
        } catch (e) {
          failures.push(`${file} ${c.name} [${how}]: threw ${e}`);
        }
      }
    }
  }
  t.diagnostic(`encode fixtures: ${run - new Set(failures.map((f) => f.split(' [')[0])).size}/${run} passed`);
  assert.deepEqual(failures, []);
  assert.equal(run, TOTAL.encode);
});

test('TOON spec decode fixtures', (t) => {
  const files = fixtureFiles('decode');
  if (!files) return t.skip('external suite missing');
  let run = 0;
  const failures = [];
  for (const { file, tests } of files) {
    for (const c of tests) {
      run++;
      const opts = c.options ? { strict: c.options.strict, indentSize: c.options.indentSize } : undefined;
      for (const [how, f] of [['decode', () => tw.decode(c.input, opts)],
        ['decodeFromLines', () => tw.decodeFromLines(c.input.split('\n'), opts)]]) {
        if (c.shouldError) {
          try {
            f();
            failures.push(`${file} ${c.name} [${how}]: expected an error`);
          } catch (e) {
            if (!(e instanceof tw.ToonDecodeError) || !(e instanceof SyntaxError)) failures.push(`${file} ${c.name} [${how}]: wrong error ${e}`);
          }
          continue;
        }
        try {
          const got = f();
          try {
            assert.deepStrictEqual(got, c.expected);
          } catch {
            failures.push(`${file} ${c.name} [${how}]: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(got)}`);
          }
        } catch (e) {
          failures.push(`${file} ${c.name} [${how}]: threw ${e}`);
        }
      }
    }
  }
  t.diagnostic(`decode fixtures: ${run - new Set(failures.map((f) => f.split(' [')[0])).size}/${run} passed`);
  assert.deepEqual(failures, []);
  assert.equal(run, TOTAL.decode);
});
