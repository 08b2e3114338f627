'use strict';
// present() against the CLI: for every presenter feature, the binding's CallToolResult has
// byte-identical texts and the same isError as `toolwire present --presenter F` on the same
// file and data (the CLI binary of this checkout, built when missing).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const tw = require('..');
const { runCli, collect } = require('./support/helpers');

const INVOICE = {
  name: 'Invoice',
  schema: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      amount_cents: { type: 'integer' },
      status: { type: 'string', enum: ['paid', 'pending', 'overdue'] },
      client: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } },
      note: { type: ['string', 'null'] },
    },
    required: ['id', 'amount_cents', 'status'],
  },
  rules: ['CRITICAL: amount_cents is in CENTS. Divide by 100.'],
  redact: { paths: ['client.email'] },
  select: true,
  ui: {
    item: [{ markdown: 'Invoice {id}: {status}' }],
    collection: [{ table: { columns: ['id', 'status', 'client.name'], title: 'Invoices', width: 'full', priority: 0 } },
      { summary: '{count} invoices, {shown} shown, {hidden} hidden' }, { list: '{id} <{status}>' }],
  },
  suggest: { item: [{ tool: 'billing.get', reason: 'View {id}' }], collection: [{ tool: 'billing.list', reason: 'Next page' }] },
  embed: { client: { name: 'Client', rules: ['Display company name prominently.'], redact: { paths: ['name'], censor: '***' } } },
};

const ROWS = [
  { id: 'INV-1', amount_cents: 1250, status: 'paid', client: { name: 'Acme', email: 'a@acme.test' }, note: null, extra: 1 },
  { id: 'INV-2', amount_cents: 990, status: 'pending', client: { name: 'Bee <b>', email: 'b@bee.test' }, note: 'rush, today' },
  { id: 'INV-3', amount_cents: 5, status: 'overdue', note: 'a|b' },
];

const BAD = [{ id: 'X', amount_cents: 'lots', status: 'lost' }];

const CASES = [
  ['collection, presenter format', INVOICE, ROWS, {}],
  ['single item', INVOICE, ROWS[1], {}],
  ['empty collection', INVOICE, [], {}],
  ...['pretty', 'compact', 'toon', 'toon-comma', 'toon-tab', 'auto'].map((f) => [`format ${f}`, INVOICE, ROWS, { format: f }]),
  ['limit (truncation notice)', INVOICE, ROWS, { limit: 2 }],
  ['limit 0', INVOICE, ROWS, { limit: 0 }],
  ['exactly limit items', { ...INVOICE, limit: 3 }, ROWS, {}],
  ['token budget', INVOICE, ROWS, { tokenBudget: 40, format: 'toon' }],
  ['select', INVOICE, ROWS, { select: ['status', 'id'] }],
  ['select with duplicates', INVOICE, ROWS, { select: ['id', 'id'] }],
  ['select unknown name', INVOICE, ROWS, { select: ['id', 'nope'] }],
  ['select ignored (select off)', { ...INVOICE, select: false }, ROWS, { select: ['id'] }],
  ['output validation failure', INVOICE, BAD, {}],
  ['missing required field', INVOICE, [{ id: 'Y' }], {}],
  ['no schema', { name: 'Plain', rules: ['r1'] }, ROWS, {}],
  ['collection rules and limit in file', { name: 'C', collection_rules: ['many'], limit: 1, token_budget: null, format: 'compact' }, ROWS, {}],
  ['text result', INVOICE, 'already formatted <b>text</b>', {}],
  ['empty text result', INVOICE, '', {}],
  ['reserved tag in data falls back to JSON', INVOICE, [{ id: '<domain_rules>', amount_cents: 1, status: 'paid' }], { format: 'toon' }],
  ['no presenter', null, ROWS, { format: 'toon-comma' }],
  ['no presenter, limit', null, ROWS, { limit: 1 }],
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-node-'));

function cli(presenter, data, opts) {
  const args = ['present', '-'];
  if (presenter) {
    const f = path.join(dir, 'p.json');
    fs.writeFileSync(f, JSON.stringify(presenter));
    args.push('--presenter', f);
  }
  if (opts.select) args.push('--select', opts.select.join(','));
  if (opts.format) args.push('--format', opts.format);
  if (opts.limit !== undefined) args.push('--limit', String(opts.limit));
  if (opts.tokenBudget !== undefined) args.push('--token-budget', String(opts.tokenBudget));
  const r = runCli(args, JSON.stringify(data));
  assert.ok(r.status === 0 || r.status === 5, `cli exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

for (const [name, presenter, data, opts] of CASES) {
  test(`present = CLI: ${name}`, async () => {
    const want = cli(presenter, data, opts);
    const fromValue = tw.present(data, presenter, opts);
    const fromBytes = tw.present(Buffer.from(JSON.stringify(data)), presenter && JSON.stringify(presenter), opts);
    const fromAsync = await tw.presentAsync(data, presenter, opts);
    for (const got of [fromValue, fromBytes, fromAsync]) {
      assert.deepEqual(JSON.parse(JSON.stringify(got)), want);
    }
    assert.deepEqual(Object.keys(fromValue), Object.keys(want));
  });
}

test('side door: non-enumerable, data as encoded, rules, UI blocks, format', () => {
  const r = tw.present(ROWS, INVOICE, { select: ['id', 'client'], limit: 2, format: 'toon' });
  const meta = r[Symbol.for('toolwire.meta')];
  assert.ok(meta);
  assert.equal(Object.keys(r).includes(Symbol.for('toolwire.meta')), false);
  assert.equal(JSON.stringify(r).includes('systemRules'), false);
  // Exactly what the data block encodes (after redaction and select).
  const compact = tw.present(ROWS, INVOICE, { select: ['id', 'client'], limit: 2, format: 'compact' });
  assert.deepEqual(meta.data, JSON.parse(compact.content[0].text));
  assert.deepEqual(meta.data.map((r) => r.id), ['INV-1', 'INV-2']);
  assert.equal(meta.data[0].client.name, '***');
  assert.deepEqual(meta.systemRules, ['CRITICAL: amount_cents is in CENTS. Divide by 100.', 'Display company name prominently.']);
  assert.equal(meta.uiBlocks[0].type, 'summary');
  assert.deepEqual(meta.uiBlocks[1].meta, { title: 'Invoices', width: 'full', priority: 0 });
  assert.equal(meta.format, 'toon');
  assert.deepEqual(meta.suggestions, [{ tool: 'billing.list', reason: 'Next page' }]);
});

test('no value: undefined and null are OK, with or without presenter', () => {
  for (const p of [null, INVOICE]) {
    for (const v of [undefined, null]) {
      const r = tw.present(v, p);
      assert.deepEqual(r, { content: [{ type: 'text', text: 'OK' }] });
    }
  }
});

test('_select that is not an array of names is a validation error response', () => {
  for (const select of ['id', [1], null, { a: 1 }]) {
    const r = tw.present(ROWS, INVOICE, { select });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^<validation_error action="Invoice\/present">\n<field name="_select">/);
  }
});

test('toolSchema: inputSchema with _select, outputSchema, TOON description', () => {
  const s = tw.toolSchema(INVOICE, { name: 'billing', description: 'List invoices' });
  assert.deepEqual(s.inputSchema.properties._select, {
    type: 'array',
    description: '⚡ Context optimization: select only the response fields you need. Omit to receive all fields.',
    items: { type: 'string', enum: ['amount_cents', 'client', 'id', 'note', 'status'] },
  });
  assert.equal(s.outputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(s.description, 'List invoices. Select operation via the `action` parameter.\n\n[1|]{action|desc|required}:\n  present|List invoices|""');
  assert.equal(tw.toolSchema({ name: 'P' }).inputSchema.properties._select, undefined);
});

test('bad presenter files and options are exceptions with the engine message', () => {
  assert.throws(() => tw.present([], { name: 'P', limit: 'x' }), (e) => e instanceof tw.ToolwireError && /limit/.test(e.message));
  assert.throws(() => tw.present([], '{"name": '), tw.ToolwireError);
  assert.throws(() => tw.present([], { nope: 1 }), tw.ToolwireError);
  assert.throws(() => tw.present([], INVOICE, { format: 'yaml' }), TypeError);
  assert.throws(() => tw.present([], INVOICE, { limit: -1 }), TypeError);
  assert.throws(() => tw.present([], INVOICE, { limit: 1.5 }), TypeError);
  assert.throws(() => tw.present(Buffer.from('[1,2,]'), INVOICE), (e) => e instanceof tw.ToolwireError && e.line === 1 && e.column === 6);
});

test('presentStream: the CLI bytes of `present` and `present --frame ID`', async () => {
  const f = path.join(dir, 'frame.json');
  fs.writeFileSync(f, JSON.stringify(INVOICE));
  const big = Array.from({ length: 20000 }, (_, i) => ({ ...ROWS[i % 3], id: `INV-${i}` }));
  for (const [data, opts] of [[ROWS, { limit: 2 }], [big, { limit: 20000, format: 'toon' }], [BAD, {}]]) {
    const args = ['present', '-', '--presenter', f];
    if (opts.limit !== undefined) args.push('--limit', String(opts.limit));
    if (opts.format) args.push('--format', opts.format);
    const line = runCli(args, JSON.stringify(data)).stdout;
    assert.equal(await collect(tw.presentStream(data, INVOICE, opts)), line);
    // The CLI reads `--frame 7` as the number 7: the binding's id 7 (a number; the string
    // '7' stays a string, see hostile.test.js D8).
    for (const id of [7, 'req-1']) {
      const framed = runCli([...args, '--frame', String(id)], JSON.stringify(data)).stdout;
      assert.equal(await collect(tw.presentStream(Buffer.from(JSON.stringify(data)), INVOICE, opts, { id })), framed);
    }
  }
  const proto = runCli(['present', '-', '--protocol', '2026-07-28', '--frame', '1'], '[1]').stdout;
  assert.equal(await collect(tw.presentStream([1], null, {}, { id: 1, protocol: '2026-07-28' })), proto);
  await assert.rejects(collect(tw.presentStream(Buffer.from('[1,'), null)), { category: 'eof' });
});

// A response of many 256 KiB chunks (JSON bytes in, pretty JSON out: about 40 chunks).
function bigRows() {
  return Buffer.from(JSON.stringify(Array.from({ length: 100000 }, (_, i) => ({ id: `INV-${i}`, amount_cents: i * 7, status: i % 3 ? 'paid' : 'open' }))));
}
const CHUNK = 256 << 10;
// Lets the worker run ahead if it would (a bounded number of event-loop turns, no timing
// assertion: the checks below are about counts).
async function settle(turns = 50) {
  for (let i = 0; i < turns; i++) await new Promise((r) => setTimeout(r, 2));
}

test('presentStream pushes chunks while encoding and waits for a slow reader (backpressure)', async () => {
  const buf = bigRows();
  const whole = tw.present(buf, null, {}).content[0].text;
  const stream = tw.presentStream(buf, null, {});
  const parts = [];
  let maxBuffered = 0;
  let maxAhead = 0;
  for await (const c of stream) {
    parts.push(c);
    await settle(3); // a slow consumer: the worker gets every chance to run ahead
    maxBuffered = Math.max(maxBuffered, stream.readableLength);
    const got = parts.reduce((n, p) => n + p.length, 0);
    maxAhead = Math.max(maxAhead, stream[tw.META].producedBytes - got);
  }
  const text = Buffer.concat(parts).toString('utf8');
  assert.equal(JSON.parse(text).content[0].text, whole);
  // Each read takes what is buffered, at most 3 chunks (below): so 1/3 of the chunks at
  // least, whatever the timing (the worker may fill its window of 2 before a read, then
  // a read takes 2 chunks as one part).
  const total = parts.reduce((n, p) => n + p.length, 0);
  assert.ok(parts.length >= Math.floor(total / (3 * CHUNK)) && parts.length > 1, `${parts.length} parts of ${total} bytes`);
  // Never more than the window (2 chunks) plus the one being pushed ahead of the reader.
  assert.ok(maxAhead <= 3 * CHUNK, `engine ran ${maxAhead} bytes ahead of the reader`);
  assert.ok(maxBuffered <= 3 * CHUNK, `${maxBuffered} bytes buffered`);
  assert.equal(stream[tw.META].finished, true);
});

test('presentStream: destroying the stream stops the engine (it never wrote the whole response)', async () => {
  const buf = bigRows();
  const total = Buffer.byteLength(JSON.stringify(tw.present(buf, null, {}))) ;
  const stream = tw.presentStream(buf, null, {});
  const first = await new Promise((resolve, reject) => {
    stream.once('data', resolve);
    stream.once('error', reject);
  });
  assert.ok(first.length > 0);
  stream.destroy();
  for (let i = 0; i < 5000 && !stream[tw.META].finished; i++) await settle(1);
  assert.equal(stream[tw.META].finished, true, 'the worker ended');
  const produced = stream[tw.META].producedBytes;
  assert.ok(produced > 0 && produced <= 4 * CHUNK, `produced ${produced} of about ${total} bytes`);
  assert.ok(total > 20 * CHUNK);
});

test('presentStream: a call error is the only event, before any data', async () => {
  const stream = tw.presentStream(Buffer.from('[1,2'), null, {});
  const events = [];
  stream.on('data', () => events.push('data'));
  await new Promise((resolve) => stream.on('error', (e) => { events.push(e.category); resolve(); }));
  assert.deepEqual(events, ['eof']);
  assert.equal(stream[tw.META].producedBytes, 0);
});
