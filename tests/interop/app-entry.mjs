// app-entry.mjs -- an MCP app's server entry, run as the app runs it: the
// official TypeScript SDK client starts COMMAND ARGS... over stdio (as
// Claude Desktop, Cursor or VS Code do), lists the tools and calls one.
//
//   node app-entry.mjs TOOL JSON-ARGS -- COMMAND [ARGS...]
//
// Prints one JSON line: {"ok": true, "tools": [...], "text": "..."} or
// {"ok": false, "error": "..."}; exits 0 either way (the caller judges).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
if (dash !== 2 || argv.length < 4) {
  process.stderr.write("usage: node app-entry.mjs TOOL JSON-ARGS -- COMMAND [ARGS...]\n");
  process.exit(2);
}
const [tool, json] = argv;
const [command, ...args] = argv.slice(3);
const client = new Client({ name: "mcpd-app-entry", version: "1.0.0" },
  { capabilities: {} });
const transport = new StdioClientTransport({ command, args,
  env: process.env, stderr: "inherit" });
let out;
try {
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const r = await client.callTool({ name: tool, arguments: JSON.parse(json) });
  const text = (r.content || []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
  out = { ok: !r.isError, tools, text,
    server: client.getServerVersion()?.name ?? null };
} catch (err) {
  out = { ok: false, error: String(err.message || err) };
}
process.stdout.write(JSON.stringify(out) + "\n");
await Promise.race([client.close(),
  new Promise((resolve) => setTimeout(resolve, 3000))]);
process.exit(0);
