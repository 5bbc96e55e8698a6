#!/bin/bash
# mux-ctasks.sh -- tasks a client runs for the server (MCP 2025-11-25
# task-augmented sampling/createMessage).  mcpd tells the server it runs
# them; the client a request goes to either runs it as a task (it
# declared tasks.requests.sampling.createMessage) or gets it without
# "task" and answers plainly.  A task a client made reaches the server
# under an id of mcpd's: the server's tasks/get, tasks/result and
# tasks/cancel go to that client under its own id and come back under
# mcpd's; an id mcpd did not give is refused by mcpd (-32602) and never
# reaches a client; a client's status notification reaches the server
# only for its own task; at client_max_tasks the server is told; the
# tasks go with the client that runs them, or, for a client of a lasting
# principal (mcpd/attach "principal", as mcpctl connect does), across a
# re-exec of mcpd until it comes back.
#
# And a task the server runs, which tells nobody of its status (a second
# stand-in, with --tasks): progress under the token of the call that made
# it reaches the caller after the call was answered, and tasks/list asks
# the server (tasks/get) for the status of each task on the page that
# has not ended, and of no other.  A plain call of a tool the server runs
# only as a task is run as one, its progress reaching the caller under
# its own token.  2000 requests and status notifications about ids
# nobody gave are answered by mcpd, none reaching the server.
#
# The server is mux-server.mjs, a stand-in that sends any request the
# test asks it to (its "request" tool) and logs what it receives.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

STUB_LOG=$T/stub.log

TASKS_LOG=$T/tasks.log

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "client_max_tasks": 3 },
  "mcpServers": {
    "stub": $(stub_json "$STUB_LOG"),
    "tk": {"command": "$NODE", "args": ["$MUX_SERVER", "--log", "$TASKS_LOG", "--tasks"],
      "env": {"MCPD_TEST_DIR": "$T"}}
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready stub
wait_ready tk

# mcpd told the server it runs sampling as tasks.
caps=$(stub_in "$STUB_LOG" 'select(.method == "initialize") | .params.capabilities.tasks' | head -1)
[ "$(jq -c '.requests.sampling.createMessage' <<<"$caps")" = '{}' ] ||
	fail "mcpd's initialize declared tasks $caps, expected requests.sampling.createMessage"

mux "$T/c.json" ctasks --server stub --max 3
note "the server saw a's task as $(jv "$T/c.json" .mine); tasks/get: $(jv "$T/c.json" '.get | tojson')"
note "past the cap: $(jv "$T/c.json" '.over_cap.error.message')"
note "ids mcpd never gave: $(jv "$T/c.json" '[.guesses[].message] | unique | join(", ")')"
mux_check "$T/c.json" "tasks clients run for the server"

# Of the four status notifications, the server got a's alone, under
# mcpd's id.
mine=$(jv "$T/c.json" .mine)
got=$(stub_in "$STUB_LOG" 'select(.method == "notifications/tasks/status") | .params | [.taskId, .status] | join(" ")' | jq -r .)
[ "$got" = "$mine completed" ] ||
	fail "the server got these task statuses: [$got], expected only \"$mine completed\""
# No id of a's reached the server from mcpd (the test's own tools/call
# arguments name some).
from_mcpd=$(stub_in "$STUB_LOG" 'select(.method != "tools/call")')
if grep -q 'a-task-' <<<"$from_mcpd"; then
	fail "a client's own task id reached the server: $(grep 'a-task-' <<<"$from_mcpd" | head -1)"
fi

mux "$T/r.json" ctasks-reexec --server stub
note "across a re-exec: $(jv "$T/r.json" '.get | tojson')"
mux_check "$T/r.json" "a client-run task across a re-exec"

mux "$T/s.json" stasks --server tk
note "progress after the call that made the task: $(jv "$T/s.json" '.progress | tojson')"
note "tasks/list: $(jv "$T/s.json" '[.before[0].status, .after[0].status, .again[0].status] | join(" -> ")')"
mux_check "$T/s.json" "a task of the server's"
gets=$(stub_in "$TASKS_LOG" 'select(.method == "tasks/get") | .params.taskId' | jq -r . | tr '\n' ' ')
[ "$gets" = "srv-task-1 srv-task-1 " ] ||
	fail "for three tasks/list (working, then ended, then ended) and 2000 requests about ids nobody gave, the server was asked tasks/get of [$gets], expected srv-task-1 twice (not once it ended)"
n=$(stub_in "$TASKS_LOG" 'select(.method == "notifications/tasks/status")' | wc -l)
[ "$n" = 0 ] || fail "a client's status notifications of tasks nobody gave reached the server: $n"
note "a plain call of job (a task for mcpd): progress $(jv "$T/s.json" '.job_progress | tojson'), answered $(jv "$T/s.json" '.job.result.content[0].text')"
mcpd_running || fail "mcpd died"
exit 0
