'use strict';
// D1 (run by hostile.test.js in a child process, since the defect kills the process): every
// async API of the binding gets a Buffer, and right after the call returns the caller
// rewrites the bytes, transfers the ArrayBuffer (structuredClone, postMessage) — which
// detaches it and lets V8 free its memory — and churns the heap so freed memory is reused.
// Each result must equal the result on the original bytes. Prints one JSON line
// `{case: 'ok' | message}` and exits 0; before the fix this process died with SIGSEGV.
// Usage: node d1-buffers.js API BYTES (API: an index of APIS, or `all`).
const tw = require('../..');
const { collect } = require('./helpers');

const N = Number(process.argv[3] || 8e6);
const ROUNDS = 5;

// `[1,1,…,1]` of about N bytes (the probe's input): millions of values keep the engine
// reading long after the call returned.
function rowsJson() {
  return `[${'1,'.repeat(Math.floor(N / 2) - 1)}1]`;
}

const PRESENTER = { name: 'Row', schema: { type: 'integer' }, rules: ['r'] };

const texts = (r) => JSON.stringify(r.content);

// [name, the call on a buffer, what its result is compared by]
const APIS = [
  ['encodeJsonAsync', (u) => tw.encodeJsonAsync(u), (r) => r],
  ['presentAsync with a presenter', (u) => tw.presentAsync(u, PRESENTER, { format: 'toon' }), texts],
  ['presentAsync without a presenter', (u) => tw.presentAsync(u, null, { format: 'compact' }), texts],
  ['presentStream with a presenter', (u) => collect(tw.presentStream(u, PRESENTER, { format: 'toon' }, { id: 1 })), (r) => r],
  ['presentStream without a presenter', (u) => collect(tw.presentStream(u, null, {})), (r) => r],
];

// What the caller does to its buffer right after the call returned.
const ATTACKS = {
  rewrite(u) {
    u.fill(0x7b); // '{': the bytes are no longer the JSON that was passed
  },
  'transfer (structuredClone)'(u) {
    structuredClone(u.buffer, { transfer: [u.buffer] });
  },
  'transfer (postMessage)'(u) {
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(u.buffer, [u.buffer]);
    port1.close();
    port2.close();
  },
};

function churn() {
  // The probe's churn: the freed backing store is unmapped or reused, so a read of it faults
  // or sees other bytes.
  for (let j = 0; j < 200; j++) new ArrayBuffer(16e6);
}

module.exports = { APIS: APIS.map(([name]) => name) };

async function main() {
  const json = rowsJson();
  const report = {};
  const only = process.argv[2] === undefined || process.argv[2] === 'all' ? null : Number(process.argv[2]);
  for (const [name, call, key] of APIS.filter((_, i) => only === null || i === only)) {
    const expected = key(await call(Buffer.from(json)));
    for (const [attack, hurt] of Object.entries(ATTACKS)) {
      let outcome = 'ok';
      for (let round = 0; round < ROUNDS; round++) {
        const u = new Uint8Array(new ArrayBuffer(json.length));
        u.set(Buffer.from(json));
        const pending = call(u);
        hurt(u);
        churn();
        try {
          const got = key(await pending);
          if (got !== expected && outcome === 'ok') outcome = `differs from the result on the original bytes (${got.length} vs ${expected.length} chars)`;
        } catch (e) {
          if (outcome === 'ok') outcome = `threw ${e.name}: ${e.message}`;
        }
      }
      report[`${name}, ${attack}`] = outcome;
    }
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e.stack}\n`);
    process.exit(2);
  });
}
