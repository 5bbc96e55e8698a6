#!/bin/bash
# hostile-output.sh -- a client over its soft output limit that nothing
# more is queued for is still cut off.  It asks for one reply bigger than
# client_output_soft_bytes (and smaller than the hard limit), then neither
# reads nor sends: mcpd disconnects it once client_output_soft_s has
# passed (plus the once-a-second check), logs why, and carries on.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_node

HARD_BYTES=8388608
SOFT_BYTES=1048576
SOFT_S=2
BIG_BYTES=3000000
CHECK_MS=1000		# CLIENT_CRON_MS in daemon/client.c
# Timed from before the request (the queue goes over the limit later), to
# the moment the client sees it detached: a loaded machine adds the reply's
# making and queueing, a late timer, a slow status.  A client never cut
# off, or cut off by something else, shows as null (WAIT_MS).
SLACK_MS=3000
WAIT_MS=20000

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": {
    "client_output_hard_bytes": $HARD_BYTES,
    "client_output_soft_bytes": $SOFT_BYTES,
    "client_output_soft_s": $SOFT_S
  },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE" }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"

node_client "$TESTS_SRCDIR/integration/hostile-fds.mjs" "$T/big.json" big \
	--server demo --bytes "$BIG_BYTES" --wait-ms "$WAIT_MS"
jq -e '.problem == null' "$T/big.json" >/dev/null || fail "$(jq -r .problem "$T/big.json")"
ms=$(jq .close_ms "$T/big.json")
note "one reply of $BIG_BYTES bytes, never read, soft limit $SOFT_BYTES bytes for $SOFT_S s: disconnected after ${ms} ms"
[ "$ms" != null ] || fail "the client over its soft limit was still attached $((WAIT_MS / 1000)) s later"
[ "$ms" -ge $((SOFT_S * 1000)) ] || fail "disconnected after $ms ms, before client_output_soft_s ($SOFT_S s)"
[ "$ms" -le $((SOFT_S * 1000 + CHECK_MS + SLACK_MS)) ] ||
	fail "disconnected after $ms ms, expected at most $((SOFT_S * 1000 + CHECK_MS + SLACK_MS))"
grep -q "output queue over $SOFT_BYTES bytes (client_output_soft_bytes) for more than $SOFT_S s; it is too slow; disconnecting" "$MCPD_LOG" ||
	fail "the reason was not logged"
out=$(ctl call demo echo text=after) || fail "mcpctl call failed afterwards"
[ "$out" = after ] || fail "mcpctl call returned '$out'"
[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted"
exit 0
