#!/bin/bash
# metrics.sh -- `mcpctl metrics` is valid Prometheus text exposition (every
# sample line `name{labels} value`, every family with one HELP and one
# TYPE, families contiguous, no duplicate series, histogram buckets
# cumulative up to le="+Inf" = _count) and its numbers follow what
# happened: requests by outcome, latency count, in-flight and clients
# gauges, restarts after a SIGKILL, one-hot state gauges; `--json metrics`
# carries the same text.

# shellcheck source=reload-lib.sh
. "$TESTS_SRCDIR/integration/reload-lib.sh"

N=25
# x stays in backoff this long after its SIGKILL: the checks of its state
# then (a status poll, a metrics snapshot) must fit in it on a loaded
# machine.
BACKOFF_MS=5000
# The snapshots are compared number for number: mcpd's own health pings
# (every 30 s of a server's silence, and a loaded machine makes the test
# longer than that) would add their bytes in between, so they are off.
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "health_interval_ms": 0 },
  "mcpServers": {
    "x": {"command": "$MCP_FAKE", "args": ["--pidfile=$T/x.pid"],
          "backoff_min_ms": $BACKOFF_MS, "backoff_max_ms": $BACKOFF_MS, "backoff_jitter": 0},
    "y": {"command": "$MCP_FAKE", "args": ["--stderr-noise=4"]}
  }
}
JSON
T0=$(now_ms)
start_mcpd "$T/mcpd.json"
wait_ready x
wait_ready y
STATES="starting initializing ready backoff stopping stopped failed needs-login idle frozen"
OUTCOMES="ok error timeout cancelled failed oversize"

# check_exposition FILE WHAT: fail unless FILE is valid text exposition.
check_exposition() {
	local problems
	problems=$(awk '
	function bad(msg) { if (nbad++ < 20) print "line " NR ": " msg ": " $0 }
	/^# HELP / {
		if ($3 in help) bad("second HELP for " $3)
		help[$3] = 1
		if (NF < 4) bad("HELP without text")
		next
	}
	/^# TYPE / {
		if ($3 in type) bad("second TYPE for " $3)
		if (NF != 4 || $4 !~ /^(counter|gauge|histogram|summary|untyped)$/)
			bad("bad TYPE")
		type[$3] = $4
		if ($4 == "counter" && $3 !~ /_total$/) bad("counter not named *_total")
		next
	}
	/^#/ { next }
	/^$/ { bad("empty line"); next }
	{
		if ($0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"]*")*\})? [^ ]+$/) {
			bad("not `name{labels} value`")
			next
		}
		value = $2
		if (value !~ /^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$/ && value !~ /^([-+]Inf|NaN)$/)
			bad("bad value")
		name = $1; labels = ""
		i = index(name, "{")
		if (i > 0) { labels = substr(name, i); name = substr(name, 1, i - 1) }
		fam = name
		if (!(fam in type)) {
			base = name
			sub(/_(bucket|sum|count)$/, "", base)
			if (base != name && type[base] == "histogram") fam = base
			else { bad("no TYPE for " name); next }
		} else if (type[fam] == "histogram") bad("histogram sample without a suffix")
		if (!(fam in help)) bad("no HELP for " fam)
		if (fam != cur) {
			if (fam in done) bad("samples of " fam " not together")
			done[fam] = 1; cur = fam
		}
		if ($1 in series) bad("duplicate series")
		series[$1] = 1
		if (type[fam] != "histogram") next
		key = labels
		gsub(/,?le="[^"]*"/, "", key); sub(/^\{,/, "{", key)
		key = fam key
		if (name ~ /_bucket$/) {
			if (!match(labels, /le="[^"]*"/)) { bad("bucket without le"); next }
			le = substr(labels, RSTART + 4, RLENGTH - 5)
			lev = (le == "+Inf") ? "inf" : le + 0
			if (key in lastle) {
				if (lastle[key] == "inf") bad("bucket after +Inf")
				else if (lev != "inf" && lev <= lastle[key]) bad("le not increasing")
				if (value + 0 < lastcount[key]) bad("bucket count decreasing")
			}
			lastle[key] = lev; lastcount[key] = value + 0; hist[key] = 1
		} else if (name ~ /_count$/) { count[key] = value + 0; hist[key] = 1 }
		else if (name ~ /_sum$/) { sum[key] = 1; hist[key] = 1 }
	}
	END {
		if (NR == 0) print "empty"
		for (f in type) if (!(f in help)) print "TYPE without HELP: " f
		for (f in help) if (!(f in type)) print "HELP without TYPE: " f
		for (k in hist) {
			if (lastle[k] != "inf") print k ": last bucket is not le=\"+Inf\""
			else if (!(k in count)) print k ": no _count"
			else if (lastcount[k] != count[k]) print k ": +Inf bucket " lastcount[k] " != _count " count[k]
			if (!(k in sum)) print k ": no _sum"
		}
	}' "$1")
	[ -z "$problems" ] || fail "$2 is not valid Prometheus text: $(head -20 <<<"$problems")"
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || fail "$2 does not end with a newline"
}

# metrics FILE: `mcpctl metrics` to FILE, checked.
metrics() {
	ctl metrics >"$1" 2>"$1.err" || fail "mcpctl metrics exited $?: $(cat "$1.err")"
	check_exposition "$1" "mcpctl metrics"
}

# mval FILE SERIES: the value of one series (exactly as written, labels in
# mcpd's order); fails if absent.
mval() {
	awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$1" ||
		fail "no series $2 in $(basename "$1"): $(grep -F "${2%%\{*}" "$1" | head -5)"
}

# expect_mv FILE SERIES VALUE
expect_mv() {
	local v
	v=$(mval "$1" "$2")
	awk -v a="$v" -v b="$3" 'BEGIN { exit !(a + 0 == b + 0) }' ||
		fail "$2 is $v, expected $3"
}

# expect_state FILE SERVER STATE: one-hot.
expect_state() {
	local s
	for s in $STATES; do
		expect_mv "$1" "mcpd_server_state{server=\"$2\",state=\"$s\"}" "$([ "$s" = "$3" ] && echo 1 || echo 0)"
	done
	local n
	n=$(echo $STATES | wc -w)
	[ "$(grep -c "^mcpd_server_state{server=\"$2\"," "$1")" = "$n" ] ||
		fail "$(grep -c "^mcpd_server_state{server=\"$2\"," "$1") state series for $2, expected $n"
}

# outcomes_line FILE SERVER: "ok=N error=N ..." for notes.
outcomes_line() {
	local o out=
	for o in $OUTCOMES; do
		out+="$o=$(mval "$1" "mcpd_requests_total{server=\"$2\",outcome=\"$o\"}") "
	done
	echo "${out% }"
}

# --- at start -------------------------------------------------------------------------
metrics "$T/m0"
note "mcpctl metrics: $(grep -vc '^#' "$T/m0") samples in $(grep -c '^# TYPE' "$T/m0") families"
for f in mcpd_uptime_seconds mcpd_connections mcpd_connections_total mcpd_server_state \
	mcpd_server_restarts_total mcpd_server_inflight mcpd_server_clients mcpd_requests_total \
	mcpd_request_duration_seconds mcpd_bytes_total mcpd_server_stderr_lines_total; do
	grep -q "^# TYPE $f " "$T/m0" || fail "no metric $f"
done
grep -q '^# TYPE mcpd_request_duration_seconds histogram$' "$T/m0" || fail "mcpd_request_duration_seconds is not a histogram"
up=$(mval "$T/m0" mcpd_uptime_seconds)
el=$(( $(now_ms) - T0 ))
awk -v u="$up" -v e="$el" 'BEGIN { exit !(u > 0 && u * 1000 <= e + 100) }' ||
	fail "mcpd_uptime_seconds is $up, mcpd started $el ms ago"
for s in x y; do
	expect_state "$T/m0" "$s" ready
	expect_mv "$T/m0" "mcpd_server_restarts_total{server=\"$s\"}" 0
	expect_mv "$T/m0" "mcpd_server_clients{server=\"$s\"}" 0
	expect_mv "$T/m0" "mcpd_server_inflight{server=\"$s\"}" 0
	for o in $OUTCOMES; do
		expect_mv "$T/m0" "mcpd_requests_total{server=\"$s\",outcome=\"$o\"}" 0
	done
	expect_mv "$T/m0" "mcpd_request_duration_seconds_count{server=\"$s\"}" 0
done
wait_for 30 eval '[ "$(server_field y stats | jq .stderr_lines)" = 5 ]' || fail "y's 5 stderr lines did not arrive"
metrics "$T/m0"
expect_mv "$T/m0" 'mcpd_server_stderr_lines_total{server="y"}' 5

# --- N echo calls through one client ---------------------------------------------------
rc_start
rc '{"op":"attach","conn":"a","server":"x"}'
metrics "$T/m1"
expect_mv "$T/m1" 'mcpd_server_clients{server="x"}' 1
expect_mv "$T/m1" 'mcpd_server_clients{server="y"}' 0
c=$(mval "$T/m1" mcpd_connections)
[ "$c" -ge 2 ] || fail "mcpd_connections is $c with a client and mcpctl connected"
ok0=$(mval "$T/m1" 'mcpd_requests_total{server="x",outcome="ok"}')
note "after attach and initialize: $(outcomes_line "$T/m1" x)"
[ "$ok0" = 0 ] || fail "attach + initialize (answered by mcpd from its cache) counted as $ok0 requests answered"
up0=$(mval "$T/m1" 'mcpd_bytes_total{server="x",direction="to_server"}')
down0=$(mval "$T/m1" 'mcpd_bytes_total{server="x",direction="to_clients"}')

for i in $(seq 1 "$N"); do
	rc_echo a "$i" "echo number $i"
done
metrics "$T/m2"
note "after $N echo calls: $(outcomes_line "$T/m2" x)"
expect_mv "$T/m2" 'mcpd_requests_total{server="x",outcome="ok"}' "$N"
for o in error timeout cancelled failed oversize; do
	expect_mv "$T/m2" "mcpd_requests_total{server=\"x\",outcome=\"$o\"}" 0
done
expect_mv "$T/m2" 'mcpd_requests_total{server="y",outcome="ok"}' 0
expect_mv "$T/m2" 'mcpd_request_duration_seconds_count{server="x"}' "$N"
expect_mv "$T/m2" 'mcpd_request_duration_seconds_bucket{server="x",le="+Inf"}' "$N"
sum=$(mval "$T/m2" 'mcpd_request_duration_seconds_sum{server="x"}')
awk -v s="$sum" -v n="$N" 'BEGIN { exit !(s > 0 && s < n * 1.0) }' ||
	fail "mcpd_request_duration_seconds_sum is $sum for $N echo calls"
nb=$(grep -c '^mcpd_request_duration_seconds_bucket{server="x",' "$T/m2")
note "latency of $N echo calls: sum $sum s, $nb buckets; p50 bucket: $(awk -v h=$((N / 2)) -F'[ "]' '/^mcpd_request_duration_seconds_bucket\{server="x"/ && $6 + 0 >= h { print "le=" $4 " s"; exit }' "$T/m2")"
[ "$nb" -ge 10 ] || fail "only $nb latency buckets for x"
up1=$(mval "$T/m2" 'mcpd_bytes_total{server="x",direction="to_server"}')
down1=$(mval "$T/m2" 'mcpd_bytes_total{server="x",direction="to_clients"}')
[ "$up1" -gt "$up0" ] && [ "$down1" -gt "$down0" ] ||
	fail "mcpd_bytes_total for x did not grow with $N calls: to_server $up0 -> $up1, to_clients $down0 -> $down1"
# The same numbers as mcpctl status.
js=$(status_json)
[ "$(jq '.servers[] | select(.name == "x") | .stats.requests.ok' <<<"$js")" = "$N" ] ||
	fail "mcpctl status says $(jq -c '.servers[] | select(.name == "x") | .stats.requests' <<<"$js") for x"

# --- an error, and a request failed by a SIGKILL ----------------------------------------
rc_tool call a '"f"' fail '{}'
[ -n "$(rcv '.reply.error.code // empty')" ] || fail "the fail tool answered $(rcv .raw)"
pid=$(server_pid x) || fail "x has no pid"
rc_tool send a '"s"' sleep '{"ms": 60000}'
wait_for 30 eval '[ "$(server_field x inflight)" = 1 ]' || fail "the sleep is not in flight"
metrics "$T/m3"
expect_mv "$T/m3" 'mcpd_server_inflight{server="x"}' 1
expect_mv "$T/m3" 'mcpd_requests_total{server="x",outcome="error"}' 1
kill -KILL "$pid"
rc '{"op":"wait","conn":"a","id":"\"s\"","timeout":30000}' 40
[ "$(rcv .reply.error.code)" = -32000 ] || fail "the sleep in flight during the SIGKILL got $(rcv .raw)"
wait_for 30 server_is x backoff || fail "x is $(server_field x state), expected backoff"
metrics "$T/m4"
expect_state "$T/m4" x backoff
expect_state "$T/m4" y ready
expect_mv "$T/m4" 'mcpd_server_inflight{server="x"}' 0
expect_mv "$T/m4" 'mcpd_requests_total{server="x",outcome="failed"}' 1
note "x in backoff: restarts_total $(mval "$T/m4" 'mcpd_server_restarts_total{server="x"}')"
wait_ready x 60
metrics "$T/m5"
note "x ready again: $(outcomes_line "$T/m5" x)"
expect_mv "$T/m5" 'mcpd_server_restarts_total{server="x"}' 1
expect_mv "$T/m5" 'mcpd_server_restarts_total{server="y"}' 0
expect_state "$T/m5" x ready
expect_mv "$T/m5" 'mcpd_server_clients{server="x"}' 1
rc_echo a '"after"' "after the restart"
metrics "$T/m6"
expect_mv "$T/m6" 'mcpd_requests_total{server="x",outcome="ok"}' $((N + 1))
total=0
for o in $OUTCOMES; do
	total=$((total + $(mval "$T/m6" "mcpd_requests_total{server=\"x\",outcome=\"$o\"}")))
done
[ "$total" = $((N + 3)) ] || fail "requests_total over all outcomes is $total, expected $((N + 3)) ($N + 1 ok, 1 error, 1 failed)"
expect_mv "$T/m6" 'mcpd_request_duration_seconds_count{server="x"}' "$total"

# --- --json metrics: the same text in a "text" field ------------------------------------------
ctl --json metrics >"$T/mj" 2>"$T/mj.err" || fail "mcpctl --json metrics exited $?: $(cat "$T/mj.err")"
jq -e '.text | type == "string"' "$T/mj" >/dev/null || fail "mcpctl --json metrics has no text field: $(head -c 300 "$T/mj")"
jq -j .text "$T/mj" >"$T/mj.txt"
check_exposition "$T/mj.txt" "mcpctl --json metrics .text"
ctl metrics --json >"$T/mj2" 2>/dev/null || fail "mcpctl metrics --json failed"
jq -e '.text | type == "string"' "$T/mj2" >/dev/null || fail "mcpctl metrics --json has no text field"
metrics "$T/m7"
# Apart from uptime, connection counts and bytes (mcpctl's own traffic),
# nothing changed in between.
strip() { grep -Ev '^(mcpd_uptime_seconds|mcpd_connections)' "$1"; }
diff <(strip "$T/mj.txt") <(strip "$T/m7") >"$T/mj.diff" ||
	fail "--json metrics text and metrics differ: $(head -10 "$T/mj.diff")"
rc_stop
mcpd_running || fail "mcpd died"
exit 0
