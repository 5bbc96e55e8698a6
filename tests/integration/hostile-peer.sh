#!/bin/bash
# hostile-peer.sh -- who is a member of socket_group is what the kernel
# says, and a refused peer is told why.
#
# A process of uid nobody whose supplementary groups include socket_group
# only because it was started that way (setpriv --groups), not because
# the group database lists it, passes the socket file's permissions and
# is let in by mcpd too (SO_PEERGROUPS), as a member: status, not
# restart.  A peer outside the group (the socket opened to all by hand)
# gets one JSON-RPC error line, id null, code -32013, naming its uid and
# what to do, before mcpd closes the connection; mcpctl shows that line
# and exits 1.  Needs root.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"
need_node
[ "$(id -u)" -eq 0 ] || skip "needs root to run clients as other users"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
getent passwd daemon >/dev/null || skip "no user daemon"
GROUP=users
GID=$(getent group "$GROUP" | cut -d: -f3) || skip "no group '$GROUP'"
id -G nobody | tr ' ' '\n' | grep -qx "$GID" &&
	skip "nobody is a member of $GROUP in the group database"
as_member=(setpriv --reuid=nobody --regid=nogroup --groups="$GID")
as_stranger=(setpriv --reuid=daemon --regid=daemon --clear-groups)
"${as_member[@]}" test -x "$MCPCTL" || skip "$MCPCTL is not executable by nobody"

chmod 0711 "$T"
PUB=$T/pub
mkdir -p "$PUB"
cp "$TESTS_SRCDIR/integration/hostile-fds.mjs" "$PUB/"
chmod -R a+rX "$PUB"
RUN=$T/run
SOCK=$RUN/mcpd.sock

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "socket_group": "$GROUP" },
  "mcpServers": { "demo": { "command": "$MCP_FAKE" } }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready demo

out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" --json status 2>&1) ||
	fail "uid nobody with $GROUP ($GID) as a supplementary group only was refused: $out"
[ "$(jq -r '.servers[0].state' <<<"$out")" = ready ] || fail "member status: $out"
pid=$(server_pid demo)
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" restart demo 2>&1) &&
	fail "a member restarted a server: $out"
grep -q "permission denied" <<<"$out" || fail "no 'permission denied' in: $out"
[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted anyway"
note "uid nobody, $GROUP only by setpriv --groups: status allowed, restart denied"

chmod 0755 "$RUN"
chmod 0666 "$SOCK"
# --wait-ms only bounds a broken run: the refusal closes it at once.
timeout -k 5 90 "${as_stranger[@]}" "$NODE" "$PUB/hostile-fds.mjs" peek \
	--sock "$SOCK" --send '{"jsonrpc":"2.0","id":1,"method":"mcpd/status"}' \
	--wait-ms 20000 >"$T/peek.json" 2>"$T/peek.err" ||
	{ cat "$T/peek.err" >&2; fail "hostile-fds.mjs peek failed"; }
note "stranger (uid daemon) was told: $(jq -c '.lines' "$T/peek.json"); closed after $(jq .close_ms "$T/peek.json") ms"
[ "$(jq .closed "$T/peek.json")" = true ] || fail "the stranger's connection was not closed"
[ "$(jq '.lines | length' "$T/peek.json")" = 1 ] || fail "expected one line: $(jq -c .lines "$T/peek.json")"
jq -e '.lines[0] | fromjson | .id == null and .error.code == -32013' "$T/peek.json" >/dev/null ||
	fail "not an access error with id null: $(jq -c .lines "$T/peek.json")"
msg=$(jq -r '.error.message' "$T/peek.json")
uid=$(id -u daemon)
grep -q "uid $uid is not allowed" <<<"$msg" || fail "the message does not name uid $uid: $msg"
grep -q "$GROUP (socket_group)" <<<"$msg" || fail "the message does not say what to do: $msg"
grep -q "refused connection from pid .*: uid $uid is not allowed" "$MCPD_LOG" ||
	fail "the refusal was not logged"
# mcpctl shows the refusal itself, not "mcpd closed the connection".
out=$("${as_stranger[@]}" "$MCPCTL" -s "$SOCK" status 2>&1)
rc=$?
note "mcpctl as the stranger: exit $rc: $out"
[ "$rc" = 1 ] || fail "mcpctl as the stranger exited $rc, expected 1: $out"
grep -q "uid $uid is not allowed" <<<"$out" || fail "mcpctl did not show mcpd's refusal: $out"
stop_mcpd
exit 0
