#!/bin/bash
# valgrind.sh -- mcpd under valgrind for a normal start, serve and stop
# cycle: no invalid access, no uninitialised read, nothing leaked.
#
# Serving covers the control plane (status, logs, metrics, reload, a bad
# reload) and a session (attach, initialize, tools, a call, a ping), with
# a server restarted on the way.  Skipped where valgrind is missing or the
# binary carries a sanitizer (the two cannot be combined).

. "$TESTS_SRCDIR/integration/lib.sh"

command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed"
if sanitized "$MCPD"; then
	skip "mcpd is built with sanitizers"
fi

CFG=$T/mcpd.json
write_config "$CFG" <<JSON
{
  "mcpd": { "backoff_min_ms": 100, "stop_timeout_ms": 2000 },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": ["--stderr-noise=5"] },
    "other": { "command": "$MCP_FAKE" }
  }
}
JSON

VGLOG=$T/valgrind.log
MCPD_PREFIX=(valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect
	--errors-for-leak-kinds=definite,indirect --error-exitcode=66
	--log-file="$VGLOG")
# start_mcpd gives mcpd 15 s to answer; under valgrind, on a machine busy
# with other tests, its start-up alone can take a good part of that.  The
# same start, with a longer wait.
"${_MCPD_GUARD[@]}" "${MCPD_PREFIX[@]}" "$MCPD" -c "$CFG" -s "$SOCK" \
	--log-target "$MCPD_LOG_TARGET" </dev/null >>"$MCPD_LOG" 2>&1 &
MCPD_PID=$!
MCPD_PIDS+=("$MCPD_PID")
wait_for 120 eval 'ctl status >/dev/null 2>&1 || ! mcpd_running' ||
	fail "mcpd under valgrind did not answer 'mcpctl status' within 120 s"
if ! mcpd_running; then
	wait "$MCPD_PID"
	fail "mcpd under valgrind exited with status $? during start-up: $(cat "$VGLOG")"
fi
wait_ready demo 60
wait_ready other 60

ctl status >/dev/null || fail "status failed"
ctl logs -n 3 demo >/dev/null || fail "logs failed"
ctl metrics >/dev/null || fail "metrics failed"
ctl tools demo >/dev/null || fail "tools failed"
out=$(ctl call demo add a=20 b=22) || fail "call failed"
[ "$out" = 42 ] || fail "call demo add returned '$out', expected 42"
ctl ping demo >/dev/null || fail "ping failed"
pid=$(server_pid other) || fail "no pid for other"
kill -KILL "$pid"
wait_for 60 eval '[ "$(server_pid other 2>/dev/null)" != "" ] && [ "$(server_pid other)" != "$pid" ] && server_is other ready' ||
	fail "other was not restarted"

# A reload that changes one server and removes none, then a bad one.
write_config "$CFG" <<JSON
{
  "mcpd": { "backoff_min_ms": 100, "stop_timeout_ms": 2000 },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": ["--stderr-noise=5"] },
    "other": { "command": "$MCP_FAKE", "args": ["--stderr-noise=1"] }
  }
}
JSON
ctl reload >/dev/null || fail "reload failed"
wait_ready other 60
write_config_raw "$CFG" '{"mcpServers": {"x": {"command": 1}}}'
ctl reload >/dev/null 2>&1 && fail "a bad reload succeeded"

stop_mcpd TERM 120
[ "$MCPD_STATUS" -eq 0 ] || {
	cat "$VGLOG" >&2
	fail "mcpd under valgrind exited with status $MCPD_STATUS (66: valgrind found errors)"
}
# Valgrind's own notes ("--PID-- ..."), such as a syscall it does not
# know (pidfd_open and pidfd_send_signal in Debian 12's 3.19), are not
# errors of mcpd's: those come as "==PID== ...".
if grep -qv '^--[0-9]*-- ' "$VGLOG"; then
	cat "$VGLOG" >&2
	fail "valgrind reported problems"
fi
grep -q '^--[0-9]*-- ' "$VGLOG" &&
	note "valgrind's own notes: $(grep -o 'unhandled [^:]*syscall: [0-9]*' "$VGLOG" | sort -u | tr '\n' ' ')"
note "valgrind: no errors, nothing definitely or indirectly lost"
exit 0
