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
// MODE "stream" (server-everything): a sampling request and an
// elicitation request of the server answered by this client over its
// stream, and a resource subscription's update over the GET stream.
// MODE "policy SEEN HIDDEN POLICY": under a "clients" policy for the
// token, tools/list has the tool SEEN and not HIDDEN; SEEN may be called,
// HIDDEN is refused with an error naming POLICY.
// Prints "ok" lines; exits 1 with the reason on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [url, token, mode, ...rest] = process.argv.slice(2);

function fail(why) {
	console.error(`FAIL: ${why}`);
	process.exit(1);
}

async function open(name, capabilities = {}, setup = () => {}) {
	const client = new Client({ name, version: "1.0.0" }, { capabilities });
	setup(client);
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

// waitFor(COND, MS): COND() became true within MS (checked every 50 ms).
async function waitFor(cond, ms) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end)
			return false;
		await new Promise((r) => setTimeout(r, 50));
	}
	return true;
}

async function stream() {
	const answer = `sampled-over-http-${process.pid}`;
	const sampled = [];
	const updated = [];
	const name = `elicited-over-http-${process.pid}`;
	const elicited = [];
	const { client, transport } = await open("http-stream",
	    { sampling: {}, elicitation: {} }, (c) => {
		c.setRequestHandler(ElicitRequestSchema, async (req) => {
			elicited.push(req.params);
			return { action: "accept",
			    content: { name, check: true } };
		});
		c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
			sampled.push(req.params);
			return { model: "http-test", role: "assistant",
			    stopReason: "endTurn",
			    content: { type: "text", text: answer } };
		});
		c.setNotificationHandler(ResourceUpdatedNotificationSchema,
		    (n) => { updated.push(n.params.uri); });
	});
	const tools = (await client.listTools()).tools.map((t) => t.name);
	const sample = ["trigger-sampling-request", "sampleLLM"].find(
	    (t) => tools.includes(t));
	if (sample === undefined)
		fail(`no sampling tool among ${tools.join(",")}`);
	const prompt = `http-prompt-${process.pid}`;
	const r = await client.callTool({ name: sample,
	    arguments: { prompt, maxTokens: 16 } });
	if (sampled.length !== 1 ||
	    !JSON.stringify(sampled[0].messages ?? []).includes(prompt))
		fail(`the sampling handler saw ${JSON.stringify(sampled)}`);
	if (!text(r).includes(answer))
		fail(`${sample} answered ${JSON.stringify(r).slice(0, 300)}`);
	console.log(`ok sampling answered over the stream (${sample})`);

	if (!tools.includes("trigger-elicitation-request"))
		fail(`no elicitation tool among ${tools.join(",")}`);
	const e = await client.callTool({ name: "trigger-elicitation-request",
	    arguments: {} });
	if (elicited.length !== 1 || elicited[0].requestedSchema === undefined)
		fail(`the elicitation handler saw ${JSON.stringify(elicited)}`);
	if (!text(e).includes(`Name: ${name}`))
		fail(`trigger-elicitation-request answered ` +
		    `${JSON.stringify(e).slice(0, 300)}`);
	console.log("ok elicitation answered over the stream");

	const { resources } = await client.listResources();
	const uri = resources.length > 0 ? resources[0].uri :
	    "demo://resource/dynamic/text/1";
	await client.subscribeResource({ uri });
	// Current server-everything sends updates once this tool turned
	// them on (at once, then every 5 s); older ones every 10 s.
	const toggle = tools.includes("toggle-subscriber-updates") ?
	    "toggle-subscriber-updates" : null;
	let toggled = false;
	for (let i = 0; toggle !== null && !toggled && i < 2; i++)
		toggled = /^Started/.test(text(await client.callTool(
		    { name: toggle, arguments: {} })));
	// Updates come on the GET stream the SDK opened after initialize.
	const got = await waitFor(() => updated.includes(uri), 25000);
	await client.unsubscribeResource({ uri });
	if (toggled)
		await client.callTool({ name: toggle, arguments: {} });
	if (!got)
		fail(`no notifications/resources/updated for ${uri} ` +
		    `(got ${JSON.stringify(updated)})`);
	console.log(`ok resources/updated for ${uri} over the GET stream`);
	// Its session ended, not left to count against the token.
	await transport.terminateSession();
	await client.close();
}

async function policy() {
	const [seen, hidden, name] = rest;
	const { client, transport } = await open(`http-policy-${name}`);
	const tools = (await client.listTools()).tools.map((t) => t.name);
	if (!tools.includes(seen) || tools.includes(hidden))
		fail(`${name}: tools/list has ${tools.join(",")}: wanted ` +
		    `${seen} and not ${hidden}`);
	console.log(`ok ${name}: tools/list ${tools.join(",")}`);
	const args = seen === "echo" ? { text: "x" } : { ms: 10 };
	const r = await client.callTool({ name: seen, arguments: args });
	if (r.isError)
		fail(`${name}: ${seen} answered ${JSON.stringify(r)}`);
	console.log(`ok ${name}: ${seen} called`);
	let why = null;
	try {
		const h = await client.callTool({ name: hidden,
		    arguments: hidden === "echo" ? { text: "x" } : { ms: 10 } });
		why = `answered ${JSON.stringify(h)}`;
	} catch (e) {
		if (!String(e.message).includes(`"${name}"`))
			why = `refused, but not by its policy: ${e.message}`;
	}
	if (why !== null)
		fail(`${name}: ${hidden} ${why}`);
	console.log(`ok ${name}: ${hidden} refused by its policy`);
	await transport.terminateSession();
	await client.close();
}

const modes = { server, group, isolated, stream, policy };
if (!(mode in modes))
	fail(`unknown mode ${mode}`);
const timer = setTimeout(() => fail("timed out"), 60000);
modes[mode]().then(() => { clearTimeout(timer); process.exit(0); },
    (e) => fail(e.stack ?? String(e)));
