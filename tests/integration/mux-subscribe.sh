#!/bin/bash
# mux-subscribe.sh -- what clients set up on a shared session.
# Subscriptions are counted: the server sees the first subscribe and the
# last unsubscribe of a uri, resources/updated reaches only the clients
# subscribed to it, and an unsubscribe from a client that never subscribed
# changes nothing.  Log levels are per client (the server is set to the
# most verbose one asked for): a notifications/message reaches the clients
# whose level admits it; list_changed reaches every client.
#
# The server is mux-server.mjs, a stand-in that logs every line it gets and
# sends notifications on demand (mcp-fake records neither).  Markers
# (echo "mark:NAME") in its input show what mcpd forwarded when.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

STUB_LOG=$T/stub.log

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "stub": $(stub_json "$STUB_LOG")
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready stub

mux "$T/sub.json" subscribe --server stub
jq -r '.steps[] | "# \(.notification) reached [\(.reached)], expected [\(.expected)]"' "$T/sub.json"

# What reached the server, in order: subscriptions, levels and markers.
story=$(stub_in "$STUB_LOG" '
	if .method == "resources/subscribe" then "subscribe \(.params.uri)"
	elif .method == "resources/unsubscribe" then "unsubscribe \(.params.uri)"
	elif .method == "logging/setLevel" then "setLevel \(.params.level)"
	elif .method == "tools/call" and .params.name == "echo" then .params.arguments.text
	else empty end' | tr -d '"')
expected="subscribe res://shared
mark:two-subscribes
mark:first-unsubscribe
unsubscribe res://shared
mark:last-unsubscribe
subscribe res://other
mark:stray-unsubscribe
unsubscribe res://other
setLevel error
setLevel debug
mark:levels
setLevel error
mark:end"
if [ "$story" != "$expected" ]; then
	echo "--- what the server got (left: expected) ---" >&2
	diff <(echo "$expected") <(echo "$story") | sed 's/^/# /' >&2
	note "upstream story differs from the expected one (see above)"
	story_bad=1
else
	story_bad=0
	note "the server got: $(tr '\n' ';' <<<"$story" | sed 's/;/; /g')"
fi
mux_check "$T/sub.json" "subscriptions and log levels"
[ "$story_bad" = 0 ] || fail "the server saw the wrong subscribe/unsubscribe/setLevel sequence (diff above)"
[ "$(server_field stub inflight)" = 0 ] || fail "inflight $(server_field stub inflight) at the end"
mcpd_running || fail "mcpd died"
exit 0
