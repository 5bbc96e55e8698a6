#!/bin/bash
# tasks.sh -- MCP 2025-11-25 tasks through mcpd, each client reaching its
# own alone.  server-everything from npm (simulate-research-query, a task
# of four 1 s stages; with "ambiguous" it asks for a clarification by
# elicitation/create, delivered through tasks/result) under mcpd, and the
# official SDK client (tasks-client.mjs: client.experimental.tasks, with
# the elicitation capability) through `mcpctl connect`, one per simulated
# user.  mcpd's "client_max_tasks" is 2.  Group dev holds mcp-fake (fk)
# and then evf, a server-everything whose resources filter denies the
# blob resources; dev's own filter denies one text resource.
#
#   1  A starts a task (callToolStream, which adds "task" itself from what
#      mcpd relays of the server's capabilities and tools): its id is 32
#      hex digits.  While
#      it runs, B's tasks/list does not show it, and B's tasks/get,
#      tasks/result and tasks/cancel of A's id get the very error (code
#      and message) of a made-up id, as does A's tasks/get of a made-up
#      one; A's tasks/list shows it; A reads its report (A's topic, its
#      _meta naming A's id), twice, and the task was not cancelled by B's
#      tasks/cancel.  Nothing B was sent names A's topic or A's task.
#   2  notifications/tasks/status of A's task reach A, under A's id, and
#      not B.
#   3  On a server with request_timeout_ms 1500 (a plain 4 s call times
#      out there), a tasks/result sent as soon as the task is made waits
#      for the task (about 4 s) and gets its result.
#   4  An ambiguous query of A's: its elicitation/create goes to A, its
#      owner, naming A's id, although B is then the client with the latest
#      request, and one in flight; A's answer is what the report uses.
#   5  An on-demand server with idle_stop_s 1 and a task running is not
#      stopped for being idle: ready, same process, for the 3 s its
#      client sends nothing, until the task's last stage; then the client
#      reads its result, and once it is idle the server stops.
#   6  client_max_tasks 2: D's third task is refused (-32015, naming
#      client_max_tasks); B can still make one.  D cancels one of its
#      own: the server's id of that task (its stderr names it) is not
#      mcpd's, and no client was ever sent it.
#   7  A leaves: a new client C gets for A's ids the error of a made-up
#      id, and an empty tasks/list; B's own task is still there for B.
#   8  A task is kept, and counts, until its time to live is up, ended or
#      not: with one task cancelled and the other ended, D is still
#      refused, told that the time to live frees a place, and can still
#      read its ended task.
#   9  Through group dev: its initialize result declares tasks, and it
#      lists evf's simulate-research-query (renamed) as needing a task.
#      A9 starts one there; B9, also on dev, gets for its id the error
#      of a made-up id and an empty tasks/list; A9's tasks/list through
#      the group shows it, and A9 reads its report.
#  10  A10 starts a task on ev and waits for its result; `mcpctl
#      reexec`: the tasks/result in flight fails once (or had its
#      answer), A10's bridge reconnects by itself (a ping through it
#      succeeds), and A10's tasks/get and tasks/result of its task
#      succeed, the report naming A10's topic.  B's tasks/get of it is
#      still the made-up id's error, B's own task is still B's, a new
#      client's tasks/list is empty, and A9's task is still listed for
#      A9 through the group.
#  11  simulate-research-query, which the server runs only as a task,
#      called without one: by a client that never listed the tools
#      (client.callTool), by one that did (a raw tools/call), and through
#      the group: each call's result is the research report, not the
#      server's refusal.  The task mcpd made for it is the call's alone:
#      its result names no task, its caller hears no status of it, and
#      its tasks/list shows none.
#  12  get-resource-links (4 links: blob/1, text/2, blob/3, text/4 of
#      demo://resource/dynamic/): all four on ev; on evf, whose filter
#      denies the blobs, only text/2 and text/4 are left, the text item
#      kept; through dev, whose filter also denies text/4, only text/2.
#      The group's resources/read of text/2 returns its contents from
#      evf without asking fk, its first member (a read of text/6, never
#      linked, asks fk first); one of text/4 is refused (-32002).
#  13  The other way: trigger-sampling-request-async, a sampling request
#      the server asks to run as a task.  H (sampling and tasks) runs it
#      as one: the server knows it under an id of mcpd's, and its
#      tasks/get reach H under H's own; the call completes with H's
#      answer.  S (sampling only) gets it without "task" and answers
#      plainly: the server reports a synchronous answer.  HG does as H
#      through group dev, for evf.
#  14  A real restart of mcpd (TERM, start again; not a re-exec): R's
#      bridge reconnects, and for R's task, gone with the server, R gets
#      the made-up id's errors and an empty tasks/list.
# At the end no client has heard a status notification of a task that
# is not its own.  Times are printed as "# figure:" lines.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/tasks.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: tasks: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow; the checks take a minute or two on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
cp "$TESTS_SRCDIR/interop/tasks-client.mjs" "$T/" ||
	hard_error "cannot copy tasks-client.mjs"
export MCPCTL

TOOL=simulate-research-query
# The errors of mcpd for a task id a client does not have.
NOT_FOUND_GET='Failed to retrieve task: Task not found'
NOT_FOUND='Task not found'
# A task id nobody has: 32 hex digits, like mcpd's.
MADE_UP=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
[[ $MADE_UP =~ ^[0-9a-f]{32}$ ]] || hard_error "cannot make up a task id: $MADE_UP"

# ev: shared by A, B, C and D; evq: request_timeout_ms 1500; evd: on
# demand, stopped after 1 s idle; evf: its blob resources denied; fk: a
# fake server without health pings, whose requests are counted; group
# dev: fk, then evf, with text/4 denied too.
LINK=demo://resource/dynamic
config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--arg fake "$MCP_FAKE" --arg link "$LINK" '
	def lit: gsub("\\$"; "$$");
	def everything: { command: ($node | lit),
		args: ([$ev, "stdio"] | map(lit)), cwd: ($t | lit),
		env: { MCPD_TEST_DIR: ($t | lit) } };
	{
		mcpd: { init_timeout_ms: 60000, client_max_tasks: 2 },
		mcpServers: {
			ev: everything,
			evq: (everything + { request_timeout_ms: 1500 }),
			evd: (everything + { start: "on-demand",
				idle_stop_s: 1 }),
			evf: (everything + { resources:
				{ deny: [$link + "/blob/*"] } }),
			fk: { command: ($fake | lit), health_interval_ms: 0,
				env: { MCPD_TEST_DIR: ($t | lit) } }
		},
		groups: {
			dev: { servers: ["fk", "evf"],
				resources: { deny: [$link + "/text/4"] } }
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"

# --- the clients -------------------------------------------------------------
# Each client is a tasks-client.mjs with a name (A, B...): it sends the
# name as its clientInfo.name, reads commands from $T/NAME.in and answers
# on $T/NAME.out; its stderr and its bridge's go to $T/NAME.err, what it
# sent and heard to $T/NAME.wire.
# shellcheck source=task-clients.sh
. "$TESTS_SRCDIR/interop/task-clients.sh"

# unknown_id CASE NAME ID WHO: client NAME's tasks/get, tasks/result and
# tasks/cancel of ID (WHO's) are answered exactly as those of a made-up
# id: -32602 and mcpd's wording.
unknown_id() {
	local c=$1 id=$2 who=$4 op out made want
	for op in get result cancel; do
		out=$(cl "$id" "$op" "$3") &&
			tfail "$c: client $id's tasks/$op of $who task $3 succeeded: $out"
		made=$(cl "$id" "$op" "$MADE_UP") &&
			tfail "$c: client $id's tasks/$op of the made-up id $MADE_UP succeeded: $made"
		if [ "$op" = get ]; then want=$NOT_FOUND_GET; else want=$NOT_FOUND; fi
		jq -e --arg w "$want" '.code == -32602 and .message == $w' \
			<<<"$made" >/dev/null ||
			tfail "$c: client $id's tasks/$op of a made-up id: expected -32602 \"$want\": $made"
		[ "$(jq -c '{code, message, data}' <<<"$out")" = \
			"$(jq -c '{code, message, data}' <<<"$made")" ] ||
			tfail "$c: client $id's tasks/$op of $who task $3 is not answered as for a made-up id: $out, against $made"
	done
}

# up_cancelled: UP, the server's id of the last task it failed to go on
# with after a tasks/cancel, from its stderr (mcpctl logs).
# shellcheck disable=SC2317  # called through wait_for
up_cancelled() {
	UP=$(ctl logs ev -n 2000 2>/dev/null |
		grep -oE 'Cannot update task "?[0-9a-f]{32}' | tail -n 1 |
		grep -oE '[0-9a-f]{32}$')
	[ -n "$UP" ]
}

# no_foreign CASE NAME: client NAME heard no status notification of a
# task it did not make, nor was named by one of its calls' results.
no_foreign() {
	local out
	out=$(cl_ok "$2" statuses) || exit 1
	[ "$(jq .foreign <<<"$out")" = 0 ] ||
		tfail "$1: client $2 heard status notifications of tasks not its own: $out"
}

# is_report OUT TOPIC [ID]: OUT is the report on TOPIC (of task ID).
is_report() {
	jq -e --arg topic "$2" --arg id "${3:-}" '
		(.text // "" | startswith("# Research Report: " + $topic + "\n")) and
		($id == "" or .related == $id)' <<<"$1" >/dev/null
}

# brief OUT: an answer, shortened for a message.
brief() {
	jq -c '(.text // "" | .[:80]) as $t | del(.text) + {text: $t}' <<<"$1" 2>/dev/null ||
		printf '%s\n' "$1"
}

# --- mcpd's status -------------------------------------------------------------
# entry NAME: the status entry of server NAME, without its statistics.
entry() {
	ctl --json status 2>/dev/null | jq -c --arg n "$1" '
		(first(.servers[] | select(.name == $n)) | del(.stats)) // null'
}

# fk_requests: the requests fk has answered or failed, all told.
fk_requests() {
	ctl --json status fk | jq -e '.servers[0].stats.requests | add'
}

start_mcpd "$T/mcpd.json"
wait_ready ev 90
wait_ready evq 90
wait_ready evf 90
wait_ready fk 30
[ "$(server_field evd state)" = idle ] ||
	fail "evd (on demand) is not idle before any client came: $(entry evd)"

# --- 1: A's task, and what B sees of it ------------------------------------------
cl_start A ev
cl_start B ev
for c in A B; do
	out=$(cl_ok "$c" tools) || exit 1
	jq -e --arg t "$TOOL" '.taskSupport[$t] == "required" and
		(.tasks.requests.tools.call | type) == "object"' <<<"$out" >/dev/null ||
		tfail "1: client $c does not see tasks on ev (capabilities.tasks.requests.tools.call, $TOOL's execution.taskSupport required): $(jq -c '{tasks, taskSupport}' <<<"$out")"
done
TOPIC_A="alpha-$RANDOM$RANDOM"
out=$(cl A stream s1 "$TOOL" "{\"topic\":\"$TOPIC_A\"}") ||
	tfail "1: client A's callToolStream of $TOOL made no task: $out"
TA1=$(task_id "$out") || tfail "1: client A's task id is not 32 hex digits: $out"
A_TASKS=("$TA1")
note "1: A's task $TA1"

# B, while A's task runs.
out=$(cl_ok B list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "1: client B, which made no task, lists tasks: $out"
unknown_id 1 B "$TA1" "A's"
out=$(cl_ok B list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "1: client B lists tasks after asking for A's: $out"
# A of a made-up id: the same as B of A's.
out=$(cl A get "$MADE_UP") && tfail "1: client A's tasks/get of a made-up id succeeded: $out"
jq -e --arg w "$NOT_FOUND_GET" '.code == -32602 and .message == $w' <<<"$out" >/dev/null ||
	tfail "1: client A's tasks/get of a made-up id: expected -32602 \"$NOT_FOUND_GET\": $out"
out=$(cl_ok A list) || exit 1
jq -e --arg id "$TA1" '.ids == [$id] and .tasks[0].taskId == $id and
	(.tasks[0].status | type) == "string"' <<<"$out" >/dev/null ||
	tfail "1: client A's tasks/list should show its task $TA1 alone: $out"

out=$(cl A stream-wait s1 120000) ||
	tfail "1: client A's callToolStream of $TOOL did not end with its result: $out"
jq -e --arg topic "$TOPIC_A" --arg id "$TA1" '
	(.text | startswith("# Research Report: " + $topic + "\n")) and
	.related == $id' <<<"$out" >/dev/null ||
	tfail "1: client A's result is not its report, or its _meta does not name $TA1: $(jq -c '{related, events, text: (.text // "" | .[:80])}' <<<"$out")"
note "figure: callToolStream of $TOOL through mcpd: $(jq .ms <<<"$out") ms from the call to the result ($(jq -r '.events | join(" ")' <<<"$out"))"
out=$(cl_ok A result "$TA1") || exit 1
jq -e --arg topic "$TOPIC_A" --arg id "$TA1" '
	(.text | startswith("# Research Report: " + $topic + "\n")) and
	.related == $id' <<<"$out" >/dev/null ||
	tfail "1: client A's second tasks/result of $TA1: $(jq -c '{related, text: (.text // "" | .[:80])}' <<<"$out")"
out=$(cl_ok A get "$TA1") || exit 1
jq -e --arg id "$TA1" '.task.taskId == $id and .task.status == "completed"' \
	<<<"$out" >/dev/null ||
	tfail "1: client A's task $TA1 is not completed (B's tasks/cancel of it?): $out"
heard B "$TOPIC_A" && tfail "1: client B was sent client A's topic: $(grep -F "$TOPIC_A" "$T/B.wire" | cut -c 1-400)"
grep -F ' S->C ' "$T/B.wire" | grep -qF "$TA1" &&
	tfail "1: client B was sent client A's task id: $(grep -F ' S->C ' "$T/B.wire" | grep -F "$TA1" | cut -c 1-400)"
note "1: B got \"$NOT_FOUND_GET\" / \"$NOT_FOUND\" for A's task, as for a made-up id"

# --- 2: status notifications to the owner only --------------------------------------
out=$(cl A wait-status "$TA1" completed 30000) ||
	tfail "2: client A heard no status notification \"completed\" of its task $TA1: $out"
jq -e --arg id "$TA1" '.ids == [$id] and .foreign == 0 and (.list | length) >= 2' \
	<<<"$out" >/dev/null ||
	tfail "2: client A's status notifications should all name its task $TA1: $out"
na=$(jq .n <<<"$out")
out=$(cl_ok B statuses) || exit 1
[ "$(jq .n <<<"$out")" = 0 ] ||
	tfail "2: client B heard status notifications of client A's task: $out"
note "figure: status notifications of A's task: $na to A ($(cl_ok A statuses "$TA1" | jq -r '.list | join(" ")')), 0 to B"

# --- 3: tasks/result outlives request_timeout_ms ----------------------------------
cl_start E evq
out=$(cl E call trigger-long-running-operation '{"duration":4,"steps":1}') &&
	tfail "3: a plain 4 s call on evq (request_timeout_ms 1500) did not time out: $out"
jq -e '.code == -32001' <<<"$out" >/dev/null ||
	tfail "3: a plain 4 s call on evq (request_timeout_ms 1500): expected -32001: $out"
TOPIC_E="echo-$RANDOM$RANDOM"
out=$(cl E start "$TOOL" "{\"topic\":\"$TOPIC_E\"}") ||
	tfail "3: client E's task-augmented call on evq failed: $out"
TE=$(task_id "$out") || tfail "3: client E's task id is not 32 hex digits: $out"
out=$(cl E result "$TE") ||
	tfail "3: client E's tasks/result of $TE, sent at once, on evq (request_timeout_ms 1500) failed: $out"
jq -e --arg topic "$TOPIC_E" --arg id "$TE" '
	(.text | startswith("# Research Report: " + $topic + "\n")) and
	.related == $id' <<<"$out" >/dev/null ||
	tfail "3: client E's tasks/result is not its report: $(jq -c '{related, text: (.text // "" | .[:80])}' <<<"$out")"
ms=$(jq .ms <<<"$out")
[ "$ms" -gt 1500 ] ||
	tfail "3: client E's tasks/result came after $ms ms: the task had ended before it was asked, nothing was checked"
note "figure: a blocking tasks/result on evq (request_timeout_ms 1500) answered after $ms ms with the result"
wait_ready evq 30
no_foreign 3 E
cl_close E

# --- 4: the elicitation of A's task goes to A ------------------------------------
# The owner sends tasks/result, then B sends a slow call: B is the latest
# client with a request in flight when the task asks (about 2 s after it
# began), which is where a server's elicitation would go without the
# task's _meta.  Should a slow machine let the question come before B's
# call is in flight, the case starts again with a new owner.
owner=A
for try in 1 2 3; do
	if [ "$try" -gt 1 ]; then
		owner=A$try
		cl_start "$owner" ev
	fi
	cl_ok "$owner" elicit hold >/dev/null
	TOPIC_4="python-$RANDOM$RANDOM"
	out=$(cl "$owner" start "$TOOL" "{\"topic\":\"$TOPIC_4\",\"ambiguous\":true}") ||
		tfail "4: client $owner's ambiguous task failed: $out"
	TA2=$(task_id "$out") || tfail "4: client $owner's task id is not 32 hex digits: $out"
	cl_ok "$owner" result-bg r4 "$TA2" >/dev/null
	wait_inflight ev 1
	cl_ok B call-bg slow trigger-long-running-operation '{"duration":60,"steps":1}' >/dev/null
	wait_inflight ev 2
	asked=$(cl_ok "$owner" elicitations | jq .n)
	[ "$asked" = 0 ] && break
	note "4: client $owner was asked before B's call was in flight (try $try), again"
	cl_ok B call-abort slow >/dev/null
	cl_ok "$owner" wait-elicit 0 60000 >/dev/null
	cl_ok "$owner" answer >/dev/null
	out=$(cl "$owner" result-wait r4 60000) ||
		tfail "4: client $owner's tasks/result of $TA2 failed: $out"
	# shellcheck disable=SC2016  # expanded by eval
	wait_for 30 eval '[ "$(server_field ev inflight)" = 0 ]' ||
		tfail "4: requests still in flight on ev: $(entry ev)"
done
[ "$asked" = 0 ] || tfail "4: three times the task asked before B's call was in flight"
t=$(now_ms)
out=$(cl "$owner" wait-elicit 0 60000) ||
	tfail "4: client $owner, owner of the ambiguous task $TA2, was not asked to clarify within 60 s (B was asked $(cl_ok B elicitations | jq .n) times): $out"
jq -e --arg id "$TA2" '.n == 1 and .list[0].related == $id and
	(.list[0].choices | index("snake"))' <<<"$out" >/dev/null ||
	tfail "4: client $owner's elicitation should name its task $TA2 and offer \"snake\": $out"
out=$(cl_ok B elicitations) || exit 1
[ "$(jq .n <<<"$out")" = 0 ] ||
	tfail "4: client B was sent the elicitation of client $owner's task: $out"
out=$(cl B call-wait slow 0)
jq -e '.pending == true' <<<"$out" >/dev/null ||
	tfail "4: client B's slow call was no longer in flight when $owner was asked: $out"
cl_ok "$owner" answer '{"interpretation":"snake"}' >/dev/null
out=$(cl "$owner" result-wait r4 60000) ||
	tfail "4: client $owner's tasks/result of $TA2 failed after its answer: $out"
jq -e --arg topic "$TOPIC_4" --arg id "$TA2" '
	(.text | startswith("# Research Report: " + $topic + " (snake)\n")) and
	.related == $id' <<<"$out" >/dev/null ||
	tfail "4: client $owner's report does not use its answer \"snake\": $(jq -c '{related, text: (.text // "" | .[:80])}' <<<"$out")"
note "figure: ambiguous task: $owner's tasks/result answered $(($(now_ms) - t)) ms after B's call was in flight; the blocking tasks/result took $(jq .ms <<<"$out") ms"
cl_ok B call-abort slow >/dev/null
heard B "$TOPIC_4" && tfail "4: client B was sent client $owner's topic"
cl_ok "$owner" elicit auto >/dev/null
[ "$owner" = A ] && A_TASKS+=("$TA2")
note "4: the elicitation of $owner's task went to $owner (try $try), not to B"

# --- 5: an on-demand server is not idle while a task runs -------------------------
cl_start F evd
wait_ready evd 90
pd=$(server_pid evd) || tfail "5: evd is ready without a pid: $(entry evd)"
TOPIC_F="foxtrot-$RANDOM$RANDOM"
out=$(cl F start "$TOOL" "{\"topic\":\"$TOPIC_F\"}") ||
	tfail "5: client F's task on evd failed: $out"
TF=$(task_id "$out") || tfail "5: client F's task id is not 32 hex digits: $out"
t_start=$(jq .done <<<"$out")
t=$(now_ms)
# F sends nothing more until the task's last stage (about 3 s in, 1 s
# before it ends: a result mcpd's idle stop took could not be read):
# then its tasks/result.
cl_ok F result-on r5 "$TF" Generating >/dev/null
deadline=$((t + 90000))
while :; do
	e=$(entry evd)
	jq -e --argjson p "$pd" '.state == "ready" and .pid == $p' <<<"$e" >/dev/null ||
		tfail "5: evd (idle_stop_s 1) did not stay up while client F's task ran, $(($(now_ms) - t)) ms after F's last request: $e"
	out=$(cl F result-wait r5 0) && break
	jq -e '.pending == true' <<<"$out" >/dev/null ||
		tfail "5: client F's tasks/result of its task $TF on evd failed: $out"
	[ "$(now_ms)" -lt "$deadline" ] ||
		tfail "5: client F's task on evd did not end within 90 s: $(cl F statuses "$TF")"
	sleep 0.1
done
jq -e --arg topic "$TOPIC_F" '.text | startswith("# Research Report: " + $topic + "\n")' \
	<<<"$out" >/dev/null || tfail "5: client F's result: $(jq -c '{text: (.text // "" | .[:80])}' <<<"$out")"
up=$(($(jq .sent <<<"$out") - t_start))
[ "$up" -gt 2000 ] ||
	tfail "5: client F asked for its result $up ms after its last request: too soon to tell whether evd would stop"
t=$(now_ms)
wait_for 30 server_is evd idle ||
	tfail "5: evd (idle_stop_s 1) did not stop within 30 s of its client's last request, the task ended: $(entry evd)"
wait_for 30 proc_dead "$pd" || tfail "5: evd's process outlived it by 30 s: $(describe_pid "$pd")"
note "figure: on-demand evd (idle_stop_s 1) ready through F's task, $up ms without a request of F's; stopped $(($(now_ms) - t)) ms after F's last request"
no_foreign 5 F
cl_close F

# --- 6: client_max_tasks ------------------------------------------------------------
cl_start D ev
out=$(cl D start "$TOOL" '{"topic":"d1"}') || tfail "6: client D's first task failed: $out"
TD1=$(task_id "$out") || tfail "6: client D's task id is not 32 hex digits: $out"
out=$(cl D start "$TOOL" '{"topic":"d2"}') || tfail "6: client D's second task failed: $out"
TD2=$(task_id "$out") || tfail "6: client D's task id is not 32 hex digits: $out"
out=$(cl D start "$TOOL" '{"topic":"d3"}') &&
	tfail "6: client D's third task was made over client_max_tasks 2: $out"
jq -e '.code == -32015 and (.message | contains("client_max_tasks"))' <<<"$out" >/dev/null ||
	tfail "6: client D's third task: expected -32015 naming client_max_tasks: $out"
note "6: refused: $(jq -r .message <<<"$out")"
out=$(cl B start "$TOOL" '{"topic":"b1"}') ||
	tfail "6: client B could not make a task while client D was at its client_max_tasks: $out"
TB=$(task_id "$out") || tfail "6: client B's task id is not 32 hex digits: $out"
# (Within the 4 s the task runs.)
out=$(cl_ok D cancel "$TD1") || exit 1
jq -e --arg id "$TD1" '.task.taskId == $id and .task.status == "cancelled"' <<<"$out" >/dev/null ||
	tfail "6: client D's tasks/cancel of its task $TD1: $out"
out=$(cl_ok D list) || exit 1
jq -e --arg a "$TD1" --arg b "$TD2" '(.ids | sort) == ([$a, $b] | sort) and
	any(.tasks[]; .taskId == $a and .status == "cancelled")' <<<"$out" >/dev/null ||
	tfail "6: client D should list its two tasks, $TD1 cancelled: $out"
# The cancelled task's next stage fails on the server, which says so on
# its stderr under its own id.
wait_for 30 up_cancelled ||
	tfail "6: ev's stderr does not name the task D cancelled within 30 s: $(ctl logs ev 2>&1 | tail -n 5)"
up=$UP
[ "$up" != "$TD1" ] ||
	tfail "6: the server's id of D's task is the one D was given, $TD1"
for f in "$T"/*.wire; do
	grep -qF "$up" "$f" &&
		tfail "6: client $(basename "$f" .wire) was sent the server's id $up of D's task $TD1: $(grep -F "$up" "$f" | head -n 3 | cut -c 1-400)"
done
note "6: D refused a third task, B made $TB; D's cancelled $TD1 is $up to the server"

# --- 7: a client that leaves takes its tasks along ---------------------------------
no_foreign 7 A
cl_close A
cl_start C ev
for id in "${A_TASKS[@]}"; do
	unknown_id 7 C "$id" "A's (gone)"
done
out=$(cl_ok C list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "7: client C, which made no task, lists tasks after A left: $out"
out=$(cl_ok B list) || exit 1
jq -e --arg id "$TB" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "7: client B should list its own task $TB alone: $out"
out=$(cl_ok B result "$TB") || exit 1
jq -e '.text | startswith("# Research Report: b1\n")' <<<"$out" >/dev/null ||
	tfail "7: client B's result of its own task: $(jq -c '{text: (.text // "" | .[:80])}' <<<"$out")"
note "7: after A left, C got the made-up id's errors for A's tasks"

# --- 8: what the refusal says ---------------------------------------------------------
# A task, ended or cancelled, is kept for its result until its time to
# live is up (server-everything grants 300 s), and counts until then: D
# stays refused, told so, while B, under its own cap, is not.
out=$(cl D wait-status "$TD2" completed 60000) ||
	tfail "8: client D's task $TD2 did not end within 60 s: $out"
out=$(cl D start "$TOOL" '{"topic":"d5"}') &&
	tfail "8: client D made a task while its two were kept, over client_max_tasks 2: $out"
jq -e '.code == -32015 and (.message | contains("client_max_tasks")) and
    (.message | contains("time to live"))' <<<"$out" >/dev/null ||
	tfail "8: client D's refusal should be -32015 naming client_max_tasks and the time to live that frees a place: $out"
out=$(cl D get "$TD2") || tfail "8: client D's ended task is no longer kept: $out"
note "8: D, its two tasks over but kept for their results, is refused a third, told why"

# --- 9: a task through a group --------------------------------------------------------
cl_start A9 dev
cl_start B9 dev
out=$(cl_ok A9 tools) || exit 1
GTOOL=$(jq -r --arg t "$TOOL" 'first(.names[] | select(contains($t))) // empty' <<<"$out")
[ -n "$GTOOL" ] ||
	tfail "9: group dev lists no tool named like $TOOL: $(jq -c .names <<<"$out")"
jq -e '(.tasks.requests.tools.call | type) == "object"' <<<"$out" >/dev/null ||
	tfail "9: group dev's initialize result does not declare capabilities.tasks.requests.tools.call: $(jq -c .tasks <<<"$out")"
jq -e --arg t "$GTOOL" '.taskSupport[$t] == "required"' <<<"$out" >/dev/null ||
	tfail "9: group dev does not list $GTOOL as needing a task: $(jq -c .taskSupport <<<"$out")"
TOPIC_9="golf-$RANDOM$RANDOM"
out=$(cl A9 start "$GTOOL" "{\"topic\":\"$TOPIC_9\"}") ||
	tfail "9: client A9's task-augmented call of $GTOOL through dev failed: $out"
TG=$(task_id "$out") || tfail "9: client A9's task id is not 32 hex digits: $out"
out=$(cl_ok B9 list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "9: client B9, which made no task, lists tasks through dev: $out"
unknown_id 9 B9 "$TG" "A9's"
out=$(cl_ok B9 list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "9: client B9 lists tasks through dev after asking for A9's: $out"
out=$(cl_ok A9 list) || exit 1
jq -e --arg id "$TG" '.ids == [$id] and .tasks[0].taskId == $id' <<<"$out" >/dev/null ||
	tfail "9: client A9's tasks/list through dev should show its task $TG alone: $out"
out=$(cl A9 result "$TG") || tfail "9: client A9's tasks/result of $TG through dev failed: $out"
is_report "$out" "$TOPIC_9" "$TG" ||
	tfail "9: client A9's result through dev is not its report, or its _meta does not name $TG: $(brief "$out")"
out=$(cl_ok A9 get "$TG") || exit 1
jq -e --arg id "$TG" '.task.taskId == $id and .task.status == "completed"' \
	<<<"$out" >/dev/null ||
	tfail "9: client A9's task $TG through dev is not completed (B9's tasks/cancel of it?): $out"
heard B9 "$TOPIC_9" && tfail "9: client B9 was sent client A9's topic"
note "9: A9's task $TG through dev ($GTOOL): B9 got the made-up id's errors, A9 its report"

# --- 10: a bridge's tasks across mcpctl reexec --------------------------------------
cl_start A10 ev
TOPIC_10="hotel-$RANDOM$RANDOM"
out=$(cl A10 start "$TOOL" "{\"topic\":\"$TOPIC_10\"}") ||
	tfail "10: client A10's task failed: $out"
T10=$(task_id "$out") || tfail "10: client A10's task id is not 32 hex digits: $out"
cl_ok A10 result-bg r10 "$T10" >/dev/null
wait_inflight ev 1
t=$(now_ms)
out=$(ctl reexec 2>&1) || tfail "10: mcpctl reexec failed: $out"
note "10: $out"
out=$(cl A10 raw-until ping 60000) ||
	tfail "10: no ping through client A10's bridge succeeded within 60 s of mcpctl reexec: $out"
note "figure: A10's bridge answered a ping $(($(now_ms) - t)) ms after mcpctl reexec began ($(jq .tries <<<"$out") tries; first failure: $(jq -c '.first // "none" | if type == "object" then {code, message} else . end' <<<"$out"))"
# The tasks/result in flight: lost with the connection, unless the task
# had ended and its answer came first.
out=$(cl A10 result-wait r10 60000)
if jq -e '.ok' <<<"$out" >/dev/null; then
	is_report "$out" "$TOPIC_10" "$T10" ||
		tfail "10: client A10's tasks/result in flight over the re-exec: $(brief "$out")"
	note "10: A10's tasks/result was answered before the re-exec"
else
	jq -e '.code == -32000' <<<"$out" >/dev/null ||
		tfail "10: client A10's tasks/result in flight over the re-exec: expected its result or -32000: $out"
	note "10: A10's tasks/result in flight: $(jq -r .message <<<"$out")"
fi
out=$(cl A10 get "$T10") ||
	tfail "10: client A10's tasks/get of its task $T10 after mcpctl reexec failed: $out"
jq -e --arg id "$T10" '.task.taskId == $id' <<<"$out" >/dev/null ||
	tfail "10: client A10's tasks/get of $T10 after mcpctl reexec: $out"
out=$(cl A10 result "$T10") ||
	tfail "10: client A10's tasks/result of its task $T10 after mcpctl reexec failed: $out"
is_report "$out" "$TOPIC_10" "$T10" ||
	tfail "10: client A10's tasks/result of $T10 after mcpctl reexec is not its report: $(brief "$out")"
cl B raw-until ping 60000 >/dev/null ||
	tfail "10: no ping through client B's bridge succeeded within 60 s of mcpctl reexec"
unknown_id 10 B "$T10" "A10's"
out=$(cl B get "$TB") ||
	tfail "10: client B's own task $TB is not B's after mcpctl reexec: $out"
cl_start C10 ev
out=$(cl_ok C10 list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "10: client C10, new after mcpctl reexec, lists tasks: $out"
cl A9 raw-until ping 60000 >/dev/null ||
	tfail "10: no ping through client A9's bridge (group dev) succeeded within 60 s of mcpctl reexec"
out=$(cl A9 list) || tfail "10: client A9's tasks/list through dev after mcpctl reexec failed: $out"
jq -e --arg id "$TG" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "10: client A9's task $TG through dev is not listed for A9 after mcpctl reexec: $out"
heard B "$TOPIC_10" && tfail "10: client B was sent client A10's topic"
note "10: after mcpctl reexec A10 read its task $T10; B got the made-up id's errors for it, C10 an empty list"

# --- 11: a tool that needs a task, called without one ----------------------------------
# R has not listed the tools: the SDK's callTool sends the plain call.
cl_start R ev
TOPIC_11="india-$RANDOM$RANDOM"
out=$(cl R call "$TOOL" "{\"topic\":\"$TOPIC_11\"}") ||
	tfail "11: client R's plain call of $TOOL (no task) failed: $(brief "$out")"
is_report "$out" "$TOPIC_11" ||
	tfail "11: client R's plain call of $TOOL did not get the report: $(brief "$out")"
note "figure: a plain call of $TOOL, run as a task by mcpd: $(($(jq .done <<<"$out") - $(jq .sent <<<"$out"))) ms"
# The task mcpd made for the call was the call's alone: its result names
# none, R heard no status of it, and R's tasks/list shows none.
jq -e '.related == null' <<<"$out" >/dev/null ||
	tfail "11: client R's plain call named a task in its _meta: $out"
out=$(cl R statuses) || tfail "11: client R's statuses: $out"
jq -e '(.n // 0) == 0' <<<"$out" >/dev/null ||
	tfail "11: client R, which made a plain call, heard status notifications: $out"
out=$(cl R list) || tfail "11: client R's tasks/list failed: $out"
jq -e '(.tasks // []) | length == 0' <<<"$out" >/dev/null ||
	tfail "11: client R's tasks/list shows the task of its plain call: $out"
cl_ok R tools >/dev/null
TOPIC_11b="juliet-$RANDOM$RANDOM"
out=$(cl R call-raw "$TOOL" "{\"topic\":\"$TOPIC_11b\"}") ||
	tfail "11: client R's raw tools/call of $TOOL without a task failed: $(brief "$out")"
is_report "$out" "$TOPIC_11b" ||
	tfail "11: client R's raw tools/call of $TOOL without a task did not get the report: $(brief "$out")"
TOPIC_11c="kilo-$RANDOM$RANDOM"
out=$(cl A9 call-raw "$GTOOL" "{\"topic\":\"$TOPIC_11c\"}") ||
	tfail "11: client A9's tools/call of $GTOOL through dev without a task failed: $(brief "$out")"
is_report "$out" "$TOPIC_11c" ||
	tfail "11: client A9's tools/call of $GTOOL through dev without a task did not get the report: $(brief "$out")"
note "11: $TOOL called without a task got its report: on ev, before and after listing, and through dev"

# --- 12: resource links the filters deny are removed ------------------------------
ALL_LINKS=$(jq -cn --arg l "$LINK" '[$l + "/blob/1", $l + "/text/2", $l + "/blob/3", $l + "/text/4"]')
out=$(cl B call get-resource-links '{"count":4}') ||
	tfail "12: client B's get-resource-links on ev failed: $(brief "$out")"
jq -e --argjson w "$ALL_LINKS" '.links == $w' <<<"$out" >/dev/null ||
	tfail "12: get-resource-links on ev (no filter) should link $ALL_LINKS: $(brief "$out")"
cl_start L evf
out=$(cl L call get-resource-links '{"count":4}') ||
	tfail "12: client L's get-resource-links on evf failed: $(brief "$out")"
jq -e --arg l "$LINK" '.links == [$l + "/text/2", $l + "/text/4"] and
	.types == ["text", "resource_link", "resource_link"]' <<<"$out" >/dev/null ||
	tfail "12: get-resource-links on evf (blob/* denied) should keep the text item and link text/2 and text/4 alone: $(brief "$out")"
GLINKS=$(cl_ok A9 tools | jq -r 'first(.names[] | select(contains("get-resource-links"))) // empty')
[ -n "$GLINKS" ] || tfail "12: group dev lists no get-resource-links"
out=$(cl A9 call "$GLINKS" '{"count":4}') ||
	tfail "12: client A9's $GLINKS through dev failed: $(brief "$out")"
jq -e --arg l "$LINK" '.links == [$l + "/text/2"] and
	.types == ["text", "resource_link"]' <<<"$out" >/dev/null ||
	tfail "12: $GLINKS through dev (text/4 denied by dev, blob/* by evf) should link text/2 alone: $(brief "$out")"
# A URI nobody listed nor linked is tried on fk first, and counted there:
# the count sees the group's reads.
n0=$(fk_requests) || tfail "12: no request counts for fk: $(entry fk)"
out=$(cl A9 raw resources/read "{\"uri\":\"$LINK/text/6\"}") ||
	tfail "12: client A9's resources/read of $LINK/text/6 (not linked) through dev failed: $out"
jq -e --arg u "$LINK/text/6" '.result.contents[0].uri == $u' <<<"$out" >/dev/null ||
	tfail "12: client A9's resources/read of $LINK/text/6 through dev: $(jq -c . <<<"$out" | cut -c 1-400)"
n1=$(fk_requests) || tfail "12: no request counts for fk: $(entry fk)"
[ "$n1" -gt "$n0" ] ||
	tfail "12: the resources/read of $LINK/text/6, which no member listed or linked, is not counted on fk, its first member ($n0 requests before, $n1 after): the count cannot tell where a read went"
n0=$n1
out=$(cl A9 raw resources/read "{\"uri\":\"$LINK/text/2\"}") ||
	tfail "12: client A9's resources/read of the linked $LINK/text/2 through dev failed: $out"
jq -e --arg u "$LINK/text/2" '.result.contents[0].uri == $u and
	(.result.contents[0].text | startswith("Resource 2: "))' <<<"$out" >/dev/null ||
	tfail "12: client A9's resources/read of $LINK/text/2 through dev: $(jq -c . <<<"$out" | cut -c 1-400)"
n1=$(fk_requests) || tfail "12: no request counts for fk: $(entry fk)"
[ "$n1" = "$n0" ] ||
	tfail "12: the resources/read of $LINK/text/2, linked by evf, was sent to fk too ($n0 requests before, $n1 after)"
out=$(cl A9 raw resources/read "{\"uri\":\"$LINK/text/4\"}") &&
	tfail "12: client A9 read $LINK/text/4 through dev, which denies it: $out"
jq -e '.code == -32002' <<<"$out" >/dev/null ||
	tfail "12: client A9's resources/read of $LINK/text/4 through dev (denied): expected -32002: $out"
# (The errors of the reads name the URI asked for.)
for c in A9 L; do
	if [ "$c" = A9 ]; then denied=$LINK/text/4; else denied=$LINK/blob/; fi
	grep -F ' S->C ' "$T/$c.wire" | grep -F '"result":' | grep -qF "$denied" &&
		tfail "12: client $c was sent a result naming $denied, which its filters deny: $(grep -F ' S->C ' "$T/$c.wire" | grep -F '"result":' | grep -F "$denied" | head -n 2 | cut -c 1-400)"
done
note "12: links denied by evf's and dev's filters removed; dev read the linked text/2 on evf alone"

# --- 13: a task the client runs for the server ------------------------------------
# trigger-sampling-request-async: the server's sampling/createMessage
# asks for a task; H runs it as one, and the server polls it with
# tasks/get and reads it with tasks/result through mcpd.  S declares
# sampling but not tasks: it gets the request without "task", answers
# it plainly, and the server says it ran synchronously.
ASYNC=trigger-sampling-request-async
cl_start H ev --sampling tasks
cl_start S ev --sampling plain
out=$(cl_ok H call "$ASYNC" '{"prompt":"weather","maxTokens":10}') || exit 1
text=$(jq -r .text <<<"$out")
[[ $text == "[COMPLETED] Async sampling completed!"* ]] ||
	tfail "13: H's call of $ASYNC: $(brief "$out")"
grep -qF 'sampled by H' <<<"$text" ||
	tfail "13: the result of H's call of $ASYNC does not carry H's answer: $(brief "$out")"
seen=$(grep -oE 'Task created: [^ ]+' <<<"$text" | head -1 | cut -d' ' -f3)
hosted=$(cl_ok H samplings) || exit 1
mine=$(jq -r '.hosted[0] // empty' <<<"$hosted")
[ "$(jq '.hosted | length' <<<"$hosted")" = 1 ] && [ -n "$mine" ] ||
	tfail "13: H ran $(jq -c .hosted <<<"$hosted") as tasks for $ASYNC, expected one"
[[ $seen =~ ^[0-9a-f]{32}$ ]] && [ "$seen" != "$mine" ] ||
	tfail "13: the server knew H's task as \"$seen\", expected an id of mcpd's, not H's own \"$mine\""
jq -e --arg m "$mine" '(.taskGets | length) > 0 and all(.taskGets[]; . == $m)' \
	<<<"$hosted" >/dev/null ||
	tfail "13: the server's tasks/get reached H as $(jq -c .taskGets <<<"$hosted"), expected H's own id $mine"
out=$(cl_ok S call "$ASYNC" '{"prompt":"rain","maxTokens":10}') || exit 1
jq -e '.text | startswith("[SYNC]") and contains("sampled by S")' <<<"$out" >/dev/null ||
	tfail "13: S (no tasks) called $ASYNC: $(brief "$out")"
plain=$(cl_ok S samplings) || exit 1
jq -e '.n == 1 and .asked == 0' <<<"$plain" >/dev/null ||
	tfail "13: S, which declared no tasks, was sent $(jq -c '{n, asked}' <<<"$plain") sampling requests (asked: with \"task\"), expected one without"
note "13: the server ran H's task as $seen (H's own id: $mine); S answered plainly"
# Through group dev, whose member evf asks.
cl_start HG dev --sampling tasks
out=$(cl_ok HG tools) || exit 1
GASYNC=$(jq -r --arg t "$ASYNC" 'first(.names[] | select(contains($t))) // empty' <<<"$out")
[ -n "$GASYNC" ] || tfail "13: group dev does not list evf's $ASYNC: $(jq -c .names <<<"$out")"
out=$(cl_ok HG call "$GASYNC" '{"prompt":"snow","maxTokens":10}') || exit 1
text=$(jq -r .text <<<"$out")
[[ $text == "[COMPLETED] Async sampling completed!"* ]] && grep -qF 'sampled by HG' <<<"$text" ||
	tfail "13: HG's call of $GASYNC through dev: $(brief "$out")"
seen=$(grep -oE 'Task created: [^ ]+' <<<"$text" | head -1 | cut -d' ' -f3)
hosted=$(cl_ok HG samplings) || exit 1
mine=$(jq -r '.hosted[0] // empty' <<<"$hosted")
[[ $seen =~ ^[0-9a-f]{32}$ ]] && [ -n "$mine" ] && [ "$seen" != "$mine" ] ||
	tfail "13: through dev, evf knew HG's task as \"$seen\", HG's own id is \"$mine\""
note "13: through dev, evf ran HG's task as $seen (HG's own id: $mine)"

# --- 14: a real restart of mcpd takes the tasks with the servers ------------------
# Not a re-exec: mcpd stops (its servers with it) and starts again.  R's
# bridge reconnects by itself; R's task went with the server that ran
# it: tasks/get, tasks/result and tasks/cancel of its id get the made-up
# id's error, and tasks/list is empty.
cl_start R ev
out=$(cl_ok R start "$TOOL" '{"topic":"restart"}') || exit 1
RID=$(task_id "$out") || tfail "14: R's task: $(brief "$out")"
out=$(cl_ok R get "$RID") || exit 1
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "14: mcpd exited $MCPD_STATUS on SIGTERM"
start_mcpd "$T/mcpd.json"
wait_ready ev 90
out=$(cl R raw-until ping 60000) ||
	tfail "14: R's bridge did not come back within 60 s of mcpd's restart: $out"
unknown_id 14 R "$RID" "its own (before the restart)"
out=$(cl_ok R list) || exit 1
[ "$(jq -c .ids <<<"$out")" = "[]" ] ||
	tfail "14: after mcpd's restart R's tasks/list: $(jq -c . <<<"$out")"
note "14: after a restart of mcpd, R's task $RID is gone: the made-up id's errors, an empty list"

# --- the end: nobody heard of others' tasks -------------------------------------------
for c in "${!CL_PID[@]}"; do
	no_foreign end "$c"
	cl_close "$c"
done
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited $MCPD_STATUS on SIGTERM"
exit 0
