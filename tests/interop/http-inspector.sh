#!/bin/bash
# http-inspector.sh -- the MCP Inspector's command line
# (@modelcontextprotocol/inspector-cli, `mcp-inspector-cli --cli URL
# --transport http`) on mcpd's HTTP front, as a person trying a server
# from a shell uses it: with a token from `mcpctl token create` in
# --header, it lists the tools of server-everything and calls echo, lists
# the resources and reads one, lists the prompts, on /servers/NAME/mcp and
# on /groups/NAME/mcp (the group's names are the member's, prefixed).
# With no token, a wrong one or a revoked one, it exits non-zero showing
# the reason mcpd-http gave with its 401.
#
# Each run is a new session that the Inspector leaves without a DELETE;
# past max_sessions_per_token the oldest of them ends for the next.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/http-inspector.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-inspector: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"

http_front_prep
INSPECTOR=$MODS/inspector-cli/build
[ -f "$INSPECTOR/cli.js" ] ||
	hard_error "$INSPECTOR/cli.js is missing (tests/interop/package.json)"
note "inspector-cli $(jq -r .version "$MODS/inspector-cli/package.json")"

http_front_everything inspector

# inspector PATH [ARGS...]: the Inspector's CLI on BASE/PATH, its stdout
# (the result as JSON) in T/insp.out, stderr in T/insp.err; its status.
# It runs from its own build directory: its index.js finds its
# package.json as "../package.json" from the current directory.  It
# starts "node" from PATH.  MCPD_TEST_DIR marks it for the cleanup.
inspector() {
	local path=$1
	shift
	(cd "$INSPECTOR" && PATH=$(dirname "$NODE"):$PATH MCPD_TEST_DIR=$T \
		timeout -k 5 "$CLIENT_TIMEOUT_S" "$NODE" cli.js --cli \
		"$BASE$path" --transport http "$@") \
		</dev/null >"$T/insp.out" 2>"$T/insp.err"
}

# ok WHAT PATH ARGS...: the Inspector succeeded, with JSON on stdout.
ok() {
	local what=$1
	shift
	inspector "$@" --header "Authorization: Bearer $TOKEN" ||
		fail "$what: the Inspector exited $?: $(head -c 1500 "$T/insp.err")"
	jq -e . "$T/insp.out" >/dev/null ||
		fail "$what: not JSON: $(head -c 1500 "$T/insp.out")"
}

# session PATH PREFIX: what a user does with the Inspector on PATH, whose
# tools and prompts are named PREFIX + the server's name.
session() {
	local path=$1 p=$2 tools uri

	ok "tools/list on $path" "$path" --method tools/list
	tools=$(jq -r '.tools[].name' "$T/insp.out" | tr '\n' ' ')
	for t in echo get-sum trigger-long-running-operation; do
		case " $tools" in
		*" $p$t "*) ;;
		*) fail "tools/list on $path has no $p$t: $tools" ;;
		esac
	done
	note "$path: $(jq '.tools | length' "$T/insp.out") tools"

	ok "tools/call on $path" "$path" --method tools/call \
		--tool-name "${p}echo" --tool-arg 'message=hi from the inspector'
	jq -e '.content[0].text == "Echo: hi from the inspector" and
		(.isError | not)' "$T/insp.out" >/dev/null ||
		fail "${p}echo on $path answered $(head -c 600 "$T/insp.out")"
	# Arguments as the Inspector converts them by the tool's schema.
	ok "get-sum on $path" "$path" --method tools/call \
		--tool-name "${p}get-sum" --tool-arg a=2 --tool-arg b=40
	jq -e '.content[0].text | test("\\b42\\b")' "$T/insp.out" >/dev/null ||
		fail "${p}get-sum on $path answered $(head -c 600 "$T/insp.out")"

	ok "resources/list on $path" "$path" --method resources/list
	uri=$(jq -r '[.resources[].uri | select(endswith("features.md"))][0]
		// empty' "$T/insp.out")
	[ -n "$uri" ] ||
		fail "resources/list on $path: $(head -c 600 "$T/insp.out")"
	ok "resources/read on $path" "$path" --method resources/read --uri "$uri"
	jq -e --arg u "$uri" '.contents[0].uri == $u and
		(.contents[0].text | test("Everything Server"))' \
		"$T/insp.out" >/dev/null ||
		fail "resources/read $uri on $path: $(head -c 600 "$T/insp.out")"

	ok "prompts/list on $path" "$path" --method prompts/list
	jq -e --arg n "${p}simple-prompt" '[.prompts[].name] | index($n)' \
		"$T/insp.out" >/dev/null ||
		fail "prompts/list on $path: $(jq -c '[.prompts[].name]' "$T/insp.out")"
	note "$path: tools, a call, a resource read and prompts"
}

session /servers/everything/mcp ""
session /groups/kit/mcp everything__

# refused WHAT MESSAGE [ARGS...]: the Inspector, run with ARGS, exited
# non-zero showing the reason of mcpd-http's 401, MESSAGE (the SDK under
# it prints the body of the answer, not its status).
refused() {
	local what=$1 msg=$2 rc
	shift 2
	inspector /servers/everything/mcp --method tools/list "$@"
	rc=$?
	case "$rc" in
	0) fail "$what: the Inspector exited 0: $(head -c 600 "$T/insp.out")" ;;
	124 | 137) fail "$what: the Inspector did not end within $CLIENT_TIMEOUT_S s" ;;
	esac
	grep -qF "$msg" "$T/insp.err" ||
		fail "$what: exit $rc, without '$msg': $(head -c 1500 "$T/insp.err")"
	! grep -q '"tools"' "$T/insp.out" ||
		fail "$what: the Inspector printed a tool list"
	note "$what: exit $rc, $(grep -Fm1 "$msg" "$T/insp.err" | cut -c1-160)"
}

refused "no token" "a bearer token is required (mcpctl token create)"
refused "a wrong token" "the token is not valid" \
	--header "Authorization: Bearer mcpd_wrong"
"$MCPCTL" token revoke inspector || fail "mcpctl token revoke failed"
refused "a revoked token" "the token is not valid" \
	--header "Authorization: Bearer $TOKEN"
ctl status >/dev/null || fail "mcpd stopped answering"
stop_mcpd
exit 0
