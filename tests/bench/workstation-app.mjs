// workstation-app.mjs -- one application of workstation.sh: the official
// TypeScript SDK client configured with several MCP servers, each over
// StdioClientTransport, as a desktop app or an editor starts them.  The
// command of a server is either the server itself (the app's own copy) or
// `mcpctl connect NAME` (mcpd's).
//
//   node workstation-app.mjs --out FILE --config FILE [--again]
//
// The configuration is a JSON object {"servers": [{"name", "command",
// "args", "env", "tool", "arguments"}, ...]}.  The app connects to every
// server at once and, for each, initializes, lists its tools (an app shows
// them to its model) and calls the tool named; the call must succeed.
// Then it writes one JSON object to FILE (written whole: a reader never
// sees half of it):
//   pid               the app's pid
//   load_ms           from the process's start to the first connect (Node
//                     and the SDK loading, the same whatever the servers)
//   connected_ms      per server, from the first connect until its
//                     initialize is answered
//   listed_ms         until its tools are listed
//   first_call_ms     until its first successful tool call
//   ready_ms          the largest of them: the app has every server
//   since_start_ms    ready_ms plus load_ms
// With --again the app then closes every session and opens each anew, as
// a running app does when a server is turned off and on or its session is
// restarted (Node and the SDK are warm by then), and adds
//   again_connected_ms, again_first_call_ms   as above, from that start
// and holds its sessions until SIGTERM or SIGINT, then closes them and
// exits 0.  On any failure it writes {"error": TEXT} and exits 1.

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from
    "@modelcontextprotocol/sdk/client/stdio.js";

function usage(msg) {
	process.stderr.write(`workstation-app.mjs: ${msg}\n` +
	    "usage: node workstation-app.mjs --out FILE --config FILE " +
	    "[--again]\n");
	process.exit(2);
}

let outFile = null;
let configFile = null;
let again = false;
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--again") {
			again = true;
			continue;
		}
		if (i + 1 >= argv.length)
			usage(`${argv[i]} needs a value`);
		switch (argv[i]) {
		case "--out": outFile = argv[++i]; break;
		case "--config": configFile = argv[++i]; break;
		default: usage(`unknown argument: ${argv[i]}`);
		}
	}
}
if (outFile === null || configFile === null)
	usage("--out and --config are required");

function report(obj) {
	const tmp = `${outFile}.tmp`;
	writeFileSync(tmp, JSON.stringify(obj) + "\n");
	renameSync(tmp, outFile);
}

const clients = [];

async function closeAll() {
	await Promise.allSettled(clients.map((c) => c.close()));
}

async function firstCall(server, t0) {
	const transport = new StdioClientTransport({ command: server.command,
	    args: server.args ?? [],
	    env: { ...getDefaultEnvironment(), ...(server.env ?? {}) },
	    stderr: "ignore" });
	const client = new Client({ name: "workstation-app", version: "1.0.0" });
	clients.push(client);
	await client.connect(transport);
	const connected = performance.now() - t0;
	const { tools } = await client.listTools();
	const listed = performance.now() - t0;
	if (!tools.some((t) => t.name === server.tool))
		throw new Error(`${server.name}: no tool ${server.tool}`);
	const result = await client.callTool({ name: server.tool,
	    arguments: server.arguments ?? {} });
	if (result.isError)
		throw new Error(`${server.name}: ${server.tool} failed: ` +
		    JSON.stringify(result.content).slice(0, 200));
	return { connected, listed, called: performance.now() - t0 };
}

// Every server at once, each timed from one start.
async function round(config) {
	const t0 = performance.now();
	const times = await Promise.all(config.servers.map((s) =>
	    firstCall(s, t0)));
	return (key) => times.map((x) => +x[key].toFixed(1));
}

async function main() {
	const config = JSON.parse(readFileSync(configFile, "utf8"));
	const t0 = performance.now();
	const ms = await round(config);
	const firsts = ms("called");
	const ready = Math.max(...firsts);
	const out = { pid: process.pid, load_ms: +t0.toFixed(1),
	    connected_ms: ms("connected"), listed_ms: ms("listed"),
	    first_call_ms: firsts,
	    ready_ms: +ready.toFixed(1),
	    since_start_ms: +(ready + t0).toFixed(1) };
	if (again) {
		await closeAll();
		clients.length = 0;
		const ms2 = await round(config);
		out.again_connected_ms = ms2("connected");
		out.again_first_call_ms = ms2("called");
	}
	report(out);
}

let stopping = false;
function stop() {
	if (stopping)
		return;
	stopping = true;
	closeAll().finally(() => process.exit(0));
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

main().catch(async (e) => {
	report({ pid: process.pid, error: String(e?.message ?? e) });
	await closeAll();
	process.exit(1);
});
// Held until a signal: the sessions stay open, as an app's do.
setInterval(() => {}, 1 << 30);
