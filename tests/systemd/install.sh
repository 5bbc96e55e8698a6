#!/bin/bash
# install.sh -- `make install-data DESTDIR=...` (systemd/install.am) puts
# each file where systemd, journalctl and bash-completion look, never
# touches a user's mcpd.json, and `make uninstall` takes it all back.
#
# Needs the build directory ($abs_top_builddir); the directories are the
# ones configure chose, read from the Makefile.  Asserted, under DESTDIR:
#   - system units in systemdsystemunitdir, user units in
#     systemduserunitdir (each mcpd.service the right one, naming
#     $(bindir)/mcpd, the system one $(sysconfdir)/mcpd/mcpd.json), the catalog in systemdcatalogdir, the completion in
#     $(datadir)/bash-completion/completions, all as in the source tree;
#   - the example configuration as $(sysconfdir)/mcpd/mcpd.json.example,
#     a valid configuration (mcpd -n), while an existing mcpd.json beside
#     it stays as it was, through install and uninstall;
#   - uninstall removes every installed file.
# A directory that systemd or journalctl does not search is only noted:
# the builder may have chosen it (distcheck does).

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

[ -n "${abs_top_builddir:-}" ] && [ -f "$abs_top_builddir/Makefile" ] ||
	skip "abs_top_builddir is not set: no build directory to install from"

SRC=$TESTS_SRCDIR/..
D=$T/root
# -o Makefile: the build directory is shared with the make that runs the
# tests and with the tests beside this one; were its Makefile older than
# Makefile.in, this make must not regenerate it there (and print
# config.status's messages into make_var's answer).
MAKE_CMD=("${MAKE:-make}" -C "$abs_top_builddir" -o Makefile)

# make_quiet TARGET...: run make in the build directory, on its own (not
# as part of the make that runs the tests), output in $T/make.log.
make_quiet() {
	(unset MAKEFLAGS MFLAGS MAKELEVEL; "${MAKE_CMD[@]}" "$@") >>"$T/make.log" 2>&1
}

# The value of a make variable as make expands it.
printf 'mcpd-test-print-%%:\n\t@echo $($*)\n' >"$T/print.mk"
make_var() {
	(unset MAKEFLAGS MFLAGS MAKELEVEL
		"${MAKE_CMD[@]}" -s -f Makefile -f "$T/print.mk" "mcpd-test-print-$1") 2>/dev/null
}
for v in bindir sysconfdir datadir systemdsystemunitdir systemduserunitdir systemdcatalogdir; do
	val=$(make_var "$v") || hard_error "cannot read $v from $abs_top_builddir/Makefile"
	printf -v "DIR_$v" '%s' "$val"
done
[ -n "$DIR_bindir" ] || hard_error "the Makefile has no bindir"
note "bindir=$DIR_bindir sysconfdir=$DIR_sysconfdir datadir=$DIR_datadir"
note "system units: ${DIR_systemdsystemunitdir:-(none)}; user units: ${DIR_systemduserunitdir:-(none)}; catalog: ${DIR_systemdcatalogdir:-(none)}"

# A user's own configuration, already there.
mkdir -p "$D$DIR_sysconfdir/mcpd"
printf '{ "mcpServers": {} }\n' >"$D$DIR_sysconfdir/mcpd/mcpd.json"
chmod 0600 "$D$DIR_sysconfdir/mcpd/mcpd.json"
users_config=$(cat "$D$DIR_sysconfdir/mcpd/mcpd.json")

make_quiet install-data DESTDIR="$D" || {
	tail -n 30 "$T/make.log" >&2
	fail "make install-data DESTDIR=$D failed (above)"
}

# same INSTALLED SOURCE: installed, mode 0644, equal to SOURCE.
same() {
	[ -f "$1" ] || fail "not installed: ${1#"$D"}"
	[ "$(stat -c %a "$1")" = 644 ] || fail "${1#"$D"} has mode $(stat -c %a "$1"), not 0644"
	cmp -s "$1" "$2" || fail "${1#"$D"} differs from $2"
}

# unit_ok INSTALLED TEMPLATE: the template with the directories filled in.
unit_ok() {
	[ -f "$1" ] || fail "not installed: ${1#"$D"}"
	[ "$(stat -c %a "$1")" = 644 ] || fail "${1#"$D"} has mode $(stat -c %a "$1"), not 0644"
	diff <(sed -e "s|@bindir@|$DIR_bindir|g" -e "s|@sysconfdir@|$DIR_sysconfdir|g" "$2") \
		"$1" >"$T/unit.diff" || {
		cat "$T/unit.diff" >&2
		fail "${1#"$D"} is not $2 with @bindir@=$DIR_bindir, @sysconfdir@=$DIR_sysconfdir (diff above)"
	}
	! grep -n '@[A-Za-z_]*@' "$1" >&2 || fail "${1#"$D"}: placeholders left (above)"
	sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$1" | grep -qx "$DIR_bindir/mcpd" ||
		fail "${1#"$D"}: ExecStart does not run $DIR_bindir/mcpd"
}

# in_search_path DIR PATHS: DIR is one of the lines of PATHS.
in_search_path() {
	grep -qxF "$(realpath -m "$1")" <<<"$(while read -r p; do realpath -m "$p"; done <<<"$2")"
}

SEARCH_SYSTEM=$(systemd-analyze unit-paths 2>/dev/null)
SEARCH_USER=$(XDG_RUNTIME_DIR=$T systemd-analyze --user unit-paths 2>/dev/null)
INSTALLED=()

case $DIR_systemdsystemunitdir in
'' | no) note "system units are not installed (--with-systemdsystemunitdir=no)" ;;
*)
	unit_ok "$D$DIR_systemdsystemunitdir/mcpd.service" "$SRC/systemd/mcpd.service.in"
	grep -q "^ExecStart=.* -c $DIR_sysconfdir/mcpd/mcpd.json " "$D$DIR_systemdsystemunitdir/mcpd.service" ||
		fail "the system mcpd.service does not read $DIR_sysconfdir/mcpd/mcpd.json, beside the example"
	same "$D$DIR_systemdsystemunitdir/mcpd.socket" "$SRC/systemd/mcpd.socket"
	same "$D$DIR_systemdsystemunitdir/mcpd-http.socket" "$SRC/systemd/mcpd-http.socket"
	INSTALLED+=("$DIR_systemdsystemunitdir/mcpd.service" "$DIR_systemdsystemunitdir/mcpd.socket"
		"$DIR_systemdsystemunitdir/mcpd-http.socket")
	if [ -n "$SEARCH_SYSTEM" ] && ! in_search_path "$DIR_systemdsystemunitdir" "$SEARCH_SYSTEM"; then
		note "systemd does not look for system units in $DIR_systemdsystemunitdir"
	fi
	;;
esac
case $DIR_systemduserunitdir in
'' | no) note "user units are not installed (--with-systemduserunitdir=no)" ;;
*)
	unit_ok "$D$DIR_systemduserunitdir/mcpd.service" "$SRC/systemd/user/mcpd.service.in"
	same "$D$DIR_systemduserunitdir/mcpd.socket" "$SRC/systemd/user/mcpd.socket"
	same "$D$DIR_systemduserunitdir/mcpd-http.socket" "$SRC/systemd/user/mcpd-http.socket"
	INSTALLED+=("$DIR_systemduserunitdir/mcpd.service" "$DIR_systemduserunitdir/mcpd.socket"
		"$DIR_systemduserunitdir/mcpd-http.socket")
	if [ -n "$SEARCH_USER" ] && ! in_search_path "$DIR_systemduserunitdir" "$SEARCH_USER"; then
		note "systemd --user does not look for units in $DIR_systemduserunitdir"
	fi
	;;
esac
case $DIR_systemdcatalogdir in
'' | no) note "the catalog is not installed (--with-systemdcatalogdir=no)" ;;
*)
	same "$D$DIR_systemdcatalogdir/mcpd.catalog" "$SRC/systemd/mcpd.catalog"
	INSTALLED+=("$DIR_systemdcatalogdir/mcpd.catalog")
	case $(realpath -m "$DIR_systemdcatalogdir") in
	/usr/lib/systemd/catalog | /usr/local/lib/systemd/catalog) ;;
	*) note "journalctl --update-catalog does not read $DIR_systemdcatalogdir" ;;
	esac
	;;
esac
same "$D$DIR_datadir/bash-completion/completions/mcpctl" "$SRC/etc/bash-completion/mcpctl"
same "$D$DIR_sysconfdir/mcpd/mcpd.json.example" "$SRC/etc/mcpd.json"
INSTALLED+=("$DIR_datadir/bash-completion/completions/mcpctl" "$DIR_sysconfdir/mcpd/mcpd.json.example")
[ "$(cat "$D$DIR_sysconfdir/mcpd/mcpd.json")" = "$users_config" ] ||
	fail "make install changed the existing $DIR_sysconfdir/mcpd/mcpd.json"
note "installed: ${INSTALLED[*]}"

# The example is a configuration mcpd accepts, once copied into place.
cp "$D$DIR_sysconfdir/mcpd/mcpd.json.example" "$T/example.json" && chmod 0600 "$T/example.json"
HOME=$T "$MCPD" -n -c "$T/example.json" >"$T/check.out" 2>&1 ||
	fail "mcpd -n rejects the example configuration: $(cat "$T/check.out")"
note "example: $(cat "$T/check.out")"

# install-data left the programs out; automake's uninstall rule for them
# needs their directory.
mkdir -p "$D$DIR_bindir"
make_quiet uninstall DESTDIR="$D" || {
	tail -n 30 "$T/make.log" >&2
	fail "make uninstall DESTDIR=$D failed (above)"
}
for f in "${INSTALLED[@]}"; do
	[ ! -e "$D$f" ] || fail "make uninstall left $f"
done
[ "$(cat "$D$DIR_sysconfdir/mcpd/mcpd.json" 2>/dev/null)" = "$users_config" ] ||
	fail "make uninstall removed or changed the user's $DIR_sysconfdir/mcpd/mcpd.json"
note "uninstall removed them and kept mcpd.json"
exit 0
