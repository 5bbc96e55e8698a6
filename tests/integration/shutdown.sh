#!/bin/bash
# shutdown.sh -- SIGTERM (and SIGINT) to mcpd stops every server, kills
# their process groups, exits 0 within the stop timeout and removes the
# socket.  A second mcpd cannot take a live socket; when mcpd is killed
# outright its servers die with it and the next mcpd reuses the socket.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

STOP_TIMEOUT_MS=1000

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "stop_timeout_ms": $STOP_TIMEOUT_MS },
  "mcpServers": {
    "plain": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/plain.pid"]
    },
    "parent": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/parent.pid", "--grandchild=$T/parent.gc.pid"]
    },
    "stubborn": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/stubborn.pid", "--ignore-sigterm", "--ignore-stdin-eof"]
    }
  }
}
JSON
_probe_orphan_reaper
start_mcpd "$T/mcpd.json"

PIDS=()
STARTS=()
WHAT=()
for s in plain parent stubborn; do
	wait_ready "$s"
	pid=$(server_pid "$s") || fail "$s has no pid"
	pid_running "$pid" || fail "$s pid $pid not running"
	PIDS+=("$pid")
	STARTS+=("$(proc_starttime "$pid")")
	WHAT+=("server $s")
done
wait_for 30 read_pidfile "$T/parent.gc.pid" >/dev/null || fail "no grandchild pidfile"
gc=$(read_pidfile "$T/parent.gc.pid")
pid_running "$gc" || fail "grandchild $gc not running"
PIDS+=("$gc")
STARTS+=("$(proc_starttime "$gc")")
WHAT+=("grandchild of parent")
[ -S "$SOCK" ] || fail "no socket at $SOCK"

t0=$(now_ms)
stop_mcpd TERM 15
ms=$(($(now_ms) - t0))
note "mcpd exited with status $MCPD_STATUS $ms ms after SIGTERM (stop_timeout_ms $STOP_TIMEOUT_MS, one server needs SIGKILL)"
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM, expected 0"
# The stubborn server's SIGKILL comes at stop_timeout_ms.  Up to 3 s late
# on a loaded machine (mcpd's and this shell's turns), and still below the
# 5000 ms default that an ignored stop_timeout_ms would give.
[ "$ms" -lt $((STOP_TIMEOUT_MS + 3000)) ] ||
	fail "mcpd took $ms ms to exit, expected < $((STOP_TIMEOUT_MS + 3000)) ms (the default stop timeout would be 5000)"
[ "$ms" -ge $((STOP_TIMEOUT_MS * 9 / 10)) ] ||
	fail "mcpd exited after $ms ms, before the SIGKILL deadline of the stubborn server"

# Nothing survives: check at once (mcpd exits only once its servers and
# their groups are gone), then again after a window of half a second, in
# which nothing may come back.
for round in 1 2; do
	for i in "${!PIDS[@]}"; do
		proc_dead "${PIDS[$i]}" "${STARTS[$i]}" ||
			fail "${WHAT[$i]} survived mcpd's exit: $(describe_pid "${PIDS[$i]}")"
	done
	[ "$round" = 1 ] && sleep 0.5
done
[ ! -e "$SOCK" ] || fail "socket $SOCK still exists after mcpd exited"
ctl status >/dev/null 2>&1
rc=$?
[ "$rc" = 3 ] || fail "mcpctl status after shutdown exited $rc, expected 3 (daemon unreachable)"

# SIGINT behaves the same.
: >"$MCPD_LOG"
start_mcpd "$T/mcpd.json"
wait_ready plain
pid=$(server_pid plain) || fail "plain has no pid"
st=$(proc_starttime "$pid")
t0=$(now_ms)
stop_mcpd INT 15
ms=$(($(now_ms) - t0))
note "SIGINT: mcpd exited with status $MCPD_STATUS after $ms ms"
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGINT, expected 0"
proc_dead "$pid" "$st" || fail "plain survived SIGINT to mcpd: $(describe_pid "$pid")"
[ ! -e "$SOCK" ] || fail "socket $SOCK still exists after SIGINT"

# --- a second mcpd does not take a live daemon's socket ------------------------
start_mcpd "$T/mcpd.json"
first=$MCPD_PID
timeout -k 5 30 "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr \
	</dev/null >"$T/second.log" 2>&1 &
second=$!
MCPD_PIDS+=("$second")
wait_for 30 eval '! pid_running '"$second" || fail "a second mcpd on a live socket keeps running"
wait "$second"
rc=$?
_forget_mcpd "$second"
[ "$rc" != 0 ] || fail "a second mcpd on a live socket exited 0"
[ "$(jq -r .daemon.pid <<<"$(ctl --json status)")" = "$first" ] ||
	fail "the socket no longer reaches the first mcpd after a second one tried to start"
note "second mcpd on a live socket: exit $rc: $(head -1 "$T/second.log")"

# --- mcpd killed outright: its servers die with it -------------------------------
for s in plain parent stubborn; do
	wait_ready "$s"
done
PIDS=()
STARTS=()
for s in plain parent stubborn; do
	pid=$(server_pid "$s") || fail "$s has no pid"
	PIDS+=("$pid")
	STARTS+=("$(proc_starttime "$pid")")
done
wait_for 30 read_pidfile "$T/parent.gc.pid" >/dev/null || fail "no grandchild pidfile"
gc=$(read_pidfile "$T/parent.gc.pid")
gc_st=$(proc_starttime "$gc")
kill -KILL "$MCPD_PID"
{ wait "$MCPD_PID"; } 2>/dev/null
_forget_mcpd "$MCPD_PID"
t0=$(now_ms)
for i in "${!PIDS[@]}"; do
	wait_for 20 proc_dead "${PIDS[$i]}" "${STARTS[$i]}" ||
		fail "server pid ${PIDS[$i]} survived SIGKILL of mcpd: $(describe_pid "${PIDS[$i]}")"
done
note "SIGKILL to mcpd: its 3 servers gone after $(($(now_ms) - t0)) ms"
# mcpd's guard process kills the servers' process groups when mcpd dies.
wait_for 20 proc_dead "$gc" "$gc_st" ||
	fail "the grandchild survived SIGKILL of mcpd: $(describe_pid "$gc")"
note "SIGKILL to mcpd: the grandchild is gone too, after $(($(now_ms) - t0)) ms"

# A stale socket left by a killed daemon does not stop the next one.
start_mcpd "$T/mcpd.json"
wait_ready plain
note "mcpd started again on the stale socket"
exit 0
