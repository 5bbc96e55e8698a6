// hostile-server.mjs -- a Streamable HTTP MCP server that attacks its
// client, for tests/integration/hostile-remote.sh.  Plain node:http, no
// packages: it speaks just enough MCP (initialize, a session id, ping,
// tools/list, 202 for notifications and responses) to get a session
// going, then misbehaves as --mode says:
//
//   retry-storm  every GET (the server's stream) is answered with one
//                event carrying an id and "retry: 1", then the stream
//                ends: a client that obeys reopens it 1000 times a second
//   ping-flood   once POST /go came, the GET stream sends --pings N ping
//                requests as fast as the client reads them, then stays
//                open; the POSTs that carry the client's answers
//                (responses) are never answered: a client without a cap
//                opens a connection per answer
//   hang         tools/call is never answered (the POST stays open);
//                the rest works
//
//   node hostile-server.mjs --mode MODE [--pings N] [--port N]
//
// Listens on 127.0.0.1 (port 0 by default: the kernel picks) and prints
// {"port": N, "url": "http://127.0.0.1:N/mcp"} on stdout once it does.
// POST /go starts the flood.  GET /stats answers what it has seen, as JSON:
//   gets, posts        requests to /mcp by method
//   open, peak_open    TCP connections open now, and at most at once
//   held               requests held unanswered now
//   answers            JSON-RPC responses POSTed by the client
//   pings_sent         ping requests sent on the GET stream
//   calls              tools/call requests received

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

const opts = { mode: "", pings: 3000, port: 0 };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i], v = process.argv[i + 1];
  if (k === "--mode" && v !== undefined) opts.mode = v;
  else if (k === "--pings" && v !== undefined) opts.pings = Number(v);
  else if (k === "--port" && v !== undefined) opts.port = Number(v);
  else {
    process.stderr.write("usage: node hostile-server.mjs --mode " +
      "retry-storm|ping-flood|hang [--pings N] [--port N]\n");
    process.exit(2);
  }
}
if (!["retry-storm", "ping-flood", "hang"].includes(opts.mode)) {
  process.stderr.write(`hostile-server: unknown mode "${opts.mode}"\n`);
  process.exit(2);
}

const stats = { gets: 0, posts: 0, open: 0, peak_open: 0, held: 0,
  answers: 0, pings_sent: 0, calls: 0 };
const sessions = new Set();
let eventSeq = 0;
// ping-flood: the streams waiting for POST /go.
let go = false;
const waitingForGo = [];

function json(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

// Never answered: counted while it stays open.
function hold(req, res) {
  stats.held++;
  res.on("close", () => { stats.held--; });
}

function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream",
    "cache-control": "no-cache" });
}

// A notification nobody subscribed to: the client passes it on, and
// nothing comes of it.
function noise() {
  return JSON.stringify({ jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "hostile://nothing" } });
}

function onGet(req, res) {
  stats.gets++;
  if (opts.mode === "retry-storm") {
    sse(res);
    res.end(`retry: 1\nid: e${++eventSeq}\ndata: ${noise()}\n\n`);
    return;
  }
  if (opts.mode === "ping-flood") {
    sse(res);
    let n = 0;
    const pump = () => {
      while (n < opts.pings) {
        n++;
        stats.pings_sent++;
        const ev = `id: p${n}\ndata: ${JSON.stringify({ jsonrpc: "2.0",
          id: `hostile-${n}`, method: "ping" })}\n\n`;
        if (!res.write(ev)) {
          res.once("drain", pump);
          return;
        }
      }
      // Then it stays open, saying nothing.
    };
    if (go)
      pump();
    else
      waitingForGo.push(pump);
    hold(req, res);
    return;
  }
  // hang: no stream of its own.
  res.writeHead(405, { allow: "POST" });
  res.end();
}

function onPost(req, res, msg) {
  stats.posts++;
  if (msg === null || typeof msg !== "object" || Array.isArray(msg))
    return json(res, 400, { jsonrpc: "2.0", id: null,
      error: { code: -32700, message: "parse error" } });
  const isRequest = typeof msg.method === "string" && msg.id !== undefined;
  if (!isRequest) {
    if (typeof msg.method !== "string") {
      stats.answers++;
      if (opts.mode === "ping-flood")
        return hold(req, res);
    }
    res.writeHead(202);
    return res.end();
  }
  const sid = req.headers["mcp-session-id"];
  if (msg.method === "initialize") {
    const id = randomUUID();
    sessions.add(id);
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: {
      protocolVersion: msg.params?.protocolVersion ?? "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "hostile", version: "1.0.0" } } },
      { "mcp-session-id": id });
  }
  if (sid === undefined || !sessions.has(sid))
    return json(res, 404, { jsonrpc: "2.0", id: msg.id,
      error: { code: -32001, message: "Session not found" } });
  if (msg.method === "tools/list")
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: {
      tools: [{ name: "wait", description: "Never answers",
        inputSchema: { type: "object" } }] } });
  if (msg.method === "tools/call") {
    stats.calls++;
    if (opts.mode === "hang")
      return hold(req, res);
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: {
      content: [{ type: "text", text: "done" }] } });
  }
  return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: {} });
}

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://localhost");
  if (url.pathname === "/stats" && req.method === "GET")
    return json(res, 200, stats);
  if (url.pathname === "/go" && req.method === "POST") {
    go = true;
    waitingForGo.splice(0).forEach((pump) => pump());
    return json(res, 200, { go });
  }
  if (url.pathname !== "/mcp")
    return json(res, 404, { error: "not found" });
  if (req.method === "GET")
    return onGet(req, res);
  if (req.method === "DELETE") {
    sessions.delete(req.headers["mcp-session-id"]);
    res.writeHead(200);
    return res.end();
  }
  if (req.method !== "POST") {
    res.writeHead(405);
    return res.end();
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let msg = null;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      msg = null;
    }
    onPost(req, res, msg);
  });
});
// Held requests stay held: no timeouts of node's own.
server.requestTimeout = 0;
server.headersTimeout = 0;
server.keepAliveTimeout = 60000;
server.on("connection", (sock) => {
  stats.open++;
  if (stats.open > stats.peak_open)
    stats.peak_open = stats.open;
  sock.on("close", () => { stats.open--; });
});
server.listen(opts.port, "127.0.0.1", () => {
  const port = server.address().port;
  process.stdout.write(JSON.stringify({ port,
    url: `http://127.0.0.1:${port}/mcp` }) + "\n");
});
for (const sig of ["SIGTERM", "SIGINT"])
  process.on(sig, () => process.exit(0));
