#!/bin/bash
# hostile-filter.sh -- a resource filter is not passed by spelling a URI
# another way, and completion/complete does not reach what filters hide.
#
# A server that reads file: URIs as naive servers do (mcp-fake
# --file-resources: the path percent-decoded, a host of localhost or none,
# "." and ".." left to the kernel) runs behind "resources": {"deny":
# ["file:///etc/*"]} and "prompts": {"deny": ["secret-*"]}, directly, as
# the member of a group that has the same denies ("g"), and as the
# member of a group with no filter of its own ("gm", the member's filters
# apply).  A client reads /etc/shadow and /etc/passwd through spellings
# the server reads as those files -- file:///tmp/../etc/shadow,
# file:///%65tc/shadow, FILE:///etc/shadow, file://localhost/etc/shadow,
# file:/etc/passwd, file:////etc/passwd, file:///tmp/..%2Fetc/passwd ...
# -- and asks completions for the hidden prompt and for the hidden
# template file:///etc/{name}, spelled as listed and otherwise.
#
# mcpd used to compare the URI as the client wrote it, so every one of
# them reached the server, which sent back /etc/passwd; and it passed
# completion/complete on whatever it named.  Now every one is refused by
# mcpd with an error: the server's log of the requests it received
# (--request-log) holds only the allowed ones, and no reply holds a line
# of /etc/passwd.  The allowed requests still work: a file outside /etc
# is read, the completion of an allowed prompt and template answers.

. "$TESTS_SRCDIR/integration/lib.sh"

printf 'public text %s\n' "$$" >"$T/public.txt"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "files": { "command": "$MCP_FAKE",
               "args": ["--file-resources", "--request-log=$T/files.requests"],
               "resources": { "deny": ["file:///etc/*"] },
               "prompts": { "deny": ["secret-*"] } },
    "open": { "command": "$MCP_FAKE",
              "args": ["--file-resources", "--request-log=$T/open.requests"] }
  },
  "groups": {
    "g": { "servers": ["open"], "resources": { "deny": ["file:///etc/*"] },
           "prompts": { "deny": ["open__secret-*"] } },
    "gm": { "servers": ["files"] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready files 30
wait_ready open 30

# Spellings of denied files that the server reads as those files (or,
# for the last ones, could: a server that decodes twice or keeps the
# query in the path).
HOSTILE_URIS=(
	"file:///tmp/../etc/shadow"
	"file:///%65tc/shadow"
	"FILE:///etc/shadow"
	"file://localhost/etc/shadow"
	"file:///tmp/../etc/passwd"
	"file:///%65tc/passwd"
	"FILE:///etc/passwd"
	"file://localhost/etc/passwd"
	"file://LOCALHOST/etc/passwd"
	"file:/etc/passwd"
	"file:////etc/passwd"
	"file:///tmp/%2E%2E/etc/passwd"
	"file:///tmp/..%2Fetc/passwd"
	"file:///tmp/x?/../../etc/passwd"
	"file:///tmp/..\\etc\\passwd"
)
# The hidden template, spelled as listed and otherwise.
HIDDEN_TEMPLATES=(
	"file:///etc/{name}"
	"file:///tmp/../etc/{name}"
	"FILE:///etc/{name}"
)

# request ID METHOD PARAMS: one JSON-RPC request line.
request() {
	jq -nc --arg id "$1" --arg m "$2" --argjson p "$3" \
		'{jsonrpc: "2.0", id: $id, method: $m, params: $p}'
}

# session NAME PROMPT_PREFIX OUT: a session with server or group NAME
# through mcpctl connect: the templates listed (a group routes a
# completion by the templates it has listed), then the hostile reads and
# completions, then the allowed ones; every reply into OUT.
session() {
	local name=$1 prefix=$2 out=$3 in=$3.in i line
	request init initialize '{"protocolVersion": "2025-11-25",
		"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}' >"$in"
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >>"$in"
	request templates resources/templates/list '{}' >>"$in"
	spawn sess "$MCPCTL" -s "$SOCK" connect "$name"
	spawn_send sess "$(cat "$in")"
	: >"$out"
	while :; do
		spawn_read sess 30 line ||
			fail "$name: no reply to resources/templates/list within 30 s: $(cat "$out")"
		printf '%s\n' "$line" >>"$out"
		[ "$(jq -r .id <<<"$line")" = templates ] && break
	done
	{
		for i in "${!HOSTILE_URIS[@]}"; do
			request "read$i" resources/read "$(jq -nc --arg u "${HOSTILE_URIS[$i]}" '{uri: $u}')"
		done
		for i in "${!HIDDEN_TEMPLATES[@]}"; do
			request "tmpl$i" completion/complete "$(jq -nc --arg u "${HIDDEN_TEMPLATES[$i]}" \
				'{ref: {type: "ref/resource", uri: $u}, argument: {name: "name", value: "sh"}}')"
		done
		request prompt completion/complete "$(jq -nc --arg n "${prefix}secret-plan" \
			'{ref: {type: "ref/prompt", name: $n}, argument: {name: "a", value: ""}}')"
		# The allowed name first, the hidden one again: judged by the
		# first, a server reads the last (jq would fold them).
		printf '{"jsonrpc": "2.0", "id": "prompt-dup", "method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "%s", "name": "%s"}, "argument": {"name": "a", "value": ""}}}\n' \
			"${prefix}open-plan" "${prefix}secret-plan"
		request allowed-read resources/read "$(jq -nc --arg u "file://$T/public.txt" '{uri: $u}')"
		request allowed-template completion/complete \
			'{"ref": {"type": "ref/resource", "uri": "file:///{+path}"}, "argument": {"name": "path", "value": "tm"}}'
	} >>"$in"
	spawn_send sess "$(sed -n '4,$p' "$in")"
	spawn_close sess
	while spawn_read sess 60 line; do
		printf '%s\n' "$line" >>"$out"
	done
	spawn_wait sess 30 || fail "mcpctl connect $name did not exit at the end of its input"
	[ "$SPAWN_STATUS" = 0 ] || fail "mcpctl connect $name exited $SPAWN_STATUS"
}

# reply OUT ID: the reply to ID.
reply() {
	jq -c --arg id "$2" 'select(.id == $id)' "$1"
}

# check NAME PROMPT_PREFIX SERVER: the session with NAME, whose requests
# reach SERVER, judged.
check() {
	local name=$1 out=$T/$1.out log=$T/$3.requests reached got passwd
	local hostile bad=0 r id
	: >"$log"
	session "$name" "$2" "$out"
	hostile=$((${#HOSTILE_URIS[@]} + ${#HIDDEN_TEMPLATES[@]} + 2))
	# What the server received of reads and completions, but the allowed.
	reached=$(grep -e '^resources/read ' -e '^completion/complete ' "$log" |
		grep -v -e 'public\.txt' -e '{+path}' -e 'open-plan' -c)
	# /etc/passwd, or /etc/shadow where the test runs as root.
	passwd=$(grep -c '"text":"root:' "$out")
	note "$name: the server received $reached of the $hostile requests mcpd must refuse; $passwd replies held /etc/passwd or /etc/shadow"
	for id in $(jq -r '.id | select(startswith("read") or startswith("tmpl") or startswith("prompt"))' "$out"); do
		r=$(reply "$out" "$id")
		if ! jq -e '.error.code == -32002 or .error.code == -32602' <<<"$r" >/dev/null; then
			# Not the text: it may be /etc/shadow.
			note "$name: $id was answered: $(jq -c '.result | keys' <<<"$r")"
			bad=$((bad + 1))
		fi
	done
	if [ "$reached" != 0 ] || [ "$passwd" != 0 ] || [ "$bad" != 0 ]; then
		note "$name: $3 received: $(grep -e '^resources/read ' -e '^completion/complete ' "$log" | head -c 1500)"
		FAILED+=("$name: $reached hostile requests reached the server, $passwd replies held /etc/passwd or /etc/shadow, $bad were not refused")
		return
	fi
	[ "$(jq -r '.id' "$out" | grep -c -e '^read' -e '^tmpl' -e '^prompt')" = "$hostile" ] ||
		fail "$name: not every hostile request was answered: $(jq -r .id "$out" | tr '\n' ' ')"
	got=$(reply "$out" allowed-read | jq -r '.result.contents[0].text')
	[ "$got" = "public text $$" ] || fail "$name: the allowed file read gave: $(reply "$out" allowed-read | head -c 300)"
	got=$(reply "$out" allowed-template | jq -c '.result.completion.values')
	[ "$got" = '["mcp-fake"]' ] || fail "$name: the allowed template's completion gave: $(reply "$out" allowed-template | head -c 300)"
	# The reason for a URI without a normal form is given.
	reply "$out" read12 | grep -q "encoded '/'" ||
		[ "$name" = g ] || fail "$name: file:///tmp/..%2Fetc/passwd refused without saying why: $(reply "$out" read12)"
}

FAILED=()
# Directly: the allowed prompt's completion answers too.
check files "" files
r=$(jq -nc '{jsonrpc: "2.0", id: 1, method: "completion/complete", params: {ref: {type: "ref/prompt", name: "open-plan"}, argument: {name: "a", value: ""}}}')
got=$(printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' "$r" |
	timeout -k 5 60 "$MCPCTL" -s "$SOCK" connect files | jq -c 'select(.id == 1) | .result.completion.values')
[ "$got" = '["mcp-fake"]' ] || fail "files: the completion of an allowed prompt gave: $got"
# Through a group with the deny, and through one whose member has it.
check g open__ open
check gm files__ files
[ ${#FAILED[@]} = 0 ] || fail "$(printf '%s; ' "${FAILED[@]}")"

mcpd_running || fail "mcpd died"
exit 0
