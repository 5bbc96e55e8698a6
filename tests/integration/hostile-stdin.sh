#!/bin/bash
# hostile-stdin.sh -- a server that closes its stdin has ended its
# transport, like one that closes its stdout:
# - one that closes stdin right after initialize and stays alive, silent,
#   is restarted within a second or two (it used to stay "ready" forever);
# - one that closes stdin while a call is in flight and never answers:
#   the caller gets its error within a second or two, not after
#   request_timeout_ms (20 s here), and the server is restarted.

. "$TESTS_SRCDIR/integration/lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 200, "request_timeout_ms": 20000, "stop_timeout_ms": 1000 },
  "mcpServers": {
    "shut": { "command": "$MCP_FAKE", "args": ["--close-stdin-after-init", "--ignore-stdin-eof"] },
    "hang": { "command": "$MCP_FAKE", "args": ["--hang-closing-stdin"] }
  }
}
JSON
start_mcpd "$T/mcpd.json"

# --- closed after initialize, idle --------------------------------------------
wait_for 30 eval '[ "$(server_field shut restarts)" -ge 1 ] 2>/dev/null' ||
	fail "shut closed its stdin and is still '$(server_field shut state)' after 30 s with $(server_field shut restarts) restarts: mcpd did not notice"
last=$(server_field shut last_exit)
note "shut: restarts $(server_field shut restarts), last_exit '$last'"
case "$last" in
*"stdin closed"*) ;;
*) fail "shut: last_exit '$last' does not say stdin was closed" ;;
esac

# --- closed while a call is in flight --------------------------------------------
wait_ready hang 30
pid=$(server_pid hang) || fail "no pid for hang"
t0=$(now_ms)
out=$(ctl call hang sleep ms=5000 2>&1)
rc=$?
ms=$(($(now_ms) - t0))
note "hang: the call in flight ended after $ms ms (exit $rc): $out"
[ "$rc" = 1 ] || fail "the call exited $rc, expected 1 (an error): $out"
case "$out" in
*"stdin closed"*) ;;
*) fail "the error does not say the server closed its stdin: $out" ;;
esac
# Half a second here when all is well; a loaded, sanitized run takes a few
# times that.  10 s is far over either, and far under the 20 s that waiting
# for request_timeout_ms takes.
[ "$ms" -lt 10000 ] || fail "the error took $ms ms, expected it within 10 s (request_timeout_ms is 20000)"
wait_for 30 eval '[ "$(server_pid hang 2>/dev/null)" != "" ] && [ "$(server_pid hang)" != "$pid" ]' ||
	fail "hang was not restarted (pid $(server_pid hang))"
wait_ready hang 30
note "hang: restarted as pid $(server_pid hang), last_exit '$(server_field hang last_exit)'"
mcpd_running || fail "mcpd died"
exit 0
