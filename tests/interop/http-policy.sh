#!/bin/bash
# http-policy.sh -- an HTTP client's token is its identity to mcpd: the
# "clients" policies match it ("match": {"token": ...}), the audit
# records it, mcpctl status --clients shows it.
#
# - Two tokens, alice and bob, under their own policies, through the
#   official SDK's StreamableHTTPClientTransport (http-client.mjs): each
#   sees and may call only what its policy allows, and a call its policy
#   hides is refused naming that policy; a server its policy leaves out
#   is refused (403) for one and served to the other.  A token no entry
#   names gets "default" (here: nothing).
# - mcpctl status --clients shows an open session as its token.
# - With a private journald (../systemd/journald-lib.sh, as root): the
#   audit entries of the HTTP calls carry MCPD_APP=token:NAME and
#   MCPD_TOKEN=NAME.
# - A local process that is not mcpd's own mcpd-http and sends the
#   token's name in mcpd/attach ("http_token") is refused, and mcpd
#   logs it.
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: http-policy: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
CLIENT_TIMEOUT_S=${CLIENT_TIMEOUT_S:-120}

. "$TESTS_SRCDIR/integration/lib.sh"
. "$TESTS_SRCDIR/remote/lib.sh"
# shellcheck source=http-lib.sh
. "$TESTS_SRCDIR/interop/http-lib.sh"
# shellcheck source=../systemd/journald-lib.sh
. "$TESTS_SRCDIR/systemd/journald-lib.sh"

http_front_prep http-client.mjs

JOURNAL=0
if journald_can_run; then
	journald_start
	MCPD_PREFIX=(nsenter -t "$JD_HOLDER" -m --)
	MCPD_LOG_TARGET=journal
	JOURNAL=1
else
	note "the audit entries are not checked: $JOURNALD_WHY"
fi

config=$(jq -n --arg fake "$MCP_FAKE" --arg t "$T" --argjson port "$PORT" '{
	mcpd: { audit: "calls", http: { listen: ["127.0.0.1:\($port)"] } },
	mcpServers: {
		fake: { command: $fake, env: { MCPD_TEST_DIR: $t } },
		fake2: { command: $fake, env: { MCPD_TEST_DIR: $t } }
	},
	clients: {
		alice: { match: { token: "alice" }, servers: ["fake"],
			tools: { allow: ["echo"] } },
		bob: { match: { token: "b*" }, servers: ["fake", "fake2"],
			tools: { deny: ["echo"] } },
		local: { match: { exe: "*" } },
		default: { servers: [] }
	}
}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready fake
wait_ready fake2

for who in alice bob carol; do
	tok=$("$MCPCTL" token create "$who" --servers fake,fake2) ||
		fail "mcpctl token create $who failed"
	printf -v "TOKEN_$who" '%s' "$tok"
done

# code PATH TOKEN: the status of a POST of initialize to PATH.
code() { http_init "$1" -H "Authorization: Bearer $2"; }
http_front_wait

# Each token sees and may call what its policy allows, no more.
node_http "$BASE/servers/fake/mcp" "$TOKEN_alice" policy echo sleep alice ||
	fail "alice's policy over HTTP"
node_http "$BASE/servers/fake/mcp" "$TOKEN_bob" policy sleep echo bob ||
	fail "bob's policy over HTTP"
c=$(code /servers/fake2/mcp "$TOKEN_alice")
[ "$c" = 403 ] || fail "alice on fake2 (not in her policy): $c, expected 403"
c=$(code /servers/fake2/mcp "$TOKEN_bob")
[ "$c" = 200 ] || fail "bob on fake2 (in his policy): $c, expected 200"
# A token no entry names: "default", which reaches nothing here.
c=$(code /servers/fake/mcp "$TOKEN_carol")
[ "$c" = 403 ] || fail "carol (the default policy): $c, expected 403"

# An open session is shown as its token.
c=$(code /servers/fake/mcp "$TOKEN_alice")
[ "$c" = 200 ] || fail "alice on fake: $c, expected 200"
ctl_run clients status --clients
ctl_rc 0 clients "mcpctl status --clients"
grep -q 'token alice, over HTTP' "$T/clients.out" ||
	fail "status --clients does not show the token: $(cat "$T/clients.out")"
ctl_run clientsjson --json status --clients
jq -e '[.clients[].app | select(.token == "alice" and
	(.flags | index("http-token")))] | length >= 1' \
	"$T/clientsjson.out" >/dev/null ||
	fail "status --clients --json: $(head -c 2000 "$T/clientsjson.out")"

# A local process that claims a token is refused, and mcpd says so.
cat >"$T/claim.mjs" <<'EOF'
import net from "node:net";
const s = net.createConnection(process.argv[2]);
let buf = "";
s.on("connect", () => s.write(JSON.stringify({ jsonrpc: "2.0", id: 1,
    method: "mcpd/attach",
    params: { server: "fake", http_token: "alice" } }) + "\n"));
s.on("data", (d) => {
	buf += d;
	const nl = buf.indexOf("\n");
	if (nl >= 0) { console.log(buf.slice(0, nl)); s.end(); process.exit(0); }
});
s.on("error", (e) => { console.error(e.message); process.exit(1); });
setTimeout(() => { console.error("no answer"); process.exit(1); }, 20000);
EOF
timeout -k 5 30 "$NODE" "$T/claim.mjs" "$SOCK" >"$T/claim.out" 2>&1 ||
	fail "the local claim got no answer: $(cat "$T/claim.out")"
jq -e '.error.message | test("taken only from mcpd.s own mcpd-http")' \
	"$T/claim.out" >/dev/null ||
	fail "a local process claiming a token was answered $(cat "$T/claim.out")"
claim_logged() {
	if [ "$JOURNAL" = 1 ]; then
		in_ns journalctl -o cat --no-pager -q 2>/dev/null |
			grep -q 'refused a claim of HTTP token alice'
	else
		grep -q 'refused a claim of HTTP token alice' "$MCPD_LOG"
	fi
}
wait_for 20 claim_logged || fail "mcpd did not log the refused claim"

# The audit records the token of each HTTP call.
if [ "$JOURNAL" = 1 ]; then
	audited() {
		in_ns journalctl -o json --all --no-pager -q \
			>"$T/journal.json" 2>/dev/null || return 1
		[ "$(jq -c 'select(.MCPD_APP == "token:alice" and
			.MCPD_TOKEN == "alice" and .MCPD_TOOL == "echo")' \
			"$T/journal.json" | wc -l)" -ge 1 ] &&
			[ "$(jq -c 'select(.MCPD_APP == "token:bob" and
			.MCPD_TOKEN == "bob" and .MCPD_TOOL == "sleep")' \
			"$T/journal.json" | wc -l)" -ge 1 ]
	}
	wait_for 20 audited ||
		fail "no audit entries with the tokens: $(jq -c 'select(.MCPD_TOOL != null)' "$T/journal.json" | head -c 2000)"
fi
exit 0
