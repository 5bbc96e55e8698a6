// sdk-client.mjs -- the official TypeScript SDK client, connected to MCP
// servers run by mcpd through `mcpctl connect NAME`, exactly as an MCP
// client application would launch it.
//
//   MCPCTL=/abs/path/to/mcpctl node sdk-client.mjs --socket PATH \
//       [--server everything] [--memory NAME] [--filesystem NAME:FILE:TEXT] \
//       [--group NAME:FILE:TEXT | --filter CONFIG:NEXT_CONFIG] [--timeout-s 60]
//
// Against server-everything it checks initialize, tools/list, echo, the sum
// tool, progress, sampling answered by this client, a resource
// subscription, cancellation, ping, and a second concurrent client whose
// replies and notifications never mix with the first one's.  With
// --memory, two clients of one server-memory share its knowledge graph;
// with --filesystem, server-filesystem reads FILE and finds TEXT in it.
// With --group NAME:FILE:TEXT (instead of the server-everything checks),
// one session over the group NAME of server-everything (as "everything"),
// server-memory ("memory"), server-filesystem ("filesystem") and mcp-fake
// listing its tools two per page ("paged", its own filter denying
// "crash"), the group denying "everything__get-*": merged, renamed and
// filtered lists across pages, calls, progress and sampling routed to
// their member, resources read by URI, completions, logging/setLevel, an
// unknown tool
// refused, and a member killed mid-call (that call fails, the others go
// on, list_changed arrives).
// With --filter CONFIG:NEXT_CONFIG (instead of the server-everything
// checks), server-everything as --server behind the filters of CONFIG,
// mcpd's configuration file (filter.sh writes both): the lists show
// exactly what the filters let through; a call of a denied or unlisted
// tool, a get or a completion of a hidden prompt, a read or a
// subscription of a hidden resource (in any spelling the server reads as
// it: "..", %2E%2E), a completion of a hidden template are refused with
// -32602 or -32002 and a message naming it; allowed ones work.  Then NEXT_CONFIG is copied over CONFIG and
// `mcpctl reload` run: tools/list_changed must arrive, the lists follow
// the new tools filter, and the other kinds stay as they were.  Neither
// path may contain a colon.
//
// One line per check ("ok N - ..." or "not ok N - ..."), a closing
// "interop: N passed, N failed" line; exit 0 only if every check passed.
// Everything is bounded: each request has a timeout and the whole run
// stops after --timeout-s seconds.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";

// ---------------------------------------------------------------------------
// Command line.

function usage(msg) {
  process.stderr.write(`sdk-client: ${msg}\n` +
    "usage: MCPCTL=PATH node sdk-client.mjs --socket PATH [--server NAME]\n" +
    "       [--memory NAME] [--filesystem NAME:FILE:TEXT]\n" +
    "       [--group NAME:FILE:TEXT | --filter CONFIG:NEXT_CONFIG] [--timeout-s N]\n");
  process.exit(2);
}

const opts = { server: "everything", timeoutS: 60 };
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
      case "--memory": opts.memory = want(); break;
      case "--filesystem": {
        const v = want();
        const a = v.indexOf(":"), b = v.lastIndexOf(":");
        if (a <= 0 || b <= a) usage("--filesystem takes NAME:FILE:TEXT");
        opts.filesystem = { name: v.slice(0, a), file: v.slice(a + 1, b),
          text: v.slice(b + 1) };
        break;
      }
      case "--group": {
        const v = want();
        const a = v.indexOf(":"), b = v.lastIndexOf(":");
        if (a <= 0 || b <= a) usage("--group takes NAME:FILE:TEXT");
        opts.group = { name: v.slice(0, a), file: v.slice(a + 1, b),
          text: v.slice(b + 1) };
        break;
      }
      case "--filter": {
        const v = want();
        const a = v.indexOf(":");
        if (a <= 0 || a === v.length - 1 || v.indexOf(":", a + 1) >= 0)
          usage("--filter takes CONFIG:NEXT_CONFIG");
        opts.filter = { config: v.slice(0, a), nextConfig: v.slice(a + 1) };
        break;
      }
      case "--timeout-s": opts.timeoutS = Number(want()); break;
      default: usage(`unknown argument: ${argv[i]}`);
    }
  }
}
if (!opts.socket) usage("--socket is required");
if (opts.group && opts.filter) usage("--group and --filter are separate runs");
if (!(opts.timeoutS > 0)) usage("--timeout-s must be a positive number");
const MCPCTL = process.env.MCPCTL;
if (!MCPCTL || !MCPCTL.startsWith("/")) usage("MCPCTL must be the absolute path of mcpctl");

// ---------------------------------------------------------------------------
// Reporting.

const t0 = Date.now();
let nchecks = 0;
let npassed = 0;
let nfailed = 0;
let current = "start-up";

function log(line) {
  process.stdout.write(line + "\n");
}

function note(line) {
  log(`# ${line}`);
}

class CheckFailure extends Error {}
class StopRun extends Error {}
let finished = false;

function assert(cond, msg) {
  if (!cond) throw new CheckFailure(msg);
}

function describe(err) {
  if (err instanceof CheckFailure) return err.message;
  const code = err && err.code !== undefined ? ` (code ${err.code})` : "";
  return `${err && err.name ? err.name : "Error"}: ${err && err.message ? err.message : String(err)}${code}`;
}

// check(NAME, FN): run one check; returns FN's value, or undefined if it
// failed.  Failures are counted and the run goes on, unless FATAL.
async function check(name, fn, { fatal = false } = {}) {
  if (finished) throw new StopRun();
  const n = ++nchecks;
  current = name;
  const start = Date.now();
  try {
    const detail = await fn();
    if (finished) throw new StopRun();
    npassed++;
    log(`ok ${n} - ${name} (${Date.now() - start} ms)` +
      (typeof detail === "string" && detail ? `: ${detail}` : ""));
    return detail;
  } catch (err) {
    if (finished) throw new StopRun();
    nfailed++;
    log(`not ok ${n} - ${name} (${Date.now() - start} ms): ${describe(err)}`);
    if (fatal) throw new StopRun();
    return undefined;
  }
}

const clients = [];

function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(globalTimer);
  log(`interop: ${npassed} passed, ${nfailed} failed`);
  note(`total ${Date.now() - t0} ms`);
  // Close the bridges (their stdin ends, so they exit); do not wait long.
  const closing = Promise.allSettled(clients.map((c) => c.client.close()));
  const code = nfailed === 0 && npassed > 0 ? 0 : 1;
  Promise.race([closing, sleep(3000)]).then(() => process.exit(code));
}

// The check in progress fails, under its own number, and the run ends.
const globalTimer = setTimeout(() => {
  nfailed++;
  log(`not ok ${Math.max(nchecks, 1)} - ${current}: not finished when the ` +
    `whole run's ${opts.timeoutS} s were over`);
  finish();
}, opts.timeoutS * 1000);

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// waitFor(PRED, MS): poll PRED every 20 ms; true once it holds, false if it
// did not within MS.
async function waitFor(pred, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (pred()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(20);
  }
}

function textOf(result) {
  assert(result && Array.isArray(result.content),
    `tool result has no content array: ${JSON.stringify(result).slice(0, 200)}`);
  assert(!result.isError,
    `tool returned isError: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

const nonce = `${process.pid}-${Date.now().toString(36)}`;

// ---------------------------------------------------------------------------
// Clients.

// connectClient(LABEL, SERVER, SAMPLING): an SDK Client on a fresh
// `mcpctl -s SOCKET connect SERVER`.  SAMPLING: the text its
// sampling/createMessage handler answers, or null for no sampling
// capability.  Records what the client receives beyond its own replies.
async function connectClient(label, server, sampling) {
  const client = new Client(
    { name: `mcpd-interop-${label}`, version: "1.0.0" },
    { capabilities: sampling !== null ? { sampling: {} } : {} },
  );
  const rec = {
    label, client, transport: null,
    sampled: [],		// sampling requests this client answered
    updated: [],		// uris of resources/updated it received
    errors: [],			// protocol errors the SDK reported
  };
  if (sampling !== null) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      rec.sampled.push(req.params);
      return {
        model: `mcpd-interop-model-${label}`,
        role: "assistant",
        stopReason: "endTurn",
        content: { type: "text", text: sampling },
      };
    });
  }
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    rec.updated.push(n.params.uri);
  });
  client.onerror = (err) => {
    rec.errors.push(err && err.message ? err.message : String(err));
  };
  rec.transport = new StdioClientTransport({
    command: MCPCTL,
    args: ["-s", opts.socket, "connect", server],
    // The whole environment: the test harness finds leftovers by it.
    env: { ...process.env },
    stderr: "inherit",
  });
  clients.push(rec);
  await client.connect(rec.transport, { timeout: 30000 });
  return rec;
}

// A request's time limit: it takes milliseconds; generous for a loaded
// machine.
const REQ = { timeout: 30000 };

// lateProgress(REC, FROM): the progress values of notifications that the
// SDK of client REC reported as for an unknown token since its FROMth
// error.
function lateProgress(rec, from) {
  const out = [];
  for (const msg of rec.errors.slice(from)) {
    const m = /unknown token: (\{.*\})$/s.exec(msg);
    if (!m) continue;
    try {
      const n = JSON.parse(m[1]);
      if (n.params && typeof n.params.progress === "number") out.push(n.params.progress);
    } catch {
      // not ours to judge
    }
  }
  return out;
}

// pickTool(TOOLS, WHAT, NAMES...): the first of NAMES that TOOLS has.
function pickTool(tools, what, ...names) {
  const have = new Set(tools.map((t) => t.name));
  const name = names.find((n) => have.has(n));
  assert(name !== undefined,
    `no ${what} tool: looked for ${names.join(" or ")} among [${[...have].join(", ")}]`);
  return name;
}

// ---------------------------------------------------------------------------
// server-everything.

async function everything() {
  const server = opts.server;
  const samplingText = `sampled-by-alpha-${nonce}`;
  let a, b;

  await check(`initialize through mcpctl connect ${server}`, async () => {
    a = await connectClient("alpha", server, samplingText);
    const info = a.client.getServerVersion();
    assert(info && typeof info.name === "string",
      `no serverInfo: ${JSON.stringify(info)}`);
    assert(/everything/.test(info.name),
      `serverInfo.name is "${info.name}", expected server-everything's`);
    const caps = a.client.getServerCapabilities() || {};
    assert(caps.tools, `no tools capability: ${JSON.stringify(caps)}`);
    assert(caps.resources && caps.resources.subscribe === true,
      `no resources.subscribe capability: ${JSON.stringify(caps)}`);
    const instr = a.client.getInstructions();
    assert(typeof instr === "string" && instr.length > 0,
      "initialize result has no instructions (server-everything sends them)");
    return `serverInfo ${info.name} ${info.version}, pid ${a.transport.pid}`;
  }, { fatal: true });

  // The second client is attached for the whole run: it must see none of
  // the first one's replies, progress, sampling requests or updates.
  await check("a second client initializes on another mcpctl connect", async () => {
    b = await connectClient("beta", server, `sampled-by-beta-${nonce}`);
    const info = b.client.getServerVersion();
    assert(info && /everything/.test(info.name),
      `serverInfo ${JSON.stringify(info)}`);
    return `pid ${b.transport.pid}`;
  }, { fatal: true });

  let tools = {};
  await check("tools/list has echo, sum, long-running, sampling", async () => {
    const { tools: list } = await a.client.listTools({}, REQ);
    assert(Array.isArray(list) && list.length > 0, "empty tools/list");
    tools.echo = pickTool(list, "echo", "echo");
    tools.sum = pickTool(list, "sum", "get-sum", "add");
    tools.long = pickTool(list, "long-running operation",
      "trigger-long-running-operation", "longRunningOperation");
    tools.sample = pickTool(list, "sampling",
      "trigger-sampling-request", "sampleLLM");
    tools.toggle = list.some((t) => t.name === "toggle-subscriber-updates")
      ? "toggle-subscriber-updates" : null;
    return `${list.length} tools: ${Object.values(tools).filter(Boolean).join(", ")}`;
  }, { fatal: true });

  await check("echo", async () => {
    const msg = `hello from mcpd interop ${nonce} \u00e9\u20ac\u{1F600} "quoted" \\ \n newline`;
    const text = textOf(await a.client.callTool(
      { name: tools.echo, arguments: { message: msg } }, undefined, REQ));
    assert(text.includes(msg), `echo returned ${JSON.stringify(text)}`);
  });

  await check("sum", async () => {
    const text = textOf(await a.client.callTool(
      { name: tools.sum, arguments: { a: 1234.5, b: 8765.25 } }, undefined, REQ));
    assert(/9999\.75\b/.test(text), `sum of 1234.5 and 8765.25 returned ${JSON.stringify(text)}`);
  });

  await check("long-running operation reports progress", async () => {
    const steps = 4;
    const seen = [];
    const errorsBefore = a.errors.length;
    const text = textOf(await a.client.callTool(
      { name: tools.long, arguments: { duration: 2, steps } }, undefined,
      { timeout: 20000, onprogress: (p) => seen.push(p) }));
    assert(/complete/i.test(text), `result ${JSON.stringify(text)}`);
    assert(seen.length >= 2, `${seen.length} progress notifications, expected at least 2`);
    for (let i = 1; i < seen.length; i++)
      assert(seen[i].progress > seen[i - 1].progress,
        `progress not increasing: ${JSON.stringify(seen.map((p) => p.progress))}`);
    assert(seen.every((p) => p.total === steps),
      `total is not ${steps}: ${JSON.stringify(seen)}`);
    // The server sends the last notification just before its result; the
    // SDK dispatches notifications a tick later than responses, so that
    // one may come back as an "unknown token".  Together they must be all.
    const allSeen = () => {
      const got = new Set([...seen.map((p) => p.progress),
        ...lateProgress(a, errorsBefore)]);
      for (let i = 1; i <= steps; i++) if (!got.has(i)) return false;
      return true;
    };
    await waitFor(allSeen, 10000);
    const late = lateProgress(a, errorsBefore);
    const all = new Set([...seen.map((p) => p.progress), ...late]);
    for (let i = 1; i <= steps; i++)
      assert(all.has(i), `progress ${i}/${steps} never arrived (got ` +
        `${JSON.stringify(seen.map((p) => p.progress))}, late ${JSON.stringify(late)})`);
    return `progress ${seen.map((p) => `${p.progress}/${p.total}`).join(" ")}` +
      (late.length ? ` (and ${late.join(", ")} just after the result)` : "");
  });

  await check("sampling request answered by this client", async () => {
    const prompt = `interop-prompt-${nonce}`;
    const before = a.sampled.length;
    const text = textOf(await a.client.callTool(
      { name: tools.sample, arguments: { prompt, maxTokens: 16 } }, undefined, REQ));
    assert(a.sampled.length === before + 1,
      `the sampling handler ran ${a.sampled.length - before} times, expected once`);
    const req = a.sampled[a.sampled.length - 1];
    assert(JSON.stringify(req.messages || []).includes(prompt),
      `sampling request does not carry the prompt: ${JSON.stringify(req).slice(0, 300)}`);
    assert(text.includes(samplingText),
      `tool result does not contain the handler's text: ${JSON.stringify(text).slice(0, 300)}`);
    assert(b.sampled.length === 0, "the other client was asked to sample");
  });

  await check("resource subscription receives updates", async () => {
    let uri;
    const { resources } = await a.client.listResources({}, REQ);
    if (Array.isArray(resources) && resources.length > 0) uri = resources[0].uri;
    else uri = "demo://resource/dynamic/text/1";
    await a.client.subscribeResource({ uri }, REQ);
    // Current server-everything sends updates only once this tool has
    // turned them on (at once, then every 5 s); older ones every 10 s.
    // It is a switch shared by every client of the server.
    const start = Date.now();
    let toggled = false;
    for (let i = 0; tools.toggle && !toggled && i < 2; i++) {
      const t = textOf(await a.client.callTool(
        { name: tools.toggle, arguments: {} }, undefined, REQ));
      toggled = /^Started/.test(t);
    }
    assert(!tools.toggle || toggled, `${tools.toggle} did not start updates`);
    // (At once, then every 5 s: 20 s is a wait, not a bound.)
    const got = await waitFor(() => a.updated.includes(uri), 20000);
    const ms = Date.now() - start;
    await a.client.unsubscribeResource({ uri }, REQ);
    if (toggled)
      await a.client.callTool({ name: tools.toggle, arguments: {} }, undefined, REQ);
    assert(got, `no notifications/resources/updated for ${uri} within ${ms} ms` +
      ` (got ${JSON.stringify(a.updated)})`);
    const stray = a.updated.filter((u) => u !== uri);
    assert(stray.length === 0, `updates for resources not subscribed to: ${JSON.stringify(stray)}`);
    return `${uri}: first update ${ms} ms after asking for updates`;
  });

  await check("cancellation rejects at once and the session goes on", async () => {
    const ac = new AbortController();
    const reason = new Error(`interop-cancel-${nonce}`);
    let progressed = 0;
    // Long enough to be running still when its first progress has come
    // on a loaded machine (a step every 0.5 s).
    const p = a.client.callTool(
      { name: tools.long, arguments: { duration: 30, steps: 60 } }, undefined,
      { signal: ac.signal, timeout: 60000, onprogress: () => { progressed++; } });
    const outcome = p.then(() => "resolved", (err) => err);
    // Cancel once the operation is known to be running on the server.
    const running = await waitFor(() => progressed > 0, 25000);
    assert(running, "no progress within 25 s from the operation to be cancelled");
    const errorsBefore = a.errors.length;
    const t = Date.now();
    ac.abort(reason);
    // At once: it takes milliseconds; a request not cancelled would wait
    // for its result (30 s) or its 60 s timeout.
    const res = await Promise.race([outcome, sleep(10000).then(() => "pending")]);
    const ms = Date.now() - t;
    assert(res !== "resolved", "the cancelled request resolved");
    assert(res !== "pending", "the cancelled request was still pending 10 s after abort");
    // The SDK rejects with an McpError carrying the abort reason's text.
    assert(res === reason || (res instanceof Error && res.message.includes(reason.message)),
      `rejected with ${describe(res)}, not the abort reason`);
    // The session still works, and serves a request sent right after.
    const msg = `after-cancel-${nonce}`;
    const text = textOf(await a.client.callTool(
      { name: tools.echo, arguments: { message: msg } }, undefined, REQ));
    assert(text.includes(msg), `echo after cancel returned ${JSON.stringify(text)}`);
    await a.client.ping(REQ);
    // Progress for the cancelled request may still be under way; a late one
    // is tolerated (the SDK reports it as an unknown token) but noted.
    const late = a.errors.length - errorsBefore;
    return `rejected ${ms} ms after abort; echo and ping fine afterwards` +
      (late ? `; ${late} late message(s) ignored by the SDK` : "");
  });

  await check("ping", async () => {
    const r = await a.client.ping(REQ);
    assert(r && typeof r === "object", `ping returned ${JSON.stringify(r)}`);
    await b.client.ping(REQ);
  });

  await check("two clients, parallel echo calls, each gets its own replies", async () => {
    const per = 25;
    const calls = [];
    for (let i = 0; i < per; i++) {
      for (const rec of [a, b]) {
        const msg = `${rec.label}-${i}-${nonce}`;
        calls.push(rec.client.callTool(
          { name: tools.echo, arguments: { message: msg } }, undefined, REQ)
          .then((r) => ({ msg, text: textOf(r) })));
      }
    }
    const start = Date.now();
    const results = await Promise.all(calls);
    const ms = Date.now() - start;
    const wrong = results.filter(({ msg, text }) => !text.endsWith(msg));
    assert(wrong.length === 0, `${wrong.length} of ${results.length} replies wrong, e.g. ` +
      `${wrong[0] && JSON.stringify(wrong[0])}`);
    return `${results.length} calls in ${ms} ms`;
  });

  await check("the second client saw nothing of the first one's traffic", async () => {
    assert(b.sampled.length === 0, `beta answered ${b.sampled.length} sampling requests`);
    assert(b.updated.length === 0,
      `beta received resources/updated without subscribing: ${JSON.stringify(b.updated)}`);
    assert(b.errors.length === 0, `beta's SDK reported: ${b.errors.slice(0, 3).join(" | ")}`);
  });
}

// ---------------------------------------------------------------------------
// server-memory: two clients share one knowledge graph.

async function memory() {
  const name = opts.memory;
  let m1, m2;
  await check(`initialize two clients of ${name}`, async () => {
    m1 = await connectClient("memory-1", name, null);
    m2 = await connectClient("memory-2", name, null);
    const info = m1.client.getServerVersion();
    assert(info && /memory/i.test(info.name), `serverInfo ${JSON.stringify(info)}`);
    return `serverInfo ${info.name} ${info.version}`;
  });
  if (!m2) return;
  await check("an entity one client creates, the other finds", async () => {
    const entity = `mcpd-interop-${nonce}`;
    const { tools } = await m1.client.listTools({}, REQ);
    const create = pickTool(tools, "create", "create_entities");
    const search = pickTool(tools, "search", "search_nodes", "read_graph");
    textOf(await m1.client.callTool({ name: create, arguments: {
      entities: [{ name: entity, entityType: "test", observations: ["shared through mcpd"] }],
    } }, undefined, REQ));
    const args = search === "search_nodes" ? { query: entity } : {};
    const r = await m2.client.callTool({ name: search, arguments: args }, undefined, REQ);
    const found = JSON.stringify(r).includes(entity);
    assert(found, `${search} from the second client does not find ${entity}: ` +
      JSON.stringify(r).slice(0, 300));
  });
}

// ---------------------------------------------------------------------------
// server-filesystem: read a file the test wrote.

async function filesystem() {
  const { name, file, text } = opts.filesystem;
  let f;
  await check(`initialize a client of ${name}`, async () => {
    f = await connectClient("filesystem", name, null);
    const info = f.client.getServerVersion();
    assert(info && typeof info.name === "string", `serverInfo ${JSON.stringify(info)}`);
    return `serverInfo ${info.name} ${info.version}`;
  });
  if (!f) return;
  await check("read a file through server-filesystem", async () => {
    const { tools } = await f.client.listTools({}, REQ);
    const read = pickTool(tools, "read", "read_text_file", "read_file");
    const got = textOf(await f.client.callTool(
      { name: read, arguments: { path: file } }, undefined, REQ));
    assert(got.includes(text), `${read} ${file} returned ${JSON.stringify(got).slice(0, 200)}`);
  });
}

// ---------------------------------------------------------------------------
// A group of the three servers, through one session.

// listAll(CLIENT, METHOD, KEY): every page of a list; returns
// { items, pages }.
async function listAll(client, method, key) {
  const items = [];
  let cursor, pages = 0;
  do {
    const params = cursor !== undefined ? { cursor } : {};
    const r = await client[method](params, REQ);
    assert(Array.isArray(r[key]), `${method} has no ${key}: ${JSON.stringify(r).slice(0, 200)}`);
    items.push(...r[key]);
    cursor = r.nextCursor;
    pages++;
    assert(pages < 100, `${method}: more than 100 pages`);
  } while (cursor !== undefined);
  return { items, pages };
}

function serverField(name, field) {
  const js = JSON.parse(execFileSync(MCPCTL, ["-s", opts.socket, "--json", "status"],
    { encoding: "utf8", timeout: 30000 }));
  const s = js.servers.find((x) => x.name === name);
  assert(s, `no ${name} in status`);
  return s[field];
}

function serverPid(name) {
  const pid = serverField(name, "pid");
  assert(pid > 0, `no pid for ${name} in status`);
  return pid;
}

async function group() {
  const { name, file, text } = opts.group;
  const samplingText = `sampled-in-group-${nonce}`;
  let g, tools = [];
  const changed = [];

  await check(`initialize through mcpctl connect ${name}`, async () => {
    g = await connectClient("group", name, samplingText);
    g.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed.push(Date.now());
    });
    const info = g.client.getServerVersion();
    assert(info && info.name === `mcpd group ${name}`, `serverInfo ${JSON.stringify(info)}`);
    const caps = g.client.getServerCapabilities() || {};
    for (const k of ["tools", "prompts", "resources"])
      assert(caps[k] && caps[k].listChanged === true, `${k}.listChanged not declared: ${JSON.stringify(caps)}`);
    const instr = g.client.getInstructions() || "";
    assert(instr.includes("## everything"), `instructions do not carry server-everything's: ${JSON.stringify(instr).slice(0, 200)}`);
    return `serverInfo ${info.name} ${info.version}`;
  }, { fatal: true });

  await check("tools/list is the union, renamed MEMBER__NAME, across pages", async () => {
    let pages;
    ({ items: tools, pages } = await listAll(g.client, "listTools", "tools"));
    const names = tools.map((t) => t.name);
    for (const want of ["everything__echo", "memory__read_graph",
      "filesystem__list_allowed_directories", "paged__echo", "paged__stderr"])
      assert(names.includes(want), `no ${want} among ${names.length} tools`);
    for (const n of names)
      assert(/^[A-Za-z0-9_-]{1,64}$/.test(n), `tool name ${JSON.stringify(n)} breaks the model APIs' rules`);
    assert(new Set(names).size === names.length, "a tool name appears twice");
    const members = new Set(names.map((n) => n.split("__")[0]));
    assert(members.size === 4, `tools of ${[...members].join(", ")} only`);
    const paged = names.filter((n) => n.startsWith("paged__")).length;
    assert(paged === 6, `${paged} tools of paged, which lists 7 two per page, one denied`);
    assert(pages === 4, `${pages} pages; paged's 7 tools two per page make 4`);
    // The member's filter and the group's: both hide.
    assert(!names.includes("paged__crash"), "paged__crash is listed (its server's filter denies crash)");
    const hidden = names.filter((n) => n.startsWith("everything__get-"));
    assert(hidden.length === 0, `the group denies everything__get-*, yet lists ${hidden.join(", ")}`);
    return `${names.length} tools of 4 servers in ${pages} pages`;
  }, { fatal: true });

  await check("calls reach the right member", async () => {
    const msg = `group echo ${nonce}`;
    const t1 = textOf(await g.client.callTool({ name: "everything__echo", arguments: { message: msg } }, undefined, REQ));
    assert(t1.includes(msg), `everything__echo returned ${JSON.stringify(t1)}`);
    const t2 = JSON.stringify(await g.client.callTool({ name: "memory__read_graph", arguments: {} }, undefined, REQ));
    assert(/entities/.test(t2), `memory__read_graph returned ${t2.slice(0, 200)}`);
    const read = pickTool(tools, "read", "filesystem__read_text_file", "filesystem__read_file");
    const t3 = textOf(await g.client.callTool({ name: read, arguments: { path: file } }, undefined, REQ));
    assert(t3.includes(text), `${read} returned ${JSON.stringify(t3).slice(0, 200)}`);
  });

  await check("unknown and filtered tools are refused with -32602 naming them", async () => {
    for (const name of ["nowhere__tool", "everything__get-sum", "paged__crash"]) {
      let err;
      try {
        await g.client.callTool({ name, arguments: { a: 1, b: 2, code: 3 } }, undefined, REQ);
      } catch (e) {
        err = e;
      }
      assert(err !== undefined, `the call of ${name} succeeded`);
      assert(err.code === -32602 && err.message.includes(name.replace(/^paged__/, "")),
        `${name}: got ${describe(err)}`);
    }
  });

  await check("progress of a member reaches the caller", async () => {
    const long = pickTool(tools, "long-running", "everything__trigger-long-running-operation");
    const seen = [];
    await g.client.callTool({ name: long, arguments: { duration: 1, steps: 3 } }, undefined,
      { ...REQ, onprogress: (p) => seen.push(p.progress) });
    assert(seen.length >= 2, `progress seen: ${JSON.stringify(seen)}`);
    return `progress ${seen.join(", ")}`;
  });

  await check("a member's sampling request reaches the client and back", async () => {
    const sample = pickTool(tools, "sampling", "everything__trigger-sampling-request");
    const r = JSON.stringify(await g.client.callTool(
      { name: sample, arguments: { prompt: "hello", maxTokens: 10 } }, undefined, REQ));
    assert(g.sampled.length === 1, `sampling requests answered: ${g.sampled.length}`);
    assert(r.includes(samplingText), `the tool result does not carry the answer: ${r.slice(0, 300)}`);
  });

  await check("resources across members and pages; read by URI", async () => {
    const { items, pages } = await listAll(g.client, "listResources", "resources");
    assert(items.length > 0, "no resources");
    const uris = items.map((r) => r.uri);
    assert(new Set(uris).size === uris.length, "a URI appears twice");
    const r = await g.client.readResource({ uri: uris[0] }, REQ);
    assert(Array.isArray(r.contents) && r.contents.length > 0, `read ${uris[0]}: ${JSON.stringify(r).slice(0, 200)}`);
    return `${items.length} resources in ${pages} page(s)`;
  });

  await check("a subscription to a member's resource gets its updates", async () => {
    const { items } = await listAll(g.client, "listResources", "resources");
    const uri = items.find((r) => /^demo:/.test(r.uri))?.uri || "demo://resource/dynamic/text/1";
    await g.client.subscribeResource({ uri }, REQ);
    const toggle = "everything__toggle-subscriber-updates";
    const start = Date.now();
    let toggled = false;
    for (let i = 0; !toggled && i < 2; i++)
      toggled = /^Started/.test(textOf(await g.client.callTool({ name: toggle, arguments: {} }, undefined, REQ)));
    assert(toggled, `${toggle} did not start updates`);
    const got = await waitFor(() => g.updated.includes(uri), 20000);
    await g.client.unsubscribeResource({ uri }, REQ);
    await g.client.callTool({ name: toggle, arguments: {} }, undefined, REQ);
    assert(got, `no notifications/resources/updated for ${uri} (got ${JSON.stringify(g.updated)})`);
    return `${uri}: first update ${Date.now() - start} ms`;
  });

  await check("prompts are renamed and found", async () => {
    const { items } = await listAll(g.client, "listPrompts", "prompts");
    const p = items.find((x) => x.name.startsWith("everything__") && !(x.arguments || []).some((a) => a.required));
    assert(p, `no argument-free prompt of everything among ${items.map((x) => x.name).join(", ")}`);
    const r = await g.client.getPrompt({ name: p.name, arguments: {} }, REQ);
    assert(Array.isArray(r.messages), `getPrompt ${p.name}: ${JSON.stringify(r).slice(0, 200)}`);
    return `${items.length} prompts`;
  });

  await check("completion/complete reaches the prompt's member", async () => {
    const { items } = await listAll(g.client, "listPrompts", "prompts");
    const p = items.find((x) => x.name.startsWith("everything__") && (x.arguments || []).length > 0);
    assert(p, `no prompt of everything with arguments among ${items.map((x) => x.name).join(", ")}`);
    const r = await g.client.complete({ ref: { type: "ref/prompt", name: p.name },
      argument: { name: p.arguments[0].name, value: "" } }, REQ);
    assert(r && r.completion && Array.isArray(r.completion.values), `complete: ${JSON.stringify(r).slice(0, 200)}`);
    try {
      await g.client.complete({ ref: { type: "ref/prompt", name: "nowhere__p" },
        argument: { name: "a", value: "" } }, REQ);
    } catch (err) {
      assert(err.code === -32602, `unknown prompt: ${describe(err)}`);
      return `${p.name}: ${r.completion.values.length} values`;
    }
    throw new CheckFailure("a completion for an unknown prompt succeeded");
  });

  await check("logging/setLevel goes to every member", async () => {
    await g.client.setLoggingLevel("warning", REQ);
  });

  await check("a member killed mid-call: that call fails, the rest go on", async () => {
    const long = pickTool(tools, "long-running", "everything__trigger-long-running-operation");
    const before = changed.length;
    const call = g.client.callTool({ name: long, arguments: { duration: 20, steps: 20 } }, undefined, REQ)
      .then(() => "succeeded", (err) => err);
    // Killed once the call is in flight on the member, as mcpd says.
    const deadline = Date.now() + 30000;
    while (serverField("everything", "inflight") < 1) {
      assert(Date.now() < deadline, "the call was not in flight on everything within 30 s");
      await sleep(50);
    }
    process.kill(serverPid("everything"), "SIGKILL");
    const out = await call;
    assert(out !== "succeeded", "the call to the killed member succeeded");
    assert(out.code === -32000, `the call failed with ${describe(out)}, expected -32000`);
    const t = JSON.stringify(await g.client.callTool({ name: "memory__read_graph", arguments: {} }, undefined, REQ));
    assert(/entities/.test(t), `memory after the kill: ${t.slice(0, 200)}`);
    assert(await waitFor(() => changed.length > before, 30000), "no tools/list_changed within 30 s of the member's death");
    return `${describe(out)}`;
  });

  await check("the killed member's tools come back after its restart", async () => {
    const deadline = Date.now() + 60000;
    for (;;) {
      const { items } = await listAll(g.client, "listTools", "tools");
      if (items.some((t) => t.name === "everything__echo")) return;
      assert(Date.now() < deadline, "everything__echo did not come back within 60 s");
      await sleep(300);
    }
  });

  await check("the SDK reported no protocol errors", async () => {
    // server-everything may send its last progress after its result (the
    // same without a group): the SDK reports it as for an unknown token.
    const errors = g.errors.filter((e) => !/progress notification for an unknown token/.test(e));
    assert(errors.length === 0, `errors: ${errors.slice(0, 3).join(" | ")}`);
  });
}

// ---------------------------------------------------------------------------
// Filters on server-everything, then a reload that changes the tools one.

// What the two configurations of filter.sh let through.
const DOC = "demo://resource/static/document/";
const FILTERED = {
  tools: ["echo", "get-env", "get-sum", "toggle-simulated-logging"],
  prompts: ["simple-prompt", "args-prompt"],
  resources: ["architecture.md", "extension.md", "how-it-works.md",
    "instructions.md", "startup.md", "structure.md"].map((f) => DOC + f),
  templates: ["demo://resource/dynamic/text/{resourceId}"],
};
const REFILTERED = { ...FILTERED, tools: ["echo", "get-tiny-image"] };

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

// filteredLists(CLIENT, WANT, WHEN): each list, every page, is exactly
// what WANT says.
async function filteredLists(client, want, when) {
  const names = async (method, key, field) =>
    (await listAll(client, method, key)).items.map((x) => x[field]);
  await check(`${when}: listTools shows exactly the allowed tools`, async () =>
    sameSet(await names("listTools", "tools", "name"), want.tools, "tools"));
  await check(`${when}: listPrompts shows exactly the allowed prompts`, async () =>
    sameSet(await names("listPrompts", "prompts", "name"), want.prompts,
      "prompts"));
  await check(`${when}: listResources shows exactly the allowed resources`,
    async () => sameSet(await names("listResources", "resources", "uri"),
      want.resources, "resources"));
  await check(`${when}: listResourceTemplates shows exactly the allowed templates`,
    async () => sameSet(await names("listResourceTemplates",
      "resourceTemplates", "uriTemplate"), want.templates, "templates"));
}

async function filters() {
  const server = opts.server;
  const { config, nextConfig } = opts.filter;
  const seen = { tools: 0, prompts: 0, resources: 0 };
  let f;

  await check(`initialize through mcpctl connect ${server}`, async () => {
    f = await connectClient("filter", server, null);
    f.client.setNotificationHandler(ToolListChangedNotificationSchema,
      () => { seen.tools++; });
    f.client.setNotificationHandler(PromptListChangedNotificationSchema,
      () => { seen.prompts++; });
    f.client.setNotificationHandler(ResourceListChangedNotificationSchema,
      () => { seen.resources++; });
    const info = f.client.getServerVersion();
    assert(info && /everything/.test(info.name), `serverInfo ${JSON.stringify(info)}`);
    return `serverInfo ${info.name} ${info.version}`;
  }, { fatal: true });
  const c = f.client;

  await filteredLists(c, FILTERED, "before reload");

  await check("an allowed tool works (echo)", async () => {
    const text = textOf(await c.callTool(
      { name: "echo", arguments: { message: "hi" } }, undefined, REQ));
    assert(text.includes("hi"), `echo returned ${JSON.stringify(text)}`);
  });
  await check("a denied tool is refused with -32602 naming it", () =>
    refused(c.callTool({ name: "toggle-subscriber-updates", arguments: {} },
      undefined, REQ), -32602, "toggle-subscriber-updates"));
  await check("an unlisted tool is refused with -32602 naming it", () =>
    refused(c.callTool({ name: "get-tiny-image", arguments: {} },
      undefined, REQ), -32602, "get-tiny-image"));
  await check("an allowed prompt works (simple-prompt)", async () => {
    const r = await c.getPrompt({ name: "simple-prompt" }, REQ);
    assert(Array.isArray(r.messages) && r.messages.length > 0,
      `simple-prompt answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a hidden prompt is refused with -32602 naming it", () =>
    refused(c.getPrompt({ name: "resource-prompt", arguments: {} }, REQ),
      -32602, "resource-prompt"));
  await check("an allowed resource reads", async () => {
    const r = await c.readResource({ uri: DOC + "architecture.md" }, REQ);
    assert(Array.isArray(r.contents) && r.contents.length > 0,
      `read answered ${JSON.stringify(r).slice(0, 200)}`);
  });
  await check("a denied resource is refused with -32002 naming it", () =>
    refused(c.readResource({ uri: DOC + "features.md" }, REQ),
      -32002, DOC + "features.md"));
  await check("a resource outside allow is refused with -32002", () =>
    refused(c.readResource({ uri: "demo://resource/dynamic/blob/1" }, REQ),
      -32002, "demo://resource/dynamic/blob/1"));
  await check("a subscription to a denied resource is refused with -32002", () =>
    refused(c.subscribeResource({ uri: DOC + "features.md" }, REQ),
      -32002, DOC + "features.md"));
  // The server reads a URI after RFC 3986 normalisation (new URL()):
  // these are demo://resource/dynamic/blob/1 to it, outside allow.
  for (const uri of ["demo://resource/dynamic/text/1/../../blob/1",
    "demo://resource/dynamic/text/%2E%2E/blob/1",
    "DEMO://resource/dynamic/text/../blob/1"]) {
    await check(`a resource outside allow spelled ${uri} is refused with -32002`,
      () => refused(c.readResource({ uri }, REQ), -32002, uri));
  }
  await check("the completion of a hidden prompt is refused with -32602", () =>
    refused(c.complete({ ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" } }, REQ),
    -32602, "completable-prompt"));
  await check("the completion of a hidden template is refused with -32602", () =>
    refused(c.complete({ ref: { type: "ref/resource",
      uri: "demo://resource/dynamic/blob/{resourceId}" },
    argument: { name: "resourceId", value: "1" } }, REQ),
    -32602, "demo://resource/dynamic/blob/{resourceId}"));
  await check("the completion of an allowed template answers", async () => {
    const r = await c.complete({ ref: { type: "ref/resource",
      uri: "demo://resource/dynamic/text/{resourceId}" },
    argument: { name: "resourceId", value: "7" } }, REQ);
    assert(r && r.completion && JSON.stringify(r.completion.values) === '["7"]',
      `complete: ${JSON.stringify(r).slice(0, 200)}`);
    return `values ${JSON.stringify(r.completion.values)}`;
  });

  // Reload with a new tools filter; prompts and resources stay.
  const before = { ...seen };
  await check("mcpctl reload with a new tools filter", () => {
    copyFileSync(nextConfig, config);
    const r = spawnSync(MCPCTL, ["-s", opts.socket, "reload"],
      { encoding: "utf8", timeout: 30000 });
    assert(r.status === 0, `mcpctl reload exited ${r.status}: ${r.stderr}`);
    assert(/filters changed on .*: tools/.test(r.stdout),
      `mcpctl reload does not say the tools filter changed: ${r.stdout}`);
    return r.stdout.trim().replace(/\n/g, " | ");
  });
  await check("the client receives notifications/tools/list_changed", async () => {
    assert(await waitFor(() => seen.tools > before.tools, 30000),
      `no tools/list_changed within 30 s (seen ${JSON.stringify(seen)})`);
    return `prompts ${seen.prompts - before.prompts}, resources ` +
      `${seen.resources - before.resources} (their filters did not change)`;
  });
  await check("no prompts or resources list_changed for unchanged filters", async () => {
    // A window: the reload would send them with the tools' one, which
    // has come.
    await sleep(200);
    assert(seen.prompts === before.prompts && seen.resources === before.resources,
      `before ${JSON.stringify(before)}, after ${JSON.stringify(seen)}`);
  });
  await filteredLists(c, REFILTERED, "after reload");
  await check("a tool allowed by the new filter works (get-tiny-image)", async () => {
    textOf(await c.callTool({ name: "get-tiny-image", arguments: {} },
      undefined, REQ));
  });
  await check("a tool the new filter hides is refused (get-sum)", () =>
    refused(c.callTool({ name: "get-sum", arguments: { a: 1, b: 2 } },
      undefined, REQ), -32602, "get-sum"));
}

// ---------------------------------------------------------------------------

process.on("unhandledRejection", (err) => {
  if (finished || err instanceof StopRun) return;
  nfailed++;
  log(`not ok ${++nchecks} - no unhandled rejection: ${describe(err)}`);
});

note(`node ${process.version}, mcpctl ${MCPCTL}, socket ${opts.socket}`);
try {
  if (opts.group) {
    await group();
  } else if (opts.filter) {
    await filters();
  } else {
    await everything();
    if (opts.memory) await memory();
    if (opts.filesystem) await filesystem();
  }
} catch (err) {
  if (!(err instanceof StopRun)) {
    nfailed++;
    log(`not ok ${++nchecks} - unexpected error in "${current}": ${describe(err)}`);
  }
}
finish();
