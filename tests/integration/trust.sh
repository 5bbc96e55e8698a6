#!/bin/bash
# trust.sh -- another user can never pose as mcpd.
#
# The victim (nobody) and the squatter (daemon) are two ordinary users.
# The squatter runs a stand-in "mcpd" that records every connection and
# every byte it receives, and answers each request.
#
#   A  a socket in a directory the squatter owns (given with MCPD_SOCKET):
#      status, call and connect are refused before connecting, exit 3,
#      with a message naming the socket and the squatter; the stand-in
#      sees no connection at all.
#   B  a socket in the victim's own directory, but listened on by the
#      squatter: refused on SO_PEERCRED, naming the squatter's uid; the
#      stand-in receives no byte.
#   C  without XDG_RUNTIME_DIR, the default socket is below the victim's
#      home: a squatter holding /tmp/mcpd-UID (the old default) receives
#      nothing, and the victim's own mcpd starts and answers there.  That
#      name is the machine's, not this test's: part C runs in a mount
#      namespace whose /tmp is its own (where one can be made).
#   D  mcpd refuses a socket directory that exists and belongs to another
#      user, or that others can write to (even with the sticky bit).
#   E  an mcpd of another ordinary user that shares its socket with a
#      socket_group the victim is in: refused, unless the victim names
#      that user in MCPCTL_TRUST_USER.
# Needs root (to run as two other users) and node (the stand-in).

. "$TESTS_SRCDIR/integration/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run as two other users"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
need_node
VICTIM=nobody
SQUATTER=daemon
for u in "$VICTIM" "$SQUATTER"; do
	getent passwd "$u" >/dev/null || skip "no user $u"
done
VUID=$(id -u "$VICTIM")
SUID=$(id -u "$SQUATTER")
[ "$VUID" != 0 ] && [ "$SUID" != 0 ] && [ "$VUID" != "$SUID" ] ||
	skip "$VICTIM and $SQUATTER are not two distinct ordinary users"
as_victim=(setpriv --reuid="$VUID" --regid="$(id -g "$VICTIM")" --clear-groups)
as_squatter=(setpriv --reuid="$SUID" --regid="$(id -g "$SQUATTER")" --clear-groups)
for b in "$MCPCTL" "$MCPD" "$MCP_FAKE"; do
	"${as_victim[@]}" test -x "$b" || skip "$b is not executable by $VICTIM"
done

# Others may pass through $T, and no more.
chmod 0711 "$T"

# The stand-in: listens on PATH, logs "connect" and the bytes it receives
# to LOG, answers every request line with an empty result.
cat >"$T/squat.js" <<'EOF'
const net = require('net'), fs = require('fs');
const [path, log] = process.argv.slice(2);
process.umask(0);
net.createServer((c) => {
	fs.appendFileSync(log, 'connect\n');
	let buf = '';
	c.on('data', (d) => {
		fs.appendFileSync(log, 'bytes ' + d.length + ': ' + d + '\n');
		buf += d;
		let nl;
		while ((nl = buf.indexOf('\n')) >= 0) {
			let m;
			try { m = JSON.parse(buf.slice(0, nl)); } catch (e) { m = {}; }
			buf = buf.slice(nl + 1);
			if (m.id !== undefined)
				c.write(JSON.stringify({jsonrpc: '2.0', id: m.id,
				    result: {servers: [], tools: [], content: []}}) + '\n');
		}
	});
	c.on('error', () => {});
}).listen(path, () => fs.appendFileSync(log, 'listening\n'));
EOF
chmod 0644 "$T/squat.js"

SQUAT_PIDS=()
kill_squatters() {
	local p
	for p in "${SQUAT_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
CLEANUP_HOOKS+=(kill_squatters)

# Part C runs its commands with this prefix (see there).
C_NS=()

# squat PATH LOG: the squatter listens on PATH (in a directory it can
# write to) and logs to LOG.
squat() {
	"${C_NS[@]}" "${_MCPD_GUARD[@]}" "${as_squatter[@]}" "$NODE" "$T/squat.js" "$1" "$2" \
		</dev/null >>"$T/squat.out" 2>&1 &
	SQUAT_PIDS+=($!)
	wait_for 30 grep -q listening "$2" 2>/dev/null ||
		fail "the stand-in did not listen on $1: $(cat "$T/squat.out")"
}

# received LOG: what the stand-in got besides starting ("" if nothing).
received() {
	grep -v '^listening$' "$1" 2>/dev/null
}

# victim NAME ARGS...: mcpctl as the victim, output in $T/NAME.out/.err.
victim() {
	local name=$1
	shift
	timeout -k 5 30 "${C_NS[@]}" "${as_victim[@]}" env -u MCPD_SOCKET -u XDG_RUNTIME_DIR \
		-u XDG_CACHE_HOME HOME="$T/vhome" "$@" \
		>"$T/$name.out" 2>"$T/$name.err" </dev/null
	RC=$?
}

mkdir -p "$T/vhome" "$T/vdir" "$T/sq"
chown "$VICTIM" "$T/vhome" "$T/vdir"
chown "$SQUATTER" "$T/sq"
chmod 0700 "$T/vhome" "$T/vdir"
chmod 0755 "$T/sq"
write_config "$T/v.json" "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
chown "$VICTIM" "$T/v.json"

# --- A: the squatter's directory ----------------------------------------------

squat "$T/sq/mcpd.sock" "$T/sq/a.log"
for cmd in "status" "call demo echo text=hi" "connect demo"; do
	# shellcheck disable=SC2086
	victim a env MCPD_SOCKET="$T/sq/mcpd.sock" "$MCPCTL" $cmd
	[ "$RC" = 3 ] ||
		fail "A: mcpctl $cmd on a socket in $SQUATTER's directory exited $RC, not 3: $(cat "$T/a.err" "$T/a.out")"
	grep -qF "refusing $T/sq/mcpd.sock: its directory $T/sq is owned by uid $SUID ($SQUATTER)" "$T/a.err" ||
		fail "A: mcpctl $cmd does not name the socket and its owner: $(cat "$T/a.err")"
	got=$(received "$T/sq/a.log")
	[ -z "$got" ] || fail "A: the squatter's stand-in was reached by mcpctl $cmd: $got"
done
note "A: $(head -n 1 "$T/a.err")"

# --- B: the right directory, the wrong listener -------------------------------

squat "$T/sq/b.sock" "$T/sq/b.log"
# Only root could do this; it stands for any way a socket of another user
# could come to be there.
mv "$T/sq/b.sock" "$T/vdir/mcpd.sock" || hard_error "cannot move the socket"
for cmd in "status" "call demo echo text=hi"; do
	# shellcheck disable=SC2086
	victim b "$MCPCTL" -s "$T/vdir/mcpd.sock" $cmd
	[ "$RC" = 3 ] ||
		fail "B: mcpctl $cmd on a socket that $SQUATTER listens on exited $RC, not 3: $(cat "$T/b.err" "$T/b.out")"
	grep -qF "refusing $T/vdir/mcpd.sock: the process listening there (pid ${SQUAT_PIDS[1]}) runs as uid $SUID ($SQUATTER)" "$T/b.err" ||
		fail "B: mcpctl $cmd does not name the socket and the listener's uid: $(cat "$T/b.err")"
	got=$(received "$T/sq/b.log" | grep -v '^connect$')
	[ -z "$got" ] || fail "B: the squatter's stand-in received bytes from mcpctl $cmd: $got"
done
note "B: $(head -n 1 "$T/b.err")"

# --- C: the default socket without XDG_RUNTIME_DIR ----------------------------

# /tmp/mcpd-UID would be shared with every other test and user of the
# machine.  A mount namespace gets a /tmp of its own (a tmpfs), with what
# the test uses from the host's /tmp bound at its own path inside it ($T,
# and the build and source trees when they lie below /tmp, as a fresh
# clone in /tmp does); its holder process keeps it while part C runs in
# it (C_NS).
C_HOLDER=
stop_c_holder() {
	[ -n "$C_HOLDER" ] || return 0
	kill -TERM "$C_HOLDER" 2>/dev/null
	wait "$C_HOLDER" 2>/dev/null
	C_HOLDER=
}
CLEANUP_HOOKS+=(stop_c_holder)
# The top directories below /tmp of everything the test runs or reads.
keep=()
for p in "$T" "$MCPD" "$MCPCTL" "$MCP_FAKE" "$TESTS_SRCDIR" "$PWD" \
	"${abs_top_builddir:-/}"; do
	p=$(realpath -m "$p")
	case $p in
	/tmp/?*) p=${p#/tmp/}; p=${p%%/*} ;;
	*) continue ;;
	esac
	case " ${keep[*]} " in *" $p "*) ;; *) keep+=("$p") ;; esac
done
# shellcheck disable=SC2016
setpriv --pdeathsig TERM unshare --mount --propagation private sh -c '
	T=$1
	shift
	mkdir "$T/ns-tmp" &&
		mount -t tmpfs -o mode=1777,size=4m mcpd-test-tmp "$T/ns-tmp" || exit 1
	for rel; do
		mkdir -p "$T/ns-tmp/$rel" &&
			mount --bind "/tmp/$rel" "$T/ns-tmp/$rel" || exit 1
	done
	mount --move "$T/ns-tmp" /tmp || exit 1
	touch "$T/ns-tmp.ready"
	exec sleep infinity' - "$T" "${keep[@]}" </dev/null >"$T/ns-tmp.log" 2>&1 &
C_HOLDER=$!
if wait_for 30 eval '[ -e "$T/ns-tmp.ready" ] || ! pid_running "$C_HOLDER"' &&
	[ -e "$T/ns-tmp.ready" ] &&
	nsenter -t "$C_HOLDER" -m -- sh -c '[ -d "$1" ] && [ ! -e "$2" ]' - "$T/vhome" "/tmp/mcpd-$VUID"; then
	C_NS=(nsenter -t "$C_HOLDER" -m --)
	note "C: in a mount namespace with a /tmp of its own (held by pid $C_HOLDER)"
else
	note "C: no mount namespace with a private /tmp here ($(head -c 300 "$T/ns-tmp.log")); using the host's /tmp"
	stop_c_holder
fi
OLD=/tmp/mcpd-$VUID
if [ ${#C_NS[@]} = 0 ] && [ -e "$OLD" ]; then
	note "C: $OLD exists already; not squatting it"
else
	if [ ${#C_NS[@]} = 0 ]; then
		remove_old() { rm -rf "$OLD"; }
		CLEANUP_HOOKS+=(remove_old)
	fi
	"${C_NS[@]}" sh -c 'mkdir "$1" && chown "$2" "$1" && chmod 0755 "$1"' - "$OLD" "$SQUATTER" ||
		hard_error "cannot make $OLD"
	squat "$OLD/mcpd.sock" "$T/sq/c.log"
fi
victim c "$MCPCTL" status
[ "$RC" = 3 ] || fail "C: mcpctl status with no mcpd exited $RC, not 3: $(cat "$T/c.err" "$T/c.out")"
want=$T/vhome/.cache/mcpd/mcpd.sock
grep -qF "cannot connect to mcpd at $want:" "$T/c.err" ||
	fail "C: mcpctl did not look for $want by default: $(cat "$T/c.err")"
got=$(received "$T/sq/c.log")
[ -z "$got" ] || fail "C: the stand-in on $OLD was reached: $got"

"${C_NS[@]}" "${_MCPD_GUARD[@]}" "${as_victim[@]}" env -u MCPD_SOCKET -u XDG_RUNTIME_DIR \
	-u XDG_CACHE_HOME HOME="$T/vhome" "$MCPD" -c "$T/v.json" \
	--log-target stderr </dev/null >>"$MCPD_LOG" 2>&1 &
MCPD_PID=$!
MCPD_PIDS+=("$MCPD_PID")
victim_status() {
	victim c "$MCPCTL" --json status && [ "$RC" = 0 ]
}
if ! wait_for 30 victim_status; then
	mcpd_running || fail "C: the victim's mcpd did not start: $(tail -n 3 "$MCPD_LOG")"
	fail "C: the victim's mcpd did not answer on its default socket: $(cat "$T/c.err")"
fi
[ "$(jq -r .daemon.pid "$T/c.out")" = "$MCPD_PID" ] ||
	fail "C: status was answered by pid $(jq -r .daemon.pid "$T/c.out"), not by the victim's mcpd $MCPD_PID"
[ -S "$want" ] || fail "C: no socket at $want"
[ "$(stat -c '%U %a' "$T/vhome/.cache")" = "$VICTIM 700" ] ||
	fail "C: $T/vhome/.cache is $(stat -c '%U %a' "$T/vhome/.cache"), expected $VICTIM 700"
got=$(received "$T/sq/c.log")
[ -z "$got" ] || fail "C: the stand-in on $OLD was reached: $got"
note "C: with $OLD squatted, the victim's mcpd and mcpctl meet at $want"
stop_mcpd
[ "$MCPD_STATUS" = 0 ] || fail "C: the victim's mcpd exited $MCPD_STATUS on SIGTERM"
C_NS=()

# --- D: mcpd and directories it must not use ----------------------------------

# victim_mcpd DIR: mcpd as the victim on DIR/mcpd.sock; must refuse.
victim_mcpd_refuses() {
	local dir=$1 what=$2 rc
	timeout -k 5 20 "${as_victim[@]}" "$MCPD" -c "$T/v.json" \
		-s "$dir/mcpd.sock" --log-target stderr </dev/null >"$T/d.err" 2>&1
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] ||
		fail "D: mcpd started (or hung, $rc) on a directory $what: $(cat "$T/d.err")"
	[ ! -e "$dir/mcpd.sock" ] || fail "D: mcpd created a socket in a directory $what"
}

mkdir "$T/sq2" && chown "$SQUATTER" "$T/sq2" && chmod 0755 "$T/sq2"
victim_mcpd_refuses "$T/sq2" "owned by $SQUATTER"
grep -qF "$T/sq2 is owned by uid $SUID ($SQUATTER), not by uid $VUID ($VICTIM) or root" "$T/d.err" ||
	fail "D: mcpd does not say who owns $T/sq2: $(cat "$T/d.err")"
note "D: $(tail -n 1 "$T/d.err")"
for mode in 1777 0770; do
	mkdir "$T/v$mode" && chown "$VICTIM" "$T/v$mode" && chmod "$mode" "$T/v$mode"
	victim_mcpd_refuses "$T/v$mode" "of mode $mode"
	grep -qF "$T/v$mode is writable by" "$T/d.err" ||
		fail "D: mcpd does not say that $T/v$mode is writable by others: $(cat "$T/d.err")"
done
note "D: mcpd refused directories of another user and of modes 1777 and 0770"

# --- E: trusting another user's mcpd on purpose -------------------------------

VGROUP=$(id -gn "$VICTIM")
mkdir "$T/share" && chown "$SQUATTER" "$T/share" && chmod 0755 "$T/share"
write_config "$T/share.json" "{\"mcpd\": {\"socket_group\": \"$VGROUP\"}, \"mcpServers\": {}}"
chown "$SQUATTER" "$T/share.json"
SHARED=$T/share/run/mcpd.sock
"${_MCPD_GUARD[@]}" setpriv --reuid="$SUID" --regid="$(id -g "$SQUATTER")" \
	--groups="$(id -g "$VICTIM")" "$MCPD" -c "$T/share.json" -s "$SHARED" \
	--log-target stderr </dev/null >>"$MCPD_LOG" 2>&1 &
MCPD_PID=$!
MCPD_PIDS+=("$MCPD_PID")
wait_for 30 test -S "$SHARED" || fail "E: $SQUATTER's mcpd did not create $SHARED"
[ "$(stat -c '%a %G' "$SHARED")" = "660 $VGROUP" ] ||
	fail "E: $SHARED is $(stat -c '%a %G' "$SHARED"), expected 660 $VGROUP"
victim e "$MCPCTL" -s "$SHARED" status
[ "$RC" = 3 ] || fail "E: mcpctl trusted $SQUATTER's mcpd without being told to (exit $RC)"
grep -qF "owned by uid $SUID ($SQUATTER)" "$T/e.err" ||
	fail "E: the refusal does not name $SQUATTER: $(cat "$T/e.err")"
victim e env MCPCTL_TRUST_USER="$SQUATTER" "$MCPCTL" -s "$SHARED" --json status
[ "$RC" = 0 ] || fail "E: with MCPCTL_TRUST_USER=$SQUATTER, mcpctl status exited $RC: $(cat "$T/e.err")"
[ "$(jq -r .daemon.pid "$T/e.out")" = "$MCPD_PID" ] ||
	fail "E: status answered by $(jq -r .daemon.pid "$T/e.out"), not $MCPD_PID"
note "E: $SQUATTER's mcpd shared with group $VGROUP: refused by default, used with MCPCTL_TRUST_USER=$SQUATTER"
stop_mcpd
exit 0
