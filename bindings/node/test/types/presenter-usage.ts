// toolwire/presenter's types, compiled strictly (test/types.test.js).
import { createPresenter, definePresenter, response, ui, suggest, toolError, success, MVA_META_SYMBOL, META, PresenterValidationError } from 'toolwire/presenter';
import type { ToolResponse, UiBlock } from 'toolwire/presenter';
import { present, toolSchema, wrap } from 'toolwire';

interface Invoice { id: string; amount_cents: number }
const schema = { type: 'object', properties: { id: { type: 'string' }, amount_cents: { type: 'integer' } } };
const p = createPresenter('Invoice')
  .schema(schema)
  .systemRules(['CRITICAL: amount_cents is in CENTS.'])
  .collectionUiBlocks((rows: Invoice[]) => [ui.table(['id'], rows.map((r) => [r.id]), { width: 'full' })])
  .suggestActions(() => [suggest('billing.pay', 'Pay')])
  .limit(50);
const r: ToolResponse = p.make([{ id: 'A', amount_cents: 1 }], { role: 'admin' }, ['id']).llmHint('h').build();
const texts: string[] = r.content.map((c) => c.text);
const rules: readonly string[] = r[MVA_META_SYMBOL].systemRules;
const format: string = r[META].format;
const block: UiBlock = ui.summary('x', { priority: 1 });
const d = definePresenter<Invoice>({ name: 'D', rules: (i) => [i.id], limit: 5 });
const e: ToolResponse = toolError('NOT_FOUND', { message: 'm', retryAfter: 3 });
const s: ToolResponse = response('ok').uiBlock(block).build();
const ok = success({ a: 1 });
const err: PresenterValidationError | null = null;
const selectEnum: unknown = toolSchema(p, { name: 'invoices' }).inputSchema;
const viaPresent = present([{ id: 'A', amount_cents: 1 }], p, { select: ['id'] });
const handler = wrap(async () => [], { presenter: p });
void [viaPresent, handler, selectEnum, texts, rules, format, d, e, s, ok, err];

// A zod schema types the callbacks.
import { z } from 'zod';
const typed = createPresenter('Typed').schema(z.object({ id: z.string(), n: z.number() }))
  .systemRules((row) => [row.id.toUpperCase(), row.n.toFixed(0)])
  .collectionRules((rows) => [`${rows.length}`]);
void typed;
