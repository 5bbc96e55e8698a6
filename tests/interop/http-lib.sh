# http-lib.sh -- mcpd's HTTP front for a test (sourced after
# integration/lib.sh and remote/lib.sh).

# http_front_fake CLIENT.mjs: Node.js and the pinned packages
# (remote_setup), CLIENT copied beside them, mcpd serving mcp-fake as
# "fake" with mcpd-http on a free loopback port; BASE is the front's URL
# and TOKEN a bearer token for it, once the front answers.
http_front_fake() {
	remote_setup
	command -v curl >/dev/null || skip "curl is not installed"
	cp "$TESTS_SRCDIR/interop/$1" "$T/" || hard_error "cannot copy $1"

	export MCPD_HTTP_TOKENS=$T/http-tokens
	PORT=$(_random_port)
	BASE=http://127.0.0.1:$PORT
	config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" '{
		mcpd: { http: { listen: ["127.0.0.1:\($port)"] } },
		mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } } }
	}') || hard_error "cannot build the configuration"
	write_config_raw "$T/mcpd.json" "$config"
	start_mcpd "$T/mcpd.json"
	TOKEN=$("$MCPCTL" token create app) || fail "mcpctl token create failed"
	wait_for 30 _http_front_up || fail "mcpd-http did not answer on $BASE"
}

_http_front_up() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
		"$BASE/servers/fake/mcp")" = 401 ]
}
