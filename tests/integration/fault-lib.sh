# fault-lib.sh -- helpers for fault-*.sh, chaos.sh and secrets.sh (sourced,
# not run).
#
# Builds on lib.sh (sourced here).  Two optional helpers, each found on
# demand so a test only skips for what it really uses:
# - mcpload (tests/bench/mcpload.c), the C load generator and routing
#   checker: $MCPLOAD, else $abs_top_builddir/tests/bench/mcpload;
# - node, for fault-client.mjs (scripted clients) and fault-server.mjs (a
#   stand-in server for what mcp-fake cannot do).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

FAULT_CLIENT=$TESTS_SRCDIR/integration/fault-client.mjs
FAULT_SERVER=$TESTS_SRCDIR/integration/fault-server.mjs

# need_mcpload: set MCPLOAD to the load generator, or skip the test.
need_mcpload() {
	if [ -z "${MCPLOAD:-}" ] && [ -n "${abs_top_builddir:-}" ]; then
		MCPLOAD=$abs_top_builddir/tests/bench/mcpload
	fi
	[ -n "${MCPLOAD:-}" ] ||
		skip "MCPLOAD is not set (build it: make tests/bench/mcpload)"
	case "$MCPLOAD" in
	/*) ;;
	*) MCPLOAD=$PWD/$MCPLOAD ;;
	esac
	[ -x "$MCPLOAD" ] ||
		skip "$MCPLOAD is not built (make tests/bench/mcpload)"
}

# need_fault_node: node (lib.sh's need_node) and the fault scripts.
need_fault_node() {
	need_node
	[ -r "$FAULT_CLIENT" ] && [ -r "$FAULT_SERVER" ] ||
		hard_error "missing $FAULT_CLIENT or $FAULT_SERVER"
}

# fclient OUT SUBCOMMAND [ARGS...]: a fault-client.mjs scenario (see
# node_client in lib.sh).
fclient() {
	node_client "$FAULT_CLIENT" "$@"
}

# fclient_check OUT WHAT: fail listing the problems the client found.
fclient_check() {
	client_problems "$@"
}

# stand_in_json ARGS...: a config entry (without the name) running
# fault-server.mjs with ARGS, tagged like write_config tags mcp-fake so
# cleanup finds it.
stand_in_json() {
	local args
	args=$(printf '%s\n' "$FAULT_SERVER" "$@" | jq -R . | jq -cs .)
	jq -cn --arg node "$NODE" --argjson args "$args" --arg t "$T" \
		'{command: $node, args: $args, env: {MCPD_TEST_DIR: $t}}'
}

# mcpd_zombies: children of mcpd that are zombies (not reaped yet): wait
# for none, a child that has just exited is one for a moment.
mcpd_zombies() {
	local p n=0
	for p in /proc/[0-9]*; do
		[ "$(proc_ppid "${p#/proc/}" 2>/dev/null)" = "$MCPD_PID" ] || continue
		[ "$(proc_state "${p#/proc/}" 2>/dev/null)" = Z ] && n=$((n + 1))
	done
	echo "$n"
}

# elapsed_ms CMD...: run CMD (output discarded), print how long it took in
# ms; fails like CMD does.
elapsed_ms() {
	local t0 rc
	t0=${EPOCHREALTIME//[.,]/}
	"$@" >/dev/null 2>&1
	rc=$?
	echo $(((${EPOCHREALTIME//[.,]/} - t0) / 1000))
	return "$rc"
}
