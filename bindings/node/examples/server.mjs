// An MCP server (the official TypeScript SDK) whose tools answer through toolwire presenters.
// Run it over stdio: `node examples/server.mjs`. The tests drive createServer() in process.
//
// In your project, import from 'toolwire' instead of '../index.mjs'.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { present, toolSchema, wrap } from '../index.mjs';

/** The Invoice presenter: a presenter file, as the CLI reads it (CLI.md). */
export const invoicePresenter = {
  name: 'Invoice',
  schema: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      amount_cents: { type: 'integer' },
      status: { type: 'string', enum: ['paid', 'pending', 'overdue'] },
      client: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } },
    },
    required: ['id', 'amount_cents', 'status'],
  },
  rules: ['CRITICAL: amount_cents is in CENTS. Divide by 100.'],
  limit: 50,
  redact: { paths: ['client.email'] },
  select: true,
  ui: { collection: [{ summary: '{count} invoices, {shown} shown' }] },
  suggest: { collection: [{ tool: 'invoices_get', reason: 'View details' }] },
  format: 'toon',
};

const STATUSES = ['paid', 'pending', 'overdue'];

/** `n` deterministic invoices. */
export function invoices(n) {
  return Array.from({ length: n }, (_, i) => ({
    id: `INV-${String(i + 1).padStart(6, '0')}`,
    amount_cents: (i * 7919) % 100000,
    status: STATUSES[i % 3],
    client: { name: `Client ${i % 97}`, email: `billing${i % 97}@example.com` },
    internal_cost: i,
  }));
}

export function createServer({ rows = invoices(200) } = {}) {
  const server = new McpServer({ name: 'toolwire-invoices', version: '0.1.0' });
  const schema = toolSchema(invoicePresenter, { name: 'invoices_list', description: 'List invoices' });
  const select = schema.inputSchema.properties._select;

  // Implicit wrapping: the handler returns plain data; _select, the presenter, truncation,
  // redaction, rules, UI and suggestions are toolwire's.
  server.registerTool('invoices_list', {
    description: schema.description,
    inputSchema: {
      status: z.enum(STATUSES).optional(),
      // The engine validates the names (a <validation_error> the agent can act on).
      _select: z.array(z.string()).optional().describe(select.description),
    },
  }, wrap(async ({ status }) => (status ? rows.filter((r) => r.status === status) : rows), { presenter: invoicePresenter }));

  server.registerTool('invoices_get', {
    description: 'One invoice by id',
    inputSchema: { id: z.string() },
  }, wrap(async ({ id }) => {
    const row = rows.find((r) => r.id === id);
    if (!row) throw new Error(`no invoice ${id}`);
    return row;
  }, { presenter: invoicePresenter }));

  // present() returns a CallToolResult a registerTool callback returns as is.
  server.registerTool('invoices_overdue', { description: 'Overdue invoices as TOON' },
    async () => present(rows.filter((r) => r.status === 'overdue'), invoicePresenter, { limit: 5 }));

  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await createServer().connect(new StdioServerTransport());
}
