#!/bin/bash
# contain.sh -- what a server starts cannot escape it.  A child the server
# forks that calls setsid() (mcp-fake --escapee) is gone after mcpctl
# stop, after restarts (none left over per restart), after mcpd exits on
# SIGTERM, and after kill -9 of mcpd's whole process group (the guard is
# not in that group and cleans up).  Two runs: with a scratch cgroup named
# by --cgroup (as root, where a cgroup v2 can be created), and without one
# (a reaper per server).  The cgroup run also checks that memory_max and
# pids_max reach the server's cgroup files (where the controllers exist);
# both check that a server gets the descriptor limit mcpd started with.
#
# CONTAIN_MODES="cgroup fallback" (the default) picks the runs.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

command -v setsid >/dev/null 2>&1 || skip "setsid(1) is not installed"
command -v prlimit >/dev/null 2>&1 || skip "prlimit(1) is not installed"

NOFILE_SOFT=256
NOFILE_HARD=4096
MEMORY_MAX=67108864
PIDS_MAX=64
# mcpd in a session (so a process group) of its own, so that kill -9 of
# its group hits mcpd and nothing of this script; a low soft limit it
# raises for itself and must give back to servers.
MCPD_PREFIX=(setsid prlimit --nofile=$NOFILE_SOFT:$NOFILE_HARD)

# shellcheck source=cgroup-lib.sh
. "$TESTS_SRCDIR/integration/cgroup-lib.sh"

# escapees FILE: the pids in FILE (one per start) still alive.
escapees() {
	local pid n=0
	[ -f "$1" ] || { echo 0; return; }
	while read -r pid; do
		[ -n "$pid" ] || continue
		proc_dead "$pid" || n=$((n + 1))
	done <"$1"
	echo "$n"
}

escapees_are() {
	[ "$(escapees "$1")" = "$2" ]
}

file_nonempty() {
	[ -s "$1" ]
}

# newest_escapee FILE: ESC becomes the last pid in FILE, after checking it
# is alive and in a session of its own, not the leader's.
newest_escapee() {
	local leader
	wait_for 30 file_nonempty "$1" || fail "no escapee pid in $1"
	ESC=$(tail -n 1 "$1")
	leader=$(server_pid esc) || fail "esc has no pid"
	pid_running "$ESC" || fail "escapee $ESC is not running"
	[ "$(proc_field "$ESC" 6)" != "$(proc_field "$leader" 6)" ] ||
		fail "escapee $ESC did not leave the server's session ($(describe_pid "$ESC"))"
}

# guard_of PID: mcpd's guard process.
guard_of() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(proc_ppid "${p#/proc/}" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$p/comm" 2>/dev/null)" = mcpd-guard ] &&
			{ echo "${p#/proc/}"; return 0; }
	done
	return 1
}

# run MODE EXPECTED_CONTAINMENT [MCPD ARGS...]
run() {
	local mode=$1 expect=$2 esc pid n gc guard cgdir limits_json
	shift 2
	local file=$T/$mode.esc
	note "--- $mode ---"
	limits_json=
	if [ "$mode" = cgroup ]; then
		limits_json=", \"memory_max\": $MEMORY_MAX, \"pids_max\": $PIDS_MAX, \"cpu_weight\": 50"
	fi
	write_config "$T/$mode.json" <<JSON
{
  "mcpd": { "stop_timeout_ms": 1000 },
  "mcpServers": {
    "esc": {
      "command": "$MCP_FAKE",
      "args": ["--escapee=$file"] $limits_json
    },
    "tab": {
      "command": "$MCP_FAKE", "share": "per-client", "idle_stop_s": 60
      $limits_json
    },
    "nofile": {
      "command": "/bin/sh",
      "args": ["-c", "ulimit -n >$T/$mode.nofile; exec \"\$0\"", "$MCP_FAKE"],
      "env": { "MCPD_TEST_DIR": "$T" }
    }
  }
}
JSON
	: >"$MCPD_LOG"
	start_mcpd "$T/$mode.json" "$@"
	wait_ready esc
	wait_ready nofile
	[ "$(proc_pgrp "$MCPD_PID")" = "$MCPD_PID" ] ||
		hard_error "mcpd is not in a process group of its own"
	# Without --cgroup mcpd splits only a cgroup delegated to it, which
	# this test's own cgroup (say, of a CI job's service) might be.
	if [ "$expect" = auto ]; then
		expect=reaper
		if grep -q 'containment: every server in a cgroup' "$MCPD_LOG"; then
			expect=cgroup
			note "$mode: mcpd runs in a delegated cgroup here: servers get cgroups"
		fi
	fi

	# --- what the server sees --------------------------------------------
	for s in esc nofile; do
		c=$(server_field "$s" containment) ||
			fail "$mode: mcpctl --json status has no containment for $s"
		[ "$c" = "$expect" ] ||
			fail "$mode: $s has containment \"$c\", expected \"$expect\""
	done
	note "$mode: status --json says containment \"$expect\""
	n=$(cat "$T/$mode.nofile")
	[ "$n" = "$NOFILE_SOFT" ] ||
		fail "$mode: a server sees RLIMIT_NOFILE $n, expected $NOFILE_SOFT (mcpd ran with $NOFILE_SOFT:$NOFILE_HARD)"
	note "$mode: mcpd started with nofile $NOFILE_SOFT:$NOFILE_HARD; its servers see $n"

	newest_escapee "$file"
	esc=$ESC
	if [ "$mode" = cgroup ]; then
		cgdir=$CG/server-esc
		grep -qx "$esc" "$cgdir/cgroup.procs" ||
			fail "escapee $esc is not in $cgdir ($(cat "/proc/$esc/cgroup"))"
		pid=$(server_pid esc)
		grep -qx "$pid" "$cgdir/cgroup.procs" || fail "server esc ($pid) is not in $cgdir"
		grep -qx "$MCPD_PID" "$CG/supervisor/cgroup.procs" ||
			fail "mcpd is not in $CG/supervisor"
		check_limits "$cgdir"

		# Instances of a per-client server: a cgroup each, with its
		# limits ("#" is "_23" in a cgroup's name); the second must not
		# kill the first, which waits idle_stop_s for its client.
		out=$(ctl tools tab 2>&1) || fail "$mode: mcpctl tools tab failed: $out"
		pid=$(server_pid 'tab#1') || fail "$mode: no instance tab#1 after mcpctl tools tab"
		out=$(ctl tools tab 2>&1) || fail "$mode: mcpctl tools tab failed: $out"
		pid2=$(server_pid 'tab#2') || fail "$mode: no instance tab#2 after a second mcpctl tools tab"
		pid_running "$pid" ||
			fail "$mode: starting instance tab#2 ended instance tab#1 ($pid)"
		grep -qx "$pid" "$CG/server-tab_231/cgroup.procs" ||
			fail "instance tab#1 ($pid) is not in $CG/server-tab_231 ($(cat "/proc/$pid/cgroup"))"
		grep -qx "$pid2" "$CG/server-tab_232/cgroup.procs" ||
			fail "instance tab#2 ($pid2) is not in $CG/server-tab_232 ($(cat "/proc/$pid2/cgroup"))"
		check_limits "$CG/server-tab_232"
		note "$mode: instances tab#1 ($pid) and tab#2 ($pid2) in cgroups of their own, with their limits"
	fi

	# --- mcpctl stop ---------------------------------------------------------
	ctl stop esc >/dev/null || fail "$mode: mcpctl stop esc failed"
	wait_for 30 escapees_are "$file" 0 ||
		fail "$mode: $(escapees "$file") escapee(s) survived mcpctl stop: $(describe_pid "$esc")"
	note "$mode: mcpctl stop: escapee $esc gone"

	# --- restarts: none left over per restart ------------------------------------
	ctl start esc >/dev/null || fail "$mode: mcpctl start esc failed"
	wait_ready esc
	for i in 1 2 3; do
		newest_escapee "$file"
		ctl restart esc >/dev/null || fail "$mode: mcpctl restart esc failed"
		wait_ready esc
	done
	newest_escapee "$file"
	esc=$ESC
	n=$(wc -l <"$file")
	wait_for 30 escapees_are "$file" 1 ||
		fail "$mode: $(escapees "$file") of $n escapees alive after 3 restarts, expected 1 (the current server's)"
	note "$mode: after 3 restarts $(escapees "$file") of $n escapees alive (the current one)"
	# The limits apply to every start, and a missing controller is
	# mentioned once, not at every start.
	[ "$mode" = cgroup ] && check_limits "$CG/server-esc"

	# --- mcpd exits on SIGTERM -------------------------------------------------------
	stop_mcpd TERM 30
	[ "$MCPD_STATUS" = 0 ] || fail "$mode: mcpd exited $MCPD_STATUS after SIGTERM"
	wait_for 30 escapees_are "$file" 0 ||
		fail "$mode: escapee survived mcpd's SIGTERM exit: $(describe_pid "$esc")"
	note "$mode: SIGTERM to mcpd: escapee $esc gone"
	if [ "$mode" = cgroup ]; then
		[ ! -d "$CG/server-esc" ] ||
			fail "$CG/server-esc is still there after mcpd exited"
	fi

	# --- kill -9 of mcpd's whole process group --------------------------------------
	start_mcpd "$T/$mode.json" "$@"
	wait_ready esc
	newest_escapee "$file"
	esc=$ESC
	pid=$(server_pid esc)
	guard=$(guard_of "$MCPD_PID") || fail "$mode: no mcpd-guard child of mcpd $MCPD_PID"
	[ "$(proc_pgrp "$guard")" != "$MCPD_PID" ] ||
		fail "$mode: the guard $guard is in mcpd's process group $MCPD_PID"
	kill -KILL -- "-$MCPD_PID"
	{ wait "$MCPD_PID"; } 2>/dev/null
	_forget_mcpd "$MCPD_PID"
	wait_for 30 escapees_are "$file" 0 ||
		fail "$mode: escapee survived kill -9 of mcpd's process group: $(describe_pid "$esc")"
	wait_for 30 proc_dead "$pid" || fail "$mode: server survived kill -9 of mcpd's group"
	note "$mode: kill -9 -$MCPD_PID: server $pid and escapee $esc gone (guard $guard was in group $(proc_pgrp "$guard" 2>/dev/null || echo "-, already exited"))"
}

# check_limits DIR: the limits reach the files where the controllers are
# enabled; otherwise mcpd says so once.
check_limits() {
	local dir=$1 v
	if [ -f "$dir/memory.max" ]; then
		v=$(cat "$dir/memory.max")
		[ "$v" = "$MEMORY_MAX" ] || fail "memory.max is $v, expected $MEMORY_MAX"
		v=$(cat "$dir/memory.oom.group")
		[ "$v" = 1 ] || fail "memory.oom.group is $v, expected 1"
		note "cgroup: memory.max $MEMORY_MAX, memory.oom.group 1"
	else
		n=$(grep -c 'memory_max ignored: the memory controller is not available' "$MCPD_LOG")
		[ "$n" = 1 ] || fail "no memory controller, and mcpd warned $n times (expected once)"
		note "cgroup: no memory controller in $CG; mcpd warned once"
	fi
	if [ -f "$dir/pids.max" ]; then
		v=$(cat "$dir/pids.max")
		[ "$v" = "$PIDS_MAX" ] || fail "pids.max is $v, expected $PIDS_MAX"
		note "cgroup: pids.max $PIDS_MAX"
	else
		n=$(grep -c 'pids_max ignored: the pids controller is not available' "$MCPD_LOG")
		[ "$n" = 1 ] || fail "no pids controller, and mcpd warned $n times (expected once)"
		note "cgroup: no pids controller in $CG; mcpd warned once"
	fi
}

_probe_orphan_reaper
for mode in ${CONTAIN_MODES:-cgroup fallback}; do
	case "$mode" in
	cgroup)
		if cgroup_scratch; then
			run cgroup cgroup --cgroup "$CG"
		else
			note "cgroup: cannot create a cgroup v2 here (not root, or no cgroup2 mount); fallback only"
		fi
		;;
	fallback)
		run fallback auto
		;;
	*)
		hard_error "CONTAIN_MODES: unknown mode $mode"
		;;
	esac
done
exit 0
