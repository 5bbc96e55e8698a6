// http-v2.mjs -- the v2 TypeScript SDK (@modelcontextprotocol/client) as
// a client of MCP 2025-11-25 on mcpd's HTTP front: its default
// versionNegotiation mode, "legacy", made explicit (initialize, a session
// with Mcp-Session-Id, a GET stream) -- not pinned to 2026-07-28
// (http-modern.mjs is).  http-v2.sh runs it:
//
//   node http-v2.mjs URL TOKEN PREFIX
//
// against server-everything, whose tools are named PREFIX + its own name
// (PREFIX is "" on /servers/NAME/mcp, "everything__" on a group's URL):
// tools/list, a call of echo, a long-running tool's progress over the
// call's stream, a sampling request of the server answered by this client,
// a subscribed resource's update over the GET stream, and DELETE.
// Prints "ok" lines; exits 1 with the reason on the first failure.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, token, prefix = ""] = process.argv.slice(2);

function fail(why) {
	console.error(`FAIL: ${why}`);
	process.exit(1);
}

const text = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");

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

// What came over the GET streams that mcpd answered with an event stream
// (a copy of each such body read here as the transport reads its own).
let getStreams = 0;
let getText = "";
const seen = async (input, init) => {
	const res = await fetch(input, init);
	if ((init?.method ?? "GET") !== "GET" || res.status !== 200 ||
	    !(res.headers.get("content-type") ?? "").startsWith("text/event-stream"))
		return res;
	getStreams++;
	const [mine, theirs] = res.body.tee();
	(async () => {
		const d = new TextDecoder();
		for await (const chunk of mine)
			getText += d.decode(chunk, { stream: true });
	})().catch(() => {});
	return new Response(theirs, { status: res.status,
	    statusText: res.statusText, headers: res.headers });
};

async function main() {
	const answer = `sampled-by-v2-${process.pid}`;
	const sampled = [];
	const updated = [];
	const client = new Client({ name: "http-v2", version: "1.0.0" }, {
		versionNegotiation: { mode: "legacy" },
		capabilities: { sampling: {} },
	});
	client.setRequestHandler("sampling/createMessage", async (req) => {
		sampled.push(req.params);
		return { model: "http-v2-test", role: "assistant",
		    stopReason: "endTurn",
		    content: { type: "text", text: answer } };
	});
	client.setNotificationHandler("notifications/resources/updated",
	    (n) => { updated.push(n.params.uri); });
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: { headers: { Authorization: `Bearer ${token}` } },
		fetch: seen,
	});
	await client.connect(transport);
	const v = client.getNegotiatedProtocolVersion();
	const era = client.getProtocolEra();
	if (v !== "2025-11-25" || era !== "legacy")
		fail(`negotiated ${v} (era ${era}), expected 2025-11-25, legacy`);
	if (!transport.sessionId)
		fail("no Mcp-Session-Id after initialize");
	console.log(`ok initialize: ${v}, session ${transport.sessionId.slice(0, 8)}`);

	const tools = (await client.listTools()).tools.map((t) => t.name);
	const want = ["echo", "trigger-long-running-operation",
	    "trigger-sampling-request", "toggle-subscriber-updates"];
	for (const t of want)
		if (!tools.includes(prefix + t))
			fail(`tools/list has no ${prefix + t}: ${tools.join(",")}`);
	console.log(`ok tools/list: ${tools.length} tools`);

	const e = await client.callTool({ name: `${prefix}echo`,
	    arguments: { message: "v2 over http" } });
	if (text(e) !== "Echo: v2 over http")
		fail(`echo answered ${JSON.stringify(e)}`);
	console.log(`ok tools/call ${prefix}echo`);

	const progress = [];
	const lr = await client.callTool({
	    name: `${prefix}trigger-long-running-operation`,
	    arguments: { duration: 0.6, steps: 3 } },
	    { onprogress: (p) => { progress.push(p.progress); } });
	if (!text(lr).includes("Long running operation completed"))
		fail(`the long-running tool answered ${JSON.stringify(lr)}`);
	if (progress.join(",") !== "1,2,3")
		fail(`progress: ${JSON.stringify(progress)}, expected 1,2,3`);
	console.log(`ok progress over the call's stream: ${progress.join(",")}`);

	const prompt = `v2-prompt-${process.pid}`;
	const s = await client.callTool({ name: `${prefix}trigger-sampling-request`,
	    arguments: { prompt, maxTokens: 16 } });
	if (sampled.length !== 1 ||
	    !JSON.stringify(sampled[0].messages ?? []).includes(prompt))
		fail(`the sampling handler saw ${JSON.stringify(sampled)}`);
	if (!text(s).includes(answer))
		fail(`the sampling tool answered ${JSON.stringify(s).slice(0, 300)}`);
	console.log("ok sampling request answered by the client");

	const { resources } = await client.listResources();
	const uri = resources.length > 0 ? resources[0].uri :
	    "demo://resource/dynamic/text/1";
	await client.subscribeResource({ uri });
	// server-everything sends updates once this tool turned them on for
	// mcpd's session with it (at once, then every 5 s).
	const toggle = `${prefix}toggle-subscriber-updates`;
	let toggled = false;
	for (let i = 0; !toggled && i < 2; i++)
		toggled = /^Started/.test(text(await client.callTool(
		    { name: toggle, arguments: {} })));
	if (!toggled)
		fail(`${toggle} did not start the updates`);
	const onGet = () => getText.includes("notifications/resources/updated") &&
	    getText.includes(JSON.stringify(uri));
	const got = await waitFor(() => updated.includes(uri) && onGet(), 25000);
	await client.unsubscribeResource({ uri });
	await client.callTool({ name: toggle, arguments: {} });
	if (!updated.includes(uri))
		fail(`no notifications/resources/updated for ${uri} ` +
		    `(got ${JSON.stringify(updated)})`);
	if (!got)
		fail(`the update did not come over the GET stream ` +
		    `(${getStreams} opened)`);
	console.log(`ok resources/updated for ${uri} over the GET stream`);

	await transport.terminateSession();
	await client.close();
	console.log("ok DELETE");
}

const timer = setTimeout(() => fail("timed out"), 90000);
main().then(() => { clearTimeout(timer); process.exit(0); },
    (e) => fail(e.stack ?? String(e)));
