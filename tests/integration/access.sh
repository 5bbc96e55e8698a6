#!/bin/bash
# access.sh -- who may use the socket.
#
# By default the socket's directory is 0700 and the socket 0600: only
# mcpd's own uid (and root) get in.  With "socket_group", members of that
# group may connect and use sessions and status, but not administer
# (start, stop, restart, reload, reexec: -32013) nor read servers' stderr
# (logs: -32013), and the directory and socket
# are 0750 and 0660, owned by the group.  Peers of any other uid are
# refused by SO_PEERCRED even when file permissions would let them in.
# Needs root (to run clients as other users).

. "$TESTS_SRCDIR/integration/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run clients as other users"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
getent passwd daemon >/dev/null || skip "no user daemon"
as_member=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
as_stranger=(setpriv --reuid=daemon --regid=daemon --clear-groups)
"${as_member[@]}" test -x "$MCPCTL" ||
	skip "$MCPCTL is not executable by nobody"

# Only traversal for others on the test directory itself.
chmod 0711 "$T"
RUN=$T/run
SOCK=$RUN/mcpd.sock
CFG=$T/mcpd.json

mode_of() { stat -c '%a %G' "$1"; }

# Default: private.
write_config "$CFG" "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
start_mcpd "$CFG"
wait_ready demo
[ "$(stat -c %a "$RUN")" = 700 ] || fail "socket directory mode $(stat -c %a "$RUN"), expected 700"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket mode $(stat -c %a "$SOCK"), expected 600"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" status 2>&1) &&
	fail "nobody reached a private socket: $out"
note "default: directory 700, socket 600, nobody refused ($out)"
stop_mcpd
rm -rf "$RUN"

# With socket_group nogroup.
write_config "$CFG" "{\"mcpd\": {\"socket_group\": \"nogroup\"},
	\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
start_mcpd "$CFG"
wait_ready demo
[ "$(mode_of "$RUN")" = "750 nogroup" ] || fail "socket directory is $(mode_of "$RUN"), expected 750 nogroup"
[ "$(mode_of "$SOCK")" = "660 nogroup" ] || fail "socket is $(mode_of "$SOCK"), expected 660 nogroup"

out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" --json status) ||
	fail "a member of socket_group could not read the status"
[ "$(jq -r '.servers[0].state' <<<"$out")" = ready ] || fail "member status: $out"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" call demo echo text=hi) ||
	fail "a member of socket_group could not call a tool"
[ "$out" = hi ] || fail "member call returned '$out'"
pid=$(server_pid demo)
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" restart demo 2>&1)
rc=$?
[ "$rc" -eq 1 ] || fail "a member restarted a server (exit $rc): $out"
grep -q "permission denied" <<<"$out" || fail "no 'permission denied' in: $out"
[ "$(server_pid demo)" = "$pid" ] || fail "the server was restarted anyway"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" reload 2>&1) &&
	fail "a member reloaded the configuration: $out"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" logs demo 2>&1) &&
	fail "a member read a server's stderr: $out"
grep -q "permission denied" <<<"$out" || fail "mcpctl logs as a member: $out"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" reexec 2>&1) &&
	fail "a member re-executed mcpd: $out"
grep -q "permission denied" <<<"$out" || fail "mcpctl reexec as a member: $out"
[ "$(status_json | jq .daemon.reexecs)" = 0 ] || fail "mcpd re-executed for a member"
note "member: status and sessions allowed; restart, reload, reexec and logs denied"

# A stranger passes the file permissions (opened up by hand here) and is
# still refused at the socket.
chmod 0755 "$RUN"
chmod 0666 "$SOCK"
out=$("${as_stranger[@]}" "$MCPCTL" -s "$SOCK" status 2>&1) &&
	fail "a peer outside socket_group was served: $out"
wait_for 30 grep -q "refused connection from pid .*: uid $(id -u daemon) is not allowed" "$MCPD_LOG" ||
	fail "the refusal was not logged"
# Root still administers.
ctl restart demo >/dev/null || fail "root could not restart"
note "stranger refused and logged; root administers"

stop_mcpd
exit 0
