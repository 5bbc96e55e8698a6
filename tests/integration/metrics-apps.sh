#!/bin/bash
# metrics-apps.sh -- mcpctl metrics counts each app's calls of a server,
# and at most 32 apps by name: 34 apps (copies of mcpctl under the names
# app-1 ... app-34, each its own app) each call the server once; the
# metrics have 32 apps by name with 1 call each, and "other" with the
# remaining 2; status's stats.apps says the same.  Where the apps' name
# is not their executable's (a systemd unit of the test's, say), they
# share one name and only the totals are checked.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": { "fake": { "command": "$MCP_FAKE" } }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready fake

N=34
for i in $(seq 1 "$N"); do
	cp "$MCPCTL" "$T/app-$i" || hard_error "cannot copy mcpctl"
	timeout -k 5 30 "$T/app-$i" -s "$SOCK" call fake echo text="$i" >/dev/null 2>"$T/call.err" ||
		fail "app-$i's call failed: $(cat "$T/call.err")"
done

ctl metrics >"$T/metrics.out" || fail "mcpctl metrics failed"
grep '^mcpd_app_calls_total{server="fake",' "$T/metrics.out" >"$T/apps.out"
total=$(awk '{ n += $2 } END { print n + 0 }' "$T/apps.out")
[ "$total" = "$N" ] || fail "mcpd_app_calls_total of fake adds up to $total, not $N: $(cat "$T/apps.out")"
rows=$(wc -l <"$T/apps.out")
[ "$rows" -le 33 ] || fail "$rows apps counted by name, more than 32 and \"other\""
grep -q '^mcpd_app_refused_total{server="fake",app="app-1"} 0$' "$T/metrics.out" || {
	note "the apps are not named by their executables here: totals only"
	exit 0
}
[ "$rows" = 33 ] || fail "$rows rows, expected 32 apps and \"other\": $(cat "$T/apps.out")"
grep -qx 'mcpd_app_calls_total{server="fake",app="other"} 2' "$T/apps.out" ||
	fail "\"other\" does not hold the 2 calls past 32 apps: $(cat "$T/apps.out")"
[ "$(grep -c 'app="app-[0-9]*"} 1$' "$T/apps.out")" = 32 ] ||
	fail "not 32 apps with 1 call each: $(cat "$T/apps.out")"
[ "$(ctl --json status | jq '.servers[] | select(.name == "fake") | .stats.apps | length')" = 33 ] ||
	fail "status's stats.apps: $(ctl --json status | jq -c '.servers[] | select(.name == "fake") | .stats.apps')"
note "34 apps: 32 by name, 2 calls under \"other\""

mcpd_running || fail "mcpd died"
exit 0
