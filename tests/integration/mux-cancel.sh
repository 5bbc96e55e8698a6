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

# The request timeout: its error must come after it and well before twice
# it; the slack (TIMEOUT_MS + TIMEOUT_SLACK_MS) is what a loaded machine or
# the sanitizer build may add to a timer and two messages.
TIMEOUT_MS=2000
TIMEOUT_SLACK_MS=1500
STUB_LOG=$T/stub.log
STUB_SHORT_LOG=$T/stub-short.log

# The servers with a request timeout serve only the timeout cases: on the
# others, a slow machine must not turn a cancel into a timeout.
write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "fake": { "command": "$MCP_FAKE", "args": [] },
    "fakeshort": { "command": "$MCP_FAKE", "args": [], "request_timeout_ms": $TIMEOUT_MS },
    "stub": $(stub_json "$STUB_LOG"),
    "stubshort": $(stub_json "$STUB_SHORT_LOG" "\"request_timeout_ms\": $TIMEOUT_MS")
  }
}
JSON
start_mcpd "$T/mcpd.json"
for s in fake fakeshort stub stubshort; do
	wait_ready "$s"
done

# stub_id TAG [LOG]: the id the stand-in received for the sleep tagged TAG.
stub_id() {
	stub_in "${2:-$STUB_LOG}" "select(.method == \"tools/call\" and .params.arguments.tag == \"$1\") | .id"
}
# stub_cancels ID [LOG]: the reasons of the cancels the stand-in got for ID.
stub_cancels() {
	stub_in "${2:-$STUB_LOG}" "select(.method == \"notifications/cancelled\" and .params.requestId == $1) | .params.reason"
}

# --- a client hangs up mid-request -------------------------------------------------
# The abandoned sleep lasts 300 s: without the cancel, the sleep 0 queued
# behind it gets no answer in the client's 20 s; with it, tens of ms (a
# loaded machine: well under a second).
mux "$T/disc.json" cancel-disconnect --server fake
note "$(jv "$T/disc.json" '"fake: a client hung up during a 300 s sleep; a sleep 0 queued behind it returned after \(.queued_sleep_ms) ms; inflight \(.inflight_after); requests \(.requests | tojson)"')"
mux_check "$T/disc.json" "client hangs up (mcp-fake)"
qms=$(jv "$T/disc.json" .queued_sleep_ms)
[ "$qms" != null ] && [ "$qms" -lt 10000 ] ||
	fail "a sleep queued behind the abandoned one took $qms ms: mcp-fake was not told to stop (it sleeps 300 s otherwise)"
[ "$(jv "$T/disc.json" .inflight_zero)" = true ] || fail "inflight did not return to 0 after the client hung up"
[ "$(jv "$T/disc.json" .requests.cancelled)" -ge 1 ] || fail "the abandoned request is not counted as cancelled"
wait_for 30 eval '[ "$(server_field fake inflight)" = 0 ]' ||
	fail "mcpctl status shows inflight $(server_field fake inflight) after the client hung up"

mux "$T/disc-stub.json" cancel-disconnect --server stub
mux_check "$T/disc-stub.json" "client hangs up (stand-in)"
id=$(stub_id x-hangs-up)
[ -n "$id" ] || fail "the stand-in never got the sleep"
reasons=$(stub_cancels "$id")
note "stub: the abandoned sleep had server id $id; cancels the server got for it: $(tr '\n' ' ' <<<"$reasons")"
[ "$(wc -l <<<"$reasons")" = 1 ] && [ "$reasons" = '"client disconnected"' ] ||
	fail "the server got cancels [$reasons] for its request $id, expected one with reason \"client disconnected\""
wait_for 30 eval '[ "$(server_field stub inflight)" = 0 ]' ||
	fail "stub: inflight $(server_field stub inflight) after the client hung up"

# --- explicit cancel ------------------------------------------------------------------
# As above: about 300 ms (the other client's sleep, queued first) with the
# cancel, no answer in 20 s without.
mux "$T/expl.json" cancel-explicit --server fake --cancel-id 7
note "$(jv "$T/expl.json" '"fake: cancelled a 300 s sleep (id 7): replies for it \(.replies_for_cancelled); another client'"'"'s sleep 300 with id 7 queued behind it took \(.other_sleep_ms) ms; a later sleep 0 \(.sleep_after_cancel_ms) ms after the cancel; requests \(.requests | tojson)"')"
mux_check "$T/expl.json" "explicit cancel (mcp-fake)"
ams=$(jv "$T/expl.json" .sleep_after_cancel_ms)
[ "$ams" != null ] && [ "$ams" -lt 10000 ] ||
	fail "a sleep queued after the cancelled one took $ams ms: mcp-fake did not get the cancel"
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
# mcp-fake's sleep outlasts the test: a sleep 0 queued behind it is answered
# only if mcp-fake was told to stop; otherwise it times out in its turn
# (-32001 after TIMEOUT_MS, a problem for the client).  Nothing can come
# late from mcp-fake then; the client watches for TIMEOUT_MS more (a window:
# a second timeout of the same request would show in it).
mux "$T/to.json" timeout --server fakeshort --ms 300000 --window-ms "$TIMEOUT_MS"
note "$(jv "$T/to.json" '"fakeshort: a 300 s sleep with request_timeout_ms '"$TIMEOUT_MS"': \(.code) after \(.error_ms) ms (\(.message)); a sleep 0 queued behind it \(.queued_sleep_ms) ms; later messages \(.stray); requests \(.requests | tojson)"')"
mux_check "$T/to.json" "timeout (mcp-fake)"
[ "$(jv "$T/to.json" .code)" = -32001 ] || fail "timeout: code $(jv "$T/to.json" .code), expected -32001"
ems=$(jv "$T/to.json" .error_ms)
[ "$ems" -ge $((TIMEOUT_MS - 50)) ] && [ "$ems" -lt $((TIMEOUT_MS + TIMEOUT_SLACK_MS)) ] ||
	fail "the timeout error came after $ems ms, expected about $TIMEOUT_MS ms (< $((TIMEOUT_MS + TIMEOUT_SLACK_MS)))"
qms=$(jv "$T/to.json" .queued_sleep_ms)
[ "$qms" != null ] && [ "$qms" -lt "$TIMEOUT_MS" ] ||
	fail "a sleep queued behind the timed-out one took $qms ms: mcp-fake was not told"
[ "$(jv "$T/to.json" .requests.timeout)" = 1 ] || fail "stats.requests.timeout is $(jv "$T/to.json" .requests.timeout)"

# The stand-in answers anyway, 3 s after the timeout: dropped without a
# trace.  The client waits until the stand-in has sent that answer (its
# log says so), then makes a round trip through it.
mux "$T/to-stub.json" timeout --server stubshort --ms $((TIMEOUT_MS + 3000)) --ignore-cancel true \
	--late-log "$STUB_SHORT_LOG"
note "$(jv "$T/to-stub.json" '"stub: a sleep of '"$((TIMEOUT_MS + 3000))"' ms that answers despite the cancel: \(.code) after \(.error_ms) ms; later messages \(.stray); unknown ids \(.unknown_ids)"')"
mux_check "$T/to-stub.json" "timeout (stand-in)"
[ "$(jv "$T/to-stub.json" .code)" = -32001 ] || fail "stub timeout: code $(jv "$T/to-stub.json" .code)"
ems=$(jv "$T/to-stub.json" .error_ms)
[ "$ems" -ge $((TIMEOUT_MS - 50)) ] && [ "$ems" -lt $((TIMEOUT_MS + TIMEOUT_SLACK_MS)) ] ||
	fail "stub: the timeout error came after $ems ms, expected about $TIMEOUT_MS ms (< $((TIMEOUT_MS + TIMEOUT_SLACK_MS)))"
id=$(stub_id times-out "$STUB_SHORT_LOG")
[ -n "$id" ] || fail "the stand-in never got the sleep that timed out"
reasons=$(stub_cancels "$id" "$STUB_SHORT_LOG")
[ "$reasons" = '"request timed out"' ] ||
	fail "the stand-in got cancels [$reasons] for the timed-out request $id"
late=$(jq -c "select(.dir == \"out\" and .msg.id == $id)" "$STUB_SHORT_LOG")
[ -n "$late" ] && [ "$(jv "$T/to-stub.json" .late_answer_sent)" = true ] ||
	fail "the stand-in never sent its late reply"
note "stub: cancel for $id (\"request timed out\"), late reply sent at +$(($(jq -s "map(select(.dir == \"out\" and .msg.id == $id))[0].t - map(select(.dir == \"in\" and .msg.id == $id))[0].t" "$STUB_SHORT_LOG"))) ms and dropped"
[ "$(jv "$T/to-stub.json" .unknown_ids)" = 0 ] ||
	fail "the late reply counted as an unknown id ($(jv "$T/to-stub.json" .unknown_ids)) instead of being expected and dropped"

for s in fake fakeshort stub stubshort; do
	[ "$(server_field "$s" inflight)" = 0 ] || fail "$s: inflight $(server_field "$s" inflight) at the end"
	server_is "$s" ready || fail "$s is $(server_field "$s" state)"
done
mcpd_running || fail "mcpd died"
exit 0
