#!/bin/bash
# activate.sh -- socket activation: mcpd serves on the socket it is given
# (sd_listen_fds) and leaves the socket file alone, as mcpd.socket needs.
#
# systemd-socket-activate stands in for systemd: it binds the socket, waits
# for the first connection and then executes mcpd in its own process with
# LISTEN_FDS=1, LISTEN_PID and the socket on fd 3, as a socket unit does.
#
#   A  as the units run it (-s naming the same path): mcpctl's first
#      connection starts mcpd, which answers it and shows a ready server;
#      the socket file keeps its inode while mcpd runs (never unlinked and
#      bound again), also across `mcpctl reexec`, which keeps the server
#      running, and is still there after mcpd exits 0 on SIGTERM.
#   B  with no -s and $MCPD_SOCKET naming another path: the passed socket
#      still wins, nothing is created at the other path, and `mcpctl
#      status` reports the passed socket's path.
#   C  a restart under one socket, as when systemd restarts mcpd.service:
#      after the first mcpd exits, a client that connects is not refused;
#      it waits in the backlog and is answered by the second mcpd.

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

command -v systemd-socket-activate >/dev/null 2>&1 ||
	skip "systemd-socket-activate is not installed"

write_config "$T/mcpd.json" <<JSON
{ "mcpServers": { "alpha": { "command": "$MCP_FAKE" } } }
JSON

inode_of() { stat -c %i "$1" 2>/dev/null; }

# start_activated SOCKET [MCPD ARGS...]: systemd-socket-activate on SOCKET,
# running mcpd with the config and ARGS; returns once the socket exists.
# Like systemd, systemd-socket-activate passes on only a few variables of
# its environment; SSA_ENV holds more, as "-E VAR=VALUE" options.
SSA_ENV=()
start_activated() {
	local sock=$1
	shift
	"${_MCPD_GUARD[@]}" systemd-socket-activate -l "$sock" "${SSA_ENV[@]}" \
		"$MCPD" -c "$T/mcpd.json" --log-target stderr "$@" \
		</dev/null >>"$MCPD_LOG" 2>&1 &
	MCPD_PID=$!
	MCPD_PIDS+=("$MCPD_PID")
	wait_for 30 test -S "$sock" ||
		fail "systemd-socket-activate did not create $sock within 30 s"
}

# daemon_field FIELD: from `mcpctl --json status` on $SOCK.
daemon_field() {
	ctl --json status 2>/dev/null | jq -er --arg f "$1" '.daemon[$f] | tostring'
}

# first_status: the first connection, which makes systemd-socket-activate
# execute mcpd; mcpd must take that very connection from the backlog.
first_status() {
	local out
	[ "$(cat "/proc/$MCPD_PID/comm" 2>/dev/null)" != mcpd ] ||
		note "mcpd was running before the first connection"
	out=$(ctl --json status 2>"$T/ctl.err") ||
		fail "the first 'mcpctl status' on the activated socket failed: $(cat "$T/ctl.err")"
	jq -e '.servers | length == 1' <<<"$out" >/dev/null ||
		fail "the first 'mcpctl status' did not list the one server: $out"
	[ "$(jq -r .daemon.pid <<<"$out")" = "$MCPD_PID" ] ||
		fail "the answer came from pid $(jq -r .daemon.pid <<<"$out"), not from the mcpd that systemd-socket-activate executed ($MCPD_PID)"
}

# --- A: as the units run it ---------------------------------------------------

SOCK=$T/a.sock
start_activated "$SOCK" -s "$SOCK"
inode=$(inode_of "$SOCK")
first_status
wait_ready alpha
[ "$(inode_of "$SOCK")" = "$inode" ] ||
	fail "the socket file was replaced while mcpd ran (inode $inode -> $(inode_of "$SOCK")): mcpd bound it again"
ctl status >/dev/null || fail "a second client was not served"
note "A: mcpd $MCPD_PID, started by the first connection, serves on $SOCK; alpha is ready"
# A re-exec keeps the socket systemd passed, and leaves its file alone.
alpha=$(server_pid alpha) || fail "alpha has no pid"
ctl reexec >"$T/reexec.out" 2>&1 || fail "A: mcpctl reexec failed: $(cat "$T/reexec.out")"
[ "$(daemon_field pid)" = "$MCPD_PID" ] && [ "$(daemon_field reexecs)" = 1 ] &&
	[ "$(daemon_field socket)" = "$SOCK" ] ||
	fail "A: after mcpctl reexec: $(ctl --json status | jq -c .daemon)"
[ "$(server_pid alpha)" = "$alpha" ] || fail "A: alpha was restarted by the re-exec"
[ "$(inode_of "$SOCK")" = "$inode" ] || fail "A: the re-exec replaced the socket file"
note "A: mcpctl reexec kept the passed socket and alpha (pid $alpha)"
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "A: mcpd exited with status $MCPD_STATUS on SIGTERM"
[ -S "$SOCK" ] ||
	fail "A: the socket file is gone after mcpd exited: mcpd removed a socket it did not create"
[ "$(inode_of "$SOCK")" = "$inode" ] || fail "A: the socket file was replaced"
note "A: mcpd exited 0 and $SOCK is still there (inode $inode)"

# --- B: the passed socket wins over the default -------------------------------

SOCK=$T/b.sock
ELSEWHERE=$T/elsewhere/mcpd.sock
SSA_ENV=(-E "MCPD_SOCKET=$ELSEWHERE")
start_activated "$SOCK"
SSA_ENV=()
inode=$(inode_of "$SOCK")
first_status
wait_ready alpha
[ ! -e "$ELSEWHERE" ] && [ ! -e "$(dirname "$ELSEWHERE")" ] ||
	fail "B: mcpd created $ELSEWHERE (or its directory) although systemd passed it a socket"
reported=$(daemon_field socket) || fail "B: no daemon.socket in 'mcpctl --json status'"
[ "$reported" = "$SOCK" ] ||
	fail "B: 'mcpctl status' says mcpd listens on '$reported', but it serves on $SOCK"
stop_mcpd TERM
[ "$MCPD_STATUS" = 0 ] || fail "B: mcpd exited with status $MCPD_STATUS on SIGTERM"
[ -S "$SOCK" ] && [ "$(inode_of "$SOCK")" = "$inode" ] ||
	fail "B: the socket file was removed or replaced"
note "B: with MCPD_SOCKET elsewhere and no -s, mcpd served on the passed $SOCK and reported it"

# --- C: a restart under the same socket ---------------------------------------

SOCK=$T/c.sock
# The program systemd-socket-activate runs keeps the socket (fd 3) open,
# as systemd does, and runs two mcpds on it one after the other.  Each gets
# LISTEN_PID set to its own pid; the second waits for $T/go2.
cat >"$T/twice.sh" <<'EOF'
run() {
	( export LISTEN_PID=$BASHPID
	  exec setpriv --pdeathsig TERM "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr ) &
	echo $! >"$T/c$1.pid"
	wait $!
	# Renamed into place: the test waits for the file to exist, and
	# must not read it between its creation and the write.
	echo $? >"$T/c$1.status.new"
	mv "$T/c$1.status.new" "$T/c$1.status"
}
run 1
while [ ! -e "$T/go2" ]; do sleep 0.05; done
run 2
EOF
MCPD_PID=
"${_MCPD_GUARD[@]}" systemd-socket-activate -l "$SOCK" \
	-E "T=$T" -E "SOCK=$SOCK" -E "MCPD=$MCPD" bash "$T/twice.sh" \
	</dev/null >>"$MCPD_LOG" 2>&1 &
HOLDER=$!
kill_c_mcpds() {
	local f pid
	for f in "$T/c1.pid" "$T/c2.pid"; do
		pid=$(read_pidfile "$f") || continue
		[ "$(proc_ppid "$pid" 2>/dev/null)" = "$HOLDER" ] && kill -TERM "$pid" 2>/dev/null
	done
	kill -TERM "$HOLDER" 2>/dev/null
	wait "$HOLDER" 2>/dev/null
}
CLEANUP_HOOKS=(kill_c_mcpds "${CLEANUP_HOOKS[@]}")
wait_for 30 test -S "$SOCK" || fail "C: systemd-socket-activate did not create $SOCK"
inode=$(inode_of "$SOCK")
ctl status >/dev/null || fail "C: the first mcpd did not answer"
pid1=$(read_pidfile "$T/c1.pid") || fail "C: no pid for the first mcpd"
MCPD_PID=$pid1
wait_ready alpha
kill -TERM "$pid1"
wait_for 30 test -e "$T/c1.status" || fail "C: the first mcpd did not exit within 30 s of SIGTERM"
[ "$(cat "$T/c1.status")" = 0 ] || fail "C: the first mcpd exited with status $(cat "$T/c1.status")"
[ -S "$SOCK" ] && [ "$(inode_of "$SOCK")" = "$inode" ] ||
	fail "C: the socket file was removed or replaced by the first mcpd"

# Nobody accepts now: a client must wait, not be refused.  Its connection
# shows in /proc/net/unix as one more socket on $SOCK still connecting
# (state 02): in the backlog, where the next mcpd will find it.
pending() {
	awk -v p="$SOCK" '$8 == p && $6 == "02"' /proc/net/unix | grep -c .
}
pending0=$(pending)
timeout -k 5 30 "$MCPCTL" -s "$SOCK" --json status >"$T/during.json" 2>"$T/during.err" &
client=$!
client_ended() {
	wait "$client"
	fail "C: with no mcpd running, a client ended (status $?) instead of waiting: $(cat "$T/during.err")"
}
wait_for 30 eval '[ "$(pending)" -gt "$pending0" ] || ! pid_running "$client"' ||
	fail "C: the client neither connected nor ended within 30 s"
pid_running "$client" || client_ended
# A window: connected, it also keeps waiting for an answer (1 s).
sleep 1
pid_running "$client" || client_ended
touch "$T/go2"
wait "$client"
rc=$?
[ "$rc" = 0 ] || fail "C: the waiting client failed (status $rc): $(cat "$T/during.err")"
pid2=$(read_pidfile "$T/c2.pid") || fail "C: no pid for the second mcpd"
[ "$(jq -r .daemon.pid "$T/during.json")" = "$pid2" ] && [ "$pid2" != "$pid1" ] ||
	fail "C: the waiting client was answered by pid $(jq -r .daemon.pid "$T/during.json"), expected the second mcpd $pid2"
MCPD_PID=$pid2
kill -TERM "$pid2"
wait_for 30 test -e "$T/c2.status" || fail "C: the second mcpd did not exit within 30 s of SIGTERM"
[ "$(cat "$T/c2.status")" = 0 ] || fail "C: the second mcpd exited with status $(cat "$T/c2.status")"
MCPD_PID=
note "C: a client that connected between two mcpds on one socket waited and was served by the second ($pid1 -> $pid2)"
exit 0
