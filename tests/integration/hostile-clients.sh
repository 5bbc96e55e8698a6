#!/bin/bash
# hostile-clients.sh -- one client cannot grow mcpd without a bound:
# - 300 000 requests each cancelled at once: nothing is kept for them
#   (they used to leave a tombstone each for 125 s: 1 M pairs, 320 MB);
#   mcpd's VmHWM growth is printed and held under 16 MiB;
# - client_max_inflight (100 here): the 101st request in flight gets
#   -32015 naming the cap, the first 100 stay in flight;
# - client_max_subscriptions (50 here): the 51st distinct URI gets -32015;
# - client_max_held_bytes (4 MiB here): requests held while a server
#   starts are capped by bytes, not only by count (20 x 15 MiB held used
#   to cost 318 MB);
# - an id of more than 1024 bytes is refused, not stored.

. "$TESTS_SRCDIR/integration/lib.sh"
need_node
cp "$TESTS_SRCDIR/integration/hostile-clients.mjs" "$T/"

# deaf never answers, not even mcpd's health pings: with them on, a
# loaded machine that takes 40 s to reach the last scenario finds it
# killed as hung.  Nor mcpd's own list for its pins: with pins on, its
# calls would wait for that list instead of going in flight.
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "client_max_inflight": 100, "client_max_subscriptions": 50,
            "client_max_held_bytes": 4194304, "request_timeout_ms": 600000 },
  "mcpServers": {
    "deaf": { "command": "$MCP_FAKE", "args": ["--hang-after-init"],
              "health_interval_ms": 0, "pin": "off" },
    "demo": { "command": "$MCP_FAKE" },
    "slow": { "command": "$MCP_FAKE", "args": ["--no-init-reply"],
              "init_timeout_ms": 600000 }
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready deaf 30
wait_ready demo 30

hc() {
	timeout -k 5 300 "$NODE" "$T/hostile-clients.mjs" "$SOCK" "$@" >"$T/hc.json" 2>"$T/hc.err" ||
		{ cat "$T/hc.err" >&2; fail "hostile-clients.mjs $* failed"; }
	cat "$T/hc.json"
}

# --- request + cancel pairs ------------------------------------------------------
PAIRS=300000
hwm0=$(vm_kib "$MCPD_PID" VmHWM)
t0=$(now_ms)
out=$(hc deaf pairs "$PAIRS")
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
note "$PAIRS request+cancel pairs in $(($(now_ms) - t0)) ms: $out; mcpd VmHWM $hwm0 -> $hwm1 KiB (+$(((hwm1 - hwm0) / 1024)) MiB, bar 16 MiB)"
[ "$(jq .inflight_after <<<"$out")" = 0 ] || fail "requests left in flight after the pairs: $out"
[ "$(jq .replies <<<"$out")" = 0 ] || fail "cancelled requests got replies: $out"
if sanitized "$MCPD"; then
	note "mcpd is built with AddressSanitizer: its memory is not asserted"
else
	[ $((hwm1 - hwm0)) -lt 16384 ] || fail "VmHWM grew by $((hwm1 - hwm0)) KiB for cancelled requests"
fi

# --- caps -------------------------------------------------------------------------
out=$(hc deaf inflight 150)
note "150 requests at once, client_max_inflight 100: $out"
[ "$(jq .inflight <<<"$out")" = 100 ] || fail "expected 100 in flight: $out"
[ "$(jq '.codes["-32015"]' <<<"$out")" = 50 ] || fail "expected 50 x -32015: $out"
jq -r .message <<<"$out" | grep -q client_max_inflight || fail "the error does not name the cap: $out"

out=$(hc demo subscribe 60)
note "60 subscriptions, client_max_subscriptions 50: $(jq -c .codes <<<"$out"): $(jq -r .message <<<"$out")"
[ "$(jq '.codes["-32015"]' <<<"$out")" = 10 ] || fail "expected 10 x -32015: $out"
[ "$(jq '.codes.ok' <<<"$out")" = 50 ] || fail "expected 50 subscriptions: $out"

hwm0=$(vm_kib "$MCPD_PID" VmHWM)
out=$(hc slow held 20 1048576)
hwm1=$(vm_kib "$MCPD_PID" VmHWM)
note "20 x 1 MiB requests held while slow starts, client_max_held_bytes 4 MiB: $(jq -c .codes <<<"$out"): $(jq -r .message <<<"$out"); VmHWM +$(((hwm1 - hwm0) / 1024)) MiB"
[ "$(jq '.codes["-32015"]' <<<"$out")" = 17 ] || fail "expected 17 x -32015 (3 held): $out"
# mcpd drops them when it sees the client's close, which may come after
# the next connection.
wait_for 30 eval '[ "$(server_field slow stats | jq .waiting)" = 0 ]' ||
	fail "requests still held after the client left: $(server_field slow stats | jq .waiting)"

out=$(hc demo longid)
note "an id of 2000 bytes: $out"
[ "$(jq .code <<<"$out")" = -32600 ] || fail "a 2000-byte id got $out"
mcpd_running || fail "mcpd died"
exit 0
