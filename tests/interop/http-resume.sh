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
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"

http_front_fake http-resume.mjs

timeout -k 5 120 "$NODE" "$T/http-resume.mjs" "$BASE/servers/fake/mcp" \
	"$TOKEN" </dev/null >"$T/node.out" 2>&1
rc=$?
cat "$T/node.out"
[ $rc = 0 ] || fail "resumption with Last-Event-ID failed"
stop_mcpd
exit 0
