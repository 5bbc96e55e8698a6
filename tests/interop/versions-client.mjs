// versions-client.mjs -- one release of the official TypeScript SDK's
// client (the npm package named, e.g. sdk-1-17, an alias of
// @modelcontextprotocol/sdk@1.17.0) through `mcpctl connect` to
// server-everything, alone or in a group, for versions.sh.
//
//   MCPCTL=/abs/path/to/mcpctl node versions-client.mjs --sdk PACKAGE \
//       --socket PATH --server NAME [--prefix P] [--protocol VERSION] \
//       [--trace FILE]
//
// --prefix is put before server-everything's tool names (a group's
// "ev__"); --protocol makes the client ask for that protocol version in
// its initialize instead of its SDK's own (a client of an older release),
// the SDK taking the answer if it is one it knows.  --trace appends every
// message on the wire to FILE, "+MS C->S JSON" or "+MS S->C JSON".
//
// The client declares the elicitation capability and answers a form with
// "accept" (name "Ada"), and runs, each step recorded:
//   connect     the initialize, and the protocol version mcpd answered
//   caps        the capabilities of the server mcpd declared
//   list        tools/list: their number, echo and the others there
//   call        echo
//   progress    trigger-long-running-operation (1 s, 3 steps) with a
//               progress token: the progress notifications heard
//   elicit      trigger-elicitation-request: the form it was sent (the
//               types of its properties), and the tool's text
//   update      resources/subscribe, toggle-subscriber-updates: the first
//               notifications/resources/updated heard; then both undone
//   links       get-resource-links (count 2): the types of the content
//               and the text of the first item that is not the intro
// Prints one JSON object: {"ok", "sdk", "version", "steps": {NAME: {...}}},
// each step {"ok", ...} or {"ok": false, "error"}; exit 0 if the client
// connected (the shell judges the steps), 1 if not.

import { appendFileSync, readFileSync } from "node:fs";

const opts = { prefix: "" };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const want = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case "--sdk": opts.sdk = want(); break;
      case "--socket": opts.socket = want(); break;
      case "--server": opts.server = want(); break;
      case "--prefix": opts.prefix = want(); break;
      case "--protocol": opts.protocol = want(); break;
      case "--trace": opts.trace = want(); break;
      default:
        process.stderr.write(`versions-client: unknown argument ${argv[i]}\n`);
        process.exit(2);
    }
  }
}
if (!opts.sdk || !opts.socket || !opts.server || !process.env.MCPCTL) {
  process.stderr.write("usage: MCPCTL=PATH node versions-client.mjs --sdk " +
    "PACKAGE --socket PATH --server NAME [--prefix P] [--protocol V] " +
    "[--trace FILE]\n");
  process.exit(2);
}

const { Client } = await import(`${opts.sdk}/client/index.js`);
const { StdioClientTransport } = await import(`${opts.sdk}/client/stdio.js`);
const types = await import(`${opts.sdk}/types.js`);
let sdkVersion = null;
try {
  sdkVersion = JSON.parse(readFileSync(new URL(
    `./node_modules/${opts.sdk}/package.json`, import.meta.url))).version;
} catch {
  // Only for the record.
}

const T0 = Date.now();
const REQ = { timeout: 60000 };
const out = { ok: false, sdk: opts.sdk, sdkVersion, version: null,
  steps: {} };

function trace(dir, msg) {
  if (!opts.trace) return;
  try {
    appendFileSync(opts.trace,
      `+${Date.now() - T0} ${dir} ${JSON.stringify(msg)}\n`);
  } catch {
    // A trace that cannot be written is no reason to stop.
  }
}

const heard = [];   // notifications from the server, as they came
let onHeard = null;
let initId = null;

// The stdio transport, traced; the initialize's version as asked.
class Transport {
  constructor(inner) {
    this.inner = inner;
    inner.onmessage = (m, extra) => {
      trace("S->C", m);
      if (initId !== null && m.id === initId)
        out.version = m.result?.protocolVersion ?? null;
      if (m.method !== undefined && m.id === undefined) {
        heard.push(m);
        onHeard?.(m);
      }
      this.onmessage?.(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start() { return this.inner.start(); }
  send(m, o) {
    if (m.method === "initialize") {
      initId = m.id;
      if (opts.protocol !== undefined)
        m = { ...m, params: { ...m.params, protocolVersion: opts.protocol } };
    }
    trace("C->S", m);
    return this.inner.send(m, o);
  }
  close() { return this.inner.close(); }
}

const client = new Client({ name: `versions-${opts.sdk}`, version: "1.0.0" },
  { capabilities: { elicitation: {} } });

const forms = [];
client.setRequestHandler(types.ElicitRequestSchema, (req) => {
  forms.push(req.params);
  return { action: "accept", content: { name: "Ada", check: true } };
});

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
}

// A step: its result recorded, an error as {ok: false, error}.
async function step(name, fn) {
  try {
    out.steps[name] = { ok: true, ...(await fn()) };
  } catch (e) {
    out.steps[name] = { ok: false, error: String(e?.message ?? e) };
  }
}

function waitHeard(pred, ms) {
  return new Promise((resolve) => {
    const found = heard.find(pred);
    if (found) return resolve(found);
    const timer = setTimeout(() => { onHeard = null; resolve(null); }, ms);
    onHeard = (m) => {
      if (!pred(m)) return;
      clearTimeout(timer);
      onHeard = null;
      resolve(m);
    };
  });
}

const tool = (name) => `${opts.prefix}${name}`;
const call = (name, args, extra = {}) => client.callTool(
  { name: tool(name), arguments: args }, undefined, { ...REQ, ...extra });

const transport = new Transport(new StdioClientTransport({
  command: process.env.MCPCTL,
  args: ["-s", opts.socket, "connect", opts.server],
  env: { ...process.env },
  stderr: "inherit",
}));

try {
  await client.connect(transport, REQ);
} catch (e) {
  out.error = String(e?.message ?? e);
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(1);
}
out.ok = true;

await step("caps", async () => ({ caps: client.getServerCapabilities() }));
await step("list", async () => {
  const names = (await client.listTools(undefined, REQ)).tools
    .map((t) => t.name);
  return { n: names.length, names };
});
await step("call", async () => ({
  text: textOf(await call("echo", { message: "hello versions" })),
}));
await step("progress", async () => {
  const seen = [];
  const r = await call("trigger-long-running-operation",
    { duration: 1, steps: 3 },
    { onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true });
  return { progress: seen, text: textOf(r), isError: r.isError ?? false };
});
await step("elicit", async () => {
  const r = await call("trigger-elicitation-request", {});
  const form = forms.at(-1);
  const props = form?.requestedSchema?.properties ?? {};
  return {
    asked: forms.length,
    types: Object.fromEntries(Object.entries(props).map(([k, p]) =>
      [k, p.type])),
    hero: props.titledSingleSelectEnum ?? null,
    mode: form?.mode ?? null,
    isError: r.isError ?? false,
    text: textOf(r),
  };
});
await step("update", async () => {
  const uri = "demo://resource/dynamic/text/1";
  const isUpdate = (m) => m.method === "notifications/resources/updated" &&
    m.params?.uri === uri;
  await client.subscribeResource({ uri }, REQ);
  const t = Date.now();
  let toggled = textOf(await call("toggle-subscriber-updates", {}));
  // Another client left them running: toggled off, then on again.
  if (toggled.startsWith("Stopped"))
    toggled = textOf(await call("toggle-subscriber-updates", {}));
  const got = await waitHeard(isUpdate, 30000);
  const ms = Date.now() - t;
  const off = textOf(await call("toggle-subscriber-updates", {}));
  await client.unsubscribeResource({ uri }, REQ);
  return { heard: got !== null, ms, toggled, off };
});
await step("links", async () => {
  const r = await call("get-resource-links", { count: 2 });
  const content = r.content ?? [];
  return {
    types: content.map((c) => c.type),
    second: content[1] ?? null,
  };
});

await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
