#!/bin/bash
# modern-up-tasks.sh -- MCP 2025-11-25 tasks of 1.x SDK clients
# (tasks-client.mjs: the 1.32.2 SDK's client.experimental.tasks, through
# `mcpctl connect`) on a server of MCP 2026-07-28 alone (dual-server.mjs
# --strict, the 2.x SDK, which has no tasks: mcpd runs them with plain
# calls).  The server runs under `sh -c 'tee FILE | node ...'`: FILE
# ($T/strict.in) is every line mcpd sent it.
#
#   1  A's session declares tasks (tools/call, list, cancel).  A starts a
#      task of slow (1500 ms): a 32-hex-digit id at once, "working"; the
#      call went up to the server without "task".  A's tasks/list shows
#      it; B's (another connection: another principal) does not, and B's
#      tasks/get, tasks/result and tasks/cancel of A's id get the very
#      error of a made-up id.  A's tasks/result waits for the call and
#      gets "slept 1500", its _meta naming A's id, after about 1.5 s;
#      tasks/get then says "completed", and A heard the status.
#   2  A starts a slow of 60 s; B's tasks/cancel of it is refused as for a
#      made-up id; A's succeeds ("cancelled"), the server is sent
#      notifications/cancelled (its stderr says slow was cancelled), and
#      tasks/get still says "cancelled"; its tasks/cancel again is refused
#      (terminal).
#   3  A plain call of slow is still a plain call.
# A daemon that refused the tasks, passed "task" to the server, or let B
# read or cancel A's task, fails one of those.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/modern-up-tasks.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: modern-up-tasks: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=task-clients.sh
. "$TESTS_SRCDIR/interop/task-clients.sh"

remote_setup
for f in tasks-client.mjs dual-server.mjs; do
	cp "$TESTS_SRCDIR/interop/$f" "$T/" || hard_error "cannot copy $f"
done
export MCPCTL

# A task id nobody has: 32 hex digits, like mcpd's.
MADE_UP=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
[[ $MADE_UP =~ ^[0-9a-f]{32}$ ]] || hard_error "cannot make up a task id: $MADE_UP"

config=$(jq -n --arg node "$NODE" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			strict: { command: "/bin/sh",
				args: (["-c", "tee -a \"$1\" | exec \"$2\" \"$3\" --strict",
					"sh", $t + "/strict.in", $node,
					$t + "/dual-server.mjs"] | map(lit)),
				cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } }
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready strict 90

# task_id OUT: the taskId of a start answer, which must be 32 hex digits.
task_id() {
	local id
	id=$(jq -r '.taskId // empty' <<<"$1")
	[[ $id =~ ^[0-9a-f]{32}$ ]] || return 1
	printf '%s\n' "$id"
}

# unknown_id CASE NAME ID: client NAME's tasks/get, tasks/result and
# tasks/cancel of ID are answered exactly as those of a made-up id.
unknown_id() {
	local op out made
	for op in get result cancel; do
		out=$(cl "$2" "$op" "$3") &&
			tfail "$1: client $2's tasks/$op of another's task $3 succeeded: $out"
		made=$(cl "$2" "$op" "$MADE_UP") &&
			tfail "$1: client $2's tasks/$op of a made-up id succeeded: $made"
		jq -e '.code == -32602' <<<"$made" >/dev/null ||
			tfail "$1: client $2's tasks/$op of a made-up id: not -32602: $made"
		[ "$(jq -c '{code, message, data}' <<<"$out")" = \
			"$(jq -c '{code, message, data}' <<<"$made")" ] ||
			tfail "$1: client $2's tasks/$op of another's task is not answered as a made-up id's: $out, against $made"
	done
}

# --- 1: a task of A's, run by mcpd, and what B sees of it ---------------------
cl_start A strict
cl_start B strict
out=$(cl_ok A tools) || exit 1
jq -e '.tasks.requests.tools.call and .tasks.list and .tasks.cancel' \
	<<<"$out" >/dev/null ||
	tfail "1: the session does not declare tasks (tools/call, list, cancel): $out"
out=$(cl_ok A start slow '{"ms":1500}') || exit 1
id=$(task_id "$out") || tfail "1: A's task id is not 32 hex digits: $out"
jq -e '.task.status == "working"' <<<"$out" >/dev/null ||
	tfail "1: A's new task is not working: $out"
[ "$(jq .ms <<<"$out")" -lt 1200 ] ||
	tfail "1: the task was made only after the call's 1500 ms: $out"
grep '"name":"slow"' "$T/strict.in" | grep -q '"task"' &&
	tfail "1: the call went up to the server with \"task\": $(grep '"name":"slow"' "$T/strict.in")"
grep -q '"name":"slow"' "$T/strict.in" ||
	tfail "1: the task's call did not reach the server"
out=$(cl_ok A list) || exit 1
jq -e --arg id "$id" '.ids | index($id)' <<<"$out" >/dev/null ||
	tfail "1: A's tasks/list does not show its task $id: $out"
out=$(cl_ok B list) || exit 1
[ "$(jq '.ids | length' <<<"$out")" = 0 ] ||
	tfail "1: B's tasks/list shows tasks: $out"
unknown_id 1 B "$id"
out=$(cl_ok A result "$id") || exit 1
jq -e --arg id "$id" '.text == "slept 1500" and .related == $id' \
	<<<"$out" >/dev/null ||
	tfail "1: A's tasks/result of $id is not slow's result naming it: $out"
note "figure: tasks/result answered in $(jq .ms <<<"$out") ms"
out=$(cl_ok A get "$id") || exit 1
jq -e '.task.status == "completed"' <<<"$out" >/dev/null ||
	tfail "1: the task is not completed after its result: $out"
wait_for 10 eval 'heard A "\"status\":\"completed\""' ||
	tfail "1: A heard no status notification of its task's end"

# --- 2: cancelled by its owner alone ------------------------------------------
out=$(cl_ok A start slow '{"ms":60000}') || exit 1
id2=$(task_id "$out") || tfail "2: A's task id is not 32 hex digits: $out"
out=$(cl B cancel "$id2") && tfail "2: B cancelled A's task: $out"
out=$(cl_ok A get "$id2") || exit 1
jq -e '.task.status == "working"' <<<"$out" >/dev/null ||
	tfail "2: A's task is not working after B's tasks/cancel: $out"
out=$(cl_ok A cancel "$id2") || exit 1
jq -e '.task.status == "cancelled"' <<<"$out" >/dev/null ||
	tfail "2: A's tasks/cancel did not cancel: $out"
wait_for 10 grep -q '"method":"notifications/cancelled"' "$T/strict.in" ||
	tfail "2: the server was not sent notifications/cancelled"
wait_for 10 eval 'ctl logs strict -n 200 2>/dev/null | grep -q "slow: cancelled"' ||
	tfail "2: the server did not stop its slow call: $(ctl logs strict -n 20 2>&1)"
out=$(cl_ok A get "$id2") || exit 1
jq -e '.task.status == "cancelled"' <<<"$out" >/dev/null ||
	tfail "2: A's cancelled task is not cancelled: $out"
out=$(cl A cancel "$id2") && tfail "2: a cancelled task was cancelled again: $out"

# --- 3: a plain call ---------------------------------------------------------
out=$(cl_ok A call slow '{"ms":10}') || exit 1
jq -e '.text == "slept 10" and .related == null' <<<"$out" >/dev/null ||
	tfail "3: a plain call of slow: $out"

cl_close_all
mcpd_running || fail "mcpd died"
stop_mcpd
exit 0
