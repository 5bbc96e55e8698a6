#!/bin/bash
# reconnect.sh -- `mcpctl connect` keeps its client's session across a
# restart of mcpd: the official SDK client (reconnect.mjs, one transport
# for the whole run) through the bridge, while mcpd is stopped and started
# again under it.
#
#   A  server-everything under mcpd: a call, a resource subscription and
#      logging/setLevel; a long call in flight; mcpd stopped with SIGTERM
#      and started again on the same socket.  The long call fails exactly
#      once, the next calls succeed without a new transport, and the
#      subscription (restored by the bridge, since the new server knows
#      nothing of it) delivers notifications/resources/updated again.
#      The same with SIGKILL.
#   B  socket activation (systemd-socket-activate holds the socket and
#      runs mcpd again when it exits, as Restart= would): the time from
#      the kill to the first successful call is measured.
#   C  --no-reconnect: the bridge ends as it always did when mcpd closes.
#   D  --reconnect-timeout 1 with mcpd never back: the request in flight
#      and the one sent while waiting get errors, and the bridge exits
#      non-zero with a clear message within about a second.
#   E  a server with another serverInfo after the restart: the client is
#      sent tools/list_changed (it asked for tools, not for prompts).
#   F  a server with another protocolVersion (2025-03-26) after the
#      restart: mcpd answers the replayed initialize in the version the
#      client asked for, as before, so the session goes on: the request
#      that waited is answered.
#   G  `mcpctl reexec` under sessions: everything, a counting mcp-fake and
#      a remote (mcpd-remote, Streamable HTTP) keep their processes; the
#      call in flight fails once, the next succeeds; everything's updates
#      go on without being switched on again; fake's request count goes
#      on and it saw one initialize; the remote's session stays
#      established.
#
# node_modules come from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip, 99 hard error.  By hand, from the
# top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/reconnect.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: reconnect: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
cp "$TESTS_SRCDIR/interop/reconnect.mjs" "$T/" ||
	hard_error "cannot copy reconnect.mjs"
export MCPCTL MCPD_TEST_DIR=$T

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--arg fake "$MCP_FAKE" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			everything: { command: ($node | lit),
				args: ([$ev, "stdio"] | map(lit)),
				cwd: ($t | lit),
				env: { MCPD_TEST_DIR: ($t | lit) } },
			# Unpinned: G counts what fake sees across a re-exec,
			# and pins read the lists again after one.
			fake: { command: ($fake | lit), pin: "off" }
		}
	}') || hard_error "cannot build the configuration"
write_config "$T/mcpd.json" "$config"

# --- the driver ------------------------------------------------------------------------
# drv_start NAME [BRIDGE ARGS...]: reconnect.mjs on $SOCK (spawn, lib.sh).
drv_start() {
	local server=$1 a args=()
	shift
	for a; do args+=(--bridge-arg "$a"); done
	spawn DRV "$NODE" "$T/reconnect.mjs" --socket "$SOCK" \
		--server "$server" "${args[@]}" 2>>"$T/bridge.err"
	drv_read 60 >/dev/null || fail "the SDK client did not connect: $(tail -5 "$T/bridge.err")"
}

# drv_read TIMEOUT_S: the driver's next answer (stdout), or fail.
drv_read() {
	local line
	spawn_read DRV "$1" line ||
		fail "no answer from the SDK client within $1 s; bridge said: $(tail -5 "$T/bridge.err")"
	printf '%s\n' "$line"
	jq -e .ok <<<"$line" >/dev/null
}

# drv CMD...: send one command and print its answer; 1 if it was not ok.
drv() {
	spawn_send DRV "$*"
	drv_read "${DRV_TIMEOUT_S:-60}"
}

# drv_ok CMD...: the command must succeed.
drv_ok() {
	local out
	out=$(drv "$@") || fail "$1 failed: $out"
	printf '%s\n' "$out"
}

drv_stop() {
	spawn_close DRV
	spawn_wait DRV 30 || fail "the SDK client did not exit within 30 s of the end of its stdin"
}

# A call to the everything server's echo; the text must come back.
echo_ok() {
	local out
	out=$(drv_ok call echo "{\"message\":\"$1\"}") || exit 1
	jq -e --arg m "$1" '.text | contains($m)' <<<"$out" >/dev/null ||
		fail "echo $1 came back as $out"
}

# Turn the everything server's simulated updates on (they are a switch in
# the server, which a new server starts without), then wait for one (sent
# at once, then every 5 s: 20 s is a wait, not a bound).
updates_arrive() {
	local out
	for _ in 1 2; do
		out=$(drv_ok call toggle-subscriber-updates) || exit 1
		jq -e '.text | test("^Started")' <<<"$out" >/dev/null && break
	done
	jq -e '.text | test("^Started")' <<<"$out" >/dev/null ||
		fail "$1: toggle-subscriber-updates did not start updates: $out"
	out=$(drv wait-update "$URI" 20000) ||
		fail "$1: no notifications/resources/updated for $URI: $out"
}

wait_all_ready() {
	wait_ready everything "$READY_TIMEOUT_S"
	wait_ready fake
}

# --- A: SIGTERM and SIGKILL under a session --------------------------------------
start_mcpd "$T/mcpd.json"
wait_all_ready
drv_start everything
URI=demo://resource/dynamic/text/1
echo_ok one
drv_ok tools >/dev/null
drv_ok subscribe "$URI" >/dev/null
drv_ok level debug >/dev/null
updates_arrive "A, first server"
note "A: call, subscription, level and updates before the restart"

for sig in TERM KILL; do
	drv_ok start long trigger-long-running-operation \
		'{"duration":30,"steps":30}' >/dev/null
	wait_inflight everything 1 30
	stop_mcpd "$sig"
	start_mcpd "$T/mcpd.json"
	wait_all_ready
	t=$(now_ms)
	echo_ok "after-$sig"
	note "A ($sig): first call after the restart took $(($(now_ms) - t)) ms"
	out=$(drv await long) && fail "A ($sig): the call in flight succeeded: $out"
	jq -e '.settled == 1 and .code != null' <<<"$out" >/dev/null ||
		fail "A ($sig): the call in flight was not failed exactly once: $out"
	note "A ($sig): the call in flight failed once: $(jq -c '{code, message}' <<<"$out")"
	updates_arrive "A ($sig)"
	out=$(drv_ok closed) || exit 1
	jq -e '.closed == false' <<<"$out" >/dev/null ||
		fail "A ($sig): the SDK client's transport closed"
	grep -q "session restored" "$T/bridge.err" ||
		fail "A ($sig): the bridge did not say it restored the session: $(cat "$T/bridge.err")"
done
drv_ok unsubscribe "$URI" >/dev/null
drv_stop
note "A: the session went on across SIGTERM and SIGKILL of mcpd"
stop_mcpd TERM

# --- G: mcpctl reexec under a session -------------------------------------------
# The servers keep their processes: the same server answers on, its state
# intact.  A remote server (server-everything over Streamable HTTP, run by
# mcpd-remote) keeps its worker and its session.
http_start streamableHttp
jq --arg url "$(remote_url streamableHttp "$HTTP_PORT")" \
	'.mcpServers.remote = {url: $url}' "$T/mcpd.json" >"$T/g.json" ||
	hard_error "cannot build the configuration with a remote"
write_config "$T/g.json" "$(cat "$T/g.json")"
# Its own token directory (url entries read their sign-in there).
start_mcpd "$T/g.json" --token-dir "$T/tokens"
wait_all_ready
remote_wait_ready remote "$READY_TIMEOUT_S"
pid_everything=$(server_pid everything) || fail "G: everything has no pid"
pid_fake=$(server_pid fake) || fail "G: fake has no pid"
pid_remote=$(server_pid remote) || fail "G: remote has no pid"
[ "$(ctl --json status remote | jq -r '.servers[0].remote.session')" = established ] ||
	fail "G: the remote session is not established: $(ctl --json status remote | jq -c '.servers[0].remote')"
: >"$T/bridge.err"
drv_start everything
echo_ok g-one
drv_ok subscribe "$URI" >/dev/null
updates_arrive "G, before the re-exec"
drv_ok start long trigger-long-running-operation '{"duration":30,"steps":30}' >/dev/null
wait_inflight everything 1 30
t=$(now_ms)
ctl reexec >"$T/g-reexec.out" 2>&1 || fail "G: mcpctl reexec failed: $(cat "$T/g-reexec.out")"
echo_ok g-after
note "G: $(cat "$T/g-reexec.out"); first call through the bridge $(($(now_ms) - t)) ms after the command"
out=$(drv await long) && fail "G: the call in flight across the re-exec succeeded: $out"
jq -e '.settled == 1 and .code != null' <<<"$out" >/dev/null ||
	fail "G: the call in flight was not failed exactly once: $out"
[ "$(server_pid everything)" = "$pid_everything" ] || fail "G: everything was restarted by the re-exec"
# The updates were switched on in this very process: they go on by themselves.
out=$(drv wait-update "$URI" 20000) ||
	fail "G: no notifications/resources/updated after the re-exec without switching them on again: $out"
drv_ok unsubscribe "$URI" >/dev/null
drv_stop
# A server that counts its requests, through the bridge.
: >"$T/bridge.err"
drv_start fake
out=$(drv_ok read fake://status) || exit 1
before=$(jq -r .text <<<"$out")
ctl reexec >"$T/g-reexec2.out" 2>&1 || fail "G: the second mcpctl reexec failed: $(cat "$T/g-reexec2.out")"
out=$(drv_ok read fake://status) || exit 1
after=$(jq -r .text <<<"$out")
jq -e --argjson b "$before" --argjson pid "$pid_fake" '.pid == $pid and
	$b.pid == $pid and .initializes == 1 and .requests == $b.requests + 1' \
	<<<"$after" >/dev/null ||
	fail "G: fake's counters across the re-exec: before $before, after $after"
grep -q "session restored" "$T/bridge.err" ||
	fail "G: the bridge did not restore its session: $(cat "$T/bridge.err")"
drv_stop
note "G: fake (pid $pid_fake) counted $(jq .requests <<<"$before") then $(jq .requests <<<"$after") requests, initialized once"
# The remote: the same worker, its session still established.
[ "$(server_pid remote)" = "$pid_remote" ] || fail "G: the remote's worker was restarted"
[ "$(ctl --json status remote | jq -r '.servers[0].remote.session')" = established ] ||
	fail "G: the remote session after the re-exec: $(ctl --json status remote | jq -c '.servers[0].remote')"
out=$(ctl call remote echo message=g-remote 2>&1) || fail "G: a call to the remote after the re-exec: $out"
grep -q g-remote <<<"$out" || fail "G: the remote answered: $out"
[ "$(ctl --json status | jq .daemon.reexecs)" = 2 ] || fail "G: mcpd did not count two re-execs"
stop_mcpd TERM
http_kill
note "G: two re-execs under sessions: servers, the remote's worker and its session kept"

# --- B: socket activation --------------------------------------------------------
if command -v systemd-socket-activate >/dev/null 2>&1; then
	SOCK=$T/b.sock
	# Holds the socket (fd 3) and runs mcpd on it again whenever it exits.
	cat >"$T/again.sh" <<'EOF'
while [ ! -e "$T/b.stop" ]; do
	( export LISTEN_PID=$BASHPID
	  exec setpriv --pdeathsig TERM "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr ) &
	echo $! >"$T/b.pid"
	wait $!
done
EOF
	"${_MCPD_GUARD[@]}" systemd-socket-activate -l "$SOCK" \
		-E "T=$T" -E "SOCK=$SOCK" -E "MCPD=$MCPD" \
		-E "MCPD_TEST_DIR=$T" bash "$T/again.sh" \
		</dev/null >>"$MCPD_LOG" 2>&1 &
	HOLDER=$!
	stop_holder() {
		local pid
		touch "$T/b.stop"
		# Only the holder's child: a pid read from a file may have
		# ended and been taken by another process.
		pid=$(read_pidfile "$T/b.pid") &&
			[ "$(proc_ppid "$pid" 2>/dev/null)" = "$HOLDER" ] &&
			kill -TERM "$pid" 2>/dev/null
		kill -TERM "$HOLDER" 2>/dev/null
		wait "$HOLDER" 2>/dev/null
	}
	CLEANUP_HOOKS=(stop_holder "${CLEANUP_HOOKS[@]}")
	wait_for 30 test -S "$SOCK" || fail "B: systemd-socket-activate did not create $SOCK"
	: >"$T/bridge.err"
	drv_start fake
	drv_ok call echo '{"text":"b1"}' >/dev/null
	wait_ready fake
	for sig in TERM KILL; do
		pid=$(read_pidfile "$T/b.pid") || fail "B: no pid for mcpd"
		t=$(now_ms)
		kill -s "$sig" "$pid"
		out=$(drv_ok until-ok echo '{"text":"b2"}') || exit 1
		gap=$(($(now_ms) - t))
		note "B ($sig): socket activation: ${gap} ms from the kill to the first successful call ($(jq -r .tries <<<"$out") tries)"
		# A new mcpd and its server start in well under a second; 20 s
		# is for a loaded machine, and well short of the 30 s after which
		# the bridge would give up.
		[ "$gap" -lt 20000 ] || fail "B ($sig): the reconnect took $gap ms"
		# shellcheck disable=SC2016  # expanded by eval
		wait_for 30 eval '[ "$(read_pidfile "$T/b.pid")" != '"$pid"' ]' ||
			fail "B ($sig): mcpd was not run again"
	done
	drv_stop
	stop_holder
	CLEANUP_HOOKS=("${CLEANUP_HOOKS[@]:1}")
	SOCK=$T/mcpd.sock
else
	note "B: skipped: systemd-socket-activate is not installed"
fi

# --- C and D: the raw bridge -------------------------------------------------------
INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'

# bridge_start OUT [ARGS...]: mcpctl connect fake on a fifo; BR is its pid,
# fd 5 its stdin.
bridge_start() {
	local out=$1
	shift
	rm -f "$T/in.fifo"
	mkfifo "$T/in.fifo" || hard_error "mkfifo"
	"$MCPCTL" -s "$SOCK" connect fake "$@" <"$T/in.fifo" >"$out" \
		2>"$out.err" &
	BR=$!
	exec 5>"$T/in.fifo"
}

start_mcpd "$T/mcpd.json"
wait_ready fake
bridge_start "$T/c.out" --no-reconnect
printf '%s\n' "$INIT" >&5
wait_for 30 grep -q '"id":0' "$T/c.out" || fail "C: no initialize reply"
stop_mcpd TERM
wait_for 30 eval '! pid_running '"$BR" || fail "C: --no-reconnect: the bridge did not end when mcpd stopped"
wait "$BR"
rc=$?
exec 5>&-
[ "$rc" = 1 ] || fail "C: --no-reconnect: exit status $rc, expected 1"
grep -q "mcpd closed the connection$" "$T/c.out.err" ||
	fail "C: --no-reconnect: not the old message: $(cat "$T/c.out.err")"
note "C: --no-reconnect ended as before: $(cat "$T/c.out.err")"

start_mcpd "$T/mcpd.json"
wait_ready fake
bridge_start "$T/d.out" --reconnect-timeout 1
printf '%s\n' "$INIT" >&5
wait_for 30 grep -q '"id":0' "$T/d.out" || fail "D: no initialize reply"
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20000}}}' >&5
wait_inflight fake 1 30
# Timed from the kill (the bridge's 1 s runs from when it saw mcpd go).
t=$(now_ms)
stop_mcpd KILL
printf '%s\n' '{"jsonrpc":"2.0","id":"two","method":"ping"}' >&5
wait_for 60 eval '! pid_running '"$BR" || fail "D: the bridge did not give up within 60 s"
took=$(($(now_ms) - t))
wait "$BR"
rc=$?
exec 5>&-
[ "$rc" != 0 ] || fail "D: the bridge exited 0 after giving up"
# About 1 s, not the default 30 s: 15 s tells them apart on a loaded
# machine.
[ "$took" -lt 15000 ] || fail "D: giving up took $took ms (timeout 1 s)"
jq -e -s '[.[] | select(.id == 1)] | length == 1 and .[0].error.code == -32000' "$T/d.out" >/dev/null ||
	fail "D: the request in flight did not get one -32000 error: $(cat "$T/d.out")"
jq -e -s '[.[] | select(.id == "two")] | length == 1 and .[0].error.code == -32011' "$T/d.out" >/dev/null ||
	fail "D: the waiting request did not get one -32011 error: $(cat "$T/d.out")"
grep -q "did not come back within 1 s" "$T/d.out.err" ||
	fail "D: no clear message: $(cat "$T/d.out.err")"
note "D: gave up after $took ms, exit $rc: $(tail -1 "$T/d.out.err")"

# --- E and F: a different server after the restart -------------------------------
# fake_config FILE ARGS-JSON: mcp-fake alone, with those arguments.
fake_config() {
	write_config "$1" "$(jq -n --arg fake "$MCP_FAKE" --argjson args "$2" \
		'{ mcpServers: { fake: { command: $fake, args: $args } } }')"
}
fake_config "$T/e1.json" '[]'
fake_config "$T/e2.json" '["--server-name=renamed"]'
fake_config "$T/f2.json" '["--protocol-version=2025-03-26"]'

# E: another serverInfo: the client hears that the tools list changed.
start_mcpd "$T/e1.json"
wait_ready fake
bridge_start "$T/e.out"
printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
	'{"jsonrpc":"2.0","id":1,"method":"tools/list"}' >&5
wait_for 30 grep -q '"id":1' "$T/e.out" || fail "E: no tools/list reply"
stop_mcpd TERM
start_mcpd "$T/e2.json" 5>&-	# or mcpd would hold the bridge's stdin open
wait_ready fake
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"ping"}' >&5
wait_for 30 grep -q '"id":2' "$T/e.out" || fail "E: no ping reply after the restart: $(cat "$T/e.out.err")"
jq -e -s '[.[] | select(.method == "notifications/tools/list_changed")] | length == 1' "$T/e.out" >/dev/null ||
	fail "E: no (or more than one) tools/list_changed: $(cat "$T/e.out")"
jq -e -s '[.[] | select(.method == "notifications/prompts/list_changed")] | length == 0' "$T/e.out" >/dev/null ||
	fail "E: prompts/list_changed for a list the client never asked for"
jq -e -s '[.[] | select(.id == 2)][0].result == {}' "$T/e.out" >/dev/null ||
	fail "E: the ping after the restart failed: $(cat "$T/e.out")"
exec 5>&-
wait_for 30 eval '! pid_running '"$BR" || fail "E: the bridge did not end with its stdin"
wait "$BR" || fail "E: the bridge exited $? when its stdin ended"
stop_mcpd TERM
note "E: a renamed server after the restart: tools/list_changed sent"

# F: a server of another protocol version: the client keeps its own.
start_mcpd "$T/e1.json"
wait_ready fake
bridge_start "$T/f.out"
printf '%s\n' "$INIT" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&5
wait_for 30 grep -q '"id":0' "$T/f.out" || fail "F: no initialize reply"
stop_mcpd TERM
# Sent while mcpd is away: it waits, and is answered on the new session.
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"ping"}' >&5
start_mcpd "$T/f2.json" 5>&-
wait_ready fake
[ "$(server_field fake protocol_version)" = 2025-03-26 ] ||
	fail "F: the new server speaks $(server_field fake protocol_version)"
wait_for 30 grep -q '"id":2' "$T/f.out" ||
	fail "F: no ping reply after the restart: $(cat "$T/f.out.err")"
jq -e -s '[.[] | select(.id == 2)][0].result == {}' "$T/f.out" >/dev/null ||
	fail "F: the ping that waited failed: $(cat "$T/f.out")"
pid_running "$BR" || fail "F: the bridge ended: $(cat "$T/f.out.err")"
exec 5>&-
wait_for 30 eval '! pid_running '"$BR" || fail "F: the bridge did not end with its stdin"
wait "$BR" || fail "F: the bridge exited $? when its stdin ended"
stop_mcpd TERM
note "F: a server of protocol 2025-03-26 after the restart: the 2025-06-18 session went on"
exit 0
