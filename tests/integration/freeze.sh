#!/bin/bash
# freeze.sh -- "idle": "freeze": a server idle for idle_stop_s is frozen
# in place instead of stopped, and the next request thaws it.
#
#   1. It freezes after idle_stop_s (status "frozen"), keeps its pid and
#      its state (mcp-fake's request count goes on from where it was),
#      and every process of it is stopped: the grandchild it forked too.
#   2. Frozen, it gets no health pings (health_interval_ms is short: a
#      ping would thaw it).  The next call thaws it and is answered by
#      the same process; the journal says how soon it answered.
#   3. A server with a resource subscription is never frozen.
#   4. mcpctl status shows it frozen; a stop of a frozen server is
#      prompt (thawed first: a stopped process acts on neither the end of
#      its input nor SIGTERM, and stop_timeout_ms is long here).
#   5. mcpctl reexec with a server frozen: the next mcpd has it ready,
#      the same process, and freezes it again.
#   6. A remote server with "idle": "freeze" is a warning (it is stopped).
# Two runs: below a reaper (SIGSTOP to each process), and in a cgroup v2
# of its own (cgroup.freeze), where one can be made (as root).
#
# FREEZE_MODES="reaper cgroup" (the default) picks the runs.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# shellcheck source=cgroup-lib.sh
. "$TESTS_SRCDIR/integration/cgroup-lib.sh"

# stopped PID: the process is stopped (SIGSTOP), or frozen in a cgroup.
stopped() {
	case "$MODE" in
	cgroup) [ "$(awk '$1 == "frozen" { print $2 }' \
		"$CG/server-$2/cgroup.events" 2>/dev/null)" = 1 ] ;;
	*) [ "$(proc_state "$1")" = T ] ;;
	esac
}

running() {
	local st
	st=$(proc_state "$1") || return 1
	[ "$st" != T ] && [ "$st" != t ] && [ "$st" != Z ] && [ "$st" != X ]
}

# requests NAME: mcp-fake's count of the requests it has had.
requests() {
	ctl read "$1" fake://status 2>/dev/null | jq -er .requests
}

stat_field() {
	ctl --json status 2>/dev/null | jq -er --arg n "$1" --arg f "$2" '
		first(.servers[] | select(.name == $n)) | .stats[$f]'
}

# LeakSanitizer's check at a sanitized mcp-fake's exit stops the world
# with ptrace, which a stop signal of the freeze's walk can leave spinning
# (the server exits late): the servers' leaks are not what this tests.
ENV='"MCPD_TEST_DIR": "'"$T"'"'
! sanitized "$MCP_FAKE" || ENV=$ENV', "ASAN_OPTIONS": "detect_leaks=0"'

run_mode() {
	MODE=$1
	local pid gc st gst n1 n2 t0 ms out thawed frozen_at

	write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "health_interval_ms": 100, "health_timeout_ms": 10000,
            "stop_timeout_ms": 30000 },
  "mcpServers": {
    "cold": { "command": "$MCP_FAKE", "idle": "freeze", "idle_stop_s": 1,
              "args": ["--pidfile=$T/cold.pid", "--grandchild=$T/cold.gc.pid",
                       "--startlog=$T/cold.starts"], "env": { $ENV } },
    "held": { "command": "$MCP_FAKE", "idle": "freeze", "idle_stop_s": 1,
              "env": { $ENV } }
  }
}
JSON
	rm -f "$T/cold.pid" "$T/cold.gc.pid" "$T/cold.starts"
	if [ "$MODE" = cgroup ]; then
		start_mcpd "$T/mcpd.json" --cgroup "$CG"
	else
		start_mcpd "$T/mcpd.json"
	fi
	wait_for 30 server_is cold ready frozen || fail "$MODE: cold not ready"
	[ "$(server_field cold containment)" = "$MODE" ] ||
		fail "$MODE: cold runs with containment $(server_field cold containment)"

	# --- 1. frozen after idle_stop_s, same process, state kept -------------
	for _ in 1 2 3 4 5; do
		out=$(ctl call cold echo text=warm 2>&1) || fail "$MODE: call: $out"
	done
	n1=$(requests cold) || fail "$MODE: no request count from cold"
	pid=$(read_pidfile "$T/cold.pid") || fail "$MODE: no pid file"
	st=$(proc_starttime "$pid")
	wait_for 30 read_pidfile "$T/cold.gc.pid" >/dev/null ||
		fail "$MODE: no grandchild pid file"
	gc=$(read_pidfile "$T/cold.gc.pid")
	gst=$(proc_starttime "$gc")
	wait_for 30 server_is cold frozen ||
		fail "$MODE: cold is $(server_field cold state) 30 s after its calls"
	frozen_at=$(now_ms)
	[ "$(server_field cold pid)" = "$pid" ] ||
		fail "$MODE: frozen cold has pid $(server_field cold pid), not $pid"
	wait_for 30 stopped "$pid" cold ||
		fail "$MODE: cold's process is not frozen: $(describe_pid "$pid")"
	wait_for 30 stopped "$gc" cold ||
		fail "$MODE: cold's grandchild is not frozen: $(describe_pid "$gc")"
	ctl status >"$T/table.txt" || fail "mcpctl status failed"
	grep -q '^cold  *frozen .*its next request thaws it' "$T/table.txt" ||
		fail "$MODE: the table does not show cold frozen: $(grep cold "$T/table.txt")"
	ctl --json status | jq -e '.servers[] | select(.name == "cold") |
		.frozen.since_ms >= 0 and .idle == "freeze"' >/dev/null ||
		fail "$MODE: no frozen object in cold's status"
	wait_for 30 eval 'grep -q "cold: frozen in [0-9]* ms" "$MCPD_LOG"' ||
		fail "$MODE: no journal line for the freeze"
	note "$MODE: $(grep -o 'cold: frozen in .*' "$MCPD_LOG" | tail -n 1)"

	# --- 2. no health pings while frozen; the next call thaws it -----------
	# A window, not a wait: a ping (every 100 ms) would thaw it.
	sleep 1
	server_is cold frozen || fail "$MODE: cold is $(server_field cold state) a second into its freeze (a health ping?)"
	[ "$(stat_field cold thaws)" = 0 ] || fail "$MODE: cold was thawed while nothing asked"
	t0=$(now_ms)
	out=$(ctl call cold echo text=thawed 2>&1) || fail "$MODE: call after the freeze: $out"
	ms=$(($(now_ms) - t0))
	[ "$out" = thawed ] || fail "$MODE: call after the freeze answered '$out'"
	[ "$(read_pidfile "$T/cold.pid")" = "$pid" ] &&
		[ "$(proc_starttime "$pid")" = "$st" ] ||
		fail "$MODE: another process answered after the thaw"
	[ "$(startlog_count "$T/cold.starts")" = 1 ] ||
		fail "$MODE: cold started $(startlog_count "$T/cold.starts") times"
	n2=$(requests cold) || fail "$MODE: no request count after the thaw"
	[ "$n2" -gt "$n1" ] || fail "$MODE: request count $n2 after the thaw, $n1 before: state lost"
	wait_for 30 running "$gc" || fail "$MODE: grandchild still stopped after the thaw: $(describe_pid "$gc")"
	[ "$(proc_starttime "$gc")" = "$gst" ] || fail "$MODE: the grandchild is another process"
	wait_for 30 eval 'grep -q "cold: thawed after .* answered [0-9]* ms after" "$MCPD_LOG"' ||
		fail "$MODE: no journal line for the thaw"
	thawed=$(stat_field cold last_thaw_answer_ms) || fail "$MODE: no last_thaw_answer_ms"
	note "$MODE: frozen $((t0 - frozen_at)) ms+, mcpctl call took $ms ms in all; the server answered $thawed ms after the thaw; requests $n1 -> $n2"
	# Far below a new start's initialize: here it is the thaw alone.
	[ "$thawed" -lt 5000 ] || fail "$MODE: the answer came $thawed ms after the thaw"

	# --- 3. a subscription keeps a server from freezing ---------------------
	spawn BRIDGE "$MCPCTL" -s "$SOCK" connect held 2>"$T/bridge.err"
	spawn_send BRIDGE '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	bridge_until 1
	spawn_send BRIDGE '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	spawn_send BRIDGE '{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"fake://status"}}'
	bridge_until 2
	# A window: without the subscription it would freeze 1 s after it.
	sleep 2.5
	server_is held ready || fail "$MODE: held is $(server_field held state) with a subscription"
	spawn_send BRIDGE '{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"fake://status"}}'
	bridge_until 3
	wait_for 30 server_is held frozen || fail "$MODE: held is not frozen after the unsubscribe"
	spawn_close BRIDGE

	# --- 5. a re-exec with cold frozen -----------------------------------
	wait_for 30 server_is cold frozen || fail "$MODE: cold did not freeze again"
	ctl reexec >"$T/reexec.out" 2>&1 || fail "$MODE: mcpctl reexec: $(cat "$T/reexec.out")"
	wait_for 30 eval '[ "$(status_json | jq .daemon.reexecs)" = 1 ]' ||
		fail "$MODE: mcpd did not re-execute"
	[ "$(server_field cold pid)" = "$pid" ] ||
		fail "$MODE: cold's pid after the re-exec: $(server_field cold pid), not $pid"
	wait_for 30 server_is cold frozen || fail "$MODE: cold did not freeze after the re-exec"
	out=$(ctl call cold echo text=after-reexec 2>&1) || fail "$MODE: call after the re-exec: $out"
	[ "$out" = after-reexec ] || fail "$MODE: call after the re-exec answered '$out'"
	[ "$(read_pidfile "$T/cold.pid")" = "$pid" ] || fail "$MODE: cold restarted across the re-exec"

	# --- 4. stop of a frozen server is prompt ----------------------------
	wait_for 30 server_is cold frozen || fail "$MODE: cold did not freeze before the stop"
	wait_for 30 stopped "$pid" cold || fail "$MODE: cold not frozen before the stop"
	t0=$(now_ms)
	ctl stop cold >"$T/stop.out" 2>&1 || fail "$MODE: mcpctl stop: $(cat "$T/stop.out")"
	wait_for 30 proc_dead "$pid" "$st" || fail "$MODE: cold outlived its stop"
	wait_for 30 proc_dead "$gc" "$gst" || fail "$MODE: cold's grandchild outlived its stop"
	ms=$(($(now_ms) - t0))
	note "$MODE: a frozen server stopped in $ms ms (stop_timeout_ms 30000)"
	# Without the thaw it would take stop_timeout_ms, then SIGKILL.
	[ "$ms" -lt 15000 ] || fail "$MODE: the stop of a frozen server took $ms ms"
	grep -q "sending SIGKILL" "$MCPD_LOG" && fail "$MODE: the stop needed SIGKILL"

	wait_for 30 server_is held frozen || fail "$MODE: held not frozen at exit"
	stop_mcpd TERM 30
	[ "$MCPD_STATUS" = 0 ] || fail "$MODE: mcpd exited $MCPD_STATUS with a frozen server"
}

# bridge_until ID: read the bridge's lines until the reply to ID.
bridge_until() {
	local line
	while :; do
		spawn_read BRIDGE 30 line ||
			fail "no reply to $1 through mcpctl connect: $(cat "$T/bridge.err")"
		[ "$(jq -c .id <<<"$line" 2>/dev/null)" = "$1" ] || continue
		jq -e 'has("result")' <<<"$line" >/dev/null || fail "request $1: $line"
		return 0
	done
}

# --- 6. a remote server is not frozen ----------------------------------------
write_config "$T/remote.json" <<'JSON'
{ "mcpServers": { "far": { "url": "https://example.invalid/mcp",
                            "idle": "freeze", "idle_stop_s": 60 } } }
JSON
timeout -k 5 30 "$MCPD" -n -c "$T/remote.json" >"$T/n.out" 2>&1 </dev/null ||
	fail "mcpd -n on a remote server with idle freeze: $(cat "$T/n.out")"
grep -q 'idle: a remote server (url) is not frozen' "$T/n.out" ||
	fail "no warning for idle freeze on a remote server: $(cat "$T/n.out")"

for mode in ${FREEZE_MODES:-reaper cgroup}; do
	if [ "$mode" = cgroup ]; then
		cgroup_scratch || { note "no cgroup v2 to make: cgroup run skipped"; continue; }
	fi
	run_mode "$mode"
	: >"$MCPD_LOG"
done
exit 0
