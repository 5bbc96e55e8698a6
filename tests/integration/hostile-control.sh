#!/bin/bash
# hostile-control.sh -- the control path is as strict as the data path.
#
# - Every line is checked by the strict scanner before anything else:
#   two objects on one line, trailing garbage, a raw control character or
#   invalid UTF-8 in a string get one -32700 each (nothing is silently
#   lost or half-read); "jsonrpc" other than "2.0", or none, gets -32600
#   with the caller's id, also on an attached session (and is not
#   forwarded to the server).
# - Every reply carries the caller's id byte for byte: 1e400, 2^64,
#   "a\u0000b", 1.0, -0 come back as written, from control methods, from
#   their errors and on attached sessions.
# - A 16 MiB control request (an array of 8 M numbers) costs mcpd about
#   the line itself, not a tree of it (some 660 MiB before): its params
#   are refused over 1 MiB with a clear error; the same
#   for a 16 MiB line that is not an object, and a 16 MiB initialize is
#   still answered.  mcpd's VmHWM growth is printed and held to 2.5 times
#   the line (unsanitized builds).

. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/rawlines.mjs" "$TESTS_SRCDIR/integration/rawjson.mjs" "$T/"

write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "demo": { "command": "$MCP_FAKE" } } }
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo 30

# raw IN OUT [EXPECT]: send IN's lines on one connection, replies to OUT.
raw() {
	timeout -k 5 120 "$NODE" "$T/rawlines.mjs" "$SOCK" "$1" "$2" ${3:+"$3"} ||
		fail "rawlines.mjs $1 failed"
}
# reply OUT N FILTER: jq FILTER on the Nth reply's parsed line.
reply() {
	jq -r --argjson n "$2" '.replies[$n].line' "$1" | jq -r "$3"
}
rawid() {
	jq -r --argjson n "$2" '.replies[$n].id' "$1"
}

# --- malformed lines, unattached ---------------------------------------------
{
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"mcpd/version"}{"jsonrpc":"2.0","id":2,"method":"mcpd/version"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"mcpd/version"} garbage'
	printf '{"jsonrpc":"2.0","id":"a\tb","method":"mcpd/version"}\n'
	printf '{"jsonrpc":"2.0","id":"\xff\xfe","method":"mcpd/version"}\n'
	printf '%s\n' '{"jsonrpc":"1.0","id":5,"method":"mcpd/version"}'
	printf '%s\n' '{"id":6,"method":"mcpd/version"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":7,"method":"mcpd/version"}'
} >"$T/bad.in"
raw "$T/bad.in" "$T/bad.out"
n=$(jq '.replies | length' "$T/bad.out")
[ "$n" = 7 ] || fail "7 lines got $n replies: $(jq -c .replies "$T/bad.out")"
for i in 0 1 2 3; do
	code=$(reply "$T/bad.out" $i .error.code)
	id=$(rawid "$T/bad.out" $i)
	note "malformed line $((i + 1)): $code, id $id: $(reply "$T/bad.out" $i .error.message)"
	[ "$code" = -32700 ] && [ "$id" = null ] ||
		fail "malformed line $((i + 1)) got $(jq -c ".replies[$i]" "$T/bad.out"), expected -32700 with a null id"
done
for i in 4 5; do
	code=$(reply "$T/bad.out" $i .error.code)
	id=$(rawid "$T/bad.out" $i)
	note "jsonrpc not \"2.0\" (line $((i + 1))): $code, id $id: $(reply "$T/bad.out" $i .error.message)"
	[ "$code" = -32600 ] && [ "$id" = $((i + 1)) ] ||
		fail "line $((i + 1)) got $(jq -c ".replies[$i]" "$T/bad.out"), expected -32600 with id $((i + 1))"
done
[ "$(reply "$T/bad.out" 6 .result.version)" != null ] ||
	fail "the good line after the bad ones got $(jq -c '.replies[6]' "$T/bad.out")"

# --- ids byte for byte --------------------------------------------------------
IDS=('1e400' '"a\u0000b"' '18446744073709551616' '1.0' '-0' '1E+2' '"\ud800"'
	'123456789012345678901234567890' '"\u00e9"')
: >"$T/ids.in"
for id in "${IDS[@]}"; do
	printf '{"jsonrpc":"2.0","id":%s,"method":"mcpd/version"}\n' "$id" >>"$T/ids.in"
	printf '{"jsonrpc":"2.0","id":%s,"method":"mcpd/no-such-method"}\n' "$id" >>"$T/ids.in"
	printf '{"jsonrpc":"2.0","id":%s,"method":"mcpd/logs","params":{"server":"nope"}}\n' "$id" >>"$T/ids.in"
done
raw "$T/ids.in" "$T/ids.out"
k=0
for id in "${IDS[@]}"; do
	for what in result "method not found" "unknown server"; do
		got=$(rawid "$T/ids.out" $k)
		[ "$got" = "$id" ] ||
			fail "id $id came back as $got ($what): $(jq -c ".replies[$k]" "$T/ids.out")"
		k=$((k + 1))
	done
done
note "${#IDS[@]} odd ids came back byte for byte from a result, an unknown method and an error: ${IDS[*]}"

# --- attached sessions ---------------------------------------------------------
requests0=$(server_field demo stats | jq ".requests | add")
{
	printf '%s\n' '{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"demo"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1.0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	printf '%s\n' '{"jsonrpc":"1.0","id":2,"method":"tools/list"}'
	printf '%s\n' '{"id":3,"method":"tools/list"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":1e400,"method":"mcpd/version"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":-0,"method":"mcpd/logs","params":{"server":"nope"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":2.50,"method":"tools/list"}'
} >"$T/att.in"
raw "$T/att.in" "$T/att.out"
[ "$(jq '.replies | length' "$T/att.out")" = 7 ] ||
	fail "the attached session got $(jq '.replies | length' "$T/att.out") replies to 7 requests: $(jq -c .replies "$T/att.out")"
[ "$(rawid "$T/att.out" 1)" = 1.0 ] || fail "initialize id 1.0 came back as $(rawid "$T/att.out" 1)"
for i in 2 3; do
	[ "$(reply "$T/att.out" $i .error.code)" = -32600 ] ||
		fail "attached, jsonrpc not \"2.0\": $(jq -c ".replies[$i]" "$T/att.out")"
done
[ "$(rawid "$T/att.out" 4)" = 1e400 ] || fail "attached mcpd/version id 1e400 came back as $(rawid "$T/att.out" 4)"
[ "$(rawid "$T/att.out" 5)" = -0 ] || fail "attached mcpd/logs error id -0 came back as $(rawid "$T/att.out" 5)"
[ "$(rawid "$T/att.out" 6)" = 2.50 ] || fail "tools/list id 2.50 came back as $(rawid "$T/att.out" 6)"
requests1=$(server_field demo stats | jq ".requests | add")
[ $((requests1 - requests0)) = 1 ] ||
	fail "the server got $((requests1 - requests0)) requests, expected 1 (the messages without \"jsonrpc\": \"2.0\" must not reach it)"
note "attached: jsonrpc 1.0 and none refused with -32600 and not forwarded; ids 1.0, 1e400, -0, 2.50 exact"

# --- 16 MiB lines --------------------------------------------------------------
PAD_BYTES=$((16 * 1024 * 1024 - 200))
pad=$(head -c "$PAD_BYTES" /dev/zero | tr '\0' x)
# Many small values: the shape that costs cJSON the most (a 16 MiB array
# of numbers used to take mcpd to some 660 MiB).
printf '{"jsonrpc":"2.0","id":"big","method":"mcpd/status","params":{"a":[%s]}}\n' \
	"$(yes 1 | head -n $((PAD_BYTES / 2)) | paste -sd, -)" >"$T/big1.in"
printf '["%s"]\n' "$pad" >"$T/big2.in"
{
	printf '%s\n' '{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"demo"}}'
	printf '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"%s","version":"1"}}}\n' "$pad"
	printf '{"jsonrpc":"2.0","id":"big","method":"mcpd/status","params":{"pad":"%s"}}\n' "$pad"
} >"$T/big3.in"
unset pad
slow_build=
sanitized "$MCPD" && slow_build=1
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
raw "$T/big1.in" "$T/big1.out"
code=$(reply "$T/big1.out" 0 .error.code)
msg=$(reply "$T/big1.out" 0 .error.message)
note "16 MiB mcpd/status: $code: $msg"
[ "$code" = -32600 ] || fail "a 16 MiB control request got $(jq -c .replies "$T/big1.out")"
case "$msg" in *"at most 1048576"*) ;; *) fail "the error does not name the limit: $msg" ;; esac
raw "$T/big2.in" "$T/big2.out"
code=$(reply "$T/big2.out" 0 .error.code)
note "16 MiB array: $code: $(reply "$T/big2.out" 0 .error.message)"
[ "$code" = -32700 ] || fail "a 16 MiB array got $(jq -c .replies "$T/big2.out")"
raw "$T/big3.in" "$T/big3.out"
[ "$(reply "$T/big3.out" 1 .result.protocolVersion)" = 2025-11-25 ] ||
	fail "a 16 MiB initialize was not answered: $(jq -c '.replies[1]' "$T/big3.out" | head -c 500)"
[ "$(reply "$T/big3.out" 2 .error.code)" = -32600 ] ||
	fail "a 16 MiB control request on an attached session got $(jq -c '.replies[2]' "$T/big3.out" | head -c 500)"
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
growth=$((hwm1 - hwm0))
bar=$((PAD_BYTES * 5 / 2 / 1024))
note "mcpd VmHWM $hwm0 -> $hwm1 KiB after three 16 MiB lines: +$((growth / 1024)) MiB (bar $((bar / 1024)) MiB, 2.5 x the line)"
if [ -n "$slow_build" ]; then
	note "mcpd is built with AddressSanitizer: its memory is not asserted"
else
	[ "$growth" -le "$bar" ] || fail "VmHWM grew by $growth KiB, more than $bar KiB"
fi
mcpd_running || fail "mcpd died"
ctl status >/dev/null || fail "status failed at the end"
exit 0
