// Peak RSS of encodeJson on a ~100 MB Buffer of flat invoices, beyond Node's baseline (RSS with
// the addon loaded, before the input exists). Run by bench.mjs in a fresh process.
import { readFileSync } from 'node:fs';
import * as tw from '../index.mjs';
import { flatInvoice } from './invoices.mjs';

// The peak RSS of this program. On Linux from /proc (VmHWM, the high-water mark of this
// process's own address space): getrusage's maxRSS, which `process.resourceUsage()` reads,
// carries over what the forked parent had mapped before the exec (a parent bench holding a
// 260 MB Buffer made this child report a 592 MiB peak, 5.4× the input).
function peakRss() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {}
  return process.resourceUsage().maxRSS * 1024;
}

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
const maxBefore = peakRss();
const t0 = process.hrtime.bigint();
const out = tw.encodeJson(input);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const peak = peakRss();
const beyond = Math.max(peak, maxBefore) - baseline;
console.log(`memory: encodeJson of a ${(len / MB).toFixed(1)} MiB Buffer → ${(out.length / MB).toFixed(1)} MiB TOON in ${ms.toFixed(0)} ms; ` +
  `baseline RSS ${(baseline / MB).toFixed(0)} MiB, with input ${(before / MB).toFixed(0)} MiB, peak ${(Math.max(peak, maxBefore) / MB).toFixed(0)} MiB: ` +
  `${(beyond / MB).toFixed(0)} MiB beyond baseline = ${(beyond / len).toFixed(2)}× the input (target < 2×)`);
// A caller that needs a flat string (V8 flattens a rope on first indexed access) pays one copy
// of the output then.
out.charCodeAt(0);
const flatPeak = peakRss();
console.log(`memory: after flattening the rope: peak ${(flatPeak / MB).toFixed(0)} MiB, ` +
  `${((flatPeak - baseline) / len).toFixed(2)}× the input beyond baseline`);
