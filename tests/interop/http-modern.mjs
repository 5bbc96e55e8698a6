// http-modern.mjs -- a client of MCP 2026-07-28 over mcpd's HTTP front:
// the v2 SDK (@modelcontextprotocol/client) pinned to 2026-07-28 with its
// Streamable HTTP transport (http-modern.sh runs it):
//
//   node http-modern.mjs URL TOKEN
//
// server/discover, tools/list, tools/call echo, and a call of sleep with
// progress over the request's own stream; no Mcp-Session-Id is given.
// Prints "ok" lines; exits 1 with the reason on the first failure.
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, token] = process.argv.slice(2);

function fail(why) {
	console.error(`FAIL: ${why}`);
	process.exit(1);
}

const text = (r) => (r.content ?? []).map((c) => c.text ?? "").join("");

async function main() {
	const client = new Client({ name: "http-modern", version: "1.0.0" },
	    { versionNegotiation: { mode: { pin: "2026-07-28" } },
	    capabilities: {} });
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		requestInit: { headers: { Authorization: `Bearer ${token}` } },
	});
	await client.connect(transport);
	const v = client.getNegotiatedProtocolVersion?.() ??
	    transport.protocolVersion;
	if (v !== undefined && v !== "2026-07-28")
		fail(`negotiated ${v}`);
	if (transport.sessionId)
		fail(`a session id was given: ${transport.sessionId}`);
	console.log(`ok connected, version ${v ?? "(not shown)"}, no session`);
	const tools = (await client.listTools()).tools.map((t) => t.name);
	if (!tools.includes("echo"))
		fail(`tools/list: ${tools.join(",")}`);
	console.log(`ok tools/list: ${tools.length} tools`);
	const r = await client.callTool({ name: "echo",
	    arguments: { text: "modern over http" } });
	if (text(r) !== "modern over http")
		fail(`echo answered ${JSON.stringify(r)}`);
	console.log("ok tools/call echo");
	let progress = 0;
	const s = await client.callTool({ name: "sleep", arguments: { ms: 350 } },
	    { onprogress: () => { progress++; } });
	if (!text(s).includes("slept"))
		fail(`sleep answered ${JSON.stringify(s)}`);
	console.log(`ok tools/call sleep: ${progress} progress notifications`);
	await client.close();
}

const timer = setTimeout(() => fail("timed out"), 60000);
main().then(() => { clearTimeout(timer); process.exit(0); },
    (e) => fail(e.stack ?? String(e)));
