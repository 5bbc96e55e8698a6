#!/bin/bash
# cli-login.sh -- `mcpctl login` on a hosted server that asks for no
# sign-in: server-everything over Streamable HTTP, which answers without
# authorization and has no protected resource metadata.  mcpctl says it
# needs none and exits 0 (it used to report the sign-in's failure, "the
# authorization server refused the client registration (HTTP 404)", and
# exit 1); the server stays ready.  A server that does ask (HTTP 401,
# tests/remote/oauth-server.mjs without S256) still gets the sign-in's
# own failure, exit 1, and no such word.

# A loaded machine starts node and mcpd-remote slowly.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
remote_setup

# The open server, and a protected one.
http_start streamableHttp
OPEN_URL=$(remote_url streamableHttp "$HTTP_PORT")
MCPD_TEST_DIR=$T "$NODE" "$TESTS_SRCDIR/remote/oauth-server.mjs" \
	--modules "$W/node_modules" --pidfile "$T/as.pid" --no-s256 \
	</dev/null >"$T/as.out" 2>"$T/as.err" &
AS_PID=$!
wait_for 60 grep -q '"port"' "$T/as.out" ||
	hard_error "oauth-server.mjs did not start: $(cat "$T/as.err")"
LOCKED_URL=$(jq -r .url "$T/as.out")

write_config "$T/mcpd.json" "$(jq -n --arg open "$OPEN_URL" --arg locked "$LOCKED_URL" \
	'{mcpServers: {open: {url: $open}, locked: {url: $locked}}}')"
PATH=$(dirname "$MCPD_REMOTE"):$PATH start_mcpd "$T/mcpd.json" --token-dir "$T/tokens"
remote_wait_ready open 60
wait_for 60 server_is locked needs-login ||
	fail "locked is $(server_field locked state), not needs-login"

# login NAME: mcpctl login NAME, no browser, nothing on stdin; RC, and
# $T/NAME.out and .err.
login() {
	timeout -k 5 120 "$MCPCTL" -s "$SOCK" login "$1" --no-browser \
		</dev/null >"$T/$1.out" 2>"$T/$1.err"
	RC=$?
}

login open
[ "$RC" = 0 ] || fail "login open exited $RC: $(cat "$T/open.out" "$T/open.err")"
[ "$(head -1 "$T/open.out")" = "open needs no sign-in: it answers mcpd without asking for one (never an HTTP 401)" ] ||
	fail "login open does not say it needs no sign-in: $(cat "$T/open.out" "$T/open.err")"
! grep -q 'failed' "$T/open.err" || fail "login open reports a failure: $(cat "$T/open.err")"
server_is open ready || fail "open is $(server_field open state) after the login"
note "login open: $(tr '\n' ' ' <"$T/open.out")"

login locked
[ "$RC" = 1 ] || fail "login locked exited $RC: $(cat "$T/locked.out" "$T/locked.err")"
grep -q 'S256' "$T/locked.err" || fail "login locked does not say why it failed: $(cat "$T/locked.err")"
! grep -q 'needs no sign-in' "$T/locked.out" "$T/locked.err" ||
	fail "a server that asks for a sign-in was said to need none: $(cat "$T/locked.out")"
note "login locked: $(cat "$T/locked.err")"

stop_mcpd
http_kill
kill "$AS_PID" 2>/dev/null
wait "$AS_PID" 2>/dev/null
echo "PASS: $TEST_NAME"
