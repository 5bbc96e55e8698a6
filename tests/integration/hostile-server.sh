#!/bin/bash
# hostile-server.sh -- a server cannot grow mcpd by asking and never
# reading.
#
# Two servers write 2 000 000 requests that mcpd answers itself (ping;
# sampling/createMessage with no client able to take it) and never read
# their stdin.  mcpd used to queue every answer (2 M pings: 82 MB).  Now
# its own answers are dropped past 4 MiB queued and counted, and after
# 10 000 dropped the server is restarted as broken.  mcpd's VmHWM growth
# is printed and held under 24 MiB; another server keeps answering
# meanwhile.  And mcpd still never stops reading a server's stdout: a
# single-threaded server writing an 8 MiB reply while an 8 MiB request
# waits in its stdin answers both.

. "$TESTS_SRCDIR/integration/lib.sh"

FLOOD=2000000
# The 8 MiB request of the last part is one line: on a loaded machine the
# client may take longer to write it than the default 5 s that a line may
# stay unfinished (hostile-slow.sh tests that limit), so it is raised here.
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 60000, "backoff_max_ms": 60000,
            "client_line_timeout_ms": 120000 },
  "mcpServers": {
    "pings": { "command": "$MCP_FAKE", "args": ["--flood-requests=$FLOOD"],
               "disabled": true },
    "asks": { "command": "$MCP_FAKE", "disabled": true,
              "args": ["--flood-requests=$FLOOD", "--flood-method=sampling/createMessage"] },
    "calm": { "command": "$MCP_FAKE" }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready calm 30
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
# mcpctl start reports what became of them: soon, backoff.
ctl start pings asks >/dev/null 2>&1
for s in pings asks; do
	wait_for 60 eval '[ "$(server_field '"$s"' restarts)" -ge 1 ] 2>/dev/null || server_is '"$s"' backoff' ||
		fail "$s, flooding requests and never reading, was not restarted (state $(server_field $s state), dropped $(server_field $s stats | jq .dropped_answers))"
	note "$s: last_exit '$(server_field $s last_exit)', answers dropped $(server_field $s stats | jq .dropped_answers)"
	case "$(server_field $s last_exit)" in
	*"does not read them"*) ;;
	*) fail "$s: last_exit does not say it does not read its stdin" ;;
	esac
done
out=$(ctl call calm echo text=still-here) || fail "calm did not answer during the floods: $out"
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
growth=$(((hwm1 - hwm0) / 1024))
note "mcpd VmHWM $hwm0 -> $hwm1 KiB: +$growth MiB while two servers asked $FLOOD times each without reading (bar 24 MiB)"
if sanitized "$MCPD"; then
	note "mcpd is built with AddressSanitizer: its memory is not asserted"
else
	[ "$growth" -lt 24 ] || fail "mcpd grew by $growth MiB"
fi

BIG=$((8 * 1024 * 1024))
cp "$TESTS_SRCDIR/integration/rawlines.mjs" "$TESTS_SRCDIR/integration/rawjson.mjs" "$T/"
need_node
{
	printf '%s\n' '{"jsonrpc":"2.0","id":"att","method":"mcpd/attach","params":{"server":"calm"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	printf '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"big","arguments":{"bytes":%d}}}\n' "$BIG"
	printf '{"jsonrpc":"2.0","id":"echo","method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}\n' "$(head -c "$BIG" /dev/zero | tr '\0' y)"
} >"$T/big.in"
t0=$(now_ms)
timeout -k 5 120 "$NODE" "$T/rawlines.mjs" "$SOCK" "$T/big.in" "$T/big.out" || fail "rawlines.mjs failed"
ms=$(($(now_ms) - t0))
n=$(jq '[.replies[] | select(.id == "\"big\"" or .id == "\"echo\"") | select(.line | test("\"result\""))] | length' "$T/big.out")
note "an 8 MiB reply written while an 8 MiB request waited in the server's stdin: $n of 2 answered in $ms ms"
[ "$n" = 2 ] || fail "big reply and big request: $n of 2 answered ($(jq -c '[.why, (.replies | length)]' "$T/big.out"))"
mcpd_running || fail "mcpd died"
exit 0
