#!/bin/bash
# deps.sh -- `make deps` (build-aux/install-deps) says what it checked and
# what it installed; it used to print nothing at all when every package
# was there.
#
# dpkg-query, apt-get and sudo are stand-ins in $T/bin, first on PATH:
# dpkg-query says every package is installed but those of $DEPS_MISSING,
# apt-get and sudo only write down how they were called.  Nothing is
# installed.
#   - all present: one line, "make deps: all N build packages present",
#     N the number of packages looked up;
#   - two missing: both named before apt-get runs, apt-get installs
#     exactly those, and a last line says they are installed;
#   - apt-get failing: install-deps fails, and says nothing was installed.

. "$TESTS_SRCDIR/integration/lib.sh"

SCRIPT=$TESTS_SRCDIR/../build-aux/install-deps
[ -f "$SCRIPT" ] || hard_error "$SCRIPT is missing"

mkdir -p "$T/bin"
cat >"$T/bin/dpkg-query" <<'EOF'
#!/bin/sh
p=$(eval echo "\${$#}")
echo "$p" >>"$DEPS_LOG.query"
for m in $DEPS_MISSING; do
	[ "$m" = "$p" ] && { echo "dpkg-query: no packages found matching $p" >&2; exit 1; }
done
printf 'ii '
EOF
cat >"$T/bin/apt-get" <<'EOF'
#!/bin/sh
echo "apt-get $*" >>"$DEPS_LOG"
[ "$1" = install ] && [ -n "${DEPS_APT_FAILS:-}" ] && exit 100
exit 0
EOF
cat >"$T/bin/sudo" <<'EOF'
#!/bin/sh
echo "sudo" >>"$DEPS_LOG"
exec "$@"
EOF
chmod 0755 "$T/bin/dpkg-query" "$T/bin/apt-get" "$T/bin/sudo"
export DEPS_LOG=$T/apt.log

# deps MODE: run install-deps MODE with the stand-ins; RC, $T/out.
deps() {
	rm -f "$DEPS_LOG" "$DEPS_LOG.query"
	PATH=$T/bin:$PATH timeout 60 sh "$SCRIPT" "$1" >"$T/out" 2>&1 </dev/null
	RC=$?
}

# --- everything there ---------------------------------------------------------------
DEPS_MISSING= deps build
[ "$RC" = 0 ] || fail "install-deps build exited $RC: $(cat "$T/out")"
n=$(wc -l <"$DEPS_LOG.query")
[ "$n" -gt 0 ] || hard_error "install-deps looked up no package"
grep -qx "make deps: all $n build packages present" "$T/out" ||
	fail "with all $n packages there, make deps said: '$(cat "$T/out")'"
[ ! -e "$DEPS_LOG" ] || fail "apt-get ran with nothing missing: $(cat "$DEPS_LOG")"
note "all there: $(cat "$T/out")"

DEPS_MISSING= deps check
[ "$RC" = 0 ] || fail "install-deps check exited $RC: $(cat "$T/out")"
grep -q "^make deps-check: all $(wc -l <"$DEPS_LOG.query") build and test packages present" "$T/out" ||
	fail "make deps-check said: '$(cat "$T/out")'"

# --- two missing ----------------------------------------------------------------------
DEPS_MISSING="libcjson-dev jq" deps check
[ "$RC" = 0 ] || fail "install-deps check exited $RC: $(cat "$T/out")"
head -n 1 "$T/out" | grep -q "installing: libcjson-dev jq$" ||
	fail "the packages to install are not named first: $(cat "$T/out")"
grep -q "^apt-get install .* libcjson-dev jq$" "$DEPS_LOG" ||
	fail "apt-get did not install exactly libcjson-dev jq: $(cat "$DEPS_LOG")"
tail -n 1 "$T/out" | grep -qx "make deps-check: installed: libcjson-dev jq" ||
	fail "no last line saying they are installed: $(cat "$T/out")"
note "two missing: $(head -n 1 "$T/out") ... $(tail -n 1 "$T/out")"

# --- apt-get fails --------------------------------------------------------------------
DEPS_MISSING=libcjson-dev DEPS_APT_FAILS=1 deps build
[ "$RC" != 0 ] || fail "install-deps succeeded though apt-get failed: $(cat "$T/out")"
! grep -q "installed:" "$T/out" || fail "said installed though apt-get failed: $(cat "$T/out")"
grep -qx "make deps: apt-get failed (above); still missing: libcjson-dev" "$T/out" ||
	fail "does not say what is still missing: $(cat "$T/out")"

echo "PASS: $TEST_NAME"
