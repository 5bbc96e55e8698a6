#!/bin/bash
# secrets.sh -- what must not leak, and the socket's safety.
#
# Secrets in a server's "env" (one literal, one from ${VAR} expansion of
# mcpd's environment) reach the server process (/proc/PID/environ), and
# nothing else: not `mcpctl status` (table or --json), `mcpctl metrics`,
# `mcpctl logs`, mcpd's log (stderr target), the errors of failed reloads
# (a bad key elsewhere, a JSON syntax error next to the secret, an unset
# variable inside the secret's own string), a successful reload that
# rotates the secret, nor `mcpd -n` / `mcpctl check-config` output.  The
# variable mcpd read it from is not passed on (clean environment).
# Secrets expanded from ${VAR} into a server's command (one that runs, one
# whose exec fails) and args reach its argv and show nowhere either: mcpd
# shows commands as the file writes them, "${VAR}" unexpanded, in status,
# last_exit and its log.
#
# The socket: started under umask 000, the directory mcpd creates is 0700
# and the socket 0600, and (traced with strace where possible) no wider
# mode ever existed: the umask in force at bind(2) leaves at most 0600 and
# nothing chmods them wider.  A second mcpd on the same socket refuses to
# start (exit 1, saying why) and the first keeps serving; a socket left
# by a SIGKILLed mcpd is replaced by the next one; a regular file at the
# socket path is left alone, and a world-writable directory refused.

# shellcheck source=fault-lib.sh
. "$TESTS_SRCDIR/integration/fault-lib.sh"

SECRET1=s3cr3t-DO-NOT-SHOW
SECRET2=xp4ss-FROM-ENV-42
SECRET3=r0tated-NEW-ONE-77
SECRET4=b1nDIR-IN-COMMAND-31
SECRET5=m1ssing-BIN-SECRET-53
SECRET6=an-ARG-SECRET-64
SECRETS=("$SECRET1" "$SECRET2" "$SECRET3" DO-NOT-SHOW FROM-ENV-42 NEW-ONE-77
	"$SECRET4" "$SECRET5" "$SECRET6")
export MCPD_TEST_DB_PASSWORD=$SECRET2
unset MCPD_TEST_UNSET_VAR
# A directory whose name is secret, holding the fake server; a command
# there that does not exist; an argument.
mkdir "$T/$SECRET4" && ln -s "$MCP_FAKE" "$T/$SECRET4/mcp-fake" ||
	hard_error "cannot make $T/$SECRET4/mcp-fake"
export MCPD_TEST_SECRET_DIR=$T/$SECRET4
export MCPD_TEST_SECRET_BIN=$T/$SECRET5/mcp-fake
export MCPD_TEST_SECRET_ARG=$SECRET6

RUN=$T/run
SOCK=$RUN/mcpd.sock
CFG=$T/mcpd.json

# config API_TOKEN [PLAIN_ARGS_JSON [MORE_SERVERS]]: the configuration,
# written.
config() {
	write_config "$CFG" <<JSON
{
  "mcpServers": {
    "vault": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/vault.pid"],
      "env": { "API_TOKEN": "$1", "DB_PASSWORD": "\${MCPD_TEST_DB_PASSWORD}" }
    },
    "plain": { "command": "$MCP_FAKE", "args": ${2:-[]} }${3:-}
  }
}
JSON
}

# The servers with secrets in command and args.
IN_ARGV=$(cat <<JSON
,
    "hidden": {
      "command": "\${MCPD_TEST_SECRET_DIR}/mcp-fake",
      "args": ["--pidfile=$T/hidden.pid", "--startlog=$T/\${MCPD_TEST_SECRET_ARG}.starts"],
      "env": { "MCPD_TEST_DIR": "$T" }
    },
    "missing": { "command": "\${MCPD_TEST_SECRET_BIN}",
                 "args": ["\${MCPD_TEST_SECRET_ARG}"], "restart": "never" }
JSON
)

# no_secret WHAT FILE: FILE holds none of the secrets.
no_secret() {
	local s
	for s in "${SECRETS[@]}"; do
		if grep -qF -- "$s" "$2"; then
			echo "--- $1 ---" >&2
			grep -F -- "$s" "$2" | head -5 >&2
			fail "$1 shows a secret ($s)"
		fi
	done
}

# environ_has PID NAME=VALUE
environ_has() {
	tr '\0' '\n' <"/proc/$1/environ" | grep -qxF -- "$2"
}

config "$SECRET1"
"$MCPD" -n -c "$CFG" >"$T/check.out" 2>&1 || fail "mcpd -n rejected the configuration: $(cat "$T/check.out")"
no_secret "mcpd -n" "$T/check.out"

# --- modes, under umask 000 --------------------------------------------------
[ ! -e "$RUN" ] || hard_error "$RUN exists already"
umask 000
start_mcpd "$CFG"
umask 077
dmode=$(stat -c %a "$RUN")
smode=$(stat -c %a "$SOCK")
note "started under umask 000: directory $dmode, socket $smode"
[ "$dmode" = 700 ] || fail "socket directory mode $dmode, expected 700"
[ "$smode" = 600 ] || fail "socket mode $smode, expected 600"
wait_ready vault 30
wait_ready plain 30

# --- the server gets them, nothing else shows them -------------------------------
pid=$(server_pid vault) || fail "no pid for vault"
environ_has "$pid" "API_TOKEN=$SECRET1" || fail "the server has no API_TOKEN=$SECRET1 in its environment"
environ_has "$pid" "DB_PASSWORD=$SECRET2" || fail "the server has no DB_PASSWORD from \${MCPD_TEST_DB_PASSWORD}"
! tr '\0' '\n' <"/proc/$pid/environ" | grep -q '^MCPD_TEST_DB_PASSWORD=' ||
	fail "mcpd's own MCPD_TEST_DB_PASSWORD was passed to the server"
note "vault (pid $pid) has API_TOKEN and DB_PASSWORD; mcpd's variable is not passed on"

out=$(ctl call vault echo text=hello) || fail "mcpctl call vault failed"
[ "$out" = hello ] || fail "mcpctl call vault returned '$out'"
ctl status >"$T/status.out" 2>&1 || fail "mcpctl status failed"
ctl --json status >"$T/status.json" 2>&1 || fail "mcpctl --json status failed"
ctl --json status vault >"$T/status-vault.json" 2>&1 || fail "mcpctl --json status vault failed"
ctl metrics >"$T/metrics.out" 2>&1 || fail "mcpctl metrics failed"
ctl logs vault >"$T/logs.out" 2>&1 || fail "mcpctl logs vault failed"
ctl check-config "$CFG" >"$T/check-config.out" 2>&1 || fail "mcpctl check-config failed: $(cat "$T/check-config.out")"
for f in status.out status.json status-vault.json metrics.out logs.out check-config.out; do
	no_secret "mcpctl ${f%.*}" "$T/$f"
done
[ "$(jq -r '.servers[] | select(.name == "vault") | .state' "$T/status.json")" = ready ] ||
	fail "the status shows no ready vault"

# --- reloads ----------------------------------------------------------------------
# reload_fails WHAT: `mcpctl reload` (table and --json) is refused and
# shows no secret; the old configuration keeps running.
reload_fails() {
	local rc
	ctl reload >"$T/reload.out" 2>&1
	rc=$?
	[ "$rc" != 0 ] || fail "$1: mcpctl reload succeeded: $(cat "$T/reload.out")"
	no_secret "$1: mcpctl reload" "$T/reload.out"
	ctl --json reload >"$T/reload.json" 2>&1
	no_secret "$1: mcpctl --json reload" "$T/reload.json"
	"$MCPD" -n -c "$CFG" >"$T/check.out" 2>&1 && fail "$1: mcpd -n accepted it"
	no_secret "$1: mcpd -n" "$T/check.out"
	ctl check-config "$CFG" >"$T/check-config.out" 2>&1 && fail "$1: mcpctl check-config accepted it"
	no_secret "$1: mcpctl check-config" "$T/check-config.out"
	note "$1: $(head -c 300 "$T/reload.out" | tr '\n' ' ')"
	[ "$(server_pid vault)" = "$pid" ] || fail "$1: vault changed after a failed reload"
}

config "$SECRET1" '"not-an-array"'
reload_fails "bad key elsewhere"
grep -q 'plain' "$T/reload.out" || fail "the error does not name the bad key: $(cat "$T/reload.out")"

# A syntax error right after the secret.
config "$SECRET1"
sed -i "s/\"API_TOKEN\": \"$SECRET1\",/\"API_TOKEN\": \"$SECRET1\" \"oops\",/" "$CFG"
grep -q oops "$CFG" || hard_error "could not break the configuration"
reload_fails "syntax error next to the secret"

# An unset variable inside the string that holds the secret.
config "$SECRET1-\${MCPD_TEST_UNSET_VAR}"
reload_fails "unset variable in the secret"
grep -q 'MCPD_TEST_UNSET_VAR' "$T/reload.out" ||
	fail "the error does not name the unset variable: $(cat "$T/reload.out")"

# Rotating the secret: vault restarts with the new one; nothing shows it.
config "$SECRET3"
ctl reload >"$T/reload.out" 2>&1 || fail "mcpctl reload failed: $(cat "$T/reload.out")"
no_secret "mcpctl reload (rotation)" "$T/reload.out"
wait_for 30 eval '[ "$(server_pid vault 2>/dev/null)" != "$pid" ] && server_is vault ready' ||
	fail "vault did not restart with the new secret"
pid=$(server_pid vault)
environ_has "$pid" "API_TOKEN=$SECRET3" || fail "the restarted server has no API_TOKEN=$SECRET3"
ctl --json status >"$T/status.json" 2>&1
no_secret "mcpctl --json status after rotation" "$T/status.json"
note "rotated: vault restarted (pid $pid) with the new API_TOKEN"

# mcpd's log, after all of the above.
no_secret "mcpd's log" "$MCPD_LOG"

# --- secrets in command and args ----------------------------------------------------
# hidden runs from a directory named by a secret, with a secret argument;
# missing's command, a secret path, does not exist: its exec fails.
config "$SECRET3" '[]' "$IN_ARGV"
ctl reload >"$T/reload.out" 2>&1 || fail "mcpctl reload adding hidden and missing failed: $(cat "$T/reload.out")"
no_secret "mcpctl reload (secrets in argv)" "$T/reload.out"
wait_ready hidden 30
hpid=$(server_pid hidden) || fail "no pid for hidden"
args=$(tr '\0' ' ' <"/proc/$hpid/cmdline")
[ "$args" = "$T/$SECRET4/mcp-fake --pidfile=$T/hidden.pid --startlog=$T/$SECRET6.starts " ] ||
	fail "hidden runs with argv '$args', not the expanded command and args"
wait_for 30 eval '[ "$(server_field missing last_exit 2>/dev/null)" != null ]' ||
	fail "missing has no last_exit: its exec did not fail?"
ctl status >"$T/status.out" 2>&1 || fail "mcpctl status failed"
ctl --json status >"$T/status.json" 2>&1 || fail "mcpctl --json status failed"
ctl --json status hidden >"$T/status-hidden.json" 2>&1 || fail "mcpctl --json status hidden failed"
ctl --json status missing >"$T/status-missing.json" 2>&1 || fail "mcpctl --json status missing failed"
ctl logs hidden >"$T/logs-hidden.out" 2>&1 || fail "mcpctl logs hidden failed"
ctl logs missing >"$T/logs-missing.out" 2>&1 || fail "mcpctl logs missing failed"
for f in status.out status.json status-hidden.json status-missing.json logs-hidden.out logs-missing.out; do
	no_secret "mcpctl ${f%.*} (secrets in argv)" "$T/$f"
done
no_secret "mcpd's log (secrets in argv)" "$MCPD_LOG"
# What is shown instead: the commands as the file has them.
[ "$(jq -r '.servers[0].command' "$T/status-hidden.json")" = '${MCPD_TEST_SECRET_DIR}/mcp-fake' ] ||
	fail "hidden's command shows as $(jq -r '.servers[0].command' "$T/status-hidden.json"), not as written"
jq -r '.servers[0].last_exit' "$T/status-missing.json" | grep -qF 'exec ${MCPD_TEST_SECRET_BIN}: No such file or directory' ||
	fail "missing's last_exit does not show its command as written: $(jq -r '.servers[0].last_exit' "$T/status-missing.json")"
note "hidden: command $(jq -r '.servers[0].command' "$T/status-hidden.json"); missing: command $(jq -r '.servers[0].command' "$T/status-missing.json"), last_exit $(jq -r '.servers[0].last_exit' "$T/status-missing.json")"

# --- a second mcpd on the same socket --------------------------------------------------
timeout -k 5 60 "$MCPD" -c "$CFG" -s "$SOCK" --log-target stderr \
	</dev/null >"$T/second.out" 2>&1
rc=$?
note "second mcpd: exit $rc: $(tr '\n' ' ' <"$T/second.out" | head -c 300)"
[ "$rc" = 1 ] || fail "a second mcpd on the same socket exited $rc, expected 1"
grep -q "another mcpd is already listening on $SOCK" "$T/second.out" ||
	fail "the second mcpd did not say why it refused: $(cat "$T/second.out")"
no_secret "the second mcpd's output" "$T/second.out"
[ -S "$SOCK" ] || fail "the second mcpd removed the first one's socket"
out=$(ctl call vault echo text=still) || fail "the first mcpd stopped serving"
[ "$out" = still ] || fail "the first mcpd answered '$out'"
[ "$(server_pid vault)" = "$pid" ] || fail "vault changed when the second mcpd tried"

# --- a stale socket from a SIGKILLed mcpd ------------------------------------------
vstart=$(proc_starttime "$pid")
stop_mcpd KILL
[ -S "$SOCK" ] || fail "no socket file left by the SIGKILLed mcpd (nothing to test)"
wait_for 30 proc_dead "$pid" "$vstart" || fail "vault (pid $pid) outlived the SIGKILLed mcpd"
ctl status >/dev/null 2>&1 && fail "something still answers on the dead mcpd's socket"
umask 000
start_mcpd "$CFG"
umask 077
grep -q "removing stale socket $SOCK" "$MCPD_LOG" || fail "the stale socket was not logged as removed"
[ "$(stat -c %a "$SOCK")" = 600 ] || fail "the new socket's mode is $(stat -c %a "$SOCK"), expected 600"
wait_ready vault 30
note "stale socket replaced; the new mcpd serves (socket $(stat -c %a "$SOCK"))"
no_secret "mcpd's log" "$MCPD_LOG"
stop_mcpd

# --- places mcpd must not use -------------------------------------------------------
# A file that is not a socket is never removed to make room.
printf 'precious\n' >"$T/not-a-socket"
timeout -k 5 60 "$MCPD" -c "$CFG" -s "$T/not-a-socket" --log-target stderr \
	</dev/null >"$T/refuse.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "mcpd on a regular file as socket path exited $rc, expected 1"
grep -q "$T/not-a-socket exists and is not a socket" "$T/refuse.out" ||
	fail "mcpd did not say why it refused the path: $(cat "$T/refuse.out")"
[ "$(cat "$T/not-a-socket")" = precious ] || fail "mcpd removed or changed the file at the socket path"
# A directory others may write to (no sticky bit) would let them swap
# the socket for their own.
mkdir "$T/open-dir"
chmod 0777 "$T/open-dir"
timeout -k 5 60 "$MCPD" -c "$CFG" -s "$T/open-dir/mcpd.sock" --log-target stderr \
	</dev/null >"$T/refuse.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "mcpd in a world-writable directory exited $rc, expected 1"
grep -q "writable by others" "$T/refuse.out" ||
	fail "mcpd did not say why it refused the directory: $(cat "$T/refuse.out")"
[ ! -e "$T/open-dir/mcpd.sock" ] || fail "mcpd created a socket in a world-writable directory"
note "refused: a regular file as socket path (kept), a world-writable directory"

# --- no wider mode, ever (strace) --------------------------------------------------------
if ! command -v strace >/dev/null 2>&1; then
	note "strace is not installed: the bind-time umask is not traced"
	exit 0
fi
if sanitized "$MCPD"; then
	# LeakSanitizer refuses to run under ptrace.
	note "mcpd is built with sanitizers: the bind-time umask is not traced"
	exit 0
fi
TRACE=umask,mkdir,mkdirat,bind,chmod,fchmod,fchmodat
if ! strace -f -o /dev/null -e trace=$TRACE true >/dev/null 2>&1; then
	note "strace cannot trace here: the bind-time umask is not traced"
	exit 0
fi
RUN2=$T/run2
SOCK2=$RUN2/mcpd.sock
(umask 000 && exec env MCPD_TEST_DIR="$T" strace -f -o "$T/strace.out" \
	-e trace=$TRACE "$MCPD" -c "$CFG" -s "$SOCK2" --log-target stderr \
	</dev/null >>"$T/traced.log" 2>&1) &
STRACE_PID=$!
wait_for 60 eval 'timeout 20 "$MCPCTL" -s "$SOCK2" status >/dev/null 2>&1' ||
	fail "mcpd under strace did not answer on $SOCK2 ($(tail -3 "$T/traced.log"))"
traced=$(awk '{ print $1 }' "/proc/$STRACE_PID/task/$STRACE_PID/children" 2>/dev/null)
[ -n "$traced" ] || fail "cannot find the traced mcpd"
note "traced: directory $(stat -c %a "$RUN2"), socket $(stat -c %a "$SOCK2")"
[ "$(stat -c %a "$RUN2")" = 700 ] && [ "$(stat -c %a "$SOCK2")" = 600 ] ||
	fail "traced mcpd: directory $(stat -c %a "$RUN2"), socket $(stat -c %a "$SOCK2")"
kill -TERM "$traced"
wait_for 30 eval '! pid_running '"$STRACE_PID" || fail "the traced mcpd did not exit"
wait "$STRACE_PID"

# Every mode the directory and socket ever had, from the trace.
awk -v dir="$RUN2" -v sock="$SOCK2" '
	function oct(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 8 + substr(s, i, 1); return v }
	function and8(a, b,   r, bit) { r = 0; for (bit = 1; a > 0 || b > 0; bit *= 2) { if (a % 2 && b % 2) r += bit; a = int(a / 2); b = int(b / 2) } return r }
	/ umask\(/ { match($0, /umask\(0?[0-7]+\)/); m = substr($0, RSTART + 6, RLENGTH - 7); mask = oct(m); next }
	/ mkdir(at)?\(/ && index($0, "\"" dir "\"") && / = 0$/ {
		match($0, /, 0[0-7]+\)/); mode = oct(substr($0, RSTART + 2, RLENGTH - 3))
		eff = and8(mode, 4095 - mask); printf "mkdir %s mode %o umask %o -> %o\n", dir, mode, mask, eff
		if (and8(eff, 63) != 0) bad = bad " directory created " sprintf("%o", eff)
		saw_mkdir = 1 }
	/ bind\(/ && index($0, sock) && / = 0$/ {
		eff = and8(438, 4095 - mask); printf "bind %s under umask %o -> %o\n", sock, mask, eff
		if (and8(eff, 63) != 0) bad = bad " socket bound " sprintf("%o", eff)
		saw_bind = 1 }
	/ (f)?chmod(at)?\(/ && / = 0$/ {
		match($0, /, 0[0-7]+[,)]/); mode = oct(substr($0, RSTART + 2, RLENGTH - 3))
		printf "chmod: %s\n", $0
		if (and8(mode, 63) != 0) bad = bad " chmod " sprintf("%o", mode) }
	END {
		if (!saw_mkdir) bad = bad " (no mkdir of the directory traced)"
		if (!saw_bind) bad = bad " (no bind of the socket traced)"
		if (bad != "") { print "WIDER:" bad; exit 1 }
	}' "$T/strace.out" >"$T/modes.out"
rc=$?
while read -r line; do note "strace: $line"; done <"$T/modes.out"
[ "$rc" = 0 ] || fail "a wider mode existed: $(tail -1 "$T/modes.out")"
exit 0
