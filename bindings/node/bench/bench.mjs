// Same-process bench of toolwire's Node binding against what users run today, outputs
// checked equal first: `node --expose-gc bench/bench.mjs` (npm run bench).
//
//   encodeJson(buf)     vs @toon-format/toon encode(JSON.parse(buf))
//   encode(value)       vs @toon-format/toon encode(value)
//   present(rows)       vs a CallToolResult of JSON.stringify(rows, null, 2) / of encode(rows)
//   present(buf)        vs a CallToolResult of encode(JSON.parse(buf))
//   memory: peak RSS of encodeJson(100 MB Buffer) beyond Node's baseline (a child process)
//
// `npm run bench -- --readme` also writes README.md's Node table (benches/readme_table.py).
import * as ref from '@toon-format/toon';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tw from '../index.mjs';
import { invoices } from './invoices.mjs';

const SIZES = (process.env.BENCH_SIZES || '10000,100000').split(',').map(Number);
const gc = globalThis.gc ?? (() => {});

// Each pair (baseline, toolwire) runs interleaved, so both see the same machine load, and
// each side reports its best run (the least disturbed estimate on a shared machine). Before
// each run: a full gc() and then a pause of SETTLE_MS, because V8 sweeps and unmaps the
// collected heap on background threads after gc() returns. Without the pause the cleanup of
// one side's garbage (the baseline's hundreds of MB of JS objects: about 17 ms of CPU on two
// cores) ran during the other side's timed run and was charged to it.
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 100);
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function timePair(fa, fb, runs) {
  fa();
  fb();
  let a = Infinity;
  let b = Infinity;
  for (let i = 0; i < runs; i++) {
    gc();
    await settle();
    let t0 = process.hrtime.bigint();
    fa();
    a = Math.min(a, Number(process.hrtime.bigint() - t0));
    gc();
    await settle();
    t0 = process.hrtime.bigint();
    fb();
    b = Math.min(b, Number(process.hrtime.bigint() - t0));
  }
  return [a, b];
}

function same(a, b, what) {
  if (a !== b) throw new Error(`outputs differ: ${what}`);
}

const rows = [];
const pairs = []; // [group, toolwire's name, its ns, baseline's name, its ns] for the README
// ns/row and MB/s of JSON input, best of `runs`; the ratio is baseline time / toolwire time.
function line(group, name, ns, n, bytes, base) {
  rows.push({ group, name, 'ns/row': Math.round(ns / n), 'MB/s (JSON in)': +(bytes / ns * 1e3).toFixed(1), 'vs baseline': base ? `${(base / ns).toFixed(2)}×` : '' });
}

const result = (text) => ({ content: [{ type: 'text', text }] });

for (const kind of ['flat', 'nested']) {
  for (const n of SIZES) {
    const data = invoices(n, kind);
    const buf = Buffer.from(JSON.stringify(data));
    const runs = n >= 1000000 ? 3 : n >= 100000 ? 7 : 21;
    const g = `${n / 1000}k ${kind}`;

    // Verify first.
    same(tw.encodeJson(buf), ref.encode(JSON.parse(buf)), `${g} encodeJson`);
    same(tw.encode(data), ref.encode(data), `${g} encode`);
    same(tw.present(data, null, { format: 'pretty' }).content[0].text, JSON.stringify(data, null, 2), `${g} present pretty`);
    same(tw.present(data, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present toon`);
    same(tw.present(buf, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present(buf) toon`);

    const pair = async (baseName, fa, name, fb) => {
      const [a, b] = await timePair(fa, fb, runs);
      line(g, baseName, a, n, buf.length);
      line(g, name, b, n, buf.length, a);
      pairs.push([g, name, b, baseName, a]);
    };
    await pair('toon encode(JSON.parse(buf))', () => ref.encode(JSON.parse(buf)), 'toolwire encodeJson(buf)', () => tw.encodeJson(buf));
    await pair('toon encode(value)', () => ref.encode(data), 'toolwire encode(value)', () => tw.encode(data));
    await pair('CallToolResult(JSON.stringify(rows,null,2))', () => result(JSON.stringify(data, null, 2)),
      'toolwire present(rows) pretty', () => tw.present(data, null));
    await pair('CallToolResult(toon encode(rows))', () => result(ref.encode(data)),
      'toolwire present(rows) toon-comma', () => tw.present(data, null, { format: 'toon-comma' }));
    await pair('CallToolResult(toon encode(JSON.parse(buf)))', () => result(ref.encode(JSON.parse(buf))),
      'toolwire present(buf) toon-comma', () => tw.present(buf, null, { format: 'toon-comma' }));
    const [parse, stringify] = await timePair(() => JSON.parse(buf), () => JSON.stringify(data), runs);
    line(g, 'JSON.parse(buf) (reference)', parse, n, buf.length);
    line(g, 'JSON.stringify(rows) (reference)', stringify, n, buf.length);
  }
}
console.table(rows);

// Memory: a fresh process, so the peak belongs to encodeJson alone.
const child = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('./memory.mjs', import.meta.url))], { encoding: 'utf8' });
console.log(child.trim());

if (process.argv.includes('--readme')) {
  const ms = (ns) => (ns >= 1e8 ? (ns / 1e6).toFixed(0) : (ns / 1e6).toFixed(1));
  const largest = `${Math.max(...SIZES) / 1000}k`;
  const table = ['| rows | toolwire | baseline | ratio |', '|---|---|---|---|'];
  for (const [g, name, b, baseName, a] of pairs) {
    if (!g.startsWith(`${largest} `)) continue;
    table.push(`| ${g} | \`${name.replace(/^toolwire /, '')}\` ${ms(b)} ms | \`${baseName}\` ${ms(a)} ms | **${(a / b).toFixed(2)}×** |`);
  }
  table.push('', `Node ${process.version}, one process, best of 7 interleaved runs after \`gc()\`; ${child.trim().split('\n').pop()}`);
  const readmeTable = fileURLToPath(new URL('../../../benches/readme_table.py', import.meta.url));
  const r = spawnSync('python3', [readmeTable, 'node-bench'], { input: table.join('\n') + '\n', stdio: ['pipe', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(1);
}
