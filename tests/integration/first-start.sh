#!/bin/bash
# first-start.sh -- a server's first start has first_start_timeout_ms (a
# package runner may be downloading it, printing nothing), every later
# one init_timeout_ms, and each timeout names the setting that ran out.
# Both limits are small here: init_timeout_ms 300, first_start_timeout_ms
# 20000 for "slow", which answers initialize after 1500 ms, and 3000 for
# "hang", which never does.
#
#   1  slow gets ready on its first start, and a client's call made while
#      it starts is held and answered (both used to fail at 300 ms);
#   2  restarted, it has init_timeout_ms again: it is killed, and
#      last_exit says "initialize timed out after 300 ms (init_timeout_ms)";
#   3  a reload that changes its arguments gives it a first start again:
#      ready;
#   4  hang's first start times out after "3 s (first_start_timeout_ms)",
#      its next one after "300 ms (init_timeout_ms)", as mcpd logs them
#      and as status shows the last.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

CFG=$T/mcpd.json
# config SLOW_ARGS_JSON: the configuration, written.
config() {
	write_config "$CFG" <<JSON
{
  "mcpd": { "init_timeout_ms": 300, "health_interval_ms": 0,
            "backoff_min_ms": 200, "backoff_max_ms": 400 },
  "mcpServers": {
    "slow": { "command": "$MCP_FAKE", "args": $1,
              "first_start_timeout_ms": 20000 },
    "hang": { "command": "$MCP_FAKE", "args": ["--no-init-reply"],
              "first_start_timeout_ms": 3000 }
  }
}
JSON
}
config '["--slow-ms=1500", "--startlog='"$T"'/slow.starts"]'
start_mcpd "$CFG"

# --- 1: the first start has its own limit ---------------------------------------------
note "1: slow is $(server_field slow state) when the call is made"
out=$(ctl call slow echo text=held 2>&1) ||
	fail "1: a call to slow while it starts failed: $out (state $(server_field slow state), last_exit $(server_field slow last_exit))"
[ "$out" = held ] || fail "1: the call to slow answered '$out'"
wait_ready slow 30
[ "$(startlog_count "$T/slow.starts")" = 1 ] ||
	fail "1: slow started $(startlog_count "$T/slow.starts") times to get ready once"
note "1: slow ready on its first start; the call held meanwhile answered"

# --- 2: later starts have init_timeout_ms ----------------------------------------------
out=$(ctl restart slow 2>&1)
note "2: mcpctl restart slow: $out"
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'case "$(server_field slow last_exit)" in
	"initialize timed out after 300 ms (init_timeout_ms)"*) true ;;
	*) false ;; esac' ||
	fail "2: slow's last_exit is '$(server_field slow last_exit)', expected 'initialize timed out after 300 ms (init_timeout_ms) ...'"
note "2: $(server_field slow last_exit)"

# --- 3: a new configuration starts first again ------------------------------------------
config '["--slow-ms=1500", "--startlog='"$T"'/slow.starts", "--stderr-noise=1"]'
out=$(ctl reload 2>&1) || fail "3: mcpctl reload failed: $out"
wait_ready slow 30
note "3: slow ready after a reload changed its arguments ($(startlog_count "$T/slow.starts") starts)"

# --- 4: each timeout names its setting ----------------------------------------------------
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'grep -q "hang: .*initialize timed out after 300 ms (init_timeout_ms)" "$MCPD_LOG"' ||
	fail "4: hang's second start did not time out after 300 ms (init_timeout_ms)"
first=$(grep -m1 'hang: .*initialize timed out' "$MCPD_LOG")
case "$first" in
*"initialize timed out after 3 s (first_start_timeout_ms)"*) ;;
*) fail "4: hang's first timeout: '$first'" ;;
esac
note "4: $first"
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'case "$(server_field hang last_exit)" in
	*"(init_timeout_ms)"*) true ;; *) false ;; esac' ||
	fail "4: hang's last_exit '$(server_field hang last_exit)' does not name init_timeout_ms"

stop_mcpd TERM
exit 0
