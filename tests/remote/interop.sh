# interop.sh -- the SDK interop checks through a remote server, once per
# transport (sourced by tests/interop/remote-http.sh and remote-sse.sh,
# which set REMOTE_KIND to streamableHttp or sse).
#
# server-everything runs as an HTTP server on a free port of 127.0.0.1.
# 1. mcpd runs it as an entry with a "url" (so through mcpd-remote) whose
#    port and a query key come from ${VAR}s of mcpd's environment: the
#    server gets ready; `mcpctl status` (table and --json) shows the URL as
#    the file writes it, and neither status, mcpd's log nor the worker's
#    command line ever holds the expanded URL or the key.
# 2. sdk-client.mjs (the official SDK client, as for the stdio servers of
#    interop.sh) runs its checks through `mcpctl connect`: initialize,
#    tools, echo, sum, progress, sampling answered by the client, resource
#    subscription and updates, cancellation, ping, and two clients at once
#    sharing the one remote session.  Afterwards the worker was never
#    restarted, mcpd counted no protocol violation, the SDK's cancellation
#    and nothing timed out or failed; the bridges have exited and mcpd
#    stops the worker on SIGTERM (Streamable HTTP: the session is DELETEd).
# 3. The SDK client launches `mcpd-remote URL` itself as a stdio server
#    (the URL's port from its own environment; for the legacy server
#    without -t, so through the automatic fallback) and runs the same checks;
#    every mcpd-remote exits once its client has gone (Streamable HTTP:
#    after DELETEing its session).

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: remote interop: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-60}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

case "${REMOTE_KIND:-}" in
streamableHttp) TRANSPORT=http ;;
sse) TRANSPORT=sse ;;
*) hard_error "REMOTE_KIND must be streamableHttp or sse" ;;
esac

remote_setup
http_start "$REMOTE_KIND"
note "server-everything $REMOTE_KIND on port $HTTP_PORT"

# --- 1. mcpd with a url entry ----------------------------------------------------
KEY="rk-$$-$RANDOM-NOT-TO-SHOW"
export MCPD_RTEST_PORT=$HTTP_PORT MCPD_RTEST_KEY=$KEY
URL=$(remote_url "$REMOTE_KIND" "$HTTP_PORT")
# shellcheck disable=SC2016  # ${VAR} as the file writes it
WRITTEN=$(remote_url "$REMOTE_KIND" '${MCPD_RTEST_PORT}')'?key=${MCPD_RTEST_KEY}'
EXPANDED="$URL?key=$KEY"
config=$(jq -n --arg url "$WRITTEN" --arg type "$TRANSPORT" '{
	mcpServers: { ev: { url: $url, type: $type } }
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
# Its own token directory: mcpd-remote reads a url entry's sign-in there
# (the default is shared by everything on the machine).
start_mcpd "$T/mcpd.json" --token-dir "$T/tokens"
t=$(now_ms)
remote_wait_ready ev "$READY_TIMEOUT_S"
note "ev ready $(($(now_ms) - t)) ms after mcpd answered"
PID0=$(server_pid ev) || fail "ev is ready but has no pid"
[ "$(readlink "/proc/$PID0/exe")" -ef "$MCPD_REMOTE" ] ||
	fail "ev's pid $PID0 is not mcpd-remote: $(describe_pid "$PID0")"

# leaks WHERE FILE: neither the key nor the expanded URL is in FILE.
leaks() {
	if grep -qF -e "$KEY" -e "$EXPANDED" "$2"; then
		grep -nF -e "$KEY" -e "$EXPANDED" "$2" | head -3 >&2
		fail "$1 shows the value of \${MCPD_RTEST_KEY}"
	fi
}
ctl status >"$T/status.txt" 2>&1 || fail "mcpctl status failed: $(cat "$T/status.txt")"
ctl status ev >"$T/status-ev.txt" 2>&1 ||
	fail "mcpctl status ev failed: $(cat "$T/status-ev.txt")"
ctl --json status >"$T/status.json" 2>&1 ||
	fail "mcpctl --json status failed: $(cat "$T/status.json")"
for f in status.txt status-ev.txt status.json; do
	leaks "mcpctl $f" "$T/$f"
done
grep -qF "$WRITTEN" "$T/status-ev.txt" ||
	fail "mcpctl status ev does not show the URL as written ($WRITTEN): $(cat "$T/status-ev.txt")"
jq -e --arg w "$WRITTEN" '[.. | strings] | index($w) != null' "$T/status.json" >/dev/null ||
	fail "mcpctl --json status has no string equal to the URL as written ($WRITTEN): $(cat "$T/status.json")"
tr '\0' ' ' <"/proc/$PID0/cmdline" >"$T/cmdline"
leaks "mcpd-remote's command line (world-readable in /proc)" "$T/cmdline"

# --- 2. the SDK client through mcpctl connect -------------------------------------
t=$(now_ms)
MCPCTL=$MCPCTL run_sdk_client "$T/client.out" --socket "$SOCK" --server ev
rc=$?
note "sdk-client through mcpd: exit $rc after $(($(now_ms) - t)) ms"
if [ "$rc" != 0 ]; then
	echo "--- $REMOTE_KIND server log (last 30 lines) ---" >&2
	grep -v "Received MCP POST request" "$HTTP_LOG" | tail -n 30 >&2
	fail "the SDK client failed through mcpd (exit $rc): $(grep -c '^not ok' "$T/client.out") check(s) failed"
fi

mcpd_running || fail "mcpd died during the SDK client's run"
server_is ev ready ||
	fail "ev is $(server_field ev state) after the run, last_exit $(server_field ev last_exit)"
[ "$(server_pid ev)" = "$PID0" ] ||
	fail "ev's worker was restarted during the run (pid $PID0 -> $(server_pid ev))"
js=$(ctl --json status ev) || fail "mcpctl status ev failed"
viol=$(jq -r '.servers[0].stats | "\(.protocol_violations // 0) \(.dropped_lines // 0) \(.oversize_messages // 0)"' <<<"$js")
[ "$viol" = "0 0 0" ] ||
	fail "ev: protocol violations, dropped lines, oversize messages: $viol"
read -r cancelled timedout failed <<<"$(jq -r '.servers[0].stats.requests |
	"\(.cancelled // "none") \(.timeout // "none") \(.failed // "none")"' <<<"$js")"
case "$cancelled" in
'' | *[!0-9]* | 0)
	fail "ev: mcpd counted $cancelled cancelled requests, expected the SDK's cancellation" ;;
esac
[ "$timedout $failed" = "0 0" ] ||
	fail "ev: $timedout requests timed out and $failed failed in mcpd"
note "ev: $(jq -c '.servers[0].stats.requests' <<<"$js")"

wait_for 30 no_marked "$MCPCTL" ||
	fail "mcpctl connect process(es) still running after the client exited: $(marked_pids "$MCPCTL" | tr '\n' ' ')"
# shellcheck disable=SC2317  # called through wait_for
ev_clients_zero() {
	[ "$(server_field ev clients)" = 0 ]
}
wait_for 30 ev_clients_zero ||
	fail "mcpd still counts $(server_field ev clients) client(s) of ev after they all left"

# terminations: sessions server-everything saw DELETEd (Streamable HTTP).
terminations() {
	cat "$T"/http-*.log 2>/dev/null | grep -c 'session termination request'
}
# shellcheck disable=SC2317  # called through wait_for
terminations_are() {
	[ "$(terminations)" -ge "$1" ]
}

t=$(now_ms)
stop_mcpd TERM 20
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM"
proc_dead "$PID0" || fail "mcpd-remote left running after mcpd exited: $(describe_pid "$PID0")"
note "mcpd and mcpd-remote stopped $(($(now_ms) - t)) ms after SIGTERM"
if [ "$TRANSPORT" = http ]; then
	wait_for 30 terminations_are 1 ||
		fail "mcpd-remote did not DELETE its session when mcpd stopped it"
fi
leaks "mcpd's log" "$MCPD_LOG"
pid_running "$HTTP_PID" || fail "the $REMOTE_KIND server died during the run"

# --- 3. mcpd-remote on its own, launched by the SDK client -----------------------
# sdk-client.mjs launches "$MCPCTL -s SOCKET connect NAME"; this stand-in
# launches mcpd-remote instead, as an MCP client's config would, with the
# port from its environment (mcpd-remote expands ${VAR} in the URL).  The
# legacy server is given no -t: the automatic transport must find that
# it refuses Streamable HTTP and fall back to HTTP+SSE.
# shellcheck disable=SC2016  # expanded by mcpd-remote
STANDALONE_URL=$(remote_url "$REMOTE_KIND" '${MCPD_RTEST_PORT}')
STANDALONE_T=$TRANSPORT
[ "$TRANSPORT" = sse ] && STANDALONE_T=auto
{
	echo '#!/bin/sh'
	printf 'exec %q -t %q %q\n' "$MCPD_REMOTE" "$STANDALONE_T" "$STANDALONE_URL"
} >"$T/mcpd-remote-stdio"
chmod 0755 "$T/mcpd-remote-stdio"
before=$(terminations)
t=$(now_ms)
MCPCTL=$T/mcpd-remote-stdio run_sdk_client "$T/standalone.out" \
	--socket "$T/unused.sock" --server ev
rc=$?
note "sdk-client with mcpd-remote as its stdio server: exit $rc after $(($(now_ms) - t)) ms"
if [ "$rc" != 0 ]; then
	echo "--- $REMOTE_KIND server log (last 30 lines) ---" >&2
	grep -v "Received MCP POST request" "$HTTP_LOG" | tail -n 30 >&2
	fail "the SDK client failed with mcpd-remote standalone (exit $rc): $(grep -c '^not ok' "$T/standalone.out") check(s) failed"
fi
wait_for 30 no_marked "$MCPD_REMOTE" ||
	fail "mcpd-remote still running after its client exited: $(marked_pids "$MCPD_REMOTE" | tr '\n' ' ')"
if [ "$TRANSPORT" = http ]; then
	# Two clients, two sessions, each DELETEd when its stdin closed.
	wait_for 30 terminations_are $((before + 2)) ||
		fail "$(($(terminations) - before)) of 2 standalone sessions DELETEd after their clients left"
fi
pid_running "$HTTP_PID" || fail "the $REMOTE_KIND server died during the run"
exit 0
