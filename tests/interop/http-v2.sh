#!/bin/bash
# http-v2.sh -- the v2 TypeScript SDK (@modelcontextprotocol/client) as a
# client of MCP 2025-11-25 on mcpd's HTTP front (mcpd-http): not pinned
# to 2026-07-28 (http-modern.sh) but in its default "legacy" mode, with a
# session (Mcp-Session-Id) and a GET stream.  http-v2.mjs, with a token
# from `mcpctl token create`, lists and calls server-everything's tools,
# gets a long-running tool's progress, answers the server's sampling
# request and gets a subscribed resource's update over the GET stream, on
# /servers/everything/mcp and on a group's /groups/kit/mcp.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-v2.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-v2: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"

http_front_prep http-v2.mjs
note "client $(jq -r .version "$MODS/client/package.json")"
http_front_everything v2

# v2 PATH PREFIX: http-v2.mjs on BASE/PATH, its output shown.
v2() {
	timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/http-v2.mjs" "$BASE$1" \
		"$TOKEN" "$2" </dev/null >"$T/node.out" 2>&1
	local rc=$?
	cat "$T/node.out"
	return $rc
}

v2 /servers/everything/mcp "" ||
	fail "the v2 SDK in 2025-11-25 over HTTP (server) failed"
v2 /groups/kit/mcp everything__ ||
	fail "the v2 SDK in 2025-11-25 over HTTP (group) failed"
# Both sessions ended by the clients' DELETE.
_deleted() {
	[ "$(grep -c 'mcpd-http: session .* ended: DELETE$' "$MCPD_LOG")" -ge 2 ]
}
wait_for 10 _deleted ||
	fail "mcpd-http did not log two sessions ended by DELETE"
ctl status >/dev/null || fail "mcpd stopped answering"
stop_mcpd
exit 0
