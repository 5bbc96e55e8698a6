#!/bin/bash
# chaos.sh -- correctness under chaos (SPEC 5): at least 100 000 requests
# from 8 clients (ids mixed: 1, "m-2", 3.5 ... colliding across clients;
# echo, and every 10th a 1 ms sleep with a progress token; every 13th
# cancelled right after it is sent) while the server is SIGKILLed every
# 2 s.  Every request that was not cancelled gets exactly one reply or
# error, each to its own caller (mcpload checks ids as raw text, and echo
# texts that name client and request); a cancelled one gets at most one;
# no progress goes astray; mcpd's own counters agree with what the
# clients saw.  Prints the counts.
#
# Sized for about half a minute: CHAOS_REQUESTS requests (120000, at least
# 100000) sent at CHAOS_RATE per second (4000, or what spreads a larger
# CHAOS_REQUESTS over about two minutes).  The long variant (make chaos)
# sets CHAOS_REQUESTS=1000000.  mcp-fake runs its sleeps one at a time, so
# at higher rates the sleeps are made rarer (at most 400 a second).

CHAOS_REQUESTS=${CHAOS_REQUESTS:-120000}
case "$CHAOS_REQUESTS" in
'' | *[!0-9]*) echo "ERROR: chaos: CHAOS_REQUESTS must be an integer" >&2; exit 99 ;;
esac
if [ "$CHAOS_REQUESTS" -le 480000 ]; then
	CHAOS_RATE=${CHAOS_RATE:-4000}
else
	CHAOS_RATE=${CHAOS_RATE:-$((CHAOS_REQUESTS / 120))}
fi
CHAOS_KILL_S=2
CHAOS_MIN_REQUESTS=100000
case "$CHAOS_RATE" in
'' | *[!0-9]*) echo "ERROR: chaos: CHAOS_RATE must be an integer" >&2; exit 99 ;;
esac
[ "$CHAOS_RATE" -gt 0 ] || { echo "ERROR: chaos: CHAOS_RATE must be > 0" >&2; exit 99; }
EXPECT_S=$((CHAOS_REQUESTS / CHAOS_RATE))
# The whole test, with room for a slow machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-$((EXPECT_S * 3 + 120))}

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_mcpload
[ "$CHAOS_REQUESTS" -ge "$CHAOS_MIN_REQUESTS" ] ||
	hard_error "CHAOS_REQUESTS=$CHAOS_REQUESTS is below the floor of $CHAOS_MIN_REQUESTS"

CLIENTS=8
INFLIGHT=16
SLEEP_EVERY=$(((CHAOS_RATE + 399) / 400))
[ "$SLEEP_EVERY" -ge 10 ] || SLEEP_EVERY=10
SLEEP_MS=1
CANCEL_EVERY=13
PIDFILE=$T/demo.pid
KILLS=$T/kills

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$PIDFILE", "--startlog=$T/demo.starts"],
      "backoff_min_ms": 100,
      "backoff_max_ms": 200
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo

# The killer: every CHAOS_KILL_S, the server's current process, if it is
# mcpd's child (or its reaper's, see Containment in mcpd(8)) and not the
# one killed last.
: >"$KILLS"
(
	last=
	while sleep "$CHAOS_KILL_S"; do
		p=$(read_pidfile "$PIDFILE") || continue
		[ "$p" != "$last" ] || continue
		pp=$(proc_ppid "$p" 2>/dev/null) || continue
		[ "$pp" = "$MCPD_PID" ] ||
			[ "$(proc_ppid "$pp" 2>/dev/null)" = "$MCPD_PID" ] || continue
		kill -KILL "$p" 2>/dev/null && echo "$p $(now_ms)" >>"$KILLS" && last=$p
	done
) &
KILLER_PID=$!
stop_killer() {
	[ -n "${KILLER_PID:-}" ] || return 0
	kill -TERM "$KILLER_PID" 2>/dev/null
	wait "$KILLER_PID" 2>/dev/null
	KILLER_PID=
}
CLEANUP_HOOKS+=(stop_killer)

t0=$(now_ms)
"$MCPLOAD" --json --label chaos --socket "$SOCK" --server demo \
	--clients "$CLIENTS" --inflight "$INFLIGHT" --method mixed \
	--sleep-every "$SLEEP_EVERY" --sleep-ms "$SLEEP_MS" --progress \
	--cancel-every "$CANCEL_EVERY" --ids mixed \
	--requests "$CHAOS_REQUESTS" --rate "$CHAOS_RATE" --allow-errors \
	--drain-ms 15000 --hold-ms 500 >"$T/chaos.json" 2>"$T/chaos.err"
rc=$?
secs=$((($(now_ms) - t0) / 1000))
stop_killer
jq -e . "$T/chaos.json" >/dev/null 2>&1 ||
	{ cat "$T/chaos.err" >&2; fail "mcpload exited $rc without a summary"; }
J=$T/chaos.json
v() { jq -r "$1" "$J"; }
kills=$(wc -l <"$KILLS")
note "$(v '"\(.sent) requests in '"$secs"' s, \(.clients) clients x \(.inflight) in flight, ids \(.ids), 1 in \(.sleep_every) a \(.sleep_ms) ms sleep with progress, 1 in \(.cancel_every) cancelled"'); $kills kills"
note "$(v '"replies: \(.ok) results, \(.errors) errors \(.errors_by_code | tojson), \(.cancelled) cancelled (answered anyway: \(.cancelled_ok) results, \(.cancelled_errors) errors)"')"
note "$(v '"progress: \(.progress_ok) routed, \(.progress_after_cancel) after a cancel, \(.progress_misrouted) misrouted, \(.progress_wrong_count) sleeps with a wrong count"')"
note "$(v '"lost \(.missing), misrouted \(.misrouted), duplicated \(.duplicates), unknown \(.unknown), corrupt \(.corrupt), connections lost \(.conn_lost)"')"
note "errors: $(v '.error_messages | to_entries | map("\(.key): \(.value)") | join(" / ")')"
if [ "$rc" != 0 ]; then
	head -20 "$T/chaos.err" >&2
	fail "mcpload found wrong replies (exit $rc): $(v '"lost \(.missing) misrouted \(.misrouted) duplicated \(.duplicates) unknown \(.unknown) corrupt \(.corrupt) progress misrouted \(.progress_misrouted) connections lost \(.conn_lost)"')"
fi

for f in missing misrouted duplicates unknown corrupt conn_lost progress_misrouted progress_wrong_count; do
	[ "$(v ".$f")" = 0 ] || fail "$f: $(v ".$f")"
done
[ "$(v .sent)" = "$CHAOS_REQUESTS" ] || fail "sent $(v .sent) requests, expected $CHAOS_REQUESTS"
# Every request that was not cancelled: exactly one reply or error.
answered=$(v '.ok + .errors')
[ "$answered" = "$(v '.sent - .cancelled')" ] ||
	fail "$answered replies or errors for $(v '.sent - .cancelled') requests not cancelled"
[ "$(v '.cancelled_ok + .cancelled_errors <= .cancelled')" = true ] ||
	fail "cancelled requests answered $(v '.cancelled_ok + .cancelled_errors') times for $(v .cancelled)"
# Errors only for the server being down: -32000 in flight, -32011 refused
# during backoff.
others=$(v '.errors_by_code | to_entries | map(select(.key != "-32000" and .key != "-32011")) | from_entries')
[ "$others" = '{}' ] || fail "unexpected error codes: $others"
# The chaos really happened, with requests caught in flight.
min_kills=$((EXPECT_S / CHAOS_KILL_S / 2))
[ "$min_kills" -ge 3 ] || min_kills=3
[ "$kills" -ge "$min_kills" ] || fail "only $kills kills in $secs s, expected at least $min_kills"
[ "$(v '.errors_by_code["-32000"] // 0')" -gt 0 ] ||
	fail "no request was in flight at any of the $kills kills"
[ "$(v .progress_ok)" -gt 0 ] || fail "no progress notification arrived"
[ "$(v .cancelled)" -gt 0 ] || fail "nothing was cancelled"

# mcpd survived, serves again, and its counters agree with the clients'.
mcpd_running || fail "mcpd died"
wait_ready demo 30
wait_for 30 eval '[ "$(server_field demo inflight)" = 0 ] && [ "$(server_field demo clients)" = 0 ]' ||
	fail "after the run: inflight $(server_field demo inflight), clients $(server_field demo clients)"
js=$(status_json) || fail "mcpctl status failed"
read -r m_ok m_failed m_cancelled m_timeout restarts <<<"$(jq -r '.servers[0] |
	"\(.stats.requests.ok) \(.stats.requests.failed) \(.stats.requests.cancelled) \(.stats.requests.timeout) \(.restarts)"' <<<"$js")"
note "mcpd's counters: ok $m_ok, failed $m_failed, cancelled $m_cancelled, timeout $m_timeout; restarts $restarts"
[ "$m_ok" = "$(v '.ok + .cancelled_ok')" ] ||
	fail "mcpd counted $m_ok results relayed, the clients got $(v '.ok + .cancelled_ok')"
e32000=$(v '.errors_by_code["-32000"] // 0')
[ "$m_failed" -ge "$e32000" ] && [ "$m_failed" -le $((e32000 + $(v .cancelled_errors))) ] ||
	fail "mcpd counted $m_failed requests failed, the clients got $e32000 errors -32000 (+ up to $(v .cancelled_errors) on cancelled requests)"
[ "$m_timeout" = 0 ] || fail "$m_timeout requests timed out"
[ "$restarts" -ge "$kills" ] || fail "$restarts restarts for $kills kills"
# A child that exited just now is a zombie until mcpd reaps it; one left
# unreaped stays one.
wait_for 30 eval '[ "$(mcpd_zombies)" = 0 ]' ||
	fail "mcpd has had zombie children for 30 s: $(mcpd_zombies) now"
ctl call demo echo text=after-chaos >"$T/after.out" 2>&1 || fail "mcpctl call after the chaos failed: $(cat "$T/after.out")"
[ "$(cat "$T/after.out")" = after-chaos ] || fail "mcpctl call after the chaos returned $(cat "$T/after.out")"
exit 0
