// peers.mjs -- one system of peers.sh measured with the official
// TypeScript SDK client: what it adds to a tools/call round trip, how many
// calls per second it carries for several clients, whether every reply
// reaches the call that asked for it, and what memory it holds.
//
//   node peers.mjs --label NAME [options] --stdio COMMAND [ARGS...]
//   node peers.mjs --label NAME [options] --http URL    (Streamable HTTP)
//   node peers.mjs --label NAME [options] --sse URL     (HTTP+SSE)
//
// Options (defaults in brackets):
//   --latency-s S     sequential calls, one client, measured for S s [1.5]
//   --seconds S       the throughput run, measured for S s [2]
//   --warmup-ms MS    calls before each measurement, not counted [300]
//   --clients N       clients of the throughput run, each its own
//                     transport and session [8]
//   --inflight K      calls each of them keeps in flight [16]
//   --size B          bytes of each echoed text [200]
//   --timeout-ms MS   a call's limit; a call past it is lost [5000]
//   --rss-pid PID     a process of the system (repeatable): after the
//                     throughput run, the VmRSS of it and its descendants
//                     is summed, except processes named --server-name
//   --server-name N   the server's process name, left out of RSS [fastecho]
//   --stdio-rss       the stdio processes the clients launch (bridges) are
//                     part of the system: their VmRSS is reported apart
//   --header 'N: V'   a header on every HTTP request (repeatable), such
//                     as a bearer token
//
// Every call echoes a text that starts with a token naming the run, the
// client and the call, so a reply carrying another call's text is counted
// as misrouted; a call that fails or passes its limit is lost.  Both are
// counted in every phase, warm-ups included.
//
// Prints one JSON object on stdout; exit 0 when both phases ran (whatever
// they found), 1 when the system could not be reached, 2 on usage errors.

import { readFileSync, readdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

function usage(msg) {
	process.stderr.write(`peers.mjs: ${msg}\n` +
	    "usage: node peers.mjs --label NAME [options] " +
	    "(--stdio COMMAND [ARGS...] | --http URL | --sse URL)\n");
	process.exit(2);
}

const opts = {
	label: null, latencyS: 1.5, seconds: 2, warmupMs: 300, clients: 8,
	inflight: 16, size: 200, timeoutMs: 5000, rssPids: [],
	serverName: "fastecho", stdioRss: false, kind: null, target: null,
	args: [], headers: {},
};
{
	const argv = process.argv.slice(2);
	const num = (i) => {
		const v = Number(argv[i + 1]);
		if (i + 1 >= argv.length || !(v >= 0))
			usage(`${argv[i]} needs a number`);
		return v;
	};
	for (let i = 0; i < argv.length; i++) {
		switch (argv[i]) {
		case "--label":
			if (i + 1 >= argv.length)
				usage("--label needs a value");
			opts.label = argv[++i];
			break;
		case "--latency-s": opts.latencyS = num(i++); break;
		case "--seconds": opts.seconds = num(i++); break;
		case "--warmup-ms": opts.warmupMs = num(i++); break;
		case "--clients": opts.clients = num(i++); break;
		case "--inflight": opts.inflight = num(i++); break;
		case "--size": opts.size = num(i++); break;
		case "--timeout-ms": opts.timeoutMs = num(i++); break;
		case "--rss-pid": opts.rssPids.push(num(i++)); break;
		case "--server-name":
			if (i + 1 >= argv.length)
				usage("--server-name needs a value");
			opts.serverName = argv[++i];
			break;
		case "--stdio-rss": opts.stdioRss = true; break;
		case "--header": {
			const m = /^([^:\s]+):\s*(.*)$/.exec(argv[i + 1] ?? "");
			if (m === null)
				usage("--header needs 'NAME: VALUE'");
			opts.headers[m[1]] = m[2];
			i++;
			break;
		}
		case "--stdio":
			if (i + 1 >= argv.length)
				usage("--stdio needs a command");
			opts.kind = "stdio";
			opts.target = argv[i + 1];
			opts.args = argv.slice(i + 2);
			i = argv.length;
			break;
		case "--http":
		case "--sse":
			if (i + 1 >= argv.length)
				usage(`${argv[i]} needs a URL`);
			opts.kind = argv[i].slice(2);
			opts.target = argv[++i];
			break;
		default:
			usage(`unknown argument: ${argv[i]}`);
		}
	}
}
if (opts.label === null || opts.kind === null)
	usage("--label and a target are required");
if (!(opts.clients >= 1 && opts.inflight >= 1 && opts.size >= 40))
	usage("--clients and --inflight must be 1 or more, --size 40 or more");

const RUN = randomBytes(4).toString("hex");
const out = { label: opts.label, system: opts.label, transport: opts.kind,
    size: opts.size, timeout_ms: opts.timeoutMs, calls: 0, ok: 0, lost: 0,
    misrouted: 0, stray: 0, transport_errors: 0, errors: {} };

// --- clients --------------------------------------------------------------

function transport() {
	switch (opts.kind) {
	case "stdio":
		return new StdioClientTransport({ command: opts.target,
		    args: opts.args, stderr: "ignore" });
	case "http":
		return new StreamableHTTPClientTransport(new URL(opts.target),
		    { requestInit: { headers: opts.headers } });
	default:
		return new SSEClientTransport(new URL(opts.target),
		    { requestInit: { headers: opts.headers } });
	}
}

async function open(n) {
	const t = transport();
	const c = new Client({ name: `peers-${n}`, version: "1.0.0" });
	// A reply nobody waits for (an unknown id: another session's, or a
	// second copy) surfaces here, and so do transport failures.
	c.onerror = (e) => {
		if (/unknown message ID/.test(e?.message))
			out.stray++;
		else
			out.transport_errors++;
		note(e);
	};
	await c.connect(t, { timeout: Math.max(opts.timeoutMs, 10000) });
	return { c, t };
}

async function shut(s) {
	const stop = new Promise((r) => setTimeout(r, 3000).unref());
	const bye = async () => {
		if (s.t.terminateSession)
			await s.t.terminateSession().catch(() => {});
		await s.c.close().catch(() => {});
	};
	await Promise.race([bye(), stop]);
}

// Errors by message, without the message's JSON (a reply's id and text).
function note(e) {
	const m = String(e?.message ?? e).replace(/\s+/g, " ")
	    .replace(/[{[].*$/, "...").slice(0, 80);
	out.errors[m] = (out.errors[m] ?? 0) + 1;
}

// The counts of the phase running, and of the whole run.
let phase = null;
function tally(k) {
	out[k]++;
	phase[k]++;
}

// One echo call; its duration in microseconds, or -1 when it was lost or
// misrouted.
async function call(s, ci, seq) {
	const head = `${RUN}/${ci}/${seq}/`;
	const text = head + "x".repeat(Math.max(0, opts.size - head.length));
	const t0 = process.hrtime.bigint();
	tally("calls");
	let r;
	try {
		r = await s.c.callTool({ name: "echo", arguments: { text } },
		    undefined, { timeout: opts.timeoutMs });
	} catch (e) {
		tally("lost");
		note(e);
		return -1;
	}
	const us = Number(process.hrtime.bigint() - t0) / 1000;
	if (r?.content?.[0]?.text !== text) {
		tally("misrouted");
		return -1;
	}
	tally("ok");
	return us;
}

function pct(v, q) {
	if (v.length === 0)
		return null;
	const i = Math.max(0, Math.ceil(v.length * q) - 1);
	return Math.round(v[i] * 10) / 10;
}

// --- memory ---------------------------------------------------------------

function status(pid) {
	try {
		const s = readFileSync(`/proc/${pid}/status`, "utf8");
		const name = /^Name:\s*(.*)$/m.exec(s)?.[1] ?? "";
		const rss = Number(/^VmRSS:\s*(\d+)/m.exec(s)?.[1] ?? 0);
		return { name, rss };
	} catch {
		return null;
	}
}

// VmRSS (kB) of ROOTS and their descendants, without the server's
// processes: the sum, how many processes, and the sum by process name.
function rssTree(roots) {
	const kids = new Map();
	for (const d of readdirSync("/proc")) {
		if (!/^\d+$/.test(d))
			continue;
		let st;
		try {
			st = readFileSync(`/proc/${d}/stat`, "utf8");
		} catch {
			continue;
		}
		const ppid = Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]);
		if (!kids.has(ppid))
			kids.set(ppid, []);
		kids.get(ppid).push(Number(d));
	}
	let kb = 0, procs = 0;
	const names = {};
	const seen = new Set();
	const todo = [...roots];
	while (todo.length > 0) {
		const p = todo.pop();
		if (seen.has(p))
			continue;
		seen.add(p);
		const s = status(p);
		if (s === null)
			continue;
		if (s.name !== opts.serverName) {
			kb += s.rss;
			procs++;
			names[s.name] = (names[s.name] ?? 0) + s.rss;
		}
		todo.push(...(kids.get(p) ?? []));
	}
	return { kb, procs, names };
}

// --- the two phases -------------------------------------------------------

function counts() {
	return { calls: 0, ok: 0, lost: 0, misrouted: 0 };
}

async function latency() {
	phase = out.latency = counts();
	const s = await open(0);
	const v = [];
	const warm = Date.now() + opts.warmupMs;
	const end = warm + opts.latencyS * 1000;
	let seq = 0, now;
	while ((now = Date.now()) < end) {
		const us = await call(s, 0, seq++);
		if (now >= warm && us >= 0)
			v.push(us);
	}
	await shut(s);
	v.sort((a, b) => a - b);
	Object.assign(out.latency, { measured: v.length, p50_us: pct(v, 0.5),
	    p99_us: pct(v, 0.99) });
}

async function throughput() {
	phase = out.throughput = counts();
	const ss = await Promise.all(Array.from({ length: opts.clients },
	    (_, i) => open(i + 1)));
	const start = Date.now() + opts.warmupMs;
	const end = start + opts.seconds * 1000;
	let counted = 0;
	const lane = async (s, ci, li) => {
		let seq = li;
		while (Date.now() < end) {
			const us = await call(s, ci, seq);
			seq += opts.inflight;
			const t = Date.now();
			if (us >= 0 && t >= start && t < end)
				counted++;
		}
	};
	const lanes = [];
	ss.forEach((s, ci) => {
		for (let li = 0; li < opts.inflight; li++)
			lanes.push(lane(s, ci + 1, li));
	});
	await Promise.all(lanes);
	Object.assign(out.throughput, { clients: opts.clients,
	    inflight: opts.inflight, seconds: opts.seconds, measured: counted,
	    req_per_s: Math.round(counted / opts.seconds) });

	// Memory, with every client still attached.
	if (opts.rssPids.length > 0) {
		const r = rssTree(opts.rssPids);
		out.rss_kb = r.kb;
		out.rss_procs = r.procs;
		out.rss_kb_by_name = r.names;
	}
	if (opts.stdioRss) {
		const b = ss.map((s) => status(s.t.pid)?.rss ?? 0);
		out.clients_rss_kb = b;
	}
	await Promise.all(ss.map(shut));
}

const guard = setTimeout(() => {
	out.error = "did not finish in time";
	process.stdout.write(JSON.stringify(out) + "\n");
	process.exit(1);
}, (opts.latencyS + opts.seconds + 4 * opts.warmupMs / 1000 + 30 +
    2 * opts.timeoutMs / 1000) * 1000);

let rc = 0;
try {
	await latency();
	await throughput();
} catch (e) {
	out.error = String(e?.message ?? e).replace(/\s+/g, " ").slice(0, 200);
	rc = 1;
}
clearTimeout(guard);
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(rc);
