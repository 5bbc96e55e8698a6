// reconnect.mjs -- the official TypeScript SDK client through `mcpctl
// connect`, driven one step at a time by reconnect.sh, which stops and
// starts (or re-executes) mcpd between the steps.
//
//   MCPCTL=/abs/path/to/mcpctl node reconnect.mjs --socket PATH \
//       --server NAME [--bridge-arg ARG]...
//
// Reads one command per line on stdin and answers each with one JSON line
// on stdout, {"ok": true, ...} or {"ok": false, "error": "..."}:
//   call TOOL [JSON-ARGS]     call a tool; "text" is its text, or "code"
//                             and "message" of the JSON-RPC error
//   start TAG TOOL [JSON-ARGS]  start a call and answer at once
//   await TAG                 wait for that call: as "call", plus "ms"
//   until-ok TOOL [JSON-ARGS] call until a call succeeds: "tries", "ms"
//   subscribe URI | unsubscribe URI | level LEVEL | tools
//   read URI                  read a resource: "text" is its text
//   updates URI               notifications/resources/updated seen for URI
//   wait-update URI MS        wait for one more of them (at most MS)
//   list-changed              how many */list_changed came
//   closed                    whether the transport has closed
// The client is never reconnected: one transport, one bridge, for the
// whole run.  Every request has a 60 s timeout; stdin ending ends it.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { createInterface } from "node:readline";

function usage(msg) {
  process.stderr.write(`reconnect: ${msg}\nusage: MCPCTL=PATH node ` +
    "reconnect.mjs --socket PATH --server NAME [--bridge-arg ARG]...\n");
  process.exit(2);
}

const opts = { bridgeArgs: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const want = () => {
      if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case "--socket": opts.socket = want(); break;
      case "--server": opts.server = want(); break;
      case "--bridge-arg": opts.bridgeArgs.push(want()); break;
      default: usage(`unknown argument: ${argv[i]}`);
    }
  }
}
if (!opts.socket || !opts.server) usage("--socket and --server are required");
const MCPCTL = process.env.MCPCTL;
if (!MCPCTL) usage("MCPCTL is not set");

const REQ = { timeout: 60000 };
const updates = new Map();
let listChanged = 0;
let closed = false;

const client = new Client({ name: "mcpd-reconnect", version: "1.0.0" },
  { capabilities: {} });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  const uri = n.params.uri;
  updates.set(uri, (updates.get(uri) || 0) + 1);
});
for (const schema of [ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema])
  client.setNotificationHandler(schema, () => { listChanged++; });
const transport = new StdioClientTransport({
  command: MCPCTL,
  args: ["-s", opts.socket, "connect", opts.server, ...opts.bridgeArgs],
  env: process.env,
  stderr: "inherit",
});
transport.onclose = () => { closed = true; };

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function textOf(result) {
  return (result.content || []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
}

// A call's outcome as a plain object; never throws.
async function call(tool, args) {
  const start = Date.now();
  try {
    const r = await client.callTool({ name: tool, arguments: args },
      undefined, REQ);
    return { ok: !r.isError, text: textOf(r), ms: Date.now() - start };
  } catch (err) {
    return { ok: false, code: err.code, message: String(err.message),
      ms: Date.now() - start };
  }
}

const pending = new Map();
const counted = new Map();	// tag -> how many times the call settled

async function run(words) {
  const [op, a, b, c] = words;
  const json = (s) => (s === undefined ? {} : JSON.parse(s));
  switch (op) {
    case "call": return call(a, json(b));
    case "start": {
      counted.set(a, 0);
      pending.set(a, call(b, json(c)).then((r) => {
        counted.set(a, counted.get(a) + 1);
        return r;
      }));
      return { ok: true };
    }
    case "await": {
      const r = await pending.get(a);
      // A window, not a wait: a second answer would come with the first.
      await sleep(200);
      return { ...r, settled: counted.get(a) };
    }
    case "until-ok": {
      const start = Date.now();
      for (let tries = 1; ; tries++) {
        const r = await call(a, json(b));
        if (r.ok) return { ...r, tries, ms: Date.now() - start };
        if (Date.now() - start > 30000) return { ...r, tries };
        await sleep(10);
      }
    }
    case "subscribe":
      await client.subscribeResource({ uri: a }, REQ);
      return { ok: true };
    case "unsubscribe":
      await client.unsubscribeResource({ uri: a }, REQ);
      return { ok: true };
    case "level":
      await client.setLoggingLevel(a, REQ);
      return { ok: true };
    case "read": {
      const r = await client.readResource({ uri: a }, REQ);
      return { ok: true, text: (r.contents || []).map((c) => c.text).join("\n") };
    }
    case "tools": {
      const r = await client.listTools({}, REQ);
      return { ok: true, names: r.tools.map((t) => t.name) };
    }
    case "updates": return { ok: true, n: updates.get(a) || 0 };
    case "wait-update": {
      const before = updates.get(a) || 0;
      const deadline = Date.now() + Number(b);
      while ((updates.get(a) || 0) <= before && Date.now() < deadline)
        await sleep(20);
      return { ok: (updates.get(a) || 0) > before, n: updates.get(a) || 0 };
    }
    case "list-changed": return { ok: true, n: listChanged };
    case "closed": return { ok: true, closed };
    default: return { ok: false, error: `unknown command ${op}` };
  }
}

try {
  await client.connect(transport);
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false,
    error: `connect: ${err.message}` }) + "\n");
  process.exit(1);
}
process.stdout.write(JSON.stringify({ ok: true, ready: true }) + "\n");

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === "") continue;
  // Words, except that a JSON argument (from "{") is one word.
  const brace = line.indexOf("{");
  const head = (brace >= 0 ? line.slice(0, brace) : line).trim().split(/\s+/);
  if (brace >= 0) head.push(line.slice(brace));
  let out;
  try {
    out = await run(head);
  } catch (err) {
    out = { ok: false, error: `${err.name}: ${err.message}`, code: err.code };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
await Promise.race([client.close(), sleep(3000)]);
process.exit(0);
