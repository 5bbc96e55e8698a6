#!/bin/bash
# config.sh -- `mcpd -n` and `mcpctl check-config` validate a config file:
# good files pass (both shapes), every error of a bad file is listed with
# its JSON path, a string holding \u0000 is refused at its path (it would
# be cut short), writable-by-others files are refused, unknown keys only
# warn (but a top-level one in a file without servers is an error naming
# the key it is near), mcpd -n warns of a command a start would not find,
# and ${VAR} / ${VAR:-default} expand into what the server gets: its
# argv, env and cwd, in an environment that is otherwise clean.  Owners
# and directories: config-owner.sh.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# check FILE: run `mcpd -n -c FILE` and `mcpctl check-config FILE`; set
# RC_D/RC_C and leave stderr (and stdout) in $T/d.err and $T/c.err.
check() {
	timeout -k 5 30 "$MCPD" -n -c "$1" >"$T/d.out" 2>"$T/d.err" </dev/null
	RC_D=$?
	timeout -k 5 30 "$MCPCTL" -s "$T/none.sock" check-config "$1" \
		>"$T/c.out" 2>"$T/c.err" </dev/null
	RC_C=$?
	cat "$T/c.out" >>"$T/c.err"
}

# expect WANT WHAT: both programs exited WANT.
expect() {
	[ "$RC_D" = "$1" ] ||
		fail "$2: mcpd -n exited $RC_D, expected $1; stderr: $(cat "$T/d.err")"
	[ "$RC_C" = "$1" ] ||
		fail "$2: mcpctl check-config exited $RC_C, expected $1; output: $(cat "$T/c.err")"
}

# diag FILE PATH_REGEX WHAT: a diagnostic line naming the JSON path,
# prefixed with the program's name (d.err: mcpd, c.err: mcpctl).
diag() {
	local prog=mcpd
	[ "$(basename "$1")" = c.err ] && prog=mcpctl
	grep -Eq "^$prog: (.*: )?$2: " "$1" ||
		fail "no '$prog: ...$2: message' diagnostic ($3) in $(basename "$1"): $(cat "$1")"
}

# --- good files --------------------------------------------------------------------
write_config "$T/good.json" <<JSON
{
  "mcpd": {
    "restart": "on-failure",
    "backoff_min_ms": 500, "backoff_max_ms": 8000, "backoff_jitter": 0.1,
    "backoff_reset_ms": 5000, "max_restarts": 5, "restart_window_s": 30,
    "init_timeout_ms": 2000, "request_timeout_ms": 10000,
    "stop_timeout_ms": 1500, "max_message_bytes": 1048576
  },
  "mcpServers": {
    "one": { "command": "$MCP_FAKE", "args": ["--stderr-noise=1"],
             "env": { "FOO": "bar" }, "cwd": "/", "restart": "always" },
    "two": { "command": "$MCP_FAKE", "disabled": true }
  }
}
JSON
check "$T/good.json"
expect 0 "a good mcpServers file"

write_config "$T/vscode.json" <<JSON
{
  "servers": {
    "code": { "type": "stdio", "command": "$MCP_FAKE", "args": [] }
  }
}
JSON
check "$T/vscode.json"
expect 0 "a good VS Code servers file"

# --- one file, many errors --------------------------------------------------------
write_config_raw "$T/bad.json" <<JSON
{
  "mcpd": { "stop_timeout_ms": "soon" },
  "mcpServers": {
    "args":    { "command": "$MCP_FAKE", "args": ["a", "b", 3] },
    "nocmd":   { "args": ["x"] },
    "policy":  { "command": "$MCP_FAKE", "restart": "sometimes" },
    "backoff": { "command": "$MCP_FAKE", "backoff_min_ms": -1 },
    "envtype": { "command": "$MCP_FAKE", "env": { "A": 1 } },
    "unset":   { "command": "$MCP_FAKE", "args": ["\${MCPD_TEST_SURELY_UNSET_VAR}"] }
  }
}
JSON
unset MCPD_TEST_SURELY_UNSET_VAR
check "$T/bad.json"
expect 1 "a file with seven errors"
for f in "$T/d.err" "$T/c.err"; do
	diag "$f" 'mcpServers\.args\.args\[2\]' "number in args"
	grep -Fq 'mcpServers.args.args[2]: expected a string' "$f" ||
		fail "no 'mcpServers.args.args[2]: expected a string' in $(basename "$f"): $(cat "$f")"
	diag "$f" 'mcpServers\.nocmd(\.command)?' "missing command"
	diag "$f" 'mcpServers\.policy\.restart' "bad restart policy"
	diag "$f" 'mcpServers\.backoff\.backoff_min_ms' "negative number"
	diag "$f" 'mcpServers\.envtype\.env\.A' "env value not a string"
	diag "$f" 'mcpServers\.unset\.args\[0\]' "unset variable"
	diag "$f" 'mcpd\.stop_timeout_ms' "string for a number"
done
n=$(grep -Ec '^mcpd: (mcpd|mcpServers)\.' "$T/d.err")
[ "$n" = 7 ] || fail "expected 7 diagnostics with a JSON path, got $n: $(cat "$T/d.err")"
grep -q MCPD_TEST_SURELY_UNSET_VAR "$T/d.err" || fail "the unset variable is not named: $(cat "$T/d.err")"
note "mcpd -n on a file with 7 errors printed $(grep -c '^mcpd: ' "$T/d.err") diagnostics:"
sed 's/^/#   /' "$T/d.err"

# Not JSON at all: the file is named, with where it broke.
write_config_raw "$T/syntax.json" '{"mcpServers": {"x": {"command": "/bin/true",}}'
check "$T/syntax.json"
expect 1 "a file that is not JSON"
grep -qF "$T/syntax.json" "$T/d.err" || fail "syntax error does not name the file: $(cat "$T/d.err")"
note "syntax error: $(head -1 "$T/d.err")"

# \u0000 would end the C string, and "/tmp/x\u0000y" reach the server as
# "/tmp/x": refused, at its path, by both.
write_config_raw "$T/nul.json" '{"mcpServers": {"x": {"command": "/bin/true", "args": ["--ok", "/tmp/x\u0000y"]}}}'
check "$T/nul.json"
expect 1 "a string holding \\u0000"
for f in "$T/d.err" "$T/c.err"; do
	diag "$f" 'mcpServers\.x\.args\[1\]' "\\u0000 in args"
	grep -Fq 'mcpServers.x.args[1]: contains a NUL character (\u0000)' "$f" ||
		fail "no 'mcpServers.x.args[1]: contains a NUL character (\u0000)' in $(basename "$f"): $(cat "$f")"
done
note "\\u0000: $(grep -F 'NUL' "$T/d.err")"

check "$T/does-not-exist.json"
expect 1 "a missing file"
grep -qF "$T/does-not-exist.json" "$T/d.err" &&
	grep -q "No such file or directory" "$T/d.err" ||
	fail "missing file: message does not name file and errno: $(cat "$T/d.err")"

# --- files others can write are refused -------------------------------------------
for mode in 0664 0606 0620 0602; do
	cp "$T/good.json" "$T/perm.json"
	chmod "$mode" "$T/perm.json"
	check "$T/perm.json"
	expect 1 "a config with mode $mode"
	grep -qi writable "$T/d.err" ||
		fail "mode $mode: message does not say the file is writable by others: $(cat "$T/d.err")"
	rm -f "$T/perm.json"
done
note "refused: $(head -1 "$T/d.err")"
chmod 0644 "$T/good.json"
check "$T/good.json"
expect 0 "a good file with mode 0644"
chmod 0600 "$T/good.json"

# start-up refuses it too.
cp "$T/good.json" "$T/perm.json"
chmod 0664 "$T/perm.json"
timeout -k 5 30 "$MCPD" -c "$T/perm.json" -s "$T/perm.sock" --log-target stderr \
	</dev/null >"$T/perm.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "mcpd started with a 0664 config exited $rc, expected 1: $(cat "$T/perm.out")"
grep -qi writable "$T/perm.out" || fail "mcpd start-up refusal does not say why: $(cat "$T/perm.out")"
[ ! -e "$T/perm.sock" ] || fail "mcpd created its socket despite refusing the config"

# --- unknown keys warn but pass ----------------------------------------------------
write_config "$T/unknown.json" <<JSON
{
  "mcpd": { "colour_scheme": "dark" },
  "mcpServers": {
    "x": { "command": "$MCP_FAKE", "alwaysAllow": ["echo"], "frobnicate": 1 }
  },
  "someOtherTool": { "setting": true }
}
JSON
check "$T/unknown.json"
expect 0 "a file with unknown keys"
grep -q frobnicate "$T/d.err" || fail "no warning about mcpServers.x.frobnicate: $(cat "$T/d.err")"
grep -q colour_scheme "$T/d.err" || fail "no warning about mcpd.colour_scheme: $(cat "$T/d.err")"
grep -q frobnicate "$T/c.err" || fail "mcpctl check-config does not warn about frobnicate: $(cat "$T/c.err")"
note "warning: $(grep frobnicate "$T/d.err" | head -1)"

# --- a top-level typo in a file without servers -------------------------------------
# "mcpServer" was a warning, then "ok, 0 servers", exit 0: mcpd ran nothing.
write_config "$T/typo.json" <<JSON
{
  "mcpServer": { "x": { "command": "$MCP_FAKE" } }
}
JSON
check "$T/typo.json"
expect 1 "a file whose only key is a typo of mcpServers"
grep -qF 'mcpServer: unknown key, and the file has no servers: did you mean "mcpServers"?' "$T/d.err" ||
	fail "mcpd -n does not name the near key: $(cat "$T/d.err")"
grep -qF 'did you mean "mcpServers"?' "$T/c.err" ||
	fail "mcpctl check-config does not name the near key: $(cat "$T/c.err")"
! grep -q 'ok, 0 servers' "$T/d.out" "$T/c.err" || fail "still reported as ok, 0 servers"
note "typo: $(head -n 1 "$T/d.err")"
# Beside servers, the same key only warns, naming the near one.
write_config "$T/typo-warn.json" <<JSON
{
  "mcpServers": { "x": { "command": "$MCP_FAKE" } },
  "group": {}
}
JSON
check "$T/typo-warn.json"
expect 0 "a typo beside servers"
grep -qF 'warning: group: unknown key, ignored (did you mean "groups"?)' "$T/d.err" ||
	fail "no warning naming the near key: $(cat "$T/d.err")"
# Empty files stay valid: a socket-activated mcpd may start with none.
for empty in '{}' '{ "mcpServers": {} }' '{ "mcpd": {}, "inputs": [] }'; do
	write_config_raw "$T/empty.json" "$empty"
	check "$T/empty.json"
	expect 0 "the file $empty"
	grep -q 'ok, 0 servers' "$T/d.out" || fail "$empty: mcpd -n said $(cat "$T/d.out" "$T/d.err")"
	[ ! -s "$T/d.err" ] || fail "$empty: diagnostics: $(cat "$T/d.err")"
done

# --- commands that a start would not find -------------------------------------------
# mcpd -n warns of each (without failing); found ones, and remote servers,
# get no word.
mkdir -p "$T/bin"
printf '#!/bin/sh\n' >"$T/bin/noexec" && chmod 0644 "$T/bin/noexec"
write_config "$T/commands.json" <<JSON
{
  "mcpServers": {
    "typo": { "command": "mcp-fake-no-such-command" },
    "gone": { "command": "$T/bin/gone" },
    "noexec": { "command": "$T/bin/noexec" },
    "elsewhere": { "command": "sh", "env": { "PATH": "$T/bin" } },
    "bare": { "command": "sh" },
    "full": { "command": "$MCP_FAKE" },
    "relative": { "command": "./mcp-fake", "cwd": "$(dirname "$MCP_FAKE")" },
    "remote": { "url": "https://example.com/mcp" }
  }
}
JSON
check "$T/commands.json"
expect 0 "commands that are not there"
grep -q 'ok, 8 servers' "$T/d.out" || fail "mcpd -n: $(cat "$T/d.out" "$T/d.err")"
for s in typo gone noexec elsewhere; do
	grep -q "^mcpd: warning: mcpServers\.$s\.command: " "$T/d.err" ||
		fail "mcpd -n does not warn of $s's command: $(cat "$T/d.err")"
done
grep -qF "mcpServers.typo.command: not found on the server's PATH" "$T/d.err" ||
	fail "the warning does not say the command is not on PATH: $(grep typo "$T/d.err")"
grep -qF 'mcpServers.elsewhere.command: not found on the server'"'"'s PATH (the PATH of its "env")' "$T/d.err" ||
	fail "the warning does not say which PATH: $(grep elsewhere "$T/d.err")"
grep -qF "mcpServers.gone.command: no such file" "$T/d.err" ||
	fail "no 'no such file' for a missing path: $(grep gone "$T/d.err")"
! grep -E 'mcpServers\.(bare|full|relative|remote)\.' "$T/d.err" ||
	fail "mcpd -n warns of commands that are there (above)"
[ "$(grep -c warning "$T/d.err")" = 4 ] || fail "not 4 warnings: $(cat "$T/d.err")"
# mcpctl check-config warns alike.
for s in typo gone noexec elsewhere; do
	grep -q "^mcpctl: warning: mcpServers\.$s\.command: " "$T/c.err" ||
		fail "mcpctl check-config does not warn of $s's command: $(cat "$T/c.err")"
done
[ "$(grep -c warning "$T/c.err")" = 4 ] || fail "mcpctl check-config: not 4 warnings: $(cat "$T/c.err")"
note "commands: $(grep typo "$T/d.err")"

# --- expansion is what the server gets ---------------------------------------------
write_config "$T/expand.json" <<JSON
{
  "mcpServers": {
    "expanded": {
      "command": "\${MCPD_TEST_FAKE}",
      "args": ["--pidfile=\${MCPD_TEST_PIDFILE}",
               "--startlog=\${MCPD_TEST_UNSET_VAR:-$T/default.starts}",
               "--stderr-noise=\${MCPD_TEST_EMPTY_VAR:-2}"],
      "env": { "FROM_ENV": "pid file \${MCPD_TEST_PIDFILE}", "PLAIN": "x y",
               "MCPD_TEST_DIR": "$T" },
      "cwd": "\${MCPD_TEST_CWD:-$T}"
    }
  }
}
JSON
unset MCPD_TEST_UNSET_VAR
export MCPD_TEST_FAKE=$MCP_FAKE MCPD_TEST_PIDFILE=$T/from-env.pid MCPD_TEST_EMPTY_VAR=
check "$T/expand.json"
expect 0 "a file with \${VAR} and \${VAR:-default}"
# Not passed on: a server gets a clean environment plus its "env".
export MCPD_TEST_HOST_ONLY=leak
start_mcpd "$T/expand.json"
wait_ready expanded
pid=$(server_pid expanded) || fail "expanded has no pid"
wait_for 30 eval '[ "$(read_pidfile "$T/from-env.pid")" = "$pid" ]' ||
	fail "\${MCPD_TEST_PIDFILE} did not reach the server: no pid $pid in $T/from-env.pid"
startlog_has "$T/default.starts" 1 ||
	fail "\${MCPD_TEST_UNSET_VAR:-default} did not expand to the default ($T/default.starts missing)"
args=$(tr '\0' ' ' <"/proc/$pid/cmdline")
case "$args" in
"$MCP_FAKE --pidfile=$T/from-env.pid --startlog=$T/default.starts --stderr-noise=2 ") ;;
*) fail "server argv is '$args'" ;;
esac
note "expanded argv: $args"
env_of() { tr '\0' '\n' <"/proc/$pid/environ"; }
env_of | grep -qxF "FROM_ENV=pid file $T/from-env.pid" ||
	fail "env value not expanded: $(env_of | grep FROM_ENV)"
env_of | grep -qxF "PLAIN=x y" || fail "configured env PLAIN missing: $(env_of | tr '\n' ' ')"
env_of | grep -q '^PATH=' || fail "no PATH in the server's environment"
! env_of | grep -q '^MCPD_TEST_HOST_ONLY=' ||
	fail "mcpd's own environment leaked into the server (MCPD_TEST_HOST_ONLY)"
[ "$(readlink "/proc/$pid/cwd")" = "$T" ] ||
	fail "server cwd is $(readlink "/proc/$pid/cwd"), expected $T"
note "server environment: $(env_of | cut -d= -f1 | sort | tr '\n' ' ')"
exit 0
