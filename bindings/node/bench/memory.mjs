// Peak RSS of encodeJson on a ~100 MB Buffer of flat invoices, beyond Node's baseline (RSS with
// the addon loaded, before the input exists). Run by bench.mjs in a fresh process.
import * as tw from '../index.mjs';
import { flatInvoice } from './invoices.mjs';

const MB = 1 << 20;
const target = Number(process.env.BENCH_MEMORY_MB || 100) * MB;
globalThis.gc();
tw.encodeJson('[1]');
const baseline = process.memoryUsage().rss;

// The JSON straight in one Buffer, without garbage: a block of 1000 distinct rows repeated by
// Buffer#fill, `[` before, the last `,` made `]`.
const block = Buffer.from(Array.from({ length: 1000 }, (_, i) => JSON.stringify(flatInvoice(i))).join(',') + ',');
const blocks = Math.max(1, Math.round(target / block.length));
const len = 1 + blocks * block.length;
const input = Buffer.allocUnsafe(len);
input[0] = 0x5b;
input.fill(block, 1);
input[len - 1] = 0x5d;
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
// A caller that needs a flat string (V8 flattens a rope on first indexed access) pays one copy
// of the output then.
out.charCodeAt(0);
const flatPeak = process.resourceUsage().maxRSS * 1024;
console.log(`memory: after flattening the rope: peak ${(flatPeak / MB).toFixed(0)} MiB, ` +
  `${((flatPeak - baseline) / len).toFixed(2)}× the input beyond baseline`);
