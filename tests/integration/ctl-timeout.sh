#!/bin/bash
# ctl-timeout.sh -- mcpctl does not hang on a stuck mcpd.  With mcpd
# stopped (SIGSTOP), so that it still accepts connections into its queue
# but never answers: status, logs, metrics and reload exit 3 within their
# 10 s reply timeout, and call within the 5 s attach timeout, each naming
# the socket; `mcpctl logs -f`, already following, is not cut by either
# and prints the server's next line once mcpd runs again.

. "$TESTS_SRCDIR/integration/lib.sh"

REPLY_TIMEOUT_S=10
ATTACH_TIMEOUT_S=5
# What a loaded machine may add to a timeout (starting mcpctl, which is
# slower in the sanitizer build, and waiting for a CPU), before it counts as
# wrong.  Wrong is never giving up (the `timeout 60` below), or, for call,
# giving up after the 10 s reply timeout instead of the 5 s attach timeout:
# its slack stays well under that difference.
SLACK_S=8
CALL_SLACK_S=3

write_config "$T/mcpd.json" "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
start_mcpd "$T/mcpd.json"
wait_ready demo
# mcp-fake's "started" line, so that logs -f has printed when it follows.
wait_for 30 eval '[ "$(server_field demo stats | jq .stderr_lines)" -ge 1 ]' ||
	fail "demo wrote nothing to stderr"

# Marked like the fake servers, so that the cleanup ends it whatever
# happens; its start time tells it from a process that got its pid later.
MCPD_TEST_DIR=$T "$MCPCTL" -s "$SOCK" logs -f demo >"$T/follow.out" 2>"$T/follow.err" </dev/null &
FOLLOW=$!
FOLLOW_START=$(proc_starttime "$FOLLOW")
follow_running() {
	[ -n "$FOLLOW_START" ] && [ "$(proc_starttime "$FOLLOW")" = "$FOLLOW_START" ] &&
		pid_running "$FOLLOW"
}
stop_follow() {
	follow_running && kill -TERM "$FOLLOW" 2>/dev/null
	wait "$FOLLOW" 2>/dev/null
}
resume_mcpd() { [ -n "$MCPD_PID" ] && kill -CONT "$MCPD_PID" 2>/dev/null; }
# Before lib.sh's cleanup sends SIGTERM to mcpd, whatever the outcome.
resume_then_cleanup() {
	local rc=$?
	resume_mcpd
	return "$rc"
}
CLEANUP_HOOKS+=(stop_follow)
wait_for 30 test -s "$T/follow.out" ||
	fail "mcpctl logs -f printed nothing: $(cat "$T/follow.err")"

kill -STOP "$MCPD_PID"
stopped_at=$(now_ms)
trap 'resume_then_cleanup; _cleanup' EXIT

# timed NAME ARGS...: mcpctl ARGS in the background; NAME.rc gets the
# exit status and the milliseconds it took.
timed() {
	local name=$1
	shift
	(
		start=$(now_ms)
		MCPD_TEST_DIR=$T timeout -k 5 60 "$MCPCTL" -s "$SOCK" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
		echo "$? $(($(now_ms) - start))" >"$T/$name.rc"
	) &
}
timed status status
timed logs logs demo
timed metrics metrics
timed reload reload
timed call call demo echo text=hi
# Bounded by the `timeout 60` above; the limits are checked below.
wait_for 70 eval \
	'[ -s "$T/status.rc" ] && [ -s "$T/logs.rc" ] && [ -s "$T/metrics.rc" ] && [ -s "$T/reload.rc" ] && [ -s "$T/call.rc" ]' ||
	fail "mcpctl did not give up on the stopped mcpd within 70 s"

for name in status logs metrics reload call; do
	read -r rc ms <"$T/$name.rc"
	limit=$REPLY_TIMEOUT_S slack=$SLACK_S
	[ "$name" = call ] && limit=$ATTACH_TIMEOUT_S slack=$CALL_SLACK_S
	[ "$rc" = 3 ] || fail "mcpctl $name on a stopped mcpd exited $rc, not 3: $(cat "$T/$name.err")"
	[ "$ms" -ge $((limit * 1000 - 500)) ] && [ "$ms" -le $(((limit + slack) * 1000)) ] ||
		fail "mcpctl $name gave up after $ms ms, expected about $limit s (at most $((limit + slack)) s)"
	grep -qF "$SOCK" "$T/$name.err" ||
		fail "mcpctl $name does not name the socket: $(cat "$T/$name.err")"
	note "$name: exit $rc after $ms ms: $(head -n 1 "$T/$name.err")"
done

# logs -f has now waited longer than any timeout.
[ $(($(now_ms) - stopped_at)) -gt $((REPLY_TIMEOUT_S * 1000)) ] ||
	hard_error "logs -f was checked too early"
follow_running || {
	wait "$FOLLOW"
	fail "mcpctl logs -f ended (status $?) while mcpd was stopped: $(cat "$T/follow.err")"
}
resume_mcpd
lines=$(wc -l <"$T/follow.out")
ctl restart demo >/dev/null || fail "mcpctl restart demo failed after SIGCONT"
wait_for 30 eval '[ "$(wc -l <"$T/follow.out")" -gt '"$lines"' ]' ||
	fail "mcpctl logs -f printed nothing of the restarted server: $(cat "$T/follow.err")"
note "logs -f followed for $(( ($(now_ms) - stopped_at) / 1000 )) s across the stop and printed the next line"
stop_follow
exit 0
