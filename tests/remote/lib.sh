# lib.sh -- helpers for the tests of remote servers (sourced after
# tests/integration/lib.sh, not run).
#
# A remote server here is server-everything from npm speaking Streamable
# HTTP (`node dist/index.js streamableHttp`, endpoint /mcp) or legacy
# HTTP+SSE (`node dist/index.js sse`, GET /sse and POST /message) on a
# port of 127.0.0.1.  mcpd runs it as a config entry with a "url", that is
# through mcpd-remote; or mcpd-remote runs on its own as a stdio server.
#
# remote_setup finds Node.js (or skips), has the pinned packages of
# tests/interop installed (tests/interop/npm-deps.sh, as interop.sh does)
# and copies the test clients into $T next
# to a link to node_modules, so their imports resolve wherever the source
# tree is.  http_start runs an HTTP server on a free port (server-everything
# cannot be asked for port 0, so a random high port is tried, and another
# one if it was taken) and http_kill ends it; both mark it with
# MCPD_TEST_DIR=$T, so the cleanup of lib.sh finds it whatever happens.

NPM_TIMEOUT_S=${NPM_TIMEOUT_S:-600}
# Waits for conditions (free when things work): a loaded machine starts
# node slowly.
HTTP_START_TIMEOUT_S=${HTTP_START_TIMEOUT_S:-60}

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

# _remote_npm: W, the directory of the pinned packages, installed by
# tests/interop/npm-deps.sh if need be.
_remote_npm() {
	W=$(NPM_TIMEOUT_S=$NPM_TIMEOUT_S bash "$TESTS_SRCDIR/interop/npm-deps.sh" \
		"$PWD" 2>"$T/npm.log") || {
		cat "$T/npm.log" >&2
		hard_error "the pinned npm packages could not be installed (npm-deps.sh)"
	}
	grep '^npm-deps:' "$T/npm.log" | sed 's/^/# /'
}

# _port_taken PORT: something listens on TCP PORT.
_port_taken() {
	ss -Htln "sport = :$1" 2>/dev/null | grep -q .
}

# _random_port: a port below the kernel's ephemeral range, so that no
# server another test starts on port 0 and no outgoing connection can be
# given it while this test restarts its server there; other tests that
# pick at random too are the only rivals (see http_start).
_random_port() {
	local lo=32768
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null
	case "$lo" in
	'' | *[!0-9]*) lo=32768 ;;
	esac
	if [ "$lo" -gt 21024 ]; then
		echo $((20000 + RANDOM % (lo - 20000)))
	else
		echo $((20000 + RANDOM % 40000))
	fi
}

# _pid_listens PID PORT: process PID itself holds a socket listening on
# TCP PORT (its sockets' inodes against /proc/net/tcp and tcp6).
_pid_listens() {
	local inodes
	inodes=$(find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null |
		sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')
	[ -n "${inodes// /}" ] || return 1
	awk -v port="$(printf '%04X' "$2")" -v inodes="$inodes" '
		BEGIN { n = split(inodes, a, " "); for (i = 1; i <= n; i++) mine[a[i]] = 1 }
		FNR > 1 && $4 == "0A" && toupper(substr($2, index($2, ":") + 1)) == port &&
			($10 in mine) { found = 1 }
		END { exit !found }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# _http_started: the server listens on its port itself (not another
# test's server that picked the same port), or it has exited.
# shellcheck disable=SC2317  # called through wait_for
_http_started() {
	_pid_listens "$HTTP_PID" "$HTTP_PORT" || ! pid_running "$HTTP_PID"
}

# _http_listening: the server answers HTTP on its port (any status).
# shellcheck disable=SC2317  # called through wait_for
_http_listening() {
	local code
	pid_running "$HTTP_PID" || return 1
	code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' \
		"http://127.0.0.1:$HTTP_PORT/" 2>/dev/null)
	[ -n "$code" ] && [ "$code" != 000 ]
}

# http_start KIND [PORT]: server-everything's KIND (streamableHttp or sse)
# on PORT, or on a free random port; sets HTTP_PID and HTTP_PORT, logs to
# $T/http-N.log (HTTP_LOG).  With PORT given, the port must be free again
# within the start-up time (the server that had it was just killed).
# Tests running side by side may pick the same random port: the loser's
# server exits with EADDRINUSE and another port is tried.
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
			port=$(_random_port)
			_port_taken "$port" && continue
		fi
		HTTP_STARTS=$((HTTP_STARTS + 1))
		HTTP_LOG=$T/http-$HTTP_STARTS.log
		HTTP_PORT=$port
		(cd "$T" && MCPD_TEST_DIR=$T PORT=$port exec "$NODE" "$EVERYTHING" "$kind") \
			</dev/null >"$HTTP_LOG" 2>&1 &
		HTTP_PID=$!
		echo "$HTTP_PID" >"$T/http.pid"
		wait_for "$HTTP_START_TIMEOUT_S" _http_started
		if pid_running "$HTTP_PID"; then
			if ! _pid_listens "$HTTP_PID" "$port"; then
				cat "$HTTP_LOG" >&2
				fail "the $kind server did not listen on port $port within $HTTP_START_TIMEOUT_S s"
			fi
			wait_for "$HTTP_START_TIMEOUT_S" _http_listening ||
				fail "the $kind server said it listens on port $port but does not answer there"
			return 0
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
	wait_for 30 eval '! pid_running '"$pid" ||
		fail "the HTTP server $pid did not exit within 30 s"
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
