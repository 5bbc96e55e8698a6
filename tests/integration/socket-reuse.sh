#!/bin/bash
# socket-reuse.sh -- an exiting mcpd removes its own socket file and no
# other: mcpd A runs on a path, its socket file is removed, mcpd B starts
# on the same path; when A stops, B's socket file is still there (same
# inode) and B still answers `mcpctl status`; when B stops, it removes
# its own socket.

. "$TESTS_SRCDIR/integration/lib.sh"

inode_of() { stat -c %i "$1" 2>/dev/null; }

write_config "$T/mcpd.json" "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
start_mcpd "$T/mcpd.json"
A=$MCPD_PID
rm -f "$SOCK"
start_mcpd "$T/mcpd.json"
B=$MCPD_PID
[ "$(ctl --json status | jq -r .daemon.pid)" = "$B" ] ||
	fail "the socket is not answered by the second mcpd ($B)"
inode=$(inode_of "$SOCK")
note "mcpd $A lost its socket file; mcpd $B now listens on $SOCK (inode $inode)"

MCPD_PID=$A
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "the first mcpd exited $MCPD_STATUS on SIGTERM"
MCPD_PID=$B
[ -S "$SOCK" ] || fail "the first mcpd, exiting, removed the socket of the second"
[ "$(inode_of "$SOCK")" = "$inode" ] ||
	fail "the socket file changed (inode $inode -> $(inode_of "$SOCK"))"
out=$(ctl --json status) || fail "the second mcpd no longer answers after the first exited"
[ "$(jq -r .daemon.pid <<<"$out")" = "$B" ] ||
	fail "status answered by $(jq -r .daemon.pid <<<"$out"), not by the second mcpd $B"
grep -q "leaving $SOCK alone" "$MCPD_LOG" ||
	fail "the first mcpd did not say why it left $SOCK"
note "after mcpd $A exited, $SOCK is still mcpd $B's and answers"

stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "the second mcpd exited $MCPD_STATUS on SIGTERM"
[ ! -e "$SOCK" ] || fail "the second mcpd left its own socket file behind"
note "mcpd $B removed its own socket when it exited"
exit 0
