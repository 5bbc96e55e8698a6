#!/bin/bash
# http-activate.sh -- the HTTP front on sockets systemd passes: mcpd takes
# its own socket and the HTTP front's by their names
# (sd_listen_fds_with_names), as mcpd.socket and mcpd-http.socket pass
# them.
#
# systemd-socket-activate stands in for systemd: it binds the sockets,
# waits for the first connection on any, and executes mcpd with them on
# fds 3 and on, named by --fdname as FileDescriptorName= names them.
#
#   A  mcpd.json without an "http" object; sockets "mcpd", "http" and
#      "bogus": mcpctl works on the first, the front answers on the
#      second with its defaults (an initialize with a token made by
#      mcpctl token create reaches mcp-fake), the third is logged and
#      closed.  mcpd-http killed: a request sent before it is back waits
#      in the backlog and is answered by the front mcpd starts again on
#      the same socket.  After mcpctl reexec the new mcpd's front serves
#      the same socket.
#   B  an "http" object whose "listen" names the passed address and a
#      Unix socket: the passed one is not bound again (it would fail:
#      the address is in use), the other is bound; both answer.
#   C  a passed TCP socket on 0.0.0.0: refused without "behind_proxy",
#      the front stays off, and says why; served after a reload that
#      sets it.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

command -v systemd-socket-activate >/dev/null 2>&1 ||
	skip "systemd-socket-activate is not installed"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

export MCPD_HTTP_TOKENS=$T/http-tokens
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

# start_activated FDNAMES LISTEN...: systemd-socket-activate on $SOCK and
# each LISTEN, the sockets named FDNAMES ("mcpd:http"), running mcpd on
# $T/mcpd.json; returns once the sockets are there.  Like systemd, it
# passes on only a few variables: the test's own are given with -E.
start_activated() {
	local names=$1 l args=()
	shift
	for l in "$SOCK" "$@"; do
		args+=(-l "$l")
	done
	"${_MCPD_GUARD[@]}" systemd-socket-activate "${args[@]}" \
		--fdname="$names" -E "MCPD_HTTP_TOKENS=$MCPD_HTTP_TOKENS" \
		-E "XDG_STATE_HOME=$XDG_STATE_HOME" \
		"$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr \
		</dev/null >>"$MCPD_LOG" 2>&1 &
	MCPD_PID=$!
	MCPD_PIDS+=("$MCPD_PID")
	wait_for 30 test -S "$SOCK" ||
		fail "systemd-socket-activate did not create $SOCK within 30 s"
}

# first_status: the first connection, which executes mcpd; it answers.
first_status() {
	local out
	out=$(ctl --json status 2>"$T/ctl.err") ||
		fail "'mcpctl status' on the passed socket failed: $(cat "$T/ctl.err")"
	[ "$(jq -r .daemon.pid <<<"$out")" = "$MCPD_PID" ] ||
		fail "the answer came from pid $(jq -r .daemon.pid <<<"$out"), not from the mcpd systemd-socket-activate executed ($MCPD_PID)"
}

# code URL [CURL ARGS...]: the status of a POST of initialize with the
# token; the body in $T/body.out.
code() {
	local url=$1
	shift
	curl -s -o "$T/body.out" -w '%{http_code}' --max-time 20 -X POST "$url" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-H "Authorization: Bearer $TOKEN" "$@" --data-binary "$INIT"
}

# reaches URL WHAT [CURL ARGS...]: an initialize there answered by mcp-fake.
reaches() {
	local url=$1 what=$2 c
	shift 2
	c=$(code "$url" "$@")
	[ "$c" = 200 ] && jq -e '.result.serverInfo.name == "mcp-fake"' \
		"$T/body.out" >/dev/null 2>&1 ||
		fail "$what: initialize at $url: $c, expected 200 from mcp-fake: $(head -c 400 "$T/body.out" 2>/dev/null)"
}

front_pid() { pgrep -P "$MCPD_PID" -x mcpd-http; }
front_answers() { [ "$(code "$1")" = 200 ]; }
front_gone() { ! kill -0 "$1" 2>/dev/null; }
front_new() { local p; p=$(front_pid) && [ "$p" != "$1" ]; }

write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "fake": { "command": "$MCP_FAKE" } } }
JSON
TOKEN=$("$MCPCTL" token create app) || fail "mcpctl token create failed"

# --- A: the front on a passed socket, with its defaults -------------------------

# A socket of its own in each part: the last one's file stays (systemd's).
SOCK=$T/a.sock
PORT=$(_random_port)
BOGUS=$((PORT + 1))
BASE=http://127.0.0.1:$PORT
start_activated mcpd:http:bogus "127.0.0.1:$PORT" "127.0.0.1:$BOGUS"
first_status
wait_ready fake
wait_for 30 front_answers "$BASE/servers/fake/mcp" ||
	fail "A: the front did not answer on the passed socket $BASE: $(code "$BASE/servers/fake/mcp")"
reaches "$BASE/servers/fake/mcp" "A"
note "A: mcpctl on the socket named mcpd, mcp-fake through the front on the one named http ($BASE)"

grep -q 'systemd passed a socket named "bogus" (fd 5).*closing it' "$MCPD_LOG" ||
	fail "A: the socket named bogus was not logged as unknown"
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$BOGUS/") &&
	fail "A: the socket named bogus still answers ($c): it was not closed"
note "A: the socket named bogus was logged and closed"

# The front killed: its socket stays open in mcpd and queues the clients
# that come meanwhile; the front started again answers them.
front=$(front_pid) || fail "A: no mcpd-http below mcpd"
kill -KILL "$front"
wait_for 10 front_gone "$front" || fail "A: mcpd-http $front did not die"
c=$(code "$BASE/servers/fake/mcp")
[ "$c" = 200 ] ||
	fail "A: a request sent while mcpd-http was down: $c, expected 200 once it is back (the port was lost)"
front2=$(front_pid) || fail "A: mcpd did not start mcpd-http again"
[ "$front2" != "$front" ] || fail "A: mcpd-http has the same pid"
[ "$(grep -c 'mcpd-http started .* on the sockets systemd passed (fd 4)' "$MCPD_LOG")" -ge 2 ] ||
	fail "A: the restarted front was not given the passed socket: $(grep 'mcpd-http started' "$MCPD_LOG")"
note "A: mcpd-http killed ($front): a request made meanwhile was answered by the next ($front2) on the same socket"
# mcpctl status shows the front: running, its pid, the restart, where.
ctl status >"$T/status.out" 2>&1 || fail "A: mcpctl status failed"
grep -qx "HTTP front: mcpd-http running (pid $front2, up [0-9a-z]*), 1 restarts, on 127.0.0.1:$PORT" \
	"$T/status.out" || fail "A: mcpctl status does not show the front: $(cat "$T/status.out")"
[ "$(ctl --json status | jq -c '.http | [.state, .pid, .restarts, .listen]')" = \
	"[\"running\",$front2,1,[\"127.0.0.1:$PORT\"]]" ] ||
	fail "A: mcpctl --json status: $(ctl --json status | jq -c .http)"
# mcpctl install --http: mcpd.json names no address, the front's socket
# from systemd is the app's URL.
mkdir -p "$T/home/.cursor" || hard_error "mkdir"
jq '{mcpServers: {fake: .mcpServers.fake}}' "$T/mcpd.json" \
	>"$T/home/.cursor/mcp.json" || hard_error "jq"
HOME=$T/home ctl install cursor --http --yes --config "$T/mcpd.json" \
	>"$T/install.out" 2>&1 || fail "A: mcpctl install cursor --http: $(cat "$T/install.out")"
[ "$(jq -r .mcpServers.fake.url "$T/home/.cursor/mcp.json")" = "$BASE/servers/fake/mcp" ] ||
	fail "A: install --http did not take the passed socket's address: $(cat "$T/home/.cursor/mcp.json" "$T/install.out")"
ITOKEN=$(jq -r '.mcpServers.fake.headers.Authorization' "$T/home/.cursor/mcp.json" | sed 's/^Bearer //')
TOKEN=$ITOKEN reaches "$BASE/servers/fake/mcp" "A: the installed entry"
note "A: mcpctl status shows the front; install --http writes its systemd socket's URL"

ctl reexec >"$T/reexec.out" 2>&1 || fail "A: mcpctl reexec failed: $(cat "$T/reexec.out")"
[ "$(ctl --json status | jq -r '.daemon | "\(.pid) \(.reexecs)"')" = "$MCPD_PID 1" ] ||
	fail "A: after mcpctl reexec: $(ctl --json status | jq -c .daemon)"
wait_for 30 front_new "$front2" || fail "A: no new mcpd-http after the re-exec"
reaches "$BASE/servers/fake/mcp" "A: after mcpctl reexec"
note "A: after mcpctl reexec the new mcpd's front ($(front_pid)) serves the same socket"
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "A: mcpd exited with status $MCPD_STATUS on SIGTERM"

# --- B: "listen" naming the passed address ---------------------------------------

: >"$MCPD_LOG"
SOCK=$T/b.sock
PORT=$(_random_port)
BASE=http://127.0.0.1:$PORT
write_config_raw "$T/mcpd.json" "$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" '{
	mcpd: { http: { listen: ["127.0.0.1:\($port)", "unix:\($t)/http.sock"] } },
	mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } } }
}')"
start_activated mcpd:http "127.0.0.1:$PORT"
first_status
wait_ready fake
wait_for 30 test -S "$T/http.sock" || fail "B: the front did not bind unix:$T/http.sock"
reaches "$BASE/servers/fake/mcp" "B: the passed socket"
reaches "http://localhost/servers/fake/mcp" "B: the bound Unix socket" \
	--unix-socket "$T/http.sock"
grep -q "127.0.0.1:$PORT: the socket systemd passed; not bound again" "$MCPD_LOG" ||
	fail "B: the front did not say it left 127.0.0.1:$PORT to the passed socket"
if grep -q 'cannot listen' "$MCPD_LOG"; then
	fail "B: the front failed to listen: $(grep 'cannot listen' "$MCPD_LOG")"
fi
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "B: mcpd exited with status $MCPD_STATUS on SIGTERM"
note "B: \"listen\" naming the passed 127.0.0.1:$PORT: served once, the Unix address bound beside it"

# --- C: not loopback ---------------------------------------------------------------

: >"$MCPD_LOG"
SOCK=$T/c.sock
PORT=$(_random_port)
write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "fake": { "command": "$MCP_FAKE" } } }
JSON
start_activated mcpd:http "0.0.0.0:$PORT"
first_status
wait_ready fake
wait_for 10 grep -q "not serving 0.0.0.0:$PORT, the socket systemd passed: not a loopback address" "$MCPD_LOG" ||
	fail "C: mcpd did not refuse the passed 0.0.0.0:$PORT"
grep -q 'the front stays off' "$MCPD_LOG" || fail "C: mcpd did not say the front stays off"
front=$(front_pid) && fail "C: mcpd-http ($front) runs on a socket that is not loopback"
write_config_raw "$T/mcpd.json" "$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" '{
	mcpd: { http: { listen: ["unix:\($t)/http.sock"], behind_proxy: true,
	    allowed_hosts: ["127.0.0.1"] } },
	mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } } }
}')"
ctl reload >"$T/reload.out" 2>&1 || fail "C: mcpctl reload failed: $(cat "$T/reload.out")"
wait_for 30 front_answers "http://127.0.0.1:$PORT/servers/fake/mcp" ||
	fail "C: with behind_proxy, the front did not answer on the passed 0.0.0.0:$PORT"
stop_mcpd TERM
note "C: 0.0.0.0:$PORT refused without behind_proxy (the front off), served with it"
exit 0
