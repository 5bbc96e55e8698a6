#!/bin/bash
# fault-nofile.sh -- mcpd short of file descriptors.  Under RLIMIT_NOFILE 64,
# 100 clients connect at once and attach: mcpd serves as many as it can
# while it keeps a reserve of descriptors for server starts, answers the
# others at once with an error line and closes them (none is left
# waiting), never exits, and keeps serving the clients it has (a load
# running throughout gets every reply).  New connections (mcpctl) work
# once the served ones close.  A server killed while the connections are
# held is restarted at once: its pipes come out of the reserve.  When
# accept itself fails (the limit lowered under mcpd's feet), mcpd pauses
# accepting (about once a second, not a spin) and serves the waiting
# connection within the pause once descriptors are back.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_fault_node
need_mcpload
command -v prlimit >/dev/null 2>&1 || skip "prlimit (util-linux) is not installed"

NOFILE=64
COUNT=100
RELEASE=$COUNT		# close every connection that was served
PAUSE_MS=1000		# LISTENER_EMFILE_PAUSE_MS in daemon/listener.c
# A waiting connection is served within the pause once descriptors are
# back; SLACK_MS covers a loaded machine (a late timer, a slow mcpctl).  A
# connection never served waits for mcpctl's own timeout (30 s).
SLACK_MS=3000
LOAD_S=12

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/demo.pid"],
      "backoff_min_ms": 200,
      "backoff_max_ms": 400
    }
  }
}
JSON
MCPD_PREFIX=(prlimit "--nofile=$NOFILE:$NOFILE")
start_mcpd "$T/mcpd.json"
wait_ready demo
limit=$(awk '/^Max open files/ { print $4 }' "/proc/$MCPD_PID/limits")
[ "$limit" = "$NOFILE" ] || hard_error "mcpd runs with RLIMIT_NOFILE $limit, not $NOFILE"
server=$(server_pid demo) || fail "no pid for demo"

# Clients that are there before the descriptors run out: a steady load.
# Enough in flight (16) that 200 a second need no round trip under 80 ms:
# a loaded machine keeps the rate, an mcpd that stalls for seconds the
# clients it has does not.
"$MCPLOAD" --json --socket "$SOCK" --server demo --clients 2 --inflight 8 \
	--method echo --ids mixed --duration "$LOAD_S" --rate 200 \
	>"$T/load.json" 2>"$T/load.err" &
LOAD_PID=$!
wait_for 30 eval '[ "$(server_field demo clients)" = 2 ]' ||
	fail "the load's 2 clients did not attach (clients $(server_field demo clients))"
fds=$(find "/proc/$MCPD_PID/fd" -mindepth 1 | wc -l)
note "mcpd: RLIMIT_NOFILE $limit, $fds descriptors open with 2 clients attached"

# The connections are held for a window of 2.5 s once mcpd has served or
# refused each: mcpd's CPU time over it shows whether it spins while it is
# out of descriptors.
cpu0=$(($(proc_field "$MCPD_PID" 14) + $(proc_field "$MCPD_PID" 15)))
t0=$(now_ms)
fclient "$T/conns.json" conns --server demo --count "$COUNT" --release "$RELEASE" \
	--hold-ms 2500
wall=$(($(now_ms) - t0))
cpu=$((($(proc_field "$MCPD_PID" 14) + $(proc_field "$MCPD_PID" 15) - cpu0) * 1000 / $(getconf CLK_TCK)))
fclient_check "$T/conns.json" "$COUNT connections"
J=$T/conns.json
note "$(jq -r '"\(.connected) of \(.count) connected, \(.served_before) served (last after \(.first_to_last_served_ms) ms), \(.closed_by_mcpd) closed unserved; \(.released) served ones closed, then \(.served_after_release) of \(.waiting) waiting served, the last \(.release_to_last_served_ms) ms later"' "$J")"
pauses=$(grep -c "accept on $SOCK: Too many open files; pausing for $PAUSE_MS ms" "$MCPD_LOG")
note "mcpd: $pauses 'pausing' lines, $cpu ms of CPU in $wall ms"

mcpd_running || fail "mcpd exited when it ran out of descriptors"
[ "$(jq .connected "$J")" = "$COUNT" ] ||
	fail "only $(jq .connected "$J") of $COUNT could connect: $(jq -c .connect_errors "$J")"
served=$(jq .served_before "$J")
[ "$served" -gt 0 ] && [ "$served" -lt "$COUNT" ] ||
	fail "$served of $COUNT connections served under RLIMIT_NOFILE $NOFILE: the limit was not reached"
[ "$(jq .closed_by_mcpd "$J")" = $((COUNT - served)) ] && [ "$(jq .waiting "$J")" = 0 ] ||
	fail "of $((COUNT - served)) connections not served, mcpd refused $(jq .closed_by_mcpd "$J") and left $(jq .waiting "$J") waiting"
grep -q "refused connection from pid .*: mcpd has .* of its $NOFILE file descriptors in use and keeps the last .* for starting servers" "$MCPD_LOG" ||
	fail "the refusals were not logged"
[ "$pauses" = 0 ] || fail "accept failed for lack of descriptors ($pauses 'pausing' lines): the reserve was not kept"
[ "$cpu" -le $((wall / 2)) ] || fail "mcpd used $cpu ms of CPU in $wall ms: it spins"

# The clients that were there all along got every reply.
wait "$LOAD_PID"
rc=$?
jq -e . "$T/load.json" >/dev/null 2>&1 || { cat "$T/load.err" >&2; fail "mcpload exited $rc without a summary"; }
note "load throughout: $(jq -r '"\(.sent) sent, \(.ok) ok, \(.errors) errors, \(.missing) missing, \(.conn_lost) connections lost, p99 \(.p99_us / 1000 | floor) ms, max \(.max_us / 1000 | floor) ms"' "$T/load.json")"
[ "$rc" = 0 ] || { head -5 "$T/load.err" >&2; fail "the load's clients lost or got wrong replies (mcpload exit $rc)"; }
[ "$(jq .ok "$T/load.json")" -ge $((LOAD_S * 200 / 2)) ] ||
	fail "the load got only $(jq .ok "$T/load.json") replies in $LOAD_S s"

# New connections are served again, and the server is the same.
# At once: well under mcpctl's own timeout (30 s), which a connection left
# waiting would run into; far over a slow mcpctl on a loaded machine.
ms=$(elapsed_ms ctl status) || fail "mcpctl status failed after the connections closed"
note "mcpctl status afterwards: $ms ms"
[ "$ms" -lt 10000 ] || fail "mcpctl status took $ms ms afterwards"
out=$(ctl call demo echo text=again) || fail "mcpctl call failed afterwards"
[ "$out" = again ] || fail "mcpctl call returned '$out'"
[ "$(server_pid demo)" = "$server" ] || fail "the server was restarted"

# The connections again, and the server dies meanwhile: mcpd starts it at
# once from its reserve of descriptors.  (mcpctl, of the same uid as the
# connections, is refused meanwhile: the server's pid file tells.)  The
# client holds them from the moment mcpd has served or refused each until
# the new server is seen.
fclient "$T/conns2.json" conns --server demo --count "$COUNT" --release "$RELEASE" \
	--ready "$T/conns2.ready" --until "$T/conns2.release" &
CONNS_PID=$!
release2() { touch "$T/conns2.release"; }
CLEANUP_HOOKS+=(release2)
wait_for 60 test -s "$T/conns2.ready" ||
	{ release2; fail "mcpd did not serve or refuse the second round of $COUNT connections"; }
[ "$(read_pidfile "$T/demo.pid")" = "$server" ] && pid_running "$server" ||
	{ release2; fail "demo is no longer pid $server before the kill"; }
kill -KILL "$server"
t0=$(now_ms)
wait_for 30 eval 'p=$(read_pidfile "$T/demo.pid") && [ "$p" != "$server" ] && pid_running "$p"' ||
	{ release2; fail "demo was not started again while the connections were held"; }
note "server killed while $(cat "$T/conns2.ready") connections were held: started again after $(($(now_ms) - t0)) ms"
release2
wait "$CONNS_PID" || fail "the second round of connections failed"
fclient_check "$T/conns2.json" "second round"
[ "$(jq .served_before "$T/conns2.json")" -gt 0 ] || fail "no connection was served in the second round"
wait_ready demo 30
grep -q "demo: pipe: Too many open files" "$MCPD_LOG" &&
	fail "a start of demo ran out of descriptors"
out=$(ctl call demo echo text=back) || fail "mcpctl call failed after the server came back"
[ "$out" = back ] || fail "mcpctl call returned '$out'"

# Descriptors taken from under mcpd (its limit lowered to 3, stdin, stdout
# and stderr): accept fails, mcpd pauses instead of spinning, and serves
# the waiting connection once the limit is back.
fds=3
pauses0=$(grep -c "pausing for $PAUSE_MS ms" "$MCPD_LOG")
prlimit --pid "$MCPD_PID" "--nofile=$fds:$NOFILE" || hard_error "prlimit --pid $MCPD_PID failed"
cpu0=$(($(proc_field "$MCPD_PID" 14) + $(proc_field "$MCPD_PID" 15)))
t0=$(now_ms)
ctl status >/dev/null 2>&1 &
STATUS_PID=$!
wait_for 30 eval '[ "$(grep -c "pausing for $PAUSE_MS ms" "$MCPD_LOG")" -gt "$pauses0" ]' ||
	fail "accept did not fail with RLIMIT_NOFILE $fds"
# A window, not a wait: accept keeps failing for 3 s (three pauses), in
# which the retries and mcpd's CPU time are counted.
sleep 3
prlimit --pid "$MCPD_PID" "--nofile=$NOFILE:$NOFILE" || hard_error "prlimit --pid $MCPD_PID failed"
tr=$(now_ms)
wait "$STATUS_PID" || fail "mcpctl status waiting while mcpd was out of descriptors failed"
ms=$(($(now_ms) - tr))
wall=$(($(now_ms) - t0))
cpu=$((($(proc_field "$MCPD_PID" 14) + $(proc_field "$MCPD_PID" 15) - cpu0) * 1000 / $(getconf CLK_TCK)))
pauses=$(($(grep -c "accept on $SOCK: Too many open files; pausing for $PAUSE_MS ms" "$MCPD_LOG") - pauses0))
note "accept failing: $pauses 'pausing' lines, $cpu ms of CPU in $wall ms; the waiting mcpctl status was served $ms ms after the limit was back"
[ "$pauses" -ge 1 ] || fail "mcpd did not log that it pauses accepting"
[ "$pauses" -le $((wall / PAUSE_MS + 2)) ] ||
	fail "$pauses 'pausing' lines in $wall ms: accept is retried faster than every $PAUSE_MS ms"
[ "$cpu" -le $((wall / 2)) ] || fail "mcpd used $cpu ms of CPU in $wall ms: it spins"
[ "$ms" -le $((PAUSE_MS + SLACK_MS)) ] ||
	fail "the waiting connection was served $ms ms after the limit was back, expected <= $((PAUSE_MS + SLACK_MS)) ms"
mcpd_running || fail "mcpd died"
exit 0
