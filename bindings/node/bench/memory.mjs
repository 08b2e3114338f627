// Peak RSS of encodeJson on a ~100 MB Buffer of flat invoices, beyond Node's baseline (RSS with
// the addon loaded, before the input exists). Run by bench.mjs in a fresh process.
import * as tw from '../index.mjs';
import { flatInvoice } from './invoices.mjs';

const MB = 1 << 20;
const target = Number(process.env.BENCH_MEMORY_MB || 100) * MB;
globalThis.gc();
tw.encodeJson('[1]');
const baseline = process.memoryUsage().rss;

// Write the JSON straight into one Buffer (no big JS string, no row objects kept).
const buf = Buffer.allocUnsafe(target + 4096);
let len = 0;
buf[len++] = 0x5b;
for (let i = 0; len < target; i++) {
  if (i) buf[len++] = 0x2c;
  len += buf.write(JSON.stringify(flatInvoice(i)), len);
}
buf[len++] = 0x5d;
const input = buf.subarray(0, len);
input.fill(0x20, len, len); // touch nothing else
globalThis.gc();
const before = process.memoryUsage().rss;
const maxBefore = process.resourceUsage().maxRSS * 1024;
const t0 = process.hrtime.bigint();
const out = tw.encodeJson(input);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const peak = process.resourceUsage().maxRSS * 1024;
const beyond = Math.max(peak, maxBefore) - baseline;
console.log(`memory: encodeJson of a ${(len / MB).toFixed(1)} MiB Buffer → ${(out.length / MB).toFixed(1)} MiB TOON in ${ms.toFixed(0)} ms; ` +
  `baseline RSS ${(baseline / MB).toFixed(0)} MiB, with input ${(before / MB).toFixed(0)} MiB, peak ${(Math.max(peak, maxBefore) / MB).toFixed(0)} MiB: ` +
  `${(beyond / MB).toFixed(0)} MiB beyond baseline = ${(beyond / len).toFixed(2)}× the input (target < 2×)`);
