#!/bin/bash
# mux-ids.sh -- many clients share one server session using the very same
# request ids (1, 2, 3 ..., "1", "a", 1.5, -1, 12345678901234567890, 1.0
# ...), pipelined: every client gets exactly its own replies, each once,
# with its id as the very JSON text it sent.  Progress notifications with
# the same tokens in every client reach only their owner, token text and
# type intact.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

CLIENTS=20
PER=50
PROGRESS_CLIENTS=10
SLEEP_MS=120

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": ["--pidfile=$T/demo.pid"] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"

# --- identical ids, 2 then $CLIENTS clients, pipelined echo calls ---------------
mux "$T/ids.json" ids --server demo --clients "$CLIENTS" --per "$PER"
for r in 0 1; do
	note "$(jv "$T/ids.json" ".rounds[$r] | \"\(.clients) clients: sent \(.sent), replies \(.replies), lost \(.lost), duplicated or stray \(.duplicated), misrouted \(.misrouted), errors \(.errors) (phases: \(.phases | to_entries | map(\"\(.key) \(.value.ids) ids in \(.value.ms) ms\") | join(\", \")))\"")"
done
mux_check "$T/ids.json" "identical ids"
for r in 0 1; do
	sent=$(jv "$T/ids.json" ".rounds[$r].sent")
	replies=$(jv "$T/ids.json" ".rounds[$r].replies")
	[ "$sent" -gt 0 ] && [ "$replies" = "$sent" ] ||
		fail "round $r: $replies replies for $sent requests"
done
[ "$(jv "$T/ids.json" '.rounds[1].clients')" = "$CLIENTS" ] ||
	fail "the second round did not run $CLIENTS clients"

# --- the same progress tokens in every client -------------------------------------
mux "$T/progress.json" progress --server demo --clients "$PROGRESS_CLIENTS" --ms "$SLEEP_MS"
note "$(jv "$T/progress.json" '"progress: \(.clients) clients x 3 sleeps (tokens 101, \"101\", \"p\"): \(.progress_notes) notifications, \(.expected_notes) expected, \(.foreign) with a foreign token, \(.after_reply) after the reply, in \(.ms) ms"')"
mux_check "$T/progress.json" "progress tokens"
[ "$(jv "$T/progress.json" .progress_notes)" = "$(jv "$T/progress.json" .expected_notes)" ] ||
	fail "$(jv "$T/progress.json" .progress_notes) progress notifications, expected $(jv "$T/progress.json" .expected_notes)"

# Nothing left behind, nothing restarted, nothing the server found odd.
wait_for 30 eval '[ "$(server_field demo inflight)" = 0 ]' ||
	fail "inflight is $(server_field demo inflight) after every reply came"
[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted"
js=$(status_json) || fail "mcpctl status failed"
note "server stats: $(jq -c '.servers[0].stats | {requests, unknown_ids, protocol_violations}' <<<"$js")"
[ "$(jq '.servers[0].stats.unknown_ids' <<<"$js")" = 0 ] ||
	fail "mcpd saw replies to ids it did not send: $(jq -c '.servers[0].stats' <<<"$js")"
[ "$(jq '.servers[0].stats.requests.error + .servers[0].stats.requests.failed' <<<"$js")" = 0 ] ||
	fail "requests failed: $(jq -c '.servers[0].stats.requests' <<<"$js")"
mcpd_running || fail "mcpd died"
exit 0
