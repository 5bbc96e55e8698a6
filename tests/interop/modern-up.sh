#!/bin/bash
# modern-up.sh -- a server of MCP 2026-07-28 alone under mcpd: the
# official TypeScript SDK 2.x server refusing `initialize`
# (dual-server.mjs --strict, serveStdio with legacy: "reject": error
# -32022, {supported: ["2026-07-28"]}), reached through mcpd by clients of
# both eras.
#
# The servers, by the setting "protocol":
#   strict     none ("auto"): mcpd's first message, server/discover (the
#              probe of the era), is answered with 2026-07-28; ready,
#              "initialized: dual, protocol 2026-07-28", status era
#              2026-07-28 found by server/discover, never restarted, never
#              sent initialize.  Health checks every 500 ms.
#   strict26   "2026-07-28": server/discover, no initialize.
#   strict25   "2025": failed at once, saying the server speaks only
#              2026-07-28, not restarted (as before the setting).
#   ev         server-everything (2025, "auto"), for the group: probed in
#              place, one process whose input ($T/ev.in) is server/discover
#              then initialize; status era 2025, found "server/discover
#              refused"
#   mix        a group of ev and strict; strict last, so that its answer
#              to a URI no member has is the one the group passes on
# strict, strict26 and ev run under `sh -c 'tee FILE | node ...'`: FILE
# ($T/strict.in, $T/strict26.in, $T/ev.in) is every line mcpd sent the
# server.
#
# The clients, each one node process (up-client.mjs, whose header lists
# its cells) running its targets in turn: the 1.x SDK (1.32.2, asking
# 2025-11-25; with logging/setLevel debug), sdk-1-17 (1.17.0, asking
# 2025-06-18; with notice), and the 2.x client pinned to 2026-07-28.
# Each connects first to the server directly (the reference: the 1.x
# clients cannot connect, the server refuses their initialize with -32022;
# the 2.x client passes every cell and its ask is answered by the SDK's
# retry), then through `mcpctl connect` to strict, strict26 and mix
# (tools strict__*).  Through mcpd, every client:
#   - connects (1.x: on the version it asked; 2.x: 2026-07-28);
#   - 1.x: logging/setLevel and ping are answered;
#   - lists the tools (echo; in mix ev__echo too), calls echo, gets the
#     progress of the tool progress, lists and gets the prompt hello,
#     lists and reads test://r, and is refused test://missing with -32002
#     (1.x) or -32602 (2.x);
#   - calls ask (the server answers input_required: an elicitation) and
#     gets "Name: Ada", having answered one form; calls ask2 (two rounds:
#     the elicitation, then a sampling with the server's requestState)
#     and gets "Name: Ada; model said: ...", having answered one form and
#     one sampling (1.x: mcpd sent them as elicitation/create and
#     sampling/createMessage; v2: as mcpd's own input_required);
#   - 1.x, strict and strict26: resources/subscribe, then the server's
#     resources/updated and tools list_changed (which it sends only on a
#     subscriptions/listen stream, which mcpd holds) reach the client.
# While sdk-new runs, a bystander (sdk-new, the same capabilities, a
# progress call of its in flight nearly all the time) is connected to
# strict: the server's requests for sdk-new's calls never reach it.  A
# client that declared no capabilities (sdk-new --caps none) is refused
# ask with an error saying it did not declare that it can answer
# elicitation/create.
# And on the server's side ($T/strict.in): server/discover, the first
# line, and no initialize at all; every request carries the 2026 _meta
# (protocolVersion 2026-07-28, clientInfo, clientCapabilities: each
# client's own, sampling and elicitation in the 1.x clients' calls and
# neither in the one that declared none, mcpd's in server/discover); the
# retries of ask carry inputResponses.name {action: accept, content
# {name: Ada}} and ask2's last carries inputResponses.hi and the
# requestState the server gave, under an id of its own; no ping
# and no logging/setLevel; health checks are server/discover; each 1.x
# client's echo carries its level as _meta logLevel.  `mcpctl ping` of
# strict and strict26 is answered.  At the end strict and strict26 are
# ready, never restarted, and strict25 failed.
# Every cell is judged and the table printed before the test fails.
# Times are printed as "# figure:" lines.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/modern-up.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: modern-up: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may be slow; the runs take half a minute on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
for f in up-client.mjs dual-server.mjs; do
	cp "$TESTS_SRCDIR/interop/$f" "$T/" || hard_error "cannot copy $f"
done
for p in client server; do
	v=$(jq -r .version "$MODS/$p/package.json" 2>/dev/null)
	case $v in
	2.*) ;;
	*) hard_error "$MODS/$p is not the SDK 2.x (version $v; tests/interop/package.json names it)" ;;
	esac
done
[ -f "$W/node_modules/sdk-1-17/package.json" ] ||
	hard_error "$W/node_modules/sdk-1-17 is missing (tests/interop/package.json names it)"
export MCPCTL
t0=$(now_ms)

# strict and strict26 write what they read to $T/NAME.in on the way.
config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	def server(args): { command: ($node | lit), args: (args | map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } };
	def teed(name): { command: "/bin/sh",
		args: (["-c", "tee -a \"$1\" | exec \"$2\" \"$3\" --strict", "sh",
			$t + "/" + name + ".in", $node, $t + "/dual-server.mjs"]
			| map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } };
	def teed_ev: { command: "/bin/sh",
		args: (["-c", "tee -a \"$1\" | exec \"$2\" \"$3\" stdio", "sh",
			$t + "/ev.in", $node, $ev] | map(lit)),
		cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } };
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			ev: teed_ev,
			strict: (teed("strict") + { health_interval_ms: 500 }),
			strict26: (teed("strict26") + { protocol: "2026-07-28" }),
			strict25: (server([$t + "/dual-server.mjs", "--strict"]) +
				{ protocol: "2025" })
		},
		groups: { mix: { servers: ["ev", "strict"] } }
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"

PROBLEMS=()

# problem WHAT: a failed check, reported at the end.
problem() {
	PROBLEMS+=("$1")
	echo "# PROBLEM $1" >&2
}

# "protocol": "2025": as before the setting, failed at once, saying why,
# not restarted.
wait_for 60 server_is strict25 failed ready
why=$(server_field strict25 last_exit)
if ! server_is strict25 failed; then
	problem "strict25: not failed (state $(server_field strict25 state), restarts $(server_field strict25 restarts), last_exit $why)"
else
	case $why in
	*"speaks only MCP 2026-07-28"*) note "strict25: $why" ;;
	*) problem "strict25: failed, but not saying it speaks only 2026-07-28: $why" ;;
	esac
fi

# auto and 2026-07-28: ready, by server/discover (failed is final).
for s in strict strict26; do
	wait_for 60 server_is "$s" ready failed
	server_is "$s" ready ||
		fail "$s: not ready within 60 s: state $(server_field "$s" state), restarts $(server_field "$s" restarts), last_exit $(server_field "$s" last_exit)"
done
note "figure: strict and strict26 ready after $(($(now_ms) - t0)) ms"

# wire NAME JQ: the lines mcpd sent server NAME, as JSON, filtered by JQ.
wire() {
	jq -cR --arg p "io.modelcontextprotocol/" "fromjson? // empty | $2" \
		"$T/$1.in"
}

# The opening: strict ("auto") and strict26 were sent server/discover
# first, and neither an initialize.
first=$(wire strict 'select(.method != null) | .method' | head -n 1)
[ "$first" = '"server/discover"' ] ||
	problem "strict: mcpd's first request was $first, not server/discover"
first=$(wire strict26 'select(.method != null) | .method' | head -n 1)
[ "$first" = '"server/discover"' ] ||
	problem "strict26: mcpd's first request was $first, not server/discover"
[ -z "$(wire strict26 'select(.method == "initialize")')" ] ||
	problem "strict26 (protocol 2026-07-28) was sent an initialize"
# The era, and how it was found.
for s in strict:server/discover strict26:configured; do
	e=$(server_field "${s%%:*}" era) f=$(server_field "${s%%:*}" era_found)
	[ "$e $f" = "2026-07-28 ${s#*:}" ] ||
		problem "${s%%:*}: status says era $e, found $f"
done

# The state's reason, in mcpd's log; the status's protocol_version, if
# any, is not a 2025 one.
for s in strict strict26; do
	grep -Eq "(^|: )$s: [a-z]+ -> ready: initialized: dual, protocol 2026-07-28" \
		"$MCPD_LOG" ||
		problem "$s: mcpd's log has no \"ready: initialized: dual, protocol 2026-07-28\": $(grep -E "(^|: )$s: " "$MCPD_LOG" | tail -n 3)"
	v=$(server_field "$s" protocol_version)
	case $v in
	null | 2026-07-28) note "$s: ready, protocol_version $v" ;;
	*) problem "$s: status says protocol_version $v" ;;
	esac
done

wait_ready ev 90
# server-everything ("auto"): probed in place, one process.
first=$(wire ev 'select(.method != null) | .method' | head -n 2 | tr '\n' ' ')
[ "$first" = '"server/discover" "initialize" ' ] ||
	problem "ev: mcpd's first requests were $first, not server/discover then initialize"
e=$(server_field ev era) f=$(server_field ev era_found)
[ "$e $f" = "2025 server/discover refused" ] ||
	problem "ev: status says era $e, found $f"
EV_PID=$(server_pid ev)

# run NAME SDK [ARGS...]: one client configuration, every target (its JSON
# to $T/NAME.json, its stderr and its bridges' to $T/NAME.err, the wire to
# $T/NAME.wire).  A client that printed nothing fails the test at once.
run() {
	local name=$1 sdk=$2 rc t
	shift 2
	t=$(now_ms)
	(cd "$T" && MCPD_TEST_DIR=$T "${_MCPD_GUARD[@]}" \
		timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/up-client.mjs" \
		--sdk "$sdk" --socket "$SOCK" --trace "$T/$name.wire" "$@" \
		</dev/null >"$T/$name.json" 2>"$T/$name.err")
	rc=$?
	note "figure: $name took $(($(now_ms) - t)) ms"
	{ [ "$rc" = 0 ] && jq -e . "$T/$name.json" >/dev/null 2>&1; } ||
		fail "$name: the client printed no result (exit $rc): $(tail -c 1500 "$T/$name.err")"
}

# cell NAME TARGET CELL [JQ]: the cell ran and passed, and JQ holds of it
# (the verdict kept in JUDGED for the table).
declare -A JUDGED
cell() {
	local n=$1 tg=$2 c=$3 q=${4:-true}
	if jq -e --arg t "$tg" --arg c "$c" ".targets[\$t].steps[\$c] |
		(.ok == true) and ($q)" "$T/$n.json" >/dev/null; then
		[ "${JUDGED[$n $tg $c]:-ok}" = ok ] && JUDGED[$n $tg $c]=ok
		return 0
	fi
	JUDGED[$n $tg $c]=FAIL
	problem "$n $tg: cell $c: $(jq -c --arg t "$tg" --arg c "$c" \
		'.targets[$t] | .steps[$c] // {skipped: .skipped[$c]}' \
		"$T/$n.json" | head -c 1500)"
	return 1
}

DIRECT=direct:$T/dual-server.mjs
TARGETS=(mcpd:strict mcpd:strict26 mcpd:mix:strict__)
ASKED='.outcome == "answer" and (.text | contains("Name: Ada")) and
	.elicited == 1 and .sampled == 0'
ASKED2='.outcome == "answer" and
	(.text | contains("Name: Ada; model said: Hello from the model")) and
	.elicited == 1 and .sampled == 1'

declare -A LEVEL=([sdk-new]=debug [sdk-1-17]=notice)
declare -A PKG=([sdk-new]=@modelcontextprotocol/sdk [sdk-1-17]=sdk-1-17 [v2]=v2)
declare -A ASKS=([sdk-new]=2025-11-25 [sdk-1-17]=2025-06-18 [v2]=2026-07-28)

# The bystander: on strict while sdk-new runs.
(cd "$T" && MCPD_TEST_DIR=$T "${_MCPD_GUARD[@]}" \
	timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" "$T/up-client.mjs" \
	--sdk "${PKG[sdk-new]}" --level debug --socket "$SOCK" \
	--until "$T/bystander.done" \
	mcpd:strict </dev/null >"$T/bystander.json" 2>"$T/bystander.err") &
BYSTANDER=$!
# shellcheck disable=SC2317 # run by wait_for
bystander_watching() {
	[ "$(wire strict 'select(.method == "tools/call" and
		.params.name == "progress" and .params.arguments.steps == 20)' |
		wc -l)" -ge 2 ]
}
wait_for 60 bystander_watching ||
	problem "the bystander did not start calling progress on strict: $(tail -c 600 "$T/bystander.err")"

for n in sdk-new sdk-1-17 v2; do
	run "$n" "${PKG[$n]}" ${LEVEL[$n]:+--level "${LEVEL[$n]}"} \
		"$DIRECT" "${TARGETS[@]}"
	if [ "$n" = sdk-new ]; then
		: >"$T/bystander.done"
		wait "$BYSTANDER" ||
			problem "the bystander failed: $(tail -c 600 "$T/bystander.err")"
		cell bystander mcpd:strict watch \
			'.calls >= 1 and .elicited == 0 and .sampled == 0'
	fi

	# Directly: the 1.x SDK cannot connect; the 2.x one passes everything.
	if [ "$n" = v2 ]; then
		for c in connect discover list call progress prompt read; do
			cell "$n" "$DIRECT" "$c"
		done
		cell "$n" "$DIRECT" ask "$ASKED"
		cell "$n" "$DIRECT" ask2 "$ASKED2"
	elif jq -e --arg t "$DIRECT" '.targets[$t].connected' "$T/$n.json" >/dev/null; then
		problem "$n: connected to dual-server.mjs --strict directly"
	else
		JUDGED[$n $DIRECT connect]=refused
		note "$n directly: $(jq -r --arg t "$DIRECT" '.targets[$t].error' "$T/$n.json")"
	fi

	for tg in "${TARGETS[@]}"; do
		p=${tg#mcpd:}
		p=${p#*:}
		[ "$p" = "${tg#mcpd:}" ] && p=
		if ! cell "$n" "$tg" connect ".version == \"${ASKS[$n]}\""; then
			continue
		fi
		cells=(list call progress prompt read)
		if [ "$n" = v2 ]; then
			cells+=(discover)
		else
			cells+=(loglevel ping)
			[ -z "$p" ] && cells+=(subscribe)
		fi
		for c in "${cells[@]}"; do
			cell "$n" "$tg" "$c"
		done
		[ -n "$p" ] && cell "$n" "$tg" list \
			'.names | index("strict__echo") != null and index("ev__echo") != null'
		cell "$n" "$tg" ask "$ASKED"
		cell "$n" "$tg" ask2 "$ASKED2"
	done
done

# A client that declared no capabilities: the server, told so, refuses.
run nocaps "${PKG[sdk-new]}" --caps none mcpd:strict
cell nocaps mcpd:strict ask '.outcome == "error" and
	(.message | test("capabilit")) and .elicited == 0'

# What the server was sent.  Requests mcpd passed for clients carry the
# 2026 envelope; nothing of 2025 alone reaches it.
# shellcheck disable=SC2016 # $p is jq's
bad=$(wire strict 'select(.id != null and .method != null and
	.method != "initialize") | select((.params._meta[$p + "protocolVersion"]
	== "2026-07-28" and (.params._meta[$p + "clientInfo"] | type) == "object"
	and (.params._meta[$p + "clientCapabilities"] | type) == "object") | not)' |
	head -c 1500)
[ -z "$bad" ] || problem "strict: requests without the 2026 _meta: $bad"
for m in ping logging/setLevel; do
	[ -z "$(wire strict "select(.method == \"$m\")")" ] ||
		problem "strict: was sent $m"
done
# Each client's own capabilities go with its requests (the first tries of
# ask: sdk-new's, sdk-1-17's and v2's, on strict and through mix, with
# elicitation and sampling; nocaps's with neither); mcpd's with its own.
# shellcheck disable=SC2016 # $p is jq's
caps=$(wire strict 'select(.method == "tools/call" and .params.name == "ask" and
	.params.inputResponses == null) | .params._meta[$p + "clientCapabilities"] |
	if has("elicitation") and has("sampling") then "both"
	elif has("elicitation") or has("sampling") then "one" else "none" end' |
	sort | uniq -c | tr -s ' \n' ' ')
case $caps in
' '[3-9]' "both" 1 "none" ') note "strict: the first tries of ask carried capabilities:$caps" ;;
*) problem "strict: the first tries of ask carried capabilities$caps, not 3 or more with elicitation and sampling (sdk-new, sdk-1-17, v2) and 1 with neither (nocaps)" ;;
esac
# shellcheck disable=SC2016 # $p is jq's
got=$(wire strict 'select(.method == "server/discover") |
	.params._meta[$p + "clientCapabilities"] | has("elicitation")' | sort -u)
[ "$got" = true ] ||
	problem "strict: server/discover did not carry mcpd's capabilities (elicitation: $got)"
# The retries: the client's answers and the server's state, new ids.
got=$(wire strict 'select(.method == "tools/call" and .params.name == "ask" and
	.params.inputResponses.name.action == "accept" and
	.params.inputResponses.name.content.name == "Ada")' | wc -l)
[ "$got" -ge 2 ] ||
	problem "strict: $got retries of ask with inputResponses.name {accept, Ada}, not 2 or more (sdk-new, sdk-1-17)"
got=$(wire strict 'select(.method == "tools/call" and .params.name == "ask2" and
	(.params.inputResponses.hi.content.text // "") == "Hello from the model" and
	(.params.requestState | type) == "string")' | wc -l)
[ "$got" -ge 2 ] ||
	problem "strict: $got last retries of ask2 with inputResponses.hi and a requestState, not 2 or more"
dup=$(wire strict 'select(.method == "tools/call") | .id' | sort | uniq -d | head -n 3)
[ -z "$dup" ] || problem "strict: tools/call ids used twice (a retry needs its own): $dup"
# Each 1.x client's level goes with its requests (sdk-new's echo and the
# bystander's alike).
for n in sdk-new sdk-1-17; do
	msg="hello up ${PKG[$n]} mcpd:strict"
	got=$(wire strict "select(.method == \"tools/call\" and
		.params.arguments.message == \"$msg\") |
		.params._meta[\$p + \"logLevel\"]" | sort -u)
	[ "$got" = "\"${LEVEL[$n]}\"" ] ||
		problem "$n: its echo reached strict with _meta logLevel ${got:-absent}, not ${LEVEL[$n]}"
done
# Health checks: server/discover (strict's interval is 500 ms).
# shellcheck disable=SC2317 # run by wait_for
discovers() {
	[ "$(wire strict 'select(.method == "server/discover")' | wc -l)" -ge 3 ]
}
wait_for 15 discovers ||
	problem "strict: $(wire strict 'select(.method == "server/discover")' | wc -l) server/discover within 15 s at a health interval of 500 ms"

# mcpctl ping: answered.
for s in strict strict26; do
	ctl_run "ping-$s" ping "$s"
	if [ "$RC" = 0 ]; then
		note "$(cat "$T/ping-$s.out")"
	else
		problem "mcpctl ping $s: exit $RC: $(head -c 600 "$T/ping-$s.err")"
	fi
done

# At the end: ready, the same process all along.
for s in strict strict26; do
	{ server_is "$s" ready && [ "$(server_field "$s" restarts)" = 0 ]; } ||
		problem "$s: state $(server_field "$s" state), restarts $(server_field "$s" restarts), last_exit $(server_field "$s" last_exit)"
done
n=$(wire strict 'select(.method == "initialize")' | wc -l)
[ "$n" = 0 ] || problem "strict: $n initialize requests, not none"
n=$(wire ev 'select(.method == "initialize")' | wc -l)
{ [ "$n" = 1 ] && [ "$(server_pid ev)" = "$EV_PID" ] &&
	[ "$(server_field ev restarts)" = 0 ]; } ||
	problem "ev: $n initialize requests, pid $(server_pid ev) (was $EV_PID), restarts $(server_field ev restarts)"
{ server_is strict25 failed && [ "$(server_field strict25 restarts)" = 0 ]; } ||
	problem "strict25: state $(server_field strict25 state), restarts $(server_field strict25 restarts)"
note "figure: the test took $(($(now_ms) - t0)) ms"

# The table.
CELLS="connect discover loglevel ping list call progress prompt read ask ask2 subscribe"
note "$(printf '%-9s %-50s' run target) $CELLS"
for n in sdk-new sdk-1-17 v2; do
	for tg in "$DIRECT" "${TARGETS[@]}"; do
		line=$(printf '%-9s %-50s' "$n" "${tg/#direct:*/direct}")
		for c in $CELLS; do
			line+=" ${JUDGED[$n $tg $c]:--}"
		done
		note "$line"
	done
done
if [ "${#PROBLEMS[@]}" -gt 0 ]; then
	printf '%s\n' "${PROBLEMS[@]}" >&2
	fail "${#PROBLEMS[@]} problem(s), first: ${PROBLEMS[0]}"
fi
stop_mcpd
exit 0
