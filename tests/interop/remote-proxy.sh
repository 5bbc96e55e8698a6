#!/bin/bash
# remote-proxy.sh -- a remote server's env reaches mcpd-remote, whose
# libcurl honours the proxy variables there.
#
# server-everything speaks Streamable HTTP on 127.0.0.1; tests/remote/
# proxy.mjs is a counting forward proxy.  mcpd runs two url entries for
# the same server: "via" with env {"http_proxy": PROXY}, "direct" with the
# same and no_proxy naming 127.0.0.1.  Both get ready and answer a tool
# call; the proxy relayed the requests of "via" (initialize, the call) and
# none of "direct".  Each entry's URL carries its own query (?via,
# ?direct), which the server ignores and the proxy counts by: whatever
# else "via" sends meanwhile (a health ping) is told apart from "direct".
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.

TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not

# shellcheck source=../integration/lib.sh
. "${TESTS_SRCDIR:?TESTS_SRCDIR is not set (see tests/integration/lib.sh)}/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
http_start streamableHttp
URL=$(remote_url streamableHttp "$HTTP_PORT")

MCPD_TEST_DIR=$T "$NODE" "$TESTS_SRCDIR/remote/proxy.mjs" </dev/null \
	>"$T/proxy.out" 2>"$T/proxy.err" &
PROXY_PID=$!
wait_for 60 grep -q '"port"' "$T/proxy.out" || {
	cat "$T/proxy.err" >&2
	hard_error "proxy.mjs did not start"
}
PROXY=http://127.0.0.1:$(jq -r .port "$T/proxy.out")
# relayed QUERY: the requests relayed to the URL with that query.
relayed() {
	curl -sf --max-time 30 "$PROXY/proxy-stats" |
		jq -r --arg q "$1" '.by_query[$q] // 0'
}

config=$(jq -n --arg url "$URL" --arg proxy "$PROXY" '{mcpServers: {
	via: {url: ($url + "?via"), type: "http", env: {http_proxy: $proxy}},
	direct: {url: ($url + "?direct"), type: "http",
	    env: {http_proxy: $proxy, no_proxy: "127.0.0.1"}}}}') ||
	hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
# Its own token directory (url entries read their sign-in there).
start_mcpd "$T/mcpd.json" --token-dir "$T/tokens"
remote_wait_ready via 60
remote_wait_ready direct 60

before=$(relayed '?via')
[ "${before:-0}" -ge 1 ] || fail "the proxy relayed nothing while via started"
ctl call via echo message=proxied >"$T/via.out" 2>&1 ||
	fail "the call through the proxy failed: $(cat "$T/via.out")"
grep -q "proxied" "$T/via.out" || fail "via echoed: $(cat "$T/via.out")"
after=$(relayed '?via')
[ "$after" -gt "$before" ] ||
	fail "the call of via did not go through the proxy ($before, then $after relayed)"

ctl call direct echo message=straight >"$T/direct.out" 2>&1 ||
	fail "the call of direct failed: $(cat "$T/direct.out")"
grep -q "straight" "$T/direct.out" || fail "direct echoed: $(cat "$T/direct.out")"
direct=$(relayed '?direct')
[ "$direct" = 0 ] ||
	fail "no_proxy=127.0.0.1: the proxy relayed $direct request(s) of direct: $(curl -sf --max-time 30 "$PROXY/proxy-stats")"
note "the proxy relayed $(relayed '?via') requests, all of via's"

stop_mcpd
kill -TERM "$PROXY_PID" 2>/dev/null
wait "$PROXY_PID" 2>/dev/null
http_kill
exit 0
