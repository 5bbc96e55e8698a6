// mux-client.mjs -- MCP clients for the mux-*.sh integration tests.
//
// Usage: node mux-client.mjs SUBCOMMAND --sock PATH [--server NAME] [OPTIONS]
//
// Each subcommand plays one scenario against a running mcpd over its
// AF_UNIX socket: it attaches one or more connections to a server, talks
// MCP through them and checks what every connection receives.  Ids and
// progress tokens are compared as raw JSON text, never as parsed values
// (`1.0` must come back as `1.0`, `"1"` as `"1"`).  At the end it prints
// one JSON summary on stdout: counts, timings in ms, samples of what was
// received, and "problems", a list of what was wrong (empty when all was
// as expected).  The shell tests assert on that summary.  Exit status 0
// when the scenario ran to its end (problems or not), 2 on bad usage, 3
// when it could not run at all (cannot connect, attach failed ...).
//
// Only Node's built-in modules are used.

import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { rawMembers } from './rawjson.mjs';

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits for something that should come: generous, they end when it comes.
const CALL_TIMEOUT_MS = 30000;
const POLL_TIMEOUT_MS = 30000;
const range = (n) => Array.from({ length: n }, (_, i) => i);
const round1 = (x) => Math.round(x * 10) / 10;

class Usage extends Error {}
class Abort extends Error {}

// ---------------------------------------------------------------------------
// One connection to mcpd.

class Conn {
	constructor(name) {
		this.name = name;
		this.log = [];			// every message received, in order
		this.pending = new Map();	// raw id text -> {resolve, t0}
		this.unexpected = [];		// responses to no pending request
		this.requests = [];		// requests from the server side
		this.notes = [];		// notifications
		this.listeners = new Set();
		this.chunks = [];
		this.closed = false;
		this.closedAt = null;
		this.errors = [];
		this.bytes = 0;
		this.onRequest = null;
	}

	open(path) {
		return new Promise((resolve, reject) => {
			const s = net.createConnection(path);
			this.sock = s;
			s.setEncoding('utf8');
			let connected = false;
			s.on('connect', () => {
				connected = true;
				resolve(this);
			});
			s.on('data', (d) => this.data(d));
			s.on('error', (e) => {
				this.errors.push(e.code ?? e.message);
				if (!connected)
					reject(new Abort(`${this.name}: cannot connect to ${path}: ${e.message}`));
			});
			s.on('close', () => {
				this.closed = true;
				this.closedAt = now();
				this.notify(null);
			});
		});
	}

	data(d) {
		this.bytes += d.length;
		let nl = d.indexOf('\n');
		if (nl < 0) {
			this.chunks.push(d);
			return;
		}
		let start = 0;
		while (nl >= 0) {
			this.chunks.push(d.slice(start, nl));
			const line = this.chunks.join('');
			this.chunks = [];
			if (line.length > 0)
				this.line(line);
			start = nl + 1;
			nl = d.indexOf('\n', start);
		}
		if (start < d.length)
			this.chunks.push(d.slice(start));
	}

	line(raw) {
		const m = { raw, t: now(), seq: this.log.length };
		m.members = rawMembers(raw);
		try {
			m.msg = JSON.parse(raw);
		} catch {
			m.msg = null;
		}
		m.idText = m.members?.id;
		const hasMethod = m.members !== null && m.members.method !== undefined;
		this.log.push(m);
		if (!hasMethod && m.idText !== undefined) {
			m.kind = 'response';
			const p = this.pending.get(m.idText);
			if (p !== undefined) {
				this.pending.delete(m.idText);
				m.ms = m.t - p.t0;
				p.resolve(m);
			} else
				this.unexpected.push(m);
		} else if (hasMethod && m.idText !== undefined) {
			m.kind = 'request';
			this.requests.push(m);
			if (this.onRequest !== null)
				this.onRequest(m);
		} else if (hasMethod) {
			m.kind = 'notification';
			this.notes.push(m);
		} else
			m.kind = 'other';
		this.notify(m);
	}

	notify(m) {
		for (const l of [...this.listeners])
			l(m);
	}

	write(text) {
		if (!this.closed && !this.sock.destroyed)
			this.sock.write(text);
	}

	send(line) {
		this.write(line + '\n');
	}

	// Send a request and wait for the reply with the same id text.  The
	// reply message, or null if none came within timeoutMs (generous by
	// default: it costs nothing when the reply comes, and a loaded machine
	// or the sanitizer build can take seconds).
	call(idText, method, params, opts = {}) {
		const line = requestLine(idText, method, params, opts.token);
		const p = this.expect(idText, opts.timeoutMs ?? CALL_TIMEOUT_MS);
		this.send(line);
		return p;
	}

	// Wait for the reply to an id already sent (or about to be).
	expect(idText, timeoutMs = CALL_TIMEOUT_MS) {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.pending.delete(idText);
				resolve(null);
			}, timeoutMs);
			this.pending.set(idText, {
				t0: now(),
				resolve: (m) => {
					clearTimeout(timer);
					resolve(m);
				},
			});
		});
	}

	// The first message (from index `from` of the log) that pred accepts,
	// or null after timeoutMs.  pred(null) is asked when the connection
	// closes; return true there to stop waiting.
	waitFor(pred, timeoutMs, from = 0) {
		for (let i = from; i < this.log.length; i++) {
			if (pred(this.log[i]))
				return Promise.resolve(this.log[i]);
		}
		if (this.closed && pred(null))
			return Promise.resolve(null);
		return new Promise((resolve) => {
			const done = (v) => {
				clearTimeout(timer);
				this.listeners.delete(l);
				resolve(v);
			};
			const l = (m) => {
				if (m === null ? pred(null) : pred(m))
					done(m);
			};
			const timer = setTimeout(() => done(null), timeoutMs);
			this.listeners.add(l);
		});
	}

	waitClosed(timeoutMs) {
		if (this.closed)
			return Promise.resolve(true);
		return this.waitFor((m) => m === null, timeoutMs).then(() => this.closed);
	}

	async attach(server, caps = {}) {
		const r = await this.call('"attach"', 'mcpd/attach', { server });
		if (r === null || r.msg?.result === undefined)
			throw new Abort(`${this.name}: mcpd/attach ${server}: ${r === null ? 'no reply' : r.raw.slice(0, 300)}`);
		const i = await this.call('"init"', 'initialize', {
			protocolVersion: '2025-11-25',
			capabilities: caps,
			clientInfo: { name: `mux-${this.name}`, version: '1.0' },
		});
		if (i === null || typeof i.msg?.result?.protocolVersion !== 'string')
			throw new Abort(`${this.name}: initialize: ${i === null ? 'no reply' : i.raw.slice(0, 300)}`);
		this.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
		return this;
	}

	close() {
		this.sock.end();
	}

	destroy() {
		this.sock.destroy();
	}
}

const TOKEN = '@@mux-token@@';

// A request line with the id (and progress token) as given raw text.
function requestLine(idText, method, params, token) {
	let p = '';
	if (params !== undefined) {
		if (token !== undefined) {
			params = { ...params, _meta: { progressToken: TOKEN } };
			p = ',"params":' + JSON.stringify(params).replace(`"${TOKEN}"`, token);
		} else
			p = ',"params":' + JSON.stringify(params);
	}
	return `{"jsonrpc":"2.0","id":${idText},"method":${JSON.stringify(method)}${p}}`;
}

function toolLine(idText, name, args, token) {
	return requestLine(idText, 'tools/call', { name, arguments: args }, token);
}

function tool(conn, idText, name, args, opts = {}) {
	return conn.call(idText, 'tools/call', { name, arguments: args }, opts);
}

function replyText(m) {
	return m?.msg?.result?.content?.[0]?.text;
}

function errorOf(m) {
	return m?.msg?.error;
}

function short(m) {
	if (m === null || m === undefined)
		return 'nothing';
	return m.raw.length > 300 ? m.raw.slice(0, 300) + '...' : m.raw;
}

async function connect(o, name, caps = {}, server = o.server) {
	const c = await new Conn(name).open(o.sock);
	await c.attach(server, caps);
	return c;
}

async function status(o) {
	const c = await new Conn('status').open(o.sock);
	const r = await c.call('"status"', 'mcpd/status', undefined);
	c.destroy();
	if (r === null || r.msg?.result === undefined)
		throw new Abort(`mcpd/status: ${short(r)}`);
	return r.msg.result;
}

async function serverStatus(o, name = o.server) {
	const st = await status(o);
	const s = st.servers.find((x) => x.name === name);
	if (s === undefined)
		throw new Abort(`mcpd/status has no server ${name}`);
	return s;
}

// Poll until pred(server status) holds; the status, or null after timeoutMs.
async function pollServer(o, pred, timeoutMs, name = o.server) {
	const deadline = now() + timeoutMs;
	for (;;) {
		const s = await serverStatus(o, name);
		if (pred(s))
			return s;
		if (now() > deadline)
			return null;
		await sleep(20);
	}
}

// Poll until pred() holds (every 20 ms); false after timeoutMs.
async function until(pred, timeoutMs) {
	const deadline = now() + timeoutMs;
	while (!pred()) {
		if (now() > deadline)
			return false;
		await sleep(20);
	}
	return true;
}

// A round trip through the server on each connection: an echo, which
// mcp-fake and mux-server.mjs answer at once, even during a sleep.  The
// server answers in order and mcpd forwards in order, so whatever the
// server sent (or mcpd made of it) for a connection before the echo's
// reply has reached it once the reply is in.  Used instead of "wait a
// while" before checking that nothing more came.
let barriers = 0;
async function barrier(conns, problems) {
	await Promise.all(conns.map(async (c) => {
		const text = `barrier ${++barriers}`;
		const m = await tool(c, `"barrier-${barriers}"`, 'echo', { text });
		if (replyText(m) !== text)
			problems.push(`${c.name}: echo (round trip through the server): ${short(m)}`);
	}));
}

function stats(values) {
	const v = [...values].sort((a, b) => a - b);
	if (v.length === 0)
		return { n: 0, p50: null, p99: null, max: null };
	const q = (f) => round1(v[Math.min(v.length - 1, Math.floor(f * v.length))]);
	return { n: v.length, p50: q(0.5), p99: q(0.99), max: round1(v[v.length - 1]) };
}

// ---------------------------------------------------------------------------
// ids: many clients, identical ids, pipelined echo calls.

const ID_PHASES = {
	integer: (per) => range(per).map((k) => String(k + 1)),
	string: (per) => [...range(Math.ceil(per / 2)).map((k) => JSON.stringify(String(k + 1))),
	    '"a"', '""', '"x y"', '"1.0"', '"\\u0041"', '"-1"'],
	mixed: () => ['1.5', '-1', '-0', '1.0', '1e3', '-2.5E-3', '12345678901234567890',
	    '9007199254740993', '"1"', '2', '"a"', '0.1', '7.0e0'],
};

async function idsRound(o, nclients, problems) {
	const conns = await Promise.all(range(nclients).map((i) => connect(o, `c${i}`)));
	const out = { clients: nclients, sent: 0, replies: 0, lost: 0, duplicated: 0,
	    misrouted: 0, errors: 0, phases: {} };
	for (const [phase, ids] of Object.entries(ID_PHASES)) {
		const idTexts = ids(o.per);
		const t0 = now();
		const waits = conns.map((c, ci) => {
			const lines = [];
			const ps = idTexts.map((idText, k) => {
				const text = `${c.name}/${phase}/${k}`;
				lines.push(toolLine(idText, 'echo', { text }));
				return c.expect(idText, 60000).then((m) => ({ c, ci, idText, text, m }));
			});
			c.write(lines.join('\n') + '\n');	// pipelined: one write
			out.sent += lines.length;
			return Promise.all(ps);
		});
		const results = (await Promise.all(waits)).flat();
		out.phases[phase] = { ids: idTexts.length, ms: Math.round(now() - t0) };
		for (const { c, idText, text, m } of results) {
			if (m === null) {
				out.lost++;
				problems.push(`${nclients} clients, ${phase}: ${c.name} got no reply for id ${idText}`);
				continue;
			}
			out.replies++;
			if (m.msg?.error !== undefined) {
				out.errors++;
				problems.push(`${c.name} id ${idText}: error ${short(m)}`);
			} else if (replyText(m) !== text) {
				out.misrouted++;
				problems.push(`${c.name} id ${idText}: expected echo "${text}", got ${short(m)}`);
			}
		}
	}
	// Anything the server's replies were turned into has arrived after a
	// round trip; more is a duplicate or stray.
	await barrier(conns, problems);
	for (const c of conns) {
		for (const m of c.unexpected) {
			out.duplicated++;
			problems.push(`${c.name}: a reply it did not expect (duplicate, misrouted or id text changed): ${short(m)}`);
		}
		for (const m of c.log) {
			if (m.kind === 'request' || m.kind === 'other')
				problems.push(`${c.name}: unexpected message ${short(m)}`);
		}
		c.destroy();
	}
	return out;
}

async function cmdIds(o) {
	const problems = [];
	const rounds = [];
	for (const n of [2, o.clients])
		rounds.push(await idsRound(o, n, problems));
	return { rounds, problems };
}

// ---------------------------------------------------------------------------
// progress: every client uses the same progress tokens on sleep calls.

// [request id, progress token], the same for every client.
const PROGRESS_CALLS = [['101', '101'], ['"s"', '"p"'], ['102', '"101"']];

async function cmdProgress(o) {
	const problems = [];
	const conns = await Promise.all(range(o.clients).map((i) => connect(o, `p${i}`)));
	const slices = Math.ceil(o.ms / 100);
	const expectValues = range(slices).map((k) => Math.min((k + 1) * 100, o.ms));
	let notes = 0, foreign = 0, late = 0, requests = 0;
	const t0 = now();
	const all = conns.map(async (c) => {
		const lines = [];
		const ps = PROGRESS_CALLS.map(([idText, token]) => {
			lines.push(toolLine(idText, 'sleep', { ms: o.ms }, token));
			return c.expect(idText, 60000).then((m) => ({ idText, token, m }));
		});
		c.write(lines.join('\n') + '\n');
		requests += lines.length;
		const results = await Promise.all(ps);
		// Progress sent (wrongly) after a reply has arrived by now.
		await barrier([c], problems);
		const byToken = new Map(PROGRESS_CALLS.map(([, token]) => [token, []]));
		for (const m of c.notes) {
			if (m.msg?.method !== 'notifications/progress')
				continue;
			notes++;
			const token = rawMembers(m.members.params)?.progressToken;
			const list = byToken.get(token);
			if (list === undefined) {
				foreign++;
				problems.push(`${c.name}: progress with a token it never used: ${short(m)}`);
				continue;
			}
			list.push(m);
		}
		for (const { idText, token, m } of results) {
			if (m === null || replyText(m) !== `slept ${o.ms} ms`) {
				problems.push(`${c.name}: sleep id ${idText}: ${short(m)}`);
				continue;
			}
			const list = byToken.get(token);
			const values = list.map((n) => n.msg.params.progress);
			if (JSON.stringify(values) !== JSON.stringify(expectValues)) {
				problems.push(`${c.name}: token ${token}: progress ${JSON.stringify(values)}, expected ${JSON.stringify(expectValues)} (another client's, lost or duplicated)`);
			}
			for (const n of list) {
				if (n.seq > m.seq) {
					late++;
					problems.push(`${c.name}: token ${token}: progress after the reply: ${short(n)}`);
				}
				const parsed = n.msg.params.progressToken;
				if (typeof parsed !== typeof JSON.parse(token))
					problems.push(`${c.name}: token ${token} came back as ${typeof parsed}`);
			}
		}
		if (c.unexpected.length > 0)
			problems.push(`${c.name}: unexpected replies: ${c.unexpected.map(short).join(' | ')}`);
	});
	await Promise.all(all);
	for (const c of conns)
		c.destroy();
	return {
		clients: o.clients, requests, progress_notes: notes,
		expected_notes: requests * slices, foreign, after_reply: late,
		ms: Math.round(now() - t0), problems,
	};
}

// ---------------------------------------------------------------------------
// crash: requests in flight when the server is killed; backoff; restart.

async function cmdCrash(o) {
	const problems = [];
	const conns = await Promise.all(range(o.clients).map((i) => connect(o, `k${i}`)));
	const before = await serverStatus(o);
	const pid = o.pid ?? before.pid;
	// Every client: o.per sleeps, all in flight (mcp-fake queues them).
	// o.ms is far longer than the test, so none ends before the kill,
	// however long it takes to see them all in flight.
	const waits = [];
	for (const c of conns) {
		const lines = [];
		for (let k = 1; k <= o.per; k++) {
			lines.push(toolLine(String(k), 'sleep', { ms: o.ms }));
			waits.push(c.expect(String(k), 2 * POLL_TIMEOUT_MS + CALL_TIMEOUT_MS).then((m) => ({ c, k, m })));
		}
		c.write(lines.join('\n') + '\n');
	}
	const total = o.clients * o.per;
	if (await pollServer(o, (s) => s.inflight === total, POLL_TIMEOUT_MS) === null)
		throw new Abort(`inflight never reached ${total}: ${JSON.stringify(await serverStatus(o))}`);

	const tKill = now();
	process.kill(pid, 'SIGKILL');
	const results = await Promise.all(waits);
	let last = 0, errors = 0;
	const codes = {};
	const messages = new Set();
	for (const { c, k, m } of results) {
		if (m === null) {
			problems.push(`${c.name}: no answer for sleep id ${k} after the kill`);
			continue;
		}
		last = Math.max(last, m.t - tKill);
		const e = errorOf(m);
		if (e === undefined) {
			problems.push(`${c.name}: id ${k}: not an error: ${short(m)}`);
			continue;
		}
		errors++;
		codes[e.code] = (codes[e.code] ?? 0) + 1;
		messages.add(e.message);
	}

	// While the server waits for its restart: an immediate, explanatory error.
	// (The shell test makes the backoff long enough for this client to see
	// it and ask, however slow the machine.)
	const inBackoff = await pollServer(o, (s) => s.state === 'backoff', POLL_TIMEOUT_MS);
	let backoff = null;
	if (inBackoff === null)
		problems.push('the server never showed state backoff after the kill');
	else {
		const m = await tool(conns[0], '"during-backoff"', 'echo', { text: 'hello?' });
		backoff = { ms: m === null ? null : round1(m.ms), code: errorOf(m)?.code ?? null,
		    message: errorOf(m)?.message ?? short(m) };
	}

	// Back to ready: the same connections work, no new attach or initialize.
	const ready = await pollServer(o, (s) => s.state === 'ready' && s.pid !== pid, 2 * POLL_TIMEOUT_MS);
	const tReady = now() - tKill;
	let after = 0;
	if (ready === null)
		problems.push(`the server did not come back to ready within ${2 * POLL_TIMEOUT_MS / 1000} s`);
	else {
		const res = await Promise.all(conns.map((c) =>
		    tool(c, '"after"', 'echo', { text: `${c.name} is back` })));
		res.forEach((m, i) => {
			if (replyText(m) === `${conns[i].name} is back`)
				after++;
			else
				problems.push(`${conns[i].name}: echo after the restart: ${short(m)}`);
		});
	}
	// A second answer to a killed request would have come before the
	// answers above (mcpd writes to a connection in order): no need to wait.
	for (const c of conns) {
		for (const m of c.unexpected)
			problems.push(`${c.name}: a second answer: ${short(m)}`);
	}
	for (const c of conns)
		c.destroy();
	return {
		killed_pid: pid, new_pid: ready?.pid ?? null, in_flight: total, errors, codes,
		messages: [...messages], kill_to_last_error_ms: round1(last), backoff,
		kill_to_ready_ms: Math.round(tReady), echo_after_restart: after, problems,
	};
}

// ---------------------------------------------------------------------------
// cancel: a client hangs up mid-request; explicit cancel; request timeout.

// The sleeps that get cancelled: far longer than any test, so a sleep 0
// queued behind one (mcp-fake) returns promptly only if the cancel reached
// the server, and otherwise not before its caller gives up.
const LONG_SLEEP_MS = 300000;

// A client hangs up with a sleep in flight; then another client's
// sleep {ms: 0} on the same server, which mcp-fake queues behind a running
// sleep, so it returns at once only if the server got the cancel.
async function cmdCancelDisconnect(o) {
	const problems = [];
	const x = await connect(o, 'x');
	const y = await connect(o, 'y');
	x.send(toolLine('1', 'sleep', { ms: LONG_SLEEP_MS, tag: 'x-hangs-up' }));
	if (await pollServer(o, (s) => s.inflight === 1, POLL_TIMEOUT_MS) === null)
		throw new Abort('the sleep never showed in flight');
	// The server has read the sleep (and started it) once it has answered
	// an echo sent after it.
	await barrier([y], problems);
	const t0 = now();
	x.destroy();
	const m = await tool(y, '1', 'sleep', { ms: 0 }, { timeoutMs: 20000 });
	const queuedMs = m === null ? null : now() - t0;
	if (replyText(m) !== 'slept 0 ms')
		problems.push(`y: sleep 0: ${short(m)}`);
	const idle = await pollServer(o, (s) => s.inflight === 0, POLL_TIMEOUT_MS);
	// mcpd sent the cancel when it let go of the request; after a round
	// trip the server has read it (mux-cancel.sh looks in its log).
	await barrier([y], problems);
	const s = await serverStatus(o);
	y.destroy();
	return { queued_sleep_ms: queuedMs === null ? null : Math.round(queuedMs),
	    inflight_after: s.inflight, inflight_zero: idle !== null,
	    requests: s.stats.requests, problems };
}

// An explicit cancel: no reply for it, everything else answered.  Another
// client has a sleep in flight under the same id text; with mcp-fake it is
// queued behind the cancelled one, so it (and a later sleep {ms: 0}) only
// completes promptly if the server got the cancel for the right request.
async function cmdCancelExplicit(o) {
	const problems = [];
	const z = await connect(o, 'z');
	const other = await connect(o, 'other');
	const cancelId = o.cancelId;
	z.send(toolLine(cancelId, 'sleep', { ms: LONG_SLEEP_MS, tag: 'z-cancels' }));
	if (await pollServer(o, (s) => s.inflight === 1, POLL_TIMEOUT_MS) === null)
		throw new Abort('the sleep never showed in flight');
	const otherSleep = tool(other, cancelId, 'sleep', { ms: 300, tag: 'other-same-id' }, { timeoutMs: 20000 });
	if (await pollServer(o, (s) => s.inflight === 2, POLL_TIMEOUT_MS) === null)
		throw new Abort('the second sleep never showed in flight');
	const e1 = await tool(z, '8', 'echo', { text: 'before the cancel' });
	const t0 = now();
	z.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${cancelId},"reason":"changed my mind"}}`);
	const after = await tool(z, '9', 'sleep', { ms: 0 }, { timeoutMs: 20000 });
	const afterMs = after === null ? null : now() - t0;
	const e2 = await tool(z, '10', 'echo', { text: 'after the cancel' });
	const oe = await otherSleep;
	// A reply to the cancelled id, from the server or from mcpd, would be
	// in before these round trips.
	await barrier([z, other], problems);
	for (const [what, m, want] of [['z echo 8', e1, 'before the cancel'],
	    ['z sleep 0', after, 'slept 0 ms'], ['z echo 10', e2, 'after the cancel'],
	    [`other's sleep with id ${cancelId}`, oe, 'slept 300 ms']]) {
		if (replyText(m) !== want)
			problems.push(`${what}: expected "${want}", got ${short(m)}`);
	}
	const stray = z.log.filter((m) => m.idText === cancelId);
	for (const m of stray)
		problems.push(`z got a message for the cancelled id ${cancelId}: ${short(m)}`);
	const otherMsgs = other.log.filter((m) => m.idText === cancelId).length;
	if (otherMsgs !== 1)
		problems.push(`other got ${otherMsgs} messages for its id ${cancelId}, expected 1`);
	const s = await pollServer(o, (x) => x.inflight === 0, POLL_TIMEOUT_MS) ?? await serverStatus(o);
	z.destroy();
	other.destroy();
	return { sleep_after_cancel_ms: afterMs === null ? null : Math.round(afterMs),
	    other_sleep_ms: oe === null ? null : Math.round(oe.ms),
	    replies_for_cancelled: stray.length, inflight_after: s.inflight,
	    requests: s.stats.requests, problems };
}

// The server id of the request tagged TAG, and whether the stand-in has
// answered it, from the stand-in's log (mux-server.mjs --log).
function stubLogged(file, tag) {
	let id, answered = false;
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		let r;
		try {
			r = JSON.parse(line);
		} catch {
			continue;	// empty, or being written
		}
		if (r.dir === 'in' && r.msg?.params?.arguments?.tag === tag)
			id = JSON.stringify(r.msg.id);
		else if (id !== undefined && r.dir === 'out' && r.msg?.method === undefined &&
		    JSON.stringify(r.msg?.id) === id)
			answered = true;
	}
	return { id, answered };
}

// Request timeout: -32001 at about request_timeout_ms; the server is told
// (with mcp-fake a sleep {ms: 0} queued behind the timed-out one returns
// before its own request_timeout_ms only then); silence for that id even
// when the server answers late.  With --late-log (the stand-in's log, the
// stand-in answering despite the cancel) the client waits until the late
// answer has been sent, then makes a round trip through the server, which
// brings anything mcpd made of that answer.  With mcp-fake (which stops
// the sleep when told, the sleep 0 proves it) there is no late answer to
// wait for: --window-ms is how long to watch for anything more, e.g. a
// second timeout of the same request.
async function cmdTimeout(o) {
	const problems = [];
	const c = await connect(o, 't');
	const args = { ms: o.ms, tag: 'times-out' };
	if (o.ignoreCancel)
		args.ignore_cancel = true;
	const m = await tool(c, '"slow"', 'sleep', args);
	const e = errorOf(m);
	if (e === undefined)
		problems.push(`expected a timeout error, got ${short(m)}`);
	const q = await tool(c, '"queued"', 'sleep', { ms: 0 });
	if (replyText(q) !== 'slept 0 ms')
		problems.push(`sleep 0 after the timeout: ${short(q)}`);
	const from = c.log.length;
	let lateSent = null;
	if (o.lateLog !== '') {
		lateSent = await until(() => stubLogged(o.lateLog, 'times-out').answered,
		    o.ms + POLL_TIMEOUT_MS);
		if (!lateSent)
			problems.push(`the server did not answer the timed-out request within ${o.ms + POLL_TIMEOUT_MS} ms`);
	}
	if (o.windowMs > 0)
		await sleep(o.windowMs);	// a window: see above
	// And the session is fine (also the round trip).
	const echo = await tool(c, '"next"', 'echo', { text: 'still here' });
	if (replyText(echo) !== 'still here')
		problems.push(`echo after the timeout: ${short(echo)}`);
	const stray = c.log.slice(from).filter((x) => x.kind !== 'notification' && x !== echo);
	for (const x of stray)
		problems.push(`after the timeout the client still got: ${short(x)}`);
	if (c.log.filter((x) => x.idText === '"slow"').length !== 1)
		problems.push(`the client got ${c.log.filter((x) => x.idText === '"slow"').length} messages for id "slow", expected 1`);
	const s = await serverStatus(o);
	c.destroy();
	return { error_ms: m === null ? null : Math.round(m.ms), code: e?.code ?? null,
	    message: e?.message ?? null, queued_sleep_ms: q === null ? null : Math.round(q.ms),
	    stray: stray.length, late_answer_sent: lateSent, unknown_ids: s.stats.unknown_ids,
	    requests: s.stats.requests, inflight_after: s.inflight, problems };
}

// ---------------------------------------------------------------------------
// slow: one client stops reading big replies; another keeps calling.

// Calls of the other client from the episode on (mux-slow.sh checks them).
const MIN_DURING = 20;

async function cmdSlow(o) {
	const problems = [];
	const fast = await connect(o, 'fast');
	const slow = await connect(o, 'slow');
	const latencies = [];
	let stop = false, k = 0, looping = true;
	const loop = (async () => {
		while (!stop) {
			const text = `ping ${++k}`;
			// A stall is judged by the shell test from the latencies;
			// this limit only ends a loop that would wait for ever.
			const m = await tool(fast, String(k), 'echo', { text });
			if (replyText(m) !== text) {
				problems.push(`fast client: echo ${k}: ${short(m)}`);
				if (m === null)
					break;
			} else
				latencies.push(m.ms);
			await sleep(10);
		}
		looping = false;
	})();
	// A few calls before the episode, for comparison.
	await until(() => latencies.length >= 5 || !looping, POLL_TIMEOUT_MS);
	const baseline = latencies.length;
	// The slow client stops reading and asks for big replies.
	slow.sock.pause();
	const t0 = now();
	const lines = range(o.count).map((i) => toolLine(String(i + 1), 'big', { bytes: o.bytes }));
	slow.write(lines.join('\n') + '\n');
	const gone = await pollServer(o, (s) => s.clients === 1, POLL_TIMEOUT_MS);
	const disconnectMs = now() - t0;
	if (gone === null)
		problems.push(`the client that does not read was not disconnected within ${POLL_TIMEOUT_MS / 1000} s`);
	// Keep measuring after the episode: a second at least, and at least
	// MIN_DURING calls from its start on, however slow the machine.
	const tGone = now();
	await until(() => !looping || (now() - tGone >= 1000 &&
	    latencies.length - baseline >= MIN_DURING), 2 * POLL_TIMEOUT_MS);
	stop = true;
	await loop;
	// What the slow client had got when it was cut off.
	slow.sock.resume();
	const closed = await slow.waitClosed(POLL_TIMEOUT_MS);
	const bigs = slow.log.filter((m) => m.kind === 'response' && m.idText !== '"attach"' &&
	    m.idText !== '"init"').length;
	const s = await serverStatus(o);
	const during = latencies.slice(baseline);
	fast.destroy();
	return { disconnect_ms: gone === null ? null : Math.round(disconnectMs),
	    big_replies_requested: o.count, big_replies_received: bigs, slow_closed: closed,
	    echo_calls: latencies.length, latency_ms: stats(latencies),
	    latency_during_ms: stats(during), server_state: s.state, server_pid: s.pid,
	    clients_after: s.clients, problems };
}

// ---------------------------------------------------------------------------
// peer: connect and see whether mcpd answers at all.

async function cmdPeer(o) {
	const c = new Conn('peer');
	await c.open(o.sock);
	const t0 = now();
	c.send('{"jsonrpc":"2.0","id":1,"method":"mcpd/attach","params":{"server":' +
	    JSON.stringify(o.server) + '}}');
	const closed = await c.waitClosed(o.waitMs);
	let answer = null;
	if (!closed) {
		answer = await c.call('"probe"', 'mcpd/status', undefined, { timeoutMs: 2000 });
		c.destroy();
	}
	return { pid: process.pid, uid: process.getuid(), closed,
	    close_ms: closed ? Math.round(c.closedAt - t0) : null, bytes: c.bytes,
	    messages: c.log.map(short), status_answered: answer !== null,
	    attach_answered: c.log.some((m) => m.idText === '1') };
}

// ---------------------------------------------------------------------------
// bad: bad input on one connection, another connection keeps working.

async function cmdBad(o) {
	const problems = [];
	const bad = await connect(o, 'bad');
	const good = await connect(o, 'good');
	const goodLat = [];
	let stop = false, k = 0, goodFailed = 0;
	const loop = (async () => {
		while (!stop) {
			const text = `good ${++k}`;
			// Slowness is judged by the shell test from the latencies.
			const m = await tool(good, String(k), 'echo', { text });
			if (replyText(m) !== text) {
				goodFailed++;
				problems.push(`good client: echo ${k}: ${short(m)}`);
			} else
				goodLat.push(m.ms);
			await sleep(5);
		}
	})();
	const cases = [];
	let echoes = 0;
	// One bad line; the answer must be an error with this code and id text,
	// and the connection must still serve an echo afterwards.
	async function one(name, line, code, idText) {
		const from = bad.log.length;
		bad.send(line);
		const m = await bad.waitFor((x) => x === null || x.kind === 'response', CALL_TIMEOUT_MS, from);
		const e = errorOf(m);
		const got = { name, code: e?.code ?? null, id: m?.idText ?? null,
		    message: e?.message ?? short(m) };
		cases.push(got);
		if (e === undefined || e.code !== code || m.idText !== idText)
			problems.push(`${name}: expected error ${code} with id ${idText}, got ${short(m)}`);
		const text = `still usable after ${name}`;
		const echo = await tool(bad, `"e${++echoes}"`, 'echo', { text });
		if (replyText(echo) !== text)
			problems.push(`after ${name}: the connection does not work: ${short(echo)}`);
	}
	await one('invalid JSON', '{"jsonrpc":"2.0","id":1,"method":', -32700, 'null');
	await one('not an object', '[1,2]', -32600, 'null');
	await one('no method, no id', '{"jsonrpc":"2.0"}', -32600, 'null');
	await one('unknown mcpd/ method', '{"jsonrpc":"2.0","id":5,"method":"mcpd/nope"}', -32601, '5');

	// An id already in flight: -32600 for the second, the first still
	// answered.  Both lines in one write: mcpd has forwarded the first when
	// it reads the second, whatever the load (the sleep only has to outlast
	// mcpd's reading of the next line).
	const from9 = bad.log.length;
	bad.write(toolLine('9', 'sleep', { ms: 500 }) + '\n' +
	    toolLine('9', 'echo', { text: 'reused id' }) + '\n');
	await bad.waitFor((x) => x === null || (x.idText === '9' && x.msg?.result !== undefined), CALL_TIMEOUT_MS, from9);
	// A third message with id 9 would be in after a round trip.
	await barrier([bad], problems);
	const nines = bad.log.slice(from9).filter((x) => x.idText === '9');
	const dup = nines.find((x) => x.msg?.error !== undefined);
	const firstReply = nines.find((x) => x.msg?.result !== undefined);
	cases.push({ name: 'id in flight', code: errorOf(dup)?.code ?? null, id: dup?.idText ?? null,
	    message: errorOf(dup)?.message ?? short(dup), first_reply: replyText(firstReply) ?? short(firstReply),
	    messages_with_id_9: nines.length });
	if (errorOf(dup)?.code !== -32600)
		problems.push(`id in flight: expected -32600 with id 9, got ${nines.map(short).join(' | ') || 'nothing'}`);
	if (replyText(firstReply) !== 'slept 500 ms')
		problems.push(`id in flight: the first request with id 9 got ${nines.map(short).join(' | ') || 'nothing'}`);
	if (nines.length !== 2)
		problems.push(`id in flight: ${nines.length} messages with id 9, expected 2 (the error, the reply): ${nines.map(short).join(' | ')}`);
	if (nines.length === 2 && nines[0] !== dup)
		problems.push('id in flight: the error came after the first request was answered');

	// A line over 16 MiB: an error, then the connection is closed.
	const huge = '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"echo",' +
	    '"arguments":{"text":"' + 'x'.repeat(17 * 1024 * 1024) + '"}}}';
	const fromHuge = bad.log.length;
	const t0 = now();
	bad.send(huge);
	const closed = await bad.waitClosed(CALL_TIMEOUT_MS);
	const hugeMsgs = bad.log.slice(fromHuge);
	const he = errorOf(hugeMsgs[0]);
	cases.push({ name: 'line over 16 MiB', code: he?.code ?? null, id: hugeMsgs[0]?.idText ?? null,
	    message: he?.message ?? short(hugeMsgs[0]), closed,
	    close_ms: closed ? Math.round(bad.closedAt - t0) : null });
	if (he === undefined)
		problems.push(`line over 16 MiB: no error before the close (got ${hugeMsgs.map(short).join(' | ') || 'nothing'})`);
	if (!closed)
		problems.push(`line over 16 MiB: the connection was not closed within ${CALL_TIMEOUT_MS / 1000} s`);
	if (hugeMsgs.length > 1)
		problems.push(`line over 16 MiB: more than one message: ${hugeMsgs.map(short).join(' | ')}`);
	await sleep(300);	// the other client keeps calling a little longer
	stop = true;
	await loop;
	for (const m of bad.unexpected) {
		if (!['null', '5', '9'].includes(m.idText))
			problems.push(`bad client: unexpected reply ${short(m)}`);
	}
	const s = await serverStatus(o);
	good.destroy();
	return { cases, good_calls: goodLat.length, good_failed: goodFailed,
	    good_latency_ms: stats(goodLat), server_state: s.state, problems };
}

// ---------------------------------------------------------------------------
// sampling: server-to-client requests through mcpd (mux-server.mjs).

function askResult(m) {
	try {
		return JSON.parse(replyText(m));
	} catch {
		return null;
	}
}

async function cmdSampling(o) {
	const problems = [];
	const out = {};
	const answerer = (c, text) => (m) => {
		if (m.msg?.method === 'sampling/createMessage') {
			c.send(`{"jsonrpc":"2.0","id":${m.idText},"result":${JSON.stringify({
			    role: 'assistant', content: { type: 'text', text }, model: 'mux-model' })}}`);
		}
	};
	const a = await connect(o, 'a', { sampling: {} });
	const b = await connect(o, 'b', {});
	a.onRequest = answerer(a, 'answer from a');

	// 1. b (no sampling) asks while a (sampling) has a call in flight:
	// the request goes to a, its answer reaches the server.
	const aSleep = tool(a, '1', 'sleep', { ms: 300000, tag: 'a-busy' }, { timeoutMs: 310000 });
	if (await pollServer(o, (s) => s.inflight >= 1, POLL_TIMEOUT_MS) === null)
		throw new Abort('a\'s sleep never showed in flight');
	let m = await tool(b, '1', 'ask', { text: 'question from b' });
	let r = askResult(m);
	out.b_asks_a_busy = r;
	if (r?.response?.result?.content?.text !== 'answer from a')
		problems.push(`b asked while a was busy: the server got ${short(m)}`);
	if (r?.id !== '"srv-1"')
		problems.push(`the answer reached the server with id ${r?.id}, expected "srv-1"`);
	const toA = a.requests.filter((x) => x.msg?.method === 'sampling/createMessage');
	if (toA.length !== 1)
		problems.push(`a got ${toA.length} sampling requests, expected 1`);
	else {
		out.id_seen_by_client = toA[0].idText;
		if (!/^-?[0-9]+$/.test(toA[0].idText))
			problems.push(`a saw sampling id ${toA[0].idText}, expected an integer chosen by mcpd`);
		if (toA[0].msg.params?.messages?.[0]?.content?.text !== 'question from b')
			problems.push(`a got the wrong sampling params: ${short(toA[0])}`);
	}

	// 2. a asks itself: it gets the request.
	m = await tool(a, '2', 'ask', { text: 'question from a' });
	r = askResult(m);
	out.a_asks = r;
	if (r?.response?.result?.content?.text !== 'answer from a' || r?.id !== '"srv-2"')
		problems.push(`a asked: the server got ${short(m)}`);

	// 3. Of two capable clients with calls in flight, the most recent asker.
	const c = await connect(o, 'c', { sampling: {} });
	c.onRequest = answerer(c, 'answer from c');
	const aBefore = a.requests.length;
	m = await tool(c, '1', 'ask', { text: 'question from c' });
	r = askResult(m);
	out.c_asks_a_busy = r;
	if (r?.response?.result?.content?.text !== 'answer from c')
		problems.push(`c asked (a busy too): the server got ${short(m)}`);
	if (a.requests.length !== aBefore)
		problems.push(`a was asked though c made the more recent call: ${short(a.requests[a.requests.length - 1])}`);

	// 4. A capable client that hangs up before answering: the server gets
	// an error for "srv-4" (the shell test reads it in the server's log).
	const d = await connect(o, 'd', { sampling: {} });
	d.onRequest = () => d.destroy();
	d.send(toolLine('1', 'ask', { text: 'question from d' }));
	out.d_closed = await d.waitClosed(CALL_TIMEOUT_MS);
	if (await pollServer(o, (s) => s.clients === 3, POLL_TIMEOUT_MS) === null)
		throw new Abort('mcpd still counts d among the clients after it hung up');

	// 5. No capable client with a call in flight: an error at once.
	a.sock.destroy();	// cancels a's sleep
	void aSleep;
	if (await pollServer(o, (s) => s.inflight === 0, POLL_TIMEOUT_MS) === null)
		throw new Abort('a\'s sleep is still in flight after a hung up');
	m = await tool(b, '2', 'ask', { text: 'nobody can answer' });
	r = askResult(m);
	out.nobody = r;
	// "At once": held for a client, the request would wait for ever (or
	// this call's own 30 s); a loaded machine answers within a few hundred
	// ms.  mux-sampling.sh checks the same bound.
	if (r?.response?.error === undefined)
		problems.push(`nobody could sample, but the server got ${short(m)}`);
	else if (r.ms >= 3000)
		problems.push(`nobody could sample, but the error took ${r.ms} ms`);
	if (r?.id !== '"srv-5"')
		problems.push(`the error reached the server with id ${r?.id}`);
	// c is capable but idle now: never asked.
	const cAsked = c.requests.filter((x) => x.msg?.method === 'sampling/createMessage').length;
	if (cAsked !== 1)
		problems.push(`c got ${cAsked} sampling requests, expected 1 (its own)`);

	// 6. roots/list and ping from the server: mcpd answers.
	m = await tool(b, '3', 'roots', {});
	out.roots = askResult(m);
	m = await tool(b, '4', 'ping', {});
	out.ping = askResult(m);
	if (JSON.stringify(out.ping?.response?.result) !== '{}')
		problems.push(`ping from the server: it got ${short(m)}`);
	else if (!/^70[0-9]{2}$/.test(out.ping.id))
		problems.push(`ping answered with id ${out.ping.id}`);

	// A request sent to b or c would be in after a round trip.
	await barrier([b, c], problems);
	for (const x of [b, c]) {
		for (const q of x.requests) {
			if (x === c && q.msg?.method === 'sampling/createMessage')
				continue;
			problems.push(`${x.name} got a request from the server: ${short(q)}`);
		}
	}
	out.b_requests = b.requests.length;
	b.destroy();
	c.destroy();
	out.problems = problems;
	return out;
}

// ---------------------------------------------------------------------------
// subscribe: resource subscriptions, log levels, list_changed (mux-server).

async function cmdSubscribe(o) {
	const problems = [];
	const out = { steps: [] };
	const a = await connect(o, 'a');
	const b = await connect(o, 'b');
	const c = await connect(o, 'c');
	const conns = [a, b, c];
	let n = 0;
	const id = () => String(++n);

	async function ok(conn, method, params) {
		const m = await conn.call(id(), method, params);
		if (m === null || m.msg?.error !== undefined || m.msg?.result === undefined)
			problems.push(`${conn.name}: ${method} ${JSON.stringify(params)}: ${short(m)}`);
		return m;
	}
	// The server sends a notification; then every client makes a round trip
	// through the server, so whatever was routed to it has arrived.
	// Only the clients in `judged` (default: all) are checked.
	async function emit(method, params, expected, judged = conns) {
		const from = conns.map((x) => x.log.length);
		await ok(a, 'tools/call', { name: 'notify', arguments: { method, params } });
		await Promise.all(conns.map((x) => ok(x, 'ping', {})));
		const got = conns.filter((x, i) => judged.includes(x) && x.log.slice(from[i]).some(
		    (m) => m.kind === 'notification' && m.msg?.method === method &&
		    JSON.stringify(m.msg.params ?? null) === JSON.stringify(params ?? null))).map((x) => x.name);
		const what = `${method} ${JSON.stringify(params ?? {})}`;
		out.steps.push({ notification: what, reached: got.join(','), expected: expected.join(',') });
		if (got.join(',') !== expected.join(','))
			problems.push(`${what} reached [${got}], expected [${expected}]`);
	}
	// A marker in the server's input: everything mcpd forwarded before it
	// was answered is above it in the server's log.
	const mark = (name) => ok(a, 'tools/call', { name: 'echo', arguments: { text: `mark:${name}` } });
	const resA = { uri: 'res://shared' };
	await ok(a, 'resources/subscribe', resA);
	await ok(b, 'resources/subscribe', resA);
	await mark('two-subscribes');
	await emit('notifications/resources/updated', resA, ['a', 'b']);
	await ok(a, 'resources/unsubscribe', resA);
	await mark('first-unsubscribe');
	await emit('notifications/resources/updated', resA, ['b']);
	await ok(b, 'resources/unsubscribe', resA);
	await mark('last-unsubscribe');
	await emit('notifications/resources/updated', resA, []);

	// An unsubscribe from a client that never subscribed changes nothing.
	const resB = { uri: 'res://other' };
	await ok(a, 'resources/subscribe', resB);
	await ok(b, 'resources/subscribe', resB);
	await ok(c, 'resources/unsubscribe', resB);
	await ok(a, 'resources/unsubscribe', resB);
	await mark('stray-unsubscribe');
	await emit('notifications/resources/updated', resB, ['b']);
	await ok(b, 'resources/unsubscribe', resB);

	// Log levels per client.
	const lvA = await ok(a, 'logging/setLevel', { level: 'error' });
	const lvB = await ok(b, 'logging/setLevel', { level: 'debug' });
	for (const [who, m] of [['a', lvA], ['b', lvB]]) {
		if (JSON.stringify(m?.msg?.result) !== '{}')
			problems.push(`${who}: logging/setLevel answered ${short(m)}`);
	}
	await mark('levels');
	// (c never set a level: what it gets is not judged here.)
	await emit('notifications/message', { level: 'info', data: 'info line' }, ['b'], [a, b]);
	await emit('notifications/message', { level: 'error', data: 'error line' }, ['a', 'b'], [a, b]);
	await emit('notifications/message', { level: 'debug', data: 'debug line' }, ['b'], [a, b]);
	await emit('notifications/message', { level: 'emergency', data: 'emergency line' }, ['a', 'b'], [a, b]);
	await emit('notifications/tools/list_changed', undefined, ['a', 'b', 'c']);
	await emit('notifications/resources/list_changed', undefined, ['a', 'b', 'c']);

	// The most verbose client leaves: upstream goes back to a's level.
	b.destroy();
	if (await pollServer(o, (s) => s.clients === 2, POLL_TIMEOUT_MS) === null)
		throw new Abort('mcpd still counts b among the clients after it hung up');
	await ok(a, 'ping', {});
	await mark('end');
	for (const x of conns) {
		for (const m of x.unexpected)
			problems.push(`${x.name}: unexpected reply ${short(m)}`);
	}
	a.destroy();
	c.destroy();
	out.problems = problems;
	return out;
}

// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// ctasks: the server's requests run as tasks by a client (mux-server.mjs).
// a declares tasks for sampling and runs them; b declares sampling only.
// --max is mcpd's client_max_tasks.

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

async function cmdCtasks(o) {
	const problems = [];
	const out = {};
	const hosted = new Map();	// a's own task ids -> status
	const answer = (c, idText, result) => c.send(
	    `{"jsonrpc":"2.0","id":${idText},"result":${JSON.stringify(result)}}`);
	const sample = (text) => ({ role: 'assistant',
	    content: { type: 'text', text }, model: 'mux-model' });
	const task = (taskId, status) => ({ taskId, status, ttl: 60000,
	    createdAt: '2026-01-01T00:00:00Z',
	    lastUpdatedAt: '2026-01-01T00:00:00Z' });
	const a = await connect(o, 'a', { sampling: {},
	    tasks: { requests: { sampling: { createMessage: {} } } } });
	const b = await connect(o, 'b', { sampling: {} });
	a.onRequest = (m) => {
		const p = m.msg?.params ?? {};
		switch (m.msg?.method) {
		case 'sampling/createMessage':
			if (p.task === undefined) {
				answer(a, m.idText, sample('plain from a'));
				break;
			}
			hosted.set(`a-task-${hosted.size + 1}`, 'working');
			answer(a, m.idText, { task: task(`a-task-${hosted.size}`,
			    'working') });
			break;
		case 'tasks/get':
		case 'tasks/cancel':
			if (!hosted.has(p.taskId)) {
				a.send(`{"jsonrpc":"2.0","id":${m.idText},"error":` +
				    '{"code":-32602,"message":"Task not found"}}');
				break;
			}
			if (m.msg.method === 'tasks/cancel')
				hosted.set(p.taskId, 'cancelled');
			answer(a, m.idText, task(p.taskId, hosted.get(p.taskId)));
			break;
		case 'tasks/result':
			answer(a, m.idText, { ...sample('result of ' +
			    `task ${[...hosted.keys()].indexOf(p.taskId) + 1}`),
			    _meta: { [RELATED_TASK]: { taskId: p.taskId } } });
			break;
		}
	};
	b.onRequest = (m) => {
		if (m.msg?.method === 'sampling/createMessage')
			answer(b, m.idText, sample('plain from b'));
	};
	const ask = async (c, idText, method, params) => askResult(
	    await tool(c, idText, 'request', { method, params }));
	const sampling = { task: { ttl: 60000 }, maxTokens: 5,
	    messages: [{ role: 'user', content: { type: 'text', text: 'q' } }] };
	const asked = (c, method) => c.requests.filter(
	    (x) => x.msg?.method === method);

	// 1. a runs it as a task: the server gets an id of mcpd's, not a's.
	let r = await ask(a, '1', 'sampling/createMessage', sampling);
	const mine = r?.response?.result?.task?.taskId;
	out.mine = mine;
	out.created = r?.response;
	if (!/^[0-9a-f]{32}$/.test(mine ?? ''))
		problems.push(`a task-augmented sampling made by a: the server got ${JSON.stringify(r)}, expected a task under an id of mcpd's`);
	const toA = asked(a, 'sampling/createMessage');
	if (toA.length !== 1 || toA[0].msg.params?.task?.ttl !== 60000)
		problems.push(`a got ${short(toA[0])}, expected the request with its "task"`);

	// 2. tasks/get goes to a under a's id; the answer names mcpd's.
	hosted.set('a-task-1', 'completed');
	r = await ask(a, '2', 'tasks/get', { taskId: mine });
	out.get = r?.response;
	if (r?.response?.result?.taskId !== mine ||
	    r?.response?.result?.status !== 'completed')
		problems.push(`the server's tasks/get got ${JSON.stringify(r?.response)}`);
	const gets = asked(a, 'tasks/get');
	if (gets.length !== 1 || gets[0].msg.params?.taskId !== 'a-task-1')
		problems.push(`a got tasks/get ${short(gets[0])}, expected its own id a-task-1`);

	// 3. tasks/result: the task its _meta names is mcpd's id too.
	r = await ask(a, '3', 'tasks/result', { taskId: mine });
	out.result = r?.response;
	if (r?.response?.result?._meta?.[RELATED_TASK]?.taskId !== mine ||
	    r?.response?.result?.content?.text !== 'result of task 1')
		problems.push(`the server's tasks/result got ${JSON.stringify(r?.response)}`);

	// 4. At the cap (client_max_tasks), the server is told: nothing evicted.
	for (let i = 2; i <= o.max; i++)
		await ask(a, `"more-${i}"`, 'sampling/createMessage', sampling);
	r = await ask(a, '4', 'sampling/createMessage', sampling);
	out.over_cap = r?.response;
	if (!/client_max_tasks/.test(r?.response?.error?.message ?? ''))
		problems.push(`a task past client_max_tasks ${o.max}: the server got ${JSON.stringify(r?.response)}`);
	r = await ask(a, '5', 'tasks/list', {});
	out.listed = r?.response?.result?.tasks?.map((t) => t.taskId);
	if (out.listed?.length !== o.max || out.listed[0] !== mine ||
	    !out.listed.every((id) => /^[0-9a-f]{32}$/.test(id)))
		problems.push(`the server's tasks/list got ${JSON.stringify(r?.response)}, expected the ${o.max} tasks, under mcpd's ids, ${mine} first`);

	// 5. Status: a's about its task reaches the server under mcpd's id;
	// b's naming a's task (by a's id or mcpd's) goes nowhere.
	const status = (taskId, st) => `{"jsonrpc":"2.0","method":` +
	    `"notifications/tasks/status","params":${JSON.stringify(task(taskId, st))}}`;
	a.send(status('a-task-1', 'completed'));
	b.send(status('a-task-1', 'failed'));
	b.send(status(mine, 'failed'));
	b.send(status('made-up', 'failed'));
	await barrier([a, b], problems);

	// 6. Ids mcpd did not give: -32602 from mcpd, nothing passed on, the
	// same answer for a's own id as for a made-up one.
	const before = a.requests.length;
	const guesses = [['tasks/get', 'a-task-1'], ['tasks/get', 'f'.repeat(32)],
	    ['tasks/result', 'a-task-2'], ['tasks/cancel', ''],
	    ['tasks/get', mine.toUpperCase()]];
	out.guesses = [];
	for (const [i, [method, id]] of guesses.entries()) {
		r = await ask(b, `"guess-${i}"`, method, { taskId: id });
		out.guesses.push(r?.response?.error ?? r?.response);
		if (r?.response?.error?.code !== -32602)
			problems.push(`the server's ${method} of ${JSON.stringify(id)} got ${JSON.stringify(r?.response)}, expected -32602`);
	}
	if (out.guesses[0]?.message !== out.guesses[1]?.message)
		problems.push(`a's own id and a made-up one were answered differently: ${JSON.stringify(out.guesses.slice(0, 2))}`);
	if (a.requests.length !== before)
		problems.push(`a was asked about a task id mcpd never gave: ${short(a.requests[a.requests.length - 1])}`);

	// 7. b runs no tasks: it gets the request without "task", and its
	// plain answer goes to the server.
	r = await ask(b, '1', 'sampling/createMessage', sampling);
	const toB = asked(b, 'sampling/createMessage');
	out.plain = r?.response;
	if (toB.length !== 1 || toB[0].msg.params?.task !== undefined)
		problems.push(`b (no tasks) got ${short(toB[0])}, expected the request without "task"`);
	if (r?.response?.result?.content?.text !== 'plain from b')
		problems.push(`b's plain answer: the server got ${JSON.stringify(r?.response)}`);

	// 8. Cancelled through a; then a hangs up and its tasks go with it.
	r = await ask(a, '6', 'tasks/cancel', { taskId: mine });
	if (r?.response?.result?.status !== 'cancelled' ||
	    r?.response?.result?.taskId !== mine)
		problems.push(`the server's tasks/cancel got ${JSON.stringify(r?.response)}`);
	a.destroy();
	if (await pollServer(o, (s) => s.clients === 1, POLL_TIMEOUT_MS) === null)
		throw new Abort('mcpd still counts a among the clients after it hung up');
	r = await ask(b, '2', 'tasks/get', { taskId: mine });
	out.after_hangup = r?.response;
	if (r?.response?.error?.code !== -32602)
		problems.push(`after a hung up, the server's tasks/get of its task got ${JSON.stringify(r?.response)}`);
	r = await ask(b, '3', 'tasks/list', {});
	if (r?.response?.result?.tasks?.length !== 0)
		problems.push(`after a hung up, the server's tasks/list got ${JSON.stringify(r?.response)}`);
	b.destroy();
	out.problems = problems;
	return out;
}

// ---------------------------------------------------------------------------
// stasks: a task the server runs (mux-server.mjs --tasks), which sends no
// status notifications: progress under the call's token after the call
// was answered, and tasks/list statuses asked of the server.

async function cmdStasks(o) {
	const problems = [];
	const out = {};
	const a = await connect(o, 'a', {});
	const b = await connect(o, 'b', {});
	let m = await a.call('1', 'tools/call', { name: 'echo',
	    arguments: { text: 'x' }, task: { ttl: 60000 } }, { token: '"tok-a"' });
	const id = m?.msg?.result?.task?.taskId;
	out.id = id;
	if (!/^[0-9a-f]{32}$/.test(id ?? ''))
		problems.push(`a call with a task got ${short(m)}, expected a task under an id of mcpd's`);

	// 1. Progress under the call's token, the call long answered.
	const from = a.log.length;
	await tool(b, '1', 'task-progress', { taskId: 'srv-task-1', n: 3 });
	await barrier([a, b], problems);
	const progress = a.notes.filter((n) => n.seq >= from &&
	    n.msg?.method === 'notifications/progress');
	out.progress = progress.map((n) => n.msg.params);
	if (progress.length !== 3 ||
	    !progress.every((n) => /"progressToken":"tok-a"/.test(n.raw)))
		problems.push(`progress of a's task after its call was answered: a got ${JSON.stringify(out.progress)}, expected 3 under its token "tok-a"`);
	if (b.notes.some((n) => n.msg?.method === 'notifications/progress'))
		problems.push(`b got progress of a's task: ${short(b.notes.find((n) => n.msg?.method === 'notifications/progress'))}`);

	// 2. tasks/list: the status as the server tells it now.
	const listed = async (idText) => {
		const r = await a.call(idText, 'tasks/list', {});
		return r?.msg?.result?.tasks ?? r?.msg;
	};
	out.before = await listed('2');
	if (out.before?.[0]?.status !== 'working' || out.before[0].taskId !== id)
		problems.push(`a's tasks/list while its task runs: ${JSON.stringify(out.before)}`);
	await tool(b, '2', 'finish', { taskId: 'srv-task-1' });
	out.after = await listed('3');
	if (out.after?.[0]?.status !== 'completed' || out.after[0].taskId !== id)
		problems.push(`a's tasks/list after the task ended (no status notification): ${JSON.stringify(out.after)}, expected completed`);
	out.again = await listed('4');
	m = await b.call('3', 'tasks/list', {});
	if (JSON.stringify(m?.msg?.result?.tasks) !== '[]')
		problems.push(`b's tasks/list: ${short(m)}`);
	m = await a.call('5', 'tasks/result', { taskId: id });
	if (replyText(m) !== 'done srv-task-1')
		problems.push(`a's tasks/result: ${short(m)}`);

	// 3. A plain call of a tool the server runs only as a task: run as
	// one by mcpd; progress under the call's token reaches a, and the
	// task's result answers the call.
	const job = a.call('6', 'tools/call', { name: 'job', arguments: {} },
	    { token: '"tok-job"' });
	const jobFrom = a.log.length;
	m = await tool(b, '4', 'task-progress', { taskId: 'srv-task-2', n: 2 });
	if (replyText(m) !== 'sent')
		problems.push(`the plain call of job made no task srv-task-2: ${short(m)}`);
	await barrier([a], problems);
	const jobProgress = a.notes.filter((n) => n.seq >= jobFrom &&
	    n.msg?.method === 'notifications/progress');
	out.job_progress = jobProgress.map((n) => n.msg.params);
	if (jobProgress.length !== 2 ||
	    !jobProgress.every((n) => /"progressToken":"tok-job"/.test(n.raw)))
		problems.push(`progress of the task mcpd ran for a's plain call: ${JSON.stringify(out.job_progress)}, expected 2 under "tok-job"`);
	await tool(b, '5', 'finish', { taskId: 'srv-task-2' });
	m = await job;
	out.job = m?.msg;
	if (replyText(m) !== 'done srv-task-2' || m?.msg?.result?.task !== undefined)
		problems.push(`a's plain call of job: ${short(m)}`);

	// 4. Ids nobody gave, many at once: mcpd answers each, none reaches
	// the server (the shell counts the server's tasks/get).
	const flood = [];
	for (let i = 0; i < 2000; i++) {
		const taskId = i % 2 ? `srv-task-${i}` : i.toString(16).padStart(32, '0');
		flood.push(b.call(`"f-${i}"`, i % 3 ? 'tasks/get' : 'tasks/result',
		    { taskId }));
		b.send(`{"jsonrpc":"2.0","method":"notifications/tasks/status",` +
		    `"params":{"taskId":"${taskId}","status":"failed"}}`);
	}
	const answers = await Promise.all(flood);
	out.flood_errors = answers.filter((x) => x?.msg?.error?.code === -32602).length;
	if (out.flood_errors !== 2000)
		problems.push(`of 2000 requests about tasks nobody gave, ${out.flood_errors} got -32602`);
	a.destroy();
	b.destroy();
	out.problems = problems;
	return out;
}

// ctasks-reexec: a task a client of a lasting principal runs for the
// server outlives a re-exec of mcpd: the server's tasks/get reaches the
// client when it comes back with its principal.

async function cmdCtasksReexec(o) {
	const problems = [];
	const out = {};
	const caps = { sampling: {},
	    tasks: { requests: { sampling: { createMessage: {} } } } };
	const hosted = new Map();
	const host = (c) => (m) => {
		const p = m.msg?.params ?? {};
		const reply = (result) => c.send(`{"jsonrpc":"2.0","id":${m.idText},` +
		    `"result":${JSON.stringify(result)}}`);
		const task = (taskId) => ({ taskId, status: hosted.get(taskId),
		    ttl: 60000, createdAt: '2026-01-01T00:00:00Z',
		    lastUpdatedAt: '2026-01-01T00:00:00Z' });
		if (m.msg?.method === 'sampling/createMessage' && p.task) {
			hosted.set('r-task-1', 'working');
			reply({ task: task('r-task-1') });
		} else if (m.msg?.method === 'tasks/get' && hosted.has(p.taskId))
			reply(task(p.taskId));
	};
	const join = async (name, principal) => {
		const c = await new Conn(name).open(o.sock);
		const r = await c.call('"attach"', 'mcpd/attach',
		    { server: o.server, principal });
		if (typeof r?.msg?.result?.principal !== 'string')
			throw new Abort(`${name}: mcpd/attach with a principal: ${short(r)}`);
		const i = await c.call('"init"', 'initialize', {
			protocolVersion: '2025-11-25', capabilities: caps,
			clientInfo: { name: `mux-${name}`, version: '1.0' } });
		if (i?.msg?.result === undefined)
			throw new Abort(`${name}: initialize: ${short(i)}`);
		c.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
		c.onRequest = host(c);
		return [c, r.msg.result.principal];
	};
	const ask = async (c, idText, method, params) => askResult(
	    await tool(c, idText, 'request', { method, params }));

	const [a, principal] = await join('a', true);
	let r = await ask(a, '1', 'sampling/createMessage', { task: { ttl: 60000 },
	    maxTokens: 5, messages: [{ role: 'user', content: { type: 'text', text: 'q' } }] });
	const mine = r?.response?.result?.task?.taskId;
	out.mine = mine;
	if (!/^[0-9a-f]{32}$/.test(mine ?? ''))
		throw new Abort(`a task-augmented sampling: the server got ${JSON.stringify(r)}`);

	// mcpctl reexec, by the control socket.
	const before = (await status(o)).daemon.reexecs;
	const admin = await new Conn('admin').open(o.sock);
	// Answered, or the connection closed by the re-exec.
	admin.send(requestLine('"reexec"', 'mcpd/reexec', {}));
	const x = await admin.waitFor((m) => m === null || m.idText === '"reexec"',
	    CALL_TIMEOUT_MS);
	out.reexec = x?.msg?.result ?? x?.msg?.error ?? null;
	admin.destroy();
	if (!(await a.waitClosed(CALL_TIMEOUT_MS)))
		problems.push('a\'s connection outlived the re-exec');
	let st = null;
	for (const deadline = now() + POLL_TIMEOUT_MS; now() < deadline;) {
		try {
			st = await status(o);
			if (st.daemon.reexecs === before + 1)
				break;
		} catch {
			// The new mcpd is not answering yet.
		}
		await sleep(20);
	}
	if (st?.daemon?.reexecs !== before + 1)
		throw new Abort(`mcpd did not re-execute: ${JSON.stringify(out.reexec)}`);

	// a comes back with its principal: the server still reaches its task.
	const [a2, again] = await join('a2', principal);
	if (again !== principal)
		problems.push(`a came back with principal ${principal} and was given ${again}`);
	hosted.set('r-task-1', 'completed');
	r = await ask(a2, '1', 'tasks/get', { taskId: mine });
	out.get = r?.response;
	if (r?.response?.result?.taskId !== mine ||
	    r?.response?.result?.status !== 'completed')
		problems.push(`after the re-exec, the server's tasks/get of a's task got ${JSON.stringify(r?.response)}`);
	const gets = a2.requests.filter((q) => q.msg?.method === 'tasks/get');
	if (gets.length !== 1 || gets[0].msg.params?.taskId !== 'r-task-1')
		problems.push(`after the re-exec a got tasks/get ${short(gets[0])}, expected its own id r-task-1`);
	a2.destroy();
	out.problems = problems;
	return out;
}

const COMMANDS = {
	ids: [cmdIds, { clients: 20, per: 50 }],
	progress: [cmdProgress, { clients: 10, ms: 120 }],
	crash: [cmdCrash, { clients: 3, per: 20, ms: 5000, pid: null }],
	'cancel-disconnect': [cmdCancelDisconnect, {}],
	'cancel-explicit': [cmdCancelExplicit, { cancelId: '7' }],
	timeout: [cmdTimeout, { ms: 5000, ignoreCancel: false, windowMs: 0, lateLog: '' }],
	slow: [cmdSlow, { count: 8, bytes: 400000 }],
	peer: [cmdPeer, { waitMs: 10000 }],
	bad: [cmdBad, {}],
	sampling: [cmdSampling, {}],
	subscribe: [cmdSubscribe, {}],
	ctasks: [cmdCtasks, { max: 3 }],
	stasks: [cmdStasks, {}],
	'ctasks-reexec': [cmdCtasksReexec, {}],
};

function parseArgs(argv) {
	const [cmd, ...rest] = argv;
	if (!(cmd in COMMANDS))
		throw new Usage(`unknown subcommand ${cmd}; one of: ${Object.keys(COMMANDS).join(', ')}`);
	const o = { server: 'demo', ...COMMANDS[cmd][1] };
	for (let i = 0; i < rest.length; i++) {
		const m = /^--([a-z-]+)$/.exec(rest[i]);
		if (m === null)
			throw new Usage(`bad argument ${rest[i]}`);
		const key = m[1].replace(/-([a-z])/g, (_, ch) => ch.toUpperCase());
		let v = rest[++i];
		if (v === undefined)
			throw new Usage(`--${m[1]} needs a value`);
		if (typeof o[key] === 'number' || key === 'pid')
			v = Number(v);
		else if (typeof o[key] === 'boolean')
			v = v === 'true' || v === '1';
		o[key] = v;
	}
	if (o.sock === undefined)
		throw new Usage('--sock PATH is required');
	return [COMMANDS[cmd][0], o];
}

async function main() {
	let fn, o;
	try {
		[fn, o] = parseArgs(process.argv.slice(2));
	} catch (e) {
		process.stderr.write(`mux-client: ${e.message}\n`);
		process.exit(2);
	}
	try {
		const out = await fn(o);
		process.stdout.write(JSON.stringify(out) + '\n');
		process.exit(0);
	} catch (e) {
		process.stderr.write(`mux-client: ${e instanceof Abort ? e.message : e.stack}\n`);
		process.exit(3);
	}
}

main();
