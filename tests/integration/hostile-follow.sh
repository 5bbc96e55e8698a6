#!/bin/bash
# hostile-follow.sh -- `mcpd/logs` with "follow" cannot leave mcpd holding
# a connection that is gone.
#
# One connection follows the same server twice and two more servers, then
# closes; another keeps following.  Every server then writes to stderr,
# one followed server is removed by a reload, and mcpd is stopped.  The
# connection still open gets every new line of the server it follows, the
# one following the removed server is closed with the reason, and mcpd
# makes no invalid memory access on the way: under valgrind where it runs
# (a plain build), under AddressSanitizer in the sanitized build.

. "$TESTS_SRCDIR/integration/lib.sh"
need_node

VGLOG=
if sanitized "$MCPD"; then
	note "mcpd is built with sanitizers: they watch its memory"
elif command -v valgrind >/dev/null 2>&1; then
	VGLOG=$T/valgrind.log
	MCPD_PREFIX=(valgrind --quiet --error-exitcode=66 --log-file="$VGLOG")
else
	note "valgrind is not installed: only what a user sees is checked"
fi

CFG=$T/mcpd.json
config() {
	write_config "$CFG" <<JSON
{
  "mcpd": { "backoff_min_ms": 100, "stop_timeout_ms": 2000 },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE" },
    "other": { "command": "$MCP_FAKE" }$1
  }
}
JSON
}
config ', "gone": { "command": "'"$MCP_FAKE"'" }'
start_mcpd "$CFG"
for s in demo other gone; do
	wait_ready "$s" 60
done

# follow.mjs OUT MODE UNTIL REQUESTS...: send each request (a JSON line),
# wait for as many replies, then either close at once (MODE close) or keep
# reading (MODE keep; OUT.ready says the replies came) until the socket
# ends or a line with UNTIL arrives (- for none); every line received to
# OUT.  It gives up after 120 s, which the test reports.
cat >"$T/follow.mjs" <<'EOF'
import net from 'node:net';
import fs from 'node:fs';
const [sock, out, mode, until, ...reqs] = process.argv.slice(2);
const c = net.connect(sock);
let buf = '', replies = 0;
const got = [];
const done = (why) => {
	fs.writeFileSync(out, JSON.stringify({ why, lines: got }));
	c.destroy();
	process.exit(0);
};
setTimeout(() => done('timeout'), 120000);
c.on('connect', () => c.write(reqs.join('\n') + '\n'));
c.on('data', (d) => {
	buf += d;
	let i;
	while ((i = buf.indexOf('\n')) >= 0) {
		const line = buf.slice(0, i);
		buf = buf.slice(i + 1);
		got.push(line);
		if (JSON.parse(line).id !== undefined)
			replies++;
		if (replies === reqs.length && mode === 'close')
			done('closed');
		if (mode === 'keep' && until !== '-' && line.includes(until))
			done('until');
	}
	if (replies === reqs.length && mode === 'keep')
		fs.writeFileSync(out + '.ready', '');
});
c.on('close', () => done('eof'));
EOF
follow_req() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"mcpd/logs","params":{"server":"%s","lines":0,"follow":true}}' "$1" "$2"
}

# B keeps following demo until it sees the line written last.
env MCPD_TEST_DIR="$T" timeout -k 5 150 "$NODE" "$T/follow.mjs" "$SOCK" "$T/b.json" keep \
	'stderr line 3 of 3' "$(follow_req 1 demo)" &
B=$!
# C follows the server the reload removes.
env MCPD_TEST_DIR="$T" timeout -k 5 150 "$NODE" "$T/follow.mjs" "$SOCK" "$T/c.json" keep - \
	"$(follow_req 1 gone)" &
C=$!
wait_for 60 test -e "$T/b.json.ready" || fail "B's follow was not answered"
# C's too, before the reload removes what it follows.
wait_for 60 test -e "$T/c.json.ready" || fail "C's follow was not answered"

# A follows demo twice, other and gone, and closes.
timeout -k 5 150 "$NODE" "$T/follow.mjs" "$SOCK" "$T/a.json" close - \
	"$(follow_req 1 demo)" "$(follow_req 2 demo)" "$(follow_req 3 other)" \
	"$(follow_req 4 gone)" || fail "connection A failed"
[ "$(jq -r .why "$T/a.json")" = closed ] || fail "A: $(cat "$T/a.json")"
n=$(jq '[.lines[] | fromjson | select(.result.server != null)] | length' "$T/a.json")
[ "$n" = 4 ] || fail "A got $n answers to its 4 follows: $(cat "$T/a.json")"
# B, C and the status call itself: A's close has been seen.
wait_for 30 eval '[ "$(status_json | jq .daemon.connections)" = 3 ]' ||
	fail "mcpd did not notice A's close: $(status_json | jq -c .daemon)"

# Every server writes to stderr after A is gone.
for s in demo other gone; do
	ctl call "$s" stderr lines=3 >/dev/null || fail "call $s stderr failed"
done
wait "$B"
[ "$(jq -r .why "$T/b.json")" = until ] ||
	fail "B, still following demo, did not get its new lines: $(cat "$T/b.json")"
n=$(jq '[.lines[] | fromjson | select(.method == "mcpd/log")] | length' "$T/b.json")
note "B got $n mcpd/log notifications after A followed twice and closed"
[ "$n" = 3 ] || fail "B got $n log lines, expected 3: $(cat "$T/b.json")"
mcpd_running || fail "mcpd died after a closed connection's follows"

# A reload removes "gone": its follower is told and closed.
config ''
ctl reload >/dev/null || fail "reload failed"
wait "$C"
[ "$(jq -r .why "$T/c.json")" = eof ] ||
	fail "C, following the removed server, was not closed: $(cat "$T/c.json")"
note "C, following the removed server, got: $(jq -c '.lines[-1]' "$T/c.json")"
ctl call demo stderr lines=2 >/dev/null || fail "call demo stderr failed"
ctl call other stderr lines=2 >/dev/null || fail "call other stderr failed"
ctl status >/dev/null || fail "status failed after the reload"

stop_mcpd TERM 60
if [ -n "$VGLOG" ] && grep -q '^==' "$VGLOG"; then
	head -n 60 "$VGLOG" >&2
	fail "valgrind found errors in mcpd (above)"
fi
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS"
note "mcpd exited 0; no invalid memory access"
exit 0
