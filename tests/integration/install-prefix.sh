#!/bin/bash
# install-prefix.sh -- `make install PREFIX=...` installs there, as an
# ordinary user, after a build configured for another prefix.
#
# The front door (the top-level Makefile) used to configure build/ once,
# so a later PREFIX was ignored and make install went to /usr/local; and
# even a first install into a private prefix wrote the example to /etc and
# the units to systemd's system directories, so `make install
# PREFIX=$HOME/.local` as a user failed.  Here a copy of the source tree,
# with a copy of the build directory the suite runs (configured for
# another prefix), is installed by an ordinary user (nobody, through
# setpriv, when the suite runs as root) into $T/home/.local:
#   - make says it configures the build again, and exits 0;
#   - the programs, pages, completion, the example configuration
#     (etc/mcpd/mcpd.json.example) and the user units
#     (share/systemd/user, ExecStart naming the installed mcpd) are there,
#     and no system unit, no journal catalog, nothing outside the prefix;
#   - the installed mcpd has the prefix's configuration directory compiled
#     in (the objects that hold it were built again);
#   - make install again, and plain make, configure nothing again.
# It builds (two objects, three programs linked): tens of seconds.

. "$TESTS_SRCDIR/integration/lib.sh"

[ -n "${abs_top_builddir:-}" ] && [ -f "$abs_top_builddir/Makefile" ] &&
	[ -f "$abs_top_builddir/config.status" ] ||
	skip "abs_top_builddir is not set: no build directory to copy"
SRC=$(cd "$TESTS_SRCDIR/.." && pwd)
[ -f "$SRC/configure" ] || skip "no configure in $SRC"
for c in tar make cc; do
	command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
done

# As whom: an ordinary user.
AS=()
if [ "$(id -u)" = 0 ]; then
	id -u nobody >/dev/null 2>&1 || skip "no user nobody to install as"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups true 2>/dev/null ||
		skip "setpriv cannot switch to nobody"
	AS=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
fi

# The tree: the sources without their build directories, node_modules or
# fuzz corpora, and the suite's build directory as its build/ (timestamps
# kept, so that only what a new prefix changes is built again).
TREE=$T/tree
mkdir -p "$TREE" "$T/home"
tar -C "$SRC" --exclude-tag-all=config.status --exclude=node_modules \
	--exclude=./tests/fuzz/corpus --exclude=./tests/fuzz/crashes \
	--exclude=./tests/interop-deps --exclude=./.git -cf - . |
	tar -C "$TREE" -xf - || hard_error "cannot copy $SRC"
cp -a "$abs_top_builddir" "$TREE/build" || hard_error "cannot copy $abs_top_builddir"
rm -rf "$TREE/build/tests/interop-deps" "$TREE/build/fuzz"
had=$(sed -n 's/^prefix = //p' "$TREE/build/Makefile")
P=$T/home/.local
[ -n "$had" ] && [ "$had" != "$P" ] || hard_error "the build directory's prefix is '$had'"
if [ ${#AS[@]} -gt 0 ]; then
	chown -R nobody: "$TREE" "$T/home" && chmod 0711 "$T" ||
		hard_error "cannot give the tree to nobody"
fi

# front MAKE-ARGS...: the front door's make, as the ordinary user, on its
# own (not part of the make that runs the tests); output in $T/make.out.
front() {
	(unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
		cd "$T/home" &&
		env HOME="$T/home" PATH="$PATH" timeout 600 "${AS[@]}" \
			"${MAKE:-make}" -C "$TREE" "$@") >"$T/make.out" 2>&1 </dev/null
}

t0=$(now_ms)
front install PREFIX="$P"
rc=$?
note "make install PREFIX=$P as $(${AS[@]+"${AS[@]}"} id -un) after a build for $had: exit $rc in $(($(now_ms) - t0)) ms"
[ "$rc" = 0 ] || {
	grep -E 'rror|denied|not writable' "$T/make.out" | head -n 10 >&2
	fail "make install PREFIX=$P failed (exit $rc; see above)"
}
grep -q "^make: build was configured for prefix $had" "$T/make.out" ||
	fail "make did not say it configured build/ again for $P"

# What is installed: all of it below the prefix.
for f in bin/mcpd bin/mcpctl bin/mcpd-remote share/man/man8/mcpd.8 \
	share/man/man1/mcpctl.1 share/man/man5/mcpd.json.5 \
	share/bash-completion/completions/mcpctl \
	etc/mcpd/mcpd.json.example \
	share/systemd/user/mcpd.service share/systemd/user/mcpd.socket; do
	[ -f "$P/$f" ] || fail "not installed: $P/$f"
done
grep -qx "ExecStart=$P/bin/mcpd .*" "$P/share/systemd/user/mcpd.service" ||
	fail "the user unit does not run $P/bin/mcpd: $(grep ExecStart "$P/share/systemd/user/mcpd.service")"
! find "$P" -path '*/systemd/system*' -o -name 'mcpd.catalog' | grep . ||
	fail "system units or the catalog installed under $P (above)"
# Every directory make install wrote to, as it printed them.
outside=$(sed -n "s/.*install -c.* '\([^']*\)'\$/\1/p; s/.*mkdir -p '\([^']*\)'\$/\1/p" \
	"$T/make.out" | grep -v "^$P/" | sort -u)
[ -z "$outside" ] || fail "make install wrote outside $P: $outside"
note "installed: $(cd "$P" && find . -type f | sort | tr '\n' ' ')"

# The configuration directory compiled in is the prefix's.
if [ "$(id -u)" = 0 ]; then
	out=$("$P/bin/mcpd" -n 2>&1)
	grep -qF "$P/etc/mcpd/mcpd.json" <<<"$out" ||
		fail "the installed mcpd's default configuration (root's) is not below $P: $out"
else
	grep -qaF "$P/etc" "$P/bin/mcpd" ||
		fail "the installed mcpd does not hold $P/etc"
fi

# Once configured for it, nothing is configured again.
front install PREFIX="$P" || fail "make install PREFIX=$P again failed: $(tail -n 5 "$T/make.out")"
! grep -q 'configuring it again' "$T/make.out" ||
	fail "make install PREFIX=$P configured build/ again"
front || fail "make after the install failed: $(tail -n 5 "$T/make.out")"
! grep -q 'configuring it again' "$T/make.out" ||
	fail "plain make configured build/ again (for the default prefix)"
[ "$(sed -n 's/^prefix = //p' "$TREE/build/Makefile")" = "$P" ] ||
	fail "build/ is no longer configured for $P"

echo "PASS: $TEST_NAME"
