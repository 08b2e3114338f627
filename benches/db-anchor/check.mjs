#!/usr/bin/env node
// The answer check and token count of benches/db_load.sh, run before anything is timed: each
// server answers the bench's two questions through the official SDK client, every answer
// must hold the same rows, and each answer's text is counted in o200k_base tokens
// (js-tiktoken, as bindings/cli/tests/js-tiktoken/count.mjs counts).
//
//   node benches/db-anchor/check.mjs NAME[:QUESTION]=SERVER...
//
// `:whole` or `:select` asks that server only that question (the JSON-file source is asked
// only for whole rows: without a presenter it does not take `_select`).
// SERVER is `http://HOST:PORT/PATH` (streamable HTTP) or `stdio:CMD ARG...` (spaces split the
// words). NAME says which tool is called: `toolwire*` calls `invoices` with the JSON
// arguments of $WHOLE_ARGS and $SELECT_ARGS; `dbhub*` calls `execute_sql` and
// `server_postgres*` calls `query`, both with `{"sql": ...}` of $WHOLE_SQL and $SELECT_SQL.
//
// Rows: toolwire's first text block (TOON or JSON, decoded with @toon-format/toon or
// JSON.parse), DBHub's `data.statements[0].rows`, server-postgres's JSON array. Compared as
// JSON with sorted keys against the first server's. Tokens: every text block of the
// result (what the agent reads), and the data block alone. Prints one `check` line per
// server and question, then one `tokens` line; exits 1 on a difference or an error.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { decode } from '@toon-format/toon';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';

const enc = new Tiktoken(o200k_base);
const tokens = (s) => enc.encode(s, [], []).length;

const servers = process.argv.slice(2).map((a) => {
  const i = a.indexOf('=');
  if (i < 1) {
    process.stderr.write('usage: node check.mjs NAME=http://…|NAME=stdio:CMD ARG…\n');
    process.exit(2);
  }
  const [name, only] = a.slice(0, i).split(':');
  return { name, only, spec: a.slice(i + 1) };
});

const need = (v) => {
  if (!process.env[v]) {
    process.stderr.write(`check.mjs: $${v} is not set\n`);
    process.exit(2);
  }
  return process.env[v];
};
const QUESTIONS = {
  whole: { args: JSON.parse(need('WHOLE_ARGS')), sql: need('WHOLE_SQL') },
  select: { args: JSON.parse(need('SELECT_ARGS')), sql: need('SELECT_SQL') },
};

async function connect(spec) {
  const client = new Client({ name: 'toolwire-db-bench-check', version: '0.1.0' });
  if (spec.startsWith('stdio:')) {
    const [command, ...args] = spec.slice('stdio:'.length).split(' ');
    await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  } else {
    await client.connect(new StreamableHTTPClientTransport(new URL(spec)));
  }
  return client;
}

function call(name, q) {
  if (name.startsWith('toolwire')) return { name: 'invoices', arguments: q.args };
  if (name.startsWith('dbhub')) return { name: 'execute_sql', arguments: { sql: q.sql } };
  if (name.startsWith('server_postgres')) return { name: 'query', arguments: { sql: q.sql } };
  throw new Error(`${name}: no tool for this name`);
}

function rowsOf(name, text) {
  if (name.startsWith('toolwire')) {
    try {
      return JSON.parse(text);
    } catch {
      return decode(text);
    }
  }
  const v = JSON.parse(text);
  return name.startsWith('dbhub') ? v.data.statements[0].rows : v;
}

// JSON with every object's keys sorted: the same rows whatever order a server writes keys in.
const canonical = (v) =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]))
      : x,
  );

let failed = false;
for (const [qname, q] of Object.entries(QUESTIONS)) {
  let reference;
  for (const s of servers) {
    if (s.only && s.only !== qname) continue;
    const client = await connect(s.spec);
    try {
      const r = await client.callTool(call(s.name, q));
      const texts = r.content.filter((c) => c.type === 'text').map((c) => c.text);
      if (r.isError || texts.length === 0) throw new Error(`error result: ${JSON.stringify(r).slice(0, 400)}`);
      const rows = rowsOf(s.name, texts[0]);
      const c = canonical(rows);
      reference ??= { name: s.name, c, n: rows.length };
      const same = c === reference.c;
      console.log(`check ${qname} ${s.name} rows ${rows.length} ${same ? 'equal to' : 'DIFFERENT from'} ${reference.name}`);
      if (!same) {
        failed = true;
        console.error(`${s.name}: ${c.slice(0, 300)}\n${reference.name}: ${reference.c.slice(0, 300)}`);
      }
      const all = texts.reduce((n, t) => n + tokens(t), 0);
      const data = tokens(texts[0]);
      console.log(
        `tokens ${qname} ${s.name} o200k ${all} rows ${rows.length} per_row ${(all / rows.length).toFixed(2)} data_o200k ${data} data_per_row ${(data / rows.length).toFixed(2)} blocks ${texts.length} bytes ${Buffer.byteLength(texts.join(''))}`,
      );
    } catch (e) {
      failed = true;
      console.error(`check ${qname} ${s.name}: ${e.message}`);
    } finally {
      await client.close();
    }
  }
}
process.exit(failed ? 1 : 0);
