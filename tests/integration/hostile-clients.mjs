// hostile-clients.mjs -- the client side of hostile-clients.sh: attach to
// a server over mcpd's socket, then run one scenario and print a JSON
// summary.  Only Node's built-in modules are used.
//
//   pairs N        N requests each followed by its cancellation
//   inflight N     N requests at once, none answered by the server
//   subscribe N    N resources/subscribe with distinct 4 KiB URIs
//   held N BYTES [DIR]  N requests of BYTES each while the server starts;
//                  with DIR, once mcpd has held or refused them all, say
//                  so (DIR/ready.PID) and hold on until DIR/go exists
//   longid         a request whose id is 2000 bytes
//   reads N BYTES DIR  N resources/read of BYTES each (URIs nobody
//                  lists, so a group tries its members in turn); once
//                  mcpd has taken or refused them all, say so
//                  (DIR/ready.PID) and hold on until DIR/go exists
//   lists N DIR    N tools/list at once; then as reads
//   noread BYTES GO  ask for a reply of BYTES; once mcpd has begun to
//                  send it (one chunk is read), has refused, or has
//                  closed, say so (GO.ready.PID) and read nothing more
//                  until the file GO exists; then read until the reply or
//                  the close: was the connection closed, and how much
//                  came?
import fs from 'node:fs';
import net from 'node:net';

const [sock, server, scenario, arg1, arg2, arg3] = process.argv.slice(2);
const c = net.connect(sock);
let received = 0, ended = false, gone = false;
const closed = new Promise((r) => c.once('close', () => {
	gone = true;
	r();
}));
c.on('data', (d) => { received += d.length; });
c.on('end', () => { ended = true; });
c.on('error', () => {});
const waiters = new Map();	// id text -> resolve
const replies = [];
// Lines are cut from the chunks as they come: a reply of many MiB is
// joined once, not searched again for each chunk.
const parts = [];
c.on('data', (d) => {
	let start = 0, i;
	while ((i = d.indexOf(10, start)) >= 0) {
		parts.push(d.subarray(start, i));
		const line = Buffer.concat(parts).toString();
		parts.length = 0;
		start = i + 1;
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
	if (start < d.length)
		parts.push(d.subarray(start));
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// until(FILE): resolves once FILE exists (a barrier the test lifts).
const until = async (file) => {
	while (!fs.existsSync(file))
		await sleep(20);
};
// Resolves once written, or once the connection is gone (mcpd may close
// it while a long line is being written).
const send = (obj) => new Promise((r) => {
	if (c.write(JSON.stringify(obj) + '\n'))
		r();
	else {
		c.once('drain', r);
		closed.then(r);
	}
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
	for (let i = 1; i <= n; i++)
		await send({ jsonrpc: '2.0', id: i, method: 'tools/call',
		    params: { name: 'echo', arguments: { text: pad } } });
	// Held requests are answered only when the server is ready or fails;
	// refused ones at once.  mcpd answers this after every line before it
	// was held or refused (unless it closes the connection).
	await Promise.race([call('done', 'mcpd/status', { servers: [server] }), closed]);
	out.closed = ended;
	out.codes = codes(replies.filter((m) => m.id !== 'att' && m.id !== 'done'));
	out.message = replies.find((m) => m.error)?.error.message ?? null;
	if (arg3 !== undefined) {
		// Still holding them while the other clients come.
		fs.writeFileSync(`${arg3}/ready.${process.pid}`, '');
		await until(`${arg3}/go`);
	}
} else if (scenario === 'noread') {
	await send({ jsonrpc: '2.0', id: 'big', method: 'tools/call',
	    params: { name: 'big', arguments: { bytes: n } } });
	// One chunk (64 KiB at most) says that mcpd has begun to send or has
	// refused; then nothing more is read until GO.
	await Promise.race([closed, new Promise((r) => c.once('data', () => {
		c.pause();
		r();
	}))]);
	fs.writeFileSync(`${arg2}.ready.${process.pid}`, '');
	await until(arg2);
	const before = received;
	c.resume();
	// Until the reply or the close; 60 s is only a safety net.
	await Promise.race([closed, sleep(60000), (async () => {
		while (!replies.some((m) => m.id === 'big'))
			await sleep(20);
	})()]);
	out.closed = ended;
	out.bytes = received - before;
	out.got_reply = replies.some((m) => m.id === 'big');
	console.log(JSON.stringify(out));
	process.exit(0);
} else if (scenario === 'reads' || scenario === 'lists') {
	const dir = scenario === 'reads' ? arg3 : arg2;
	const pad = scenario === 'reads' ? 'z'.repeat(Number(arg2)) : '';
	for (let i = 1; i <= n && !ended; i++) {
		if (scenario === 'reads')
			await send({ jsonrpc: '2.0', id: i, method: 'resources/read',
			    params: { uri: `nowhere://r/${i}`, pad } });
		else
			await send({ jsonrpc: '2.0', id: i, method: 'tools/list' });
	}
	// Answered after every line before it was taken or refused (unless
	// mcpd closes the connection).
	await Promise.race([call('done', 'mcpd/status', {}), closed]);
	fs.writeFileSync(`${dir}/ready.${process.pid}`, '');
	await until(`${dir}/go`);
	const got = replies.filter((m) => typeof m.id === 'number');
	// Closed by mcpd, with an end or a reset (it had unread input).
	out.closed = ended || gone;
	out.sent = n;
	out.replies = got.length;
	out.codes = codes(got);
	out.message = got.find((m) => m.error?.code === -32015)?.error.message ?? null;
	out.last_message = [...got].reverse().find((m) => m.error?.code === -32015)?.error.message ?? null;
} else if (scenario === 'longid') {
	const m = await call('i'.repeat(2000), 'tools/call', { name: 'echo', arguments: { text: 'x' } });
	out.code = m.error?.code ?? null;
	out.message = m.error?.message ?? null;
}
console.log(JSON.stringify(out));
c.destroy();
process.exit(0);
