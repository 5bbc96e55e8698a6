#!/bin/bash
# conformance-auth.sh -- the client authorization scenarios of the MCP
# conformance suite (@modelcontextprotocol/conformance, pinned in
# package.json) against mcpd: for each one the suite starts its
# authorization and MCP servers on localhost and runs
# conformance-client.sh, which signs in with `mcpctl login` (curl as the
# browser) and calls a tool through mcpd; the suite judges from what its
# servers saw.  Offline: everything is on this machine.
#
# Every scenario must pass (no FAILURE and no WARNING among its checks)
# but those of EXPECTED_FAILURES, which must still fail, each with the
# reason.  Two scenarios take a second sign-in, which is the person's:
# mcpd never signs in on its own, a call refused for want of a token or
# a scope names `mcpctl login NAME`, and the client does as it says:
#   auth/scope-step-up     tools/call needs a wider scope than the first
#                          sign-in got (HTTP 403 insufficient_scope): the
#                          second sign-in asks for both scopes;
#   auth/scope-retry-limit the server refuses every token: two sign-ins,
#                          the suite's bound is three.
#
# Needs node (the suite asks for 22; conformance-node.mjs lets it run its
# client scenarios on 18.19 or 20.6 and later, which have module.register,
# and the test is skipped on older ones), curl, and the pinned packages
# (npm ci when missing).

# npm ci may be slow, and another test's may hold the lock meanwhile; the
# scenarios take a minute or two on a loaded machine.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
command -v mkfifo >/dev/null 2>&1 || skip "mkfifo is not installed"
remote_setup
W=$(NPM_TIMEOUT_S=$NPM_TIMEOUT_S bash "$TESTS_SRCDIR/interop/npm-deps.sh" \
	"$PWD" @modelcontextprotocol/sdk/package.json \
	@modelcontextprotocol/conformance/dist/index.js 2>"$T/npm2.log") || {
	cat "$T/npm2.log" >&2
	hard_error "the conformance suite could not be installed (npm-deps.sh)"
}
SUITE=$W/node_modules/@modelcontextprotocol/conformance
# The suite needs fs.globSync (Node.js 22), or module.register for the
# shim (18.19, 20.6); a node with neither cannot load it at all.
"$NODE" -e 'process.exit(typeof require("fs").globSync === "function" ||
	typeof require("module").register === "function" ? 0 : 1)' ||
	skip "node $("$NODE" --version) cannot load the conformance suite (it needs 22, or 18.19 or 20.6 and later with the shim)"
note "conformance suite $(jq -r .version "$SUITE/package.json")"

# The suite runs the client command split at spaces: a copy in $T.
cp "$TESTS_SRCDIR/interop/conformance-client.sh" \
	"$TESTS_SRCDIR/interop/conformance-node.mjs" "$T/" ||
	hard_error "cannot copy the conformance client to $T"
export MCPD MCPCTL MCP_FAKE TESTS_SRCDIR MCPD_REMOTE

SCENARIOS=(
	auth/metadata-default auth/metadata-var1 auth/metadata-var2
	auth/metadata-var3 auth/basic-cimd
	auth/scope-from-www-authenticate auth/scope-from-scopes-supported
	auth/scope-omitted-when-undefined auth/scope-step-up
	auth/scope-retry-limit
	auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
	auth/token-endpoint-auth-none auth/pre-registration
	auth/2025-03-26-oauth-metadata-backcompat
	auth/2025-03-26-oauth-endpoint-fallback
	auth/resource-mismatch auth/offline-access-scope
	auth/offline-access-not-supported
	auth/client-credentials-jwt auth/client-credentials-basic
	auth/cross-app-access-complete-flow
)
declare -A EXPECTED_FAILURES=(
	[auth/cross-app-access-complete-flow]="SEP-990 (an extension): the \
client exchanges an enterprise IdP's ID token for an ID-JAG, then uses the \
jwt-bearer grant; mcpd has no IdP to get such a token from"
)

# The suite lists them all (a new one in a newer suite is said).
"$NODE" --import "$T/conformance-node.mjs" "$SUITE/dist/index.js" list \
	>"$T/list.txt" 2>&1 || fail "the suite's list failed: $(head -c 600 "$T/list.txt")"
for s in $(sed -n 's/^  - \(auth\/[^ ]*\) .*/\1/p' "$T/list.txt"); do
	case " ${SCENARIOS[*]} " in
	*" $s "*) ;;
	*) note "the suite has $s, which this test does not run" ;;
	esac
done

# run SCENARIO: the suite with conformance-client.sh; the checks'
# statuses counted in PASSED, FAILED, WARNED.
run() {
	local s=$1 dir checks
	dir=$T/results/${s//\//_}
	mkdir -p "$dir"
	MCPD_TEST_DIR=$T timeout -k 10 300 "$NODE" --import "$T/conformance-node.mjs" \
		"$SUITE/dist/index.js" client \
		--command "bash $T/conformance-client.sh" --scenario "$s" \
		--timeout 240000 -o "$dir" </dev/null >"$dir/out.txt" 2>&1
	checks=$(find "$dir" -name checks.json | head -n 1)
	if [ -z "$checks" ]; then
		PASSED=0 FAILED=1 WARNED=0
		return
	fi
	PASSED=$(jq '[.[] | select(.status == "SUCCESS")] | length' "$checks")
	FAILED=$(jq '[.[] | select(.status == "FAILURE")] | length' "$checks")
	WARNED=$(jq '[.[] | select(.status == "WARNING")] | length' "$checks")
	CHECKS=$checks
}

problems=()
npassed=0
for s in "${SCENARIOS[@]}"; do
	CHECKS=
	run "$s"
	dir=$T/results/${s//\//_}
	# (The client's output: in stdout.txt, or out.txt when it failed.)
	logins=$(find "$dir" -name stdout.txt -exec cat {} + 2>/dev/null |
		cat - "$dir/out.txt" | grep -a '^# login [0-9]*: mcpctl exited' |
		sort -u | wc -l)
	line="$s: $PASSED passed, $FAILED failed, $WARNED warnings, $logins sign-in(s)"
	if [ -n "${EXPECTED_FAILURES[$s]:-}" ]; then
		if [ -z "$CHECKS" ]; then
			# No results at all is not the failure expected.
			problems+=("$s: the suite gave no results: $(tail -c 300 "$dir/out.txt")")
		elif [ "$FAILED" -gt 0 ]; then
			note "$line: fails as expected (${EXPECTED_FAILURES[$s]})"
		else
			problems+=("$s passes now: take it off EXPECTED_FAILURES")
		fi
		continue
	fi
	if [ "$FAILED" = 0 ] && [ "$WARNED" = 0 ] && [ "$PASSED" -gt 0 ]; then
		note "$line"
		npassed=$((npassed + 1))
		continue
	fi
	note "$line: FAILED"
	[ -n "$CHECKS" ] && jq -r '.[] | select(.status == "FAILURE" or .status == "WARNING") |
		"#   \(.status) \(.id): \(.description) \(.errorMessage // "")"' "$CHECKS"
	grep -a '^# \|^FAIL\|mcpctl' "$dir/out.txt" | head -n 30 | sed 's/^/#   /'
	problems+=("$s")
done
note "$npassed of ${#SCENARIOS[@]} scenarios pass; ${#EXPECTED_FAILURES[@]} expected to fail"
[ "${#problems[@]}" = 0 ] || fail "conformance: ${problems[*]}"
echo "PASS: $TEST_NAME"
