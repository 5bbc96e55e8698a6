# http-lib.sh -- mcpd's HTTP front for a test (sourced after
# integration/lib.sh and remote/lib.sh).
#
#   http_front_prep [CLIENT.mjs] Node.js and the pinned packages
#                                (remote_setup), curl, CLIENT copied into
#                                T; MCPD_HTTP_TOKENS in T, PORT a free
#                                loopback port and BASE the front's URL
#   http_front_wait              until the front answers (401 without a
#                                token), or fail
#   http_init PATH [CURL ARGS]   the status of a POST of initialize (INIT)
#                                to PATH; its body in T/body.out, its
#                                headers in T/headers.out
#   node_http ARGS...            http-client.mjs run with ARGS (within
#                                CLIENT_TIMEOUT_S), its output shown
#   http_front_fake CLIENT.mjs [MORE]
#                                all of it for mcpd serving mcp-fake as
#                                "fake", MORE (JSON) added to its "http"
#                                object; TOKEN a bearer token for it
#   http_front_everything NAME   after http_front_prep: mcpd serving
#                                server-everything, mcp-fake as "fake"
#                                and the group "kit" of both, TOKEN a
#                                token NAME for everything and kit, once
#                                everything is ready

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

http_front_prep() {
	remote_setup
	command -v curl >/dev/null || skip "curl is not installed"
	[ -z "${1:-}" ] || cp "$TESTS_SRCDIR/interop/$1" "$T/" ||
		hard_error "cannot copy $1"
	export MCPD_HTTP_TOKENS=$T/http-tokens
	PORT=$(_random_port)
	BASE=http://127.0.0.1:$PORT
}

http_init() {
	local path=$1
	shift
	curl -s -o "$T/body.out" -D "$T/headers.out" -w '%{http_code}' \
		--max-time 10 -X POST "$BASE$path" \
		-H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' "$@" \
		--data-binary "$INIT"
}

_http_front_up() {
	[ "$(http_init /servers/fake/mcp)" = 401 ]
}

http_front_wait() {
	wait_for 30 _http_front_up || fail "mcpd-http did not answer on $BASE"
}

node_http() {
	timeout -k 5 "${CLIENT_TIMEOUT_S:-120}" "$NODE" "$T/http-client.mjs" \
		"$@" </dev/null >"$T/node.out" 2>&1
	local rc=$?
	cat "$T/node.out"
	return $rc
}

http_front_fake() {
	http_front_prep "$1"
	config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" \
		--argjson more "${2:-{\}}" '{
		mcpd: { http: ({ listen: ["127.0.0.1:\($port)"] } + $more) },
		mcpServers: { fake: { command: $fake, env: { MCPD_TEST_DIR: $t } } }
	}') || hard_error "cannot build the configuration"
	write_config_raw "$T/mcpd.json" "$config"
	start_mcpd "$T/mcpd.json"
	TOKEN=$("$MCPCTL" token create app) || fail "mcpctl token create failed"
	http_front_wait
}

http_front_everything() {
	local config
	# jq builds the file; `$` is doubled since mcpd expands ${VAR} in these.
	config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" \
		--arg node "$NODE" --arg everything "$EVERYTHING" '
		def lit: gsub("\\$"; "$$");
		{
		mcpd: { http: { listen: ["127.0.0.1:\($port)"] },
			init_timeout_ms: 60000 },
		mcpServers: {
			everything: { command: ($node | lit),
				args: [($everything | lit), "stdio"], cwd: ($t | lit),
				env: { MCPD_TEST_DIR: ($t | lit) } },
			fake: { command: $fake, env: { MCPD_TEST_DIR: $t } }
		},
		groups: { kit: { servers: ["everything", "fake"] } }
	}') || hard_error "cannot build the configuration"
	write_config_raw "$T/mcpd.json" "$config"
	start_mcpd "$T/mcpd.json"
	TOKEN=$("$MCPCTL" token create "$1" --servers everything,kit) ||
		fail "mcpctl token create failed"
	http_front_wait
	wait_ready everything 60
}
