#!/bin/bash
# config-owner.sh -- whose configuration mcpd runs.  The file decides what
# mcpd executes, as the user mcpd runs as, so:
#
# As root, a file root does not own is refused (mcpd -n, mcpctl
# check-config, start-up and reload alike; the message names the file,
# its owner by uid and name, and the chown that fixes it), and so is a
# root-owned file in a directory others can write to (0777); a sticky
# directory (1777) is fine, as is a symbolic link to a file root owns.
# As another user (nobody), a file owned by a third user (daemon) is
# refused, and its own or root's are run.  Needs root.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root to give files and processes other owners"
for u in nobody daemon; do
	id "$u" >/dev/null 2>&1 || skip "no user $u"
done
NOBODY_UID=$(id -u nobody)
NOBODY_GID=$(id -g nobody)
if setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups true 2>/dev/null; then
	AS_NOBODY=(setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups)
elif runuser -u nobody -- true 2>/dev/null; then
	AS_NOBODY=(runuser -u nobody --)
else
	skip "cannot run a process as nobody (no setpriv or runuser)"
fi
"${AS_NOBODY[@]}" test -x "$MCPD" || skip "$MCPD is not executable by nobody"

# check FILE [PREFIX...]: `mcpd -n -c FILE` and `mcpctl check-config
# FILE`, run as PREFIX says; RC_D and RC_C, output in d.err and c.err.
check() {
	local file=$1
	shift
	timeout -k 5 30 "$@" "$MCPD" -n -c "$file" >"$T/d.err" 2>&1 </dev/null
	RC_D=$?
	timeout -k 5 30 "$@" "$MCPCTL" -s "$T/none.sock" check-config "$file" \
		>"$T/c.err" 2>&1 </dev/null
	RC_C=$?
}

# expect WANT WHAT
expect() {
	[ "$RC_D" = "$1" ] || fail "$2: mcpd -n exited $RC_D, expected $1: $(cat "$T/d.err")"
	[ "$RC_C" = "$1" ] || fail "$2: mcpctl check-config exited $RC_C, expected $1: $(cat "$T/c.err")"
}

# says TEXT WHAT: both outputs hold TEXT.
says() {
	grep -qF -- "$1" "$T/d.err" || fail "$2: mcpd -n does not say '$1': $(cat "$T/d.err")"
	grep -qF -- "$1" "$T/c.err" || fail "$2: mcpctl check-config does not say '$1': $(cat "$T/c.err")"
}

# start_refused FILE WHAT: mcpd exits 1 at start-up and creates no socket.
start_refused() {
	local rc
	timeout -k 5 30 "$MCPD" -c "$1" -s "$T/refused.sock" --log-target stderr \
		</dev/null >"$T/start.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "$2: mcpd started with it exited $rc, expected 1: $(cat "$T/start.out")"
	[ ! -e "$T/refused.sock" ] || fail "$2: mcpd created its socket all the same"
}

CONFIG_JSON="{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"

# --- as root: the owner --------------------------------------------------------------
write_config "$T/theirs.json" "$CONFIG_JSON"
chmod 0644 "$T/theirs.json"
chown nobody "$T/theirs.json"
check "$T/theirs.json"
expect 1 "as root, a file owned by nobody"
says "$T/theirs.json: owned by uid $NOBODY_UID (nobody), not root" "as root, a file owned by nobody"
says "(chown root $T/theirs.json)" "as root, a file owned by nobody"
start_refused "$T/theirs.json" "as root, a file owned by nobody"
grep -qF "$T/theirs.json: owned by uid $NOBODY_UID (nobody), not root" "$T/start.out" ||
	fail "mcpd's start-up refusal does not name the file and its owner: $(cat "$T/start.out")"
note "refused: $(head -1 "$T/d.err")"

chown root "$T/theirs.json"
check "$T/theirs.json"
expect 0 "as root, the same file once root owns it"

# A symbolic link (dotfile managers) is followed: the file it names counts.
ln -s "$T/theirs.json" "$T/link.json"
check "$T/link.json"
expect 0 "as root, a link to a file root owns"
chown nobody "$T/theirs.json"
check "$T/link.json"
expect 1 "as root, a link to a file nobody owns"
says "$T/link.json: owned by uid $NOBODY_UID (nobody), not root" "as root, a link to a file nobody owns"
chown root "$T/theirs.json"

# --- as root: the directory ------------------------------------------------------------
mkdir "$T/open" "$T/sticky"
chmod 0777 "$T/open"
chmod 1777 "$T/sticky"
write_config "$T/open/mcpd.json" "$CONFIG_JSON"
check "$T/open/mcpd.json"
expect 1 "as root, a file in a 0777 directory"
says "$T/open/mcpd.json: directory $T/open is writable by group or others (mode 0777, no sticky bit)" \
	"as root, a file in a 0777 directory"
says "(chmod go-w $T/open)" "as root, a file in a 0777 directory"
start_refused "$T/open/mcpd.json" "as root, a file in a 0777 directory"
note "refused: $(head -1 "$T/d.err")"

write_config "$T/sticky/mcpd.json" "$CONFIG_JSON"
check "$T/sticky/mcpd.json"
expect 0 "as root, a file root owns in a 1777 directory"

# --- as root: reload --------------------------------------------------------------------
write_config "$T/mcpd.json" "$CONFIG_JSON"
start_mcpd "$T/mcpd.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"
chown nobody "$T/mcpd.json"
ctl reload >"$T/reload.out" 2>&1 && fail "mcpctl reload of a file nobody owns succeeded: $(cat "$T/reload.out")"
grep -qF "owned by uid $NOBODY_UID (nobody), not root" "$T/reload.out" ||
	fail "the refused reload does not say why: $(cat "$T/reload.out")"
[ "$(server_pid demo)" = "$pid" ] || fail "a refused reload changed demo"
chown root "$T/mcpd.json"
ctl reload >"$T/reload.out" 2>&1 || fail "mcpctl reload of the file root owns again failed: $(cat "$T/reload.out")"
stop_mcpd

# --- as nobody ------------------------------------------------------------------------------
# Others may pass through $T; the files are readable by all.
chmod 0711 "$T"
mkdir "$T/nobody"
chown nobody "$T/nobody"
chmod 0700 "$T/nobody"
write_config "$T/daemons.json" "$CONFIG_JSON"
chmod 0644 "$T/daemons.json"
chown daemon "$T/daemons.json"
DAEMON_UID=$(id -u daemon)
check "$T/daemons.json" "${AS_NOBODY[@]}"
expect 1 "as nobody, a file owned by daemon"
says "$T/daemons.json: owned by uid $DAEMON_UID (daemon), not by uid $NOBODY_UID (nobody) or root" \
	"as nobody, a file owned by daemon"
timeout -k 5 30 "${AS_NOBODY[@]}" "$MCPD" -c "$T/daemons.json" -s "$T/nobody/refused.sock" \
	--log-target stderr </dev/null >"$T/start.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "mcpd as nobody with a file owned by daemon exited $rc, expected 1: $(cat "$T/start.out")"
[ ! -e "$T/nobody/refused.sock" ] || fail "mcpd as nobody created its socket all the same"
note "refused: $(head -1 "$T/d.err")"

write_config "$T/roots.json" "$CONFIG_JSON"
chmod 0644 "$T/roots.json"
check "$T/roots.json" "${AS_NOBODY[@]}"
expect 0 "as nobody, a file root owns"
write_config "$T/nobody/own.json" "$CONFIG_JSON"
chown nobody "$T/nobody/own.json"
check "$T/nobody/own.json" "${AS_NOBODY[@]}"
expect 0 "as nobody, its own file"

# And it runs: mcpd as nobody, with root's file.  mcpctl as nobody too
# (as root it would not trust a socket in a directory nobody owns).
SOCK=$T/nobody/mcpd.sock
MCPD_PREFIX=("${AS_NOBODY[@]}")
ctl() {
	timeout -k 5 30 "${AS_NOBODY[@]}" "$MCPCTL" -s "$SOCK" "$@"
}
start_mcpd "$T/roots.json"
wait_ready demo
pid=$(server_pid demo) || fail "demo has no pid"
[ "$(stat -c %u "/proc/$pid")" = "$NOBODY_UID" ] ||
	fail "demo runs as uid $(stat -c %u "/proc/$pid"), not nobody's $NOBODY_UID"
note "mcpd as nobody runs root's file: demo is pid $pid, uid $NOBODY_UID"
stop_mcpd
exit 0
