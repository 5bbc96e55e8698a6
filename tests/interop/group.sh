#!/bin/bash
# group.sh -- one session over several servers: a group of
# server-everything, server-memory, server-filesystem (pinned in
# tests/interop/package-lock.json) and mcp-fake listing its tools two per
# page (its own filter hiding one tool; the group's hiding some of
# server-everything's), driven by the official SDK client through `mcpctl connect dev`
# (sdk-client.mjs --group: the checks are listed there).  Then what
# status shows of the group, and the built-in group "all" through mcpctl.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/group.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: group: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-180}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup

FILES=$T/files
mkdir -p "$FILES" || hard_error "cannot create $FILES"
FILE_TEXT="mcpd-group-file-$$-$RANDOM"
printf '%s\n' "$FILE_TEXT" >"$FILES/hello.txt"

# `$` is doubled since mcpd expands ${VAR} in these.
config=$(jq -n --arg node "$NODE" --arg mods "$MODS" --arg t "$T" \
	--arg files "$FILES" --arg fake "$MCP_FAKE" '
	def lit: gsub("\\$"; "$$");
	def server(script; args; env): {
		command: ($node | lit),
		args: ([$mods + "/" + script] + args | map(lit)),
		cwd: ($t | lit),
		env: ({MCPD_TEST_DIR: $t} + env | map_values(lit))
	};
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			everything: server("server-everything/dist/index.js";
				["stdio"]; {}),
			memory: server("server-memory/dist/index.js";
				[]; {MEMORY_FILE_PATH: ($t + "/memory.jsonl")}),
			filesystem: server("server-filesystem/dist/index.js";
				[$files]; {}),
			paged: { command: ($fake | lit), args: ["--tools-page=2"],
				env: {MCPD_TEST_DIR: ($t | lit)},
				tools: { deny: ["crash"] } },
			alone: { command: ($fake | lit),
				env: {MCPD_TEST_DIR: ($t | lit)} }
		},
		groups: {
			dev: { servers: ["everything", "memory", "filesystem",
				"paged"],
				tools: { deny: ["everything__get-*"] } }
		}
	}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
for s in everything memory filesystem paged alone; do
	wait_ready "$s" "$READY_TIMEOUT_S"
done

t=$(now_ms)
run_sdk_client "$T/client.out" --socket "$SOCK" \
	--group "dev:$FILES/hello.txt:$FILE_TEXT"
rc=$?
note "sdk-client --group: exit $rc after $(($(now_ms) - t)) ms"
[ "$rc" = 0 ] || fail "the SDK client's checks of group dev failed (exit $rc)"

# Status: the groups, their members' states, sessions and requests.
ctl --json status >"$T/status.json" || fail "mcpctl --json status failed"
jq -e '.groups[] | select(.name == "dev") |
	(.servers | map(.name)) == ["everything", "memory", "filesystem", "paged"]
	and .requests > 10' "$T/status.json" >/dev/null ||
	fail "status does not show group dev: $(jq -c .groups "$T/status.json")"
jq -e '.groups[] | select(.name == "all" and .builtin) | .servers | length == 5' \
	"$T/status.json" >/dev/null ||
	fail "status does not show the built-in group all of 5 servers: $(jq -c .groups "$T/status.json")"
ctl status >"$T/status.txt" || fail "mcpctl status failed"
grep -q '^dev ' "$T/status.txt" || fail "mcpctl status does not list group dev: $(cat "$T/status.txt")"

# The built-in group: every server, through mcpctl's own session.
ctl tools all >"$T/all.txt" 2>&1 || fail "mcpctl tools all failed: $(cat "$T/all.txt")"
for want in everything__echo memory__read_graph paged__add alone__echo; do
	grep -q "^$want " "$T/all.txt" || fail "mcpctl tools all lacks $want: $(head -c 2000 "$T/all.txt")"
done
out=$(ctl call all alone__add '{"a": 2, "b": 40}' 2>&1) || fail "mcpctl call all alone__add failed: $out"
[ "$out" = 42 ] || fail "alone__add through group all gave '$out'"
out=$(ctl call dev alone__add '{"a": 1, "b": 1}' 2>&1) &&
	fail "group dev called a tool of a server it does not hold: $out"
grep -q -- "-32602" <<<"$out" || fail "a tool outside the group: no -32602: $out"
note "group dev and the built-in all: lists, calls, status"

# Bad input on a group session: each line gets its error, the session
# goes on, and nothing reaches a member.
bad=$T/bad.in
{
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	printf '%s\n' 'not json' '[1,2]' '{"jsonrpc":"2.0","id":{},"method":"ping"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"!!not-base64!!"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"eyJ4IjoxfQ"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":7}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":6,"method":"nothing/here"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"nowhere://x"}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/x"}}}'
	printf '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"%s"}}\n' "$(head -c 5000 /dev/zero | tr '\0' a)"
	printf '%s\n' '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"still here"}}}'
	printf '%s\n' '{"jsonrpc":"2.0","id":11,"method":"ping"}'
} >"$bad"
timeout -k 5 60 "$MCPCTL" -s "$SOCK" connect dev <"$bad" >"$T/bad.out" 2>"$T/bad.err" ||
	fail "mcpctl connect dev with bad input failed: $(cat "$T/bad.err")"
code_of() { jq -r --argjson id "$1" 'select(.id == $id) | .error.code // "result"' "$T/bad.out"; }
[ "$(code_of 1)" = result ] || fail "initialize: $(code_of 1)"
jq -se 'map(select(.id == 1))[0].result.protocolVersion == "2025-06-18"' "$T/bad.out" >/dev/null ||
	fail "the group did not answer the protocol version the client asked for: $(head -c 600 "$T/bad.out")"
[ "$(jq -c 'select(.id == null) | .error.code' "$T/bad.out" | sort | tr '\n' ' ')" = "-32600 -32600 -32700 " ] ||
	fail "bad lines: $(jq -c 'select(.id == null)' "$T/bad.out")"
for want in "2 -32602" "3 -32602" "4 -32602" "5 -32602" "6 -32601" "7 -32002" "8 -32602" "9 -32602" "10 result" "11 result"; do
	set -- $want
	[ "$(code_of "$1")" = "$2" ] || fail "request $1 on the group: got $(code_of "$1"), want $2: $(jq -c "select(.id == $1)" "$T/bad.out" | head -c 300)"
done
jq -se 'map(select(.id == 10))[0].result.content[0].text | contains("still here")' "$T/bad.out" >/dev/null ||
	fail "the call after the bad lines: $(jq -c 'select(.id == 10)' "$T/bad.out")"
note "a group session answers each bad line with its error and goes on"

# A reload changes dev's members under an attached session: paged goes,
# alone comes; the session gets list_changed and lists the new members'
# tools; the servers are not restarted.
pid_paged=$(server_pid paged) || fail "paged has no pid"
spawn BRIDGE "$MCPCTL" -s "$SOCK" connect dev 2>"$T/bridge.err"
spawn_send BRIDGE '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
	'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
read_reply() { # ID: the bridge's lines up to the reply with that id, to $T/bridge.out
	local line
	while spawn_read BRIDGE 60 line; do
		printf '%s\n' "$line" >>"$T/bridge.out"
		jq -e --argjson id "$1" '.id == $id' <<<"$line" >/dev/null 2>&1 && return 0
	done
	fail "no reply $1 from mcpctl connect dev: $(cat "$T/bridge.out" "$T/bridge.err" 2>/dev/null | tail -c 2000)"
}
read_reply 2
tail -n 1 "$T/bridge.out" | jq -e '.result.tools | map(.name) | index("paged__echo")' >/dev/null ||
	fail "dev's first list lacks paged__echo"
jq '.groups.dev.servers = ["everything", "memory", "filesystem", "alone"]' \
	"$T/mcpd.json" >"$T/mcpd.json.new" && mv "$T/mcpd.json.new" "$T/mcpd.json" &&
	chmod 600 "$T/mcpd.json" || hard_error "cannot edit the configuration"
ctl reload >"$T/reload.out" 2>&1 || fail "mcpctl reload failed: $(cat "$T/reload.out")"
spawn_send BRIDGE '{"jsonrpc":"2.0","id":3,"method":"tools/list"}'
: >"$T/bridge.out"
read_reply 3
grep -q 'notifications/tools/list_changed' "$T/bridge.out" ||
	fail "no tools/list_changed after the reload changed dev: $(head -c 1000 "$T/bridge.out")"
names=$(tail -n 1 "$T/bridge.out" | jq -c '[.result.tools[].name | select(startswith("paged__") or startswith("alone__"))] | sort')
[ "$(jq 'map(select(startswith("alone__"))) | length' <<<"$names")" = 7 ] &&
	[ "$(jq 'map(select(startswith("paged__"))) | length' <<<"$names")" = 0 ] ||
	fail "after the reload dev lists $names (want alone's 7 tools, none of paged)"
[ "$(server_pid paged)" = "$pid_paged" ] || fail "the reload restarted paged"
# The bridge ends when its stdin does.
spawn_close BRIDGE
spawn_wait BRIDGE 30 || fail "mcpctl connect dev did not exit within 30 s of the end of its input"
[ "$SPAWN_STATUS" = 0 ] || fail "mcpctl connect dev exited $SPAWN_STATUS at the end of its input: $(tail -c 500 "$T/bridge.err")"
note "a reload moved dev's members under an attached session: list_changed, new tools, no restart"

stop_mcpd
exit 0
