// fault-server.mjs -- a stand-in MCP server for what mcp-fake cannot do.
//
// Usage: node fault-server.mjs [--crlf] [--half-line-exit] [--pidfile FILE]
//
//   --crlf            end every line it writes with "\r\n", and write an
//                     empty "\r\n" line before each message
//   --half-line-exit  on the first tools/call write the first half of the
//                     reply (no newline) and exit with status 3
//   --pidfile FILE    write its pid to FILE
//
// Speaks newline-delimited JSON-RPC on stdin/stdout: initialize, ping,
// tools/list, and tools/call echo {text}, which sends a
// notifications/progress first when the request has a progressToken.
// Anything else with an id gets -32601.  Exits 0 when stdin ends.

import fs from 'node:fs';

const args = process.argv.slice(2);
let crlf = false;
let halfLineExit = false;
for (let i = 0; i < args.length; i++) {
	if (args[i] === '--crlf')
		crlf = true;
	else if (args[i] === '--half-line-exit')
		halfLineExit = true;
	else if (args[i] === '--pidfile')
		fs.writeFileSync(args[++i], `${process.pid}\n`);
	else {
		process.stderr.write(`fault-server: unknown argument ${args[i]}\n`);
		process.exit(2);
	}
}

const eol = crlf ? '\r\n' : '\n';

function send(obj) {
	// Pipes are written synchronously by Node on Linux.
	process.stdout.write((crlf ? eol : '') + JSON.stringify(obj) + eol);
}

function handle(msg) {
	const { id, method, params } = msg;
	if (method === undefined || id === undefined)
		return;		// notifications and responses
	switch (method) {
	case 'initialize':
		send({ jsonrpc: '2.0', id, result: {
			protocolVersion: params?.protocolVersion ?? '2025-11-25',
			capabilities: { tools: {} },
			serverInfo: { name: 'fault-server', version: '1.0.0' },
		} });
		return;
	case 'ping':
		send({ jsonrpc: '2.0', id, result: {} });
		return;
	case 'tools/list':
		send({ jsonrpc: '2.0', id, result: { tools: [{
			name: 'echo', inputSchema: { type: 'object' },
		}] } });
		return;
	case 'tools/call': {
		const token = params?._meta?.progressToken;
		const reply = { result: { content: [{ type: 'text', text: String(params?.arguments?.text ?? '') }] },
			jsonrpc: '2.0', id };
		if (halfLineExit) {
			const line = JSON.stringify(reply);
			process.stdout.write(line.slice(0, Math.floor(line.length / 2)), () => process.exit(3));
			return;
		}
		if (token !== undefined)
			send({ jsonrpc: '2.0', method: 'notifications/progress',
				params: { progressToken: token, progress: 1, total: 1 } });
		send(reply);
		return;
	}
	default:
		send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } });
	}
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
	buf += d;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl).replace(/\r$/, '');
		buf = buf.slice(nl + 1);
		if (line.trim() === '')
			continue;
		let msg;
		try {
			msg = JSON.parse(line);
		} catch {
			continue;
		}
		handle(msg);
	}
});
process.stdin.on('end', () => process.exit(0));
