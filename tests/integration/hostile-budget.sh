#!/bin/bash
# hostile-budget.sh -- one memory budget bounds what mcpd holds for all
# its peers together (memory_budget_bytes, 48 MiB here):
# - 20 clients each ask for a 15 MiB reply and do not read it, each under
#   its own output limits (soft 16 MiB): mcpd used to hold all of it
#   (some 330 MB).  Clients over their share once the budget is used up
#   are disconnected with the reason logged; mcpd's VmHWM growth stays
#   within the budget plus two messages in transit; the budget's use goes
#   back to near zero once they are gone (status: memory_budget_used);
# - 8 clients each hold 8 MiB of requests for a server that is starting
#   (client_max_held_bytes allows it): once the budget is used up, the
#   next requests get -32015 naming memory_budget_bytes.

. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/hostile-clients.mjs" "$T/"

BUDGET=$((48 * 1024 * 1024))
BIG=$((15 * 1024 * 1024))
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "memory_budget_bytes": $BUDGET, "client_max_held_bytes": 67108864 },
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE" },
    "slow": { "command": "$MCP_FAKE", "args": ["--no-init-reply"],
              "init_timeout_ms": 600000 }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo 30
hwm0=$(vm_kib "$MCPD_PID" VmHWM)

# ready_count PATTERN: how many clients have said they are ready.
ready_count() {
	local f n=0
	for f in $1; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# --- readers that do not read ------------------------------------------------------
# None reads its reply before every one of them has had what mcpd gives
# it (the start of its reply, a refusal, or the close): a client of a
# loaded machine that comes late must still find the others holding.
pids=()
for i in $(seq 20); do
	env MCPD_TEST_DIR="$T" timeout -k 5 150 "$NODE" "$T/hostile-clients.mjs" "$SOCK" demo noread "$BIG" "$T/noread-go" \
		>"$T/noread.$i" 2>&1 &
	pids+=($!)
done
wait_for 90 eval '[ "$(ready_count "$T/noread-go.ready.*")" = 20 ]' ||
	fail "only $(ready_count "$T/noread-go.ready.*") of 20 clients heard from mcpd about their 15 MiB request"
touch "$T/noread-go"
wait "${pids[@]}"
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
cut=$(cat "$T"/noread.* | jq -s '[.[] | select(.closed)] | length')
full=$(cat "$T"/noread.* | jq -s '[.[] | select(.got_reply)] | length')
growth=$(((hwm1 - hwm0) / 1024))
bar=$(((BUDGET + 2 * 16 * 1024 * 1024) / 1024 / 1024 + 8))
note "20 clients x a 15 MiB reply they did not read: $cut disconnected, $full got the whole reply; VmHWM +$growth MiB (bar $bar MiB: budget 48 + 2 messages + 8)"
grep -m1 "memory budget" "$MCPD_LOG" | sed 's/^/# /'
[ "$cut" -ge 10 ] || fail "only $cut of 20 clients were cut off: $(cat "$T"/noread.* | jq -sc .)"
grep -q "memory_budget_bytes $BUDGET) is used up and this client has" "$MCPD_LOG" ||
	fail "mcpd did not log why it cut the clients off"
if sanitized "$MCPD"; then
	note "mcpd is built with AddressSanitizer: its memory is not asserted"
else
	[ "$growth" -le "$bar" ] || fail "VmHWM grew by $growth MiB, more than $bar"
fi
wait_for 30 eval '[ "$(status_json | jq .daemon.memory_budget_used)" -lt 1048576 ]' ||
	fail "the budget is still $(status_json | jq .daemon.memory_budget_used) bytes used after the clients left"
note "budget used after they left: $(status_json | jq .daemon.memory_budget_used) bytes"

# --- held requests -------------------------------------------------------------------
# Every client holds on to its request until all have been held or
# refused.
mkdir "$T/held" || hard_error "cannot create $T/held"
pids=()
for i in $(seq 8); do
	env MCPD_TEST_DIR="$T" timeout -k 5 150 "$NODE" "$T/hostile-clients.mjs" "$SOCK" slow held 1 $((8 * 1024 * 1024)) "$T/held" \
		>"$T/held.$i" 2>&1 &
	pids+=($!)
done
wait_for 90 eval '[ "$(ready_count "$T/held/ready.*")" = 8 ]' ||
	fail "only $(ready_count "$T/held/ready.*") of 8 clients had their 8 MiB request held or refused"
touch "$T/held/go"
wait "${pids[@]}"
refused=$(cat "$T"/held.* | jq -s '[.[] | select(.codes["-32015"] != null)] | length')
note "8 clients x 8 MiB held for a starting server: $refused refused: $(cat "$T"/held.* | jq -rs '[.[].message | select(. != null)][0]')"
# 48 MiB hold at most six 8 MiB requests, and only while a seventh is
# still being read: whatever the order the clients come in, at least two
# are refused (three or more when they read at the same time, as their
# unfinished lines count too).
[ "$refused" -ge 2 ] || fail "only $refused of 8 were refused with the budget at 48 MiB: $(cat "$T"/held.* | jq -sc .)"
cat "$T"/held.* | jq -rs '[.[].message | select(. != null)][0]' | grep -q memory_budget_bytes ||
	fail "the refusal does not name memory_budget_bytes"
wait_for 30 eval '[ "$(status_json | jq .daemon.memory_budget_used)" -lt 1048576 ]' ||
	fail "the budget is still $(status_json | jq .daemon.memory_budget_used) bytes used after the held requests' clients left"
mcpd_running || fail "mcpd died"
exit 0
