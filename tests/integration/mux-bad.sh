#!/bin/bash
# mux-bad.sh -- bad input from an attached client gets the JSON-RPC error
# it deserves and the connection stays usable (invalid JSON -32700 with id
# null; [1,2] and {"jsonrpc":"2.0"} -32600; an unknown mcpd/ method -32601;
# an id already in flight -32600 while the first request still gets its
# reply), a line over 16 MiB gets an error and the connection is closed;
# another client of the same server notices none of it.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": [] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"

mux "$T/bad.json" bad --server demo
jq -r '.cases[] | "# \(.name): code \(.code), id \(.id): \(.message)\(if .closed != null then "; closed \(.closed) after \(.close_ms) ms" else "" end)\(if .first_reply != null then "; the first request got: \(.first_reply)" else "" end)"' "$T/bad.json"
note "$(jv "$T/bad.json" '"the other client meanwhile: \(.good_calls) echo calls, \(.good_failed) failed, latency p50 \(.good_latency_ms.p50) ms, max \(.good_latency_ms.max) ms"')"
mux_check "$T/bad.json" "bad input"
[ "$(jv "$T/bad.json" .good_failed)" = 0 ] || fail "the other client's calls failed"
[ "$(jv "$T/bad.json" .good_calls)" -ge 10 ] || fail "the other client made only $(jv "$T/bad.json" .good_calls) calls"
# Its echo takes a few ms; under load, or while this same node process
# builds and writes the 17 MiB line, a few hundred.  An mcpd busy with the
# bad client for seconds, or blocked by it, shows here.
[ "$(jv "$T/bad.json" '.good_latency_ms.max | floor')" -lt 3000 ] ||
	fail "the other client waited up to $(jv "$T/bad.json" .good_latency_ms.max) ms for an echo, expected < 3000 ms"

[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted"
server_is demo ready || fail "demo is $(server_field demo state)"
[ "$(server_field demo inflight)" = 0 ] || fail "inflight $(server_field demo inflight) at the end"
mcpd_running || fail "mcpd died"
exit 0
