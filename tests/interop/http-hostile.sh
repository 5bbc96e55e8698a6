#!/bin/bash
# http-hostile.sh -- mcpd's HTTP front under a hostile client, with the
# memory of mcpd and mcpd-http measured: thousands of session attempts
# (initialize after initialize: past max_sessions_per_token each ends
# the token's oldest idle session, or is refused when none is idle),
# slow clients that never end their headers, a chunked body that never
# ends, and a client that never reads the event stream its server
# floods.  The resident set of each process may grow by at most BOUND_KB
# (32 MB) over its size once serving, and both still answer.  The sizes
# are printed.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By
# hand, from the top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-hostile.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-hostile: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
BOUND_KB=${BOUND_KB:-32768}
ATTEMPTS=${ATTEMPTS:-2000}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"

command -v curl >/dev/null || skip "curl is not installed"
export MCPD_HTTP_TOKENS=$T/http-tokens
PORT=$(_random_port)
BASE=http://127.0.0.1:$PORT
config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" '{
	mcpd: { http: { listen: ["127.0.0.1:\($port)"], timeout_s: 2,
		max_sessions_per_token: 16, session_idle_s: 5,
		max_buffered_bytes: 2097152 } },
	mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } },
		chatty: { command: $fake, args: ["--progress-pad=262144"],
			env: { MCPD_TEST_DIR: $t } } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
TOKEN=$("$MCPCTL" token create app) || fail "mcpctl token create failed"
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}'
init() {
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 -X POST \
		"$BASE/servers/fake/mcp" -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json' --data-binary "$INIT"
}
front_up() { [ "$(init)" = 200 ]; }
wait_for 30 front_up || fail "mcpd-http did not answer on $BASE"
HTTP_PID=$(pgrep -P "$MCPD_PID" -x mcpd-http) || fail "no mcpd-http below mcpd"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
m0=$(rss "$MCPD_PID")
h0=$(rss "$HTTP_PID")

# Thousands of session attempts, 8 at a time, on kept-alive connections.
seq "$ATTEMPTS" | xargs -P 8 -n 250 sh -c '
	for i; do printf "url = \"%s\"\noutput = \"/dev/null\"\n" \
		"'"$BASE/servers/fake/mcp"'"; done |
	curl -s -o /dev/null -w "%{http_code}\n" --max-time 60 -K - -X POST \
		-H "Authorization: Bearer '"$TOKEN"'" \
		-H "Content-Type: application/json" -H "Accept: application/json" \
		--data-binary '"'$INIT'"'' _ >"$T/codes.out"
ok=$(grep -c '^200$' "$T/codes.out")
refused=$(grep -c '^429$' "$T/codes.out")
[ $((ok + refused)) -ge $((ATTEMPTS * 9 / 10)) ] ||
	fail "$ATTEMPTS session attempts: $ok opened, $refused refused: $(sort "$T/codes.out" | uniq -c | tr '\n' ' ')"

# Slow clients: 50 connections that never end their headers, and a
# chunked body that never ends.
for i in $(seq 50); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || fail "cannot connect"
	printf 'POST /servers/fake/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&$fd
	fds+=" $fd"
done
endless() {
	printf 'POST /servers/fake/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'
	printf 'Authorization: Bearer %s\r\n' "$TOKEN"
	printf 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'
	while printf '400\r\n%01024d\r\n' 0; do :; done
}
timeout 20 bash -c "$(declare -f endless); TOKEN=$TOKEN; endless" \
	>"/dev/tcp/127.0.0.1/$PORT" 2>/dev/null
for fd in $fds; do exec {fd}<&-; done

# A 2026-07-28 client that never reads the event stream of its call,
# which the server floods with progress (256 KiB a message, 10 a second):
# at max_buffered_bytes (2 MiB) the stream ends and the call is
# cancelled at the server.
META='"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"deaf","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000},'"$META"'}}'
exec {deaf}<>"/dev/tcp/127.0.0.1/$PORT" || fail "cannot connect"
printf 'POST /servers/chatty/mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: sleep\r\nContent-Length: %d\r\n\r\n%s' \
	"$PORT" "$TOKEN" "${#CALL}" "$CALL" >&$deaf
wait_for 60 grep -q "a request's event stream is not read (chatty)" "$MCPD_LOG" ||
	fail "a stream nobody reads was not ended at max_buffered_bytes"
chatty_idle() { [ "$(ctl --json status chatty | jq '.servers[0].inflight')" = 0 ]; }
wait_for 20 chatty_idle || fail "the call of the deaf client was not cancelled"
exec {deaf}<&-

m1=$(rss "$MCPD_PID")
h1=$(rss "$HTTP_PID")
echo "mcpd RSS: ${m0} kB -> ${m1} kB; mcpd-http RSS: ${h0} kB -> ${h1} kB" \
	"(bound: +${BOUND_KB} kB each); sessions: $ok opened, $refused refused"
if sanitized "$MCPD"; then
	# Its allocator holds freed memory in quarantine: not mcpd's growth.
	note "built with AddressSanitizer: memory not asserted"
else
	[ $((m1 - m0)) -le "$BOUND_KB" ] || fail "mcpd grew by $((m1 - m0)) kB"
	[ $((h1 - h0)) -le "$BOUND_KB" ] ||
		fail "mcpd-http grew by $((h1 - h0)) kB"
fi
kill -0 "$HTTP_PID" 2>/dev/null || fail "mcpd-http exited under the hostile client"
wait_for 30 front_up || fail "the front stopped serving"
ctl status >/dev/null || fail "mcpd stopped answering"
stop_mcpd
exit 0
