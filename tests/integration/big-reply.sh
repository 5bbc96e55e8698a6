#!/bin/bash
# big-reply.sh -- 16 MiB results through mcpd, their id written last (so
# mcpd must hold each whole): every reply reaches its client intact, a
# small request beside them is answered, and mcpd's address space grows
# by less than two and a half messages (a few bytes queued after a large
# message held by reference once took a second buffer of twice its size:
# three and a half messages in all, 57604 KiB).  The heap holds about one
# and a half (the framer's buffer doubles from 8 to 16 MiB); on a
# loaded machine it once reached two (33048 KiB), where a freed message's
# place in the heap did not fit the next one: the heap's layout, which
# depends on timing, not a copy.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

TEXT_BYTES=$((16 * 1024 * 1024 - 100))	# the line fits max_message_bytes
BOUND_KIB=$((5 * 16 * 1024 / 2))	# two and a half messages

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": [] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
"$MCPLOAD" --socket "$SOCK" --server demo --clients 1 --inflight 1 \
	--method ping --requests 10 >/dev/null ||
	fail "a ping before the large results failed"
peak0=$(vm_kib "$MCPD_PID" VmPeak) || fail "cannot read mcpd's VmPeak"

"$MCPLOAD" --json --socket "$SOCK" --server demo --clients 1 --inflight 1 \
	--method big --size "$TEXT_BYTES" --requests 3 >"$T/big.json" &
big=$!
"$MCPLOAD" --json --socket "$SOCK" --server demo --clients 2 --inflight 4 \
	--method echo --size 200 --requests 400 >"$T/echo.json" ||
	fail "echo requests beside the large results: $(cat "$T/echo.json")"
wait "$big" || fail "large results: $(cat "$T/big.json")"
[ "$(jq .ok "$T/big.json")" = 3 ] ||
	fail "3 large results expected intact: $(cat "$T/big.json")"
note "3 results of $TEXT_BYTES bytes of text: p50 $(jq .p50_us "$T/big.json") us"

peak1=$(vm_kib "$MCPD_PID" VmPeak) || fail "cannot read mcpd's VmPeak"
growth=$((peak1 - peak0))
note "mcpd VmPeak grew by $growth KiB (bound $BOUND_KIB KiB)"
if sanitized "$MCPD"; then
	note "mcpd is built with AddressSanitizer: address space not asserted"
else
	[ "$growth" -le "$BOUND_KIB" ] ||
		fail "mcpd's address space grew by $growth KiB for 16 MiB messages (bound $BOUND_KIB KiB: two and a half messages)"
fi
mcpd_running || fail "mcpd died"
exit 0
