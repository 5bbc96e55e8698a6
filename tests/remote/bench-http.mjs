// bench-http.mjs -- the baseline of the remote benchmark: tools/call round
// trips straight to a Streamable HTTP server, no proxy, from Node's own
// HTTP client (one keep-alive connection, one request at a time).
//
//   node bench-http.mjs URL --method echo|big --size N
//       (--duration S | --requests R) [--warmup-ms MS]
//
// Initializes a session, then calls echo (a text of --size bytes) or big
// (a result text of --size bytes) and checks each result.  Prints one JSON
// object: {"replies", "p50_us", "p99_us", "errors"}; exit 1 if a call
// failed or a result was wrong.

import http from "node:http";

const argv = process.argv.slice(2);
const url = new URL(argv.shift() || "");
const o = { method: "echo", size: 200, duration: 0, requests: 0, warmupMs: 0 };
for (let i = 0; i < argv.length; i += 2) {
  const v = argv[i + 1];
  switch (argv[i]) {
    case "--method": o.method = v; break;
    case "--size": o.size = Number(v); break;
    case "--duration": o.duration = Number(v); break;
    case "--requests": o.requests = Number(v); break;
    case "--warmup-ms": o.warmupMs = Number(v); break;
    default:
      process.stderr.write(`bench-http: unknown argument ${argv[i]}\n`);
      process.exit(2);
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let session;

function post(body) {
  return new Promise((resolve, reject) => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    if (session) headers["mcp-session-id"] = session;
    const req = http.request(url, { method: "POST", agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        if (res.headers["mcp-session-id"]) session = res.headers["mcp-session-id"];
        resolve({ status: res.statusCode, type: res.headers["content-type"] || "",
          text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

// The one JSON-RPC response in a JSON or SSE body.
function response(r) {
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
  if (r.type.startsWith("text/event-stream")) {
    for (const line of r.text.split("\n"))
      if (line.startsWith("data:")) return JSON.parse(line.slice(5));
    throw new Error("SSE response without data");
  }
  return JSON.parse(r.text);
}

const init = response(await post({ jsonrpc: "2.0", id: 0, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {},
    clientInfo: { name: "bench-http", version: "1.0" } } }));
if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init).slice(0, 200)}`);
await post({ jsonrpc: "2.0", method: "notifications/initialized" });

const pad = "x".repeat(Math.max(0, o.size - 100));
const rtts = [];
let errors = 0;
const start = process.hrtime.bigint();
const warm = start + BigInt(o.warmupMs) * 1000000n;
const end = o.duration > 0 ? start + BigInt(Math.round(o.duration * 1e9)) : 0n;
for (let n = 1; ; n++) {
  const now = process.hrtime.bigint();
  if (end ? now >= end : n > o.requests) break;
  const text = `r${n}-${pad}`;
  const params = o.method === "big"
    ? { name: "big", arguments: { bytes: o.size } }
    : { name: "echo", arguments: { text } };
  const t0 = process.hrtime.bigint();
  const r = response(await post({ jsonrpc: "2.0", id: n, method: "tools/call", params }));
  const t1 = process.hrtime.bigint();
  const got = r.result && r.result.content && r.result.content[0] &&
    r.result.content[0].text;
  const ok = r.id === n && (o.method === "big" ? got && got.length === o.size : got === text);
  if (!ok) errors++;
  if (t0 >= warm) rtts.push(Number(t1 - t0) / 1000);
}
rtts.sort((a, b) => a - b);
const pct = (p) => rtts.length ? rtts[Math.min(rtts.length - 1, Math.floor(p * rtts.length))] : 0;
process.stdout.write(JSON.stringify({ replies: rtts.length, p50_us: pct(0.5),
  p99_us: pct(0.99), errors }) + "\n");
agent.destroy();
process.exit(errors ? 1 : 0);
