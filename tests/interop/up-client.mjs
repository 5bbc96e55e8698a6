// up-client.mjs -- one client of the official TypeScript SDK against a
// server of MCP 2026-07-28 alone (dual-server.mjs --strict), directly or
// through `mcpctl connect`, for modern-up.sh: every target of one client
// configuration in one process.
//
//   node up-client.mjs --sdk PACKAGE [--level LEVEL] [--socket PATH]
//       [--trace FILE] [--caps none] [--until FILE] TARGET...
//
// PACKAGE is a 1.x release of the SDK (@modelcontextprotocol/sdk, or an
// npm alias of one such as sdk-1-17), which opens with `initialize`, or
// "v2", the 2.x client (@modelcontextprotocol/client) pinned to
// 2026-07-28.  A TARGET is mcpd:SERVER[:PREFIX] (`$MCPCTL -s PATH connect
// SERVER`, MCPCTL in the environment; PREFIX before the tool and prompt
// names, a group's "strict__") or direct:SCRIPT (`node SCRIPT --strict`).
// They are run one after the other, each on a connection of its own.
// --level is the log level a 1.x client asks for (logging/setLevel) before
// its other requests.  --trace appends every message to FILE,
// "+MS TARGET C->S JSON" or "+MS TARGET S->C JSON".
//
// The client declares elicitation and sampling and answers them ("Ada",
// MODEL_TEXT), counting them; with --caps none it declares neither (and
// answers nothing).  With --until FILE it is a bystander: on each target
// it calls progress {steps: 20} again and again (a request of its in
// flight nearly all the time) until FILE exists, and records what the
// server asked of it (cells "watch").  The cells of a target, each
// {ok, ms, ...what it saw} or {ok: false, error, code}:
//   connect    the connection: the protocol version on the wire (1.x: the
//              initialize's answer; v2: the negotiated one) and the era
//   discover   v2: server/discover's supportedVersions has 2026-07-28
//   loglevel   1.x with --level: logging/setLevel LEVEL is answered
//   ping       1.x: ping is answered
//   list       tools/list has PREFIXecho (the names are recorded)
//   call       echo {message: "hello up LABEL"}, LABEL the package (and
//              "nocaps" with --caps none) and
//              target: the text has it (modern-up.sh finds that request
//              on the server's side by it)
//   progress   progress {steps: 3} with a progress token: at least one
//              notifications/progress reached onprogress, no error
//   prompt     prompts/list has PREFIXhello, prompts/get of it says "hello"
//   read       resources/list has test://r, which reads "r"; test://missing
//              fails with -32002 (1.x) or -32602 (v2)
//   ask        the tool ask (an elicitation, input_required at the
//              server): what came back, judged by the shell:
//              {outcome: "answer", text} or {outcome: "error", code,
//              message} (a JSON-RPC error or an isError result), and the
//              forms and samplings the client was asked (elicited,
//              sampled)
//   ask2       the tool ask2 (an elicitation, then a sampling): the same
//   subscribe  1.x, no PREFIX: resources/subscribe test://r, then the
//              tools touch (resources/updated) and flip (tools
//              list_changed), which a server of 2026-07-28 sends only on a
//              subscriptions/listen stream: both reach the 2025 client
//              within WAIT_MS (mcpd holds the stream for it); then flip
//              back and unsubscribe
// Each target also records the log notifications it was sent ("logs")
// and the requests of the server ("requests").  Prints one JSON object
// {sdk, sdkVersion, targets: {TARGET: {connected, version, era, error,
// errorCode, steps, skipped, errors, logs, requests}}}; exit 0 once
// printed (the shell judges), 2 on a usage error.

import { appendFileSync, existsSync, readFileSync } from "node:fs";

const MODEL_TEXT = "Hello from the model";
const REQ = { timeout: 20000 };
const URI = "test://r";
const WAIT_MS = 20000;	// a notification that must come
const MISSING = "test://missing";

const opts = { targets: [] };
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const want = () => {
      if (i + 1 >= argv.length) usage(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case "--sdk": opts.sdk = want(); break;
      case "--level": opts.level = want(); break;
      case "--socket": opts.socket = want(); break;
      case "--trace": opts.trace = want(); break;
      case "--caps": opts.caps = want(); break;
      case "--until": opts.until = want(); break;
      default:
        if (!/^(mcpd:[^:]+(:.*)?|direct:.+)$/.test(argv[i]))
          usage(`not a target: ${argv[i]}`);
        opts.targets.push(argv[i]);
    }
  }
}
if (!opts.sdk || opts.targets.length === 0) usage("give --sdk and a target");
if (opts.targets.some((t) => t.startsWith("mcpd:")) &&
  (!opts.socket || !process.env.MCPCTL))
  usage("an mcpd: target needs --socket and MCPCTL");

function usage(why) {
  process.stderr.write(`up-client: ${why}\nusage: node up-client.mjs ` +
    "--sdk PACKAGE|v2 [--level LEVEL] [--socket PATH] [--trace FILE] " +
    "[--caps none] [--until FILE] TARGET...\n");
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
const out = { sdk: opts.sdk, sdkVersion, targets: {} };

function textOf(result) {
  const c = result?.content ?? result?.messages?.map((m) => m.content) ?? [];
  return c.filter((x) => x?.type === "text").map((x) => x.text).join("\n");
}

// The SDK's stdio transport itself (v2's class decides where its probe
// runs), its instance's send and onmessage traced into WIRE.
function transport(target, wire) {
  const [kind, rest] = [target.slice(0, target.indexOf(":")),
    target.slice(target.indexOf(":") + 1)];
  const params = kind === "direct"
    ? { command: process.execPath, args: [rest, "--strict"] }
    : { command: process.env.MCPCTL,
      args: ["-s", opts.socket, "connect", rest.split(":")[0]] };
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
  const name = `up-${opts.sdk}${opts.caps === "none" ? "-nocaps" : ""}`;
  const capabilities = opts.caps === "none" ? {} :
    { elicitation: {}, sampling: {} };
  const client = v2
    ? new sdk.Client({ name, version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities })
    : new sdk.Client({ name, version: "1.0.0" }, { capabilities });
  const schema = (m, s) => (v2 ? m : sdk.types[s]);
  if (opts.caps !== "none") {
    client.setRequestHandler(schema("elicitation/create",
      "ElicitRequestSchema"), async () => {
      res.asked.elicit++;
      return { action: "accept", content: { name: "Ada" } };
    });
    client.setRequestHandler(schema("sampling/createMessage",
      "CreateMessageRequestSchema"), async () => {
      res.asked.sampling++;
      return { role: "assistant", content: { type: "text", text: MODEL_TEXT },
        model: "up-client", stopReason: "endTurn" };
    });
  }
  client.setNotificationHandler(schema("notifications/message",
    "LoggingMessageNotificationSchema"), () => { res.logs++; });
  res.heard = [];
  for (const [m, s] of [["notifications/resources/updated",
    "ResourceUpdatedNotificationSchema"], ["notifications/tools/list_changed",
    "ToolListChangedNotificationSchema"]]) {
    client.setNotificationHandler(schema(m, s), (n) => {
      res.heard.push({ method: m, uri: n?.params?.uri ?? null });
      res.onHeard?.();
    });
  }
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

async function runTarget(target) {
  const prefix = target.startsWith("mcpd:") ? target.split(":")[2] ?? "" : "";
  const label = `${opts.sdk}${opts.caps === "none" ? " nocaps" : ""} ${target}`;
  const res = { connected: false, version: null, era: null, steps: {},
    skipped: {}, errors: [], logs: 0, requests: [],
    asked: { elicit: 0, sampling: 0 } };
  out.targets[target] = res;
  const wire = [];
  const client = newClient(res);
  const t = Date.now();
  try {
    await client.connect(transport(target, wire), REQ);
  } catch (e) {
    res.error = String(e?.message ?? e);
    res.errorCode = e?.code ?? null;
    res.steps.connect = { ok: false, error: res.error, code: res.errorCode,
      ms: Date.now() - t };
    await client.close().catch(() => {});
    return;
  }
  res.connected = true;
  if (v2) {
    res.era = client.getProtocolEra() ?? null;
    res.version = client.getNegotiatedProtocolVersion() ?? null;
  } else {
    const init = wire.find((w) => w.dir === "C->S" && w.msg.method === "initialize");
    const answer = wire.find((w) => w.dir === "S->C" && init &&
      w.msg.id === init.msg.id && w.msg.method === undefined);
    res.era = "legacy";
    res.version = answer?.msg?.result?.protocolVersion ?? null;
  }
  res.steps.connect = { ok: true, version: res.version, era: res.era,
    ms: Date.now() - t };
  const modern = res.era === "modern";
  const name = (n) => `${prefix}${n}`;
  const call = (n, args, extra = {}) => v2
    ? client.callTool({ name: name(n), arguments: args }, { ...REQ, ...extra })
    : client.callTool({ name: name(n), arguments: args }, undefined,
      { ...REQ, ...extra });

  if (v2) {
    await step(res, "discover", async () => {
      const d = client.getDiscoverResult();
      const seen = { supportedVersions: d?.supportedVersions ?? null,
        serverInfo: d?._meta?.[sdk.SERVER_INFO_META_KEY] ?? null };
      if (!seen.supportedVersions?.includes("2026-07-28"))
        return fail("supportedVersions lacks 2026-07-28", seen);
      return seen;
    });
  } else {
    if (opts.level) {
      await step(res, "loglevel", async () => {
        await client.setLoggingLevel(opts.level, REQ);
        return { level: opts.level };
      });
    }
    await step(res, "ping", async () => {
      await client.ping(REQ);
      return {};
    });
  }

  await step(res, "list", async () => {
    const names = (await client.listTools(undefined, REQ)).tools.map((x) => x.name);
    const seen = { n: names.length, names };
    if (!names.includes(name("echo"))) return fail(`no ${name("echo")}`, seen);
    return seen;
  });

  await step(res, "call", async () => {
    const message = `hello up ${label}`;
    const r = await call("echo", { message });
    const text = textOf(r);
    if (r.isError || !text.includes(`Echo: ${message}`))
      return fail("not the echo", { text, isError: r.isError ?? false });
    return { text };
  });

  await step(res, "progress", async () => {
    const seen = [];
    const r = await call("progress", { steps: 3 }, {
      onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true });
    const seenRes = { progress: seen, text: textOf(r), isError: r.isError ?? false };
    if (r.isError) return fail("the tool failed", seenRes);
    if (seen.length === 0) return fail("no progress", seenRes);
    return seenRes;
  });

  await step(res, "prompt", async () => {
    const names = (await client.listPrompts(undefined, REQ)).prompts.map((p) => p.name);
    const seen = { names };
    if (!names.includes(name("hello"))) return fail(`no prompt ${name("hello")}`, seen);
    seen.text = textOf(await client.getPrompt({ name: name("hello") }, REQ));
    if (seen.text !== "hello") return fail("the prompt does not say hello", seen);
    return seen;
  });

  await step(res, "read", async () => {
    const uris = (await client.listResources(undefined, REQ)).resources.map((r) => r.uri);
    const seen = { uris };
    if (!uris.includes(URI)) return fail(`resources/list lacks ${URI}`, seen);
    const r = await client.readResource({ uri: URI },
      v2 ? { ...REQ, cacheMode: "bypass" } : REQ);
    seen.text = r.contents?.[0]?.text ?? null;
    if (seen.text !== "r") return fail(`${URI} did not read "r"`, seen);
    const want = modern ? -32602 : -32002;
    try {
      await client.readResource({ uri: MISSING },
        v2 ? { ...REQ, cacheMode: "bypass" } : REQ);
      return fail(`${MISSING} was read`, seen);
    } catch (e) {
      seen.missing = { code: e?.code ?? null, message: String(e?.message ?? e) };
    }
    if (seen.missing.code !== want)
      return fail(`${MISSING}: error ${seen.missing.code}, not ${want}`, seen);
    return seen;
  });

  if (opts.until) {
    // A bystander: a request in flight until the file is there.
    await step(res, "watch", async () => {
      let calls = 0;
      while (!existsSync(opts.until)) {
        await call("progress", { steps: 20 });
        calls++;
      }
      return { calls, elicited: res.asked.elicit, sampled: res.asked.sampling };
    });
    await client.close().catch(() => {});
    return;
  }

  for (const tool of ["ask", "ask2"]) await step(res, tool, async () => {
    const e0 = res.asked.elicit, s0 = res.asked.sampling;
    const seen = {};
    try {
      const r = await call(tool, {});
      if (r.isError)
        Object.assign(seen, { outcome: "error", code: null, message: textOf(r) });
      else
        Object.assign(seen, { outcome: "answer", text: textOf(r) });
    } catch (e) {
      Object.assign(seen, { outcome: "error", code: e?.code ?? null,
        message: String(e?.message ?? e) });
    }
    seen.elicited = res.asked.elicit - e0;
    seen.sampled = res.asked.sampling - s0;
    return seen;
  });

  if (!v2 && prefix === "") {
    await step(res, "subscribe", async () => {
      const has = (m, uri) => res.heard.some((h) => h.method === m &&
        (uri === undefined || h.uri === uri));
      const heard = (pred) => new Promise((resolve) => {
        if (pred()) return resolve(true);
        const timer = setTimeout(() => { res.onHeard = null; resolve(false); },
          WAIT_MS);
        res.onHeard = () => {
          if (!pred()) return;
          clearTimeout(timer);
          res.onHeard = null;
          resolve(true);
        };
      });
      await client.subscribeResource({ uri: URI }, REQ);
      await call("touch", { uri: URI });
      const updated = await heard(() => has("notifications/resources/updated", URI));
      await call("flip", {});
      const changed = await heard(() => has("notifications/tools/list_changed"));
      await call("flip", {});
      await client.unsubscribeResource({ uri: URI }, REQ);
      const seen = { updated, changed, heard: res.heard.slice(0, 10) };
      if (!updated) return fail(`no notifications/resources/updated for ${URI}`, seen);
      if (!changed) return fail("no notifications/tools/list_changed", seen);
      return seen;
    });
  } else {
    res.skipped.subscribe = v2 ? "the 2026 era" : "a group";
  }

  res.requests = wire.filter((w) => w.dir === "S->C" && w.msg.id !== undefined &&
    w.msg.method !== undefined).map((w) => w.msg.method);
  await client.close().catch(() => {});
}

for (const target of opts.targets)
  await runTarget(target);
out.ms = Date.now() - T0;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
