#!/bin/bash
# interop.sh -- real MCP servers from npm run by mcpd, and the official
# TypeScript SDK client connected to them through `mcpctl connect`, as an
# MCP client application would launch it.
#
# server-everything, server-memory and server-filesystem, pinned in
# package-lock.json, run under mcpd on a private socket; sdk-client.mjs
# drives them with the SDK's Client and StdioClientTransport (see the
# checks listed there).  Afterwards the servers must have run without a
# restart or a protocol violation, every bridge must have exited, and mcpd
# must stop them all on SIGTERM.
#
# node_modules are installed by npm-deps.sh (here, from package-lock.json,
# when missing or older than it; if this directory is not writable, into
# tests/interop-deps under the directory the test runs in).
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error (such as npm ci failing).  By hand, from the top of the source
# tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/interop.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: interop: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
# npm ci may take minutes on a slow network; the checks take seconds.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
export NPM_TIMEOUT_S=${NPM_TIMEOUT_S:-600}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# --- Node.js -------------------------------------------------------------------
NODE=$(command -v node || command -v nodejs) ||
	skip "Node.js is not installed (build-aux/install-deps check installs it)"
case "$NODE" in
/*) ;;
*) hard_error "cannot find the absolute path of node ($NODE)" ;;
esac
node_version=$("$NODE" --version 2>/dev/null) ||
	hard_error "$NODE --version failed"
node_major=${node_version#v}
node_major=${node_major%%.*}
case "$node_major" in
'' | *[!0-9]*) hard_error "cannot parse the version of $NODE: $node_version" ;;
esac
[ "$node_major" -ge 18 ] ||
	hard_error "$NODE is $node_version; the SDK and servers need Node.js 18 or later"
note "node: $NODE $node_version"

# --- node_modules ------------------------------------------------------------------
SRC=$TESTS_SRCDIR/interop
[ -f "$SRC/sdk-client.mjs" ] || hard_error "$SRC/sdk-client.mjs is missing"
W=$(bash "$SRC/npm-deps.sh" "$PWD" 2>"$T/npm.log") || {
	cat "$T/npm.log" >&2
	hard_error "the pinned npm packages could not be installed (npm-deps.sh)"
}
grep '^npm-deps:' "$T/npm.log" | sed 's/^/# /'
# The client beside a link to node_modules, so that its imports resolve
# wherever the packages are.
cp "$SRC/sdk-client.mjs" "$T/" && ln -s "$W/node_modules" "$T/node_modules" ||
	hard_error "cannot set up the client in $T"
MODS=$W/node_modules/@modelcontextprotocol
for p in sdk server-everything server-memory server-filesystem; do
	note "$p $(jq -r .version "$MODS/$p/package.json")"
done

# bridges: how many `mcpctl connect` processes of this test are running.
bridges() {
	local p pid n=0
	for p in /proc/[0-9]*; do
		[ "$p/exe" -ef "$MCPCTL" ] 2>/dev/null || continue
		pid=${p#/proc/}
		_marked "$pid" && pid_running "$pid" && n=$((n + 1))
	done
	echo "$n"
}

# shellcheck disable=SC2317  # called through wait_for
no_bridges() {
	[ "$(bridges)" = 0 ]
}

# clients_zero: mcpd counts no client on any server.
# shellcheck disable=SC2317  # called through wait_for
clients_zero() {
	local js
	js=$(ctl --json status) || return 1
	jq -e 'all(.servers[]; (.clients // 0) == 0)' <<<"$js" >/dev/null
}

# --- mcpd and its servers ------------------------------------------------------------
FILES=$T/files
mkdir -p "$FILES" || hard_error "cannot create $FILES"
FILE_TEXT="mcpd-interop-file-$$-$RANDOM"
printf '%s\n' "$FILE_TEXT" >"$FILES/hello.txt"

# jq builds the file; `$` is doubled since mcpd expands ${VAR} in these.
config=$(jq -n --arg node "$NODE" --arg mods "$MODS" --arg t "$T" \
	--arg files "$FILES" '
	def lit: gsub("\\$"; "$$");
	def server(script; args; env): {
		command: ($node | lit),
		args: ([$mods + "/" + script] + args | map(lit)),
		cwd: ($t | lit),
		env: ({MCPD_TEST_DIR: $t} + env | map_values(lit))
	};
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			everything: server("server-everything/dist/index.js";
				["stdio"]; {}),
			memory: server("server-memory/dist/index.js";
				[]; {MEMORY_FILE_PATH: ($t + "/memory.jsonl")}),
			filesystem: server("server-filesystem/dist/index.js";
				[$files]; {})
		}
	}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
SERVERS=(everything memory filesystem)

start_mcpd "$T/mcpd.json"

# Wait until every server is ready; a server that failed once (backoff)
# is reported at once rather than waited for.
wait_all_ready() {
	local deadline js states bad
	deadline=$(($(now_ms) + READY_TIMEOUT_S * 1000))
	while :; do
		mcpd_running || fail "mcpd died while its servers were starting"
		if js=$(ctl --json status 2>/dev/null); then
			states=$(jq -r '[.servers[] | "\(.name)=\(.state)"] | join(" ")' <<<"$js")
			bad=$(jq -r '.servers[] | select(.state == "backoff" or .state == "failed") |
				"\(.name): \(.state), last_exit \(.last_exit)"' <<<"$js")
			[ -z "$bad" ] || fail "a server did not start: $bad"
			jq -e --args '[.servers[] | select(.state == "ready") | .name] as $r |
				all($ARGS.positional[]; . as $n | $r | index($n))' \
				"${SERVERS[@]}" <<<"$js" >/dev/null && return 0
		fi
		[ "$(now_ms)" -lt "$deadline" ] ||
			fail "servers not ready within $READY_TIMEOUT_S s: ${states:-no status}"
		sleep 0.2
	done
}
t=$(now_ms)
wait_all_ready
note "servers ready $(($(now_ms) - t)) ms after mcpd answered"
declare -A PID0
for s in "${SERVERS[@]}"; do
	PID0[$s]=$(server_pid "$s") || fail "$s is ready but has no pid"
done

# --- the SDK client ------------------------------------------------------------------
# The marker in its environment (and so its bridges') lets the cleanup
# find anything left behind.  Run in the background so that the test's
# own timeout can interrupt the wait.
t=$(now_ms)
MCPD_TEST_DIR=$T MCPCTL=$MCPCTL "${_MCPD_GUARD[@]}" \
	timeout -k 5 $((CLIENT_TIMEOUT_S + 30)) "$NODE" "$T/sdk-client.mjs" \
	--socket "$SOCK" --server everything --memory memory \
	--filesystem "filesystem:$FILES/hello.txt:$FILE_TEXT" \
	--timeout-s "$CLIENT_TIMEOUT_S" </dev/null >"$T/client.out" 2>&1 &
CLIENT_PID=$!
wait "$CLIENT_PID"
rc=$?
CLIENT_PID=
cat "$T/client.out"
note "sdk-client: exit $rc after $(($(now_ms) - t)) ms"
if [ "$rc" != 0 ]; then
	if [ -s "$MCPD_LOG" ]; then
		echo "--- mcpd log (last 200 lines) ---" >&2
		tail -n 200 "$MCPD_LOG" >&2
		: >"$MCPD_LOG"	# fail shows it otherwise
	fi
	fail "the SDK client failed (exit $rc): $(grep -c '^not ok' "$T/client.out") check(s) failed"
fi

# --- afterwards ----------------------------------------------------------------------
mcpd_running || fail "mcpd died during the SDK client's run"
for s in "${SERVERS[@]}"; do
	server_is "$s" ready || fail "$s is $(server_field "$s" state) after the run, last_exit $(server_field "$s" last_exit)"
	[ "$(server_pid "$s")" = "${PID0[$s]}" ] ||
		fail "$s was restarted during the run (pid ${PID0[$s]} -> $(server_pid "$s"))"
	js=$(ctl --json status "$s") || fail "mcpctl status $s failed"
	viol=$(jq -r '.servers[0].stats | "\(.protocol_violations // 0) \(.dropped_lines // 0) \(.oversize_messages // 0)"' <<<"$js")
	[ "$viol" = "0 0 0" ] ||
		fail "$s: protocol violations, dropped lines, oversize messages: $viol"
done
# The SDK's notifications/cancelled named a request mcpd knew (the
# client's own id, mapped back), and nothing timed out or failed.
js=$(ctl --json status everything) || fail "mcpctl status everything failed"
read -r cancelled timedout failed <<<"$(jq -r '.servers[0].stats.requests |
	"\(.cancelled // "none") \(.timeout // "none") \(.failed // "none")"' <<<"$js")"
case "$cancelled" in
'' | *[!0-9]* | 0)
	fail "everything: mcpd counted $cancelled cancelled requests, expected the SDK's cancellation" ;;
esac
[ "$timedout $failed" = "0 0" ] ||
	fail "everything: $timedout requests timed out and $failed failed in mcpd"
note "everything: $(jq -c '.servers[0].stats.requests' <<<"$js")"

# Every bridge exits once its client has closed stdin, and mcpd forgets
# its clients.
wait_for 30 no_bridges ||
	fail "$(bridges) mcpctl connect process(es) still running after the client exited"
wait_for 30 clients_zero ||
	fail "mcpd still counts clients after they all left: $(ctl --json status | jq -c '[.servers[] | {name, clients}]')"

# mcpd stops every server on SIGTERM and leaves nothing behind.
server_pids=()
for s in "${SERVERS[@]}"; do
	server_pids+=("${PID0[$s]}")
done
t=$(now_ms)
stop_mcpd TERM 30
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited with status $MCPD_STATUS after SIGTERM"
for pid in "${server_pids[@]}"; do
	proc_dead "$pid" || fail "server process left running after mcpd exited: $(describe_pid "$pid")"
done
note "mcpd and its servers stopped $(($(now_ms) - t)) ms after SIGTERM"
exit 0
