#!/bin/bash
# batch.sh -- JSON-RPC batches on the socket, by the client's MCP protocol
# version: MCP 2025-03-26 says implementations must take them, and later
# revisions have none.  mcp-fake (fk) alone and in group g; raw
# connections (rawlines.mjs) and `mcpctl connect`.
#   - a 2025-03-26 session's batch (a slow call, a ping, a call, a value
#     that is not a message, an unknown method) is answered with one
#     array holding every answer, and nothing of it before; a batch of
#     notifications alone gets no answer; an empty batch and one that is
#     not JSON get the one error JSON-RPC gives them (-32600, -32700); a
#     call the batch cancels leaves the array without its answer;
#   - the same in a group session, and through mcpctl connect;
#   - a 2025-11-25 and a 2025-06-18 session get -32600, naming batches,
#     for the same batch, and their session goes on.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/rawlines.mjs" \
	"$TESTS_SRCDIR/integration/rawjson.mjs" "$T/" ||
	hard_error "cannot copy rawlines.mjs"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": { "fk": { "command": "$MCP_FAKE", "args": [] } },
  "groups": { "g": { "servers": ["fk"] } }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready fk

init() { # VERSION
	printf '{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"batch","version":"1"}}}\n' "$1"
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
# The batch every session sends; in a group the tools are g's (fk__).
batch() { # PREFIX
	printf '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%ssleep","arguments":{"ms":300}}},' "$1"
	printf '{"jsonrpc":"2.0","id":"b","method":"ping"},'
	printf '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"%secho","arguments":{"text":"in a batch"}}},' "$1"
	printf '5,{"jsonrpc":"2.0","id":4,"method":"nothing/here"}]\n'
}

# raw NAME EXPECT: the lines of $T/NAME.in on one connection, EXPECT
# replies awaited, to $T/NAME.out.
raw() {
	timeout -k 5 120 "$NODE" "$T/rawlines.mjs" "$SOCK" "$T/$1.in" \
		"$T/$1.out" "$2" || fail "rawlines.mjs $1 failed"
	[ "$(jq -r .why "$T/$1.out")" = replies ] ||
		fail "$1: $(jq -r .why "$T/$1.out") before $2 replies: $(jq -c .replies "$T/$1.out" | head -c 3000)"
}

# line NAME N: the Nth reply line (from 0) of session NAME.
line() {
	jq -r ".replies[$2].line" "$T/$1.out"
}

# lines NAME FILTER: the reply lines (compact JSON, in order) FILTER keeps.
lines() {
	jq -r '.replies[].line' "$T/$1.out" | jq -c "$2"
}

# the_batch NAME WHAT: the one array answering the batch (holding id 1),
# and none of its answers outside it.
the_batch() {
	local got
	got=$(lines "$1" 'select(type == "array" and any(.[]; .id == 1)) |
		map({id, r: (.result.content[0].text // (.result |
			if . == null then null else keys | join(",") end)),
			e: .error.code}) | sort_by(.id | tostring)')
	[ "$got" = '[{"id":1,"r":"slept 300 ms","e":null},{"id":3,"r":"in a batch","e":null},{"id":4,"r":null,"e":-32601},{"id":"b","r":"","e":null},{"id":null,"r":null,"e":-32600}]' ] ||
		fail "$2: the batch was answered $(jq -c .replies "$T/$1.out" | head -c 3000), read as $got"
	[ -z "$(lines "$1" 'select(type == "object" and (.id == 1 or .id == "b" or .id == 3 or .id == 4))')" ] ||
		fail "$2: an answer of the batch came on its own: $(jq -c .replies "$T/$1.out" | head -c 3000)"
}

# A 2025-03-26 session on fk, raw.
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"mcpd/attach","params":{"server":"fk"}}'
	init 2025-03-26
	batch ""
	printf '%s\n' '[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","method":"notifications/initialized"}]'
	printf '%s\n' '{"jsonrpc":"2.0","id":9,"method":"ping"}'
	printf '%s\n' '[]' '[1,' ' [ ] '
	printf '%s\n' '[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":30000}}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20}},{"jsonrpc":"2.0","id":21,"method":"ping"}]'
	printf '%s\n' '{"jsonrpc":"2.0","id":22,"method":"ping"}'
} >"$T/a.in"
raw a 9
[ "$(line a 1 | jq -r .result.protocolVersion)" = 2025-03-26 ] ||
	fail "initialize 2025-03-26 was answered $(line a 1)"
the_batch a "a 2025-03-26 session"
# The rest, in the order sent, but for the batch's (its call is slow).  A
# batch of notifications alone got no answer: its would be among them.
got=$(lines a 'select(type == "object") | [.id, (.error.code // "ok")]' |
	tr -d '\n')
[ "$got" = '[0,"ok"]["init","ok"][9,"ok"][null,-32600][null,-32700][null,-32600][22,"ok"]' ] ||
	fail "the answers of a 2025-03-26 session: $got: $(jq -c .replies "$T/a.out" | head -c 3000)"
# The call the batch cancelled has no answer in its array.
[ "$(lines a 'select(type == "array" and any(.[]; .id == 21)) | map(.id)')" = '[21]' ] ||
	fail "a batch cancelling its call: $(jq -c .replies "$T/a.out" | head -c 3000)"
note "2025-03-26: a batch answered with one array of its 5 answers; notifications alone none; [] -32600, invalid JSON -32700; a cancelled call left out"

# The same through group g.
{
	printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"mcpd/attach","params":{"server":"g"}}'
	init 2025-03-26
	printf '%s\n' '{"jsonrpc":"2.0","id":"list","method":"tools/list"}'
	batch fk__
} >"$T/g.in"
raw g 4
[ "$(line g 1 | jq -r .result.protocolVersion)" = 2025-03-26 ] ||
	fail "group g: initialize 2025-03-26 was answered $(line g 1)"
the_batch g "group g, 2025-03-26"
note "group g, 2025-03-26: the same batch answered with one array"

# Later versions: -32600, and the session goes on.
for v in 2025-11-25 2025-06-18; do
	{
		printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"mcpd/attach","params":{"server":"fk"}}'
		init "$v"
		batch ""
		printf '%s\n' '{"jsonrpc":"2.0","id":9,"method":"ping"}'
	} >"$T/n.in"
	raw n 4
	[ "$(line n 1 | jq -r .result.protocolVersion)" = "$v" ] ||
		fail "initialize $v was answered $(line n 1)"
	line n 2 | jq -e '.id == null and .error.code == -32600 and
		(.error.message | contains("batch"))' >/dev/null ||
		fail "a $v session's batch got $(line n 2)"
	[ "$(line n 3 | jq -c .id)" = 9 ] || fail "$v: after the batch: $(line n 3)"
	note "$v: a batch is refused: $(line n 2 | jq -r .error.message)"
done

# Through mcpctl connect: the bridge passes the batch and its answer.
{
	init 2025-03-26
	printf '%s\n' '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"bridged"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]'
	printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"ping"}'
} >"$T/c.in"
timeout -k 5 60 "$MCPCTL" -s "$SOCK" connect fk <"$T/c.in" >"$T/c.out" \
	2>"$T/c.err" || fail "mcpctl connect fk failed: $(cat "$T/c.err")"
jq -se 'map(select(type == "array"))[0] | map(.id) | sort == [1, 2]' \
	"$T/c.out" >/dev/null ||
	fail "through mcpctl connect the batch was answered: $(head -c 2000 "$T/c.out")"
jq -se 'map(select(type == "array"))[0] | map(select(.id == 1))[0].result.content[0].text == "bridged"' \
	"$T/c.out" >/dev/null || fail "the bridged batch's call: $(head -c 2000 "$T/c.out")"
note "mcpctl connect: a 2025-03-26 batch in, its array out"

mcpd_running || fail "mcpd died"
exit 0
