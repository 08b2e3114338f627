// Same-process bench of toolwire's Node binding against what users run today, outputs
// checked equal first: `node --expose-gc bench/bench.mjs` (npm run bench).
//
//   encodeJson(buf)     vs @toon-format/toon encode(JSON.parse(buf))
//   encode(value)       vs @toon-format/toon encode(value)
//   present(rows)       vs a CallToolResult of JSON.stringify(rows, null, 2) / of encode(rows)
//   memory: peak RSS of encodeJson(100 MB Buffer) beyond Node's baseline (a child process)
import * as ref from '@toon-format/toon';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tw from '../index.mjs';
import { invoices } from './invoices.mjs';

const SIZES = (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number);
const gc = globalThis.gc ?? (() => {});

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(f, runs) {
  f(); // warm
  const t = [];
  for (let i = 0; i < runs; i++) {
    gc();
    const t0 = process.hrtime.bigint();
    f();
    t.push(Number(process.hrtime.bigint() - t0));
  }
  return median(t);
}

function same(a, b, what) {
  if (a !== b) throw new Error(`outputs differ: ${what}`);
}

const rows = [];
function line(group, name, ns, n, bytes, base) {
  rows.push({ group, name, 'ns/row': Math.round(ns / n), 'MB/s (JSON in)': +(bytes / ns * 1e3).toFixed(1), 'vs baseline': base ? `${(base / ns).toFixed(2)}×` : '' });
}

const result = (text) => ({ content: [{ type: 'text', text }] });

for (const kind of ['flat', 'nested']) {
  for (const n of SIZES) {
    const data = invoices(n, kind);
    const buf = Buffer.from(JSON.stringify(data));
    const runs = n >= 100000 ? 5 : 15;
    const g = `${n / 1000}k ${kind}`;

    // Verify first.
    same(tw.encodeJson(buf), ref.encode(JSON.parse(buf)), `${g} encodeJson`);
    same(tw.encode(data), ref.encode(data), `${g} encode`);
    same(tw.present(data, null, { format: 'pretty' }).content[0].text, JSON.stringify(data, null, 2), `${g} present pretty`);
    same(tw.present(data, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present toon`);
    same(tw.present(buf, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present(buf) toon`);

    const theirs = time(() => ref.encode(JSON.parse(buf)), runs);
    line(g, 'toon encode(JSON.parse(buf))', theirs, n, buf.length);
    line(g, 'toolwire encodeJson(buf)', time(() => tw.encodeJson(buf), runs), n, buf.length, theirs);
    const theirsV = time(() => ref.encode(data), runs);
    line(g, 'toon encode(value)', theirsV, n, buf.length);
    line(g, 'toolwire encode(value)', time(() => tw.encode(data), runs), n, buf.length, theirsV);
    const pretty = time(() => result(JSON.stringify(data, null, 2)), runs);
    line(g, 'CallToolResult(JSON.stringify(rows,null,2))', pretty, n, buf.length);
    line(g, 'toolwire present(rows) pretty', time(() => tw.present(data, null), runs), n, buf.length, pretty);
    const toonResult = time(() => result(ref.encode(data)), runs);
    line(g, 'CallToolResult(toon encode(rows))', toonResult, n, buf.length);
    line(g, 'toolwire present(rows) toon-comma', time(() => tw.present(data, null, { format: 'toon-comma' }), runs), n, buf.length, toonResult);
    line(g, 'toolwire present(buf) toon-comma', time(() => tw.present(buf, null, { format: 'toon-comma' }), runs), n, buf.length, toonResult);
    line(g, 'JSON.parse(buf) (reference)', time(() => JSON.parse(buf), runs), n, buf.length);
    line(g, 'JSON.stringify(rows) (reference)', time(() => JSON.stringify(data), runs), n, buf.length);
  }
}
console.table(rows);

// Memory: a fresh process, so the peak belongs to encodeJson alone.
const child = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('./memory.mjs', import.meta.url))], { encoding: 'utf8' });
console.log(child.trim());
