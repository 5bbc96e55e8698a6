# shellcheck shell=bash
# member-lib.sh -- helpers for the tests of what another local user can do
# through mcpd (hostile-roots.sh, hostile-visible.sh, hostile-instances.sh;
# sourced, not run).
#
# The other user is nobody, in group nogroup: a member of socket_group
# (as in access.sh), never an administrator.  Its clients are mcpctl
# connect bridges run under setpriv, spoken to line by line through spawn
# (lib.sh): member_spawn starts one, rpc_send writes a JSON-RPC line to
# it, rpc_read reads what comes back until a line matches, and
# member_session does the handshake with the roots capability, answering
# mcpd's roots/list with the roots given.  Needs root (to run as nobody).

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run clients as another user"
command -v setpriv >/dev/null 2>&1 || skip "setpriv is not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
getent passwd nobody >/dev/null || skip "no user nobody"
# For the tests that source this file.
# shellcheck disable=SC2034
MEMBER_UID=$(id -u nobody)
# shellcheck disable=SC2034
MEMBER_GID=$(getent group nogroup | cut -d: -f3)
as_member=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${as_member[@]}" test -x "$MCPCTL" ||
	skip "$MCPCTL is not executable by nobody"
# Others may pass through $T, and no more.
chmod 0711 "$T"

# member_spawn NAME SERVER [ENV...]: a bridge to SERVER as the member (with
# the environment variables ENV, NAME=VALUE), its stderr in $T/NAME.err.
member_spawn() {
	local name=$1 server=$2
	shift 2
	: >"$T/$name.err"
	chmod 0666 "$T/$name.err"
	# shellcheck disable=SC2016  # for sh -c
	spawn "$name" env "$@" "${as_member[@]}" sh -c 'exec "$@" 2>>"$0"' \
		"$T/$name.err" "$MCPCTL" -s "$SOCK" connect "$server"
}

# admin_spawn NAME SERVER: the same as root, an administrator.
admin_spawn() {
	: >"$T/$1.err"
	# shellcheck disable=SC2016  # for sh -c
	spawn "$1" sh -c 'exec "$@" 2>>"$0"' "$T/$1.err" \
		"$MCPCTL" -s "$SOCK" connect "$2"
}

# rpc_send NAME JSON: one line to the client's bridge.
rpc_send() {
	spawn_send "$1" "$2"
}

# rpc_read NAME FILTER [TIMEOUT_S]: print the first line from the bridge
# that jq FILTER accepts; the lines before it are kept in $T/NAME.seen.
# 1 if none came within TIMEOUT_S (30) or the bridge ended.
rpc_read() {
	local name=$1 filter=$2 deadline line rc
	deadline=$(($(now_ms) + ${3:-30} * 1000))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		spawn_read "$name" 5 line
		rc=$?
		if [ "$rc" -eq 0 ]; then
			printf '%s\n' "$line" >>"$T/$name.seen"
			if jq -e "$filter" <<<"$line" >/dev/null 2>&1; then
				printf '%s\n' "$line"
				return 0
			fi
		elif [ "$rc" -le 128 ]; then
			return 1	# the end of its output
		fi
	done
	return 1
}

# rpc_call NAME ID METHOD PARAMS-JSON [TIMEOUT_S]: a request, and its reply.
rpc_call() {
	rpc_send "$1" "$(jq -cn --argjson id "$2" --arg m "$3" \
		--argjson p "$4" '{jsonrpc: "2.0", id: $id, method: $m, params: $p}')"
	rpc_read "$1" ".id == $2" "${5:-60}"
}

# member_session NAME ROOTS-JSON: the handshake, declaring the roots
# capability, and mcpd's roots/list answered with ROOTS (an array of
# file:// URIs).  Fails the test if any step does not happen.
member_session() {
	local name=$1 ask id
	rpc_call "$name" 1 initialize '{"protocolVersion":"2025-11-25",
		"capabilities":{"roots":{"listChanged":true}},
		"clientInfo":{"name":"'"$name"'","version":"1"}}' >/dev/null ||
		fail "client $name: no answer to initialize: $(cat "$T/$name.err")"
	rpc_send "$name" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	ask=$(rpc_read "$name" '.method == "roots/list"') ||
		fail "client $name: mcpd did not ask for its roots: $(cat "$T/$name.err")"
	id=$(jq -c .id <<<"$ask")
	rpc_send "$name" "$(jq -cn --argjson id "$id" --argjson r "$2" \
		'{jsonrpc: "2.0", id: $id,
		  result: {roots: ($r | map({uri: .}))}}')"
}

# bridge_pid NAME: the pid of the client's bridge (spawn's).
bridge_pid() {
	local v=${1}_PID
	echo "${!v}"
}

# bridge_gone NAME: the client's bridge has exited (its pid not reused).
bridge_gone() {
	local start=_SPAWN_START_$1
	_spawn_gone "$(bridge_pid "$1")" "${!start}"
}
