// matrix-client.mjs -- one client of the official TypeScript SDK against
// the servers of matrix.sh, directly or through `mcpctl connect`: every
// target of one client in one process, one after the other, each on a
// connection of its own.
//
//   node matrix-client.mjs --sdk PACKAGE [--mode legacy|auto|pin]
//       [--socket PATH --locks DIR] [--ev SCRIPT] [--dual SCRIPT]
//       [--trace FILE] TARGET...
//
// PACKAGE is a 1.x release of the SDK (@modelcontextprotocol/sdk or an npm
// alias of one, sdk-1-17, sdk-1-22), which opens with `initialize`, or
// "v2", the 2.x client (@modelcontextprotocol/client) with --mode: legacy
// (the 2025 `initialize` only), auto (server/discover, `initialize` if the
// server does not answer it) or pin (2026-07-28 or nothing).
//
// A TARGET is KIND@direct or KIND@mcpd:SERVER[:PREFIX].  KIND is the
// server behind it: ev (server-everything, node SCRIPT stdio with --ev),
// dual (node SCRIPT with --dual, dual-server.mjs: both eras) or strict
// (node SCRIPT --strict: 2026-07-28 alone).  direct runs that server
// itself; mcpd runs `$MCPCTL -s PATH connect SERVER` (MCPCTL in the
// environment), PREFIX put before the tool names (a group's "dual__").
// --trace appends every message to FILE, "+MS TARGET C->S JSON" or
// "+MS TARGET S->C JSON".
//
// The client declares elicitation (and sampling, v2) and accepts every form
// with {name: "Ada"}, counting them.  The steps of a target, each
// {ok, ms, ...what it saw} or {ok: false, error, code, ...}:
//   connect    the version the client asked for (1.x and legacy: its
//              initialize's), the one it got and the era
//   list       tools/list has PREFIXecho (the names are recorded)
//   call       echo: "Echo: hello matrix LABEL"
//   progress   progress {steps: 3} (dual, strict) or
//              trigger-long-running-operation (ev) with a progress token:
//              at least one notifications/progress reached onprogress
//   elicit     ask (dual, strict) or trigger-elicitation-request (ev): the
//              text has "Name: Ada" and the client's handler was asked
//              once: legacy era by an elicitation/create request of the
//              server, modern era by input_required and the SDK's retry
//              (a tools/call carrying inputResponses, no request from the
//              server)
//   subscribe  the resource (test://r; ev: demo://resource/dynamic/text/1):
//              legacy era resources/subscribe, modern era
//              subscriptions/listen with the resource honored; then
//              touch {uri} (dual, strict) or toggle-subscriber-updates
//              (ev); notifications/resources/updated for it reaches the
//              client's handler within WAIT_MS; then undone
// Through mcpd a server's session is every client's, and a 2025 server's
// elicitation/create goes to the client that sent a request most recently
// (nothing on stdio ties it to its tools/call), and server-everything has
// one switch of its updates for the whole session: so an mcpd target is
// run holding the lock of its server (--locks DIR: the directory
// DIR/lock-KIND, made and removed), that no other client of this test
// talks to that server meanwhile.  Clients given the targets in different
// orders (matrix.sh rotates them) run side by side.
// A step that does not apply to the pair is not run; "na" gives why.  A
// target that did not connect has only connect.  Prints one JSON object
// {sdk, mode, sdkVersion, ms, waited: {TARGET: ms for its lock}, targets:
// {TARGET: {connected, wanted, version, era, error, steps, na, errors,
// forms, updates}}}; exit 0 once printed (the shell
// judges), 2 on a usage error.

import { appendFileSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";

const REQ = { timeout: 20000 };
const WAIT_MS = 10000;		// an update that must come
const LOCK_MS = 120000;		// a server's lock, held by other clients
const LOCK_POLL_MS = 20;
const NAME = "Ada";

const opts = { targets: [], mode: "legacy" };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const want = () => {
      if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case "--sdk": opts.sdk = want(); break;
      case "--mode": opts.mode = want(); break;
      case "--socket": opts.socket = want(); break;
      case "--locks": opts.locks = want(); break;
      case "--ev": opts.ev = want(); break;
      case "--dual": opts.dual = want(); break;
      case "--trace": opts.trace = want(); break;
      default:
        if (!/^(ev|dual|strict)@(direct|mcpd:[^:]+(:.*)?)$/.test(argv[i]))
          usage(`not a target: ${argv[i]}`);
        opts.targets.push(argv[i]);
    }
  }
}
if (!opts.sdk || opts.targets.length === 0) usage("give --sdk and a target");
if (!["legacy", "auto", "pin"].includes(opts.mode))
  usage("--mode is legacy, auto or pin");
if (opts.sdk !== "v2" && opts.mode !== "legacy")
  usage("a 1.x SDK has no --mode but legacy");
if (opts.targets.some((t) => t.includes("@mcpd:")) &&
  (!opts.socket || !opts.locks || !process.env.MCPCTL))
  usage("an mcpd target needs --socket, --locks and MCPCTL");
if (opts.targets.some((t) => t.startsWith("ev@direct")) && !opts.ev)
  usage("ev@direct needs --ev");
if (opts.targets.some((t) => /^(dual|strict)@direct/.test(t)) && !opts.dual)
  usage("dual@direct and strict@direct need --dual");

function usage(why) {
  process.stderr.write(`matrix-client: ${why}\nusage: node matrix-client.mjs ` +
    "--sdk PACKAGE|v2 [--mode legacy|auto|pin] [--socket PATH --locks DIR] " +
    "[--ev SCRIPT] [--dual SCRIPT] [--trace FILE] TARGET...\n");
  process.exit(2);
}

const v2 = opts.sdk === "v2";
const pkg = v2 ? "@modelcontextprotocol/client" : opts.sdk;
const sdk = v2
  ? { ...(await import("@modelcontextprotocol/client")),
    ...(await import("@modelcontextprotocol/client/stdio")) }
  : { ...(await import(`${pkg}/client/index.js`)),
    ...(await import(`${pkg}/client/stdio.js`)),
    types: await import(`${pkg}/types.js`) };
let sdkVersion = null;
try {
  sdkVersion = JSON.parse(readFileSync(new URL(
    `./node_modules/${pkg}/package.json`, import.meta.url))).version;
} catch {
  // Only for the record.
}

const T0 = Date.now();
const out = { sdk: opts.sdk, mode: opts.mode, sdkVersion, targets: {},
  waited: {} };

function textOf(result) {
  return (result?.content ?? []).filter((x) => x?.type === "text")
    .map((x) => x.text).join("\n");
}

// TARGET as {kind, direct, server, prefix}.
function parse(target) {
  const [kind, where] = target.split("@");
  if (where === "direct") return { kind, direct: true, prefix: "" };
  const [, server, prefix = ""] = where.split(":");
  return { kind, direct: false, server, prefix };
}

// The SDK's stdio transport itself (v2's class decides where its probe
// runs), its instance's send and onmessage traced into WIRE.
function transport(target, tg, wire) {
  const params = !tg.direct
    ? { command: process.env.MCPCTL,
      args: ["-s", opts.socket, "connect", tg.server] }
    : tg.kind === "ev"
      ? { command: process.execPath, args: [opts.ev, "stdio"] }
      : { command: process.execPath,
        args: [opts.dual, ...(tg.kind === "strict" ? ["--strict"] : [])] };
  const t = new sdk.StdioClientTransport({ ...params,
    env: { ...process.env }, stderr: "inherit" });
  const note = (dir, msg) => {
    wire.push({ dir, msg });
    if (!opts.trace) return;
    try {
      appendFileSync(opts.trace,
        `+${Date.now() - T0} ${target} ${dir} ${JSON.stringify(msg)}\n`);
    } catch {
      // A trace that cannot be written is no reason to stop.
    }
  };
  const send = t.send.bind(t);
  t.send = (m, o) => {
    note("C->S", m);
    return send(m, o);
  };
  let handler;
  Object.defineProperty(t, "onmessage", {
    configurable: true,
    get: () => handler && ((m, extra) => {
      note("S->C", m);
      return handler(m, extra);
    }),
    set: (h) => { handler = h; },
  });
  return t;
}

function newClient(res) {
  const info = { name: `matrix-${opts.sdk}-${opts.mode}`, version: "1.0.0" };
  const client = v2
    ? new sdk.Client(info, {
      versionNegotiation: { mode: opts.mode === "pin" ? { pin: "2026-07-28" }
        : opts.mode },
      capabilities: { elicitation: {}, sampling: {} } })
    : new sdk.Client(info, { capabilities: { elicitation: {} } });
  const schema = (m, s) => (v2 ? m : sdk.types[s]);
  client.setRequestHandler(schema("elicitation/create", "ElicitRequestSchema"),
    async () => {
      res.forms++;
      return { action: "accept", content: { name: NAME } };
    });
  client.setNotificationHandler(schema("notifications/resources/updated",
    "ResourceUpdatedNotificationSchema"), (n) => {
    res.updates.push({ uri: n?.params?.uri ?? null, at: Date.now() });
    res.onUpdate?.();
  });
  client.onerror = (e) => {
    if (res.errors.length < 20) res.errors.push(String(e?.message ?? e));
  };
  return client;
}

async function step(res, name, fn) {
  const t = Date.now();
  try {
    const r = await fn();
    res.steps[name] = { ok: true, ...r, ms: Date.now() - t };
  } catch (e) {
    res.steps[name] = { ok: false, error: String(e?.message ?? e),
      code: e?.code ?? null, ms: Date.now() - t };
  }
}

const fail = (why, more = {}) => ({ ok: false, error: why, ...more });

// The first request of the session with METHOD, and its answer.
function exchange(wire, method) {
  const i = wire.findIndex((w) => w.dir === "C->S" && w.msg.method === method);
  if (i < 0) return null;
  const answer = wire.slice(i + 1).find((w) => w.dir === "S->C" &&
    w.msg.id === wire[i].msg.id && w.msg.method === undefined);
  return { req: wire[i].msg, res: answer?.msg ?? null };
}

// What applies to the pair on the versions they spoke, or why not.
function notApplicable(res, what) {
  if (what === "elicit" && res.era === "legacy" && res.version !== null &&
    res.version < "2025-06-18")
    return `${res.version} has no elicitation (2025-06-18 brought it)`;
  return null;
}

function waitUpdate(res, uri, from, ms) {
  const look = () => res.updates.slice(from).find((u) => u.uri === uri);
  return new Promise((resolve) => {
    if (look()) return resolve(look());
    const timer = setTimeout(() => { res.onUpdate = null; resolve(null); }, ms);
    res.onUpdate = () => {
      if (!look()) return;
      clearTimeout(timer);
      res.onUpdate = null;
      resolve(look());
    };
  });
}

// The lock of server KIND through mcpd (an atomic mkdir), waited for
// while another client holds it; its release, or null if never got.
async function lock(kind) {
  const dir = `${opts.locks}/lock-${kind}`;
  const deadline = Date.now() + LOCK_MS;
  for (;;) {
    try {
      mkdirSync(dir);
      return () => rmdirSync(dir);
    } catch (e) {
      if (e?.code !== "EEXIST") throw e;
    }
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

async function runTarget(target) {
  const tg = parse(target);
  let release = () => {};
  if (!tg.direct) {
    const t = Date.now();
    release = await lock(tg.kind);
    if (release === null) {
      out.targets[target] = { connected: false, steps: { connect: { ok: false,
        error: `the lock of ${tg.kind} not got within ${LOCK_MS} ms` } },
        na: {}, errors: [] };
      return;
    }
    out.waited[target] = Date.now() - t;
  }
  try {
    await runLocked(target, tg);
  } finally {
    release();
  }
}

async function runLocked(target, tg) {
  const label = `${opts.sdk}/${opts.mode} ${target}`;
  const res = { connected: false, wanted: null, version: null, era: null,
    steps: {}, na: {}, errors: [], forms: 0, updates: [] };
  out.targets[target] = res;
  const wire = [];
  const client = newClient(res);
  let t = Date.now();
  try {
    await client.connect(transport(target, tg, wire), REQ);
  } catch (e) {
    res.error = String(e?.message ?? e);
    res.steps.connect = { ok: false, error: res.error, code: e?.code ?? null,
      ms: Date.now() - t };
    await client.close().catch(() => {});
    return;
  }
  res.connected = true;
  const init = exchange(wire, "initialize");
  if (v2) {
    res.era = client.getProtocolEra() ?? null;
    res.version = client.getNegotiatedProtocolVersion() ?? null;
  } else {
    res.era = "legacy";
    res.version = init?.res?.result?.protocolVersion ?? null;
  }
  res.wanted = res.era === "legacy" ? init?.req?.params?.protocolVersion ?? null
    : "2026-07-28";
  res.steps.connect = { ok: true, wanted: res.wanted, version: res.version,
    era: res.era, ms: Date.now() - t };
  const modern = res.era === "modern";
  const name = (n) => `${tg.prefix}${n}`;
  const call = (n, args, extra = {}) => v2
    ? client.callTool({ name: name(n), arguments: args }, { ...REQ, ...extra })
    : client.callTool({ name: name(n), arguments: args }, undefined,
      { ...REQ, ...extra });
  const ev = tg.kind === "ev";
  let names = [];

  await step(res, "list", async () => {
    names = (await client.listTools(undefined, REQ)).tools.map((x) => x.name);
    const seen = { n: names.length, names };
    if (!names.includes(name("echo"))) return fail(`no ${name("echo")}`, seen);
    return seen;
  });

  await step(res, "call", async () => {
    const message = `hello matrix ${label}`;
    const r = await call("echo", { message });
    const text = textOf(r);
    if (r.isError || !text.includes(`Echo: ${message}`))
      return fail("not the echo", { text, isError: r.isError ?? false });
    return { text };
  });

  await step(res, "progress", async () => {
    const seen = [];
    const [tool, args] = ev
      ? ["trigger-long-running-operation", { duration: 0.3, steps: 3 }]
      : ["progress", { steps: 3 }];
    const r = await call(tool, args, {
      onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true });
    const got = { tool, progress: seen, isError: r.isError ?? false };
    if (r.isError) return fail(`${tool} failed: ${textOf(r)}`, got);
    if (seen.length === 0) return fail("no progress", got);
    return got;
  });

  const na = notApplicable(res, "elicit");
  if (na) {
    res.na.elicit = na;
  } else {
    await step(res, "elicit", async () => {
      const tool = ev ? "trigger-elicitation-request" : "ask";
      const from = wire.length;
      const a0 = res.forms;
      const got = { tool };
      try {
        const r = await call(tool, {});
        Object.assign(got, { text: textOf(r).slice(0, 400),
          isError: r.isError ?? false });
      } catch (e) {
        Object.assign(got, { threw: String(e?.message ?? e),
          code: e?.code ?? null });
      }
      got.asked = res.forms - a0;
      const later = wire.slice(from);
      got.requests = later.filter((w) => w.dir === "S->C" &&
        w.msg.id !== undefined && w.msg.method !== undefined)
        .map((w) => w.msg.method);
      got.retries = later.filter((w) => w.dir === "C->S" &&
        w.msg.method === "tools/call" &&
        w.msg.params?.inputResponses !== undefined).length;
      if (got.threw !== undefined)
        return fail(`${tool}: ${got.threw}`, got);
      if (got.isError) return fail(`${tool} failed: ${got.text}`, got);
      if (!got.text.includes(`Name: ${NAME}`))
        return fail(`${tool}: the text has no "Name: ${NAME}"`, got);
      if (got.asked !== 1)
        return fail(`the client's handler was asked ${got.asked} times`, got);
      if (modern && (got.retries < 1 || got.requests.length !== 0))
        return fail("modern era: not by input_required and the retry", got);
      if (!modern && (got.requests.length !== 1 ||
        got.requests[0] !== "elicitation/create"))
        return fail("legacy era: not by one elicitation/create", got);
      return got;
    });
  }

  await step(res, "subscribe", async () => {
    const uri = ev ? "demo://resource/dynamic/text/1" : "test://r";
    const from = res.updates.length;
    const got = { uri, how: modern ? "subscriptions/listen" : "resources/subscribe" };
    t = Date.now();
    let sub = null;
    if (modern) {
      sub = await client.listen({ resourceSubscriptions: [uri] }, REQ);
      got.honored = sub.honoredFilter;
      if (!(sub.honoredFilter?.resourceSubscriptions ?? []).includes(uri)) {
        await sub.close().catch(() => {});
        return fail(`the listen filter was not honored for ${uri}`, got);
      }
    } else {
      await client.subscribeResource({ uri }, REQ);
    }
    // What makes it change.
    if (!ev) {
      got.touch = textOf(await call("touch", { uri }));
    } else {
      got.toggled = textOf(await call("toggle-subscriber-updates", {}));
      if (got.toggled.startsWith("Stopped"))
        got.toggled = textOf(await call("toggle-subscriber-updates", {}));
    }
    const upd = await waitUpdate(res, uri, from, WAIT_MS);
    got.updateMs = upd ? upd.at - t : null;
    if (ev)
      got.off = textOf(await call("toggle-subscriber-updates", {}));
    if (sub) await sub.close();
    else await client.unsubscribeResource({ uri }, REQ);
    if (!upd) {
      return fail(`no notifications/resources/updated for ${uri} within ` +
        `${WAIT_MS} ms`, got);
    }
    return got;
  });

  res.updates = res.updates.length;
  await client.close().catch(() => {});
}

for (const target of opts.targets)
  await runTarget(target);
out.ms = Date.now() - T0;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
