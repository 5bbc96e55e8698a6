#!/bin/bash
# http-front.sh -- mcpd's HTTP front (mcpd-http), as an app that takes a
# URL sees it: the official SDK's StreamableHTTPClientTransport
# (http-client.mjs) lists and calls through /servers/NAME/mcp and
# /groups/NAME/mcp with a token from `mcpctl token create`, gets progress
# over the stream, and two clients get only their own replies; with
# server-everything, a sampling and an elicitation request are answered
# by the HTTP client and a subscribed resource's update comes over the GET
# stream.  Then what
# must be refused: no token, a revoked one, a token for other servers, a
# foreign Origin or Host (DNS rebinding); and a hostile HTTP client (huge
# headers, a huge body, slow headers, too many sessions: an idle one
# ends for a new one, a busy one never) with mcpd and the front still
# serving afterwards.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-front.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-front: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"

http_front_prep http-client.mjs
# jq builds the file; `$` is doubled since mcpd expands ${VAR} in these.
config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" \
	--arg node "$NODE" --arg everything "$EVERYTHING" '
	def lit: gsub("\\$"; "$$");
	{
	mcpd: { http: { listen: ["127.0.0.1:\($port)"],
		max_sessions_per_token: 4, timeout_s: 2 },
		init_timeout_ms: 60000 },
	mcpServers: {
		everything: { command: ($node | lit),
			args: [($everything | lit), "stdio"], cwd: ($t | lit),
			env: { MCPD_TEST_DIR: ($t | lit) } },
		fake: { command: $fake, env: { MCPD_TEST_DIR: $t } },
		fake2: { command: $fake, env: { MCPD_TEST_DIR: $t } },
		private: { command: $fake, env: { MCPD_TEST_DIR: $t } }
	},
	groups: { dev: { servers: ["fake", "fake2"] } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"

TOKEN=$("$MCPCTL" token create app --servers fake,dev,everything) ||
	fail "mcpctl token create failed"
case "$TOKEN" in
mcpd_?*) ;;
*) fail "mcpctl token create printed '$TOKEN'" ;;
esac
[ "$(stat -c %a "$MCPD_HTTP_TOKENS")" = 600 ] ||
	fail "the token store is not 0600"
grep -q "$TOKEN" "$MCPD_HTTP_TOKENS" && fail "the store holds the token itself"
"$MCPCTL" token list >"$T/list.out" || fail "mcpctl token list failed"
grep -q '^app .*fake,dev,everything' "$T/list.out" ||
	fail "token list: $(cat "$T/list.out")"

http_front_wait

node_http "$BASE/servers/fake/mcp" "$TOKEN" server ||
	fail "the SDK client over HTTP (server) failed"
node_http "$BASE/groups/dev/mcp" "$TOKEN" group ||
	fail "the SDK client over HTTP (group) failed"
node_http "$BASE/servers/fake/mcp" "$TOKEN" isolated ||
	fail "the SDK client over HTTP (two clients) failed"
wait_ready everything
node_http "$BASE/servers/everything/mcp" "$TOKEN" stream ||
	fail "sampling or a subscription update over HTTP (server-everything) failed"

# Refusals.
c=$(http_init /servers/fake/mcp)
[ "$c" = 401 ] || fail "no token: $c, expected 401"
grep -qi '^WWW-Authenticate: Bearer' "$T/headers.out" ||
	fail "a 401 without WWW-Authenticate"
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer mcpd_wrong")
[ "$c" = 401 ] || fail "a wrong token: $c, expected 401"
c=$(http_init /servers/private/mcp -H "Authorization: Bearer $TOKEN")
[ "$c" = 403 ] || fail "a server the token does not name: $c, expected 403"
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN" \
	-H 'Origin: http://evil.example')
[ "$c" = 403 ] || fail "a foreign Origin: $c, expected 403"
# DNS rebinding: the page's name resolves to 127.0.0.1, Host is its name.
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN" \
	-H "Host: evil.example:$PORT")
[ "$c" = 403 ] || fail "a foreign Host: $c, expected 403"
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN" \
	-H "Host: localhost:$PORT")
[ "$c" = 200 ] || fail "Host localhost:$PORT: $c, expected 200"
SID=$(tr -d '\r' <"$T/headers.out" | awk 'tolower($1) == "mcp-session-id:" { print $2 }')
[ "${#SID}" -ge 32 ] || fail "Mcp-Session-Id '$SID' is shorter than 128 bits"
c=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE/servers/fake/mcp" \
	-H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $SID" \
	-H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 1999-01-01' \
	--data-binary '{"jsonrpc":"2.0","id":2,"method":"tools/list"}')
[ "$c" = 400 ] || fail "an unknown MCP-Protocol-Version: $c, expected 400"
c=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$BASE/servers/fake/mcp" \
	-H "Authorization: Bearer $TOKEN" -H "Mcp-Session-Id: $SID")
[ "$c" = 200 ] || fail "DELETE: $c, expected 200"

# A hostile client.
big=$(head -c 100000 /dev/zero | tr '\0' a)
c=$(http_init /servers/fake/mcp -H "X-Big: $big")
case "$c" in
400 | 413 | 431 | 000) ;;
*) fail "100 kB of headers: $c, expected 400, 413 or 431" ;;
esac
head -c 5000000 /dev/zero | tr '\0' ' ' >"$T/big.json"
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST \
	"$BASE/servers/fake/mcp" -H 'Content-Type: application/json' \
	-H "Authorization: Bearer $TOKEN" --data-binary @"$T/big.json")
[ "$c" = 413 ] || fail "a 5 MB body: $c, expected 413"
# Slow headers: the front closes the connection after timeout_s.
exec 7<>"/dev/tcp/127.0.0.1/$PORT" || fail "cannot connect to $BASE"
printf 'POST /servers/fake/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' >&7
# The front closing it ends cat; timeout ending it (124) means it did not.
timeout 60 cat <&7 >/dev/null
rc=$?
exec 7<&-
[ "$rc" != 124 ] ||
	fail "a client that never ends its headers was not timed out"
# Sessions per token: max_sessions_per_token is 4.  Past it, a new
# session ends the token's least recently used idle one (a client that
# never sent DELETE), which then gets 404; when each of the four holds a
# stream, the fifth is refused with 429.
sid() { tr -d '\r' <"$T/headers.out" | awk -F': ' 'tolower($1) == "mcp-session-id" { print $2 }'; }
sids=()
for i in 1 2 3 4 5 6; do
	c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN")
	[ "$c" = 200 ] || fail "idle session $i of 4 allowed: $c, expected 200 (the oldest idle one ends)"
	sids+=("$(sid)")
done
ping_sid() {
	curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X POST \
		"$BASE/servers/fake/mcp" -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-H "Mcp-Session-Id: $1" -H 'MCP-Protocol-Version: 2025-11-25' \
		--data-binary '{"jsonrpc":"2.0","id":7,"method":"ping"}'
}
c=$(ping_sid "${sids[0]}")
[ "$c" = 404 ] || fail "the least recently used session: $c, expected 404"
c=$(ping_sid "${sids[5]}")
[ "$c" = 200 ] || fail "the newest session: $c, expected 200"
streams=()
for i in 2 3 4 5; do
	curl -sN -o /dev/null -D "$T/stream.$i" --max-time 120 \
		"$BASE/servers/fake/mcp" -H "Authorization: Bearer $TOKEN" \
		-H 'Accept: text/event-stream' -H "Mcp-Session-Id: ${sids[i]}" \
		-H 'MCP-Protocol-Version: 2025-11-25' &
	streams+=("$!")
done
for i in 2 3 4 5; do
	wait_for 20 grep -q '^HTTP/1.1 200' "$T/stream.$i" ||
		fail "the GET stream of session $i did not open: $(cat "$T/stream.$i")"
done
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN")
[ "$c" = 429 ] || fail "a fifth session while four hold streams: $c, expected 429"
grep -q max_sessions_per_token "$T/body.out" ||
	fail "the 429 does not name max_sessions_per_token: $(cat "$T/body.out")"
kill "${streams[@]}" 2>/dev/null
wait "${streams[@]}" 2>/dev/null

# Revoked: 401, and mcpd and the front still serve.
"$MCPCTL" token revoke app || fail "mcpctl token revoke failed"
c=$(http_init /servers/fake/mcp -H "Authorization: Bearer $TOKEN")
[ "$c" = 401 ] || fail "a revoked token: $c, expected 401"
TOKEN2=$("$MCPCTL" token create app2) || fail "a second token"
node_http "$BASE/servers/fake/mcp" "$TOKEN2" server ||
	fail "the front stopped serving after the hostile client"
ctl status >/dev/null || fail "mcpd stopped answering"
stop_mcpd
exit 0
