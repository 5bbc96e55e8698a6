#!/bin/bash
# mux-versions.sh -- clients of every MCP protocol version on one server
# session (2025-11-25): a server's request reaches only a client that
# declared exactly what it needs, in a version that has it (elicitation
# from 2025-06-18, its URL mode and sampling with tools in 2025-11-25, a
# form that requires a multi-select in 2025-11-25 alone); the others are
# never asked, and the server gets an error at once.  What a client is
# sent is valid for its version: a form's titled enum as enumNames and
# its multi-select left out before 2025-11-25, sampling audio as text for
# 2024-11-05, a call result's resource_link as text before 2025-06-18 and
# its audio as text for 2024-11-05.  The clients are mux-versions.mjs on
# raw connections; the server mux-server.mjs.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

STUB_LOG=$T/stub.log
write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "stub": $(stub_json "$STUB_LOG")
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready stub

node_client "$TESTS_SRCDIR/integration/mux-versions.mjs" "$T/v.json" \
	--server stub
jq -r '.cases | to_entries[] | select(.key | test("^(form|url|tools|needsMany) ")) |
	"# \(.key): \(if .value.by then "asked" else "not asked (\(.value.error))" end)"' "$T/v.json"
note "rich B: $(jq -c '.cases["rich B"].got.requestedSchema' "$T/v.json")"
note "content C: $(jq -c '.cases["content C"] | map(.text)' "$T/v.json")"
mux_check "$T/v.json" "clients of each protocol version"

# Nothing but what reached a client was asked of it: every request the
# server sent got one answer.
sent=$(jq -r 'select(.dir == "out" and .msg.method != null and .msg.id != null) | .msg.id' "$STUB_LOG" | sort)
got=$(jq -r 'select(.dir == "in" and .msg.method == null and .msg.id != null) | .msg.id' "$STUB_LOG" | sort)
[ "$sent" = "$got" ] || fail "the server's requests and the answers it got differ"
mcpd_running || fail "mcpd died"
exit 0
