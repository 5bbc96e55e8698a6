// roots-client.mjs -- the official TypeScript SDK client with the roots
// capability, through `mcpctl connect`, driven one step at a time by
// instances.sh: it answers roots/list with its current roots and changes
// them on command, the way an editor does when a folder is opened.
//
//   MCPCTL=/abs/path/to/mcpctl node roots-client.mjs --socket PATH \
//       --server NAME [--root URI]... [--no-roots] [--name CLIENT-NAME] \
//       [--bridge-arg ARG]...
//   node roots-client.mjs --exec PROGRAM [--exec-arg ARG]... [--root URI]...
//
// --root gives the initial roots (none if not given); --no-roots declares
// no roots capability at all (roots/list is then answered "method not
// found" by the SDK); --name is the clientInfo.name sent in initialize
// ("roots-client" by default).  --exec runs PROGRAM as the server over
// stdio instead of the bridge, to check the client against a server
// without mcpd in between.
//
// Reads one command per line on stdin and answers each with one JSON line
// on stdout, {"ok": true, ...} or {"ok": false, "error": "..."}; the
// first line, before any command, says whether the client connected:
//   roots [URI...]          replace the roots and send
//                           notifications/roots/list_changed
//   call TOOL [JSON-ARGS]   call a tool; "text" is its text, "uris" the
//                           "URI: ..." lines of it (get-roots-list), or
//                           "code" and "message" of the JSON-RPC error;
//                           ok is false for an error or an isError result
//   until-ok TOOL [JSON-ARGS]  call until a call succeeds (30 s at most):
//                           as "call", plus "tries" and "ms"
//   tools                   the names of the tools
//   subscribe URI           subscribe to a resource
//   wait-update URI MS      wait (at most MS) for one more
//                           notifications/resources/updated for URI
//   list-changed            how many */list_changed came: "n" in all and
//                           "tools", "prompts", "resources"
//   wait-list-changed N MS  wait (at most MS) until more than N came
//   roots-asked             how many roots/list the client answered
//   wait-roots-asked N MS   wait (at most MS) until more than N
//   bridge-pid              the pid of the bridge (or of PROGRAM)
//   closed                  whether the transport has closed
//   close                   close the client (the bridge ends) and exit
// Every request has a 60 s timeout; stdin ending ends the client too.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ListRootsRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { createInterface } from "node:readline";

function usage(msg) {
  process.stderr.write(`roots-client: ${msg}\nusage: MCPCTL=PATH node ` +
    "roots-client.mjs --socket PATH --server NAME [--root URI]... " +
    "[--no-roots] [--name NAME] [--bridge-arg ARG]...\n" +
    "       node roots-client.mjs --exec PROGRAM [--exec-arg ARG]... " +
    "[--root URI]... [--no-roots] [--name NAME]\n");
  process.exit(2);
}

const opts = { bridgeArgs: [], execArgs: [], roots: [], withRoots: true,
  name: "roots-client" };
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
      case "--root": opts.roots.push(want()); break;
      case "--no-roots": opts.withRoots = false; break;
      case "--name": opts.name = want(); break;
      case "--bridge-arg": opts.bridgeArgs.push(want()); break;
      case "--exec": opts.exec = want(); break;
      case "--exec-arg": opts.execArgs.push(want()); break;
      default: usage(`unknown argument: ${argv[i]}`);
    }
  }
}
let command, args;
if (opts.exec) {
  command = opts.exec;
  args = opts.execArgs;
} else {
  if (!opts.socket || !opts.server)
    usage("--socket and --server (or --exec) are required");
  command = process.env.MCPCTL;
  if (!command) usage("MCPCTL is not set");
  args = ["-s", opts.socket, "connect", opts.server, ...opts.bridgeArgs];
}
if (!opts.withRoots && opts.roots.length > 0)
  usage("--root and --no-roots do not go together");

const REQ = { timeout: 60000 };
const changed = { tools: 0, prompts: 0, resources: 0 };
const updates = new Map();
let roots = opts.roots.map((uri) => ({ uri }));
let rootsAsked = 0;
let closed = false;

const client = new Client({ name: opts.name, version: "1.0.0" },
  { capabilities: opts.withRoots ? { roots: { listChanged: true } } : {} });
if (opts.withRoots) {
  client.setRequestHandler(ListRootsRequestSchema, () => {
    rootsAsked++;
    return { roots };
  });
}
for (const [kind, schema] of [["tools", ToolListChangedNotificationSchema],
  ["prompts", PromptListChangedNotificationSchema],
  ["resources", ResourceListChangedNotificationSchema]])
  client.setNotificationHandler(schema, () => { changed[kind]++; });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  updates.set(n.params.uri, (updates.get(n.params.uri) || 0) + 1);
});
const transport = new StdioClientTransport({
  command,
  args,
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

// The root URIs a get-roots-list text names, in order.
function urisOf(text) {
  return [...text.matchAll(/^\s*URI: (\S+)\s*$/gm)].map((m) => m[1]);
}

// A call's outcome as a plain object; never throws.
async function call(tool, toolArgs) {
  const start = Date.now();
  try {
    const r = await client.callTool({ name: tool, arguments: toolArgs },
      undefined, REQ);
    const text = textOf(r);
    return { ok: !r.isError, text, uris: urisOf(text),
      ms: Date.now() - start };
  } catch (err) {
    return { ok: false, code: err.code, message: String(err.message),
      ms: Date.now() - start };
  }
}

function changedCount() {
  return changed.tools + changed.prompts + changed.resources;
}

// Wait until get() exceeds n or ms have passed; get() afterwards.
async function waitAbove(get, n, ms) {
  const deadline = Date.now() + ms;
  while (get() <= n && Date.now() < deadline)
    await sleep(20);
  return get();
}

async function run(words) {
  const [op, a, b] = words;
  const json = (s) => (s === undefined ? {} : JSON.parse(s));
  switch (op) {
    case "roots": {
      if (!opts.withRoots)
        return { ok: false, error: "no roots capability (--no-roots)" };
      roots = words.slice(1).map((uri) => ({ uri }));
      await client.sendRootsListChanged();
      return { ok: true, roots: roots.map((r) => r.uri) };
    }
    case "call": return call(a, json(b));
    case "until-ok": {
      const start = Date.now();
      for (let tries = 1; ; tries++) {
        const r = await call(a, json(b));
        if (r.ok) return { ...r, tries, ms: Date.now() - start };
        if (Date.now() - start > 60000) return { ...r, tries };
        await sleep(50);
      }
    }
    case "subscribe":
      await client.subscribeResource({ uri: a }, REQ);
      return { ok: true };
    case "wait-update": {
      const before = updates.get(a) || 0;
      const n = await waitAbove(() => updates.get(a) || 0, before,
        Number(b));
      return { ok: n > before, n };
    }
    case "tools": {
      const r = await client.listTools({}, REQ);
      return { ok: true, names: r.tools.map((t) => t.name) };
    }
    case "list-changed": return { ok: true, n: changedCount(), ...changed };
    case "wait-list-changed": {
      const n = await waitAbove(changedCount, Number(a), Number(b));
      return { ok: n > Number(a), n, ...changed };
    }
    case "roots-asked": return { ok: true, n: rootsAsked };
    case "wait-roots-asked": {
      const n = await waitAbove(() => rootsAsked, Number(a), Number(b));
      return { ok: n > Number(a), n };
    }
    case "bridge-pid": return { ok: transport.pid != null, pid: transport.pid };
    case "closed": return { ok: true, closed };
    case "close":
      await Promise.race([client.close(), sleep(3000)]);
      return { ok: true, closed: true, exit: true };
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
process.stdout.write(JSON.stringify({ ok: true, ready: true,
  pid: transport.pid }) + "\n");

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
  if (out.exit) process.exit(0);
}
await Promise.race([client.close(), sleep(3000)]);
process.exit(0);
