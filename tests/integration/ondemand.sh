#!/bin/bash
# ondemand.sh -- servers that start on demand and stop when idle.
#
#   1. mcpd with 50 on-demand servers runs none of them: every one is idle
#      (the table says what starts it), no server or reaper process exists,
#      and mcpd's VmRSS is measured and printed beside that of an mcpd
#      with no servers at all.
#   2. The first `mcpctl call` starts one and succeeds; with idle_stop_s 1
#      it is idle again about a second later, its process gone (not a
#      zombie); the next `mcpctl tools` starts it again.
#   3. An editor attached through `mcpctl connect` does not keep it up,
#      and its session goes on across the idle stop: its next request
#      starts the server and is answered, with no error and no second
#      initialize.  A subscription keeps the server running, and so does
#      a request in flight; each idle stop counts from their end.
#   4. An on-demand server that exits with nobody attached goes idle and
#      is not restarted; with a client attached it is restarted (backoff).
#   5. `mcpctl stop` makes it stopped (requests refused), `mcpctl start`
#      runs it and the idle stop applies again.
#   6. A reload that changes only idle_stop_s restarts nothing (same pid,
#      action "updated"), and takes effect; "start": "always" starts an
#      idle server.
#   7. The journal has the on-demand starts and idle stops; metrics count
#      them and know the idle state.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# children PID: how many processes PID is the parent of.
children() {
	local parent=$1 f st n=0
	for f in /proc/[0-9]*/stat; do
		IFS= read -r st <"$f" 2>/dev/null || continue
		st=${st##*) }
		# shellcheck disable=SC2086
		set -- $st
		[ "$2" = "$parent" ] && n=$((n + 1))
	done 2>/dev/null
	echo "$n"
}

# marked_running: how many processes carry this test's marker (servers
# and what they start; a zombie's environment reads empty).
marked_running() {
	grep -lzxF "MCPD_TEST_DIR=$T" /proc/[0-9]*/environ 2>/dev/null | wc -l
}

# --- 1. Fifty idle servers ----------------------------------------------------

write_config "$T/empty.json" '{"mcpServers": {}}'
start_mcpd "$T/empty.json"
# RSS is printed, not asserted: no need to wait for it to settle.
RSS_NONE=$(vm_kib "$MCPD_PID" VmRSS) || fail "no VmRSS for mcpd"
CHILDREN_NONE=$(children "$MCPD_PID")
stop_mcpd TERM

# config IDLE_STOP_S START_OF_OTHER: the configuration, 50 servers.
config() {
	local i extra=""
	for i in $(seq -w 1 47); do
		extra="$extra, \"idle$i\": {\"command\": \"$MCP_FAKE\"}"
	done
	write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "start": "on-demand", "backoff_min_ms": 100,
            "backoff_max_ms": 200, "backoff_jitter": 0 },
  "mcpServers": {
    "lazy": { "command": "$MCP_FAKE", "idle_stop_s": $1,
              "args": ["--pidfile=$T/lazy.pid", "--startlog=$T/lazy.starts"] },
    "crashy": { "command": "$MCP_FAKE",
                "args": ["--exit-after-ms=3000", "--startlog=$T/crashy.starts"] },
    "other": { "command": "$MCP_FAKE", "start": "$2",
               "args": ["--startlog=$T/other.starts"] }
    $extra
  }
}
JSON
}
config 1 on-demand
start_mcpd "$T/mcpd.json"
RSS_IDLE=$(vm_kib "$MCPD_PID" VmRSS) || fail "no VmRSS for mcpd"
note "mcpd VmRSS: $RSS_IDLE KiB with 50 on-demand servers, none running" \
	"($RSS_NONE KiB with no servers)"
echo "RSS: $RSS_IDLE KiB (50 idle on-demand servers; $RSS_NONE KiB with none)"

status_json >"$T/status.json" || fail "mcpctl --json status failed"
n=$(jq '[.servers[] | select(.state == "idle" and .pid == null and
	.start == "on-demand")] | length' "$T/status.json")
[ "$n" = 50 ] || fail "$n of 50 servers idle without a process: $(jq -c \
	'[.servers[] | {name, state, pid}]' "$T/status.json")"
[ "$(marked_running)" = 0 ] || fail "a server process runs: $(marked_running)"
[ "$(children "$MCPD_PID")" = "$CHILDREN_NONE" ] ||
	fail "mcpd has $(children "$MCPD_PID") child processes with nothing running, $CHILDREN_NONE with no servers"
[ "$(startlog_count "$T/lazy.starts")" = 0 ] || fail "lazy was started"
ctl status >"$T/table.txt" || fail "mcpctl status failed"
grep -q '^lazy  *idle .*on demand: starts with its next client or request' \
	"$T/table.txt" || fail "the table does not say what starts lazy: $(grep lazy "$T/table.txt")"

# --- 2. The first call starts it; idle a second later ---------------------------

t_sent=$(now_ms)
out=$(ctl call lazy echo text=first 2>&1) || fail "the first call failed: $out"
t_done=$(now_ms)
[ "$out" = first ] || fail "the first call answered '$out'"
[ "$(startlog_count "$T/lazy.starts")" = 1 ] ||
	fail "lazy started $(startlog_count "$T/lazy.starts") times for one call"
pid=$(read_pidfile "$T/lazy.pid") || fail "no pid file from lazy"
st=$(proc_starttime "$pid")
wait_for 30 server_is lazy idle || fail "lazy is not idle 30 s after its call"
t_idle=$(now_ms)
note "lazy idle $((t_idle - t_done)) ms after its call (idle_stop_s 1)"
# From before the call was sent: its end, where the idle time starts, is
# later still, however late this shell saw it.
[ $((t_idle - t_sent)) -ge 1000 ] ||
	fail "lazy went idle $((t_idle - t_sent)) ms after its call was sent, before idle_stop_s"
# No upper bound beyond wait_for's: how soon a loaded machine gets there
# is not what this tests.
wait_for 20 proc_dead "$pid" "$st" ||
	fail "lazy's process is still there after its idle stop: $(describe_pid "$pid")"
[ "$(server_field lazy pid)" = null ] || fail "idle lazy has a pid"
[ "$(marked_running)" = 0 ] || fail "a server process runs while all are idle"

out=$(ctl tools lazy 2>&1) || fail "mcpctl tools lazy failed: $out"
grep -q echo <<<"$out" || fail "mcpctl tools lazy lists no echo: $out"
[ "$(startlog_count "$T/lazy.starts")" = 2 ] ||
	fail "lazy started $(startlog_count "$T/lazy.starts") times, not 2"
wait_for 30 server_is lazy idle || fail "lazy is not idle after mcpctl tools"

# --- 3. An attached editor ------------------------------------------------------

spawn BRIDGE "$MCPCTL" -s "$SOCK" connect lazy 2>"$T/bridge.err"
BRIDGE_LOG=$T/bridge.log
: >"$BRIDGE_LOG"

bridge_send() {
	spawn_send BRIDGE "$1"
}

# bridge_reply ID TIMEOUT_S: read what the bridge says until the reply to
# ID, into REPLY_LINE; every line goes to $BRIDGE_LOG.
bridge_reply() {
	local line
	while :; do
		spawn_read BRIDGE "$2" line ||
			fail "no reply to request $1 through mcpctl connect within $2 s: $(cat "$T/bridge.err")"
		printf '%s\n' "$line" >>"$BRIDGE_LOG"
		if [ "$(jq -c '.id' <<<"$line" 2>/dev/null)" = "$1" ]; then
			REPLY_LINE=$line
			return 0
		fi
	done
}

# bridge_call ID METHOD PARAMS TIMEOUT_S: a request that must succeed.
bridge_call() {
	bridge_send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"$2\",\"params\":$3}"
	bridge_reply "$1" "$4"
	jq -e 'has("result")' <<<"$REPLY_LINE" >/dev/null ||
		fail "$2 through mcpctl connect: $REPLY_LINE"
}

bridge_call 1 initialize '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"editor","version":"1"}}' 30
bridge_send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
bridge_call 2 tools/call '{"name":"echo","arguments":{"text":"attached"}}' 30
[ "$(jq -r '.result.content[0].text' <<<"$REPLY_LINE")" = attached ] ||
	fail "echo through mcpctl connect: $REPLY_LINE"
[ "$(server_field lazy clients)" = 1 ] || fail "the editor is not attached"
pid=$(read_pidfile "$T/lazy.pid")
st=$(proc_starttime "$pid")

# Attached all day, but doing nothing: idle, and the editor stays.
wait_for 30 server_is lazy idle || fail "an attached client kept lazy running"
wait_for 20 proc_dead "$pid" "$st" || fail "lazy's process outlived its idle stop"
[ "$(server_field lazy clients)" = 1 ] || fail "the idle stop detached the editor"
starts=$(startlog_count "$T/lazy.starts")
bridge_call 3 tools/call '{"name":"echo","arguments":{"text":"again"}}' 30
[ "$(jq -r '.result.content[0].text' <<<"$REPLY_LINE")" = again ] ||
	fail "echo after the idle stop: $REPLY_LINE"
[ "$(startlog_count "$T/lazy.starts")" = $((starts + 1)) ] ||
	fail "the editor's request did not start lazy again"
note "the editor's request after the idle stop started lazy and was answered"

# A subscription keeps it running.  (lazy may have gone idle again since
# the last reply, if this shell was slow: its pid is the one that answers
# the subscribe.)
bridge_call 4 resources/subscribe '{"uri":"fake://status"}' 30
pid=$(read_pidfile "$T/lazy.pid")
# A window, not a wait: without the subscription lazy would be idle 1 s
# (idle_stop_s) after the reply; 2.5 s leaves it time to show.
sleep 2.5
server_is lazy ready || fail "lazy went $(server_field lazy state) with a subscription"
[ "$(read_pidfile "$T/lazy.pid")" = "$pid" ] || fail "lazy restarted while subscribed"
t_sent=$(now_ms)
bridge_call 5 resources/unsubscribe '{"uri":"fake://status"}' 30
t_done=$(now_ms)
wait_for 30 server_is lazy idle || fail "lazy is not idle after the unsubscribe"
t_idle=$(now_ms)
note "with a subscription lazy ran 2.5 s; idle $((t_idle - t_done)) ms after the unsubscribe"
[ $((t_idle - t_sent)) -ge 1000 ] ||
	fail "lazy went idle $((t_idle - t_sent)) ms after the unsubscribe was sent"

# So does a request in flight: a sleep of 5 s is answered.
bridge_send '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":5000}}}'
wait_inflight lazy 1 30
# A window, not a wait: 2 s is twice idle_stop_s, and the sleep still runs
# at its end unless this shell lost 3 s on the way (and even then it ended
# less than idle_stop_s ago unless it lost 4).
sleep 2
server_is lazy ready || fail "lazy went $(server_field lazy state) with a request in flight"
bridge_reply 6 30
jq -e 'has("result")' <<<"$REPLY_LINE" >/dev/null || fail "the sleep: $REPLY_LINE"
wait_for 30 server_is lazy idle || fail "lazy is not idle after the sleep"

# What the editor saw: replies without an error, and no request from mcpd.
bad=$(jq -c 'select(has("error") or .method == "initialize" or
	(has("method") and has("id")))' "$BRIDGE_LOG")
[ -z "$bad" ] || fail "the editor saw: $bad"
note "the editor saw $(wc -l <"$BRIDGE_LOG") lines, none an error or a request"
spawn_close BRIDGE
spawn_wait BRIDGE 20 || fail "mcpctl connect lazy did not exit at the end of its input"

# --- 4. Exits: idle with nobody attached, backoff with a client ----------------

out=$(ctl call crashy echo text=x 2>&1) || fail "call crashy: $out"
wait_for 30 server_is crashy idle || fail "crashy is not idle after it exited"
# A window, not a wait: a restart would come after the backoff, at most
# 200 ms after the exit; 1 s leaves it time to show.
sleep 1
[ "$(startlog_count "$T/crashy.starts")" = 1 ] ||
	fail "crashy was restarted with nobody attached"
note "crashy: $(server_field crashy last_exit); idle, not restarted"

spawn CRASHY "$MCPCTL" -s "$SOCK" connect crashy 2>/dev/null
wait_for 30 startlog_has "$T/crashy.starts" 3 ||
	fail "crashy was not restarted with a client attached ($(startlog_count "$T/crashy.starts") starts)"
grep -q 'crashy: restarting in' "$MCPD_LOG" ||
	fail "no restart with backoff for crashy with a client attached"
spawn_close CRASHY
spawn_wait CRASHY 20 || fail "mcpctl connect crashy did not exit at the end of its input"
wait_for 30 server_is crashy idle || fail "crashy is not idle once its client left"

# --- 5. Admin stop and start ---------------------------------------------------

ctl stop lazy >/dev/null || fail "mcpctl stop lazy failed"
server_is lazy stopped || fail "lazy is $(server_field lazy state) after mcpctl stop"
starts=$(startlog_count "$T/lazy.starts")
if out=$(ctl call lazy echo text=x 2>&1); then
	fail "a call to a stopped server succeeded: $out"
fi
grep -q 'is stopped' <<<"$out" || fail "the refusal does not say it is stopped: $out"
[ "$(startlog_count "$T/lazy.starts")" = "$starts" ] || fail "a request started a stopped server"
# mcpctl start returns once lazy is ready (it fails otherwise); a second
# later it may be idle again, so its start log says that it ran.
ctl start lazy >/dev/null || fail "mcpctl start lazy failed"
[ "$(startlog_count "$T/lazy.starts")" = $((starts + 1)) ] ||
	fail "mcpctl start did not run lazy ($(startlog_count "$T/lazy.starts") starts, $starts before)"
wait_for 30 server_is lazy idle || fail "no idle stop after mcpctl start"

# --- 6. Reload -----------------------------------------------------------------

# An editor's subscription holds lazy running across the reload: with
# idle_stop_s 1, a slow shell could otherwise see it stop between its
# start and the reload.
spawn BRIDGE "$MCPCTL" -s "$SOCK" connect lazy 2>"$T/bridge.err"
bridge_call 11 initialize '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"editor","version":"1"}}' 30
bridge_send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
bridge_call 12 resources/subscribe '{"uri":"fake://status"}' 30
pid=$(server_pid lazy) || fail "lazy has no pid"
config 0 always
report=$(ctl --json reload) || fail "mcpctl reload failed: $report"
[ "$(jq -r '.actions.lazy' <<<"$report")" = updated ] ||
	fail "reload of idle_stop_s: $(jq -c .actions <<<"$report")"
[ "$(jq -r '.actions.other' <<<"$report")" = started ] ||
	fail "reload of start: $(jq -c .actions <<<"$report")"
bridge_call 13 resources/unsubscribe '{"uri":"fake://status"}' 30
# A window, not a wait: had the reload not taken effect, lazy would be idle
# 1 s (idle_stop_s) after the unsubscribe; 2 s leaves it time to show.
sleep 2
server_is lazy ready || fail "lazy is $(server_field lazy state) with idle_stop_s 0"
[ "$(server_pid lazy)" = "$pid" ] || fail "the reload restarted lazy"
wait_ready other 30
config 1 always
ctl reload >/dev/null || fail "mcpctl reload failed"
wait_for 30 server_is lazy idle || fail "lazy did not go idle once idle_stop_s was 1 again"
spawn_close BRIDGE
spawn_wait BRIDGE 20 || fail "mcpctl connect lazy did not exit at the end of its input"

# --- 7. Journal and metrics ------------------------------------------------------

grep -q 'lazy: starting on demand: a client attached' "$MCPD_LOG" ||
	fail "no on-demand start in the log"
grep -q 'lazy: idle, stopping it until it is needed' "$MCPD_LOG" ||
	fail "no idle stop in the log"
ctl metrics >"$T/metrics.txt" || fail "mcpctl metrics failed"
grep -q '^mcpd_server_state{server="idle01",state="idle"} 1$' "$T/metrics.txt" ||
	fail "metrics do not show idle01 idle"
n=$(awk '$1 == "mcpd_server_idle_stops_total{server=\"lazy\"}" { print $2 }' "$T/metrics.txt")
[ "${n:-0}" -ge 6 ] || fail "metrics count $n idle stops of lazy"
note "lazy: $n idle stops, $(awk '$1 == "mcpd_server_on_demand_starts_total{server=\"lazy\"}" { print $2 }' "$T/metrics.txt") on-demand starts"

stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS"
[ "$(marked_running)" = 0 ] || fail "a server outlived mcpd"

# --- 8. mcpctl start of a server that is idle again at once ----------------------
# An on-demand server that ends right after its handshake, with nobody
# attached, may be idle again before mcpctl looks: mcpctl start then says
# so at once, instead of waiting 60 s for a state it will never see.  If
# mcpctl looks in time it sees the server ready, which is right too:
# which of the two it sees is the scheduler's choice, so either passes,
# and what is checked is that it answers well before those 60 s.
write_config "$T/quick.json" <<JSON
{
  "mcpServers": {
    "quick": { "command": "$MCP_FAKE", "start": "on-demand",
               "args": ["--exit-after-init=0", "--startlog=$T/quick.starts"] }
  }
}
JSON
start_mcpd "$T/quick.json"
t=$(now_ms)
out=$(ctl start quick 2>&1)
rc=$?
took=$(($(now_ms) - t))
case "$rc:$out" in
"1:mcpctl: quick: idle: exited with status 0" | "0:quick: ready") ;;
*) fail "mcpctl start of a server that ends at once: exit $rc after $took ms: $out" ;;
esac
# mcpctl's own wait is 60 s: an answer in 45 s was not that wait.
[ "$took" -lt 45000 ] || fail "mcpctl start of a server that ends at once took $took ms"
[ "$(startlog_count "$T/quick.starts")" = 1 ] || fail "quick started $(startlog_count "$T/quick.starts") times"
note "mcpctl start of a server that ends at once: exit $rc after $took ms: $out"
stop_mcpd TERM
exit 0
