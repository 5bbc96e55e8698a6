#!/bin/bash
# stop.sh -- `mcpctl stop` escalates close-stdin -> SIGTERM -> SIGKILL on
# the stop timeout for a server that ignores the gentle steps, stops a
# well-behaved server at once and ends a crash loop; `mcpctl start` brings
# a stopped or disabled server back, `mcpctl restart` replaces the process.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

STOP_TIMEOUT_MS=1000

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "stubborn": {
      "command": "$MCP_FAKE",
      "args": ["--ignore-sigterm", "--ignore-stdin-eof", "--pidfile=$T/stubborn.pid"],
      "stop_timeout_ms": $STOP_TIMEOUT_MS
    },
    "polite": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/polite.pid"],
      "stop_timeout_ms": 10000
    },
    "crashy": {
      "command": "$MCP_FAKE",
      "args": ["--crash-at-start=3", "--startlog=$T/crashy.starts"],
      "backoff_min_ms": 2000,
      "backoff_max_ms": 2000,
      "backoff_jitter": 0
    },
    "off": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/off.starts"],
      "disabled": true
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready stubborn
wait_ready polite

# time_until_gone PID STARTTIME T0: ms from T0 until PID is gone (30 s max).
time_until_gone() {
	wait_for 30 proc_dead "$1" "$2" || return 1
	echo $(($(now_ms) - $3))
}

# --- the stubborn server needs SIGKILL ---------------------------------------
pid=$(server_pid stubborn) || fail "stubborn is ready but has no pid"
[ "$(read_pidfile "$T/stubborn.pid")" = "$pid" ] ||
	fail "status pid $pid differs from the server's own pidfile ($(cat "$T/stubborn.pid"))"
pid_running "$pid" || fail "stubborn pid $pid is not running"
[ "$(proc_pgrp "$pid")" = "$pid" ] || fail "stubborn pid $pid does not lead its own process group"
st=$(proc_starttime "$pid")

t0=$(now_ms)
ctl stop stubborn >"$T/stop.out" 2>&1 || fail "mcpctl stop stubborn failed: $(cat "$T/stop.out")"
ms=$(time_until_gone "$pid" "$st" "$t0") ||
	fail "stubborn ($(describe_pid "$pid")) still there 30 s after mcpctl stop"
note "stubborn (ignores stdin EOF and SIGTERM, stop_timeout_ms $STOP_TIMEOUT_MS) gone after $ms ms"
# Measured from before mcpctl was started, so never early on a slow machine.
[ "$ms" -ge 900 ] ||
	fail "stubborn gone after $ms ms, but it ignores EOF and SIGTERM: only SIGKILL at ${STOP_TIMEOUT_MS} ms should end it"
# Late by up to 3 s on a loaded machine (mcpctl's start, mcpd's and this
# shell's turns), and still below the 5000 ms default that an ignored
# stop_timeout_ms would give.
[ "$ms" -lt 4000 ] ||
	fail "stubborn gone after $ms ms, expected SIGKILL at ${STOP_TIMEOUT_MS} ms (< 4000 ms; the default would be 5000)"
# Reaped by mcpd, not left a zombie under it.
wait_for 20 eval '! [ -e /proc/'"$pid"' ] || [ "$(proc_starttime '"$pid"')" != '"$st"' ]' ||
	fail "stubborn $(describe_pid "$pid") was not reaped"

wait_for 20 server_is stubborn stopped || fail "stubborn in state $(server_field stubborn state) after stop"
[ "$(server_field stubborn pid)" = null ] || fail "stopped server has pid $(server_field stubborn pid)"
[ "$(server_field stubborn next_restart_ms)" = null ] || fail "stopped server has a next_restart_ms"
# An admin stop is not a crash: it stays stopped.  A window: a stop taken
# for a crash would restart it after the default backoff, 1 s + 20 %.
sleep 2
server_is stubborn stopped || fail "stubborn left stopped by itself: $(server_field stubborn state)"
server_is polite ready || fail "stopping stubborn disturbed polite: $(server_field polite state)"

# --- start brings it back -------------------------------------------------------
ctl start stubborn >"$T/start.out" 2>&1 || fail "mcpctl start stubborn failed: $(cat "$T/start.out")"
wait_ready stubborn 30
pid2=$(server_pid stubborn) || fail "stubborn is ready but has no pid"
[ "$pid2" != "$pid" ] || fail "stubborn has its old pid $pid after start"
pid_running "$pid2" || fail "stubborn pid $pid2 is not running"
note "stubborn back: pid $pid2"

# --- a well-behaved server exits on stdin EOF -----------------------------------
pid=$(server_pid polite) || fail "polite has no pid"
st=$(proc_starttime "$pid")
t0=$(now_ms)
ctl stop polite >"$T/stop.out" 2>&1 || fail "mcpctl stop polite failed: $(cat "$T/stop.out")"
ms=$(time_until_gone "$pid" "$st" "$t0") || fail "polite still there 30 s after mcpctl stop"
note "polite (exits on stdin EOF, stop_timeout_ms 10000) gone after $ms ms"
# On its own, at stdin EOF, at once: before the SIGTERM at stop_timeout_ms
# / 2 = 5000 ms, with 4 s to spare for a loaded machine.
[ "$ms" -lt 4000 ] || fail "polite gone after $ms ms, expected < 4000 ms (it exits on stdin EOF; SIGTERM would come at 5000 ms)"
wait_for 20 server_is polite stopped || fail "polite in state $(server_field polite state) after stop"
[ "$(server_field polite pid)" = null ] || fail "stopped polite has pid $(server_field polite pid)"

# Stopping a stopped server is harmless.
ctl stop polite >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || fail "mcpctl stop of a stopped server exited $rc"
server_is polite stopped || fail "polite not stopped after a second stop"

# --- restart of a ready server ------------------------------------------------------
ctl start polite >"$T/start.out" 2>&1 || fail "mcpctl start polite failed: $(cat "$T/start.out")"
wait_ready polite 30
pid=$(server_pid polite) || fail "polite has no pid"
st=$(proc_starttime "$pid")
ctl restart polite >"$T/restart.out" 2>&1 || fail "mcpctl restart polite failed: $(cat "$T/restart.out")"
wait_for 30 proc_dead "$pid" "$st" || fail "mcpctl restart left the old process: $(describe_pid "$pid")"
wait_ready polite 30
pid2=$(server_pid polite) || fail "polite has no pid after restart"
[ "$pid2" != "$pid" ] || fail "mcpctl restart polite kept pid $pid"
note "polite restarted: pid $pid -> $pid2"

# --- stop ends a crash loop -------------------------------------------------------------
# Its backoff is 2 s, so that the stop comes while it waits.
wait_for 30 startlog_has "$T/crashy.starts" 2 || fail "crashy was not restarted"
wait_for 30 server_is crashy backoff || fail "crashy not in backoff: $(server_field crashy state)"
ctl stop crashy >"$T/stop.out" 2>&1 || fail "mcpctl stop crashy (in backoff) failed: $(cat "$T/stop.out")"
wait_for 20 server_is crashy stopped || fail "crashy in state $(server_field crashy state) after stop"
n=$(startlog_count "$T/crashy.starts")
# A window: a restart still armed would come within the 2 s backoff.
sleep 3
[ "$(startlog_count "$T/crashy.starts")" = "$n" ] ||
	fail "crashy started again after mcpctl stop during backoff"
[ "$(server_field crashy next_restart_ms)" = null ] || fail "stopped crashy still has a next_restart_ms"
how=$(grep -o 'crashy: [a-z]* -> stopped' "$MCPD_LOG" | tail -n 1)
note "crashy: stopped after $n starts ($how), none since"

# --- a disabled server waits for mcpctl start --------------------------------------------
server_is off stopped || fail "disabled server in state $(server_field off state)"
[ "$(startlog_count "$T/off.starts")" = 0 ] || fail "disabled server was started"
ctl start off >"$T/start.out" 2>&1 || fail "mcpctl start off failed: $(cat "$T/start.out")"
wait_ready off 30
[ "$(startlog_count "$T/off.starts")" = 1 ] || fail "off started $(startlog_count "$T/off.starts") times"

mcpd_running || fail "mcpd died"
exit 0
