// http-scope.mjs -- the official SDK's StreamableHTTPClientTransport
// against mcpd's HTTP front, driven one step at a time by http-scope.sh:
// a client with the roots capability (answering roots/list, which mcpd
// sends over the session's GET stream) that also runs tools as MCP
// 2025-11-25 tasks (client.experimental.tasks).
//
//   node http-scope.mjs --url URL --token TOKEN [--name CLIENT-NAME]
//       [--root URI]... [--trace FILE]
//
// --root gives the roots it answers roots/list with (none if not given);
// --name is the clientInfo.name sent in initialize ("http-scope" by
// default); --trace appends every message it heard to FILE, one line
// each: "+MS S->C JSON".
//
// Reads one command per line on stdin and answers each with one JSON line
// on stdout, {"ok": true, ...} or {"ok": false, ...}; the first line,
// before any command, says whether the client connected ("session" is its
// Mcp-Session-Id).  An error comes as "code" and "message", the message
// as it was on the wire (without the SDK's "MCP error N: " in front).
//   call TOOL [JSON-ARGS]   client.callTool: "text", "uris" (the
//                           "URI: ..." lines of it, for get-roots-list);
//                           ok is false for an error or an isError result
//   until-ok TOOL [JSON-ARGS]  call until a call succeeds (60 s at most)
//   roots [URI...]          replace the roots and send
//                           notifications/roots/list_changed
//   roots-asked             how many roots/list the client answered
//   tools                   "names", "taskSupport" per tool that has one,
//                           the server's "tasks" capability
//   stream LABEL TOOL [JSON-ARGS]
//                           experimental.tasks.callToolStream in the
//                           background; answers once it yielded its first
//                           message: "taskId" of taskCreated, or the error
//   stream-wait LABEL MS    wait (at most MS) for that stream's end:
//                           "events", "text" of its result, "related"
//                           (the related-task id of its _meta)
//   get ID                  experimental.tasks.getTask: "task"
//   result ID               experimental.tasks.getTaskResult: "text",
//                           "related"
//   cancel ID               experimental.tasks.cancelTask: "task"
//   list                    experimental.tasks.listTasks: "ids"
//   close                   DELETE the session, close, and exit
// Every request has a 120 s timeout; stdin ending ends the client too.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
	CallToolResultSchema,
	ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

function usage(msg) {
	process.stderr.write(`http-scope: ${msg}\nusage: node http-scope.mjs ` +
	    "--url URL --token TOKEN [--name NAME] [--root URI]... " +
	    "[--trace FILE]\n");
	process.exit(2);
}

const opts = { name: "http-scope", roots: [] };
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		const want = () => {
			if (i + 1 >= argv.length)
				usage(`${argv[i]} needs a value`);
			return argv[++i];
		};
		switch (argv[i]) {
		case "--url": opts.url = want(); break;
		case "--token": opts.token = want(); break;
		case "--name": opts.name = want(); break;
		case "--root": opts.roots.push(want()); break;
		case "--trace": opts.trace = want(); break;
		default: usage(`unknown argument: ${argv[i]}`);
		}
	}
}
if (!opts.url || !opts.token)
	usage("--url and --token are required");

const T0 = Date.now();
const REQ = { timeout: 120000 };
const RELATED = "io.modelcontextprotocol/related-task";
let roots = opts.roots.map((uri) => ({ uri }));
const streams = new Map();
let rootsAsked = 0;

function trace(dir, msg) {
	if (!opts.trace)
		return;
	try {
		appendFileSync(opts.trace,
		    `+${Date.now() - T0} ${dir} ${JSON.stringify(msg)}\n`);
	} catch {
		// A trace that cannot be written is no reason to stop.
	}
}

const client = new Client({ name: opts.name, version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, () => {
	rootsAsked++;
	return { roots };
});
const transport = new StreamableHTTPClientTransport(new URL(opts.url), {
	requestInit: { headers: { Authorization: `Bearer ${opts.token}` } },
});

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function textOf(result) {
	return (result?.content ?? []).filter((c) => c.type === "text")
	    .map((c) => c.text).join("\n");
}

// The root URIs a get-roots-list text names, in order.
function urisOf(text) {
	return [...text.matchAll(/^\s*URI: (\S+)\s*$/gm)].map((m) => m[1]);
}

function errorOf(err, extra = {}) {
	const raw = String(err?.message ?? err);
	const prefix = `MCP error ${err?.code}: `;
	return { ok: false, code: err?.code,
	    message: raw.startsWith(prefix) ? raw.slice(prefix.length) : raw,
	    ...extra };
}

function resultOut(r) {
	const text = textOf(r);
	return { ok: !r.isError, text, uris: urisOf(text),
	    related: r?._meta?.[RELATED]?.taskId ?? null };
}

async function call(tool, args) {
	try {
		return resultOut(await client.callTool({ name: tool,
		    arguments: args }, undefined, REQ));
	} catch (err) {
		return errorOf(err);
	}
}

async function startStream(label, tool, args) {
	const s = { events: [], done: false, taskId: null };
	streams.set(label, s);
	let first;
	const firstSeen = new Promise((resolve) => { first = resolve; });
	s.promise = (async () => {
		try {
			const gen = client.experimental.tasks.callToolStream(
			    { name: tool, arguments: args },
			    CallToolResultSchema, REQ);
			for await (const m of gen) {
				if (m.type === "taskCreated") {
					s.taskId = m.task.taskId;
					s.events.push(`taskCreated:${m.task.status}`);
				} else if (m.type === "taskStatus") {
					s.events.push(`taskStatus:${m.task.status}`);
				} else if (m.type === "result") {
					s.events.push("result");
					s.out = resultOut(m.result);
				} else if (m.type === "error") {
					s.events.push("error");
					s.out = errorOf(m.error);
				}
				first();
			}
		} catch (err) {
			s.out = errorOf(err);
		}
		s.done = true;
		first();
	})();
	await firstSeen;
	if (s.taskId)
		return { ok: true, taskId: s.taskId, events: s.events };
	return { ...(s.out ?? { ok: false, error: "the stream ended at once" }),
	    events: s.events };
}

async function run(words) {
	const [op, a, b, c] = words;
	const json = (s) => (s === undefined ? {} : JSON.parse(s));
	switch (op) {
	case "call": return call(a, json(b));
	case "until-ok": {
		const start = Date.now();
		for (let tries = 1; ; tries++) {
			const r = await call(a, json(b));
			if (r.ok || Date.now() - start > 60000)
				return { ...r, tries };
			await sleep(50);
		}
	}
	case "roots":
		roots = words.slice(1).map((uri) => ({ uri }));
		await client.sendRootsListChanged();
		return { ok: true, roots: roots.map((r) => r.uri) };
	case "roots-asked": return { ok: true, n: rootsAsked };
	case "tools": {
		const r = await client.listTools({}, REQ);
		const taskSupport = {};
		for (const t of r.tools)
			if (t.execution?.taskSupport)
				taskSupport[t.name] = t.execution.taskSupport;
		return { ok: true, names: r.tools.map((t) => t.name),
		    taskSupport,
		    tasks: client.getServerCapabilities()?.tasks ?? null };
	}
	case "stream": return startStream(a, b, json(c));
	case "stream-wait": {
		const s = streams.get(a);
		if (!s)
			return { ok: false, error: `no stream ${a}` };
		await Promise.race([s.promise, sleep(Number(b))]);
		if (!s.done)
			return { ok: false, error: `stream ${a} not done ` +
			    `within ${b} ms`, events: s.events };
		return { ...s.out, taskId: s.taskId, events: s.events };
	}
	case "get":
		try {
			return { ok: true,
			    task: await client.experimental.tasks.getTask(a, REQ) };
		} catch (err) {
			return errorOf(err);
		}
	case "result":
		try {
			return resultOut(await client.experimental.tasks
			    .getTaskResult(a, CallToolResultSchema, REQ));
		} catch (err) {
			return errorOf(err);
		}
	case "cancel":
		try {
			return { ok: true, task: await client.experimental.tasks
			    .cancelTask(a, REQ) };
		} catch (err) {
			return errorOf(err);
		}
	case "list":
		try {
			const r = await client.experimental.tasks.listTasks(
			    undefined, REQ);
			return { ok: true, ids: r.tasks.map((t) => t.taskId) };
		} catch (err) {
			return errorOf(err);
		}
	case "close":
		await Promise.race([transport.terminateSession()
		    .catch(() => {}), sleep(3000)]);
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
// Everything heard from here on, replies and the GET stream alike.
{
	const heard = transport.onmessage;
	transport.onmessage = (m, extra) => {
		trace("S->C", m);
		heard?.(m, extra);
	};
}
process.stdout.write(JSON.stringify({ ok: true, ready: true,
    session: transport.sessionId ?? null }) + "\n");

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
	if (line.trim() === "")
		continue;
	// Words, except that a JSON argument (from "{") is one word.
	const brace = line.indexOf("{");
	const head = (brace >= 0 ? line.slice(0, brace) : line).trim()
	    .split(/\s+/);
	if (brace >= 0)
		head.push(line.slice(brace));
	let out;
	try {
		out = await run(head);
	} catch (err) {
		out = { ok: false, error: `${err.name}: ${err.message}`,
		    code: err.code };
	}
	process.stdout.write(JSON.stringify(out) + "\n");
	if (out.exit)
		process.exit(0);
}
await Promise.race([client.close(), sleep(3000)]);
process.exit(0);
