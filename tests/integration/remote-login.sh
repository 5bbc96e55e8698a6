#!/bin/bash
# remote-login.sh -- signing in to hosted servers: `mcpctl login NAME`,
# the OAuth 2.1 authorization code grant with PKCE S256 that mcpd runs
# through mcpd-remote, the tokens it keeps, refreshes and revokes;
# against tests/remote/oauth-server.mjs (an authorization server and a
# protected MCP server on 127.0.0.1).
#
# The browser is curl: it follows the authorization URL mcpctl prints
# (the server approves at once and redirects to mcpctl's listener on
# 127.0.0.1), or stops at the redirect, whose URL is then pasted on
# mcpctl's standard input.  What a user would notice is checked: exit
# codes and messages, `mcpctl --json status`, tool results, and the
# authorization server's own counts (/stats).
#
# - a server answering 401 with no "oauth" is in needs-login (no process,
#   no restarts, `mcpctl login NAME` named); a call is refused at once
#   with that hint; login with dynamic registration makes it ready and
#   whoami names the registered client; the authorization request had
#   S256, the resource, a state and a loopback redirect URI;
# - a pre-registered public client (the redirect pasted on stdin), a
#   confidential one with client_secret_post, and with client_secret_basic;
# - a Client ID Metadata Document: no registration, the client_id is the
#   document's URL;
# - the scope asked for: the challenge's, else scopes_supported, else none;
# - a server without S256: login fails naming S256, nothing registered;
# - a redirect whose state was changed (to the listener, or pasted): the
#   browser gets 400, mcpctl says so and keeps waiting for its own, the
#   code is never redeemed; an authorization server denying: login fails
#   with access_denied;
# - another local user (uid 65534; needs root): 16 connections held to
#   the listener with partial requests, reconnecting, are dropped at once
#   and the owner's redirect arrives within LISTENER_STALL_MAX_MS (not
#   after a minute or more); the address given to xdg-open holds no state or PKCE
#   challenge, and following it as uid 65534 (read from /proc, as ps
#   does) reaches nothing: the owner's browser then completes the
#   sign-in; a token directory made by that user is refused, with
#   nothing created in it;
# - 3 s access tokens: refreshed with rotation, calls keep working, no
#   refresh token is ever reused; the token file is 0600 in a 0700
#   directory;
# - expired refresh tokens: back to needs-login with a reason, then a new
#   login works;
# - step-up: a tool needing another scope fails naming `mcpctl login`
#   and the scope; a new login asks for it and the tool works;
# - mcpd restarted: signed-in servers are ready again without a login,
#   with the client they registered and the newest rotated refresh token;
# - logout: the token is revoked, its file removed, needs-login again;
# - no access or refresh token ever appears in `mcpctl status`, mcpd's
#   log, mcpctl's output, `mcpctl logs`, or any command line or
#   environment.
#
# Needs node (18 or later), curl, and the SDK from tests/interop's
# node_modules (tests/remote/lib.sh runs `npm ci` when they are missing).

# npm ci may be slow, and another test's may hold the lock meanwhile; the
# checks take a minute or two on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
command -v mkfifo >/dev/null 2>&1 || skip "mkfifo is not installed"
if ! command -v npm >/dev/null 2>&1 &&
	[ ! -f "$TESTS_SRCDIR/interop/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
	skip "npm is not installed and the SDK's node_modules are missing"
fi
# Node.js (or skip), the pinned packages (npm ci when missing), MCPD_REMOTE.
remote_setup
MODULES=$W/node_modules
SERVER_JS=$TESTS_SRCDIR/remote/oauth-server.mjs
[ -f "$SERVER_JS" ] || hard_error "$SERVER_JS is missing"

# mcpctl login's whole life; the waits below are for conditions and
# generous (a loaded machine starts many node and mcpd-remote processes).
LOGIN_TIMEOUT_S=120
TOKDIR=$T/tokens
SECRET='conf-s3cr:e%t+DO-NOT-SHOW'
(umask 077 && printf '%s\n' "$SECRET" >"$T/secret") ||
	hard_error "cannot write $T/secret"

# --- the authorization servers ---------------------------------------------------------
# One oauth-server.mjs per variant, all started at once; AS_URL[KEY] is
# its MCP endpoint, AS_BASE[KEY] its origin.
declare -A AS_URL AS_BASE AS_PID SRV_AS

# as_launch KEY [ARGS...]: start one (not waiting for it).
as_launch() {
	local key=$1
	shift
	MCPD_TEST_DIR=$T "$NODE" "$SERVER_JS" --modules "$MODULES" \
		--pidfile "$T/as-$key.pid" "$@" \
		</dev/null >"$T/as-$key.out" 2>"$T/as-$key.err" &
	AS_PID[$key]=$!
}

# as_ready KEY: wait until it printed its address.
as_ready() {
	local out=$T/as-$1.out
	# (jq -e succeeds on an empty file: look for the line itself.)
	wait_for 60 grep -q '"port"' "$out" || {
		cat "$T/as-$1.err" >&2
		hard_error "oauth-server.mjs $1 did not start within 60 s"
	}
	AS_URL[$1]=$(jq -r .url "$out")
	AS_BASE[$1]=${AS_URL[$1]%/mcp}
}

# as_stats KEY [JQ-ARGS...]: its /stats, or what jq makes of it.
as_stats() {
	local key=$1
	shift
	[ $# -gt 0 ] || set -- .
	curl -sf --max-time 10 "${AS_BASE[$key]}/stats" | jq -r "$@"
}

as_post() {
	curl -sf --max-time 10 -X POST "${AS_BASE[$1]}$2" >/dev/null ||
		fail "POST ${AS_BASE[$1]}$2 failed"
}

as_launch dyn
as_launch pub --public-client pub
as_launch post --client "conf:$SECRET" --auth-methods client_secret_post
as_launch basic --client "conf:$SECRET"
as_launch scch --scopes "mcp:tools mcp:read" --challenge-scope mcp:read
as_launch scnone --scopes ""
as_launch nos256 --no-s256
as_launch rot --token-ttl 3
as_launch deny --deny
for key in dyn pub post basic scch scnone nos256 rot deny; do
	as_ready "$key"
done

# --- mcpd, one server per case ------------------------------------------------------------
# Server name -> the authorization server it is behind.
SRV_AS=([dyn]=dyn [st]=dyn [usr]=dyn [pub]=pub [cimd]=pub [post]=post
	[basic]=basic [scch]=scch [scnone]=scnone [nos256]=nos256 [rot]=rot
	[deny]=deny)
CONFIG=$T/mcpd.json
write_config "$CONFIG" "$(jq -n \
	--arg dyn "${AS_URL[dyn]}" --arg pub "${AS_URL[pub]}" \
	--arg cimd "${AS_BASE[pub]}/cimd/client.json" \
	--arg post "${AS_URL[post]}" --arg basic "${AS_URL[basic]}" \
	--arg scch "${AS_URL[scch]}" --arg scnone "${AS_URL[scnone]}" \
	--arg nos256 "${AS_URL[nos256]}" --arg rot "${AS_URL[rot]}" \
	--arg deny "${AS_URL[deny]}" --arg s "$T/secret" '{mcpServers: {
		dyn: {url: $dyn},
		st: {url: $dyn},
		usr: {url: $dyn},
		pub: {url: $pub, oauth: {grant: "authorization_code",
			client_id: "pub"}},
		cimd: {url: $pub, oauth: {client_metadata_url: $cimd}},
		post: {url: $post, oauth: {grant: "authorization_code",
			client_id: "conf", client_secret_file: $s}},
		basic: {url: $basic, oauth: {grant: "authorization_code",
			client_id: "conf", client_secret_file: $s}},
		scch: {url: $scch},
		scnone: {url: $scnone},
		nos256: {url: $nos256},
		rot: {url: $rot},
		deny: {url: $deny}}}')"
ALL_SERVERS="dyn st usr pub cimd post basic scch scnone nos256 rot deny"

run_mcpd() {
	PATH=$(dirname "$MCPD_REMOTE"):$PATH start_mcpd "$CONFIG" \
		--token-dir "$TOKDIR"
}

# srv NAME: the server's object in `mcpctl --json status`.
srv() {
	ctl --json status 2>/dev/null |
		jq -c --arg n "$1" 'first(.servers[] | select(.name == $n))'
}

# srv_jq NAME [JQ-ARGS...]: what jq makes of it (raw strings).
srv_jq() {
	local name=$1
	shift
	srv "$name" | jq -r "$@"
}

# STATUS_N: snapshots of the status, kept for the leak checks.
STATUS_N=0
status_snapshot() {
	STATUS_N=$((STATUS_N + 1))
	status_json >"$T/status-$STATUS_N.json" 2>&1
}

# our_pids: this test's processes (mcpd, its servers, mcpctl...), the
# authorization servers left out (the client secret is on their command
# lines); other processes on the machine are none of this test's concern.
our_pids() {
	local skip=" ${AS_PID[*]} "
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root=$$ -v skip="$skip" '
		{
			s = $0
			sub(/^.*\) /, "", s)
			split(s, f, " ")
			pp[$1] = f[2]
		}
		END {
			for (p in pp) {
				if (index(skip, " " p " "))
					continue
				q = p
				for (i = 0; i < 64 && q > 1; i++) {
					if (q == root) {
						print p
						break
					}
					q = pp[q]
				}
			}
		}'
}

# proc_snapshot: the command line and environment of each of them.
PROCS_N=0
proc_snapshot() {
	local p
	PROCS_N=$((PROCS_N + 1))
	for p in $(our_pids); do
		{ tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null
	done >"$T/procs-$PROCS_N.txt"
}

# --- mcpctl login, and curl as the browser -----------------------------------------------
LOGIN_N=0
LOGIN_ENV=()
LOGIN_PID=
LOGIN_URL=
LOGIN_STATUS=

# The authorization URL: a line of its own, on stdout or stderr.
_login_url() {
	cat "$LOGIN_TAG.out" "$LOGIN_TAG.err" 2>/dev/null |
		grep -m 1 -E '^https?://[^[:space:]]+$'
}

# shellcheck disable=SC2317  # called through wait_for
_login_url_or_exit() {
	[ -n "$(_login_url)" ] || ! pid_running "$LOGIN_PID"
}

# login_start NAME [ARGS...]: `mcpctl login NAME --no-browser` in the
# background, its stdin a fifo held open on fd 7; waits for the URL it
# prints (LOGIN_URL, empty if it exited first).  With LOGIN_OPENER set to
# a directory holding an xdg-open, without --no-browser, with a display
# and that directory first in PATH; with LOGIN_ENV (NAME=VALUE...) in its
# environment.
login_start() {
	local name=$1 opts=(--no-browser) env=("${LOGIN_ENV[@]}")
	shift
	if [ -n "${LOGIN_OPENER:-}" ]; then
		opts=()
		env+=(DISPLAY=:mcpd-test "PATH=$LOGIN_OPENER:$PATH")
	fi
	LOGIN_N=$((LOGIN_N + 1))
	LOGIN_NAME=$name
	LOGIN_TAG=$T/login-$LOGIN_N-$name
	LOGIN_URL=
	LOGIN_STATUS=
	mkfifo "$LOGIN_TAG.fifo" || hard_error "cannot make $LOGIN_TAG.fifo"
	env MCPD_TEST_DIR="$T" "${env[@]}" timeout -k 5 "$LOGIN_TIMEOUT_S" \
		"$MCPCTL" -s "$SOCK" login "$name" "${opts[@]}" "$@" \
		<"$LOGIN_TAG.fifo" >"$LOGIN_TAG.out" 2>"$LOGIN_TAG.err" &
	LOGIN_PID=$!
	exec 7>"$LOGIN_TAG.fifo"
	wait_for 30 _login_url_or_exit ||
		fail "mcpctl login $name printed no URL within 30 s: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	LOGIN_URL=$(_login_url)
}

# login_wait: mcpctl login must exit within 60 s; its status in
# LOGIN_STATUS.
login_wait() {
	if ! wait_for 60 eval '! pid_running '"$LOGIN_PID"; then
		kill -TERM "$LOGIN_PID" 2>/dev/null
		wait "$LOGIN_PID" 2>/dev/null
		exec 7>&-
		fail "mcpctl login $LOGIN_NAME did not exit within 60 s: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	fi
	wait "$LOGIN_PID"
	LOGIN_STATUS=$?
	LOGIN_PID=
	exec 7>&-
}

# login_check_url: the URL is the authorization endpoint of the server's
# authorization server.
login_check_url() {
	local base=${AS_BASE[${SRV_AS[$LOGIN_NAME]}]}
	if [ -z "$LOGIN_URL" ]; then
		login_wait
		fail "mcpctl login $LOGIN_NAME exited $LOGIN_STATUS and printed no URL: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	fi
	case "$LOGIN_URL" in
	"$base/authorize?"*) ;;
	*) fail "mcpctl login $LOGIN_NAME printed $LOGIN_URL, not $base/authorize?..." ;;
	esac
}

# browse: curl follows the authorization URL to mcpctl's listener; the
# last status in BROWSE_CODE.
browse() {
	BROWSE_CODE=$(curl -sS -L --max-time 60 -o "$LOGIN_TAG.page" \
		-w '%{http_code}' "$LOGIN_URL" 2>"$LOGIN_TAG.curl")
}

# redirect_of URL: where the authorization server sends the browser.
redirect_of() {
	curl -sS --max-time 60 -o /dev/null -w '%{redirect_url}' "$1"
}

# login_ok NAME [browser|paste] [ARGS...]: a whole sign-in that must
# succeed.
login_ok() {
	local name=$1 how=${2:-browser} redirect
	shift
	[ $# -gt 0 ] && shift
	login_start "$name" "$@"
	login_check_url
	case "$how" in
	browser)
		browse
		;;
	paste)
		redirect=$(redirect_of "$LOGIN_URL")
		case "$redirect" in
		http://127.0.0.1:*) ;;
		*) fail "login $name: the authorization server redirected to '$redirect'" ;;
		esac
		# (In a subshell: if mcpctl is gone, SIGPIPE ends only that.)
		(printf '%s\n' "$redirect" >&7) 2>/dev/null
		;;
	esac
	login_wait
	[ "$LOGIN_STATUS" = 0 ] ||
		fail "mcpctl login $name ($how) exited $LOGIN_STATUS: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	if [ "$how" = browser ]; then
		case "$BROWSE_CODE" in
		2??) ;;
		*) fail "login $name: the browser ended on HTTP $BROWSE_CODE: $(cat "$LOGIN_TAG.curl" "$LOGIN_TAG.page" 2>/dev/null | head -c 600)" ;;
		esac
	fi
	note "login $name ($how): ok; $(tr '\n' '|' <"$LOGIN_TAG.err" | head -c 300)"
}

# login_fails_with WHAT PATTERN: the sign-in under way fails: mcpctl exits
# non-zero, its message matching PATTERN (extended, case-insensitive).
login_fails_with() {
	login_wait
	[ "$LOGIN_STATUS" != 0 ] ||
		fail "$1: mcpctl login $LOGIN_NAME succeeded: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	grep -Eqi -- "$2" "$LOGIN_TAG.out" "$LOGIN_TAG.err" ||
		fail "$1: mcpctl login's message does not match /$2/: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	note "$1: exit $LOGIN_STATUS: $(tr '\n' '|' <"$LOGIN_TAG.err" | head -c 400)"
}

# --- calls --------------------------------------------------------------------------------
# call_ok NAME TOOL [ARGS...]: the call succeeds; its output in CALL_OUT.
call_ok() {
	ctl call "$@" >"$T/call.out" 2>"$T/call.err" ||
		fail "mcpctl call $* failed: $(cat "$T/call.err")"
	CALL_OUT=$(cat "$T/call.out")
}

# call_needs_login NAME WHAT: a call is refused at once, naming `mcpctl
# login NAME`.  At once: within 10 s, which a loaded machine keeps (it
# takes milliseconds) and a call held for the server instead would not
# (the 30 s of its start-up timeout, or ctl's own 30 s).
call_needs_login() {
	local t0 ms
	t0=$(now_ms)
	ctl call "$1" echo text=hi >"$T/call.out" 2>"$T/call.err" &&
		fail "$2: a call of $1 succeeded: $(cat "$T/call.out")"
	ms=$(($(now_ms) - t0))
	[ "$ms" -lt 10000 ] || fail "$2: the refused call took $ms ms"
	grep -qF "mcpctl login $1" "$T/call.err" ||
		fail "$2: the call's error does not say 'mcpctl login $1': $(cat "$T/call.err")"
	note "$2: call refused in $ms ms: $(head -c 300 "$T/call.err")"
}

# shellcheck disable=SC2317  # called through wait_for
is_needs_login() {
	server_is "$1" needs-login
}

# check_needs_login NAME: state needs-login, no process, the login command
# named.
check_needs_login() {
	local j
	j=$(srv "$1")
	jq -e --arg n "$1" '.state == "needs-login" and .pid == null and
		.login.command == "mcpctl login \($n)"' <<<"$j" >/dev/null ||
		fail "$1 is not needs-login with login.command 'mcpctl login $1': $j"
}

# check_signed_in NAME: ready, signed in, no login pending.
check_signed_in() {
	local j
	wait_ready "$1" 60
	j=$(srv "$1")
	jq -e '.state == "ready" and .remote.signed_in == true and
		(.remote.auth == "ok" or .remote.auth == null) and
		(.login == null)' <<<"$j" >/dev/null ||
		fail "$1 after login: not ready and signed in: $j"
}

# ==========================================================================================
run_mcpd
[ -d "$TOKDIR" ] && [ -n "$(ls -A "$TOKDIR")" ] &&
	fail "the token directory holds files before any login: $(ls -A "$TOKDIR")"

# --- a) 401 without oauth: needs-login, then login with dynamic registration --------
for s in $ALL_SERVERS; do
	wait_for 60 is_needs_login "$s" ||
		fail "$s is not needs-login within 60 s: $(srv "$s")"
done
check_needs_login dyn
note "needs-login: $(srv_jq dyn -c '{state, login, remote}')"
call_needs_login dyn "before login"
restarts=$(srv_jq dyn .restarts)
probes=$(as_stats dyn .unauthorized)
# A window, not a wait: a server restarted while it needs a login would
# be back within the 1 s (+20 %) of the default backoff, and knock again.
sleep 2
if [ "$(srv_jq dyn .restarts)" != "$restarts" ] ||
	! server_is dyn needs-login; then
	fail "dyn is restarted while it needs a login: $(srv dyn)"
fi
[ "$(as_stats dyn .unauthorized)" -le $((probes + 1)) ] ||
	fail "dyn keeps knocking while it needs a login: $(as_stats dyn .unauthorized) 401s, $probes 2 s before"
[ "$(as_stats dyn .registrations)" = 0 ] ||
	fail "a client was registered before any login"
[ ! -e "$TOKDIR/dyn.json" ] || fail "a token file for dyn before its login"

# The listener, while it waits: a stray local connection that never ends
# its request, and a request for another path, do not hold it up.
login_start dyn
login_check_url
port=$(sed -nE 's/.*redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A([0-9]+)%2F.*/\1/p' <<<"$LOGIN_URL")
[ -n "$port" ] || fail "no loopback redirect port in $LOGIN_URL"
exec 8<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect to mcpctl's listener"
printf 'GET /callback?code=stuck' >&8
other=$(curl -sS --max-time 60 -o /dev/null -w '%{http_code}' \
	"http://127.0.0.1:$port/favicon.ico")
[ "$other" = 404 ] || fail "the listener answered /favicon.ico with HTTP $other"
browse
login_wait
exec 8<&-
[ "$LOGIN_STATUS" = 0 ] ||
	fail "mcpctl login dyn exited $LOGIN_STATUS with a stray connection open: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
case "$BROWSE_CODE" in
2??) ;;
*) fail "login dyn: the browser ended on HTTP $BROWSE_CODE" ;;
esac
grep -q "Signed in to dyn" "$LOGIN_TAG.page" ||
	fail "login dyn: the browser's page: $(head -c 300 "$LOGIN_TAG.page")"
check_signed_in dyn
"$MCPCTL" -s "$SOCK" status >"$T/status.txt" 2>&1
# The expiry is a time of day, with the date before it when that is not
# today (an hour's token taken after 23:00 expires tomorrow).
grep -Eq "^dyn +http +established +.*signed in until ([A-Z][a-z]{2} [0-9]{2} )?[0-9]{2}:[0-9]{2} " \
	"$T/status.txt" ||
	fail "mcpctl status does not show dyn signed in: $(cat "$T/status.txt")"
[ "$(as_stats dyn .registrations)" = 1 ] ||
	fail "dynamic registration: $(as_stats dyn .registrations) registrations"
DYN_CLIENT=$(as_stats dyn .last_registration.client_id)
jq -e '.token_endpoint_auth_method == null or
	.token_endpoint_auth_method == "none"' \
	<<<"$(as_stats dyn -c .last_registration)" >/dev/null ||
	fail "the registration did not ask for a public client: $(as_stats dyn -c .last_registration)"
jq -e --arg r "${AS_URL[dyn]}" --arg c "$DYN_CLIENT" '
	.client_id == $c and .response_type == "code" and
	.code_challenge_method == "S256" and .code_challenge_present and
	.resource == $r and .state_present and
	(.redirect_uri | test("^http://127\\.0\\.0\\.1:[0-9]+/"))' \
	<<<"$(as_stats dyn -c .last_authorize)" >/dev/null ||
	fail "the authorization request: $(as_stats dyn -c .last_authorize)"
[ "$(as_stats dyn .code_grants)" = 1 ] ||
	fail "dyn: $(as_stats dyn .code_grants) codes redeemed, not 1"
call_ok dyn echo text=hi
[ "$CALL_OUT" = hi ] || fail "echo after login: $CALL_OUT"
call_ok dyn whoami
[ "$(head -n 1 <<<"$CALL_OUT")" = "$DYN_CLIENT" ] ||
	fail "whoami says '$CALL_OUT', not the registered $DYN_CLIENT"
note "dyn: signed in as $DYN_CLIENT; $(srv_jq dyn -c .remote)"

# --- b) pre-registered clients: public (pasted), client_secret_post, _basic ----------
login_ok pub paste
check_signed_in pub
[ "$(as_stats pub .registrations)" = 0 ] ||
	fail "pub: a pre-registered client registered anyway"
[ "$(as_stats pub .token_requests_none)" -ge 1 ] ||
	fail "pub: no token request as a public client: $(as_stats pub -c .token_requests)"
[ "$(as_stats pub .last_authorize.client_id)" = pub ] ||
	fail "pub: the authorization request's client_id: $(as_stats pub -c .last_authorize)"
call_ok pub whoami
[ "$(head -n 1 <<<"$CALL_OUT")" = pub ] || fail "pub: whoami says '$CALL_OUT'"

for m in post basic; do
	login_ok "$m" browser
	check_signed_in "$m"
	[ "$(as_stats "$m" .registrations)" = 0 ] ||
		fail "$m: a pre-registered client registered anyway"
	reqs=$(as_stats "$m" -c .token_requests)
	case $m in
	post) want='"client_secret_basic":0,"client_secret_post":[1-9]' ;;
	basic) want='"client_secret_basic":[1-9][0-9]*,"client_secret_post":0' ;;
	esac
	grep -Eq "$want" <<<"$reqs" ||
		fail "$m: the token requests authenticated as $reqs"
	[ "$(as_stats "$m" .token_requests_none)" = 0 ] ||
		fail "$m: a confidential client sent no secret"
	call_ok "$m" whoami
	[ "$(head -n 1 <<<"$CALL_OUT")" = conf ] ||
		fail "$m: whoami says '$CALL_OUT'"
done

# --- c) a Client ID Metadata Document ------------------------------------------------------
cimd_url=${AS_BASE[pub]}/cimd/client.json
login_ok cimd browser
check_signed_in cimd
[ "$(as_stats pub .registrations)" = 0 ] ||
	fail "cimd: a client was registered although client_metadata_url is set"
[ "$(as_stats pub .last_authorize.client_id)" = "$cimd_url" ] ||
	fail "cimd: the authorization request's client_id: $(as_stats pub -c .last_authorize)"
[ "$(as_stats pub .cimd_fetches)" -ge 1 ] ||
	fail "cimd: the authorization server never fetched the document"
call_ok cimd whoami
[ "$(head -n 1 <<<"$CALL_OUT")" = "$cimd_url" ] ||
	fail "cimd: whoami says '$CALL_OUT'"

# --- d) the scope: the challenge's, scopes_supported, none ----------------------------
[ "$(as_stats dyn .last_authorize.scope)" = mcp:tools ] ||
	fail "scopes_supported: the authorization request asked for '$(as_stats dyn .last_authorize.scope)'"
login_ok scch browser
[ "$(as_stats scch .last_authorize.scope)" = mcp:read ] ||
	fail "the challenge's scope: the authorization request asked for '$(as_stats scch .last_authorize.scope)'"
login_ok scnone browser
jq -e '.scope == null or .scope == ""' \
	<<<"$(as_stats scnone -c .last_authorize)" >/dev/null ||
	fail "no scope anywhere: the authorization request asked for '$(as_stats scnone .last_authorize.scope)'"
check_signed_in scch
check_signed_in scnone

# --- e) no S256 ------------------------------------------------------------------------------
login_start nos256
[ -z "$LOGIN_URL" ] ||
	fail "nos256: a URL was printed for a server without S256: $LOGIN_URL"
login_fails_with "no S256" "S256"
[ "$(as_stats nos256 .registrations)" = 0 ] ||
	fail "nos256: a client was registered anyway"
[ "$(as_stats nos256 .authorize_requests)" = 0 ] ||
	fail "nos256: an authorization request was made"
server_is nos256 needs-login || fail "nos256 after the failed login: $(srv nos256)"

# --- f) a redirect with another state ---------------------------------------------------
codes_before=$(as_stats dyn .grant_requests.authorization_code)
login_start st
login_check_url
redirect=$(redirect_of "$LOGIN_URL")
case "$redirect" in
http://127.0.0.1:*state=*) ;;
*) fail "st: the authorization server redirected to '$redirect'" ;;
esac
forged=$(sed -E 's/([?&]state=)[^&]*/\1forged-by-an-attacker/' <<<"$redirect")
# The browser is told it was ignored; mcpctl says so and goes on waiting
# for this sign-in's own redirect, with nothing redeemed meanwhile.
forged_code=$(curl -sS --max-time 60 -o "$LOGIN_TAG.page" -w '%{http_code}' \
	"$forged" 2>"$LOGIN_TAG.curl")
[ "$forged_code" = 400 ] ||
	fail "st: the listener answered a forged redirect with HTTP $forged_code: $(head -c 300 "$LOGIN_TAG.page")"
# mcpctl answers the browser first, then says it on stderr.
wait_for 30 grep -q "ignored a redirect.*state is not" "$LOGIN_TAG.err" ||
	fail "st: mcpctl said nothing of the forged redirect's state: $(cat "$LOGIN_TAG.err")"
# A window, not a wait: mcpctl has handled the redirect; had it taken it
# for this sign-in, it would be ending now.
sleep 0.5
pid_running "$LOGIN_PID" ||
	fail "st: mcpctl login ended on a forged redirect: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
[ "$(as_stats dyn .grant_requests.authorization_code)" = "$codes_before" ] ||
	fail "the code of a redirect with a changed state was redeemed"
[ ! -e "$TOKDIR/st.json" ] || fail "a token file for st after a forged redirect"
# Pasted too: refused the same way, still waiting.
(printf '%s\n' "$forged" >&7) 2>/dev/null
wait_for 30 grep -q "another sign-in.*still waiting" "$LOGIN_TAG.err" ||
	fail "st: mcpctl said nothing of the pasted forged redirect: $(cat "$LOGIN_TAG.err")"
# A window, as above.
sleep 0.5
pid_running "$LOGIN_PID" ||
	fail "st: mcpctl login ended on a pasted forged redirect: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
# Interrupted: nothing signed in.
kill -INT "$LOGIN_PID"
login_wait
[ "$LOGIN_STATUS" != 0 ] || fail "st: an interrupted mcpctl login exited 0"
[ "$(as_stats dyn .grant_requests.authorization_code)" = "$codes_before" ] ||
	fail "the code of a redirect with a changed state was redeemed"
server_is st needs-login || fail "st after the forged redirect: $(srv st)"
[ ! -e "$TOKDIR/st.json" ] || fail "a token file for st after a failed login"

# --- l) the authorization server denies -------------------------------------------------
login_start deny
login_check_url
browse
login_fails_with "access denied" "access_denied"
[ "$(as_stats deny .code_grants)" = 0 ] || fail "deny: a code was redeemed"
server_is deny needs-login || fail "deny after the refusal: $(srv deny)"
[ ! -e "$TOKDIR/deny.json" ] || fail "a token file for deny after a refusal"

# --- m) another local user: the listener held, the address read from ps ------------------
# uid 65534 is another user of the machine (mcpctl runs as root here).
# It knows the listener's port (every user can list listening sockets)
# and reads every command line (ps).
if [ "$(id -u)" = 0 ] && setpriv --reuid=65534 --regid=65534 --clear-groups \
	true 2>/dev/null; then
	AS_OTHER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	# The owner's redirect, under attack, must arrive within this: it
	# takes milliseconds; to a listener that takes the other user's
	# connections it did not come within curl's 60 s (four 10 s slots
	# and a full queue, taken again by the holders as they free).
	LISTENER_STALL_MAX_MS=20000

	# 1. Sixteen connections of uid 65534 held to the listener with a
	# partial request line, each made again as soon as it is closed.
	login_start usr
	login_check_url
	port=$(sed -nE 's/.*redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A([0-9]+)%2F.*/\1/p' <<<"$LOGIN_URL")
	[ -n "$port" ] || fail "no loopback redirect port in $LOGIN_URL"
	: >"$T/holders.log"
	# (A pause of 20 ms between connections, read from a pipe that never
	# speaks: no fork per connection.  Its own process group, to end it.)
	MCPD_TEST_DIR=$T setsid "${AS_OTHER[@]}" bash -c '
		hold() {
			exec 4< <(exec sleep 600)
			while :; do
				if exec 3<>"/dev/tcp/127.0.0.1/$1"; then
					echo connected
					printf "GET /callback?code=held-by-uid-65534" >&3
					read -r -t 120 -u 3 _
					exec 3<&- 3>&-
				fi 2>/dev/null
				read -r -t 0.02 -u 4 _
			done
		}
		for i in $(seq 16); do hold "$1" & done
		wait' _ "$port" >>"$T/holders.log" 2>/dev/null &
	holders=$!
	# Nine connected at least: a listener that takes them has its 4
	# slots and its queue of 5 full, the other holders wait in connect.
	wait_for 30 eval '[ "$(grep -c connected "$T/holders.log")" -ge 9 ]' ||
		fail "uid 65534 could not connect to the listener: $(wc -l <"$T/holders.log") connections"
	t0=$(now_ms)
	browse
	ms=$(($(now_ms) - t0))
	made=$(grep -c connected "$T/holders.log")
	kill -TERM -- "-$holders" 2>/dev/null
	wait "$holders" 2>/dev/null
	login_wait
	note "listener held by uid 65534 (16 partial connections, $made made): the owner's redirect took $ms ms (bound $LISTENER_STALL_MAX_MS); mcpctl exited $LOGIN_STATUS"
	[ "$LOGIN_STATUS" = 0 ] ||
		fail "mcpctl login usr exited $LOGIN_STATUS while uid 65534 held the listener: $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	case "$BROWSE_CODE" in
	2??) ;;
	*) fail "login usr under attack: the browser ended on HTTP $BROWSE_CODE after $ms ms: $(cat "$LOGIN_TAG.curl" 2>/dev/null)" ;;
	esac
	[ "$ms" -le "$LISTENER_STALL_MAX_MS" ] ||
		fail "uid 65534 stalled the owner's redirect for $ms ms (more than $LISTENER_STALL_MAX_MS)"
	grep -q "dropped a connection to 127.0.0.1:$port from uid 65534" \
		"$LOGIN_TAG.err" ||
		fail "mcpctl did not say it dropped uid 65534's connections: $(cat "$LOGIN_TAG.err")"
	[ "$(grep -c 'from uid 65534' "$LOGIN_TAG.err")" = 1 ] ||
		fail "mcpctl named uid 65534 more than once: $(grep -c 'from uid 65534' "$LOGIN_TAG.err") lines"
	check_signed_in usr

	# 2. The browser opener's command line: uid 65534 watches every
	# process's (as ps does) and follows the address it finds there.
	mkdir "$T/opener"
	cat >"$T/opener/xdg-open" <<OPENER
#!/bin/bash
# The owner's browser: keeps what it was given; once told to, follows it.
printf '%s\n' "\$@" >>"$T/opener.argv"
for i in \$(seq 1200); do
	[ -e "$T/opener.go" ] && break
	sleep 0.05
done
curl -sS -L --max-time 60 -o "$T/opener.page" -w '%{http_code}' "\$1" \
	>"$T/opener.code" 2>"$T/opener.curl"
OPENER
	chmod 0755 "$T/opener/xdg-open"
	# (Only this test's xdg-open: others may run beside it.)
	MCPD_TEST_DIR=$T "${AS_OTHER[@]}" bash -c '
		url=
		for i in $(seq 1200); do
			for f in $(grep -lzx -- "$1" /proc/[0-9]*/cmdline \
				2>/dev/null); do
				url=$(tr "\0" "\n" 2>/dev/null <"$f" |
					grep -A 1 -xF -- "$1" | sed -n 2p)
				case $url in
				http://* | https://*) break 2 ;;
				esac
			done
			sleep 0.05
		done
		echo "url: $url"
		code=$(curl -sS -L --max-time 30 -o /dev/null \
			-w "%{http_code} %{url_effective}" "$url")
		echo "exit: $? $code"' _ "$T/opener/xdg-open" >"$T/peeker.log" 2>&1 &
	peeker=$!
	authz_before=$(as_stats dyn .authorize_requests)
	LOGIN_OPENER=$T/opener login_start usr
	login_check_url
	wait_for 60 eval '! pid_running '"$peeker" ||
		fail "uid 65534 found no address in xdg-open's command line in 60 s: $(cat "$T/opener.argv" 2>/dev/null)"
	wait "$peeker" 2>/dev/null
	note "uid 65534, reading ps: $(tr '\n' '|' <"$T/peeker.log")"
	grep -q '^url: http' "$T/peeker.log" ||
		fail "uid 65534 found no address in xdg-open's command line: $(cat "$T/peeker.log")"
	# A window, not a wait: had the other user's redirect been taken,
	# mcpctl would be ending now.
	sleep 0.5
	pid_running "$LOGIN_PID" ||
		fail "uid 65534 completed the owner's sign-in with the address from ps: $(cat "$T/peeker.log"; cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	grep -q '^exit: [1-9][0-9]* 000 ' "$T/peeker.log" ||
		fail "uid 65534 got an answer by following xdg-open's address: $(cat "$T/peeker.log")"
	[ "$(as_stats dyn .authorize_requests)" = "$authz_before" ] ||
		fail "uid 65534 reached the authorization server with the address from ps"
	! grep -Eq 'state=|code_challenge|/authorize' "$T/opener.argv" ||
		fail "xdg-open's command line holds the authorization URL: $(cat "$T/opener.argv")"
	grep -qx "http://127.0.0.1:[0-9]*/start" "$T/opener.argv" ||
		fail "xdg-open was given $(cat "$T/opener.argv")"
	grep -q "from uid 65534" "$LOGIN_TAG.err" ||
		fail "mcpctl did not say it dropped uid 65534's connection: $(cat "$LOGIN_TAG.err")"
	# Now the owner's browser.
	touch "$T/opener.go"
	login_wait
	[ "$LOGIN_STATUS" = 0 ] ||
		fail "the owner's sign-in through xdg-open failed ($LOGIN_STATUS): $(cat "$LOGIN_TAG.out" "$LOGIN_TAG.err")"
	wait_for 30 test -s "$T/opener.code" ||
		fail "the owner's browser did not finish"
	[ "$(cat "$T/opener.code")" = 200 ] && grep -q "Signed in to usr" "$T/opener.page" ||
		fail "the owner's browser ended on HTTP $(cat "$T/opener.code"): $(head -c 300 "$T/opener.page" 2>/dev/null) $(cat "$T/opener.curl")"
	note "xdg-open was given $(cat "$T/opener.argv"); the owner's sign-in through it: ok"
	check_signed_in usr

	# 3. Run as root under sudo, the browser is that of the user who ran
	# sudo: SUDO_UID's connections are taken too.
	LOGIN_ENV=(SUDO_UID=65534)
	login_start usr
	LOGIN_ENV=()
	login_check_url
	sudo_code=$("${AS_OTHER[@]}" curl -sS -L --max-time 60 \
		-o /dev/null -w '%{http_code}' "$LOGIN_URL" 2>&1)
	login_wait
	[ "$LOGIN_STATUS" = 0 ] && [ "$sudo_code" = 200 ] ||
		fail "with SUDO_UID=65534, uid 65534's browser could not sign in (HTTP $sudo_code, exit $LOGIN_STATUS): $(cat "$LOGIN_TAG.err")"
	check_signed_in usr
else
	note "skipped the other local user's attacks: they need root (setpriv to uid 65534)"
fi

# --- g) refresh with rotation; the token file ----------------------------------------------
login_ok rot browser
check_signed_in rot
[ "$(srv_jq rot .remote.refresh)" = true ] ||
	fail "rot: status says no refresh token is held: $(srv rot)"
n=0
# Two refreshes take 6 s; the bound is for a loaded machine.  The pause
# spreads the calls over the tokens' lives.
t_end=$(($(now_ms) + 60000))
while [ "$(as_stats rot .refresh_grants)" -lt 2 ] ||
	[ "$n" -lt 8 ]; do
	[ "$(now_ms)" -lt "$t_end" ] ||
		fail "rot: $(as_stats rot .refresh_grants) refreshes in 60 s of 3 s tokens"
	n=$((n + 1))
	call_ok rot echo "text=call $n"
	[ "$CALL_OUT" = "call $n" ] || fail "rot: call $n echoed '$CALL_OUT'"
	sleep 0.5
done
note "rot: $n calls, $(as_stats rot -c '{refresh_grants, refresh_tokens_issued, refresh_reuse, invalid_grant, unauthorized}')"
[ "$(as_stats rot .refresh_reuse)" = 0 ] ||
	fail "rot: a used refresh token was presented again"
[ "$(as_stats rot .invalid_grant)" = 0 ] ||
	fail "rot: invalid_grant answers: $(as_stats rot -c .token_failures)"
[ "$(as_stats rot .code_grants)" = 1 ] ||
	fail "rot: signed in again instead of refreshing"
# The access token's expiry, in unix seconds: 3 s tokens, kept fresh.
exp=$(srv_jq rot .remote.token_expires)
now=$(date +%s)
case "$exp" in
'' | *[!0-9]*) fail "rot: token_expires is $exp" ;;
esac
if [ "$exp" -le $((now - 30)) ] || [ "$exp" -gt $((now + 10)) ]; then
	fail "rot: token_expires $exp is not about now ($now) for 3 s tokens"
fi
status_snapshot
proc_snapshot
[ -f "$TOKDIR/rot.json" ] || fail "no token file $TOKDIR/rot.json: $(ls -la "$TOKDIR" 2>&1)"
[ "$(stat -c %a "$TOKDIR/rot.json")" = 600 ] ||
	fail "$TOKDIR/rot.json has mode $(stat -c %a "$TOKDIR/rot.json")"
[ "$(stat -c %a "$TOKDIR")" = 700 ] ||
	fail "$TOKDIR has mode $(stat -c %a "$TOKDIR")"
[ "$(stat -c %u "$TOKDIR/rot.json")" = "$(id -u)" ] ||
	fail "$TOKDIR/rot.json is not owned by mcpd's user"

# --- h) the refresh token expires: needs-login, then a new login ---------------------
as_post rot /admin/expire-refresh
t_end=$(($(now_ms) + 60000))
until server_is rot needs-login; do
	[ "$(now_ms)" -lt "$t_end" ] ||
		fail "rot: not needs-login 60 s after its refresh token expired: $(srv rot)"
	ctl call rot echo text=x >/dev/null 2>&1
	sleep 0.5
done
check_needs_login rot
reason=$(srv_jq rot '.login.reason // empty')
[ -n "$reason" ] || fail "rot: needs-login without a reason: $(srv rot)"
note "rot: needs-login: $reason"
[ "$(as_stats rot .invalid_grant)" -ge 1 ] ||
	fail "rot: needs-login without an invalid_grant"
call_needs_login rot "refresh token expired"
login_ok rot browser
check_signed_in rot
call_ok rot echo text=again
[ "$CALL_OUT" = again ] || fail "rot after a new login: echoed '$CALL_OUT'"

# --- j) step-up: the tool admin needs mcp:admin ---------------------------------------------
ctl call dyn admin >"$T/call.out" 2>"$T/call.err" &&
	fail "admin without its scope succeeded: $(cat "$T/call.out")"
note "step-up: $(head -c 400 "$T/call.err")"
grep -qF "mcpctl login dyn" "$T/call.err" ||
	fail "step-up: the error does not say 'mcpctl login dyn': $(cat "$T/call.err")"
grep -qF "mcp:admin" "$T/call.err" ||
	fail "step-up: the error does not name the scope mcp:admin: $(cat "$T/call.err")"
[ "$(as_stats dyn .insufficient_scope)" -ge 1 ] ||
	fail "step-up: the server never answered 403"
srv_jq dyn '.login.scope // ""' | grep -qw "mcp:admin" ||
	fail "step-up: status login.scope does not name mcp:admin: $(srv dyn)"
call_ok dyn echo text=still
[ "$CALL_OUT" = still ] || fail "step-up: echo broke: $CALL_OUT"
login_ok dyn browser
as_stats dyn .last_authorize.scope | grep -qw "mcp:admin" ||
	fail "step-up: the new login asked for '$(as_stats dyn .last_authorize.scope)'"
check_signed_in dyn
call_ok dyn admin
grep -q "admin: ok" <<<"$CALL_OUT" || fail "admin after the step-up: $CALL_OUT"
call_ok dyn whoami
[ "$(head -n 1 <<<"$CALL_OUT")" = "$DYN_CLIENT" ] ||
	fail "after the step-up whoami says '$CALL_OUT', not $DYN_CLIENT"
grep -q "mcp:admin" <<<"$CALL_OUT" || fail "the new token lacks mcp:admin: $CALL_OUT"
status_snapshot
proc_snapshot

# --- i) mcpd restarted: ready without a login -------------------------------------------
# rot's refresh token is rotated once more first: the restarted mcpd must
# have kept the newest one (the one before it would now be a reuse).
r0=$(as_stats rot .refresh_grants)
t_end=$(($(now_ms) + 60000))
until [ "$(as_stats rot .refresh_grants)" -gt "$r0" ]; do
	[ "$(now_ms)" -lt "$t_end" ] ||
		fail "rot: no refresh in 60 s of 3 s tokens since its new login"
	call_ok rot echo text=rotate
	sleep 0.5
done
authz_before=$(as_stats dyn .authorize_requests)
regs_before=$(as_stats dyn .registrations)
stop_mcpd
[ "$MCPD_STATUS" = 0 ] || fail "mcpd exited $MCPD_STATUS at SIGTERM"
run_mcpd
for s in dyn pub cimd post basic scch scnone rot; do
	check_signed_in "$s"
done
[ -n "${AS_OTHER:-}" ] && check_signed_in usr
for s in st nos256 deny; do
	wait_for 60 is_needs_login "$s" ||
		fail "$s after the restart: $(srv "$s")"
done
call_ok dyn whoami
[ "$(head -n 1 <<<"$CALL_OUT")" = "$DYN_CLIENT" ] ||
	fail "after the restart whoami says '$CALL_OUT', not $DYN_CLIENT"
call_ok dyn admin
call_ok rot echo text=restarted
[ "$(as_stats dyn .authorize_requests)" = "$authz_before" ] ||
	fail "the restart asked for a new authorization"
[ "$(as_stats dyn .registrations)" = "$regs_before" ] ||
	fail "the registered client was not kept: $(as_stats dyn .registrations) registrations, $regs_before before the restart"
[ "$(as_stats rot .refresh_reuse)" = 0 ] ||
	fail "rot: a used refresh token was presented after the restart (the rotated one was not kept)"
status_snapshot

# --- k) logout -------------------------------------------------------------------------------
[ -f "$TOKDIR/dyn.json" ] || fail "no token file for dyn before the logout"
ctl logout dyn >"$T/logout.out" 2>"$T/logout.err" ||
	fail "mcpctl logout dyn failed: $(cat "$T/logout.out" "$T/logout.err")"
note "logout: $(tr '\n' '|' <"$T/logout.out" | head -c 300)"
[ "$(as_stats dyn .revoke_requests)" -ge 1 ] ||
	fail "logout: the revocation endpoint was not called"
[ "$(as_stats dyn '.revoked_access + .revoked_refresh')" -ge 1 ] ||
	fail "logout: nothing was revoked: $(as_stats dyn -c '{revoke_requests, revoke_failures, revoke_unknown}')"
[ "$(as_stats dyn .revoke_failures)" = 0 ] ||
	fail "logout: the revocation was refused"
[ ! -e "$TOKDIR/dyn.json" ] || fail "logout: $TOKDIR/dyn.json is still there"
wait_for 30 is_needs_login dyn || fail "dyn after the logout: $(srv dyn)"
check_needs_login dyn
call_needs_login dyn "after logout"
call_ok pub whoami
status_snapshot

# --- no token anywhere it could be seen ---------------------------------------------------
for s in dyn rot pub; do
	ctl logs "$s" >"$T/logs-$s.txt" 2>&1
done
ctl status >"$T/status.txt" 2>&1
proc_snapshot
stop_mcpd
: >"$T/all-tokens"
for key in "${!AS_BASE[@]}"; do
	curl -sSf --max-time 10 -o "$T/tokens-$key.json" \
		"${AS_BASE[$key]}/admin/tokens" ||
		fail "cannot list the tokens of $key: $(tail -n 5 "$T/as-$key.err")"
	jq -r '.[]' "$T/tokens-$key.json" >>"$T/all-tokens" ||
		fail "the tokens of $key: $(head -c 300 "$T/tokens-$key.json")"
done
printf '%s\n' DO-NOT-SHOW >>"$T/all-tokens"
note "$(grep -c . "$T/all-tokens") tokens and secrets issued"
[ "$(grep -c . "$T/all-tokens")" -ge 10 ] ||
	fail "too few tokens issued for the leak check to mean anything"
leaks=$(grep -lF -f "$T/all-tokens" "$MCPD_LOG" "$T"/status-*.json \
	"$T/status.txt" "$T"/logs-*.txt "$T"/procs-*.txt "$T"/login-*.out \
	"$T"/login-*.err "$T"/login-*.page "$T/logout.out" "$T/logout.err" \
	"$T/call.out" "$T/call.err" 2>/dev/null)
if [ -n "$leaks" ]; then
	for f in $leaks; do
		note "in $f: $(grep -F -f "$T/all-tokens" "$f" | cut -c 1-120 | head -n 3 | tr '\n' '|')"
	done
	fail "a token or secret shows in: $leaks"
fi
for key in "${!AS_BASE[@]}"; do
	[ "$(as_stats "$key" .token_in_url)" = 0 ] ||
		fail "$key: a token was sent in a URL"
done

# --- n) a token directory another user made -------------------------------------------
# mcpd refuses it, and creates nothing in it first (not even the token
# file's lock, which the code's exchange takes).
if [ -n "${AS_OTHER:-}" ]; then
	TOKDIR=$T/tokens-of-65534
	mkdir -m 0700 "$TOKDIR" && chown 65534:65534 "$TOKDIR" ||
		hard_error "cannot make $TOKDIR for uid 65534"
	run_mcpd
	# The server cannot keep tokens there: it says why (or, before it
	# first needs the lock, waits for a sign-in).
	wait_for 60 eval 'srv st | grep -q "belongs to uid 65534" ||
		is_needs_login st' || fail "st with $TOKDIR: $(srv st)"
	note "st with a token directory of uid 65534: $(srv_jq st -c '{state, last_exit}')"
	login_start st
	login_check_url
	browse
	login_fails_with "a token directory of uid 65534" \
		"token directory .* belongs to uid 65534"
	[ -z "$(ls -A "$TOKDIR")" ] ||
		fail "mcpd created files in a token directory of uid 65534 before refusing it: $(ls -la "$TOKDIR")"
	stop_mcpd
fi
for key in "${!AS_PID[@]}"; do
	kill -TERM "${AS_PID[$key]}" 2>/dev/null
	wait "${AS_PID[$key]}" 2>/dev/null
done
exit 0
