// Same-process bench of toolwire/presenter's make(rows).build() against the pipeline
// mcp-fusion runs for the same presenter (zod-validate every row, JSON.stringify(…, null, 2),
// the rules and UI blocks as strings), outputs checked equal first:
// `node --expose-gc bench/presenter.mjs` (npm run bench:presenter). Rows that arrive as JSON
// bytes are parsed first on the pipeline's side (JSON.parse(buf)): mcp-fusion takes no bytes.
// BENCH_SIZES as bench.mjs;
// BENCH_TEXT=mixed for the non-ASCII corpus. bench.mjs runs the same pairs (imported from here).
//
// Where the time goes (100k flat rows): make(rows).build() reads the rows as cells
// (lib/rows.js) and hands the engine the document built from them (src/rows.rs, rows_doc);
// make(buf).build() parses the bytes instead. Then both are the engine's validated present
// of the presenter file (the row view written in parallel parts into a sized buffer, the
// text an external string) and the callbacks, a collection callback's rows written as JSON
// only when it reads them (DECISIONS.md, "Node binding"). `node --expose-gc bench/profile.mjs
// flat ascii|mixed` has the splits.

import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { createPresenter, ui } from '../presenter.mjs';
import { invoices } from './invoices.mjs';

const SIZES = (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number);
const gc = globalThis.gc ?? (() => {});
const settle = () => new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 100)));

const schema = z.object({
  id: z.string(), client: z.string(), amount_cents: z.number().int(), currency: z.enum(['EUR', 'USD', 'GBP', 'JPY']),
  status: z.enum(['paid', 'pending', 'overdue']), issued_at: z.string(), paid: z.boolean(), rate: z.number(),
});
const RULE = 'CRITICAL: amount_cents is in CENTS. Divide by 100.';
export const Invoice = createPresenter('Invoice').schema(schema).systemRules([RULE])
  .collectionUiBlocks((rows) => [ui.summary(`${rows.length} invoices`)]);

// What mcp-fusion's make(rows).build() does for this presenter, written out.
export function baseline(rows) {
  const valid = rows.map((r) => schema.parse(r));
  const summary = `<ui_passthrough type="summary">\n📊 **Summary**: ${valid.length} invoices\n</ui_passthrough>`;
  return { content: [{ type: 'text', text: JSON.stringify(valid, null, 2) }, { type: 'text', text: summary }, { type: 'text', text: `<domain_rules>\n- ${RULE}\n</domain_rules>` }] };
}

/** The best of `runs` timed calls of `f` (ms), each after `gc()` and a pause. */
export async function best(f, runs) {
  f();
  let t = Infinity;
  for (let i = 0; i < runs; i++) {
    gc();
    await settle();
    const t0 = process.hrtime.bigint();
    f();
    t = Math.min(t, Number(process.hrtime.bigint() - t0));
  }
  return t / 1e6;
}

/** Throws unless make(rows) and make(buf) give the baseline's blocks. */
export function check(rows, buf) {
  const want = JSON.stringify(baseline(rows).content);
  for (const got of [Invoice.make(rows).build(), Invoice.make(buf).build()]) {
    if (JSON.stringify(got.content) !== want) throw new Error(`outputs differ at ${rows.length} rows`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const n of SIZES) {
    const rows = invoices(n, 'flat', process.env.BENCH_TEXT);
    const buf = Buffer.from(JSON.stringify(rows));
    check(rows, buf);
    const runs = n >= 100000 ? 5 : 15;
    const base = await best(() => baseline(rows), runs);
    const objs = await best(() => Invoice.make(rows).build(), runs);
    const baseBytes = await best(() => baseline(JSON.parse(buf)), runs);
    const bytes = await best(() => Invoice.make(buf).build(), runs);
    console.log(`${n / 1000}k flat: zod + JSON.stringify ${base.toFixed(1)} ms | make(rows).build() ${objs.toFixed(1)} ms (${(base / objs).toFixed(2)}×) | of JSON.parse(buf) ${baseBytes.toFixed(1)} ms | make(buf).build() ${bytes.toFixed(1)} ms (${(baseBytes / bytes).toFixed(2)}×)`);
  }
}
