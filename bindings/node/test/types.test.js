'use strict';
// index.d.ts checked by a strict TypeScript compile of a usage file (test/types/usage.ts),
// and both entry points (require and import) expose the same API.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

test('index.d.ts: a strict tsc compile of the usage file', () => {
  const tsc = require.resolve('typescript/lib/tsc.js');
  execFileSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types/tsconfig.json')], { stdio: 'pipe' });
});

test('require and import give the same module', async () => {
  const cjs = require('..');
  const esm = await import('../index.mjs');
  const names = ['encode', 'encodeLines', 'decode', 'decodeFromLines', 'DELIMITERS', 'DEFAULT_DELIMITER', 'ToonDecodeError',
    'encodeJson', 'encodeJsonAsync', 'present', 'presentAsync', 'presentStream', 'toolSchema', 'wrap', 'compilePresenter', 'ToolwireError', 'META',
    'decodeStream', 'decodeStreamSync', 'rawString', 'escapeString', 'RawString'];
  for (const n of names) {
    assert.ok(cjs[n] !== undefined, n);
    assert.equal(esm[n], cjs[n], n);
  }
  assert.equal(esm.default, cjs);
  assert.deepEqual(cjs.DELIMITERS, { comma: ',', tab: '\t', pipe: '|' });
  assert.equal(cjs.DEFAULT_DELIMITER, ',');
  assert.equal(cjs.META, Symbol.for('toolwire.meta'));
});
