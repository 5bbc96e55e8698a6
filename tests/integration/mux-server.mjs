// mux-server.mjs -- a stand-in MCP server for the mux-*.sh tests.
//
// It exists because mcp-fake cannot produce this traffic: requests to the
// client side (sampling/createMessage, roots/list, ping), notifications on
// demand (resources/updated, message, list_changed), sleeps that run
// concurrently (and one kind that still replies after a cancel), and a log
// of every line it receives and sends, so a test can see exactly what
// reached the server.
//
// Usage: node mux-server.mjs --log FILE [--tasks]
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
//                                 client side, waits for the answer and
//                                 returns {ms, id, response} as ask does
//   finish {taskId}               ends that task ("completed"), telling
//                                 nobody: "finished"
//   task-progress {taskId, n}     sends n notifications/progress under the
//                                 token of the call that made the task
//                                 (waiting for it to be made): "sent"
//   content {content}             the result {content} as given
// With --tasks it declares tasks for tools/call, and a tools/call with
// "task" (of any tool) makes a task instead: the answer
// is a CreateTaskResult (taskId "srv-task-N", working), tasks/get tells
// its status, tasks/result its result ("done N") once finished; it sends
// no status notifications.  Its tool "job" needs a task
// (execution.taskSupport "required").
// Also: initialize, ping, resources/subscribe, resources/unsubscribe,
// logging/setLevel ({}), resources/list, tools/list; anything else -32601.

import fs from 'node:fs';
import { rawMembers } from './rawjson.mjs';

const args = process.argv.slice(2);
let logFile = null;
let withTasks = false;
for (let i = 0; i < args.length; i++) {
	if (args[i] === '--log')
		logFile = args[++i];
	else if (args[i] === '--tasks')
		withTasks = true;
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

const tasks = new Map();	// taskId -> {status, token, results: [idText]}

function taskObject(taskId) {
	return { taskId, status: tasks.get(taskId).status, ttl: 60000,
	    createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z' };
}

function taskMethod(idText, method, params) {
	const t = tasks.get(params?.taskId);
	if (t === undefined) {
		error(idText, -32602, 'Task not found');
		return;
	}
	if (method === 'tasks/get')
		result(idText, taskObject(params.taskId));
	else if (t.status === 'completed')
		text(idText, `done ${params.taskId}`);
	else
		t.results.push(idText);
}

function toolCall(idText, params) {
	const name = params?.name;
	const a = params?.arguments ?? {};
	if (params?.task !== undefined) {
		const taskId = `srv-task-${tasks.size + 1}`;
		tasks.set(taskId, { status: 'working', results: [],
		    token: params?._meta?.progressToken });
		result(idText, { task: taskObject(taskId) });
		return;
	}
	switch (name) {
	case 'finish': {
		const t = tasks.get(a.taskId);
		if (t !== undefined) {
			t.status = 'completed';
			for (const r of t.results)
				text(r, `done ${a.taskId}`);
			t.results = [];
		}
		text(idText, t !== undefined ? 'finished' : 'no such task');
		return;
	}
	case 'task-progress': {
		// A task not made yet is waited for (10 s at most).
		const t0 = Date.now();
		const go = () => {
			const t = tasks.get(a.taskId);
			if (t === undefined && Date.now() - t0 < 10000) {
				setTimeout(go, 10);
				return;
			}
			for (let i = 1; i <= Number(a.n ?? 1); i++)
				send({ jsonrpc: '2.0', method: 'notifications/progress',
				    params: { progressToken: t?.token, progress: i } });
			text(idText, t !== undefined ? 'sent' : 'no such task');
		};
		go();
		return;
	}
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
				...(withTasks ? { tasks: { requests: { tools: { call: {} } } } } : {}),
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
		result(idText, { tools: ['echo', 'sleep', 'ask', 'roots', 'ping', 'notify', 'request',
		    'content', 'finish', 'task-progress'].map(
		    (name) => ({ name, inputSchema: { type: 'object' } })).concat(withTasks ?
		    [{ name: 'job', inputSchema: { type: 'object' },
		    execution: { taskSupport: 'required' } }] : []) });
		return;
	case 'tools/call':
		toolCall(idText, msg.params);
		return;
	case 'tasks/get':
	case 'tasks/result':
		taskMethod(idText, msg.method, msg.params);
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
