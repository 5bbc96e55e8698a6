// bench-server.mjs -- a minimal Streamable HTTP MCP server for measuring
// what proxies in front of it cost: the official SDK's Server and
// StreamableHTTPServerTransport on plain node:http (no framework), one
// stateful session per client, JSON responses (no SSE stream per request).
//
//   node bench-server.mjs [--port N] [--host 127.0.0.1]
//
// Listens on /mcp (port 0 by default: the kernel picks) and prints
// "listening PORT" on stdout once it does.  Tools, in the shape
// tests/bench/mcpload expects:
//   echo {text}   the text, back as the result's one text content
//   big {bytes}   a text of that many "x"
// Nothing is logged per request.

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const opts = { port: 0, host: "127.0.0.1" };
for (let i = 2; i < process.argv.length; i += 2) {
  const v = process.argv[i + 1];
  if (process.argv[i] === "--port" && v !== undefined) opts.port = Number(v);
  else if (process.argv[i] === "--host" && v !== undefined) opts.host = v;
  else {
    process.stderr.write("usage: node bench-server.mjs [--port N] [--host ADDR]\n");
    process.exit(2);
  }
}

const BIG_MAX = 64 * 1024 * 1024;
const TOOLS = [
  { name: "echo", description: "Returns its text",
    inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "big", description: "Returns a text of the given size",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } } },
];

function mcpServer() {
  const s = new Server({ name: "mcpd-bench-http", version: "1.0.0" },
    { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => {
    const args = req.params.arguments || {};
    if (req.params.name === "echo")
      return { content: [{ type: "text", text: String(args.text ?? "") }] };
    if (req.params.name === "big") {
      const n = Math.max(0, Math.min(BIG_MAX, Math.floor(Number(args.bytes) || 0)));
      return { content: [{ type: "text", text: "x".repeat(n) }] };
    }
    return { isError: true, content: [{ type: "text", text: `no tool ${req.params.name}` }] };
  });
  return s;
}

const sessions = new Map();

function refuse(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null,
    error: { code: -32000, message } }));
}

const http = createServer(async (req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (url.pathname !== "/mcp") return refuse(res, 404, "Not found");
  const sid = req.headers["mcp-session-id"];
  try {
    if (sid !== undefined) {
      const t = sessions.get(sid);
      if (!t) return refuse(res, 404, "Session not found");
      return await t.handleRequest(req, res);
    }
    if (req.method !== "POST") return refuse(res, 400, "Bad Request: No valid session ID provided");
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => sessions.set(id, t),
    });
    t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
    await mcpServer().connect(t);
    await t.handleRequest(req, res);
  } catch (err) {
    if (!res.headersSent) refuse(res, 500, `Internal error: ${err && err.message}`);
    else res.destroy();
  }
});
http.keepAliveTimeout = 60000;
http.listen(opts.port, opts.host, () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
