#!/bin/bash
# units.sh -- the systemd units pass `systemd-analyze verify` and say what
# mcpd and mcpctl expect.
#
# systemd-analyze verify works without systemd as PID 1: it loads the
# given unit files with their dependencies, checks every directive, that
# the programs of ExecStart= and ExecReload= exist and that the man pages
# of Documentation= exist.  It only warns about an unknown or misspelt
# directive and still exits 0, so any output about our units is a failure
# here.  The templates (systemd/*.service.in) are verified with @bindir@
# replaced by the directory of the built mcpd and @sysconfdir@ by /etc, in
# a temporary copy (install.sh checks what make fills in); the man
# pages are looked up in the source tree (MANPATH), so they are ours.
# User units are verified with `systemd-analyze --user verify`, which needs
# $XDG_RUNTIME_DIR; if that cannot work here, they are verified as system
# units instead (every directive they use exists there too), with a note.
#
# Then: the -s socket of each ExecStart is its socket unit's ListenStream=
# (else mcpd would be handed a socket it was not told about), and that is
# the socket mcpctl finds by default, as root for the system unit and as
# an ordinary user for the user unit; the directives the units exist for
# are present (Type=notify, WatchdogSec=, ExecReload=, OOMPolicy=continue,
# ...), and mcpd-http.socket's socket goes to mcpd.service named "http"
# on a loopback address; the system unit's exposure by `systemd-analyze security` is at most
# 4.0 ("OK").

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze is not installed"

UNITS_SRC=$TESTS_SRCDIR/../systemd
MAN_SRC=$TESTS_SRCDIR/../man
for f in mcpd.service.in mcpd.socket mcpd-http.socket user/mcpd.service.in \
	user/mcpd.socket user/mcpd-http.socket; do
	[ -r "$UNITS_SRC/$f" ] || hard_error "cannot read $UNITS_SRC/$f"
done
MCPD_DIR=$(dirname "$MCPD")
[ "$(basename "$MCPD")" = mcpd ] ||
	hard_error "MCPD must name a program called mcpd (it is $MCPD)"

# As root, systemd-analyze writes /run/systemd/systemd-units-load (the
# manager's stamp of when units were loaded) even when it only verifies
# files, and makes /run/systemd for it if need be.  Run it in a mount
# namespace with a private /run/systemd (or, where there is none, a
# private /run) so that the host, and the tests beside this one, are left
# alone.
SA=(systemd-analyze)
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
	if [ -d /run/systemd ]; then
		SA=(unshare --mount --propagation private sh -c 'mount -t tmpfs -o mode=0755,size=1m mcpd-test-run-systemd /run/systemd && exec "$@"' - systemd-analyze)
	else
		case $T/ in
		/run/*) note "no /run/systemd, and $T is below /run: systemd-analyze may make /run/systemd" ;;
		*) SA=(unshare --mount --propagation private sh -c 'mount -t tmpfs -o mode=0755,size=1m mcpd-test-run /run && exec "$@"' - systemd-analyze) ;;
		esac
	fi
fi

shopt -s extglob
FAILURES=0
check_fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	FAILURES=$((FAILURES + 1))
}

# --- Copies of the units with the built mcpd ---------------------------------

make_copy() { # SRC_DIR DEST_DIR
	mkdir -p "$2" || hard_error "mkdir $2"
	sed -e "s|@bindir@|$MCPD_DIR|g" -e "s|@sysconfdir@|/etc|g" \
		"$1/mcpd.service.in" >"$2/mcpd.service" &&
		cp "$1/mcpd.socket" "$1/mcpd-http.socket" "$2/" ||
		hard_error "cannot copy the units to $2"
	if grep -n '@[A-Za-z_]*@' "$2/mcpd.service" "$2/mcpd.socket" >&2; then
		check_fail "placeholders left after substituting @bindir@ (above)"
	fi
}
make_copy "$UNITS_SRC" "$T/system"
make_copy "$UNITS_SRC/user" "$T/user"

# The project's man pages, where man(1) finds them.
VERIFY_MAN=--man=yes
if command -v man >/dev/null 2>&1; then
	for page in "$MAN_SRC"/*.[1-8]; do
		sect=${page##*.}
		mkdir -p "$T/man/man$sect"
		ln -s "$page" "$T/man/man$sect/" || hard_error "ln -s $page"
	done
	export MANPATH=$T/man
else
	VERIFY_MAN=--man=no
	note "man is not installed: Documentation= pages are not checked"
fi

# verify_units LABEL [systemd-analyze options...] -- FILES...
# Fails on a non-zero exit and on any message about an mcpd unit; other
# messages (about the host's own units) are only shown.
verify_units() {
	local label=$1 out rc line bad=0
	shift
	out=$("$@" 2>&1)
	rc=$?
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		case $line in
		*mcpd*) echo "  $line" >&2; bad=1 ;;
		*) note "$label: host: $line" ;;
		esac
	done <<<"$out"
	if [ "$rc" != 0 ] || [ "$bad" = 1 ]; then
		check_fail "$label: systemd-analyze verify: exit $rc, messages above"
		return 1
	fi
	note "$label: systemd-analyze verify: clean"
}

verify_units "system units" "${SA[@]}" verify "$VERIFY_MAN" \
	"$T/system/mcpd.socket" "$T/system/mcpd-http.socket" \
	"$T/system/mcpd.service"

# A misspelt directive must be reported: proves the check above can fail.
sed -e 's/^Type=notify$/Typo=notify/' "$T/system/mcpd.service" >"$T/typo.service"
cp "$T/system/mcpd.socket" "$T/typo.socket"
sed -i -e 's/^Requires=mcpd.socket$/Requires=typo.socket/' "$T/typo.service"
if "${SA[@]}" verify --man=no "$T/typo.service" 2>&1 | grep -q "Typo"; then
	note "a misspelt directive is reported (self-check)"
else
	hard_error "systemd-analyze verify did not report an unknown directive; this test cannot judge the units"
fi

mkdir -p "$T/xdg" && chmod 0700 "$T/xdg"
probe=$(XDG_RUNTIME_DIR=$T/xdg "${SA[@]}" --user --man=no verify \
	"$T/user/mcpd.socket" 2>&1)
if ! grep -q "Failed to initialize manager" <<<"$probe"; then
	verify_units "user units" env XDG_RUNTIME_DIR="$T/xdg" \
		"${SA[@]}" --user verify "$VERIFY_MAN" \
		"$T/user/mcpd.socket" "$T/user/mcpd-http.socket" \
		"$T/user/mcpd.service"
else
	note "systemd-analyze --user verify cannot run here ($(head -n 1 <<<"$probe")); verifying the user units as system units"
	verify_units "user units (as system units)" "${SA[@]}" verify \
		"$VERIFY_MAN" "$T/user/mcpd.socket" "$T/user/mcpd-http.socket" \
		"$T/user/mcpd.service"
fi

# --- What the units say ------------------------------------------------------

# directive FILE KEY: the last value of KEY= in FILE (as systemd reads it:
# a later assignment wins).
directive() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# socket_of FILE: the value of -s/--socket in ExecStart=.
socket_of() {
	directive "$1" ExecStart | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "-s" || $i == "--socket") { print $(i + 1); exit }
			if ($i ~ /^--socket=/) { sub(/^--socket=/, "", $i); print $i; exit }
		}
	}'
}

expect() { # FILE KEY PATTERN WHY
	local v
	v=$(directive "$1" "$2")
	# shellcheck disable=SC2053
	[[ $v == $3 ]] || check_fail "$(basename "$(dirname "$1")")/$(basename "$1"): $2=${v:-(unset)}, expected $3: $4"
}

for kind in system user; do
	svc=$T/$kind/mcpd.service
	sock=$T/$kind/mcpd.socket
	expect "$svc" Type notify "mcpd reports READY=1/STOPPING=1"
	expect "$svc" WatchdogSec '[1-9]*' "mcpd pings WATCHDOG=1 when asked to"
	expect "$svc" ExecReload '/bin/kill -HUP $MAINPID' "SIGHUP reloads mcpd.json"
	expect "$svc" OOMPolicy continue "one server killed for memory must not stop mcpd"
	expect "$svc" KillMode '@(mixed|control-group)' "no server may outlive the service"
	expect "$svc" Restart on-failure "a crashed mcpd comes back"
	expect "$svc" Requires mcpd.socket "mcpd gets its socket from the socket unit"
	expect "$svc" MemoryMax '[1-9]*' "a ceiling for mcpd and its servers"
	expect "$svc" TasksMax '[1-9]*' "a ceiling for mcpd and its servers"
	expect "$svc" NoNewPrivileges yes "hardening"
	expect "$sock" SocketMode '@(0600|0660)' "mcpd admits only its user and root"
	expect "$sock" RemoveOnStop yes "no stale socket file once the socket unit stops"
	af=$(directive "$svc" RestrictAddressFamilies)
	for fam in AF_UNIX AF_INET AF_INET6 AF_NETLINK; do
		case " $af " in
		*" $fam "*) ;;
		*) check_fail "$kind mcpd.service: RestrictAddressFamilies lacks $fam (servers need it)" ;;
		esac
	done
	exec_start=$(directive "$svc" ExecStart)
	case " $exec_start " in
	*" --log-target journal "* | *" --log-target auto "* | *" --log-target=journal "* | *" --log-target=auto "*) ;;
	*) check_fail "$kind mcpd.service: ExecStart does not log to the journal: $exec_start" ;;
	esac
	# The HTTP front's socket goes to mcpd, under the name mcpd knows.
	http=$T/$kind/mcpd-http.socket
	expect "$http" FileDescriptorName http "mcpd tells the front's socket from its own by this name"
	expect "$http" Service mcpd.service "mcpd, not a service of its own, runs the front"
	expect "$http" ListenStream '@(127.+([0-9.]):+([0-9])|\[::1\]:+([0-9])|/*|%t/*)' \
		"mcpd serves only loopback or a Unix socket without behind_proxy"
	listen=$(directive "$sock" ListenStream)
	s=$(socket_of "$svc")
	[ -n "$s" ] && [ "$s" = "$listen" ] ||
		check_fail "$kind units: ExecStart has -s '${s:-(none)}', mcpd.socket has ListenStream=$listen; they must be equal"
done
expect "$T/system/mcpd.service" PrivateTmp yes "hardening (system unit only)"
[ "$(directive "$T/user/mcpd.service" ProtectHome)" = "" ] ||
	check_fail "user mcpd.service sets ProtectHome=; servers work on the user's files"
case " $(directive "$T/system/mcpd.service" ExecStart) " in
*" -c /etc/mcpd/mcpd.json "*) ;;
*) check_fail "system mcpd.service: ExecStart must name /etc/mcpd/mcpd.json (-c)" ;;
esac
note "system: ListenStream=$(directive "$T/system/mcpd.socket" ListenStream);" \
	"user: ListenStream=$(directive "$T/user/mcpd.socket" ListenStream)"

# mcpctl's default socket: the one it names when nothing listens there.
default_socket_of_mcpctl() { # [setpriv args...]
	"$@" env -u MCPD_SOCKET "$MCPCTL" status 2>&1 </dev/null |
		sed -n 's/^mcpctl: cannot connect to mcpd at \(.*\): .*/\1/p' | head -n 1
}
if [ "$(id -u)" = 0 ]; then
	d=$(default_socket_of_mcpctl)
	if [ -z "$d" ]; then
		note "could not learn mcpctl's default socket as root (is an mcpd running?)"
	elif [ "$d" != "$(directive "$T/system/mcpd.socket" ListenStream)" ]; then
		check_fail "as root, mcpctl connects to $d by default, but mcpd.socket listens on $(directive "$T/system/mcpd.socket" ListenStream)"
	fi
	if command -v setpriv >/dev/null 2>&1; then
		# Nothing needs to exist there: mcpctl names the path it tried.
		d=$(XDG_RUNTIME_DIR=$T/xdg-nobody default_socket_of_mcpctl \
			setpriv --reuid=65534 --regid=65534 --clear-groups)
		want=$(directive "$T/user/mcpd.socket" ListenStream)
		want=${want//%t/$T/xdg-nobody}
		if [ -z "$d" ]; then
			note "could not run mcpctl as uid 65534 to learn its default socket"
		elif [ "$d" != "$want" ]; then
			check_fail "as a user, mcpctl connects to $d by default, but the user mcpd.socket listens on $want"
		else
			note "mcpctl's default socket is the socket unit's, as root and as a user"
		fi
	fi
fi

# --- Exposure ------------------------------------------------------------------

if systemd-analyze security --help 2>&1 | grep -q -- --offline; then
	out=$("${SA[@]}" security --offline=true --threshold=40 --no-pager \
		"$T/system/mcpd.service" 2>&1)
	rc=$?
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
	if [ "$rc" != 0 ]; then
		check_fail "system mcpd.service: exposure ${score:-?} by systemd-analyze security, above 4.0"
	else
		note "system mcpd.service: exposure $score (at most 4.0)"
	fi
else
	note "systemd-analyze security --offline is not available: exposure not measured"
fi

[ "$FAILURES" = 0 ] || exit 1
exit 0
