// cli-server.mjs -- an MCP server for tests/integration/cli-call.sh: tools
// with typed input schemas and tools that return structured content,
// which mcp-fake has neither of.
//
// Usage: node cli-server.mjs
//
// Speaks newline-delimited JSON-RPC on stdin/stdout; exits when stdin
// ends.  Tools (tools/call):
//   args {message: string, count: integer, ratio: number, loud: boolean,
//         opts: object, tags: array, note: string|null, mode: enum of
//         strings, free: no type}
//                 the arguments it got, as JSON text (no structured
//                 content)
//   mirror {}     structuredContent {"n": 1, "s": "x"} and, as MCP
//                 advises, its JSON as the text
//   files {}      structuredContent {"content": "hello from files"} and
//                 that text (as the filesystem server does)
//   apart {}      structuredContent {"n": 2} and the text "two": not the
//                 same
//   only {}       structuredContent {"n": 3} and no content
// Also: initialize, ping, tools/list; anything else -32601.

const tools = [
	{
		name: 'args',
		description: 'Return the arguments as JSON.',
		inputSchema: {
			type: 'object',
			properties: {
				message: { type: 'string' },
				count: { type: 'integer' },
				ratio: { type: 'number' },
				loud: { type: 'boolean' },
				opts: { type: 'object' },
				tags: { type: 'array', items: { type: 'string' } },
				note: { type: ['string', 'null'] },
				mode: { enum: ['1', '2'] },
				free: {},
			},
		},
	},
	{ name: 'mirror', inputSchema: { type: 'object' } },
	{ name: 'files', inputSchema: { type: 'object' } },
	{ name: 'apart', inputSchema: { type: 'object' } },
	{ name: 'only', inputSchema: { type: 'object' } },
];

function send(obj) {
	process.stdout.write(JSON.stringify(obj) + '\n');
}

function call(name, args) {
	switch (name) {
	case 'args':
		return { content: [{ type: 'text', text: JSON.stringify(args) }] };
	case 'mirror': {
		const s = { n: 1, s: 'x' };
		return { content: [{ type: 'text', text: JSON.stringify(s) }], structuredContent: s };
	}
	case 'files':
		return {
			content: [{ type: 'text', text: 'hello from files' }],
			structuredContent: { content: 'hello from files' },
		};
	case 'apart':
		return { content: [{ type: 'text', text: 'two' }], structuredContent: { n: 2 } };
	case 'only':
		return { content: [], structuredContent: { n: 3 } };
	}
	return null;
}

function handle(msg) {
	if (msg.id === undefined || msg.method === undefined)
		return;
	const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
	switch (msg.method) {
	case 'initialize':
		return reply({
			protocolVersion: msg.params?.protocolVersion ?? '2025-11-25',
			capabilities: { tools: {} },
			serverInfo: { name: 'cli-server', version: '1' },
		});
	case 'ping':
		return reply({});
	case 'tools/list':
		return reply({ tools });
	case 'tools/call': {
		const result = call(msg.params?.name, msg.params?.arguments ?? {});
		if (result !== null)
			return reply(result);
		return send({ jsonrpc: '2.0', id: msg.id,
			error: { code: -32602, message: `unknown tool: ${msg.params?.name}` } });
	}
	}
	send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'method not found' } });
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
	buf += chunk;
	let nl;
	while ((nl = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, nl);
		buf = buf.slice(nl + 1);
		if (line.trim() === '')
			continue;
		try {
			handle(JSON.parse(line));
		} catch (e) {
			send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
		}
	}
});
process.stdin.on('end', () => process.exit(0));
