#!/bin/bash
# bridge-modern.sh -- `mcpctl connect` carries an MCP 2026-07-28 client
# (no initialize; every request says what it is in params._meta) across
# restarts of mcpd, as it does a 2025 session.  Raw JSON lines through the
# bridge, to mcp-fake, which ignores the 2026 _meta.
#
#   A  A client that never sent initialize: a call goes through; a long
#      call is in flight when mcpd is killed (SIGKILL) and started again.
#      The call in flight fails once with the error a 2025 client gets
#      (-32000), a call sent while mcpd is away waits and is answered,
#      a call after the reconnect just goes through, and the bridge does
#      not end.  The same with SIGTERM.
#   B  An open subscriptions/listen.  What this checks depends on the
#      daemon, so the case asks first: it sends the listen and waits for
#      either mcpd's notifications/subscriptions/acknowledged (mcpd serves
#      2026 streams) or a reply to it (it does not; mcp-fake answers
#      -32601).  The replay is only asserted when mcpd acknowledged it; a
#      script cannot skip (exit 77) one case and pass the others, so
#      without that support the case checks what it can and says so.
#        acknowledged: across a restart the listen is not failed, it is
#        sent again under its own id, the new connection's
#        acknowledgement does not reach the client (it had one), and
#        once the client cancels it a later loss leaves nothing to send.
#        answered: the reply reaches the client once, and the bridge
#        forgets the listen: the restart sends nothing again.
#   C  The bridge's part whatever the daemon: a stand-in server that
#      acknowledges a listen itself (as mcpd does for a 2026 client; since
#      mcpd gives the server an id of its own, the test puts the listen's
#      id in its params for the stand-in to quote; a daemon that serves
#      listens itself acknowledges with the client's id, and the case
#      passes the same).  A listen and one over the bridge's bound of
#      64 KiB a line: across a restart the small one is sent again and
#      its new acknowledgement swallowed, the large one fails once as a
#      request in flight does.  Then, with --reconnect-timeout 1 and mcpd
#      never back, the open listen is answered with an error once and
#      the bridge exits non-zero.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand,
# from the top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/integration/bridge-modern.sh

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

REQLOG=$T/requests.log
# The stand-in of case C: answers initialize and calls of echo,
# acknowledges a listen with the id in its params' x-sid, and never
# answers it.
cat >"$T/stand.sh" <<'EOF'
while IFS= read -r line; do
	case $(jq -r '.method // empty' <<<"$line") in
	initialize)
		jq -c '{jsonrpc: "2.0", id, result: {
			protocolVersion: .params.protocolVersion,
			capabilities: {tools: {listChanged: true}},
			serverInfo: {name: "stand", version: "1"}}}' <<<"$line" ;;
	subscriptions/listen)
		jq -c '{jsonrpc: "2.0",
			method: "notifications/subscriptions/acknowledged",
			params: {notifications: .params.notifications, _meta:
			{"io.modelcontextprotocol/subscriptionId":
			.params["x-sid"]}}}' <<<"$line" ;;
	tools/call)
		jq -c '{jsonrpc: "2.0", id, result: {content: [{type: "text",
			text: .params.arguments.text}]}}' <<<"$line" ;;
	notifications/* | '') ;;
	*)	jq -c '{jsonrpc: "2.0", id, result: {}}' <<<"$line" ;;
	esac
done
EOF
write_config "$T/mcpd.json" "$(jq -n --arg fake "$MCP_FAKE" --arg log "$REQLOG" \
	--arg bash "$BASH" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	{ mcpServers: {
		fake: { command: $fake, args: ["--request-log=" + $log] },
		stand: { command: ($bash | lit), args: [($t | lit) + "/stand.sh"],
			env: { MCPD_TEST_DIR: ($t | lit) } } } }')"

# What a 2026-07-28 client puts in every request's params.
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'

# call ID TOOL ARGS: a tools/call line with the 2026 _meta.
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s,%s}}' \
		"$1" "$2" "$3" "$META"
}

# br_start NAME [SERVER [ARGS...]]: mcpctl connect SERVER (fake) under
# spawn; its stdout goes to $T/NAME.out as br_until reads it, its stderr
# to $T/NAME.err.
br_start() {
	local name=$1 server=${2:-fake}
	shift $(($# < 2 ? $# : 2))
	: >"$T/$name.out"
	spawn "$name" "$MCPCTL" -s "$SOCK" connect "$server" "$@" \
		2>"$T/$name.err"
}

# br_until NAME FILTER WHAT: read NAME's lines into $T/NAME.out until one
# matches the jq FILTER (or one read before did); fail (saying WHAT) if
# none comes within 30 s.
br_until() {
	local line deadline
	[ "$(count "$1" "$2")" = 0 ] || return 0
	deadline=$(($(now_ms) + 30000))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		spawn_read "$1" 30 line ||
			fail "$3: the bridge said nothing more; its stderr: $(tail -5 "$T/$1.err")"
		printf '%s\n' "$line" >>"$T/$1.out"
		jq -e "$2" <<<"$line" >/dev/null 2>&1 && return 0
	done
	fail "$3: not within 30 s; the bridge's output: $(cat "$T/$1.out")"
}

# count NAME FILTER: how many lines of NAME's output match FILTER.
count() {
	jq -s "[.[] | select($2)] | length" "$T/$1.out"
}

# echo_through NAME ID TEXT WHAT: a call of echo is answered with TEXT.
echo_through() {
	spawn_send "$1" "$(call "$2" echo "{\"text\":\"$3\"}")"
	br_until "$1" ".id == $2" "$4: the answer to echo $3"
	[ "$(count "$1" ".id == $2 and .result.content[0].text == \"$3\"")" = 1 ] ||
		fail "$4: echo $3 was answered: $(jq -c "select(.id == $2)" "$T/$1.out")"
}

# restart SIGNAL: mcpd stopped with SIGNAL and started again, its
# servers ready.
restart() {
	stop_mcpd "$1"
	start_mcpd "$T/mcpd.json"
	wait_ready fake
	wait_ready stand
}

start_mcpd "$T/mcpd.json"
wait_ready fake
wait_ready stand

# --- A: requests of a client that never sent initialize ----------------------------
br_start A
echo_through A 1 one "A, first"
n=10
for sig in KILL TERM; do
	spawn_send A "$(call $n sleep '{"ms":60000}')"
	wait_inflight fake 1 30
	stop_mcpd "$sig"
	# Sent while mcpd is away: it waits for the new connection.
	spawn_send A "$(call $((n + 1)) echo "{\"text\":\"waited-$sig\"}")"
	br_until A ".id == $n" "A ($sig): the answer to the call in flight"
	start_mcpd "$T/mcpd.json"
	wait_ready fake
	br_until A ".id == $((n + 1))" "A ($sig): the answer to the call that waited"
	[ "$(count A ".id == $((n + 1)) and .result.content[0].text == \"waited-$sig\"")" = 1 ] ||
		fail "A ($sig): the call that waited was answered: $(jq -c "select(.id == $((n + 1)))" "$T/A.out")"
	echo_through A $((n + 2)) "after-$sig" "A ($sig), after the reconnect"
	[ "$(count A ".id == $n")" = 1 ] ||
		fail "A ($sig): the call in flight was answered $(count A ".id == $n") times"
	[ "$sig" != KILL ] || [ "$(count A ".id == $n and .error.code == -32000")" = 1 ] ||
		fail "A ($sig): the call in flight did not get the bridge's -32000: $(jq -c "select(.id == $n)" "$T/A.out")"
	[ "$(count A ".id == $n and .error != null")" = 1 ] ||
		fail "A ($sig): the call in flight did not fail: $(jq -c "select(.id == $n)" "$T/A.out")"
	pid_running "$A_PID" || fail "A ($sig): the bridge ended: $(cat "$T/A.err")"
	[ "$(grep -c "connected again" "$T/A.err")" = $((n / 10)) ] ||
		fail "A ($sig): the bridge did not say it connected again: $(cat "$T/A.err")"
	note "A ($sig): in flight: $(jq -c "select(.id == $n) | .error | {code, message}" "$T/A.out"); waited and after: answered"
	n=$((n + 10))
done
[ "$(count A '.method != null')" = 0 ] ||
	fail "A: the client was sent messages it did not ask for: $(jq -c 'select(.method != null)' "$T/A.out")"
spawn_close A
spawn_wait A 30 || fail "A: the bridge did not end with its stdin"
[ "$SPAWN_STATUS" = 0 ] || fail "A: the bridge exited $SPAWN_STATUS: $(cat "$T/A.err")"

# --- B: an open subscriptions/listen ------------------------------------------------
LISTEN='{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},'"$META"'}}'
ACKED='.method == "notifications/subscriptions/acknowledged" and .params._meta["io.modelcontextprotocol/subscriptionId"] == "L1"'
listens_sent() {
	grep -c '^subscriptions/listen ' "$REQLOG" 2>/dev/null
}

br_start B
spawn_send B "$LISTEN"
br_until B "($ACKED) or .id == \"L1\"" "B: an acknowledgement of or a reply to the listen"
if [ "$(count B "$ACKED")" = 1 ]; then
	note "B: mcpd acknowledged the listen: its replay is checked"
	echo_through B 1 before "B, before the restart"
	n=10
	for sig in TERM KILL; do
		restart "$sig"
		# The listen goes first on the new connection, so mcpd has
		# taken it (and acknowledged it) before it answers this.
		echo_through B "$n" "after-$sig" "B ($sig), after the restart"
		n=$((n + 1))
		[ "$(count B '.id == "L1"')" = 0 ] ||
			fail "B ($sig): the listen was answered: $(jq -c 'select(.id == "L1")' "$T/B.out")"
		[ "$(count B "$ACKED")" = 1 ] ||
			fail "B ($sig): the client was acknowledged $(count B "$ACKED") times"
		grep -q "subscriptions/listen of the client.s to send again" "$T/B.err" ||
			fail "B ($sig): the bridge did not say it sent the listen again: $(cat "$T/B.err")"
	done
	spawn_send B '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L1"}}'
	echo_through B 2 cancelled "B, after the cancel"
	said=$(wc -l <"$T/B.err")
	restart KILL
	echo_through B 3 after-cancel "B, after the restart that followed the cancel"
	if tail -n +"$((said + 1))" "$T/B.err" | grep -q "send again\|sent again"; then
		fail "B: a cancelled listen was sent again: $(cat "$T/B.err")"
	fi
	[ "$(count B '.id == "L1"')" = 0 ] ||
		fail "B: the cancelled listen was answered by the bridge: $(jq -c 'select(.id == "L1")' "$T/B.out")"
	note "B: the listen went on across SIGTERM and SIGKILL, acknowledged once; cancelled, it was forgotten"
else
	note "B: mcpd answered the listen ($(jq -c 'select(.id == "L1") | .error // .result' "$T/B.out")): it does not serve subscriptions/listen, so its replay is not checked"
	before=$(listens_sent)
	restart KILL
	echo_through B 1 after "B, after the restart"
	[ "$(count B '.id == "L1"')" = 1 ] ||
		fail "B: the answered listen got $(count B '.id == "L1"') replies"
	[ "$(listens_sent)" = "$before" ] ||
		fail "B: the answered listen was sent again ($before, then $(listens_sent) in the server's log)"
	if grep -q "subscriptions/listen" "$T/B.err"; then
		fail "B: the bridge kept the answered listen: $(cat "$T/B.err")"
	fi
	note "B: the answered listen was forgotten: nothing sent again"
fi
pid_running "$B_PID" || fail "B: the bridge ended: $(cat "$T/B.err")"
spawn_close B
spawn_wait B 30 || fail "B: the bridge did not end with its stdin"
[ "$SPAWN_STATUS" = 0 ] || fail "B: the bridge exited $SPAWN_STATUS: $(cat "$T/B.err")"

# --- C: listens acknowledged by a stand-in -------------------------------------------
# listen ID [N]: a subscriptions/listen of id ID (a string), x-sid for the
# stand-in; with N, padded with N bytes.
listen() {
	local pad=
	[ $# -lt 2 ] || pad=$(head -c "$2" /dev/zero | tr '\0' x)
	printf '{"jsonrpc":"2.0","id":"%s","method":"subscriptions/listen","params":{"x-sid":"%s","pad":"%s","notifications":{"toolsListChanged":true},%s}}' \
		"$1" "$1" "$pad" "$META"
}
acked() {
	printf '.method == "notifications/subscriptions/acknowledged" and .params._meta["io.modelcontextprotocol/subscriptionId"] == "%s"' "$1"
}

br_start C stand
spawn_send C "$(listen S)" "$(listen BIG 70000)"
br_until C "$(acked S)" "C: the acknowledgement of S"
br_until C "$(acked BIG)" "C: the acknowledgement of BIG"
grep -q "will not be sent again" "$T/C.err" ||
	fail "C: the bridge did not say the large listen is not kept: $(cat "$T/C.err")"
restart KILL
echo_through C 1 after "C, after the restart"
br_until C '.id == "BIG"' "C: the error of the large listen"
[ "$(count C '.id == "BIG" and .error.code == -32000')" = 1 ] ||
	fail "C: the large listen did not fail once: $(jq -c 'select(.id == "BIG")' "$T/C.out")"
[ "$(count C '.id == "S"')" = 0 ] ||
	fail "C: the listen was answered: $(jq -c 'select(.id == "S")' "$T/C.out")"
[ "$(count C "$(acked S)")" = 1 ] ||
	fail "C: the client got $(count C "$(acked S)") acknowledgements of S"
[ "$(count C "$(acked BIG)")" = 1 ] ||
	fail "C: the client got $(count C "$(acked BIG)") acknowledgements of BIG"
grep -q "1 subscriptions/listen of the client.s to send again" "$T/C.err" ||
	fail "C: the bridge did not say what it kept: $(cat "$T/C.err")"
# Cancelled, it is forgotten: the next restart sends nothing again (and
# mcpd, with nothing in flight, ends the session when stdin does).
spawn_send C '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"S"}}'
echo_through C 2 cancelled "C, after the cancel"
said=$(wc -l <"$T/C.err")
restart KILL
echo_through C 3 after-cancel "C, after the restart that followed the cancel"
if tail -n +"$((said + 1))" "$T/C.err" | grep -q "send again\|sent again"; then
	fail "C: a cancelled listen was sent again: $(cat "$T/C.err")"
fi
[ "$(count C '.id == "S"')" = 0 ] ||
	fail "C: the cancelled listen was answered by the bridge: $(jq -c 'select(.id == "S")' "$T/C.out")"
spawn_close C
spawn_wait C 30 || fail "C: the bridge did not end with its stdin"
[ "$SPAWN_STATUS" = 0 ] || fail "C: the bridge exited $SPAWN_STATUS: $(cat "$T/C.err")"
note "C: a listen went on across a restart, acknowledged once, and was forgotten once cancelled; one over 64 KiB failed as a request"

# Given up: the listen is the client's to hear of.
br_start G stand --reconnect-timeout 1
spawn_send G "$(listen S)"
br_until G "$(acked S)" "G: the acknowledgement of S"
stop_mcpd KILL
br_until G '.id == "S"' "G: the answer to the listen once the bridge gave up"
spawn_wait G 30 || fail "G: the bridge did not give up"
[ "$SPAWN_STATUS" != 0 ] || fail "G: the bridge exited 0 after giving up"
[ "$(count G '.id == "S" and .error.code == -32000')" = 1 ] ||
	fail "G: the listen was not failed once: $(jq -c 'select(.id == "S")' "$T/G.out")"
note "C: given up: the listen failed once: $(jq -c 'select(.id == "S") | .error.message' "$T/G.out")"
exit 0
