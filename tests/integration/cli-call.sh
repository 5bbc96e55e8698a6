#!/bin/bash
# cli-call.sh -- mcpctl call as a person types it, against cli-server.mjs
# (typed input schemas, structured content) and mcp-fake:
#
# - options after the tool's arguments: `call S T k=v --json` prints the
#   result as JSON (it used to be refused: "expected KEY=VALUE ... got
#   --json"); "--" ends them;
# - KEY=VALUE typed from the tool's inputSchema: message=42 for a string
#   property is "42" (it used to be the number 42), count=7 for an
#   integer 7, loud=true a boolean, opts={...} an object, tags=[...] an
#   array, note=null null for a string-or-null, mode=1 "1" for an enum of
#   strings; a property without a type is guessed as before (free=42 is
#   42); the same through a group, under the group's name for the tool;
#   mcp-fake's echo text=42 echoes 42 (it used to fail: "text must be a
#   string");
# - structured content printed once: not when a text block is its JSON
#   (mirror) or holds its one member's text (files, as the filesystem
#   server answers); under "[structured content]" when it says something
#   else (apart); alone when there is no content (only);
# - a tool a filter hides: "fake__crash: hidden by a filter", the name as
#   typed, through the group and on the server itself (it used to be
#   "unknown tool: crash", the group's prefix dropped); a tool a member
#   does not have is named as typed too (cli__nosuch); the hidden tool
#   did not run (fake still has the same process).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

need_node
cp "$TESTS_SRCDIR/integration/cli-server.mjs" "$T/" || hard_error "cannot copy cli-server.mjs"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "cli": {"command": "$NODE", "args": ["$T/cli-server.mjs"],
            "env": {"MCPD_TEST_DIR": "$T"}},
    "fake": {"command": "$MCP_FAKE", "tools": {"deny": ["crash"]}}
  },
  "groups": {
    "g": {"servers": ["cli", "fake"]},
    "gf": {"servers": ["fake"], "tools": {"deny": ["fake__echo"]}}
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready cli
wait_ready fake

# --- options after the arguments ------------------------------------------------
ctl_run json call cli args message=hi --json
ctl_rc 0 json "call cli args message=hi --json"
jq -e '.content[0].text == "{\"message\":\"hi\"}"' "$T/json.out" >/dev/null ||
	fail "call ... --json did not print the result as JSON: $(cat "$T/json.out")"
ctl_run json2 call cli --json args -s "$SOCK" message=hi
ctl_rc 0 json2 "call cli --json args -s SOCK message=hi"
jq -e '.content[0].text == "{\"message\":\"hi\"}"' "$T/json2.out" >/dev/null ||
	fail "options among the arguments: $(cat "$T/json2.out")"
ctl_run dashes call cli args -- message=--json
ctl_rc 0 dashes "call cli args -- message=--json"
[ "$(cat "$T/dashes.out")" = '{"message":"--json"}' ] ||
	fail "after --, words are the tool's: $(cat "$T/dashes.out")"
note "call S T k=v --json: $(jq -c . "$T/json.out")"

# --- KEY=VALUE typed from the schema ---------------------------------------------
WANT='{"message":"42","count":7,"ratio":0.5,"loud":true,"opts":{"a":[1]},"tags":["x"],"note":null,"mode":"1","free":42}'
ctl_run typed call cli args message=42 count=7 ratio=0.5 loud=true 'opts={"a":[1]}' \
	'tags=["x"]' note=null mode=1 free=42
ctl_rc 0 typed "call cli args (typed)"
[ "$(cat "$T/typed.out")" = "$WANT" ] ||
	fail "arguments typed from the schema: got $(cat "$T/typed.out"), expected $WANT"
ctl_run typed2 call cli args message=true note=hello count=many
ctl_rc 0 typed2 "call cli args message=true note=hello count=many"
[ "$(cat "$T/typed2.out")" = '{"message":"true","note":"hello","count":"many"}' ] ||
	fail "string-typed values and a count that is no number: $(cat "$T/typed2.out")"
ctl_run group call g cli__args message=42 count=7
ctl_rc 0 group "call g cli__args message=42 count=7"
[ "$(cat "$T/group.out")" = '{"message":"42","count":7}' ] ||
	fail "through the group: $(cat "$T/group.out")"
ctl_run echo call fake echo text=42
ctl_rc 0 echo "call fake echo text=42"
[ "$(cat "$T/echo.out")" = 42 ] || fail "mcp-fake's echo text=42: $(cat "$T/echo.out" "$T/echo.err")"
note "message=42 count=7 ... -> $(cat "$T/typed.out")"

# --- structured content, once ------------------------------------------------------
ctl_run mirror call cli mirror
ctl_rc 0 mirror "call cli mirror"
[ "$(cat "$T/mirror.out")" = '{"n":1,"s":"x"}' ] ||
	fail "a result whose text is its structured content's JSON, printed: $(cat "$T/mirror.out")"
ctl_run files call cli files
ctl_rc 0 files "call cli files"
[ "$(cat "$T/files.out")" = 'hello from files' ] ||
	fail "a result whose structured content holds its text, printed: $(cat "$T/files.out")"
ctl_run apart call cli apart
ctl_rc 0 apart "call cli apart"
[ "$(head -2 "$T/apart.out")" = $'two\n[structured content]' ] &&
	[ "$(tail -n +3 "$T/apart.out" | jq -c .)" = '{"n":2}' ] ||
	fail "a result whose structured content says something else: $(cat "$T/apart.out")"
ctl_run only call cli only
ctl_rc 0 only "call cli only"
[ "$(jq -c . "$T/only.out")" = '{"n":3}' ] ||
	fail "structured content alone: $(cat "$T/only.out")"
note "call cli files -> '$(cat "$T/files.out")'; apart -> $(tr '\n' ' ' <"$T/apart.out")"

# --- names as typed: hidden, unknown ----------------------------------------------------
pid=$(server_pid fake) || fail "fake has no pid"
ctl_run hidden call g fake__crash
ctl_rc 1 hidden "call g fake__crash"
grep -qF 'mcpctl: g: tools/call: fake__crash: hidden by a filter' "$T/hidden.err" ||
	fail "a tool hidden by a member's filter, through the group: $(cat "$T/hidden.err")"
ctl_run hidden1 call fake crash
ctl_rc 1 hidden1 "call fake crash"
grep -qF 'mcpctl: fake: tools/call: crash: hidden by a filter' "$T/hidden1.err" ||
	fail "a tool hidden by the server's filter: $(cat "$T/hidden1.err")"
[ "$(server_pid fake)" = "$pid" ] || fail "the hidden crash tool ran: fake's pid changed"
# The group's own filter hides fake__echo in gf: said so, not "not offered".
ctl_run hidden2 call gf fake__echo text=x
ctl_rc 1 hidden2 "call gf fake__echo"
grep -qF 'mcpctl: gf: tools/call: fake__echo: hidden by a filter' "$T/hidden2.err" ||
	fail "a tool hidden by the group's own filter: $(cat "$T/hidden2.err")"
ctl_run unknown call g cli__nosuch
ctl_rc 1 unknown "call g cli__nosuch"
grep -qF 'unknown tool: cli__nosuch' "$T/unknown.err" ||
	fail "a tool the member does not have, named as typed: $(cat "$T/unknown.err")"
note "call g fake__crash: $(cat "$T/hidden.err")"

mcpd_running || fail "mcpd died"
exit 0
