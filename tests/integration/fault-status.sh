#!/bin/bash
# fault-status.sh -- mcpd stays responsive and truthful while servers
# misbehave at their stdout:
# - while three servers crash-loop from the start (backoff 10..20 ms, so
#   mcpd forks some 150 times a second), `mcpctl status` calls (50 at
#   least, and as many as it takes for the loop to turn ten times)
#   answer within 200 ms in the median and 1 s at worst (the time of the
#   whole mcpctl run; not asserted for a sanitized mcpctl, whose start
#   alone is that slow), and so do mcpd/status round trips on one open
#   connection;
# - a server that writes half a JSON line and exits: the caller gets one
#   clean error (-32000 saying it exited with status 3), never the half
#   line; mcpd does not crash, restarts it, status shows why, the half
#   line is counted as dropped, and the next process serves clients;
# - a server that ends its lines with CRLF (and writes empty CRLF lines):
#   it gets ready, replies and progress are relayed with the right ids and
#   tokens and without the '\r'; nothing is counted as dropped.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_fault_node

CALLS=50
# Typical answers within MEDIAN_BAR_MS, none slower than MAX_BAR_MS: a
# shared 2-core machine may stall any one process for a while, which says
# nothing about mcpd.
MEDIAN_BAR_MS=200
MAX_BAR_MS=1000

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 10, "backoff_max_ms": 20 },
  "mcpServers": {
    "loop1": { "command": "$MCP_FAKE", "args": ["--crash-at-start=4", "--startlog=$T/loop1.starts"] },
    "loop2": { "command": "$MCP_FAKE", "args": ["--crash-at-start=5"] },
    "loop3": { "command": "$MCP_FAKE", "args": ["--crash-at-start=6"] },
    "half": $(stand_in_json --half-line-exit),
    "crlf": $(stand_in_json --crlf)
  }
}
JSON
start_mcpd "$T/mcpd.json"

# --- status during crash loops ---------------------------------------------
# The calls go on until loop1 has turned at least MIN_TURNS times while they
# ran (and at least CALLS calls were made): on a quiet machine 50 calls can
# finish before the crash loop has turned ten times, so a fixed number of
# calls would measure nothing.  Bounded by MAX_CALLS.
MIN_TURNS=10
MAX_CALLS=3000
starts0=$(startlog_count "$T/loop1.starts")
times=()
i=0
while :; do
	turns=$(($(startlog_count "$T/loop1.starts") - starts0))
	[ "$i" -ge "$CALLS" ] && [ "$turns" -ge "$MIN_TURNS" ] && break
	[ "$i" -lt "$MAX_CALLS" ] ||
		fail "loop1 started only $turns times during $i status calls: mcpd is not restarting it"
	i=$((i + 1))
	# mcpctl itself, not under timeout(1): one process start less to time.
	ms=$(elapsed_ms "$MCPCTL" -s "$SOCK" --json status) ||
		fail "mcpctl status $i failed"
	times+=("$ms")
	mcpd_running || fail "mcpd died during the crash loops"
done
starts1=$(startlog_count "$T/loop1.starts")
read -r max median <<<"$(printf '%s\n' "${times[@]}" | sort -n |
	awk '{ v[NR] = $1 } END { print v[NR], v[int((NR + 1) / 2)] }')"
restarts=$(server_field loop1 restarts)
note "$i x mcpctl status while 3 servers crash-loop: median $median ms, max $max ms (bars: median $MEDIAN_BAR_MS, max $MAX_BAR_MS ms); loop1 started $((starts1 - starts0)) times meanwhile, restarts $restarts"
if sanitized "$MCPCTL"; then
	# Starting a sanitized process is itself slow: not mcpd's time.
	note "mcpctl is built with AddressSanitizer: its times are not asserted"
else
	[ "$median" -le "$MEDIAN_BAR_MS" ] ||
		fail "mcpctl status took $median ms in the median, expected <= $MEDIAN_BAR_MS ms (all: ${times[*]})"
	[ "$max" -le "$MAX_BAR_MS" ] ||
		fail "the slowest mcpctl status took $max ms, expected <= $MAX_BAR_MS ms (all: ${times[*]})"
fi
# mcpd's own share: the same question on one open connection, in rounds of
# CALLS round trips until the crash loop has turned MIN_TURNS times.
round=0
while :; do
	round=$((round + 1))
	fclient "$T/statuses.json" statuses --count "$CALLS" --gap-ms 20
	fclient_check "$T/statuses.json" "status over one connection"
	note "round $round: $CALLS x mcpd/status on one connection: median $(jq .median_ms "$T/statuses.json") ms, max $(jq .max_ms "$T/statuses.json") ms"
	awk -v m="$(jq .median_ms "$T/statuses.json")" -v b="$MEDIAN_BAR_MS" 'BEGIN { exit !(m <= b) }' ||
		fail "mcpd/status round trips took $(jq .median_ms "$T/statuses.json") ms in the median, expected <= $MEDIAN_BAR_MS ms (all: $(jq -c .times "$T/statuses.json"))"
	awk -v m="$(jq .max_ms "$T/statuses.json")" -v b="$MAX_BAR_MS" 'BEGIN { exit !(m <= b) }' ||
		fail "the slowest mcpd/status round trip took $(jq .max_ms "$T/statuses.json") ms, expected <= $MAX_BAR_MS ms (all: $(jq -c .times "$T/statuses.json"))"
	turns=$(($(startlog_count "$T/loop1.starts") - starts1))
	[ "$turns" -ge "$MIN_TURNS" ] && break
	[ "$round" -lt 20 ] ||
		fail "loop1 started only $turns times during $round rounds of status round trips"
done
note "loop1 started $turns times during the round trips"
last=$(server_field loop2 last_exit)
[ "$last" = "exited with status 5" ] || fail "loop2 last_exit '$last', expected 'exited with status 5'"

# --- half a line, then exit ----------------------------------------------------
wait_ready half 30
pid=$(server_pid half) || fail "no pid for half"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"cut me in half"}}}' >"$T/half.in"
fclient "$T/half.json" rpc --server half --send "$T/half.in"
fclient_check "$T/half.json" "half a line"
reply=$(jq -r '.replies["1"]' "$T/half.json")
note "half: the caller got: $reply"
[ "$(jq -r '.error.code' <<<"$reply")" = -32000 ] || fail "the call got $reply, expected error -32000"
case "$(jq -r '.error.message' <<<"$reply")" in
*half*"exited with status 3"*) ;;
*) fail "the error does not name the server and its exit: $reply" ;;
esac
n=$(jq '[.received[] | select(test("cut me"))] | length' "$T/half.json")
[ "$n" = 0 ] || fail "the half line reached the client: $(jq -c .received "$T/half.json")"
bad=$(jq '[.received[] | (try fromjson catch "bad") | select(. == "bad")] | length' "$T/half.json")
[ "$bad" = 0 ] || fail "$bad lines the client got are not JSON: $(jq -c .received "$T/half.json")"
wait_for 30 eval '[ "$(server_field half restarts)" -ge 1 ] 2>/dev/null' ||
	fail "half was not restarted (restarts $(server_field half restarts))"
last=$(server_field half last_exit)
[ "$last" = "exited with status 3" ] || fail "half last_exit '$last', expected 'exited with status 3'"
dropped=$(server_field half stats | jq .dropped_lines)
[ "$dropped" -ge 1 ] || fail "the half line was not counted as dropped (dropped_lines $dropped)"
grep -q 'half: protocol violation (not-json): dropped a stdout line of .* bytes' "$MCPD_LOG" ||
	fail "the dropped half line is not in mcpd's log"
wait_ready half 30
[ "$(server_pid half)" != "$pid" ] || fail "half has the same pid after its exit"
note "half: last_exit '$last', restarts $(server_field half restarts), dropped_lines $dropped"
# The next process works for the same kind of client (ping is answered by
# the stand-in, not by a half line).
printf '%s\n' '{"jsonrpc":"2.0","id":"p","method":"ping"}' >"$T/ping.in"
fclient "$T/ping.json" rpc --server half --send "$T/ping.in"
fclient_check "$T/ping.json" "ping after the restart"
[ "$(jq -c '.replies["\"p\""] | fromjson | .result' "$T/ping.json")" = '{}' ] ||
	fail "ping after the restart got $(jq -c .replies "$T/ping.json")"

# --- CRLF -------------------------------------------------------------------------
wait_ready crlf 30
cat >"$T/crlf.in" <<'EOF'
{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"line one"},"_meta":{"progressToken":"tok-1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"line two"}}}
{"jsonrpc":"2.0","id":3.5,"method":"tools/list"}
EOF
fclient "$T/crlf.json" rpc --server crlf --send "$T/crlf.in"
fclient_check "$T/crlf.json" "CRLF"
note "crlf: received $(jq -c .received "$T/crlf.json")"
cr=$(jq '[.received[] | select(test("\r"))] | length' "$T/crlf.json")
[ "$cr" = 0 ] || fail "$cr lines reached the client with a '\\r'"
[ "$(jq -r '.replies["\"c-1\""] | fromjson | .result.content[0].text' "$T/crlf.json")" = "line one" ] ||
	fail "reply to \"c-1\": $(jq -r '.replies["\"c-1\""]' "$T/crlf.json")"
[ "$(jq -r '.replies["2"] | fromjson | .result.content[0].text' "$T/crlf.json")" = "line two" ] ||
	fail "reply to 2: $(jq -r '.replies["2"]' "$T/crlf.json")"
[ "$(jq -r '.replies["3.5"] | fromjson | .result.tools[0].name' "$T/crlf.json")" = echo ] ||
	fail "reply to 3.5: $(jq -r '.replies["3.5"]' "$T/crlf.json")"
# The reply's id is the client's exact text.
jq -r '.replies["3.5"]' "$T/crlf.json" | grep -q '"id":3\.5[,}]' ||
	fail "the id 3.5 did not come back as 3.5: $(jq -r '.replies["3.5"]' "$T/crlf.json")"
tok=$(jq -r '[.received[] | fromjson | select(.method == "notifications/progress") | .params.progressToken] | join(",")' "$T/crlf.json")
[ "$tok" = tok-1 ] || fail "progress tokens relayed: '$tok', expected tok-1"
dropped=$(server_field crlf stats | jq .dropped_lines)
[ "$dropped" = 0 ] || fail "$dropped lines of the CRLF server were dropped"
[ "$(server_field crlf restarts)" = 0 ] || fail "the CRLF server was restarted"

ctl status >/dev/null || fail "mcpctl status failed at the end"
mcpd_running || fail "mcpd died"
exit 0
