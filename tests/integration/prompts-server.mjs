// prompts-server.mjs -- an MCP server for tests/integration/cli-prompts.sh:
// prompts with arguments, resources and templates over several pages, a
// blob, and text with control characters, which mcp-fake has none of.
//
// Usage: node prompts-server.mjs
//
// Speaks newline-delimited JSON-RPC on stdin/stdout; exits when stdin
// ends.  Capabilities: prompts, resources.
// Prompts (prompts/get):
//   plain            no arguments; one user message
//   greet            name (required), greeting: a user and an assistant
//                    message, "GREETING, NAME!" (greeting: Hello)
//   colors           its description and its message hold ESC [ 31m, a
//                    bell and a carriage return
//   secret           for a filter to hide
// Resources (resources/list, RESOURCES_PAGE a page):
//   test://item/1 .. test://item/ITEMS   text "item N"
//   test://escape    text "\x1b[31mred\x1b[0m\x07 done\r\n"
//   test://blob      a blob of the 256 byte values, twice
//   test://multi     two contents, a text and a blob
//   test://secret    for a filter to hide
// Templates (resources/templates/list, 2 a page): test://item/{n},
// test://blob/{n}, test://other/{x}.
// Also: initialize, ping; anything else -32601.

const ITEMS = 23;
const RESOURCES_PAGE = 10;
const ESC = '\x1b[31mred\x1b[0m\x07 done\r\n';

const prompts = [
	{ name: 'plain', description: 'A prompt without arguments.' },
	{
		name: 'greet',
		description: 'Greet someone.\nA second line not listed.',
		arguments: [
			{ name: 'name', description: 'Who to greet', required: true },
			{ name: 'greeting', description: 'What to say' },
		],
	},
	{ name: 'colors', description: 'Paint it \x1b[31mred\x1b[0m' },
	{ name: 'secret', description: 'Hidden by the filter.' },
];

const blobBytes = Buffer.alloc(512);
for (let i = 0; i < 512; i++)
	blobBytes[i] = i % 256;

const resources = [];
for (let i = 1; i <= ITEMS; i++)
	resources.push({ uri: `test://item/${i}`, name: `item ${i}`, mimeType: 'text/plain' });
resources.push({ uri: 'test://escape', name: 'esc \x1b[31mape', mimeType: 'text/plain' });
resources.push({ uri: 'test://blob', name: 'blob', mimeType: 'application/octet-stream' });
resources.push({ uri: 'test://multi', name: 'multi' });
resources.push({ uri: 'test://secret', name: 'secret', mimeType: 'text/plain' });

const templates = [
	{ uriTemplate: 'test://item/{n}', name: 'item', mimeType: 'text/plain' },
	{ uriTemplate: 'test://blob/{n}', name: 'blob', title: 'A blob' },
	{ uriTemplate: 'test://other/{x}', name: 'other' },
];

function send(obj) {
	process.stdout.write(JSON.stringify(obj) + '\n');
}

// A page of list from the cursor (the index of its first entry).
function page(list, cursor, size, key) {
	const start = cursor === undefined ? 0 : Number(cursor);
	const out = { [key]: list.slice(start, start + size) };
	if (start + size < list.length)
		out.nextCursor = String(start + size);
	return out;
}

function getPrompt(name, args) {
	const text = (role, t) => ({ role, content: { type: 'text', text: t } });
	switch (name) {
	case 'plain':
		return { messages: [text('user', 'Say something plain.')] };
	case 'greet':
		return {
			description: 'A greeting',
			messages: [
				text('user', `${args.greeting ?? 'Hello'}, ${args.name}!`),
				text('assistant', `Args: ${JSON.stringify(args)}`),
			],
		};
	case 'colors':
		return { messages: [text('user', ESC)] };
	case 'secret':
		return { messages: [text('user', 'the secret')] };
	}
	return null;
}

function read(uri) {
	const m = /^test:\/\/item\/(\d+)$/.exec(uri);
	if (m)
		return [{ uri, mimeType: 'text/plain', text: `item ${m[1]}` }];
	switch (uri) {
	case 'test://escape':
		return [{ uri, mimeType: 'text/plain', text: ESC }];
	case 'test://blob':
		return [{ uri, mimeType: 'application/octet-stream', blob: blobBytes.toString('base64') }];
	case 'test://multi':
		return [
			{ uri: 'test://multi/a', mimeType: 'text/plain', text: 'part a' },
			{ uri: 'test://multi/b', mimeType: 'image/png', blob: 'AAEC' },
		];
	case 'test://secret':
		return [{ uri, text: 'the secret' }];
	}
	return null;
}

function handle(msg) {
	if (msg.id === undefined || msg.method === undefined)
		return;
	const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
	const error = (code, message) => send({ jsonrpc: '2.0', id: msg.id, error: { code, message } });
	switch (msg.method) {
	case 'initialize':
		return reply({
			protocolVersion: msg.params?.protocolVersion ?? '2025-11-25',
			capabilities: { prompts: {}, resources: {} },
			serverInfo: { name: 'prompts-server', version: '1' },
		});
	case 'ping':
		return reply({});
	case 'prompts/list':
		return reply({ prompts });
	case 'prompts/get': {
		const result = getPrompt(msg.params?.name, msg.params?.arguments ?? {});
		if (result !== null)
			return reply(result);
		return error(-32602, `unknown prompt: ${msg.params?.name}`);
	}
	case 'resources/list':
		return reply(page(resources, msg.params?.cursor, RESOURCES_PAGE, 'resources'));
	case 'resources/templates/list':
		return reply(page(templates, msg.params?.cursor, 2, 'resourceTemplates'));
	case 'resources/read': {
		const contents = read(msg.params?.uri);
		if (contents !== null)
			return reply({ contents });
		return error(-32002, `resource not found: ${msg.params?.uri}`);
	}
	}
	error(-32601, 'method not found');
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
