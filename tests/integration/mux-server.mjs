// mux-server.mjs -- a stand-in MCP server for the mux-*.sh tests.
//
// It exists because mcp-fake cannot produce this traffic: requests to the
// client side (sampling/createMessage, roots/list, ping), notifications on
// demand (resources/updated, message, list_changed), sleeps that run
// concurrently (and one kind that still replies after a cancel), and a log
// of every line it receives and sends, so a test can see exactly what
// reached the server.
//
// Usage: node mux-server.mjs --log FILE
//
// Speaks newline-delimited JSON-RPC on stdin/stdout.  FILE gets one JSON
// object per line: {"t": MS, "dir": "in"|"out", "msg": MESSAGE}, MESSAGE
// being the line exactly as received or sent (so ids keep their text).
// Exits when stdin ends.
//
// Tools (tools/call):
//   echo {text}                   the text
//   sleep {ms, tag, ignore_cancel} "slept N ms" after ms; a
//                                 notifications/cancelled for it ends it
//                                 without a reply unless ignore_cancel
//   ask {text}                    sends sampling/createMessage (id
//                                 "srv-N") to the client, waits for the
//                                 answer and returns, as JSON text,
//                                 {ms, id, response}: the raw id text of the
//                                 answer and the answer itself
//   roots {}                      the same with roots/list (id "roots-N")
//   ping {}                       the same with ping (numeric id 7000+N)
//   notify {method, params}       sends that notification, then "sent"
//   request {method, params}      sends that request (id "req-N") to the
//                                 client and returns, as JSON text, the
//                                 same as ask
//   content {content}             the result {content} as given
// Also: initialize, ping, resources/subscribe, resources/unsubscribe,
// logging/setLevel ({}), resources/list, tools/list; anything else -32601.

import fs from 'node:fs';
import { rawMembers } from './rawjson.mjs';

const args = process.argv.slice(2);
let logFile = null;
for (let i = 0; i < args.length; i++) {
	if (args[i] === '--log')
		logFile = args[++i];
	else {
		process.stderr.write(`mux-server: unknown argument ${args[i]}\n`);
		process.exit(2);
	}
}

function record(dir, line) {
	if (logFile !== null)
		fs.appendFileSync(logFile, `{"t":${Date.now()},"dir":"${dir}","msg":${line}}\n`);
}

function send(obj) {
	const line = typeof obj === 'string' ? obj : JSON.stringify(obj);
	record('out', line);
	process.stdout.write(line + '\n');
}

// The raw text of the members of a JSON object (ids keep their text).
function rawMember(s, name) {
	return rawMembers(s)?.[name] ?? null;
}

function result(idText, res) {
	send(`{"jsonrpc":"2.0","id":${idText},"result":${JSON.stringify(res)}}`);
}

function error(idText, code, message) {
	send(`{"jsonrpc":"2.0","id":${idText},"error":${JSON.stringify({ code, message })}}`);
}

function text(idText, t, isError) {
	const res = { content: [{ type: 'text', text: t }] };
	if (isError)
		res.isError = true;
	result(idText, res);
}

const sleeps = new Map();	// raw id text -> {timer, ignoreCancel}
const asked = new Map();	// raw id text of our request -> callback
let nextAsk = 0;

function askClient(method, params, idText, done) {
	const t0 = Date.now();
	asked.set(idText, (line, msg) => done({
		ms: Date.now() - t0,
		id: rawMember(line, 'id'),
		response: msg,
	}));
	send(`{"jsonrpc":"2.0","id":${idText},"method":${JSON.stringify(method)}` +
	    (params !== undefined ? `,"params":${JSON.stringify(params)}` : '') + '}');
}

function toolCall(idText, params) {
	const name = params?.name;
	const a = params?.arguments ?? {};
	switch (name) {
	case 'echo':
		text(idText, String(a.text ?? ''));
		return;
	case 'sleep': {
		const ms = Number(a.ms ?? 0);
		const timer = setTimeout(() => {
			sleeps.delete(idText);
			text(idText, `slept ${ms} ms`);
		}, ms);
		sleeps.set(idText, { timer, ignoreCancel: !!a.ignore_cancel });
		return;
	}
	case 'ask': {
		const n = ++nextAsk;
		askClient('sampling/createMessage', {
			messages: [{ role: 'user', content: { type: 'text', text: String(a.text ?? '') } }],
			maxTokens: 16,
		}, JSON.stringify(`srv-${n}`), (r) => text(idText, JSON.stringify(r)));
		return;
	}
	case 'roots': {
		const n = ++nextAsk;
		askClient('roots/list', undefined, JSON.stringify(`roots-${n}`),
		    (r) => text(idText, JSON.stringify(r)));
		return;
	}
	case 'ping': {
		const n = ++nextAsk;
		askClient('ping', undefined, String(7000 + n),
		    (r) => text(idText, JSON.stringify(r)));
		return;
	}
	case 'request': {
		const n = ++nextAsk;
		askClient(String(a.method), a.params, JSON.stringify(`req-${n}`),
		    (r) => text(idText, JSON.stringify(r)));
		return;
	}
	case 'content':
		result(idText, { content: a.content ?? [] });
		return;
	case 'notify': {
		const line = `{"jsonrpc":"2.0","method":${JSON.stringify(a.method)}` +
		    (a.params !== undefined ? `,"params":${JSON.stringify(a.params)}` : '') + '}';
		send(line);
		text(idText, 'sent');
		return;
	}
	default:
		error(idText, -32602, `unknown tool: ${name}`);
	}
}

function handle(line) {
	record('in', line);
	let msg;
	try {
		msg = JSON.parse(line);
	} catch {
		error('null', -32700, 'parse error');
		return;
	}
	const idText = rawMember(line, 'id');
	if (msg.method === undefined) {
		// A response to one of our requests.
		const cb = asked.get(idText);
		if (cb !== undefined) {
			asked.delete(idText);
			cb(line, msg);
		}
		return;
	}
	if (idText === null) {
		if (msg.method === 'notifications/cancelled') {
			const rid = JSON.stringify(msg.params?.requestId);
			const s = sleeps.get(rid);
			if (s !== undefined && !s.ignoreCancel) {
				clearTimeout(s.timer);
				sleeps.delete(rid);
			}
		}
		return;
	}
	switch (msg.method) {
	case 'initialize':
		result(idText, {
			protocolVersion: msg.params?.protocolVersion ?? '2025-11-25',
			capabilities: {
				tools: { listChanged: true },
				resources: { subscribe: true, listChanged: true },
				logging: {},
			},
			serverInfo: { name: 'mux-server', version: '1.0.0' },
		});
		return;
	case 'ping':
	case 'resources/subscribe':
	case 'resources/unsubscribe':
	case 'logging/setLevel':
		result(idText, {});
		return;
	case 'resources/list':
		result(idText, { resources: [] });
		return;
	case 'tools/list':
		result(idText, { tools: ['echo', 'sleep', 'ask', 'roots', 'ping', 'notify',
		    'request', 'content'].map(
		    (name) => ({ name, inputSchema: { type: 'object' } })) });
		return;
	case 'tools/call':
		toolCall(idText, msg.params);
		return;
	default:
		error(idText, -32601, `method not found: ${msg.method}`);
	}
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
	buf += chunk;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl).replace(/\r$/, '');
		buf = buf.slice(nl + 1);
		if (line.length > 0)
			handle(line);
	}
});
process.stdin.on('end', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
