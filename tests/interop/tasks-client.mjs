// tasks-client.mjs -- the official TypeScript SDK client using MCP
// 2025-11-25 tasks (client.experimental.tasks) through `mcpctl connect`,
// driven one step at a time by tasks.sh.  It declares the elicitation
// capability and answers elicitation/create at once or on command.
//
//   MCPCTL=/abs/path/to/mcpctl node tasks-client.mjs --socket PATH \
//       --server NAME [--name CLIENT-NAME] [--trace FILE] \
//       [--sampling plain|tasks]
//
// --sampling declares the sampling capability and answers
// sampling/createMessage with "sampled by NAME": plainly, or with "tasks"
// also tasks.requests.sampling.createMessage, running a request that
// asks for a task as one (an InMemoryTaskStore, the result stored 200 ms
// later).
// --name is the clientInfo.name sent in initialize ("tasks-client" by
// default); --trace appends every message on the wire to FILE, one line
// each: "+MS C->S JSON" or "+MS S->C JSON" (MS since the client began).
//
// Reads one command per line on stdin and answers each with one JSON line
// on stdout, {"ok": true, ...} or {"ok": false, ...}; the first line,
// before any command, says whether the client connected.  An error of
// the server's (or mcpd's) comes as "code" and "message", the message as
// it was on the wire (without the SDK's "MCP error N: " in front).
// Times ("at", "sent", "done") are Date.now() of this process; "ms" are
// durations.
//   tools                   list the tools (the SDK caches which take
//                           tasks): "names", "taskSupport" per tool that
//                           has one, and the server's "tasks" capability
//   stream LABEL TOOL [JSON-ARGS]
//                           experimental.tasks.callToolStream in the
//                           background; answers once it yielded its first
//                           message: "taskId" of taskCreated, or the error
//   stream-wait LABEL MS    wait (at most MS) for that stream's end:
//                           "events" (type:status), "text" of its
//                           result, or "code"/"message" of its error, "ms"
//                           from the call to the end
//   start TOOL [JSON-ARGS]  tools/call with "task" (a raw request, the
//                           SDK's CreateTaskResult schema): "taskId",
//                           "task", "ms", "done"
//   get ID                  experimental.tasks.getTask: "task"
//   result ID               experimental.tasks.getTaskResult, waiting as
//                           long as it takes (300 s at most): "text",
//                           "related" (the related-task id of its _meta),
//                           "ms"
//   result-bg LABEL ID      the same in the background; "sent"
//   result-on LABEL ID TEXT  the same, sent as soon as a status
//                           notification of task ID has a statusMessage
//                           beginning with TEXT, or a final status (120 s
//                           at most)
//   result-wait LABEL MS    wait (at most MS) for either: as "result",
//                           plus "sent" and "done"; "pending" if not yet
//   cancel ID               experimental.tasks.cancelTask: "task"
//   list                    experimental.tasks.listTasks: "ids", "tasks"
//   raw METHOD [JSON-PARAMS]  any request, any result: "result"
//   raw-until METHOD MS [JSON-PARAMS]  the same, again every 50 ms until
//                           it succeeds (MS at most): as "raw", plus
//                           "tries", "ms", and the "first" error
//   call TOOL [JSON-ARGS]   a plain tools/call (client.callTool, which
//                           refuses a tool the SDK has listed as one
//                           that needs a task): "text", "links" (the uris
//                           of its resource_link items), "types" (of
//                           its content items), "related" (the task
//                           of its _meta, then counted as this
//                           client's), "sent", "done"; ok is false for
//                           an error or an isError result
//   call-raw TOOL [JSON-ARGS]  the same as a raw tools/call without
//                           "task", whatever the SDK listed
//   call-bg LABEL TOOL [JSON-ARGS]  the same in the background; "sent"
//   call-wait LABEL MS      wait (at most MS) for it
//   call-abort LABEL        give it up (notifications/cancelled)
//   statuses [ID]           the notifications/tasks/status that came: "n",
//                           "ids" (distinct taskIds), "foreign" (how many
//                           named a task this client did not create, nor
//                           was told of by a call's result), and
//                           for ID its "list" of statuses
//   wait-status ID STATUS MS  wait (at most MS) for a status notification
//                           of task ID with STATUS
//   elicit auto|hold        answer elicitations at once (accept, the first
//                           choice of the first property's oneOf or enum),
//                           or keep them until "answer" (auto by default)
//   elicitations            the elicitation/create requests that came:
//                           "n", "list" of {at, related, message,
//                           choices, answered}
//   wait-elicit N MS        wait (at most MS) until more than N came
//   answer [JSON-CONTENT]   accept the oldest held one with this content
//                           (default: as auto would)
//   tasks                   the ids of the tasks this client created
//   samplings               the sampling/createMessage requests that
//                           came: "n", "asked" (how many had "task"),
//                           "hosted" (the ids of the tasks this client
//                           ran for them), "taskGets" (the taskIds of
//                           the tasks/get it was sent)
//   now                     "at": Date.now()
//   close                   close the client (the bridge ends) and exit
// Every request but tasks/result has a 60 s timeout; stdin ending ends
// the client too.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ResultSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

function usage(msg) {
  process.stderr.write(`tasks-client: ${msg}\nusage: MCPCTL=PATH node ` +
    "tasks-client.mjs --socket PATH --server NAME [--name NAME] " +
    "[--trace FILE]\n");
  process.exit(2);
}

const opts = { name: "tasks-client" };
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
      case "--name": opts.name = want(); break;
      case "--trace": opts.trace = want(); break;
      case "--sampling":
        opts.sampling = want();
        if (opts.sampling !== "plain" && opts.sampling !== "tasks")
          usage("--sampling is plain or tasks");
        break;
      default: usage(`unknown argument: ${argv[i]}`);
    }
  }
}
if (!opts.socket || !opts.server) usage("--socket and --server are required");
const MCPCTL = process.env.MCPCTL;
if (!MCPCTL) usage("MCPCTL is not set");

const T0 = Date.now();
const REQ = { timeout: 60000 };
const RESULT_REQ = { timeout: 300000 };
const RELATED = "io.modelcontextprotocol/related-task";

function trace(dir, msg) {
  if (!opts.trace) return;
  try {
    appendFileSync(opts.trace,
      `+${Date.now() - T0} ${dir} ${JSON.stringify(msg)}\n`);
  } catch {
    // A trace that cannot be written is no reason to stop.
  }
}

// The stdio transport, with every message on the wire traced.
class TracingTransport {
  constructor(inner) {
    this.inner = inner;
    inner.onmessage = (m, extra) => {
      trace("S->C", m);
      if (m.method === "tasks/get")
        samplings.taskGets.push(m.params?.taskId);
      this.onmessage?.(m, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  start() { return this.inner.start(); }
  send(m, o) {
    trace("C->S", m);
    return this.inner.send(m, o);
  }
  close() { return this.inner.close(); }
  get pid() { return this.inner.pid; }
}

const mine = new Set();            // task ids this client created
const statuses = [];               // notifications/tasks/status params
const elicits = [];                // elicitation/create that came
let elicitMode = "auto";
const streams = new Map();
const backgrounds = new Map();
let closed = false;

const capabilities = { elicitation: { form: {} } };
if (opts.sampling !== undefined)
  capabilities.sampling = {};
if (opts.sampling === "tasks")
  capabilities.tasks = { requests: { sampling: { createMessage: {} } } };
const client = new Client({ name: opts.name, version: "1.0.0" },
  { capabilities,
    taskStore: opts.sampling === "tasks" ? new InMemoryTaskStore() :
      undefined });

// Sampling, plainly or as a task (--sampling).
const samplings = { n: 0, asked: 0, hosted: [], taskGets: [] };
if (opts.sampling !== undefined) {
  client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
    samplings.n++;
    const reply = { role: "assistant", model: "tasks-client",
      content: { type: "text", text: `sampled by ${opts.name}` } };
    if (req.params?.task === undefined)
      return reply;
    samplings.asked++;
    if (extra.taskStore === undefined)
      return reply;
    const task = await extra.taskStore.createTask(
      { ttl: req.params.task.ttl ?? 60000 });
    samplings.hosted.push(task.taskId);
    setTimeout(() => {
      extra.taskStore.storeTaskResult(task.taskId, "completed", reply)
        .catch(() => {});
    }, 200);
    return { task };
  });
}

// The choice auto answers with: the first property's first const/enum.
function firstChoice(params) {
  const props = params?.requestedSchema?.properties || {};
  for (const [key, p] of Object.entries(props)) {
    if (Array.isArray(p.oneOf) && p.oneOf.length > 0)
      return { [key]: p.oneOf[0].const };
    if (Array.isArray(p.enum) && p.enum.length > 0)
      return { [key]: p.enum[0] };
    return { [key]: "auto" };
  }
  return {};
}

function choicesOf(params) {
  const props = params?.requestedSchema?.properties || {};
  const out = [];
  for (const p of Object.values(props)) {
    if (Array.isArray(p.oneOf)) out.push(...p.oneOf.map((o) => o.const));
    else if (Array.isArray(p.enum)) out.push(...p.enum);
  }
  return out;
}

client.setRequestHandler(ElicitRequestSchema, (req) => {
  const e = {
    at: Date.now(),
    related: req.params?._meta?.[RELATED]?.taskId ?? null,
    message: req.params?.message,
    choices: choicesOf(req.params),
    answered: false,
  };
  elicits.push(e);
  if (elicitMode === "auto") {
    e.answered = true;
    return { action: "accept", content: firstChoice(req.params) };
  }
  return new Promise((resolve) => {
    e.resolve = (content) => {
      e.answered = true;
      resolve({ action: "accept",
        content: content ?? firstChoice(req.params) });
    };
  });
});
client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
  statuses.push({ at: Date.now(), ...n.params });
});

const transport = new TracingTransport(new StdioClientTransport({
  command: MCPCTL,
  args: ["-s", opts.socket, "connect", opts.server],
  env: process.env,
  stderr: "inherit",
}));
transport.onclose = () => { closed = true; };

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function textOf(result) {
  return (result?.content || []).filter((c) => c.type === "text")
    .map((c) => c.text).join("\n");
}

// An error as the wire had it: the SDK puts "MCP error N: " in front.
function errorOf(err, extra = {}) {
  const raw = String(err?.message ?? err);
  const prefix = `MCP error ${err?.code}: `;
  return { ok: false, code: err?.code,
    message: raw.startsWith(prefix) ? raw.slice(prefix.length) : raw,
    ...(err?.data !== undefined ? { data: err.data } : {}), ...extra };
}

// Wait until cond() or ms have passed; cond() afterwards.
async function waitUntil(cond, ms) {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline)
    await sleep(20);
  return cond();
}

function resultOut(r, start) {
  return { ok: !r.isError, text: textOf(r),
    related: r?._meta?.[RELATED]?.taskId ?? null,
    ms: Date.now() - start };
}

// What a call's result holds: its text, its links, its content types.
// A call answered by a task's result (a tool that needs a task, called
// without one, is run as one) names the task in its _meta: the task
// was made for this client, and is counted as its own.
function callOut(r) {
  const content = r?.content || [];
  const related = r?._meta?.[RELATED]?.taskId ?? null;
  if (related !== null) mine.add(related);
  return { ok: !r.isError, text: textOf(r),
    links: content.filter((c) => c.type === "resource_link")
      .map((c) => c.uri),
    types: content.map((c) => c.type), related };
}

async function taskResult(id) {
  const start = Date.now();
  try {
    const r = await client.experimental.tasks.getTaskResult(id,
      CallToolResultSchema, RESULT_REQ);
    return resultOut(r, start);
  } catch (err) {
    return errorOf(err, { ms: Date.now() - start });
  }
}

async function callTool(tool, args, signal) {
  const sent = Date.now();
  try {
    const r = await client.callTool({ name: tool, arguments: args },
      undefined, { ...REQ, signal });
    return { ...callOut(r), sent, done: Date.now() };
  } catch (err) {
    return errorOf(err, { sent, done: Date.now() });
  }
}

// tools/call without "task", past the SDK's guard for tools that need one.
async function callRaw(tool, args) {
  const sent = Date.now();
  try {
    const r = await client.request({ method: "tools/call",
      params: { name: tool, arguments: args } }, CallToolResultSchema, REQ);
    return { ...callOut(r), sent, done: Date.now() };
  } catch (err) {
    return errorOf(err, { sent, done: Date.now() });
  }
}

// A background request under LABEL: its outcome once it is there.
function background(label, promise, extra) {
  const b = { done: false, out: null, ...extra };
  b.promise = promise.then((out) => {
    b.out = out;
    b.done = true;
  });
  backgrounds.set(label, b);
  return b;
}

async function backgroundWait(label, ms) {
  const b = backgrounds.get(label);
  if (!b) return { ok: false, error: `no background request ${label}` };
  await Promise.race([b.promise, sleep(ms)]);
  if (!b.done)
    return { ok: false, error: `${label} not answered within ${ms} ms`,
      pending: true };
  return b.out;
}

async function startStream(label, tool, args) {
  const s = { events: [], done: false, taskId: null, start: Date.now() };
  streams.set(label, s);
  let first;
  const firstSeen = new Promise((resolve) => { first = resolve; });
  s.promise = (async () => {
    try {
      const gen = client.experimental.tasks.callToolStream(
        { name: tool, arguments: args }, CallToolResultSchema, REQ);
      for await (const m of gen) {
        if (m.type === "taskCreated") {
          s.taskId = m.task.taskId;
          mine.add(s.taskId);
          s.events.push(`taskCreated:${m.task.status}`);
        } else if (m.type === "taskStatus") {
          s.events.push(`taskStatus:${m.task.status}`);
        } else if (m.type === "result") {
          s.events.push("result");
          s.out = resultOut(m.result, s.start);
        } else if (m.type === "error") {
          s.events.push("error");
          s.out = errorOf(m.error, { ms: Date.now() - s.start });
        }
        first();
      }
    } catch (err) {
      s.out = errorOf(err, { ms: Date.now() - s.start });
    }
    s.done = true;
    first();
  })();
  await firstSeen;
  if (s.taskId) return { ok: true, taskId: s.taskId, events: s.events };
  return { ...(s.out ?? { ok: false, error: "the stream ended at once" }),
    events: s.events };
}

function statusSummary(id) {
  const ids = [...new Set(statuses.map((s) => s.taskId))];
  const out = { ok: true, n: statuses.length, ids,
    foreign: statuses.filter((s) => !mine.has(s.taskId)).length };
  if (id !== undefined)
    out.list = statuses.filter((s) => s.taskId === id).map((s) => s.status);
  return out;
}

function elicitSummary() {
  return { ok: true, n: elicits.length, mode: elicitMode,
    list: elicits.map(({ at, related, message, choices, answered }) =>
      ({ at, related, message, choices, answered })) };
}

async function run(words) {
  const [op, a, b, c] = words;
  const json = (s) => (s === undefined ? {} : JSON.parse(s));
  switch (op) {
    case "tools": {
      const r = await client.listTools({}, REQ);
      const taskSupport = {};
      for (const t of r.tools)
        if (t.execution?.taskSupport) taskSupport[t.name] = t.execution.taskSupport;
      return { ok: true, names: r.tools.map((t) => t.name), taskSupport,
        tasks: client.getServerCapabilities()?.tasks ?? null };
    }
    case "stream": return startStream(a, b, json(c));
    case "stream-wait": {
      const s = streams.get(a);
      if (!s) return { ok: false, error: `no stream ${a}` };
      await Promise.race([s.promise, sleep(Number(b))]);
      if (!s.done)
        return { ok: false, error: `stream ${a} not done within ${b} ms`,
          events: s.events };
      return { ...s.out, taskId: s.taskId, events: s.events };
    }
    case "start": {
      const start = Date.now();
      try {
        const r = await client.request({ method: "tools/call",
          params: { name: a, arguments: json(b), task: { ttl: 60000 } } },
        CreateTaskResultSchema, REQ);
        mine.add(r.task.taskId);
        return { ok: true, taskId: r.task.taskId, task: r.task,
          ms: Date.now() - start, done: Date.now() };
      } catch (err) {
        return errorOf(err, { ms: Date.now() - start });
      }
    }
    case "get":
      try {
        return { ok: true, task: await client.experimental.tasks.getTask(a,
          REQ) };
      } catch (err) {
        return errorOf(err);
      }
    case "result": return taskResult(a);
    case "result-bg": {
      const sent = Date.now();
      background(a, taskResult(b).then((out) =>
        ({ ...out, sent, done: Date.now() })));
      return { ok: true, sent };
    }
    case "result-on": {
      const ended = new Set(["completed", "failed", "cancelled"]);
      const seen = () => statuses.some((s) => s.taskId === b &&
        ((s.statusMessage ?? "").startsWith(c) || ended.has(s.status)));
      background(a, (async () => {
        if (!(await waitUntil(seen, 120000)))
          return { ok: false,
            error: `no status of ${b} said "${c}" within 120 s` };
        const sent = Date.now();
        return { ...(await taskResult(b)), sent, done: Date.now() };
      })());
      return { ok: true };
    }
    case "result-wait": return backgroundWait(a, Number(b));
    case "cancel":
      try {
        return { ok: true, task: await client.experimental.tasks.cancelTask(
          a, REQ) };
      } catch (err) {
        return errorOf(err);
      }
    case "list":
      try {
        const r = await client.experimental.tasks.listTasks(undefined, REQ);
        return { ok: true, ids: r.tasks.map((t) => t.taskId),
          tasks: r.tasks, nextCursor: r.nextCursor ?? null };
      } catch (err) {
        return errorOf(err);
      }
    case "raw":
      try {
        return { ok: true, result: await client.request({ method: a,
          params: json(b) }, ResultSchema.loose(), REQ) };
      } catch (err) {
        return errorOf(err);
      }
    case "raw-until": {
      const start = Date.now();
      let first = null;
      for (let tries = 1; ; tries++) {
        let out;
        try {
          out = { ok: true, result: await client.request({ method: a,
            params: json(c) }, ResultSchema.loose(), REQ) };
        } catch (err) {
          out = errorOf(err);
        }
        first ??= out.ok ? null : out;
        if (out.ok || Date.now() - start > Number(b))
          return { ...out, tries, ms: Date.now() - start, first };
        await sleep(50);
      }
    }
    case "call": return callTool(a, json(b));
    case "call-raw": return callRaw(a, json(b));
    case "call-bg": {
      const ac = new AbortController();
      const sent = Date.now();
      background(a, callTool(b, json(c), ac.signal), { ac });
      return { ok: true, sent };
    }
    case "call-wait": return backgroundWait(a, Number(b));
    case "call-abort": {
      const bg = backgrounds.get(a);
      if (!bg?.ac) return { ok: false, error: `no call ${a}` };
      bg.ac.abort("given up by tasks.sh");
      await Promise.race([bg.promise, sleep(5000)]);
      return { ok: true, done: bg.done };
    }
    case "statuses": return statusSummary(a);
    case "wait-status": {
      const seen = () => statuses.some((s) => s.taskId === a && s.status === b);
      const ok = await waitUntil(seen, Number(c));
      return { ...statusSummary(a), ok };
    }
    case "elicit":
      if (a !== "auto" && a !== "hold")
        return { ok: false, error: "elicit auto|hold" };
      elicitMode = a;
      return { ok: true, mode: a };
    case "elicitations": return elicitSummary();
    case "wait-elicit": {
      const ok = await waitUntil(() => elicits.length > Number(a), Number(b));
      return { ...elicitSummary(), ok };
    }
    case "answer": {
      const e = elicits.find((x) => !x.answered && x.resolve);
      if (!e) return { ok: false, error: "no elicitation is held" };
      e.resolve(a === undefined ? undefined : JSON.parse(a));
      return { ok: true, related: e.related };
    }
    case "tasks": return { ok: true, ids: [...mine] };
    case "samplings": return { ok: true, ...samplings };
    case "now": return { ok: true, at: Date.now() };
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
