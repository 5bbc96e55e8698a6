# shellcheck shell=bash
# lib.sh -- what the benchmark scripts share (sourced by run.sh, remote.sh
# and peers.sh): a private temporary directory whose processes die with
# the script, and the pinned npm packages of tests/interop.
#
#   bench_setup NAME      T (a 0700 directory), PIDS (killed and waited
#                         for on exit), GUARD (setpriv --pdeathsig TERM
#                         when it works, to prefix long-lived processes)
#   bench_npm_deps TESTS BENCH_DIR FAIL FILE...
#                         W and NM: tests/interop with its node_modules
#                         (or a copy next to BENCH_DIR when the tree is
#                         read-only, as interop.sh does), installed with
#                         `npm ci` unless every FILE is there and newer
#                         than the lockfile; FAIL MESSAGE is called on any
#                         failure and must not return
#   now_ms                the wall clock in milliseconds

bench_setup() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-bench-$1.XXXXXX") || {
		echo "bench: mktemp failed" >&2
		exit 2
	}
	chmod 0700 "$T"
	PIDS=()
	# shellcheck disable=SC2034  # used by the scripts that source this
	GUARD=()
	if setpriv --pdeathsig TERM true 2>/dev/null; then
		# shellcheck disable=SC2034
		GUARD=(setpriv --pdeathsig TERM)
	fi
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

# shellcheck disable=SC2317  # called from the EXIT trap
bench_cleanup() {
	local p
	trap - EXIT INT TERM HUP
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$T"
}

bench_npm_current() {
	local stamp=$NM/.package-lock.json f
	[ -f "$stamp" ] || return 1
	[ "$W/package-lock.json" -nt "$stamp" ] && return 1
	[ "$W/package.json" -nt "$stamp" ] && return 1
	for f in "$@"; do
		[ -f "$NM/$f" ] || return 1
	done
}

bench_npm_deps() {
	local tests=$1 bench_dir=$2 fail=$3 f npm
	shift 3
	W=$tests/interop
	if [ ! -w "$W" ]; then
		# Where interop.sh puts its copy of a read-only tree's (make
		# clean removes it).
		W=$bench_dir/../interop-deps
		mkdir -p "$W" || "$fail" "cannot create $W"
		for f in package.json package-lock.json; do
			cmp -s "$tests/interop/$f" "$W/$f" ||
				cp "$tests/interop/$f" "$W/$f" ||
				"$fail" "cannot copy $f to $W"
		done
	fi
	NM=$W/node_modules
	if command -v flock >/dev/null 2>&1; then
		exec 8<"$W/package-lock.json"
		flock -w 600 8 || "$fail" "waited 600 s for another npm ci in $W"
	fi
	if ! bench_npm_current "$@"; then
		npm=$(command -v npm) ||
			"$fail" "npm is not installed and $NM is out of date"
		echo "bench: npm ci in $W" >&2
		(cd "$W" && timeout -k 10 600 "$npm" ci --no-audit --no-fund) \
			</dev/null >&2 ||
			"$fail" "npm ci failed in $W (is the registry reachable?)"
		bench_npm_current "$@" ||
			"$fail" "npm ci in $W did not install the pinned packages"
	fi
	exec 8<&-
}

now_ms() {
	local t=${EPOCHREALTIME//[.,]/}
	echo $((t / 1000))
}
