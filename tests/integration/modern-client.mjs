// modern-client.mjs -- raw clients of MCP 2026-07-28 for modern-hostile.sh
// and tests/interop/modern-tasks.sh: the lines a 2026 client sends, written
// by hand (no SDK), and what mcpd answers, looked at byte by byte.
//
// Usage: node modern-client.mjs SCENARIO --sock PATH [--server NAME]
//            [--log FILE] [--log2 FILE]
//
// Each scenario opens its own connections to mcpd's socket (mcpd/attach,
// then 2026 requests: every one carries params._meta with the protocol
// version, clientInfo and clientCapabilities; a 2025 client sends
// initialize first), checks what it gets, and prints one JSON summary on
// stdout with "problems", the list of what was wrong (empty when all was
// as mcpd(8) says).  --log is the log of the stand-in server
// (mux-server.mjs --log), read to see what reached the server; --log2 a
// second stand-in's.  Exit 0 when the scenario ran to its end, 2 on bad
// usage, 3 when it could not run at all.  Waits are for a message or for
// a line of the log, bounded; none is a pause.  Only Node's built-in
// modules are used.
//
// Scenarios (what each asserts is in the comments above each):
//   state     requestState refused when forged, for another request, of
//             another client, used already; the genuine retry works; one
//             in a tool's arguments is no retry
//   expire    a parked request nobody retries, under input_timeout_ms
//             1000: cancelled at the server, its elicitation answered
//             with a cancel, the retry refused as expired
//   bound     64 parked requests on a connection; the 65th server request
//             gets an error, and the parked ones still work; closing the
//             connection ends them at the server
//   versions  -32022, -32601 for what 2026 dropped, -32600 for mcpd's
//             ids; a 2025 client beside it gets 2025
//   logs      log lines only for requests that named a level
//   listen    subscriptions/listen streams, each its own
//   group     (a 2025 and a 2026 client on a group of two stand-ins) a
//             subscribe to a URI no member listed reaches every member
//   tasks     (server-everything) the tasks extension

import fs from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

const now = () => performance.now();
const WAIT_MS = 30000;
const V = '2026-07-28';
const K_VERSION = 'io.modelcontextprotocol/protocolVersion';
const K_INFO = 'io.modelcontextprotocol/clientInfo';
const K_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const K_LEVEL = 'io.modelcontextprotocol/logLevel';
const K_SUB = 'io.modelcontextprotocol/subscriptionId';
const EXT_TASKS = 'io.modelcontextprotocol/tasks';
const ELICIT_SCHEMA = { type: 'object', properties: { name: { type: 'string' } } };

class Abort extends Error {}

// ---------------------------------------------------------------------------
// A connection to mcpd.

class Conn {
	constructor(name) {
		this.name = name;
		this.log = [];			// every message received, parsed
		this.pending = new Map();	// JSON id -> resolve
		this.listeners = new Set();
		this.buf = '';
		this.closed = false;
		this.next = 0;
	}

	open(path) {
		return new Promise((resolve, reject) => {
			const s = net.createConnection(path);
			this.sock = s;
			s.setEncoding('utf8');
			s.on('connect', () => resolve(this));
			s.on('error', (e) => reject(new Abort(`${this.name}: ${path}: ${e.message}`)));
			s.on('data', (d) => {
				this.buf += d;
				let nl;
				while ((nl = this.buf.indexOf('\n')) >= 0) {
					const line = this.buf.slice(0, nl);
					this.buf = this.buf.slice(nl + 1);
					if (line.length > 0)
						this.line(line);
				}
			});
			s.on('close', () => {
				this.closed = true;
				for (const l of [...this.listeners])
					l(null);
			});
		});
	}

	line(raw) {
		let msg = null;
		try {
			msg = JSON.parse(raw);
		} catch {
			// Kept raw: a check that looks at it says what was wrong.
		}
		const m = { raw, msg };
		this.log.push(m);
		if (msg !== null && msg.method === undefined && msg.id !== undefined) {
			const key = JSON.stringify(msg.id);
			const p = this.pending.get(key);
			if (p !== undefined) {
				this.pending.delete(key);
				p(m);
			}
		}
		for (const l of [...this.listeners])
			l(m);
	}

	send(obj) {
		this.sock.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
	}

	// Send a request; its answer (the message), or null after WAIT_MS.
	call(id, method, params) {
		const p = this.expect(id);
		this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
		return p;
	}

	expect(id, ms = WAIT_MS) {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.pending.delete(JSON.stringify(id));
				resolve(null);
			}, ms);
			this.pending.set(JSON.stringify(id), (m) => {
				clearTimeout(timer);
				resolve(m);
			});
		});
	}

	// The first message from index `from` that pred accepts, or null.
	waitFor(pred, ms = WAIT_MS, from = 0) {
		for (let i = from; i < this.log.length; i++) {
			if (pred(this.log[i]))
				return Promise.resolve(this.log[i]);
		}
		return new Promise((resolve) => {
			const done = (v) => {
				clearTimeout(timer);
				this.listeners.delete(l);
				resolve(v);
			};
			const l = (m) => {
				if (m === null)
					done(null);
				else if (pred(m))
					done(m);
			};
			const timer = setTimeout(() => done(null), ms);
			this.listeners.add(l);
		});
	}

	// Notifications received (from index from), of a method.
	notes(method, from = 0) {
		return this.log.slice(from).filter((m) => m.msg?.method === method &&
		    m.msg.id === undefined);
	}

	async attach(server) {
		const r = await this.call('attach', 'mcpd/attach', { server });
		if (r?.msg?.result === undefined)
			throw new Abort(`${this.name}: mcpd/attach ${server}: ${short(r)}`);
		return this;
	}

	// A 2025 client: initialize first.
	async init2025(caps = {}) {
		const r = await this.call('init', 'initialize', { protocolVersion: '2025-11-25',
		    capabilities: caps, clientInfo: { name: `raw-${this.name}`, version: '1' } });
		if (typeof r?.msg?.result?.protocolVersion !== 'string')
			throw new Abort(`${this.name}: initialize: ${short(r)}`);
		this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
		return this;
	}

	close() {
		this.sock.destroy();
	}
}

async function connect(o, name, server = o.server) {
	return (await new Conn(name).open(o.sock)).attach(server);
}

// What a 2026 client puts in every request's _meta.
function meta(name, opts = {}) {
	const caps = opts.caps ?? { elicitation: {} };
	return { [K_VERSION]: opts.version ?? V, [K_INFO]: { name: `raw-${name}`, version: '1' },
	    [K_CAPS]: caps, ...(opts.level !== undefined ? { [K_LEVEL]: opts.level } : {}) };
}

// A 2026 request: params with the _meta.
function call26(c, id, method, params = {}, opts = {}) {
	return c.call(id, method, { ...params, _meta: meta(c.name, opts) });
}

function tool26(c, id, name, args, opts = {}) {
	return call26(c, id, 'tools/call', { name, arguments: args, ...(opts.extra ?? {}) }, opts);
}

function short(m) {
	if (m === null || m === undefined)
		return 'nothing';
	return m.raw.length > 400 ? m.raw.slice(0, 400) + '...' : m.raw;
}

function text(m) {
	return m?.msg?.result?.content?.[0]?.text;
}

// The stand-in's `request` tool answers {ms, id, response} as text.
function asked(m) {
	try {
		return JSON.parse(text(m));
	} catch {
		return null;
	}
}

// ---------------------------------------------------------------------------
// Checks.

class Checks {
	constructor() {
		this.problems = [];
	}

	ok(cond, what) {
		if (!cond)
			this.problems.push(what);
		return !!cond;
	}

	// An error answer with this code whose message matches re.
	error(m, code, re, what) {
		const e = m?.msg?.error;
		return this.ok(e !== undefined && e.code === code && re.test(e.message ?? ''),
		    `${what}: expected error ${code} matching ${re}, got ${short(m)}`);
	}

	// A result with resultType (and ttlMs 0, cacheScope "private" if cached).
	result(m, type, what, cached = false) {
		const r = m?.msg?.result;
		let good = r !== undefined && r.resultType === type;
		if (cached)
			good = good && r.ttlMs === 0 && r.cacheScope === 'private';
		return this.ok(good, `${what}: expected a result of resultType ${type}` +
		    `${cached ? ' with ttlMs 0 and cacheScope private' : ''}, got ${short(m)}`);
	}
}

// The input_required answer's one request: [key, request, state].
function inputOf(m) {
	const r = m?.msg?.result;
	if (r?.resultType !== 'input_required' || typeof r.requestState !== 'string')
		return null;
	const keys = Object.keys(r.inputRequests ?? {});
	if (keys.length !== 1)
		return null;
	return { key: keys[0], req: r.inputRequests[keys[0]], state: r.requestState };
}

// ---------------------------------------------------------------------------
// The stand-in server's log (mux-server.mjs --log).

class StubLog {
	constructor(file) {
		if (file === undefined)
			throw new Abort('this scenario needs --log');
		this.file = file;
	}

	all() {
		let t = '';
		try {
			t = fs.readFileSync(this.file, 'utf8');
		} catch {
			return [];
		}
		return t.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
	}

	// Messages the server received (dir "in") or sent ("out"), after mark.
	msgs(dir, mark = 0) {
		return this.all().slice(mark).filter((e) => e.dir === dir).map((e) => e.msg);
	}

	mark() {
		return this.all().length;
	}

	// Poll the log until pred(messages of dir after mark) is truthy.
	async until(dir, pred, mark = 0, ms = WAIT_MS) {
		const deadline = now() + ms;
		for (;;) {
			const v = pred(this.msgs(dir, mark));
			if (v)
				return v;
			if (now() > deadline)
				return null;
			await new Promise((r) => setTimeout(r, 20));
		}
	}
}

// The server's elicitation/create for the `request` call with message msg:
// its id, as the server sent it.
function elicitId(log, msg, mark) {
	return log.msgs('out', mark).find((x) => x.method === 'elicitation/create' &&
	    x.params?.message === msg)?.id;
}

// The id the server knows the tools/call `request` with message msg by.
function callId(log, msg, mark) {
	return log.msgs('in', mark).find((x) => x.method === 'tools/call' &&
	    x.params?.arguments?.params?.message === msg)?.id;
}

// [from, ..., to]
function range(from, to) {
	return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function requestArgs(msg) {
	return { method: 'elicitation/create', params: { message: msg, requestedSchema: ELICIT_SCHEMA } };
}

// ---------------------------------------------------------------------------
// state: one parked request and every way its requestState is refused.
// A daemon that did not seal and check its states would take the forged
// ones (or pass them to the server), continue the request from another
// request's or another client's retry, or take a state twice: each
// refusal below would then be an answer, and the answer the server got
// would be the first retry's, not the genuine one's.

async function cmdState(o) {
	const ck = new Checks();
	const log = new StubLog(o.log);
	const mark = log.mark();
	const a = await connect(o, 'a');
	const args = requestArgs('state-1');
	const first = await tool26(a, 'c1', 'request', args);
	const in1 = inputOf(first);
	if (!ck.ok(in1 !== null, `tools/call request (elicitation): expected input_required with one ` +
	    `input request and a requestState, got ${short(first)}`))
		return { problems: ck.problems };
	ck.ok(in1.req.method === 'elicitation/create' && in1.req.params?.message === 'state-1',
	    `inputRequests: expected the server's elicitation/create, got ${JSON.stringify(in1.req)}`);
	ck.ok(in1.state.startsWith('mcpd1.'), `requestState ${in1.state} is not mcpd's`);
	const answer = (name) => ({ [in1.key]: { action: 'accept', content: { name } } });
	const retry = (c, id, state, name, a2 = args) => tool26(c, id, 'request', a2,
	    { extra: { inputResponses: answer(name), requestState: state } });

	// (a) Forged: one character of the text changed, and one made up.
	const i = 6 + 40;
	const flipped = in1.state.slice(0, i) + (in1.state[i] === 'A' ? 'B' : 'A') +
	    in1.state.slice(i + 1);
	for (const [id, st] of [['forged-1', flipped], ['forged-2', 'mcpd1.xxx'],
	    ['forged-3', 'not-even-close']]) {
		ck.error(await retry(a, id, st, 'Forger'), -32602, /not one mcpd gave/,
		    `a retry with requestState ${st.slice(0, 24)}...`);
	}
	// (b) The genuine state on a retry of another request.
	ck.error(await retry(a, 'other', in1.state, 'Other', requestArgs('state-1-other')),
	    -32602, /for another request/, 'the state on a tools/call with other arguments');
	// (e) Another client presenting it (its own connection, its own
	// principal): the state's first use there.
	const b = await connect(o, 'b');
	ck.error(await retry(b, 'thief', in1.state, 'Thief'), -32602, /another client/,
	    'another connection presenting the state');
	b.close();

	// The parked request's first id is done for its client, which may
	// use it again while the request waits for its retry (mcpd used to
	// refuse it as "already in use" for as long as it waited).
	const reused = await tool26(a, 'c1', 'echo', { text: 'again-c1' });
	ck.ok(text(reused) === 'again-c1' && reused.msg.result?.resultType === 'complete',
	    `tools/call echo under the parked request's id c1: ${short(reused)}`);

	// (d) A retry that answers nothing is asked again: a new state, and
	// the first is used.
	const again = await tool26(a, 'r-empty', 'request', args,
	    { extra: { inputResponses: {}, requestState: in1.state } });
	const in2 = inputOf(again);
	if (ck.ok(in2 !== null, `a retry answering nothing: expected input_required again, got ${short(again)}`)) {
		ck.ok(in2.key === in1.key && in2.state !== in1.state,
		    `the second round: expected key ${in1.key} again under a new state, got ${short(again)}`);
	}
	ck.error(await retry(a, 'replay-1', in1.state, 'Replay'), -32602, /used already/,
	    'the first state again, after its round was retried');

	// (c) The genuine retry: the server gets the answer, the retry's id
	// the tool's result.
	if (in2 !== null) {
		const ok = await retry(a, 'r-ok', in2.state, 'Ada');
		ck.result(ok, 'complete', 'the genuine retry');
		const got = asked(ok)?.response;
		ck.ok(got?.result?.action === 'accept' && got?.result?.content?.name === 'Ada',
		    `the server's elicitation/create got ${JSON.stringify(got)}, expected the retry's accept of Ada`);
		ck.error(await retry(a, 'replay-2', in2.state, 'Replay'), -32602,
		    /used already|no longer waiting/, 'the genuine state once more, after its request ended');
	}
	// What reached the server: one call, one answer to its request.
	const eid = elicitId(log, 'state-1', mark);
	const answers = log.msgs('in', mark).filter((x) => (x.method === 'tools/call' &&
	    x.params?.name === 'request') ||
	    (eid !== undefined && x.method === undefined && x.id === eid));
	ck.ok(answers.length === 2 && answers[1].result?.content?.name === 'Ada',
	    `the server got ${JSON.stringify(answers)}; expected one tools/call and one answer (Ada) to its ${eid}`);
	// Nothing answered twice, nothing for ids that were refused.
	const c1 = a.log.filter((m) => m.msg?.id === 'c1');
	ck.ok(c1.length === 2, `c1 was answered ${c1.length} times, not twice ` +
	    `(input_required, then the echo that used the id again)`);

	// A requestState in a tool's arguments is the tool's: the call is not
	// a retry (mcpd used to refuse it, "requestState is not a string").
	for (const [id, args] of [['arg-1', { text: 'deep-1', requestState: 'mine' }],
	    ['arg-2', { text: 'deep-2', doc: { requestState: in1.state } }]]) {
		const r = await tool26(a, id, 'echo', args);
		ck.ok(text(r) === args.text && r.msg.result.resultType === 'complete',
		    `tools/call echo with arguments ${JSON.stringify(args).slice(0, 60)}: ${short(r)}`);
	}
	a.close();
	return { state: in1.state.length, problems: ck.problems };
}

// ---------------------------------------------------------------------------
// expire: with input_timeout_ms 1000, a parked request nobody retries is
// cancelled at the server, the server's elicitation is answered with a
// cancel, and the retry is refused as expired.  A daemon without the rule
// keeps the request (and the server's elicitation) forever: the waits for
// the server's log would time out, and the late retry would work.

async function cmdExpire(o) {
	const ck = new Checks();
	const log = new StubLog(o.log);
	const mark = log.mark();
	const a = await connect(o, 'a');
	const args = requestArgs('expire-1');
	const t0 = now();
	const first = await tool26(a, 'e1', 'request', args);
	const t1 = now();
	const in1 = inputOf(first);
	if (!ck.ok(in1 !== null, `expected input_required, got ${short(first)}`))
		return { problems: ck.problems };
	const cid = callId(log, 'expire-1', mark);
	const eid = elicitId(log, 'expire-1', mark);
	ck.ok(cid !== undefined && eid !== undefined, 'the server log has no call or elicitation');
	const cancelled = await log.until('in', (ms) => ms.some((x) =>
	    x.method === 'notifications/cancelled' && x.params?.requestId === cid), mark);
	const tc = now();
	ck.ok(cancelled, `the server got no notifications/cancelled for ${JSON.stringify(cid)} within ${WAIT_MS} ms`);
	const answered = await log.until('in', (ms) => ms.find((x) => x.method === undefined &&
	    x.id === eid), mark);
	ck.ok(answered?.result?.action === 'cancel',
	    `the server's elicitation ${eid} was answered ${JSON.stringify(answered)}, expected {"action":"cancel"}`);
	// Not before its time (1000 ms after the state was made).
	ck.ok(tc - t0 >= 900, `cancelled after ${Math.round(tc - t0)} ms, before input_timeout_ms 1000`);
	ck.error(await tool26(a, 'late', 'request', args, { extra: { inputResponses:
	    { [in1.key]: { action: 'accept', content: { name: 'Late' } } }, requestState: in1.state } }),
	    -32602, /expired/, 'the retry after input_timeout_ms');
	// The request's own id was answered once, with the input_required.
	ck.ok(a.log.filter((m) => m.msg?.id === 'e1').length === 1, 'e1 answered more than once');
	a.close();
	return { cancelled_ms: Math.round(tc - t1), problems: ck.problems };
}

// ---------------------------------------------------------------------------
// bound: 64 requests parked on one connection (one after the other, each
// the latest when its elicitation comes); the server's elicitation for a
// 65th is refused with an error the server sees, that call completes with
// it, and the parked ones still work.  A daemon without the bound would
// park the 65th too (input_required), holding more for the client.  When
// the connection ends, what it left parked ends at the server too.

async function cmdBound(o) {
	const ck = new Checks();
	const log = new StubLog(o.log);
	const mark = log.mark();
	const a = await connect(o, 'a');
	const parked = [];
	for (let k = 1; k <= 64; k++) {
		const r = await tool26(a, `b${k}`, 'request', requestArgs(`bound-${k}`));
		const inp = inputOf(r);
		if (!ck.ok(inp !== null, `request ${k}: expected input_required, got ${short(r)}`))
			return { parked: parked.length, problems: ck.problems };
		parked.push(inp);
	}
	const r65 = await tool26(a, 'b65', 'request', requestArgs('bound-65'));
	ck.result(r65, 'complete', 'the 65th call (its elicitation refused)');
	const got = asked(r65)?.response;
	ck.ok(got?.error !== undefined && /too many requests waiting/.test(got.error.message ?? ''),
	    `the server's 65th elicitation got ${JSON.stringify(got)}, expected an error saying too many wait`);
	const eid = elicitId(log, 'bound-65', mark);
	const seen = log.msgs('in', mark).find((x) => x.method === undefined && x.id === eid);
	ck.ok(seen?.error !== undefined, `the server log has ${JSON.stringify(seen)} for its ${eid}`);
	// Nothing else broke: the first and the last parked ones continue.
	for (const [k, inp] of [[1, parked[0]], [64, parked[63]]]) {
		const r = await tool26(a, `b${k}-retry`, 'request', requestArgs(`bound-${k}`),
		    { extra: { inputResponses: { [inp.key]: { action: 'accept',
		    content: { name: `n${k}` } } }, requestState: inp.state } });
		ck.ok(asked(r)?.response?.result?.content?.name === `n${k}`,
		    `parked request ${k}, retried after the 65th: ${short(r)}`);
	}
	const e = await tool26(a, 'echo', 'echo', { text: 'still here' });
	ck.ok(text(e) === 'still here', `an echo after: ${short(e)}`);
	// The connection ends with 62 requests parked: each is cancelled at
	// the server, and each of the server's elicitations answered.
	const left = range(2, 63).map((k) => [callId(log, `bound-${k}`, mark),
	    elicitId(log, `bound-${k}`, mark)]);
	ck.ok(left.every(([cid, eid]) => cid !== undefined && eid !== undefined),
	    'the server log lacks a parked call or its elicitation');
	a.close();
	const ended = await log.until('in', (ms) => left.every(([cid, eid]) =>
	    ms.some((x) => x.method === 'notifications/cancelled' && x.params?.requestId === cid) &&
	    ms.some((x) => x.method === undefined && x.id === eid && x.error !== undefined)), mark);
	ck.ok(ended !== null, 'the connection closed with 62 requests parked: the server did not get ' +
	    'a notifications/cancelled for each and an error for each of its elicitations');
	return { parked: parked.length, problems: ck.problems };
}

// ---------------------------------------------------------------------------
// versions: what 2026 names differently, on a 2026 connection and a 2025
// one at the same time on the same server.  A daemon that passed a 2026
// client's requests through as a 2025 client's would answer the unknown
// version, ping, setLevel and subscribe with the server's results (and
// send those to the server), take "mcpd-modern:5" for an id of its own,
// and give the 2026 client the list_changed only a stream may carry; one
// that made every client a 2026 one would add resultType for the 2025
// client.

async function cmdVersions(o) {
	const ck = new Checks();
	const log = new StubLog(o.log);
	const mark = log.mark();
	const m = await connect(o, 'm');
	const l = await (await connect(o, 'l')).init2025();

	// A version mcpd does not serve; the connection's first request.
	const bad = await call26(m, 'v1', 'tools/list', {}, { version: '2099-01-01' });
	const e = bad?.msg?.error;
	ck.ok(e?.code === -32022 && Array.isArray(e.data?.supported) &&
	    e.data.supported.includes(V) && e.data.requested === '2099-01-01',
	    `protocolVersion 2099-01-01: expected -32022 with data.supported (2026-07-28 in it) and data.requested, got ${short(bad)}`);
	for (const [id, method, params] of [['v2', 'ping', {}],
	    ['v3', 'logging/setLevel', { level: 'debug' }],
	    ['v4', 'resources/subscribe', { uri: 'res://v' }],
	    ['v5', 'resources/unsubscribe', { uri: 'res://v' }]])
		ck.error(await call26(m, id, method, params), -32601, /not part of MCP 2026-07-28/,
		    `${method} from a 2026 client`);
	ck.error(await call26(m, 'mcpd-modern:5', 'tools/list'), -32600, /mcpd's own/,
	    'a 2026 request with id "mcpd-modern:5"');
	ck.result(await call26(m, 'v6', 'tools/list'), 'complete', 'tools/list (2026)', true);
	ck.result(await call26(m, 'v7', 'server/discover'), 'complete', 'server/discover', true);

	// Side by side: the 2025 client gets 2025.
	const lr = await l.call('l1', 'tools/list', {});
	ck.ok(Array.isArray(lr?.msg?.result?.tools) && lr.msg.result.resultType === undefined &&
	    lr.msg.result.ttlMs === undefined, `tools/list (2025): ${short(lr)}`);
	const lp = await l.call('l2', 'ping', {});
	ck.ok(lp?.msg?.result !== undefined && lp.msg.result.resultType === undefined,
	    `ping (2025): ${short(lp)}`);
	// A list change: unsolicited for 2025, never for 2026 without a stream.
	const from = m.log.length;
	const sent = await tool26(m, 'v8', 'notify', { method: 'notifications/tools/list_changed' });
	ck.result(sent, 'complete', 'the 2026 call of notify');
	const heard = await l.waitFor((x) => x.msg?.method === 'notifications/tools/list_changed');
	ck.ok(heard !== null, 'the 2025 client did not get notifications/tools/list_changed');
	// The notification came before the call's answer on m's line.
	ck.ok(m.notes('notifications/tools/list_changed', from).length === 0,
	    'the 2026 client without a listen stream got notifications/tools/list_changed');
	const lc = await l.call('l3', 'tools/call', { name: 'echo', arguments: { text: 'x' } });
	ck.ok(text(lc) === 'x' && lc.msg.result.resultType === undefined, `tools/call (2025): ${short(lc)}`);
	// mcpd answered what 2026 dropped: none of it reached the server.
	const up = log.msgs('in', mark).filter((x) => x.method === 'resources/subscribe' ||
	    x.method === 'resources/unsubscribe' || x.method === 'logging/setLevel');
	ck.ok(up.length === 0, `the server got ${JSON.stringify(up)}`);
	m.close();
	l.close();
	return { problems: ck.problems };
}

// ---------------------------------------------------------------------------
// logs: a log line reaches a 2026 client only while one of its requests
// that named a level (at or above it) is in flight.  A 2025 client that
// asked for debug gets every line at the same time: the absence on the
// 2026 side is mcpd's doing, not timing.  A daemon that passed log lines
// to 2026 clients as to 2025 ones would give b and the low-level line to a.

async function cmdLogs(o) {
	const ck = new Checks();
	const c = await (await connect(o, 'c')).init2025();
	const lv = await c.call('lv', 'logging/setLevel', { level: 'debug' });
	ck.ok(lv?.msg?.result !== undefined, `setLevel (2025): ${short(lv)}`);
	const a = await connect(o, 'a');
	const b = await connect(o, 'b');
	const say = (conn, id, level, data, opts) => tool26(conn, id, 'notify',
	    { method: 'notifications/message', params: { level, logger: 'raw', data } }, opts);
	const got = (conn, data, from = 0) => conn.notes('notifications/message', from)
	    .filter((m) => m.msg.params?.data === data);
	const cHeard = (data) => c.waitFor((m) => m.msg?.method === 'notifications/message' &&
	    m.msg.params?.data === data);

	// a named debug: the line sent while its request runs reaches it.
	let r = await say(a, 'l1', 'info', 'with-level', { level: 'debug' });
	ck.result(r, 'complete', 'notify with logLevel debug');
	ck.ok(got(a, 'with-level').length === 1, 'a (logLevel debug) did not get the line sent during its request');
	ck.ok(await cHeard('with-level') !== null, 'the 2025 client did not get with-level');
	// b named none: nothing, while the 2025 client gets the very line.
	r = await say(b, 'l2', 'info', 'no-level');
	ck.result(r, 'complete', 'notify without logLevel');
	ck.ok(await cHeard('no-level') !== null, 'the 2025 client did not get no-level');
	ck.ok(got(b, 'no-level').length === 0, 'b (no logLevel) got a log line');
	// a has nothing in flight now: after a round trip, still nothing.
	const e = await tool26(a, 'l-echo', 'echo', { text: 'rt' });
	ck.ok(text(e) === 'rt', `echo: ${short(e)}`);
	ck.ok(got(a, 'no-level').length === 0, 'a got a line sent while none of its requests was in flight');
	// Below the level named: not sent; at it: sent.
	r = await say(a, 'l3', 'info', 'below-level', { level: 'error' });
	ck.ok(await cHeard('below-level') !== null, 'the 2025 client did not get below-level');
	ck.ok(got(a, 'below-level').length === 0, 'a (logLevel error) got an info line');
	r = await say(a, 'l4', 'error', 'at-level', { level: 'error' });
	ck.ok(got(a, 'at-level').length === 1, 'a (logLevel error) did not get an error line');
	for (const x of [a, b, c])
		x.close();
	return { problems: ck.problems };
}

// ---------------------------------------------------------------------------
// listen: streams on one connection, each with its own filter and id.  A
// daemon that sent every notification to every stream, or did not stamp
// them, or ended every stream on one cancel, or unsubscribed a URI at the
// server when one of two streams that want it ended, fails the counts.

async function cmdListen(o) {
	const ck = new Checks();
	const log = new StubLog(o.log);
	const mark = log.mark();
	const a = await connect(o, 'a');
	const ack = (id) => a.waitFor((m) => m.msg?.method ===
	    'notifications/subscriptions/acknowledged' && m.msg.params?._meta?.[K_SUB] === id);
	const listen = async (id, notifications) => {
		a.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen',
		    params: { notifications, _meta: meta('a') } });
		const m = await ack(id);
		ck.ok(m !== null, `listen ${id}: no acknowledgement`);
		return m?.msg?.params?.notifications;
	};
	let n = await listen('L1', { toolsListChanged: true });
	ck.ok(n?.toolsListChanged === true && n.resourceSubscriptions === undefined,
	    `L1's acknowledgement honored ${JSON.stringify(n)}`);
	n = await listen('L2', { resourcesListChanged: true, resourceSubscriptions: ['res://a'] });
	ck.ok(n?.resourcesListChanged === true && JSON.stringify(n.resourceSubscriptions) ===
	    '["res://a"]' && n.toolsListChanged === undefined,
	    `L2's acknowledgement honored ${JSON.stringify(n)}`);
	n = await listen('L3', { resourceSubscriptions: ['res://a', 'res://b'] });
	ck.ok(JSON.stringify(n?.resourceSubscriptions) === '["res://a","res://b"]',
	    `L3's acknowledgement honored ${JSON.stringify(n)}`);

	// notify METHOD [URI], then: which streams got it (ids, sorted).
	let k = 0;
	const fire = async (method, uri) => {
		const from = a.log.length;
		const r = await tool26(a, `n${++k}`, 'notify',
		    { method, ...(uri !== undefined ? { params: { uri } } : {}) });
		ck.result(r, 'complete', `notify ${method}`);
		// The server sent it before its answer: all of it is in.
		return a.notes(method, from).filter((m) => uri === undefined ||
		    m.msg.params?.uri === uri).map((m) => m.msg.params?._meta?.[K_SUB] ?? '(none)').sort()
		    .join(',');
	};
	const expect = async (what, method, uri, want) => {
		const got = await fire(method, uri);
		ck.ok(got === want, `${what}: ${method}${uri ? ' ' + uri : ''} reached [${got}], expected [${want}]`);
	};
	await expect('three streams', 'notifications/tools/list_changed', undefined, 'L1');
	await expect('three streams', 'notifications/resources/list_changed', undefined, 'L2');
	await expect('three streams', 'notifications/resources/updated', 'res://a', 'L2,L3');
	await expect('three streams', 'notifications/resources/updated', 'res://b', 'L3');
	await expect('three streams', 'notifications/prompts/list_changed', undefined, '');
	a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L1' } });
	await expect('L1 cancelled', 'notifications/tools/list_changed', undefined, '');
	await expect('L1 cancelled', 'notifications/resources/list_changed', undefined, 'L2');
	a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L2' } });
	await expect('L2 cancelled', 'notifications/resources/updated', 'res://a', 'L3');
	await expect('L2 cancelled', 'notifications/resources/list_changed', undefined, '');
	const subs = (uri, method) => log.msgs('in', mark).filter((x) => x.method === method &&
	    x.params?.uri === uri).length;
	ck.ok(subs('res://a', 'resources/subscribe') === 1 &&
	    subs('res://a', 'resources/unsubscribe') === 0,
	    `res://a, wanted by L3 still: the server got ${subs('res://a', 'resources/subscribe')} ` +
	    `subscribe(s) and ${subs('res://a', 'resources/unsubscribe')} unsubscribe(s), expected 1 and 0`);
	a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L3' } });
	ck.ok(await log.until('in', () => subs('res://a', 'resources/unsubscribe') === 1 &&
	    subs('res://b', 'resources/unsubscribe') === 1, mark) !== null,
	    'the last stream ended: the server did not get an unsubscribe of res://a and res://b');
	await expect('all cancelled', 'notifications/resources/updated', 'res://a', '');

	// Bad filters.
	for (const [id, notifications, re] of [
	    ['bad1', 'tools', /notifications is not an object/],
	    ['bad2', { resourceSubscriptions: 'res://a' }, /resourceSubscriptions is not an array/],
	    ['bad3', { resourceSubscriptions: [7] }, /not a URI/],
	    ['bad4', { toolsListChanged: 'yes' }, /not a boolean/]]) {
		const r = await call26(a, id, 'subscriptions/listen', { notifications });
		ck.error(r, -32602, re, `listen with notifications ${JSON.stringify(notifications)}`);
	}
	ck.error(await call26(a, 'bad5', 'subscriptions/listen', {}), -32602, /missing/,
	    'listen without notifications');
	a.close();
	return { problems: ck.problems };
}

// ---------------------------------------------------------------------------
// group: group "pair" of two stand-ins (g1, g2), neither listing any
// resource.  A 2025 client subscribes to a URI no member listed: both
// members get resources/subscribe (before the fix of "group: a subscribe
// to a URI no member listed goes to every member", only g1, the first
// that took it, did), and g2's resources/updated of it reaches the
// client.  A 2026 client's listen stream on the group the same.

async function cmdGroup(o) {
	const ck = new Checks();
	const log1 = new StubLog(o.log);
	const log2 = new StubLog(o.log2);
	const m1 = log1.mark(), m2 = log2.mark();
	const c = await (await connect(o, 'c')).init2025();
	const uri = 'res://unlisted';
	const r = await c.call('s1', 'resources/subscribe', { uri });
	ck.ok(r?.msg?.result !== undefined, `resources/subscribe of an unlisted URI: ${short(r)}`);
	const subscribed = (log, mark, u) => log.until('in', (ms) => ms.some((x) =>
	    x.method === 'resources/subscribe' && x.params?.uri === u), mark, 5000);
	ck.ok(await subscribed(log1, m1, uri) !== null, 'member g1 got no resources/subscribe');
	ck.ok(await subscribed(log2, m2, uri) !== null, 'member g2 got no resources/subscribe');
	const u = await c.call('u1', 'tools/call', { name: 'g2__notify', arguments:
	    { method: 'notifications/resources/updated', params: { uri } } });
	ck.ok(text(u) === 'sent', `g2__notify: ${short(u)}`);
	const heard = await c.waitFor((m) => m.msg?.method === 'notifications/resources/updated' &&
	    m.msg.params?.uri === uri, 5000);
	ck.ok(heard !== null, 'the 2025 client did not get g2\'s resources/updated');

	// A 2026 client's stream, on another unlisted URI.
	const uri2 = 'res://unlisted-2';
	const a = await connect(o, 'a');
	a.send({ jsonrpc: '2.0', id: 'G1', method: 'subscriptions/listen',
	    params: { notifications: { resourceSubscriptions: [uri2] }, _meta: meta('a') } });
	const ack = await a.waitFor((m) => m.msg?.method === 'notifications/subscriptions/acknowledged');
	ck.ok(JSON.stringify(ack?.msg?.params?.notifications?.resourceSubscriptions) ===
	    JSON.stringify([uri2]), `the group stream's acknowledgement: ${short(ack)}`);
	ck.ok(await subscribed(log2, m2, uri2) !== null, 'member g2 got no resources/subscribe for the stream');
	const u2 = await tool26(a, 'u2', 'g2__notify',
	    { method: 'notifications/resources/updated', params: { uri: uri2 } });
	ck.result(u2, 'complete', 'g2__notify (2026)');
	const heard2 = await a.waitFor((m) => m.msg?.method === 'notifications/resources/updated' &&
	    m.msg.params?.uri === uri2 && m.msg.params?._meta?.[K_SUB] === 'G1', 5000);
	ck.ok(heard2 !== null, 'the 2026 stream did not get g2\'s resources/updated');
	c.close();
	a.close();
	return { problems: ck.problems };
}

// ---------------------------------------------------------------------------
// tasks: server-everything's simulate-research-query (taskSupport
// "required"; ambiguous: an elicitation while input_required).  x declares
// the extension and gets a task; y does not and gets the report; z, another
// principal with the extension, cannot see x's task.

const TOPIC = 'python';

async function poll(c, id0, taskId, pred, opts) {
	const deadline = now() + 60000;
	for (let k = 0; ; k++) {
		const r = await call26(c, `${id0}-${k}`, 'tasks/get', { taskId }, opts);
		if (r?.msg?.error !== undefined || pred(r?.msg?.result))
			return r;
		if (now() > deadline)
			return r;
		await new Promise((res) => setTimeout(res, 100));
	}
}

async function cmdTasks(o) {
	const ck = new Checks();
	const ext = { caps: { elicitation: {}, extensions: { [EXT_TASKS]: {} } } };
	const x = await connect(o, 'x');
	const y = await connect(o, 'y');
	const z = await connect(o, 'z');
	const tool = 'simulate-research-query';
	const listed = await call26(x, 'x-list', 'tools/list', {}, ext);
	const t = listed?.msg?.result?.tools?.find((v) => v.name === tool);
	ck.ok(t?.execution?.taskSupport === 'required', `tools/list: ${tool} is ${JSON.stringify(t)}`);
	// y, without the extension, runs the same tool meanwhile.
	const yCall = tool26(y, 'y-call', tool, { topic: 'rust' });

	const made = await tool26(x, 'x-call', tool, { topic: TOPIC, ambiguous: true }, ext);
	const task = made?.msg?.result;
	if (!ck.ok(task?.resultType === 'task' && /^[0-9a-f]{32}$/.test(task.taskId ?? ''),
	    `tools/call with the extension: expected resultType task with mcpd's task id, got ${short(made)}`))
		return { problems: ck.problems };
	const id = task.taskId;
	let r = await poll(x, 'x-get', id, (v) => v?.status === 'input_required' &&
	    v.inputRequests !== undefined || ['completed', 'failed', 'cancelled'].includes(v?.status), ext);
	const inputs = r?.msg?.result?.inputRequests ?? {};
	const keys = Object.keys(inputs);
	if (!ck.ok(r?.msg?.result?.status === 'input_required' && keys.length === 1 &&
	    inputs[keys[0]].method === 'elicitation/create',
	    `tasks/get: expected input_required with the server's elicitation, got ${short(r)}`))
		return { problems: ck.problems };
	// z, another principal, declaring the extension: not its task.
	ck.error(await call26(z, 'z-get', 'tasks/get', { taskId: id }, ext), -32602, /not found/i,
	    'another principal\'s tasks/get of x\'s task');
	r = await call26(x, 'x-update', 'tasks/update', { taskId: id,
	    inputResponses: { [keys[0]]: { action: 'accept', content: { interpretation: 'snake' } } } }, ext);
	ck.result(r, 'complete', 'tasks/update');
	r = await poll(x, 'x-done', id, (v) => ['completed', 'failed', 'cancelled'].includes(v?.status), ext);
	const res = r?.msg?.result;
	ck.ok(res?.status === 'completed' && /Clarification\*\*: snake/.test(res.result?.content?.[0]?.text ?? ''),
	    `tasks/get at the end: expected completed with the report of the interpretation "snake" inline, got ${short(r)}`);

	// y: the plain result, no task; its tasks/get needs the extension.
	const yr = await yCall;
	ck.result(yr, 'complete', 'tools/call without the extension');
	ck.ok(/Research Report: rust/.test(text(yr) ?? ''), `y's call: expected the report, got ${short(yr)}`);
	const yg = await call26(y, 'y-get', 'tasks/get', { taskId: id });
	ck.ok(yg?.msg?.error?.code === -32021 && JSON.stringify(yg.msg.error).includes(EXT_TASKS),
	    `tasks/get without the extension: expected -32021 naming ${EXT_TASKS}, got ${short(yg)}`);
	ck.error(await call26(z, 'z-get2', 'tasks/get', { taskId: id }, ext), -32602, /not found/i,
	    'another principal\'s tasks/get of x\'s ended task');
	for (const c of [x, y, z])
		c.close();
	return { task: id, problems: ck.problems };
}

// ---------------------------------------------------------------------------

const COMMANDS = {
	state: cmdState,
	expire: cmdExpire,
	bound: cmdBound,
	versions: cmdVersions,
	logs: cmdLogs,
	listen: cmdListen,
	group: cmdGroup,
	tasks: cmdTasks,
};

async function main() {
	const [cmd, ...rest] = process.argv.slice(2);
	const o = { server: 'stub' };
	for (let i = 0; i < rest.length; i += 2) {
		const m = /^--(sock|server|log|log2)$/.exec(rest[i]);
		if (m === null || rest[i + 1] === undefined) {
			process.stderr.write(`modern-client: bad argument ${rest[i]}\n`);
			process.exit(2);
		}
		o[m[1]] = rest[i + 1];
	}
	if (!(cmd in COMMANDS) || o.sock === undefined) {
		process.stderr.write(`usage: node modern-client.mjs ${Object.keys(COMMANDS).join('|')} ` +
		    '--sock PATH [--server NAME] [--log FILE] [--log2 FILE]\n');
		process.exit(2);
	}
	try {
		const out = await COMMANDS[cmd](o);
		process.stdout.write(JSON.stringify(out) + '\n');
		process.exit(0);
	} catch (e) {
		process.stderr.write(`modern-client: ${e instanceof Abort ? e.message : e.stack}\n`);
		process.exit(3);
	}
}

main();
