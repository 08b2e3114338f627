import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const native = require('../lib/native.js');
const { jsonText } = require('../lib/text.js');
const { Invoice, baseline } = await import('./presenter.mjs');
const { invoices } = await import('./invoices.mjs');
const [text = 'ascii', n = '100000'] = process.argv.slice(2);
const VARIANTS = (process.env.VARIANTS || '1000000000,32768,262144').split(',');
const RUNS = Number(process.env.RUNS ?? 7);
const gc = globalThis.gc;
const settle = () => new Promise((r) => setTimeout(r, 100));
const rows = invoices(Number(n), 'flat', text);
const buf = Buffer.from(JSON.stringify(rows));
const jt = jsonText(rows);
const cases = {
  'presentPlain pretty': () => native.presentPlain(jt, {}),
  'make(buf).build()': () => Invoice.make(buf).build(),
  'make(rows).build()': () => Invoice.make(rows).build(),
};
const res = {};
for (const [name, f] of Object.entries(cases)) {
  const best = { base: Infinity };
  for (const v of VARIANTS) best[v] = Infinity;
  for (let i = 0; i < RUNS; i++) {
    gc(); await settle();
    let c0 = process.cpuUsage(); baseline(rows); let c = process.cpuUsage(c0); best.base = Math.min(best.base, (c.user + c.system) / 1e3);
    for (const v of VARIANTS) {
      process.env.TW_ROPE = v; f();
      gc(); await settle();
      c0 = process.cpuUsage(); f(); c = process.cpuUsage(c0); best[v] = Math.min(best[v], (c.user + c.system) / 1e3);
    }
  }
  res[name] = Object.fromEntries(Object.entries(best).map(([k, x]) => [k, x.toFixed(1)]));
}
console.log(n, text); console.table(res);
