#!/usr/bin/env node
// A minimal stateless MCP HTTP server for bench.rs that dies mid-run: it answers the
// handshake era (server/discover is "method not found"), lists one tool `t`, answers the
// first two tools/call requests, and on the third destroys the connection and exits 3.
// The first stderr line is `listening on http://HOST:PORT/mcp`, as toolwire serve's.
import { createServer } from 'node:http';

let calls = 0;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const m = JSON.parse(body);
    const reply = (o) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...o }));
    };
    if (m.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    if (m.method === 'initialize') {
      return reply({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} },
                               serverInfo: { name: 'dies', version: '0' } } });
    }
    if (m.method === 'tools/list') {
      return reply({ result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } });
    }
    if (m.method === 'tools/call') {
      calls += 1;
      if (calls === 3) {
        req.socket.destroy();
        process.exit(3);
      }
      return reply({ result: { content: [{ type: 'text', text: `call ${calls}` }] } });
    }
    reply({ error: { code: -32601, message: 'Method not found' } });
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
