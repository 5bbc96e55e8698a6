#!/bin/bash
# pins-templates.sh -- a resource template a server added since its
# templates were approved is held: a resources/read of a URI it matches
# is refused as a call of a held tool is, until a person approves it.
#
# Server t (mcp-fake) first offers no templates (an empty list, pinned).
# Its configuration then adds --file-resources, which offers the
# templates file:///{+path} and file:///etc/{name}, and a reload
# restarts it:
#   - mcpctl read t file://$T/data.txt (matched by file:///{+path}) is
#     refused, naming the template and mcpctl approve;
#   - a read of fake://hello, which no held template matches, works;
#   - after mcpctl approve t, the file is read.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

config() {	# EXTRA-ARGS
	write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "t": { "command": "$MCP_FAKE", "args": [$1] }
  }
}
JSON
}
config ''
start_mcpd "$T/mcpd.json"
wait_ready t
# Its lists are read and pinned (the empty templates list too).
wait_for 30 eval 'ctl pins t | grep -q "0 templates pinned"' ||
	fail "t's templates were not pinned: $(ctl pins t 2>&1)"

echo "the data" >"$T/data.txt"
config '"--file-resources"'
ctl reload >/dev/null || fail "mcpctl reload failed"
wait_for 30 eval 'ctl pins t | grep -q "file:///{+path}"' ||
	fail "the new template is not held: $(ctl pins t 2>&1)"

ctl_run held read t "file://$T/data.txt"
[ "$RC" != 0 ] || fail "a read through the held template worked: $(cat "$T/held.out")"
grep -qF "file:///{+path} of server t is not among its approved" "$T/held.err" &&
	grep -qF "mcpctl approve t" "$T/held.err" ||
	fail "the read was not refused as held: $(cat "$T/held.err")"
grep -q "the data" "$T/held.out" "$T/held.err" && fail "the held read returned the file"

ctl_run other read t fake://hello
ctl_rc 0 other "a read no held template matches"

ctl approve t >/dev/null || fail "mcpctl approve t failed"
ctl_run approved read t "file://$T/data.txt"
ctl_rc 0 approved "the read after approve"
grep -q "the data" "$T/approved.out" || fail "the approved read: $(cat "$T/approved.out")"
note "a read through a held template refused; approved, it works"

mcpd_running || fail "mcpd died"
exit 0
