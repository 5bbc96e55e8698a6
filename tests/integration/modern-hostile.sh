#!/bin/bash
# modern-hostile.sh -- clients of MCP 2026-07-28 that send what a careless
# or hostile client would, through mcpd's socket, line by line
# (modern-client.mjs: raw JSON, no SDK), against the stand-in server
# mux-server.mjs, whose log shows what reached the server.  What mcpd(8)
# promises under "MCP 2026-07-28 clients", as a user sees it:
#
#   versions  a version mcpd does not serve gets -32022 naming the
#             supported ones and the one asked; ping, logging/setLevel,
#             resources/subscribe and unsubscribe get -32601 (and never
#             reach the server); an id "mcpd-modern:5" gets -32600; a 2025
#             client on the same server at the same time still gets 2025
#             (results without resultType, list_changed unsolicited),
#             which the 2026 client without a listen stream does not get
#   logs      a log line reaches a 2026 client only while a request of its
#             that named a level at or below the line's is in flight; a
#             2025 client that asked for debug gets the same lines at the
#             same time
#   listen    three listen streams on one connection: each gets its own
#             kinds and URIs, stamped with its id; cancelling one leaves
#             the others; a URI two streams want stays subscribed at the
#             server until the last ends; bad filters get -32602
#   state     a parked request (input_required for the server's
#             elicitation/create): its requestState with one character
#             changed, made up, on a retry with other arguments, or from
#             another connection (another principal) is refused with
#             -32602 saying why, and the state still works after all of
#             those; a retry answering nothing is asked again and its
#             state is then used; the genuine retry gives the server the
#             client's answer and the client the tool's result under the
#             retry's id; a state used again is refused
#   bound     64 requests parked on one connection; the server's request
#             for a 65th gets an error (the server sees it), and the
#             parked ones still continue; when the connection ends, the
#             server gets a cancel for each request it left parked and an
#             error for each of its elicitations
#   group     a 2025 client on a group of two stand-ins subscribes to a
#             URI no member listed: both members get resources/subscribe,
#             and the second member's resources/updated reaches it; a 2026
#             listen stream the same
#   expire    after a reload to input_timeout_ms 1000 (the least): a
#             parked request nobody retries is cancelled at the server
#             (notifications/cancelled in the stand-in's log), its
#             elicitation answered {"action":"cancel"}, and the retry is
#             refused as expired
# Each scenario's comment in modern-client.mjs says why it fails on a
# daemon without the rule.  The tasks extension, which needs
# server-everything, is tests/interop/modern-tasks.sh.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

MODERN_CLIENT=$TESTS_SRCDIR/integration/modern-client.mjs
STUB_LOG=$T/stub.log

# config [MCPD-SETTINGS]: the configuration, with those settings.
config() {
	write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { ${1:-} },
  "mcpServers": {
    "stub": $(stub_json "$STUB_LOG"),
    "g1": $(stub_json "$T/g1.log"),
    "g2": $(stub_json "$T/g2.log")
  },
  "groups": { "pair": { "servers": ["g1", "g2"] } }
}
JSON
}

config
start_mcpd "$T/mcpd.json"
for s in stub g1 g2; do
	wait_ready "$s"
done

BAD=()
# scenario NAME ARGS...: one modern-client.mjs scenario; its problems are
# reported, and the test fails at the end if any scenario had some.
scenario() {
	local name=$1 t n
	shift
	t=$(now_ms)
	node_client "$MODERN_CLIENT" "$T/$name.json" "$name" "$@"
	n=$(jq '.problems | length' "$T/$name.json")
	note "$name: $n problem(s), $(($(now_ms) - t)) ms"
	if [ "$n" != 0 ]; then
		jq -r --arg s "$name" '.problems[:20][] | "# \($s): \(.)"' "$T/$name.json" >&2
		BAD+=("$name")
	fi
	mcpd_running || fail "mcpd died during $name"
}

scenario versions --log "$STUB_LOG"
scenario logs
scenario listen --log "$STUB_LOG"
scenario state --log "$STUB_LOG"
scenario bound --log "$STUB_LOG"
scenario group --server pair --log "$T/g1.log" --log2 "$T/g2.log"

config '"input_timeout_ms": 1000'
ctl_run reload reload
ctl_rc 0 reload "mcpctl reload (input_timeout_ms 1000)"
wait_ready stub
scenario expire --log "$STUB_LOG"
note "figure: a parked request was cancelled $(jq .cancelled_ms "$T/expire.json") ms after its input_required (input_timeout_ms 1000)"

[ "${#BAD[@]}" = 0 ] || fail "problems in: ${BAD[*]} (listed above)"
stub_idle() { [ "$(server_field stub inflight)" = 0 ]; }
wait_for 10 stub_idle ||
	fail "stub: inflight $(server_field stub inflight) after every client left"
exit 0
