#!/bin/bash
# import-running.sh -- mcpctl import, install and uninstall work on the
# file the running mcpd reads.  mcpd runs on `-c mcpd.json`, relative to
# a directory of its own, not on the default file; mcpctl runs in a
# project directory, without --config:
#
# - `mcpctl import --yes` names that file (absolute) before the diff and
#   in its result line, writes the Cursor server into it, and the running
#   mcpd, reloaded, runs the server; the default file is not created (it
#   used to be written instead, "unchanged: 1 server", and nothing reached
#   mcpd);
# - `mcpctl install cursor --yes` names it and points Cursor at the
#   server it runs (it used to say "does not exist: run mcpctl import
#   first", reading the default); `mcpctl uninstall cursor --yes` puts
#   Cursor's file back; neither touches mcpd's file or the default;
# - -c FILE still wins: that file is written, the running mcpd's is not,
#   and mcpctl says the running mcpd reads the other one and does not
#   reload it;
# - with no mcpd answering, the default file is named, and why.
#
# Run as a user (nobody, when the test runs as root): root's default is
# /etc/mcpd/mcpd.json, which a test must never write.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

U=$T
AS_USER=()
if [ "$(id -u)" = 0 ]; then
	id nobody >/dev/null 2>&1 || skip "no user nobody to run as"
	AS_USER=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups)
	"${AS_USER[@]}" true 2>/dev/null || skip "cannot run a process as nobody (setpriv)"
	"${AS_USER[@]}" test -x "$MCPD" -a -x "$MCP_FAKE" ||
		skip "the binaries are not executable by nobody"
	chmod 0711 "$T"
	U=$T/u
	# Its state (pins, the servers' sandbox directories) is its own.
	export XDG_STATE_HOME=$U/state
	mkdir -p "$U"
	MCPD_PREFIX=("${AS_USER[@]}")
	# lib.sh's own look at mcpd, on a failure, is root's.
	export MCPCTL_TRUST_USER=nobody
	ctl() {
		timeout -k 5 30 "${AS_USER[@]}" "$MCPCTL" -s "$SOCK" "$@"
	}
fi
SOCK=$U/mcpd.sock
export HOME=$U/home
unset XDG_CONFIG_HOME
DEFAULT=$HOME/.config/mcpd/mcpd.json
CURSOR=$HOME/.cursor/mcp.json
mkdir -p "$U/etc" "$U/proj" "$U/starts" "$HOME/.cursor" || hard_error "mkdir"
CFG=$U/etc/mcpd.json

write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE"}
  }
}
JSON
cat >"$CURSOR" <<JSON
{
  "mcpServers": {
    "alpha": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$U/starts/alpha.starts"],
      "env": {"MCPD_TEST_DIR": "$T"}
    }
  }
}
JSON
cp "$CURSOR" "$T/cursor.orig"
[ ${#AS_USER[@]} = 0 ] || chown -R nobody "$U" || hard_error "chown $U"

# mcpd on a relative -c, from its own directory.
cd "$U/etc" || hard_error "cd $U/etc"
start_mcpd mcpd.json
wait_ready keep
cd "$U/proj" || hard_error "cd $U/proj"
MCPD_SAYS=$(status_json | jq -r .daemon.config)
[ "$MCPD_SAYS" = "$CFG" ] || fail "mcpd says it reads '$MCPD_SAYS', not $CFG"

# run NAME ARGS...: mcpctl ARGS as the user, output in $T/NAME.out; RC.
run() {
	local name=$1
	shift
	ctl "$@" >"$T/$name.out" 2>&1 </dev/null
	RC=$?
}

# names NAME WHAT: the output names mcpd's file as the running mcpd's.
names() {
	grep -qF "$CFG (the file the running mcpd reads, pid $MCPD_PID)" "$T/$1.out" ||
		fail "$2 does not name $CFG as the running mcpd's file: $(cat "$T/$1.out")"
}

# --- import ---------------------------------------------------------------------
run import import --yes --from cursor
[ "$RC" = 0 ] || fail "import --yes exited $RC: $(cat "$T/import.out")"
jq -e '.mcpServers | has("alpha") and has("keep")' "$CFG" >/dev/null ||
	fail "import did not write alpha into $CFG, the file mcpd reads: $(cat "$T/import.out")"
[ ! -e "$DEFAULT" ] || fail "import wrote the default $DEFAULT: $(cat "$T/import.out")"
names import "import"
head -1 "$T/import.out" | grep -qF "editing $CFG" ||
	fail "import does not name the file first: $(head -3 "$T/import.out")"
grep -qF "wrote $CFG (the file the running mcpd reads" "$T/import.out" ||
	fail "import's result line does not name $CFG: $(cat "$T/import.out")"
# The running mcpd sees the change: it reloaded and runs alpha.
wait_ready alpha
grep -q '^added: alpha' "$T/import.out" ||
	fail "the reload after import did not add alpha: $(cat "$T/import.out")"
cp "$CFG" "$T/cfg.imported"
note "import: $(head -1 "$T/import.out"); $(grep -c . "$T/import.out") lines"

# --- install ----------------------------------------------------------------------
run install install cursor --yes
[ "$RC" = 0 ] || fail "install cursor exited $RC: $(cat "$T/install.out")"
names install "install"
jq -e '.mcpServers.alpha.args[0:2] == ["connect", "alpha"]' "$CURSOR" >/dev/null ||
	fail "install did not point Cursor's alpha at mcpd: $(cat "$CURSOR"; cat "$T/install.out")"
grep -qF "with the servers of $CFG" "$T/install.out" ||
	fail "install's result line does not name $CFG: $(cat "$T/install.out")"
cmp -s "$CFG" "$T/cfg.imported" || fail "install changed $CFG"
[ ! -e "$DEFAULT" ] || fail "install created the default $DEFAULT"

# --- uninstall --------------------------------------------------------------------
run uninstall uninstall cursor --yes
[ "$RC" = 0 ] || fail "uninstall cursor exited $RC: $(cat "$T/uninstall.out")"
cmp -s "$CURSOR" "$T/cursor.orig" || fail "uninstall did not restore Cursor's file"
cmp -s "$CFG" "$T/cfg.imported" || fail "uninstall changed $CFG"
[ ! -e "$DEFAULT" ] || fail "uninstall created the default $DEFAULT"
server_is alpha ready || fail "alpha is $(server_field alpha state) after uninstall"

# --- -c FILE wins -------------------------------------------------------------------
OTHER=$U/other.json
write_config "$OTHER" '{"mcpServers": {}}'
[ ${#AS_USER[@]} = 0 ] || chown nobody "$OTHER"
run explicit import --yes --from cursor -c "$OTHER"
[ "$RC" = 0 ] || fail "import -c OTHER exited $RC: $(cat "$T/explicit.out")"
jq -e '.mcpServers | has("alpha")' "$OTHER" >/dev/null ||
	fail "import -c did not write $OTHER: $(cat "$T/explicit.out")"
cmp -s "$CFG" "$T/cfg.imported" || fail "import -c OTHER changed $CFG"
grep -qF "editing $OTHER (given with --config)" "$T/explicit.out" ||
	fail "import -c does not name $OTHER: $(cat "$T/explicit.out")"
grep -qF "the running mcpd (pid $MCPD_PID) reads $CFG" "$T/explicit.out" ||
	fail "import -c does not say the running mcpd reads $CFG: $(cat "$T/explicit.out")"
grep -q 'not reloaded' "$T/explicit.out" ||
	fail "import -c OTHER reloaded an mcpd that does not read it: $(cat "$T/explicit.out")"

# --- no mcpd: the default, said so ----------------------------------------------------
stop_mcpd
run nodaemon import --dry-run --from cursor
[ "$RC" = 0 ] || fail "import --dry-run without mcpd exited $RC: $(cat "$T/nodaemon.out")"
grep -qF "editing $DEFAULT (mcpd's default; no mcpd answers at $SOCK)" "$T/nodaemon.out" ||
	fail "without mcpd, import does not name the default: $(cat "$T/nodaemon.out")"
[ ! -e "$DEFAULT" ] || fail "a dry run created $DEFAULT"

echo "PASS: $TEST_NAME"
