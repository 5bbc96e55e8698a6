# mux-lib.sh -- helpers for the mux-*.sh tests (sourced, not run): many
# clients sharing one server session through mcpd's socket.
#
# Builds on lib.sh (sourced here).  The clients are mux-client.mjs (one
# subcommand per scenario, a JSON summary on stdout); where mcp-fake cannot
# produce the traffic a test needs, the server is mux-server.mjs, a
# stand-in that logs every line it receives and sends.  Both need node.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

MUX_CLIENT=$TESTS_SRCDIR/integration/mux-client.mjs
MUX_SERVER=$TESTS_SRCDIR/integration/mux-server.mjs
need_node
[ -r "$MUX_CLIENT" ] && [ -r "$MUX_SERVER" ] ||
	hard_error "missing $MUX_CLIENT or $MUX_SERVER"

# mux OUT SUBCOMMAND [ARGS...]: a mux-client.mjs scenario (see node_client).
mux() {
	node_client "$MUX_CLIENT" "$@"
}

# mux_check OUT WHAT: fail listing the problems the clients found.
mux_check() {
	client_problems "$@"
}

# jv OUT FILTER: one value from a summary (raw strings).
jv() {
	jq -r "$2" "$1"
}

# stub_json LOG [EXTRA]: a config entry for the stand-in server, logging to
# LOG; EXTRA is more members ("request_timeout_ms": 1000, ...).  Tagged
# like write_config tags mcp-fake, so cleanup finds it.
stub_json() {
	local extra=${2:+, $2}
	printf '{"command": "%s", "args": ["%s", "--log", "%s"], "env": {"MCPD_TEST_DIR": "%s"}%s}' \
		"$NODE" "$MUX_SERVER" "$1" "$T" "$extra"
}

# stub_in LOG [JQ-FILTER]: the messages the stand-in received, one compact
# JSON per line, optionally filtered (the filter sees the message).
stub_in() {
	jq -c "select(.dir == \"in\") | .msg | ${2:-.}" "$1"
}
