// modern-client.mjs -- the official TypeScript SDK 2.x client
// (@modelcontextprotocol/client) negotiating MCP 2026-07-28, for
// modern.sh: every cell of one client configuration in one process.
//
//   node modern-client.mjs --mode pin|auto [--prefix P] [--trace FILE]
//       (--socket PATH --server NAME | --direct COMMAND [ARGS...])
//
// --socket and --server run `$MCPCTL connect NAME` with MCPD_SOCKET=PATH
// (MCPCTL in the environment); --direct runs the server itself (it takes
// the rest of the arguments).  --mode pin asks for 2026-07-28 or nothing;
// auto falls back to `initialize` when the server does not answer
// server/discover.  The SDK's own stdio transport is used as it is, so the
// probe runs on a sibling process, as it does for an application.  --prefix
// is put before the tool names (a group's "dual__").  --trace appends every
// message of the session (not of the probe) to FILE, "+MS C->S JSON" or
// "+MS S->C JSON".
//
// The client declares elicitation and sampling; it accepts every form with
// {name: "Ada"} and answers every sampling request with the fixed text
// MODEL_TEXT, counting both.  The cells are chosen by the tools listed: the
// test server dual-server.mjs (echo, progress, ask, ask2, flip, touch,
// resource test://r) or server-everything (echo,
// trigger-long-running-operation, trigger-elicitation-request,
// toggle-subscriber-updates, resource demo://resource/dynamic/text/1).
// Each cell is {ok, ms, ...what it saw} or {ok: false, error}:
//   discover   the era; modern: server/discover's supportedVersions has
//              2026-07-28 and its _meta a serverInfo with a name
//   list       tools/list has PREFIXecho; modern: the result on the wire
//              has resultType "complete", a numeric ttlMs and a cacheScope
//   call       echo: "Echo: hello modern"
//   progress   progress (3 steps) or trigger-long-running-operation (1 s,
//              3 steps) with onprogress: at least one progress, no error
//   elicit     ask or trigger-elicitation-request: the text has
//              "Name: Ada", the form was asked once; modern: by the SDK's
//              retry (a tools/call carrying inputResponses on the wire, no
//              elicitation/create request), legacy: by an
//              elicitation/create request
//   elicit2    ask2: "Name: Ada; model said: MODEL_TEXT", one form and one
//              sampling request ("Say hi to Ada"); modern: two retries
//   subscribe  modern: subscriptions/listen for toolsListChanged (dual)
//              and the resource, all of it honored; legacy: resources/
//              subscribe.  Then flip and touch (dual) or
//              toggle-subscriber-updates (server-everything), and
//              notifications/tools/list_changed (dual) and
//              notifications/resources/updated for the resource reach the
//              client's handlers within WAIT_MS; then all undone
//   read       the resource reads; an unknown URI fails, with -32602 in
//              the modern era; modern: resultType, ttlMs and cacheScope
//   task       modern, a tool that runs as a task (server-everything's
//              simulate-research-query, ambiguous: it asks for a
//              clarification while input_required): the client declares
//              the extension io.modelcontextprotocol/tasks; tools/call
//              answers resultType "task" (SDK 2.4.0 does not implement the
//              extension and refuses that result: the handle is read from
//              the wire), tasks/get (client.request) polls at the task's
//              pollIntervalMs until input_required shows inputRequests,
//              tasks/update answers them, and the task ends "completed"
//              with its result inline, naming the interpretation given
//   quiet      modern: the whole session carried no notifications/message
//              (no request asked for a log level) and no request from the
//              server; legacy: their numbers
// Cells the target has no tool for are listed in "skipped".  Prints one
// JSON object {ok, mode, target, version, era, steps, skipped, errors};
// exit 0 if the client connected (the shell judges the cells), 1 if not.

import { appendFileSync } from "node:fs";
import { Client, SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import * as z from "zod/v4";

const MODEL_TEXT = "Hello from the model";
const WAIT_MS = 30000;
const TASK_POLLS = 60;	// at its pollIntervalMs (1 s for server-everything)
const REQ = { timeout: 60000 };
const MISSING = "test://missing";

const opts = { prefix: "" };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const want = () => {
      if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case "--mode": opts.mode = want(); break;
      case "--prefix": opts.prefix = want(); break;
      case "--socket": opts.socket = want(); break;
      case "--server": opts.server = want(); break;
      case "--trace": opts.trace = want(); break;
      case "--direct":
        opts.direct = argv.slice(i + 1);
        i = argv.length;
        break;
      default: usage(`unknown argument ${argv[i]}`);
    }
  }
}
if (opts.mode !== "pin" && opts.mode !== "auto") usage("--mode is pin or auto");
if (opts.direct !== undefined ? opts.direct.length === 0 || opts.socket :
  !opts.socket || !opts.server || !process.env.MCPCTL)
  usage("give --socket and --server (and MCPCTL), or --direct COMMAND");

function usage(why) {
  process.stderr.write(`modern-client: ${why}\nusage: node modern-client.mjs ` +
    "--mode pin|auto [--prefix P] [--trace FILE] " +
    "(--socket PATH --server NAME | --direct COMMAND [ARGS...])\n");
  process.exit(2);
}

const T0 = Date.now();
const target = opts.direct ? opts.direct.join(" ") : `mcpctl connect ${opts.server}`;
const out = { ok: false, mode: opts.mode, target, prefix: opts.prefix,
  version: null, era: null, steps: {}, skipped: {}, errors: [] };
const wire = [];      // {dir, msg}, the session's messages as they went

function trace(dir, msg) {
  wire.push({ dir, msg });
  if (!opts.trace) return;
  try {
    appendFileSync(opts.trace, `+${Date.now() - T0} ${dir} ${JSON.stringify(msg)}\n`);
  } catch {
    // A trace that cannot be written is no reason to stop.
  }
}

// The SDK's transport itself (its class decides where the probe runs),
// its instance's send and onmessage traced.
function tracedTransport() {
  const params = opts.direct
    ? { command: opts.direct[0], args: opts.direct.slice(1) }
    : { command: process.env.MCPCTL, args: ["connect", opts.server] };
  const t = new StdioClientTransport({ ...params,
    env: { ...process.env, ...(opts.socket && { MCPD_SOCKET: opts.socket }) },
    stderr: "inherit" });
  const send = t.send.bind(t);
  t.send = (m, o) => {
    trace("C->S", m);
    return send(m, o);
  };
  let handler;
  Object.defineProperty(t, "onmessage", {
    configurable: true,
    get: () => handler && ((m, extra) => {
      trace("S->C", m);
      return handler(m, extra);
    }),
    set: (h) => { handler = h; },
  });
  return t;
}

const mode = opts.mode === "pin" ? { pin: "2026-07-28" } : "auto";
const client = new Client({ name: "modern-client", version: "1.0.0" }, {
  versionNegotiation: { mode },
  capabilities: { elicitation: {}, sampling: {},
    extensions: { "io.modelcontextprotocol/tasks": {} } },
});
client.onerror = (e) => {
  if (out.errors.length < 20) out.errors.push(String(e?.message ?? e));
};

const asked = { elicit: 0, sampling: 0, forms: [], prompts: [] };
client.setRequestHandler("elicitation/create", async (req) => {
  asked.elicit++;
  asked.forms.push(req.params?.message ?? null);
  return { action: "accept", content: { name: "Ada" } };
});
client.setRequestHandler("sampling/createMessage", async (req) => {
  asked.sampling++;
  const c = req.params?.messages?.at(-1)?.content;
  asked.prompts.push(c?.type === "text" ? c.text : null);
  return { role: "assistant", content: { type: "text", text: MODEL_TEXT },
    model: "modern-client", stopReason: "endTurn" };
});

// Notifications as the client's handlers see them.
const heard = [];
let onHeard = null;
for (const m of ["notifications/tools/list_changed", "notifications/resources/updated"]) {
  client.setNotificationHandler(m, (n) => {
    heard.push({ method: m, params: n.params ?? {}, at: Date.now() });
    onHeard?.();
  });
}

function waitHeard(pred, ms) {
  return new Promise((resolve) => {
    const look = () => heard.find(pred);
    if (look()) return resolve(look());
    const timer = setTimeout(() => { onHeard = null; resolve(null); }, ms);
    onHeard = () => {
      const found = look();
      if (!found) return;
      clearTimeout(timer);
      onHeard = null;
      resolve(found);
    };
  });
}

function textOf(result) {
  return (result?.content ?? []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
}

// The requests the session sent with METHOD since wire index FROM, each
// with its answer.
function exchanges(method, from, pred = () => true) {
  const res = [];
  for (let i = from; i < wire.length; i++) {
    const { dir, msg } = wire[i];
    if (dir !== "C->S" || msg.method !== method || !pred(msg)) continue;
    const answer = wire.slice(i + 1).find((w) => w.dir === "S->C" &&
      w.msg.id === msg.id && w.msg.method === undefined);
    res.push({ req: msg, res: answer?.msg ?? null });
  }
  return res;
}

// What a cacheable result on the wire says of itself.
function resultMeta(x) {
  const r = x?.res?.result;
  return r ? { resultType: r.resultType ?? null, ttlMs: r.ttlMs ?? null,
    cacheScope: r.cacheScope ?? null } : null;
}
const metaOk = (m) => m !== null && m.resultType === "complete" &&
  typeof m.ttlMs === "number" && ["public", "private"].includes(m.cacheScope);

// How an input reached the client since wire index FROM: "mrtr" (a
// tools/call retried with inputResponses), "request" (a request from the
// server), or both or none.
function inputPath(from) {
  const calls = exchanges("tools/call", from);
  const retries = calls.filter((c) => c.req.params?.inputResponses !== undefined).length;
  const requests = wire.slice(from).filter((w) => w.dir === "S->C" &&
    w.msg.id !== undefined && w.msg.method !== undefined).map((w) => w.msg.method);
  return { rounds: calls.length, retries, requests };
}

async function step(name, fn) {
  const t = Date.now();
  try {
    const r = await fn();
    out.steps[name] = { ok: true, ...r, ms: Date.now() - t };
  } catch (e) {
    out.steps[name] = { ok: false, error: String(e?.message ?? e),
      code: e?.code ?? null, ms: Date.now() - t };
  }
}

function fail(why, more = {}) {
  return { ok: false, error: why, ...more };
}

const tool = (n) => `${opts.prefix}${n}`;
const call = (n, args, extra = {}) => client.callTool(
  { name: tool(n), arguments: args }, { ...REQ, ...extra });

try {
  await client.connect(tracedTransport(), REQ);
} catch (e) {
  out.error = String(e?.message ?? e);
  out.errorCode = e?.code ?? null;
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(1);
}
out.ok = true;
out.era = client.getProtocolEra() ?? null;
out.version = client.getNegotiatedProtocolVersion() ?? null;
const modern = out.era === "modern";

await step("discover", async () => {
  const d = client.getDiscoverResult();
  const info = d?._meta?.[SERVER_INFO_META_KEY] ?? null;
  const seen = { era: out.era, version: out.version,
    supportedVersions: d?.supportedVersions ?? null, serverInfo: info,
    capabilities: client.getServerCapabilities() ?? null };
  if (!modern) return fail(`the ${out.era} era: no server/discover`, seen);
  if (!d?.supportedVersions?.includes("2026-07-28"))
    return fail("supportedVersions lacks 2026-07-28", seen);
  if (typeof info?.name !== "string")
    return fail(`no serverInfo in _meta["${SERVER_INFO_META_KEY}"]`, seen);
  return seen;
});

let names = [];
await step("list", async () => {
  const from = wire.length;
  names = (await client.listTools(undefined, REQ)).tools.map((t) => t.name);
  const meta = resultMeta(exchanges("tools/list", from).at(-1));
  const seen = { n: names.length, names, wire: meta };
  if (!names.includes(tool("echo"))) return fail(`no ${tool("echo")}`, seen);
  if (modern && !metaOk(meta))
    return fail("the result lacks resultType complete, ttlMs or cacheScope", seen);
  return seen;
});
const has = (n) => names.includes(tool(n));
const dual = has("ask");
const skip = (cell, why) => { out.skipped[cell] = why; };

if (has("echo")) {
  await step("call", async () => {
    const r = await call("echo", { message: "hello modern" });
    const text = textOf(r);
    if (r.isError || !text.includes("Echo: hello modern"))
      return fail("not the echo", { text, isError: r.isError ?? false });
    return { text };
  });
} else {
  skip("call", "no echo");
}

const progressTool = has("progress") ? ["progress", { steps: 3 }]
  : has("trigger-long-running-operation")
    ? ["trigger-long-running-operation", { duration: 1, steps: 3 }] : null;
if (progressTool) {
  await step("progress", async () => {
    const seen = [];
    const from = wire.length;
    const r = await call(progressTool[0], progressTool[1], {
      onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true });
    const onWire = wire.slice(from).filter((w) => w.dir === "S->C" &&
      w.msg.method === "notifications/progress").length;
    const res = { tool: progressTool[0], progress: seen, onWire,
      text: textOf(r), isError: r.isError ?? false };
    if (r.isError) return fail("the tool failed", res);
    if (seen.length === 0) return fail("no progress", res);
    return res;
  });
} else {
  skip("progress", "no progress tool");
}

// The input of a tool, asked in the era's way.
async function inputCell(toolName, wantText, want) {
  const from = wire.length;
  const e0 = asked.elicit, s0 = asked.sampling;
  const r = await call(toolName, {});
  const path = inputPath(from);
  const res = { tool: toolName, text: textOf(r), isError: r.isError ?? false,
    elicited: asked.elicit - e0, sampled: asked.sampling - s0,
    prompts: asked.prompts.slice(s0), ...path };
  if (r.isError || !res.text.includes(wantText))
    return fail(`the text has no "${wantText}"`, res);
  if (res.elicited !== want.elicit || res.sampled !== want.sampling)
    return fail(`asked ${res.elicited} forms and ${res.sampled} samplings, ` +
      `not ${want.elicit} and ${want.sampling}`, res);
  if (modern && (res.retries !== want.elicit + want.sampling || res.requests.length !== 0))
    return fail("modern era: not asked by input_required and the retry", res);
  if (!modern && res.requests.length !== want.elicit + want.sampling)
    return fail("legacy era: not asked by requests of the server", res);
  return res;
}

const elicitTool = dual ? "ask" : has("trigger-elicitation-request")
  ? "trigger-elicitation-request" : null;
if (elicitTool) {
  await step("elicit", () => inputCell(elicitTool, "Name: Ada",
    { elicit: 1, sampling: 0 }));
} else {
  skip("elicit", "no elicitation tool");
}

if (has("ask2")) {
  await step("elicit2", async () => {
    const res = await inputCell("ask2", `Name: Ada; model said: ${MODEL_TEXT}`,
      { elicit: 1, sampling: 1 });
    if (res.ok !== false && res.prompts[0] !== "Say hi to Ada")
      return fail("the sampling request was not \"Say hi to Ada\"", res);
    return res;
  });
} else {
  skip("elicit2", "no ask2");
}

// The resource the subscribe and read cells use, and how to make it change.
const uri = dual ? "test://r" : "demo://resource/dynamic/text/1";
const canUpdate = dual ? has("flip") && has("touch") : has("toggle-subscriber-updates");

if (canUpdate) {
  await step("subscribe", async () => {
    const from = wire.length;
    const t = Date.now();
    const n0 = heard.length;
    const isUpdate = (h) => heard.indexOf(h) >= n0 &&
      h.method === "notifications/resources/updated" && h.params.uri === uri;
    const isToolsChanged = (h) => heard.indexOf(h) >= n0 &&
      h.method === "notifications/tools/list_changed";
    const res = {};
    let sub = null;
    if (modern) {
      const filter = { resourceSubscriptions: [uri], ...(dual && { toolsListChanged: true }) };
      sub = await client.listen(filter, REQ);
      res.honored = sub.honoredFilter;
      if ((dual && sub.honoredFilter.toolsListChanged !== true) ||
        !(sub.honoredFilter.resourceSubscriptions ?? []).includes(uri)) {
        await sub.close();
        return fail("the filter was not honored", res);
      }
    } else {
      await client.subscribeResource({ uri }, REQ);
    }
    const listening = Date.now() - t;
    let toggled = null;
    if (dual) {
      res.flip = textOf(await call("flip", {}));
      res.touch = textOf(await call("touch", { uri }));
    } else {
      toggled = textOf(await call("toggle-subscriber-updates", {}));
      // Another client left them running: toggled off, then on again.
      if (toggled.startsWith("Stopped"))
        toggled = textOf(await call("toggle-subscriber-updates", {}));
      res.toggled = toggled;
    }
    const [upd, tlc] = await Promise.all([waitHeard(isUpdate, WAIT_MS),
      dual ? waitHeard(isToolsChanged, WAIT_MS) : Promise.resolve(undefined)]);
    res.updatedMs = upd ? upd.at - t : null;
    if (dual) res.toolsChangedMs = tlc ? tlc.at - t : null;
    res.listenMs = listening;
    // The subscription ids the notifications came with.
    res.subscriptionIds = [...new Set(wire.slice(from).filter((w) =>
      w.dir === "S->C" && w.msg.id === undefined &&
      w.msg.params?._meta?.[SUBSCRIPTION_ID_META_KEY] !== undefined)
      .map((w) => w.msg.params._meta[SUBSCRIPTION_ID_META_KEY]))];
    if (!dual)
      res.off = textOf(await call("toggle-subscriber-updates", {}));
    if (sub) {
      await sub.close();
      res.closed = await Promise.race([sub.closed,
        new Promise((r) => setTimeout(() => r("not yet"), 5000))]);
    } else {
      await client.unsubscribeResource({ uri }, REQ);
    }
    if (!upd) return fail(`no notifications/resources/updated for ${uri} in ${WAIT_MS} ms`, res);
    if (dual && !tlc) return fail(`no notifications/tools/list_changed in ${WAIT_MS} ms`, res);
    return res;
  });
} else {
  skip("subscribe", "no tool that changes a resource");
}

await step("read", async () => {
  const from = wire.length;
  const r = await client.readResource({ uri }, { ...REQ, cacheMode: "bypass" });
  const res = { uri, contents: (r.contents ?? []).length,
    text: r.contents?.[0]?.text ?? null,
    wire: resultMeta(exchanges("resources/read", from).at(-1)) };
  if (res.contents === 0 || (dual && res.text !== "r"))
    return fail(`${uri} did not read`, res);
  if (modern && !metaOk(res.wire))
    return fail("the result lacks resultType complete, ttlMs or cacheScope", res);
  try {
    await client.readResource({ uri: MISSING }, { ...REQ, cacheMode: "bypass" });
    return fail(`${MISSING} was read`, res);
  } catch (e) {
    res.missing = { code: e?.code ?? null, message: String(e?.message ?? e) };
  }
  if (modern && res.missing.code !== -32602)
    return fail(`${MISSING}: error ${res.missing.code}, not -32602`, res);
  return res;
});

if (modern && has("simulate-research-query")) {
  await step("task", async () => {
    const Loose = z.looseObject({});
    const from = wire.length;
    let refused = null;
    try {
      await client.request({ method: "tools/call", params: {
        name: tool("simulate-research-query"),
        arguments: { topic: "mcpd", ambiguous: true } } }, Loose, REQ);
    } catch (e) {
      refused = String(e?.code ?? e?.message ?? e);
    }
    const created = exchanges("tools/call", from).at(-1)?.res?.result ?? null;
    const res = { created, refused, polls: 0, updates: 0, statuses: [] };
    if (created?.resultType !== "task" || typeof created.taskId !== "string")
      return fail("tools/call did not answer with a task", res);
    let last = null;
    for (let i = 0; i < TASK_POLLS; i++) {
      last = await client.request({ method: "tasks/get",
        params: { taskId: created.taskId } }, Loose, REQ);
      res.polls++;
      if (res.statuses.at(-1) !== last.status) res.statuses.push(last.status);
      if (last.status === "input_required" && last.inputRequests) {
        const keys = Object.keys(last.inputRequests);
        const answers = Object.fromEntries(keys.map((k) => [k,
          { action: "accept", content: { interpretation: "technical" } }]));
        await client.request({ method: "tasks/update",
          params: { taskId: created.taskId, inputResponses: answers } },
          Loose, REQ);
        res.updates++;
      }
      if (["completed", "failed", "cancelled"].includes(last.status)) break;
      // The task's own polling interval: the protocol's pace, not a wait
      // for something to happen.
      await new Promise((r) => setTimeout(r, last.pollIntervalMs ?? 500));
    }
    res.last = { status: last?.status, resultType: last?.resultType,
      text: textOf(last?.result).slice(0, 300) };
    if (last?.status !== "completed") return fail("the task did not complete", res);
    if (res.updates !== 1) return fail("the task's input was not asked once", res);
    if (!res.last.text.includes("technical"))
      return fail("the result does not carry the interpretation given", res);
    return res;
  });
} else {
  skip("task", modern ? "no task tool" : "the 2025 era");
}

// Last, over the whole session: what a 2026 client did not ask for.
await step("quiet", async () => {
  const logs = wire.filter((w) => w.dir === "S->C" && w.msg.id === undefined &&
    w.msg.method === "notifications/message").length;
  const requests = wire.filter((w) => w.dir === "S->C" && w.msg.id !== undefined &&
    w.msg.method !== undefined).map((w) => w.msg.method);
  const res = { logs, requests };
  if (modern && logs !== 0)
    return fail(`${logs} notifications/message, and no request asked for a log level`, res);
  if (modern && requests.length !== 0)
    return fail(`requests from the server: ${requests.join(", ")}`, res);
  return res;
});

out.ms = Date.now() - T0;
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
