#!/bin/bash
# cli.sh -- the command lines of mcpd and mcpctl: version, help, usage
# errors (exit 2), an unreachable daemon (exit 3, naming the socket), an
# unknown server (exit 1), MCPD_SOCKET, and status of one server.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# run NAME CMD...: run CMD with stdout and stderr captured in $T/NAME.out
# and $T/NAME.err; sets RC.
run() {
	local name=$1
	shift
	timeout -k 5 30 "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	RC=$?
}

# expect_rc WANT WHAT: check RC, showing the output on failure.
expect_rc() {
	[ "$RC" = "$1" ] ||
		fail "$2: exit status $RC, expected $1; stdout: $(head -c 500 "$T/$LAST.out"); stderr: $(head -c 500 "$T/$LAST.err")"
}

version_re='[0-9]+\.[0-9]+(\.[0-9]+)?'

# --- version -------------------------------------------------------------------
VERSION=
for prog in MCPD MCPCTL; do
	for opt in --version -V; do
		LAST=version
		run version "${!prog}" "$opt"
		expect_rc 0 "${!prog##*/} $opt"
		v=$(grep -Eo "$version_re" "$T/version.out" | head -1)
		[ -n "$v" ] || fail "${!prog##*/} $opt printed no version on stdout: $(cat "$T/version.out")"
		[ -z "$VERSION" ] || [ "$v" = "$VERSION" ] ||
			fail "${!prog##*/} $opt says $v, another program said $VERSION"
		VERSION=$v
	done
done
note "version $VERSION from both programs"

# --- help ------------------------------------------------------------------------
LAST=help
run help "$MCPD" --help
expect_rc 0 "mcpd --help"
grep -qi usage "$T/help.out" || fail "mcpd --help printed no usage on stdout"
for opt in --config --socket --log-target --check-config; do
	grep -q -- "$opt" "$T/help.out" || fail "mcpd --help does not mention $opt"
done
run help "$MCPCTL" --help
expect_rc 0 "mcpctl --help"
grep -qi usage "$T/help.out" || fail "mcpctl --help printed no usage on stdout"
for cmd in status start stop restart check-config; do
	grep -qw -- "$cmd" "$T/help.out" || fail "mcpctl --help does not mention $cmd"
done

# --- usage errors ----------------------------------------------------------------
LAST=usage
run usage "$MCPD" --no-such-option
expect_rc 2 "mcpd --no-such-option"
[ -s "$T/usage.err" ] || fail "mcpd --no-such-option printed nothing on stderr"
run usage "$MCPD" --log-target nowhere -n -c /dev/null
expect_rc 2 "mcpd --log-target nowhere"
run usage "$MCPCTL" --no-such-option status
expect_rc 2 "mcpctl --no-such-option"
run usage "$MCPCTL" -s "$T/none.sock" no-such-command
expect_rc 2 "mcpctl no-such-command"
[ -s "$T/usage.err" ] || fail "mcpctl no-such-command printed nothing on stderr"
run usage "$MCPCTL" -s "$T/none.sock"
expect_rc 2 "mcpctl without a command"
for cmd in start stop restart; do
	run usage "$MCPCTL" -s "$T/none.sock" "$cmd"
	expect_rc 2 "mcpctl $cmd without a server name"
done

# --- no daemon -------------------------------------------------------------------
LAST=nodaemon
run nodaemon "$MCPCTL" -s "$T/none.sock" status
expect_rc 3 "mcpctl status without a daemon"
grep -qF "$T/none.sock" "$T/nodaemon.err" ||
	fail "mcpctl without a daemon does not name the socket: $(cat "$T/nodaemon.err")"
run nodaemon "$MCPCTL" -s "$T/none.sock" --json status
expect_rc 3 "mcpctl --json status without a daemon"
# A socket file nobody listens on is just as unreachable.
python3 - "$T/stale.sock" 2>/dev/null <<'EOF' || true
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
EOF
if [ -S "$T/stale.sock" ]; then
	run nodaemon "$MCPCTL" -s "$T/stale.sock" status
	expect_rc 3 "mcpctl status on a stale socket"
fi

# --- a daemon with two servers ---------------------------------------------------
write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "alpha": { "command": "$MCP_FAKE" },
    "beta": { "command": "$MCP_FAKE" }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready alpha
wait_ready beta

LAST=status
run status "$MCPCTL" -s "$SOCK" --json status
expect_rc 0 "mcpctl --json status"
jq -e . "$T/status.out" >/dev/null || fail "mcpctl --json status is not JSON: $(cat "$T/status.out")"
[ "$(jq -r '.daemon.pid' "$T/status.out")" = "$MCPD_PID" ] ||
	fail "daemon.pid is $(jq -r '.daemon.pid' "$T/status.out"), mcpd runs as $MCPD_PID"
[ "$(jq -r '.daemon.version' "$T/status.out")" = "$VERSION" ] ||
	fail "daemon.version is $(jq -r '.daemon.version' "$T/status.out"), expected $VERSION"
[ "$(jq -r '[.servers[].name] | sort | join(",")' "$T/status.out")" = alpha,beta ] ||
	fail "servers listed: $(jq -c '[.servers[].name]' "$T/status.out")"
missing=$(jq -r '.servers[0] | ["name","state","pid","restarts","last_exit",
	"next_restart_ms","inflight","clients","uptime_ms"] - keys | join(" ")' "$T/status.out")
[ -z "$missing" ] || fail "status lacks fields: $missing"
jq -e '.servers[] | select(.name == "alpha") |
	(.pid | type) == "number" and .restarts == 0 and .last_exit == null and
	.next_restart_ms == null and (.uptime_ms | type) == "number"' "$T/status.out" >/dev/null ||
	fail "unexpected status for a ready server: $(jq -c '.servers[0]' "$T/status.out")"

# Status of one server lists only that one, in both formats.
run status "$MCPCTL" -s "$SOCK" --json status beta
expect_rc 0 "mcpctl --json status beta"
[ "$(jq -r '[.servers[].name] | join(",")' "$T/status.out")" = beta ] ||
	fail "status beta lists $(jq -c '[.servers[].name]' "$T/status.out")"
run status "$MCPCTL" -s "$SOCK" status beta
expect_rc 0 "mcpctl status beta"
grep -qw beta "$T/status.out" || fail "mcpctl status beta does not show beta: $(cat "$T/status.out")"
! grep -qw alpha "$T/status.out" || fail "mcpctl status beta shows alpha too: $(cat "$T/status.out")"
grep -qw ready "$T/status.out" || fail "mcpctl status beta does not show its state: $(cat "$T/status.out")"

# Unknown servers: exit 1, named in the message; nothing else changes.
LAST=unknown
for cmd in status start stop restart; do
	run unknown "$MCPCTL" -s "$SOCK" "$cmd" no-such-server
	expect_rc 1 "mcpctl $cmd no-such-server"
	grep -q no-such-server "$T/unknown.err" ||
		fail "mcpctl $cmd no-such-server does not name it: $(cat "$T/unknown.err")"
done
run unknown "$MCPCTL" -s "$SOCK" status alpha no-such-server
expect_rc 1 "mcpctl status alpha no-such-server"
server_is alpha ready || fail "alpha disturbed by commands on unknown servers"

# mcpctl version talks to the daemon as well.
LAST=version
run version "$MCPCTL" -s "$SOCK" version
expect_rc 0 "mcpctl version"
grep -qF "$VERSION" "$T/version.out" || fail "mcpctl version does not print $VERSION"

# --- MCPD_SOCKET, for both programs ----------------------------------------------
ENV_SOCK=$T/env.sock
MCPD_SOCKET=$ENV_SOCK "$MCPD" -c "$T/mcpd.json" --log-target stderr \
	</dev/null >>"$T/env-mcpd.log" 2>&1 &
env_pid=$!
MCPD_PIDS+=("$env_pid")
env_status() { MCPD_SOCKET=$ENV_SOCK timeout -k 5 30 "$MCPCTL" status >/dev/null 2>&1; }
wait_for 30 env_status ||
	fail "mcpd started with MCPD_SOCKET=$ENV_SOCK not reachable through MCPD_SOCKET: $(tail -5 "$T/env-mcpd.log")"
[ -S "$ENV_SOCK" ] || fail "no socket at MCPD_SOCKET=$ENV_SOCK"
LAST="env"
run env env MCPD_SOCKET="$ENV_SOCK" "$MCPCTL" --json status
expect_rc 0 "MCPD_SOCKET mcpctl --json status"
[ "$(jq -r .daemon.pid "$T/env.out")" = "$env_pid" ] ||
	fail "MCPD_SOCKET reached daemon $(jq -r .daemon.pid "$T/env.out"), expected $env_pid"
kill -TERM "$env_pid"
wait_for 30 eval '! pid_running '"$env_pid" || fail "second mcpd did not exit on SIGTERM"
wait "$env_pid"
rc=$?
_forget_mcpd "$env_pid"
[ "$rc" = 0 ] || fail "second mcpd exited with $rc on SIGTERM"

mcpd_running || fail "mcpd died"
exit 0
