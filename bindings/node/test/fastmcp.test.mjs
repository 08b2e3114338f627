// The fastmcp example driven by a client. fastmcp has no client of its own (its own tests
// use the official SDK's), so this is the SDK's Client: in process over InMemoryTransport
// (fastmcp's `connect`), and over stdio against the example run as a program.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createFastServer, InvoicePresenter } from '../examples/fastmcp.mjs';
import { invoices } from '../examples/server.mjs';

const rows = invoices(200);
const plain = (r) => JSON.parse(JSON.stringify(r));

async function check(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['invoices_list', 'invoices_get']);
  assert.deepEqual(tools[0].inputSchema.properties._select.items.enum, ['amount_cents', 'client', 'id', 'status']);
  assert.match(tools[0].inputSchema.properties._select.description, /^⚡ Context optimization: select only the response fields you need\./);

  const all = await client.callTool({ name: 'invoices_list', arguments: {} });
  assert.deepEqual(all, plain(InvoicePresenter.make(rows).build()));
  const texts = all.content.map((c) => c.text);
  assert.match(texts[0], /^\[\n {2}\{\n {4}"id": "INV-000001",/);
  assert.ok(texts[0].includes('"email": "[REDACTED]"') && !texts[0].includes('internal_cost'));
  assert.deepEqual(texts.slice(1), [
    '<ui_passthrough type="summary">\n📊 **Summary**: ⚠️ Dataset truncated. 50 shown, 150 hidden. Use filters to narrow results.\n</ui_passthrough>',
    '<ui_passthrough type="summary">\n📊 **Summary**: 50 invoices shown\n</ui_passthrough>',
    '<domain_rules>\n- CRITICAL: amount_cents is in CENTS. Divide by 100.\n</domain_rules>',
  ]);

  const sel = await client.callTool({ name: 'invoices_list', arguments: { status: 'overdue', _select: ['status', 'id'] } });
  assert.deepEqual(sel, plain(InvoicePresenter.make(rows.filter((r) => r.status === 'overdue'), undefined, ['status', 'id']).build()));
  assert.match(sel.content[0].text, /^\[\n {2}\{\n {4}"status": "overdue",\n {4}"id": "INV-000003"\n {2}\},/);
  assert.equal(sel.content.at(-1).text, '<action_suggestions>\n- invoices_get: Remind Client 2\n</action_suggestions>');

  const one = await client.callTool({ name: 'invoices_get', arguments: { id: 'INV-000002' } });
  assert.deepEqual(one, plain(InvoicePresenter.make(rows[1]).build()));
  const missing = await client.callTool({ name: 'invoices_get', arguments: { id: 'nope' } });
  assert.equal(missing.isError, true);
  assert.equal(missing.content[0].text, '<tool_error code="NOT_FOUND" severity="error">\n<message>No invoice nope.</message>\n<recovery>List invoices first.</recovery>\n<available_actions>\n  <action>invoices_list</action>\n</available_actions>\n</tool_error>');
}

test('fastmcp example, in process: tools answer through the presenter', async () => {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = createFastServer({ rows });
  await server.connect(a);
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(b);
  try {
    await check(client);
  } finally {
    await client.close();
  }
});

test('fastmcp example, over stdio as a program', async () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(here, '..', 'examples', 'fastmcp.mjs')], stderr: 'ignore' });
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(transport);
  try {
    await check(client);
  } finally {
    await client.close();
  }
});
