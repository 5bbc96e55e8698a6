#!/bin/bash
# garbage.sh -- non-JSON lines on a server's stdout are dropped, not fatal:
# the server reaches ready and stays ready with the same process.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

HOLD_S=4

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "noisy": {
      "command": "$MCP_FAKE",
      "args": ["--garbage", "--stderr-noise=20", "--pidfile=$T/noisy.pid"],
      "backoff_min_ms": 200
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready noisy
pid=$(server_pid noisy) || fail "noisy is ready but has no pid"
restarts=$(server_field noisy restarts)
[ "$restarts" = 0 ] || fail "noisy needed $restarts restarts to reach ready"

# Ready, same pid, no restart, for the whole period; sampled every 200 ms.
# A window: mcpd has read the garbage by the time the server is ready;
# were it to act on it after all (a kill, a restart after 200 ms), 4 s of
# samples would show it.
samples=0
deadline=$(($(now_ms) + HOLD_S * 1000))
while [ "$(now_ms)" -lt "$deadline" ]; do
	js=$(ctl --json status noisy) || fail "mcpctl status failed while noisy ran"
	read -r state p r <<<"$(jq -r '.servers[0] | "\(.state) \(.pid) \(.restarts)"' <<<"$js")"
	[ "$state" = ready ] || fail "noisy left ready: state $state (last_exit $(server_field noisy last_exit))"
	[ "$p" = "$pid" ] || fail "noisy pid changed from $pid to $p"
	[ "$r" = 0 ] || fail "noisy restarted ($r)"
	samples=$((samples + 1))
	sleep 0.2
done
pid_running "$pid" || fail "noisy pid $pid is gone"
mcpd_running || fail "mcpd died"
note "noisy stayed ready with pid $pid for $HOLD_S s ($samples status samples)"

# The garbage was counted: three non-message lines before the reply.
dropped=$(jq -r '.servers[0].stats.dropped_lines' <<<"$js")
[ "$dropped" != null ] && [ "$dropped" -ge 3 ] 2>/dev/null ||
	fail "status does not count the dropped lines (stats.dropped_lines: $dropped)"
note "stats.dropped_lines $dropped"

# What the daemon made of it, for the record.
extra=$(jq -c '.servers[0] | del(.name, .state, .pid, .restarts, .last_exit,
	.next_restart_ms, .inflight, .clients, .uptime_ms)' <<<"$js")
note "other status fields: $extra"
exit 0
