#!/bin/bash
# token-dir.sh -- `mcpctl token` uses the store of the mcpd it talks to:
# with mcpd started with --token-dir DIR, a token that `mcpctl token
# create` prints opens a session on the HTTP front (200), `token list`
# shows it, and `token revoke` shuts it out again (401).  The token
# `mcpctl install --http` makes for an app goes to that store too.  The
# default store is left alone.  With no mcpd running, the commands use the
# default store ($MCPD_HTTP_TOKENS here).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"

export HOME=$T/home XDG_STATE_HOME=$T/state
unset MCPD_HTTP_TOKENS
mkdir -p "$HOME" || hard_error "mkdir"
PORT=$(_random_port)
BASE=http://127.0.0.1:$PORT
DEFAULT=$XDG_STATE_HOME/mcpd/tokens/http-tokens
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

# init [TOKEN]: the status of an initialize on the front.
init() {
	curl -s -o "$T/body.out" -w '%{http_code}' --max-time 10 \
		-X POST "$BASE/servers/fake/mcp" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		${1:+-H "Authorization: Bearer $1"} --data-binary "$INIT"
}

write_config_raw "$T/mcpd.json" "$(jq -n --arg fake "$MCP_FAKE" \
	--arg t "$T" --argjson port "$PORT" '{
	mcpd: {http: {listen: ["127.0.0.1:\($port)"]}},
	mcpServers: {fake: {command: $fake, env: {MCPD_TEST_DIR: $t}}}}')"
start_mcpd "$T/mcpd.json" --token-dir "$T/tokdir"
wait_for 30 eval '[ "$(init)" = 401 ]' || fail "the front did not answer 401"

ctl_run create token create app
ctl_rc 0 create "token create"
TOKEN=$(cat "$T/create.out")
[ -s "$T/tokdir/http-tokens" ] ||
	fail "the token is not in mcpd's --token-dir: $(ls -R "$T" | head -20)"
[ ! -e "$DEFAULT" ] || fail "the token went to the default store $DEFAULT"
# mcpd-http reads the store again when it changes.
wait_for 10 eval '[ "$(init "$TOKEN")" = 200 ]' ||
	fail "the new token is refused: $(init "$TOKEN") $(cat "$T/body.out")"
note "ok: a token of mcpctl token create opens a session (mcpd --token-dir)"

ctl_run list token list
ctl_rc 0 list "token list"
grep -q '^app ' "$T/list.out" || fail "token list: $(cat "$T/list.out")"
ctl_run revoke token revoke app
ctl_rc 0 revoke "token revoke"
wait_for 10 eval '[ "$(init "$TOKEN")" = 401 ]' ||
	fail "a revoked token still opens a session"
note "ok: token list and revoke work on the same store"

# mcpctl install --http makes the app's token in the same store.
mkdir -p "$HOME/.cursor" || hard_error "mkdir"
jq '{mcpServers: {fake: .mcpServers.fake}}' "$T/mcpd.json" \
	>"$HOME/.cursor/mcp.json" || hard_error "jq"
ctl_run install install cursor --http --yes --config "$T/mcpd.json"
ctl_rc 0 install "install cursor --http"
grep -q '^app-cursor' "$T/tokdir/http-tokens" ||
	fail "install --http did not make its token in mcpd's --token-dir"
ATOKEN=$(jq -r '.mcpServers.fake.headers.Authorization' \
	"$HOME/.cursor/mcp.json" | sed 's/^Bearer //')
wait_for 10 eval '[ "$(init "$ATOKEN")" = 200 ]' ||
	fail "the installed token is refused: $(init "$ATOKEN")"
note "ok: install --http, its token in the same store"

stop_mcpd
# With no mcpd, the store it names is not remembered: the default (here
# the one $MCPD_HTTP_TOKENS names, as root's is /var/lib/mcpd-tokens).
export MCPD_HTTP_TOKENS=$T/offline-tokens
ctl_run offline token create other
ctl_rc 0 offline "token create without mcpd"
grep -q '^other' "$MCPD_HTTP_TOKENS" ||
	fail "without mcpd the default store is not used"
grep -q '^other' "$T/tokdir/http-tokens" &&
	fail "without mcpd the token went to the last mcpd's store"
note "ok: without mcpd, the default store"
exit 0
