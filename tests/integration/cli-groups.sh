#!/bin/bash
# cli-groups.sh -- mcpctl's server commands take a group's name for its
# members, and name each server once:
#
# - `restart g` restarts both members (new pids) and prints a line for
#   each; `stop g` and `start g` likewise (they used to say "unknown
#   server: g");
# - `logs g` prints both members' stderr, each line after its server's
#   name; `logs g -f` follows both: a member restarted afterwards shows
#   its new start line, under its name (logs used to refuse the group);
# - `status g` lists the members; `status pc pc#1` lists pc#1 once (it
#   used to list it twice: once as pc's instance and once as named), in
#   the table and in --json; pc#1's client is shown with its app.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "a": {"command": "$MCP_FAKE"},
    "b": {"command": "$MCP_FAKE"},
    "pc": {"command": "$MCP_FAKE", "share": "per-client"}
  },
  "groups": {
    "g": {"servers": ["a", "b"]}
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready a
wait_ready b

# --- restart, stop, start a group ----------------------------------------------
pa=$(server_pid a) && pb=$(server_pid b) || fail "a or b has no pid"
ctl_run restart restart g
ctl_rc 0 restart "restart g"
[ "$(cat "$T/restart.out")" = $'a: ready\nb: ready' ] ||
	fail "restart g printed: $(cat "$T/restart.out")"
na=$(server_pid a) && nb=$(server_pid b) || fail "a or b has no pid after restart g"
[ "$na" != "$pa" ] && [ "$nb" != "$pb" ] ||
	fail "restart g: pids a $pa -> $na, b $pb -> $nb"
ctl_run stop stop g
ctl_rc 0 stop "stop g"
[ "$(cat "$T/stop.out")" = $'a: stopped\nb: stopped' ] || fail "stop g printed: $(cat "$T/stop.out")"
ctl_run start start g
ctl_rc 0 start "start g"
[ "$(cat "$T/start.out")" = $'a: ready\nb: ready' ] || fail "start g printed: $(cat "$T/start.out")"
note "restart g: a $pa -> $na, b $pb -> $nb; stop g, start g"

# --- logs of a group --------------------------------------------------------------
pa=$(server_pid a) && pb=$(server_pid b) || fail "a or b has no pid"
ctl_run logs logs g -n 100
ctl_rc 0 logs "logs g"
grep -qE "^[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} a: mcp-fake: started pid $pa\$" "$T/logs.out" &&
	grep -qE " b: mcp-fake: started pid $pb\$" "$T/logs.out" ||
	fail "logs g does not show both members' start lines under their names: $(cat "$T/logs.out" "$T/logs.err")"
# Followed: b restarted afterwards shows its new start line.
spawn lf "$MCPCTL" -s "$SOCK" logs g -n 100 -f 2>"$T/lf.err"
seen=0
while spawn_read lf 30 line; do
	case "$line" in
	*" b: mcp-fake: started pid $pb") seen=1; break ;;
	esac
done
[ "$seen" = 1 ] || fail "logs g -f never showed b's start line: $(cat "$T/lf.err")"
ctl restart b >/dev/null 2>&1 || fail "restart b failed"
nb=$(server_pid b) || fail "b has no pid after its restart"
seen=0
while spawn_read lf 30 line; do
	case "$line" in
	*" b: mcp-fake: started pid $nb") seen=1; break ;;
	esac
done
[ "$seen" = 1 ] || fail "logs g -f did not follow b's restart (pid $nb): $(cat "$T/lf.err")"
kill "$lf_PID" 2>/dev/null
spawn_close lf
note "logs g -f followed b's restart: pid $pb -> $nb"

# --- status ---------------------------------------------------------------------------
ctl_run status status g
ctl_rc 0 status "status g"
# The table: the lines up to the first blank one (the eras come after).
[ "$(awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }' "$T/status.out" |
	tr '\n' ' ')" = "a b " ] ||
	fail "status g lists: $(cat "$T/status.out")"

# An instance of pc, for as long as its bridge's session lasts; the
# bridge run by an app of its own, $T/app-pc (a copy of timeout(1)).
cp "$(command -v timeout)" "$T/app-pc" || hard_error "cannot copy timeout"
spawn br "$T/app-pc" 120 "$MCPCTL" -s "$SOCK" connect pc 2>"$T/br.err"
spawn_send br '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
spawn_read br 30 line || fail "the bridge to pc said nothing: $(cat "$T/br.err")"
wait_ready "pc#1"
ctl_run once --json status pc 'pc#1'
ctl_rc 0 once "status pc pc#1"
[ "$(jq -c '[.servers[].name]' "$T/once.out")" = '["pc","pc#1"]' ] ||
	fail "--json status pc pc#1 lists $(jq -c '[.servers[].name]' "$T/once.out")"
cp "$T/once.out" "$T/once.out.json"
ctl_run once status pc 'pc#1'
ctl_rc 0 once "status pc pc#1"
# In the first table (the ROOTS table below it has a line of its own).
n=$(awk '!NF { exit } /^pc#1 / { n++ } END { print n + 0 }' "$T/once.out")
[ "$n" = 1 ] || fail "status pc pc#1 lists pc#1 $n times: $(cat "$T/once.out")"
# The instance's attached client shows its app, by the name identity
# gives it (app id, else unit, else the executable's name).
app=$(ctl --json status --clients | jq -r --arg e "$T/app-pc" '
	first(.clients[].app | select(.exe == $e) |
	.app_id // .unit // (.exe | sub(".*/"; "")))')
[ -n "$app" ] || fail "status --clients does not show app-pc"
jq -e --arg a "$app" '.servers[] | select(.name == "pc#1") |
	.attached | length == 1 and .[0].app == $a' "$T/once.out.json" >/dev/null ||
	fail "pc#1's attached client is not shown with its app $app: $(jq -c '.servers[] | select(.name == "pc#1") | .attached' "$T/once.out.json")"
grep -q "^pc#1 .* client [0-9]* (app $app, t)\$" "$T/once.out" ||
	fail "status pc pc#1 does not show the app $app of pc#1's client: $(cat "$T/once.out")"
spawn_close br
spawn_wait br 30 || fail "the bridge did not exit"

mcpd_running || fail "mcpd died"
exit 0
