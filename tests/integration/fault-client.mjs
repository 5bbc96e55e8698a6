// fault-client.mjs -- scripted MCP clients for the fault-*.sh tests.
//
// Usage: node fault-client.mjs SUBCOMMAND --sock PATH [OPTIONS]
//
//   limit  two clients of one server, ids colliding: B has a sleep in
//          flight under id 7 while A asks the big tool, under the same id,
//          for a reply of --under, then --over (then --far) bytes of
//          text, then echoes; what each of them received is checked.
//   conns  --count connections at once, each attaching to --server and
//          then idle: how many mcpd serves (answers their attach) and how
//          many it closes, once it has done one or the other with each;
//          then --ready FILE is written, the connections are held for
//          --hold-ms and until --until FILE exists (if given), and
//          --release of the served ones are closed: are any that were
//          left waiting served then?
//   rpc    one client attaches to --server and sends the lines of --send
//          FILE; every reply and notification is kept raw.
//   statuses  --count mcpd/status calls over one connection, timed.
//
// Ids are compared as raw JSON text.  The summary (one JSON object on
// stdout) has counts, timings in ms, what was received, and "problems":
// what was wrong, empty when all was as expected.  Exit status 0 when the
// scenario ran to its end (problems or not), 2 on bad usage, 3 when it
// could not run at all.  Only Node's built-in modules are used.

import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round1 = (x) => Math.round(x * 10) / 10;

// How long an answer of mcpd's may take before something is wrong.  A
// loaded machine can keep mcpd or this client from running for a while;
// this only bounds a broken run.
const PATIENCE_MS = 30000;

class Usage extends Error {}
class Abort extends Error {}

// The raw text of the top-level "id" of a JSON object, or undefined.
// Enough structure to skip strings and nested values, no more.
function rawId(s) {
	let i = s.indexOf('{');
	if (i < 0)
		return undefined;
	i++;
	const ws = () => {
		while (i < s.length && ' \t\r\n'.includes(s[i]))
			i++;
	};
	const skipString = () => {
		for (i++; i < s.length; i++) {
			if (s[i] === '\\')
				i++;
			else if (s[i] === '"')
				return ++i;
		}
		return i;
	};
	const skipValue = () => {
		if (s[i] === '"')
			return skipString();
		if (s[i] === '{' || s[i] === '[') {
			let depth = 0;
			for (; i < s.length; i++) {
				if (s[i] === '"') {
					skipString();
					i--;
				} else if (s[i] === '{' || s[i] === '[')
					depth++;
				else if (s[i] === '}' || s[i] === ']') {
					if (--depth === 0)
						return ++i;
				}
			}
			return i;
		}
		while (i < s.length && !',}] \t\r\n'.includes(s[i]))
			i++;
		return i;
	};
	for (;;) {
		ws();
		if (s[i] !== '"')
			return undefined;
		const k0 = i;
		skipString();
		const key = s.slice(k0, i);
		ws();
		if (s[i] !== ':')
			return undefined;
		i++;
		ws();
		const v0 = i;
		skipValue();
		if (key === '"id"')
			return s.slice(v0, i);
		ws();
		if (s[i] !== ',')
			return undefined;
		i++;
	}
}

// One connection to mcpd: raw lines in, replies matched by raw id text.
class Conn {
	constructor(name) {
		this.name = name;
		this.buf = '';
		this.lines = [];		// every line received, raw
		this.waiters = new Map();	// id text -> resolve
		this.unexpected = [];		// replies nobody waited for
		this.notes = [];		// notifications, raw
		this.closed = false;
		this.error = null;
		this.connected = false;
	}

	open(path) {
		return new Promise((resolve, reject) => {
			this.sock = net.createConnection(path);
			this.sock.setEncoding('utf8');
			this.sock.on('connect', () => {
				this.connected = true;
				resolve(this);
			});
			this.sock.on('data', (d) => this.data(d));
			this.sock.on('error', (e) => {
				this.error = e.message;
				if (!this.connected)
					reject(new Abort(`${this.name}: connect ${path}: ${e.message}`));
			});
			this.sock.on('close', () => {
				this.closed = true;
			});
		});
	}

	data(d) {
		this.buf += d;
		let nl;
		while ((nl = this.buf.indexOf('\n')) >= 0) {
			const raw = this.buf.slice(0, nl);
			this.buf = this.buf.slice(nl + 1);
			this.line(raw);
		}
	}

	line(raw) {
		const m = { raw, t: now(), id: rawId(raw), msg: null };
		try {
			m.msg = JSON.parse(raw);
		} catch {
			// kept raw; the scenario decides
		}
		this.lines.push(m);
		if (m.msg !== null && m.msg.method !== undefined) {
			if (m.id === undefined)
				this.notes.push(m);
			return;
		}
		const w = m.id !== undefined ? this.waiters.get(m.id) : undefined;
		if (w !== undefined) {
			this.waiters.delete(m.id);
			w(m);
		} else
			this.unexpected.push(m);
	}

	send(line) {
		if (!this.sock.destroyed)
			this.sock.write(line + '\n');
	}

	// The reply to id text idText (sent now or already), or null.
	expect(idText, timeoutMs = PATIENCE_MS) {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.waiters.delete(idText);
				resolve(null);
			}, timeoutMs);
			this.waiters.set(idText, (m) => {
				clearTimeout(timer);
				resolve(m);
			});
		});
	}

	call(idText, method, params, timeoutMs) {
		const p = this.expect(idText, timeoutMs);
		this.send(requestLine(idText, method, params));
		return p;
	}

	async attach(server) {
		const a = await this.call('"fc-attach"', 'mcpd/attach', { server });
		if (a === null || a.msg?.result === undefined)
			throw new Abort(`${this.name}: mcpd/attach ${server}: ${show(a)}`);
		const i = await this.call('"fc-init"', 'initialize', {
			protocolVersion: '2025-11-25',
			capabilities: {},
			clientInfo: { name: `fault-${this.name}`, version: '1.0' },
		});
		if (i === null || i.msg?.result === undefined)
			throw new Abort(`${this.name}: initialize: ${show(i)}`);
		this.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
		return this;
	}
}

function requestLine(idText, method, params) {
	const p = params === undefined ? '' : ',"params":' + JSON.stringify(params);
	return `{"jsonrpc":"2.0","id":${idText},"method":${JSON.stringify(method)}${p}}`;
}

function toolCall(conn, idText, name, args, timeoutMs) {
	return conn.call(idText, 'tools/call', { name, arguments: args }, timeoutMs);
}

function show(m) {
	if (m === null || m === undefined)
		return 'nothing';
	return m.raw.length > 300 ? `${m.raw.slice(0, 300)}... (${m.raw.length} bytes)` : m.raw;
}

function text(m) {
	return m?.msg?.result?.content?.[0]?.text;
}

async function connect(o, name) {
	const c = await new Conn(name).open(o.sock);
	return c.attach(o.server);
}

// ---------------------------------------------------------------------------

async function cmdLimit(o) {
	const problems = [];
	const out = { under_bytes: o.under, over_bytes: o.over };
	const a = await connect(o, 'A');
	const b = await connect(o, 'B');

	// Push the server's ids past 99 so their width is known (3 digits).
	const warm = [];
	for (let i = 1; i <= o.warm; i++)
		warm.push(toolCall(a, `"w-${i}"`, 'echo', { text: `w${i}` }));
	const warmed = await Promise.all(warm);
	const bad = warmed.filter((m, i) => text(m) !== `w${i + 1}`);
	if (bad.length > 0)
		problems.push(`warm-up: ${bad.length} echoes wrong, first: ${show(bad[0])}`);

	// B: a long sleep in flight under id 7 (the id A uses next).  It must
	// outlast A's calls below for the ids to collide: whether it did is
	// reported (b_sleep_outlasted), a slow machine may not manage it.
	const bSleep = toolCall(b, '7', 'sleep', { ms: o.sleepMs }, o.sleepMs + PATIENCE_MS);
	const b8 = await toolCall(b, '8', 'echo', { text: 'B-8' });
	if (text(b8) !== 'B-8')
		problems.push(`B's echo under id 8 got ${show(b8)}`);

	// A: just under the limit, id 7.
	const under = await toolCall(a, '7', 'big', { bytes: o.under });
	out.under = { id: under?.id, line_bytes: under?.raw.length };
	const ut = text(under);
	if (under === null || under.msg?.error !== undefined || typeof ut !== 'string') {
		problems.push(`the reply of ${o.under} bytes of text was not relayed: ${show(under)}`);
	} else {
		out.under.text_bytes = ut.length;
		out.under.all_x = /^x*$/.test(ut);
		if (ut.length !== o.under || !out.under.all_x)
			problems.push(`the relayed text has ${ut.length} bytes (all 'x': ${out.under.all_x}), expected ${o.under}`);
		if (under.id !== '7')
			problems.push(`the relayed reply has id ${under.id}, expected 7`);
	}

	// A: just over the limit, id 7 again (the first one is answered).
	const t0 = now();
	const over = await toolCall(a, '7', 'big', { bytes: o.over });
	out.over = {
		id: over?.id,
		ms: round1(now() - t0),
		code: over?.msg?.error?.code ?? null,
		message: over?.msg?.error?.message ?? null,
		line_bytes: over?.raw.length ?? null,
	};
	if (over === null)
		problems.push(`no answer to the request for ${o.over} bytes of text`);
	else if (over.msg?.error === undefined)
		problems.push(`the request for ${o.over} bytes of text got no error: ${show(over)}`);

	// Far over (a few times the limit): still the id, still an error.
	let lastError = over;
	if (o.far > 0) {
		const far = await toolCall(a, '7', 'big', { bytes: o.far });
		lastError = far;
		out.far = {
			bytes: o.far,
			id: far?.id,
			code: far?.msg?.error?.code ?? null,
			message: far?.msg?.error?.message ?? null,
		};
		if (far === null)
			problems.push(`no answer to the request for ${o.far} bytes of text`);
	}

	// The session goes on, for A.
	const a9 = await toolCall(a, '9', 'echo', { text: 'A-9 after' });
	out.echo_after = text(a9) ?? null;
	if (text(a9) !== 'A-9 after')
		problems.push(`A's echo after the oversized reply got ${show(a9)}`);

	// B's sleep ends with its own result, not A's error.
	const bs = await bSleep;
	out.b_sleep = bs === null ? null : (text(bs) ?? bs.msg?.error ?? bs.raw);
	out.b_sleep_outlasted = bs !== null && lastError !== null && bs.t > lastError.t;
	if (text(bs) !== `slept ${o.sleepMs} ms`)
		problems.push(`B's sleep under id 7 got ${show(bs)}`);

	// A window, not a wait: anything late or twice shows up in it.
	await sleep(300);
	for (const [c, who] of [[a, 'A'], [b, 'B']]) {
		for (const m of c.unexpected)
			problems.push(`${who} got a reply nobody waited for: ${show(m)}`);
	}
	out.a_lines = a.lines.length;
	out.b_lines = b.lines.length;
	a.sock.destroy();
	b.sock.destroy();
	out.problems = problems;
	return out;
}

// ---------------------------------------------------------------------------

async function cmdConns(o) {
	const problems = [];
	const conns = [];
	const t0 = now();
	let answered = 0;
	let lastAnswer = t0;
	const connects = [];

	for (let i = 0; i < o.count; i++) {
		const c = new Conn(`c${i}`);
		conns.push(c);
		connects.push(c.open(o.sock).then(() => {
			c.reply = c.expect('"fc-attach"', 600000).then((m) => {
				c.answeredAt = now();
				c.answer = m;
				answered++;
				lastAnswer = now();
				return m;
			});
			c.send(requestLine('"fc-attach"', 'mcpd/attach', { server: o.server }));
		}, (e) => {
			c.connectError = e.message;
		}));
	}
	await Promise.all(connects);
	const connected = conns.filter((c) => c.connected).length;

	// Until mcpd has answered or closed every connection; one it leaves
	// waiting is still waiting after maxWaitMs.
	const deadline = now() + o.maxWaitMs;
	while (conns.some((c) => c.connected && c.answer === undefined && !c.closed) &&
	    now() < deadline)
		await sleep(20);
	const served = conns.filter((c) => c.answer !== undefined);
	const out = {
		count: o.count,
		connected,
		connect_errors: conns.filter((c) => c.connectError !== undefined).map((c) => c.connectError).slice(0, 5),
		served_before: served.length,
		closed_by_mcpd: conns.filter((c) => c.closed && c.answer === undefined).length,
		first_to_last_served_ms: round1(lastAnswer - t0),
	};
	const badAttach = served.filter((c) => c.answer?.msg?.result === undefined);
	if (badAttach.length > 0)
		problems.push(`${badAttach.length} attaches failed, first: ${show(badAttach[0].answer)}`);

	// Held, as long as the caller wants: a window for it to watch mcpd in
	// (holdMs), or until it says so.
	if (o.ready !== '')
		fs.writeFileSync(o.ready, `${served.length}\n`);
	await sleep(o.holdMs);
	if (o.until !== '') {
		const until = now() + o.holdMaxMs;
		while (!fs.existsSync(o.until) && now() < until)
			await sleep(20);
		if (!fs.existsSync(o.until))
			problems.push(`${o.until} did not appear within ${o.holdMaxMs} ms`);
	}

	// Close some that were served; the waiting ones should get in.
	const release = served.slice(0, o.release);
	const waiting = conns.filter((c) => c.connected && c.answer === undefined && !c.closed);
	out.released = release.length;
	out.waiting = waiting.length;
	const tr = now();
	for (const c of release)
		c.sock.destroy();
	const until = tr + o.waitMs;
	while (waiting.some((c) => c.answer === undefined && !c.closed) && now() < until)
		await sleep(20);
	const late = waiting.filter((c) => c.answer !== undefined);
	out.served_after_release = late.length;
	out.release_to_last_served_ms = late.length > 0 ?
		round1(Math.max(...late.map((c) => c.answeredAt)) - tr) : null;
	out.still_waiting = waiting.filter((c) => c.answer === undefined && !c.closed).length;
	out.closed_while_waiting = waiting.filter((c) => c.answer === undefined && c.closed).length;
	const badLate = late.filter((c) => c.answer?.msg?.result === undefined);
	if (badLate.length > 0)
		problems.push(`${badLate.length} late attaches failed, first: ${show(badLate[0].answer)}`);

	for (const c of conns)
		c.sock.destroy();
	out.problems = problems;
	return out;
}

// ---------------------------------------------------------------------------

async function cmdRpc(o) {
	const problems = [];
	const c = await connect(o, 'rpc');
	const from = c.lines.length;
	const lines = fs.readFileSync(o.send, 'utf8').split('\n').filter((l) => l.trim() !== '');
	const waits = [];
	for (const l of lines) {
		const id = rawId(l);
		let method;
		try {
			method = JSON.parse(l).method;
		} catch {
			method = undefined;
		}
		if (id !== undefined && method !== undefined && !method.startsWith('notifications/'))
			waits.push(c.expect(id, o.timeoutMs).then((m) => [id, m]));
		c.send(l);
	}
	const replies = {};
	for (const [id, m] of await Promise.all(waits)) {
		replies[id] = m === null ? null : m.raw;
		if (m === null)
			problems.push(`no reply to id ${id} within ${o.timeoutMs} ms`);
	}
	// A window, not a wait: anything more that comes shows up in it.
	await sleep(o.lingerMs);
	for (const m of c.unexpected)
		problems.push(`a reply nobody waited for: ${show(m)}`);
	const received = c.lines.slice(from).map((m) => m.raw);
	c.sock.destroy();
	return { replies, received, problems };
}

// ---------------------------------------------------------------------------

// mcpd/status over one connection, --count times, --gap-ms apart: how
// long mcpd itself takes to answer, without starting a process per call.
async function cmdStatuses(o) {
	const problems = [];
	const c = await new Conn('statuses').open(o.sock);
	const times = [];
	for (let i = 1; i <= o.count; i++) {
		const t0 = now();
		const r = await c.call(`"s-${i}"`, 'mcpd/status', undefined);
		times.push(round1(now() - t0));
		if (r === null || !Array.isArray(r.msg?.result?.servers))
			problems.push(`status ${i}: ${show(r)}`);
		await sleep(o.gapMs);
	}
	c.sock.destroy();
	const sorted = [...times].sort((a, b) => a - b);
	return {
		count: o.count,
		times,
		median_ms: sorted[Math.floor((sorted.length - 1) / 2)],
		max_ms: sorted[sorted.length - 1],
		problems,
	};
}

// ---------------------------------------------------------------------------

const COMMANDS = {
	limit: [cmdLimit, { under: 0, over: 0, far: 0, warm: 110, sleepMs: 2000 }],
	conns: [cmdConns, { count: 100, maxWaitMs: PATIENCE_MS, release: 60, waitMs: PATIENCE_MS,
		ready: '', holdMs: 0, until: '', holdMaxMs: 60000 }],
	rpc: [cmdRpc, { send: '', timeoutMs: PATIENCE_MS, lingerMs: 300 }],
	statuses: [cmdStatuses, { count: 50, gapMs: 20 }],
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
		if (typeof o[key] === 'number') {
			v = Number(v);
			if (!Number.isFinite(v))
				throw new Usage(`--${m[1]}: not a number`);
		}
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
		process.stderr.write(`fault-client: ${e.message}\n`);
		process.exit(2);
	}
	try {
		const out = await fn(o);
		process.stdout.write(JSON.stringify(out) + '\n');
		process.exit(0);
	} catch (e) {
		process.stderr.write(`fault-client: ${e instanceof Abort ? e.message : e.stack}\n`);
		process.exit(3);
	}
}

main();
