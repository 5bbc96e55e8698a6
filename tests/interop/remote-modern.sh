#!/bin/bash
# remote-modern.sh -- remote servers of MCP 2026-07-28 over Streamable
# HTTP under mcpd: entries with a "url", so mcpd-remote between, reached
# by clients of both eras.  The remote is the official TypeScript SDK
# 2.x serving 2026-07-28 over HTTP (createMcpHandler, toNodeHandler:
# tests/remote/modern-http-server.mjs), which checks every request's
# headers against its body and answers a mismatch 400 (-32020).
#
# The servers:
#   strict   modern-http-server.mjs --strict (2026-07-28 alone), "protocol"
#            auto: mcpd's initialize is answered 400 (-32022, supported
#            2026-07-28), which mcpd-remote passes on as a stdio server
#            answers it, and mcpd goes on with server/discover.
#   dual     modern-http-server.mjs (both eras), "protocol": "2026-07-28":
#            server/discover alone.
# Both ready, "protocol 2026-07-28" in mcpd's log, never restarted.
#
# The clients (up-client.mjs, whose header lists its cells): the 1.x SDK
# (asking 2025-11-25) and the 2.x client pinned to 2026-07-28, each
# through `mcpctl connect` to strict and to dual: connect, list, call
# (echo), progress, prompt, read (test://missing refused), ask (the
# remote's input_required put to the client as one elicitation, answered,
# and the call retried: "Name: Ada"), and for 1.x ping, logging/setLevel
# and subscribe (the remote's resources/updated and tools list_changed,
# which it sends only on a subscriptions/listen stream, reach the 2025
# client); for 2.x discover.
#
# On the remote's side (its log of every POST): every request after the
# refused initialize carried MCP-Protocol-Version 2026-07-28, Mcp-Method
# equal to its method, Mcp-Name equal to params.name (tools/call,
# prompts/get) or params.uri (resources/read); none carried
# Mcp-Session-Id; no GET or DELETE; a subscriptions/listen came.  strict
# got exactly one initialize, dual none.
#
# A broken stream (the remote drops the connection mid-answer, POST
# /drop): `mcpctl call strict echo` fails saying the request may have been
# carried out, and the remote saw that tools/call once; `mcpctl read
# strict test://r` and `mcpctl prompts strict` succeed, the remote having
# seen the read and the list twice.
#
# Tool parameters (x-mcp-header, on dual): route's Region, Count, Fast
# (under opts) and Note reach the remote as Mcp-Param-* headers, plain,
# in base64 (non-ASCII, spaces at the ends, the sentinel's shape) and
# absent when the argument is, and the SDK's own check lets the calls
# through; badhdr (an annotation on a number) is not in mcpctl tools, and
# mcpd's log has mcpd-remote's warning naming it and why.
#
# A listen stream broken while the remote's tools change (POST
# /break-listens): a client connected to dual through mcpctl connect
# gets notifications/tools/list_changed once mcpd-remote reopened the
# stream, and its next tools/list shows the change.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/remote-modern.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: remote-modern: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
cp "$TESTS_SRCDIR/interop/up-client.mjs" "$T/" || hard_error "cannot copy up-client.mjs"
for p in client server node; do
	v=$(jq -r .version "$MODS/$p/package.json" 2>/dev/null)
	case $v in
	2.*) ;;
	*) hard_error "$MODS/$p is not the SDK 2.x (version $v; tests/interop/package.json names it)" ;;
	esac
done
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
export MCPCTL
t0=$(now_ms)

# serve NAME [ARGS...]: modern-http-server.mjs, its log $T/NAME.log, its
# URL in URL_NAME once it listens.
declare -A RURL RPID
serve() {
	local name=$1
	shift
	: >"$T/$name.log"
	(cd "$T" && MCPD_TEST_DIR=$T exec "$NODE" "$T/modern-http-server.mjs" \
		--log "$T/$name.log" "$@" >"$T/$name.port" 2>"$T/$name.stderr") &
	RPID[$name]=$!
	# shellcheck disable=SC2317 # run by wait_for
	listening() { grep -q '"url"' "$T/$name.port" 2>/dev/null; }
	wait_for "$HTTP_START_TIMEOUT_S" listening ||
		hard_error "$name: modern-http-server.mjs did not start: $(head -c 600 "$T/$name.stderr")"
	RURL[$name]=$(jq -r .url "$T/$name.port")
}
serve strict --strict
serve dual

config=$(jq -n --arg s "${RURL[strict]}" --arg d "${RURL[dual]}" '{
	mcpd: { init_timeout_ms: 60000 },
	mcpServers: {
		# Unpinned: the tool the remote adds while its listen stream is
		# down ("extra") would be held as new until approved.
		strict: { url: $s, pin: "off" },
		dual: { url: $d, protocol: "2026-07-28", pin: "off" }
	}
}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"

PROBLEMS=()
problem() {
	PROBLEMS+=("$1")
	echo "# PROBLEM $1" >&2
}

for s in strict dual; do
	wait_for 60 server_is "$s" ready failed
	server_is "$s" ready ||
		fail "$s: not ready within 60 s: state $(server_field "$s" state), last_exit $(server_field "$s" last_exit); mcpd's log: $(grep -E "(^|: )$s: " "$MCPD_LOG" | tail -n 5)"
	grep -Eq "(^|: )$s: [a-z]+ -> ready: initialized: modern-http, protocol 2026-07-28" \
		"$MCPD_LOG" ||
		problem "$s: mcpd's log has no \"ready: initialized: modern-http, protocol 2026-07-28\": $(grep -E "(^|: )$s: " "$MCPD_LOG" | tail -n 3)"
done
note "figure: ready after $(($(now_ms) - t0)) ms"

# run NAME SDK [ARGS...]: one client configuration, every target.
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

# cell NAME TARGET CELL [JQ]: the cell ran and passed, and JQ holds of it.
cell() {
	local n=$1 tg=$2 c=$3 q=${4:-true}
	jq -e --arg t "$tg" --arg c "$c" ".targets[\$t].steps[\$c] |
		(.ok == true) and ($q)" "$T/$n.json" >/dev/null && return 0
	problem "$n $tg: cell $c: $(jq -c --arg t "$tg" --arg c "$c" \
		'.targets[$t] | .steps[$c] // {skipped: .skipped[$c], error: .error}' \
		"$T/$n.json" | head -c 1500)"
	return 1
}

ASKED='.outcome == "answer" and .text == "Name: Ada" and
	.elicited == 1 and .sampled == 0'
declare -A PKG=([sdk-new]=@modelcontextprotocol/sdk [v2]=v2)
declare -A ASKS=([sdk-new]=2025-11-25 [v2]=2026-07-28)
for n in sdk-new v2; do
	run "$n" "${PKG[$n]}" mcpd:strict mcpd:dual
	note "$n: $(jq -c '.targets | map_values(.steps | map_values(.ok))' \
		"$T/$n.json")"
	for tg in mcpd:strict mcpd:dual; do
		cell "$n" "$tg" connect ".version == \"${ASKS[$n]}\"" || continue
		cells=(list call progress prompt read)
		if [ "$n" = v2 ]; then
			cells+=(discover)
		else
			cells+=(ping subscribe)
		fi
		for c in "${cells[@]}"; do
			cell "$n" "$tg" "$c"
		done
		cell "$n" "$tg" ask "$ASKED"
	done
done

# A broken stream.  drop NAME METHOD: the next POST of METHOD to NAME
# breaks mid-answer.  posts NAME METHOD: how many came.
drop() {
	curl -sf -X POST --data "{\"method\":\"$2\"}" "${RURL[$1]%/mcp}/drop" ||
		hard_error "POST /drop to $1 failed"
}
posts() {
	jq -c --arg m "$2" 'select(.method == $m)' "$T/$1.log" | wc -l
}
before=$(posts strict tools/call)
drop strict tools/call
ctl_run call-drop call strict echo '{"message":"dropped"}'
if [ "$RC" = 0 ]; then
	problem "a tools/call whose stream broke succeeded: $(head -c 600 "$T/call-drop.out")"
elif ! grep -q "may have been carried out" "$T/call-drop.err" "$T/call-drop.out"; then
	problem "a tools/call whose stream broke: not saying it may have run: $(head -c 600 "$T/call-drop.err")"
fi
[ "$(posts strict tools/call)" = $((before + 1)) ] ||
	problem "a tools/call whose stream broke reached the remote $(($(posts strict tools/call) - before)) times, not once"
for m in resources/read prompts/list; do
	before=$(posts strict "$m")
	drop strict "$m"
	case $m in
	resources/read) ctl_run again read strict test://r ;;
	prompts/list) ctl_run again prompts strict ;;
	esac
	[ "$RC" = 0 ] ||
		problem "$m whose stream broke: not sent again: exit $RC: $(head -c 600 "$T/again.err")"
	[ "$(posts strict "$m")" = $((before + 2)) ] ||
		problem "$m whose stream broke reached the remote $(($(posts strict "$m") - before)) times, not twice"
done
ctl_run call-after call strict echo '{"message":"after"}'
[ "$RC" = 0 ] && grep -q "Echo: after" "$T/call-after.out" ||
	problem "a call after the broken streams: exit $RC: $(head -c 600 "$T/call-after.err")"

# Tool parameters mirrored into headers (x-mcp-header).  The remote's
# route has four annotated arguments and the SDK answers a call whose
# Mcp-Param-* headers are missing or disagree 400 (-32020); badhdr has
# one on a number, so a conforming client leaves it out of tools/list.
ctl_run tools tools dual
if [ "$RC" != 0 ] || ! grep -q route "$T/tools.out"; then
	problem "mcpctl tools dual: exit $RC, no route: $(head -c 600 "$T/tools.out" "$T/tools.err")"
elif grep -q badhdr "$T/tools.out"; then
	problem "badhdr (x-mcp-header on a number) is listed: $(grep badhdr "$T/tools.out")"
fi
grep -q 'warning: the remote.s tool "badhdr" is left out of tools/list: property "ratio": x-mcp-header on a property whose type is not' \
	"$MCPD_LOG" || problem "no warning naming badhdr in mcpd's log: $(grep -i badhdr "$MCPD_LOG" | head -c 600)"
# route_call NAME ARGS WANT: the call is answered "route ..." and the
# remote saw exactly the Mcp-Param-* headers WANT (a JSON object).
route_call() {
	local got
	ctl_run "$1" call dual route "$2"
	{ [ "$RC" = 0 ] && grep -q "route " "$T/$1.out"; } ||
		problem "route $2: exit $RC: $(head -c 600 "$T/$1.out" "$T/$1.err")"
	got=$(jq -c 'select(.method == "tools/call" and .name == "route") |
		.params' "$T/dual.log" | tail -n 1)
	jq -e --argjson w "$3" '. == $w' <<<"$got" >/dev/null ||
		problem "route $2: the remote saw the headers $got, not $3"
}
route_call route1 '{"region":"us-west1","count":42,"opts":{"fast":true}}' \
	'{"mcp-param-region":"us-west1","mcp-param-count":"42","mcp-param-fast":"true"}'
route_call route2 '{"region":"Hello, 世界","note":" padded ","count":-7}' \
	'{"mcp-param-region":"=?base64?SGVsbG8sIOS4lueVjA==?=","mcp-param-count":"-7","mcp-param-note":"=?base64?IHBhZGRlZCA=?="}'
route_call route3 '{"region":"=?base64?literal?=","opts":{"fast":false}}' \
	'{"mcp-param-region":"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=","mcp-param-fast":"false"}'

# A listen stream broken while the tools change (POST /break-listens
# flips extra without a word and breaks the streams): once mcpd-remote
# reopened it, a client connected to dual is told the tools changed, and
# its next list has the change.
spawn br "$MCPCTL" -s "$SOCK" connect dual 2>"$T/br.err"
# br_until ID|METHOD: read br's lines until the response to ID or the
# notification METHOD; the line in BR_LINE.
br_until() {
	local line end=$(($(now_ms) + 60000))
	while [ "$(now_ms)" -lt "$end" ]; do
		spawn_read br 5 line || continue
		if jq -e --arg w "$1" '(.id | tostring) == $w or .method == $w' \
			<<<"$line" >/dev/null 2>&1; then
			BR_LINE=$line
			return 0
		fi
	done
	return 1
}
spawn_send br '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"br","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
br_until 2 || fail "mcpctl connect dual: no tools/list answer: $(tail -c 600 "$T/br.err")"
had=$(jq '[.result.tools[].name] | index("extra") != null' <<<"$BR_LINE")
listens=$(posts dual subscriptions/listen)
broken=$(curl -sf -X POST "${RURL[dual]%/mcp}/break-listens" | jq .broken)
[ "${broken:-0}" -ge 1 ] || problem "no listen stream was open on dual to break ($broken)"
if br_until notifications/tools/list_changed; then
	spawn_send br '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
	br_until 3 || fail "no answer to tools/list after the change"
	has=$(jq '[.result.tools[].name] | index("extra") != null' <<<"$BR_LINE")
	[ "$has" != "$had" ] ||
		problem "after the listen stream came back, extra is still $had in the list"
else
	problem "a client was not told of the tools' change made while the listen stream was broken"
fi
[ "$(posts dual subscriptions/listen)" -gt "$listens" ] ||
	problem "the broken listen stream was not reopened"
grep -q "the subscription stream is open again" "$MCPD_LOG" ||
	problem "mcpd-remote did not say the listen stream was caught up"
spawn_close br

# The remote's side.
for s in strict dual; do
	log=$T/$s.log
	bad=$(jq -c 'select(.method != null and .method != "initialize") |
		select(.headers["mcp-protocol-version"] != "2026-07-28" or
		.headers["mcp-method"] != .method or
		((.method == "tools/call" or .method == "prompts/get" or
		.method == "resources/read") and .headers["mcp-name"] != .name))' \
		"$log" | head -c 1500)
	[ -z "$bad" ] || problem "$s: requests without the right headers: $bad"
	bad=$(jq -c 'select(.headers["mcp-session-id"] != null or .http != null)' \
		"$log" | head -c 1500)
	[ -z "$bad" ] || problem "$s: a session id, a GET or a DELETE: $bad"
	[ "$(posts "$s" subscriptions/listen)" -ge 1 ] ||
		problem "$s: no subscriptions/listen reached the remote"
	for m in tools/call resources/read prompts/get; do
		[ "$(posts "$s" "$m")" -ge 1 ] || problem "$s: no $m reached the remote"
	done
	{ server_is "$s" ready && [ "$(server_field "$s" restarts)" = 0 ]; } ||
		problem "$s: state $(server_field "$s" state), restarts $(server_field "$s" restarts), last_exit $(server_field "$s" last_exit)"
done
first=$(jq -r 'select(.method != null) | .method' "$T/strict.log" | head -n 2 | tr '\n' ' ')
[ "$first" = 'initialize server/discover ' ] ||
	problem "strict: the first requests were $first, not initialize then server/discover"
[ "$(posts strict initialize)" = 1 ] ||
	problem "strict: $(posts strict initialize) initialize requests, not one"
[ "$(posts dual initialize)" = 0 ] ||
	problem "dual (protocol 2026-07-28): $(posts dual initialize) initialize requests"
note "figure: the test took $(($(now_ms) - t0)) ms"

if [ "${#PROBLEMS[@]}" -gt 0 ]; then
	printf '%s\n' "${PROBLEMS[@]}" >&2
	fail "${#PROBLEMS[@]} problem(s), first: ${PROBLEMS[0]}"
fi
stop_mcpd
kill "${RPID[@]}" 2>/dev/null
exit 0
