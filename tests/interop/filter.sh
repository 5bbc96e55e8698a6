#!/bin/bash
# filter.sh -- allow and deny filters on a real server: server-everything
# (pinned in tests/interop/package-lock.json) under mcpd with "tools",
# "prompts" and "resources" filters, the official SDK client through
# `mcpctl connect` (sdk-client.mjs --filter: the checks are listed there),
# and `mcpctl tools`.
#
# The client changes the tools filter and runs `mcpctl reload` halfway:
# it must be told tools/list_changed and see the new list, while the
# server keeps its process (same pid, no restart) and mcpd counts no
# protocol violation.
#
# node_modules and the client come from remote_setup (tests/remote/lib.sh).
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/filter.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: filter: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup

# --- two configurations: the second changes only the tools filter -------------
# config TOOLS_FILTER: the file's text.  `$` is doubled since mcpd expands
# ${VAR} in command, args, env and cwd (never in filters).
config() {
	jq -n --arg node "$NODE" --arg mods "$MODS" --arg t "$T" \
		--argjson tools "$1" '
		def lit: gsub("\\$"; "$$");
		{
			mcpd: { init_timeout_ms: 60000 },
			mcpServers: { everything: {
				command: ($node | lit),
				args: ([$mods + "/server-everything/dist/index.js",
					"stdio"] | map(lit)),
				cwd: ($t | lit),
				env: { MCPD_TEST_DIR: ($t | lit) },
				tools: $tools,
				prompts: { deny: ["resource-prompt", "completable-*"] },
				resources: {
					allow: ["demo://resource/static/document/*.md",
						"demo://resource/dynamic/text/*"],
					deny: ["*/features.md"]
				}
			} }
		}'
}
TOOLS1='{"allow": ["echo", "get-sum", "get-env", "toggle-*"],
	"deny": ["toggle-subscriber-updates"]}'
TOOLS2='{"allow": ["echo", "get-tiny-image"]}'
write_config_raw "$T/mcpd.json" "$(config "$TOOLS1")" ||
	hard_error "cannot build the configuration"
write_config_raw "$T/next.json" "$(config "$TOOLS2")" ||
	hard_error "cannot build the second configuration"

# A bad filter is a config error naming its path.
write_config_raw "$T/bad.json" "$(config '{"allow": ["echo", ""], "denny": []}')"
out=$("$MCPD" --check-config -c "$T/bad.json" 2>&1) &&
	fail "mcpd --check-config accepted a bad filter: $out"
grep -q 'mcpServers.everything.tools.allow\[1\]: empty pattern' <<<"$out" ||
	fail "no error naming tools.allow[1]: $out"
grep -q 'mcpServers.everything.tools.denny: unknown key' <<<"$out" ||
	fail "no error naming tools.denny: $out"

start_mcpd "$T/mcpd.json"
wait_ready everything "$READY_TIMEOUT_S"
PID0=$(server_pid everything) || fail "everything is ready but has no pid"

# tool_names: what `mcpctl tools everything` lists, sorted, one line.
tool_names() {
	ctl --json tools everything | jq -r '[.[].name] | sort | join(" ")'
}
got=$(tool_names) || fail "mcpctl tools everything failed"
[ "$got" = "echo get-env get-sum toggle-simulated-logging" ] ||
	fail "mcpctl tools shows $got"
note "mcpctl tools everything: $got"

# --- the SDK client, which reloads halfway ------------------------------------
t=$(now_ms)
run_sdk_client "$T/client.out" --socket "$SOCK" --server everything \
	--filter "$T/mcpd.json:$T/next.json"
rc=$?
note "sdk-client --filter: exit $rc after $(($(now_ms) - t)) ms"
if [ "$rc" != 0 ]; then
	echo "--- mcpd log (last 100 lines) ---" >&2
	tail -n 100 "$MCPD_LOG" >&2
	: >"$MCPD_LOG"
	fail "the SDK client failed (exit $rc): $(grep -c '^not ok' "$T/client.out") check(s) failed"
fi

# --- afterwards: same process, the new list, nothing wrong ------------------
mcpd_running || fail "mcpd died during the run"
server_is everything ready || fail "everything is $(server_field everything state)"
pid=$(server_pid everything)
[ "$pid" = "$PID0" ] || fail "the filter-only reload restarted the server (pid $PID0 -> $pid)"
got=$(tool_names) || fail "mcpctl tools everything failed after the reload"
[ "$got" = "echo get-tiny-image" ] || fail "after the reload mcpctl tools shows $got"
note "after reload, mcpctl tools everything: $got (pid $pid kept)"
grep -q 'everything: new filters for tools, applied without a restart' "$MCPD_LOG" ||
	fail "mcpd did not log the new filter"
js=$(ctl --json status everything) || fail "mcpctl status everything failed"
viol=$(jq -r '.servers[0].stats.protocol_violations // 0' <<<"$js")
[ "$viol" = 0 ] || fail "everything: $viol protocol violations"

stop_mcpd TERM 30
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM"
proc_dead "$PID0" || fail "server left running after mcpd exited"
exit 0
