# lib.sh -- helpers shared by the integration tests (sourced, not run).
#
# Every test runs the real binaries ($MCPD, $MCPCTL, $MCP_FAKE) on a private
# socket in a private directory $T, removed on exit.  On exit, whatever the
# outcome, every process the test started is ended: each mcpd gets SIGTERM,
# then SIGKILL if it lingers, and any fake server or grandchild still alive
# is killed.  Fake servers are recognised by the MCPD_TEST_DIR=$T variable
# that write_config puts in their environment, so nothing else on the
# machine is ever touched.
#
# Waits are bounded and poll for a condition; the numbers a user cares
# about (delays, counts, memory) are measured and asserted with tolerances.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip, 99 hard error.
#
# `make check` sets MCPD, MCPCTL, MCP_FAKE and TESTS_SRCDIR; by hand, from
# the top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/integration/stop.sh

set -u
export LC_ALL=C

TEST_NAME=$(basename "$0" .sh)

hard_error() {
	echo "ERROR: $TEST_NAME: $*" >&2
	exit 99
}

skip() {
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

note() {
	echo "# $*"
}

for _v in MCPD MCPCTL MCP_FAKE TESTS_SRCDIR; do
	[ -n "${!_v:-}" ] || hard_error "$_v is not set (see tests/integration/lib.sh)"
done
for _v in MCPD MCPCTL MCP_FAKE TESTS_SRCDIR; do
	case "${!_v}" in
	/*) ;;
	*) printf -v "$_v" '%s/%s' "$PWD" "${!_v}" ;;
	esac
done
for _v in MCPD MCPCTL MCP_FAKE; do
	[ -x "${!_v}" ] || hard_error "$_v=${!_v} is not an executable"
done
unset _v
command -v jq >/dev/null 2>&1 || hard_error "jq is required"
case "$MCPD$MCPCTL$MCP_FAKE" in
*'"'* | *\\*) hard_error "binary paths must not contain quotes or backslashes" ;;
esac

# The tests choose their sockets explicitly.
unset MCPD_SOCKET

T=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-test.XXXXXX") ||
	hard_error "cannot create a temporary directory"
chmod 0700 "$T"
# Every mcpd's state (the pins of servers' tools, sign-ins' tokens) is
# the test's own, never the user's.
export XDG_STATE_HOME=$T/state
SOCK=$T/mcpd.sock
MCPD_LOG=$T/mcpd.log
MCPD_PID=
MCPD_STATUS=
MCPD_PIDS=()
CLEANUP_HOOKS=()
# Prefix for the mcpd command line (journal.sh enters a namespace with it).
MCPD_PREFIX=()
# mcpd gets SIGTERM if this shell dies without running its cleanup.
_MCPD_GUARD=()
if setpriv --pdeathsig TERM true 2>/dev/null; then
	_MCPD_GUARD=(setpriv --pdeathsig TERM)
fi
MCPD_LOG_TARGET=stderr
: >"$MCPD_LOG"

# ---------------------------------------------------------------------------
# Time and processes.

now_ms() {
	local t=${EPOCHREALTIME//[.,]/}
	echo $((t / 1000))
}

# _secs_to_ms SECONDS: "2", "0.5" -> milliseconds.
_secs_to_ms() {
	awk -v s="$1" 'BEGIN { printf "%d\n", s * 1000 }'
}

# wait_for TIMEOUT_S CMD...: run CMD every 50 ms until it succeeds; 1 if it
# never did within TIMEOUT_S seconds.
wait_for() {
	local deadline
	deadline=$(($(now_ms) + $(_secs_to_ms "$1")))
	shift
	while :; do
		"$@" && return 0
		[ "$(now_ms)" -ge "$deadline" ] && return 1
		sleep 0.05
	done
}

# proc_field PID N: field N (numbered as in proc(5), N >= 3) of
# /proc/PID/stat; fails if there is no such process.
proc_field() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- "$2" $s
	local n=$1
	shift $((n - 2))
	echo "$1"
}

proc_state() { proc_field "$1" 3; }
proc_ppid() { proc_field "$1" 4; }
proc_pgrp() { proc_field "$1" 5; }
proc_starttime() { proc_field "$1" 22; }

# pid_running PID: the process exists and is not a zombie.
pid_running() {
	local st
	st=$(proc_state "$1") || return 1
	[ "$st" != Z ]
}

# Whether the process orphans are handed to reaps them.  Some containers
# run a PID 1 that calls wait() late or never, so an orphan stays a zombie
# there for a while; that is the environment's doing, not the daemon's.
# Probed once (about a second); tests that need it probe before measuring.
_ORPHAN_REAPER=
_ORPHAN_REAPER_REAPS=
_probe_orphan_reaper() {
	[ -n "$_ORPHAN_REAPER" ] && return 0
	local pid
	pid=$( (sleep 0.1 >/dev/null 2>&1 & echo $!))
	# Orphaned now; wait until it has exited.
	wait_for 5 eval '! pid_running '"$pid"
	if wait_for 1 eval '! [ -e /proc/'"$pid"' ]'; then
		_ORPHAN_REAPER=unknown
		_ORPHAN_REAPER_REAPS=1
	else
		_ORPHAN_REAPER=$(proc_ppid "$pid")
		_ORPHAN_REAPER_REAPS=0
		note "orphans stay zombies under pid $_ORPHAN_REAPER for over a second here (it reaps late or never)"
	fi
}

# proc_dead PID [STARTTIME]: the process is gone.  It counts as gone if the
# pid now belongs to another process (other start time), or if it is a
# zombie left to a reaper that reaps late (see above).  A zombie whose
# parent is mcpd or a server is NOT gone: someone has yet to reap it.
proc_dead() {
	local st ppid p
	st=$(proc_state "$1") || return 0
	if [ $# -ge 2 ] && [ -n "$2" ] && [ "$(proc_starttime "$1")" != "$2" ]; then
		return 0
	fi
	[ "$st" = Z ] || return 1
	ppid=$(proc_ppid "$1") || return 0
	for p in "${MCPD_PIDS[@]}"; do
		[ "$ppid" = "$p" ] && return 1
	done
	_marked "$ppid" && return 1
	_probe_orphan_reaper
	[ "$_ORPHAN_REAPER_REAPS" = 0 ] && [ "$ppid" = "$_ORPHAN_REAPER" ]
}

# describe_pid PID: one line for diagnostics.
describe_pid() {
	if [ -e "/proc/$1" ]; then
		echo "pid $1 state $(proc_state "$1") ppid $(proc_ppid "$1") pgrp $(proc_pgrp "$1"): $(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)"
	else
		echo "pid $1 does not exist"
	fi
}

# sanitized BINARY: BINARY is built with AddressSanitizer or UBSan (make
# check-sanitizers), whose memory use and start-up time are not mcpd's.
sanitized() {
	ldd "$1" 2>/dev/null | grep -q 'libasan\|libubsan'
}

# vm_kib PID FIELD: a /proc/PID/status memory field (VmRSS, VmHWM) in KiB.
vm_kib() {
	awk -v f="$2:" '$1 == f { print $2; found = 1 } END { exit !found }' \
		"/proc/$1/status" 2>/dev/null
}

# read_pidfile FILE: the pid in FILE (first word), or fail.
read_pidfile() {
	local pid
	pid=$(awk 'NR == 1 { print $1 }' "$1" 2>/dev/null)
	case "$pid" in
	'' | *[!0-9]*) return 1 ;;
	esac
	echo "$pid"
}

# startlog_count FILE: starts recorded by mcp-fake --startlog.
startlog_count() {
	if [ -f "$1" ]; then
		awk 'NF >= 2' "$1" | wc -l
	else
		echo 0
	fi
}

# startlog_has FILE N: at least N starts recorded.
startlog_has() {
	[ "$(startlog_count "$1")" -ge "$2" ]
}

# ---------------------------------------------------------------------------
# Long-lived processes the test talks to (a bridge, a scripted client).
#
# spawn NAME CMD [ARGS...]: run CMD in the background with its stdin and
# stdout on two fifos of $T, and set:
#   NAME_PID  its pid ($!, which stays valid, and bash keeps its status
#             for `wait`; a bash co-process's variables and fds are taken
#             away as soon as it has ended, even before the next line)
#   NAME_OUT  an fd of this shell reading its stdout (also in subshells)
# CMD's stderr is the caller's (spawn NAME CMD 2>FILE).  Its stdin is held
# open by a keeper process, not by an fd of this shell, so no process the
# test starts later inherits a way to keep it open: spawn_close ends it,
# and CMD sees the end of its input.  CMD carries this test's marker, so
# the cleanup ends it whatever happens.
#
#   spawn_send NAME LINE...        write lines to its stdin
#   spawn_read NAME TIMEOUT_S VAR  its next line into VAR; 1 at the end of
#                                  its output or after TIMEOUT_S
#   spawn_close NAME               end its stdin
#   spawn_wait NAME TIMEOUT_S      wait until it has exited; its status in
#                                  SPAWN_STATUS; 1 if it was still running
spawn() {
	local name=$1 dir=$T/spawn fd pid old=${1}_OUT
	shift
	# A name used again: the last one's output is closed, its stdin ended.
	old=${!old:-}
	[ -n "$old" ] && exec {old}<&-
	spawn_close "$name"
	mkdir -p "$dir" || hard_error "cannot create $dir"
	rm -f "$dir/$name.in" "$dir/$name.out"
	mkfifo "$dir/$name.in" "$dir/$name.out" || hard_error "mkfifo in $dir"
	# Opened for reading and writing, a fifo's open never waits.
	env MCPD_TEST_DIR="$T" sleep infinity <>"$dir/$name.in" >/dev/null 2>&1 &
	printf -v "_SPAWN_KEEPER_$name" '%s' "$!"
	_SPAWN_KEEPERS+=("$!")
	env MCPD_TEST_DIR="$T" "$@" <"$dir/$name.in" >"$dir/$name.out" &
	pid=$!
	printf -v "${name}_PID" '%s' "$pid"
	printf -v "_SPAWN_START_$name" '%s' "$(proc_starttime "$pid" 2>/dev/null)"
	# Returns once CMD's side has opened its stdout.
	exec {fd}<"$dir/$name.out"
	printf -v "${name}_OUT" '%s' "$fd"
}

_SPAWN_KEEPERS=()

spawn_send() {
	local name=$1 keeper=_SPAWN_KEEPER_$1
	shift
	# Without the keeper, a fifo nobody reads would hold this open forever.
	[ -n "${!keeper:-}" ] || hard_error "spawn_send: $name's stdin is closed"
	printf '%s\n' "$@" >"$T/spawn/$name.in"
}

spawn_read() {
	local _fd=${1}_OUT
	IFS= read -r -t "$2" "$3" <&"${!_fd}"
}

spawn_close() {
	local keeper=_SPAWN_KEEPER_$1
	[ -n "${!keeper:-}" ] || return 0
	kill -TERM "${!keeper}" 2>/dev/null
	wait "${!keeper}" 2>/dev/null
	printf -v "$keeper" '%s' ''
}

# _spawn_gone PID STARTTIME: it has exited (a zombie of this shell counts).
_spawn_gone() {
	local st
	st=$(proc_state "$1") || return 0
	[ -n "$2" ] && [ "$(proc_starttime "$1")" = "$2" ] || return 0
	[ "$st" = Z ]
}

spawn_wait() {
	local pid=${1}_PID start=_SPAWN_START_$1
	wait_for "$2" _spawn_gone "${!pid}" "${!start}" || return 1
	wait "${!pid}" 2>/dev/null
	SPAWN_STATUS=$?
}

# ---------------------------------------------------------------------------
# mcpd and mcpctl.

ctl() {
	timeout -k 5 30 "$MCPCTL" -s "$SOCK" "$@"
}

# ctl_run NAME ARGS...: mcpctl ARGS as ctl runs it, stdout in $T/NAME.out,
# stderr in $T/NAME.err, its exit status in RC.
ctl_run() {
	local name=$1
	shift
	ctl "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	RC=$?
}

# ctl_rc WANT NAME WHAT: the last ctl_run (NAME) exited WANT, or fail.
ctl_rc() {
	[ "$RC" = "$1" ] ||
		fail "$3: exit $RC, expected $1; stdout: $(head -c 600 "$T/$2.out"); stderr: $(head -c 600 "$T/$2.err")"
}

mcpd_running() {
	[ -n "$MCPD_PID" ] && pid_running "$MCPD_PID"
}

# start_mcpd CONFIG [ARGS...]: run mcpd on the private socket, logging to
# $MCPD_LOG, and wait until it answers `mcpctl status`.
start_mcpd() {
	local cfg=$1 deadline
	shift
	"${_MCPD_GUARD[@]}" "${MCPD_PREFIX[@]}" "$MCPD" -c "$cfg" -s "$SOCK" \
		--log-target "$MCPD_LOG_TARGET" "$@" \
		</dev/null >>"$MCPD_LOG" 2>&1 &
	MCPD_PID=$!
	MCPD_PIDS+=("$MCPD_PID")
	deadline=$(($(now_ms) + 30000))
	until ctl status >/dev/null 2>&1; do
		if ! mcpd_running; then
			wait "$MCPD_PID"
			fail "mcpd exited with status $? during start-up"
		fi
		[ "$(now_ms)" -lt "$deadline" ] ||
			fail "mcpd did not answer 'mcpctl status' on $SOCK within 30 s"
		sleep 0.05
	done
}

# stop_mcpd [SIGNAL] [TIMEOUT_S]: signal mcpd (TERM), wait for it to exit,
# set MCPD_STATUS to its exit status.
stop_mcpd() {
	local sig=${1:-TERM} timeout=${2:-20}
	kill -s "$sig" "$MCPD_PID" 2>/dev/null
	wait_for "$timeout" eval '! mcpd_running' ||
		fail "mcpd did not exit within $timeout s of SIG$sig"
	wait "$MCPD_PID"
	MCPD_STATUS=$?
	_forget_mcpd "$MCPD_PID"
}

_forget_mcpd() {
	local p keep=()
	for p in "${MCPD_PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	MCPD_PIDS=("${keep[@]}")
}

# status_json: `mcpctl --json status` output, or fail.
status_json() {
	ctl --json status
}

# server_field NAME FIELD: one field of one server from `mcpctl --json
# status`; strings raw, everything else as JSON (null, numbers).
server_field() {
	local out
	out=$(ctl --json status 2>/dev/null) || return 1
	jq -er --arg n "$1" --arg f "$2" '
		first(.servers[] | select(.name == $n)) | .[$f] |
		if type == "string" then . else tojson end' <<<"$out"
}

# server_is NAME STATE...: the server is in one of the states.
server_is() {
	local st s
	st=$(server_field "$1" state) || return 1
	shift
	for s; do
		[ "$st" = "$s" ] && return 0
	done
	return 1
}

# server_pid NAME: its pid, failing if null.
server_pid() {
	local pid
	pid=$(server_field "$1" pid) || return 1
	case "$pid" in
	'' | *[!0-9]*) return 1 ;;
	esac
	echo "$pid"
}

# wait_inflight NAME N [TIMEOUT_S]: at least N requests of clients are in
# flight on server NAME (sent to it, not yet answered).
wait_inflight() {
	wait_for "${3:-30}" _inflight_at_least "$1" "$2" ||
		fail "server $1: $2 request(s) not in flight within ${3:-30} s (inflight $(server_field "$1" inflight))"
}

_inflight_at_least() {
	local n
	n=$(server_field "$1" inflight) || return 1
	[ "$n" -ge "$2" ] 2>/dev/null
}

# wait_ready NAME [TIMEOUT_S]
wait_ready() {
	wait_for "${2:-30}" server_is "$1" ready ||
		fail "server $1 not ready within ${2:-30} s (state $(server_field "$1" state), last_exit $(server_field "$1" last_exit))"
}

# ---------------------------------------------------------------------------
# Configuration files.

# write_config FILE [JSON]: write a config (JSON from the argument or
# stdin) with mode 0600.  Every server that runs $MCP_FAKE gets
# MCPD_TEST_DIR=$T in its env so that cleanup can find it and its children.
write_config() {
	local file=$1 text tagged
	if [ $# -ge 2 ]; then text=$2; else text=$(cat); fi
	if tagged=$(jq --arg fake "$MCP_FAKE" --arg t "$T" '
		def tag: if type == "object" and .command == $fake
			then .env = ((.env // {}) + {MCPD_TEST_DIR: $t}) else . end;
		if type == "object" then
			(if (.mcpServers | type) == "object"
				then .mcpServers |= map_values(tag) else . end) |
			(if (.servers | type) == "object"
				then .servers |= map_values(tag) else . end)
		else . end' <<<"$text" 2>/dev/null); then
		text=$tagged
	fi
	write_config_raw "$file" "$text"
}

# write_config_raw FILE [TEXT]: write TEXT verbatim, mode 0600.
write_config_raw() {
	local file=$1 text
	if [ $# -ge 2 ]; then text=$2; else text=$(cat); fi
	(umask 077 && printf '%s\n' "$text" >"$file") ||
		hard_error "cannot write $file"
	chmod 0600 "$file"
}

# ---------------------------------------------------------------------------
# Node.js test clients (each prints a JSON summary with a "problems" list).

# need_node: set NODE to node 16 or later, or skip the test.
need_node() {
	NODE=$(command -v node 2>/dev/null) || skip "node is not installed"
	case "$("$NODE" --version 2>/dev/null)" in
	v1[6-9].* | v[2-9][0-9].*) ;;
	*) skip "node $("$NODE" --version 2>/dev/null) is too old (16 or later needed)" ;;
	esac
}

# node_client SCRIPT OUT SUBCOMMAND [ARGS...]: run one client scenario on
# $SOCK, its JSON summary to OUT (stderr to OUT.err); fails the test if it
# could not run.  The problems it found are checked by client_problems.
node_client() {
	local script=$1 out=$2 rc
	shift 2
	timeout -k 5 120 "$NODE" "$script" "$@" --sock "$SOCK" \
		>"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" != 0 ] || ! jq -e . "$out" >/dev/null 2>&1; then
		cat "$out.err" >&2
		fail "$(basename "$script") $1 exited $rc: $(head -c 2000 "$out")"
	fi
}

# client_problems OUT WHAT: fail listing the problems the client found.
client_problems() {
	local n
	n=$(jq '.problems | length' "$1")
	[ "$n" = 0 ] && return 0
	echo "--- $2: $n problem(s) seen by the clients ---" >&2
	jq -r '.problems[:25][]' "$1" >&2
	fail "$2: $n problem(s), first: $(jq -r '.problems[0]' "$1")"
}

# ---------------------------------------------------------------------------
# Failure and cleanup.

# fail MSG: report, show the end of the mcpd log and the status, exit 1.
fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	if mcpd_running; then
		echo "--- mcpctl --json status ---" >&2
		timeout -k 2 5 "$MCPCTL" -s "$SOCK" --json status >&2 2>&1
	fi
	if [ -s "$MCPD_LOG" ]; then
		echo "--- last 40 lines of $MCPD_LOG ---" >&2
		tail -n 40 "$MCPD_LOG" >&2
	fi
	exit 1
}

# _marked PID: the process carries this test's marker in its environment.
_marked() {
	grep -qzxF "MCPD_TEST_DIR=$T" "/proc/$1/environ" 2>/dev/null
}

_kill_strays() {
	local f pid p
	for f in "$T"/*.pid "$T"/*/*.pid; do
		[ -f "$f" ] || continue
		pid=$(read_pidfile "$f") || continue
		if pid_running "$pid" && _marked "$pid"; then
			note "cleanup: killing leftover $(describe_pid "$pid")"
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	for _ in 1 2 3; do
		for p in /proc/[0-9]*; do
			pid=${p#/proc/}
			if _marked "$pid" && pid_running "$pid"; then
				note "cleanup: killing leftover $(describe_pid "$pid")"
				kill -KILL "$pid" 2>/dev/null
			fi
		done
		sleep 0.05
	done
}

_cleanup() {
	local rc=$? p hook
	trap - EXIT INT TERM HUP ALRM
	set +e
	if [ -n "${WATCHDOG_PID:-}" ]; then
		kill -TERM "$WATCHDOG_PID" 2>/dev/null
		wait "$WATCHDOG_PID" 2>/dev/null
	fi
	for p in "${MCPD_PIDS[@]}"; do
		# Only our own children: the pid cannot have been reused.
		[ "$(proc_ppid "$p" 2>/dev/null)" = "$$" ] || continue
		if pid_running "$p"; then
			kill -TERM "$p" 2>/dev/null
			if ! wait_for 10 eval '! pid_running '"$p"; then
				note "cleanup: mcpd $p ignored SIGTERM for 10 s, killing it"
				kill -KILL "$p" 2>/dev/null
			fi
		fi
		wait "$p" 2>/dev/null
	done
	for p in "${_SPAWN_KEEPERS[@]}"; do
		kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	_kill_strays
	for hook in "${CLEANUP_HOOKS[@]}"; do
		"$hook"
	done
	rm -rf "$T"
	exit "$rc"
}
trap _cleanup EXIT
trap 'echo "FAIL: $TEST_NAME: interrupted" >&2; exit 1' INT HUP TERM
trap 'echo "FAIL: $TEST_NAME: timed out after ${TEST_TIMEOUT_S} s" >&2; exit 1' ALRM

# A whole test never runs longer than this.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-300}
(
	trap 'kill "$_sleep_pid" 2>/dev/null; wait "$_sleep_pid"; exit 0' TERM
	sleep "$TEST_TIMEOUT_S" >/dev/null 2>&1 &
	_sleep_pid=$!
	# Only while this shell is still our parent: its pid cannot be reused.
	_me=$BASHPID
	wait "$_sleep_pid" && [ "$(proc_ppid "$_me")" = $$ ] &&
		kill -ALRM $$ 2>/dev/null
) &
WATCHDOG_PID=$!
