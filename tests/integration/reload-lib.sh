# reload-lib.sh -- a scriptable client for reload.sh, logs.sh, metrics.sh
# and ctl.sh (sourced, not run).
#
# Builds on mux-lib.sh (and so lib.sh; needs node).  rc_start runs
# reload-client.mjs (spawn, lib.sh) holding named connections to mcpd;
# `rc JSON` sends it one command and waits (bounded) for its one-line
# answer, left in $RC_OUT.  The connections stay open between commands, so
# a test can keep clients attached and requests in flight while it
# reloads, kills or inspects mcpd.  Call rc from the test's own shell (not
# inside $(...)): RC_OUT and the count of answers live there.

# shellcheck shell=bash source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

RC_CLIENT=$TESTS_SRCDIR/integration/reload-client.mjs
[ -r "$RC_CLIENT" ] || hard_error "missing $RC_CLIENT"
RC_OUT=
RC_N=0

# rc_start: start the client on $SOCK.  It carries this test's marker in
# its environment, so the cleanup kills it whatever happens.
rc_start() {
	spawn RC_PROC "$NODE" "$RC_CLIENT" --sock "$SOCK" 2>>"$T/reload-client.err"
}

# rc JSON [TIMEOUT_S]: one command; its answer in RC_OUT.  Fails the test
# if the client died, did not answer within TIMEOUT_S (default 60: the
# client's own waits are 30 s) or answered ok:false.
rc() {
	local line
	RC_N=$((RC_N + 1))
	pid_running "$RC_PROC_PID" ||
		fail "reload-client is gone (command $1): $(tail -5 "$T/reload-client.err" 2>/dev/null)"
	spawn_send RC_PROC "$1"
	spawn_read RC_PROC "${2:-60}" line ||
		fail "reload-client did not answer within ${2:-60} s: $1; $(tail -5 "$T/reload-client.err" 2>/dev/null)"
	RC_OUT=$line
	[ "$(jq -r .n <<<"$line")" = "$RC_N" ] ||
		hard_error "reload-client answered out of order: $line"
	[ "$(jq -r .ok <<<"$line")" = true ] ||
		fail "reload-client: $1: $(jq -r .error <<<"$line")"
}

# rcv FILTER: a value from the last answer (strings raw).
rcv() {
	jq -r "$1" <<<"$RC_OUT"
}

# tool_json ID NAME ARGS: a tools/call request for rc's send/call.
tool_json() {
	printf '"id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}' \
		"$(jq -nc --arg i "$1" '$i')" "$2" "$3"
}

# rc_tool OP CONN ID NAME ARGS [TIMEOUT_MS]: send or call one tool (a call
# waits TIMEOUT_MS, 30 s by default, for the reply).
rc_tool() {
	local op=$1 conn=$2 id=$3 name=$4 args=$5 tmo=${6:-30000}
	rc "{\"op\":\"$op\",\"conn\":\"$conn\",$(tool_json "$id" "$name" "$args"),\"timeout\":$tmo}" \
		$((tmo / 1000 + 10))
}

# rc_echo CONN ID TEXT: an echo that must come back with TEXT.
rc_echo() {
	rc_tool call "$1" "$2" echo "$(jq -nc --arg t "$3" '{text: $t}')"
	[ "$(rcv '.reply.result.content[0].text')" = "$3" ] ||
		fail "echo \"$3\" on connection $1 got: $(rcv '.raw // "no reply"')"
}

# rc_stop: end the client (its connections close).
rc_stop() {
	rc '{"op":"quit"}'
	spawn_wait RC_PROC 30 || fail "reload-client did not quit"
	spawn_close RC_PROC
}
