#!/bin/bash
# remote-modern-hostile.sh -- mcpd-remote on its own, against a remote of
# MCP 2026-07-28 over Streamable HTTP that misbehaves
# (tests/remote/modern-hostile-server.mjs, on a port the kernel picks),
# driven on stdio as mcpd drives it:
#
# 1. initialize is answered 400 with a header mismatch (-32020) naming no
#    versions: the answer is -32022 with data.supported ["2026-07-28"], as
#    a stdio server of 2026 refuses initialize (mcpd asks server/discover
#    next); answered 400 with an HTML body it is an error saying HTTP 400,
#    not -32022.
# 2. server/discover answered: the calls that follow each get an error,
#    and mcpd-remote goes on: an SSE event of 300,000 bytes (over
#    --max-message-bytes 65536), a 200 whose body is not JSON, a 400 whose
#    body is no JSON-RPC error (its control bytes not passed on).
# 3. A tool named "a\r\nX-Injected: 1" goes as Mcp-Name in the base64
#    sentinel (no header injected); every request carried
#    MCP-Protocol-Version 2026-07-28 and Mcp-Method, none Mcp-Session-Id.
# 4. notifications/cancelled for a call in flight closes its connection
#    (the remote sees it closed) and is not POSTed.
# 5. subscriptions/listen whose stream the remote ends with its own
#    notifications/cancelled: the listen gets an error saying the remote
#    ended it, and is not reopened.
# 6. tools/list in three pages with tools whose x-mcp-header annotations
#    pass mcpd-remote's bounds (100 properties deep, 1000 annotations, a
#    name of 20,000 bytes, a property name of 20,000 bytes): each left
#    out of its page with a warning naming it; a schema deep without
#    annotations (60 deep: jq reads no deeper) and an annotated tool of the first page kept, the
#    latter's call carrying its Mcp-Param-Region header (in base64: a
#    value with CR LF injects nothing).
# A last echo is answered: nothing above ended the program.

. "$TESTS_SRCDIR/integration/lib.sh"

need_node
MCPD_REMOTE=${MCPD_REMOTE:-$(dirname "$MCPD")/mcpd-remote}
[ -x "$MCPD_REMOTE" ] || hard_error "MCPD_REMOTE=$MCPD_REMOTE is not an executable"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
HS_JS=$TESTS_SRCDIR/remote/modern-hostile-server.mjs
[ -f "$HS_JS" ] || hard_error "$HS_JS is missing"

MCPD_TEST_DIR=$T "$NODE" "$HS_JS" </dev/null >"$T/hs.out" 2>"$T/hs.err" &
HS_PID=$!
wait_for 60 grep -q '"port"' "$T/hs.out" ||
	hard_error "modern-hostile-server.mjs did not start: $(cat "$T/hs.err")"
URL=$(jq -r .url "$T/hs.out")
BASE=${URL%/mcp}
stats() { curl -sf "$BASE/stats"; }

META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
# req ID METHOD PARAMS: a request of 2026 (PARAMS: members before _meta).
req() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":{%s%s}}' \
		"$1" "$2" "${3:+$3,}" "$META"
}
# answer ID: the next line from mcpd-remote, which must answer ID.
answer() {
	local line
	spawn_read MR 30 line || fail "no answer to request $1: $(tail -c 600 "$T/mr.err")"
	[ "$(jq -c .id <<<"$line")" = "$1" ] || fail "an answer to $(jq -c .id <<<"$line"), not $1: $line"
	ANSWER=$line
}
# error_has ID TEXT: the answer is an error whose message has TEXT.
error_has() {
	answer "$1"
	jq -e --arg t "$2" '.error.message | contains($t)' <<<"$ANSWER" >/dev/null ||
		fail "request $1: not an error saying \"$2\": $ANSWER"
	note "$1: $(jq -r .error.message <<<"$ANSWER")"
}

spawn MR "$MCPD_REMOTE" -t http --max-message-bytes 65536 "$URL" 2>"$T/mr.err"

# 1. initialize refused.
spawn_send MR '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpd","version":"1"}}}'
answer 1
jq -e '.error.code == -32022 and .error.data.supported == ["2026-07-28"]' \
	<<<"$ANSWER" >/dev/null ||
	fail "initialize refused with -32020: not -32022 naming 2026-07-28: $ANSWER"
spawn_send MR '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"garbage","version":"1"}}}'
error_has 2 "HTTP 400"
jq -e '.error.code != -32022' <<<"$ANSWER" >/dev/null ||
	fail "initialize answered 400 with HTML: taken for a refusal of 2025: $ANSWER"

# 2. discover, then the calls that fail.
spawn_send MR "$(req 3 server/discover)"
answer 3
jq -e '.result.supportedVersions == ["2026-07-28"]' <<<"$ANSWER" >/dev/null ||
	fail "server/discover: $ANSWER"
spawn_send MR "$(req 4 tools/call '"name":"huge"')"
error_has 4 "max_message_bytes"
spawn_send MR "$(req 5 tools/call '"name":"garbage"')"
answer 5
jq -e '.error' <<<"$ANSWER" >/dev/null || fail "a 200 that is not JSON: $ANSWER"
note "5: $(jq -r .error.message <<<"$ANSWER")"
spawn_send MR "$(req 6 tools/call '"name":"bad400"')"
error_has 6 "HTTP 400"
case $ANSWER in
*'\u0001'* | *$'\x01'*) fail "the remote's control bytes were passed on: $ANSWER" ;;
esac

# 3. A name that is not header-safe.
spawn_send MR "$(req 7 tools/call '"name":"a\r\nX-Injected: 1"')"
answer 7
jq -e '.result.content[0].text == "Mcp-Name: =?base64?YQ0KWC1JbmplY3RlZDogMQ==?="' \
	<<<"$ANSWER" >/dev/null || fail "Mcp-Name of a name with CR LF: $ANSWER"
bad=$(stats | jq -c '.posts[] | select(.headers["x-injected"] != null or
	.headers["mcp-session-id"] != null or (.method != "initialize" and
	(.headers["mcp-protocol-version"] != "2026-07-28" or
	.headers["mcp-method"] != .method)))')
[ -z "$bad" ] || fail "requests with the wrong headers: $bad"

# 4. Cancelled in flight: its connection closed, no notification POSTed.
spawn_send MR "$(req 8 tools/call '"name":"hang"')"
# shellcheck disable=SC2317 # run by wait_for
held() { [ "$(stats | jq .held)" = 1 ]; }
wait_for 30 held || fail "the call to hang did not reach the remote: $(stats)"
spawn_send MR '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8,"reason":"t"}}'
# shellcheck disable=SC2317 # run by wait_for
closed() { [ "$(stats | jq .closed)" = 1 ]; }
wait_for 30 closed || fail "a cancelled call's connection stayed open: $(stats)"
[ "$(stats | jq '[.posts[] | select(.method == "notifications/cancelled")] | length')" = 0 ] ||
	fail "notifications/cancelled was POSTed to a remote of 2026"

# 6. Tools whose x-mcp-header annotations go past the bounds, in three
# pages: each left out, with a warning naming it; the others kept, and
# fine's Region header sent (base64: no header injected).
tools_page() {
	spawn_send MR "$(req "$1" tools/list "${2:+\"cursor\":\"$2\"}")"
	answer "$1"
	PAGE=$(jq -c '[.result.tools[].name]' <<<"$ANSWER")
}
tools_page 11
[ "$PAGE" = '["deep_ok","fine"]' ] || fail "page 1 of tools/list: $PAGE"
tools_page 12 1
[ "$PAGE" = '[]' ] || fail "page 2 of tools/list: $PAGE"
tools_page 13 2
[ "$PAGE" = '[]' ] || fail "page 3 of tools/list: $PAGE"
for w in 'tool "deep" is left out of tools/list: property "k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k.k...": x-mcp-header deeper than 16' \
	'tool "many" is left out of tools/list: property "p32": more than 32' \
	'tool "longname" is left out of tools/list: property "a": x-mcp-header is longer than 128 bytes' \
	'tool "hugekey" is left out of tools/list: property "kkkk'; do
	grep -q "warning: the remote's $w" "$T/mr.err" ||
		fail "no warning \"$w\": $(grep -i warning "$T/mr.err" | head -c 1500)"
done
spawn_send MR "$(req 14 tools/call '"name":"fine","arguments":{"region":"a\r\nX-Injected: 2"}')"
answer 14
p=$(stats | jq -c '[.posts[] | select(.name == "fine")] | last | .headers')
jq -e '.["mcp-param-region"] == "=?base64?YQ0KWC1JbmplY3RlZDogMg==?=" and
	.["x-injected"] == null' <<<"$p" >/dev/null ||
	fail "fine's call: headers $p"

# 5. A subscription the remote ends.
spawn_send MR "$(req 9 subscriptions/listen '"notifications":{"toolsListChanged":true}')"
spawn_read MR 30 line || fail "no acknowledgment of the listen: $(tail -c 600 "$T/mr.err")"
jq -e '.method == "notifications/subscriptions/acknowledged"' <<<"$line" >/dev/null ||
	fail "not the acknowledgment: $line"
error_has 9 "the remote ended the subscription"
spawn_send MR "$(req 10 tools/call '"name":"echo"')"
answer 10
jq -e '.result.content[0].text == "Mcp-Name: echo"' <<<"$ANSWER" >/dev/null ||
	fail "the last echo: $ANSWER"
n=$(stats | jq '[.posts[] | select(.method == "subscriptions/listen")] | length')
[ "$n" = 1 ] || fail "a listen the remote ended was reopened: $n POSTs"
spawn_close MR
spawn_wait MR 30 || fail "mcpd-remote did not exit when stdin ended"
[ "$SPAWN_STATUS" = 0 ] || fail "mcpd-remote exited $SPAWN_STATUS: $(tail -c 600 "$T/mr.err")"
kill "$HS_PID" 2>/dev/null
exit 0
