'use strict';
// Regressions of the hostile-input probe, one test per defect (named after it): what a
// caller can do to the binding — free or rewrite a buffer under an async call, open streams
// and never read them, pass ids and strings JSON cannot carry — must end in the right
// result or a clear exception, never a crash, a silent change or an unbounded resource.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const tw = require('..');
const { collect } = require('./support/helpers');

const META = Symbol.for('toolwire.meta');

// assert.throws for a call that returns a stream when it does not throw: the stream is
// destroyed first, so a failing check cannot leave a job (and the process) waiting.
function refuses(fn, expected, message) {
  assert.throws(() => {
    const r = fn();
    if (r && typeof r.destroy === 'function') r.destroy();
  }, expected, message);
}

// ---------------------------------------------------------------------------------------------
// D1: async work read the caller's buffer after the call returned

const D1_SCRIPT = path.join(__dirname, 'support', 'd1-buffers.js');
const { APIS } = require(D1_SCRIPT);

// Each async API in a child process of its own: before the fix, transferring the buffer
// (which frees its memory) under the call killed the process with SIGSEGV (every API, 9 runs
// of 9), and rewriting it changed the result. glibc's malloc keeps freed large blocks
// mapped once it has freed one (its mmap threshold grows): a fixed threshold makes every
// large block unmapped when freed, so a read of freed memory faults instead of reading
// stale bytes.
test('D1 async calls own their input: rewriting, transferring or detaching the buffer after the call changes nothing', () => {
  const env = { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' };
  APIS.forEach((name, i) => {
    const r = spawnSync(process.execPath, [D1_SCRIPT, String(i), '8e6'], { env, encoding: 'utf8', maxBuffer: 1 << 24 });
    assert.equal(r.signal, null, `${name}: the process died of ${r.signal}`);
    assert.equal(r.status, 0, `${name}: exit ${r.status}\n${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.equal(Object.keys(report).length, 3, `${name}: ${r.stdout}`);
    for (const [c, outcome] of Object.entries(report)) assert.equal(outcome, 'ok', c);
  });
});

// ---------------------------------------------------------------------------------------------
// D6: one OS thread per stream, unbounded

function threads() {
  return Number(/^Threads:\s+(\d+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
}

// The addon's pool (bindings/node/src/pool.rs, THREADS).
const POOL = 4;

test('D6 unread streams share one bounded pool: 120 of them add at most the pool\'s threads and block no other call', { timeout: 600_000 }, async () => {
  // libuv starts its own pool on first use (fs, dns): start it before counting.
  await fs.promises.readFile(__filename);
  const before = threads();
  // A response of about 3 chunks: each unread stream waits for its reader after 2.
  // About 3.6 MB of response a stream: far more than a stream's window and the Readable's
  // buffer hold, so every stream must wait for its reader (with 6,000 rows one could end
  // before waiting, and the loop below waited for it forever).
  const rows = Array.from({ length: 30000 }, (_, i) => ({ id: `INV-${i}`, amount_cents: i, status: 'paid', note: 'x'.repeat(40) }));
  const buf = Buffer.from(JSON.stringify(rows));
  const expected = await collect(tw.presentStream(buf, null, {}, { id: 9 }));
  assert.ok(expected.length > 2 * (256 << 10), `${expected.length} bytes`);
  const streams = Array.from({ length: 120 }, () => tw.presentStream(buf, null, {}, { id: 9 }));
  try {
    // Give the jobs every chance to start threads (no timing assertion: the count below is).
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    const during = threads();
    assert.ok(during - before <= POOL, `${during - before} threads more with 120 unread streams (pool: ${POOL})`);
    // A normal async call completes while every stream is still unread.
    const r = await tw.presentAsync(rows.slice(0, 2), null, { format: 'compact' });
    assert.equal(r.content[0].text, JSON.stringify(rows.slice(0, 2)));
    assert.equal(await tw.encodeJsonAsync('[{"a":1}]'), '[1]{a}:\n  1');
    assert.ok(threads() - before <= POOL);
    // Read to the end, every stream is the whole response.
    for (const s of streams) assert.equal(await collect(s), expected);
    assert.ok(threads() - before <= POOL);
  } finally {
    for (const s of streams) s.destroy();
  }
});

// When every thread holds a paused stream, a waiting call takes the thread of one stream
// (which finishes into its buffer), not of all: the others keep their backpressure.
test('D6 a call waiting for the pool frees one paused stream\'s thread, not every one', { timeout: 600_000 }, async () => {
  // About 3.6 MB of response a stream: far more than a stream's window and the Readable's
  // buffer hold, so every stream must wait for its reader (with 6,000 rows one could end
  // before waiting, and the loop below waited for it forever).
  const rows = Array.from({ length: 30000 }, (_, i) => ({ id: `INV-${i}`, amount_cents: i, status: 'paid', note: 'x'.repeat(40) }));
  const buf = Buffer.from(JSON.stringify(rows));
  const expected = await collect(tw.presentStream(buf, null, {}));
  const streams = Array.from({ length: POOL }, () => tw.presentStream(buf, null, {}));
  try {
    // Every thread of the pool holds a stream waiting for its reader (event-loop turns until
    // then, no timing).
    // A watchdog, not a timing: a stream that can never wait fails the test instead of
    // hanging it.
    const deadline = Date.now() + 60_000;
    while (!streams.every((s) => s[META].waiting)) {
      assert.ok(Date.now() < deadline, `streams never all waiting: ${JSON.stringify(streams.map((s) => s[META]))}`);
      await new Promise((r) => setImmediate(r));
    }
    const r = await tw.presentAsync([1], null, { format: 'compact' });
    assert.equal(r.content[0].text, '[1]');
    assert.equal(streams.filter((s) => s[META].spilled).length, 1);
    for (const s of streams) assert.equal(await collect(s), expected);
  } finally {
    for (const s of streams) s.destroy();
  }
});

// ---------------------------------------------------------------------------------------------
// D8: presentStream changed the JSON-RPC id's type

test('D8 presentStream keeps the id\'s type: a string stays a string, an integer a number; anything else is a TypeError', async () => {
  const idOf = async (id) => JSON.parse(await collect(tw.presentStream([1], null, {}, { id }))).id;
  assert.equal(await idOf('42'), '42');
  assert.equal(await idOf('1.5'), '1.5');
  assert.equal(await idOf(''), '');
  assert.equal(await idOf(42), 42);
  assert.equal(await idOf(-7), -7);
  assert.equal(await idOf(0), 0);
  assert.equal(await idOf(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  // A BigInt keeps every digit (JSON.parse of the line would round it: compare the text).
  const big = await collect(tw.presentStream([1], null, {}, { id: 123456789012345678901234567890n }));
  assert.ok(big.startsWith('{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":'), big.slice(0, 80));
  // No id: the bare CallToolResult line.
  assert.ok((await collect(tw.presentStream([1], null, {}, { id: null }))).startsWith('{"content":'));
  const refused = [
    [1.5, 'got 1.5'], [NaN, 'got NaN'], [Infinity, 'got Infinity'], [2 ** 53, 'got 9007199254740992'],
    [{ a: 1 }, 'got object'], [[1], 'got object'], [true, 'got boolean'], [Symbol('s'), 'got symbol'],
  ];
  for (const [id, tail] of refused) {
    refuses(() => tw.presentStream([1], null, {}, { id }), {
      name: 'TypeError',
      message: `frame.id must be a string or an integer (a safe-integer number or a BigInt), ${tail}`,
    }, String(typeof id === 'symbol' ? 'symbol' : id));
  }
});

// ---------------------------------------------------------------------------------------------
// D11: a lone surrogate in a JS string was replaced with U+FFFD by some entry points

const lone = (what, unit, at) => ({
  name: 'TypeError',
  message: `${what} holds a lone surrogate (U+${unit}) at index ${at}, which UTF-8 text cannot represent`,
});

test('D11 every entry point taking a JS string refuses a lone surrogate, naming the argument and the index', async () => {
  const P = { name: 'P', select: true, schema: { type: 'object', properties: { a: { type: 'integer' } } } };
  for (const [s, unit, at] of [['\ud800', 'D800', 0], ['ab\udfff', 'DFFF', 2], ['😀x\ud83d', 'D83D', 3], ['\udc00\ud800', 'DC00', 0]]) {
    const json = JSON.stringify(['']).replace('""', `"${s}"`); // the raw character in JSON text
    const at1 = at + 2;
    assert.throws(() => tw.encodeJson(json), lone('encodeJson: the JSON text', unit, at1));
    await assert.rejects(tw.encodeJsonAsync(json), lone('encodeJsonAsync: the JSON text', unit, at1));
    assert.throws(() => tw.decode(`a: ${s}`), lone('decode: the TOON text', unit, at + 3));
    assert.throws(() => tw.decodeFromLines(['a:', `  b: ${s}`]), lone('decodeFromLines: line 2', unit, at + 5));
    assert.throws(() => Array.from(tw.decodeStreamSync([`a: ${s}`])), lone('decodeStreamSync: line 1', unit, at + 3));
    await assert.rejects(async () => { for await (const _ of tw.decodeStream([`a: ${s}`])); }, lone('decodeStream: line 1', unit, at + 3));
    assert.throws(() => tw.present(s), lone('present: the string result', unit, at));
    await assert.rejects(tw.presentAsync(s), lone('presentAsync: the string result', unit, at));
    refuses(() => tw.presentStream(s), lone('presentStream: the string result', unit, at));
    assert.throws(() => tw.present([{ a: 1 }], P, { select: ['a', s] }), lone('select[1]', unit, at));
    assert.throws(() => tw.present([], { ...P, rules: ['ok', s] }), lone('presenter.rules[1]', unit, at));
    assert.throws(() => tw.present([], JSON.stringify({ name: 'Q' }).replace('"Q"', `"${s}"`)), lone('presenter: the JSON text', unit, at + 9));
    assert.throws(() => tw.present([], null, { action: s }), lone('action', unit, at));
    assert.throws(() => tw.present([], null, { format: s }), lone('format', unit, at));
    refuses(() => tw.presentStream([], null, {}, { id: s }), lone('frame.id', unit, at));
    refuses(() => tw.presentStream([], null, {}, { protocol: s }), lone('frame.protocol', unit, at));
    assert.throws(() => tw.toolSchema(P, { description: s }), lone('toolSchema: description', unit, at));
    assert.throws(() => tw.toolSchema(P, { actions: [{ name: 'a', description: s }] }), lone('toolSchema: actions[0].description', unit, at));
    const handler = tw.wrap(() => { throw new Error(s); });
    await assert.rejects(handler({}), lone('wrap: the handler\'s error message', unit, at));
  }
  // A value is not a string argument: JSON.stringify writes the lone surrogate as an escape,
  // which the engine keeps (compact JSON in place of TOON, WIRE.md §2).
  const r = tw.present({ a: 'x\ud800' }, null, { format: 'toon' });
  assert.equal(r.content[0].text, '{"a":"x\\ud800"}');
  assert.deepEqual(r[META].data, { a: 'x\ud800' });
  // Well-formed pairs pass everywhere.
  assert.equal(tw.encodeJson('["😀"]'), '[1]: 😀');
  assert.deepEqual(tw.decode('a: 😀'), { a: '😀' });
});

// ---------------------------------------------------------------------------------------------
// D13: the side door's data was re-read from the caller's buffer

test('D13 the side door\'s data is what was presented, whatever happens to the caller\'s buffer afterwards', async () => {
  const rows = [{ id: 'A', n: 1 }, { id: 'B', n: 2 }];
  const make = () => Buffer.from(JSON.stringify(rows));
  for (const call of [(b) => tw.present(b, null, { format: 'compact' }), (b) => tw.presentAsync(b, null, { format: 'compact' })]) {
    // Rewritten after the call: still the rows that were presented.
    const b1 = make();
    const r1 = await call(b1);
    b1.fill(0x20);
    assert.equal(r1.content[0].text, JSON.stringify(rows));
    assert.deepEqual(r1[META].data, rows);
    assert.deepEqual(r1[META].data, JSON.parse(r1.content[0].text));
    // Detached (transferred) after the call: still readable, still the rows.
    const u = new Uint8Array(new ArrayBuffer(make().length));
    u.set(make());
    const r2 = await call(u);
    structuredClone(u.buffer, { transfer: [u.buffer] });
    assert.equal(u.byteLength, 0);
    assert.deepEqual(r2[META].data, rows);
  }
});
