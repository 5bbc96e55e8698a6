#!/bin/bash
# modern-up-hostile.sh -- a server of MCP 2026-07-28 that asks its 2025
# clients for input (input_required) as a careless or hostile server
# would (modern-up-server.mjs, raw JSON, logging what it reads), and 2025
# clients through `mcpctl connect` (modern-up-client.mjs).  What mcpd(8)
# promises under "MCP 2026-07-28 servers", as a user sees it:
#
#   ask       the server's elicitation/create reaches the client that
#             called, whose answer goes back in the retry (a new id,
#             inputResponses.name, requestState "st-1"): "Name: Ada
#             state: st-1"
#   nocaps    a client that declared no elicitation: the call ends with
#             an error saying it did not declare it can answer
#             elicitation/create, and it is asked nothing
#   forever   a server answering input_required every time: the call
#             ends with an error naming the cap of 8 rounds, after 9
#             calls at the server
#   garbage   inputRequests asking for tools/call, or not an object: an
#             error naming the fault
#   cancel    a client that cancels its call while its form is open: the
#             form is withdrawn (notifications/cancelled for its id)
#   silent    after a reload to input_timeout_ms 1000, a client that never
#             answers: the call ends with an error naming
#             input_timeout_ms
# And after all of it mcpd serves the same server to a client (echo), the
# server is ready, never restarted, nothing is in flight.  On the code
# before the server's input was passed, every ask gets "does not yet
# pass" and none of these holds.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
need_node

SERVER_JS=$TESTS_SRCDIR/integration/modern-up-server.mjs
CLIENT_JS=$TESTS_SRCDIR/integration/modern-up-client.mjs
LOG=$T/up.log
: >"$LOG"

config() {
	write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { ${1:-} },
  "mcpServers": {
    "up": { "command": "$NODE", "args": ["$SERVER_JS", "$LOG"],
            "protocol": "2026-07-28", "env": {"MCPD_TEST_DIR": "$T"} }
  }
}
JSON
}
config
start_mcpd "$T/mcpd.json"
wait_ready up

PROBLEMS=()
problem() {
	PROBLEMS+=("$1")
	echo "# PROBLEM $1" >&2
}

# client NAME [ARGS...]: one client run, its JSON in $T/NAME.json.
client() {
	local name=$1
	shift
	timeout -k 5 120 "$NODE" "$CLIENT_JS" "$MCPCTL" "$SOCK" up "$@" \
		</dev/null >"$T/$name.json" 2>"$T/$name.err" ||
		fail "$name: the client failed: $(tail -c 600 "$T/$name.err")"
	jq -e . "$T/$name.json" >/dev/null 2>&1 ||
		fail "$name: the client printed no result: $(tail -c 600 "$T/$name.err")"
}

# step NAME INDEX JQ WHAT: step INDEX of run NAME holds JQ.
step() {
	jq -e ".steps[$2] | $3" "$T/$1.json" >/dev/null ||
		problem "$1: $4: $(jq -c ".steps[$2]" "$T/$1.json" | head -c 800)"
}

# up_in JQ: the lines the server read, as JSON, filtered.
up_in() {
	jq -cR "fromjson? // empty | $1" "$LOG"
}

client main call:ask call:forever call:garbage call:garbage2 call:echo
step main 0 '.result == "Name: Ada state: st-1" and .asked == ["elicitation/create"]' \
	"ask: not answered with the client's name through the retry"
step main 1 '.error.message | test("at most 8 rounds")' \
	"forever: not ended at the round cap"
step main 2 '.error.message | test("not elicitation/create")' \
	"garbage: not refused naming the method"
step main 3 '.error.message | test("inputRequests that is not an object")' \
	"garbage2: not refused naming the fault"
step main 4 '.result == "echo"' "echo after the hostile answers"
n=$(up_in 'select(.method == "tools/call" and .params.name == "forever")' | wc -l)
[ "$n" = 9 ] || problem "forever: the server was called $n times, not 9 (the first and 8 retries)"
retry=$(up_in 'select(.method == "tools/call" and .params.name == "ask" and
	.params.inputResponses.name.content.name == "Ada" and
	.params.requestState == "st-1")')
[ -n "$retry" ] || problem "ask: no retry with inputResponses.name and requestState st-1 reached the server"
ids=$(up_in 'select(.method == "tools/call" and .params.name == "ask") | .id' | sort -u | wc -l)
[ "$ids" = 2 ] || problem "ask: the call and its retry had $ids distinct ids, not 2"

client nocaps --caps none call:ask call:echo
step nocaps 0 '(.error.message | test("did not declare that it can answer elicitation/create")) and .asked == []' \
	"a client without elicitation: not refused saying so"
step nocaps 1 '.result == "echo"' "echo after the refusal"

client cancel cancel:ask call:echo
step cancel 0 '.withdrawn == true and .asked == ["elicitation/create"]' \
	"a cancelled call's form was not withdrawn"
step cancel 1 '.result == "echo"' "echo after the cancel"

config '"input_timeout_ms": 1000'
ctl_run reload reload
ctl_rc 0 reload "mcpctl reload (input_timeout_ms 1000)"
wait_ready up
client silent --silent call:ask
step silent 0 '(.error.message | test("input_timeout_ms")) and .asked == ["elicitation/create"]' \
	"a client that never answers: its call did not end naming input_timeout_ms"

client after call:echo
step after 0 '.result == "echo"' "echo at the end"
{ server_is up ready && [ "$(server_field up restarts)" = 0 ]; } ||
	problem "up: state $(server_field up state), restarts $(server_field up restarts)"
# shellcheck disable=SC2317 # run by wait_for
idle() { [ "$(server_field up inflight)" = 0 ]; }
wait_for 10 idle || problem "up: inflight $(server_field up inflight) after every client left"

if [ "${#PROBLEMS[@]}" -gt 0 ]; then
	printf '%s\n' "${PROBLEMS[@]}" >&2
	fail "${#PROBLEMS[@]} problem(s), first: ${PROBLEMS[0]}"
fi
stop_mcpd
exit 0
