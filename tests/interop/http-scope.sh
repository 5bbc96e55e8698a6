#!/bin/bash
# http-scope.sh -- an HTTP session of mcpd's front (mcpd-http) gets the
# instances and tasks of a socket client (instances.sh, tasks.sh): the
# official SDK's StreamableHTTPClientTransport (http-scope.mjs, with the
# roots capability, answering roots/list over its GET stream), with
# tokens from `mcpctl token create`, on server-everything.
#
#   1  per-client: two HTTP sessions (one token) with their own roots
#      each get an instance of their own, which mcpd asked for the
#      session's roots: get-roots-list shows each session only its own;
#      `mcpctl --json status` shows two instances, each attached to one
#      session alone (its clientInfo.name, app "token:NAME"), given its
#      roots.  When the sessions end (DELETE), their instances stop.
#   2  per-roots: two sessions with the same roots (of two tokens) share
#      one instance, a third with other roots gets another; each sees
#      its own roots.  The third then changes its roots to the others'
#      (notifications/roots/list_changed): it moves to their instance,
#      sees its new roots, and the instance it left stops.
#   3  tasks: alice's callToolStream of simulate-research-query (a tool
#      run only as a task) makes a task and ends with its report; while
#      it runs, bob's tasks/list does not show it, and bob's tasks/get,
#      tasks/result and tasks/cancel of its id get the error of a made-up
#      id; alice's tasks/list shows it, her tasks/get says completed
#      (not cancelled by bob), her tasks/result is the report.  bob's
#      own task is his alone.  A token's sessions share its tasks:
#      alice's second session lists her task, and reads its result once
#      her first session has ended.
#      Neither token was sent the other's task id or topic.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-scope.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-scope: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"
# shellcheck source=task-clients.sh
. "$TESTS_SRCDIR/interop/task-clients.sh"

http_front_prep http-scope.mjs

TOOL=simulate-research-query
NOT_FOUND_GET='Failed to retrieve task: Task not found'
NOT_FOUND='Task not found'
MADE_UP=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
[[ $MADE_UP =~ ^[0-9a-f]{32}$ ]] || hard_error "cannot make up a task id: $MADE_UP"

# evc: per-client; evr: per-roots; ev: shared, for the tasks.
config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--argjson port "$PORT" '
	def lit: gsub("\\$"; "$$");
	def everything: { command: ($node | lit),
		args: ([$ev, "stdio"] | map(lit)), cwd: ($t | lit),
		env: { MCPD_TEST_DIR: ($t | lit) } };
	{
		mcpd: { http: { listen: ["127.0.0.1:\($port)"] },
			init_timeout_ms: 60000 },
		mcpServers: {
			evc: (everything + { share: "per-client",
				idle_stop_s: 0 }),
			evr: (everything + { share: "per-roots",
				idle_stop_s: 0 }),
			ev: (everything + { start: "on-demand" })
		}
	}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
for who in alice bob; do
	tok=$("$MCPCTL" token create "$who" --servers evc,evr,ev) ||
		fail "mcpctl token create $who failed"
	printf -v "TOKEN_$who" '%s' "$tok"
done
http_front_wait

# The clients: task-clients.sh's, each an http-scope.mjs on a URL.
# cl_spawn NAME PATH WHO [ARGS...]: client NAME on BASE/PATH with WHO's
# token and http-scope.mjs's ARGS.
cl_spawn() {
	local id=$1 path=$2 tokvar=TOKEN_$3
	shift 3
	cl_run "$id" "$NODE" "$T/http-scope.mjs" --url "$BASE$path" \
		--token "${!tokvar}" --name "$id" --trace "$T/$id.wire" "$@"
}

# status_json: mcpctl --json status.
status_json() {
	ctl --json status 2>/dev/null
}

# inst_of SERVER CLIENT: the instance of SERVER whose attached clients
# include the session named CLIENT.
# shellcheck disable=SC2317  # called through wait_for
inst_of() {
	status_json | jq -er --arg s "$1" --arg c "$2" '
		first(.servers[] | select(.instance_of == $s and
			any(.attached[]?; .client == $c))) | .name'
}

# inst_wait SERVER CLIENT: inst_of, waiting for it.
inst_wait() {
	# shellcheck disable=SC2034  # used in the eval
	local iw_name iw_server=$1 iw_client=$2
	# shellcheck disable=SC2016  # expanded by eval
	wait_for 30 eval 'iw_name=$(inst_of "$iw_server" "$iw_client")' ||
		tfail "session $2 is attached to no instance of $1: $(status_json | jq -c '[.servers[] | select(.instance_of == "'"$1"'") | {name, attached}]')"
	printf '%s\n' "$iw_name"
}

# entry NAME: the status entry of server or instance NAME, without its
# statistics ("null" if none).
entry() {
	status_json | jq -c --arg n "$1" '
		(first(.servers[] | select(.name == $n)) | del(.stats)) // null'
}

# roots_wait NAME WANT-JSON: session NAME's get-roots-list shows exactly
# the roots WANT (the instance asks for them once initialized).
roots_wait() {
	# shellcheck disable=SC2034  # used in the eval
	local rw_id=$1 rw_want=$2 rw_out
	# shellcheck disable=SC2016  # expanded by eval
	wait_for 30 eval 'rw_out=$(cl "$rw_id" call get-roots-list) &&
		jq -e --argjson w "$rw_want" "(.uris | sort) == (\$w | sort)" \
			<<<"$rw_out" >/dev/null' ||
		tfail "session $1's server was not given its roots $2: $rw_out"
}

# is_report OUT TOPIC ID: OUT is the research report on TOPIC, of task ID.
is_report() {
	jq -e --arg topic "$2" --arg id "$3" '
		(.text // "" | startswith("# Research Report: " + $topic + "\n")) and
		.related == $id' <<<"$1" >/dev/null
}

# --- 1: per-client ------------------------------------------------------------
cl_start c1 /servers/evc/mcp alice --root file:///tmp/a
cl_start c2 /servers/evc/mcp alice --root file:///tmp/b
roots_wait c1 '["file:///tmp/a"]'
roots_wait c2 '["file:///tmp/b"]'
for c in c1 c2; do
	out=$(cl_ok "$c" roots-asked) || exit 1
	[ "$(jq .n <<<"$out")" -ge 1 ] ||
		tfail "1: session $c's server knows its roots, but $c was never sent roots/list: $out"
done
i1=$(inst_wait evc c1) || exit 1
i2=$(inst_wait evc c2) || exit 1
[ "$i1" != "$i2" ] || tfail "1: sessions c1 and c2 share the per-client instance $i1"
for pair in "c1 $i1 file:///tmp/a" "c2 $i2 file:///tmp/b"; do
	read -r c i r <<<"$pair"
	e=$(entry "$i")
	jq -e --arg c "$c" --arg r "$r" '.instance_of == "evc" and
		(.attached | length) == 1 and .attached[0].client == $c and
		.roots == [$r]' <<<"$e" >/dev/null ||
		tfail "1: $i should be attached to session $c alone and given its root $r: $e"
	jq -e '.attached[0].app == "token:alice"' <<<"$e" >/dev/null ||
		tfail "1: $i's attached session is not shown as token:alice: $e"
done
note "1: $(entry "$i1" | jq -c '{name, roots, attached}')"
p1=$(server_pid "$i1") || tfail "1: $i1 has no pid: $(entry "$i1")"
p2=$(server_pid "$i2") || tfail "1: $i2 has no pid: $(entry "$i2")"
[ "$p1" != "$p2" ] || tfail "1: $i1 and $i2 are the same process $p1"
cl_close c1
cl_close c2
for i in "$i1" "$i2"; do
	# shellcheck disable=SC2016  # expanded by eval
	wait_for 30 eval '[ "$(entry "$i")" = null ]' ||
		tfail "1: $i is still there 30 s after its session ended: $(entry "$i")"
done
note "1: per-client: c1 on $i1, c2 on $i2, each with its own roots; both stopped after DELETE"

# --- 2: per-roots -------------------------------------------------------------
cl_start c3 /servers/evr/mcp alice --root file:///tmp/a
cl_start c4 /servers/evr/mcp bob --root file:///tmp/a
cl_start c5 /servers/evr/mcp bob --root file:///tmp/b
roots_wait c3 '["file:///tmp/a"]'
roots_wait c4 '["file:///tmp/a"]'
roots_wait c5 '["file:///tmp/b"]'
i3=$(inst_wait evr c3) || exit 1
i4=$(inst_wait evr c4) || exit 1
i5=$(inst_wait evr c5) || exit 1
[ "$i3" = "$i4" ] ||
	tfail "2: sessions c3 and c4 with the same roots are on $i3 and $i4"
[ "$i5" != "$i3" ] ||
	tfail "2: session c5 with other roots shares $i3 with c3 and c4"
jq -e '(.attached | map(.client) | sort) == ["c3", "c4"] and
	.roots == ["file:///tmp/a"]' <<<"$(entry "$i3")" >/dev/null ||
	tfail "2: $i3 should serve c3 and c4 with file:///tmp/a: $(entry "$i3")"
jq -e '(.attached | map(.client)) == ["c5"] and .roots == ["file:///tmp/b"]' \
	<<<"$(entry "$i5")" >/dev/null ||
	tfail "2: $i5 should serve c5 alone with file:///tmp/b: $(entry "$i5")"
note "2: per-roots: c3 and c4 on $i3, c5 on $i5"
# c5 opens c3's folder: it moves to c3's instance, and its own stops.
# shellcheck disable=SC2034  # used in the eval
p5=$(server_pid "$i5") || tfail "2: $i5 has no pid: $(entry "$i5")"
cl_ok c5 roots file:///tmp/a >/dev/null || exit 1
roots_wait c5 '["file:///tmp/a"]'
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval '[ "$(inst_of evr c5)" = "$i3" ]' ||
	tfail "2: session c5, now with the roots of $i3, is not attached to it: $(entry "$i3")"
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval '[ "$(entry "$i5")" = null ] && proc_dead "$p5"' ||
	tfail "2: $i5, left by its only session, is still there: $(entry "$i5")"
roots_wait c3 '["file:///tmp/a"]'
cl_close c3
cl_close c4
cl_close c5
note "2: c5, its roots changed to file:///tmp/a, moved to $i3; $i5 stopped"

# --- 3: tasks, each token its own ------------------------------------------------
cl_start A /servers/ev/mcp alice
cl_start B /servers/ev/mcp bob
out=$(cl_ok A tools) || exit 1
jq -e --arg t "$TOOL" '.taskSupport[$t] == "required" and
	(.tasks.requests.tools.call | type) == "object"' <<<"$out" >/dev/null ||
	tfail "3: session A does not see tasks on ev: $(jq -c '{tasks, taskSupport}' <<<"$out")"
cl_ok B tools >/dev/null || exit 1
TOPIC_A="alpha-$RANDOM$RANDOM"
out=$(cl A stream s1 "$TOOL" "{\"topic\":\"$TOPIC_A\"}") ||
	tfail "3: session A's callToolStream of $TOOL made no task: $out"
TA=$(task_id "$out") || tfail "3: session A's task id is not 32 hex digits: $out"

out=$(cl_ok B list) || exit 1
jq -e '.ids == []' <<<"$out" >/dev/null ||
	tfail "3: bob, who made no task, lists tasks: $out"
for op in get result cancel; do
	out=$(cl B "$op" "$TA") &&
		tfail "3: bob's tasks/$op of alice's task $TA succeeded: $out"
	made=$(cl B "$op" "$MADE_UP") &&
		tfail "3: bob's tasks/$op of a made-up id succeeded: $made"
	if [ "$op" = get ]; then want=$NOT_FOUND_GET; else want=$NOT_FOUND; fi
	jq -e --arg w "$want" '.code == -32602 and .message == $w' \
		<<<"$made" >/dev/null ||
		tfail "3: bob's tasks/$op of a made-up id: expected -32602 \"$want\": $made"
	[ "$(jq -c '{code, message}' <<<"$out")" = \
		"$(jq -c '{code, message}' <<<"$made")" ] ||
		tfail "3: bob's tasks/$op of alice's task is not refused as a made-up id is: $out, against $made"
done
out=$(cl_ok A list) || exit 1
jq -e --arg id "$TA" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "3: alice's tasks/list should show her task $TA alone: $out"

out=$(cl A stream-wait s1 120000) ||
	tfail "3: session A's callToolStream of $TOOL did not end with its result: $out"
is_report "$out" "$TOPIC_A" "$TA" ||
	tfail "3: session A's stream did not end with its report naming $TA: $(jq -c '{related, events, text: (.text // "" | .[:80])}' <<<"$out")"
out=$(cl_ok A get "$TA") || exit 1
jq -e --arg id "$TA" '.task.taskId == $id and .task.status == "completed"' \
	<<<"$out" >/dev/null || tfail "3: alice's task $TA is not completed: $out"
out=$(cl_ok A result "$TA") || exit 1
is_report "$out" "$TOPIC_A" "$TA" ||
	tfail "3: alice's tasks/result of $TA: $(jq -c '{related, text: (.text // "" | .[:80])}' <<<"$out")"

# bob's own task: his, not alice's.
TOPIC_B="beta-$RANDOM$RANDOM"
out=$(cl B stream s2 "$TOOL" "{\"topic\":\"$TOPIC_B\"}") ||
	tfail "3: session B's callToolStream of $TOOL made no task: $out"
TB=$(task_id "$out") || tfail "3: session B's task id is not 32 hex digits: $out"
out=$(cl B stream-wait s2 120000) ||
	tfail "3: session B's callToolStream did not end with its result: $out"
is_report "$out" "$TOPIC_B" "$TB" ||
	tfail "3: session B's stream did not end with its report: $(jq -c '{related, events, text: (.text // "" | .[:80])}' <<<"$out")"
out=$(cl_ok B list) || exit 1
jq -e --arg id "$TB" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "3: bob's tasks/list should show his task $TB alone: $out"
out=$(cl_ok A list) || exit 1
jq -e --arg id "$TA" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "3: alice's tasks/list should show her task $TA alone: $out"
out=$(cl A get "$TB") && tfail "3: alice's tasks/get of bob's task $TB succeeded: $out"
# A token's sessions share its tasks: alice's second session, and after
# her first has ended.
cl_start A2 /servers/ev/mcp alice
out=$(cl_ok A2 list) || exit 1
jq -e --arg id "$TA" '.ids == [$id]' <<<"$out" >/dev/null ||
	tfail "3: alice's second session should list her task $TA alone: $out"
cl_close A
out=$(cl_ok A2 result "$TA") || exit 1
is_report "$out" "$TOPIC_A" "$TA" ||
	tfail "3: alice's second session's tasks/result of $TA, her first session gone: $(jq -c '{related, text: (.text // "" | .[:80])}' <<<"$out")"
heard B "$TOPIC_A" && tfail "3: bob was sent alice's topic"
heard B "$TA" && tfail "3: bob was sent alice's task id"
heard A "$TOPIC_B" && tfail "3: alice was sent bob's topic"
heard A "$TB" && tfail "3: alice was sent bob's task id"
heard A2 "$TB" && tfail "3: alice's second session was sent bob's task id"
cl_close A2
cl_close B
note "3: alice's task $TA and bob's $TB, each seen by its own token alone"

ctl status >/dev/null || fail "mcpd stopped answering"
stop_mcpd
exit 0
