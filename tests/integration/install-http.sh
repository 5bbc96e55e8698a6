#!/bin/bash
# install-http.sh -- `mcpctl install APP --http`: an app that takes a URL
# is pointed at mcpd's HTTP front instead of `mcpctl connect`:
#
# - without a TCP "http" listener in mcpd.json, and for an app whose file
#   takes no URL (Claude Desktop), a clear refusal and nothing written;
# - Cursor's and Gemini CLI's entries become {"url"} / {"httpUrl"} at
#   http://HOST:PORT/servers/NAME/mcp with "Authorization: Bearer TOKEN",
#   TOKEN one token per app ("app-cursor"), scoped to exactly the servers
#   written; the files (and their .mcpd-installed copies) are 0600 even
#   if they were not, and the token is not printed;
# - that header initializes a session on the front (200), and reaches no
#   other server (403);
# - `mcpctl uninstall APP` puts the file back and revokes the token: the
#   same request then gets 401.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"

export HOME=$T/home
unset XDG_CONFIG_HOME
export MCPD_HTTP_TOKENS=$T/http-tokens
mkdir -p "$HOME/.cursor" "$HOME/.gemini" "$HOME/.config/Claude" ||
	hard_error "mkdir"
cd "$T" || hard_error "cd $T"
CURSOR=$HOME/.cursor/mcp.json
GEMINI=$HOME/.gemini/settings.json
PORT=$(_random_port)
BASE=http://127.0.0.1:$PORT

servers=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" '{
	alpha: { command: $fake, args: ["--alpha"], env: { MCPD_TEST_DIR: $t } },
	beta: { command: $fake, args: ["--beta"], env: { MCPD_TEST_DIR: $t } },
	other: { command: $fake, args: ["--other"], env: { MCPD_TEST_DIR: $t } }
}') || hard_error "jq"
write_config_raw "$T/nohttp.json" "$(jq -n --argjson s "$servers" '{mcpServers: $s}')"
write_config_raw "$T/mcpd.json" "$(jq -n --argjson s "$servers" --argjson port "$PORT" --arg t "$T" \
	'{mcpd: {http: {listen: ["unix:\($t)/http.sock", "127.0.0.1:\($port)"]}},
	  mcpServers: $s}')"
jq -n --argjson s "$servers" '{mcpServers: {alpha: $s.alpha, beta: $s.beta}}' \
	>"$CURSOR" || hard_error "jq"
jq -n --argjson s "$servers" '{theme: "dark", mcpServers: {alpha: $s.alpha}}' \
	>"$GEMINI" || hard_error "jq"
echo '{"mcpServers": {}}' >"$HOME/.config/Claude/claude_desktop_config.json"
chmod 0644 "$CURSOR" "$GEMINI"
cp "$CURSOR" "$T/cursor.orig"
cp "$GEMINI" "$T/gemini.orig"

# --- refusals -----------------------------------------------------------------
ctl_run nohttp install cursor --http --yes --config "$T/nohttp.json"
ctl_rc 1 nohttp "install --http without an http listener"
grep -q 'no TCP "http" listener' "$T/nohttp.err" ||
	fail "no listener: $(cat "$T/nohttp.err")"
cmp -s "$CURSOR" "$T/cursor.orig" || fail "a refused install changed Cursor's file"
[ ! -e "$MCPD_HTTP_TOKENS" ] || fail "a refused install made a token"

ctl_run desktop install claude-desktop --http --yes --config "$T/mcpd.json"
ctl_rc 2 desktop "install claude-desktop --http"
grep -q 'take no URL' "$T/desktop.err" ||
	fail "claude-desktop --http: $(cat "$T/desktop.err")"

# --- install --http -------------------------------------------------------------
start_mcpd "$T/mcpd.json"

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
# code URL [CURL ARGS...]: the status of a POST of initialize to URL.
code() {
	local url=$1
	shift
	curl -s -o "$T/body.out" -w '%{http_code}' --max-time 10 -X POST "$url" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' "$@" \
		--data-binary "$INIT"
}
front_up() { [ "$(code "$BASE/servers/alpha/mcp")" = 401 ]; }
wait_for 30 front_up || fail "mcpd-http did not answer on $BASE"

for app in cursor gemini-cli; do
	ctl_run "install-$app" install "$app" --http --yes --config "$T/mcpd.json"
	ctl_rc 0 "install-$app" "install $app --http"
done
grep -q 'token app-cursor made for alpha,beta' "$T/install-cursor.out" ||
	fail "install cursor --http: $(cat "$T/install-cursor.out")"
grep -q "token is in its files now" "$T/install-cursor.out" ||
	fail "install does not say where the token is: $(cat "$T/install-cursor.out")"

TOKEN=$(jq -r '.mcpServers.alpha.headers.Authorization' "$CURSOR" | sed 's/^Bearer //')
case "$TOKEN" in
mcpd_?*) ;;
*) fail "Cursor's file after install --http: $(cat "$CURSOR")" ;;
esac
jq -e --arg base "$BASE" --arg tok "Bearer $TOKEN" '.mcpServers == {
	alpha: {url: "\($base)/servers/alpha/mcp", headers: {Authorization: $tok}},
	beta: {url: "\($base)/servers/beta/mcp", headers: {Authorization: $tok}}}' \
	"$CURSOR" >/dev/null || fail "Cursor's file after install --http: $(cat "$CURSOR")"
GTOKEN=$(jq -r '.mcpServers.alpha.headers.Authorization' "$GEMINI" | sed 's/^Bearer //')
jq -e --arg base "$BASE" '.theme == "dark" and
	(.mcpServers.alpha | keys) == ["headers", "httpUrl"] and
	.mcpServers.alpha.httpUrl == "\($base)/servers/alpha/mcp"' \
	"$GEMINI" >/dev/null || fail "Gemini CLI's file after install --http: $(cat "$GEMINI")"
[ "$GTOKEN" != "$TOKEN" ] || fail "two apps were given the same token"
for f in "$CURSOR" "$CURSOR.mcpd-installed" "$GEMINI" "$GEMINI.mcpd-installed"; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is mode $(stat -c %a "$f"), not 600"
done
cmp -s "$CURSOR.mcpd-backup" "$T/cursor.orig" || fail "Cursor's backup is not the original"
grep -q "$TOKEN" "$T/install-cursor.out" "$T/install-cursor.err" &&
	fail "install printed the token"
ctl_run list token list
grep -q '^app-cursor .* alpha,beta$' "$T/list.out" || fail "token list: $(cat "$T/list.out")"
grep -q '^app-gemini-cli .* alpha$' "$T/list.out" || fail "token list: $(cat "$T/list.out")"

c=$(code "$BASE/servers/alpha/mcp" -H "Authorization: Bearer $TOKEN")
[ "$c" = 200 ] || fail "initialize with Cursor's header: $c, expected 200: $(cat "$T/body.out")"
c=$(code "$BASE/servers/other/mcp" -H "Authorization: Bearer $TOKEN")
[ "$c" = 403 ] || fail "Cursor's token on a server not installed: $c, expected 403"
c=$(code "$BASE/servers/beta/mcp" -H "Authorization: Bearer $GTOKEN")
[ "$c" = 403 ] || fail "Gemini CLI's token on Cursor's other server: $c, expected 403"

# --- uninstall revokes ------------------------------------------------------------
ctl_run uninstall uninstall cursor --yes
ctl_rc 0 uninstall "uninstall cursor"
grep -q 'token app-cursor revoked' "$T/uninstall.out" ||
	fail "uninstall: $(cat "$T/uninstall.out")"
cmp -s "$CURSOR" "$T/cursor.orig" || fail "uninstall did not put Cursor's file back"
revoked() { [ "$(code "$BASE/servers/alpha/mcp" -H "Authorization: Bearer $TOKEN")" = 401 ]; }
wait_for 10 revoked || fail "Cursor's token still works after uninstall"
c=$(code "$BASE/servers/alpha/mcp" -H "Authorization: Bearer $GTOKEN")
[ "$c" = 200 ] || fail "Gemini CLI's token after Cursor's uninstall: $c, expected 200"
ctl_run uninstall2 uninstall gemini-cli --yes
ctl_rc 0 uninstall2 "uninstall gemini-cli"
cmp -s "$GEMINI" "$T/gemini.orig" || fail "uninstall did not put Gemini CLI's file back"
ctl_run list2 token list
grep -q '^app-' "$T/list2.out" && fail "tokens left after uninstall: $(cat "$T/list2.out")"
exit 0
