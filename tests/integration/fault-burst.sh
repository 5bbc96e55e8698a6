#!/bin/bash
# fault-burst.sh -- 50 requests in flight (5 clients x 10, ids colliding
# across clients) when the server is SIGKILLed: each caller gets exactly
# one error, -32000 naming the server and the signal, and the last of the
# 50 arrives within 100 ms of the kill (SPEC 5), measured by mcpload on
# one clock from its kill(2) to its read of the last error.
#
# The time is a property of mcpd, but a loaded machine can stall any
# process for a while: a round over the bar is repeated (at most ROUNDS
# rounds, each with a fresh server); every round must be exactly right,
# and one must be within the bar.  mcpd getting it right takes a few ms
# (under 20 ms sanitized, with a busy loop on every core); getting it
# wrong (noticing the death late, a timeout) takes seconds.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_mcpload

CLIENTS=5
PER=10
TOTAL=$((CLIENTS * PER))
BAR_MS=100
ROUNDS=5

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/demo.pid"],
      "backoff_min_ms": 200,
      "backoff_max_ms": 200
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"

best=
times=()
for round in $(seq "$ROUNDS"); do
	wait_ready demo 30
	pid=$(server_pid demo) || fail "no pid for demo"
	[ "$(read_pidfile "$T/demo.pid")" = "$pid" ] || fail "status pid $pid is not the server's own"
	out=$T/burst$round.json
	# 50 sleeps of 30 s (mcp-fake runs one, queues the rest), SIGKILL
	# after 2 s, then a window of 1 s more to catch a second answer to
	# anything.  mcpload can only kill at a time it is given: 2 s stands
	# in for "all 50 have reached the server", which takes a few ms (a
	# request that came later would get -32011, and fail the round).
	# --drain-ms only bounds a broken run.
	timeout -k 5 90 "$MCPLOAD" --json --socket "$SOCK" --server demo \
		--clients "$CLIENTS" --inflight "$PER" --requests "$TOTAL" \
		--method sleep --sleep-ms 30000 --ids mixed --allow-errors \
		--kill-pid "$pid" --kill-after-ms 2000 --drain-ms 20000 \
		--hold-ms 1000 >"$out" 2>"$out.err"
	rc=$?
	jq -e . "$out" >/dev/null 2>&1 || { cat "$out.err" >&2; fail "mcpload exited $rc without a summary"; }
	read -r sent errors ok kill_replies max_us p50_us missing dup mis unk corrupt lost \
		<<<"$(jq -r '"\(.sent) \(.errors) \(.ok) \(.kill_replies) \(.kill_max_us) \(.kill_p50_us) \(.missing) \(.duplicates) \(.misrouted) \(.unknown) \(.corrupt) \(.conn_lost)"' "$out")"
	max_ms=$(awk -v u="$max_us" 'BEGIN { printf "%.1f", u / 1000 }')
	p50_ms=$(awk -v u="$p50_us" 'BEGIN { printf "%.1f", u / 1000 }')
	note "round $round: SIGKILL to pid $pid with $sent in flight: $errors errors (codes $(jq -c .errors_by_code "$out")), $ok results; kill -> error p50 $p50_ms ms, last $max_ms ms"
	[ "$rc" = 0 ] || { head -20 "$out.err" >&2; fail "round $round: mcpload found wrong replies (exit $rc): missing $missing duplicates $dup misrouted $mis unknown $unk corrupt $corrupt lost connections $lost"; }
	[ "$sent" = "$TOTAL" ] || fail "round $round: sent $sent requests, expected $TOTAL"
	[ "$errors" = "$TOTAL" ] && [ "$ok" = 0 ] ||
		fail "round $round: $errors errors and $ok results for $TOTAL killed requests"
	[ "$(jq -r '.errors_by_code["-32000"]' "$out")" = "$TOTAL" ] ||
		fail "round $round: error codes $(jq -c .errors_by_code "$out"), expected -32000 for all $TOTAL"
	[ "$kill_replies" = "$TOTAL" ] ||
		fail "round $round: $kill_replies answers after the kill, expected $TOTAL"
	msg=$(jq -r '.error_messages["-32000"]' "$out")
	case "$msg" in
	*demo*SIGKILL* | *demo*"signal 9"*) ;;
	*) fail "round $round: the error does not name the server and the signal: $msg" ;;
	esac
	[ "$round" = 1 ] && note "error: $msg"
	times+=("$max_ms")
	if [ -z "$best" ] || awk -v a="$max_ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		best=$max_ms
	fi
	awk -v a="$max_ms" -v b="$BAR_MS" 'BEGIN { exit !(a <= b) }' && break
	note "round $round: the last error came $max_ms ms after the kill, over $BAR_MS ms; again (load $(cut -d' ' -f1 /proc/loadavg))"
	wait_for 30 eval '[ "$(server_pid demo 2>/dev/null)" != "$pid" ]' ||
		fail "demo did not restart after the kill"
done
note "kill -> last of $TOTAL errors: ${times[*]} ms (bar $BAR_MS ms)"
awk -v a="$best" -v b="$BAR_MS" 'BEGIN { exit !(a <= b) }' ||
	fail "the last of $TOTAL errors came ${times[*]} ms after the kill in $ROUNDS rounds, expected <= $BAR_MS ms"

js=$(status_json) || fail "mcpctl status failed"
[ "$(jq '.servers[0].inflight' <<<"$js")" = 0 ] || fail "inflight $(jq '.servers[0].inflight' <<<"$js") at the end"
failed=$(jq '.servers[0].stats.requests.failed' <<<"$js")
[ "$failed" = $((TOTAL * ${#times[@]})) ] ||
	fail "stats.requests.failed is $failed, expected $((TOTAL * ${#times[@]}))"
mcpd_running || fail "mcpd died"
exit 0
