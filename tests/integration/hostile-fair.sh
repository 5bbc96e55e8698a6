#!/bin/bash
# hostile-fair.sh -- a client that floods a slow server does not starve
# the others: the server's stdin is shared fairly.
#
# The server takes 2 ms over each request and reads its stdin 4 KiB at a
# time.  One client writes 3000 requests of 1 KiB at once (6 s of work);
# meanwhile another client's echo calls are answered in about half a
# second each (the bar is 3 s, for a loaded or sanitized run), not after
# the flood (they used to wait behind up to 4 MiB of it: 7.4 s).  The
# flood itself is served completely.

. "$TESTS_SRCDIR/integration/lib.sh"
need_node

write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "slow": { "command": "$MCP_FAKE", "args": ["--slow-ms=2"] } } }
JSON
start_mcpd "$T/mcpd.json"
wait_ready slow

cat >"$T/flood.mjs" <<'JS'
import net from 'node:net';
const [sock, count] = process.argv.slice(2);
const c = net.connect(sock);
let buf = '', got = 0;
const t0 = Date.now();
c.on('connect', () => {
	c.write('{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"slow"}}\n');
	const pad = 'f'.repeat(1000);
	let all = '';
	for (let i = 1; i <= Number(count); i++)
		all += JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call',
		    params: { name: 'echo', arguments: { text: pad } } }) + '\n';
	c.write(all);
});
c.on('data', (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf('\n')) >= 0) {
		const m = JSON.parse(buf.slice(0, i));
		buf = buf.slice(i + 1);
		if (typeof m.id === 'number' && m.result)
			got++;
		if (got === Number(count)) {
			console.log(JSON.stringify({ answered: got, ms: Date.now() - t0 }));
			process.exit(0);
		}
	}
});
setTimeout(() => { console.log(JSON.stringify({ answered: got, ms: Date.now() - t0 })); process.exit(0); }, 60000);
JS
timeout -k 5 90 "$NODE" "$T/flood.mjs" "$SOCK" 3000 >"$T/flood.json" &
flood=$!
sleep 0.5
worst=0
times=()
for i in 1 2 3 4 5; do
	t0=$(now_ms)
	out=$(ctl call slow echo text=light-$i) || fail "the light client's call $i failed: $out"
	ms=$(($(now_ms) - t0))
	times+=("$ms")
	[ "$ms" -gt "$worst" ] && worst=$ms
done
wait "$flood"
note "a client's 5 echo calls while another floods 3000 requests (6 s of work): ${times[*]} ms; the flood: $(cat "$T/flood.json")"
[ "$(jq .answered "$T/flood.json")" = 3000 ] || fail "the flood was not served completely: $(cat "$T/flood.json")"
[ "$worst" -lt 3000 ] || fail "the light client waited up to $worst ms for an echo (all: ${times[*]})"
mcpd_running || fail "mcpd died"
exit 0
