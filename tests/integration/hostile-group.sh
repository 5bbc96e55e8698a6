#!/bin/bash
# hostile-group.sh -- a group session is bounded like a direct client:
# what it holds for its client (requests kept to try on the next member,
# members' list pages waiting for a slow one) counts in mcpd's one memory
# budget (memory_budget_bytes, 48 MiB here) and in client_max_group_bytes
# per connection (32 MiB, the default).  mcpd used to keep all of it
# outside the budget:
# - 3 clients x 20 resources/read of 8 MiB through a group whose first
#   member never answers: mcpd grew by 602 MiB (every request kept whole
#   to try on the next member).  Now its VmHWM grows by at most the
#   budget and what is in transit, the rest are refused with -32015
#   naming the limit or their clients cut off, and the budget is free
#   again once the clients have gone;
# - 60 of them through the built-in group "all" on one connection, with
#   the default budget (256 MiB): +524 MiB; now bounded by
#   client_max_group_bytes;
# - 3 clients x 1000 tools/list over a member of 300 tools (112 KiB a
#   page) and one that never answers: every page of the first waited,
#   parsed, for the second (+815 MiB).  Now the pages wait as text,
#   counted, the lists that would pass the limits get -32015, and when
#   the budget is used up (a reload shrinks it) sessions let go of the
#   pages they hold within seconds.

. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/hostile-clients.mjs" "$T/"

BUDGET=$((48 * 1024 * 1024))
MIB=$((1024 * 1024))
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "memory_budget_bytes": $BUDGET },
  "mcpServers": {
    "hang": { "command": "$MCP_FAKE", "args": ["--hang-after-init"],
              "health_interval_ms": 0 },
    "other": { "command": "$MCP_FAKE" },
    "many": { "command": "$MCP_FAKE", "args": ["--extra-tools=300"] }
  },
  "groups": {
    "pair": { "servers": ["hang", "other"] },
    "lists": { "servers": ["many", "hang"] }
  }
}
JSON
# The same with the default budget (256 MiB): client_max_group_bytes is
# what bounds one connection.
jq 'del(.mcpd)' "$T/mcpd.json" >"$T/mcpd-cap.json.tmp" &&
	write_config_raw "$T/mcpd-cap.json" "$(cat "$T/mcpd-cap.json.tmp")" ||
	hard_error "cannot write $T/mcpd-cap.json"

# ready_count DIR: how many clients have said they are ready.
ready_count() {
	local f n=0
	for f in "$1"/ready.*; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}

# run_clients NAME COUNT TARGET SCENARIO ARGS...: COUNT clients of
# hostile-clients.mjs on TARGET, in $T/NAME; returns once each has had
# all its requests taken or refused (they then hold on).
run_clients() {
	local name=$1 count=$2 target=$3 i
	shift 3
	mkdir "$T/$name" || hard_error "cannot create $T/$name"
	CLIENT_PIDS=()
	for i in $(seq "$count"); do
		env MCPD_TEST_DIR="$T" timeout -k 5 300 "$NODE" "$T/hostile-clients.mjs" "$SOCK" "$target" "$@" "$T/$name" \
			>"$T/$name.$i" 2>"$T/$name.err.$i" &
		CLIENT_PIDS+=($!)
	done
	wait_for 150 eval '[ "$(ready_count "$T/$name")" = "$count" ]' ||
		fail "only $(ready_count "$T/$name") of $count clients had their requests to $target taken or refused"
}

# release_clients NAME: let them go, and wait until they have.
release_clients() {
	touch "$T/$1/go"
	wait "${CLIENT_PIDS[@]}"
}

budget_used() {
	status_json | jq .daemon.memory_budget_used
}

# check_growth WHAT HWM0 BAR_MIB: mcpd's VmHWM grew by at most BAR_MIB.
check_growth() {
	local growth=$((($(vm_kib "$MCPD_PID" VmHWM) - $2) / 1024))
	note "$1: mcpd's VmHWM +$growth MiB (bar $3 MiB); budget used now $(budget_used) of $(status_json | jq .daemon.memory_budget_bytes) bytes"
	if sanitized "$MCPD"; then
		note "mcpd is built with AddressSanitizer: its memory is not asserted"
	else
		[ "$growth" -le "$3" ] || fail "$1: mcpd's VmHWM grew by $growth MiB, more than $3 MiB"
	fi
}

# summary NAME: what NAME's clients saw, one JSON array.
summary() {
	local i=1 f
	while f=$T/$1.$i; [ -e "$f" ]; do
		jq -e . "$f" >/dev/null 2>&1 || fail "client $1.$i: $(cat "$f" "$T/$1.err.$i")"
		cat "$f"
		i=$((i + 1))
	done | jq -sc .
}

# codes NAME CODE: how many requests of NAME's clients got CODE.
codes() {
	summary "$1" | jq --arg c "$2" '[.[].codes[$c] // 0] | add // 0'
}

# held NAME: requests of NAME's clients neither answered nor cut off.
held() {
	summary "$1" | jq '[.[] | select(.closed | not) | .sent - .replies] | add // 0'
}

# check_refusals NAME WHAT: some were refused naming the limit, or their
# clients cut off (a line still coming in when the budget ran out).
check_refusals() {
	local refused cut
	refused=$(codes "$1" -32015)
	cut=$(summary "$1" | jq '[.[] | select(.closed)] | length')
	note "$2: $refused refused with -32015, $cut clients cut off, $(held "$1") held: $(summary "$1" | jq -r '[.[].message | select(. != null)][0]')"
	[ "$refused" -ge 1 ] || [ "$cut" -ge 1 ] ||
		fail "$2: none was refused: $(summary "$1")"
	summary "$1" | jq -r '.[].message | select(. != null)' |
		grep -qv 'memory_budget_bytes\|client_max_group_bytes' &&
		fail "$2: a refusal does not name the limit: $(summary "$1")"
	return 0
}

budget_free_again() {
	wait_for 30 eval '[ "$(budget_used)" -lt $MIB ]' ||
		fail "$1: the budget is still $(budget_used) bytes used after the clients left"
}

# --- resources/read through a configured group --------------------------------
start_mcpd "$T/mcpd.json"
wait_ready hang 30
wait_ready other 30
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
run_clients pair 3 pair reads 20 $((8 * MIB))
# The budget, what is in transit beside it: per client the line it is
# sending (counted as it is read, in a buffer that may have doubled to
# 16 MiB before the client is cut off), the request on its way to the
# member's stdin; and the allocator's slack.
check_growth "3 clients x 20 resources/read of 8 MiB through group pair" "$hwm0" $((BUDGET / MIB + 3 * 16 + 8 + 16))
release_clients pair
check_refusals pair "group pair"
# What the budget holds of 8 MiB requests, at most.
[ "$(held pair)" -le $((BUDGET / (8 * MIB))) ] ||
	fail "group pair: $(held pair) requests of 8 MiB held with a budget of 48 MiB: $(summary pair)"
budget_free_again "group pair"
stop_mcpd

# --- the same through the built-in group "all", one connection -----------------
start_mcpd "$T/mcpd-cap.json"
wait_ready hang 30
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
run_clients all 1 all reads 60 $((8 * MIB))
# client_max_group_bytes, the line coming in (its buffer up to 16 MiB),
# the request on its way to the member, the allocator's slack.
check_growth "1 client x 60 resources/read of 8 MiB through group all" "$hwm0" $((32 + 16 + 8 + 16))
release_clients all
check_refusals all "group all"
# One connection: what client_max_group_bytes holds of 8 MiB requests.
[ "$(held all)" -le 4 ] && [ "$(codes all -32015)" -ge 56 ] ||
	fail "group all: $(held all) requests of 8 MiB held on one connection, $(codes all -32015) refused: $(summary all)"
summary all | jq -r '.[].message' | grep -q client_max_group_bytes ||
	fail "group all: the refusal does not name client_max_group_bytes: $(summary all)"
budget_free_again "group all"
stop_mcpd

# --- tools/list over a member of 300 tools and a silent one -------------------
start_mcpd "$T/mcpd.json"
wait_ready many 30
wait_ready hang 30
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
run_clients lists 3 lists lists 1000
# Every list is out; once "many" has answered them all, its pages wait
# for "hang" or were refused.
wait_for 120 eval '[ "$(server_field many inflight)" = 0 ]' ||
	fail "server many still has $(server_field many inflight) lists in flight"
check_growth "3 clients x 1000 tools/list over 300 tools and a silent member" "$hwm0" $((BUDGET / MIB + 16))
# The budget shrinks under what the pages hold (a reload): within a few
# seconds sessions let go of them until it is no longer used up, their
# lists answered with -32015, though nothing more comes from the clients
# or the members.
before=$(budget_used)
jq '.mcpd.memory_budget_bytes = 16777216' "$T/mcpd.json" >"$T/mcpd-small.json.tmp" &&
	write_config_raw "$T/mcpd.json" "$(cat "$T/mcpd-small.json.tmp")" ||
	hard_error "cannot write $T/mcpd.json"
ctl reload >/dev/null || fail "mcpctl reload failed"
wait_for 30 eval '[ "$(budget_used)" -le $((16 * MIB)) ]' ||
	fail "the pages still hold $(budget_used) bytes of a 16 MiB budget"
note "budget of 16 MiB after a reload: $before bytes were held, $(budget_used) now"
release_clients lists
check_refusals lists "group lists"
summary lists | jq -r '.[].last_message' | grep -q "held [0-9]* bytes for its requests" ||
	fail "no list was answered for the budget's cut: $(summary lists)"
budget_free_again "group lists"
mcpd_running || fail "mcpd died"
exit 0
