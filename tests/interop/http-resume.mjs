// http-resume.mjs -- resumption with Last-Event-ID on mcpd's HTTP front,
// as a raw client (fetch) sees it (http-resume.sh runs it):
//
//   node http-resume.mjs URL TOKEN
//
// The GET stream is dropped, notifications come while it is gone, and a
// GET with the last id seen gets exactly those, in order; a POST's stream
// dropped after its first event is taken up by a GET with that event's
// id: the rest of its progress and the reply.  An id of no event is 400,
// a second GET stream 409.  Prints "ok" lines; exits 1 on a failure.

const [url, token] = process.argv.slice(2);
let sid;

function fail(why) {
	console.error(`FAIL: ${why}`);
	process.exit(1);
}

function headers(extra = {}) {
	const h = { Authorization: `Bearer ${token}`,
	    "Content-Type": "application/json", ...extra };
	if (sid !== undefined)
		h["Mcp-Session-Id"] = sid;
	return h;
}

async function post(body, accept = "application/json") {
	return fetch(url, { method: "POST", headers: headers({ Accept: accept }),
	    body: JSON.stringify(body) });
}

// An SSE reader: events ({id, data}) pushed to a list as they come.
function stream(res, ctl) {
	const s = { events: [], ended: false, ctl };
	const reader = res.body.getReader();
	const dec = new TextDecoder();
	let buf = "";
	(async () => {
		try {
			for (;;) {
				const { value, done } = await reader.read();
				if (done)
					break;
				buf += dec.decode(value, { stream: true });
				let i;
				while ((i = buf.indexOf("\n\n")) >= 0) {
					const block = buf.slice(0, i);
					buf = buf.slice(i + 2);
					const ev = {};
					for (const line of block.split("\n")) {
						if (line.startsWith("id: "))
							ev.id = line.slice(4);
						else if (line.startsWith("data: "))
							ev.data = JSON.parse(line.slice(6));
					}
					if (ev.data !== undefined)
						s.events.push(ev);
				}
			}
		} catch (e) {
			/* aborted */
		}
		s.ended = true;
	})();
	return s;
}

async function get(lastId) {
	const ctl = new AbortController();
	const extra = { Accept: "text/event-stream" };
	if (lastId !== undefined)
		extra["Last-Event-ID"] = lastId;
	const res = await fetch(url, { method: "GET", headers: headers(extra),
	    signal: ctl.signal });
	return { res, s: res.ok ? stream(res, ctl) : undefined };
}

async function until(what, cond, ms = 15000) {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end)
			fail(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

let nextId = 10;
function sleepCall(ms, token) {
	return { jsonrpc: "2.0", id: nextId++, method: "tools/call",
	    params: { name: "sleep", arguments: { ms },
	    _meta: { progressToken: token } } };
}

const progressOf = (s, tok) => s.events.filter((e) =>
    e.data.method === "notifications/progress" &&
    e.data.params.progressToken === tok);
const done = (s, tok, ms) => progressOf(s, tok).some((e) =>
    e.data.params.progress === ms);

async function main() {
	let res = await post({ jsonrpc: "2.0", id: 1, method: "initialize",
	    params: { protocolVersion: "2025-11-25", capabilities: {},
	    clientInfo: { name: "resume", version: "1" } } },
	    "application/json, text/event-stream");
	sid = res.headers.get("mcp-session-id");
	if (res.status !== 200 || !sid)
		fail(`initialize: ${res.status}`);
	await res.text();
	res = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
	if (res.status !== 202)
		fail(`initialized: ${res.status}`);

	// The GET stream sees p1's progress, then is dropped.
	const g1 = await get();
	if (g1.res.status !== 200)
		fail(`GET: ${g1.res.status}`);
	const second = await get();
	if (second.res.status !== 409)
		fail(`a second GET stream: ${second.res.status}, expected 409`);
	res = await post(sleepCall(350, "p1"));
	await res.json();
	await until("p1's progress on the GET stream", () =>
	    done(g1.s, "p1", 350));
	const seen = g1.s.events.length;
	const last = g1.s.events[seen - 1].id;
	if (!/^0-[0-9]+$/.test(last ?? ""))
		fail(`the GET stream's event id is '${last}'`);
	g1.s.ctl.abort();
	await until("the stream's end", () => g1.s.ended);
	console.log(`ok GET stream: ${seen} events, last id ${last}, dropped`);

	// p2's progress comes while no stream is open.
	res = await post(sleepCall(250, "p2"));
	await res.json();

	const bad = await get("0-999999");
	if (bad.res.status !== 400)
		fail(`Last-Event-ID of no event: ${bad.res.status}, expected 400`);
	const g2 = await get(last);
	if (g2.res.status !== 200)
		fail(`GET with Last-Event-ID: ${g2.res.status}`);
	await until("p2's progress replayed", () => done(g2.s, "p2", 250));
	// p3 marks the end: nothing else may come between.
	res = await post(sleepCall(150, "p3"));
	await res.json();
	await until("p3's progress", () => done(g2.s, "p3", 150));
	const got = g2.s.events.map((e) => e.data.params?.progressToken);
	const want = progressOf(g2.s, "p2").length;
	if (want < 2 || got.slice(0, want).some((t) => t !== "p2") ||
	    got.slice(want).some((t) => t !== "p3"))
		fail(`resumed stream carried ${JSON.stringify(got)}`);
	const p2 = progressOf(g2.s, "p2").map((e) => e.data.params.progress);
	if (p2.some((v, i) => i > 0 && v <= p2[i - 1]))
		fail(`p2's progress out of order: ${p2}`);
	const ids = g2.s.events.map((e) => Number(e.id.split("-")[1]));
	if (ids.some((v, i) => (i > 0 && v <= ids[i - 1]) ||
	    v <= Number(last.split("-")[1])))
		fail(`event ids not after ${last}, in order: ${ids}`);
	console.log(`ok resumed: exactly the ${want} missed events, in order`);
	g2.s.ctl.abort();
	await until("the stream's end", () => g2.s.ended);

	// A POST's stream dropped after its first event, resumed by a GET.
	const ctl = new AbortController();
	res = await fetch(url, { method: "POST", headers: headers({
	    Accept: "application/json, text/event-stream" }), signal: ctl.signal,
	    body: JSON.stringify(sleepCall(600, "p4")) });
	if (!(res.headers.get("content-type") ?? "").startsWith(
	    "text/event-stream"))
		fail(`the POST did not stream: ${res.headers.get("content-type")}`);
	const ps = stream(res, ctl);
	await until("the POST stream's first event", () => ps.events.length > 0);
	const first = ps.events[0];
	ctl.abort();
	await until("the POST stream's end", () => ps.ended);
	if (!/^[1-9][0-9]*-[0-9]+$/.test(first.id ?? ""))
		fail(`the POST stream's event id is '${first.id}'`);
	const g3 = await get(first.id);
	if (g3.res.status !== 200)
		fail(`GET resuming the POST stream: ${g3.res.status}`);
	await until("the POST's reply on the resumed stream", () =>
	    g3.s.ended && g3.s.events.some((e) => e.data.result !== undefined));
	const after = progressOf(g3.s, "p4").map((e) => e.data.params.progress);
	if (after.includes(first.data.params.progress) || !after.includes(600))
		fail(`the resumed POST stream's progress: ${after} ` +
		    `(first was ${first.data.params.progress})`);
	const reply = g3.s.events[g3.s.events.length - 1].data;
	if (!JSON.stringify(reply.result).includes("slept 600 ms"))
		fail(`the reply: ${JSON.stringify(reply)}`);
	console.log(`ok POST stream resumed after ${first.id}: ` +
	    `${after.length} progress events and the reply`);
}

const timer = setTimeout(() => fail("timed out"), 60000);
main().then(() => { clearTimeout(timer); process.exit(0); },
    (e) => fail(e.stack ?? String(e)));
