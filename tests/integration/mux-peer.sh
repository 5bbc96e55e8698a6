#!/bin/bash
# mux-peer.sh -- a client running as another user is refused on the
# SO_PEERCRED check: its connection is closed with nothing but the -32013
# line that says why, and mcpd logs the pid and uid it refused; a client of mcpd's own uid on the
# same socket works.  File permissions are opened up on purpose (by design
# the socket is 0600 in a 0700 directory) so that only the peer check
# stands between the other user and mcpd.  Needs root to run as nobody.

# shellcheck source=mux-lib.sh
. "$TESTS_SRCDIR/integration/mux-lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to run a client as another user"
OTHER=nobody
id "$OTHER" >/dev/null 2>&1 || skip "no user $OTHER"
OTHER_UID=$(id -u "$OTHER")
OTHER_GID=$(id -g "$OTHER")
if setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups true 2>/dev/null; then
	AS_OTHER=(setpriv --reuid="$OTHER_UID" --regid="$OTHER_GID" --clear-groups)
elif runuser -u "$OTHER" -- true 2>/dev/null; then
	AS_OTHER=(runuser -u "$OTHER" --)
else
	skip "cannot run a process as $OTHER (no setpriv or runuser)"
fi

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "demo": { "command": "$MCP_FAKE", "args": [] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo
mode=$(stat -c %a "$SOCK") || fail "cannot stat $SOCK"
note "socket created with mode $mode"
[ "$mode" = 600 ] || fail "socket mode is $mode, expected 600"

# Open the door as far as file permissions go.
cp "$MUX_CLIENT" "$TESTS_SRCDIR/integration/rawjson.mjs" "$T/" ||
	hard_error "cannot copy the client"
chmod 0755 "$T" && chmod 0644 "$T/mux-client.mjs" "$T/rawjson.mjs" &&
	chmod 0666 "$SOCK" ||
	hard_error "cannot open up the permissions of $T"
"${AS_OTHER[@]}" test -w "$SOCK" || skip "$OTHER cannot reach $SOCK even so (a parent directory?)"

log_lines=$(wc -l <"$MCPD_LOG")
# mcpd refuses at once (a few ms); a connection it forgot to close would
# be closed by client_line_timeout_ms (5 s) or never: the client watches for
# WAIT_S, the close must come within CLOSE_MS, far from both.
WAIT_S=10
CLOSE_MS=2500
timeout -k 5 60 "${AS_OTHER[@]}" env HOME=/ "$NODE" "$T/mux-client.mjs" peer \
	--sock "$SOCK" --server demo --wait-ms $((WAIT_S * 1000)) >"$T/peer.json" 2>"$T/peer.err"
rc=$?
[ "$rc" = 0 ] || fail "the client as $OTHER exited $rc: $(cat "$T/peer.err")"
note "$(jv "$T/peer.json" '"client as uid \(.uid) (pid \(.pid)): closed \(.closed) after \(.close_ms) ms, \(.bytes) bytes received, attach answered: \(.attach_answered)"')"
[ "$(jv "$T/peer.json" .uid)" = "$OTHER_UID" ] || fail "the client ran as uid $(jv "$T/peer.json" .uid), not $OTHER_UID"
[ "$(jv "$T/peer.json" .closed)" = true ] || fail "the connection of uid $OTHER_UID was not closed within $WAIT_S s"
# mcpd writes one -32013 line saying why before it closes; the client may
# or may not read it (its own write can meet the closed socket first), but
# it must never get anything else, and never an answer to its attach.
[ "$(jv "$T/peer.json" .attach_answered)" = false ] ||
	fail "uid $OTHER_UID got an answer to its attach: $(jv "$T/peer.json" '.messages | join(" | ")')"
if [ "$(jv "$T/peer.json" .bytes)" != 0 ]; then
	jv "$T/peer.json" '.messages | length == 1' | grep -qx true &&
		jv "$T/peer.json" '.messages[0]' | grep -q '"id":null,"error":{"code":-32013,"message":"uid '"$OTHER_UID"' is not allowed to use mcpd'"'"'s socket' ||
		fail "uid $OTHER_UID got more than the refusal: $(jv "$T/peer.json" '.messages | join(" | ")')"
	note "the refusal reached the client: $(jv "$T/peer.json" '.messages[0]')"
fi
cms=$(jv "$T/peer.json" .close_ms)
[ "$cms" -lt "$CLOSE_MS" ] || fail "the refused connection was closed only after $cms ms, expected at once (< $CLOSE_MS ms)"
ppid=$(jv "$T/peer.json" .pid)
wait_for 30 grep -q "refused connection from pid $ppid: uid $OTHER_UID is not allowed" "$MCPD_LOG" ||
	fail "mcpd did not log the refused connection of pid $ppid uid $OTHER_UID: $(tail -n +"$((log_lines + 1))" "$MCPD_LOG")"
note "mcpd log: $(grep -m1 "refused connection from pid $ppid" "$MCPD_LOG")"
[ "$(server_field demo clients)" = 0 ] || fail "the refused client is attached: clients $(server_field demo clients)"

# The same socket serves mcpd's own uid.
mux "$T/ok.json" ids --server demo --clients 2 --per 5
mux_check "$T/ok.json" "a client of mcpd's own uid"
note "own uid: $(jv "$T/ok.json" '.rounds | map("\(.clients) clients, \(.replies) of \(.sent) replies") | join("; ")')"
mcpd_running || fail "mcpd died"
exit 0
