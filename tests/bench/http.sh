#!/bin/bash
# http.sh -- one server served over Streamable HTTP three ways, driven by
# one client: the official TypeScript SDK's StreamableHTTPClientTransport
# (peers.mjs) calling tools/call echo on fastecho through
#   mcpd           mcpd running fastecho, its HTTP front mcpd-http on
#                  127.0.0.1 at /servers/fast/mcp, a token of
#                  `mcpctl token create` in every request
#   supergateway   stdio to Streamable HTTP, --stateful
#   mcp-proxy      stdio to Streamable HTTP
# and, for reference, direct stdio to fastecho (StdioClientTransport).
# For each: p50 and p99 of one client making one call at a time (and the
# same with curl, a C client on one kept-alive connection, which leaves
# out the Node client's own pauses: CURL_CALLS calls), calls
# per second with 8 clients of 16 calls in flight each (every reply
# checked against its call: another call's text is misrouted, an error or
# a call past its limit is lost), and the RSS of the proxy's process tree
# with those 8 clients attached, the server's processes left out (for
# mcpd: the daemon, its reaper and guard, and mcpd-http, which is also
# shown apart).  Systems run in turn within a round, the first one
# changing each round, unpinned.
#
# A benchmark: it prints a table and exits 0, also when a system fails
# (its row says so) and when it cannot run at all ("http: skipped,
# REASON": no Node.js or jq, the npm packages not installable, no
# mcpd-http beside mcpd); 2 only on usage errors.
#
# Environment (absolute paths; `make bench` sets them):
#   MCPD MCPCTL BENCH_DIR  (fastecho is built there; one JSON line per
#                          system and round is appended to
#                          BENCH_DIR/bench-raw.jsonl)
#   BENCH_HTTP_SECONDS     the throughput run's seconds (2); the latency
#                          run takes three quarters of it
#   BENCH_HTTP_ROUNDS      rounds (1): latency is their median, req/s the
#                          best, RSS the last round's

# shellcheck disable=SC2153  # MCPD and friends come from the environment
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd) || exit 2
# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"
bench_proxies http HTTP "$@"
CURL_CALLS=1000
# mcpd runs the mcpd-http beside its own executable.
[ -x "$(dirname "$MCPD")/mcpd-http" ] ||
	skip "no mcpd-http beside $MCPD (make daemon/mcpd-http)"

# Free localhost ports, one per HTTP system.
mapfile -t PORTS < <(bench_ports 3)
[ "${#PORTS[@]}" -eq 3 ] || die "could not find free ports"

# --- mcpd and its front ------------------------------------------------------
SOCK=$T/mcpd.sock
export MCPD_HTTP_TOKENS=$T/http-tokens
jq -n --arg cmd "$FASTECHO" --argjson port "${PORTS[0]}" '{
	mcpd: {http: {listen: ["127.0.0.1:\($port)"]}},
	mcpServers: {fast: {command: $cmd, args: []}}}' >"$T/mcpd.json" ||
	die "cannot write mcpd's configuration"
chmod 0600 "$T/mcpd.json"
TOKEN=$("$MCPCTL" -s "$SOCK" token create bench --servers fast 2>>"$T/mcpd.log") ||
	skip "mcpctl token create failed: $(tail -1 "$T/mcpd.log")"
"${GUARD[@]}" "$MCPD" -c "$T/mcpd.json" -s "$SOCK" --log-target stderr \
	</dev/null 2>>"$T/mcpd.log" &
MCPD_PID=$!
PIDS+=("$MCPD_PID")

# --- the Node proxies ----------------------------------------------------------
SG=$NM/supergateway/dist/index.js
MP=$NM/mcp-proxy/dist/bin/mcp-proxy.mjs
SG_VERSION=$(jq -r .version "$NM/supergateway/package.json")
MP_VERSION=$(jq -r .version "$NM/mcp-proxy/package.json")
SDK_VERSION=$(jq -r .version "$NM/@modelcontextprotocol/sdk/package.json")
# supergateway runs the server with a shell.
ECHO_SH=$(printf '%q' "$FASTECHO")

SYS=(direct mcpd sg-http mcp-proxy)
declare -A LABEL PORT PID URL
LABEL[direct]="direct stdio (reference)"
LABEL[mcpd]="mcpd + mcpd-http"
LABEL[sg-http]="supergateway $SG_VERSION --stateful"
LABEL[mcp-proxy]="mcp-proxy $MP_VERSION"
PORT[mcpd]=${PORTS[0]} PORT[sg-http]=${PORTS[1]} PORT[mcp-proxy]=${PORTS[2]}
URL[mcpd]=http://127.0.0.1:${PORTS[0]}/servers/fast/mcp
URL[sg-http]=http://127.0.0.1:${PORTS[1]}/mcp
URL[mcp-proxy]=http://127.0.0.1:${PORTS[2]}/mcp
PID[mcpd]=$MCPD_PID

bench_start sg-http "$NODE" "$SG" --stdio "$ECHO_SH" \
	--outputTransport streamableHttp --stateful --port "${PORT[sg-http]}" \
	--logLevel none
bench_start mcp-proxy "$NODE" "$MP" --host 127.0.0.1 --port "${PORT[mcp-proxy]}" \
	-- "$FASTECHO"

# Ready: each system answering HTTP, and mcpd's server ready.
declare -A FAILED
# bench_ready S: each system answering HTTP, and mcpd's server ready.
bench_ready() {
	bench_answers "${PORT[$1]}" || return 1
	[ "$1" != mcpd ] ||
		[ "$("$MCPCTL" -s "$SOCK" --json status 2>/dev/null |
			jq -r '.servers[0].state' 2>/dev/null)" = ready ]
}
bench_wait_ready mcpd sg-http mcp-proxy

# --- the runs ------------------------------------------------------------------
declare -A P50 P99 RPS LOST MIS CALLS RSS NOTE
measure() {
	local s=$1 r=$2 args note
	args=(--latency-s "$LATENCY_SECONDS" --seconds "$SECONDS_TP"
		--clients "$CLIENTS" --inflight "$INFLIGHT" --size "$MSG_BYTES"
		--timeout-ms "$CALL_TIMEOUT_MS" --label "http: $s #$r")
	case $s in
	direct) args+=(--stdio "$FASTECHO") ;;
	mcpd) args+=(--rss-pid "$MCPD_PID" --header "Authorization: Bearer $TOKEN"
		--http "${URL[$s]}") ;;
	*) args+=(--rss-pid "${PID[$s]}" --http "${URL[$s]}") ;;
	esac
	bench_drive "$s" "$r" "${args[@]}" || return
	case $s in
	direct) ;;
	mcpd) RSS[$s]=$(jq -r 'select(.rss_kb != null) | [.rss_kb, .rss_procs,
		(.rss_kb_by_name["mcpd-http"] // 0)] | @tsv' <<<"$OUT" |
		awk -F'\t' '{ printf "%.1f MB (%d processes; mcpd-http %.1f)",
			$1 / 1024, $2, $3 / 1024 }') ;;
	*) RSS[$s]=$(jq -r 'select(.rss_kb != null) | [.rss_kb, .rss_procs] |
		@tsv' <<<"$OUT" | awk -F'\t' '{ printf "%.1f MB", $1 / 1024
			if ($2 > 1) printf " (%d processes)", $2 }') ;;
	esac
	note=$(jq -r 'select(.misrouted + .lost + .stray > 0) |
		"round \(.round): \(.lost) lost, \(.misrouted) misrouted, " +
		"\(.stray) replies for no call; errors \(.errors)"' <<<"$OUT")
	[ -n "$note" ] && bench_note "$s" "$note"
}

# curl_latency SYSTEM [CURL ARGS]: a session opened with curl, then
# CURL_CALLS echo calls one at a time on one kept-alive connection; their
# p50 and p99 (us) appended to CP50 and CP99.
declare -A CP50 CP99
curl_latency() {
	local s=$1 sid init call body n
	shift
	init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
	body=$(printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}' \
		"$(head -c "$MSG_BYTES" /dev/zero | tr '\0' x)")
	call=(-s --max-time 30 -X POST -H 'Content-Type: application/json'
		-H 'Accept: application/json, text/event-stream' "$@")
	sid=$(curl "${call[@]}" -o /dev/null -D - --data-binary "$init" \
		"${URL[$s]}" | tr -d '\r' |
		awk -F': ' 'tolower($1) == "mcp-session-id" { print $2 }')
	[ -n "$sid" ] || { bench_note "$s" "curl: no session id"; return; }
	call+=(-H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25')
	curl "${call[@]}" -o /dev/null --data-binary \
		'{"jsonrpc":"2.0","method":"notifications/initialized"}' "${URL[$s]}"
	for n in $(seq "$CURL_CALLS"); do
		printf 'url = "%s"\noutput = "/dev/null"\n' "${URL[$s]}"
	done | curl "${call[@]}" -K - -w '%{http_code} %{time_total}\n' \
		--data-binary "$body" >"$T/curl.$s" 2>/dev/null
	n=$(grep -c '^200 ' "$T/curl.$s")
	[ "$n" -eq "$CURL_CALLS" ] || {
		bench_note "$s" "curl: $n of $CURL_CALLS calls answered 200"
		return
	}
	CP50[$s]+=" $(awk '{ print $2 * 1e6 }' "$T/curl.$s" | sort -g |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) * 0.5)] }')"
	CP99[$s]+=" $(awk '{ print $2 * 1e6 }' "$T/curl.$s" | sort -g |
		awk '{ v[NR] = $1 } END { print v[int(NR * 0.99)] }')"
}

echo "http: $ROUNDS round(s), ${LATENCY_SECONDS} s latency + ${SECONDS_TP} s" \
	"throughput per system ..." >&2
for r in $(seq "$ROUNDS"); do
	n=${#SYS[@]}
	for i in $(seq 0 $((n - 1))); do
		s=${SYS[$(((i + r - 1) % n))]}
		[ -n "${FAILED[$s]:-}" ] && continue
		measure "$s" "$r"
		case $s in
		direct) ;;
		mcpd) curl_latency "$s" -H "Authorization: Bearer $TOKEN" ;;
		*) curl_latency "$s" ;;
		esac
	done
done

# --- the table -------------------------------------------------------------------
us() {
	[ -z "$1" ] && { echo "-"; return; }
	awk "BEGIN { printf \"%.0f us\", $1 }"
}
FMT='%-30s %10s %10s %17s %10s %17s  %s\n'
echo
echo "http: one server (fastecho) over Streamable HTTP, the SDK client" \
	"$SDK_VERSION calling echo ($MSG_BYTES bytes), unpinned"
# shellcheck disable=SC2059  # the format is ours
printf "$FMT" system p50 p99 "curl p50 / p99" "req/s 8x$INFLIGHT" \
	"lost/misrouted" \
	"RSS, 8 clients attached"
for s in "${SYS[@]}"; do
	if [ -n "${FAILED[$s]:-}" ]; then
		printf '%-30s %s\n' "${LABEL[$s]}" "FAILED: ${FAILED[$s]}"
		continue
	fi
	if [ -z "${CALLS[$s]:-}" ]; then
		printf '%-30s %s\n' "${LABEL[$s]}" "FAILED: ${NOTE[$s]:-no result}"
		continue
	fi
	# shellcheck disable=SC2086  # one value a word
	p50=$(median ${P50[$s]}) p99=$(median ${P99[$s]})
	# Throughput: the best round (interference only lowers it).
	# shellcheck disable=SC2086
	rps=$(printf '%s\n' ${RPS[$s]} | sort -g | tail -1)
	# shellcheck disable=SC2086
	cp=$(median ${CP50[$s]:-}) cq=$(median ${CP99[$s]:-})
	cl=-
	[ -n "$cp" ] && cl=$(awk "BEGIN { printf \"%.0f / %.0f us\", $cp, $cq }")
	# shellcheck disable=SC2059
	printf "$FMT" "${LABEL[$s]}" "$(us "$p50")" "$(us "$p99")" "$cl" \
		"${rps:--}" \
		"${LOST[$s]} / ${MIS[$s]} of ${CALLS[$s]}" "${RSS[$s]:--}"
done
for s in "${SYS[@]}"; do
	[ -n "${NOTE[$s]:-}" ] && echo "http: ${LABEL[$s]}: ${NOTE[$s]}"
done
echo "http: req/s counts correct replies only; RSS is the proxy's process" \
	"tree, fastecho left out; supergateway runs a shell and a server per" \
	"session, mcpd and mcp-proxy share one server"
echo "http: $((($(now_ms) - START_MS) / 1000)) s"
exit 0
