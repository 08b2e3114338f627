// Same-process bench of toolwire's Node binding against what users run today, outputs
// checked equal first: `node --expose-gc bench/bench.mjs` (npm run bench).
//
//   encodeJson(buf)     vs @toon-format/toon encode(JSON.parse(buf))
//   encode(value)       vs @toon-format/toon encode(value)
//   present(rows)       vs a CallToolResult of JSON.stringify(rows, null, 2) / of encode(rows)
//   present(buf)        vs a CallToolResult of encode(JSON.parse(buf))
//   toolwire/presenter make(rows).build(), make(buf).build()
//                       vs the zod-validate + JSON.stringify(…, null, 2) pipeline mcp-fusion runs
//                       for the same presenter (bench/presenter.mjs), of JSON.parse(buf) when
//                       the rows arrive as bytes (mcp-fusion takes no bytes)
// each on an ASCII corpus and a non-ASCII one (accents, CJK, emoji in every row: `mixed`),
//   memory: peak RSS of encodeJson(100 MB Buffer) beyond Node's baseline (a child process)
//
// `npm run bench -- --readme` also writes README.md's Node table (benches/readme_table.py).
import * as ref from '@toon-format/toon';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tw from '../index.mjs';
import { invoices } from './invoices.mjs';
import { Invoice, baseline as fusionPipeline, check as checkPresenter } from './presenter.mjs';

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
const pairs = []; // { key, kind, text, n, a: the baseline's ns, b: toolwire's } for the README
// ns/row and MB/s of JSON input, best of `runs`; the ratio is baseline time / toolwire time.
function line(group, name, ns, n, bytes, base) {
  rows.push({ group, name, 'ns/row': Math.round(ns / n), 'MB/s (JSON in)': +(bytes / ns * 1e3).toFixed(1), 'vs baseline': base ? `${(base / ns).toFixed(2)}×` : '' });
}

const result = (text) => ({ content: [{ type: 'text', text }] });

const TEXTS = (process.env.BENCH_TEXTS || 'ascii,mixed').split(',');
for (const kind of ['flat', 'nested']) {
  for (const text of TEXTS) {
    for (const n of SIZES) {
      const data = invoices(n, kind, text);
      const buf = Buffer.from(JSON.stringify(data));
      const runs = n >= 1000000 ? 3 : n >= 100000 ? 7 : 21;
      const g = `${n / 1000}k ${kind} ${text}`;

      // Verify first.
      same(tw.encodeJson(buf), ref.encode(JSON.parse(buf)), `${g} encodeJson`);
      same(tw.encode(data), ref.encode(data), `${g} encode`);
      same(tw.present(data, null, { format: 'pretty' }).content[0].text, JSON.stringify(data, null, 2), `${g} present pretty`);
      same(tw.present(data, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present toon`);
      same(tw.present(buf, null, { format: 'toon-comma' }).content[0].text, ref.encode(data), `${g} present(buf) toon`);
      if (kind === 'flat') checkPresenter(data, buf);

      const pair = async (key, baseName, fa, name, fb) => {
        const [a, b] = await timePair(fa, fb, runs);
        line(g, baseName, a, n, buf.length);
        line(g, name, b, n, buf.length, a);
        pairs.push({ key, kind, text, n, a, b });
      };
      await pair('encodeJson', 'toon encode(JSON.parse(buf))', () => ref.encode(JSON.parse(buf)), 'toolwire encodeJson(buf)', () => tw.encodeJson(buf));
      await pair('encode', 'toon encode(value)', () => ref.encode(data), 'toolwire encode(value)', () => tw.encode(data));
      await pair('pretty', 'CallToolResult(JSON.stringify(rows,null,2))', () => result(JSON.stringify(data, null, 2)),
        'toolwire present(rows) pretty', () => tw.present(data, null));
      await pair('toon', 'CallToolResult(toon encode(rows))', () => result(ref.encode(data)),
        'toolwire present(rows) toon-comma', () => tw.present(data, null, { format: 'toon-comma' }));
      await pair('toonBuf', 'CallToolResult(toon encode(JSON.parse(buf)))', () => result(ref.encode(JSON.parse(buf))),
        'toolwire present(buf) toon-comma', () => tw.present(buf, null, { format: 'toon-comma' }));
      if (kind === 'flat') {
        await pair('make', 'zod + JSON.stringify(rows,null,2) (mcp-fusion\'s pipeline)', () => fusionPipeline(data),
          'toolwire/presenter make(rows).build()', () => Invoice.make(data).build());
        await pair('makeBuf', 'zod + JSON.stringify(JSON.parse(buf),null,2) (mcp-fusion\'s pipeline)', () => fusionPipeline(JSON.parse(buf)),
          'toolwire/presenter make(buf).build()', () => Invoice.make(buf).build());
      }
      const [parse, stringify] = await timePair(() => JSON.parse(buf), () => JSON.stringify(data), runs);
      line(g, 'JSON.parse(buf) (reference)', parse, n, buf.length);
      line(g, 'JSON.stringify(rows) (reference)', stringify, n, buf.length);
    }
  }
}
console.table(rows);

// Memory: a fresh process, so the peak belongs to encodeJson alone.
const child = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('./memory.mjs', import.meta.url))], { encoding: 'utf8' });
console.log(child.trim());

if (process.argv.includes('--readme')) {
  // One line per call at the largest size: times and ratios as "ASCII/non-ASCII", then the
  // ratios at the other sizes; the baselines in a legend below (the documents' size is capped).
  const ms = (ns) => (ns >= 1e7 ? (ns / 1e6).toFixed(0) : (ns / 1e6).toFixed(1));
  const sizes = [...SIZES].sort((x, y) => y - x);
  const get = (key, kind, text, n) => pairs.find((p) => p.key === key && p.kind === kind && p.text === text && p.n === n);
  const both = (key, kind, n, f) => TEXTS.map((t) => get(key, kind, t, n)).filter(Boolean).map(f).join('/');
  const ratio = (p) => (p.a / p.b).toFixed(1);
  const CALLS = [
    ['encodeJson', 'flat', 'encodeJson(buf)'], ['encode', 'flat', 'encode(value)'],
    ['pretty', 'flat', 'present(rows) pretty'], ['toon', 'flat', 'present(rows) TOON'], ['toonBuf', 'flat', 'present(buf) TOON'],
    ['make', 'flat', 'make(rows).build()'], ['makeBuf', 'flat', 'make(buf).build()'],
    ['encodeJson', 'nested', 'encodeJson(buf)'], ['encode', 'nested', 'encode(value)'],
    ['pretty', 'nested', 'present(rows) pretty'], ['toon', 'nested', 'present(rows) TOON'], ['toonBuf', 'nested', 'present(buf) TOON'],
  ];
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const date = new Date().toISOString().slice(0, 10);
  const big = sizes[0];
  const table = [`|${big / 1000}k rows, ms (${date}, one run, ${commit})|toolwire|baseline|×|${sizes.slice(1).map((n) => `${n / 1000}k ×`).join('|')}|`,
    `|---|---|---|---|${sizes.slice(1).map(() => '---|').join('')}`];
  for (const [key, kind, what] of CALLS) {
    if (!get(key, kind, TEXTS[0], big)) continue;
    table.push(`|${kind} ${what}|${both(key, kind, big, (p) => ms(p.b))}|${both(key, kind, big, (p) => ms(p.a))}|${both(key, kind, big, ratio)}|${sizes.slice(1).map((n) => both(key, kind, n, ratio)).join('|')}|`);
  }
  table.push('', `ASCII/non-ASCII. Baselines: \`@toon-format/toon\` 4.4 \`encode\` (of \`JSON.parse(buf)\` for bytes), for \`present\` in a \`CallToolResult\`, or \`JSON.stringify(rows, null, 2)\`; \`make\`: zod + pretty \`JSON.stringify\` (mcp-fusion's; of \`JSON.parse(buf)\` for bytes). Node ${process.version}, one process, best of 7 (10k: 21) interleaved after \`gc()\`. \`encodeJson\` of 100 MB peaks at ${/= ([\d.]+)× the input/.exec(child)?.[1]}× the input (< 2×).`);
  const readmeTable = fileURLToPath(new URL('../../../benches/readme_table.py', import.meta.url));
  const r = spawnSync('python3', [readmeTable, 'node-bench'], { input: table.join('\n') + '\n', stdio: ['pipe', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(1);
}
