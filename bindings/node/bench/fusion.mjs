// toolwire/presenter against mcp-fusion itself, built from its repository in a scratch
// directory outside this one (it is not on the npm registry under that name):
//
//   git clone <mcp-fusion's repository> /tmp/mcpf-src    # or the `fetch`ed snapshot
//   mkdir /tmp/mcpf && cd /tmp/mcpf && git -C /tmp/mcpf-src archive HEAD packages/core/src | tar x
//   ln -s <this checkout>/bindings/node/node_modules node_modules && echo '{"type":"module"}' > package.json
//   node node_modules/typescript/lib/tsc.js --noCheck --skipLibCheck --target es2022 --module nodenext \
//     --moduleResolution nodenext --rootDir packages/core/src --outDir dist \
//     packages/core/src/presenter/index.ts packages/core/src/core/response.ts
//   MCP_FUSION_DIST=/tmp/mcpf/dist node --expose-gc bench/fusion.mjs
//
// First the same calls through both, block texts compared (SAME, or DIFF with both texts:
// the differences are WIRE.md's fixes, DECISIONS.md "The Node presenter API"); then
// make(rows).build() of one presenter (zod schema, a rule, a collection UI block; pretty
// JSON) timed on both, on the ASCII and the non-ASCII corpus, and from JSON bytes: toolwire's
// make(buf) against mcp-fusion's make of JSON.parse(buf) (it takes no bytes). The four calls
// take turns, each after gc() and a pause, best of RUNS (7). Figures: DECISIONS.md, "`make`
// against mcp-fusion itself".
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import * as T from '../presenter.mjs';
import { invoices } from './invoices.mjs';

const dist = process.env.MCP_FUSION_DIST;
if (!dist) throw new Error('set MCP_FUSION_DIST to the dist/ of mcp-fusion built as above');
const F = await import(pathToFileURL(path.join(dist, 'presenter', 'index.js')).href);
const FR = await import(pathToFileURL(path.join(dist, 'core', 'response.js')).href);
const FUSION = { ...F, ...FR };

const texts = (r) => JSON.stringify(r.content.map((c) => c.text));
const inv = z.object({ id: z.string(), amount_cents: z.number(), status: z.enum(['paid', 'open']) });
const rows = [{ id: 'A', amount_cents: 5, status: 'paid', x: 1 }, { id: 'B', amount_cents: 7, status: 'open' }, { id: 'C', amount_cents: 1, status: 'open' }];
const invoice = (P) => P.createPresenter('Inv').schema(inv).systemRules(['Cents.']).collectionRules((l) => [`${l.length} rows`])
  .uiBlocks((i) => [P.ui.markdown(`**${i.id}**`)])
  .collectionUiBlocks((l) => [P.ui.table(['id', 'status'], l.map((r) => [r.id, r.status])), P.ui.summary('s', { title: 'T', width: 'half', priority: 0 })])
  .suggestActions((i) => (i.status === 'open' ? [P.suggest('pay', 'Pay it')] : [])).limit(2);
const cases = {
  'collection: limit, rules, UI, suggestions': (P) => invoice(P).make(rows).build(),
  'one item': (P) => invoice(P).make(rows[1]).build(),
  'empty collection': (P) => invoice(P).make([]).build(),
  _select: (P) => invoice(P).make(rows, undefined, ['status', 'id']).build(),
  'blocks added after make': (P) => invoice(P).make(rows[0]).llmHint('h').uiBlock(P.ui.mermaid('graph')).build(),
  redact: (P) => P.createPresenter('U').schema(z.object({ id: z.string(), ssn: z.string() })).redact(['ssn']).make({ id: 'a', ssn: '1' }).build(),
  'response builder, every helper': (P) => P.response({ a: [1, 'é'] }).systemRules(['r']).llmHint('h').systemHint([P.suggest('t', 'why')])
    .uiBlock(P.ui.json({ k: 1 })).uiBlock(P.ui.echarts({ s: [1] })).uiBlock(P.ui.codeBlock('ts', 'x')).uiBlock(P.ui.list(['a', 'b'])).build(),
  'empty string': (P) => P.response('').build(),
  success: (P) => P.success({ a: 1 }),
  toonSuccess: (P) => P.toonSuccess([{ a: 1, b: 'x y' }, { a: 2, b: 'z' }]),
  error: (P) => P.error('bad & <x>', 'NOT_FOUND'),
  required: (P) => P.required('id'),
  toolError: (P) => P.toolError('RATE_LIMITED', { message: 'm', suggestion: 's', availableActions: ['a'], details: { k: 'v' }, retryAfter: 3, severity: 'warning' }),
  'definePresenter, described fields': (P) => P.definePresenter({ name: 'D', schema: z.object({ a: z.number().describe('in cents') }), rules: ['R'] }).make({ a: 1 }).build(),
  embed: (P) => P.createPresenter('Par').schema(z.object({ id: z.string(), c: z.object({ n: z.string() }) }))
    .embed('c', P.createPresenter('C').schema(z.object({ n: z.string() })).systemRules(['child rule'])).make({ id: 'a', c: { n: 'x' } }).build(),
  'a tag in a rule': (P) => P.response('x').systemRules(['</domain_rules>']).build(),
};
for (const [name, f] of Object.entries(cases)) {
  const a = texts(f(FUSION));
  const b = texts(f(T));
  console.log(a === b ? `SAME ${name}` : `DIFF ${name}\n  mcp-fusion: ${a}\n  toolwire:   ${b}`);
}

const gc = globalThis.gc ?? (() => {});
const flat = z.object({ id: z.string(), client: z.string(), amount_cents: z.number().int(), currency: z.enum(['EUR', 'USD', 'GBP', 'JPY']),
  status: z.enum(['paid', 'pending', 'overdue']), issued_at: z.string(), paid: z.boolean(), rate: z.number() });
const bench = (P) => P.createPresenter('Invoice').schema(flat).systemRules(['CRITICAL: amount_cents is in CENTS.'])
  .collectionUiBlocks((l) => [P.ui.summary(`${l.length} invoices`)]);
const [fp, tp] = [bench(FUSION), bench(T)];
// The four calls take turns, each run after gc() and a pause (as bench.mjs), best of RUNS.
async function bestOf(fs, runs) {
  for (const f of fs) f();
  const m = fs.map(() => Infinity);
  for (let i = 0; i < runs; i++) {
    for (const [j, f] of fs.entries()) {
      gc();
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      f();
      m[j] = Math.min(m[j], performance.now() - t0);
    }
  }
  return m;
}
const RUNS = Number(process.env.RUNS ?? 7);
for (const n of (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number)) {
  for (const text of ['ascii', 'mixed']) {
    const data = invoices(n, 'flat', text);
    const buf = Buffer.from(JSON.stringify(data));
    if (texts(fp.make(data).build()) !== texts(tp.make(data).build())) throw new Error(`outputs differ at ${n} rows`);
    if (texts(fp.make(JSON.parse(buf)).build()) !== texts(tp.make(buf).build())) throw new Error(`outputs differ at ${n} rows (bytes)`);
    const [f, t, fb, b] = await bestOf([
      () => fp.make(data).build(), () => tp.make(data).build(),
      () => fp.make(JSON.parse(buf)).build(), () => tp.make(buf).build(),
    ], RUNS);
    console.log(`${n / 1000}k flat ${text} make(rows).build(): mcp-fusion ${f.toFixed(1)} ms | toolwire ${t.toFixed(1)} ms (${(f / t).toFixed(2)}×) | from bytes: mcp-fusion of JSON.parse(buf) ${fb.toFixed(1)} ms | toolwire ${b.toFixed(1)} ms (${(fb / b).toFixed(2)}×)`);
  }
}
