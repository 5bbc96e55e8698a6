// mux-versions.mjs -- clients of each MCP protocol version on one server
// (mux-server.mjs, whose session with mcpd is 2025-11-25), for
// mux-versions.sh.
//
// Usage: node mux-versions.mjs --sock PATH --server NAME
//
// Five connections attach and initialize: A 2025-11-25 declaring
// sampling.tools and elicitation form and url; B 2025-06-18, D 2025-03-26
// and C 2024-11-05, each declaring sampling and elicitation; N 2025-11-25
// declaring nothing.  Each answers every request of the server's with
// {"by": NAME, "got": PARAMS}, so the server's tool result says who was
// asked and what it was sent.  Then each, in turn, has the server ask
// (tool "request", while its call is the only one in flight) and return
// content blocks (tool "content"), and the outcomes are checked:
// which requests reach which client (the exact capability, and the
// version that has it), and what it is sent (forms, sampling messages,
// call results made fit for its version).  Prints one JSON summary,
// {"cases": {...}, "problems": [...]}; exit 0 when it ran to its end.
//
// Only Node's built-in modules are used.

import net from 'node:net';

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i += 2)
	opt[args[i].replace(/^--/, '')] = args[i + 1];
if (!opt.sock || !opt.server) {
	process.stderr.write('usage: node mux-versions.mjs --sock PATH --server NAME\n');
	process.exit(2);
}

const TIMEOUT_MS = 30000;
const problems = [];
const cases = {};

class Conn {
	constructor(name) {
		this.name = name;
		this.next = 1;
		this.pending = new Map();
		this.buf = '';
		this.asked = [];	// server requests that came
	}

	open() {
		return new Promise((resolve, reject) => {
			this.sock = net.createConnection(opt.sock);
			this.sock.setEncoding('utf8');
			this.sock.on('connect', () => resolve());
			this.sock.on('error', (e) => reject(e));
			this.sock.on('data', (d) => {
				this.buf += d;
				let nl;
				while ((nl = this.buf.indexOf('\n')) >= 0) {
					const line = this.buf.slice(0, nl);
					this.buf = this.buf.slice(nl + 1);
					this.message(JSON.parse(line));
				}
			});
		});
	}

	message(m) {
		if (m.method !== undefined && m.id !== undefined) {
			this.asked.push(m);
			const result = m.method === 'sampling/createMessage' ?
			    { role: 'assistant', model: 'm',
			      content: { type: 'text', text: this.name },
			      by: this.name, got: m.params } :
			    m.method === 'elicitation/create' ?
			    { action: 'decline', by: this.name, got: m.params } :
			    { by: this.name, got: m.params };
			this.write({ jsonrpc: '2.0', id: m.id, result });
			return;
		}
		if (m.method !== undefined)
			return;
		const p = this.pending.get(JSON.stringify(m.id));
		if (p !== undefined) {
			this.pending.delete(JSON.stringify(m.id));
			clearTimeout(p.timer);
			p.resolve(m);
		}
	}

	write(obj) {
		this.sock.write(JSON.stringify(obj) + '\n');
	}

	request(method, params) {
		const id = this.next++;
		this.write({ jsonrpc: '2.0', id, method, params });
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.pending.delete(JSON.stringify(id));
				resolve({ error: { code: 'timeout' } });
			}, TIMEOUT_MS);
			this.pending.set(JSON.stringify(id), { resolve, timer });
		});
	}

	// The server's request as the tool made it: {response} of its client.
	async ask(method, params) {
		const r = await this.request('tools/call',
		    { name: 'request', arguments: { method, params } });
		const text = r.result?.content?.[0]?.text;
		if (text === undefined)
			return { error: r.error ?? r };
		return JSON.parse(text).response;
	}
}

const clients = {
	A: ['2025-11-25', { sampling: { tools: {} }, elicitation: { form: {}, url: {} } }],
	B: ['2025-06-18', { sampling: {}, elicitation: {} }],
	D: ['2025-03-26', { sampling: {}, elicitation: {} }],
	C: ['2024-11-05', { sampling: {}, elicitation: {} }],
	N: ['2025-11-25', {}],
};
const conns = {};
for (const [name, [version, capabilities]] of Object.entries(clients)) {
	const c = conns[name] = new Conn(name);
	await c.open();
	const at = await c.request('mcpd/attach', { server: opt.server });
	if (at.error)
		throw new Error(`${name}: attach: ${JSON.stringify(at.error)}`);
	const init = await c.request('initialize', { protocolVersion: version,
	    capabilities, clientInfo: { name, version: '1' } });
	if (init.result?.protocolVersion !== version)
		problems.push(`${name}: asked ${version}, got ${JSON.stringify(init)}`);
	c.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
}

const form = { message: 'm', requestedSchema: { type: 'object',
    properties: { name: { type: 'string', default: 'x' } } } };
const rich = { message: 'm', requestedSchema: { type: 'object', properties: {
    hero: { type: 'string', oneOf: [{ const: 'h1', title: 'One' },
	{ const: 'h2', title: 'Two' }] },
    many: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
}, required: ['hero'] } };
const needsMany = { message: 'm', requestedSchema: { type: 'object',
    properties: { many: { type: 'array', items: { type: 'string',
	enum: ['a'] } } }, required: ['many'] } };
const url = { mode: 'url', message: 'm', url: 'https://example.com/x',
    elicitationId: 'e1' };
const msg = (content) => ({ messages: [{ role: 'user', content }], maxTokens: 5 });
const sampling = msg({ type: 'text', text: 'hi' });
const withTools = { ...sampling, tools: [{ name: 't', inputSchema: { type: 'object' } }] };
const audio = msg({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' });

// kind: [method, params, the clients it reaches]
const kinds = {
	form: ['elicitation/create', form, ['A', 'B']],
	url: ['elicitation/create', url, ['A']],
	sampling: ['sampling/createMessage', sampling, ['A', 'B', 'D', 'C']],
	tools: ['sampling/createMessage', withTools, ['A']],
	needsMany: ['elicitation/create', needsMany, ['A']],
	rich: ['elicitation/create', rich, ['A', 'B']],
	audio: ['sampling/createMessage', audio, ['A', 'B', 'D', 'C']],
};
for (const [kind, [method, params, reach]] of Object.entries(kinds)) {
	for (const name of Object.keys(clients)) {
		const r = await conns[name].ask(method, params);
		const by = r?.result?.by ?? null;
		cases[`${kind} ${name}`] = by !== null ? { by, got: r.result.got } :
		    { error: r?.error?.code ?? r };
		const want = reach.includes(name);
		if (want && by !== name)
			problems.push(`${kind}: ${name} was not asked: ${JSON.stringify(r)}`);
		if (!want && by !== null)
			problems.push(`${kind}: ${name} was asked, though it cannot: ${JSON.stringify(r)}`);
		if (!want && r?.error === undefined)
			problems.push(`${kind}: the server got no error for ${name}: ${JSON.stringify(r)}`);
	}
}

// What each was sent.
const got = (k) => cases[k]?.got;
if (JSON.stringify(got('form B')) !== JSON.stringify({ message: 'm',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }))
	problems.push(`form B: 2025-06-18 was sent ${JSON.stringify(got('form B'))}`);
if (JSON.stringify(got('form A')) !== JSON.stringify(form))
	problems.push(`form A: 2025-11-25 was sent ${JSON.stringify(got('form A'))}`);
if (JSON.stringify(got('rich B')?.requestedSchema) !== JSON.stringify({
    type: 'object', properties: { hero: { type: 'string', enum: ['h1', 'h2'],
	enumNames: ['One', 'Two'] } }, required: ['hero'] }))
	problems.push(`rich B: 2025-06-18 was sent ${JSON.stringify(got('rich B'))}`);
if (JSON.stringify(got('rich A')) !== JSON.stringify(rich))
	problems.push(`rich A: 2025-11-25 was sent ${JSON.stringify(got('rich A'))}`);
if (got('audio C')?.messages?.[0]?.content?.type !== 'text' ||
    !/^Audio \(audio\/wav, 3 bytes\) not shown: MCP 2024-11-05/.test(
    got('audio C').messages[0].content.text))
	problems.push(`audio C: 2024-11-05 was sent ${JSON.stringify(got('audio C'))}`);
if (got('audio D')?.messages?.[0]?.content?.type !== 'audio')
	problems.push(`audio D: 2025-03-26 was sent ${JSON.stringify(got('audio D'))}`);

// A call's result: resource_link and audio, as each version has them.
const blocks = [
	{ type: 'resource_link', uri: 'test://r/1', name: 'one', mimeType: 'text/plain' },
	{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
	{ type: 'text', text: 'plain' },
];
const wantTypes = {
	A: ['resource_link', 'audio', 'text'],
	B: ['resource_link', 'audio', 'text'],
	D: ['text', 'audio', 'text'],
	C: ['text', 'text', 'text'],
};
for (const [name, want] of Object.entries(wantTypes)) {
	const r = await conns[name].request('tools/call',
	    { name: 'content', arguments: { content: blocks } });
	const content = r.result?.content ?? [];
	cases[`content ${name}`] = content;
	if (JSON.stringify(content.map((b) => b.type)) !== JSON.stringify(want))
		problems.push(`content ${name}: ${JSON.stringify(r)}`);
	if (want[0] === 'text' && content[0]?.text !==
	    'Resource link "one": test://r/1 (text/plain)')
		problems.push(`content ${name}: the link is ${JSON.stringify(content[0])}`);
}

for (const c of Object.values(conns))
	c.sock.end();
process.stdout.write(JSON.stringify({ cases, problems }) + '\n');
process.exit(0);
