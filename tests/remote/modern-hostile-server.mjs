// modern-hostile-server.mjs -- a remote of MCP 2026-07-28 over Streamable
// HTTP that misbehaves, for tests/integration/remote-modern-hostile.sh.
// Plain node:http, no packages: it speaks just enough of 2026-07-28
// (server/discover, tools/call, subscriptions/listen) and does what the
// request asks of it:
//
//   initialize       400: with clientInfo.name "garbage" an HTML body,
//                    else a header mismatch (-32020) naming no versions
//   server/discover  its result (2026-07-28)
//   tools/call, by params.name:
//     echo           the Mcp-Name header it got, as the text
//     huge           an SSE stream whose one event is 300,000 bytes
//     garbage        200 application/json that is not JSON
//     bad400         400 with a body that is no JSON-RPC error
//     hang           never answered; counted in "closed" when the client
//                    closes the connection
//     anything else  the Mcp-Name header it got, as the text
//   subscriptions/listen  an SSE stream: the acknowledgment, then the
//                    server's notifications/cancelled for it, then its end
//   anything else    404, -32601
//
//   node modern-hostile-server.mjs [--port N]
//
// Listens on 127.0.0.1 and prints {"port": N, "url": ".../mcp"} on stdout.
// GET /stats answers what it saw, as JSON: posts (every POST: method,
// name, and the headers mcp-protocol-version, mcp-method, mcp-name,
// mcp-session-id, x-injected), closed, held.

import { createServer } from "node:http";

let port = 0;
for (let i = 2; i < process.argv.length; i += 2) {
  if (process.argv[i] === "--port") port = Number(process.argv[i + 1]);
  else {
    process.stderr.write("usage: node modern-hostile-server.mjs [--port N]\n");
    process.exit(2);
  }
}

const stats = { posts: [], closed: 0, held: 0 };

function json(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

function event(res, msg) {
  res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
}

const result = (id, r) => ({ jsonrpc: "2.0", id, result: { ...r, resultType: "complete" } });
const text = (id, t) => result(id, { content: [{ type: "text", text: t }] });

function call(req, res, msg) {
  const id = msg.id;
  switch (msg.params?.name) {
  case "huge":
    sse(res);
    event(res, text(id, "x".repeat(300000)));
    return res.end();
  case "garbage":
    return json(res, 200, "this is { not JSON");
  case "bad400":
    return json(res, 400, "<html><body>Bad Request\u0001\u0002</body></html>");
  case "hang":
    stats.held++;
    res.on("close", () => { stats.held--; stats.closed++; });
    return;
  default:
    return json(res, 200, text(id, `Mcp-Name: ${req.headers["mcp-name"]}`));
  }
}

// tools/list in three pages of tools whose x-mcp-header annotations go
// past mcpd-remote's bounds (or, deep_ok and fine, do not).
function nest(levels, leaf) {
  let node = leaf;
  for (let i = 0; i < levels; i++)
    node = { type: "object", properties: { k: node } };
  return node;
}
const many = { type: "object", properties: {} };
for (let i = 0; i < 1000; i++)
  many.properties[`p${i}`] = { type: "string", "x-mcp-header": `H${i}` };
const PAGES = [
  [{ name: "deep", inputSchema: nest(100, { type: "string", "x-mcp-header": "Deep" }) },
    { name: "deep_ok", inputSchema: nest(60, { type: "string" }) },
    { name: "fine", inputSchema: { type: "object", properties: {
      region: { type: "string", "x-mcp-header": "Region" } } } }],
  [{ name: "many", inputSchema: many }],
  [{ name: "longname", inputSchema: { type: "object", properties: {
      a: { type: "string", "x-mcp-header": "N".repeat(20000) } } } },
    { name: "hugekey", inputSchema: { type: "object", properties: {
      ["k".repeat(20000)]: { type: "string", "x-mcp-header": "K" } } } }],
];

function list(res, msg) {
  const page = Number(msg.params?.cursor ?? 0);
  const tools = PAGES[page] ?? [];
  return json(res, 200, result(msg.id, { tools,
    ...(page + 1 < PAGES.length ? { nextCursor: String(page + 1) } : {}) }));
}

function handle(req, res, msg) {
  const id = msg?.id;
  switch (msg?.method) {
  case "initialize":
    if (msg.params?.clientInfo?.name === "garbage")
      return json(res, 400, "<html>Bad Request</html>");
    return json(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32020,
      message: "Bad Request: the required Mcp-Method header is absent" } });
  case "server/discover":
    return json(res, 200, result(id, { supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} }, _meta: {
        "io.modelcontextprotocol/serverInfo": { name: "hostile", version: "1" } } }));
  case "tools/call":
    return call(req, res, msg);
  case "tools/list":
    return list(res, msg);
  case "subscriptions/listen":
    sse(res);
    event(res, { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged",
      params: { notifications: msg.params?.notifications ?? {},
        _meta: { "io.modelcontextprotocol/subscriptionId": id } } });
    event(res, { jsonrpc: "2.0", method: "notifications/cancelled",
      params: { requestId: id, reason: "going away" } });
    return res.end();
  default:
    return json(res, 404, { jsonrpc: "2.0", id: id ?? null,
      error: { code: -32601, message: "Method not found" } });
  }
}

const srv = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats")
    return json(res, 200, stats);
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(parts).toString("utf8"));
    } catch {
      msg = undefined;
    }
    const h = req.headers;
    stats.posts.push({ http: req.method, method: msg?.method, name: msg?.params?.name,
      headers: { "mcp-protocol-version": h["mcp-protocol-version"],
        "mcp-method": h["mcp-method"], "mcp-name": h["mcp-name"],
        "mcp-session-id": h["mcp-session-id"], "x-injected": h["x-injected"],
        "mcp-param-region": h["mcp-param-region"] } });
    if (req.method !== "POST") {
      res.writeHead(405);
      return res.end();
    }
    handle(req, res, msg);
  });
});
srv.listen(port, "127.0.0.1", () => {
  const p = srv.address().port;
  process.stdout.write(JSON.stringify({ port: p, url: `http://127.0.0.1:${p}/mcp` }) + "\n");
});
