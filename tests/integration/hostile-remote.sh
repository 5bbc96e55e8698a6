#!/bin/bash
# hostile-remote.sh -- a remote server cannot storm the journal through
# mcpd-remote, nor make it open connections or hold memory without bound
# (tests/remote/hostile-server.mjs plays the remote, on a port of
# 127.0.0.1 the kernel picks).
#
# 1. Its stream of server messages (GET) ends at once, every time, with
#    "retry: 1" and an event id.  The worker used to reopen it 244 times
#    a second, and mcpd logged each as "resumed an SSE stream" (2,417 of
#    each in 10 s).  Now a stream is reopened no sooner than a second
#    after it ended, and later each time it ends early (1, 2, 4, 8 s...):
#    in a 10 s window at most 6 GETs, and no more journal entries.
# 2. A worker reporting stream resumptions as fast as it can (2,000 at
#    once, then a hundred a second) on its status channel: mcpd's journal
#    takes a burst of 20 of that kind and 6 a minute after, then says how
#    many it left out; a session event, another kind, still gets through.
#    (A copy of mcpd runs with a stand-in mcpd-remote beside it.)
# 3. It sends 4,000 pings on its stream and never accepts the POSTs that
#    answer them.  The worker used to POST every answer at once (4,000
#    connections, +70 MB) until mcpd restarted it.  Now 16 answers are in
#    flight, 1,024 wait and the rest are dropped, logged: the remote sees
#    at most 32 connections, the worker grows by under 16 MiB (printed),
#    a tool call still works, and the worker is not restarted.
# 4. mcpd-remote on its own, against a remote that never answers
#    tools/call: 64 calls go, 1,024 wait, and the next 8 are refused at
#    once with -32015 (before: all 1,096 were POSTed, no refusal); a
#    cancelled call gives its slot to the next one that waits.
#
# HOSTILE_REMOTE_PARTS="1 3" runs only those parts.

. "$TESTS_SRCDIR/integration/lib.sh"

need_node
MCPD_REMOTE=${MCPD_REMOTE:-$(dirname "$MCPD")/mcpd-remote}
[ -x "$MCPD_REMOTE" ] || hard_error "MCPD_REMOTE=$MCPD_REMOTE is not an executable"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
HS_JS=$TESTS_SRCDIR/remote/hostile-server.mjs
[ -f "$HS_JS" ] || hard_error "$HS_JS is missing"
PARTS=${HOSTILE_REMOTE_PARTS:-1 2 3 4}

# --- the hostile remote ------------------------------------------------------------
HS_PID=
hs_stop() {
	[ -n "$HS_PID" ] || return 0
	kill -TERM "$HS_PID" 2>/dev/null
	wait "$HS_PID" 2>/dev/null
	HS_PID=
}
CLEANUP_HOOKS+=(hs_stop)

# hs_start NAME MODE [ARGS...]: hostile-server.mjs (after ending the last
# one); sets HS_URL and HS_BASE.
hs_start() {
	local name=$1 out=$T/$1.hs.out
	shift
	hs_stop
	MCPD_TEST_DIR=$T "$NODE" "$HS_JS" --mode "$@" \
		</dev/null >"$out" 2>"$T/$name.hs.err" &
	HS_PID=$!
	wait_for 60 grep -q '"port"' "$out" || {
		cat "$T/$name.hs.err" >&2
		hard_error "hostile-server.mjs $name did not start within 60 s"
	}
	HS_URL=$(jq -r .url "$out")
	HS_BASE=${HS_URL%/mcp}
}

# hs_stat FIELD: what the remote has seen (see hostile-server.mjs).
hs_stat() {
	curl -sf --max-time 10 "$HS_BASE/stats" | jq -er ".$1"
}

hs_stat_at_least() {
	local v
	v=$(hs_stat "$1") || return 1
	[ "$v" -ge "$2" ]
}

# remote_config FILE NAME: mcpd with the one remote server NAME at HS_URL.
remote_config() {
	write_config "$1" "$(jq -n --arg n "$2" --arg url "$HS_URL" \
		--arg t "$T" '{mcpServers: {($n): {url: $url,
			env: {MCPD_TEST_DIR: $t}}}}')"
}

part() {
	case " $PARTS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# --- 1. a stream that ends at once, with retry: 1 -----------------------------------
if part 1; then
	hs_start storm retry-storm
	remote_config "$T/storm.json" storm
	start_mcpd "$T/storm.json" --token-dir "$T/tokens"
	wait_ready storm
	# The stream opens once the session is initialized.
	wait_for 30 hs_stat_at_least gets 1 ||
		fail "the worker never opened the server's stream (GET)"
	g0=$(hs_stat gets) || fail "no stats from the remote"
	t0=$(now_ms)
	# The window of a check that something does not happen (a storm).
	sleep 10
	g1=$(hs_stat gets) || fail "no stats from the remote"
	el=$(($(now_ms) - t0))
	resumed=$(grep -c 'storm: resumed an SSE stream' "$MCPD_LOG")
	note "1: the stream was reopened $((g1 - g0)) times in $el ms (bar 6);" \
		"$resumed \"resumed\" journal entries for $g1 GETs in all"
	[ $((g1 - g0)) -le 6 ] ||
		fail "the worker reopened the server's stream $((g1 - g0)) times in $el ms (retry: 1 obeyed, no floor, no backoff)"
	[ "$resumed" -le "$g1" ] ||
		fail "mcpd logged $resumed resumptions for $g1 GETs"
	stop_mcpd
	hs_stop
fi

# --- 2. a worker that reports without end -------------------------------------------
if part 2; then
	mkdir -p "$T/bin" || hard_error "cannot create $T/bin"
	cp "$MCPD" "$T/bin/mcpd" || hard_error "cannot copy $MCPD"
	# mcpd runs the mcpd-remote beside its own executable.
	cat >"$T/bin/mcpd-remote" <<EOF
#!/bin/bash
# A stand-in worker: MCP from mcp-fake, and on the status channel 2,000
# stream resumptions at once, a session lost, then a hundred resumptions
# a second until $T/chatty-stop exists.
fd=\${MCPD_REMOTE_STATUS_FD:?}
resume='{"v":1,"event":"resume","stream":"get"}'
(
	for i in \$(seq 2000); do printf '%s\n' "\$resume"; done
	printf '%s\n' '{"v":1,"event":"session","state":"lost"}'
	until [ -e "$T/chatty-stop" ]; do
		for i in \$(seq 10); do printf '%s\n' "\$resume"; done
		# The pace of the storm, not a wait for anything.
		sleep 0.1
	done
) >&"\$fd" &
exec "$MCP_FAKE"
EOF
	chmod 0755 "$T/bin/mcpd-remote"
	HS_URL=http://127.0.0.1:9/mcp	# never reached
	remote_config "$T/chatty.json" chatty
	mcpd_real=$MCPD
	MCPD=$T/bin/mcpd
	t0=$(now_ms)
	start_mcpd "$T/chatty.json" --token-dir "$T/tokens"
	MCPD=$mcpd_real
	wait_ready chatty
	# A token comes back after 10 s; the next resumption says the rest.
	wait_for 60 grep -q 'chatty: [0-9]* stream resumption events of the remote not logged (rate limit)' "$MCPD_LOG"
	ok=$?
	: >"$T/chatty-stop"
	el=$(($(now_ms) - t0))
	resumed=$(grep -c 'chatty: resumed an SSE stream' "$MCPD_LOG")
	bar=$((20 + el / 10000 + 1))
	note "2: $resumed \"resumed\" journal entries in $el ms of a storm (bar $bar: a burst of 20, 6 a minute);" \
		"$(grep -o 'chatty: [0-9]* stream resumption events[^;]*' "$MCPD_LOG" | head -n 1)"
	[ "$resumed" -le "$bar" ] ||
		fail "mcpd logged $resumed of the worker's resumptions in $el ms (no rate limit)"
	[ "$ok" = 0 ] ||
		fail "mcpd never said how many resumptions it did not log"
	grep -q 'chatty: remote session lost' "$MCPD_LOG" ||
		fail "the session event was not logged behind the storm of resumptions"
	stop_mcpd
fi

# --- 3. pings whose answers the remote never accepts --------------------------------
if part 3; then
	PINGS=4000
	hs_start flood ping-flood --pings "$PINGS"
	remote_config "$T/flood.json" flood
	start_mcpd "$T/flood.json" --token-dir "$T/tokens"
	wait_ready flood
	pid=$(server_pid flood) || fail "the flood server has no pid"
	wait_for 30 hs_stat_at_least gets 1 ||
		fail "the worker never opened the server's stream (GET)"
	rss0=$(vm_kib "$pid" VmRSS) || fail "cannot read the worker's memory"
	curl -sf --max-time 10 -X POST "$HS_BASE/go" >/dev/null ||
		fail "cannot start the remote's flood"
	wait_for 60 hs_stat_at_least pings_sent "$PINGS" ||
		fail "the remote sent $(hs_stat pings_sent) of its $PINGS pings within 60 s"
	# The answers all reached the remote, or the worker said it dropped some.
	flood_settled() {
		hs_stat_at_least answers "$PINGS" ||
			grep -q 'flood: mcpd-remote: the remote server is not keeping up: dropped a response' "$MCPD_LOG"
	}
	wait_for 60 flood_settled ||
		fail "neither all answers reached the remote ($(hs_stat answers)) nor did the worker drop any"
	hwm=$(vm_kib "$pid" VmHWM) || fail "the worker $pid is gone (restarted: $(server_field flood restarts))"
	socks=$(find "/proc/$pid/fd" -lname 'socket:*' 2>/dev/null | wc -l)
	peak=$(hs_stat peak_open)
	answers=$(hs_stat answers)
	growth=$(((hwm - rss0) / 1024))
	note "3: $PINGS pings: $answers answers POSTed, at most $peak connections at once (bar 32)," \
		"$socks sockets in the worker now; worker VmRSS $rss0 KiB before, VmHWM $hwm KiB: +$((hwm - rss0)) KiB (bar 16 MiB)"
	[ "$peak" -le 32 ] ||
		fail "the worker opened $peak connections at once to answer the remote's pings"
	if sanitized "$MCPD_REMOTE"; then
		note "mcpd-remote is built with AddressSanitizer: its memory is not asserted"
	else
		[ "$growth" -lt 16 ] || fail "the worker grew by $growth MiB"
	fi
	t=$(now_ms)
	out=$(ctl call flood wait) || fail "a tool call failed during the flood: $out"
	note "3: a tool call answered in $(($(now_ms) - t)) ms during the flood: $out"
	[ "$(server_pid flood)" = "$pid" ] ||
		fail "the worker was restarted (pid $pid -> $(server_pid flood)): $(server_field flood last_exit)"
	stop_mcpd
	hs_stop
fi

# --- 4. calls the remote never answers, mcpd-remote on its own ----------------------
if part 4; then
	hs_start hang hang
	line=
	spawn MR "$MCPD_REMOTE" --request-timeout 600000 "$HS_URL" 2>"$T/mr.err"
	spawn_send MR '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
	spawn_read MR 30 line || fail "mcpd-remote did not answer initialize: $(cat "$T/mr.err")"
	spawn_send MR '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	calls=()
	for i in $(seq 1 1096); do
		calls+=("{\"jsonrpc\":\"2.0\",\"id\":$i,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\"}}")
	done
	spawn_send MR "${calls[@]}"
	refused=
	for i in $(seq 1 8); do
		spawn_read MR 30 line ||
			fail "$((i - 1)) of 8 calls refused (the remote saw $(hs_stat calls) calls, at most $(hs_stat peak_open) connections)"
		jq -e '.error.code == -32015' <<<"$line" >/dev/null ||
			fail "not a refusal (-32015): $line"
		refused="$refused $(jq -r .id <<<"$line")"
	done
	note "4: refused at once:$refused; $(jq -r .error.message <<<"$line")"
	[ "$refused" = " 1089 1090 1091 1092 1093 1094 1095 1096" ] ||
		fail "refused calls$refused, not the last 8 (1089-1096)"
	wait_for 30 hs_stat_at_least held 64 ||
		fail "$(hs_stat held) calls held by the remote, not 64"
	peak=$(hs_stat peak_open)
	note "4: the remote holds $(hs_stat held) calls on at most $peak connections (bar 72)"
	[ "$peak" -le 72 ] || fail "$peak connections at once for 64 calls in flight"
	for i in $(seq 1 10); do
		spawn_send MR "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":$i}}"
	done
	wait_for 30 hs_stat_at_least calls 74 ||
		fail "10 calls cancelled, but the remote saw $(hs_stat calls) calls, not 74"
	note "4: 10 cancelled calls let 10 waiting ones go: the remote saw $(hs_stat calls) calls"
	kill -TERM "$MR_PID" 2>/dev/null
	spawn_wait MR 30 || fail "mcpd-remote did not exit on SIGTERM"
	hs_stop
fi

echo "PASS: $TEST_NAME"
