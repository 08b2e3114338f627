// Helpers of the TypeScript SDK client tests: the real `toolwire` binary (TOOLWIRE_BIN, default
// target/debug/toolwire of the repository), driven by the official SDK's Client over stdio
// (StdioClientTransport) and streamable HTTP (StreamableHTTPClientTransport).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import assert from "node:assert/strict";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../../../..");
export const BIN = process.env.TOOLWIRE_BIN
  ? resolve(process.env.TOOLWIRE_BIN)
  : join(repo, "target/debug/toolwire");

/** A file in a fresh temporary directory. */
export function tempFile(name, contents) {
  const dir = mkdtempSync(join(tmpdir(), "toolwire-ts-"));
  const p = join(dir, name);
  writeFileSync(p, contents);
  return p;
}

/**
 * A Transport that delegates to `inner` and records every message the server sent (and its
 * size as re-serialised, for stdio where the raw line is not exposed).
 */
class Recording {
  constructor(inner) {
    this.inner = inner;
    this.received = [];
    inner.onmessage = (m, extra) => {
      this.received.push(m);
      this.onmessage?.(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start() { return this.inner.start(); }
  send(m, o) { return this.inner.send(m, o); }
  close() { return this.inner.close(); }
  setProtocolVersion(v) { this.version = v; this.inner.setProtocolVersion?.(v); }
  get sessionId() { return this.inner.sessionId; }
}

/** Lines of a readable stream, pushed into an array; `waitFor` awaits one that matches. */
function lineLog(stream) {
  const lines = [];
  const waiters = [];
  createInterface({ input: stream }).on("line", (l) => {
    lines.push(l);
    for (const w of waiters.splice(0)) w();
  });
  return {
    lines,
    async waitFor(re, ms = 20000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = lines.find((l) => re.test(l));
        if (hit) return hit;
        const left = deadline - Date.now();
        assert.ok(left > 0, `no stderr line matches ${re}; got ${JSON.stringify(lines)}`);
        await new Promise((r) => {
          waiters.push(r);
          setTimeout(r, Math.min(left, 200));
        });
      }
    },
  };
}

/** A connected SDK client over stdio: `toolwire serve ARGS`. */
export async function stdioClient(args) {
  const inner = new StdioClientTransport({ command: BIN, args: ["serve", ...args], stderr: "pipe" });
  const log = lineLog(inner.stderr);
  const transport = new Recording(inner);
  const client = new Client({ name: "toolwire-ts-test", version: "1.0.0" });
  await client.connect(transport);
  // The child process (the SDK keeps it in a private field; read only, to see how it ended).
  const child = inner._process;
  const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  return { client, transport, log, exited, close: () => client.close() };
}

/** A `toolwire serve --http 127.0.0.1:0 ARGS` child; resolves once it printed its URL. */
export async function httpServer(args) {
  const child = spawn(BIN, ["serve", "--http", "127.0.0.1:0", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const log = lineLog(child.stderr);
  const first = await log.waitFor(/./);
  const m = /^listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(first);
  assert.ok(m, `first stderr line: ${first}`);
  return {
    child,
    log,
    url: m[1],
    port: Number(m[2]),
    stop: () => new Promise((r) => {
      if (child.exitCode !== null) return r();
      child.once("exit", r);
      child.kill();
    }),
  };
}

/**
 * A connected SDK client over streamable HTTP. `bodies` collects the exact byte length and
 * text of every response body the transport read (a counting `fetch`).
 */
export async function httpClient(url) {
  const bodies = [];
  const counting = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    const entry = { bytes: 0, chunks: [], done: false };
    bodies.push(entry);
    const reader = res.body.getReader();
    const stream = new ReadableStream({
      async pull(c) {
        const { value, done } = await reader.read();
        if (done) { entry.done = true; c.close(); return; }
        entry.bytes += value.length;
        entry.chunks.push(Buffer.from(value));
        c.enqueue(value);
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    return new Response(stream, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const inner = new StreamableHTTPClientTransport(new URL(url), { fetch: counting });
  const transport = new Recording(inner);
  const client = new Client({ name: "toolwire-ts-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, bodies, close: () => client.close() };
}

/** The text blocks of a tools/call result. */
export const texts = (r) => r.content.map((b) => {
  assert.equal(b.type, "text");
  return b.text;
});

/**
 * The reserved tag sequences in a text (WIRE.md §2, engine/src/tag.rs): `<` or `</`, a
 * reserved name in any ASCII case, then a byte outside `[A-Za-z0-9_-]` or the end. Lowercase.
 */
const RESERVED = ["ui_passthrough", "llm_directives", "domain_rules", "action_suggestions",
  "tool_error", "validation_error"];
export function tags(text) {
  const out = [];
  const re = new RegExp(`<(/?)(${RESERVED.join("|")})(?![A-Za-z0-9_-])`, "gi");
  for (let m; (m = re.exec(text));) out.push(`<${m[1]}${m[2].toLowerCase()}`);
  return out;
}

/**
 * Every block holds exactly the tags its writer wrote: none in a success's data block, one
 * opening tag at its start and its closing tag at its end otherwise.
 */
export function assertTagSafe(result) {
  texts(result).forEach((text, i) => {
    const found = tags(text);
    if (i === 0 && !result.isError) {
      assert.deepEqual(found, [], `data block holds tags: ${text}`);
      return;
    }
    assert.equal(found.length, 2, `block ${i} holds tags ${found}: ${text}`);
    assert.ok(text.toLowerCase().startsWith(found[0]), `block ${i} does not start with its tag: ${text}`);
    assert.equal(found[1], `</${found[0].slice(1)}`, `block ${i}: ${text}`);
  });
}

/** The next call the `<llm_directives>` block names (its arguments), if any. */
export function nextCall(result) {
  const d = texts(result).find((t) => t.startsWith("<llm_directives>"));
  if (!d) return undefined;
  const m = /Next page: call \S+ with (\{.*\})\s*$/m.exec(d);
  return m ? JSON.parse(m[1]) : undefined;
}

/** A collection file of `n` rows (JSON array): ids 0..n-1, a status, a text of `pad` bytes. */
export function rowsFile(n, pad = 96) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows.push({ id: i, status: ["open", "closed", "held"][i % 3], text: "lorem ipsum ".repeat(pad / 12) });
  }
  return { rows, path: tempFile("rows.json", JSON.stringify(rows)) };
}

export { Client };
