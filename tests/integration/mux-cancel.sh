#!/bin/bash
# mux-cancel.sh -- requests that end early.  A client that hangs up has its
# requests cancelled upstream (notifications/cancelled, with the server's
# own id) and inflight drops to 0; an explicit notifications/cancelled from
# a client reaches the server with the id rewritten, gets no reply and
# leaves everything else alone (even another client's request with the
# same id); a request that times out gets -32001 after request_timeout_ms,
# is cancelled upstream and its late reply is dropped silently.
#
# Each case runs against mcp-fake, where the proof that the cancel reached
# the server is behavioural (it runs one sleep at a time, so a sleep queued
# behind a cancelled one returns at once only if the cancel named the right
# request), and against mux-server.mjs, a stand-in that logs what it gets
# (mcp-fake keeps no record of cancellations and never answers late).

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

TIMEOUT_MS=1000
STUB_LOG=$T/stub.log

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "fake": { "command": "$MCP_FAKE", "args": [] },
    "fakeshort": { "command": "$MCP_FAKE", "args": [], "request_timeout_ms": $TIMEOUT_MS },
    "stub": $(stub_json "$STUB_LOG" "\"request_timeout_ms\": $TIMEOUT_MS")
  }
}
JSON
start_mcpd "$T/mcpd.json"
for s in fake fakeshort stub; do
	wait_ready "$s"
done

# stub_id TAG: the id the stand-in received for the sleep tagged TAG.
stub_id() {
	stub_in "$STUB_LOG" "select(.method == \"tools/call\" and .params.arguments.tag == \"$1\") | .id"
}
# stub_cancels ID: the reasons of the cancels the stand-in got for ID.
stub_cancels() {
	stub_in "$STUB_LOG" "select(.method == \"notifications/cancelled\" and .params.requestId == $1) | .params.reason"
}

# --- a client hangs up mid-request -------------------------------------------------
mux "$T/disc.json" cancel-disconnect --server fake
note "$(jv "$T/disc.json" '"fake: a client hung up during sleep 10000; a sleep 0 queued behind it returned after \(.queued_sleep_ms) ms; inflight \(.inflight_after); requests \(.requests | tojson)"')"
mux_check "$T/disc.json" "client hangs up (mcp-fake)"
qms=$(jv "$T/disc.json" .queued_sleep_ms)
[ "$qms" -lt 2000 ] ||
	fail "a sleep queued behind the abandoned one took $qms ms: mcp-fake was not told to stop (it sleeps 10000 ms otherwise)"
[ "$(jv "$T/disc.json" .inflight_zero)" = true ] || fail "inflight did not return to 0 after the client hung up"
[ "$(jv "$T/disc.json" .requests.cancelled)" -ge 1 ] || fail "the abandoned request is not counted as cancelled"
wait_for 3 eval '[ "$(server_field fake inflight)" = 0 ]' ||
	fail "mcpctl status shows inflight $(server_field fake inflight) after the client hung up"

mux "$T/disc-stub.json" cancel-disconnect --server stub
mux_check "$T/disc-stub.json" "client hangs up (stand-in)"
id=$(stub_id x-hangs-up)
[ -n "$id" ] || fail "the stand-in never got the sleep"
reasons=$(stub_cancels "$id")
note "stub: the abandoned sleep had server id $id; cancels the server got for it: $(tr '\n' ' ' <<<"$reasons")"
[ "$(wc -l <<<"$reasons")" = 1 ] && [ "$reasons" = '"client disconnected"' ] ||
	fail "the server got cancels [$reasons] for its request $id, expected one with reason \"client disconnected\""
wait_for 3 eval '[ "$(server_field stub inflight)" = 0 ]' ||
	fail "stub: inflight $(server_field stub inflight) after the client hung up"

# --- explicit cancel ------------------------------------------------------------------
mux "$T/expl.json" cancel-explicit --server fake --cancel-id 7
note "$(jv "$T/expl.json" '"fake: cancelled sleep 10000 (id 7): replies for it \(.replies_for_cancelled); another client'"'"'s sleep 300 with id 7 queued behind it took \(.other_sleep_ms) ms; a later sleep 0 \(.sleep_after_cancel_ms) ms after the cancel; requests \(.requests | tojson)"')"
mux_check "$T/expl.json" "explicit cancel (mcp-fake)"
ams=$(jv "$T/expl.json" .sleep_after_cancel_ms)
[ "$ams" -lt 2500 ] || fail "a sleep queued after the cancelled one took $ams ms: mcp-fake did not get the cancel"
[ "$(jv "$T/expl.json" .inflight_after)" = 0 ] || fail "inflight $(jv "$T/expl.json" .inflight_after) after the cancel"

mux "$T/expl-stub.json" cancel-explicit --server stub --cancel-id '"c-1"'
mux_check "$T/expl-stub.json" "explicit cancel (stand-in)"
id=$(stub_id z-cancels)
other=$(stub_id other-same-id)
[ -n "$id" ] && [ -n "$other" ] || fail "the stand-in did not get both sleeps"
reasons=$(stub_cancels "$id")
note "stub: client id \"c-1\" became server id $id (the other client's \"c-1\": $other); cancels for it: $(tr '\n' ' ' <<<"$reasons")"
[ "$reasons" = '"changed my mind"' ] ||
	fail "the stand-in got cancels [$reasons] for $id, expected the client's one (\"changed my mind\")"
[ -z "$(stub_cancels "$other")" ] || fail "the other client's request $other was cancelled too"
n=$(stub_in "$STUB_LOG" 'select(.method == "notifications/cancelled" and .params.requestId == "c-1")' | wc -l)
[ "$n" = 0 ] || fail "a cancel reached the server with the client's own id \"c-1\""

# --- request timeout -----------------------------------------------------------------
mux "$T/to.json" timeout --server fakeshort --ms 2500 --wait-ms 0
note "$(jv "$T/to.json" '"fakeshort: sleep 2500 with request_timeout_ms '"$TIMEOUT_MS"': \(.code) after \(.error_ms) ms (\(.message)); a sleep 0 queued behind it \(.queued_sleep_ms) ms; later messages \(.stray); requests \(.requests | tojson)"')"
mux_check "$T/to.json" "timeout (mcp-fake)"
[ "$(jv "$T/to.json" .code)" = -32001 ] || fail "timeout: code $(jv "$T/to.json" .code), expected -32001"
ems=$(jv "$T/to.json" .error_ms)
[ "$ems" -ge $((TIMEOUT_MS - 50)) ] && [ "$ems" -lt $((TIMEOUT_MS + 700)) ] ||
	fail "the timeout error came after $ems ms, expected about $TIMEOUT_MS ms"
[ "$(jv "$T/to.json" .queued_sleep_ms)" -lt 1500 ] ||
	fail "a sleep queued behind the timed-out one took $(jv "$T/to.json" .queued_sleep_ms) ms: mcp-fake was not told"
[ "$(jv "$T/to.json" .requests.timeout)" = 1 ] || fail "stats.requests.timeout is $(jv "$T/to.json" .requests.timeout)"

# The stand-in answers anyway, 2 s after the timeout: dropped without a trace.
mux "$T/to-stub.json" timeout --server stub --ms 3000 --ignore-cancel true
note "$(jv "$T/to-stub.json" '"stub: sleep 3000 that answers despite the cancel: \(.code) after \(.error_ms) ms; later messages \(.stray); unknown ids \(.unknown_ids)"')"
mux_check "$T/to-stub.json" "timeout (stand-in)"
[ "$(jv "$T/to-stub.json" .code)" = -32001 ] || fail "stub timeout: code $(jv "$T/to-stub.json" .code)"
ems=$(jv "$T/to-stub.json" .error_ms)
[ "$ems" -ge $((TIMEOUT_MS - 50)) ] && [ "$ems" -lt $((TIMEOUT_MS + 700)) ] ||
	fail "stub: the timeout error came after $ems ms, expected about $TIMEOUT_MS ms"
id=$(stub_id times-out)
[ -n "$id" ] || fail "the stand-in never got the sleep that timed out"
reasons=$(stub_cancels "$id")
[ "$reasons" = '"request timed out"' ] ||
	fail "the stand-in got cancels [$reasons] for the timed-out request $id"
late=$(jq -c "select(.dir == \"out\" and .msg.id == $id)" "$STUB_LOG")
[ -n "$late" ] || fail "the stand-in never sent its late reply"
note "stub: cancel for $id (\"request timed out\"), late reply sent at +$(($(jq -s "map(select(.dir == \"out\" and .msg.id == $id))[0].t - map(select(.dir == \"in\" and .msg.id == $id))[0].t" "$STUB_LOG"))) ms and dropped"
[ "$(jv "$T/to-stub.json" .unknown_ids)" = 0 ] ||
	fail "the late reply counted as an unknown id ($(jv "$T/to-stub.json" .unknown_ids)) instead of being expected and dropped"

for s in fake fakeshort stub; do
	[ "$(server_field "$s" inflight)" = 0 ] || fail "$s: inflight $(server_field "$s" inflight) at the end"
	server_is "$s" ready || fail "$s is $(server_field "$s" state)"
done
mcpd_running || fail "mcpd died"
exit 0
