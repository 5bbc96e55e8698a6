#!/bin/bash
# journal.sh -- with --log-target journal, mcpd's telemetry lands in a real
# systemd-journald with the documented MESSAGE_IDs and MCPD_ fields.
#
# journald runs privately (../systemd/journald-lib.sh: journald-env.sh in a
# mount namespace of its own, over a fresh /run and tmpfs journal
# directories, so that this test, catalog.sh and the host never share a
# journal or a directory); mcpd and journalctl join that namespace with
# nsenter.  The harness proves itself first with systemd-cat and logger
# --journald, then mcpd supervises a server that crashes at start with
# status 3, saying why on stderr: the entry of each exit has that line
# (MCPD_LAST_STDERR, and in its MESSAGE).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../systemd/journald-lib.sh
. "$TESTS_SRCDIR/systemd/journald-lib.sh"

journald_can_run || skip "$JOURNALD_WHY"
for tool in systemd-cat logger; do
	command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done

PROTO_H=$TESTS_SRCDIR/../src/proto.h
[ -r "$PROTO_H" ] || hard_error "cannot read $PROTO_H"
# mid NAME: a MESSAGE_ID from proto.h, the daemon's own definition.
mid() {
	local v
	v=$(sed -n 's/^#define[[:space:]]\{1,\}'"$1"'[[:space:]]\{1,\}"\([0-9a-f]\{32\}\)".*/\1/p' "$PROTO_H")
	[ -n "$v" ] || hard_error "$1 is not defined in $PROTO_H"
	echo "$v"
}
MID_STATE=$(mid MCPD_MID_STATE)
MID_EXIT=$(mid MCPD_MID_EXIT)
MID_RESTART=$(mid MCPD_MID_RESTART)
MID_STDERR=$(mid MCPD_MID_STDERR)

# --- the private journald ---------------------------------------------------

# Entries never leave the namespace, and nothing is made on the host: its
# journal directories exist as they did, and its journal (if it has one)
# holds none of this test's entries (checked at the end).
host_journal_dirs() {
	local d
	for d in /run/systemd/journal /run/log/journal /var/log/journal; do
		[ -e "$d" ] && echo "$d"
	done
}
host_journal_before=$(host_journal_dirs)
T_START_S=${EPOCHREALTIME%[.,]*}

journald_start

# journal_dump: every entry as one JSON object per line in $T/journal.json.
journal_dump() {
	in_ns journalctl -o json --all --no-pager -q >"$T/journal.json" 2>"$T/journalctl.err"
}

# journal_count JQ_FILTER: how many entries the filter selects.
journal_count() {
	jq -c "select($1)" "$T/journal.json" 2>/dev/null | wc -l
}

# journal_has N JQ_FILTER: after a fresh dump, at least N entries match.
journal_has() {
	journal_dump || return 1
	[ "$(journal_count "$2")" -ge "$1" ]
}

# --- the harness proves itself ------------------------------------------------

PROBE=probe-$$-$RANDOM
PROBE_MID=0123456789abcdef0123456789abcdef
echo "stream $PROBE" | in_ns systemd-cat -t mcpd-test-harness ||
	hard_error "systemd-cat failed in the private namespace"
printf 'MESSAGE=native %s\nMESSAGE_ID=%s\nMCPD_TEST_PROBE=%s\n' \
	"$PROBE" "$PROBE_MID" "$PROBE" | in_ns logger --journald ||
	hard_error "logger --journald failed in the private namespace"
wait_for 30 journal_has 1 '.MESSAGE == "stream '"$PROBE"'" and .SYSLOG_IDENTIFIER == "mcpd-test-harness"' ||
	hard_error "a systemd-cat line did not reach the private journal: $(cat "$T/journalctl.err")"
wait_for 30 journal_has 1 '.MESSAGE_ID == "'"$PROBE_MID"'" and .MCPD_TEST_PROBE == "'"$PROBE"'"' ||
	hard_error "a native journal entry (logger --journald) did not reach the private journal"
note "harness: systemd-cat and logger --journald entries found with journalctl -o json"

# --- mcpd's telemetry --------------------------------------------------------

STARTS=$T/crashy.starts
# What crashy says before it exits: "boom: crashy cannot start".
CRASHY_SAYS="boom: crashy cannot start"
CRASHY_HEX=$(printf '%s\n' "$CRASHY_SAYS" | od -An -tx1 -v | tr -d ' \n')
write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "crashy": {
      "command": "$MCP_FAKE",
      "args": ["--stderr-hex=$CRASHY_HEX", "--crash-at-start=3",
               "--startlog=$STARTS"],
      "backoff_min_ms": 200,
      "backoff_max_ms": 400,
      "backoff_jitter": 0.2
    },
    "tab": { "command": "$MCP_FAKE", "share": "per-client" }
  }
}
JSON

MCPD_PREFIX=(nsenter -t "$JD_HOLDER" -m --)
MCPD_LOG_TARGET=journal
start_mcpd "$T/mcpd.json"
wait_for 60 startlog_has "$STARTS" 4 ||
	fail "crashy started $(startlog_count "$STARTS") times in 60 s, expected 4 (backoff 200-400 ms)"
# An instance of a per-client server: its entries name the server and it.
out=$(ctl tools tab 2>&1) || fail "mcpctl tools tab failed: $out"
JOURNAL_MCPD_PID=$MCPD_PID
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS on SIGTERM"
note "crashy started $(startlog_count "$STARTS") times; mcpd stopped"

server_is_crashy='(.MCPD_SERVER == "crashy")'
exit_sel="$server_is_crashy and .MESSAGE_ID == \"$MID_EXIT\""
restart_sel="$server_is_crashy and .MESSAGE_ID == \"$MID_RESTART\""
state_sel="$server_is_crashy and .MESSAGE_ID == \"$MID_STATE\""
stderr_sel="$server_is_crashy and .MESSAGE_ID == \"$MID_STDERR\""

# Datagrams are processed asynchronously: wait until the last kinds arrived.
wait_for 30 journal_has 3 "$exit_sel" ||
	fail "fewer than 3 MCPD_MID_EXIT ($MID_EXIT) entries for crashy: $(journal_count "$exit_sel")"
wait_for 30 journal_has 3 "$restart_sel" ||
	fail "fewer than 3 MCPD_MID_RESTART ($MID_RESTART) entries for crashy: $(journal_count "$restart_sel")"
journal_dump || fail "journalctl failed: $(cat "$T/journalctl.err")"
note "journal: $(journal_count '.MCPD_SERVER != null') entries with MCPD_SERVER," \
	"$(journal_count "$exit_sel") exits, $(journal_count "$restart_sel") restarts," \
	"$(journal_count "$state_sel") state changes, $(journal_count "$stderr_sel") stderr lines"

# Worker exits: status 3, a pid that was really started, a reason.
bad=$(jq -c "select($exit_sel) | select(.MCPD_EXIT_STATUS != \"3\" or
	(.MCPD_PID | tostring | test(\"^[0-9]+\$\") | not) or
	((.MCPD_REASON // \"\") == \"\"))" "$T/journal.json")
n_ok=$(journal_count "$exit_sel and .MCPD_EXIT_STATUS == \"3\"")
[ "$n_ok" -ge 3 ] ||
	fail "expected >= 3 exit entries with MCPD_EXIT_STATUS=3, got $n_ok; odd ones: $bad"
# The last start may have been stopped by the shutdown rather than crash.
n_bad=$(printf '%s' "$bad" | grep -c . || true)
[ "$n_bad" -le 1 ] || fail "exit entries without status 3, pid or reason: $bad"
for pid in $(jq -r "select($exit_sel) | .MCPD_PID" "$T/journal.json"); do
	awk -v p="$pid" '$1 == p { found = 1 } END { exit !found }' "$STARTS" ||
		fail "exit entry names MCPD_PID=$pid, which crashy's startlog never recorded"
done
note "exit entry: $(jq -c "select($exit_sel) | {MESSAGE, MCPD_PID, MCPD_EXIT_STATUS, MCPD_REASON, MCPD_LAST_STDERR}" "$T/journal.json" | head -1)"
# Its first exit, on server/discover (the probe of "protocol": "auto"), is
# a probe-intolerant server's to mcpd: at notice, not a failure, no stderr
# line; it is started again at once with initialize first.
probe_sel="$exit_sel and (.MESSAGE | tostring | contains(\"(probe-intolerant)\"))"
n=$(journal_count "$probe_sel and .PRIORITY == \"5\" and .MCPD_LAST_STDERR == null")
[ "$n" = 1 ] ||
	fail "$n exit entries at notice saying probe-intolerant, not 1: $(jq -c "select($probe_sel) | {MESSAGE, PRIORITY, MCPD_LAST_STDERR}" "$T/journal.json" | head -2)"
# The crashes after it: why it exited, in its own words: the field, and
# the message.
n=$(journal_count "$exit_sel and .MCPD_EXIT_STATUS == \"3\" and
	.MCPD_LAST_STDERR == \"$CRASHY_SAYS\" and
	(.MESSAGE | tostring | endswith(\"its last stderr line: $CRASHY_SAYS\"))")
[ "$n" -eq "$((n_ok - 1))" ] ||
	fail "$n of $n_ok exit entries with status 3 (one on the probe) have MCPD_LAST_STDERR=\"$CRASHY_SAYS\" and it in their MESSAGE: $(jq -c "select($exit_sel) | {MESSAGE, MCPD_LAST_STDERR}" "$T/journal.json" | head -2)"

# Scheduled restarts: numeric delays on the configured curve (200..400 ms
# +/- 20 %) and a numeric restart count.
delays=$(jq -r "select($restart_sel) | .MCPD_DELAY_MS" "$T/journal.json" | tr '\n' ' ')
for d in $delays; do
	case "$d" in
	'' | *[!0-9]*) fail "MCPD_DELAY_MS is not a number: '$d'" ;;
	esac
	[ "$d" -ge 160 ] && [ "$d" -le 480 ] ||
		fail "MCPD_DELAY_MS=$d outside 160..480 (backoff 200..400 ms, jitter 0.2)"
done
n=$(journal_count "$restart_sel and (.MCPD_RESTARTS | tostring | test(\"^[0-9]+\$\"))")
[ "$n" -eq "$(journal_count "$restart_sel")" ] ||
	fail "MCPD_MID_RESTART entries without a numeric MCPD_RESTARTS"
note "restart delays (ms): $delays"

# State transitions: into backoff, from a named state.
n=$(journal_count "$state_sel and .MCPD_STATE == \"backoff\" and ((.MCPD_PREV_STATE // \"\") != \"\")")
[ "$n" -ge 3 ] ||
	fail "expected >= 3 MCPD_MID_STATE entries with MCPD_STATE=backoff and MCPD_PREV_STATE, got $n"
note "states seen: $(jq -r "select($state_sel) | \"\(.MCPD_PREV_STATE)->\(.MCPD_STATE)\"" "$T/journal.json" | sort | uniq -c | awk '{ printf "%s x%s ", $2, $1 }')"

# The server's stderr, one entry per line, tagged with the server.
n=$(journal_count "$stderr_sel and (.MESSAGE | tostring | contains(\"mcp-fake: started pid\"))")
[ "$n" -ge 3 ] ||
	fail "expected >= 3 MCPD_MID_STDERR entries for crashy with 'mcp-fake: started pid', got $n"

# An instance's entries: MCPD_SERVER is its server's name, MCPD_INSTANCE
# its own, for its state changes and its stderr alike.
inst_sel='(.MCPD_SERVER == "tab" and .MCPD_INSTANCE == "tab#1")'
n=$(journal_count "$inst_sel and .MESSAGE_ID == \"$MID_STATE\" and .MCPD_STATE == \"ready\"")
[ "$n" -ge 1 ] ||
	fail "no state entry of the instance tab#1 with MCPD_SERVER=tab and MCPD_INSTANCE=tab#1"
n=$(journal_count "$inst_sel and .MESSAGE_ID == \"$MID_STDERR\"")
[ "$n" -ge 1 ] || fail "no stderr entry of the instance tab#1 with MCPD_INSTANCE=tab#1"
n=$(journal_count '(.MCPD_SERVER // "" | contains("#"))')
[ "$n" -eq 0 ] || fail "$n entries with an instance's name in MCPD_SERVER"
note "instance: $(journal_count "$inst_sel") entries with MCPD_SERVER=tab MCPD_INSTANCE=tab#1"

# Every mcpd entry is readable by a human too.
n=$(journal_count '.MCPD_SERVER != null and ((.MESSAGE // "") == "")')
[ "$n" -eq 0 ] || fail "$n entries with MCPD_SERVER but no MESSAGE"

journald_stop
host_journal_after=$(host_journal_dirs)
[ "$host_journal_before" = "$host_journal_after" ] ||
	fail "the host's journal directories changed: before: $host_journal_before; after: $host_journal_after"
if [ -n "$host_journal_after" ]; then
	journalctl -o json --all --no-pager -q --since "@$T_START_S" >"$T/host.json" 2>/dev/null
	leaked=$(jq -c --arg p "$PROBE" --arg pid "$JOURNAL_MCPD_PID" '
		select(.MCPD_TEST_PROBE == $p or .MESSAGE == ("stream " + $p) or
			(._PID == $pid and .MCPD_SERVER != null)) | .MESSAGE' "$T/host.json" 2>/dev/null | head -n 3)
	[ -z "$leaked" ] || fail "entries of this test reached the host's journal: $leaked"
fi
exit 0
