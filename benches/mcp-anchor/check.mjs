#!/usr/bin/env node
// Checks the anchor against `toolwire serve` before any bench times it: both servers on
// loopback HTTP, the same calls through the official SDK client, the same rows back.
//
//   node benches/mcp-anchor/check.mjs TOOLWIRE_BIN [--rows N]
//
// For each call: the data block (toolwire's first content block, the anchor's only one, less
// its `next:` line) must decode to the same value, and be the same bytes for the TOON formats
// and `compact`. Exits 1 on the first difference, naming the call.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decode } from '@toon-format/toon';

const here = dirname(fileURLToPath(import.meta.url));
const [bin, ...rest] = process.argv.slice(2);
if (!bin) {
  process.stderr.write('usage: node check.mjs TOOLWIRE_BIN [--rows N]\n');
  process.exit(2);
}
const rows = rest[0] === '--rows' ? rest[1] : '100000';

function start(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${cmd}: no listening line in 60 s: ${err}`)), 60000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)\r?\n/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`${cmd} exited ${code}: ${err}`)));
  });
}

async function connect(url) {
  const client = new Client({ name: 'toolwire-anchor-check', version: '0.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const CALLS = [
  { action: 'list' },
  { action: 'list', where: { status: 'overdue' }, limit: 7 },
  { action: 'list', where: { currency: 'JPY', status: 'paid' }, offset: 1000, limit: 50 },
  { action: 'list', where: { amount_cents: 4285822 } },
  { action: 'list', offset: 99990 },
  { action: 'list', limit: 0 },
  { action: 'list', format: 'toon-comma', limit: 20 },
  { action: 'list', format: 'toon-tab', limit: 20 },
  { action: 'list', format: 'compact', limit: 20 },
  { action: 'list', format: 'pretty', limit: 5 },
  { action: 'list', _select: ['status', 'id'], where: { currency: 'EUR' } },
  { action: 'list', _select: ['client'], limit: 3 },
  { action: 'get', id: 'INV-0000042' },
  { action: 'get', id: 'INV-0099999', format: 'compact' },
];

function dataOf(result, anchor) {
  let text = result.content[0].text;
  if (anchor) text = text.replace(/\n\nnext: action list, offset [0-9]+ \([0-9]+ rows remain\)$/, '');
  return text;
}

function parse(text, format) {
  return format === 'compact' || format === 'pretty' ? JSON.parse(text) : decode(text, { strict: true });
}

const servers = [];
let failed = false;
try {
  const tw = await start(bin, ['serve', '--http', '127.0.0.1:0', '--rows', rows]);
  servers.push(tw.child);
  const an = await start(process.execPath, [join(here, 'server.mjs'), '--http', '127.0.0.1:0', '--rows', rows]);
  servers.push(an.child);
  const [a, b] = [await connect(tw.url), await connect(an.url)];
  const [ta, tb] = [(await a.listTools()).tools[0], (await b.listTools()).tools[0]];
  for (const k of ['name', 'description']) {
    if (ta[k] !== tb[k]) throw new Error(`tools/list: ${k} differs: ${JSON.stringify(ta[k])} vs ${JSON.stringify(tb[k])}`);
  }
  // `cursor` is toolwire's own (SERVE.md §8); the anchor pages by offset only.
  const keys = (t) => JSON.stringify(Object.keys(t.inputSchema.properties).filter((k) => k !== 'cursor').sort());
  if (keys(ta) !== keys(tb)) throw new Error(`tools/list: inputSchema properties differ: ${keys(ta)} vs ${keys(tb)}`);
  for (const args of CALLS) {
    const name = JSON.stringify(args);
    const [ra, rb] = [
      await a.callTool({ name: 'invoices', arguments: args }),
      await b.callTool({ name: 'invoices', arguments: args }),
    ];
    if (ra.isError || rb.isError) throw new Error(`${name}: an error result: ${JSON.stringify([ra, rb]).slice(0, 400)}`);
    const format = args.format ?? 'toon';
    const [da, db] = [dataOf(ra, false), dataOf(rb, true)];
    const [va, vb] = [parse(da, format), parse(db, format)];
    if (JSON.stringify(va) !== JSON.stringify(vb)) {
      throw new Error(`${name}: different rows:\n${da.slice(0, 300)}\n---\n${db.slice(0, 300)}`);
    }
    const bytesEqual = da === db;
    if (!bytesEqual && format !== 'pretty') {
      throw new Error(`${name}: same rows, different ${format} bytes:\n${da.slice(0, 300)}\n---\n${db.slice(0, 300)}`);
    }
    const n = Array.isArray(va) ? va.length : 1;
    process.stdout.write(`ok ${name}: ${n} rows, ${da.length} chars, bytes ${bytesEqual ? 'equal' : 'differ (same value)'}\n`);
  }
  await a.close();
  await b.close();
} catch (e) {
  failed = true;
  process.stderr.write(`check failed: ${e.message}\n`);
} finally {
  for (const c of servers) c.kill();
}
process.stdout.write(failed ? 'anchor check: FAILED\n' : `anchor check: ${CALLS.length} calls agree\n`);
process.exit(failed ? 1 : 0);
