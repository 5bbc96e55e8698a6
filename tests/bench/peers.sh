#!/bin/bash
# peers.sh -- mcpd beside the proxies people use instead, in one run: the
# official TypeScript SDK client calling tools/call echo on fastecho
#   direct         StdioClientTransport spawning fastecho (the baseline)
#   mcpd           StdioClientTransport spawning `mcpctl connect fast`, mcpd
#                  running fastecho
#   supergateway   stdio to Streamable HTTP, stateful (StreamableHTTP client)
#   supergateway   stdio to SSE (SSE client); it is made for one client and
#                  sends every reply to every session
#   mcp-proxy      stdio to Streamable HTTP (StreamableHTTP client)
# For each, tests/bench/peers.mjs measures the round trip with one client
# and one call at a time ("added" is the p50 or p99 minus direct's, same
# round), calls per second with 8 clients of 16 calls in flight each, every
# reply checked against its call (each echo carries a unique token: another
# call's text is misrouted, an error or a call past its limit is lost), and
# the system's RSS with those 8 clients attached (the proxy and its
# descendants, fastecho left out; for mcpd, the daemon and each bridge).
# Systems run in turn within a round, the first one changing each round,
# unpinned: the Node proxies are multi-threaded.  supergateway runs with
# --logLevel none, which otherwise logs every message.
#
# A benchmark: it prints a table and exits 0, also when a peer fails (its
# row says so) and when it cannot run at all ("peers: skipped, REASON":
# no Node.js, the npm packages not installable); 2 only on usage errors.
# The npm packages are those pinned in tests/interop, installed with
# `npm ci` when missing or out of date, as remote.sh does.
#
# Environment (absolute paths; `make bench` sets them):
#   MCPD MCPCTL BENCH_DIR  (fastecho is built there; one JSON line per
#                          system and round is appended to
#                          BENCH_DIR/bench-raw.jsonl)
#   BENCH_PEERS_SECONDS    the throughput run's seconds (2); the latency
#                          run takes three quarters of it
#   BENCH_PEERS_ROUNDS     rounds (1): latency is their median, req/s the
#                          best, RSS the last round's

# shellcheck disable=SC2153  # MCPD and friends come from the environment
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2
# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"
bench_proxies peers PEERS "$@"

# --- mcpd ------------------------------------------------------------------------
SOCK=$T/mcpd.sock
jq -n --arg cmd "$FASTECHO" '{mcpServers: {fast: {command: $cmd, args: []}}}' \
	>"$T/mcpd.json" || die "cannot write mcpd's configuration"
chmod 0600 "$T/mcpd.json"
"${GUARD[@]}" "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr \
	</dev/null 2>>"$T/mcpd.log" &
MCPD_PID=$!
PIDS+=("$MCPD_PID")

# --- the proxies, on free localhost ports --------------------------------------
mapfile -t PORTS < <(bench_ports 3)
[ "${#PORTS[@]}" -eq 3 ] || die "could not find free ports"
SG=$NM/supergateway/dist/index.js
MP=$NM/mcp-proxy/dist/bin/mcp-proxy.mjs
SG_VERSION=$(jq -r .version "$NM/supergateway/package.json")
MP_VERSION=$(jq -r .version "$NM/mcp-proxy/package.json")
SDK_VERSION=$(jq -r .version "$NM/@modelcontextprotocol/sdk/package.json")
# supergateway runs the server with a shell.
ECHO_SH=$(printf '%q' "$FASTECHO")

SYS=(direct mcpd sg-http sg-sse mcp-proxy)
declare -A LABEL PORT PID URL
LABEL[direct]="direct (SDK stdio to fastecho)"
LABEL[mcpd]="mcpd (mcpctl connect)"
LABEL[sg-http]="supergateway $SG_VERSION Streamable HTTP"
LABEL[sg-sse]="supergateway $SG_VERSION SSE"
LABEL[mcp-proxy]="mcp-proxy $MP_VERSION Streamable HTTP"
PORT[sg-http]=${PORTS[0]} PORT[sg-sse]=${PORTS[1]} PORT[mcp-proxy]=${PORTS[2]}
URL[sg-http]=http://127.0.0.1:${PORTS[0]}/mcp
URL[sg-sse]=http://127.0.0.1:${PORTS[1]}/sse
URL[mcp-proxy]=http://127.0.0.1:${PORTS[2]}/mcp

bench_start sg-http "$NODE" "$SG" --stdio "$ECHO_SH" \
	--outputTransport streamableHttp --stateful --port "${PORT[sg-http]}" \
	--logLevel none
bench_start sg-sse "$NODE" "$SG" --stdio "$ECHO_SH" --outputTransport sse \
	--port "${PORT[sg-sse]}" --logLevel none
bench_start mcp-proxy "$NODE" "$MP" --host 127.0.0.1 --port "${PORT[mcp-proxy]}" \
	-- "$FASTECHO"

# Ready: mcpd's server in state ready, each proxy answering HTTP.
declare -A FAILED
PID[mcpd]=$MCPD_PID
# bench_ready S: mcpd's server in state ready, a proxy answering HTTP.
bench_ready() {
	if [ "$1" = mcpd ]; then
		[ "$("$MCPCTL" -s "$SOCK" --json status 2>/dev/null |
			jq -r '.servers[0].state' 2>/dev/null)" = ready ]
	else
		bench_answers "${PORT[$1]}"
	fi
}
bench_wait_ready mcpd sg-http sg-sse mcp-proxy

# --- the runs ------------------------------------------------------------------
declare -A P50 P99 RPS LOST MIS CALLS RSS NOTE
measure() {
	local s=$1 r=$2 args note
	args=(--latency-s "$LATENCY_SECONDS" --seconds "$SECONDS_TP"
		--clients "$CLIENTS" --inflight "$INFLIGHT" --size "$MSG_BYTES"
		--timeout-ms "$CALL_TIMEOUT_MS" --label "peers: $s #$r")
	case $s in
	direct) args+=(--stdio "$FASTECHO") ;;
	mcpd) args+=(--rss-pid "$MCPD_PID" --stdio-rss
		--stdio "$MCPCTL" -s "$SOCK" connect fast) ;;
	sg-sse) args=(--rss-pid "${PID[$s]}" "${args[@]}" --sse "${URL[$s]}") ;;
	*) args=(--rss-pid "${PID[$s]}" "${args[@]}" --http "${URL[$s]}") ;;
	esac
	bench_drive "$s" "$r" "${args[@]}" || return
	case $s in
	direct) ;;
	mcpd) RSS[$s]=$(jq -r 'select(.rss_kb != null) | [.rss_kb, .rss_procs,
		(.clients_rss_kb | add / length)] | @tsv' <<<"$OUT" |
		awk -F'\t' '{ printf "mcpd %.1f MB (%d processes) + bridges" \
			" %.1f MB each", $1 / 1024, $2, $3 / 1024 }') ;;
	*) RSS[$s]=$(jq -r 'select(.rss_kb != null) | [.rss_kb, .rss_procs] |
		@tsv' <<<"$OUT" | awk -F'\t' '{ printf "%.0f MB", $1 / 1024
			if ($2 > 1) printf " (%d processes)", $2 }') ;;
	esac
	# Wrong replies, by phase, and replies that found no call.
	note=$(jq -r 'select(.misrouted + .lost + .stray > 0) |
		"round \(.round): 1 client: \(.latency.lost // 0) lost, " +
		"\(.latency.misrouted // 0) misrouted of \(.latency.calls // 0); " +
		"\(.throughput.clients // 0) clients: \(.throughput.lost // 0) lost, " +
		"\(.throughput.misrouted // 0) misrouted of " +
		"\(.throughput.calls // 0); \(.stray) replies for no call"' <<<"$OUT")
	[ -n "$note" ] && bench_note "$s" "$note"
}

echo "peers: $ROUNDS round(s), ${LATENCY_SECONDS} s latency + ${SECONDS_TP} s" \
	"throughput per system ..." >&2
for r in $(seq "$ROUNDS"); do
	n=${#SYS[@]}
	for i in $(seq 0 $((n - 1))); do
		s=${SYS[$(((i + r - 1) % n))]}
		[ -n "${FAILED[$s]:-}" ] && continue
		measure "$s" "$r"
	done
done

# --- the table -------------------------------------------------------------------
# shellcheck disable=SC2086  # one value a word
{
	DP50=$(median ${P50[direct]:-})
	DP99=$(median ${P99[direct]:-})
}
added() {
	[ -z "$1" ] && { echo "-"; return; }
	if [ -z "$2" ]; then
		awk "BEGIN { printf \"%.0f us\", $1 }"
	else
		awk "BEGIN { printf \"%+.0f us\", $1 - $2 }"
	fi
}
FMT='%-36s %12s %12s %10s %17s  %s\n'
echo
echo "peers: the SDK client $SDK_VERSION calling echo ($MSG_BYTES bytes) on fastecho," \
	"unpinned; added = p50/p99 minus direct's"
# shellcheck disable=SC2059  # the format is ours
printf "$FMT" system "added p50" "added p99" "req/s 8x$INFLIGHT" \
	"lost/misrouted" RSS
for s in "${SYS[@]}"; do
	if [ -n "${FAILED[$s]:-}" ]; then
		printf '%-36s %s\n' "${LABEL[$s]}" "FAILED: ${FAILED[$s]}"
		continue
	fi
	if [ -z "${CALLS[$s]:-}" ]; then
		printf '%-36s %s\n' "${LABEL[$s]}" "FAILED: ${NOTE[$s]:-no result}"
		continue
	fi
	# shellcheck disable=SC2086
	p50=$(median ${P50[$s]}) p99=$(median ${P99[$s]})
	# Throughput: the best round (interference only lowers it).
	# shellcheck disable=SC2086
	rps=$(printf '%s\n' ${RPS[$s]} | sort -g | tail -1)
	if [ "$s" = direct ]; then
		a50="base $(added "$p50" "")" a99="base $(added "$p99" "")"
	else
		a50=$(added "$p50" "$DP50") a99=$(added "$p99" "$DP99")
	fi
	# shellcheck disable=SC2059
	printf "$FMT" "${LABEL[$s]}" "$a50" "$a99" "${rps:--}" \
		"${LOST[$s]} / ${MIS[$s]} of ${CALLS[$s]}" "${RSS[$s]:--}"
done
for s in "${SYS[@]}"; do
	[ -n "${NOTE[$s]:-}" ] && echo "peers: ${LABEL[$s]}: ${NOTE[$s]}"
done
echo "peers: req/s counts correct replies only; RSS is taken with the" \
	"$CLIENTS clients attached, the server's processes left out"
echo "peers: supergateway's Streamable HTTP runs a shell and a server per" \
	"session; its SSE mode is made for one client and sends every reply to" \
	"every session"
echo "peers: $((($(now_ms) - START_MS) / 1000)) s"
exit 0
