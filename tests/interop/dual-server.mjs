// dual-server.mjs -- an MCP server of both eras, built with the official
// TypeScript SDK 2.x (@modelcontextprotocol/server): over stdio it serves
// a client that opens with `initialize` (2025-11-25 and older, as mcpd
// does) and one of 2026-07-28 (server/discover, the per-request _meta
// envelope) alike, for modern.sh.
//
//   node dual-server.mjs [--strict]
//
// --strict serves 2026-07-28 alone (the SDK's legacy: "reject"): an
// initialize is refused with -32022 naming the versions it supports.
//
// Capabilities: tools {listChanged}, resources {subscribe, listChanged},
// prompts, logging.  Tools:
//   echo {message}  "Echo: MESSAGE"
//   progress {steps}
//                   notifications/progress for the request's progressToken,
//                   STEPS times (3 if not given) 20 ms apart, then "done"
//   ask             an elicitation of {name}, answered "Name: NAME": on a
//                   2025 connection an elicitation/create request to the
//                   client, on a 2026 one an input_required result
//   ask2            two rounds in a row: the elicitation of {name}, then a
//                   sampling/createMessage "Say hi to NAME"; answered
//                   "Name: NAME; model said: TEXT"
//   flip            enables the tool "extra" if it is disabled, disables it
//                   if not: notifications/tools/list_changed
//   touch {uri}     notifications/resources/updated for URI: to a 2025
//                   client that subscribed to it, onto a 2026 client's
//                   subscriptions/listen streams that named it
//   extra           (disabled at first) "extra"
//   slow {ms}       "slept MS" after MS milliseconds (1000 if not given);
//                   a notifications/cancelled ends the wait at once, and
//                   the server's stderr says "slow: cancelled".  The 2.x
//                   SDK has no 2026 tasks extension: a plain tool.
// Resource test://r ("r"); reading any other URI fails with the SDK's
// resource-not-found error.  Prompt "hello".  Diagnostics go to stderr
// only; stdout is the protocol.
//
// --public-ttl MS: the 2026-07-28 results of the four lists and of
// resources/read carry ttlMs MS and cacheScope "public" (the SDK's
// cacheHints; otherwise ttlMs 0, "private").

import { McpServer, acceptedContent, inputRequired, inputResponse } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod/v4";

const NAME_FORM = {
  type: "object",
  properties: { name: { type: "string", description: "Your name" } },
  required: ["name"],
};
const nameSchema = z.object({ name: z.string() });

function log(msg) {
  process.stderr.write(`dual-server[${process.pid}]: ${msg}\n`);
}

const text = (t) => ({ content: [{ type: "text", text: t }] });

function sampledText(result) {
  const c = result?.content;
  const items = Array.isArray(c) ? c : [c];
  return items.filter((x) => x?.type === "text").map((x) => x.text).join("");
}

function sayHi(name) {
  return {
    messages: [{ role: "user", content: { type: "text", text: `Say hi to ${name}` } }],
    maxTokens: 50,
  };
}

// The elicitation of ask and ask2, in the era's own way.  Modern: the
// answer of the previous round, or undefined with the input_required
// result to return.
async function askName(era, ctx) {
  if (era === "legacy") {
    const r = await ctx.mcpReq.elicitInput({ mode: "form", message: "Name?",
      requestedSchema: NAME_FORM });
    if (r.action !== "accept" || typeof r.content?.name !== "string")
      throw new Error(`the elicitation was not accepted (${r.action})`);
    return { name: r.content.name };
  }
  const got = acceptedContent(ctx.mcpReq.inputResponses, "name", nameSchema);
  if (got !== undefined) return { name: got.name };
  return { ask: inputRequired({ inputRequests: {
    name: inputRequired.elicit({ message: "Name?", requestedSchema: NAME_FORM }),
  } }) };
}

function build({ era }) {
  log(`serving a ${era} connection`);
  const server = new McpServer({ name: "dual", version: "1.0.0" }, {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      logging: {},
    },
    instructions: "A test server of both protocol eras.",
    ...cacheOptions(),
  });
  const subscribed = new Set();

  server.registerTool("echo", { description: "Echoes its message",
    inputSchema: z.object({ message: z.string() }) },
  async ({ message }) => text(`Echo: ${message}`));

  server.registerTool("progress", { description: "Reports progress STEPS times",
    inputSchema: z.object({ steps: z.number().int().min(1).max(100).optional() }) },
  async ({ steps = 3 }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) {
      for (let i = 1; i <= steps; i++) {
        await ctx.mcpReq.notify({ method: "notifications/progress",
          params: { progressToken, progress: i, total: steps } });
        // Paced, as work is: a client reading the notifications and the
        // result in one chunk may take the result first (the 2.x SDK
        // hands notifications on a microtask later) and drop the rest.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    return text("done");
  });

  server.registerTool("ask", { description: "Asks the user's name",
    inputSchema: z.object({}) },
  async (_args, ctx) => {
    const got = await askName(era, ctx);
    if (got.ask) return got.ask;
    return text(`Name: ${got.name}`);
  });

  // Modern: round 1 asks the name; round 2 carries it in requestState and
  // asks the model; round 3 has both.
  server.registerTool("ask2", { description: "Asks the user's name, then the model",
    inputSchema: z.object({}) },
  async (_args, ctx) => {
    if (era === "legacy") {
      const { name } = await askName(era, ctx);
      const r = await ctx.mcpReq.requestSampling(sayHi(name));
      return text(`Name: ${name}; model said: ${sampledText(r)}`);
    }
    let state = null;
    const raw = ctx.mcpReq.requestState();
    if (typeof raw === "string") {
      try {
        state = JSON.parse(Buffer.from(raw, "base64url").toString());
      } catch {
        state = null;
      }
    }
    if (typeof state?.name !== "string") {
      const got = await askName(era, ctx);
      if (got.ask) return got.ask;
      state = { name: got.name };
    } else {
      const view = inputResponse(ctx.mcpReq.inputResponses, "hi");
      if (view.kind === "sampling")
        return text(`Name: ${state.name}; model said: ${sampledText(view.result)}`);
    }
    return inputRequired({
      inputRequests: { hi: inputRequired.createMessage(sayHi(state.name)) },
      requestState: Buffer.from(JSON.stringify(state)).toString("base64url"),
    });
  });

  const extra = server.registerTool("extra", { description: "Appears and goes with flip",
    inputSchema: z.object({}) }, async () => text("extra"));
  extra.disable();

  server.registerTool("flip", { description: "Enables or disables the tool extra",
    inputSchema: z.object({}) },
  async () => {
    if (extra.enabled) extra.disable();
    else extra.enable();
    return text(`extra ${extra.enabled ? "enabled" : "disabled"}`);
  });

  server.registerTool("touch", { description: "Sends notifications/resources/updated for URI",
    inputSchema: z.object({ uri: z.string() }) },
  async ({ uri }) => {
    // A 2025 client is sent updates of what it subscribed to only; on a
    // 2026 connection the entry routes it onto the listen streams.
    if (era === "legacy" && !subscribed.has(uri))
      return text(`not subscribed: ${uri}`);
    await server.server.sendResourceUpdated({ uri });
    return text(`updated ${uri}`);
  });

  server.registerResource("r", "test://r", { description: "A resource",
    mimeType: "text/plain" },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "r" }] }));

  server.registerPrompt("hello", { description: "A greeting" },
    async () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));

  server.registerTool("slow", { description: "Answers after MS milliseconds",
    inputSchema: z.object({ ms: z.number().int().min(0).max(600000).optional() }) },
  async ({ ms = 1000 }, ctx) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.mcpReq.signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        log(`slow: cancelled after less than ${ms} ms`);
        resolve();
      });
    });
    return text(`slept ${ms}`);
  });

  if (era === "legacy") {
    server.server.setRequestHandler("resources/subscribe", (req) => {
      subscribed.add(req.params.uri);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", (req) => {
      subscribed.delete(req.params.uri);
      return {};
    });
  }
  return server;
}

// --public-ttl MS: the SDK's cache hints for every cacheable result.
function cacheOptions() {
  const i = process.argv.indexOf("--public-ttl");
  if (i < 0) return {};
  const hint = { ttlMs: Number(process.argv[i + 1]), cacheScope: "public" };
  return { cacheHints: { "tools/list": hint, "prompts/list": hint,
    "resources/list": hint, "resources/templates/list": hint,
    "resources/read": hint } };
}

serveStdio(build, { onerror: (e) => log(`error: ${e?.message ?? e}`),
  ...(process.argv.includes("--strict") ? { legacy: "reject" } : {}) });
