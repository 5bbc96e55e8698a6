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
SLACK_MS=150		# scheduling slack allowed above the curve
# A sanitized build forks two AddressSanitizer processes (the reaper, the
# server) and starts a sanitized fake per restart: hundreds of ms that
# are the sanitizer's, not mcpd's backoff.
if sanitized "$MCPD"; then
	SLACK_MS=1500
fi

CRASHY=$T/crashy.starts
GIVEUP=$T/giveup.starts
# Servers that are ready for UPTIME_MS and then exit 0: "stable" has been
# ready long enough for its failure counter to reset, "unstable" has not.
UPTIME_MS=1200
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
      "command": "$MCP_FAKE",
      "args": ["--crash-at-start=3", "--startlog=$CRASHY"]
    },
    "giveup": {
      "command": "$MCP_FAKE",
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
      "backoff_reset_ms": 800
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
      "init_timeout_ms": 500
    },
    "mute": {
      "command": "$MCP_FAKE",
      "args": ["--close-stdout-after-init"]
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"

# --- the curve -----------------------------------------------------------------
# While crashy cycles, sample its status: never ready, restarts never go
# down, next_restart_ms is a number exactly when it is in backoff.
samples=0
backoff_samples=0
prev_restarts=0
deadline=$(($(now_ms) + 30000))
while ! startlog_has "$CRASHY" 6; do
	[ "$(now_ms)" -lt "$deadline" ] ||
		fail "crashy started only $(startlog_count "$CRASHY") times in 30 s, expected 6"
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
		[ "$next" -le $((MAX_MS * (100 + JITTER_PCT) / 100 + SLACK_MS)) ] ||
			fail "next_restart_ms=$next is beyond the longest delay"
		[ "$last" = '"exited with status 3"' ] ||
			fail "last_exit is $last in backoff, expected \"exited with status 3\""
	else
		[ "$next" = null ] || fail "next_restart_ms is $next in state $state, expected null"
	fi
	sleep 0.1
done
[ "$backoff_samples" -ge 5 ] ||
	fail "crashy was seen in backoff only $backoff_samples times out of $samples samples"

starts=$(startlog_count "$CRASHY")
restarts=$(server_field crashy restarts)
[ "$restarts" -ge $((starts - 1)) ] && [ "$restarts" -le "$starts" ] ||
	fail "restarts=$restarts after $starts starts"
note "status: $samples samples, $backoff_samples in backoff, restarts=$restarts after $starts starts"

# Successive gaps between starts against min(200*2^n, 1600) with jitter.
awk 'NF >= 2 { print $2 }' "$CRASHY" | head -n 6 >"$T/crashy.ms"
n=0
prev=
measured=
while read -r ms; do
	if [ -n "$prev" ]; then
		gap=$((ms - prev))
		base=$((MIN_MS << n))
		[ "$base" -gt "$MAX_MS" ] && base=$MAX_MS
		lo=$((base * (100 - JITTER_PCT) / 100 - 2))
		hi=$((base * (100 + JITTER_PCT) / 100 + SLACK_MS))
		measured="$measured $gap(${base})"
		[ "$gap" -ge "$lo" ] && [ "$gap" -le "$hi" ] ||
			fail "restart $((n + 1)): gap ${gap} ms, expected ${base} ms (${lo}..${hi}); gaps so far:$measured"
		n=$((n + 1))
	fi
	prev=$ms
done <"$T/crashy.ms"
[ "$n" -eq 5 ] || fail "measured $n gaps, expected 5"
note "gaps between starts, ms (expected):$measured"

# --- give up ---------------------------------------------------------------------
# 3 restarts allowed in 60 s: 4 starts, then failed.
wait_for 20 server_is giveup failed ||
	fail "giveup not failed after 20 s (state $(server_field giveup state), $(startlog_count "$GIVEUP") starts)"
[ "$(startlog_count "$GIVEUP")" -eq 4 ] ||
	fail "giveup started $(startlog_count "$GIVEUP") times before failing, expected 4 (1 + max_restarts 3)"
[ "$(server_field giveup pid)" = null ] || fail "failed server has pid $(server_field giveup pid)"
[ "$(server_field giveup next_restart_ms)" = null ] ||
	fail "failed server has next_restart_ms $(server_field giveup next_restart_ms)"
reason=$(server_field giveup last_exit)
[ -n "$reason" ] && [ "$reason" != null ] || fail "failed server has no last_exit"
note "giveup: failed after 4 starts, last_exit '$reason'"
# It stays failed: no more starts for longer than the longest delay.
sleep 2
[ "$(startlog_count "$GIVEUP")" -eq 4 ] || fail "giveup started again while failed"
server_is giveup failed || fail "giveup left failed by itself: $(server_field giveup state)"

# The server crashes again at once, so mcpctl may report that the restart
# did not reach ready (exit 1); either way it must have started again.
ctl restart giveup >"$T/restart.out" 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] ||
	fail "mcpctl restart giveup exited $rc: $(cat "$T/restart.out")"
note "mcpctl restart giveup: exit $rc: $(head -1 "$T/restart.out")"
wait_for 10 startlog_has "$GIVEUP" 5 || fail "giveup did not start again after mcpctl restart"
wait_for 5 server_is giveup starting initializing backoff ||
	fail "giveup in state $(server_field giveup state) after mcpctl restart"
note "giveup: mcpctl restart revived it"

# --- exec failure ------------------------------------------------------------------
wait_for 10 eval '[ "$(server_field noexec restarts)" -ge 2 ] 2>/dev/null' ||
	fail "noexec not restarted twice in 10 s (restarts $(server_field noexec restarts))"
wait_for 5 server_is noexec backoff || fail "noexec not in backoff: $(server_field noexec state)"
reason=$(server_field noexec last_exit)
case "$reason" in
*/nonexistent/mcp-server*"No such file or directory"*) ;;
*) fail "noexec last_exit '$reason' does not name the command and the errno text" ;;
esac
note "noexec: last_exit '$reason'"
wait_for 10 server_is nocwd backoff || fail "nocwd not in backoff: $(server_field nocwd state)"
reason=$(server_field nocwd last_exit)
case "$reason" in
*/nonexistent-dir*"No such file or directory"*) ;;
*) fail "nocwd last_exit '$reason' does not name the directory and the errno text" ;;
esac
note "nocwd: last_exit '$reason'"

# --- counter reset after a stable period ---------------------------------------------
# gaps_check NAME FILE EXPECTED_DELAY...: the gaps between starts are
# UPTIME_MS plus the given backoff delays (jitter below, slack above).
gaps_check() {
	local name=$1 file=$2 prev='' ms gap base lo hi measured=''
	shift 2
	wait_for 30 startlog_has "$file" $(($# + 1)) ||
		fail "$name started $(startlog_count "$file") times in 30 s, expected $(($# + 1))"
	while read -r ms; do
		if [ -n "$prev" ] && [ $# -gt 0 ]; then
			gap=$((ms - prev))
			base=$1
			shift
			lo=$((UPTIME_MS + base * (100 - JITTER_PCT) / 100 - 2))
			hi=$((UPTIME_MS + base * (100 + JITTER_PCT) / 100 + SLACK_MS + 100))
			measured="$measured $gap($((UPTIME_MS + base)))"
			[ "$gap" -ge "$lo" ] && [ "$gap" -le "$hi" ] ||
				fail "$name: gap $gap ms between starts, expected $((UPTIME_MS + base)) (${lo}..${hi}); gaps:$measured"
		fi
		prev=$ms
	done < <(awk 'NF >= 2 { print $2 }' "$file")
	note "$name: ms between starts (expected):$measured"
}
gaps_check stable "$STABLE" 200 200 200
gaps_check unstable "$UNSTABLE" 200 400 800

# --- status says why ---------------------------------------------------------------------
wait_for 10 eval 'case "$(server_field hang last_exit)" in *"initialize timed out after 500 ms"*) true ;; *) false ;; esac' ||
	fail "hang: last_exit '$(server_field hang last_exit)', expected 'initialize timed out after 500 ms'"
note "hang: last_exit '$(server_field hang last_exit)'"
wait_for 10 eval 'case "$(server_field mute last_exit)" in *"stdout closed"*) true ;; *) false ;; esac' ||
	fail "mute: last_exit '$(server_field mute last_exit)', expected it to say stdout closed"
note "mute: last_exit '$(server_field mute last_exit)'"

mcpd_running || fail "mcpd died"
ctl status >/dev/null || fail "mcpctl status failed at the end"
exit 0
