#!/bin/bash
# modern-tasks.sh -- the tasks extension (io.modelcontextprotocol/tasks) of
# MCP 2026-07-28 through mcpd, over server-everything's 2025 tasks, with
# raw clients (tests/integration/modern-client.mjs, scenario "tasks"):
# simulate-research-query (taskSupport "required"; "ambiguous" makes it
# ask for a clarification by elicitation/create while input_required).
#
#   x  declares the extension: after tools/list, its tools/call gets
#      resultType "task" and mcpd's task id; tasks/get polls to
#      input_required with the server's elicitation in inputRequests;
#      tasks/update answers it; tasks/get ends "completed" with the result
#      inline, a report of the interpretation x chose.
#   y  does not declare it: its call of the same tool gets the report
#      itself (mcpd runs the task), and its tasks/get gets -32021 naming
#      the extension.
#   z  another connection (another principal) declaring it: its tasks/get
#      of x's task id is refused as not found, while the task waits for
#      input and after it ended.
# A daemon that passed 2025's tasks through as they are, or gave y a task
# it cannot follow, or let any client read any task, fails one of those.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/modern-tasks.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: modern-tasks: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			ev: { command: ($node | lit), args: ([$ev, "stdio"] | map(lit)),
				cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } }
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready ev 90

t=$(now_ms)
node_client "$TESTS_SRCDIR/integration/modern-client.mjs" "$T/tasks.json" tasks --server ev
note "figure: the tasks scenario took $(($(now_ms) - t)) ms (task $(jq -r .task "$T/tasks.json"))"
client_problems "$T/tasks.json" "the tasks extension"
mcpd_running || fail "mcpd died"
stop_mcpd
exit 0
