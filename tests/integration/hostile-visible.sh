#!/bin/bash
# hostile-visible.sh -- what one local user can read of another's use of
# mcpd.  Root (an administrator) and nobody (a member of socket_group)
# each attach to a per-roots server with roots of their own, under app
# names of their own.
#
#   1  `mcpctl status` as the member, JSON and table: its own instance
#      with its roots, pid and app name; of root's instance neither the
#      roots nor the bridge's pid nor its app name.  (Both used to be
#      shown to every user of the socket.)
#   2  `mcpctl status` as root shows both clients, with pids and uids.
#   3  `mcpctl logs` (server stderr) as the member: permission denied,
#      exit 1; as root it works.
# Needs root.

# shellcheck source=member-lib.sh
. "$TESTS_SRCDIR/integration/member-lib.sh"

PRIVATE=file:///root/private-project
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "socket_group": "nogroup" },
  "mcpServers": {
    "pr": { "command": "$MCP_FAKE", "args": ["--stderr-noise=3"],
            "share": "per-roots", "roots": ["/srv/configured"],
            "member_roots": ["/srv/shared"] }
  }
}
JSON
start_mcpd "$T/mcpd.json"

# instance_of PID: root's view of the instance a bridge is attached to.
# shellcheck disable=SC2317  # called through wait_for
instance_of() {
	status_json | jq -ce --argjson p "$1" '
		first(.servers[] | select(any(.attached[]?; .pid == $p)))'
}

admin_spawn rootapp pr
member_session rootapp "[\"$PRIVATE\"]"
member_spawn memberapp pr
member_session memberapp '["file:///srv/shared/member-project"]'
ri='' mi=''
RPID=$(bridge_pid rootapp)
MPID=$(bridge_pid memberapp)
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'ri=$(instance_of "$RPID") &&
	jq -e --arg r "$PRIVATE" ".roots == [\$r]" <<<"$ri" >/dev/null' ||
	fail "root's client (bridge $RPID) is not on an instance with its roots: $(status_json)"
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'mi=$(instance_of "$MPID") &&
	jq -e ".roots == [\"file:///srv/shared/member-project\"]" <<<"$mi" >/dev/null' ||
	fail "the member's client (bridge $MPID) is not on an instance with its roots: $(status_json)"
RINST=$(jq -r .name <<<"$ri")
MINST=$(jq -r .name <<<"$mi")

# --- 1: the member's view -----------------------------------------------------
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" --json status) ||
	fail "1: the member could not read the status: $out"
for leak in "$PRIVATE" rootapp; do
	grep -qF "$leak" <<<"$out" &&
		fail "1: the member's status shows root's $leak: $(jq -c --arg n "$RINST" '.servers[] | select(.name == $n)' <<<"$out")"
done
jq -e --argjson p "$RPID" 'any(.servers[].attached[]?; .pid == $p)' \
	<<<"$out" >/dev/null &&
	fail "1: the member's status names root's bridge (pid $RPID)"
jq -e --arg n "$RINST" 'first(.servers[] | select(.name == $n)) |
	(has("roots") | not) and .attached == [] and (has("uid") | not) and
	.clients == 1' <<<"$out" >/dev/null ||
	fail "1: root's instance $RINST, as the member sees it: $(jq -c --arg n "$RINST" '.servers[] | select(.name == $n)' <<<"$out")"
jq -e --arg n "$MINST" --argjson p "$MPID" --argjson u "$MEMBER_UID" '
	first(.servers[] | select(.name == $n)) |
	.roots == ["file:///srv/shared/member-project"] and .uid == $u and
	(.attached | map({pid, uid, client})) ==
	[{pid: $p, uid: $u, client: "memberapp"}]' <<<"$out" >/dev/null ||
	fail "1: the member's own instance $MINST, as it sees it: $(jq -c --arg n "$MINST" '.servers[] | select(.name == $n)' <<<"$out")"
table=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" status) ||
	fail "1: the member could not read the status table: $table"
grep -qF "$PRIVATE" <<<"$table" && fail "1: the member's table shows root's roots: $table"
grep -qE "client $RPID\b|rootapp" <<<"$table" &&
	fail "1: the member's table names root's client: $table"
grep -E "^$RINST " <<<"$(sed -n '/^ROOTS/,$p' <<<"$table")" |
	grep -q "another user's" ||
	fail "1: the member's table does not say whose roots are not shown: $table"
grep -qE "client $MPID \(memberapp\)" <<<"$table" ||
	fail "1: the member's table does not show its own client: $table"
note "1: as the member: $(grep -E "^$RINST " <<<"$(sed -n '/^ROOTS/,$p' <<<"$table")")"

# --- 2: root's view -----------------------------------------------------------
out=$(status_json)
jq -e --arg r "$RINST" --arg m "$MINST" --argjson rp "$RPID" \
	--argjson mp "$MPID" --argjson mu "$MEMBER_UID" '
	(first(.servers[] | select(.name == $r)) | .uid == 0 and
		(.attached | map({pid, uid, client})) ==
		[{pid: $rp, uid: 0, client: "rootapp"}]) and
	(first(.servers[] | select(.name == $m)) | .uid == $mu and
		(.attached | map(.pid)) == [$mp])' <<<"$out" >/dev/null ||
	fail "2: root does not see both clients: $out"
note "2: as root: $RINST for bridge $RPID (uid 0), $MINST for bridge $MPID (uid $MEMBER_UID)"

# --- 3: server stderr ----------------------------------------------------------
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'ctl logs "$RINST" | grep -q "noise line"' ||
	fail "3: root cannot read $RINST's stderr: $(ctl logs "$RINST" 2>&1)"
out=$("${as_member[@]}" "$MCPCTL" -s "$SOCK" logs "$RINST" 2>&1)
rc=$?
[ "$rc" = 1 ] || fail "3: mcpctl logs $RINST as the member exited $rc: $out"
grep -q "permission denied" <<<"$out" ||
	fail "3: mcpctl logs as the member does not say permission denied: $out"
grep -q "noise line" <<<"$out" && fail "3: the member read server stderr: $out"
note "3: the member's mcpctl logs: $out"

spawn_close rootapp
spawn_close memberapp
stop_mcpd TERM
exit 0
