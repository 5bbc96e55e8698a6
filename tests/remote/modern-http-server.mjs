// modern-http-server.mjs -- an MCP server of 2026-07-28 over Streamable
// HTTP, built with the official TypeScript SDK 2.x: createMcpHandler
// (@modelcontextprotocol/server) mounted on node:http with toNodeHandler
// (@modelcontextprotocol/node), for tests/interop/remote-modern.sh.
//
//   node modern-http-server.mjs [--strict] --log FILE [--port N]
//
// Without --strict it serves both eras (the SDK's stateless fallback for a
// client that opens with initialize); with --strict 2026-07-28 alone (the
// SDK's legacy: "reject": an initialize is answered 400 naming the
// versions it supports).
//
// Tools: echo {message} ("Echo: MESSAGE"); progress {steps}
// (notifications/progress STEPS times, then "done"); ask (an elicitation
// of {name} as an input_required result, answered "Name: NAME"); flip
// (the tool extra appears or goes: notifications/tools/list_changed);
// touch {uri} (notifications/resources/updated for URI on the listen
// streams that named it); route {region, count?, opts?: {fast?}, note?}
// (their x-mcp-header annotations: Region, Count, Fast, Note; the SDK
// checks the Mcp-Param-* headers against the arguments and answers a
// mismatch 400, -32020; "route REGION"); badhdr (an x-mcp-header on a
// number: a conforming client leaves it out).  Resource test://r ("r").
// Prompt "hello".
//
// Every POST is logged to FILE, one JSON object a line, before the SDK
// sees it: {"method", "id", "name", "headers": {"mcp-protocol-version",
// "mcp-method", "mcp-name", "mcp-session-id"}, "params": {every
// mcp-param-* header}}; a GET or DELETE as {"http": "GET"}.  POST /drop
// with a body {"method": M} makes the next POST whose Mcp-Method is M
// break mid-answer: an SSE stream is opened, a comment sent, and the
// connection destroyed.  POST /break-listens flips the tool extra without
// a word and breaks every open subscriptions/listen stream: a change
// made while the listeners are away.  Listens on 127.0.0.1
// and prints {"port": N, "url": "http://127.0.0.1:N/mcp"} on stdout.

import { createServer } from "node:http";
import { appendFileSync } from "node:fs";
import { McpServer, acceptedContent, createMcpHandler, fromJsonSchema, inputRequired } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod/v4";

const opts = { strict: false, log: "", port: 0 };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i];
  if (k === "--strict") opts.strict = true;
  else if (k === "--log") opts.log = process.argv[++i];
  else if (k === "--port") opts.port = Number(process.argv[++i]);
  else {
    process.stderr.write("usage: node modern-http-server.mjs [--strict] " +
      "--log FILE [--port N]\n");
    process.exit(2);
  }
}
if (!opts.log) {
  process.stderr.write("modern-http-server: --log FILE is required\n");
  process.exit(2);
}

function log(msg) {
  process.stderr.write(`modern-http-server[${process.pid}]: ${msg}\n`);
}

const text = (t) => ({ content: [{ type: "text", text: t }] });
const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string", description: "Your name" } },
  required: ["name"],
};
const nameSchema = z.object({ name: z.string() });
let handler;
let extraEnabled = false;

function build({ era }) {
  const server = new McpServer({ name: "modern-http", version: "1.0.0" }, {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      logging: {},
    },
  });
  server.registerTool("echo", { description: "Echoes its message",
    inputSchema: z.object({ message: z.string() }) },
  async ({ message }) => text(`Echo: ${message}`));

  server.registerTool("progress", { description: "Reports progress STEPS times",
    inputSchema: z.object({ steps: z.number().int().min(1).max(100).optional() }) },
  async ({ steps = 3 }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      for (let i = 1; i <= steps; i++) {
        await ctx.mcpReq.notify({ method: "notifications/progress",
          params: { progressToken, progress: i, total: steps } });
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return text("done");
  });

  server.registerTool("ask", { description: "Asks the user's name",
    inputSchema: z.object({}) },
  async (_args, ctx) => {
    if (era === "legacy")
      return text("ask needs 2026-07-28");
    const got = acceptedContent(ctx.mcpReq.inputResponses, "name", nameSchema);
    if (got !== undefined) return text(`Name: ${got.name}`);
    return inputRequired({ inputRequests: {
      name: inputRequired.elicit({ message: "Name?", requestedSchema: NAME_FORM }),
    } });
  });

  if (extraEnabled)
    server.registerTool("extra", { description: "Appears and goes with flip",
      inputSchema: z.object({}) }, async () => text("extra"));

  server.registerTool("flip", { description: "Enables or disables the tool extra",
    inputSchema: z.object({}) },
  async () => {
    extraEnabled = !extraEnabled;
    handler.notify.toolsChanged();
    return text(`extra ${extraEnabled ? "enabled" : "disabled"}`);
  });

  server.registerTool("touch", { description: "notifications/resources/updated for URI",
    inputSchema: z.object({ uri: z.string() }) },
  async ({ uri }) => {
    handler.notify.resourceUpdated(uri);
    return text(`updated ${uri}`);
  });

  server.registerTool("route", { description: "Mirrors arguments into headers",
    inputSchema: fromJsonSchema({ type: "object", properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      count: { type: "integer", "x-mcp-header": "Count" },
      opts: { type: "object", properties: {
        fast: { type: "boolean", "x-mcp-header": "Fast" } } },
      note: { type: "string", "x-mcp-header": "Note" },
    }, required: ["region"] }) },
  async ({ region }) => text(`route ${region}`));

  server.registerTool("badhdr", { description: "x-mcp-header on a number",
    inputSchema: fromJsonSchema({ type: "object", properties: {
      ratio: { type: "number", "x-mcp-header": "Ratio" } } }) },
  async () => text("badhdr"));

  server.registerResource("r", "test://r", { description: "A resource",
    mimeType: "text/plain" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "r" }] }));

  server.registerPrompt("hello", { description: "A greeting" },
    async () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));
  return server;
}

handler = createMcpHandler(build, {
  onerror: (e) => log(`error: ${e?.message ?? e}`),
  keepAliveMs: 0,
  ...(opts.strict ? { legacy: "reject" } : {}),
});
const serve = toNodeHandler(handler, { onerror: (e) => log(`adapter: ${e?.message ?? e}`) });
const drops = new Set();
const listens = new Set();

function record(entry) {
  appendFileSync(opts.log, JSON.stringify(entry) + "\n");
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on("data", (c) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const srv = createServer(async (req, res) => {
  if (req.method !== "POST") {
    record({ http: req.method });
    return serve(req, res);
  }
  const raw = await readBody(req);
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  if (req.url === "/drop") {
    drops.add(body?.method);
    res.writeHead(204);
    return res.end();
  }
  if (req.url === "/break-listens") {
    extraEnabled = !extraEnabled;
    const n = listens.size;
    for (const r of listens) r.socket?.destroy();
    listens.clear();
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(JSON.stringify({ broken: n, extra: extraEnabled }));
  }
  const h = req.headers;
  const params = {};
  for (const [k, v] of Object.entries(h))
    if (k.startsWith("mcp-param-")) params[k] = v;
  record({ method: body?.method, id: body?.id,
    name: body?.params?.name ?? body?.params?.uri,
    headers: { "mcp-protocol-version": h["mcp-protocol-version"],
      "mcp-method": h["mcp-method"], "mcp-name": h["mcp-name"],
      "mcp-session-id": h["mcp-session-id"] }, params });
  if (body?.method === "subscriptions/listen") {
    listens.add(res);
    res.on("close", () => listens.delete(res));
  }
  if (drops.has(h["mcp-method"])) {
    drops.delete(h["mcp-method"]);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": working\n\n", () => res.socket.destroy());
    return;
  }
  return serve(req, res, body);
});
srv.listen(opts.port, "127.0.0.1", () => {
  const port = srv.address().port;
  process.stdout.write(JSON.stringify({ port, url: `http://127.0.0.1:${port}/mcp` }) + "\n");
});
