#!/bin/bash
# ctl.sh -- what people notice about mcpctl: the status table (columns
# line up under NAME STATE PID UPTIME RESTARTS CLIENTS INFLIGHT LAST EXIT
# and show the numbers of --json status), colour only on a terminal and
# never with NO_COLOR, --json before or after the command, the exit codes
# (0 ok, 1 failed operation, 2 usage, 3 daemon unreachable with a message
# naming the socket and how to start mcpd), help listing every command,
# and version with and without a daemon.

# shellcheck source=reload-lib.sh
. "$TESTS_SRCDIR/integration/reload-lib.sh"

COMMANDS="status start stop restart reload reexec logs metrics pins approve connect tools call ping prompts prompt resources read login logout check-config version import install uninstall add remove audit token help"
LONG=a-rather-long-server-name
CFG=$T/mcpd.json
write_config "$CFG" <<JSON
{
  "mcpServers": {
    "ok": {"command": "$MCP_FAKE"},
    "$LONG": {"command": "$MCP_FAKE"},
    "off": {"command": "$MCP_FAKE", "disabled": true},
    "crashy": {"command": "$MCP_FAKE", "args": ["--crash-at-start=3", "--startlog=$T/crashy.starts"],
               "backoff_min_ms": 120000, "backoff_max_ms": 120000, "backoff_jitter": 0},
    "broken": {"command": "$MCP_FAKE", "args": ["--crash-at-start=4"],
               "backoff_min_ms": 100, "backoff_max_ms": 100, "max_restarts": 1, "restart_window_s": 600},
    "slow": {"command": "$MCP_FAKE", "args": ["--no-init-reply"], "init_timeout_ms": 120000}
  }
}
JSON

# run NAME ARGS...: mcpctl ARGS (no -s added), stdout and stderr in
# $T/NAME.out and $T/NAME.err; sets RC and LAST.
run() {
	LAST=$1
	shift
	timeout -k 5 30 "$MCPCTL" "$@" >"$T/$LAST.out" 2>"$T/$LAST.err" </dev/null
	RC=$?
}

# expect_rc WANT WHAT
expect_rc() {
	[ "$RC" = "$1" ] ||
		fail "$2: exit status $RC, expected $1; stdout: $(head -c 400 "$T/$LAST.out"); stderr: $(head -c 400 "$T/$LAST.err")"
}

# on_tty OUT CMD...: run CMD on a pseudo-terminal (script(1)), its output
# (terminal line endings removed) to OUT; sets RC.
on_tty() {
	local out=$1 cmd
	shift
	printf -v cmd '%q ' "$@"
	timeout -k 5 30 script -qec "$cmd" /dev/null </dev/null >"$out.raw" 2>&1
	RC=$?
	tr -d '\r' <"$out.raw" >"$out"
}

ESC=$(printf '\033')
strip_ansi() {
	sed "s/$ESC\[[0-9;]*m//g" "$1"
}

# --- no daemon yet: exit 3, naming the socket and how to start mcpd --------------
NONE=$T/none.sock
for cmd in "status" "status ok" "start ok" "stop ok" "restart ok" "reload" "logs ok" "logs -f ok" \
	"metrics" "tools ok" "ping ok" "call ok echo text=hi" "--json status"; do
	# shellcheck disable=SC2086
	run nodaemon -s "$NONE" $cmd
	expect_rc 3 "mcpctl $cmd without a daemon"
	grep -qF "$NONE" "$T/nodaemon.err" ||
		fail "mcpctl $cmd without a daemon does not name the socket $NONE: $(cat "$T/nodaemon.err")"
	[ ! -s "$T/nodaemon.out" ] || [ "$cmd" = "--json status" ] ||
		fail "mcpctl $cmd without a daemon wrote to stdout: $(cat "$T/nodaemon.out")"
done
run nodaemon -s "$NONE" connect ok
expect_rc 3 "mcpctl connect without a daemon"
run nodaemon -s "$NONE" status
note "without a daemon: $(tr '\n' '|' <"$T/nodaemon.err")"
grep -Eq "mcpd -s $NONE|systemctl" "$T/nodaemon.err" ||
	fail "mcpctl without a daemon does not say how to start mcpd: $(cat "$T/nodaemon.err")"
MCPD_SOCKET=$NONE run nodaemon status
expect_rc 3 "MCPD_SOCKET=$NONE mcpctl status"
grep -qF "$NONE" "$T/nodaemon.err" || fail "mcpctl does not name the MCPD_SOCKET socket: $(cat "$T/nodaemon.err")"

# version without a daemon: exit 0, only mcpctl's.
run version -s "$NONE" version
expect_rc 0 "mcpctl version without a daemon"
VERSION=$(sed -n 's/^mcpctl \([0-9][0-9.]*\)$/\1/p' "$T/version.out")
[ -n "$VERSION" ] || fail "mcpctl version without a daemon printed: $(cat "$T/version.out")"
[ "$(wc -l <"$T/version.out")" = 1 ] || fail "mcpctl version without a daemon printed more: $(cat "$T/version.out")"
run version -s "$NONE" --json version
expect_rc 0 "mcpctl --json version without a daemon"
jq -e --arg v "$VERSION" '.mcpctl == $v and .mcpd == null' "$T/version.out" >/dev/null ||
	fail "mcpctl --json version without a daemon: $(cat "$T/version.out")"

# --- usage: exit 2, a message on stderr, nothing on stdout -------------------------------
usage() {
	# shellcheck disable=SC2068
	run usage -s "$NONE" $@
	expect_rc 2 "mcpctl $*"
	[ -s "$T/usage.err" ] || fail "mcpctl $*: no message on stderr"
	[ ! -s "$T/usage.out" ] || fail "mcpctl $*: usage error printed on stdout: $(cat "$T/usage.out")"
}
usage
usage no-such-command
usage --no-such-option status
usage status --no-such-option
for cmd in start stop restart logs connect tools ping prompts resources read; do
	usage "$cmd"
done
usage call ok
usage prompt ok
usage read ok
usage read ok a b
usage read ok a --output
usage tools ok --output x
usage logs ok quiet
usage logs ok -n abc
usage logs ok -n -1
usage logs ok -n
usage reload now
usage reexec now
usage metrics all
usage version 2
usage help me
usage check-config a b
run x -s "$NONE" no-such-command
grep -q 'no-such-command' "$T/x.err" || fail "mcpctl no-such-command does not name the command: $(cat "$T/x.err")"

# --- help lists every command -------------------------------------------------------------
for form in help --help -h; do
	run help -s "$NONE" $form
	expect_rc 0 "mcpctl $form"
	for c in $COMMANDS; do
		grep -Eq "^  $c( |$)" "$T/help.out" || fail "mcpctl $form does not list $c: $(cat "$T/help.out")"
	done
done
listed=$(grep -Ec '^  [a-z-]+ ' "$T/help.out")
[ "$listed" = "$(wc -w <<<"$COMMANDS")" ] || fail "mcpctl help lists $listed commands, expected $(wc -w <<<"$COMMANDS")"
run help -s "$NONE" logs --help
expect_rc 0 "mcpctl logs --help"
grep -q 'logs NAME' "$T/help.out" || fail "mcpctl logs --help: $(cat "$T/help.out")"

# --- a daemon in every state ---------------------------------------------------------------
start_mcpd "$CFG"
wait_ready ok
wait_ready "$LONG"
wait_for 30 server_is crashy backoff || fail "crashy is $(server_field crashy state), expected backoff"
wait_for 30 server_is broken failed || fail "broken is $(server_field broken state), expected failed"
wait_for 30 server_is slow initializing || fail "slow is $(server_field slow state)"
server_is off stopped || fail "off is $(server_field off state)"
rc_start
rc "{\"op\":\"attach\",\"conn\":\"a\",\"server\":\"$LONG\"}"
rc "{\"op\":\"attach\",\"conn\":\"b\",\"server\":\"$LONG\"}"
rc_tool send a 1 sleep '{"ms": 60000}'
rc_tool send b 1 sleep '{"ms": 60000}'
rc_tool send b 2 sleep '{"ms": 60000}'
wait_for 30 eval '[ "$(server_field '"$LONG"' inflight)" = 3 ]' || fail "the 3 sleeps are not in flight"
# Every running server up for a second at least, so that no uptime is "0s"
# (check_table wants a duration).
uptimes_past_1s() {
	ctl --json status | jq -e '[.servers[] | select(.pid != null) | .uptime_ms >= 1000] | all' >/dev/null
}
wait_for 30 uptimes_past_1s ||
	fail "uptimes not past 1 s: $(ctl --json status | jq -c '[.servers[] | {name, pid, uptime_ms}]')"

# check_table TABLE JSON: the table shows the servers of the JSON status,
# in its order, each value in its column.
check_table() {
	local problems
	jq -r '.servers[] | [.name, .state, (.pid // "-" | tostring), (.restarts | tostring),
		(.clients | tostring), (.inflight | tostring), (.last_exit // "-")] | join("\t")' "$2" >"$T/expected.tsv"
	problems=$(strip_ansi "$1" | awk -F'\t' '
	function bad(m) { if (nbad++ < 10) print "row " FNR - 1 ": " m ": [" $0 "]" }
	function ch(s, i) { return substr(s, i, 1) }
	# Right-aligned: ends at e (the last character of the header word).
	function right(s, e, w,   v) {
		if (ch(s, e) == " " || (length(s) > e && ch(s, e + 1) != " ")) { bad(w " not right-aligned under its header"); return "" }
		v = substr(s, prev + 1, e - prev); gsub(/^ +/, "", v); prev = e; return v
	}
	function left(s, b, w) {
		if (ch(s, b) == " " || ch(s, b - 1) != " ") bad(w " does not start under its header")
	}
	FNR == NR { want[++n] = $0; next }
	# The groups follow a blank line (check_groups).
	FNR > 1 && $0 == "" { done = 1 }
	done { next }
	FNR == 1 {
		if ($0 !~ /^NAME +STATE +PID +UPTIME +RESTARTS +CLIENTS +INFLIGHT +LAST EXIT$/) { print "bad header: [" $0 "]"; exit }
		bs = index($0, "STATE"); ep = index($0, " PID") + 3; eu = index($0, "UPTIME") + 5
		er = index($0, "RESTARTS") + 7; ec = index($0, "CLIENTS") + 6; ei = index($0, "INFLIGHT") + 7
		bl = index($0, "LAST EXIT")
		next
	}
	{
		split(want[FNR - 1], w, "\t")
		if (FNR - 1 > n) { bad("a row too many"); next }
		name = substr($0, 1, bs - 1); sub(/ +$/, "", name)
		if (name != w[1]) bad("name " name ", expected " w[1])
		left($0, bs, "STATE")
		st = substr($0, bs); sub(/ .*/, "", st)
		if (st != w[2]) bad("state " st ", expected " w[2])
		prev = bs + length(st)
		if (right($0, ep, "PID") != w[3]) bad("PID, expected " w[3])
		up = right($0, eu, "UPTIME")
		if (w[3] == "-" ? up != "-" : up !~ /^([1-9][0-9]?s|[0-9]+m[0-5][0-9]s|[0-9]+h[0-5][0-9]m|[0-9]+d[0-2][0-9]h)$/)
			bad("UPTIME " up)
		if (right($0, er, "RESTARTS") != w[4]) bad("RESTARTS, expected " w[4])
		if (right($0, ec, "CLIENTS") != w[5]) bad("CLIENTS, expected " w[5])
		if (right($0, ei, "INFLIGHT") != w[6]) bad("INFLIGHT, expected " w[6])
		left($0, bl, "LAST EXIT")
		if (index(substr($0, bl), w[7]) != 1) bad("LAST EXIT, expected " w[7])
		rows++
	}
	END { if (rows + 0 != n) print rows + 0 " rows for " n " servers" }' "$T/expected.tsv" -)
	[ -z "$problems" ] || fail "the status table is wrong: $problems
$(cat "$1")"
}

# --- the table --------------------------------------------------------------------------------
ctl --json status >"$T/status.json" || fail "mcpctl --json status failed"
run table -s "$SOCK" status
expect_rc 0 "mcpctl status"
check_table "$T/table.out" "$T/status.json"
# Below the servers, the groups: here only the built-in "all", every
# server with its state, in order.
want=$(jq -r '.groups[] | select(.name == "all") |
	"all 0 0 " + ([.servers[] | "\(.name)(\(.state))"] | join(" "))' "$T/status.json")
got=$(sed -n '/^GROUP  *CLIENTS  *REQUESTS  *SERVERS$/,$p' "$T/table.out" | sed -n 2p | tr -s ' ')
[ -n "$want" ] && [ "$got" = "$want" ] ||
	fail "the groups below the status table: got '$got', want '$want'
$(cat "$T/table.out")"
note "mcpctl status:"
sed 's/^/#   /' "$T/table.out"
grep -q "$ESC" "$T/table.out" && fail "mcpctl status into a pipe is coloured"
grep -Eq '^crashy +backoff .*\(next try in [0-9.]+s\)$' "$T/table.out" ||
	fail "the backoff row does not say when the next try is: $(grep crashy "$T/table.out")"
run table1 -s "$SOCK" status crashy ok
expect_rc 0 "mcpctl status crashy ok"
# The table, then (below a blank line) each named server's era of MCP.
[ "$(sed '/^$/q' "$T/table1.out" | grep -c .)" = 3 ] || fail "mcpctl status crashy ok printed: $(cat "$T/table1.out")"
grep -Eq '^ok: MCP 2025 \(server/discover refused\)$' "$T/table1.out" ||
	fail "mcpctl status crashy ok does not say ok's era: $(cat "$T/table1.out")"
ctl --json status crashy ok >"$T/status1.json"
check_table "$T/table1.out" "$T/status1.json"

# --json before and after the command, and -s after it too.
for form in "--json status" "status --json" "status --json -s $SOCK"; do
	# shellcheck disable=SC2086
	run json -s "$SOCK" $form
	expect_rc 0 "mcpctl $form"
	jq -e '.servers | length == 6' "$T/json.out" >/dev/null || fail "mcpctl $form: $(head -c 300 "$T/json.out")"
done
run json status --json -s "$SOCK"
expect_rc 0 "mcpctl status --json -s SOCK"
for form in "--json metrics" "metrics --json" "--json version" "version --json" "--json logs ok" "logs ok --json"; do
	# shellcheck disable=SC2086
	run json -s "$SOCK" $form
	expect_rc 0 "mcpctl $form"
	jq -e . "$T/json.out" >/dev/null 2>&1 || fail "mcpctl $form is not JSON: $(head -c 300 "$T/json.out")"
done

# --- colour: on a terminal only, never with NO_COLOR --------------------------------------
if ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	note "script(1) cannot make a terminal here: colour not checked"
else
	on_tty "$T/tty" env -u NO_COLOR "$MCPCTL" -s "$SOCK" status
	[ "$RC" = 0 ] || fail "mcpctl status on a terminal exited $RC: $(cat "$T/tty")"
	for pair in "ready:32" "backoff:33" "failed:1;31" "stopped:2" "initializing:36"; do
		state=${pair%%:*} code=${pair#*:}
		grep -qF "${ESC}[${code}m$state" "$T/tty" ||
			fail "on a terminal, $state is not coloured ESC[${code}m: $(grep -F "$state" "$T/tty" | head -1 | cat -v)"
	done
	[ "$(grep -c "$ESC\[" "$T/tty")" = 6 ] || fail "colour outside the 6 state cells: $(cat -v "$T/tty")"
	awk -v e="$ESC" 'index($0, e "[") && !index($0, e "[0m") { exit 1 }' "$T/tty" ||
		fail "a coloured line does not reset its colour: $(cat -v "$T/tty")"
	grep -q "$ESC" <(head -1 "$T/tty") && fail "the header is coloured"
	ctl --json status >"$T/status.json"
	check_table "$T/tty" "$T/status.json"
	note "on a terminal: $(grep '^ok ' "$T/tty" | cat -v)"

	on_tty "$T/tty" env NO_COLOR=1 "$MCPCTL" -s "$SOCK" status
	[ "$RC" = 0 ] || fail "NO_COLOR=1 mcpctl status on a terminal exited $RC"
	grep -q "$ESC" "$T/tty" && fail "NO_COLOR=1 mcpctl status on a terminal is coloured: $(cat -v "$T/tty" | head -3)"
	check_table "$T/tty" "$T/status.json"
	on_tty "$T/tty" env NO_COLOR= "$MCPCTL" -s "$SOCK" status
	grep -qF "${ESC}[32mready" "$T/tty" || fail "an empty NO_COLOR turned colour off (mcpctl(1): only if set and not empty)"
	for cmd in "--json status" "status --json" "metrics" "logs ok" "version" "help"; do
		# shellcheck disable=SC2086
		on_tty "$T/tty" env -u NO_COLOR "$MCPCTL" -s "$SOCK" $cmd
		[ "$RC" = 0 ] || fail "mcpctl $cmd on a terminal exited $RC"
		grep -q "$ESC" "$T/tty" && fail "mcpctl $cmd on a terminal is coloured: $(head -3 "$T/tty" | cat -v)"
	done
	on_tty "$T/tty" env -u NO_COLOR "$MCPCTL" -s "$SOCK" --json status
	jq -e '.servers | length == 6' "$T/tty" >/dev/null || fail "mcpctl --json status on a terminal is not the JSON status"
fi

# --- exit 1: failed operations ----------------------------------------------------------------
for cmd in "status no-such" "status ok no-such" "start no-such" "stop no-such" "restart no-such" \
	"logs no-such" "start ok no-such" "tools no-such" "ping no-such"; do
	# shellcheck disable=SC2086
	run fail1 -s "$SOCK" $cmd
	expect_rc 1 "mcpctl $cmd"
	grep -q no-such "$T/fail1.err" || fail "mcpctl $cmd does not name the unknown server: $(cat "$T/fail1.err")"
done
server_is ok ready || fail "ok is $(server_field ok state) after commands naming an unknown server"
# A server that does not become ready.
run fail1 -s "$SOCK" start crashy
expect_rc 1 "mcpctl start crashy (exits at once every time)"
note "mcpctl start crashy: $(tr '\n' '|' <"$T/fail1.err")"
grep -q crashy "$T/fail1.err" || fail "mcpctl start crashy does not say which server: $(cat "$T/fail1.err")"
# A reload with a bad config.
GOOD=$(cat "$CFG")
write_config_raw "$CFG" '{"mcpServers": {"ok": {"args": []}}}'
run fail1 -s "$SOCK" reload
expect_rc 1 "mcpctl reload of a bad config"
grep -q 'mcpServers.ok.command' "$T/fail1.err" || fail "mcpctl reload of a bad config: $(cat "$T/fail1.err")"
write_config_raw "$CFG" "$GOOD"
run ok0 -s "$SOCK" reload
expect_rc 0 "mcpctl reload of the running config"
run fail1 -s "$SOCK" check-config "$T/missing.json"
expect_rc 1 "mcpctl check-config of a missing file"

# --- exit 0 ---------------------------------------------------------------------------------
for cmd in "status" "status ok" "metrics" "logs ok" "logs ok -n 1" "stop off" "ping ok" "tools ok" \
	"call ok echo text=hi" "check-config $CFG"; do
	# shellcheck disable=SC2086
	run ok0 -s "$SOCK" $cmd
	expect_rc 0 "mcpctl $cmd"
done

# --- version with a daemon -------------------------------------------------------------------
run version -s "$SOCK" version
expect_rc 0 "mcpctl version"
[ "$(head -1 "$T/version.out")" = "mcpctl $VERSION" ] || fail "mcpctl version: $(cat "$T/version.out")"
[ "$(sed -n 2p "$T/version.out")" = "mcpd $VERSION (pid $MCPD_PID, socket $SOCK)" ] ||
	fail "mcpctl version does not show the daemon: $(cat "$T/version.out")"
run version -s "$SOCK" --json version
jq -e --arg v "$VERSION" '.mcpctl == $v and .mcpd == $v' "$T/version.out" >/dev/null ||
	fail "mcpctl --json version: $(cat "$T/version.out")"

# --- the daemon goes away: exit 3 again -----------------------------------------------------
rc_stop
stop_mcpd TERM
run gone -s "$SOCK" status
expect_rc 3 "mcpctl status after mcpd exited"
grep -qF "$SOCK" "$T/gone.err" || fail "mcpctl status after mcpd exited does not name the socket: $(cat "$T/gone.err")"
exit 0
