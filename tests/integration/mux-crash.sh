#!/bin/bash
# mux-crash.sh -- the server is killed with requests of several clients in
# flight: every request gets exactly one error (-32000, naming the server
# and the cause) at once; while the server waits in backoff a request gets
# an immediate -32011 saying when the next attempt is; once the server is
# back, the same connections work without attaching or initializing again.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

CLIENTS=3
PER=20
# Long enough that the client sees the backoff and asks during it however
# loaded the machine, and that "at once" (ms) and "at the restart" (this)
# stay far apart in the bounds below.
BACKOFF_MS=6000
# "At once": a loaded machine or the sanitizer build answers in well under
# a second (tens of ms unloaded); held until the restart it would be
# BACKOFF_MS or more.
AT_ONCE_MS=2500

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/demo.pid", "--startlog=$T/demo.starts"],
      "backoff_min_ms": $BACKOFF_MS,
      "backoff_max_ms": $BACKOFF_MS,
      "backoff_jitter": 0
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(jq -r '.servers[] | select(.name == "demo") | .pid' <<<"$(status_json)")
case "$pid" in '' | *[!0-9]*) fail "no pid for demo in mcpctl --json status" ;; esac
[ "$(read_pidfile "$T/demo.pid")" = "$pid" ] || fail "status pid $pid is not the server's own"

# The client kills $pid itself once all $((CLIENTS * PER)) sleeps are in flight,
# so the delay is measured on one clock.  The sleeps outlast the test.
mux "$T/crash.json" crash --server demo --clients "$CLIENTS" --per "$PER" --ms 300000 --pid "$pid"
note "$(jv "$T/crash.json" '"SIGKILL with \(.in_flight) requests in flight (\(.errors) errors, codes \(.codes | tojson)): last error \(.kill_to_last_error_ms) ms after the kill"')"
note "error message: $(jv "$T/crash.json" '.messages | join(" / ")')"
note "during backoff: $(jv "$T/crash.json" '.backoff | "code \(.code) after \(.ms) ms: \(.message)"')"
note "$(jv "$T/crash.json" '"ready again \(.kill_to_ready_ms) ms after the kill (pid \(.killed_pid) -> \(.new_pid)); \(.echo_after_restart) of the clients echo on their old connection"')"
mux_check "$T/crash.json" "server killed"

total=$((CLIENTS * PER))
[ "$(jv "$T/crash.json" .errors)" = "$total" ] ||
	fail "$(jv "$T/crash.json" .errors) errors for $total requests in flight"
[ "$(jv "$T/crash.json" '.codes["-32000"]')" = "$total" ] ||
	fail "error codes $(jv "$T/crash.json" '.codes | tojson'), expected -32000 for all $total"
[ "$(jv "$T/crash.json" '.messages | length')" = 1 ] ||
	fail "different messages for the same failure: $(jv "$T/crash.json" '.messages | tojson')"
msg=$(jv "$T/crash.json" '.messages[0]')
case "$msg" in
*demo*) ;;
*) fail "the error does not name the server: $msg" ;;
esac
case "$msg" in
*SIGKILL* | *"signal 9"*) ;;
*) fail "the error does not say the server was killed: $msg" ;;
esac
last=$(jv "$T/crash.json" '.kill_to_last_error_ms | floor')
[ "$last" -lt "$AT_ONCE_MS" ] ||
	fail "the last error came $last ms after the kill, expected at once (< $AT_ONCE_MS ms; the restart is $BACKOFF_MS ms away)"

[ "$(jv "$T/crash.json" .backoff.code)" = -32011 ] ||
	fail "a request during backoff got $(jv "$T/crash.json" .backoff), expected -32011"
bms=$(jv "$T/crash.json" '.backoff.ms | floor')
[ "$bms" -lt "$AT_ONCE_MS" ] ||
	fail "the -32011 error during backoff took $bms ms, expected at once (< $AT_ONCE_MS ms), not at the restart"
bmsg=$(jv "$T/crash.json" .backoff.message)
next=$(sed -n 's/.*next attempt in \([0-9.]*\) s.*/\1/p' <<<"$bmsg")
[ -n "$next" ] || fail "the backoff error does not say when the next attempt is: $bmsg"
awk -v n="$next" -v max="$BACKOFF_MS" 'BEGIN { exit !(n >= 0 && n * 1000 <= max + 100) }' ||
	fail "next attempt in $next s, but backoff_min_ms is $BACKOFF_MS"
case "$bmsg" in *demo*) ;; *) fail "the backoff error does not name the server: $bmsg" ;; esac

[ "$(jv "$T/crash.json" .echo_after_restart)" = "$CLIENTS" ] ||
	fail "only $(jv "$T/crash.json" .echo_after_restart) of $CLIENTS clients work after the restart"
[ "$(startlog_count "$T/demo.starts")" = 2 ] ||
	fail "the server was started $(startlog_count "$T/demo.starts") times, expected 2"
ready_ms=$(jv "$T/crash.json" .kill_to_ready_ms)
[ "$ready_ms" -ge $((BACKOFF_MS - 100)) ] ||
	fail "ready again $ready_ms ms after the kill, before the backoff of $BACKOFF_MS ms"

js=$(status_json) || fail "mcpctl status failed"
note "server stats: $(jq -c '.servers[0] | {inflight, clients, restarts, requests: .stats.requests}' <<<"$js")"
[ "$(jq '.servers[0].stats.requests.failed' <<<"$js")" = "$total" ] ||
	fail "stats.requests.failed is $(jq '.servers[0].stats.requests.failed' <<<"$js"), expected $total"
[ "$(jq '.servers[0].inflight' <<<"$js")" = 0 ] || fail "inflight $(jq '.servers[0].inflight' <<<"$js") at the end"
mcpd_running || fail "mcpd died"
exit 0
