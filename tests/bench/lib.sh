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
#                         (or a copy in the build tree when the tree is
#                         read-only), installed by tests/interop/npm-deps.sh
#                         unless every FILE is there and newer than the
#                         lockfile; FAIL MESSAGE is called on any failure
#                         and must not return
#   now_ms                the wall clock in milliseconds

bench_setup() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/mcpd-bench-$1.XXXXXX") || {
		echo "bench: mktemp failed" >&2
		exit 2
	}
	chmod 0700 "$T"
	# mcpd's state (pins of the servers' tools) is the run's own.
	export XDG_STATE_HOME=$T/state
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

bench_npm_deps() {
	local tests=$1 bench_dir=$2 fail=$3
	shift 3
	W=$(bash "$tests/interop/npm-deps.sh" "$bench_dir/../.." "$@") ||
		"$fail" "the pinned npm packages could not be installed (tests/interop/npm-deps.sh)"
	NM=$W/node_modules
}

now_ms() {
	local t=${EPOCHREALTIME//[.,]/}
	echo $((t / 1000))
}

# forget_pid PID: take PID off PIDS (it is waited for already).
forget_pid() {
	local p keep=()
	for p in "${PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	PIDS=("${keep[@]}")
}

# stop_pid PID: SIGTERM, up to 5 s, then SIGKILL; waited for, forgotten.
stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	forget_pid "$1"
}

# vm_kib PID FIELD: VmRSS or VmHWM in KiB.
vm_kib() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}
