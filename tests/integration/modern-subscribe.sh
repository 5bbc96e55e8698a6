#!/bin/bash
# modern-subscribe.sh -- a 2025 client's resources/subscribe to a server of
# MCP 2026-07-28 is answered only once the server acknowledged the
# subscriptions/listen stream that holds the subscription: a client told
# "subscribed" gets every update that follows.
#
# The server (stand.sh, a stand-in of 2026-07-28 alone in bash and jq)
# acknowledges a listen only when told to (a call of its tool "release"),
# and sends a resource's update (tool "touch") on the streams it has
# acknowledged alone, as a server of 2026 does.  One client, raw JSON lines
# through `mcpctl connect`:
#   - initialize, then resources/subscribe test://r (id 2): mcpd opens a
#     listen stream holding test://r (the server's log shows it);
#   - ping (id 3): its answer comes first: the subscription's waits for
#     the acknowledgment (before, it came at once, ahead of the stream);
#   - release (id 4): the server acknowledges; the subscription's answer
#     comes;
#   - touch (id 5): the update reaches the client.
#   - resources/unsubscribe: no stream is left to wait for; answered.
# Then a client of 2026-07-28 (raw, no initialize) opens a listen stream
# holding test://r: mcpd's acknowledgment of it comes only after the
# server acknowledged its own (a call made meanwhile is answered first),
# and the update that follows reaches the stream.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand,
# from the top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/integration/modern-subscribe.sh

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# The stand-in.  LOG gets every line it reads; the listens it has not
# acknowledged yet are in $T/NAME.pending, those it has in $T/NAME.acked.
cat >"$T/stand.sh" <<'EOF'
name=$1 log=$2 dir=$3
: >"$dir/$name.pending"
: >"$dir/$name.acked"
V=io.modelcontextprotocol/
ack() {
	local id
	while IFS= read -r id; do
		jq -nc --argjson id "$id" --arg k "${V}subscriptionId" '{jsonrpc: "2.0",
			method: "notifications/subscriptions/acknowledged",
			params: {notifications: {resourceSubscriptions: ["test://r"]},
			_meta: {($k): $id}}}'
		printf '%s\n' "$id" >>"$dir/$name.acked"
	done <"$dir/$name.pending"
	: >"$dir/$name.pending"
}
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$log"
	method=$(jq -r '.method // empty' <<<"$line")
	case $method in
	server/discover)
		jq -c '{jsonrpc: "2.0", id, result: {resultType: "complete",
			supportedVersions: ["2026-07-28"],
			capabilities: {tools: {}, resources: {subscribe: true}},
			_meta: {"io.modelcontextprotocol/serverInfo":
			{name: "stand", version: "1"}}}}' <<<"$line" ;;
	subscriptions/listen)
		jq -r .id <<<"$line" >>"$dir/$name.pending" ;;
	tools/call)
		case $(jq -r .params.name <<<"$line") in
		release) ack ;;
		touch)
			while IFS= read -r sid; do
				jq -nc --argjson id "$sid" --arg k "${V}subscriptionId" '{
					jsonrpc: "2.0",
					method: "notifications/resources/updated",
					params: {uri: "test://r", _meta: {($k): $id}}}'
			done <"$dir/$name.acked" ;;
		esac
		jq -c '{jsonrpc: "2.0", id, result: {resultType: "complete",
			content: [{type: "text", text: .params.name}]}}' <<<"$line" ;;
	notifications/cancelled)
		# The stream it ends is answered, as a server ends a listen.
		rid=$(jq -r .params.requestId <<<"$line")
		grep -qx -- "$rid" "$dir/$name.pending" "$dir/$name.acked" &&
			jq -nc --argjson id "$rid" '{jsonrpc: "2.0", id: $id,
				result: {resultType: "complete"}}'
		sed -i "/^$rid\$/d" "$dir/$name.pending" "$dir/$name.acked" ;;
	notifications/* | '') ;;
	*)	jq -c '{jsonrpc: "2.0", id, error: {code: -32601,
			message: "no"}}' <<<"$line" ;;
	esac
done
EOF

write_config "$T/mcpd.json" "$(jq -n --arg bash "$BASH" --arg t "$T" '
	def lit: gsub("\\$"; "$$");
	def stand($n): { command: ($bash | lit),
		args: [($t | lit) + "/stand.sh", $n, ($t | lit) + "/" + $n + ".log",
			($t | lit)],
		env: { MCPD_TEST_DIR: ($t | lit) } };
	{ mcpServers: { s: stand("s") } }')"

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":{}}}' "$1" "$2"
}

# next NAME WHAT: the client's next line, in LINE; fail (saying WHAT) if
# none comes within 30 s.
next() {
	spawn_read "$1" 30 LINE ||
		fail "$2: the client heard nothing more within 30 s; mcpctl said: $(tail -5 "$T/$1.err")"
	printf '%s\n' "$LINE" >>"$T/$1.out"
}

# listening URI: the server's log has a listen holding URI.
# shellcheck disable=SC2317  # called through wait_for
listening() {
	jq -e --arg u "$1" 'select(.method == "subscriptions/listen" and
		(.params.notifications.resourceSubscriptions // [] | index($u)))' \
		"$T/s.log" >/dev/null 2>&1
}

start_mcpd "$T/mcpd.json"
wait_ready s

spawn c "$MCPCTL" -s "$SOCK" connect s 2>"$T/c.err"
spawn_send c "$INIT"
next c "initialize"
jq -e '.id == 1 and .result.protocolVersion == "2025-11-25"' <<<"$LINE" >/dev/null ||
	fail "initialize was answered: $LINE"
spawn_send c '{"jsonrpc":"2.0","method":"notifications/initialized"}'

spawn_send c '{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://r"}}'
wait_for 30 listening test://r ||
	fail "no subscriptions/listen holding test://r reached the server: $(cat "$T/s.log")"
spawn_send c '{"jsonrpc":"2.0","id":3,"method":"ping"}'
next c "ping"
jq -e '.id == 3 and .result == {}' <<<"$LINE" >/dev/null ||
	fail "the first answer after the subscription's stream went out was not ping's, but: $LINE (resources/subscribe answered before the server acknowledged the stream that holds it)"
note "ping answered while the subscription waits for its stream's acknowledgment"

spawn_send c "$(call 4 release)"
next c "release"
next c "release"
[ "$(tail -n 2 "$T/c.out" | jq -s -c 'map(.id) | sort')" = "[2,4]" ] ||
	fail "after the acknowledgment, the client got: $(tail -2 "$T/c.out")"
jq -s -e 'map(select(.id == 2)) | .[0].result == {}' "$T/c.out" >/dev/null ||
	fail "resources/subscribe was answered: $(jq -c 'select(.id == 2)' "$T/c.out")"
note "resources/subscribe answered once its stream was acknowledged"

spawn_send c "$(call 5 touch)"
next c "touch"
next c "touch"
jq -s -e 'map(select(.method == "notifications/resources/updated" and
	.params.uri == "test://r")) | length == 1' "$T/c.out" >/dev/null ||
	fail "the update of test://r did not reach the client: $(tail -2 "$T/c.out")"
note "the update that followed reached the client"

# Unsubscribed: no stream is left to wait for, the answer comes at once.
spawn_send c '{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"test://r"}}'
next c "unsubscribe"
jq -e '.id == 6 and .result == {}' <<<"$LINE" >/dev/null ||
	fail "resources/unsubscribe was answered: $LINE"
spawn_close c
spawn_wait c 30 || fail "mcpctl connect did not exit after its stdin ended"

# A 2026 client's listen stream holding test://r: mcpd acknowledges it to
# the client only once its subscription at the session is answered, which
# is once the server acknowledged its own stream.
META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw26","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
call26() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":{},%s}}' \
		"$1" "$2" "$META"
}
: >"$T/s.log"
spawn d "$MCPCTL" -s "$SOCK" connect s 2>"$T/d.err"
spawn_send d "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":{\"resourceSubscriptions\":[\"test://r\"]},$META}}"
wait_for 30 listening test://r ||
	fail "2026 client: no subscriptions/listen holding test://r reached the server: $(cat "$T/s.log")"
spawn_send d "$(call26 11 noop)"
next d "2026 client: noop"
jq -e '.id == 11 and .result.content[0].text == "noop"' <<<"$LINE" >/dev/null ||
	fail "2026 client: the first line after its stream's subscription went out was not noop's answer, but: $LINE (the stream acknowledged before the server's was)"
spawn_send d "$(call26 12 release)"
next d "2026 client: release"
next d "2026 client: release"
jq -s -e 'map(select(.method == "notifications/subscriptions/acknowledged" and
	.params._meta["io.modelcontextprotocol/subscriptionId"] == 10)) | length == 1' \
	"$T/d.out" >/dev/null ||
	fail "2026 client: its stream was not acknowledged after the server's was: $(tail -2 "$T/d.out")"
spawn_send d "$(call26 13 touch)"
next d "2026 client: touch"
next d "2026 client: touch"
jq -s -e 'map(select(.method == "notifications/resources/updated" and
	.params.uri == "test://r" and
	.params._meta["io.modelcontextprotocol/subscriptionId"] == 10)) | length == 1' \
	"$T/d.out" >/dev/null ||
	fail "2026 client: the update of test://r did not reach its stream: $(tail -2 "$T/d.out")"
note "a 2026 client's stream acknowledged once the server's was; the update that followed reached it"
spawn_close d
spawn_wait d 30 || fail "mcpctl connect (2026 client) did not exit after its stdin ended"
[ "$(server_field s restarts)" = 0 ] || fail "s restarted: $(status_json)"
exit 0
