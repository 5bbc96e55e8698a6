#!/bin/bash
# grandchild.sh -- no orphans: a process a server forked into its process
# group dies with the server, whether mcpctl stops it, it exits by itself,
# it crashes at start, or it is killed from outside.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "restart": "always", "stop_timeout_ms": 1000,
            "backoff_min_ms": 60000, "backoff_max_ms": 60000 },
  "mcpServers": {
    "stopped": {
      "command": "$MCP_FAKE",
      "args": ["--grandchild=$T/stopped.gc.pid", "--pidfile=$T/stopped.pid"]
    },
    "exits": {
      "command": "$MCP_FAKE",
      "args": ["--grandchild=$T/exits.gc.pid", "--pidfile=$T/exits.pid",
               "--exit-after-ms=10000"]
    },
    "killed": {
      "command": "$MCP_FAKE",
      "args": ["--grandchild=$T/killed.gc.pid", "--pidfile=$T/killed.pid"]
    },
    "crashing": {
      "command": "$MCP_FAKE",
      "args": ["--grandchild=$T/crashing.gc.pid", "--crash-at-start=3"]
    }
  }
}
JSON
_probe_orphan_reaper
start_mcpd "$T/mcpd.json"

declare -A LEADER LEADER_ST GC GC_ST

# family NAME: record the leader and grandchild of a ready server, after
# checking the grandchild is alive in the server's process group.
family() {
	local l g
	wait_ready "$1"
	l=$(server_pid "$1") || fail "$1 is ready but has no pid"
	wait_for 30 read_pidfile "$T/$1.gc.pid" >/dev/null ||
		fail "$1 did not write its grandchild pidfile"
	g=$(read_pidfile "$T/$1.gc.pid")
	pid_running "$l" || fail "$1 leader $l not running"
	pid_running "$g" || fail "$1 grandchild $g not running"
	[ "$(proc_pgrp "$l")" = "$l" ] ||
		fail "$1 leader $l is not a process group leader ($(describe_pid "$l"))"
	[ "$(proc_pgrp "$g")" = "$l" ] ||
		fail "$1 grandchild not in the server's process group ($(describe_pid "$g"))"
	LEADER[$1]=$l
	LEADER_ST[$1]=$(proc_starttime "$l")
	GC[$1]=$g
	GC_ST[$1]=$(proc_starttime "$g")
}

# both_gone NAME TIMEOUT_S WHAT: leader and grandchild gone, not zombies
# under mcpd or the server.
both_gone() {
	local t0 ms
	t0=$(now_ms)
	wait_for "$2" proc_dead "${LEADER[$1]}" "${LEADER_ST[$1]}" ||
		fail "$1 ($3): leader still there: $(describe_pid "${LEADER[$1]}")"
	wait_for "$2" proc_dead "${GC[$1]}" "${GC_ST[$1]}" ||
		fail "$1 ($3): grandchild survived: $(describe_pid "${GC[$1]}")"
	ms=$(($(now_ms) - t0))
	note "$1 ($3): leader ${LEADER[$1]} and grandchild ${GC[$1]} gone after $ms ms"
}

# All three families first: "exits" is on a timer (10 s from its start,
# time enough to record it on a loaded machine).
family exits
family stopped
family killed

# --- mcpctl stop -----------------------------------------------------------------
ctl stop stopped >"$T/out" 2>&1 || fail "mcpctl stop stopped failed: $(cat "$T/out")"
both_gone stopped 30 "mcpctl stop"
wait_for 20 server_is stopped stopped || fail "state $(server_field stopped state) after stop"

# --- the server exits by itself ----------------------------------------------------
wait_for 60 proc_dead "${LEADER[exits]}" "${LEADER_ST[exits]}" ||
	fail "exits: leader did not exit by itself"
both_gone exits 30 "leader exited by itself"
wait_for 30 server_is exits backoff || fail "exits in state $(server_field exits state) after exiting"
note "exits: last_exit '$(server_field exits last_exit)'"

# --- the server is SIGKILLed from outside -----------------------------------------
# Still the process recorded (its pid not reused by another).
[ "$(proc_starttime "${LEADER[killed]}")" = "${LEADER_ST[killed]}" ] ||
	fail "killed: leader ${LEADER[killed]} ended before it was killed: $(describe_pid "${LEADER[killed]}")"
kill -KILL "${LEADER[killed]}"
both_gone killed 30 "leader SIGKILLed"
wait_for 30 server_is killed backoff || fail "killed in state $(server_field killed state)"
reason=$(server_field killed last_exit)
case "$reason" in
*"signal 9"*) ;;
*) fail "killed: last_exit '$reason', expected it to mention signal 9" ;;
esac
note "killed: last_exit '$reason'"

# --- the server crashes at once, before initialize -----------------------------------
# The grandchild is forked before the crash; the pidfile proves it existed.
wait_for 30 read_pidfile "$T/crashing.gc.pid" >/dev/null || fail "crashing wrote no grandchild pidfile"
gc=$(read_pidfile "$T/crashing.gc.pid")
wait_for 30 proc_dead "$gc" || fail "crashing: grandchild survived the leader's crash: $(describe_pid "$gc")"
wait_for 30 server_is crashing backoff || fail "crashing in state $(server_field crashing state)"
note "crashing (exit 3 at start): grandchild $gc gone; last_exit '$(server_field crashing last_exit)'"

mcpd_running || fail "mcpd died"
exit 0
