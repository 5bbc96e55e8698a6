// filter-client.mjs -- the official TypeScript SDK client against
// server-everything behind mcpd's filters (filter.sh writes the
// configurations), through `mcpctl connect NAME`.
//
//   MCPCTL=/abs/path/to/mcpctl node filter-client.mjs --socket PATH \
//       --server NAME --config FILE --next-config FILE [--timeout-s 60]
//
// With the first configuration: listTools, listPrompts, listResources and
// listResourceTemplates show exactly what the filters let through; a call
// of a denied or unlisted tool, a get of a hidden prompt, a read or a
// subscription of a hidden resource are refused by mcpd with -32602 or
// -32002 and a message naming it; allowed ones work.  Then it copies
// --next-config over --config and runs `mcpctl reload`: the client must
// receive notifications/tools/list_changed, the lists must follow the new
// tools filter, and the other kinds stay as they were.
//
// One line per check ("ok N - ..." or "not ok N - ..."), a closing
// "filter: N passed, N failed" line; exit 0 only if every check passed.

import { spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

function usage(msg) {
  process.stderr.write(`filter-client: ${msg}\n` +
    "usage: MCPCTL=PATH node filter-client.mjs --socket PATH --server NAME\n" +
    "       --config FILE --next-config FILE [--timeout-s N]\n");
  process.exit(2);
}

const opts = { timeoutS: 60 };
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
      case "--config": opts.config = want(); break;
      case "--next-config": opts.nextConfig = want(); break;
      case "--timeout-s": opts.timeoutS = Number(want()); break;
      default: usage(`unknown argument: ${argv[i]}`);
    }
  }
}
for (const k of ["socket", "server", "config", "nextConfig"]) {
  if (!opts[k]) usage(`--${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())} is required`);
}
if (!(opts.timeoutS > 0)) usage("--timeout-s must be a positive number");
const MCPCTL = process.env.MCPCTL;
if (!MCPCTL || !MCPCTL.startsWith("/")) usage("MCPCTL must be the absolute path of mcpctl");

// ---------------------------------------------------------------------------
// Reporting.

const t0 = Date.now();
let nchecks = 0, npassed = 0, nfailed = 0;
let client = null;
let finished = false;

function log(line) {
  process.stdout.write(line + "\n");
}

class CheckFailure extends Error {}

function assert(cond, msg) {
  if (!cond) throw new CheckFailure(msg);
}

function describe(err) {
  if (err instanceof CheckFailure) return err.message;
  const code = err && err.code !== undefined ? ` (code ${err.code})` : "";
  return `${err && err.name ? err.name : "Error"}: ${err && err.message ? err.message : String(err)}${code}`;
}

async function check(name, fn) {
  const n = ++nchecks;
  const start = Date.now();
  try {
    const detail = await fn();
    npassed++;
    log(`ok ${n} - ${name} (${Date.now() - start} ms)` +
      (typeof detail === "string" && detail ? `: ${detail}` : ""));
  } catch (err) {
    nfailed++;
    log(`not ok ${n} - ${name} (${Date.now() - start} ms): ${describe(err)}`);
  }
}

function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(globalTimer);
  log(`filter: ${npassed} passed, ${nfailed} failed`);
  log(`# total ${Date.now() - t0} ms`);
  const code = nfailed === 0 && npassed > 0 ? 0 : 1;
  const closing = client ? client.close() : Promise.resolve();
  Promise.race([closing.catch(() => {}), sleep(3000)]).then(() => process.exit(code));
}

const globalTimer = setTimeout(() => {
  nfailed++;
  log(`not ok ${nchecks + 1} - the whole run's ${opts.timeoutS} s were over`);
  finish();
}, opts.timeoutS * 1000);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(pred, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (pred()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}

const REQ = { timeout: 15000 };

function sameSet(got, want, what) {
  const g = [...got].sort(), w = [...want].sort();
  assert(JSON.stringify(g) === JSON.stringify(w),
    `${what}: got ${JSON.stringify(g)}, want ${JSON.stringify(w)}`);
  return `${g.length}: ${g.join(", ")}`;
}

// refused(PROMISE, CODE, NAME): the request fails with CODE and a message
// naming NAME.
async function refused(promise, code, name) {
  let result;
  try {
    result = await promise;
  } catch (err) {
    assert(err && err.code === code,
      `expected error ${code}, got ${describe(err)}`);
    assert(String(err.message).includes(name),
      `the error does not name ${name}: ${err.message}`);
    return `${err.code}: ${err.message}`;
  }
  throw new CheckFailure(`expected error ${code}, got a result: ` +
    JSON.stringify(result).slice(0, 200));
}

// ---------------------------------------------------------------------------
// What the two configurations let through (see filter.sh).

const DOC = "demo://resource/static/document/";
const FIRST = {
  tools: ["echo", "get-env", "get-sum", "toggle-simulated-logging"],
  prompts: ["simple-prompt", "args-prompt"],
  resources: ["architecture.md", "extension.md", "how-it-works.md",
    "instructions.md", "startup.md", "structure.md"].map((f) => DOC + f),
  templates: ["demo://resource/dynamic/text/{resourceId}"],
};
const SECOND = { ...FIRST, tools: ["echo", "get-tiny-image"] };

async function lists(want, when) {
  await check(`${when}: listTools shows exactly the allowed tools`, async () =>
    sameSet((await client.listTools({}, REQ)).tools.map((t) => t.name),
      want.tools, "tools"));
  await check(`${when}: listPrompts shows exactly the allowed prompts`, async () =>
    sameSet((await client.listPrompts({}, REQ)).prompts.map((p) => p.name),
      want.prompts, "prompts"));
  await check(`${when}: listResources shows exactly the allowed resources`, async () => {
    // Follow the cursor, if the server pages.
    const uris = [];
    let cursor;
    for (let i = 0; i < 20; i++) {
      const r = await client.listResources(cursor ? { cursor } : {}, REQ);
      uris.push(...r.resources.map((x) => x.uri));
      if (!(cursor = r.nextCursor)) break;
    }
    return sameSet(uris, want.resources, "resources");
  });
  await check(`${when}: listResourceTemplates shows exactly the allowed templates`, async () =>
    sameSet((await client.listResourceTemplates({}, REQ)).resourceTemplates
      .map((t) => t.uriTemplate), want.templates, "templates"));
}

async function main() {
  client = new Client({ name: "mcpd-filter-test", version: "1.0.0" },
    { capabilities: {} });
  const seen = { tools: 0, prompts: 0, resources: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema,
    () => { seen.tools++; });
  client.setNotificationHandler(PromptListChangedNotificationSchema,
    () => { seen.prompts++; });
  client.setNotificationHandler(ResourceListChangedNotificationSchema,
    () => { seen.resources++; });
  const transport = new StdioClientTransport({
    command: MCPCTL,
    args: ["-s", opts.socket, "connect", opts.server],
    stderr: "inherit",
  });
  try {
    await client.connect(transport, REQ);
  } catch (err) {
    nfailed++;
    log(`not ok 1 - connect through mcpctl connect ${opts.server}: ${describe(err)}`);
    return;
  }

  await lists(FIRST, "before reload");

  await check("an allowed tool works (echo)", async () => {
    const r = await client.callTool({ name: "echo", arguments: { message: "hi" } },
      undefined, REQ);
    assert(!r.isError && JSON.stringify(r.content).includes("hi"),
      `echo answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a denied tool is refused with -32602 naming it", () =>
    refused(client.callTool({ name: "toggle-subscriber-updates", arguments: {} },
      undefined, REQ), -32602, "toggle-subscriber-updates"));
  await check("an unlisted tool is refused with -32602 naming it", () =>
    refused(client.callTool({ name: "get-tiny-image", arguments: {} },
      undefined, REQ), -32602, "get-tiny-image"));
  await check("an allowed prompt works (simple-prompt)", async () => {
    const r = await client.getPrompt({ name: "simple-prompt" }, REQ);
    assert(Array.isArray(r.messages) && r.messages.length > 0,
      `simple-prompt answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a hidden prompt is refused with -32602 naming it", () =>
    refused(client.getPrompt({ name: "resource-prompt", arguments: {} }, REQ),
      -32602, "resource-prompt"));
  await check("an allowed resource reads", async () => {
    const r = await client.readResource({ uri: DOC + "architecture.md" }, REQ);
    assert(Array.isArray(r.contents) && r.contents.length > 0,
      `read answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a denied resource is refused with -32002 naming it", () =>
    refused(client.readResource({ uri: DOC + "features.md" }, REQ),
      -32002, DOC + "features.md"));
  await check("a resource outside allow is refused with -32002", () =>
    refused(client.readResource({ uri: "demo://resource/dynamic/blob/1" }, REQ),
      -32002, "demo://resource/dynamic/blob/1"));
  await check("a subscription to a denied resource is refused with -32002", () =>
    refused(client.subscribeResource({ uri: DOC + "features.md" }, REQ),
      -32002, DOC + "features.md"));

  // Reload with a new tools filter; prompts and resources stay.
  const before = { ...seen };
  await check("mcpctl reload with a new tools filter", () => {
    copyFileSync(opts.nextConfig, opts.config);
    const r = spawnSync(MCPCTL, ["-s", opts.socket, "reload"],
      { encoding: "utf8", timeout: 30000 });
    assert(r.status === 0, `mcpctl reload exited ${r.status}: ${r.stderr}`);
    assert(/filters changed on .*: tools/.test(r.stdout),
      `mcpctl reload does not say the tools filter changed: ${r.stdout}`);
    return r.stdout.trim().replace(/\n/g, " | ");
  });
  await check("the client receives notifications/tools/list_changed", async () => {
    assert(await waitFor(() => seen.tools > before.tools, 5000),
      `no tools/list_changed within 5 s (seen ${JSON.stringify(seen)})`);
    return `prompts ${seen.prompts - before.prompts}, resources ` +
      `${seen.resources - before.resources} (their filters did not change)`;
  });
  await check("no prompts or resources list_changed for unchanged filters", async () => {
    await sleep(200);
    assert(seen.prompts === before.prompts && seen.resources === before.resources,
      `before ${JSON.stringify(before)}, after ${JSON.stringify(seen)}`);
  });
  await lists(SECOND, "after reload");
  await check("a tool allowed by the new filter works (get-tiny-image)", async () => {
    const r = await client.callTool({ name: "get-tiny-image", arguments: {} },
      undefined, REQ);
    assert(!r.isError && Array.isArray(r.content),
      `get-tiny-image answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a tool the new filter hides is refused (get-sum)", () =>
    refused(client.callTool({ name: "get-sum", arguments: { a: 1, b: 2 } },
      undefined, REQ), -32602, "get-sum"));
}

main().catch((err) => {
  nfailed++;
  log(`not ok ${nchecks + 1} - unexpected: ${describe(err)}`);
}).finally(finish);
