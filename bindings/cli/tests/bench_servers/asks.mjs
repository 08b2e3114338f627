#!/usr/bin/env node
// A minimal MCP stdio server for bench_asks.rs, with no SDK: it speaks only the handshake era,
// offers one tool `echo` without a `format` enum, and before answering each tools/call it
// asks the client something (`ping`, then `roots/list`) and answers only once both replies
// came back: a client that ignored server requests would hang here.
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const waiting = new Map(); // server request id -> the call to answer when all replies are in
let next = 0;

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) {
    // A reply to one of our requests.
    const call = waiting.get(m.id);
    waiting.delete(m.id);
    if (!call) return;
    call.replies.push(m);
    if (call.replies.length < 2) return;
    const [ping, roots] = call.replies;
    const ok = ping.result && Object.keys(ping.result).length === 0 && roots.error?.code === -32601;
    send({ jsonrpc: '2.0', id: call.id, result: {
      content: [{ type: 'text', text: ok ? `echo: ${JSON.stringify(call.args)}` : 'bad replies' }],
      isError: !ok,
    } });
    return;
  }
  if (m.id === undefined) return; // notifications
  switch (m.method) {
    case 'initialize':
      return send({ jsonrpc: '2.0', id: m.id, result: {
        protocolVersion: '2025-06-18', capabilities: { tools: {} },
        serverInfo: { name: 'asks', version: '0' } } });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo',
        inputSchema: { type: 'object', properties: { say: { type: 'string' } } } }] } });
    case 'tools/call': {
      const call = { id: m.id, args: m.params.arguments, replies: [] };
      const a = `s${next++}`;
      const b = `s${next++}`;
      waiting.set(a, call);
      send({ jsonrpc: '2.0', id: a, method: 'ping' });
      // The second request is sent only after the first reply, so replies come in order.
      const check = setInterval(() => {
        if (call.replies.length === 1) {
          clearInterval(check);
          waiting.set(b, call);
          send({ jsonrpc: '2.0', id: b, method: 'roots/list' });
        }
      }, 1);
      return;
    }
    default:
      return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
