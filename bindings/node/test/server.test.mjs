// The example server driven by the SDK's own Client, in process (InMemoryTransport).
import test from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createServer, invoicePresenter, invoices } from '../examples/server.mjs';
import { present } from '../index.mjs';

async function connect() {
  const [a, b] = InMemoryTransport.createLinkedPair();
  const server = createServer({ rows: invoices(200) });
  await server.connect(a);
  const client = new Client({ name: 'test', version: '0' });
  await client.connect(b);
  return { client, server };
}

const rows = invoices(200);
const plain = (r) => JSON.parse(JSON.stringify(r));

test('example server: list, _select, validation, errors, present as is', async () => {
  const { client, server } = await connect();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['invoices_list', 'invoices_get', 'invoices_overdue']);
  assert.match(tools[0].description, /^List invoices\. Select operation via the `action` parameter\./);

  const all = await client.callTool({ name: 'invoices_list', arguments: {} });
  assert.deepEqual(all, plain(present(rows, invoicePresenter)));
  assert.match(all.content[0].text, /^\[50\|\]\{id\|amount_cents\|status\|client\{name\|email\}\}:/);
  assert.ok(all.content.some((c) => c.text.includes('Dataset truncated. 50 shown, 150 hidden')));

  const sel = await client.callTool({ name: 'invoices_list', arguments: { status: 'paid', _select: ['status', 'id'] } });
  assert.deepEqual(sel, plain(present(rows.filter((r) => r.status === 'paid'), invoicePresenter, { select: ['status', 'id'] })));
  assert.match(sel.content[0].text, /^\[50\|\]\{status\|id\}:\n {2}paid\|INV-000001/);

  const bad = await client.callTool({ name: 'invoices_list', arguments: { _select: ['id', 'internal_cost'] } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^<validation_error action="Invoice\/present">\n<field name="_select">Unknown field 'internal_cost'/);

  const one = await client.callTool({ name: 'invoices_get', arguments: { id: 'INV-000002' } });
  assert.equal(one.content[0].text, 'id: INV-000002\namount_cents: 7919\nstatus: pending\nclient:\n  name: Client 1\n  email: "[REDACTED]"');

  const missing = await client.callTool({ name: 'invoices_get', arguments: { id: 'nope' } });
  assert.equal(missing.isError, true);
  assert.equal(missing.content[0].text, '<tool_error code="INTERNAL_ERROR" severity="error">\n<message>[Invoice/present] no invoice nope</message>\n<recovery>This may be a transient error. Retry the same call with identical parameters.</recovery>\n</tool_error>');

  const overdue = await client.callTool({ name: 'invoices_overdue', arguments: {} });
  assert.deepEqual(overdue, plain(present(rows.filter((r) => r.status === 'overdue'), invoicePresenter, { limit: 5 })));

  await client.close();
  await server.close();
});
