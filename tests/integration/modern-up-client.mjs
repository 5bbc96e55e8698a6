// modern-up-client.mjs MCPCTL SOCK SERVER [--caps none] [--silent] STEP...
// -- a 2025 client (raw JSON lines, no SDK) through `MCPCTL -s SOCK
// connect SERVER`, for modern-up-hostile.sh.  It initializes (2025-11-25,
// declaring elicitation unless --caps none) and runs its steps in turn:
//   call:TOOL    tools/call TOOL; an elicitation/create the server sends
//                meanwhile is answered {accept, {name: "Ada"}} (with
//                --silent, never answered)
//   cancel:TOOL  tools/call TOOL; at the first elicitation/create, the
//                call is cancelled (notifications/cancelled); the step
//                waits for the server's notifications/cancelled of that
//                elicitation (mcpd withdrawing it) or 20 s
// Prints {steps: [{step, result | error, asked: [methods], withdrawn}]}.
// Only Node's built-in modules are used.
import { spawn } from 'node:child_process';
import readline from 'node:readline';

const [mcpctl, sock, server, ...rest] = process.argv.slice(2);
const caps = rest.includes('--caps') && rest[rest.indexOf('--caps') + 1] === 'none' ?
	{} : { elicitation: {} };
const silent = rest.includes('--silent');
const steps = rest.filter((a) => /^(call|cancel):/.test(a));
const child = spawn(mcpctl, ['-s', sock, 'connect', server], { stdio: ['pipe', 'pipe', 'inherit'] });
const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
const waiters = new Map();
let onMessage = () => {};
let nextId = 1;

readline.createInterface({ input: child.stdout }).on('line', (line) => {
	let m;
	try {
		m = JSON.parse(line);
	} catch {
		return;
	}
	if (m.method === undefined && waiters.has(m.id)) {
		waiters.get(m.id)(m);
		waiters.delete(m.id);
		return;
	}
	onMessage(m);
});

function request(method, params, ms = 30000) {
	const id = nextId++;
	return { id, done: new Promise((resolve) => {
		waiters.set(id, resolve);
		setTimeout(() => resolve({ error: { message: 'no answer within ' + ms + ' ms' } }), ms);
		send({ jsonrpc: '2.0', id, method, params });
	}) };
}

const out = { steps: [] };
const init = await request('initialize', { protocolVersion: '2025-11-25',
	capabilities: caps, clientInfo: { name: 'up-hostile-client', version: '1' } }).done;
out.init = init.result ? 'ok' : init.error;
send({ jsonrpc: '2.0', method: 'notifications/initialized' });
for (const s of steps) {
	const [kind, tool] = s.split(':');
	const rec = { step: s, asked: [], withdrawn: false };
	let cancelled = null, withdrawnNow;
	const withdrawn = new Promise((r) => { withdrawnNow = r; });
	const call = request('tools/call', { name: tool, arguments: {} });
	onMessage = (m) => {
		if (m.method === 'notifications/cancelled' && cancelled !== null &&
		    m.params?.requestId === cancelled) {
			rec.withdrawn = true;
			withdrawnNow();
		}
		if (m.id === undefined || m.method === undefined)
			return;
		rec.asked.push(m.method);
		if (kind === 'cancel') {
			cancelled = m.id;
			send({ jsonrpc: '2.0', method: 'notifications/cancelled',
				params: { requestId: call.id, reason: 'test' } });
			return;
		}
		if (silent)
			return;
		send({ jsonrpc: '2.0', id: m.id, result: m.method === 'elicitation/create' ?
			{ action: 'accept', content: { name: 'Ada' } } : {} });
	};
	if (kind === 'cancel') {
		await Promise.race([withdrawn, new Promise((r) => setTimeout(r, 20000))]);
	} else {
		const r = await call.done;
		if (r.error)
			rec.error = r.error;
		else
			rec.result = r.result?.content?.[0]?.text ?? r.result;
	}
	out.steps.push(rec);
}
process.stdout.write(JSON.stringify(out) + '\n');
child.stdin.end();
child.kill();
process.exit(0);
