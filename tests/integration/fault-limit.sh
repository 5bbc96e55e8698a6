#!/bin/bash
# fault-limit.sh -- max_message_bytes, to the byte.  A reply exactly as
# long as the limit is relayed intact; one byte more and the caller gets
# error -32012 naming the size and the limit, under its own id, while
# another client with a request in flight under the same id gets its own
# answer and nothing else; so does a reply several times the limit.  The
# session goes on: same server process, no restart, the next call works.
#
# mcp-fake's big tool writes {"result":{...},"jsonrpc":"2.0","id":N}, id
# last, so the size of what mcpd reads is known exactly once the width of
# mcpd's upstream id is: the client first sends enough requests to make it
# three digits.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_fault_node

LIMIT=65536
HEAD='{"result":{"content":[{"type":"text","text":"'
TAIL='"}]},"jsonrpc":"2.0","id":'
ID_DIGITS=3
# Bytes of text for a message of exactly LIMIT bytes (no newline).
UNDER=$((LIMIT - ${#HEAD} - ${#TAIL} - ID_DIGITS - 1))
OVER=$((UNDER + 1))
FAR=$((UNDER + 2 * LIMIT))
SLEEP_MS=3000

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/demo.pid"],
      "max_message_bytes": $LIMIT
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "no pid for demo"

fclient "$T/limit.json" limit --server demo --under "$UNDER" --over "$OVER" \
	--far "$FAR" --sleep-ms "$SLEEP_MS"
note "limit $LIMIT bytes: text of $UNDER bytes -> message of $((UNDER + ${#HEAD} + ${#TAIL} + ID_DIGITS + 1)) bytes; $OVER -> $((OVER + ${#HEAD} + ${#TAIL} + ID_DIGITS + 1))"
note "under: $(jq -c .under "$T/limit.json")"
note "over: $(jq -c .over "$T/limit.json")"
note "far: $(jq -c .far "$T/limit.json")"
note "B's sleep under the same id: $(jq -c .b_sleep "$T/limit.json")"
[ "$(jq .b_sleep_outlasted "$T/limit.json")" = true ] ||
	note "B's sleep of $SLEEP_MS ms ended before A's errors came (a slow machine): the ids did not collide this time"
fclient_check "$T/limit.json" "max_message_bytes"

# Exactly at the limit: intact, the id restored to the client's 7.
[ "$(jq -r .under.text_bytes "$T/limit.json")" = "$UNDER" ] ||
	fail "relayed text of $(jq -r .under.text_bytes "$T/limit.json") bytes, expected $UNDER"
[ "$(jq -r .under.all_x "$T/limit.json")" = true ] || fail "the relayed text is not all 'x'"
[ "$(jq -r .under.line_bytes "$T/limit.json")" = $((LIMIT - ID_DIGITS + 1)) ] ||
	fail "the client's line is $(jq -r .under.line_bytes "$T/limit.json") bytes, expected $((LIMIT - ID_DIGITS + 1)) (the server's $LIMIT with id 7 for a $ID_DIGITS-digit one)"

# One byte over: -32012, to A under id 7, naming the size and the limit.
for case in over far; do
	case $case in
	over) size=$((LIMIT + 1)) ;;
	far) size=$((FAR + ${#HEAD} + ${#TAIL} + ID_DIGITS + 1)) ;;
	esac
	code=$(jq -r ".$case.code" "$T/limit.json")
	msg=$(jq -r ".$case.message" "$T/limit.json")
	[ "$code" = -32012 ] || fail "$case: error code $code, expected -32012 ($(jq -c ".$case" "$T/limit.json"))"
	[ "$(jq -r ".$case.id" "$T/limit.json")" = 7 ] ||
		fail "$case: the error came under id $(jq -r ".$case.id" "$T/limit.json"), expected 7"
	case "$msg" in
	*"$size bytes"*) ;;
	*) fail "$case: the error does not name the size ($size bytes): $msg" ;;
	esac
	case "$msg" in
	*max_message_bytes*"$LIMIT"*) ;;
	*) fail "$case: the error does not name the limit (max_message_bytes $LIMIT): $msg" ;;
	esac
	case "$msg" in
	*demo*) ;;
	*) fail "$case: the error does not name the server: $msg" ;;
	esac
done
# Answered at once (a few ms), not left to a timeout (mcpd's request
# timeout is 60 s, the client's 30 s); 10 s is far over any stall of a
# loaded machine.
ms=$(jq -r '.over.ms | floor' "$T/limit.json")
[ "$ms" -lt 10000 ] || fail "the -32012 error took $ms ms (a timeout instead of an answer?)"

# The session goes on: same process, no restart, A's next call worked.
[ "$(jq -r .echo_after "$T/limit.json")" = "A-9 after" ] ||
	fail "echo after the oversized reply: $(jq -r .echo_after "$T/limit.json")"
js=$(status_json) || fail "mcpctl status failed"
read -r state p restarts oversize stat_oversize inflight <<<"$(jq -r '.servers[0] |
	"\(.state) \(.pid) \(.restarts) \(.stats.oversize_messages) \(.stats.requests.oversize) \(.inflight)"' <<<"$js")"
[ "$state" = ready ] || fail "demo is $state after the oversized replies"
[ "$p" = "$pid" ] || fail "demo's pid changed from $pid to $p"
[ "$restarts" = 0 ] || fail "demo restarted $restarts times"
[ "$(read_pidfile "$T/demo.pid")" = "$pid" ] || fail "the server wrote another pid file"
[ "$oversize" = 2 ] || fail "stats.oversize_messages is $oversize, expected 2"
[ "$stat_oversize" = 2 ] || fail "stats.requests.oversize is $stat_oversize, expected 2"
[ "$inflight" = 0 ] || fail "$inflight requests still in flight"
grep -q "demo: protocol violation (oversize): discarded a message of $((LIMIT + 1)) bytes (max_message_bytes is $LIMIT" "$MCPD_LOG" ||
	fail "the oversized message was not logged with its size and the limit"
note "same pid $pid, restarts 0, stats.oversize_messages $oversize, stats.requests.oversize $stat_oversize"
out=$(ctl call demo echo text=still-here) || fail "mcpctl call after the oversized replies failed"
[ "$out" = still-here ] || fail "mcpctl call returned '$out'"
mcpd_running || fail "mcpd died"
exit 0
