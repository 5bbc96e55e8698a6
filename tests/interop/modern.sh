#!/bin/bash
# modern.sh -- clients of MCP 2026-07-28 through mcpd: the official
# TypeScript SDK 2.x client (@modelcontextprotocol/client, pinned in
# tests/interop/package.json) negotiating with server/discover, in both
# of its modes: pin (2026-07-28 or nothing) and auto (2026-07-28, or
# `initialize` when the server does not answer server/discover).
# modern-client.mjs runs every cell of one client configuration in one
# process (the cells and what each asserts are listed there): discover,
# list, call, progress, elicit (input_required and the SDK's retry),
# elicit2 (two rounds: a form, then sampling), subscribe
# (subscriptions/listen: tools list_changed and a resource's updates),
# read (and -32602 for an unknown URI), task (the tasks extension over
# server-everything's 2025 task, with a clarification asked through
# tasks/get and answered with tasks/update), quiet (no log notification
# nor server request the 2026 client did not ask for).
#
# The servers: dual, dual-server.mjs (the server side of the same SDK,
# serving `initialize` and 2026-07-28 alike), and ev, server-everything
# (2025 only); group both of the two.  mcpd holds 2025-11-25 sessions
# with both and serves the 2026-07-28 client itself: dual with "protocol"
# "2025" (with "auto" mcpd would find it speaks 2026-07-28 and speak that
# with it; modern-up.sh has servers of 2026-07-28 under mcpd).
#
# For each mode:
#   - directly to dual: every cell passes (the reference);
#   - directly to ev: recorded (pin cannot connect; auto falls back to
#     the 2025 era and its cells pass in that era's way);
#   - through `mcpctl connect` to ev, dual, and both (once with the
#     prefix dual__, once with ev__): the client connects on 2026-07-28
#     (era modern, pin included) and every cell that passed directly
#     against that server passes, in the 2026 way; and to ev, a task,
#     which no direct connection has (ev speaks 2025's tasks only).
# Every run is judged and the whole table printed before the test fails.
# Times are printed as "# figure:" lines.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/modern.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: modern: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow; the runs take a minute on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-180}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
for f in modern-client.mjs dual-server.mjs; do
	cp "$TESTS_SRCDIR/interop/$f" "$T/" || hard_error "cannot copy $f"
done
for p in client server; do
	v=$(jq -r .version "$MODS/$p/package.json" 2>/dev/null)
	case $v in
	2.*) note "@modelcontextprotocol/$p $v" ;;
	*) hard_error "$MODS/$p is not the SDK 2.x (version $v; tests/interop/package.json names it)" ;;
	esac
done
export MCPCTL

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	def server(args): { command: ($node | lit), args: (args | map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } };
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			ev: server([$ev, "stdio"]),
			dual: (server([$t + "/dual-server.mjs"]) +
				{ protocol: "2025" }),
			strict25: (server([$t + "/dual-server.mjs", "--strict"]) +
				{ protocol: "2025" })
		},
		groups: { both: { servers: ["ev", "dual"] } }
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready ev 90
wait_ready dual 60

# A server of 2026-07-28 alone refuses mcpd's initialize (2025-11-25)
# naming what it speaks; with "protocol": "2025" (no 2026 with it) it is
# failed at once with that said, not restarted in a loop (before, it was
# killed and restarted with backoff for ever, each time "initialize
# failed: Unsupported protocol version"); a client's request gets the
# reason.  ("auto", the default, speaks 2026-07-28 with it: modern-up.sh.)
wait_for 60 server_is strict25 failed ||
	fail "strict25: not failed within 60 s (state $(server_field strict25 state), restarts $(server_field strict25 restarts), last_exit $(server_field strict25 last_exit))"
why=$(server_field strict25 last_exit)
case $why in
*"speaks only MCP 2026-07-28"*'"protocol" is "2025"'*) ;;
*) fail "strict25: failed, but not saying it speaks only 2026-07-28: $why" ;;
esac
[ "$(server_field strict25 restarts)" = 0 ] ||
	fail "strict25: restarted $(server_field strict25 restarts) times"
if out=$("$MCPCTL" -s "$SOCK" tools strict25 2>&1); then
	fail "strict25: tools answered: $out"
fi
case $out in
*"speaks only MCP 2026-07-28"*) ;;
*) fail "strict25: a client was told: $out" ;;
esac
note "strict25: $why"

CELLS="discover list call progress elicit elicit2 subscribe read task quiet"
PROBLEMS=()
RUNS=()

# run NAME ARGS...: one client configuration (modern-client.mjs ARGS), its
# JSON to $T/NAME.json, its stderr (and its server's or bridge's) to
# $T/NAME.err, the wire to $T/NAME.wire; its exit code in RC.  A client
# that printed nothing fails the test at once.
run() {
	local name=$1 t
	shift
	RUNS+=("$name")
	t=$(now_ms)
	(cd "$T" && MCPD_TEST_DIR=$T "${_MCPD_GUARD[@]}" \
		timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/modern-client.mjs" \
		--trace "$T/$name.wire" "$@" </dev/null >"$T/$name.json" \
		2>"$T/$name.err")
	RC=$?
	note "figure: $name took $(($(now_ms) - t)) ms"
	jq -e . "$T/$name.json" >/dev/null 2>&1 ||
		fail "$name: the client printed no result (exit $RC): $(tail -c 1500 "$T/$name.err")"
}

# problem NAME WHAT: a failed check, reported at the end.
problem() {
	PROBLEMS+=("$1: $2")
	echo "# PROBLEM $1: $2" >&2
}

# passed NAME: the cells that passed, one line.
passed() {
	jq -r '[.steps | to_entries[] | select(.value.ok) | .key] | join(" ")' \
		"$T/$1.json"
}

# row NAME: the run's line of the table.
row() {
	local n=$1 c line
	line=$(printf '%-20s %-7s' "$n" "$(jq -r '.era // "-"' "$T/$n.json")")
	for c in $CELLS; do
		line+=$(jq -r --arg c "$c" '.steps[$c] as $s | if $s == null then
			" -" elif $s.ok then " ok" else " FAIL" end' "$T/$n.json")
	done
	note "$line"
}

# connected NAME ERA: the client connected on ERA at 2026-07-28 (modern)
# or a 2025 revision (legacy).
connected() {
	local n=$1 era=$2
	if [ "$RC" != 0 ]; then
		problem "$n" "did not connect: $(jq -r '"\(.error) (\(.errorCode))"' "$T/$n.json")"
		return 1
	fi
	if ! jq -e --arg e "$era" '.era == $e and
		((.era == "modern") == (.version == "2026-07-28"))' \
		"$T/$n.json" >/dev/null; then
		problem "$n" "connected on era $(jq -r .era "$T/$n.json") ($(jq -r .version "$T/$n.json")), not $era"
		return 1
	fi
}

# cells NAME CELL...: those cells ran and passed.
cells() {
	local n=$1 c bad=0
	shift
	for c; do
		jq -e --arg c "$c" '.steps[$c].ok' "$T/$n.json" >/dev/null && continue
		problem "$n" "cell $c: $(jq -c --arg c "$c" '.steps[$c] //
			{skipped: .skipped[$c]}' "$T/$n.json" | head -c 1500)"
		bad=1
	done
	[ "$bad" = 0 ] || [ "$(jq '.errors | length' "$T/$n.json")" = 0 ] ||
		echo "# $n: the SDK reported: $(jq -c '.errors[:5]' "$T/$n.json" | head -c 1500)" >&2
}

t0=$(now_ms)
# Directly: the references.
declare -A REF=([ev]="")
for mode in pin auto; do
	# The same SDK on both sides: every cell passes.
	n=direct-dual-$mode
	run "$n" --mode "$mode" --direct "$NODE" "$T/dual-server.mjs"
	if connected "$n" modern; then
		# Every cell but the task: the dual server runs none.
		# shellcheck disable=SC2086
		cells "$n" ${CELLS/ task/}
	fi
	REF[dual-$mode]=$(passed "$n")

	# A 2025 server: pin fails, auto falls back to `initialize`.
	n=direct-ev-$mode
	run "$n" --mode "$mode" --direct "$NODE" "$EVERYTHING" stdio
	if [ "$RC" = 0 ]; then
		note "$n: connected on $(jq -r .version "$T/$n.json") (era $(jq -r .era "$T/$n.json")); passed: $(passed "$n")"
	else
		note "$n: did not connect: $(jq -r .error "$T/$n.json")"
		[ "$mode" = pin ] ||
			fail "$n: the SDK did not fall back to initialize with server-everything"
	fi
	REF[ev]="${REF[ev]} $(passed "$n")"
done
# shellcheck disable=SC2086
REF[ev]=$(printf '%s\n' ${REF[ev]} | sort -u | tr '\n' ' ')
note "cells passed directly: dual (pin) ${REF[dual-pin]}; dual (auto) ${REF[dual-auto]}; ev ${REF[ev]}"

# Through mcpd: 2026-07-28 for every target, pin included, and every cell
# that passed directly against the server passes.
for mode in pin auto; do
	for target in ev:ev: dual:dual: both:dual:dual__ both:ev:ev__; do
		IFS=: read -r server member prefix <<<"$target"
		n=mcpd-$server${prefix:+-$member}-$mode
		run "$n" --mode "$mode" --socket "$SOCK" --server "$server" \
			--prefix "$prefix"
		connected "$n" modern || continue
		ref=${REF[ev]}
		[ "$member" = dual ] && ref=${REF[dual-$mode]}
		# shellcheck disable=SC2086
		cells "$n" discover $ref
		# A task: server-everything's through mcpd (the server speaks
		# 2025's tasks, the client 2026's extension).
		[ "$member" = ev ] && cells "$n" task
	done
done
note "figure: all runs took $(($(now_ms) - t0)) ms"

note "$(printf '%-20s %-7s' run era) $CELLS"
for n in "${RUNS[@]}"; do
	row "$n"
done
if [ "${#PROBLEMS[@]}" -gt 0 ]; then
	printf '%s\n' "${PROBLEMS[@]}" >&2
	fail "${#PROBLEMS[@]} problem(s), first: ${PROBLEMS[0]}"
fi
stop_mcpd
exit 0
