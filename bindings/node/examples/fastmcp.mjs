// An MCP server on fastmcp (the TypeScript framework) whose tools answer through a
// toolwire/presenter Presenter: the handler returns rows, the presenter makes the response.
// Run it over stdio: `node examples/fastmcp.mjs`. The tests drive createFastServer() in process.
//
// In your project, import from 'toolwire/presenter' instead of '../presenter.mjs'.
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { toolSchema } from '../index.mjs';
import { createPresenter, suggest, toolError, ui } from '../presenter.mjs';
import { invoices } from './server.mjs';

const STATUSES = ['paid', 'pending', 'overdue'];

/** The Invoice presenter, written as an mcp-fusion presenter is. */
export const InvoicePresenter = createPresenter('Invoice')
  .schema(z.object({
    id: z.string(),
    amount_cents: z.number().int(),
    status: z.enum(STATUSES),
    client: z.object({ name: z.string(), email: z.string() }),
  }))
  .systemRules(['CRITICAL: amount_cents is in CENTS. Divide by 100.'])
  .redact(['client.email'])
  .limit(50)
  .collectionUiBlocks((rows) => [ui.summary(`${rows.length} invoices shown`)])
  .suggestActions((inv) => (inv.status === 'overdue' ? [suggest('invoices_get', `Remind ${inv.client.name}`)] : []));

/** The `_select` parameter as the engine publishes it (WIRE.md §4), as a zod schema. */
const { _select: selectSchema } = toolSchema(InvoicePresenter).inputSchema.properties;
const select = z.array(z.enum(selectSchema.items.enum)).optional().describe(selectSchema.description);

export function createFastServer({ rows = invoices(200) } = {}) {
  const server = new FastMCP({ name: 'toolwire-invoices-fastmcp', version: '0.1.0' });

  server.addTool({
    name: 'invoices_list',
    description: 'List invoices',
    parameters: z.object({ status: z.enum(STATUSES).optional(), _select: select }),
    // A built response is a fastmcp ContentResult as it is.
    execute: async ({ status, _select }) =>
      InvoicePresenter.make(status ? rows.filter((r) => r.status === status) : rows, undefined, _select).build(),
  });

  server.addTool({
    name: 'invoices_get',
    description: 'One invoice by id',
    parameters: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      const row = rows.find((r) => r.id === id);
      if (!row) return toolError('NOT_FOUND', { message: `No invoice ${id}.`, suggestion: 'List invoices first.', availableActions: ['invoices_list'] });
      return InvoicePresenter.make(row).build();
    },
  });

  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await createFastServer().start({ transportType: 'stdio' });
}
