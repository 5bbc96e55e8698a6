#!/bin/bash
# mux-sampling.sh -- requests from the server to its clients.  A
# sampling/createMessage goes to a client that declared the sampling
# capability and has a call in flight (the most recent such caller), under
# an id chosen by mcpd, and the answer reaches the server under the
# server's own id; a client without the capability is never asked; with no
# client able to answer, or when the chosen one hangs up, the server gets
# an error at once.  roots/list is answered by mcpd from the config's
# "roots", ping by mcpd itself.
#
# The server is mux-server.mjs, a stand-in: mcp-fake never sends requests
# to its client.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

STUB_LOG=$T/stub.log

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "stub": $(stub_json "$STUB_LOG" '"roots": ["/tmp/x", "/srv/a b", "file:///already/a/uri"]')
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready stub

mux "$T/s.json" sampling --server stub
note "client a (sampling) saw the server's request under id $(jv "$T/s.json" .id_seen_by_client)"
for k in b_asks_a_busy a_asks c_asks_a_busy nobody; do
	note "$k: $(jv "$T/s.json" ".$k | \"server got, after \(.ms) ms, under id \(.id): \(.response | del(.jsonrpc, .id) | tojson)\"")"
done
note "roots/list: $(jv "$T/s.json" '.roots | "after \(.ms) ms, id \(.id): \(.response.result | tojson)"')"
note "ping: $(jv "$T/s.json" '.ping | "after \(.ms) ms, id \(.id): \(.response | del(.jsonrpc) | tojson)"')"
mux_check "$T/s.json" "server-to-client requests"

# Nobody could answer: an error, at once (tens of ms; held for a client,
# it would wait for ever or for the call's 30 s; the bound leaves a loaded
# machine seconds).
[ "$(jv "$T/s.json" '.nobody.response.error.code')" != null ] ||
	fail "with no capable client in a call the server got $(jv "$T/s.json" '.nobody.response | tojson')"
[ "$(jv "$T/s.json" '.nobody.ms')" -lt 3000 ] ||
	fail "the server waited $(jv "$T/s.json" .nobody.ms) ms for its error, expected at once (< 3000 ms)"

# The capable client hung up without answering "srv-4": the server was told.
d=$(jq -c 'select(.dir == "in" and .msg.id == "srv-4")' "$STUB_LOG")
[ -n "$d" ] || fail "the server never got an answer to srv-4 after the client handling it hung up"
note "client hung up on srv-4: the server got $(jq -c '.msg | del(.jsonrpc)' <<<"$d") after $(($(jq .t <<<"$d") - $(jq -s 'map(select(.dir == "out" and .msg.id == "srv-4"))[0].t' "$STUB_LOG"))) ms"
[ "$(jq '.msg.error.code' <<<"$d")" != null ] || fail "srv-4 was answered with $(jq -c .msg <<<"$d") after the client hung up"

# roots/list from the config, as file:// URIs.
roots=$(jv "$T/s.json" '[.roots.response.result.roots[].uri] | join(" ")')
[ "$roots" = "file:///tmp/x file:///srv/a%20b file:///already/a/uri" ] ||
	fail "roots/list answered $(jv "$T/s.json" '.roots.response | tojson')"
[ "$(jv "$T/s.json" '.roots.id')" = '"roots-6"' ] || fail "roots/list answered under id $(jv "$T/s.json" .roots.id)"

# Every answer the server got carried one of its own ids, each exactly once.
sent=$(jq -r 'select(.dir == "out" and .msg.method != null and .msg.id != null) | .msg.id | tojson' "$STUB_LOG" | sort)
got=$(jq -r 'select(.dir == "in" and .msg.method == null and .msg.id != null) | .msg.id | tojson' "$STUB_LOG" | sort)
[ "$sent" = "$got" ] || fail "the server's requests [$(tr '\n' ' ' <<<"$sent")] were answered as [$(tr '\n' ' ' <<<"$got")]"
note "the server sent $(wc -l <<<"$sent") requests and got exactly one answer to each, under its own id"
mcpd_running || fail "mcpd died"
exit 0
