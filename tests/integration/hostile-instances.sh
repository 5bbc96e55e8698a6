#!/bin/bash
# hostile-instances.sh -- another local user cannot take every instance
# of a server from its owner.  nobody (a member of socket_group) opens
# four bridges to a per-client server with max_instances 4, and holds
# them; then root (an administrator) calls a tool of that server.
#
#   1  default max_instances_per_uid (a quarter of max_instances: 1): the
#      member gets 1 instance, its other bridges are refused naming
#      max_instances_per_uid and only its own pid; root's call succeeds.
#      (The member used to hold all 4, and root's call was refused.)
#   2  max_instances_per_uid 4: the member gets 3, the fourth is refused
#      as kept for mcpd's user and root; root's call succeeds, on the
#      fourth instance.
# The instances each holds are printed.  Needs root.

# shellcheck source=member-lib.sh
. "$TESTS_SRCDIR/integration/member-lib.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "socket_group": "nogroup" },
  "mcpServers": {
    "pc": { "command": "$MCP_FAKE", "share": "per-client",
            "max_instances": 4 },
    "pc4": { "command": "$MCP_FAKE", "share": "per-client",
             "max_instances": 4, "max_instances_per_uid": 4 }
  }
}
JSON
start_mcpd "$T/mcpd.json"

# held SERVER: how many instances of SERVER the member's bridges are on.
held() {
	local pids
	pids=$(for i in 1 2 3 4; do bridge_pid "$1m$i"; done | jq -sc .)
	status_json | jq --arg s "$1" --argjson pids "$pids" '
		[.servers[] | select(.instance_of == $s and
			any(.attached[]?; .pid as $p | $pids | index($p)))] |
		length'
}

# settled SERVER N: N of the member's bridges to SERVER ended and the rest
# are attached to instances.
# shellcheck disable=SC2317  # called through wait_for
settled() {
	local gone=0 i
	for i in 1 2 3 4; do
		bridge_gone "$1m$i" && gone=$((gone + 1))
	done
	[ "$gone" = "$2" ] &&
		[ "$(status_json | jq --arg s "$1" '[.servers[] |
			select(.instance_of == $s) | .attached[]] | length')" = $((4 - $2)) ]
}

# hold SERVER HELD REFUSED WHY: the member opens four bridges to SERVER;
# HELD get an instance, REFUSED are refused with WHY.
hold() {
	local server=$1 i refused_by
	for i in 1 2 3 4; do
		member_spawn "${server}m$i" "$server"
	done
	wait_for 30 settled "$server" "$3" ||
		fail "$server: the member's 4 bridges did not settle as $2 held and $3 refused: it holds $(held "$server") instances; $(cat "$T/${server}m"*.err)"
	[ "$(held "$server")" = "$2" ] ||
		fail "$server: the member holds $(held "$server") instances, not $2"
	[ "$(status_json | jq --arg s "$server" --argjson u "$MEMBER_UID" '
		[.servers[] | select(.instance_of == $s and .uid == $u)] |
		length')" = "$2" ] ||
		fail "$server: mcpctl status does not charge the member's $2 instances to uid $MEMBER_UID"
	refused_by=$(cat "$T/${server}m"*.err)
	[ "$(grep -c "$4" <<<"$refused_by")" -ge "$3" ] ||
		fail "$server: the member's refused bridges do not say '$4': $refused_by"
	note "$server: the member holds $2 of 4 instances; refused: $(grep -m 1 "$4" <<<"$refused_by")"
}

# owner_calls SERVER: root's call of a tool of SERVER succeeds.
owner_calls() {
	local out
	out=$(ctl call "$1" echo text=owner 2>&1) ||
		fail "$1: root's call was refused while the member holds $(held "$1") instances: $out"
	[ "$out" = owner ] || fail "$1: root's call returned '$out'"
	note "$1: root's call succeeded beside the member's instances"
}

# --- 1: the per-uid share --------------------------------------------------------
hold pc 1 3 "uid $MEMBER_UID has 1 instance of server pc, the most its max_instances_per_uid allows"
# A refusal names the refused bridge alone.
for i in 1 2 3 4; do
	pids=$(grep -o 'pid [0-9]*' "$T/pcm$i.err" | sort -u)
	[ -z "$pids" ] || [ "$pids" = "pid $(bridge_pid "pcm$i")" ] ||
		fail "1: bridge pcm$i (pid $(bridge_pid "pcm$i")) was refused naming $pids: $(cat "$T/pcm$i.err")"
done
owner_calls pc

# --- 2: the reserve for mcpd's user and root -------------------------------------
hold pc4 3 1 "the last 1 of its max_instances (4) are kept for mcpd's user and root"
owner_calls pc4

for i in 1 2 3 4; do
	spawn_close "pcm$i"
	spawn_close "pc4m$i"
done
stop_mcpd TERM
exit 0
