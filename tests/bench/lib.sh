# shellcheck shell=bash disable=SC2004,SC2034,SC2153
# lib.sh -- what the benchmark scripts share (sourced by run.sh, remote.sh,
# peers.sh and http.sh): a private temporary directory whose processes die
# with the script, the pinned npm packages of tests/interop, and the
# pieces of a run of peers.mjs against proxies (peers.sh, http.sh).
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
#   median VALUES...      their median ("" for none)
#   bench_ports N         N free ports on 127.0.0.1, one a line (NODE)
#   bench_start S CMD...  CMD run in the background under GUARD, its
#                         output in T/S.log, its pid in PID[S] and PIDS
#   bench_answers PORT    whether an HTTP server answers on 127.0.0.1:PORT
#                         (any status will do)
#   bench_ended PID LOG   how process PID ended, and the last line of LOG
#   bench_note S TEXT     TEXT added to NOTE[S]
#   bench_proxies NAME VAR ARGS...
#                         the start of peers.sh and http.sh (NAME): die and
#                         skip; no ARGS; MCPD, MCPCTL, FASTECHO (built in
#                         BENCH_DIR) absolute executables; SECONDS_TP and
#                         ROUNDS from BENCH_VAR_SECONDS and _ROUNDS;
#                         TESTS, RAW, NODE, the drive's constants; the
#                         pinned npm packages (NM), T, START_MS, peers.mjs
#                         and node_modules in T
#   bench_wait_ready S... until each system S is ready (bench_ready S,
#                         the caller's) or its process PID[S] has ended
#                         (its log T/S.log), within 20 s; FAILED[S] says
#                         why it is not
#   bench_drive S R ARGS...
#                         peers.mjs (copied into T) run with ARGS within
#                         DRIVER_LIMIT for system S, round R: its JSON line,
#                         with S, LABEL[S] and R, appended to RAW and kept
#                         in OUT; CALLS, LOST, MIS, P50, P99 and RPS of S
#                         added to; a failure in NOTE[S].  1 if it gave no
#                         result.  The caller declares those arrays.
#
# What these set or read (NM, PID, NOTE, CALLS ..., NODE, OUT) is the
# sourcing script's: shellcheck's notes on them are off (the first line).

bench_proxies() {
	local name=$1 var=$2 v
	shift 2
	BENCH_NAME=$name
	die() {
		echo "bench $BENCH_NAME: $*" >&2
		exit 2
	}
	skip() {
		echo "$BENCH_NAME: skipped, $*"
		exit 0
	}
	[ $# -eq 0 ] || die "no arguments; see the top of its script"
	for v in MCPD MCPCTL BENCH_DIR; do
		[ -n "${!v:-}" ] || die "$v is not set (see the top of its script)"
	done
	FASTECHO=$BENCH_DIR/fastecho
	for v in MCPD MCPCTL FASTECHO; do
		case "${!v}" in
		/*) ;;
		*) printf -v "$v" '%s/%s' "$PWD" "${!v}" ;;
		esac
		[ -x "${!v}" ] || die "$v=${!v} is not an executable"
	done
	v=BENCH_${var}_SECONDS
	SECONDS_TP=${!v:-2}
	[[ "$SECONDS_TP" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		die "$v must be a number of seconds"
	v=BENCH_${var}_ROUNDS
	ROUNDS=${!v:-1}
	[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "$v must be 1 or more"
	TESTS=$(dirname "$HERE")
	RAW=$BENCH_DIR/bench-raw.jsonl
	CLIENTS=8
	INFLIGHT=16
	MSG_BYTES=200
	CALL_TIMEOUT_MS=3000
	LATENCY_SECONDS=$(awk "BEGIN { print $SECONDS_TP * 0.75 }")
	DRIVER_LIMIT=$(awk "BEGIN { print int($SECONDS_TP * 1.75 + 60) }")
	command -v jq >/dev/null 2>&1 || skip "jq is not installed"
	NODE=$(command -v node || command -v nodejs) ||
		skip "Node.js is not installed"
	bench_npm_deps "$TESTS" "$BENCH_DIR" skip \
		@modelcontextprotocol/sdk/package.json \
		supergateway/dist/index.js mcp-proxy/dist/bin/mcp-proxy.mjs
	bench_setup "$name"
	START_MS=$(now_ms)
	ln -s "$NM" "$T/node_modules" || die "cannot link node_modules"
	cp "$HERE/peers.mjs" "$T/" || die "cannot copy peers.mjs"
}

bench_wait_ready() {
	local deadline s left waiting=("$@")
	deadline=$(($(now_ms) + 20000))
	while [ "${#waiting[@]}" -gt 0 ] && [ "$(now_ms)" -lt "$deadline" ]; do
		left=()
		for s in "${waiting[@]}"; do
			bench_ready "$s" && continue
			kill -0 "${PID[$s]}" 2>/dev/null || {
				FAILED[$s]="did not start: $(bench_ended \
					"${PID[$s]}" "$T/$s.log")"
				continue
			}
			left+=("$s")
		done
		waiting=("${left[@]}")
		[ "${#waiting[@]}" -gt 0 ] && sleep 0.1
	done
	for s in "${waiting[@]}"; do
		FAILED[$s]="not ready in 20 s"
	done
}

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

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print ""
		else if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_ports() {
	# shellcheck disable=SC2016  # node's code
	"$NODE" -e '
	const net = require("node:net");
	const ss = Array.from({ length: Number(process.argv[1]) },
	    () => net.createServer());
	Promise.all(ss.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", r))))
	    .then(() => { for (const s of ss) console.log(s.address().port);
		ss.forEach((s) => s.close()); });' "$1" 2>/dev/null
}

bench_start() {
	local s=$1
	shift
	"${GUARD[@]}" "$@" </dev/null >"$T/$s.log" 2>&1 &
	PID[$s]=$!
	PIDS+=("$!")
}

bench_answers() {
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'GET /bench-probe HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' \
			"$1" >&3
		IFS= read -r -t 2 reply <&3 && [[ "$reply" == HTTP/* ]]
	) 2>/dev/null
}

bench_ended() {
	local rc
	wait "$1" 2>/dev/null
	rc=$?
	printf 'exited with status %d' "$rc"
	[ -s "$2" ] && printf ': %s' "$(grep -v '^[[:space:]]*$' "$2" | tail -1 |
		cut -c1-160)"
}

bench_note() {
	NOTE[$1]="${NOTE[$1]:+${NOTE[$1]}; }$2"
}

bench_drive() {
	local s=$1 r=$2 rc
	shift 2
	OUT=$(cd "$T" && timeout -k 5 "$DRIVER_LIMIT" "${GUARD[@]}" \
		"$NODE" peers.mjs "$@" 2>>"$T/driver.log")
	rc=$?
	OUT=$(jq -c --arg s "$s" --arg l "${LABEL[$s]}" --argjson r "$r" \
		'. + {system: $s, name: $l, round: $r}' <<<"$OUT" 2>/dev/null)
	if [ -z "$OUT" ]; then
		bench_note "$s" "round $r: driver exit $rc: $(tail -1 "$T/driver.log")"
		return 1
	fi
	printf '%s\n' "$OUT" >>"$RAW"
	CALLS[$s]=$((${CALLS[$s]:-0} + $(jq '.calls' <<<"$OUT")))
	LOST[$s]=$((${LOST[$s]:-0} + $(jq '.lost' <<<"$OUT")))
	MIS[$s]=$((${MIS[$s]:-0} + $(jq '.misrouted' <<<"$OUT")))
	P50[$s]+=" $(jq -r '.latency.p50_us // empty' <<<"$OUT")"
	P99[$s]+=" $(jq -r '.latency.p99_us // empty' <<<"$OUT")"
	RPS[$s]+=" $(jq -r '.throughput.req_per_s // empty' <<<"$OUT")"
	[ "$rc" = 0 ] ||
		bench_note "$s" "round $r: $(jq -r '.error // "failed"' <<<"$OUT")"
	return 0
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
