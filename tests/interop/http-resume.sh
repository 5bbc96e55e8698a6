#!/bin/bash
# http-resume.sh -- resumption with Last-Event-ID on mcpd's HTTP front
# (mcpd-http): a raw client (http-resume.mjs, fetch) drops the GET stream,
# causes notifications, reconnects with the last event id and gets exactly
# the ones it missed, in order; a POST's stream is taken up by a GET.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-resume.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-resume: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
command -v curl >/dev/null || skip "curl is not installed"
cp "$TESTS_SRCDIR/interop/http-resume.mjs" "$T/" ||
	hard_error "cannot copy http-resume.mjs"

export MCPD_HTTP_TOKENS=$T/http-tokens
PORT=$(_random_port)
BASE=http://127.0.0.1:$PORT
config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" '{
	mcpd: { http: { listen: ["127.0.0.1:\($port)"] } },
	mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
TOKEN=$("$MCPCTL" token create app) || fail "mcpctl token create failed"

front_up() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
		"$BASE/servers/fake/mcp")" = 401 ]
}
wait_for 30 front_up || fail "mcpd-http did not answer on $BASE"

timeout -k 5 120 "$NODE" "$T/http-resume.mjs" "$BASE/servers/fake/mcp" \
	"$TOKEN" </dev/null >"$T/node.out" 2>&1
rc=$?
cat "$T/node.out"
[ $rc = 0 ] || fail "resumption with Last-Event-ID failed"
stop_mcpd
exit 0
