#!/usr/bin/env node
// The bench anchor of `toolwire serve`: the same `invoices` tool written the way a user of the
// official TypeScript MCP SDK would write it today, with @toon-format/toon for the data.
//
//   node server.mjs [--http HOST:PORT | --stdio] [--rows N] [--data FILE] [--limit N]
//
// * `--http 127.0.0.1:0` serves stateless streamable HTTP at POST /mcp (JSON responses, a new
//   Server and transport per request, as the SDK's stateless example does); the first stderr
//   line is `listening on http://HOST:PORT/mcp` once the socket is bound (port 0 picks one).
// * `--stdio` (the default) serves newline-delimited JSON-RPC on stdin/stdout.
// * The rows: `--data FILE` (a JSON array, e.g. `toolwire demo --rows N --dump compact`),
//   else the `--rows N` (default 100000) invoices of `toolwire demo`'s generator, ported below.
// * `--limit N` (default 50): the most rows one `list` returns, as the Invoice presenter.
//
// The tool: `action` list/get, `where` (root field = JSON scalar), `offset`, `limit`,
// `format` (toon, toon-comma, toon-tab, compact, pretty, auto), `_select` (root keys, request
// order), `id` (get). `client.email` is redacted to `[REDACTED]` as the Invoice presenter does,
// so the data the two servers send is the same.

import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { encode } from '@toon-format/toon';

function parseArgs(argv) {
  const opts = { http: null, rows: 100000, data: null, limit: 50 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--http') opts.http = next();
    else if (a === '--stdio') opts.http = null;
    else if (a === '--rows') opts.rows = natural(a, next());
    else if (a === '--data') opts.data = next();
    else if (a === '--limit') opts.limit = natural(a, next());
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  return opts;
}

function natural(flag, s) {
  if (!/^[0-9]+$/.test(s)) usage(`${flag} needs a natural number, got ${JSON.stringify(s)}`);
  return Number(s);
}

function usage(msg) {
  process.stderr.write(
    `mcp-anchor: ${msg}\nusage: node server.mjs [--http HOST:PORT | --stdio] [--rows N] [--data FILE] [--limit N]\n`,
  );
  process.exit(2);
}

// `toolwire demo`'s generator (bindings/mcp/src/demo.rs), the same rows byte for byte:
// xorshift64* over 64-bit integers, the same draws in the same order.
const CLIENTS = [
  ['Acme Corp', 'billing@acme.example'],
  ['Globex', 'ap@globex.example'],
  ['Initech, Ltd', 'invoices@initech.example'],
  ['Umbrella "Health"', 'finance@umbrella.example'],
  ['Stark Industries', 'ap@stark.example'],
  ['Wayne Enterprises', 'billing@wayne.example'],
  ['Hooli', 'pay@hooli.example'],
  ['Soylent | Foods', 'ap@soylent.example'],
  ['Tyrell Corporation', 'billing@tyrell.example'],
  ['Cyberdyne Systems', 'ap@cyberdyne.example'],
  ['Müller & Söhne GmbH', 'rechnung@mueller.example'],
  ['株式会社サンプル', 'keiri@sample.example'],
];
const MASK = (1n << 64n) - 1n;

function invoices(rows) {
  let x = 0x9e3779b97f4a7c15n;
  const below = (n) => {
    x ^= x >> 12n;
    x = (x ^ (x << 25n)) & MASK;
    x ^= x >> 27n;
    return Number(((x * 0x2545f4914f6cdd1dn) & MASK) % BigInt(n));
  };
  const pad = (n, w) => String(n).padStart(w, '0');
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) {
    const [name, email] = CLIENTS[below(CLIENTS.length)];
    const day = below(365);
    const amount = 100 + below(5000000);
    const currency = ['EUR', 'USD', 'GBP', 'JPY'][below(4)];
    const status = ['paid', 'paid', 'pending', 'overdue'][below(4)];
    const month = 1 + (Math.floor(day / 31) % 12);
    const dom = 1 + (day % 28);
    const hour = below(24);
    const minute = below(60);
    out[i] = {
      id: `INV-${pad(i + 1, 7)}`,
      client: { name, email },
      amount_cents: amount,
      currency,
      status,
      issued_at: `2026-${pad(month, 2)}-${pad(dom, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:00Z`,
    };
  }
  return out;
}

// Root keys in schema order (`where`), and sorted bytewise (`_select`, WIRE.md §4).
const FIELDS = ['id', 'client', 'amount_cents', 'currency', 'status', 'issued_at'];
const SORTED = [...FIELDS].sort();
const FORMATS = ['pretty', 'compact', 'toon', 'toon-comma', 'toon-tab', 'auto'];

function toolDefinition(rowCount, limit) {
  return {
    name: 'invoices',
    // toolwire's TOON tool description (WIRE.md §6), the same text.
    description:
      `Query the invoices collection (${rowCount} rows). Select operation via the \`action\` parameter.\n\n` +
      '[2|]{action|desc|required}:\n' +
      '  list|"List the rows of invoices: filter with where; page with the cursor each page names (or offset) and limit"|""\n' +
      '  get|Get one row of invoices by its id|id',
    inputSchema: {
      type: 'object',
      properties: {
        action: {
          type: 'string',
          enum: ['list', 'get'],
          description: 'list: rows matching where, paged by offset and limit; get: one row by id',
        },
        where: {
          type: 'object',
          description:
            'list: keep rows whose root field equals the value (numbers by value, strings exactly); every key must hold',
          additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
          propertyNames: { enum: FIELDS },
        },
        offset: {
          type: 'integer',
          minimum: 0,
          default: 0,
          description: 'list: skip this many matching rows',
        },
        limit: {
          type: 'integer',
          minimum: 0,
          description: `list: at most this many rows (at most ${limit}; default ${limit})`,
        },
        format: {
          type: 'string',
          enum: FORMATS,
          description: "the data block's format (default toon)",
        },
        id: { type: ['string', 'integer'], description: 'get: the row\'s id' },
        _select: {
          type: 'array',
          description:
            '⚡ Context optimization: select only the response fields you need. Omit to receive all fields.',
          items: { type: 'string', enum: SORTED },
        },
      },
      required: ['action'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

class Invalid extends Error {}

function isScalar(v) {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

// What the handler does per call: check the arguments, filter, page, redact, project, encode.
function call(rows, limit, args) {
  args = args ?? {};
  const { action } = args;
  if (action !== 'list' && action !== 'get') throw new Invalid('action: expected list or get');
  let select = null;
  if (args._select !== undefined) {
    if (!Array.isArray(args._select)) throw new Invalid('_select: expected an array');
    for (const s of args._select) {
      if (!FIELDS.includes(s)) throw new Invalid(`_select: Unknown field ${JSON.stringify(s)}`);
    }
    select = args._select.length ? [...new Set(args._select)] : null;
  }
  const format = args.format ?? 'toon';
  if (!FORMATS.includes(format)) throw new Invalid('format: unknown format');
  const view = (row) => {
    const r = { ...row, client: row.client && { ...row.client, email: '[REDACTED]' } };
    if (!select) return r;
    const o = {};
    for (const k of select) if (k in r) o[k] = r[k];
    return o;
  };
  if (action === 'get') {
    const row = rows.find((r) => r.id === args.id || r.id === String(args.id));
    if (!row) return { isError: true, text: `NOT_FOUND: no invoice with id ${JSON.stringify(args.id)}; list them with action list` };
    return { text: render(view(row), format) };
  }
  const where = args.where ?? {};
  if (typeof where !== 'object' || Array.isArray(where) || where === null) {
    throw new Invalid('where: expected an object');
  }
  const conds = Object.entries(where);
  for (const [k, v] of conds) {
    if (!FIELDS.includes(k)) throw new Invalid(`where: Unknown field ${JSON.stringify(k)}`);
    if (!isScalar(v)) throw new Invalid(`where.${k}: expected a JSON scalar`);
  }
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new Invalid('offset: expected an integer >= 0');
  let n = args.limit ?? limit;
  if (!Number.isInteger(n) || n < 0) throw new Invalid('limit: expected an integer >= 0');
  n = Math.min(n, limit);
  const page = [];
  let matched = 0;
  for (const r of rows) {
    if (!conds.every(([k, v]) => r[k] === v)) continue;
    if (matched >= offset && page.length < n) page.push(view(r));
    matched++;
  }
  let text = render(page, format);
  const next = offset + page.length;
  if (next < matched) text += `\n\nnext: action list, offset ${next} (${matched - next} rows remain)`;
  return { text };
}

function render(value, format) {
  switch (format) {
    case 'pretty':
      return JSON.stringify(value, null, 2);
    case 'compact':
      return JSON.stringify(value);
    case 'toon-comma':
      return encode(value);
    case 'toon-tab':
      return encode(value, { delimiter: '\t' });
    default: // toon, auto: the Invoice presenter's pipe-delimited TOON
      return encode(value, { delimiter: '|' });
  }
}

function makeServer(rows, limit) {
  const server = new Server(
    { name: 'toolwire-mcp-anchor', version: '0.1.0' },
    { capabilities: { tools: {} } },
  );
  const tool = toolDefinition(rows.length, limit);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (req.params.name !== tool.name) {
      throw new Error(`Unknown tool: ${req.params.name}`);
    }
    try {
      const out = call(rows, limit, req.params.arguments);
      return { content: [{ type: 'text', text: out.text }], isError: out.isError ?? false };
    } catch (e) {
      if (e instanceof Invalid) {
        return { content: [{ type: 'text', text: `validation error: ${e.message}` }], isError: true };
      }
      throw e;
    }
  });
  return server;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const rows = opts.data ? JSON.parse(readFileSync(opts.data, 'utf8')) : invoices(opts.rows);
  if (!Array.isArray(rows)) usage(`${opts.data}: expected a JSON array of objects`);
  if (!opts.http) {
    await makeServer(rows, opts.limit).connect(new StdioServerTransport());
    return;
  }
  const m = /^(.*):([0-9]+)$/.exec(opts.http);
  if (!m) usage(`--http needs HOST:PORT, got ${JSON.stringify(opts.http)}`);
  const host = m[1].replace(/^\[(.*)\]$/, '$1');
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp' && !req.url.startsWith('/mcp?')) {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    // Stateless: a new server and transport per request, closed with the response.
    const server = makeServer(rows, opts.limit);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(e) } }));
      }
    }
  });
  http.listen(Number(m[2]), host, () => {
    const a = http.address();
    const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    process.stderr.write(`listening on http://${shown}:${a.port}/mcp\n`);
  });
}

main().catch((e) => {
  process.stderr.write(`mcp-anchor: ${e?.stack ?? e}\n`);
  process.exit(1);
});
