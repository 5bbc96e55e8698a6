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
NODE=$(command -v node 2>/dev/null) || skip "node is not installed"
case "$("$NODE" --version 2>/dev/null)" in
v1[6-9].* | v[2-9][0-9].*) ;;
*) skip "node $("$NODE" --version 2>/dev/null) is too old (16 or later needed)" ;;
esac
[ -r "$MUX_CLIENT" ] && [ -r "$MUX_SERVER" ] ||
	hard_error "missing $MUX_CLIENT or $MUX_SERVER"

# mux OUT SUBCOMMAND [ARGS...]: run one client scenario on $SOCK, its JSON
# summary to OUT (stderr to OUT.err); fails the test if it could not run.
# The problems it found are checked by mux_check.
mux() {
	local out=$1 rc
	shift
	timeout -k 5 120 "$NODE" "$MUX_CLIENT" "$@" --sock "$SOCK" \
		>"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" != 0 ] || ! jq -e . "$out" >/dev/null 2>&1; then
		cat "$out.err" >&2
		fail "mux-client $1 exited $rc: $(head -c 2000 "$out")"
	fi
}

# mux_check OUT WHAT: fail listing the problems the client found.
mux_check() {
	local n
	n=$(jq '.problems | length' "$1")
	[ "$n" = 0 ] && return 0
	echo "--- $2: $n problem(s) seen by the clients ---" >&2
	jq -r '.problems[:25][]' "$1" >&2
	fail "$2: $n problem(s), first: $(jq -r '.problems[0]' "$1")"
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
