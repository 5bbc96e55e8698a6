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

# need_node: set NODE, or skip the test.
need_node() {
	NODE=$(command -v node 2>/dev/null) || skip "node is not installed"
	case "$("$NODE" --version 2>/dev/null)" in
	v1[6-9].* | v[2-9][0-9].*) ;;
	*) skip "node $("$NODE" --version 2>/dev/null) is too old (16 or later needed)" ;;
	esac
	[ -r "$FAULT_CLIENT" ] && [ -r "$FAULT_SERVER" ] ||
		hard_error "missing $FAULT_CLIENT or $FAULT_SERVER"
}

# fclient OUT SUBCOMMAND [ARGS...]: run one fault-client.mjs scenario on
# $SOCK, its JSON summary to OUT (stderr to OUT.err); fails the test if it
# could not run.  The problems it found are checked by fclient_check.
fclient() {
	local out=$1 rc
	shift
	timeout -k 5 120 "$NODE" "$FAULT_CLIENT" "$@" --sock "$SOCK" \
		>"$out" 2>"$out.err"
	rc=$?
	if [ "$rc" != 0 ] || ! jq -e . "$out" >/dev/null 2>&1; then
		cat "$out.err" >&2
		fail "fault-client $1 exited $rc: $(head -c 2000 "$out")"
	fi
}

# fclient_check OUT WHAT: fail listing the problems the client found.
fclient_check() {
	local n
	n=$(jq '.problems | length' "$1")
	[ "$n" = 0 ] && return 0
	echo "--- $2: $n problem(s) seen by the client ---" >&2
	jq -r '.problems[:25][]' "$1" >&2
	fail "$2: $n problem(s), first: $(jq -r '.problems[0]' "$1")"
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

# mcpd_zombies: children of mcpd that are zombies (nobody reaped them).
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
