// http-client.mjs -- the official SDK's StreamableHTTPClientTransport
// against mcpd's HTTP front (http-front.sh runs it):
//
//   node http-client.mjs URL TOKEN MODE
//
// MODE "server": list the tools, call echo, call sleep with a progress
// token and count the progress notifications that come over the stream.
// MODE "group": list the group's tools (renamed by member) and call one.
// MODE "isolated": two clients side by side, each calling echo with its
// own text many times: each must get only its own replies.
// Prints "ok" lines; exits 1 with the reason on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, mode] = process.argv.slice(2);

function fail(why) {
	console.error(`FAIL: ${why}`);
	process.exit(1);
}

async function open(name) {
	const client = new Client({ name, version: "1.0.0" });
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: { headers: { Authorization: `Bearer ${token}` } },
	});
	await client.connect(transport);
	if (!transport.sessionId)
		fail("no Mcp-Session-Id after initialize");
	return { client, transport };
}

function text(result) {
	return (result.content ?? []).map((c) => c.text ?? "").join("");
}

async function server() {
	const { client, transport } = await open("http-server");
	const tools = (await client.listTools()).tools.map((t) => t.name);
	if (!tools.includes("echo") || !tools.includes("sleep"))
		fail(`tools/list: ${tools.join(",")}`);
	console.log(`ok tools/list: ${tools.length} tools`);
	const r = await client.callTool({ name: "echo",
	    arguments: { text: "over http" } });
	if (text(r) !== "over http")
		fail(`echo answered ${JSON.stringify(r)}`);
	console.log("ok tools/call echo");
	let progress = 0;
	await client.callTool({ name: "sleep", arguments: { ms: 450 } },
	    undefined, { onprogress: () => { progress++; } });
	if (progress < 1)
		fail("no progress notification came over the stream");
	console.log(`ok progress: ${progress} notifications`);
	await transport.terminateSession();
	await client.close();
	console.log("ok DELETE");
}

async function group() {
	const { client } = await open("http-group");
	const tools = (await client.listTools()).tools.map((t) => t.name);
	const echo = tools.find((t) => t.endsWith("echo"));
	if (echo === undefined || tools.length < 2)
		fail(`group tools/list: ${tools.join(",")}`);
	console.log(`ok group tools/list: ${tools.join(",")}`);
	const r = await client.callTool({ name: echo,
	    arguments: { text: "group" } });
	if (text(r) !== "group")
		fail(`group echo answered ${JSON.stringify(r)}`);
	console.log(`ok group tools/call ${echo}`);
	await client.close();
}

async function isolated() {
	const a = await open("http-a");
	const b = await open("http-b");
	if (a.transport.sessionId === b.transport.sessionId)
		fail("two clients were given one session");
	const run = async (c, tag) => {
		for (let i = 0; i < 20; i++) {
			const want = `${tag}-${i}`;
			const r = await c.client.callTool({ name: "echo",
			    arguments: { text: want } });
			if (text(r) !== want)
				fail(`${tag} got ${text(r)} for ${want}`);
		}
	};
	await Promise.all([run(a, "a"), run(b, "b")]);
	console.log("ok two clients isolated");
	await a.client.close();
	await b.client.close();
}

const modes = { server, group, isolated };
if (!(mode in modes))
	fail(`unknown mode ${mode}`);
const timer = setTimeout(() => fail("timed out"), 60000);
modes[mode]().then(() => { clearTimeout(timer); process.exit(0); },
    (e) => fail(e.stack ?? String(e)));
