#!/bin/bash
# hostile-probes.sh -- the probes that already held, kept as regression
# tests, each with its number:
# - malformed lines on an attached session: duplicate "id" or "method"
#   members (-32600), 100 000 levels of nesting (refused at once, no
#   crash), invalid UTF-8, a bare value, an array, an empty object: each
#   gets one error, and the session still works afterwards;
# - a request flood: 100 000 pings pipelined on one connection, every one
#   answered exactly once (by the server, or refused with -32015 while
#   client_max_inflight are in flight), mcpd's VmHWM growth printed and
#   held under 32 MiB;
# - a restart storm: 30 `mcpctl restart` in a row while a client calls
#   echo in a loop: every call gets exactly one answer (a result or an
#   error), mcpd survives, and the server is ready at the end.
# (Slow readers: mux-slow.sh, hostile-output.sh, hostile-budget.sh.)

. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/rawlines.mjs" "$TESTS_SRCDIR/integration/rawjson.mjs" "$T/"

write_config "$T/mcpd.json" <<JSON
{ "mcpd": { "backoff_min_ms": 50, "backoff_max_ms": 100 },
  "mcpServers": { "demo": { "command": "$MCP_FAKE" } } }
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo 30

# --- malformed lines ---------------------------------------------------------------
deep=$(printf '%*s' 100000 '' | tr ' ' '[')
{
	printf '%s\n' '{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"demo"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"ping"}'
	printf '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"x":%s}}\n' "$deep"
	printf '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\xc3\x28"}}}\n'
	printf '%s\n' '42'
	printf '%s\n' '[{"jsonrpc":"2.0","id":6,"method":"ping"}]'
	printf '%s\n' '{}'
	printf '%s\n' '{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"echo","arguments":{"text":"still fine"}}}'
} >"$T/bad.in"
unset deep
t0=$(now_ms)
timeout -k 5 120 "$NODE" "$T/rawlines.mjs" "$SOCK" "$T/bad.in" "$T/bad.out" || fail "rawlines.mjs failed"
ms=$(($(now_ms) - t0))
n=$(jq '.replies | length' "$T/bad.out")
note "10 lines, 7 malformed, answered in $ms ms: $(jq -r '[.replies[2:9][] | .line | fromjson | .error.code] | join(" ")' "$T/bad.out")"
[ "$n" = 10 ] || fail "expected 10 replies, got $n: $(jq -c '[.replies[].line]' "$T/bad.out" | head -c 2000)"
codes=$(jq -r '[.replies[2:9][] | .line | fromjson | .error.code] | join(" ")' "$T/bad.out")
[ "$codes" = "-32600 -32600 -32700 -32700 -32600 -32600 -32600" ] ||
	fail "error codes for the malformed lines: $codes"
[ "$(jq -r '.replies[9].line | fromjson | .result.content[0].text' "$T/bad.out")" = "still fine" ] ||
	fail "the session did not work after the malformed lines: $(jq -c '.replies[9]' "$T/bad.out")"

# --- a request flood --------------------------------------------------------------------
FLOOD=100000
{
	printf '%s\n' '{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"demo"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	seq "$FLOOD" | awk '{ printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", $1 }'
} >"$T/flood.in"
cat >"$T/flood.mjs" <<'JS'
import net from 'node:net';
import fs from 'node:fs';
const [sock, file, want] = process.argv.slice(2);
const c = net.connect(sock);
const seen = new Map();
let buf = '', n = 0, refused = 0;
const t0 = Date.now();
c.on('connect', () => c.write(fs.readFileSync(file)));
c.on('data', (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf('\n')) >= 0) {
		const m = JSON.parse(buf.slice(0, i));
		buf = buf.slice(i + 1);
		if (typeof m.id !== 'number')
			continue;
		seen.set(m.id, (seen.get(m.id) ?? 0) + 1);
		if (m.error && m.error.code === -32015)
			refused++;
		if (++n === Number(want))
			done();
	}
});
function done() {
	let once = 0;
	for (const v of seen.values())
		if (v === 1)
			once++;
	console.log(JSON.stringify({ replies: n, answered_once: once,
	    refused_by_inflight_cap: refused, ms: Date.now() - t0 }));
	process.exit(0);
}
setTimeout(done, 120000);
JS
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
timeout -k 5 150 "$NODE" "$T/flood.mjs" "$SOCK" "$T/flood.in" "$FLOOD" >"$T/flood.json" || fail "flood.mjs failed"
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
note "$FLOOD pipelined pings: $(cat "$T/flood.json"); mcpd VmHWM +$(((hwm1 - hwm0) / 1024)) MiB (bar 32 MiB)"
[ "$(jq .answered_once "$T/flood.json")" = "$FLOOD" ] || fail "not every ping was answered exactly once: $(cat "$T/flood.json")"
if ! sanitized "$MCPD"; then
	[ $((hwm1 - hwm0)) -lt 32768 ] || fail "VmHWM grew by $((hwm1 - hwm0)) KiB during the flood"
fi

# --- a restart storm ------------------------------------------------------------------------
cat >"$T/loop.mjs" <<'JS'
import net from 'node:net';
const [sock, stopFile] = process.argv.slice(2);
import fs from 'node:fs';
const c = net.connect(sock);
let buf = '', id = 0, ok = 0, errors = 0, dup = 0;
const pending = new Set();
const send = (o) => c.write(JSON.stringify(o) + '\n');
function next() {
	if (fs.existsSync(stopFile) && pending.size === 0) {
		console.log(JSON.stringify({ calls: id, ok, errors, duplicates: dup }));
		process.exit(0);
	}
	if (fs.existsSync(stopFile))
		return;
	id++;
	pending.add(id);
	send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'r' + id } } });
}
c.on('connect', () => {
	send({ jsonrpc: '2.0', id: 'att', method: 'mcpd/attach', params: { server: 'demo' } });
	send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
	next();
});
c.on('data', (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf('\n')) >= 0) {
		const m = JSON.parse(buf.slice(0, i));
		buf = buf.slice(i + 1);
		if (typeof m.id !== 'number')
			continue;
		if (!pending.delete(m.id)) {
			dup++;
			continue;
		}
		if (m.result) {
			if (ok++ === 0)
				fs.writeFileSync(stopFile + '.started', '');
		} else
			errors++;
		setTimeout(next, 2);
	}
});
setInterval(() => { if (fs.existsSync(stopFile) && pending.size === 0) next(); }, 50);
setTimeout(() => { console.log(JSON.stringify({ calls: id, ok, errors, duplicates: dup, stuck: pending.size })); process.exit(0); }, 120000);
JS
env MCPD_TEST_DIR="$T" timeout -k 5 150 "$NODE" "$T/loop.mjs" "$SOCK" "$T/stop" >"$T/loop.json" &
loop=$!
# The storm begins once the client's calls are answered.
wait_for 30 test -e "$T/stop.started" || fail "the client calling echo in a loop got no answer"
for i in $(seq 30); do
	ctl restart demo >/dev/null 2>&1
	mcpd_running || fail "mcpd died during the restart storm"
done
touch "$T/stop"
wait "$loop"
note "30 restarts while a client called echo in a loop: $(cat "$T/loop.json")"
jq -e '.duplicates == 0 and (.stuck // 0) == 0 and .ok > 0 and (.ok + .errors) == .calls' "$T/loop.json" >/dev/null ||
	fail "calls during the restart storm: $(cat "$T/loop.json")"
wait_ready demo 30
out=$(ctl call demo echo text=end) || fail "demo does not answer after the storm: $out"
exit 0
