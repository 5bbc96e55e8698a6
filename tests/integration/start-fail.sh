#!/bin/bash
# start-fail.sh -- a server that dies at start says why, to those who may
# read its stderr.  "mine" writes a line that quotes its API key, a stack
# frame, a blank line and Node.js's version line to stderr, and exits 1:
#
#   1  `mcpctl status` (table and --json) shows, beside "exited with
#      status 1", the line that says why ("boom: missing API key"), its
#      key replaced by [redacted] (the frame and the version line passed
#      over); mcpctl start quotes it when the server does not get ready;
#   2  mcpd's log line of the exit has it too (journal.sh checks the
#      journal's MCPD_LAST_STDERR);
#   3  the key appears nowhere in status, mcpctl start's complaint nor the
#      log line of the exit;
#   4  a member of socket_group (not an administrator: server stderr is
#      not its to read) sees the exit status alone, in status and in the
#      error its request gets (root only).
# It used to be only in `mcpctl logs`: status said "exited with status 1".

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

SECRET=sk-TOPSECRET-4711
as_member=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	getent group nogroup >/dev/null && getent passwd nobody >/dev/null; then
	as_member=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	"${as_member[@]}" test -x "$MCPCTL" || as_member=()
fi
GROUP='{}'
if [ ${#as_member[@]} -gt 0 ]; then
	GROUP='{"socket_group": "nogroup"}'
	# Others may pass through $T to the socket, and no more.
	chmod 0711 "$T"
fi
SOCK=$T/run/mcpd.sock

# hex TEXT: TEXT as mcp-fake --stderr-hex wants it.
hex() {
	printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'
}
SAID="boom: missing API key (API_KEY=$SECRET)"
STDERR=$(hex "$SAID
    at main (/srv/index.js:1:1)

Node.js v20.11.0
")
WANT="boom: missing API key (API_KEY=[redacted])"

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": $GROUP,
  "mcpServers": {
    "mine": {
      "command": "$MCP_FAKE",
      "args": ["--stderr-hex=$STDERR", "--crash-at-start=1",
               "--startlog=$T/mine.starts"],
      "env": { "API_KEY": "$SECRET" },
      "backoff_min_ms": 300, "backoff_max_ms": 600
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_for 30 startlog_has "$T/mine.starts" 2 ||
	fail "mine started $(startlog_count "$T/mine.starts") times in 30 s, expected 2"

# no_secret WHAT TEXT: TEXT does not hold the key.
no_secret() {
	! grep -qF "$SECRET" <<<"$2" || fail "$1 shows the API key: $2"
}

# --- 1: status and mcpctl start say why -----------------------------------------
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval '[ "$(server_field mine last_stderr)" = "$WANT" ]' ||
	fail "1: mine's last_stderr is $(server_field mine last_stderr), expected \"$WANT\" (last_exit $(server_field mine last_exit))"
out=$(status_json)
no_secret "1: mcpctl --json status" "$out"
jq -e '.servers[0] | .last_exit == "exited with status 1"' <<<"$out" >/dev/null ||
	fail "1: mine's last_exit: $(jq -c '.servers[0]' <<<"$out")"
table=$(ctl status) || fail "1: mcpctl status failed: $table"
no_secret "1: mcpctl status" "$table"
# The row says how it ended, and why.
grep '^mine ' <<<"$table" | grep -qF "exited with status 1; stderr: $WANT" ||
	fail "1: the table's row of mine does not say why it exited: $table"
note "1: $(grep '^mine ' <<<"$table" | tr -s ' ')"
out=$(ctl start mine 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "1: mcpctl start mine exited $rc: $out"
no_secret "1: mcpctl start" "$out"
grep -qF "exited with status 1; its last stderr line: $WANT" <<<"$out" ||
	fail "1: mcpctl start does not say why mine did not start: $out"
note "1: mcpctl start: $out"

# --- 2, 3: the log line of the exit -----------------------------------------------
# (Its first exit, on server/discover, is a probe-intolerant server's to
# mcpd, which starts it again with initialize first: no failure, no
# stderr line; probe.sh has it.  The exits after it are failures.)
line=$(grep 'mine: process [0-9]* exited with status 1' "$MCPD_LOG" |
	grep -v 'probe-intolerant' | head -n 1)
case "$line" in
*"exited with status 1; its last stderr line: $WANT") ;;
*) fail "2: mcpd's log line of the exit: '$line'" ;;
esac
no_secret "3: the log line of the exit" "$line"
note "2: $line"

# --- 4: what a user who is not an administrator sees -------------------------------
if [ ${#as_member[@]} -eq 0 ]; then
	note "4: skipped (needs root, setpriv, nobody and nogroup)"
	stop_mcpd TERM
	exit 0
fi
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" --json status) ||
	fail "4: the member could not read the status: $out"
jq -e '.servers[0] | (has("last_stderr") | not) and
	.last_exit == "exited with status 1"' <<<"$out" >/dev/null ||
	fail "4: mine as the member sees it: $(jq -c '.servers[0]' <<<"$out")"
table=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" status) ||
	fail "4: the member could not read the status table: $table"
for text in "$out" "$table"; do
	grep -qF "missing API key" <<<"$text" &&
		fail "4: the member is shown mine's stderr: $text"
done
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" call mine echo text=hi 2>&1)
rc=$?
[ "$rc" != 0 ] || fail "4: a call to mine as the member succeeded: $out"
grep -qF "exited with status 1" <<<"$out" ||
	fail "4: the member's error does not give the exit status: $out"
grep -qF "missing API key" <<<"$out" &&
	fail "4: the member's error quotes mine's stderr: $out"
note "4: the member's call: $out"

stop_mcpd TERM
exit 0
