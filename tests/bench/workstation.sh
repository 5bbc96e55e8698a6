#!/bin/bash
# workstation.sh -- what a user of mcpd notices on a workstation, in one
# run: K applications (the official SDK client, tests/bench/
# workstation-app.mjs), each configured with M = 3 real servers from the
# npm lockfile of tests/interop (server-everything, server-filesystem,
# server-memory, run with node from their installed files), K = 1, 2, 4,
# 8, either starting their own copies of the servers (what apps do today)
# or launching `mcpctl connect NAME` to one mcpd that runs one copy of
# each.  It reports
#   - the memory of everything the apps caused to run: the sum of PSS
#     (/proc/PID/smaps_rollup) over the servers, the bridges and mcpd with
#     its guard and reapers; the apps' own Node processes are left out and
#     shown apart; and the growth per added app (K = 1 to K = 8);
#   - the processes and threads of those;
#   - the time from an app's first connect to its first successful tool
#     call (initialize, tools/list, tools/call, every server at once): own
#     copies, mcpd with the servers running, mcpd with "start": "on-demand";
#   - 1,000 idle raw socket clients (mcpload) attached to one server:
#     mcpd's memory per client, and one active client's round trip among
#     them; and a few bridges (`mcpctl connect`) for the cost per app;
#   - tools/list through a group of 20 members (mcp-fake --slow-ms, 5 to
#     100 ms) against its slowest member alone;
#   - a frozen server's answer ("idle": "freeze"), or "not measured" when
#     this mcpd refuses the key.
# Each number with a bar says PASS or MISS.  A benchmark: it exits 0 when a
# bar is missed, and when it cannot run at all ("workstation: skipped,
# REASON": no Node.js, no jq, the npm packages not installable).
#
# Environment (absolute paths; `make bench` sets them):
#   MCPD MCPCTL MCP_FAKE BENCH_DIR   as for run.sh (mcpload is built in
#                          BENCH_DIR; one JSON line per app, mcpload run
#                          and measurement goes to BENCH_DIR/bench-raw.jsonl)
#   BENCH_WS_KS            the numbers of apps (1 2 4 8)
#   BENCH_WS_ROUNDS        rounds of the first-call timings (3; median)
#   BENCH_WS_IDLE_CLIENTS  idle clients (1000)

# shellcheck disable=SC2153  # MCPD and friends come from the environment
set -u
export LC_ALL=C

die() {
	echo "bench workstation: $*" >&2
	exit 2
}

skip() {
	echo "workstation: skipped, $*"
	exit 0
}

[ $# -eq 0 ] || die "no arguments; see the top of $0"
for v in MCPD MCPCTL MCP_FAKE BENCH_DIR; do
	[ -n "${!v:-}" ] || die "$v is not set (see the top of $0)"
done
MCPLOAD=$BENCH_DIR/mcpload
for v in MCPD MCPCTL MCP_FAKE MCPLOAD; do
	case "${!v}" in
	/*) ;;
	*) printf -v "$v" '%s/%s' "$PWD" "${!v}" ;;
	esac
	[ -x "${!v}" ] || die "$v=${!v} is not an executable"
done
HERE=$(cd "$(dirname "$0")" && pwd) || die "cannot find $0's directory"
TESTS=$(dirname "$HERE")
RAW=$BENCH_DIR/bench-raw.jsonl

KS=${BENCH_WS_KS:-1 2 4 8}
ROUNDS=${BENCH_WS_ROUNDS:-3}
IDLE_CLIENTS=${BENCH_WS_IDLE_CLIENTS:-1000}
for k in $KS; do
	[[ "$k" =~ ^[1-9][0-9]*$ ]] || die "BENCH_WS_KS: $k is not a count"
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_WS_ROUNDS must be 1 or more"
[[ "$IDLE_CLIENTS" =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_WS_IDLE_CLIENTS must be 1 or more"
BRIDGES=4
GROUP_MEMBERS=20
GROUP_STEP_MS=5		# member i answers after i x 5 ms
GROUP_REQUESTS=10
MSG_BYTES=200

# The numbers to reach.
BAR_MEM_RATIO=0.35	# K = 4: through mcpd / own copies
BAR_K=4
BAR_FIRST_MS=50		# first tool call, mcpd with the servers running
BAR_CLIENT_KIB=64	# mcpd's memory per idle client
BAR_GROUP_RATIO=2	# group of 20 / its slowest member alone
BAR_FROZEN_MS=50	# a frozen server's answer

command -v jq >/dev/null 2>&1 || skip "jq is not installed"
NODE=$(command -v node || command -v nodejs) || skip "Node.js is not installed"

# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"
bench_setup ws

SRV=@modelcontextprotocol
bench_npm_deps "$TESTS" "$BENCH_DIR" skip \
	"$SRV/sdk/package.json" "$SRV/server-everything/dist/index.js" \
	"$SRV/server-filesystem/dist/index.js" "$SRV/server-memory/dist/index.js"
ln -s "$NM" "$T/node_modules" || die "cannot link node_modules"
cp "$HERE/workstation-app.mjs" "$T/" || die "cannot copy workstation-app.mjs"
mkdir -p "$T/files" || die "cannot create $T/files"
echo "a file for server-filesystem" >"$T/files/hello.txt"

# ---------------------------------------------------------------------------
# Helpers.

calc() {
	awk "BEGIN { x = $1; printf \"%.${2:-1}f\n\", x }"
}

verdict() {
	if awk "BEGIN { exit !($1) }"; then echo PASS; else echo MISS; fi
}

# descendants ROOT...: the ROOTs and every process below them.
descendants() {
	ps -e -o pid=,ppid= | awk -v roots="$*" '
		BEGIN { n = split(roots, r, " ")
			for (i = 1; i <= n; i++) in_set[r[i]] = 1 }
		{ parent[$1] = $2 }
		END {
			do {
				grew = 0
				for (p in parent)
					if (!(p in in_set) && (parent[p] in in_set)) {
						in_set[p] = 1
						grew = 1
					}
			} while (grew)
			for (p in in_set)
				if (p in parent)
					print p
		}'
}

# without LIST EXCLUDED: the pids of LIST that are not in EXCLUDED.
without() {
	awk -v ex="$2" 'BEGIN { n = split(ex, e, " ")
		for (i = 1; i <= n; i++) skip[e[i]] = 1 }
		{ for (i = 1; i <= NF; i++) if (!($i in skip)) print $i }' <<<"$1"
}

# pss_kib PID...: their PSS summed (smaps_rollup), in KiB.
pss_kib() {
	local p sum=0 v
	for p in "$@"; do
		v=$(awk '$1 == "Pss:" { print $2 }' "/proc/$p/smaps_rollup" \
			2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# threads PID...: their threads summed.
threads() {
	local p sum=0 v
	for p in "$@"; do
		v=$(awk '$1 == "Threads:" { print $2 }' "/proc/$p/status" \
			2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# ---------------------------------------------------------------------------
# The servers, as an app runs them and as mcpd does.

SERVERS=(everything filesystem memory)
declare -A SRV_ARGS SRV_TOOL SRV_CALL
SRV_ARGS[everything]="[\"$NM/$SRV/server-everything/dist/index.js\", \"stdio\"]"
SRV_ARGS[filesystem]="[\"$NM/$SRV/server-filesystem/dist/index.js\", \"$T/files\"]"
SRV_ARGS[memory]="[\"$NM/$SRV/server-memory/dist/index.js\"]"
SRV_TOOL[everything]='echo'
SRV_CALL[everything]='{"message": "hello"}'
SRV_TOOL[filesystem]=list_allowed_directories
SRV_CALL[filesystem]='{}'
SRV_TOOL[memory]=read_graph
SRV_CALL[memory]='{}'
srv_env() {
	if [ "$1" = memory ]; then
		printf '{"MEMORY_FILE_PATH": "%s/memory.jsonl"}' "$T"
	else
		echo '{}'
	fi
}

# app_config own|mcpd FILE: an app's configuration.
app_config() {
	local s sep='' cmd args
	{
		echo '{"servers": ['
		for s in "${SERVERS[@]}"; do
			if [ "$1" = own ]; then
				cmd=$NODE args=${SRV_ARGS[$s]}
			else
				cmd=$MCPCTL args="[\"-s\", \"$SOCK\", \"connect\", \"$s\"]"
			fi
			printf '%s{"name": "%s", "command": "%s", "args": %s,
			    "env": %s, "tool": "%s", "arguments": %s}\n' \
				"$sep" "$s" "$cmd" "$args" "$(srv_env "$s")" \
				"${SRV_TOOL[$s]}" "${SRV_CALL[$s]}"
			sep=,
		done
		echo ']}'
	} >"$2"
	jq -e . "$2" >/dev/null || die "bad app configuration $2"
}

# mcpd_config [on-demand] [MORE]: the three servers for mcpd, and the
# entries MORE.
mcpd_config() {
	local s sep='' extra=''
	[ "${1:-}" = on-demand ] && extra=', "start": "on-demand"'
	echo '{"mcpServers": {'
	for s in "${SERVERS[@]}"; do
		printf '%s"%s": {"command": "%s", "args": %s, "env": %s%s}\n' \
			"$sep" "$s" "$NODE" "${SRV_ARGS[$s]}" "$(srv_env "$s")" \
			"$extra"
		sep=,
	done
	printf '%s\n' "${2:-}"
	echo '}}'
}

MCPD_PID=
SOCK=$T/mcpd.sock
# start_mcpd CONFIG_JSON [STATE]: mcpd on a fresh socket, until every
# server is in STATE (ready).
start_mcpd() {
	local cfg=$T/mcpd.json deadline states want=${2:-ready}
	printf '%s\n' "$1" >"$cfg"
	chmod 0600 "$cfg"
	rm -f "$SOCK"
	"${GUARD[@]}" "$MCPD" -c "$cfg" -s "$SOCK" --log-target stderr \
		</dev/null 2>>"$T/mcpd.log" &
	MCPD_PID=$!
	PIDS+=("$MCPD_PID")
	deadline=$(($(now_ms) + 60000))
	while :; do
		states=$("$MCPCTL" -s "$SOCK" --json status 2>/dev/null |
			jq -r '[.servers[].state] | unique | join(",")' 2>/dev/null)
		[ "$states" = "$want" ] && break
		kill -0 "$MCPD_PID" 2>/dev/null ||
			die "mcpd exited during start-up (log: $(tail -3 "$T/mcpd.log"))"
		[ "$(now_ms)" -lt "$deadline" ] ||
			die "mcpd's servers not $want within 60 s (states: $states)"
		sleep 0.05
	done
}

stop_mcpd() {
	[ -n "$MCPD_PID" ] && stop_pid "$MCPD_PID"
	MCPD_PID=
}

# start_apps K CONFIG [FLAG]: K apps at once, until each has made its
# first calls; APP_PIDS, and APP_JSON[i] what app i wrote.  FLAG is passed
# to workstation-app.mjs (--again).
APP_PIDS=()
APP_JSON=()
APP_N=0
start_apps() {
	local i deadline f done_n
	APP_PIDS=() APP_JSON=()
	for i in $(seq "$1"); do
		APP_N=$((APP_N + 1))
		f=$T/app.$APP_N.json
		rm -f "$f"
		(cd "$T" && exec "${GUARD[@]}" "$NODE" workstation-app.mjs \
			--out "$f" --config "$2" ${3:+"$3"} </dev/null \
			2>>"$T/apps.log") &
		APP_PIDS+=("$!")
		PIDS+=("$!")
		APP_JSON+=("$f")
	done
	deadline=$(($(now_ms) + 120000))
	while :; do
		done_n=0
		for f in "${APP_JSON[@]}"; do
			[ -e "$f" ] && done_n=$((done_n + 1))
		done
		[ "$done_n" -eq "$1" ] && break
		[ "$(now_ms)" -lt "$deadline" ] ||
			die "apps not ready within 120 s (log: $(tail -3 "$T/apps.log"))"
		sleep 0.05
	done
	for i in "${!APP_JSON[@]}"; do
		APP_JSON[i]=$(cat "${APP_JSON[i]}")
		jq -e 'has("error") | not' <<<"${APP_JSON[i]}" >/dev/null ||
			die "an app failed: ${APP_JSON[i]}"
	done
}

# stop_apps: each app closes its sessions; their servers or bridges end.
stop_apps() {
	local p left i
	left=$(descendants "${APP_PIDS[@]}")
	for p in "${APP_PIDS[@]}"; do
		stop_pid "$p"
	done
	for i in $(seq 100); do
		for p in $left; do
			kill -0 "$p" 2>/dev/null && { sleep 0.05; continue 2; }
		done
		break
	done
	for p in $left; do
		kill -KILL "$p" 2>/dev/null
	done
	APP_PIDS=()
}

raw() {
	printf '%s\n' "$1" >>"$RAW"
}

# ---------------------------------------------------------------------------
# 1. K apps x 3 servers: memory, processes, threads.

declare -A MEM APPMEM PROCS THREADS READY
measure_apps() {
	local mode=$1 k=$2 apps pids
	apps="${APP_PIDS[*]}"
	pids=$(descendants "${APP_PIDS[@]}")
	if [ "$mode" = mcpd ]; then
		pids+=$'\n'$(descendants "$MCPD_PID")
	fi
	# shellcheck disable=SC2046  # a list of pids
	pids=$(without "$(printf '%s\n' "$pids" | sort -u | tr '\n' ' ')" "$apps")
	# shellcheck disable=SC2086
	MEM[$mode,$k]=$(pss_kib $pids)
	# shellcheck disable=SC2086
	APPMEM[$mode,$k]=$(pss_kib $apps)
	PROCS[$mode,$k]=$(wc -w <<<"$pids")
	# shellcheck disable=SC2086
	THREADS[$mode,$k]=$(threads $pids)
	# shellcheck disable=SC2046  # one number per app
	READY[$mode,$k]=$(median $(for j in "${APP_JSON[@]}"; do
		jq -r .ready_ms <<<"$j"; done))
	raw "$(jq -cn --arg what "workstation: $mode K=$k" \
		--argjson pss "${MEM[$mode,$k]}" \
		--argjson apps_pss "${APPMEM[$mode,$k]}" \
		--argjson procs "${PROCS[$mode,$k]}" \
		--argjson threads "${THREADS[$mode,$k]}" \
		--argjson ready "${READY[$mode,$k]}" \
		--argjson each "[$(IFS=,; echo "${APP_JSON[*]}")]" \
		'{"label": $what, "pss_kib": $pss, "apps_pss_kib": $apps_pss,
		  "processes": $procs, "threads": $threads,
		  "median_ready_ms": $ready, "apps": $each}')"
}

bench_apps() {
	local k own=$T/own.json via=$T/via.json
	app_config own "$own"
	app_config mcpd "$via"
	for k in $KS; do
		echo "workstation: $k apps, own copies ..." >&2
		start_apps "$k" "$own"
		sleep 1
		measure_apps own "$k"
		stop_apps
		echo "workstation: $k apps, through mcpd ..." >&2
		start_mcpd "$(mcpd_config)"
		start_apps "$k" "$via"
		sleep 1
		measure_apps mcpd "$k"
		stop_apps
		stop_mcpd
	done
}

# ---------------------------------------------------------------------------
# 2. An app's first tool call: own copies, warm mcpd, on-demand mcpd.

declare -A FIRST CONNECTED AGAIN
# first_round MODE CONFIG: one app alone; its first call and connect, then
# the same again in the running app (--again).
first_round() {
	start_apps 1 "$2" --again
	FIRST[$1]+=" $(jq -r '.first_call_ms | min' <<<"${APP_JSON[0]}")"
	CONNECTED[$1]+=" $(jq -r '.connected_ms | min' <<<"${APP_JSON[0]}")"
	AGAIN[$1]+=" $(jq -r '.again_first_call_ms | min' <<<"${APP_JSON[0]}")"
	raw "$(jq -c --arg l "workstation: first call, $1" '. + {label: $l}' \
		<<<"${APP_JSON[0]}")"
	stop_apps
}

# The app's three servers as instant C servers (mcp-fake) offering the
# same tool lists, taken from a running mcpd: tools_files writes the lists
# (mcp-fake's own tool names left out: the call goes to its echo);
# instant_entries prints them as mcpd.json entries "instant-NAME";
# instant_config direct|mcpd FILE an app's configuration of them, run by
# the app itself (the app's own cost of a first call, nothing behind it)
# or through mcpd (that plus mcpd's).
tools_files() {
	local s
	for s in "${SERVERS[@]}"; do
		"$MCPCTL" -s "$SOCK" --json tools "$s" 2>>"$T/mcpload.log" |
			jq -c '[.[] | select(.name as $n | ["echo", "add",
			    "sleep", "big", "fail", "crash", "stderr"] |
			    index($n) | not)]' >"$T/tools.$s.json" ||
			die "cannot list $s's tools"
	done
}

instant_entries() {
	local s
	for s in "${SERVERS[@]}"; do
		printf ', "instant-%s": {"command": "%s", "args":
		    ["--tools-file=%s"]}\n' "$s" "$MCP_FAKE" "$T/tools.$s.json"
	done
}

instant_config() {
	local s sep='' cmd args
	{
		echo '{"servers": ['
		for s in "${SERVERS[@]}"; do
			if [ "$1" = direct ]; then
				cmd=$MCP_FAKE args="[\"--tools-file=$T/tools.$s.json\"]"
			else
				cmd=$MCPCTL
				args="[\"-s\", \"$SOCK\", \"connect\", \"instant-$s\"]"
			fi
			printf '%s{"name": "%s", "command": "%s", "args": %s,
			    "tool": "echo", "arguments": {"text": "hello"}}\n' \
				"$sep" "$s" "$cmd" "$args"
			sep=,
		done
		echo ']}'
	} >"$2"
	jq -e . "$2" >/dev/null || die "bad app configuration $2"
}

# lean_round: the same start without Node: mcpload launches the bridge to
# server-everything, initializes and lists its tools, once.
LEAN=''
lean_round() {
	local l
	l=$("$MCPLOAD" --json --label "workstation: first list, mcpload" \
		--method list --requests 1 --stdio "$MCPCTL" -s "$SOCK" connect \
		everything 2>>"$T/mcpload.log")
	raw "$l"
	LEAN+=" $(jq -r '((.setup_us // 0) + (.p50_us // 0)) / 1000' <<<"$l")"
}

bench_first() {
	local _ own=$T/own.json via=$T/via.json
	local direct=$T/instant-direct.json instant=$T/instant-mcpd.json
	echo "workstation: first tool call, $ROUNDS rounds ..." >&2
	for _ in $(seq "$ROUNDS"); do
		first_round own "$own"
	done
	start_mcpd "$(mcpd_config)"
	tools_files
	stop_mcpd
	instant_config direct "$direct"
	instant_config mcpd "$instant"
	start_mcpd "$(mcpd_config '' "$(instant_entries)")"
	for _ in $(seq "$ROUNDS"); do
		first_round warm "$via"
		first_round direct "$direct"
		first_round instant "$instant"
		lean_round
	done
	stop_mcpd
	for _ in $(seq "$ROUNDS"); do
		start_mcpd "$(mcpd_config on-demand)" idle
		first_round on-demand "$via"
		stop_mcpd
	done
}

# ---------------------------------------------------------------------------
# 3. 1,000 idle raw clients on one server; a few bridges.

IDLE_LINE=
bench_idle() {
	local ready=$T/idle.ready lpid i rss0 rss1 pss0 pss1 l0 l1 bpids
	local common=(--clients 1 --inflight 1 --method echo --size "$MSG_BYTES"
		--duration 2 --warmup-ms 200 --socket "$SOCK" --server demo)
	echo "workstation: $IDLE_CLIENTS idle clients ..." >&2
	start_mcpd "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
	# One client first, so what every session shares is already there.
	l0=$("$MCPLOAD" --json --label "workstation: active alone" \
		"${common[@]}" 2>>"$T/mcpload.log")
	raw "$l0"
	sleep 0.5
	rss0=$(vm_kib "$MCPD_PID" VmRSS) pss0=$(pss_kib "$MCPD_PID")
	rm -f "$ready"
	"$MCPLOAD" --json --label "workstation: idle clients" \
		--socket "$SOCK" --server demo --clients "$IDLE_CLIENTS" \
		--requests 0 --hold-ms 600000 --ready-file "$ready" \
		>"$T/idle.json" 2>>"$T/mcpload.log" &
	lpid=$!
	PIDS+=("$lpid")
	for i in $(seq 1200); do
		[ -e "$ready" ] && break
		kill -0 "$lpid" 2>/dev/null || break
		sleep 0.05
	done
	if [ ! -e "$ready" ]; then
		IDLE_LINE="not set up"
		stop_pid "$lpid"
	fi
	sleep 0.5
	rss1=$(vm_kib "$MCPD_PID" VmRSS) pss1=$(pss_kib "$MCPD_PID")
	l1=$("$MCPLOAD" --json --label "workstation: active among idle" \
		"${common[@]}" 2>>"$T/mcpload.log")
	raw "$l1"
	stop_pid "$lpid"
	stop_mcpd
	IDLE_RSS=$(calc "($rss1 - $rss0) / $IDLE_CLIENTS")
	IDLE_PSS=$(calc "($pss1 - $pss0) / $IDLE_CLIENTS")
	ACTIVE0="$(calc "$(jq -r '.p50_us // 0' <<<"$l0")") / $(calc \
		"$(jq -r '.p99_us // 0' <<<"$l0")")"
	ACTIVE1="$(calc "$(jq -r '.p50_us // 0' <<<"$l1")") / $(calc \
		"$(jq -r '.p99_us // 0' <<<"$l1")")"

	# A few bridges, each as an app launches it, on a fresh mcpd.
	start_mcpd "{\"mcpServers\": {\"demo\": {\"command\": \"$MCP_FAKE\"}}}"
	"$MCPLOAD" --json --label "workstation: before the bridges" \
		"${common[@]}" >>"$RAW" 2>>"$T/mcpload.log"
	sleep 0.5
	rss0=$(vm_kib "$MCPD_PID" VmRSS)
	rm -f "$ready"
	"$MCPLOAD" --json --label "workstation: idle bridges" \
		--clients "$BRIDGES" --requests 0 --hold-ms 600000 \
		--ready-file "$ready" --stdio "$MCPCTL" -s "$SOCK" connect demo \
		>"$T/bridges.json" 2>>"$T/mcpload.log" &
	lpid=$!
	PIDS+=("$lpid")
	for i in $(seq 400); do
		[ -e "$ready" ] && break
		kill -0 "$lpid" 2>/dev/null || break
		sleep 0.05
	done
	sleep 0.5
	rss1=$(vm_kib "$MCPD_PID" VmRSS)
	bpids=$(without "$(descendants "$lpid" | tr '\n' ' ')" "$lpid")
	# shellcheck disable=SC2086
	BRIDGE_PSS=$(calc "$(pss_kib $bpids) / $BRIDGES")
	BRIDGE_MCPD=$(calc "($rss1 - $rss0) / $BRIDGES")
	[ -e "$ready" ] || BRIDGE_PSS="not set up"
	stop_pid "$lpid"
	stop_mcpd
}

# ---------------------------------------------------------------------------
# 4. tools/list through a group of 20 members, the slowest alone.

bench_group() {
	local i cfg members='' g s
	echo "workstation: group of $GROUP_MEMBERS ..." >&2
	cfg='{"mcpServers": {'
	for i in $(seq "$GROUP_MEMBERS"); do
		[ "$i" -gt 1 ] && cfg+=', ' members+=', '
		cfg+="\"m$i\": {\"command\": \"$MCP_FAKE\","
		cfg+=" \"args\": [\"--slow-ms=$((i * GROUP_STEP_MS))\"]}"
		members+="\"m$i\""
	done
	cfg+="}, \"groups\": {\"twenty\": {\"servers\": [$members]}}}"
	start_mcpd "$cfg"
	g=$("$MCPLOAD" --json --label "workstation: group tools/list" \
		--socket "$SOCK" --server twenty --method list --inflight 1 \
		--requests "$GROUP_REQUESTS" 2>>"$T/mcpload.log")
	raw "$g"
	s=$("$MCPLOAD" --json --label "workstation: slowest member tools/list" \
		--socket "$SOCK" --server "m$GROUP_MEMBERS" --method list \
		--inflight 1 --requests "$GROUP_REQUESTS" 2>>"$T/mcpload.log")
	raw "$s"
	stop_mcpd
	GROUP_MS=$(calc "$(jq -r '.p50_us // 0' <<<"$g") / 1000")
	SLOWEST_MS=$(calc "$(jq -r '.p50_us // 0' <<<"$s") / 1000")
	GROUP_OK=$(jq -r '.pass // false' <<<"$g")$(jq -r '.pass // false' <<<"$s")
}

# ---------------------------------------------------------------------------
# 5. A frozen server answers ("idle": "freeze"), where mcpd has it.

FROZEN_LINE=
bench_frozen() {
	local cfg=$T/freeze.json pid0 pid1 l i state
	printf '{"mcpServers": {"demo": {"command": "%s", "start": "on-demand",
	    "idle": "freeze", "idle_stop_s": 1}}}\n' "$MCP_FAKE" >"$cfg"
	chmod 0600 "$cfg"
	if ! "$MCPD" -n -c "$cfg" >"$T/freeze.check" 2>&1; then
		FROZEN_LINE="not measured: $(grep -m1 -i 'idle' \
			"$T/freeze.check" || head -1 "$T/freeze.check")"
		return
	fi
	echo "workstation: frozen server ..." >&2
	start_mcpd "$(cat "$cfg")" idle
	"$MCPLOAD" --json --label "workstation: before the freeze" \
		--socket "$SOCK" --server demo --method echo --requests 1 \
		>>"$RAW" 2>>"$T/mcpload.log"
	pid0=$("$MCPCTL" -s "$SOCK" --json status demo 2>/dev/null |
		jq -r '.. | .pid? // empty' | head -1)
	state=
	for i in $(seq 600); do
		state=$("$MCPCTL" -s "$SOCK" --json status 2>/dev/null |
			jq -r '.servers[] | select(.name == "demo") | .state')
		[ "$state" = frozen ] && break
		sleep 0.05
	done
	if [ "$state" != frozen ]; then
		FROZEN_LINE="not frozen within 30 s (state $state)"
		stop_mcpd
		return
	fi
	l=$("$MCPLOAD" --json --label "workstation: frozen server answers" \
		--socket "$SOCK" --server demo --method echo --requests 1 \
		2>>"$T/mcpload.log")
	raw "$l"
	pid1=$("$MCPCTL" -s "$SOCK" --json status demo 2>/dev/null |
		jq -r '.. | .pid? // empty' | head -1)
	stop_mcpd
	FROZEN_MS=$(calc "$(jq -r '.p50_us // 0' <<<"$l") / 1000")
	FROZEN_LINE="$FROZEN_MS ms (pid $pid0 -> $pid1)"
	FROZEN_VERDICT=$(verdict "$FROZEN_MS > 0 && $FROZEN_MS <= $BAR_FROZEN_MS")
}

# ---------------------------------------------------------------------------

START_MS=$(now_ms)
bench_apps
bench_first
bench_idle
bench_group
bench_frozen

mib() {
	calc "$1 / 1024"
}

SDK_VERSION=$(jq -r .version "$NM/$SRV/sdk/package.json")
{
	echo
	echo "workstation: K apps (SDK $SDK_VERSION client, Node $("$NODE" \
		--version)), each with 3 servers: server-everything, server-filesystem,"
	echo "server-memory (node on the installed files, no npx); own copies, or"\
		"\`mcpctl connect\` to one mcpd"
	echo "memory: PSS summed over servers, bridges, mcpd and its helpers;"\
		"the apps' own Node processes apart"
	printf '%-44s %-22s %-22s %s\n' what "own copies" "through mcpd" bar
	for k in $KS; do
		ratio=$(calc "${MEM[own,$k]} > 0 ? ${MEM[mcpd,$k]} / ${MEM[own,$k]} : 0" 2)
		bar='' v=''
		if [ "$k" = "$BAR_K" ]; then
			bar="<= ${BAR_MEM_RATIO}x"
			v=$(verdict "$ratio <= $BAR_MEM_RATIO")
		fi
		printf '%-44s %-22s %-22s %s\n' "K=$k memory (PSS)" \
			"$(mib "${MEM[own,$k]}") MiB" \
			"$(mib "${MEM[mcpd,$k]}") MiB (${ratio}x)" "$bar $v"
		printf '%-44s %-22s %-22s\n' "K=$k processes / threads" \
			"${PROCS[own,$k]} / ${THREADS[own,$k]}" \
			"${PROCS[mcpd,$k]} / ${THREADS[mcpd,$k]}"
		printf '%-44s %-22s %-22s\n' "K=$k apps' own Node processes (PSS)" \
			"$(mib "${APPMEM[own,$k]}") MiB" \
			"$(mib "${APPMEM[mcpd,$k]}") MiB"
		printf '%-44s %-22s %-22s\n' "K=$k every server ready, median app" \
			"${READY[own,$k]} ms" "${READY[mcpd,$k]} ms"
	done
	first=${KS%% *} last=${KS##* }
	if [ "$first" != "$last" ]; then
		printf '%-44s %-22s %-22s\n' "memory per added app (K=$first to $last)" \
			"$(mib "(${MEM[own,$last]} - ${MEM[own,$first]}) / ($last - $first)") MiB" \
			"$(mib "(${MEM[mcpd,$last]} - ${MEM[mcpd,$first]}) / ($last - $first)") MiB"
	fi
	# shellcheck disable=SC2086
	{
		own=$(median ${FIRST[own]}) warm=$(median ${FIRST[warm]})
		od=$(median ${FIRST[on-demand]}) cwarm=$(median ${CONNECTED[warm]})
		dir=$(median ${FIRST[direct]}) ins=$(median ${FIRST[instant]})
		aown=$(median ${AGAIN[own]}) awarm=$(median ${AGAIN[warm]})
		adir=$(median ${AGAIN[direct]}) ains=$(median ${AGAIN[instant]})
	}
	added=$(calc "$ins - $dir") aadded=$(calc "$ains - $adir")
	echo
	echo "first tool call, one app, from its first connect (initialize,"\
		"tools/list, tools/call;"
	echo "3 servers at once; median of $ROUNDS; the app's own load before it,"\
		"the same for all, apart)"
	echo "instant servers: mcp-fake (C) offering the same three tool lists"
	printf '%-44s %-22s %s\n' "own copies" "$own ms" ""
	printf '%-44s %-22s %s\n' "mcpd, servers running" "$warm ms" \
		"<= $BAR_FIRST_MS ms $(verdict "$warm <= $BAR_FIRST_MS")"
	printf '%-44s %-22s %s\n' "  of which initialize answered" "$cwarm ms" ""
	printf '%-44s %-22s %s\n' "  instant servers, the app's own" "$dir ms" ""
	printf '%-44s %-22s %s\n' "  instant servers through mcpd" "$ins ms" ""
	printf '%-44s %-22s %s\n' "  what mcpd adds (the two above)" \
		"$added ms" "<= $BAR_FIRST_MS ms $(verdict "$added <= $BAR_FIRST_MS")"
	# shellcheck disable=SC2086
	printf '%-44s %-22s %s\n' "  mcpload, not Node: bridge, init, list" \
		"$(calc "$(median $LEAN)") ms" ""
	printf '%-44s %-22s %s\n' "mcpd, \"start\": \"on-demand\"" "$od ms" ""
	echo "the same app connects every server again (Node and SDK warm):"
	printf '%-44s %-22s %s\n' "  own copies" "$aown ms" ""
	printf '%-44s %-22s %s\n' "  mcpd, servers running" "$awarm ms" \
		"<= $BAR_FIRST_MS ms $(verdict "$awarm <= $BAR_FIRST_MS")"
	printf '%-44s %-22s %s\n' "  instant servers, own / through mcpd" \
		"$adir / $ains ms" "(mcpd adds $aadded ms)"
	echo
	if [ -n "$IDLE_LINE" ]; then
		printf '%-44s %-22s %s\n' "$IDLE_CLIENTS idle clients" \
			"$IDLE_LINE" "<= $BAR_CLIENT_KIB KiB MISS"
	else
		printf '%-44s %-22s %s\n' \
			"mcpd per idle client ($IDLE_CLIENTS), RSS / PSS" \
			"$IDLE_RSS / $IDLE_PSS KiB" \
			"<= $BAR_CLIENT_KIB KiB $(verdict "$IDLE_RSS <= $BAR_CLIENT_KIB && $IDLE_PSS <= $BAR_CLIENT_KIB")"
		printf '%-44s %-22s\n' "active client alone, p50 / p99" \
			"$ACTIVE0 us"
		printf '%-44s %-22s\n' "active client among them, p50 / p99" \
			"$ACTIVE1 us"
	fi
	printf '%-44s %-22s\n' "per bridge ($BRIDGES), its PSS / mcpd's RSS" \
		"$BRIDGE_PSS / $BRIDGE_MCPD KiB"
	gratio=$(calc "$SLOWEST_MS > 0 ? $GROUP_MS / $SLOWEST_MS : 999" 2)
	gv=$(verdict "$gratio <= $BAR_GROUP_RATIO")
	[ "$GROUP_OK" = truetrue ] || gv="MISS (replies wrong)"
	printf '%-44s %-22s %s\n' \
		"tools/list, group of $GROUP_MEMBERS / slowest member" \
		"$GROUP_MS / $SLOWEST_MS ms (${gratio}x)" \
		"<= ${BAR_GROUP_RATIO}x $gv"
	printf '%-44s %-22s %s\n' "frozen server answers" "$FROZEN_LINE" \
		"<= $BAR_FROZEN_MS ms ${FROZEN_VERDICT:-}"
	echo "workstation: $((($(now_ms) - START_MS) / 1000)) s"
}
exit 0
