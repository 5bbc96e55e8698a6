#!/bin/bash
# insider.sh -- mcpd refuses its admin methods to processes inside its
# servers (mcpd(8), "Servers may not administer mcpd"): a server's tool
# (insider-server.sh) runs mcpctl against the socket.
#
# - From inside server "ins": `mcpctl status`, `approve ins`, `stop f`
#   and `metrics` are refused with "refused: caller runs inside server
#   ins", and each refusal is logged; f is still running.
# - From inside, `mcpctl call f echo` (an attach, as mcpctl connect's)
#   works, and so does `mcpctl version`.
# - A process the server started whose parent has exited (an orphan,
#   taken in by a reaper or by mcpd, both subreapers) is refused too.
# - From the test's shell, the same commands work.
# Each with the fallback containment (a reaper per server: found by
# ancestry), and, where a cgroup v2 can be made (root), with --cgroup:
# the orphan, a child of mcpd (a subreaper) outside the server's tree,
# is found by its cgroup.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=cgroup-lib.sh
. "$TESTS_SRCDIR/integration/cgroup-lib.sh"

command -v jq >/dev/null || skip "no jq"
cp "$TESTS_SRCDIR/integration/insider-server.sh" "$T/" ||
	hard_error "cannot copy insider-server.sh"

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "ins": {"command": "bash", "args": ["$T/insider-server.sh", "$MCPCTL", "$SOCK"]},
    "f": {"command": "$MCP_FAKE"}
  }
}
JSON

# inside NAME ARGS...: mcpctl ARGS run by ins's tool; its "rc=N" and
# output in $T/NAME.out.
inside() {
	local name=$1
	shift
	ctl call ins run "$(jq -nc '{args: $ARGS.positional}' --args "$@")" \
		>"$T/$name.out" 2>"$T/$name.err" ||
		fail "mcpctl call ins run $*: $(cat "$T/$name.err")"
}
# refused NAME WHAT: the command inside failed, saying why.
refused() {
	grep -qx 'rc=1' "$T/$1.out" ||
		fail "$2 from inside server ins did not exit 1: $(cat "$T/$1.out")"
	grep -qF "refused: caller runs inside server ins" "$T/$1.out" ||
		fail "$2 from inside server ins: not the refusal: $(cat "$T/$1.out")"
}

# run MODE [MCPD-ARGS...]: the checks, with mcpd started with the args.
run() {
	MODE=$1
	shift
	LOGGED=$(grep -c "caller runs inside server ins" "$MCPD_LOG")
	start_mcpd "$T/mcpd.json" "$@"
	wait_ready ins
	wait_ready f
	[ "$(ctl --json status | jq -r '.servers[] | select(.name == "ins") | .containment')" = "$MODE" ] ||
		fail "$MODE: ins's containment is $(ctl --json status | jq -c '.servers[] | select(.name == "ins") | .containment')"
	pf=$(server_pid f) || fail "f has no pid"
	inside status status
	refused status "mcpctl status"
	inside approve approve ins
	refused approve "mcpctl approve ins"
	inside stop stop f
	refused stop "mcpctl stop f"
	inside metrics metrics
	refused metrics "mcpctl metrics"
	[ "$(server_pid f)" = "$pf" ] || fail "f was stopped or restarted from inside ins"
	n=$(grep -c "caller runs inside server ins" "$MCPD_LOG")
	[ "$n" -ge $((LOGGED + 4)) ] || fail "$n refusals logged, expected 4: $(tail -5 "$MCPD_LOG")"

	# Its MCP use stays allowed.
	inside call call f echo text=from-inside
	grep -q '^rc=0$' "$T/call.out" && grep -q 'from-inside' "$T/call.out" ||
		fail "mcpctl call f echo from inside ins failed: $(cat "$T/call.out")"
	inside version version
	grep -q '^rc=0$' "$T/version.out" ||
		fail "mcpctl version from inside ins failed: $(cat "$T/version.out")"

	# An orphan of the server's.
	ctl call ins orphan "$(jq -nc --arg o "$T/orphan-$MODE.out" '{args: ["status"], out: $o}')" \
		>/dev/null 2>"$T/orphan.err" || fail "mcpctl call ins orphan: $(cat "$T/orphan.err")"
	wait_for 30 test -e "$T/orphan-$MODE.out" || fail "the orphan's mcpctl status did not finish"
	refused "orphan-$MODE" "mcpctl status from an orphan of ins"

	# The same from outside.
	ctl_run out-status status
	ctl_rc 0 out-status "mcpctl status from the test"
	ctl_run out-approve approve ins
	grep -qF "refused" "$T/out-approve.out" "$T/out-approve.err" &&
		fail "mcpctl approve ins from the test was refused: $(cat "$T/out-approve.err")"
	ctl_run out-metrics metrics
	ctl_rc 0 out-metrics "mcpctl metrics from the test"
	note "$MODE: status, approve, stop, metrics refused inside ins (and from its orphan); call and version allowed"
	stop_mcpd TERM
}

run reaper
if cgroup_scratch; then
	run cgroup --cgroup "$CG"
else
	note "cgroup: cannot make a cgroup v2 here (not root, or no cgroup2 mount)"
fi
exit 0
