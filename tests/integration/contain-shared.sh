#!/bin/bash
# contain-shared.sh -- two mcpds, one cgroup: neither kills the other's
# servers.  The cgroups of a root's servers are named for the servers
# (R/server-NAME), and mcpd empties one before it starts a server in it, so
# a second mcpd using the same root would kill the first one's servers
# each time it starts its own of the same name.
#
#   1. A root named with --cgroup that another mcpd uses is refused: the
#      second mcpd exits at start and says whose it is.
#   2. mcpd's own cgroup, delegated to it (the trusted.delegate mark of
#      systemd's Delegate=yes), which another mcpd uses already: the second
#      one leaves it alone and contains its servers with a reaper each, as
#      every mcpd of a test suite running side by side in a CI job's
#      delegated cgroup does.
# In both, the first mcpd's server runs on with the same pid, never
# restarted, and the second one's server works.  Needs root and a cgroup2
# mount (skipped otherwise); part 2 needs setfattr (Debian: attr).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to make cgroups"
MNT=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$MNT" ] && [ "$(stat -fc %T "$MNT" 2>/dev/null)" = cgroup2fs ] ||
	skip "no cgroup2 file system is mounted"

# Scratch cgroups named for this test's directory, so tests side by side
# (or a test killed outright) never share one.
CG=$MNT/mcpd-test.$$.${T##*.}
mkdir "$CG" || skip "cannot create a cgroup below $MNT"
remove_scratch() {
	local d
	for d in "$CG"/*/*/ "$CG"/*/ "$CG"/; do
		[ -d "$d" ] || continue
		if [ "$(awk '$1 == "populated" { print $2 }' "$d/cgroup.events" 2>/dev/null)" = 1 ]; then
			echo 1 >"$d/cgroup.kill" 2>/dev/null
			# shellcheck disable=SC2016  # expanded by eval
			wait_for 10 eval '[ "$(awk '"'"'$1 == "populated" { print $2 }'"'"' "'"$d"'/cgroup.events")" = 0 ]'
		fi
		rmdir "$d" 2>/dev/null
	done
}
CLEANUP_HOOKS+=(remove_scratch)

# config NAME: one server "demo" whose pid file is $T/NAME.pid.
config() {
	write_config "$T/$1.json" <<JSON
{
  "mcpd": { "stop_timeout_ms": 1000 },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": ["--pidfile=$T/$1.pid"] }
  }
}
JSON
}

# second_mcpd NAME SOCK ARGS...: another mcpd, beside $MCPD_PID, on SOCK.
second_mcpd() {
	local name=$1 sock=$2
	shift 2
	"${_MCPD_GUARD[@]}" "${MCPD_PREFIX[@]}" "$MCPD" -c "$T/$name.json" \
		-s "$sock" --log-target stderr "$@" </dev/null >"$T/$name.log" 2>&1 &
	SECOND_PID=$!
	MCPD_PIDS+=("$SECOND_PID")
}

# first_untouched WHAT PID: the first mcpd's server still runs as PID,
# started once.
first_untouched() {
	pid_running "$2" || fail "$1: the first mcpd's server ($2) was killed"
	[ "$(server_pid demo)" = "$2" ] ||
		fail "$1: the first mcpd's server is now $(server_pid demo), was $2"
	[ "$(server_field demo restarts)" = 0 ] ||
		fail "$1: the first mcpd's server was restarted $(server_field demo restarts) times"
	! grep -q 'killed by signal' "$MCPD_LOG" ||
		fail "$1: the first mcpd's server was killed: $(grep 'killed by signal' "$MCPD_LOG" | head -3)"
}

# --- 1. A named root another mcpd uses --------------------------------------------

config first
config second
start_mcpd "$T/first.json" --cgroup "$CG/named"
wait_ready demo
first=$(server_pid demo) || fail "the first mcpd's server has no pid"
grep -qx "$first" "$CG/named/server-demo/cgroup.procs" ||
	fail "the first mcpd's server is not in $CG/named/server-demo"

second_mcpd second "$T/second.sock" --cgroup "$CG/named"
wait_for 30 eval '! pid_running '"$SECOND_PID" ||
	fail "1: a second mcpd on the same --cgroup is still running: $(cat "$T/second.log")"
wait "$SECOND_PID"
rc=$?
_forget_mcpd "$SECOND_PID"
[ "$rc" != 0 ] || fail "1: the second mcpd exited 0"
grep -q "cgroup $CG/named: in use by another mcpd (pid $MCPD_PID in $CG/named/supervisor)" \
	"$T/second.log" || fail "1: the second mcpd did not say why: $(cat "$T/second.log")"
first_untouched 1 "$first"
note "1: a second mcpd on the same --cgroup exited $rc: $(tail -n 1 "$T/second.log")"
stop_mcpd TERM 30

# --- 2. mcpd's own delegated cgroup, shared --------------------------------------
command -v setfattr >/dev/null 2>&1 || { note "2: skipped: setfattr is not installed"; exit 0; }
D=$CG/delegated
mkdir "$D" || hard_error "cannot create $D"
setfattr -n trusted.delegate -v 1 "$D" 2>/dev/null ||
	{ note "2: skipped: cannot mark $D delegated"; exit 0; }
# What a CI job's cgroup holds beside the tests' mcpds: a shell, make.
env MCPD_TEST_DIR="$T" sh -c 'echo $$ >"$0/cgroup.procs" && exec sleep infinity' "$D" &
SITTER=$!
wait_for 30 grep -qx "$SITTER" "$D/cgroup.procs" || hard_error "the sitter is not in $D"
# Every mcpd starts in $D, as a process of that job would.
MCPD_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$D")

: >"$MCPD_LOG"
start_mcpd "$T/first.json"
wait_ready demo
grep -q "containment: every server in a cgroup of its own below $D" "$MCPD_LOG" ||
	fail "2: the first mcpd did not take its delegated cgroup: $(grep containment "$MCPD_LOG")"
first=$(server_pid demo) || fail "the first mcpd's server has no pid"
grep -qx "$first" "$D/server-demo/cgroup.procs" ||
	fail "2: the first mcpd's server is not in $D/server-demo"

second_mcpd second "$T/second.sock"
SOCK1=$SOCK
SOCK=$T/second.sock
wait_for 30 server_is demo ready ||
	fail "2: the second mcpd's server is not ready: $(cat "$T/second.log")"
second=$(server_pid demo) || fail "2: the second mcpd's server has no pid"
out=$(ctl call demo echo text=second 2>&1) || fail "2: a call to the second mcpd's server: $out"
[ "$(server_field demo containment)" = reaper ] ||
	fail "2: the second mcpd's server has containment $(server_field demo containment), expected reaper"
grep -q "containment: mcpd's cgroup $D is in use by another mcpd (pid $MCPD_PID); a reaper process per server" \
	"$T/second.log" || fail "2: the second mcpd did not say why it left $D alone: $(grep containment "$T/second.log")"
# The second one's restart of its server empties no cgroup of the first's.
ctl restart demo >/dev/null || fail "2: mcpctl restart on the second mcpd"
wait_for 30 eval '[ "$(server_pid demo)" != '"$second"' ] && server_is demo ready' ||
	fail "2: the second mcpd's server did not come back"
SOCK=$SOCK1
first_untouched 2 "$first"
note "2: two mcpds in one delegated cgroup: the second used a reaper, the first's server ($first) untouched"

kill -TERM "$SECOND_PID"
wait_for 30 eval '! pid_running '"$SECOND_PID" || fail "2: the second mcpd did not exit on SIGTERM"
wait "$SECOND_PID"
_forget_mcpd "$SECOND_PID"
stop_mcpd TERM 30
kill -TERM "$SITTER"
wait "$SITTER" 2>/dev/null
exit 0
