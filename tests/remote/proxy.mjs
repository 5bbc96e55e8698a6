// proxy.mjs -- a plain HTTP forward proxy on 127.0.0.1 for the tests of
// mcpd-remote's proxy settings: it relays absolute-form requests (what a
// client configured with http_proxy sends) to their origin, streaming
// both ways, and counts them.
//
//   node proxy.mjs
//
// Prints {"port"} as one JSON line on start; GET /proxy-stats (origin
// form: asked of the proxy itself) answers {"relayed": N, "by_query":
// {QUERY: N}}, QUERY the relayed URLs' query string ("" if none).
import http from 'node:http';

let relayed = 0;
const byQuery = {};
const server = http.createServer((req, res) => {
	if (req.url === '/proxy-stats') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ relayed, by_query: byQuery }));
		return;
	}
	let target;
	try {
		target = new URL(req.url);
	} catch {
		res.writeHead(400);
		res.end();
		return;
	}
	relayed++;
	byQuery[target.search] = (byQuery[target.search] ?? 0) + 1;
	const up = http.request({
		host: target.hostname, port: target.port,
		path: target.pathname + target.search, method: req.method,
		headers: req.headers,
	}, (r) => {
		res.writeHead(r.statusCode, r.headers);
		r.pipe(res);
	});
	up.on('error', () => {
		if (!res.headersSent)
			res.writeHead(502);
		res.end();
	});
	res.on('close', () => up.destroy());
	req.pipe(up);
});
server.listen(0, '127.0.0.1', () =>
	process.stdout.write(JSON.stringify({ port: server.address().port }) +
	    '\n'));
for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => process.exit(0));
