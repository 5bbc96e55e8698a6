#!/bin/bash
# matrix.sh -- every client of both MCP eras with every server of both
# eras through mcpd, each server alone and inside a group: 36 cells.
#
# The clients (matrix-client.mjs, one node process each, all at once; its
# header lists the steps of a cell):
#   sdk-1-17   @modelcontextprotocol/sdk 1.17.0 (npm alias), asks 2025-06-18
#   sdk-1-22   1.22.0, asks 2025-06-18
#   sdk-1-32   1.32.2, asks 2025-11-25
#   v2-legacy  @modelcontextprotocol/client 2.x, mode legacy: initialize
#   v2-auto    mode auto: server/discover, initialize if not answered
#   v2-pin     pinned to 2026-07-28
# The servers:
#   ev         server-everything (2025 only)
#   dual       dual-server.mjs (the SDK 2.x server, both eras)
#   strict     dual-server.mjs --strict (2026-07-28 only; "protocol" auto)
# each through `mcpctl connect` by its own name and by a group's: g-ev (ev
# alone, tools ev__*), g-dual (dual and mcp-fake, dual__*), g-strict
# (strict and mcp-fake, strict__*).  One mcpd for all.
#
# Every cell connects (a 2025 client on the version it asked; v2 auto and
# pin on 2026-07-28: mcpd speaks it to every client that asks), lists the
# tools, calls echo, gets progress, answers an elicitation with its
# handler (a 2025 client by elicitation/create, a 2026 one by
# input_required and its retry), and gets a resource update (2025:
# resources/subscribe; 2026: subscriptions/listen).  A step that does not
# apply to the pair's versions is not run and the reason is printed.
# A server's session with mcpd is every client's: a 2025 server's
# elicitation/create goes to the client that sent a request last, and
# server-everything's updates have one switch for the session; so a
# client holds the server's lock while it runs a target through mcpd (see
# matrix-client.mjs), and each client is given the servers in another
# order, so that three of them run at once.
#
# The reference: each client also connects to each server directly (no
# mcpd), where the SDK pair may well fail (a 1.x client to the 2026-only
# server; the pinned client to server-everything); that table is printed
# as it is, and the steps where the direct pair and mcpd differ are listed.
# The 36-cell table is printed before the test is judged; it fails if any
# cell through mcpd failed.  Times are printed as "# figure:" lines.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/matrix.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: matrix: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow; the clients take under a minute.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-150}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
for f in matrix-client.mjs dual-server.mjs; do
	cp "$TESTS_SRCDIR/interop/$f" "$T/" || hard_error "cannot copy $f"
done
for p in client server; do
	v=$(jq -r .version "$MODS/$p/package.json" 2>/dev/null)
	case $v in
	2.*) ;;
	*) hard_error "$MODS/$p is not the SDK 2.x (version $v; tests/interop/package.json names it)" ;;
	esac
done
for p in sdk-1-17 sdk-1-22; do
	[ -f "$W/node_modules/$p/package.json" ] ||
		hard_error "$W/node_modules/$p is missing (tests/interop/package.json names it)"
done
export MCPCTL
t0=$(now_ms)

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--arg fake "$MCP_FAKE" '
	def lit: gsub("\\$"; "$$");
	def server(args): { command: ($node | lit), args: (args | map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } };
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			ev: server([$ev, "stdio"]),
			dual: server([$t + "/dual-server.mjs"]),
			strict: server([$t + "/dual-server.mjs", "--strict"]),
			fk: { command: ($fake | lit) }
		},
		groups: {
			"g-ev": { servers: ["ev"] },
			"g-dual": { servers: ["dual", "fk"] },
			"g-strict": { servers: ["strict", "fk"] }
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
for s in ev dual strict fk; do
	wait_ready "$s" 90
done
note "figure: the servers were ready after $(($(now_ms) - t0)) ms"

CLIENTS=(sdk-1-17 sdk-1-22 sdk-1-32 v2-legacy v2-auto v2-pin)
declare -A SDK=([sdk-1-17]=sdk-1-17 [sdk-1-22]=sdk-1-22
	[sdk-1-32]=@modelcontextprotocol/sdk [v2-legacy]=v2 [v2-auto]=v2
	[v2-pin]=v2)
declare -A MODE=([v2-legacy]=legacy [v2-auto]=auto [v2-pin]=pin)
KINDS=(ev dual strict)
# The mcpd columns: KIND@mcpd:SERVER[:PREFIX].
COLUMNS=(ev@mcpd:ev ev@mcpd:g-ev:ev__ dual@mcpd:dual
	dual@mcpd:g-dual:dual__ strict@mcpd:strict strict@mcpd:g-strict:strict__)
DIRECT=(ev@direct dual@direct strict@direct)
STEPS="connect list call progress elicit subscribe"

# Every client at once, each running the direct targets (their own
# servers), then the mcpd ones, client I starting with server I mod 3.
declare -A PID
i=0
for c in "${CLIENTS[@]}"; do
	k=$((i % ${#KINDS[@]} * 2))
	order=("${COLUMNS[@]:k}" "${COLUMNS[@]:0:k}")
	i=$((i + 1))
	(cd "$T" && MCPD_TEST_DIR=$T exec "${_MCPD_GUARD[@]}" \
		timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/matrix-client.mjs" \
		--sdk "${SDK[$c]}" ${MODE[$c]:+--mode "${MODE[$c]}"} \
		--socket "$SOCK" --locks "$T" --ev "$EVERYTHING" \
		--dual "$T/dual-server.mjs" --trace "$T/$c.wire" \
		"${DIRECT[@]}" "${order[@]}" </dev/null >"$T/$c.json" \
		2>"$T/$c.err") &
	PID[$c]=$!
done
t1=$(now_ms)
for c in "${CLIENTS[@]}"; do
	wait "${PID[$c]}"
	rc=$?
	{ [ "$rc" = 0 ] && jq -e .targets "$T/$c.json" >/dev/null 2>&1; } ||
		fail "$c: the client printed no result (exit $rc): $(tail -c 1500 "$T/$c.err")"
	note "figure: $c took $(jq .ms "$T/$c.json") ms, $(jq '[.waited[]] | add' \
		"$T/$c.json") ms of it waiting for servers' locks"
done
note "figure: the clients took $(($(now_ms) - t1)) ms together"

# verdict CLIENT TARGET: CELL[CLIENT TARGET] "ok" or the failing steps,
# comma-separated; their errors into DETAIL, the steps not applicable (and
# why) into NA.
declare -A CELL DETAIL NA
verdict() {
	local c=$1 tg=$2 j v want
	j=$(jq -c --arg t "$tg" '.targets[$t] // {}' "$T/$c.json")
	if [ "$(jq -r '.connected' <<<"$j")" = true ]; then
		case ${MODE[$c]:-legacy} in
		legacy) want='.era == "legacy" and .version == .wanted' ;;
		*) want='.era == "modern" and .version == "2026-07-28"' ;;
		esac
		# Through mcpd the era is mcpd's, whatever the server speaks.
		case $tg in
		*@direct) want='.era != null' ;;
		esac
		jq -e "$want" <<<"$j" >/dev/null ||
			j=$(jq -c '.steps.connect = {ok: false, error:
				"connected on \(.version) (era \(.era)), having asked \(.wanted)"}' \
				<<<"$j")
	fi
	v=$(jq -r --arg steps "$STEPS" '. as $r | [$steps | split(" ")[] |
		select(($r.na[.] == null) and ($r.steps[.].ok != true)) |
		select(. == "connect" or ($r.connected == true)) |
		. + ($r.steps[.].code // "" | tostring |
			if . == "" then "" else " " + . end)] | join(",")' <<<"$j")
	DETAIL[$c $tg]=$(jq -r --arg steps "$STEPS" '. as $r | $steps | split(" ")[] |
		. as $s | select(($r.na[$s] == null) and ($r.steps[$s].ok != true)) |
		select($s == "connect" or ($r.connected == true)) |
		"\($s): \($r.steps[$s].error // "not run") \($r.steps[$s] |
			del(.ok, .error, .ms) | if . == {} or . == null then "" else
			tojson end)"' <<<"$j" | cut -c 1-700)
	NA[$c $tg]=$(jq -r '.na // {} | to_entries[] | "\(.key): \(.value)"' <<<"$j")
	CELL[$c $tg]=${v:-ok}
}

# table TITLE TARGET...: the clients' rows, a column per target (all
# direct or all through mcpd), each cell judged by verdict.
table() {
	local title=$1 c tg line direct=false
	shift
	case $1 in
	*@direct) direct=true ;;
	esac
	note "$title"
	line=$(printf '%-10s %-23s' client versions)
	for tg; do
		line+=$(printf ' %-18s' "$(column_name "$tg")")
	done
	note "$line"
	for c in "${CLIENTS[@]}"; do
		line=$(printf '%-10s %-23s' "$c" "$(jq -r --argjson d "$direct" '[.targets |
			to_entries[] | select((.key | endswith("@direct")) == $d) |
			.value.version // empty] | unique | join(",")' "$T/$c.json")")
		for tg; do
			verdict "$c" "$tg"
			line+=$(printf ' %-18s' "${CELL[$c $tg]}")
		done
		note "$line"
	done
}

# column_name TARGET: ev, ev/group, ev/direct...
column_name() {
	case $1 in
	*@direct) echo "${1%@*}/direct" ;;
	*@mcpd:*:*) echo "${1%@*}/group" ;;
	*) echo "${1%@*}" ;;
	esac
}

# The reference: what each SDK pair does alone.
table "directly, without mcpd (the reference; not judged):" "${DIRECT[@]}"
for c in "${CLIENTS[@]}"; do
	for tg in "${DIRECT[@]}"; do
		[ "${CELL[$c $tg]}" = ok ] ||
			note "  $c $(column_name "$tg"): $(head -n 1 <<<"${DETAIL[$c $tg]}")"
	done
done

# The matrix.
table "through mcpd (${#CLIENTS[@]} clients x ${#COLUMNS[@]} targets):" "${COLUMNS[@]}"
PROBLEMS=()
nas=0
for c in "${CLIENTS[@]}"; do
	for tg in "${COLUMNS[@]}"; do
		while IFS= read -r l; do
			[ -n "$l" ] || continue
			note "  n/a $c $(column_name "$tg") $l"
			nas=$((nas + 1))
		done <<<"${NA[$c $tg]}"
		[ "${CELL[$c $tg]}" = ok ] && continue
		while IFS= read -r l; do
			PROBLEMS+=("$c $(column_name "$tg"): $l")
			note "  FAIL $c $(column_name "$tg"): $l"
		done <<<"${DETAIL[$c $tg]}"
	done
done

[ "$nas" = 0 ] && note "  every step applies to every cell (each client asks 2025-06-18 or later, which has elicitation)"

# Where mcpd and the pair alone differ (the server by its own name).
for c in "${CLIENTS[@]}"; do
	for k in "${KINDS[@]}"; do
		d=$(jq -r --arg a "$k@direct" --arg b "$k@mcpd:$k" --arg steps "$STEPS" '
			.targets[$a] as $x | .targets[$b] as $y |
			if ($x.connected | not) and $y.connected then
				"connects only through mcpd"
			elif $x.connected and ($y.connected | not) then
				"connects only directly"
			else [$steps | split(" ")[] | . as $s |
				($x.steps[$s].ok == true) as $dx |
				($y.steps[$s].ok == true) as $my |
				select($dx != $my and $x.na[$s] == null and
					$y.na[$s] == null) |
				"\($s) \(if $my then "works only through mcpd" else
					"works only directly" end)"] | join("; ") end' \
			"$T/$c.json")
		[ -n "$d" ] && note "differs: $c $k: $d"
	done
done
note "figure: the test took $(($(now_ms) - t0)) ms"

if [ "${#PROBLEMS[@]}" -gt 0 ]; then
	fail "${#PROBLEMS[@]} failed step(s) through mcpd, first: ${PROBLEMS[0]}"
fi
stop_mcpd
exit 0
