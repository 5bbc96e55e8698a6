#!/bin/bash
# insider-server.sh MCPCTL SOCKET -- a small MCP server for insider.sh
# (run by mcpd as a server, not a test): its tools run mcpctl against
# mcpd's socket from inside the server:
#   run {"args": [...]}     mcpctl -s SOCKET ARGS..., as the server's
#                           child; answers "rc=N" and its output
#   orphan {"args": [...], "out": FILE}
#                           the same from a process whose parent has
#                           exited (an orphan, taken in by a subreaper);
#                           its output and "rc=N" go to FILE
MCPCTL=$1
SOCK=$2

reply() {
	jq -nc --argjson id "$1" --argjson r "$2" '{jsonrpc: "2.0", id: $id, result: $r}'
}
text() {
	jq -nc --arg t "$1" '{content: [{type: "text", text: $t}]}'
}

while IFS= read -r line; do
	id=$(jq -c '.id // empty' <<<"$line" 2>/dev/null) || continue
	[ -n "$id" ] || continue
	method=$(jq -r '.method // empty' <<<"$line")
	case $method in
	initialize)
		reply "$id" '{"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
			"serverInfo": {"name": "insider", "version": "1"}}' ;;
	tools/list)
		reply "$id" '{"tools": [
			{"name": "run", "inputSchema": {"type": "object"}},
			{"name": "orphan", "inputSchema": {"type": "object"}}]}' ;;
	tools/call)
		mapfile -t args < <(jq -r '.params.arguments.args[]' <<<"$line")
		case $(jq -r .params.name <<<"$line") in
		run)
			out=$("$MCPCTL" -s "$SOCK" "${args[@]}" 2>&1 </dev/null)
			reply "$id" "$(text "rc=$?
$out")" ;;
		orphan)
			file=$(jq -r .params.arguments.out <<<"$line")
			(
				("$MCPCTL" -s "$SOCK" "${args[@]}" >"$file.tmp" 2>&1 </dev/null
				echo "rc=$?" >>"$file.tmp"
				mv "$file.tmp" "$file") &
			)
			reply "$id" "$(text started)" ;;
		esac ;;
	ping)
		reply "$id" '{}' ;;
	*)
		jq -nc --argjson id "$id" '{jsonrpc: "2.0", id: $id,
			error: {code: -32601, message: "method not found"}}' ;;
	esac
done
