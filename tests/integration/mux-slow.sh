#!/bin/bash
# mux-slow.sh -- a client that asks for big results and never reads them
# is disconnected once its output queue passes client_output_hard_bytes
# (mcpd logs why), while another client of the same server keeps its
# normal latency and the server and mcpd carry on.  The soft limit may not
# exceed the hard one, so it is set to the same value: only the hard limit
# acts here.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

HARD_BYTES=1048576
BIG_BYTES=400000
BIG_COUNT=8
# The other client's echo: a few ms unloaded, tens under load, at most a few
# hundred on a busy machine or the sanitizer build.  An mcpd that blocked
# on the client that does not read would hold it for ever (the client's
# call gives up after 30 s: a problem), one that stalled on its queue for
# seconds.
MAX_LATENCY_MS=2000

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": {
    "client_output_hard_bytes": $HARD_BYTES,
    "client_output_soft_bytes": $HARD_BYTES
  },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": [] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"
rss0=$(vm_kib "$MCPD_PID" VmRSS)

mux "$T/slow.json" slow --server demo --count "$BIG_COUNT" --bytes "$BIG_BYTES"
note "$(jv "$T/slow.json" '"the client that does not read (\(.big_replies_requested) x big '"$BIG_BYTES"' requested) was cut off after \(.disconnect_ms) ms, having received \(.big_replies_received) of them; connection closed: \(.slow_closed)"')"
note "$(jv "$T/slow.json" '"other client: \(.echo_calls) echo calls, latency p50 \(.latency_ms.p50) ms, p99 \(.latency_ms.p99) ms, max \(.latency_ms.max) ms; from the episode on: \(.latency_during_ms.n) calls, p50 \(.latency_during_ms.p50) ms, max \(.latency_during_ms.max) ms"')"
mux_check "$T/slow.json" "slow client"

[ "$(jv "$T/slow.json" .disconnect_ms)" != null ] || fail "the client that does not read was never disconnected"
[ "$(jv "$T/slow.json" .slow_closed)" = true ] || fail "the slow client's connection was not closed"
got=$(jv "$T/slow.json" .big_replies_received)
[ "$got" -lt "$BIG_COUNT" ] ||
	fail "the slow client got all $BIG_COUNT big replies: its queue never passed the hard limit"
grep -q "over the hard limit (client_output_hard_bytes $HARD_BYTES)" "$MCPD_LOG" ||
	fail "mcpd did not log why it disconnected the client"
note "mcpd log: $(grep -m1 "over the hard limit" "$MCPD_LOG")"

n=$(jv "$T/slow.json" .latency_during_ms.n)
[ "$n" -ge 20 ] || fail "only $n echo calls during the episode"
max=$(jv "$T/slow.json" '.latency_ms.max | floor')
[ "$max" -lt "$MAX_LATENCY_MS" ] ||
	fail "the other client's echo took up to $max ms, expected < $MAX_LATENCY_MS ms"

[ "$(jv "$T/slow.json" .server_state)" = ready ] || fail "the server is $(jv "$T/slow.json" .server_state)"
[ "$(jv "$T/slow.json" .server_pid)" = "$pid" ] || fail "the server was restarted"
[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted"
rss1=$(vm_kib "$MCPD_PID" VmRSS)
note "mcpd VmRSS ${rss0} KiB before, ${rss1} KiB after"
[ $((rss1 - rss0)) -lt 65536 ] || fail "mcpd grew by $((rss1 - rss0)) KiB"
# And a new client is served as usual.
mux "$T/after.json" ids --server demo --clients 2 --per 5
mux_check "$T/after.json" "a new client after the episode"
mcpd_running || fail "mcpd died"
exit 0
