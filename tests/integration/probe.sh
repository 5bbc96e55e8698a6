#!/bin/bash
# probe.sh -- "protocol": "auto" finds a server's era of MCP in place:
# server/discover first to a new process, initialize after it in the same
# process when the answer is not MCP 2026-07-28, and the verdict kept for
# the configuration.  Every server is mcp-fake (a 2025 server), each
# writing the requests it gets to $T/NAME.req and its starts to
# $T/NAME.starts:
#
#   1  plain (auto): one process; its requests are server/discover, then
#      initialize; ready, restarts 0; status era 2025, found
#      "server/discover refused"; mcpd's log says so at ready;
#   2  intol (auto, --init-first: exits on any first request but
#      initialize): it exits on server/discover, and mcpd starts it once
#      more at once with initialize first: two processes, no restart
#      counted, no backoff, no last_exit, the exit logged as
#      probe-intolerant, not as a failure; status and `mcpctl status
#      intol` say "2025 (probe-intolerant)";
#   3  mcpctl restart intol: a third process, initialize first (no
#      server/discover), status says cached;
#   4  silent (auto, --ignore-discover): no answer to server/discover;
#      initialize follows in the same process after the probe's time (2 s
#      here); ready, found "server/discover unanswered";
#   5  pinned ("protocol": "2025"): initialize first, never discover;
#   6  mcpctl reexec, then mcpctl restart plain: the new mcpd knows the
#      verdict (initialize first).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# "pin": "off": the requests each server gets are only the probe's.
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "pin": "off" },
  "mcpServers": {
    "plain": { "command": "$MCP_FAKE",
      "args": ["--request-log=$T/plain.req", "--startlog=$T/plain.starts"] },
    "intol": { "command": "$MCP_FAKE",
      "args": ["--init-first=1", "--request-log=$T/intol.req",
               "--startlog=$T/intol.starts"],
      "backoff_min_ms": 20000, "backoff_max_ms": 20000 },
    "silent": { "command": "$MCP_FAKE",
      "args": ["--ignore-discover", "--request-log=$T/silent.req",
               "--startlog=$T/silent.starts"] },
    "pinned": { "command": "$MCP_FAKE", "protocol": "2025",
      "args": ["--request-log=$T/pinned.req"] }
  }
}
JSON
start_mcpd "$T/mcpd.json"
for s in plain intol silent pinned; do
	wait_ready "$s" 30
done

# methods NAME: the methods of the requests NAME got, one line, in order.
methods() {
	cut -d' ' -f1 "$T/$1.req" | tr '\n' ' '
}

# era_is NAME ERA FOUND
era_is() {
	local era found
	era=$(server_field "$1" era)
	found=$(server_field "$1" era_found)
	[ "$era" = "$2" ] && [ "$found" = "$3" ] ||
		fail "$1: status says era $era, found $found, not $2, $3"
}

# --- 1: a 2025 server, probed in place ------------------------------------------
[ "$(startlog_count "$T/plain.starts")" = 1 ] ||
	fail "1: plain started $(startlog_count "$T/plain.starts") times"
case $(methods plain) in
"server/discover initialize "*) ;;
*) fail "1: plain's requests were: $(methods plain)" ;;
esac
[ "$(server_field plain restarts)" = 0 ] || fail "1: plain restarted"
era_is plain 2025 "server/discover refused"
grep -q "plain: initializing -> ready: initialized: mcp-fake, protocol 2025-11-25 (era 2025: server/discover refused)" "$MCPD_LOG" ||
	fail "1: mcpd's log says at ready: $(grep 'plain: .*-> ready' "$MCPD_LOG")"

# --- 2: a server that exits on server/discover ---------------------------------
[ "$(startlog_count "$T/intol.starts")" = 2 ] ||
	fail "2: intol started $(startlog_count "$T/intol.starts") times, not 2"
pids=$(cut -d' ' -f1 "$T/intol.starts" | sort -u | wc -l)
[ "$pids" = 2 ] || fail "2: intol's starts had $pids pids"
[ "$(methods intol)" = "server/discover initialize " ] ||
	fail "2: intol's requests were: $(methods intol)"
[ "$(server_field intol restarts)" = 0 ] ||
	fail "2: intol counts $(server_field intol restarts) restarts"
[ "$(server_field intol last_exit)" = null ] ||
	fail "2: intol's last_exit is $(server_field intol last_exit)"
[ "$(server_field intol last_stderr)" = null ] ||
	fail "2: intol's last_stderr is $(server_field intol last_stderr)"
era_is intol 2025 probe-intolerant
grep -q "intol: process [0-9]* exited with status 1 on server/discover: a server of MCP 2025 that does not take it (probe-intolerant), started again with initialize first" "$MCPD_LOG" ||
	fail "2: mcpd's log: $(grep 'intol: process' "$MCPD_LOG")"
! grep -q "intol: restarting in" "$MCPD_LOG" ||
	fail "2: intol was restarted with a backoff: $(grep 'intol: restarting' "$MCPD_LOG")"
grep -q "intol: initializing -> ready: .*(era 2025: probe-intolerant)" "$MCPD_LOG" ||
	fail "2: mcpd's log at ready: $(grep 'intol: .*-> ready' "$MCPD_LOG")"
out=$(ctl status intol) || fail "2: mcpctl status intol: $out"
grep -qx "intol: MCP 2025 (probe-intolerant)" <<<"$out" ||
	fail "2: mcpctl status intol says: $out"
note "2: $(grep -x 'intol: MCP.*' <<<"$out")"
# It serves.
out=$(ctl call intol echo text=hi 2>&1) || fail "2: intol's echo: $out"

# --- 3: restarted, it goes by the verdict -----------------------------------------
before=$(wc -l <"$T/intol.req")
ctl restart intol >/dev/null || fail "3: mcpctl restart intol failed"
wait_ready intol 30
[ "$(startlog_count "$T/intol.starts")" = 3 ] ||
	fail "3: intol started $(startlog_count "$T/intol.starts") times, not 3"
after=$(tail -n +"$((before + 1))" "$T/intol.req" | cut -d' ' -f1 | head -n 1)
[ "$after" = initialize ] || fail "3: the restarted intol was first sent $after"
era_is intol 2025 cached

# --- 4: no answer to the probe -----------------------------------------------------
[ "$(startlog_count "$T/silent.starts")" = 1 ] ||
	fail "4: silent started $(startlog_count "$T/silent.starts") times"
case $(methods silent) in
"server/discover initialize "*) ;;
*) fail "4: silent's requests were: $(methods silent)" ;;
esac
era_is silent 2025 "server/discover unanswered"
grep -q "silent: no answer to server/discover within 2000 ms: a server of MCP 2025; initialize follows" "$MCPD_LOG" ||
	fail "4: mcpd's log: $(grep 'silent: ' "$MCPD_LOG")"

# --- 5: "protocol": "2025" --------------------------------------------------------
case $(methods pinned) in
"initialize "*) ;;
*) fail "5: pinned's requests were: $(methods pinned)" ;;
esac
! grep -q "^server/discover" "$T/pinned.req" || fail "5: pinned was sent server/discover"
era_is pinned 2025 configured

# --- 6: across a re-exec ------------------------------------------------------
ctl reexec >"$T/reexec.out" 2>&1 || fail "6: mcpctl reexec failed: $(cat "$T/reexec.out")"
wait_ready plain 30
before=$(wc -l <"$T/plain.req")
ctl restart plain >/dev/null || fail "6: mcpctl restart plain failed"
wait_ready plain 30
after=$(tail -n +"$((before + 1))" "$T/plain.req" | cut -d' ' -f1 | head -n 1)
[ "$after" = initialize ] ||
	fail "6: after the re-exec, the restarted plain was first sent $after"
era_is plain 2025 cached

stop_mcpd
exit 0
