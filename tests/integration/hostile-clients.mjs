// hostile-clients.mjs -- the client side of hostile-clients.sh: attach to
// a server over mcpd's socket, then run one scenario and print a JSON
// summary.  Only Node's built-in modules are used.
//
//   pairs N        N requests each followed by its cancellation
//   inflight N     N requests at once, none answered by the server
//   subscribe N    N resources/subscribe with distinct 4 KiB URIs
//   held N BYTES   N requests of BYTES each while the server starts
//   longid         a request whose id is 2000 bytes
//   noread BYTES MS  ask for a reply of BYTES, read nothing for MS, then
//                  read: was the connection closed, and how much came?
import net from 'node:net';

const [sock, server, scenario, arg1, arg2] = process.argv.slice(2);
const c = net.connect(sock);
let buf = '', received = 0, ended = false;
c.on('data', (d) => { received += d.length; });
c.on('end', () => { ended = true; });
c.on('error', () => {});
const waiters = new Map();	// id text -> resolve
const replies = [];
c.on('data', (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, i);
		buf = buf.slice(i + 1);
		const m = JSON.parse(line);
		if (m.id === undefined)
			continue;
		replies.push(m);
		const w = waiters.get(JSON.stringify(m.id));
		if (w) {
			waiters.delete(JSON.stringify(m.id));
			w(m);
		}
	}
});
const send = (obj) => new Promise((r) => {
	if (c.write(JSON.stringify(obj) + '\n'))
		r();
	else
		c.once('drain', r);
});
const call = async (id, method, params) => {
	const p = new Promise((r) => waiters.set(JSON.stringify(id), r));
	await send({ jsonrpc: '2.0', id, method, params });
	return p;
};
const codes = (list) => {
	const out = {};
	for (const m of list)
		out[m.error ? m.error.code : 'ok'] = (out[m.error ? m.error.code : 'ok'] ?? 0) + 1;
	return out;
};
await new Promise((r) => c.once('connect', r));
await call('att', 'mcpd/attach', { server });
const out = { scenario };
if (scenario !== 'held')
	await call('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {},
	    clientInfo: { name: 'hostile', version: '1' } });
const n = Number(arg1);
if (scenario === 'pairs') {
	for (let i = 1; i <= n; i++) {
		await send({ jsonrpc: '2.0', id: i, method: 'tools/call',
		    params: { name: 'echo', arguments: { text: 'x' } } });
		await send({ jsonrpc: '2.0', method: 'notifications/cancelled',
		    params: { requestId: i, reason: 'test' } });
	}
	// Answered by mcpd after every line before it was handled.
	const s = await call('done', 'mcpd/status', { servers: [server] });
	out.inflight_after = s.result.servers[0].inflight;
	out.replies = replies.length - 3;
} else if (scenario === 'inflight') {
	const before = replies.length;
	for (let i = 1; i <= n; i++)
		await send({ jsonrpc: '2.0', id: i, method: 'tools/call',
		    params: { name: 'echo', arguments: { text: 'x' } } });
	const s = await call('done', 'mcpd/status', { servers: [server] });
	out.inflight = s.result.servers[0].inflight;
	const errs = replies.slice(before).filter((m) => m.id !== 'done');
	out.codes = codes(errs);
	out.message = errs.find((m) => m.error)?.error.message ?? null;
} else if (scenario === 'subscribe') {
	const got = [];
	for (let i = 1; i <= n; i++)
		got.push(call(i, 'resources/subscribe',
		    { uri: 'fake://hello?' + String(i).padStart(8, '0') + 'x'.repeat(4096 - 30) }));
	const all = await Promise.all(got);
	out.codes = codes(all);
	out.message = all.find((m) => m.error)?.error.message ?? null;
} else if (scenario === 'held') {
	const pad = 'y'.repeat(Number(arg2));
	const got = [];
	for (let i = 1; i <= n; i++)
		got.push(call(i, 'tools/call', { name: 'echo', arguments: { text: pad } }));
	// Held requests are answered only when the server is ready or fails.
	// Hold long enough that every client of a batch started on a loaded
	// machine (node takes a while) is there while the first still holds.
	const first = await Promise.race([Promise.all(got), new Promise((r) => setTimeout(r, 8000))]);
	out.codes = codes(replies.filter((m) => m.id !== 'att'));
	out.message = replies.find((m) => m.error)?.error.message ?? null;
} else if (scenario === 'noread') {
	await send({ jsonrpc: '2.0', id: 'big', method: 'tools/call',
	    params: { name: 'big', arguments: { bytes: n } } });
	c.pause();
	await new Promise((r) => setTimeout(r, Number(arg2)));
	const before = received;
	c.resume();
	await new Promise((r) => {
		c.once('close', r);
		setTimeout(r, 3000);
	});
	out.closed = ended;
	out.bytes = received - before;
	out.got_reply = replies.some((m) => m.id === 'big');
	console.log(JSON.stringify(out));
	process.exit(0);
} else if (scenario === 'longid') {
	const m = await call('i'.repeat(2000), 'tools/call', { name: 'echo', arguments: { text: 'x' } });
	out.code = m.error?.code ?? null;
	out.message = m.error?.message ?? null;
}
console.log(JSON.stringify(out));
c.destroy();
process.exit(0);
