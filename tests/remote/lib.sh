# lib.sh -- helpers for the tests of remote servers (sourced after
# tests/integration/lib.sh, not run).
#
# A remote server here is server-everything from npm speaking Streamable
# HTTP (`node dist/index.js streamableHttp`, endpoint /mcp) or legacy
# HTTP+SSE (`node dist/index.js sse`, GET /sse and POST /message) on a
# port of 127.0.0.1.  mcpd runs it as a config entry with a "url", that is
# through mcpd-remote; or mcpd-remote runs on its own as a stdio server.
#
# remote_setup finds Node.js (or skips), installs the pinned packages of
# tests/interop with `npm ci` exactly as interop.sh does (same directory,
# same lock, same freshness test) and copies the test clients into $T next
# to a link to node_modules, so their imports resolve wherever the source
# tree is.  http_start runs an HTTP server on a free port (server-everything
# cannot be asked for port 0, so a random high port is tried, and another
# one if it was taken) and http_kill ends it; both mark it with
# MCPD_TEST_DIR=$T, so the cleanup of lib.sh finds it whatever happens.

NPM_TIMEOUT_S=${NPM_TIMEOUT_S:-600}
HTTP_START_TIMEOUT_S=${HTTP_START_TIMEOUT_S:-20}

HTTP_PID=
HTTP_PORT=
HTTP_LOG=
HTTP_STARTS=0

# remote_setup: sets NODE, W (the directory holding node_modules), MODS
# (its @modelcontextprotocol), EVERYTHING (server-everything's
# dist/index.js) and MCPD_REMOTE; copies sdk-client.mjs and the
# tests/remote clients into $T.
remote_setup() {
	local v major f src
	NODE=$(command -v node || command -v nodejs) ||
		skip "Node.js is not installed (build-aux/install-deps check installs it)"
	case "$NODE" in
	/*) ;;
	*) hard_error "cannot find the absolute path of node ($NODE)" ;;
	esac
	v=$("$NODE" --version 2>/dev/null) || hard_error "$NODE --version failed"
	major=${v#v}
	major=${major%%.*}
	case "$major" in
	'' | *[!0-9]*) hard_error "cannot parse the version of $NODE: $v" ;;
	esac
	[ "$major" -ge 18 ] ||
		hard_error "$NODE is $v; the SDK and servers need Node.js 18 or later"

	MCPD_REMOTE=${MCPD_REMOTE:-}
	if [ -z "$MCPD_REMOTE" ]; then
		if [ -n "${abs_top_builddir:-}" ]; then
			MCPD_REMOTE=$abs_top_builddir/daemon/mcpd-remote
		else
			MCPD_REMOTE=$(dirname "$MCPD")/mcpd-remote
		fi
	fi
	case "$MCPD_REMOTE" in
	/*) ;;
	*) MCPD_REMOTE=$PWD/$MCPD_REMOTE ;;
	esac
	[ -x "$MCPD_REMOTE" ] ||
		hard_error "MCPD_REMOTE=$MCPD_REMOTE is not an executable (is daemon/mcpd-remote built?)"

	_remote_npm

	MODS=$W/node_modules/@modelcontextprotocol
	EVERYTHING=$MODS/server-everything/dist/index.js
	note "node $v; sdk $(jq -r .version "$MODS/sdk/package.json")," \
		"server-everything $(jq -r .version "$MODS/server-everything/package.json")"
	ln -s "$W/node_modules" "$T/node_modules" ||
		hard_error "cannot link $T/node_modules"
	for f in "$TESTS_SRCDIR"/interop/sdk-client.mjs "$TESTS_SRCDIR"/remote/*.mjs; do
		[ -f "$f" ] || continue
		cp "$f" "$T/" || hard_error "cannot copy $f to $T"
	done
	src=$T/sdk-client.mjs
	[ -f "$src" ] || hard_error "$TESTS_SRCDIR/interop/sdk-client.mjs is missing"
}

# _remote_npm: npm ci in tests/interop (or its copy) unless node_modules
# is current; the same rules and lock as interop.sh.
_remote_npm() {
	local src=$TESTS_SRCDIR/interop f npm t
	for f in package.json package-lock.json; do
		[ -f "$src/$f" ] || hard_error "$src/$f is missing"
	done
	if [ -w "$src" ]; then
		W=$src
	else
		W=$PWD/tests/interop-deps
		mkdir -p "$W" || hard_error "cannot create $W"
		for f in package.json package-lock.json sdk-client.mjs; do
			cmp -s "$src/$f" "$W/$f" || cp "$src/$f" "$W/$f" ||
				hard_error "cannot copy $f to $W"
		done
	fi
	if command -v flock >/dev/null 2>&1; then
		exec 8<"$W/package-lock.json"
		flock -w "$NPM_TIMEOUT_S" 8 ||
			hard_error "waited $NPM_TIMEOUT_S s for another npm ci in $W"
	fi
	if ! _remote_deps_current; then
		npm=$(command -v npm) ||
			hard_error "npm is not installed and $W/node_modules is missing or out of date"
		note "npm ci in $W ($("$npm" --version 2>/dev/null))"
		t=$(now_ms)
		if ! (cd "$W" && timeout -k 10 "$NPM_TIMEOUT_S" "$npm" ci --no-audit --no-fund) \
			</dev/null >"$T/npm.log" 2>&1; then
			echo "--- npm ci output ---" >&2
			tail -n 40 "$T/npm.log" >&2
			hard_error "npm ci failed in $W"
		fi
		_remote_deps_current ||
			hard_error "npm ci in $W did not install the pinned packages"
		note "npm ci: $(($(now_ms) - t)) ms"
	fi
	exec 8<&-
}

_remote_deps_current() {
	local stamp=$W/node_modules/.package-lock.json
	[ -f "$stamp" ] || return 1
	[ "$W/package-lock.json" -nt "$stamp" ] && return 1
	[ "$W/package.json" -nt "$stamp" ] && return 1
	[ -f "$W/node_modules/@modelcontextprotocol/sdk/package.json" ] || return 1
	[ -f "$W/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ]
}

# _port_taken PORT: something listens on TCP PORT.
_port_taken() {
	ss -Htln "sport = :$1" 2>/dev/null | grep -q .
}

# _http_listening: the server answers HTTP on its port (any status).
# shellcheck disable=SC2317  # called through wait_for
_http_listening() {
	local code
	pid_running "$HTTP_PID" || return 1
	code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' \
		"http://127.0.0.1:$HTTP_PORT/" 2>/dev/null)
	[ -n "$code" ] && [ "$code" != 000 ]
}

# http_start KIND [PORT]: server-everything's KIND (streamableHttp or sse)
# on PORT, or on a free random port; sets HTTP_PID and HTTP_PORT, logs to
# $T/http-N.log (HTTP_LOG).  With PORT given, the port must be free again
# within the start-up time (the server that had it was just killed).
http_start() {
	local kind=$1 want=${2:-} tries=0 port
	while :; do
		tries=$((tries + 1))
		[ "$tries" -le 10 ] || fail "could not start the $kind server after 10 ports"
		if [ -n "$want" ]; then
			port=$want
			wait_for "$HTTP_START_TIMEOUT_S" eval '! _port_taken '"$port" ||
				fail "port $port still taken $HTTP_START_TIMEOUT_S s after its server was killed"
		else
			port=$((20000 + RANDOM % 40000))
			_port_taken "$port" && continue
		fi
		HTTP_STARTS=$((HTTP_STARTS + 1))
		HTTP_LOG=$T/http-$HTTP_STARTS.log
		HTTP_PORT=$port
		(cd "$T" && MCPD_TEST_DIR=$T PORT=$port exec "$NODE" "$EVERYTHING" "$kind") \
			</dev/null >"$HTTP_LOG" 2>&1 &
		HTTP_PID=$!
		echo "$HTTP_PID" >"$T/http.pid"
		if wait_for "$HTTP_START_TIMEOUT_S" _http_listening; then
			# Ours, not another process that took the port meanwhile.
			pid_running "$HTTP_PID" && return 0
		fi
		if pid_running "$HTTP_PID"; then
			cat "$HTTP_LOG" >&2
			fail "the $kind server did not answer on port $port within $HTTP_START_TIMEOUT_S s"
		fi
		wait "$HTTP_PID" 2>/dev/null
		if [ -n "$want" ] || ! grep -q 'EADDRINUSE\|already in use' "$HTTP_LOG"; then
			cat "$HTTP_LOG" >&2
			fail "the $kind server exited during start-up on port $port"
		fi
		note "port $port was taken, trying another one"
	done
}

# http_kill [SIGNAL]: end the HTTP server (SIGKILL by default) and reap it.
http_kill() {
	local pid=$HTTP_PID
	[ -n "$pid" ] || return 0
	kill -s "${1:-KILL}" "$pid" 2>/dev/null
	wait_for 10 eval '! pid_running '"$pid" ||
		fail "the HTTP server $pid did not exit within 10 s"
	wait "$pid" 2>/dev/null
	HTTP_PID=
}

# remote_url KIND PORT: the endpoint of server-everything's KIND.
remote_url() {
	case "$1" in
	streamableHttp) echo "http://127.0.0.1:$2/mcp" ;;
	sse) echo "http://127.0.0.1:$2/sse" ;;
	*) hard_error "remote_url: unknown kind $1" ;;
	esac
}

# remote_wait_ready NAME TIMEOUT_S: the server is ready; a failed state is
# reported at once with its last exit.
remote_wait_ready() {
	local deadline st
	deadline=$(($(now_ms) + $2 * 1000))
	while :; do
		mcpd_running || fail "mcpd died while $1 was starting"
		st=$(server_field "$1" state 2>/dev/null)
		[ "$st" = ready ] && return 0
		if [ -z "$st" ] && ctl --json status 2>/dev/null |
			jq -e --arg n "$1" 'all(.servers[]; .name != $n)' >/dev/null; then
			fail "mcpd does not run $1 (see its log)"
		fi
		[ "$st" = failed ] &&
			fail "$1 failed to start: last_exit $(server_field "$1" last_exit)"
		[ "$(now_ms)" -lt "$deadline" ] ||
			fail "$1 not ready within $2 s (state ${st:-unknown}, last_exit $(server_field "$1" last_exit))"
		sleep 0.1
	done
}

# marked_pids EXE: the running processes of EXE carrying this test's marker.
marked_pids() {
	local p pid
	for p in /proc/[0-9]*; do
		[ "$p/exe" -ef "$1" ] 2>/dev/null || continue
		pid=${p#/proc/}
		_marked "$pid" && pid_running "$pid" && echo "$pid"
	done
}

# shellcheck disable=SC2317  # called through wait_for
no_marked() {
	[ -z "$(marked_pids "$1")" ]
}

# run_sdk_client OUT ARGS...: the SDK interop client (sdk-client.mjs), in
# the background so that the test's timeout can interrupt the wait; its
# output to OUT; returns its exit status.
run_sdk_client() {
	local out=$1 rc
	shift
	MCPD_TEST_DIR=$T "${_MCPD_GUARD[@]}" \
		timeout -k 5 $((CLIENT_TIMEOUT_S + 30)) "$NODE" "$T/sdk-client.mjs" \
		--timeout-s "$CLIENT_TIMEOUT_S" "$@" </dev/null >"$out" 2>&1 &
	CLIENT_PID=$!
	wait "$CLIENT_PID"
	rc=$?
	CLIENT_PID=
	cat "$out"
	return "$rc"
}
