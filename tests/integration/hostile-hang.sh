#!/bin/bash
# hostile-hang.sh -- a hung server is noticed and restarted:
# - SIGSTOPped while idle: the health ping (health_interval_ms 500,
#   health_timeout_ms 500) goes unanswered and the server is restarted
#   within a few seconds, with the reason in last_exit (it used to stay
#   "ready" forever);
# - a long call in flight is not mistaken for a hang: no ping while a
#   request is within its timeout, the call is answered, same pid;
# - with the ping off, health_max_timeouts (3) request timeouts in a row
#   also end a SIGSTOPped server.

. "$TESTS_SRCDIR/integration/lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 200, "stop_timeout_ms": 1000 },
  "mcpServers": {
    "pinged": { "command": "$MCP_FAKE",
                "health_interval_ms": 500, "health_timeout_ms": 500 },
    "counted": { "command": "$MCP_FAKE", "health_interval_ms": 0,
                 "request_timeout_ms": 300, "health_max_timeouts": 3 }
  }
}
JSON
start_mcpd "$T/mcpd.json"

# resume PID STARTTIME: SIGCONT to a process SIGSTOPped here, if mcpd has
# not killed it yet (and its pid is not another process's by now).
resume() {
	[ "$(proc_starttime "$1" 2>/dev/null)" = "$2" ] && kill -CONT "$1" 2>/dev/null
	return 0
}
wait_ready pinged 30
wait_ready counted 30

# --- a long call is not a hang ----------------------------------------------------
pid=$(server_pid pinged) || fail "no pid for pinged"
out=$(ctl call pinged sleep ms=2500) || fail "a 2.5 s call on pinged failed: $out"
[ "$(server_pid pinged)" = "$pid" ] || fail "pinged was restarted during a long call"
[ "$(server_field pinged restarts)" = 0 ] || fail "pinged restarted during a long call"
note "a 2.5 s call with health_interval_ms 500: answered ($out), same pid"

# --- SIGSTOP while idle ---------------------------------------------------------
st=$(proc_starttime "$pid")
kill -STOP "$pid"
t0=$(now_ms)
wait_for 30 eval '[ "$(server_pid pinged 2>/dev/null)" != "" ] && [ "$(server_pid pinged)" != "$pid" ]' ||
	fail "pinged, stopped by SIGSTOP, is still '$(server_field pinged state)' with pid $(server_pid pinged) after 30 s"
ms=$(($(now_ms) - t0))
resume "$pid" "$st"
last=$(server_field pinged last_exit)
note "pinged, SIGSTOPped: restarted after $ms ms; last_exit '$last'"
case "$last" in
*"hung: no answer to a health ping"*) ;;
*) fail "last_exit '$last' does not say the health ping went unanswered" ;;
esac
# About 2 s (interval 500 + timeout 500 + stop 1000 ms), more on a loaded
# machine; without the ping it is never noticed.  10 s is far over the
# first and still says the ping, not something slower, found it.
[ "$ms" -lt 10000 ] || fail "noticed after $ms ms, expected within 10 s (interval 500 + timeout 500 + stop 1000 ms)"
wait_ready pinged 30

# --- request timeouts in a row ------------------------------------------------
pid=$(server_pid counted) || fail "no pid for counted"
st=$(proc_starttime "$pid")
kill -STOP "$pid"
for i in 1 2 3; do
	out=$(ctl call counted echo text=$i 2>&1) && fail "call $i on a stopped server succeeded: $out"
	# Its own timeout, or those before it stopping the server: each
	# message names the setting.
	case "$out" in
	*"timed out"*"(request_timeout_ms)"* | *"timed out"*"(health_max_timeouts)"*) ;;
	*) fail "call $i: expected a timeout naming its setting, got: $out" ;;
	esac
done
wait_for 30 eval '[ "$(server_pid counted 2>/dev/null)" != "" ] && [ "$(server_pid counted)" != "$pid" ]' ||
	fail "counted was not restarted after 3 request timeouts in a row (state $(server_field counted state))"
resume "$pid" "$st"
last=$(server_field counted last_exit)
note "counted: 3 timeouts in a row, restarted; last_exit '$last'"
case "$last" in *"3 requests in a row timed out"*) ;; *) fail "last_exit '$last'" ;; esac
wait_ready counted 30
out=$(ctl call counted echo text=back) || fail "counted does not answer after its restart: $out"
mcpd_running || fail "mcpd died"
exit 0
