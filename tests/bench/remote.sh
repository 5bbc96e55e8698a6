#!/bin/bash
# remote.sh -- the remote servers' part of `make bench` (run.sh runs it
# last): what a stdio-to-HTTP proxy adds per tools/call round trip and to
# one 16 MiB result, for
#   mcpd + mcpd-remote   an entry with a "url"; mcpload on mcpd's socket,
#                        as `mcpctl connect` clients are
#   mcpd-remote          on its own, as a stdio server
#   mcp-remote           (npm) on its own, as a stdio server
#   supergateway         (npm) --streamableHttp URL, its stdio side
# all against the same local server in one run: tests/remote/bench-server.mjs,
# the SDK's Streamable HTTP transport on plain node:http offering echo and
# big, so that the proxies' costs dominate.  mcpload drives every stdio
# side (and checks every reply).  The baseline is curl calling the server
# directly, one connection for all its calls: "added" is a proxy's p50
# minus the baseline's, so HTTP's and the server's own costs are not
# counted against the proxies.  Runs are interleaved in rounds (medians), unpinned:
# the Node proxies are multi-threaded.  mcp-remote runs with --silent and
# supergateway with --logLevel none, so neither pays for logging every
# message.
#
# A benchmark: it prints a table and exits 0 even if a proxy fails (the row
# says so); 2 when it cannot run at all.  Without Node.js it says so and
# exits 0.  The npm packages are those pinned in tests/interop, installed
# with `npm ci` when missing or out of date.
#
# Environment (absolute paths; `make bench` sets them):
#   MCPD MCPCTL MCPD_REMOTE BENCH_DIR (mcpload is built there; raw results
#   are appended to BENCH_DIR/bench-raw.jsonl)
#   BENCH_REMOTE_ROUNDS   latency rounds (3)

# shellcheck disable=SC2153  # MCPD and friends come from the environment
set -u
export LC_ALL=C

die() {
	echo "bench remote: $*" >&2
	exit 2
}

for v in MCPD MCPCTL MCPD_REMOTE BENCH_DIR; do
	[ -n "${!v:-}" ] || die "$v is not set (see the top of $0)"
done
MCPLOAD=$BENCH_DIR/mcpload
for v in MCPD MCPCTL MCPD_REMOTE MCPLOAD; do
	case "${!v}" in
	/*) ;;
	*) printf -v "$v" '%s/%s' "$PWD" "${!v}" ;;
	esac
	[ -x "${!v}" ] || die "$v=${!v} is not an executable"
done
command -v jq >/dev/null 2>&1 || die "jq is required"
TESTS=$(cd "$(dirname "$0")/.." && pwd) || die "cannot find the tests directory"
RAW=$BENCH_DIR/bench-raw.jsonl

ROUNDS=${BENCH_REMOTE_ROUNDS:-3}
LATENCY_SECONDS=1
WARMUP_MS=300
MSG_BYTES=200
# The text of the big result, so the whole message fits 16 MiB (the
# default max_message_bytes of mcpd and of mcpd-remote) with its envelope.
BIG_TEXT_BYTES=$((16777216 - 100))
BIG_REQUESTS=3
DIRECT_REQUESTS=500	# the baseline's calls per round

NODE=$(command -v node || command -v nodejs) || {
	echo "remote servers: skipped, Node.js is not installed"
	exit 0
}

# The pinned npm packages, as tests/interop/interop.sh installs them.
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_npm_deps "$TESTS" "$BENCH_DIR" die @modelcontextprotocol/sdk/package.json \
	mcp-remote/dist/proxy.js supergateway/dist/index.js
bench_setup remote

calc() {
	awk "BEGIN { x = $1; printf \"%.${2:-1}f\n\", x }"
}

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print 0
		else if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# --- the server and mcpd ----------------------------------------------------------
ln -s "$NM" "$T/node_modules" || die "cannot link node_modules"
cp "$TESTS/remote/bench-server.mjs" "$T/" || die "cannot copy bench-server.mjs"
"${GUARD[@]}" "$NODE" "$T/bench-server.mjs" >"$T/server.out" 2>"$T/server.log" &
PIDS+=($!)
for _ in $(seq 200); do
	grep -q '^listening ' "$T/server.out" && break
	sleep 0.05
done
PORT=$(awk '$1 == "listening" { print $2 }' "$T/server.out")
[ -n "$PORT" ] || die "bench-server.mjs did not start: $(tail -3 "$T/server.log")"
URL=http://127.0.0.1:$PORT/mcp

SOCK=$T/mcpd.sock
printf '{"mcpServers": {"r": {"url": "%s", "type": "http"}}}\n' "$URL" >"$T/mcpd.json"
chmod 0600 "$T/mcpd.json"
"${GUARD[@]}" "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr \
	</dev/null 2>>"$T/mcpd.log" &
PIDS+=($!)
MCPD_READY=0
deadline=$(($(now_ms) + 20000))
while [ "$(now_ms)" -lt "$deadline" ]; do
	if [ "$("$MCPCTL" -s "$SOCK" --json status 2>/dev/null |
		jq -r '.servers[0].state' 2>/dev/null)" = ready ]; then
		MCPD_READY=1
		break
	fi
	sleep 0.1
done
[ "$MCPD_READY" = 1 ] ||
	echo "bench remote: mcpd's remote entry not ready in 20 s: $(tail -3 "$T/mcpd.log")" >&2

# The systems measured: a label and mcpload's target arguments.
export MCP_REMOTE_CONFIG_DIR=$T/mcp-auth
SYS=(mcpd standalone mcp-remote supergateway)
declare -A LABEL TARGET
LABEL[mcpd]="mcpd + mcpd-remote"
LABEL[standalone]="mcpd-remote standalone"
LABEL[mcp-remote]="mcp-remote $(jq -r .version "$NM/mcp-remote/package.json")"
LABEL[supergateway]="supergateway $(jq -r .version "$NM/supergateway/package.json")"
TARGET[mcpd]="--socket $SOCK --server r"
TARGET[standalone]="--stdio $MCPD_REMOTE -t http $URL"
TARGET[mcp-remote]="--stdio $NODE $NM/mcp-remote/dist/proxy.js $URL --transport http-only --silent"
TARGET[supergateway]="--stdio $NODE $NM/supergateway/dist/index.js --streamableHttp $URL --outputTransport stdio --logLevel none"

# load SYS LABEL ARGS...: mcpload --json against SYS; its JSON in LOAD_JSON
# (empty if it failed), and in $RAW.
LOAD_JSON=
declare -A FAILED
load() {
	local sys=$1 label=$2 rc
	shift 2
	if [ "$sys" = mcpd ] && [ "$MCPD_READY" != 1 ]; then
		LOAD_JSON=
		FAILED[$sys]="mcpd's entry not ready"
		return
	fi
	# shellcheck disable=SC2086  # the target's words
	LOAD_JSON=$(timeout -k 5 120 "$MCPLOAD" --json --label "remote: $label" \
		"$@" ${TARGET[$sys]} 2>>"$T/mcpload.log")
	rc=$?
	[ -n "$LOAD_JSON" ] && printf '%s\n' "$LOAD_JSON" >>"$RAW"
	if [ "$rc" != 0 ] || [ -z "$LOAD_JSON" ]; then
		FAILED[$sys]="mcpload exit $rc: $(tail -1 "$T/mcpload.log")"
		LOAD_JSON=
	fi
}

# The baseline: curl (libcurl, as mcpd-remote) posting straight to the
# server, every transfer of one invocation on the same connection.
CURL_H=(-H 'content-type: application/json'
	-H 'accept: application/json, text/event-stream')
curl_session() {
	local sid
	sid=$(curl -s -m 10 -D - -o /dev/null "${CURL_H[@]}" --data-binary \
		'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' \
		"$URL" | tr -d '\r' | awk -F': ' 'tolower($1) == "mcp-session-id" { print $2 }')
	[ -n "$sid" ] || return 1
	CURL_H+=(-H "mcp-session-id: $sid" -H 'mcp-protocol-version: 2025-11-25')
	curl -s -m 10 -o /dev/null "${CURL_H[@]}" --data-binary \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' "$URL"
}

# direct N BODY_FILE: N calls of BODY_FILE by curl; LOAD_JSON gets their
# p50_us and p99_us (empty if curl or a call failed).
direct() {
	local n=$1 body=$2 i args=() times
	for i in $(seq "$n"); do
		[ "$i" -gt 1 ] && args+=(--next)
		args+=(-s -m 60 -o /dev/null -w '%{http_code} %{time_total}\n'
			"${CURL_H[@]}" --data-binary "@$body" "$URL")
	done
	LOAD_JSON=
	times=$(curl "${args[@]}" 2>>"$T/curl.log") || return
	# Every call answered 200, and as many as asked for.
	[ "$(awk '$1 == 200' <<<"$times" | wc -l)" = "$n" ] || return
	LOAD_JSON=$(awk '{ print $2 }' <<<"$times" | sort -g | awk '
		{ v[NR] = $1 * 1e6 }
		END {
			q = int(NR * 0.99)
			if (q < 1) q = 1
			printf "{\"replies\": %d, \"p50_us\": %.1f, \"p99_us\": %.1f}\n",
				NR, v[int((NR + 1) / 2)], v[q]
		}')
	[ -n "$LOAD_JSON" ] &&
		jq -c '. + {label: "remote: direct HTTP (curl)"}' <<<"$LOAD_JSON" >>"$RAW"
}

field() {
	[ -n "$LOAD_JSON" ] && jq -r ".$1 // empty" <<<"$LOAD_JSON"
}

echo "remote servers: running ($ROUNDS rounds) ..." >&2
declare -A P50 P99 BIG
START_MS=$(now_ms)
command -v curl >/dev/null 2>&1 || die "curl is required (the baseline)"
curl_session || die "curl could not open a session with bench-server.mjs"
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}' \
	"$(printf '%*s' $((MSG_BYTES - 100)) '' | tr ' ' x)" >"$T/echo.json"
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{"bytes":%d}}}' \
	"$BIG_TEXT_BYTES" >"$T/big.json"
lat=(--method echo --size "$MSG_BYTES" --duration "$LATENCY_SECONDS"
	--warmup-ms "$WARMUP_MS")
for r in $(seq "$ROUNDS"); do
	direct "$DIRECT_REQUESTS" "$T/echo.json"
	P50[direct]+=" $(field p50_us)" P99[direct]+=" $(field p99_us)"
	for s in "${SYS[@]}"; do
		load "$s" "latency $s #$r" --clients 1 --inflight 1 "${lat[@]}"
		P50[$s]+=" $(field p50_us)" P99[$s]+=" $(field p99_us)"
	done
done
big=(--method big --size "$BIG_TEXT_BYTES" --requests "$BIG_REQUESTS")
direct "$BIG_REQUESTS" "$T/big.json"
BIG[direct]=$(field p50_us)
for s in "${SYS[@]}"; do
	load "$s" "16 MiB $s" --clients 1 --inflight 1 "${big[@]}"
	BIG[$s]=$(field p50_us)
done

# --- the table -------------------------------------------------------------------
row() {
	printf '%-44s %s\n' "$1" "$2"
}
# shellcheck disable=SC2086  # one value a word
dp=$(median ${P50[direct]})
echo
echo "remote servers: Streamable HTTP, local bench-server.mjs (Node SDK), unpinned"
printf '%-44s %s\n' what measured
# shellcheck disable=SC2086
row "round trip, direct HTTP, curl (p50 / p99)" \
	"$(calc "$dp") / $(calc "$(median ${P99[direct]})") us"
for s in "${SYS[@]}"; do
	if [ -n "${FAILED[$s]:-}" ] && [ -z "${P50[$s]// /}" ]; then
		row "round trip, ${LABEL[$s]}" "FAILED: ${FAILED[$s]}"
		continue
	fi
	# shellcheck disable=SC2086
	mp=$(median ${P50[$s]}) mq=$(median ${P99[$s]})
	row "round trip, ${LABEL[$s]} (p50 / p99)" \
		"$(calc "$mp") / $(calc "$mq") us, p50 vs curl $(calc "$mp - $dp") us"
done
row "16 MiB result, direct HTTP, curl" "$(calc "${BIG[direct]:-0} / 1000") ms"
for s in "${SYS[@]}"; do
	if [ -z "${BIG[$s]:-}" ]; then
		row "16 MiB result, ${LABEL[$s]}" "FAILED: ${FAILED[$s]:-no result}"
		continue
	fi
	row "16 MiB result, ${LABEL[$s]}" \
		"$(calc "${BIG[$s]} / 1000") ms, vs curl $(calc "(${BIG[$s]} - ${BIG[direct]:-0}) / 1000") ms"
done
for s in "${SYS[@]}"; do
	[ -n "${FAILED[$s]:-}" ] && echo "remote: ${LABEL[$s]}: a run failed: ${FAILED[$s]}"
done
echo "remote servers: $((($(now_ms) - START_MS) / 1000)) s"
exit 0
