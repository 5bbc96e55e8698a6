#!/bin/bash
# http-modern.sh -- clients of MCP 2026-07-28 on mcpd's HTTP front
# (mcpd-http): the v2 SDK pinned to 2026-07-28 over Streamable HTTP lists
# and calls a server with no session (http-modern.mjs); then, by curl,
# the mirrored headers checked against the body: a Mcp-Method or Mcp-Name
# that differs is 400 with HeaderMismatch (-32020), GET is not needed.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-modern.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-modern: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"

http_front_fake http-modern.mjs '{"max_requests_per_token": 2}'

timeout -k 5 120 "$NODE" "$T/http-modern.mjs" "$BASE/servers/fake/mcp" \
	"$TOKEN" </dev/null >"$T/node.out" 2>&1
rc=$?
cat "$T/node.out"
[ $rc = 0 ] || fail "the v2 client of 2026-07-28 over HTTP failed"

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
# post BODY [CURL ARGS...]: the status of a 2026 POST; the body in body.out.
post() {
	local body=$1
	shift
	curl -s -o "$T/body.out" -D "$T/headers.out" -w '%{http_code}' \
		--max-time 10 -X POST "$BASE/servers/fake/mcp" \
		-H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-H "MCP-Protocol-Version: ${VERSION:-2026-07-28}" "$@" \
		--data-binary "$body"
}
CALL='{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},'"$META"'}}'
c=$(post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo')
[ "$c" = 200 ] || fail "a 2026 tools/call by curl: $c $(cat "$T/body.out")"
grep -q '"text":"hi"' "$T/body.out" || fail "its answer: $(cat "$T/body.out")"
grep -qi '^Mcp-Session-Id' "$T/headers.out" && fail "a 2026 request was given a session"
# The sentinel: "echo" in base64.
c=$(post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: =?base64?ZWNobw==?=')
[ "$c" = 200 ] || fail "Mcp-Name in base64: $c $(cat "$T/body.out")"
mismatch() {
	[ "$1" = 400 ] || fail "$2: $1, expected 400"
	jq -e '.error.code == -32020' "$T/body.out" >/dev/null ||
		fail "$2: $(cat "$T/body.out"), expected HeaderMismatch -32020"
}
mismatch "$(post "$CALL" -H 'Mcp-Method: tools/list' -H 'Mcp-Name: echo')" \
	"Mcp-Method other than the body's"
mismatch "$(post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: add')" \
	"Mcp-Name other than the body's"
mismatch "$(post "$CALL" -H 'Mcp-Method: tools/call')" "no Mcp-Name"
mismatch "$(post "$CALL")" "no Mcp-Method"
mismatch "$(post "${CALL/2026-07-28\"/2025-11-25\"}" \
	-H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo')" \
	"MCP-Protocol-Version other than _meta's"
c=$(VERSION=2099-01-01 post "$CALL" -H 'Mcp-Method: tools/call' \
	-H 'Mcp-Name: echo')
[ "$c" = 400 ] && jq -e '.error.code == -32022 and
	(.error.data.supported | index("2026-07-28"))' "$T/body.out" >/dev/null ||
	fail "an unknown version: $c $(cat "$T/body.out")"
DISC='{"jsonrpc":"2.0","id":8,"method":"server/discover","params":{'"$META"'}}'
c=$(post "$DISC" -H 'Mcp-Method: server/discover')
[ "$c" = 200 ] || fail "server/discover: $c $(cat "$T/body.out")"
jq -e '.result.supportedVersions | index("2026-07-28")' "$T/body.out" \
	>/dev/null || fail "server/discover answered $(cat "$T/body.out")"

# A token's requests in flight are capped (max_requests_per_token 2):
# the third is refused with 429, another token's still served, and once
# the two end the token is served again.
SLEEP='{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000},'"$META"'}}'
held=()
for i in 1 2; do
	curl -s -o /dev/null --max-time 90 -X POST "$BASE/servers/fake/mcp" \
		-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
		-H 'Mcp-Name: sleep' --data-binary "$SLEEP" &
	held+=("$!")
done
inflight() { [ "$(ctl --json status fake | jq '.servers[0].inflight')" = "$1" ]; }
wait_for 20 inflight 2 || fail "the two sleeps are not in flight"
c=$(post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo')
[ "$c" = 429 ] && grep -q max_requests_per_token "$T/body.out" ||
	fail "a third request of the token: $c $(cat "$T/body.out"), expected 429"
OTHER=$("$MCPCTL" token create other) || fail "a second token"
c=$(TOKEN=$OTHER post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo')
[ "$c" = 200 ] || fail "another token while the first is at its cap: $c"
kill "${held[@]}" 2>/dev/null
wait "${held[@]}" 2>/dev/null
served() { [ "$(post "$CALL" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo')" = 200 ]; }
wait_for 20 served ||
	fail "the token once its clients went away: $(cat "$T/body.out")"
stop_mcpd
exit 0
