// reload-client.mjs -- a scriptable MCP client for reload.sh, logs.sh,
// metrics.sh and ctl.sh.
//
// Usage: node reload-client.mjs --sock PATH
//
// It holds any number of named connections to mcpd and obeys commands, one
// JSON object per line on stdin; for each it writes exactly one JSON line
// on stdout, in order: {"n": N, "ok": true, ...} or {"n": N, "ok": false,
// "error": "..."}, N counting commands from 1.  So a shell test can keep
// clients attached (and requests in flight) while it reloads, kills or
// inspects mcpd, and ask afterwards what each connection received.
//
// Commands ("conn" names a connection, "id" is the raw JSON text of a
// request id, e.g. "7" or "\"abc\""; times are in ms):
//   {"op":"attach","conn":C,"server":S}   connect, mcpd/attach, initialize,
//                                          notifications/initialized
//   {"op":"open","conn":C}                connect only
//   {"op":"send","conn":C,"id":I,"method":M,"params":P}   send, do not wait
//   {"op":"wait","conn":C,"id":I,"timeout":T}   the reply to I: "reply"
//        (parsed), "raw", "ms" since it was sent, "at" when it came (ms
//        since the epoch, to compare with the shell's clock); "reply":
//        null if none came within T
//   {"op":"call",...}                     send + wait
//   {"op":"replies","conn":C,"id":I}      every message with that id so far
//   {"op":"closed","conn":C,"timeout":T}  wait for the connection to close
//   {"op":"state","conn":C}               closed?, messages received
//   {"op":"close","conn":C}               hang up
//   {"op":"quit"}
//
// Only Node's built-in modules are used.

import net from 'node:net';
import readline from 'node:readline';
import { performance } from 'node:perf_hooks';

const now = () => performance.now();
const round1 = (x) => Math.round(x * 10) / 10;
// Waits for what should come (attach, default reply waits): generous, they
// end when it comes; a loaded machine or the sanitizer build is slow.
const WAIT_MS = 30000;

// The raw text of the top-level "id" member of a JSON object's text.
function rawId(s) {
	let i = 0, depth = 0;
	const n = s.length;
	while (i < n) {
		const c = s[i];
		if (c === '"') {
			const start = i;
			for (i++; i < n && s[i] !== '"'; i++) {
				if (s[i] === '\\')
					i++;
			}
			i++;
			if (depth !== 1)
				continue;
			let j = i;
			while (j < n && ' \t\r\n'.includes(s[j]))
				j++;
			if (s[j] !== ':' || s.slice(start, i) !== '"id"')
				continue;
			j++;
			while (j < n && ' \t\r\n'.includes(s[j]))
				j++;
			let k = j;
			if (s[k] === '"') {
				for (k++; k < n && s[k] !== '"'; k++) {
					if (s[k] === '\\')
						k++;
				}
				k++;
			} else {
				while (k < n && !',}] \t\r\n'.includes(s[k]))
					k++;
			}
			return s.slice(j, k);
		}
		if (c === '{' || c === '[')
			depth++;
		else if (c === '}' || c === ']')
			depth--;
		i++;
	}
	return undefined;
}

class Conn {
	constructor(name) {
		this.name = name;
		this.log = [];		// every message: {raw, msg, id, t}
		this.sent = new Map();	// id text -> send time
		this.waiters = new Set();
		this.buf = '';
		this.closed = false;
		this.closedAt = null;
	}

	open(path) {
		return new Promise((resolve, reject) => {
			const s = net.createConnection(path);
			this.sock = s;
			s.setEncoding('utf8');
			s.on('connect', () => resolve(this));
			s.on('error', (e) => reject(new Error(`${this.name}: ${e.message}`)));
			s.on('data', (d) => {
				this.buf += d;
				let nl;
				while ((nl = this.buf.indexOf('\n')) >= 0) {
					const raw = this.buf.slice(0, nl);
					this.buf = this.buf.slice(nl + 1);
					if (raw.length > 0)
						this.line(raw);
				}
			});
			s.on('close', () => {
				this.closed = true;
				this.closedAt = now();
				this.wake();
			});
		});
	}

	line(raw) {
		let msg = null;
		try {
			msg = JSON.parse(raw);
		} catch {
			// kept as raw text
		}
		this.log.push({ raw, msg, id: rawId(raw), t: now(), wall: Date.now() });
		this.wake();
	}

	wake() {
		for (const w of [...this.waiters])
			w();
	}

	// Resolve with pred's first truthy value, or null after timeout.
	until(pred, timeout) {
		return new Promise((resolve) => {
			let timer = null;
			const check = () => {
				const v = pred();
				if (v) {
					this.waiters.delete(check);
					clearTimeout(timer);
					resolve(v);
				}
			};
			this.waiters.add(check);
			timer = setTimeout(() => {
				this.waiters.delete(check);
				resolve(null);
			}, timeout);
			check();
		});
	}

	send(obj) {
		this.sock.write(obj + '\n');
	}

	request(id, method, params) {
		const p = params === undefined ? '' : `,"params":${JSON.stringify(params)}`;
		this.sent.set(id, now());
		this.send(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${p}}`);
	}

	reply(id) {
		return this.log.find((m) => m.id === id && m.msg !== null &&
		    m.msg.method === undefined);
	}

	async waitReply(id, timeout) {
		const m = await this.until(() => this.reply(id) ?? (this.closed ? 'closed' : null), timeout);
		if (m === null || m === 'closed')
			return { reply: null, closed: this.closed };
		const t0 = this.sent.get(id);
		return { reply: m.msg, raw: m.raw, ms: t0 === undefined ? null : round1(m.t - t0),
		    at: Math.round(m.wall) };
	}
}

const conns = new Map();
let sockPath = null;

function conn(name) {
	const c = conns.get(name);
	if (c === undefined)
		throw new Error(`no connection ${name}`);
	return c;
}

async function attach(c, server) {
	c.request('"attach"', 'mcpd/attach', { server });
	const a = await c.waitReply('"attach"', WAIT_MS);
	if (a.reply?.result === undefined)
		throw new Error(`mcpd/attach ${server}: ${a.raw ?? 'no reply'}`);
	c.request('"init"', 'initialize', {
		protocolVersion: '2025-11-25',
		capabilities: {},
		clientInfo: { name: `reload-client-${c.name}`, version: '1.0' },
	});
	const i = await c.waitReply('"init"', WAIT_MS);
	if (typeof i.reply?.result?.protocolVersion !== 'string')
		throw new Error(`initialize: ${i.raw ?? 'no reply'}`);
	c.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
	return a.reply.result;
}

async function run(cmd) {
	switch (cmd.op) {
	case 'open':
	case 'attach': {
		if (conns.has(cmd.conn))
			throw new Error(`connection ${cmd.conn} exists`);
		const c = await new Conn(cmd.conn).open(sockPath);
		conns.set(cmd.conn, c);
		if (cmd.op === 'open')
			return {};
		return { attach: await attach(c, cmd.server) };
	}
	case 'send':
		conn(cmd.conn).request(cmd.id, cmd.method, cmd.params);
		return {};
	case 'wait':
		return conn(cmd.conn).waitReply(cmd.id, cmd.timeout ?? WAIT_MS);
	case 'call': {
		const c = conn(cmd.conn);
		c.request(cmd.id, cmd.method, cmd.params);
		return c.waitReply(cmd.id, cmd.timeout ?? WAIT_MS);
	}
	case 'replies':
		return { replies: conn(cmd.conn).log.filter((m) => m.id === cmd.id).map((m) => m.msg) };
	case 'closed': {
		const c = conn(cmd.conn);
		const t0 = now();
		await c.until(() => c.closed, cmd.timeout ?? WAIT_MS);
		return { closed: c.closed, ms: round1((c.closedAt ?? now()) - t0) };
	}
	case 'state': {
		const c = conn(cmd.conn);
		return { closed: c.closed, received: c.log.length,
		    messages: c.log.map((m) => m.raw.length > 500 ? m.raw.slice(0, 500) + '...' : m.raw) };
	}
	case 'close': {
		const c = conn(cmd.conn);
		c.sock.end();
		await c.until(() => c.closed, WAIT_MS);
		return { closed: c.closed };
	}
	case 'quit':
		for (const c of conns.values())
			c.sock.destroy();
		return {};
	default:
		throw new Error(`unknown op ${cmd.op}`);
	}
}

function main() {
	const args = process.argv.slice(2);
	if (args.length !== 2 || args[0] !== '--sock') {
		process.stderr.write('usage: node reload-client.mjs --sock PATH\n');
		process.exit(2);
	}
	sockPath = args[1];
	const rl = readline.createInterface({ input: process.stdin });
	let n = 0;
	let chain = Promise.resolve();
	rl.on('line', (line) => {
		const k = ++n;
		chain = chain.then(async () => {
			let out;
			let quit = false;
			try {
				const cmd = JSON.parse(line);
				quit = cmd.op === 'quit';
				out = { n: k, ok: true, ...await run(cmd) };
			} catch (e) {
				out = { n: k, ok: false, error: e.message };
			}
			process.stdout.write(JSON.stringify(out) + '\n');
			if (quit)
				process.exit(0);
		});
	});
	rl.on('close', () => chain.then(() => process.exit(0)));
}

main();
