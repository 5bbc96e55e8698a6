#!/bin/bash
# remote-oauth.sh -- OAuth 2.1 client credentials in mcpd-remote, against
# tests/remote/oauth-server.mjs (an authorization server and a protected
# MCP server on 127.0.0.1, built on the MCP TypeScript SDK).
#
# mcpd-remote on its own (stdio) and under mcpd (a "url" entry with
# "oauth"):
# - a tool call works: the first 401 leads to discovery (the challenge's
#   resource_metadata, the authorization server's metadata) and a token
#   fetched with client_secret_basic, the secret form-encoded (it holds
#   ':', '%', '+', '&' and a space); whoami says which client it is;
# - with 3 s tokens, calls over 13 s all succeed, several tokens are
#   fetched, and the server sees no more than one 401 after the first
#   (tokens are refreshed before they expire, not after a refusal);
# - after the server revokes every token, the next call still succeeds
#   (the 401 is retried once with a fresh token);
# - the fallbacks of discovery: no resource_metadata in the challenge,
#   metadata only at the root well-known URL, an issuer with a path and
#   metadata only at openid-configuration;
# - client_secret_post when the server lists only that; private_key_jwt
#   with ES256 and RS256 keys made here by openssl; --oauth-token-url
#   skips discovery (no metadata fetched);
# - refusals, with the reason on mcpd-remote's stderr and no credentials
#   ever sent: metadata naming another issuer or another resource, a
#   plain-http token endpoint off loopback, a server accepting only
#   private_key_jwt from a client holding a secret; a wrong secret is a
#   clear error for the call and shows in `mcpctl status`;
# - no token ever appears in mcpd-remote's stderr, mcpd's log, `mcpctl
#   logs`, `mcpctl --json status`, or a URL;
# - TLS is always verified: a server whose certificate comes from an
#   unknown CA is refused (exit 69, the reason on stderr); with --ca-file (ca_file under mcpd) naming that
#   CA, discovery, the token and the calls all work over HTTPS.
#
# Needs node (18 or later), openssl, and the SDK from tests/interop's
# node_modules (tests/remote/lib.sh runs `npm ci` when they are missing).

# npm ci may be slow, and another test's may hold the lock meanwhile.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

command -v openssl >/dev/null 2>&1 || skip "openssl is not installed"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
# Node.js, the pinned packages (npm ci when missing), MCPD_REMOTE.
remote_setup
MODULES=$W/node_modules
SERVER_JS=$TESTS_SRCDIR/remote/oauth-server.mjs
[ -f "$SERVER_JS" ] || hard_error "$SERVER_JS is missing"

# --- credentials ---------------------------------------------------------------------
# A secret that Basic must form-encode (RFC 6749 section 2.3.1).
SECRET='s3cr:e%t+x &y=DO-NOT-SHOW'
umask 077
printf '%s\n' "$SECRET" >"$T/secret"
printf '%s\n' 'not-the-secret' >"$T/wrong-secret"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
	-out "$T/es.key" 2>/dev/null || hard_error "openssl: cannot make an EC key"
openssl pkey -in "$T/es.key" -pubout -out "$T/es.pub" 2>/dev/null ||
	hard_error "openssl: cannot write the EC public key"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
	-out "$T/rs.key" 2>/dev/null || hard_error "openssl: cannot make an RSA key"
openssl pkey -in "$T/rs.key" -pubout -out "$T/rs.pub" 2>/dev/null ||
	hard_error "openssl: cannot write the RSA public key"

# --- the authorization and MCP server ------------------------------------------------
# as_stop: end the server as_start started last.
AS_PID=
as_stop() {
	[ -n "$AS_PID" ] || return 0
	kill -TERM "$AS_PID" 2>/dev/null
	wait "$AS_PID" 2>/dev/null
	AS_PID=
}

# as_start NAME [ARGS...]: run oauth-server.mjs (after ending the last
# one), set AS_URL (the MCP endpoint) and AS_BASE; its stderr goes to
# $T/NAME.as.err.
as_start() {
	local name=$1 out
	shift
	as_stop
	out=$T/$name.as.out
	MCPD_TEST_DIR=$T "$NODE" "$SERVER_JS" --modules "$MODULES" \
		--client "app:$SECRET" --client "other:other-secret" \
		--jwt-client "jwt-es:$T/es.pub" --jwt-client "jwt-rs:$T/rs.pub" \
		--pidfile "$T/$name.as.pid" "$@" \
		</dev/null >"$out" 2>"$T/$name.as.err" &
	AS_PID=$!
	# (jq -e succeeds on an empty file: look for the line itself.)
	wait_for 60 grep -q '"port"' "$out" || {
		cat "$T/$name.as.err" >&2
		hard_error "oauth-server.mjs $name did not start within 60 s"
	}
	AS_URL=$(jq -r .url "$out")
	AS_BASE=${AS_URL%/mcp}
}

# as_stats [JQ-ARGS...]: the server's /stats, or what jq makes of it.
as_stats() {
	[ $# -gt 0 ] || set -- .
	curl -sf --max-time 10 ${AS_CA:+--cacert "$AS_CA"} "$AS_BASE/stats" |
		jq -r "$@"
}

as_revoke() {
	curl -sf --max-time 10 ${AS_CA:+--cacert "$AS_CA"} -X POST \
		"$AS_BASE/admin/revoke" >/dev/null ||
		fail "cannot revoke the tokens at $AS_BASE"
}

# as_tokens: every token the server issued, one a line.
as_tokens() {
	curl -sf --max-time 10 ${AS_CA:+--cacert "$AS_CA"} \
		"$AS_BASE/admin/tokens" | jq -r '.[]'
}

# no_token WHAT FILE: none of the tokens issued so far is in FILE.
no_token() {
	local t
	[ -f "$2" ] || return 0
	for t in $(as_tokens); do
		if grep -qF -- "$t" "$2"; then
			fail "$1 shows an access token"
		fi
	done
	if grep -qF -- "DO-NOT-SHOW" "$2"; then
		fail "$1 shows the client secret"
	fi
}

AS_CA=

# --- mcpd-remote on its own, driven over stdio --------------------------------------
MR_ID=0
# mr_start NAME [ARGS...]: mcpd-remote ARGS $AS_URL (spawn, lib.sh).
mr_start() {
	MR_NAME=$1
	shift
	spawn MR "$MCPD_REMOTE" "$@" "$AS_URL" 2>"$T/$MR_NAME.mr.err"
	MR_ID=0
}

# mr_request METHOD PARAMS: send a request; its response in MR_REPLY
# (fails if none came within MR_TIMEOUT_S: a wait, generous for a loaded
# machine; a refusal comes at once).
MR_TIMEOUT_S=30
mr_request() {
	local line deadline left id
	MR_ID=$((MR_ID + 1))
	spawn_send MR "$(jq -cn --argjson id "$MR_ID" --arg m "$1" --argjson p "$2" \
		'{jsonrpc: "2.0", id: $id, method: $m, params: $p}')" || return 1
	deadline=$(($(now_ms) + MR_TIMEOUT_S * 1000))
	MR_REPLY=
	while :; do
		left=$(((deadline - $(now_ms) + 999) / 1000))
		[ "$left" -gt 0 ] || return 1
		spawn_read MR "$left" line || return 1
		id=$(jq -r '.id // empty' <<<"$line" 2>/dev/null)
		if [ "$id" = "$MR_ID" ]; then
			MR_REPLY=$line
			return 0
		fi
	done
}

mr_notify() {
	spawn_send MR "$(jq -cn --arg m "$1" '{jsonrpc: "2.0", method: $m}')"
}

# mr_initialize: the MCP handshake; fails the test unless it succeeds.
mr_initialize() {
	mr_request initialize '{"protocolVersion": "2025-11-25",
		"capabilities": {}, "clientInfo": {"name": "remote-oauth",
		"version": "1"}}' ||
		fail "$MR_NAME: no answer to initialize within $MR_TIMEOUT_S s: $(tail -n 5 "$T/$MR_NAME.mr.err")"
	jq -e .result.protocolVersion <<<"$MR_REPLY" >/dev/null ||
		fail "$MR_NAME: initialize failed: $MR_REPLY; stderr: $(tail -n 5 "$T/$MR_NAME.mr.err")"
	mr_notify notifications/initialized
}

# mr_call TOOL ARGS: a tools/call; its first text in MR_TEXT; 1 if it
# failed (MR_REPLY says how).
mr_call() {
	MR_TEXT=
	mr_request tools/call "$(jq -cn --arg t "$1" --argjson a "$2" \
		'{name: $t, arguments: $a}')" || return 1
	jq -e '.result and (.result.isError | not)' <<<"$MR_REPLY" >/dev/null ||
		return 1
	MR_TEXT=$(jq -r '.result.content[0].text' <<<"$MR_REPLY")
}

# mr_stop: close its stdin; it must exit 0 within 30 s.
mr_stop() {
	spawn_close MR
	spawn_wait MR 30 ||
		fail "$MR_NAME: mcpd-remote did not exit within 30 s of stdin's end"
	MR_STATUS=$SPAWN_STATUS
	[ "$MR_STATUS" = 0 ] ||
		fail "$MR_NAME: mcpd-remote exited $MR_STATUS at stdin's end: $(tail -n 5 "$T/$MR_NAME.mr.err")"
}

# mr_refused NAME WHAT PATTERN [MCPD-REMOTE ARGS...]: the session cannot
# start; stderr says PATTERN; the server got no credentials at all.
mr_refused() {
	local name=$1 what=$2 pattern=$3 status
	shift 3
	mr_start "$name" "$@"
	if mr_request initialize '{"protocolVersion": "2025-11-25",
		"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}' &&
		jq -e .result <<<"$MR_REPLY" >/dev/null; then
		fail "$what: initialize succeeded"
	fi
	note "$what: ${MR_REPLY:-no reply}"
	spawn_close MR
	spawn_wait MR 30 ||
		fail "$what: mcpd-remote still runs 30 s after stdin's end"
	status=$SPAWN_STATUS
	note "$what: exit $status; stderr: $(tr '\n' '|' <"$T/$name.mr.err" | head -c 600)"
	# Authorization failed at initialize: the program ends, 77.
	[ "$status" = 77 ] ||
		fail "$what: mcpd-remote exited $status (77 expected)"
	grep -Eq -- "$pattern" "$T/$name.mr.err" ||
		fail "$what: stderr does not say why (/$pattern/): $(cat "$T/$name.mr.err")"
	[ "$(as_stats '.token_requests | add')" = 0 ] ||
		fail "$what: credentials were sent anyway: $(as_stats .token_requests)"
}

# --- 1. discovery and client_secret_basic, refresh, revocation ------------------------
# 3 s tokens, honoured 2 s longer (see below).
as_start main --token-ttl 3 --token-grace 2 --scopes "mcp:tools mcp:read"
t_first=$(now_ms)
mr_start basic --oauth-client-id app --oauth-client-secret-file "$T/secret"
mr_initialize
mr_call whoami '{}' || fail "whoami failed: $MR_REPLY"
t_whoami=$(($(now_ms) - t_first))
[ "$MR_TEXT" = app ] || fail "whoami says '$MR_TEXT', not app"
# One token serves both, unless the machine was so loaded that 90 % of its
# 3 s were gone before the whoami (then it was refreshed ahead, as below).
basic=$(as_stats .token_requests.client_secret_basic)
if [ "$t_whoami" -lt 2700 ]; then
	[ "$basic" = 1 ] ||
		fail "one client_secret_basic token request expected in $t_whoami ms: $(as_stats)"
else
	note "initialize and whoami took $t_whoami ms: $basic token requests"
	[ "$basic" -le 2 ] ||
		fail "at most two client_secret_basic token requests expected in $t_whoami ms: $(as_stats)"
fi
[ "$(as_stats .last_token_request.resource)" = "$AS_URL" ] ||
	fail "the token request's resource is not $AS_URL: $(as_stats .last_token_request)"
[ "$(as_stats .last_token_request.scope)" = "mcp:tools mcp:read" ] ||
	fail "the scope asked for is not scopes_supported: $(as_stats .last_token_request)"
[ "$(as_stats .metadata_requests)" -ge 2 ] ||
	fail "no discovery: $(as_stats)"
first_401=$(as_stats .unauthorized)
note "discovery: $(as_stats -c .), 401s so far $first_401"

# Calls over 13 s, tokens of 3 s: refreshed ahead of expiry.  mcpd-remote
# refreshes once 90 % of a token's life is gone, at its next request, and
# until then sends the token it holds: on a loaded machine that request
# may reach the server over 300 ms later, after the token expired.  So
# the server honours its tokens 2 s past expires_in, as servers allow for
# clock skew: a refresh ahead of expiry then never meets a 401 short of a
# 2.3 s stall, while a client that waits for the refusal meets one every
# 5 s: twice in these 13 s (the first within 5 s, the second 5 s after
# the token fetched then).  The pause between calls spreads them over
# the time; its length does not matter.
n=0
t_end=$(($(now_ms) + 13000))
while [ "$(now_ms)" -lt "$t_end" ]; do
	n=$((n + 1))
	mr_call echo "$(jq -cn --arg t "call $n" '{text: $t}')" ||
		fail "call $n across token expiries failed: $MR_REPLY"
	[ "$MR_TEXT" = "call $n" ] || fail "call $n echoed '$MR_TEXT'"
	sleep 0.25
done
issued=$(as_stats .tokens_issued)
late_401=$(($(as_stats .unauthorized) - first_401))
note "$n calls over 13 s: $issued tokens, $late_401 more 401s ($(as_stats .expired_presented) for expired tokens), uses $(as_stats -c .bearer_uses)"
[ "$issued" -ge 3 ] || fail "only $issued tokens in 13 s of 3 s tokens"
[ "$late_401" -le 1 ] ||
	fail "$late_401 401s across expiries: tokens were not refreshed ahead"
# Discovery is kept: its 2 requests, and 2 more for the 401 allowed above
# (a 401 has the authorization server checked again); a discovery per
# refresh would add 2 for each refresh (2 or more, as checked above).
[ "$(as_stats .metadata_requests)" -le $((3 + 2 * late_401)) ] ||
	fail "discovery was not kept: $(as_stats .metadata_requests) metadata requests with $late_401 late 401s"

# Revoked: a 401, one fresh token, the call succeeds.
before=$(as_stats .tokens_issued)
as_revoke
mr_call echo '{"text": "after revoke"}' ||
	fail "the call after revocation failed: $MR_REPLY"
[ "$MR_TEXT" = "after revoke" ] || fail "after revocation: echoed '$MR_TEXT'"
[ "$(as_stats .tokens_issued)" -gt "$before" ] ||
	fail "no new token after revocation"
[ "$(as_stats .token_in_url)" = 0 ] || fail "a token was sent in a URL"
mr_stop
no_token "mcpd-remote's stderr" "$T/basic.mr.err"

# --- 2. discovery's fallbacks -------------------------------------------------------------
as_start fallback --issuer-path /as --openid-only --prm-root-only \
	--no-challenge-metadata
mr_start fallback --oauth-client-id app --oauth-client-secret-file "$T/secret" \
	--oauth-scope mcp:tools
mr_initialize
mr_call whoami '{}' || fail "fallback discovery: whoami failed: $MR_REPLY"
[ "$MR_TEXT" = app ] || fail "fallback discovery: whoami says '$MR_TEXT'"
[ "$(as_stats .last_token_request.scope)" = mcp:tools ] ||
	fail "the configured scope was not asked for: $(as_stats .last_token_request)"
mr_stop

# --- 3. client_secret_post, private_key_jwt, token_url ---------------------------------
as_start post --auth-methods client_secret_post
mr_start post --oauth-client-id app --oauth-client-secret-file "$T/secret"
mr_initialize
mr_call whoami '{}' || fail "client_secret_post: whoami failed: $MR_REPLY"
[ "$(as_stats -c .token_requests)" = '{"client_secret_basic":0,"client_secret_post":1,"private_key_jwt":0}' ] ||
	fail "client_secret_post expected: $(as_stats -c .token_requests)"
mr_stop
no_token "mcpd-remote's stderr (post)" "$T/post.mr.err"

as_start jwt --auth-methods private_key_jwt --token-ttl 60
for alg in ES256 RS256; do
	case $alg in
	ES256) id=jwt-es key=$T/es.key ;;
	RS256) id=jwt-rs key=$T/rs.key ;;
	esac
	mr_start "jwt-$alg" --oauth-client-id "$id" \
		--oauth-private-key-file "$key" --oauth-signing-algorithm "$alg"
	mr_initialize
	mr_call whoami '{}' || fail "private_key_jwt $alg: whoami failed: $MR_REPLY"
	[ "$MR_TEXT" = "$id" ] || fail "private_key_jwt $alg: whoami says '$MR_TEXT'"
	as_revoke
	mr_call whoami '{}' || fail "private_key_jwt $alg after revocation: $MR_REPLY"
	mr_stop
done
[ "$(as_stats .token_requests.private_key_jwt)" = 4 ] ||
	fail "four private_key_jwt token requests expected: $(as_stats -c .token_requests)"
[ "$(as_stats -c .token_failures)" = '{}' ] ||
	fail "token requests were refused: $(as_stats -c .token_failures) $(tail -n 3 "$T/jwt.as.err")"

as_start direct --auth-methods private_key_jwt
mr_start direct --oauth-client-id jwt-es --oauth-private-key-file "$T/es.key" \
	--oauth-signing-algorithm ES256 --oauth-token-url "$AS_BASE/token"
mr_initialize
mr_call whoami '{}' || fail "--oauth-token-url: whoami failed: $MR_REPLY"
[ "$(as_stats .metadata_requests)" = 0 ] ||
	fail "--oauth-token-url: metadata was fetched anyway"
mr_stop

# --- 4. refusals ---------------------------------------------------------------------------
as_start wrong-issuer --wrong-issuer
mr_refused wrong-issuer "metadata naming another issuer" "issuer" \
	--oauth-client-id app --oauth-client-secret-file "$T/secret"
as_start wrong-resource --wrong-resource
mr_refused wrong-resource "metadata naming another resource" "resource" \
	--oauth-client-id app --oauth-client-secret-file "$T/secret"
as_start http-token --http-token-endpoint 192.0.2.1
mr_refused http-token "a plain-http token endpoint" "https" \
	--oauth-client-id app --oauth-client-secret-file "$T/secret"
as_start jwt-only --auth-methods private_key_jwt
mr_refused jwt-only "a server taking only private_key_jwt" "private_key_jwt" \
	--oauth-client-id app --oauth-client-secret-file "$T/secret"

as_start wrong-secret
mr_start wrong-secret --oauth-client-id app \
	--oauth-client-secret-file "$T/wrong-secret"
if mr_request initialize '{"protocolVersion": "2025-11-25",
	"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}' &&
	jq -e .result <<<"$MR_REPLY" >/dev/null; then
	fail "a wrong secret: initialize succeeded"
fi
spawn_close MR
spawn_wait MR 30 || fail "wrong secret: mcpd-remote did not exit within 30 s"
status=$SPAWN_STATUS
[ "$status" = 77 ] || fail "a wrong secret: mcpd-remote exited $status, not 77"
grep -q invalid_client "$T/wrong-secret.mr.err" ||
	fail "a wrong secret: stderr does not say invalid_client: $(cat "$T/wrong-secret.mr.err")"
grep -qF "not-the-secret" "$T/wrong-secret.mr.err" &&
	fail "a wrong secret: stderr shows the secret"

# --- 5. under mcpd ---------------------------------------------------------------------------
as_start mcpd --token-ttl 4
write_config "$T/mcpd.json" "$(jq -n --arg url "$AS_URL" --arg s "$T/secret" \
	--arg w "$T/wrong-secret" '{mcpServers: {
		r: {url: $url, oauth: {client_id: "app", client_secret_file: $s}},
		bad: {url: $url, oauth: {client_id: "app", client_secret_file: $w}}}}')"
PATH=$(dirname "$MCPD_REMOTE"):$PATH start_mcpd "$T/mcpd.json" \
	--token-dir "$T/tokens"
wait_ready r 60
ctl call r whoami >"$T/call.out" 2>"$T/call.err" ||
	fail "mcpctl call r whoami failed: $(cat "$T/call.err")"
grep -qx app "$T/call.out" || fail "whoami through mcpd: $(cat "$T/call.out")"
# Ten calls spread over more than 5 s (the pauses), so across an expiry.
for i in 1 2 3 4 5 6 7 8 9 10; do
	ctl call r echo text="through $i" >"$T/call.out" 2>"$T/call.err" ||
		fail "call $i through mcpd across expiries failed: $(cat "$T/call.err")"
	grep -qx "through $i" "$T/call.out" || fail "call $i echoed: $(cat "$T/call.out")"
	sleep 0.5
done
[ "$(as_stats .tokens_issued)" -ge 2 ] ||
	fail "through mcpd: one token in over 5 s of 4 s tokens"
as_revoke
ctl call r echo text=revoked >"$T/call.out" 2>"$T/call.err" ||
	fail "through mcpd, the call after revocation failed: $(cat "$T/call.err")"

# The wrong secret: a clear error, and status says so.
ctl call bad echo text=x >"$T/bad.out" 2>"$T/bad.err" &&
	fail "a call with a wrong secret succeeded: $(cat "$T/bad.out")"
note "wrong secret, the call: $(head -c 400 "$T/bad.err")"
grep -Eqi "invalid_client|authori[sz]" "$T/bad.err" ||
	fail "a wrong secret: the call's error does not say it is about authorization: $(cat "$T/bad.err")"
status_json >"$T/status.json" || fail "mcpctl --json status failed"
jq -e '.servers[] | select(.name == "bad") | tostring |
	test("invalid_client|auth")' "$T/status.json" >/dev/null ||
	fail "mcpctl status does not show the authorization failure: $(jq -c '.servers[] | select(.name == "bad")' "$T/status.json")"
ctl status >"$T/status.txt" 2>&1
ctl logs r >"$T/logs-r.txt" 2>&1
ctl logs bad >"$T/logs-bad.txt" 2>&1

no_token "mcpctl --json status" "$T/status.json"
no_token "mcpctl status" "$T/status.txt"
no_token "mcpctl logs r" "$T/logs-r.txt"
no_token "mcpctl logs bad" "$T/logs-bad.txt"
stop_mcpd
no_token "mcpd's log" "$MCPD_LOG"
grep -qF "not-the-secret" "$MCPD_LOG" "$T/status.json" "$T/logs-bad.txt" &&
	fail "the wrong secret shows in mcpd's log, status or logs"
[ "$(as_stats .token_in_url)" = 0 ] || fail "a token was sent in a URL"
note "through mcpd: $(as_stats -c '{tokens_issued, unauthorized, token_failures}')"
as_stop

# --- 6. TLS: verified always; a private CA only with --ca-file / ca_file -------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=mcpd test CA" \
	-keyout "$T/ca.key" -out "$T/ca.pem" 2>/dev/null ||
	hard_error "openssl: cannot make a CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
	-keyout "$T/tls.key" -out "$T/tls.csr" 2>/dev/null ||
	hard_error "openssl: cannot make a certificate request"
printf 'subjectAltName=IP:127.0.0.1\n' >"$T/tls.ext"
openssl x509 -req -in "$T/tls.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
	-CAcreateserial -days 2 -extfile "$T/tls.ext" -out "$T/tls.pem" \
	2>/dev/null || hard_error "openssl: cannot sign the certificate"
AS_CA=$T/ca.pem
as_start tls --tls "$T/tls.pem:$T/tls.key"
case "$AS_URL" in
https://*) ;;
*) hard_error "oauth-server.mjs --tls serves $AS_URL" ;;
esac

# An unknown CA: refused before anything is sent, and said so.
mr_refused_tls() {
	local status
	mr_start tls-untrusted
	mr_request initialize '{"protocolVersion": "2025-11-25",
		"capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}'
	jq -e .result <<<"$MR_REPLY" >/dev/null 2>&1 &&
		fail "TLS: a certificate of an unknown CA was accepted"
	spawn_close MR
	spawn_wait MR 30 ||
		fail "TLS: mcpd-remote still runs 30 s after stdin's end"
	status=$SPAWN_STATUS
	[ "$status" = 69 ] ||
		fail "TLS: an untrusted certificate: exit $status, not 69"
	grep -Eqi "certificate|SSL" "$T/tls-untrusted.mr.err" ||
		fail "TLS: stderr does not say the certificate is not trusted: $(cat "$T/tls-untrusted.mr.err")"
	note "TLS, unknown CA: exit $status: $(head -c 300 "$T/tls-untrusted.mr.err")"
}
mr_refused_tls

# With the CA: discovery, the token and the calls all over HTTPS.
mr_start tls --ca-file "$T/ca.pem" --oauth-client-id app \
	--oauth-client-secret-file "$T/secret"
mr_initialize
mr_call whoami '{}' || fail "TLS: whoami failed: $MR_REPLY"
[ "$MR_TEXT" = app ] || fail "TLS: whoami says '$MR_TEXT'"
mr_stop

# The same through mcpd, with ca_file in the configuration.
write_config "$T/mcpd-tls.json" "$(jq -n --arg url "$AS_URL" --arg s "$T/secret" \
	--arg ca "$T/ca.pem" '{mcpServers: {
		t: {url: $url, ca_file: $ca,
		    oauth: {client_id: "app", client_secret_file: $s}}}}')"
PATH=$(dirname "$MCPD_REMOTE"):$PATH start_mcpd "$T/mcpd-tls.json" \
	--token-dir "$T/tokens"
wait_ready t 60
ctl call t whoami >"$T/call.out" 2>"$T/call.err" ||
	fail "TLS through mcpd: whoami failed: $(cat "$T/call.err")"
grep -qx app "$T/call.out" || fail "TLS through mcpd: whoami says $(cat "$T/call.out")"
stop_mcpd
as_stop
exit 0
