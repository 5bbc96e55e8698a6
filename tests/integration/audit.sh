#!/bin/bash
# audit.sh -- "audit": a journal entry per call, in a private journald
# (../systemd/journald-lib.sh, as journal.sh).
#
# - With "calls" (here the "mcpd" object's default): N calls through
#   mcpctl connect (tools/call ok and error, prompts/get error,
#   resources/read ok and error) make N entries with the documented
#   MESSAGE_ID, the right server, method, name, outcome and the bridge's
#   pid and uid, durations and byte counts, and no argument's value; the
#   keyed hash is equal for equal arguments (in another order) and
#   differs for others.  tools/list makes none.
# - "full" adds the arguments; "off" (a server's own) writes none.
# - A call mcpd refuses itself (a filter's) gets an entry at once:
#   outcome "refused", MCPD_REASON and MCPD_ERROR_CODE, the client's pid
#   and uid, a duration of 0, no argument's value; so does one a group
#   refuses itself (its filter), under the member's name.
# - mcpctl audit prints them, filtered by server and by client, as a
#   table and as JSON lines.
# - journald stopped (SIGSTOP): calls are still answered at once, what
#   the queue cannot hold is dropped and counted in status, and once
#   journald runs again an entry says how many were dropped.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../systemd/journald-lib.sh
. "$TESTS_SRCDIR/systemd/journald-lib.sh"

journald_can_run || skip "$JOURNALD_WHY"

PROTO_H=$TESTS_SRCDIR/../src/proto.h
mid() {
	local v
	v=$(sed -n 's/^#define[[:space:]]\{1,\}'"$1"'[[:space:]]\{1,\}"\([0-9a-f]\{32\}\)".*/\1/p' "$PROTO_H")
	[ -n "$v" ] || hard_error "$1 is not defined in $PROTO_H"
	echo "$v"
}
MID_AUDIT=$(mid MCPD_MID_AUDIT)
MID_DROPPED=$(mid MCPD_MID_AUDIT_DROPPED)

journald_start

journal_dump() {
	in_ns journalctl -o json --all --no-pager -q >"$T/journal.json" 2>"$T/journalctl.err"
}
journal_count() {
	jq -c "select($1)" "$T/journal.json" 2>/dev/null | wc -l
}
journal_has() {
	journal_dump || return 1
	[ "$(journal_count "$2")" -ge "$1" ]
}

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": {"audit": "calls"},
  "mcpServers": {
    "a": {"command": "$MCP_FAKE"},
    "f": {"command": "$MCP_FAKE", "audit": "full"},
    "o": {"command": "$MCP_FAKE", "audit": "off"},
    "d": {"command": "$MCP_FAKE", "tools": {"deny": ["echo"]}}
  },
  "groups": {
    "gd": {"servers": ["d"], "tools": {"deny": ["d__add"]}}
  }
}
JSON

MCPD_PREFIX=(nsenter -t "$JD_HOLDER" -m --)
MCPD_LOG_TARGET=journal
start_mcpd "$T/mcpd.json"
wait_ready a
wait_ready f
wait_ready o
wait_ready d

request() {
	jq -nc --arg id "$1" --arg m "$2" --argjson p "$3" \
		'{jsonrpc: "2.0", id: $id, method: $m, params: $p}'
}

# session NAME OUT: a session with NAME through mcpctl connect, the
# requests of $T/NAME.req after the handshake, every reply in OUT; the
# bridge's pid in BRIDGE_PID.
session() {
	local name=$1 out=$2 line
	{
		request init initialize '{"protocolVersion": "2025-11-25",
			"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}'
		printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		cat "$T/$name.req"
	} >"$T/$name.in"
	spawn sess "$MCPCTL" -s "$SOCK" connect "$name"
	BRIDGE_PID=$sess_PID
	spawn_send sess "$(cat "$T/$name.in")"
	spawn_close sess
	: >"$out"
	while spawn_read sess 60 line; do
		printf '%s\n' "$line" >>"$out"
	done
	spawn_wait sess 30 || fail "mcpctl connect $name did not exit at the end of its input"
}

SECRET=s3cr3t-$$-$RANDOM
{
	request e1 tools/call "$(jq -nc --arg s "$SECRET" '{name: "echo", arguments: {text: $s}}')"
	request add1 tools/call '{"name": "add", "arguments": {"a": 1, "b": 2}}'
	request add2 tools/call '{"name": "add", "arguments": {"b": 2, "a": 1}}'
	request add3 tools/call '{"name": "add", "arguments": {"a": 1, "b": 3}}'
	request fail tools/call '{"name": "fail", "arguments": {}}'
	request p1 prompts/get "$(jq -nc --arg s "$SECRET" '{name: "nosuch", arguments: {x: $s}}')"
	request r1 resources/read '{"uri": "fake://hello"}'
	request r2 resources/read '{"uri": "fake://nosuch"}'
	request l1 tools/list '{}'
} >"$T/a.req"
N=8
session a "$T/a.out"
A_PID=$BRIDGE_PID
[ "$(jq -s 'map(select(.id != null and .id != "init")) | length' "$T/a.out")" = 9 ] ||
	fail "not every request to a was answered: $(cat "$T/a.out")"

request fe tools/call "$(jq -nc --arg s "$SECRET" '{name: "echo", arguments: {text: ("full-" + $s)}}')" >"$T/f.req"
session f "$T/f.out"
{
	request oe tools/call "$(jq -nc --arg s "$SECRET" '{name: "echo", arguments: {text: $s}}')"
	request or resources/read '{"uri": "fake://hello"}'
} >"$T/o.req"
session o "$T/o.out"

{
	request de tools/call "$(jq -nc --arg s "$SECRET" '{name: "echo", arguments: {text: $s}}')"
	request da tools/call '{"name": "add", "arguments": {"a": 1, "b": 2}}'
} >"$T/d.req"
session d "$T/d.out"
D_PID=$BRIDGE_PID
jq -e -s 'any(.[]; .id == "de" and .error.code == -32602)' "$T/d.out" >/dev/null ||
	fail "d's echo (denied by its filter) was not refused: $(cat "$T/d.out")"
request gda tools/call '{"name": "d__add", "arguments": {"a": 1, "b": 2}}' >"$T/gd.req"
session gd "$T/gd.out"
GD_PID=$BRIDGE_PID
jq -e -s 'any(.[]; .id == "gda" and .error.code == -32602)' "$T/gd.out" >/dev/null ||
	fail "gd's d__add (denied by the group's filter) was not refused: $(cat "$T/gd.out")"

sel_a="(.MESSAGE_ID == \"$MID_AUDIT\" and .MCPD_SERVER == \"a\")"
sel_f="(.MESSAGE_ID == \"$MID_AUDIT\" and .MCPD_SERVER == \"f\")"
sel_o="(.MESSAGE_ID == \"$MID_AUDIT\" and .MCPD_SERVER == \"o\")"
wait_for 30 journal_has "$N" "$sel_a" ||
	fail "$(journal_count "$sel_a") audit entries for a, expected $N: $(cat "$T/journalctl.err")"
wait_for 30 journal_has 1 "$sel_f" || fail "no audit entry for f (\"full\")"
journal_dump
[ "$(journal_count "$sel_a")" = "$N" ] ||
	fail "$(journal_count "$sel_a") audit entries for a, expected exactly $N (tools/list is not one)"
[ "$(journal_count "$sel_o")" = 0 ] ||
	fail "\"off\" wrote $(journal_count "$sel_o") audit entries"

# entry ID_FILTER: the one entry of a that the filter selects, as JSON.
entry() {
	jq -c "select($sel_a and ($1))" "$T/journal.json"
}
expect() {
	local what=$1 filter=$2 got
	got=$(entry "$filter" | wc -l)
	[ "$got" = 1 ] || fail "$what: $got entries of a match $filter: $(jq -c "select($sel_a) | {MCPD_METHOD, MCPD_TOOL, MCPD_PROMPT, MCPD_URI, MCPD_OUTCOME}" "$T/journal.json")"
}
expect "echo ok" '.MCPD_METHOD == "tools/call" and .MCPD_TOOL == "echo" and .MCPD_OUTCOME == "ok"'
[ "$(jq -c "select($sel_a and .MCPD_TOOL == \"add\" and .MCPD_OUTCOME == \"ok\")" "$T/journal.json" | wc -l)" = 3 ] ||
	fail "not 3 add entries with outcome ok"
expect "fail error" '.MCPD_TOOL == "fail" and .MCPD_OUTCOME == "error -32603"'
expect "prompt error" '.MCPD_METHOD == "prompts/get" and .MCPD_PROMPT == "nosuch" and (.MCPD_OUTCOME | startswith("error -"))'
expect "read ok" '.MCPD_METHOD == "resources/read" and .MCPD_URI == "fake://hello" and .MCPD_OUTCOME == "ok" and .MCPD_ARGS_HMAC == null'
expect "read error" '.MCPD_URI == "fake://nosuch" and (.MCPD_OUTCOME | startswith("error -"))'

# Every entry: the bridge's pid, root's uid, numbers, a message.
bad=$(jq -c --arg pid "$A_PID" "select($sel_a) | select(.MCPD_CLIENT_PID != \$pid or
	.MCPD_CLIENT_UID != \"$(id -u)\" or
	(.MCPD_DURATION_US | test(\"^[0-9]+\$\") | not) or
	(.MCPD_BYTES_IN | test(\"^[1-9][0-9]*\$\") | not) or
	(.MCPD_BYTES_OUT | test(\"^[1-9][0-9]*\$\") | not) or
	((.MESSAGE // \"\") | startswith(\"audit: a \") | not))" "$T/journal.json")
[ -z "$bad" ] || fail "entries without the bridge's pid ($A_PID), uid, numbers or message: $bad"
# No value of any argument, in any field: only "full" has them.
grep -F "$SECRET" "$T/journal.json" | jq -c 'select(.MCPD_SERVER != "f")' | grep -q . &&
	fail "an argument's value reached the journal without \"full\": $(grep -F "$SECRET" "$T/journal.json" | head -2)"
# The keyed hash: equal arguments alike whatever their order, others not.
h1=$(entry '.MCPD_TOOL == "add"' | jq -rs '.[0].MCPD_ARGS_HMAC')
hashes=$(entry '.MCPD_TOOL == "add"' | jq -r .MCPD_ARGS_HMAC | sort | uniq -c | awk '{ print $1 }' | sort | tr '\n' ' ')
[ "$hashes" = "1 2 " ] ||
	fail "add's hashes: counts '$hashes', expected one pair (a=1,b=2 in two orders) and one other"
[[ $h1 =~ ^[0-9a-f]{64}$ ]] || fail "MCPD_ARGS_HMAC is not 64 hex digits: $h1"
note "a: $N entries; add's hashes $hashes"

# A call mcpd refused itself (d's filter denies echo): an entry at once,
# outcome "refused", why and the error, who made it, no argument.
sel_d="(.MESSAGE_ID == \"$MID_AUDIT\" and .MCPD_SERVER == \"d\")"
wait_for 30 journal_has 3 "$sel_d" ||
	fail "$(journal_count "$sel_d") audit entries for d, expected 3 (two refused calls, one answered)"
n=$(jq -c --arg pid "$D_PID" "select($sel_d and .MCPD_TOOL == \"echo\" and
	.MCPD_OUTCOME == \"refused\" and .MCPD_REASON == \"filter\" and
	.MCPD_ERROR_CODE == \"-32602\" and .MCPD_DURATION_US == \"0\" and
	.MCPD_CLIENT_PID == \$pid and .MCPD_CLIENT_UID == \"$(id -u)\" and
	.MCPD_ARGS == null)" "$T/journal.json" | wc -l)
[ "$n" = 1 ] || fail "no entry for d's refused echo (refused, filter, -32602, pid $D_PID): $(jq -c "select($sel_d)" "$T/journal.json")"
[ "$(journal_count "$sel_d and .MCPD_TOOL == \"add\" and .MCPD_OUTCOME == \"ok\"")" = 1 ] ||
	fail "no entry for d's add: $(jq -c "select($sel_d)" "$T/journal.json")"
# A group's own refusal goes to the member's record, by the group's name.
[ "$(journal_count "$sel_d and .MCPD_TOOL == \"d__add\" and .MCPD_OUTCOME == \"refused\" and
	.MCPD_REASON == \"filter\" and .MCPD_CLIENT_PID == \"$GD_PID\"")" = 1 ] ||
	fail "no entry for gd's refused d__add: $(jq -c "select($sel_d)" "$T/journal.json")"

# "full": the arguments, canonical.
n=$(jq -c --arg s "full-$SECRET" "select($sel_f and .MCPD_ARGS == ({text: \$s} | tojson))" "$T/journal.json" | wc -l)
[ "$n" = 1 ] || fail "\"full\": no entry with MCPD_ARGS {\"text\":\"full-...\"}: $(jq -c "select($sel_f)" "$T/journal.json")"

# --- mcpctl audit ---------------------------------------------------------------
in_ns "$MCPCTL" audit --server a >"$T/audit.out" 2>"$T/audit.err" ||
	fail "mcpctl audit --server a failed: $(cat "$T/audit.err")"
[ "$(sed 1d "$T/audit.out" | wc -l)" = "$N" ] ||
	fail "mcpctl audit --server a printed $(sed 1d "$T/audit.out" | wc -l) rows, expected $N: $(cat "$T/audit.out")"
head -1 "$T/audit.out" | grep -q '^TIME .*OUTCOME' || fail "no table header: $(head -1 "$T/audit.out")"
grep -q " $A_PID .* echo .*ok" "$T/audit.out" || fail "no row for echo from pid $A_PID: $(cat "$T/audit.out")"
grep -q "fake://hello" "$T/audit.out" || fail "no row for the read: $(cat "$T/audit.out")"
in_ns "$MCPCTL" audit --json >"$T/audit.json" 2>"$T/audit.err" ||
	fail "mcpctl audit --json failed: $(cat "$T/audit.err")"
[ "$(jq -s 'map(select(.server == "a")) | length' "$T/audit.json")" = "$N" ] ||
	fail "mcpctl audit --json: not $N lines of a: $(cat "$T/audit.json")"
[ "$(jq -s 'map(select(.server == "o")) | length' "$T/audit.json")" = 0 ] ||
	fail "mcpctl audit --json shows entries of o"
jq -e -s --argjson pid "$A_PID" 'map(select(.server == "a")) | all(.pid == $pid and (.duration_us | type) == "number")' \
	"$T/audit.json" >/dev/null || fail "mcpctl audit --json: pid or duration wrong: $(head -2 "$T/audit.json")"
in_ns "$MCPCTL" audit --client "$A_PID" --json >"$T/client.json" || fail "mcpctl audit --client failed"
[ "$(jq -s 'length' "$T/client.json")" = "$N" ] ||
	fail "mcpctl audit --client $A_PID: $(jq -s length "$T/client.json") lines, expected $N"
in_ns "$MCPCTL" audit --since 1h --server nosuch >"$T/none.out" || fail "mcpctl audit --server nosuch failed"
[ ! -s "$T/none.out" ] || fail "mcpctl audit --server nosuch printed: $(cat "$T/none.out")"
ctl_run badsince audit --since yesterday-ish
ctl_rc 2 badsince "mcpctl audit --since yesterday-ish"

# --- journald stopped -------------------------------------------------------------
# Enough calls to fill the queue (4096 entries) and the journal socket's
# own, on one connection, at most 4000 in flight (client_max_inflight is
# 4096): the replies are counted while journald is stopped.  (mcpd's
# other entries, a connection's end among them, are still written from
# its loop: the bridge is let go only once journald runs again.)
CALLS=6000
JPID=$(cat "$JD/journald.pid")
flood() {
	local i
	for i in $(seq "$1" "$2"); do
		printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}\n' "$i"
	done
}
{
	request init initialize '{"protocolVersion": "2025-11-25",
		"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
} >"$T/flood.in"
spawn fl "$MCPCTL" -s "$SOCK" connect a
spawn_send fl "$(cat "$T/flood.in")"
spawn_read fl 30 line || fail "no answer to initialize"
kill -STOP "$JPID" || hard_error "cannot stop journald"
start_ms=$(now_ms)
n=0
for batch in 0 1 2; do
	spawn_send fl "$(flood $((batch * 2000 + 1)) $((batch * 2000 + 2000)))"
	while [ "$n" -lt $(((batch + 1) * 2000)) ]; do
		spawn_read fl 60 line || {
			kill -CONT "$JPID"
			fail "with journald stopped, $n of $CALLS calls were answered"
		}
		[[ $line == *'"result":'* ]] ||
			{ kill -CONT "$JPID"; fail "with journald stopped: $line"; }
		n=$((n + 1))
	done
done
took=$(($(now_ms) - start_ms))
kill -CONT "$JPID"
spawn_close fl
spawn_wait fl 60 || fail "mcpctl connect a did not exit at the end of its input"
dropped=$(ctl --json status | jq '.daemon.audit.dropped')
[ "$dropped" -gt 0 ] 2>/dev/null || fail "no audit entry counted as dropped with journald stopped: $(ctl --json status | jq -c .daemon.audit)"
note "journald stopped: $CALLS calls answered in $took ms, $dropped entries dropped"
sel_d="(.MESSAGE_ID == \"$MID_DROPPED\")"
wait_for 60 journal_has 1 "$sel_d" || fail "no entry saying audit entries were dropped"
told=$(jq -s "map(select($sel_d) | .MCPD_DROPPED | tonumber) | add" "$T/journal.json")
[ "$told" -ge 1 ] && [ "$told" -le "$dropped" ] ||
	fail "entries say $told dropped, status says $dropped"
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited $MCPD_STATUS on SIGTERM"
exit 0
