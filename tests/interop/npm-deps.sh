#!/bin/bash
# npm-deps.sh -- the pinned npm packages of the tests (the official SDK,
# the MCP servers), installed once; run by the tests, the benchmark and
# make check, not a test.
#
#   bash npm-deps.sh BUILDDIR [FILE...]
#
# The packages live in node_modules beside this script, from its
# package-lock.json, installed with `npm ci` unless node_modules is newer
# than the lockfile and package.json and every FILE (a path below
# node_modules; by default the SDK and the three servers) is there.  A
# read-only source tree (make distcheck) gets a copy in
# BUILDDIR/tests/interop-deps instead.  Prints that directory.
#
# Tests run side by side, and two builds may share the source tree: one
# installer at a time.  The lock on the directory covers the copy (a copy
# rewritten under a running npm ci, or newer than its node_modules, would
# have it all installed again under the tests using it); the one on
# package-lock.json is held while npm runs.  NPM_TIMEOUT_S (600) bounds
# each wait and the install.  Messages and npm's output go to stderr; exit
# 1 with the reason on any failure.

set -u
export LC_ALL=C

src=$(cd "$(dirname "$0")" && pwd) || exit 1
builddir=${1:?usage: npm-deps.sh BUILDDIR [FILE...]}
shift
[ $# -gt 0 ] || set -- @modelcontextprotocol/sdk/package.json \
	@modelcontextprotocol/server-everything/dist/index.js \
	@modelcontextprotocol/server-memory/dist/index.js \
	@modelcontextprotocol/server-filesystem/dist/index.js
timeout_s=${NPM_TIMEOUT_S:-600}

die() {
	echo "npm-deps: $*" >&2
	exit 1
}

for f in package.json package-lock.json; do
	[ -f "$src/$f" ] || die "$src/$f is missing"
done
if [ -w "$src" ]; then
	w=$src
else
	w=$builddir/tests/interop-deps
	mkdir -p "$w" || die "cannot create $w"
fi

current() {
	local stamp=$w/node_modules/.package-lock.json f
	[ -f "$stamp" ] || return 1
	[ "$w/package-lock.json" -nt "$stamp" ] && return 1
	[ "$w/package.json" -nt "$stamp" ] && return 1
	for f; do
		[ -f "$w/node_modules/$f" ] || return 1
	done
}

if command -v flock >/dev/null 2>&1; then
	exec 8<"$w"
	flock -w "$timeout_s" 8 ||
		die "waited $timeout_s s for another npm ci in $w"
fi
if [ "$w" != "$src" ]; then
	for f in package.json package-lock.json; do
		cmp -s "$src/$f" "$w/$f" || cp "$src/$f" "$w/$f" ||
			die "cannot copy $f to $w"
	done
fi
if command -v flock >/dev/null 2>&1; then
	exec 9<"$w/package-lock.json"
	flock -w "$timeout_s" 9 ||
		die "waited $timeout_s s for another npm ci in $w"
fi
if ! current "$@"; then
	npm=$(command -v npm) ||
		die "npm is not installed and $w/node_modules is missing or out of date (make deps-check installs it)"
	echo "npm-deps: npm ci in $w (npm $("$npm" --version 2>/dev/null))" >&2
	start=${EPOCHREALTIME/[.,]/}
	(cd "$w" && timeout -k 10 "$timeout_s" "$npm" ci --no-audit --no-fund) \
		</dev/null >&2 ||
		die "npm ci failed in $w (is the npm registry reachable?)"
	current "$@" || die "npm ci in $w did not install the pinned packages"
	echo "npm-deps: npm ci took $(( (${EPOCHREALTIME/[.,]/} - start) / 1000 )) ms" >&2
fi
printf '%s\n' "$w"
