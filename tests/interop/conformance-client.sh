#!/bin/bash
# conformance-client.sh -- not a test: the client under test that the MCP
# conformance suite (@modelcontextprotocol/conformance) runs for one of its
# authorization scenarios: mcpd, with the scenario's server as a remote
# entry, signed in with `mcpctl login` and a scripted browser, then a
# tool called through mcpd.  Run by tests/interop/conformance-auth.sh,
# never by make check itself:
#
#   bash conformance-client.sh SERVER_URL
#
# The suite sets MCP_CONFORMANCE_SCENARIO (the scenario's name) and, for
# scenarios that hand the client credentials, MCP_CONFORMANCE_CONTEXT (a
# JSON object); the environment of make check (MCPD, MCPCTL, ...) comes
# through the suite.  What a person would do is what this does:
#
# - write the entry: {"url": SERVER_URL}, and an "oauth" object only
#   where the scenario gives the client something to configure (a client
#   registered beforehand, client credentials, a client metadata
#   document's URL);
# - start mcpd; a server with client credentials must become ready;
# - `mcpctl login NAME --no-browser`, curl as the browser following the
#   authorization URL it prints to mcpctl's loopback listener;
# - `mcpctl call NAME test-tool`; if the call is refused and names
#   `mcpctl login NAME` (a server that asks for a token only at the call,
#   or for a wider scope: a step-up), sign in as it says and call again;
#   two sign-ins at most.
#
# Exit 0 when the tool answered, 1 otherwise (the suite judges from what
# its servers saw; some scenarios expect the client to give up).

# shellcheck source=../integration/lib.sh
TEST_TIMEOUT_S=${CONFORMANCE_CLIENT_TIMEOUT_S:-150}
. "${TESTS_SRCDIR:?TESTS_SRCDIR is not set}/integration/lib.sh"

URL=${1:?usage: conformance-client.sh SERVER_URL}
SCENARIO=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}
CONTEXT=${MCP_CONFORMANCE_CONTEXT:-}
[ -n "$CONTEXT" ] || CONTEXT='{}'
MCPD_REMOTE=${MCPD_REMOTE:?MCPD_REMOTE is not set}
NAME=s
CIMD_URL=https://conformance-test.local/client-metadata.json

ctx() {
	jq -r --arg k "$1" '.[$k] // empty' <<<"$CONTEXT"
}

# --- the entry -----------------------------------------------------------------------
oauth=null
cc=0
case "$SCENARIO" in
auth/client-credentials-basic)
	cc=1
	(umask 077 && ctx client_secret >"$T/secret") || hard_error "cannot write $T/secret"
	oauth=$(jq -n --arg id "$(ctx client_id)" --arg f "$T/secret" \
		'{client_id: $id, client_secret_file: $f}')
	;;
auth/client-credentials-jwt)
	cc=1
	(umask 077 && ctx private_key_pem >"$T/key.pem") || hard_error "cannot write $T/key.pem"
	oauth=$(jq -n --arg id "$(ctx client_id)" --arg f "$T/key.pem" \
		--arg alg "$(ctx signing_algorithm)" \
		'{client_id: $id, private_key_file: $f} +
		 (if $alg != "" then {signing_algorithm: $alg} else {} end)')
	;;
auth/pre-registration)
	(umask 077 && ctx client_secret >"$T/secret") || hard_error "cannot write $T/secret"
	oauth=$(jq -n --arg id "$(ctx client_id)" --arg f "$T/secret" \
		'{grant: "authorization_code", client_id: $id,
		  client_secret_file: $f}')
	;;
auth/basic-cimd)
	oauth=$(jq -n --arg u "$CIMD_URL" '{client_metadata_url: $u}')
	;;
esac
write_config "$T/mcpd.json" "$(jq -n --arg n "$NAME" --arg url "$URL" \
	--argjson oauth "$oauth" \
	'{mcpServers: {($n): ({url: $url} +
		(if $oauth != null then {oauth: $oauth} else {} end))}}')"
note "$SCENARIO: $(jq -c ".mcpServers.$NAME | del(.oauth.client_secret_file, .oauth.private_key_file)" "$T/mcpd.json")"
PATH=$(dirname "$MCPD_REMOTE"):$PATH start_mcpd "$T/mcpd.json" \
	--token-dir "$T/tokens"

# --- the sign-in ------------------------------------------------------------------------
# shellcheck disable=SC2317  # called through wait_for
settled() {
	server_is "$NAME" ready needs-login failed
}

LOGINS=0
# login: one `mcpctl login` with curl as the browser; 0 if it succeeded.
login() {
	local tag url pid rc code
	LOGINS=$((LOGINS + 1))
	tag=$T/login-$LOGINS
	mkfifo "$tag.fifo" || hard_error "cannot make $tag.fifo"
	MCPD_TEST_DIR=$T timeout -k 5 120 "$MCPCTL" -s "$SOCK" login "$NAME" \
		--no-browser <"$tag.fifo" >"$tag.out" 2>"$tag.err" &
	pid=$!
	exec 7>"$tag.fifo"
	# The authorization URL: a line of its own.
	wait_for 60 eval "grep -qE '^https?://[^[:space:]]+\$' '$tag.out' '$tag.err' 2>/dev/null || ! pid_running $pid"
	url=$(cat "$tag.out" "$tag.err" | grep -m 1 -E '^https?://[^[:space:]]+$')
	if [ -n "$url" ]; then
		note "login $LOGINS: the browser opens $url"
		code=$(curl -sS -L --max-time 60 -o "$tag.page" -w '%{http_code}' \
			"$url" 2>"$tag.curl")
		note "login $LOGINS: the browser ended on HTTP $code"
	fi
	wait_for 90 eval '! pid_running '"$pid" || kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	exec 7>&-
	note "login $LOGINS: mcpctl exited $rc: $(tr '\n' '|' <"$tag.err" | head -c 600)"
	return "$rc"
}

wait_for 60 settled ||
	fail "$NAME did not settle within 60 s (state $(server_field "$NAME" state))"
state=$(server_field "$NAME" state)
note "$NAME is $state before any sign-in"
[ "$cc" = 0 ] || [ "$state" = ready ] ||
	fail "$NAME has client credentials but is $state: $(server_field "$NAME" last_exit)"
if [ "$state" = needs-login ]; then
	login || fail "the sign-in failed"
fi

# --- the call ----------------------------------------------------------------------------
# A server may let initialize through and ask for a token (or a wider
# one) only at the call: the call's error then names `mcpctl login NAME`,
# and the person signs in as it says.  At most LOGINS_MAX sign-ins in all:
# mcpd never signs in by itself, so any loop would be the person's.
LOGINS_MAX=2
while :; do
	wait_for 60 server_is "$NAME" ready needs-login failed
	if ctl call "$NAME" test-tool >"$T/call.out" 2>"$T/call.err"; then
		note "test-tool answered: $(head -c 300 "$T/call.out")"
		break
	fi
	note "test-tool failed: $(head -c 600 "$T/call.err")"
	grep -qF "mcpctl login $NAME" "$T/call.err" || fail "the call failed"
	[ "$LOGINS" -lt "$LOGINS_MAX" ] ||
		fail "the call still asks for a sign-in after $LOGINS of them"
	login || fail "sign-in $((LOGINS)) (asked for by the call) failed"
done
stop_mcpd
exit 0
