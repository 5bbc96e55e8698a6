#!/bin/bash
# man-lint.sh -- the manual pages are clean for mandoc and groff.
#
# Each page in man/ must exist and pass `mandoc -T lint -W warning` without
# a single message, and, where groff is installed, `groff -ww -z -mandoc`
# without a single warning.  TESTS_SRCDIR is the absolute path of tests/;
# run by hand, the script finds the pages beside itself.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no linter installed).

set -u
export LC_ALL=C

if [ -z "${TESTS_SRCDIR:-}" ]; then
	case $0 in
	*/*) TESTS_SRCDIR=${0%/*} ;;
	*) TESTS_SRCDIR=. ;;
	esac
fi
MAN_DIR=$TESTS_SRCDIR/../man
PAGES=(mcpd.8 mcpctl.1 mcpd.json.5 mcpd-remote.1 mcpd-http.8)

have_mandoc=0
have_groff=0
command -v mandoc >/dev/null 2>&1 && have_mandoc=1
command -v groff >/dev/null 2>&1 && have_groff=1
if [ "$have_mandoc" = 0 ] && [ "$have_groff" = 0 ]; then
	echo "SKIP: man-lint: neither mandoc nor groff is installed" \
	    "(apt-get install mandoc)"
	exit 77
fi
[ "$have_mandoc" = 1 ] || echo "# mandoc is not installed; groff only"

failed=0

fail() {
	echo "FAIL: man-lint: $*"
	failed=1
}

for page in "${PAGES[@]}"; do
	file=$MAN_DIR/$page
	if [ ! -r "$file" ]; then
		fail "$page: missing (looked for $file)"
		continue
	fi

	if [ "$have_mandoc" = 1 ]; then
		# A stale mandoc.db is the machine's business, not the page's.
		out=$(mandoc -T lint -W warning "$file" 2>&1)
		rc=$?
		out=$(printf '%s\n' "$out" | grep -v 'mandoc\.db' | sed '/^$/d')
		if [ "$rc" != 0 ] || [ -n "$out" ]; then
			fail "$page: mandoc -T lint -W warning (exit $rc):"
			printf '%s\n' "$out" | sed 's/^/    /'
		else
			echo "# $page: mandoc clean"
		fi
	fi

	if [ "$have_groff" = 1 ]; then
		out=$(groff -ww -z -mandoc "$file" 2>&1)
		rc=$?
		if [ "$rc" != 0 ] || [ -n "$out" ]; then
			fail "$page: groff -ww -z -mandoc (exit $rc):"
			printf '%s\n' "$out" | sed 's/^/    /'
		else
			echo "# $page: groff clean"
		fi
	fi
done

[ "$failed" = 0 ] || exit 1
echo "PASS: man-lint: ${#PAGES[@]} pages"
exit 0
