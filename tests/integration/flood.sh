#!/bin/bash
# flood.sh -- a server that writes 100 MB without a newline cannot make
# mcpd's memory grow: mcpd discards past max_message_bytes, treats the
# newline-less stream as a protocol violation, restarts the server, and
# stays responsive.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

FLOOD_BYTES=104857600		# 100 MiB of 'x', no newline
MAX_MESSAGE_BYTES=1048576	# 1 MiB
BOUND_KIB=$(((MAX_MESSAGE_BYTES * 4 + 32 * 1024 * 1024) / 1024))

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "flood": {
      "command": "$MCP_FAKE",
      "args": ["--flood-no-newline=$FLOOD_BYTES", "--startlog=$T/flood.starts"],
      "max_message_bytes": $MAX_MESSAGE_BYTES,
      "backoff_min_ms": 300,
      "backoff_max_ms": 600
    }
  }
}
JSON
start_mcpd "$T/mcpd.json"
rss0=$(vm_kib "$MCPD_PID" VmRSS)

# Sample RSS while the flood cycles until it has been restarted twice.
peak_rss=0
deadline=$(($(now_ms) + 120000))
while :; do
	mcpd_running || fail "mcpd died during the flood"
	rss=$(vm_kib "$MCPD_PID" VmRSS) || fail "cannot read mcpd's VmRSS"
	[ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
	r=$(server_field flood restarts 2>/dev/null) || r=0
	[ "$r" != null ] && [ "$r" -ge 2 ] 2>/dev/null && break
	[ "$(now_ms)" -lt "$deadline" ] ||
		fail "flood restarted $r times in 120 s, expected >= 2 (state $(server_field flood state), last_exit $(server_field flood last_exit))"
	sleep 0.05
done
hwm=$(vm_kib "$MCPD_PID" VmHWM) || fail "cannot read mcpd's VmHWM"
note "mcpd memory: VmRSS at start ${rss0} KiB, peak sampled VmRSS ${peak_rss} KiB, VmHWM ${hwm} KiB (bound ${BOUND_KIB} KiB)"

gaps=$(awk 'NF >= 2 { if (prev != "") printf " %d", $2 - prev; prev = $2 }' "$T/flood.starts")
note "flood: ms between starts (backoff 300..600 ms):$gaps"
reason=$(server_field flood last_exit)
note "flood: restarts $r, $(startlog_count "$T/flood.starts") starts, last_exit '$reason'"
shopt -s nocasematch
[[ "$reason" == *"protocol violation"* ]] ||
	fail "last_exit '$reason' does not say protocol violation"
shopt -u nocasematch

if sanitized "$MCPD"; then
	note "mcpd is built with AddressSanitizer: memory bound not asserted"
else
	[ "$hwm" -lt "$BOUND_KIB" ] ||
		fail "mcpd VmHWM ${hwm} KiB >= ${BOUND_KIB} KiB (4 x max_message_bytes + 32 MiB): the flood was buffered"
fi

ctl status >/dev/null || fail "mcpctl status failed after the flood"
mcpd_running || fail "mcpd died"
exit 0
