#!/bin/bash
# crash-backoff.sh -- a server that crashes at start is restarted on the
# exponential backoff curve, status says why and when, the give-up rule
# marks it failed until an admin restarts it, the failure counter resets
# after a stable period, and exec failures, initialize timeouts and a
# closed stdout are reported clearly without hurting mcpd.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

MIN_MS=200
MAX_MS=1600
JITTER_PCT=20
# The curve is checked on the delays mcpd chose (its log: "restarting in
# D ms"), exactly.  The measured gaps between starts are checked against
# those delays: never shorter (a gap is the delay plus the time to notice
# the exit and start the next process, so that bound holds on any
# machine), and at most LATE_MS longer.  Those extra milliseconds are the
# machine's, not mcpd's: noticing an exit, forking the reaper, exec and
# start-up of the next server.  On a machine loaded with other tests and
# a busy loop per core they reached 1 s, and nearly 3 s for a sanitized
# build (every one of those processes is sanitized); so LATE_MS is about
# twice that.  It still catches a restart that is not driven by the delay
# mcpd chose (never, or at some unrelated later event); the curve itself
# is checked exactly on the chosen delays.
LATE_MS=3000
if sanitized "$MCPD"; then
	LATE_MS=6000
fi

CRASHY=$T/crashy.starts
GIVEUP=$T/giveup.starts
# Servers that are ready for UPTIME_MS and then exit 0: "stable" has been
# ready long enough for its failure counter to reset, "unstable" has not.
# UPTIME_MS leaves 1.5 s for a start to reach ready (a loaded machine, a
# sanitized build) before stable's ready time falls below its 500 ms.
UPTIME_MS=2000
STABLE=$T/stable.starts
UNSTABLE=$T/unstable.starts
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": {
    "backoff_min_ms": $MIN_MS,
    "backoff_max_ms": $MAX_MS,
    "backoff_jitter": $(awk -v p="$JITTER_PCT" 'BEGIN { print p / 100 }')
  },
  "mcpServers": {
    "crashy": {
      "command": "$MCP_FAKE", "protocol": "2025",
      "args": ["--crash-at-start=3", "--startlog=$CRASHY"]
    },
    "giveup": {
      "command": "$MCP_FAKE", "protocol": "2025",
      "args": ["--crash-at-start=3", "--startlog=$GIVEUP"],
      "max_restarts": 3,
      "restart_window_s": 60
    },
    "noexec": {
      "command": "/nonexistent/mcp-server",
      "args": ["--stdio"]
    },
    "nocwd": {
      "command": "$MCP_FAKE",
      "cwd": "/nonexistent-dir"
    },
    "stable": {
      "command": "$MCP_FAKE",
      "args": ["--exit-after-ms=$UPTIME_MS", "--startlog=$STABLE"],
      "restart": "always",
      "backoff_reset_ms": 500
    },
    "unstable": {
      "command": "$MCP_FAKE",
      "args": ["--exit-after-ms=$UPTIME_MS", "--startlog=$UNSTABLE"],
      "restart": "always",
      "backoff_reset_ms": 60000
    },
    "hang": {
      "command": "$MCP_FAKE",
      "args": ["--no-init-reply"],
      "init_timeout_ms": 500,
      "first_start_timeout_ms": 500
    },
    "mute": {
      "command": "$MCP_FAKE",
      "args": ["--close-stdout-after-init"]
    }
  }
}
JSON
# crashy and giveup speak "2025": the curve from their first start (with
# "auto", the first exit, on server/discover, is taken for a server of
# 2025 that cannot take it, started again at once; probe.sh has that).
start_mcpd "$T/mcpd.json"

# chosen_delays NAME: the delays mcpd chose for NAME's restarts 1, 2, ...,
# one a line, from its log.
chosen_delays() {
	sed -n 's/^mcpd: '"$1"': restarting in \([0-9]*\) ms (restart \([0-9]*\))$/\2 \1/p' "$MCPD_LOG" |
		sort -n -k1,1 | awk '{ print $2 }'
}

# --- the curve -----------------------------------------------------------------
# While crashy cycles (it crashes at every start, for ever), sample its
# status: never ready, restarts never go down, next_restart_ms is a number
# exactly when it is in backoff.  Until 6 starts and 5 samples in backoff:
# a slow shell samples less often, so the count of samples is not fixed.
samples=0
backoff_samples=0
prev_restarts=0
deadline=$(($(now_ms) + 60000))
while ! startlog_has "$CRASHY" 6 || [ "$backoff_samples" -lt 5 ]; do
	[ "$(now_ms)" -lt "$deadline" ] ||
		fail "in 60 s, crashy started $(startlog_count "$CRASHY") times (expected 6) and was seen in backoff in $backoff_samples of $samples samples (expected 5)"
	mcpd_running || fail "mcpd died while crashy was crash-looping"
	js=$(ctl --json status crashy) || fail "mcpctl status failed while crashy was crash-looping"
	read -r state restarts next last <<<"$(jq -r '.servers[0] |
		"\(.state) \(.restarts) \(.next_restart_ms) \(.last_exit | tojson)"' <<<"$js")"
	samples=$((samples + 1))
	case "$state" in
	starting | initializing | backoff) ;;
	*) fail "crashy in state '$state' while crash-looping" ;;
	esac
	case "$restarts" in
	'' | *[!0-9]*) fail "restarts is not a number: $restarts" ;;
	esac
	[ "$restarts" -ge "$prev_restarts" ] ||
		fail "restarts went down from $prev_restarts to $restarts"
	prev_restarts=$restarts
	if [ "$state" = backoff ]; then
		backoff_samples=$((backoff_samples + 1))
		case "$next" in
		'' | *[!0-9]*) fail "next_restart_ms is '$next' in backoff, expected a number" ;;
		esac
		# The time left, never more than the longest delay.
		[ "$next" -le $((MAX_MS * (100 + JITTER_PCT) / 100 + 1)) ] ||
			fail "next_restart_ms=$next is beyond the longest delay"
		[ "$last" = '"exited with status 3"' ] ||
			fail "last_exit is $last in backoff, expected \"exited with status 3\""
	else
		[ "$next" = null ] || fail "next_restart_ms is $next in state $state, expected null"
	fi
	sleep 0.1
done

# Read together: the status may lag the startlog by one start.
starts=$(startlog_count "$CRASHY")
restarts=$(server_field crashy restarts)
starts2=$(startlog_count "$CRASHY")
[ "$restarts" -ge $((starts - 1)) ] && [ "$restarts" -le "$starts2" ] ||
	fail "restarts=$restarts after $starts..$starts2 starts"
note "status: $samples samples, $backoff_samples in backoff, restarts=$restarts after $starts starts"

# check_delays NAME EXTRA_MS BASE...: the delays mcpd chose for NAME's
# first restarts are BASE... with the jitter, and each gap between NAME's
# starts (in its startlog) is EXTRA_MS (the time it stays up) plus that
# delay plus at most LATE_MS.
check_delays() {
	local name=$1 extra=$2 file=$T/$1.starts i=0 d gap lo hi measured=''
	local -a delays starts
	shift 2
	mapfile -t delays < <(chosen_delays "$name")
	mapfile -t starts < <(awk 'NF >= 2 { print $2 }' "$file")
	[ "${#delays[@]}" -ge $# ] && [ "${#starts[@]}" -gt $# ] ||
		fail "$name: ${#starts[@]} starts and ${#delays[@]} restart delays in the log, expected $(($# + 1)) and $#"
	for base; do
		d=${delays[$i]}
		lo=$((base * (100 - JITTER_PCT) / 100 - 1))
		hi=$((base * (100 + JITTER_PCT) / 100 + 1))
		[ "$d" -ge "$lo" ] && [ "$d" -le "$hi" ] ||
			fail "$name: restart $((i + 1)) after $d ms, expected $base ms (${lo}..${hi}); delays: ${delays[*]:0:$#}"
		gap=$((starts[i + 1] - starts[i]))
		measured="$measured $gap($((extra + d)))"
		[ "$gap" -ge $((extra + d - 2)) ] ||
			fail "$name: started again $gap ms after start $((i + 1)), before the $((extra + d)) ms expected ($extra ms up, then the $d ms delay mcpd chose); gaps (expected):$measured"
		[ "$gap" -le $((extra + d + LATE_MS)) ] ||
			fail "$name: started again $gap ms after start $((i + 1)), over ${LATE_MS} ms after the $((extra + d)) ms expected ($extra ms up, then the $d ms delay mcpd chose); gaps (expected):$measured"
		i=$((i + 1))
	done
	note "$name: ms between starts (up + chosen delay):$measured"
}

# min(200 * 2^n, 1600), with jitter.
check_delays crashy 0 200 400 800 1600 1600

# --- give up ---------------------------------------------------------------------
# 3 restarts allowed in 60 s: 4 starts, then failed.
wait_for 60 server_is giveup failed ||
	fail "giveup not failed after 60 s (state $(server_field giveup state), $(startlog_count "$GIVEUP") starts)"
[ "$(startlog_count "$GIVEUP")" -eq 4 ] ||
	fail "giveup started $(startlog_count "$GIVEUP") times before failing, expected 4 (1 + max_restarts 3)"
[ "$(server_field giveup pid)" = null ] || fail "failed server has pid $(server_field giveup pid)"
[ "$(server_field giveup next_restart_ms)" = null ] ||
	fail "failed server has next_restart_ms $(server_field giveup next_restart_ms)"
reason=$(server_field giveup last_exit)
[ -n "$reason" ] && [ "$reason" != null ] || fail "failed server has no last_exit"
note "giveup: failed after 4 starts, last_exit '$reason'"
# It stays failed.  A window: a restart mcpd wrongly still had in mind
# would come within the longest delay (1600 ms + 20 %); 3 s is well over it.
sleep 3
[ "$(startlog_count "$GIVEUP")" -eq 4 ] || fail "giveup started again while failed"
server_is giveup failed || fail "giveup left failed by itself: $(server_field giveup state)"

# The server crashes again at once, so mcpctl may report that the restart
# did not reach ready (exit 1); either way it must have started again.
ctl restart giveup >"$T/restart.out" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] ||
	fail "mcpctl restart giveup exited $rc: $(cat "$T/restart.out")"
note "mcpctl restart giveup: exit $rc: $(head -1 "$T/restart.out")"
wait_for 30 startlog_has "$GIVEUP" 5 || fail "giveup did not start again after mcpctl restart"
# Revived: its give-up count starts over, so mcpd restarts it again by
# itself (3 more times), and then gives up once more.
wait_for 30 startlog_has "$GIVEUP" 6 ||
	fail "giveup was not restarted by mcpd after mcpctl restart (state $(server_field giveup state), $(startlog_count "$GIVEUP") starts)"
wait_for 60 server_is giveup failed ||
	fail "giveup not failed again after 60 s (state $(server_field giveup state), $(startlog_count "$GIVEUP") starts)"
[ "$(startlog_count "$GIVEUP")" -eq 8 ] ||
	fail "giveup started $(startlog_count "$GIVEUP") times in all, expected 8 (4, then 4 again after mcpctl restart)"
note "giveup: mcpctl restart revived it for 4 more starts"

# --- exec failure ------------------------------------------------------------------
wait_for 30 eval '[ "$(server_field noexec restarts)" -ge 2 ] 2>/dev/null' ||
	fail "noexec not restarted twice in 30 s (restarts $(server_field noexec restarts))"
wait_for 30 server_is noexec backoff || fail "noexec not in backoff: $(server_field noexec state)"
reason=$(server_field noexec last_exit)
case "$reason" in
*/nonexistent/mcp-server*"No such file or directory"*) ;;
*) fail "noexec last_exit '$reason' does not name the command and the errno text" ;;
esac
note "noexec: last_exit '$reason'"
wait_for 30 server_is nocwd backoff || fail "nocwd not in backoff: $(server_field nocwd state)"
reason=$(server_field nocwd last_exit)
case "$reason" in
*/nonexistent-dir*"No such file or directory"*) ;;
*) fail "nocwd last_exit '$reason' does not name the directory and the errno text" ;;
esac
note "nocwd: last_exit '$reason'"

# --- counter reset after a stable period ---------------------------------------------
# Each gap between starts is UPTIME_MS plus the delay: 200 ms every time
# for stable (its counter resets while it is up), 200, 400, 800 for
# unstable.
wait_for 60 startlog_has "$STABLE" 4 ||
	fail "stable started $(startlog_count "$STABLE") times in 60 s, expected 4"
wait_for 60 startlog_has "$UNSTABLE" 4 ||
	fail "unstable started $(startlog_count "$UNSTABLE") times in 60 s, expected 4"
check_delays stable "$UPTIME_MS" 200 200 200
check_delays unstable "$UPTIME_MS" 200 400 800

# --- status says why ---------------------------------------------------------------------
wait_for 30 eval 'case "$(server_field hang last_exit)" in *"initialize timed out after 500 ms"*) true ;; *) false ;; esac' ||
	fail "hang: last_exit '$(server_field hang last_exit)', expected 'initialize timed out after 500 ms'"
note "hang: last_exit '$(server_field hang last_exit)'"
wait_for 30 eval 'case "$(server_field mute last_exit)" in *"stdout closed"*) true ;; *) false ;; esac' ||
	fail "mute: last_exit '$(server_field mute last_exit)', expected it to say stdout closed"
note "mute: last_exit '$(server_field mute last_exit)'"

mcpd_running || fail "mcpd died"
ctl status >/dev/null || fail "mcpctl status failed at the end"
exit 0
