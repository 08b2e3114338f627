// A database source (SERVE.md §7) through the official TypeScript SDK client, over stdio and
// streamable HTTP, every row of SERVE.md's tool table on both databases: the demo's invoices
// written into an SQLite file by `toolwire demo --sqlite`, served as
// `invoices=sqlite://FILE#invoices`, and the same rows in a PostgreSQL table of a server the
// test starts on loopback (./postgres.mjs) and stops after, served as `postgres://…#invoices`.
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";

import {
  BIN, stdioClient, httpServer, httpClient, texts, assertTagSafe, nextCall, tempFile,
} from "./helpers.mjs";
import { startPostgres } from "./postgres.mjs";

const ROWS = 300;
const db = tempFile("invoices.db", "");
const made = spawnSync(BIN, ["demo", "--rows", String(ROWS), "--sqlite", db]);
assert.equal(made.status, 0, String(made.stderr));
// The demo's rows as its presenter shows them (the client's email redacted); the served tables
// hold an email, so comparisons leave it out.
const demoText = spawnSync(BIN, ["demo", "--rows", String(ROWS), "--dump", "compact"]).stdout.toString();
const demo = JSON.parse(demoText);
const noEmail = (r) => ({ ...r, client: { name: r.client.name } });

// The same rows in PostgreSQL: the SQLite table's columns, `client` as jsonb, the index that
// serves a filtered page in key order.
const pg = await startPostgres();
after(() => pg.stop());
pg.sql(`CREATE TABLE invoices (
    id text PRIMARY KEY, client jsonb, amount_cents bigint NOT NULL, currency text NOT NULL,
    status text NOT NULL, issued_at text);
  CREATE INDEX invoices_status ON invoices (status, id);
  INSERT INTO invoices SELECT v->>'id', v->'client', (v->>'amount_cents')::bigint, v->>'currency',
    v->>'status', v->>'issued_at' FROM jsonb_array_elements($rows$${demoText}$rows$::jsonb) v;`);

const sources = {
  SQLite: `invoices=sqlite://${db}#invoices`,
  PostgreSQL: `invoices=${pg.url}#invoices`,
};

const transports = {
  stdio: async (args) => stdioClient(args),
  http: async (args) => {
    const server = await httpServer(args);
    const c = await httpClient(server.url);
    return { ...c, close: async () => { await c.close(); await server.stop(); } };
  },
};

// The notice and the next call of a page of `shown` rows among `total` matching ones. SQLite
// counts exactly (an unchanged file repeats a count for free); PostgreSQL keeps a count 10 s
// and says it as "about" (docs/DECISIONS.md, "Database sources"): a listing's first page seen
// again within that time (as here, where earlier calls counted the same rows) names no number
// in the notice and "about" in the next call.
function assertCounted(r, shown, total, source) {
  const all = texts(r).join("\n");
  const exact = all.includes(`${shown} shown, ${total - shown} hidden`)
    && all.includes("- Next page: call ");
  const about = all.includes(`${shown} shown, more hidden`)
    && all.includes(`- About ${total - shown} more rows. Next page: call `);
  assert.ok(source === "SQLite" ? exact : exact || about, all);
}

for (const [source, spec] of Object.entries(sources)) for (const [name, open] of Object.entries(transports)) {
  describe(`a ${source} table through the TypeScript SDK client over ${name}`, () => {
    const opened = [];
    const start = async (args) => {
      const c = await open(args);
      opened.push(c);
      return c;
    };
    after(async () => { for (const c of opened) await c.close().catch(() => {}); });
    const call = (client, args) => client.callTool({ name: "invoices", arguments: args });

    it("the tool's schema comes from the table's columns", async () => {
      const { client } = await start(["--collection", spec]);
      const { tools } = await client.listTools();
      assert.equal(tools.length, 1);
      const props = tools[0].inputSchema.properties;
      const columns = ["id", "client", "amount_cents", "currency", "status", "issued_at"];
      assert.deepEqual(props.where.propertyNames.enum, columns);
      assert.deepEqual(props._select.items.enum, [...columns].sort());
      assert.deepEqual(props.action.enum, ["list", "get"]);
      assert.equal(props.cursor.type, "string");
    });

    it("list: where, limit, format, _select, cursor paging and offset", async () => {
      const { client } = await start(["--collection", spec]);
      // Paging by the named cursors: every matching row once, in key order, exactly.
      const want = demo.filter((r) => r.status === "overdue" && r.currency === "EUR");
      const got = [];
      let args = { action: "list", where: { status: "overdue", currency: "EUR" }, limit: 7, format: "compact" };
      for (let calls = 0; args; calls++) {
        assert.ok(calls < 100);
        const r = await call(client, args);
        assert.equal(r.isError, undefined, texts(r)[0]);
        assertTagSafe(r);
        got.push(...JSON.parse(texts(r)[0]));
        args = nextCall(r);
      }
      assert.deepEqual(got.map(noEmail), want.map(noEmail));
      // _select: the columns asked for, in request order.
      const r = await call(client, { action: "list", limit: 2, _select: ["amount_cents", "id"], format: "compact" });
      assert.deepEqual(JSON.parse(texts(r)[0]), demo.slice(0, 2).map((x) => ({ amount_cents: x.amount_cents, id: x.id })));
      // offset keeps working; TOON by name.
      const o = await call(client, { action: "list", offset: 10, limit: 1, format: "toon", _select: ["id"] });
      assert.equal(texts(o)[0], `[1|]{id}:\n  ${demo[10].id}`);
      assertCounted(o, 1, ROWS - 10, source);
    });

    it("get by key, NOT_FOUND, validation errors and an unknown tool", async () => {
      const { client } = await start(["--collection", spec]);
      const g = await call(client, { action: "get", id: demo[41].id, format: "compact" });
      assert.deepEqual(noEmail(JSON.parse(texts(g)[0])), noEmail(demo[41]));
      const nf = await call(client, { action: "get", id: "INV-9999999" });
      assert.equal(nf.isError, true);
      assert.ok(texts(nf)[0].startsWith('<tool_error code="NOT_FOUND"'), texts(nf)[0]);
      for (const args of [
        { action: "list", where: { nope: 1 } },
        { action: "list", where: { status: ["paid"] } },
        { action: "list", _select: ["secret"] },
        { action: "list", cursor: "not-a-cursor" },
        { action: "list", offset: -1 },
        { action: "get" },
      ]) {
        const r = await call(client, args);
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.ok(texts(r)[0].startsWith("<validation_error"), `${JSON.stringify(args)}: ${texts(r)[0]}`);
      }
      await assert.rejects(call({ callTool: (p) => client.callTool({ ...p, name: "nope" }) }, { action: "list" }),
        (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
      // Hostile values are bound, never SQL: no rows, the table intact.
      const h = await call(client, { action: "list", where: { status: "'; DROP TABLE invoices; --" } });
      assert.equal(h.isError, undefined);
      const all = await call(client, { action: "list", limit: 1 });
      assertCounted(all, 1, ROWS, source);
    });

    it("--structured: structuredContent and outputSchema", async () => {
      const { client } = await start(["--collection", spec, "--structured"]);
      const r = await call(client, { action: "list", limit: 3, _select: ["id"] });
      assert.deepEqual(r.structuredContent, { items: demo.slice(0, 3).map((x) => ({ id: x.id })) });
    });
  });
}
