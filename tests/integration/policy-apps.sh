#!/bin/bash
# policy-apps.sh -- two apps on one server under a "clients" policy, told
# apart by what mcpd reads of them, not by what they say.
#
# The two apps are two copies of one small program, timeout(1), under
# the names $T/app-one and $T/app-two: each runs `mcpctl connect fake`,
# so each is the parent of a bridge, and the app mcpd reads for that
# bridge (mcpd(8), Identity).  The policies:
#   one:     exe $T/app-one, tools echo denied (add allowed);
#   two:     exe $T/app-two, tools only echo;
#   default: no server at all.
# Both apps are attached at once:
# - app-one's tools/list has add and not echo; its echo is refused
#   naming the policy "one"; its add works;
# - app-two's tools/list has echo alone; its add is refused naming "two";
#   its echo works;
# - app-one's session saying it is app-two (clientInfo.name "app-two")
#   changes nothing: still the view of "one";
# - a client that is no app of these, run by app-two and saying it is
#   app-two's bridge (an attach with "principal", a parent's name and
#   executable of its own making), gets "default": refused at attach;
# - mcpctl call run by the test itself gets "default" too.
# - mcpctl metrics counts each app's 2 calls and its 1 refusal, under
#   the app's name.
# This needs mcpd to know the identity of a client (the executable of a
# bridge's parent); without it every client is "default".

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

need_node
cp "$TESTS_SRCDIR/integration/rawlines.mjs" "$TESTS_SRCDIR/integration/rawjson.mjs" "$T/" ||
	hard_error "cannot copy rawlines.mjs"
TIMEOUT=$(command -v timeout) || hard_error "no timeout(1)"
cp "$TIMEOUT" "$T/app-one" && cp "$TIMEOUT" "$T/app-two" ||
	hard_error "cannot copy $TIMEOUT"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "fake": {"command": "$MCP_FAKE", "args": ["--request-log=$T/fake.requests"]}
  },
  "clients": {
    "one": {"match": {"exe": "$T/app-one"}, "servers": ["fake"],
            "tools": {"deny": ["echo"]}},
    "two": {"match": {"exe": "$T/app-two"}, "servers": ["fake"],
            "tools": {"allow": ["echo"]}},
    "default": {"servers": []}
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready fake

request() {
	jq -nc --argjson id "$1" --arg m "$2" --argjson p "$3" \
		'{jsonrpc: "2.0", id: $id, method: $m, params: $p}'
}
init() {
	request 0 initialize "$(jq -nc --arg n "$1" '{protocolVersion: "2025-11-25",
		capabilities: {}, clientInfo: {name: $n, version: "1"}}')"
}
# read_id APP ID: APP's session's lines until the reply to ID (in LINE).
read_id() {
	while spawn_read "$1" 30 LINE; do
		printf '%s\n' "$LINE" >>"$T/$1.out"
		[ "$(jq -r '.id // empty' <<<"$LINE")" = "$2" ] && return 0
	done
	fail "$1: no reply to $2 within 30 s: $(tail -c 600 "$T/$1.out")"
}
# tools APP: the names in APP's tools/list, sorted, comma-separated.
tools() {
	spawn_send "$1" "$(request 1 tools/list '{}')"
	read_id "$1" 1
	jq -r '[.result.tools[]?.name] | sort | join(",")' <<<"$LINE"
}
# call APP ID TOOL ARGS: the reply to a tools/call (in LINE).
call() {
	spawn_send "$1" "$(request "$2" tools/call "$(jq -nc --arg t "$3" \
		--argjson a "$4" '{name: $t, arguments: $a}')")"
	read_id "$1" "$2"
}
# refused_by POLICY WHAT: LINE is an error naming the policy and WHAT.
refused_by() {
	jq -r '.error.message // empty' <<<"$LINE" |
		grep -qF "refused by the policy \"$1\" of mcpd's \"clients\": $2"
}

# Both apps attached at once; app-one says it is app-two.
for app in one two; do
	: >"$T/$app.out"
	spawn "$app" "$T/app-$app" 120 "$MCPCTL" -s "$SOCK" connect fake
done
spawn_send one "$(init app-two)" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
read_id one 0
spawn_send two "$(init app-two)" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
read_id two 0

got=$(tools one)
case ",$got," in
*,echo,*) fail "app-one sees echo, which its policy denies: $got" ;;
*,add,*) ;;
*) fail "app-one does not see add: $got" ;;
esac
got=$(tools two)
[ "$got" = echo ] || fail "app-two sees $got, not echo alone"

: >"$T/fake.requests"
call one 2 echo '{"text": "one"}'
refused_by one "tool echo is denied" ||
	fail "app-one's echo was not refused by its policy: $LINE"
call one 3 add '{"a": 1, "b": 2}'
jq -e '.result.content[0].text == "3"' <<<"$LINE" >/dev/null ||
	fail "app-one's add failed: $LINE"
call two 4 add '{"a": 1, "b": 2}'
refused_by two "tool add is denied" ||
	fail "app-two's add was not refused by its policy: $LINE"
call two 5 echo '{"text": "two"}'
jq -e '.result.content[0].text == "two"' <<<"$LINE" >/dev/null ||
	fail "app-two's echo failed: $LINE"
# The server saw app-one's add and app-two's echo, and nothing else.
[ "$(grep -c '^tools/call' "$T/fake.requests")" = 2 ] ||
	fail "the server received other calls: $(grep '^tools/call' "$T/fake.requests")"

# Metrics count each app's calls and refusals under the app's name as
# identity knows it (app id, else unit, else the executable's name).
# app_name APP: that name of app-APP, from status --clients.
app_name() {
	ctl --json status --clients | jq -r --arg e "$T/app-$1" '
		first(.clients[].app | select(.exe == $e) |
		.app_id // .unit // (.exe | sub(".*/"; "")))'
}
# sample NAME APP: the value of metric NAME of fake for APP.
sample() {
	ctl metrics | awk -v m="$1{server=\"fake\",app=\"$2\"}" \
		'$1 == m { print $2 }'
}
for app in one two; do
	name=$(app_name "$app")
	[ -n "$name" ] || fail "status --clients does not show app-$app"
	[ "$(sample mcpd_app_calls_total "$name")" = 2 ] ||
		fail "mcpd_app_calls_total of app-$app ($name) is not 2: $(ctl metrics | grep '^mcpd_app_')"
	[ "$(sample mcpd_app_refused_total "$name")" = 1 ] ||
		fail "mcpd_app_refused_total of app-$app ($name) is not 1: $(ctl metrics | grep '^mcpd_app_')"
done
for app in one two; do
	spawn_close "$app"
	spawn_wait "$app" 30 || fail "app-$app's bridge did not exit"
done

# A client of its own making, run by app-two, claims to be its bridge.
{
	jq -nc --arg exe "$T/app-two" '{jsonrpc: "2.0", id: "a", method: "mcpd/attach",
		params: {server: "fake", principal: true, parent: {exe: $exe,
		name: "app-two"}, app: "two", exe: $exe}}'
	init app-two
} >"$T/liar.in"
timeout -k 5 120 "$T/app-two" 110 "$NODE" "$T/rawlines.mjs" "$SOCK" "$T/liar.in" \
	"$T/liar.json" 1 || fail "rawlines.mjs failed"
LINE=$(jq -c '.replies[0].line | fromjson' "$T/liar.json")
refused_by default "fake is not in its \"servers\"" ||
	fail "a client claiming to be app-two's bridge was not refused by \"default\": $LINE"

# mcpctl itself, run by the test: "default".
ctl_run direct call fake echo text=x
[ "$RC" != 0 ] || fail "mcpctl call was not refused by the default policy"
grep -qF "refused by the policy \"default\"" "$T/direct.err" ||
	fail "mcpctl call: $(cat "$T/direct.err")"

mcpd_running || fail "mcpd died"
exit 0
