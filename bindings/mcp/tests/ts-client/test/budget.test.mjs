// The token budget and cursors (SERVE.md §8) through the official MCP TypeScript SDK client:
// a matrix of generated corpora × every format × four budgets, each collection paged by the
// cursors the directives name, every page counted with js-tiktoken's o200k_base (independent
// of the Rust tokenizer the server counts with); then cursors refused with another where,
// _select or an altered text, offset paging, and a budget no row fits.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { Tiktoken } from "js-tiktoken/lite";
import o200k_base from "js-tiktoken/ranks/o200k_base";

import { stdioClient, httpServer, httpClient, texts, nextCall, tempFile } from "./helpers.mjs";

const enc = new Tiktoken(o200k_base);
/** o200k tokens of a result's content: each block on its own (special tokens as text), summed. */
const counted = new Map();
const count = (b) => {
  let n = counted.get(b);
  if (n === undefined) {
    n = enc.encode(b, [], []).length;
    counted.set(b, n);
  }
  return n;
};
const tokens = (blocks) => blocks.reduce((n, b) => n + count(b), 0);

const FORMATS = ["pretty", "compact", "toon", "toon-comma", "toon-tab", "auto"];
const BUDGETS = [500, 2000, 10000, 25000];
const BIG = 100000;

// ---- corpora: deterministic, every row keyed by a string id `rNNNNN` that no other value
// holds, so the ids of a page can be read from any format's data block.

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const idOf = (i) => `r${String(i).padStart(5, "0")}`;
const WORDS = ["alpha", "bravo", "kilo", "delta", "echo", "fox", "golf", "hotel", "india", "juliet",
  "lima", "mike", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor",
  "whiskey", "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune", "ember", "fjord"];
const CJK = "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知全点己民本书外表合平山高物身各直把信北长水原管今小学校東京大阪日本語한국어서울부산사랑";
const EMOJI = ["😀", "🎉", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇫🇷", "🇧🇷", "🧑🏿‍🚀", "❤️‍🔥", "1️⃣", "🐈‍⬛",
  "👩🏻‍💻", "🫶🏾", "🏴‍☠️", "🇺🇳", "✨", "🦀", "🧪", "🚀"];

const pick = (r, xs) => xs[Math.floor(r() * xs.length)];
const words = (r, n) => Array.from({ length: n }, () => pick(r, WORDS)).join(" ");
const cjk = (r, n) => Array.from({ length: n }, () => pick(r, [...CJK])).join("");
const emoji = (r, n) => Array.from({ length: n }, () => pick(r, EMOJI)).join("");
/** Words up to about `bytes` bytes. */
const longText = (r, bytes) => {
  let s = "";
  while (s.length < bytes) s += pick(r, WORDS) + (r() < 0.1 ? ". " : " ");
  return s;
};

/** name → { rows (JSON text of the file), ids, small (every row far under 500 tokens), huge } */
function corpora() {
  const out = {};
  const add = (name, n, row, extra = {}) => {
    const r = rng(name.length * 7919 + n);
    const texts = Array.from({ length: n }, (_, i) => row(r, i));
    out[name] = { text: `[${texts.join(",")}]`, ids: texts.map((_, i) => idOf(i)), small: true, ...extra };
  };
  const j = JSON.stringify;
  add("flat", 150, (r, i) => j({ id: idOf(i), name: words(r, 2), qty: Math.floor(r() * 1000),
    price: Math.round(r() * 100000) / 100, active: r() < 0.5, city: pick(r, WORDS) }));
  add("nested", 60, (r, i) => j({ id: idOf(i),
    customer: { name: words(r, 2), tags: [pick(r, WORDS), pick(r, WORDS)], address: { city: pick(r, WORDS), zip: String(10000 + i) } },
    lines: Array.from({ length: 1 + (i % 4) }, (_, k) => ({ sku: `S-${k}-${Math.floor(r() * 999)}`, qty: k + 1, price: Math.round(r() * 9999) / 100 })),
    flags: [r() < 0.5, r() < 0.5], matrix: [[i, i + 1], [i * 2]] }));
  add("cjk", 60, (r, i) => j({ id: idOf(i), title: cjk(r, 5 + (i % 25)), body: cjk(r, 10 + Math.floor(r() * 40)),
    lang: pick(r, ["zh", "ja", "ko"]) }));
  add("emoji", 80, (r, i) => j({ id: idOf(i), mood: emoji(r, 1 + (i % 8)),
    note: `${words(r, 3)} ${emoji(r, 3)} ${cjk(r, 3)}`, flag: pick(r, ["🇯🇵", "🇩🇪", "🇧🇷", "🇰🇷", "🇺🇳"]) }));
  add("long", 30, (r, i) => j({ id: idOf(i), title: words(r, 3), body: longText(r, 2048 + Math.floor(r() * 6144)) }),
    { small: false });
  // Written as text: 20-digit integers (above and below 2^64) must reach the server as typed.
  add("numbers", 120, (r, i) => `{"id":${j(idOf(i))},"int":${Math.floor(r() * 1e9) - 5e8},"frac":${(r() * 1000 - 500).toFixed(1 + (i % 6))},`
    + `"exp":${(1 + Math.floor(r() * 9))}.${i % 10}e${i % 2 ? "-" : "+"}${1 + (i % 300)},"big":${i % 2 ? "1844674407370955" : "9999999999999999"}${String(1000 + i).slice(-4)},`
    + `"zero":0,"neg":-${i}.5E-3}`);
  const hugeAt = 25;
  add("huge", 60, (r, i) => j(i === hugeAt
    ? { id: idOf(i), name: "huge", body: longText(r, 24000) }
    : { id: idOf(i), name: words(r, 2), n: i }), { small: false, huge: idOf(hugeAt) });
  add("mixed", 100, (r, i) => j([
    { id: idOf(i), a: i },
    { id: idOf(i), name: words(r, 2), tags: [pick(r, WORDS), pick(r, WORDS), i] },
    { id: idOf(i), deep: { x: { y: [1, 2, { z: cjk(r, 4) }] } }, ok: true },
    { id: idOf(i), none: null, yes: false, text: `${emoji(r, 2)} ${cjk(r, 6)}`, n: r() * 1e6 },
    { id: idOf(i), list: [[1, 2], [3], []], empty: {}, s: "" },
  ][i % 5]));
  return out;
}

/** The ids of a data block, in order (they are the only `rNNNNN` in the data). */
const idsIn = (text) => text.match(/\br\d{5}\b/g) ?? [];

/**
 * What the budgeted server answers for a page of `k` rows from position `pos`: the unbudgeted
 * server's answer to `limit: k, offset: pos` with the directive's `limit` written as the
 * walk's. The cursor is the same (it holds the position and the list, signed with a key from
 * the collection's name and size), so the text is exactly the page the budgeted server would
 * have sent had it shown `k` rows.
 */
async function asIfShown(free, name, format, pos, k) {
  const r = await free.callTool({ name, arguments: { action: "list", limit: k, offset: pos, format } });
  assert.equal(r.isError, undefined, texts(r)[0]);
  return texts(r).map((t) => t.startsWith("<llm_directives>")
    ? t.replace(`{"action":"list","limit":${k},`, `{"action":"list","limit":${BIG},`)
    : t);
}

/**
 * Pages through `name` on `budgeted` from `{action: list, limit: BIG, format}` by the next
 * calls the directives name, checking each page; a TOO_LARGE page is skipped by `offset`.
 * Returns the ids shown and skipped, and how many cut pages were not the largest prefix.
 */
async function walk(budgeted, free, name, corpus, format, budget) {
  const n = corpus.ids.length;
  const shown = [];
  const skipped = [];
  let notLargest = 0;
  let args = { action: "list", limit: BIG, format };
  let pos = 0;
  for (let calls = 0; ; calls++) {
    const where = `${name} ${format} budget ${budget} at ${pos}`;
    assert.ok(calls <= n, `${where}: the walk ends`);
    const r = await budgeted.callTool({ name, arguments: args });
    const t = texts(r);
    const used = tokens(t);
    // (a) no result over the budget, as js-tiktoken counts it.
    assert.ok(used <= budget, `${where}: ${used} tokens > ${budget}`);
    if (r.isError) {
      // (d) the row at `pos` alone is over the budget: TOO_LARGE naming the budget, and no
      // next call (the cursor cannot step over it; offset can).
      assert.equal(t.length, 1, `${where}: ${t.join("\n")}`);
      assert.match(t[0], /^<tool_error code="TOO_LARGE"/, where);
      assert.ok(t[0].includes(`token budget of ${budget} tokens`), `${where}: ${t[0]}`);
      assert.equal(nextCall(r), undefined, where);
      const alone = tokens(await asIfShown(free, name, format, pos, 1));
      assert.ok(alone > budget, `${where}: TOO_LARGE, but the row alone is ${alone} tokens`);
      skipped.push(corpus.ids[pos]);
      pos += 1;
      if (pos === n) break;
      args = { action: "list", limit: BIG, format, offset: pos };
      continue;
    }
    const ids = idsIn(t[0]);
    // (c) the page holds the next rows, in order, each once.
    assert.ok(ids.length >= 1, `${where}: an empty page`);
    assert.deepEqual(ids, corpus.ids.slice(pos, pos + ids.length), where);
    if (format === "pretty" || format === "compact") {
      const want = JSON.parse(corpus.text).slice(pos, pos + ids.length);
      assert.deepEqual(JSON.parse(t[0]), want, `${where}: the JSON rows are the file's`);
    }
    // The page is exactly what the unbudgeted server answers for its rows.
    assert.deepEqual(await asIfShown(free, name, format, pos, ids.length), t, where);
    const next = nextCall(r);
    if (!next) {
      assert.equal(pos + ids.length, n, `${where}: the last page ends the collection`);
      shown.push(...ids);
      break;
    }
    assert.ok(t.some((x) => x.includes(`${ids.length} shown, ${n - pos - ids.length} hidden.`)), `${where}: ${t.join("\n")}`);
    assert.ok(t.some((x) => x.startsWith(`<llm_directives>\n- Next page: call ${name} with `)), `${where}: ${t.join("\n")}`);
    assert.equal(typeof next.cursor, "string", where);
    assert.deepEqual({ ...next, cursor: undefined }, { action: "list", limit: BIG, format, cursor: undefined }, where);
    // (b) a page that another follows is at least 85% full, or one more row would not fit.
    const more = tokens(await asIfShown(free, name, format, pos, ids.length + 1));
    assert.ok(used >= 0.85 * budget || more > budget,
      `${where}: ${ids.length} rows are ${used} of ${budget} tokens, and ${ids.length + 1} would be ${more}`);
    if (more <= budget) notLargest += 1;
    shown.push(...ids);
    pos += ids.length;
    args = next;
  }
  // (c) every row exactly once, shown or (alone over the budget) skipped.
  assert.deepEqual([...shown, ...skipped].sort(), corpus.ids);
  return { shown, skipped, notLargest };
}

describe("token budget: corpora × formats × budgets over stdio", () => {
  const all = corpora();
  const opened = [];
  after(async () => { for (const c of opened) await c.close().catch(() => {}); });
  const start = async (args) => {
    const c = await stdioClient(args);
    opened.push(c);
    return c;
  };
  const report = [];
  after(() => {
    const cut = report.filter((x) => x.notLargest > 0);
    if (cut.length) console.log(`# pages cut short of the largest prefix that fits (by js-tiktoken): ${JSON.stringify(cut)}`);
  });

  for (const [name, corpus] of Object.entries(all)) {
    it(`${name}: every page within the budget, full, every row once`, async () => {
      const path = tempFile(`${name}.json`, corpus.text);
      const free = await start(["--collection", `${name}=${path}`, "--max-tokens", "0"]);
      for (const budget of BUDGETS) {
        const s = await start(["--collection", `${name}=${path}`, "--max-tokens", String(budget)]);
        for (const format of FORMATS) {
          const w = await walk(s.client, free.client, name, corpus, format, budget);
          if (corpus.small) assert.deepEqual(w.skipped, [], `${name} ${format} ${budget}`);
          if (corpus.huge) {
            // One row of about 6,000 tokens: over 500 and 2,000, within 10,000 and 25,000.
            assert.deepEqual(w.skipped, budget < 10000 ? [corpus.huge] : [], `${name} ${format} ${budget}`);
          }
          if (w.notLargest) report.push({ name, format, budget, notLargest: w.notLargest });
        }
        await s.close();
      }
    });
  }

  // The default's cost against each format that names one (the rows whole, no budget).
  let costs;
  const defaultCosts = async () => {
    if (costs) return costs;
    const out = (costs = {});
    for (const [name, corpus] of Object.entries(all)) {
      const path = tempFile(`${name}.json`, corpus.text);
      const free = await start(["--collection", `${name}=${path}`, "--max-tokens", "0"]);
      const cost = async (format) => {
        const r = await free.client.callTool({ name, arguments: { action: "list", limit: BIG, ...(format && { format }) } });
        return { tokens: tokens([texts(r)[0]]), text: texts(r)[0] };
      };
      out[name] = { default: await cost(undefined) };
      for (const f of FORMATS) out[name][f] = await cost(f);
      await free.close();
    }
    return out;
  };

  // SERVE.md §8: "the format that costs its rows the fewest tokens", of every format a call
  // can name (toon-tab is the cheapest on some corpora: flat, 2,666 tokens against
  // toon-comma's 2,708).
  it("a collection without a presenter is served by default in the cheapest format", async () => {
    for (const [name, c] of Object.entries(await defaultCosts())) {
      const summary = JSON.stringify(Object.fromEntries(Object.entries(c).map(([f, x]) => [f, x.tokens])));
      const least = Math.min(...["pretty", "compact", "toon", "toon-comma", "toon-tab"].map((f) => c[f].tokens));
      assert.equal(c.default.tokens, least, `${name}: ${summary}`);
      assert.ok(FORMATS.some((f) => c[f].text === c.default.text), `${name}: the default is one of the formats`);
      // `auto` is the engine's choice per page among pretty, compact, toon and toon-comma.
      assert.ok(c.auto.tokens >= c.default.tokens, `${name}: ${summary}`);
    }
  });
});

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** `c` with its character `i` replaced by one 32 places away in the base64url alphabet: the
 * high bit of that character's six changes, which every position's data holds. */
const flip = (c, i) => c.slice(0, i) + B64[(B64.indexOf(c[i]) + 32) % 64] + c.slice(i + 1);

/** A `<validation_error>` result whose field is `cursor`. */
function assertCursorRefused(r, what) {
  assert.equal(r.isError, true, `${what}: ${texts(r)[0]}`);
  assert.match(texts(r)[0], /^<validation_error/, what);
  assert.ok(texts(r)[0].includes('<field name="cursor">'), `${what}: ${texts(r)[0]}`);
}

const transports = {
  stdio: async (args) => stdioClient(args),
  http: async (args) => {
    const server = await httpServer(args);
    const c = await httpClient(server.url);
    return { ...c, close: async () => { await c.close(); await server.stop(); } };
  },
};

for (const [kind, open] of Object.entries(transports)) {
  describe(`cursors and TOO_LARGE over ${kind}`, () => {
    const opened = [];
    after(async () => { for (const c of opened) await c.close().catch(() => {}); });
    const start = async (args) => {
      const c = await open(args);
      opened.push(c);
      return c;
    };
    const call = (c, args) => c.client.callTool({ name: "invoices", arguments: args });

    it("a cursor from another where, another _select, or altered is refused; the same one pages", async () => {
      const c = await start(["--rows", "200"]);
      const paid = { action: "list", where: { status: "paid" }, limit: 7, format: "compact" };
      const first = await call(c, paid);
      const { cursor } = nextCall(first);
      assert.equal(typeof cursor, "string");
      // The same where: the next page.
      const ok = await call(c, { ...paid, cursor });
      assert.equal(ok.isError, undefined, texts(ok)[0]);
      // Another where, or none.
      assertCursorRefused(await call(c, { ...paid, where: { status: "overdue" }, cursor }), "another where");
      assertCursorRefused(await call(c, { ...paid, where: { status: "paid", currency: "EUR" }, cursor }), "a narrower where");
      assertCursorRefused(await call(c, { action: "list", limit: 7, cursor }), "no where");
      // Every single character altered; cut; lengthened; not base64url.
      for (let i = 0; i < cursor.length; i++) {
        assertCursorRefused(await call(c, { ...paid, cursor: flip(cursor, i) }), `character ${i} of ${cursor} altered`);
      }
      for (const bad of [cursor.slice(0, -1), cursor.slice(1), `${cursor}A`, "", "not a cursor!", "%%%%"]) {
        assertCursorRefused(await call(c, { ...paid, cursor: bad }), `cursor ${JSON.stringify(bad)}`);
      }
      // Another _select (the demo presenter enables it), or none.
      const sel = { action: "list", limit: 5, _select: ["id", "status"], format: "compact" };
      const s1 = await call(c, sel);
      const sc = nextCall(s1).cursor;
      assert.deepEqual(nextCall(s1)._select, ["id", "status"]);
      const s2 = await call(c, { ...sel, cursor: sc });
      assert.equal(s2.isError, undefined, texts(s2)[0]);
      assert.deepEqual(JSON.parse(texts(s2)[0]).map((x) => Object.keys(x)), Array(5).fill(["id", "status"]));
      assertCursorRefused(await call(c, { ...sel, _select: ["id"], cursor: sc }), "another _select");
      assertCursorRefused(await call(c, { ...sel, _select: ["status", "id"], cursor: sc }), "_select reordered");
      assertCursorRefused(await call(c, { action: "list", limit: 5, cursor: sc }), "no _select");
      assertCursorRefused(await call(c, { ...paid, cursor: sc }), "a where instead of the _select");
    });

    it("offset still pages, and yields the rows the cursors do", async () => {
      const c = await start(["--rows", "200"]);
      const base = { action: "list", where: { currency: "EUR" }, limit: 9, format: "compact" };
      const byCursor = [];
      for (let args = base, n = 0; args; args = nextCall(await (async () => {
        const r = await call(c, args);
        assert.equal(r.isError, undefined, texts(r)[0]);
        byCursor.push(...JSON.parse(texts(r)[0]));
        return r;
      })()), n++) assert.ok(n < 100);
      const byOffset = [];
      for (let offset = 0; ; offset += 9) {
        const r = await call(c, { ...base, offset });
        assert.equal(r.isError, undefined, texts(r)[0]);
        const rows = JSON.parse(texts(r)[0]);
        byOffset.push(...rows);
        if (rows.length < 9) break;
      }
      assert.ok(byCursor.length > 9, `${byCursor.length} EUR rows`);
      assert.deepEqual(byOffset, byCursor);
      assert.equal(new Set(byCursor.map((x) => x.id)).size, byCursor.length, "each row once");
      assert.ok(byCursor.every((x) => x.currency === "EUR"));
      // cursor with offset: refused, naming offset.
      const { cursor } = nextCall(await call(c, base));
      const both = await call(c, { ...base, cursor, offset: 9 });
      assert.equal(both.isError, true);
      assert.ok(texts(both)[0].includes('<field name="offset">'), texts(both)[0]);
    });

    it("a budget no row fits: TOO_LARGE naming the token budget, for list and get", async () => {
      // Rows of about 1,400 tokens; the page's other blocks fit in 500, the smallest budget.
      const rows = Array.from({ length: 5 }, (_, i) => ({ id: idOf(i), body: longText(rng(i + 1), 6000) }));
      const path = tempFile("wide.json", JSON.stringify(rows));
      const c = await start(["--collection", `wide=${path}`, "--max-tokens", "500"]);
      for (const args of [{ action: "list" }, { action: "list", format: "compact", limit: 2 },
        { action: "list", offset: 3 }, { action: "get", id: idOf(1) }]) {
        const r = await c.client.callTool({ name: "wide", arguments: args });
        assert.equal(r.isError, true, JSON.stringify(args));
        const t = texts(r);
        assert.equal(t.length, 1);
        assert.match(t[0], /^<tool_error code="TOO_LARGE"/, t[0]);
        assert.ok(t[0].includes("token budget of 500 tokens"), t[0]);
        assert.ok(tokens(t) <= 500, `${tokens(t)} tokens`);
        assert.equal(nextCall(r), undefined);
      }
    });
  });
}

// Errors within the budget too.
describe("token budget: errors", () => {
  const opened = [];
  after(async () => { for (const c of opened) await c.close().catch(() => {}); });

  // An unknown _select name is a <validation_error> on _select whatever the budget: the
  // unknown name is echoed cut (it once came whole, 12,000 characters, and the error over
  // the budget was diagnosed as "One Invoice alone is larger").
  it("an unknown long _select name is a validation error whatever the budget", async () => {
    const c = await stdioClient(["--rows", "50", "--max-tokens", "1000"]);
    opened.push(c);
    const r = await c.client.callTool({ name: "invoices", arguments: {
      action: "list", _select: ["id", "ab cd ".repeat(2000)] } });
    assert.equal(r.isError, true);
    assert.ok(tokens(texts(r)) <= 1000);
    assert.match(texts(r)[0], /^<validation_error[^]*<field name="_select">/, texts(r)[0]);
  });

  // SERVE.md §8: no tools/call result's content exceeds --max-tokens, the TOO_LARGE error
  // included: a budget under 500 (where it would not fit) is refused at start-up, and at
  // 500 a row over it gets a TOO_LARGE within it that names the call skipping the row.
  it("a budget too small for the errors is refused; at 500 TOO_LARGE fits and skips the row", async () => {
    const { spawnSync } = await import("node:child_process");
    const refused = spawnSync(process.env.TOOLWIRE_BIN, ["serve", "--max-tokens", "40"], { input: "" });
    assert.equal(refused.status, 2);
    assert.match(String(refused.stderr), /--max-tokens must be 0 \(no budget\) or at least 500/);
    const big = Array.from({ length: 4 }, (_, i) => ({ id: i, text: (i === 1 ? "huge words ".repeat(400) : "small") }));
    const path = tempFile("rows.json", JSON.stringify(big));
    const c = await stdioClient(["--collection", `rows=${path}`, "--max-tokens", "500"]);
    opened.push(c);
    const first = await c.client.callTool({ name: "rows", arguments: { action: "list", format: "compact" } });
    assert.equal(first.isError, undefined);
    const stuck = await c.client.callTool({ name: "rows", arguments: nextCall(first) });
    const t = texts(stuck);
    assert.equal(stuck.isError, true);
    assert.match(t[0], /^<tool_error code="TOO_LARGE"/);
    assert.ok(tokens(t) <= 500, `${tokens(t)} tokens`);
    assert.match(t[0], /row at position 1 of the 4 matching rows is alone larger than the token budget of 500 tokens/);
    const skip = JSON.parse(/Skip it: call rows with (\{.*?\})\./.exec(t[0])[1].replaceAll("&amp;", "&"));
    const after = await c.client.callTool({ name: "rows", arguments: skip });
    assert.deepEqual(JSON.parse(texts(after)[0]).map((r) => r.id), [2, 3]);
  });
});
