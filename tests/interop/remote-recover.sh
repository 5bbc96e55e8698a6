#!/bin/bash
# remote-recover.sh -- a remote server (server-everything over Streamable
# HTTP, an entry with a "url" run by mcpd) dies and comes back, with an
# SDK client connected through `mcpctl connect` all along
# (tests/remote/recover-client.mjs).
#
# 1. Killed mid-call: the HTTP server is SIGKILLed while a long-running
#    tool call is reporting progress.  The call fails with a JSON-RPC
#    error within 20 s (no hang) and the client stays connected; the
#    server restarts on the same port; `mcpctl status` shows ev ready
#    within READY_AGAIN_S and a call succeeds within 45 s, then echo,
#    progress and ping work as before on the same connection.
# 2. Session expired: the HTTP server is replaced by a new process while
#    the client is idle, behind a forwarder so that its address never
#    refuses a connection (tests/remote/tcp-switch.mjs): the session the
#    worker holds is gone, the server is not.  The client's next call
#    succeeds at once, as do tools/list and a call with progress, the SDK
#    reports no error at all, and mcpd did not restart the worker (it
#    re-initialized the session and retried the refused request itself).
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, as remote-http.sh.

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: remote-recover: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
READY_TIMEOUT_S=${READY_TIMEOUT_S:-60}
READY_AGAIN_S=${READY_AGAIN_S:-45}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
http_start streamableHttp
PORT=$HTTP_PORT
note "server-everything streamableHttp on port $PORT"

# Restarts come quickly and stay quick, so that the bounds below measure
# recovery rather than the default backoff.
config=$(jq -n --arg url "$(remote_url streamableHttp "$PORT")" '{
	mcpServers: { ev: { url: $url, type: "http",
		backoff_min_ms: 200, backoff_max_ms: 1000 } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
# Its own token directory (url entries read their sign-in there).
start_mcpd "$T/mcpd.json" --token-dir "$T/tokens"
remote_wait_ready ev "$READY_TIMEOUT_S"

# scenario NAME ARGS...: recover-client.mjs NAME in the background, its
# JSON to $T/NAME.json; RC_PID is its pid.
scenario() {
	local name=$1
	shift
	: >"$T/$name.json"
	MCPD_TEST_DIR=$T MCPCTL=$MCPCTL "${_MCPD_GUARD[@]}" timeout -k 5 290 \
		"$NODE" "$T/recover-client.mjs" "$name" "$@" --dir "$T/$name.d" \
		--server ev --sock "$SOCK" </dev/null >"$T/$name.json" 2>"$T/$name.err" &
	RC_PID=$!
}

# finish_scenario NAME: wait for the client; fail on its problems.
finish_scenario() {
	local rc
	wait "$RC_PID"
	rc=$?
	if [ "$rc" != 0 ] || ! jq -e .problems "$T/$1.json" >/dev/null 2>&1; then
		cat "$T/$1.err" >&2
		fail "recover-client $1 exited $rc: $(head -c 2000 "$T/$1.json")"
	fi
	note "$1: $(jq -c 'del(.problems)' "$T/$1.json")"
	if [ "$(jq '.problems | length' "$T/$1.json")" != 0 ]; then
		cat "$T/$1.err" >&2
		echo "--- HTTP server logs (last 10 lines each) ---" >&2
		tail -n 10 "$T"/http-*.log >&2
		fail "$1: $(jq -r '.problems | join("; ")' "$T/$1.json")"
	fi
}

# wait_file FILE TIMEOUT_S: FILE exists, or the client died or timed out.
wait_file() {
	wait_for "$2" _file_or_dead "$1" "$RC_PID"
	[ -e "$1" ]
}
# shellcheck disable=SC2317  # called through wait_for
_file_or_dead() {
	[ -e "$1" ] || ! pid_running "$2"
}

# --- 1. killed mid-call ---------------------------------------------------------
mkdir "$T/kill.d" "$T/expire.d" || hard_error "cannot create the scenario directories"
scenario kill --kill-pid "$HTTP_PID"
if ! wait_file "$T/kill.d/killed" 90; then
	finish_scenario kill
	fail "recover-client kill never got to kill the server"
fi
# The client killed it; reap it and start another on the same port.
http_kill KILL
t=$(now_ms)
http_start streamableHttp "$PORT"
touch "$T/kill.d/restarted"
note "HTTP server restarted on port $PORT in $(($(now_ms) - t)) ms"
remote_wait_ready ev "$READY_AGAIN_S"
note "ev ready $(($(now_ms) - t)) ms after the restart began"
finish_scenario kill
server_is ev ready || fail "ev is $(server_field ev state) after recovering"

# --- 2. session expired under the worker -------------------------------------------
# The server is replaced by a new process behind tcp-switch.mjs, so that
# its address never refuses a connection: the worker sees its session
# lost (400 "No valid session ID provided"), not the server unreachable.
stop_mcpd TERM 20
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM"
echo "$HTTP_PORT" >"$T/switch.target"
MCPD_TEST_DIR=$T "$NODE" "$T/tcp-switch.mjs" "$T/switch.target" \
	</dev/null >"$T/switch.out" 2>"$T/switch.err" &
echo $! >"$T/switch.pid"
wait_for 60 grep -q '^listening ' "$T/switch.out" ||
	fail "tcp-switch.mjs did not start: $(cat "$T/switch.err")"
SWITCH_PORT=$(awk '$1 == "listening" { print $2 }' "$T/switch.out")
config=$(jq -n --arg url "$(remote_url streamableHttp "$SWITCH_PORT")" '{
	mcpServers: { ev: { url: $url, type: "http",
		backoff_min_ms: 200, backoff_max_ms: 1000 } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
: >"$MCPD_LOG"
start_mcpd "$T/mcpd.json" --token-dir "$T/tokens"
remote_wait_ready ev "$READY_TIMEOUT_S"
PID1=$(server_pid ev) || fail "ev is ready but has no pid"
RESTARTS1=$(server_field ev restarts)
scenario expire
if ! wait_file "$T/expire.d/ready" 90; then
	finish_scenario expire
	fail "recover-client expire never got ready"
fi
OLD_PID=$HTTP_PID
http_start streamableHttp
echo "$HTTP_PORT" >"$T/switch.target"
kill -KILL "$OLD_PID" 2>/dev/null
wait_for 30 eval '! pid_running '"$OLD_PID" || fail "the old HTTP server did not die within 30 s"
note "HTTP server replaced: port $PORT -> $HTTP_PORT behind port $SWITCH_PORT"
touch "$T/expire.d/restarted"
finish_scenario expire
if [ "$(server_pid ev)" != "$PID1" ] ||
	[ "$(server_field ev restarts)" != "$RESTARTS1" ]; then
	fail "mcpd restarted ev's worker (pid $PID1 -> $(server_pid ev), restarts $RESTARTS1 -> $(server_field ev restarts)): the worker did not recover the session itself"
fi
grep -q 'Session initialized' "$HTTP_LOG" ||
	fail "the new HTTP server saw no session"
grep -q 'session was lost' "$MCPD_LOG" ||
	fail "mcpd's log does not say the remote session was lost"

mcpd_running || fail "mcpd died"
stop_mcpd TERM 20
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM"
exit 0
