#!/bin/bash
# policy.sh -- the configuration's "clients": what each app may call.
#
# Two mcp-fake servers, "fake" (its requests logged) and "other", and the
# groups "g" (both) and "go" (other alone).  The policy "default" lets
# its clients reach fake and g, denies fake's tool echo (written as a
# group would name it, fake__echo), g's other__add and the resource
# fake://status, and its prompts are not restricted; "nomatch" matches by an executable no client runs
# and would allow everything.  The identity of a client is not known
# to mcpd here, so every client gets "default":
#
# - tools/list of fake lacks echo (and keeps add); mcpctl call fake echo
#   fails with an error that names the policy and the tool, and the
#   server never receives the call; add works; the resource fake://status
#   is denied too: not listed, its read refused naming the policy;
# - mcpctl connect other, and mcpctl connect go, are refused at attach
#   with an error naming the policy; so is mcpctl tools other;
# - through g: fake__echo and other__add are not listed and their calls
#   are refused naming the policy; other__echo works;
# - a reload that lets echo through sends an attached session
#   notifications/tools/list_changed, and its next tools/list has echo
#   and its call works; a reload that takes fake out of "servers" makes
#   the attached session's next request fail naming the policy;
# - without "clients" at all, everything is allowed as before.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

servers() {
	cat <<JSON
  "mcpServers": {
    "fake": {"command": "$MCP_FAKE", "args": ["--request-log=$T/fake.requests"]},
    "other": {"command": "$MCP_FAKE"}
  },
  "groups": {"g": {"servers": ["fake", "other"]}, "go": {"servers": ["other"]}}
JSON
}

# policy_config DEFAULT: the configuration with this "default" policy.
policy_config() {
	write_config "$T/mcpd.json" <<JSON
{
$(servers),
  "clients": {
    "nomatch": {"match": {"exe": "/nonexistent/mcpd-test/*"}},
    "default": $1
  }
}
JSON
}

DENY='{"servers": ["fake", "g"], "tools": {"deny": ["fake__echo", "other__add"]},
	"resources": {"deny": ["fake://status"]}}'
policy_config "$DENY"
start_mcpd "$T/mcpd.json"
wait_ready fake
wait_ready other

REFUSED='refused by the policy "default" of mcpd'"'"'s "clients"'

# --- a server's list narrowed, its calls refused ---------------------------------
ctl_run tools tools fake --json
ctl_rc 0 tools "tools fake"
got=$(jq -r '[.[].name] | sort | join(",")' "$T/tools.out" 2>/dev/null ||
	jq -r '[.tools[].name] | sort | join(",")' "$T/tools.out")
case ",$got," in
*,echo,*) fail "tools fake lists echo, which the default policy denies: $got" ;;
*,add,*) ;;
*) fail "tools fake lost add too: $got" ;;
esac
note "tools fake under the default policy: $got"

: >"$T/fake.requests"
ctl_run echo call fake echo text=hi
[ "$RC" != 0 ] || fail "call fake echo was not refused: $(cat "$T/echo.out")"
grep -qF "$REFUSED: tool echo is denied" "$T/echo.err" ||
	fail "call fake echo: the error does not name the policy: $(cat "$T/echo.err")"
grep -q '^tools/call' "$T/fake.requests" &&
	fail "the server received the denied call: $(grep '^tools/call' "$T/fake.requests")"
note "call fake echo: $(head -c 300 "$T/echo.err")"
ctl_run add call fake add a=1 b=2
ctl_rc 0 add "call fake add a=1 b=2"
ctl_run res resources fake --json
ctl_rc 0 res "resources fake"
grep -q 'fake://hello' "$T/res.out" || fail "resources fake lost fake://hello: $(cat "$T/res.out")"
grep -q 'fake://status' "$T/res.out" && fail "resources fake lists fake://status: $(cat "$T/res.out")"
ctl_run status read fake fake://status
[ "$RC" != 0 ] || fail "read fake fake://status was not refused"
grep -qF "$REFUSED: resource fake://status is denied" "$T/status.err" ||
	fail "read fake://status: the error does not name the policy: $(cat "$T/status.err")"
ctl_run hello read fake fake://hello
ctl_rc 0 hello "read fake fake://hello"

# --- servers and groups out of the policy: refused at attach --------------------
for name in other go; do
	ctl_run "att-$name" tools "$name"
	[ "$RC" != 0 ] || fail "tools $name was not refused: $(cat "$T/att-$name.out")"
	grep -qF "$REFUSED: $name is not in its \"servers\"" "$T/att-$name.err" ||
		fail "tools $name: the error does not name the policy: $(cat "$T/att-$name.err")"
	timeout -k 5 30 "$MCPCTL" -s "$SOCK" connect "$name" </dev/null \
		>"$T/conn-$name.out" 2>"$T/conn-$name.err"
	rc=$?
	[ "$rc" != 0 ] || fail "connect $name was not refused"
	grep -qF "$REFUSED: $name is not in its \"servers\"" "$T/conn-$name.err" ||
		fail "connect $name: the error does not name the policy: $(cat "$T/conn-$name.err")"
done
note "connect other: $(head -c 300 "$T/conn-other.err")"

# --- through a group: the group's names ------------------------------------------
ctl_run gtools tools g --json
ctl_rc 0 gtools "tools g"
got=$(jq -r '[(.tools? // .)[].name] | sort | join(",")' "$T/gtools.out")
case ",$got," in
*,fake__echo,* | *,other__add,*) fail "tools g lists what the policy denies: $got" ;;
*,other__echo,*) ;;
*) fail "tools g lost other__echo: $got" ;;
esac
ctl_run gecho call g fake__echo text=hi
[ "$RC" != 0 ] || fail "call g fake__echo was not refused"
grep -qF "$REFUSED: tool fake__echo is denied" "$T/gecho.err" ||
	fail "call g fake__echo: the error does not name the policy: $(cat "$T/gecho.err")"
ctl_run gadd call g other__add a=1 b=2
[ "$RC" != 0 ] || fail "call g other__add was not refused"
grep -qF "$REFUSED: tool other__add is denied" "$T/gadd.err" ||
	fail "call g other__add: the error does not name the policy: $(cat "$T/gadd.err")"
ctl_run gok call g other__echo text=hi
ctl_rc 0 gok "call g other__echo text=hi"

# --- a reload applies to attached clients ----------------------------------------
request() {
	jq -nc --argjson id "$1" --arg m "$2" --argjson p "$3" \
		'{jsonrpc: "2.0", id: $id, method: $m, params: $p}'
}
# read_id ID: the session's lines until the reply to ID (the last is in LINE).
read_id() {
	while spawn_read sess 30 LINE; do
		printf '%s\n' "$LINE" >>"$T/sess.out"
		[ "$(jq -r '.id // empty' <<<"$LINE")" = "$1" ] && return 0
	done
	fail "no reply to $1 within 30 s: $(tail -c 600 "$T/sess.out")"
}
: >"$T/sess.out"
spawn sess "$MCPCTL" -s "$SOCK" connect fake
spawn_send sess "$(request 0 initialize '{"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}')" \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	"$(request 1 tools/list '{}')"
read_id 1
jq -e '[.result.tools[].name] | index("echo") == null' <<<"$LINE" >/dev/null ||
	fail "the session's tools/list has echo: $LINE"

policy_config '{"servers": ["fake", "g"]}'
ctl_run reload reload
ctl_rc 0 reload "reload (echo allowed)"
spawn_read sess 30 LINE || fail "no list_changed after the reload that allowed echo"
printf '%s\n' "$LINE" >>"$T/sess.out"
[ "$(jq -r .method <<<"$LINE")" = notifications/tools/list_changed ] ||
	fail "after the reload, the session got $LINE, not tools/list_changed"
spawn_send sess "$(request 2 tools/list '{}')" \
	"$(request 3 tools/call '{"name": "echo", "arguments": {"text": "now"}}')"
read_id 2
jq -e '[.result.tools[].name] | index("echo") != null' <<<"$LINE" >/dev/null ||
	fail "after the reload, tools/list still lacks echo: $LINE"
read_id 3
jq -e '.result.content[0].text == "now"' <<<"$LINE" >/dev/null ||
	fail "after the reload, echo did not work: $LINE"

policy_config '{"servers": ["g"]}'
ctl_run reload2 reload
ctl_rc 0 reload2 "reload (fake left out)"
spawn_send sess "$(request 4 tools/call '{"name": "add", "arguments": {"a": 1, "b": 2}}')"
read_id 4
jq -e '.error.code == -32013' <<<"$LINE" >/dev/null &&
	jq -r .error.message <<<"$LINE" | grep -qF "$REFUSED: server fake is not in its" ||
	fail "after fake was taken out of the policy, a call gave: $LINE"
note "after the reload that took fake out: $(jq -c .error <<<"$LINE")"
spawn_close sess
spawn_wait sess 30 || fail "mcpctl connect did not exit at the end of its input"

# --- no "clients": everything allowed, as before ---------------------------------
write_config "$T/mcpd.json" <<JSON
{
$(servers)
}
JSON
ctl_run reload3 reload
ctl_rc 0 reload3 "reload (no clients)"
ctl_run echo2 call fake echo text=free
ctl_rc 0 echo2 "call fake echo without clients"
ctl_run other2 call other add a=1 b=2
ctl_rc 0 other2 "call other add without clients"
ctl_run gadd2 call g other__add a=1 b=2
ctl_rc 0 gadd2 "call g other__add without clients"

mcpd_running || fail "mcpd died"
exit 0
