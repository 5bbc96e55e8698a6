#!/bin/bash
# notify.sh -- what mcpd tells systemd through $NOTIFY_SOCKET (Type=notify).
#
# notify-listen (tests/systemd/notify-listen.c) plays systemd's part: it
# binds a datagram socket, given to mcpd as $NOTIFY_SOCKET, and logs every
# datagram with its arrival time and the sender's pid as the kernel saw it.
# mcpd supervises two fake servers.  Asserted:
#
#   - READY=1, with a non-empty STATUS= that counts the 2 servers, once
#     mcpd answers on its socket;
#   - with WATCHDOG_USEC=1000000 and WATCHDOG_PID set to mcpd's pid,
#     WATCHDOG=1 about every 500 ms (half the interval): over 8 gaps the
#     median is 300-700 ms and no gap reaches 1000 ms, after which systemd
#     would have killed mcpd; the same with WATCHDOG_PID unset; and no ping
#     at all when WATCHDOG_PID names another process (the variables were
#     inherited, not meant for mcpd);
#   - every datagram comes from mcpd's own pid, and no server inherits
#     NOTIFY_SOCKET or WATCHDOG_* (under NotifyAccess=main systemd would
#     ignore a server's messages; a server must not even have the chance);
#   - SIGHUP: RELOADING=1, then READY=1 again, and mcpd still answers;
#   - SIGTERM: STOPPING=1 before mcpd exits, and exit status 0.

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

if [ -z "${NOTIFY_LISTEN:-}" ] && [ -n "${abs_top_builddir:-}" ]; then
	NOTIFY_LISTEN=$abs_top_builddir/tests/systemd/notify-listen
fi
[ -n "${NOTIFY_LISTEN:-}" ] ||
	hard_error "NOTIFY_LISTEN is not set (the path of the built tests/systemd/notify-listen)"
[ -x "$NOTIFY_LISTEN" ] || hard_error "NOTIFY_LISTEN=$NOTIFY_LISTEN is not an executable"

FAILURES=0
check_fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	FAILURES=$((FAILURES + 1))
}

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "alpha": { "command": "$MCP_FAKE" },
    "beta": { "command": "$MCP_FAKE" }
  }
}
JSON

LISTENER_PID=
NOTIFY_LOG=
stop_listener() {
	if [ -n "$LISTENER_PID" ]; then
		kill -TERM "$LISTENER_PID" 2>/dev/null
		wait "$LISTENER_PID" 2>/dev/null
		LISTENER_PID=
	fi
}
CLEANUP_HOOKS+=(stop_listener)

# start_listener NAME: a fresh notification socket $T/NAME.sock, logged to
# $T/NAME.log; exported as NOTIFY_SOCKET.
start_listener() {
	stop_listener
	NOTIFY_LOG=$T/$1.log
	: >"$NOTIFY_LOG"
	"$NOTIFY_LISTEN" "$T/$1.sock" >"$NOTIFY_LOG" 2>"$T/$1.err" &
	LISTENER_PID=$!
	wait_for 30 test -S "$T/$1.sock" ||
		hard_error "notify-listen did not bind $T/$1.sock: $(cat "$T/$1.err")"
	export NOTIFY_SOCKET=$T/$1.sock
}

# line_after FROM ASSIGNMENT: the number of the first line after line FROM
# of the log whose datagram carries ASSIGNMENT (e.g. READY=1); 0 if none.
line_after() {
	awk -v from="$1" -v a="$2" 'NR > from {
		n = split($0, f, "\t"); sub(/^[^ ]* [^ ]* /, "", f[1])
		for (i = 1; i <= n; i++) if (f[i] == a) { print NR; found = 1; exit } }
		END { if (!found) print 0 }' "$NOTIFY_LOG"
}
line_of() { line_after 0 "$1"; }
seen() { [ "$(line_after 0 "$1")" != 0 ]; }
seen_after() { [ "$(line_after "$1" "$2")" != 0 ]; }
log_lines() { awk 'END { print NR }' "$NOTIFY_LOG"; }

# values NAME: the value of every NAME= assignment, in order, one a line.
values() {
	awk -v p="$1=" '{ n = split($0, f, "\t"); sub(/^[^ ]* [^ ]* /, "", f[1])
		for (i = 1; i <= n; i++) if (index(f[i], p) == 1) print substr(f[i], length(p) + 1) }' "$NOTIFY_LOG"
}

# senders_other_than PID: pids of datagrams not sent by PID.
senders_other_than() {
	awk -v p="$1" '$2 != p { print $2 }' "$NOTIFY_LOG" | sort -u | tr '\n' ' '
}

# watchdog_gaps FROM_MS: milliseconds between consecutive WATCHDOG=1
# datagrams that arrived after FROM_MS, one a line.
watchdog_gaps() {
	awk -v from="$1" '$1 >= from && /(^[^ ]* [^ ]* |\t)WATCHDOG=1(\t|$)/ {
		if (have) printf "%.1f\n", $1 - last
		last = $1; have = 1 }' "$NOTIFY_LOG"
}

watchdog_count_since() {
	awk -v from="$1" '$1 >= from && /(^[^ ]* [^ ]* |\t)WATCHDOG=1(\t|$)/ { n++ }
		END { print n + 0 }' "$NOTIFY_LOG"
}

# The arrival time of the latest datagram (the listener's clock).
last_ms() { awk 'END { print $1 + 0 }' "$NOTIFY_LOG"; }

# The watchdog interval of runs 1 and 2.  A ping every half interval, so a
# gap may exceed the expected 500 ms by up to 500 ms (mcpd's and the
# listener's turns on a loaded machine) before it reaches the interval;
# with a 200 ms interval a loaded machine left too little room.  The
# median still tells half the interval (500) from all of it (1000).
WD_USEC=1000000
WD_MS=$((WD_USEC / 1000))

# check_watchdog LABEL: 9 pings (8 gaps), gaps as expected.
check_watchdog() {
	local label=$1 from gaps n median max
	wait_for 30 seen WATCHDOG=1 || {
		check_fail "$label: no WATCHDOG=1 within 30 s with WATCHDOG_USEC=$WD_USEC"
		return
	}
	from=$(last_ms)
	wait_for 60 eval '[ "$(watchdog_count_since "$from")" -ge 9 ]' || {
		check_fail "$label: only $(watchdog_count_since "$from") WATCHDOG=1 in 60 s (expected one every $((WD_MS / 2)) ms)"
		return
	}
	gaps=$(watchdog_gaps "$from" | head -n 8 | sort -n)
	n=$(printf '%s\n' "$gaps" | grep -c .)
	median=$(printf '%s\n' "$gaps" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	max=$(printf '%s\n' "$gaps" | tail -n 1)
	note "$label: $n gaps between pings, median $median ms, longest $max ms"
	awk -v m="$median" -v i="$WD_MS" 'BEGIN { exit !(m >= i * 0.3 && m <= i * 0.7) }' ||
		check_fail "$label: median WATCHDOG=1 gap $median ms, expected $((WD_MS * 3 / 10))-$((WD_MS * 7 / 10)) (half of $WD_MS ms)"
	awk -v m="$max" -v i="$WD_MS" 'BEGIN { exit !(m < i) }' ||
		check_fail "$label: a WATCHDOG=1 gap of $max ms: systemd would have killed mcpd at $WD_MS"
}

# --- 1: WATCHDOG_PID is mcpd's own pid ------------------------------------------

start_listener run1
# WATCHDOG_PID must be mcpd's pid before mcpd runs: a shell sets it and
# executes mcpd in its place.
MCPD_PREFIX=(bash -c 'export WATCHDOG_PID=$$; exec "$@"' mcpd-with-watchdog-pid)
WATCHDOG_USEC=$WD_USEC start_mcpd "$T/mcpd.json"
MCPD_PREFIX=()
wait_for 30 seen READY=1 || fail "no READY=1 within 30 s of mcpd answering on its socket"
status=$(values STATUS | head -n 1)
note "READY=1 with STATUS=$status"
[ -n "$status" ] || check_fail "no STATUS= (or an empty one) by the time of READY=1"
case $status in
*2*) ;;
*) check_fail "STATUS=$status does not count the 2 configured servers" ;;
esac
wait_ready alpha
wait_ready beta
check_watchdog "WATCHDOG_PID=mcpd"

# Servers: no notification socket, no watchdog variables.
for s in alpha beta; do
	pid=$(server_pid "$s") || { check_fail "no pid for $s"; continue; }
	if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
		grep -E '^(NOTIFY_SOCKET|WATCHDOG_USEC|WATCHDOG_PID|LISTEN_FDS|LISTEN_PID)='; then
		check_fail "server $s (pid $pid) inherited the variables above"
	fi
done

# Reload.
from=$(log_lines)
kill -HUP "$MCPD_PID"
if wait_for 30 seen_after "$from" RELOADING=1; then
	r=$(line_after "$from" RELOADING=1)
	if wait_for 30 seen_after "$r" READY=1; then
		note "SIGHUP: RELOADING=1, then READY=1"
	else
		check_fail "SIGHUP: RELOADING=1 but no READY=1 after it within 30 s; systemd would stay in 'reloading'"
	fi
	sed -n "${r}p" "$NOTIFY_LOG" | grep -q "MONOTONIC_USEC=" ||
		note "RELOADING=1 comes without MONOTONIC_USEC= (only Type=notify-reload, systemd 253, needs it)"
else
	check_fail "SIGHUP: no RELOADING=1 within 30 s"
fi
ctl status >/dev/null || check_fail "mcpd does not answer after SIGHUP"

# Shutdown.
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || check_fail "mcpd exited with status $MCPD_STATUS on SIGTERM"
# Sent before mcpd exited; the listener logs it in its own time.
if wait_for 30 seen STOPPING=1; then
	[ "$(line_of STOPPING=1)" -gt "$(line_of READY=1)" ] ||
		check_fail "STOPPING=1 came before READY=1"
	note "SIGTERM: STOPPING=1, exit status $MCPD_STATUS"
else
	check_fail "no STOPPING=1 before mcpd exited on SIGTERM"
fi
others=$(senders_other_than "$MCPD_PID")
[ -z "$others" ] || check_fail "datagrams from pids other than mcpd's ($MCPD_PID): $others"
note "$(wc -l <"$NOTIFY_LOG") datagrams, all from mcpd's pid $MCPD_PID"

# --- 2: WATCHDOG_PID unset ---------------------------------------------------------

start_listener run2
WATCHDOG_USEC=$WD_USEC start_mcpd "$T/mcpd.json"
wait_for 30 seen READY=1 || check_fail "run 2: no READY=1"
check_watchdog "WATCHDOG_PID unset"
stop_mcpd TERM

# --- 3: WATCHDOG_PID names another process ----------------------------------------

start_listener run3
WATCHDOG_USEC=200000 WATCHDOG_PID=1 start_mcpd "$T/mcpd.json"
wait_for 30 seen READY=1 || check_fail "run 3: no READY=1"
# A window: mcpd would ping at once at start-up and then every 100 ms;
# 1 s is ten of those.
sleep 1
n=$(watchdog_count_since 0)
[ "$n" = 0 ] ||
	check_fail "WATCHDOG_PID=1: mcpd sent $n WATCHDOG=1 meant for another process"
note "WATCHDOG_PID=1: no pings in 1 s"
stop_mcpd TERM
stop_listener

[ "$FAILURES" = 0 ] || exit 1
exit 0
