// modern-up-server.mjs LOG -- a server of MCP 2026-07-28 alone, raw JSON
// lines on stdio (no SDK), that asks for input as a careless or hostile
// server would, for modern-up-hostile.sh.  Every line it reads is
// appended to LOG.  server/discover is answered (2026-07-28 only); any
// other request without the 2026 _meta, initialize included, gets -32022.
// Tools (tools/call):
//   echo      "echo"
//   ask       input_required: an elicitation/create "name" (whatever the
//             request's clientCapabilities say) and requestState "st-1";
//             with inputResponses.name: "Name: NAME state: STATE"
//   forever   input_required with requestState "again" alone, every time
//   garbage   input_required asking "a": {method: "tools/call"}
//   garbage2  input_required with inputRequests "nonsense"
// Only Node's built-in modules are used.
import fs from 'node:fs';
import readline from 'node:readline';

const log = process.argv[2];
const V = 'io.modelcontextprotocol/';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const result = (id, r) => send({ jsonrpc: '2.0', id, result: { resultType: 'complete', ...r } });
const input = (id, r) => send({ jsonrpc: '2.0', id, result: { resultType: 'input_required', ...r } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

readline.createInterface({ input: process.stdin }).on('line', (line) => {
	fs.appendFileSync(log, line + '\n');
	let m;
	try {
		m = JSON.parse(line);
	} catch {
		return;
	}
	if (m.id === undefined || m.method === undefined)
		return;
	const p = m.params ?? {};
	if (m.method === 'server/discover')
		return result(m.id, { supportedVersions: ['2026-07-28'],
			capabilities: { tools: {} },
			_meta: { [V + 'serverInfo']: { name: 'up-hostile', version: '1' } } });
	if (p._meta?.[V + 'protocolVersion'] !== '2026-07-28')
		return send({ jsonrpc: '2.0', id: m.id, error: { code: -32022,
			message: 'Unsupported protocol version',
			data: { supported: ['2026-07-28'] } } });
	if (m.method === 'tools/list')
		return result(m.id, { tools: ['echo', 'ask', 'forever', 'garbage', 'garbage2']
			.map((name) => ({ name, inputSchema: { type: 'object' } })) });
	if (m.method !== 'tools/call')
		return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
	switch (p.name) {
	case 'echo':
		return result(m.id, text('echo'));
	case 'ask': {
		const got = p.inputResponses?.name;
		if (got?.action === 'accept')
			return result(m.id, text(`Name: ${got.content?.name} state: ${p.requestState}`));
		return input(m.id, { requestState: 'st-1', inputRequests: { name: {
			method: 'elicitation/create', params: { mode: 'form', message: 'Name?',
				requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } } });
	}
	case 'forever':
		return input(m.id, { requestState: 'again' });
	case 'garbage':
		return input(m.id, { inputRequests: { a: { method: 'tools/call', params: {} } } });
	case 'garbage2':
		return input(m.id, { inputRequests: 'nonsense' });
	default:
		return send({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unknown tool' } });
	}
});
