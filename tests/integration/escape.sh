#!/bin/bash
# escape.sh -- a server cannot forge lines in mcpd's log nor drive the
# terminal of whoever runs mcpctl.  Its serverInfo.name, its protocol
# version (which ends up in the exit reason), its stderr and an error
# message quoting a name all carry "\nmcpd: github: ready -> failed\n" and
# ESC [2J (clear the screen).  mcpd's log (stderr target) then has no line
# that starts with the forged text and no ESC byte; `mcpctl status`, `logs`,
# `start`, `call` and an error from mcpd, on a terminal or not, print no
# ESC byte (NO_COLOR) or no ESC [2J (colour on), and no forged line, but
# show the escaped text "\n...\x1b[2J" (a tool's text keeps its lines);
# --json output is JSON-escaped only.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

ESC=$(printf '\033')
FORGED='mcpd: github: ready -> failed'
# In JSON, for the configuration: a line break, the forged line, a clear.
EVIL_JSON='\nmcpd: github: ready -> failed\n\u001b[2J'
STDERR_HEX=$(printf 'x\n%s\n\033[2J cleared\n' "$FORGED" | od -An -v -tx1 | tr -d ' \n')

CFG=$T/mcpd.json
write_config "$CFG" <<JSON
{
  "mcpServers": {
    "evil": {"command": "$MCP_FAKE",
             "args": ["--stderr-hex=$STDERR_HEX", "--server-name=evil$EVIL_JSON"]},
    "badproto": {"command": "$MCP_FAKE", "args": ["--protocol-version=$EVIL_JSON"],
                 "backoff_min_ms": 120000, "backoff_max_ms": 120000, "backoff_jitter": 0}
  }
}
JSON
start_mcpd "$CFG"
wait_ready evil
wait_for 30 eval '[ "$(server_field badproto restarts)" -ge 1 ] || server_is badproto backoff' ||
	fail "badproto was not refused: $(server_field badproto state)"
wait_for 30 eval '[ "$(server_field evil stats | jq .stderr_lines)" -ge 4 ]' ||
	fail "evil's stderr did not arrive: $(server_field evil stats)"

# clean FILE WHAT [ESC_OK]: no forged line, and no ESC byte (with ESC_OK,
# none but colour: no ESC [2J).
clean() {
	local file=$1 what=$2
	grep -aq "^$FORGED" "$file" &&
		fail "$what has a forged line: $(grep -a "^$FORGED" "$file" | head -2 | cat -v)"
	if [ -n "${3:-}" ]; then
		grep -aqF "$ESC[2J" "$file" && fail "$what clears the terminal: $(grep -aF "$ESC[2J" "$file" | head -2 | cat -v)"
	else
		grep -aq "$ESC" "$file" && fail "$what has an ESC byte: $(grep -a "$ESC" "$file" | head -2 | cat -v)"
	fi
	return 0
}

# shows FILE WHAT TEXT: the escaped text is there for people to read.
shows() {
	grep -aqF -- "$3" "$1" || fail "$2 does not show \"$3\": $(head -c 1500 "$1" | cat -v)"
}

# --- mcpd's own log ------------------------------------------------------------------------
# The name goes into "initializing -> ready: initialized: NAME", the
# protocol version into the reason badproto was killed, stderr line by line.
wait_for 30 grep -aqF 'x1b[2J cleared' "$MCPD_LOG" || true
clean "$MCPD_LOG" "mcpd's log"
shows "$MCPD_LOG" "mcpd's log" 'initialized: evil\nmcpd: github: ready -> failed\n\x1b[2J'
shows "$MCPD_LOG" "mcpd's log" 'unsupported protocol version "\nmcpd: github: ready -> failed\n\x1b[2J"'
shows "$MCPD_LOG" "mcpd's log" 'mcpd: evil: \x1b[2J cleared'
note "mcpd's log: $(grep -aF 'initialized: evil' "$MCPD_LOG" | head -1)"

# --- mcpctl, without a terminal -----------------------------------------------------------
ctl status >"$T/status.out" 2>&1 || fail "mcpctl status failed: $(cat "$T/status.out")"
clean "$T/status.out" "mcpctl status"
shows "$T/status.out" "mcpctl status" 'version "\nmcpd: github: ready -> failed\n\x1b[2J"'
ctl logs evil >"$T/logs.out" 2>&1 || fail "mcpctl logs evil failed: $(cat "$T/logs.out")"
clean "$T/logs.out" "mcpctl logs evil"
shows "$T/logs.out" "mcpctl logs evil" ' \x1b[2J cleared'

# An error message from mcpd that quotes what it was given.
ctl logs "no$ESC[2Jsuch
$FORGED" >"$T/unknown.out" 2>&1 && fail "mcpctl logs of an unknown server succeeded"
clean "$T/unknown.out" "mcpctl's error for an unknown server"
shows "$T/unknown.out" "mcpctl's error for an unknown server" 'no\x1b[2Jsuch\nmcpd: github'

# start: mcpd tries again at once, refuses again, and mcpctl says why.
ctl start badproto >"$T/start.out" 2>&1 && fail "mcpctl start badproto succeeded"
clean "$T/start.out" "mcpctl start badproto"
shows "$T/start.out" "mcpctl start badproto" 'version "\nmcpd: github: ready -> failed\n\x1b[2J"'

# call: a tool's text keeps its lines, loses its escape sequences.
ctl call evil echo "text=one$ESC[2J
two" >"$T/call.out" 2>&1 || fail "mcpctl call evil echo failed: $(cat "$T/call.out")"
clean "$T/call.out" "mcpctl call evil echo"
[ "$(cat "$T/call.out")" = 'one\x1b[2J
two' ] || fail "mcpctl call evil echo printed: $(cat -v "$T/call.out")"

# --- --json: JSON escaping only, the text itself intact ------------------------------------
ctl --json status >"$T/status.json" || fail "mcpctl --json status failed"
jq -e --arg e "$ESC" '.servers[] | select(.name == "badproto") | .last_exit |
	contains("\n" + "mcpd: github: ready -> failed\n" + $e + "[2J") and (contains("\\x1b") | not)' \
	"$T/status.json" >/dev/null ||
	fail "mcpctl --json status: last_exit is not the server's text: $(jq '.servers[] | select(.name == "badproto") | .last_exit' "$T/status.json")"
ctl --json logs evil >"$T/logs.json" || fail "mcpctl --json logs evil failed"
jq -se --arg e "$ESC" 'any(.[]; .text == ($e + "[2J cleared"))' "$T/logs.json" >/dev/null ||
	fail "mcpctl --json logs evil: the line is not the server's text: $(cat "$T/logs.json")"

# --- on a terminal --------------------------------------------------------------------------
if ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	note "script(1) cannot make a terminal here: the terminal was not checked"
else
	on_tty() {
		local out=$1 cmd
		shift
		printf -v cmd '%q ' "$@"
		timeout -k 5 30 script -qec "$cmd" /dev/null </dev/null >"$out.raw" 2>&1
		tr -d '\r' <"$out.raw" >"$out"
	}
	on_tty "$T/tty" env NO_COLOR=1 "$MCPCTL" -s "$SOCK" status
	clean "$T/tty" "NO_COLOR=1 mcpctl status on a terminal"
	shows "$T/tty" "mcpctl status on a terminal" '\x1b[2J'
	on_tty "$T/tty" env -u NO_COLOR "$MCPCTL" -s "$SOCK" status
	clean "$T/tty" "mcpctl status on a terminal, in colour" colour
	note "on a terminal: $(grep -a '^badproto' "$T/tty" | cat -v)"
	on_tty "$T/tty" env NO_COLOR=1 "$MCPCTL" -s "$SOCK" logs evil
	clean "$T/tty" "mcpctl logs evil on a terminal"
	shows "$T/tty" "mcpctl logs evil on a terminal" ' \x1b[2J cleared'
fi
exit 0
