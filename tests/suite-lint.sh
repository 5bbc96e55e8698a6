#!/bin/bash
# suite-lint.sh -- make check runs every test there is, and the tests keep
# the rules that make them safe to run side by side on a loaded machine.
#
#   1. Every test script under tests/ (integration, interop, systemd,
#      remote, and tests/ itself) is in make check's list, unless its
#      first lines say it is "sourced" or "not a test" (a library, or a
#      helper another test runs); every unit test (tests/unit/test_*.c) and
#      fuzz target (tests/fuzz/fuzz_*.c) is in the list too.  A test that
#      no list names never runs, and nobody notices.
#   2. No test uses a bash co-process: bash takes its pid variable and its
#      fds away as soon as it has ended, even before the next line reads
#      them (lib.sh's spawn does the same job without the race).
#
# make check sets SUITE_TESTS to its list of tests (paths relative to the
# build directory); TESTS_SRCDIR is the absolute path of tests/.

set -u
export LC_ALL=C

[ -n "${TESTS_SRCDIR:-}" ] || { echo "ERROR: suite-lint: TESTS_SRCDIR is not set" >&2; exit 99; }
[ -n "${SUITE_TESTS:-}" ] || { echo "ERROR: suite-lint: SUITE_TESTS is not set (make check sets it)" >&2; exit 99; }

failed=0
fail() {
	echo "FAIL: suite-lint: $*"
	failed=1
}

listed() {
	local t
	for t in $SUITE_TESTS; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}

n=0
for f in "$TESTS_SRCDIR"/*.sh "$TESTS_SRCDIR"/integration/*.sh \
	"$TESTS_SRCDIR"/interop/*.sh "$TESTS_SRCDIR"/systemd/*.sh \
	"$TESTS_SRCDIR"/remote/*.sh; do
	[ -f "$f" ] || continue
	rel=tests/${f#"$TESTS_SRCDIR"/}
	if listed "$rel"; then
		n=$((n + 1))
		continue
	fi
	head -n 5 "$f" | grep -q 'sourced\|not a test' ||
		fail "$rel is not in make check's list of tests (Makefile.am), and its first lines do not say it is sourced or not a test"
done
for f in "$TESTS_SRCDIR"/unit/test_*.c; do
	[ -f "$f" ] || continue
	rel=tests/unit/$(basename "$f" .c)
	listed "$rel" || fail "$rel is not in make check's list of tests (UNIT_TESTS in Makefile.am)"
	n=$((n + 1))
done
for f in "$TESTS_SRCDIR"/fuzz/fuzz_*.c; do
	[ -f "$f" ] || continue
	case $f in */fuzz_util.c) continue ;; esac
	rel=tests/fuzz/replay_$(basename "$f" .c | sed 's/^fuzz_//')
	listed "$rel" || fail "$rel (the replay of $(basename "$f")) is not in make check's list of tests (FUZZ_REPLAY in Makefile.am)"
	n=$((n + 1))
done

# The word is split so that this file does not find itself.
word=co''proc
hits=$(grep -rnw "$word" "$TESTS_SRCDIR" --include='*.sh' --include='*.bash')
[ -z "$hits" ] || fail "a bash $word in the tests (use spawn from integration/lib.sh): $hits"

[ "$failed" = 0 ] || exit 1
echo "# $n tests listed; no $word"
exit 0
