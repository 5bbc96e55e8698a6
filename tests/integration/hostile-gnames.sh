#!/bin/bash
# hostile-gnames.sh -- a group's filters cannot be got round by the
# spelling of a name.  A member "fs" offers files.delete, files/delete and
# a tool whose name is 75 characters long:
# - names follow MCP 2025-11-25 (A-Z a-z 0-9 _ . -) within the 64
#   characters the model APIs take: files.delete is listed as
#   fs__files.delete; files/delete and the long one are cleaned, cut and
#   hashed;
# - a call names a tool the session listed, or one it would list under
#   exactly that name: fs__files/delete and the long name spelled out are
#   refused, as are hashed names before the session has listed them;
# - a group's filter is matched against every spelling: the name given
#   out, the member's own, MEMBER__NAME as the member spells it, and the
#   name given out before '.' was allowed.  With "deny":
#   ["fs__files_delete*"], `mcpctl call g fs__files.delete` used to run the
#   member's files.delete (the filter saw only the spelling the client
#   sent); so did fs__files/delete, the long name spelled out under a deny
#   of its listed name, and anything under a deny of the member's own name.

. "$TESTS_SRCDIR/integration/lib.sh"

LONG=long_$(printf 'x%.0s' $(seq 70))
write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "fs": { "command": "$MCP_FAKE",
            "args": ["--tool=files.delete", "--tool=files/delete", "--tool=$LONG"] }
  },
  "groups": {
    "open": { "servers": ["fs"] },
    "byold": { "servers": ["fs"], "tools": { "deny": ["fs__files_delete*"] } },
    "byown": { "servers": ["fs"], "tools": { "deny": ["files.delete", "files/delete", "long_*"] } },
    "bylisted": { "servers": ["fs"], "tools": { "deny": ["fs__long_*-*", "fs__files.delete"] } },
    "allowed": { "servers": ["fs"], "tools": { "allow": ["fs__echo"] } }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready fs 30

# tools GROUP: the names the group lists, one a line.
tools() {
	ctl --json tools "$1" | jq -r '.[].name' 2>/dev/null ||
		ctl --json tools "$1" | jq -r '.tools[].name'
}

# The names given out.
tools open >"$T/open.names" || fail "mcpctl tools open failed"
grep -qx 'fs__files\.delete' "$T/open.names" ||
	fail "files.delete is not listed as fs__files.delete: $(cat "$T/open.names")"
slash=$(grep -x 'fs__files_delete-[0-9a-f]\{8\}' "$T/open.names") ||
	fail "files/delete is not listed cleaned and hashed: $(cat "$T/open.names")"
long=$(grep '^fs__long_' "$T/open.names") ||
	fail "the long tool is not listed: $(cat "$T/open.names")"
[ "${#long}" = 64 ] && [[ $long =~ -[0-9a-f]{8}$ ]] ||
	fail "the long tool is listed as $long (${#long} characters)"
note "group open lists fs__files.delete, $slash, $long"

# called NAME: how many times fs said it ran NAME.
called() {
	awk -v s="fs: called $1" 'substr($0, length($0) - length(s) + 1) == s { n++ }
		END { print n + 0 }' "$MCPD_LOG"
}

# refused GROUP NAME: mcpctl call is refused with -32602.
refused() {
	local out
	out=$(ctl call "$1" "$2" 2>&1) &&
		fail "mcpctl call $1 $2 ran: $out"
	grep -q -- -32602 <<<"$out" || fail "mcpctl call $1 $2: no -32602: $out"
}

out=$(ctl call open fs__files.delete 2>&1) || fail "mcpctl call open fs__files.delete failed: $out"
[ "$out" = "called files.delete" ] || fail "mcpctl call open fs__files.delete gave '$out'"
# Spellings the group does not give out.
refused open "fs__files/delete"
refused open "fs__$LONG"
# A hashed name is known once the session has listed it.
refused open "$slash"
spawn br "$MCPCTL" -s "$SOCK" connect open 2>"$T/br.err"
spawn_send br '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
for want in 1 2; do
	spawn_read br 30 line || fail "the bridge said nothing for request $want: $(cat "$T/br.err")"
done
spawn_send br "$(jq -nc --arg n "$slash" '{jsonrpc: "2.0", id: 3, method: "tools/call", params: {name: $n, arguments: {}}}')" \
	"$(jq -nc --arg n "$long" '{jsonrpc: "2.0", id: 4, method: "tools/call", params: {name: $n, arguments: {}}}')"
for want in 3 4; do
	spawn_read br 30 line || fail "no reply to call $want: $(cat "$T/br.err")"
	jq -e '.result.content[0].text | startswith("called ")' <<<"$line" >/dev/null ||
		fail "call $want of a listed hashed name: $line"
done
spawn_close br
spawn_wait br 30 || fail "the bridge did not exit"
note "group open: listed names run; other spellings are refused"

# Every spelling, under every filter that names one of the tool's names.
# hidden GROUP PATTERN: the group lists no name PATTERN matches.
hidden() {
	grep -q "$2" "$T/$1.names" &&
		fail "group $1 lists a tool its filter denies: $(cat "$T/$1.names")"
	return 0
}
for g in byold byown bylisted allowed; do
	tools "$g" >"$T/$g.names" || fail "mcpctl tools $g failed"
done
hidden byold 'files'
hidden byown 'files\|long'
hidden bylisted 'fs__files\.delete\|long'
hidden allowed 'files\|long'
grep -q "$long" "$T/byold.names" ||
	fail "group byold hides the long tool, which it does not deny: $(cat "$T/byold.names")"
grep -q "$slash" "$T/bylisted.names" ||
	fail "group bylisted hides files/delete, which it does not deny: $(cat "$T/bylisted.names")"
for g in byold byown bylisted allowed; do
	for name in fs__files.delete fs__files/delete "$slash"; do
		[ "$g" = bylisted ] && [ "$name" = "$slash" ] && continue
		refused "$g" "$name"
	done
done
for g in byown bylisted allowed; do
	refused "$g" "fs__$LONG"
	refused "$g" "$long"
done
out=$(ctl call allowed fs__echo text=hi 2>&1) || fail "mcpctl call allowed fs__echo failed: $out"

# Once the last call has been logged, so have those before it: none ran.
ctl call open fs__files.delete >/dev/null || fail "mcpctl call open fs__files.delete failed"
wait_for 30 eval '[ "$(called files.delete)" -ge 2 ]' ||
	fail "fs did not log its calls: $(grep 'fs: called' "$MCPD_LOG")"
[ "$(called files.delete)" = 2 ] && [ "$(called files/delete)" = 1 ] && [ "$(called "$LONG")" = 1 ] ||
	fail "a denied tool ran: $(grep 'fs: called' "$MCPD_LOG")"
note "filters on the old, the member's own and the listed spellings hold: $(grep -c 'fs: called' "$MCPD_LOG") calls ran, all through group open"
mcpd_running || fail "mcpd died"
exit 0
