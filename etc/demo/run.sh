#!/bin/bash
# run.sh -- the offline demo behind `make run`: mcpd in the foreground on a
# private socket, supervising three copies of the bundled test server
# (one healthy, one that exits every 20 s, one that crashes at start and is
# given up on).  Called by the build with MCPD, MCPCTL and MCP_FAKE set.
set -eu

: "${MCPD:?}" "${MCPCTL:?}" "${MCP_FAKE:?}"
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# mcpd refuses a configuration others could write; keep a private copy.
install -m 0600 "$here/mcpd.json" "$dir/mcpd.json"
sock="$dir/mcpd.sock"
export MCP_FAKE

cat <<MSG
mcpd demo: supervising 4 servers from $dir/mcpd.json
socket: $sock

In another terminal, try (after export MCPD_SOCKET=$sock):
  $MCPCTL status
  $MCPCTL tools demo
  $MCPCTL call demo add a=2 b=3
  $MCPCTL ping demo
  $MCPCTL logs -f flaky
  $MCPCTL restart demo
  $MCPCTL start broken
  $MCPCTL metrics
  $MCPCTL connect demo     (what an MCP client runs; type JSON-RPC lines)
  $MCPCTL tools both       (a group: demo's and lazy's tools in one session)
  $MCPCTL call both lazy__add a=1 b=2

Watch "flaky" exit every 20 s and come back, and "broken" crash,
back off (1 s, 2 s, 4 s, ...) and be given up on after 4 restarts.
"lazy" starts on demand (the group's tool list starts it), stops after
30 s without requests, and hides its crash tool.
Press Ctrl-C to stop mcpd and every server.

MSG
"$MCPD" -c "$dir/mcpd.json" -s "$sock" --log-target stderr
