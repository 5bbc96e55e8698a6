// hostile-fds.mjs -- connections that hold mcpd's descriptors, for
// hostile-fds.sh and hostile-peer.sh.
//
// Usage: node hostile-fds.mjs SUBCOMMAND --sock PATH [OPTIONS]
//
//   hold   open --count connections at once and keep them: "idle" ones
//          send nothing, "partial" ones complete one mcpd/status request
//          and send half of another, never the rest, "spoke" ones complete
//          one mcpd/status request and then idle.  Writes --ready FILE once
//          every connection is open and answered (or refused), then waits
//          until all are closed, --hold-ms passed or --until FILE exists.
//          Reports how many were refused (an error line, then the close,
//          before they sent anything), how many mcpd closed later and
//          when: an idle one counted from its connect, the others from
//          the write that left them owing mcpd a line.
//   peek   connect, send --send LINE if given, and keep every line mcpd
//          sends until it closes the connection or --wait-ms passes.
//   big    attach to --server, stop reading, ask once for a reply of
//          --bytes bytes and then neither read nor send: when does mcpd
//          close the connection?
//
// The summary (one JSON object on stdout) has counts and times in ms.
// Exit status 0 when the scenario ran, 2 on bad usage.  Only Node's
// built-in modules are used.

import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// How long a connect, or an answer of mcpd's, may take before something
// is wrong.  A loaded machine can keep mcpd from running for a while; this
// only bounds a broken run.
const PATIENCE_MS = 30000;

function parseArgs(argv) {
	const o = { count: 100, mode: 'idle', holdMs: 10000, waitMs: 5000,
	    bytes: 1000000, server: 'demo', send: undefined, ready: undefined,
	    until: undefined };
	const names = { '--sock': 'sock', '--count': 'count', '--mode': 'mode',
	    '--hold-ms': 'holdMs', '--wait-ms': 'waitMs', '--bytes': 'bytes',
	    '--server': 'server', '--send': 'send', '--ready': 'ready',
	    '--until': 'until' };
	o.cmd = argv[0];
	for (let i = 1; i < argv.length; i += 2) {
		const k = names[argv[i]];
		if (k === undefined || i + 1 >= argv.length) {
			console.error(`hostile-fds.mjs: bad option ${argv[i]}`);
			process.exit(2);
		}
		o[k] = typeof o[k] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
	}
	if (o.sock === undefined) {
		console.error('hostile-fds.mjs: --sock is required');
		process.exit(2);
	}
	return o;
}

// One connection: every line received, when it opened and closed.  A
// connect that finds mcpd's listen backlog full (EAGAIN: mcpd has not yet
// accepted the ones before it) is tried again, as a client would.
class Conn {
	constructor(path) {
		this.lines = [];
		this.buf = '';
		this.closed = false;
		this.connected = false;
		this.error = undefined;
		this.retries = 0;
		this.opened = this.open(path, now() + PATIENCE_MS);
	}

	async open(path, deadline) {
		for (;;) {
			// Taken before connect(2): mcpd's accept, and the line
			// timer it starts, come after it.
			this.t0 = now();
			const ok = await new Promise((resolve) => {
				this.sock = net.createConnection(path, () => resolve(true));
				this.sock.once('error', (e) => {
					this.error = e.code ?? e.message;
					resolve(false);
				});
			});
			if (ok)
				break;
			if (this.error !== 'EAGAIN' || now() >= deadline)
				return false;
			this.sock.destroy();
			this.retries++;
			await sleep(20);
		}
		this.connected = true;
		this.error = undefined;
		this.sock.setEncoding('utf8');
		this.sock.on('error', (e) => {
			this.error = e.code ?? e.message;
		});
		this.sock.on('data', (d) => {
			this.buf += d;
			let nl;
			while ((nl = this.buf.indexOf('\n')) >= 0) {
				this.lines.push(this.buf.slice(0, nl));
				this.buf = this.buf.slice(nl + 1);
			}
		});
		this.sock.on('close', () => {
			this.closed = true;
			this.closedAt = now();
		});
		return true;
	}

	send(line) {
		this.sentAt = now();
		this.sock.write(line);
	}

	// The message of the first error line, or undefined.
	errorMessage() {
		for (const l of this.lines) {
			try {
				const m = JSON.parse(l);
				if (m.error !== undefined)
					return m.error;
			} catch {
				/* not JSON */
			}
		}
		return undefined;
	}

	async waitLines(n, ms) {
		const until = now() + ms;
		while (this.lines.length < n && !this.closed && now() < until)
			await sleep(10);
		return this.lines.length >= n;
	}
}

const STATUS = '{"jsonrpc":"2.0","id":1,"method":"mcpd/status"}\n';

// mcpd refuses a connection at once, before it has sent anything: an
// error line, then the close.  A write to it after that close would make
// Node drop the line unread, so nothing is written until mcpd has dealt
// with every connection opened so far.  That moment is seen, not guessed:
// one more connection asks for mcpd/status, and mcpd accepts in order, so
// once this probe has an answer (a reply, its own refusal, or the close)
// every earlier connection was accepted or refused before it, and every
// refusal's line was there to be read before the probe's answer: by the
// time the loop below sees that answer, Node has read them all (the turn
// of the event loop after it is for the closes that follow them).  True
// if the probe was answered.
async function settle(path) {
	const p = new Conn(path);
	let settled = false;
	if (await p.opened) {
		p.send(STATUS);
		const until = now() + PATIENCE_MS;
		while (!(settled = p.lines.length > 0 || p.closed || p.error !== undefined) &&
		    now() < until)
			await sleep(10);
	}
	p.sock.destroy();
	await sleep(10);
	return settled;
}

async function cmdHold(o) {
	const conns = [];
	for (let i = 0; i < o.count; i++)
		conns.push(new Conn(o.sock));
	await Promise.all(conns.map((c) => c.opened));
	const settled = await settle(o.sock);
	// Answered or closed before sending anything: refused by mcpd.
	for (const c of conns)
		c.early = c.connected && (c.lines.length > 0 || c.closed);
	const t0 = now();
	for (const c of conns) {
		if (!c.connected || c.early)
			continue;
		if (o.mode === 'partial')
			c.send(STATUS + '{"jsonrpc":"2.0","id":2,"method":"mcpd/sta');
		else if (o.mode === 'spoke')
			c.send(STATUS);
	}
	// The replies to the complete requests: their descriptors are held.
	if (o.mode !== 'idle')
		await Promise.all(conns.map((c) => c.early || c.waitLines(1, PATIENCE_MS)));
	const refused = conns.filter((c) => c.early && c.errorMessage() !== undefined &&
	    (o.mode !== 'spoke' || c.lines.length === 1));
	const ref = new Set(refused);
	const refusedErrors = refused.map((c) => c.errorMessage());
	if (o.ready !== undefined)
		fs.writeFileSync(o.ready, `${conns.filter((c) => !c.closed).length}\n`);
	const until = now() + o.holdMs;
	while (conns.some((c) => c.connected && !c.closed) && now() < until &&
	    (o.until === undefined || !fs.existsSync(o.until)))
		await sleep(20);
	const later = conns.filter((c) => c.closed && !c.early);
	// From the moment each began to owe mcpd a line, which is before mcpd
	// saw it do so: connect(2) for one that never sent anything, the
	// write for the others.
	const times = later.map((c) => c.closedAt - (c.sentAt ?? c.t0)).sort((a, b) => a - b);
	const out = {
		count: o.count,
		mode: o.mode,
		settled,
		connected: conns.filter((c) => c.connected).length,
		connect_errors: conns.filter((c) => c.error !== undefined && !c.connected).length,
		connect_retries: conns.reduce((n, c) => n + c.retries, 0),
		refused: refused.length,
		refused_messages: [...new Set(refusedErrors.map((e) => `${e.code}: ${e.message}`))].slice(0, 5),
		closed_early_otherwise: conns.filter((c) => c.early && !ref.has(c)).length,
		closed_later: later.length,
		closed_later_min_ms: times.length > 0 ? Math.round(times[0]) : null,
		closed_later_max_ms: times.length > 0 ? Math.round(times[times.length - 1]) : null,
		closed_later_messages: [...new Set(later.map((c) => c.errorMessage()).filter((e) => e !== undefined)
		    .map((e) => `${e.code}: ${e.message}`))].slice(0, 5),
		still_open: conns.filter((c) => c.connected && !c.closed).length,
		replies: conns.filter((c) => c.lines.some((l) => l.includes('"result"'))).length,
		held_ms: Math.round(now() - t0),
	};
	for (const c of conns)
		c.sock.destroy();
	return out;
}

async function cmdPeek(o) {
	const c = new Conn(o.sock);
	await c.opened;
	// A refused peer is answered at once: read that before writing.
	await settle(o.sock);
	const t0 = now();
	if (o.send !== undefined && c.connected && !c.closed && c.lines.length === 0)
		c.send(o.send + '\n');
	const until = t0 + o.waitMs;
	while (c.connected && !c.closed && now() < until)
		await sleep(10);
	const out = { connected: c.connected, closed: c.closed,
	    close_ms: c.closed ? Math.round(c.closedAt - c.t0) : null,
	    lines: c.lines, error: c.errorMessage() ?? null };
	c.sock.destroy();
	return out;
}

// The server's attached clients, from mcpd/status on a connection of its own.
async function attachedClients(o) {
	const c = new Conn(o.sock);
	await c.opened;
	c.send(STATUS);
	await c.waitLines(1, PATIENCE_MS);
	c.sock.destroy();
	try {
		const s = JSON.parse(c.lines[0]).result.servers.find((x) => x.name === o.server);
		return s.clients;
	} catch {
		return null;
	}
}

async function cmdBig(o) {
	const c = new Conn(o.sock);
	await c.opened;
	c.send('{"jsonrpc":"2.0","id":"attach","method":"mcpd/attach","params":' +
	    JSON.stringify({ server: o.server }) + '}\n');
	c.send('{"jsonrpc":"2.0","id":"init","method":"initialize","params":' +
	    '{"protocolVersion":"2025-11-25","capabilities":{},' +
	    '"clientInfo":{"name":"hostile-fds","version":"1"}}}\n');
	c.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
	if (!await c.waitLines(2, PATIENCE_MS))
		return { problem: `attach and initialize: ${JSON.stringify(c.lines)}` };
	const before = await attachedClients(o);
	// Not reading from here on: what mcpd writes stays queued in mcpd.
	c.sock.pause();
	const t0 = now();
	c.send('{"jsonrpc":"2.0","id":"big","method":"tools/call","params":' +
	    JSON.stringify({ name: 'big', arguments: { bytes: o.bytes } }) + '}\n');
	const until = t0 + o.waitMs;
	let gone = null;
	while (now() < until) {
		await sleep(100);
		if (await attachedClients(o) === before - 1) {
			gone = now() - t0;
			break;
		}
	}
	c.sock.destroy();
	return { attached_before: before, close_ms: gone === null ? null : Math.round(gone) };
}

const o = parseArgs(process.argv.slice(2));
const cmds = { hold: cmdHold, peek: cmdPeek, big: cmdBig };
if (cmds[o.cmd] === undefined) {
	console.error(`hostile-fds.mjs: unknown subcommand ${o.cmd}`);
	process.exit(2);
}
console.log(JSON.stringify(await cmds[o.cmd](o)));
process.exit(0);
