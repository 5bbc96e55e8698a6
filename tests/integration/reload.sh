#!/bin/bash
# reload.sh -- `mcpctl reload` and SIGHUP.  The new file is validated
# completely first: with errors the old configuration keeps running and
# every error is reported (mcpctl reload exits 1 and prints them, SIGHUP
# logs them).  Otherwise only servers whose effective configuration changed
# restart, new ones start, removed ones stop.  An untouched server keeps
# its process, its session, its attached clients and their in-flight
# requests; a changed one keeps its clients (their in-flight requests get
# one -32000 each) and they work after its restart without attaching
# again; a removed one's clients are disconnected.

# shellcheck source=reload-lib.sh
. "$TESTS_SRCDIR/integration/reload-lib.sh"

# keep's sleep must still be in flight when the reload is done: the reload
# comes about a second after it is sent unloaded, a few on a busy machine
# or the sanitizer build.
KEEP_SLEEP_MS=8000
CHANGE_STOP_MS=2000
# What a loaded machine may add to a timed answer (keep's sleep, change's
# error) before it counts as late.
SLACK_MS=5000
CFG=$T/mcpd.json
# ${RELOAD_DIR} in a config is expanded by mcpd from its environment.
export RELOAD_DIR=$T

# keep_json STYLE: the server "keep", always with the same effective
# configuration, written two ways.
keep_json() {
	if [ "$1" = plain ]; then
		cat <<JSON
"keep": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/keep.pid", "--startlog=$T/keep.starts"],
      "env": {"ALPHA": "1", "BETA": "two"},
      "stop_timeout_ms": 4000
    }
JSON
	else
		# Keys and env reordered, paths through a variable, the stop
		# timeout from the daemon-wide defaults.
		cat <<JSON
"keep": {
      "env": {"BETA": "two", "ALPHA": "1"},
      "args": ["--pidfile=\${RELOAD_DIR}/keep.pid", "--startlog=\${RELOAD_DIR}/keep.starts"],
      "command": "$MCP_FAKE"
    }
JSON
	fi
}

# change_json NOISE: the server "change"; NOISE differs between versions.
change_json() {
	cat <<JSON
"change": {
      "command": "$MCP_FAKE",
      "args": ["--pidfile=$T/change.pid", "--startlog=$T/change.starts", "--stderr-noise=$1"],
      "stop_timeout_ms": $CHANGE_STOP_MS,
      "backoff_min_ms": 200
    }
JSON
}

# plain_json NAME: a plain server.
plain_json() {
	printf '"%s": {"command": "%s", "args": ["--pidfile=%s/%s.pid", "--startlog=%s/%s.starts"]}' \
		"$1" "$MCP_FAKE" "$T" "$1" "$T" "$1"
}

write_config "$CFG" <<JSON
{
  "mcpServers": {
    $(keep_json plain),
    $(change_json 1),
    $(plain_json remove)
  }
}
JSON
start_mcpd "$CFG"
for s in keep change remove; do
	wait_ready "$s"
done
KEEP_PID=$(server_pid keep) || fail "keep has no pid"
KEEP_START=$(proc_starttime "$KEEP_PID")

# server_names: the servers in mcpctl status, sorted, comma-separated.
server_names() {
	ctl --json status | jq -r '[.servers[].name] | sort | join(",")'
}

# pids_line: name=pid for every server, sorted.
pids_line() {
	ctl --json status | jq -r '[.servers[] | "\(.name)=\(.pid)"] | sort | join(" ")'
}

# inflight_is NAME N
inflight_is() {
	[ "$(server_field "$1" inflight)" = "$2" ]
}

# reloads_logged: "reloaded FILE: ..." lines in the mcpd log so far.
reloads_logged() {
	grep -c "reloaded $CFG: " "$MCPD_LOG"
}

# reload_failures_logged: "reload of FILE failed" lines so far.
reload_failures_logged() {
	grep -c "reload of $CFG failed" "$MCPD_LOG"
}

rc_start
rc '{"op":"attach","conn":"k","server":"keep"}'
rc '{"op":"attach","conn":"c","server":"change"}'
rc '{"op":"attach","conn":"r1","server":"remove"}'
for s in keep change remove; do
	wait_for 30 eval '[ "$(server_field '"$s"' clients)" = 1 ]' ||
		fail "$s has $(server_field "$s" clients) clients, expected 1"
done
rc_echo k '"k0"' "keep before any reload"

# round N VIA REMOVED ADDED NOISE: reload (VIA ctl or hup) into a config
# where keep is the same, change has --stderr-noise=NOISE, REMOVED is gone
# and ADDED is new, with a sleep in flight on keep and on change, and
# connection rN attached to REMOVED.
round() {
	local n=$1 via=$2 removed=$3 added=$4 noise=$5
	local change_pid change_start removed_pid removed_start before out ms msg
	local t0 new rcode sent reloaded snap looked

	change_pid=$(server_pid change) || fail "change has no pid"
	change_start=$(proc_starttime "$change_pid")
	removed_pid=$(server_pid "$removed") || fail "$removed has no pid"
	removed_start=$(proc_starttime "$removed_pid")

	write_config "$CFG" <<JSON
{
  "mcpd": {"stop_timeout_ms": 4000},
  "mcpServers": {
    $(plain_json "$added"),
    $(change_json "$noise"),
    $(keep_json "$([ $((n % 2)) = 1 ] && echo reordered || echo plain)")
  }
}
JSON
	rc_tool send c "\"sleep$n\"" sleep '{"ms": 60000}'
	wait_for 30 inflight_is change 1 || fail "round $n: change has $(server_field change inflight) requests in flight, expected 1"
	# keep's sleep last, just before the reload: it has to outlast it.
	sent=$(now_ms)
	rc_tool send k "\"sleep$n\"" sleep "{\"ms\": $KEEP_SLEEP_MS}"
	wait_for 30 inflight_is keep 1 || fail "round $n: keep has $(server_field keep inflight) requests in flight, expected 1"
	t0=$(now_ms)
	if [ "$via" = ctl ]; then
		ctl reload >"$T/reload$n.out" 2>"$T/reload$n.err"
		rcode=$?
		[ "$rcode" = 0 ] || fail "round $n: mcpctl reload exited $rcode: $(cat "$T/reload$n.err" "$T/reload$n.out")"
		out=$(cat "$T/reload$n.out")
		note "round $n: mcpctl reload said: $(tr '\n' '|' <<<"$out")"
		grep -Eq '^changed: change \(restarted\)$' <<<"$out" ||
			fail "round $n: mcpctl reload does not list change as restarted: $out"
		grep -Eq "^added: $added \(started\)\$" <<<"$out" ||
			fail "round $n: mcpctl reload does not list $added as added: $out"
		grep -Eq "^stopped \(removed\): $removed\$" <<<"$out" ||
			fail "round $n: mcpctl reload does not list $removed as removed: $out"
		grep -Eq '^unchanged: 1 server$' <<<"$out" ||
			fail "round $n: mcpctl reload does not count keep as the 1 unchanged server: $out"
		! grep -q keep <<<"$out" || fail "round $n: mcpctl reload names keep: $out"
	else
		before=$(reloads_logged)
		kill -HUP "$MCPD_PID"
		wait_for 30 eval '[ "$(reloads_logged)" -gt '"$before"' ]' ||
			fail "round $n: mcpd logged no reload within 30 s of SIGHUP"
		out=$(grep "reloaded $CFG: " "$MCPD_LOG" | tail -1)
		note "round $n: mcpd logged: $out"
		case "$out" in
		*"reloaded $CFG: 1 changed, 1 added, 1 removed, 1 unchanged"*) ;;
		*) fail "round $n: mcpd logged \"$out\", expected 1 changed, 1 added, 1 removed, 1 unchanged" ;;
		esac
	fi

	# keep, right after the reload: same process, same client, and (if
	# this shell was quick enough to look before it ended) its sleep still
	# in flight.  Its answer coming after the reload is checked below.
	reloaded=$(now_ms)
	snap=$(ctl --json status keep | jq -c '.servers[0]') || fail "mcpctl status keep failed"
	looked=$(( $(now_ms) - sent ))
	[ "$(jq -r .pid <<<"$snap")" = "$KEEP_PID" ] ||
		fail "round $n: keep's pid changed from $KEEP_PID to $(jq -r .pid <<<"$snap")"
	[ "$(proc_starttime "$KEEP_PID")" = "$KEEP_START" ] ||
		fail "round $n: keep's process $KEEP_PID was replaced"
	[ "$(jq -r '"\(.state) \(.restarts) \(.clients)"' <<<"$snap")" = "ready 0 1" ] ||
		fail "round $n: keep after the reload: $snap, expected ready, 0 restarts, 1 client"
	if [ "$looked" -lt $((KEEP_SLEEP_MS - 500)) ]; then
		[ "$(jq -r .inflight <<<"$snap")" = 1 ] ||
			fail "round $n: keep has $(jq -r .inflight <<<"$snap") requests in flight $looked ms into its sleep, after the reload"
	else
		note "round $n: this shell was slow (status read $looked ms into the sleep): in-flight count not checked"
	fi

	# change: its in-flight sleep gets exactly one error, at once after
	# the old process goes (SIGTERM after stop_timeout_ms / 2: about 1 s
	# after the reload; never, if mcpd forgot it, the sleep being 60 s).
	rc '{"op":"wait","conn":"c","id":"\"sleep'"$n"'\"","timeout":30000}' 40
	ms=$(( $(rcv .at) - t0 ))
	[ "$(rcv '.reply.error.code')" = -32000 ] ||
		fail "round $n: change's in-flight sleep got $(rcv '.raw // "nothing"'), expected error -32000"
	msg=$(rcv '.reply.error.message')
	note "round $n: change's in-flight request: -32000 after $ms ms: $msg"
	case "$msg" in *change*) ;; *) fail "round $n: the error does not name the server: $msg" ;; esac
	[ "$ms" -lt $((CHANGE_STOP_MS + SLACK_MS)) ] ||
		fail "round $n: the error came $ms ms after the reload, stop_timeout_ms is $CHANGE_STOP_MS (limit $((CHANGE_STOP_MS + SLACK_MS)) ms)"
	wait_for 30 proc_dead "$change_pid" "$change_start" ||
		fail "round $n: change's old process is still there: $(describe_pid "$change_pid")"
	wait_ready change 30
	new=$(server_pid change) || fail "round $n: change has no pid"
	[ "$new" != "$change_pid" ] || fail "round $n: change kept pid $change_pid"
	[ "$(tr -d '\0' </proc/"$new"/cmdline | grep -c -- "--stderr-noise=$noise")" = 1 ] ||
		fail "round $n: change runs $(tr '\0' ' ' </proc/"$new"/cmdline), not the new --stderr-noise=$noise"
	note "round $n: change restarted: pid $change_pid -> $new"

	# keep's sleep: answered normally after the full time, and the same
	# session serves the next request.
	rc '{"op":"wait","conn":"k","id":"\"sleep'"$n"'\"","timeout":30000}' 40
	[ "$(rcv '.reply.result.content[0].text')" = "slept $KEEP_SLEEP_MS ms" ] ||
		fail "round $n: keep's in-flight sleep got $(rcv '.raw // "nothing"')"
	ms=$(rcv '.ms | floor')
	note "round $n: keep's in-flight sleep of $KEEP_SLEEP_MS ms answered normally after $ms ms, $(( $(rcv .at) - reloaded )) ms after the reload"
	[ "$(rcv .at)" -gt "$reloaded" ] ||
		fail "round $n: keep's sleep was answered $(( reloaded - $(rcv .at) )) ms before the reload was done: the test did not reload while it was in flight"
	[ "$ms" -ge $((KEEP_SLEEP_MS - 100)) ] && [ "$ms" -lt $((KEEP_SLEEP_MS + SLACK_MS)) ] ||
		fail "round $n: keep's sleep of $KEEP_SLEEP_MS ms answered after $ms ms"
	rc_echo k "\"k$n\"" "keep after reload $n"
	[ "$(startlog_count "$T/keep.starts")" = 1 ] ||
		fail "round $n: keep was started $(startlog_count "$T/keep.starts") times"

	# change's client: still attached, works on the new process.
	[ "$(server_field change clients)" = 1 ] ||
		fail "round $n: change has $(server_field change clients) clients after its restart, expected 1"
	rc_echo c "\"c$n\"" "change after reload $n"
	rc '{"op":"replies","conn":"c","id":"\"sleep'"$n"'\""}'
	[ "$(rcv '.replies | length')" = 1 ] ||
		fail "round $n: change's client got $(rcv '.replies | length') answers for its sleep: $(rcv '.replies | tojson')"

	# removed: gone from status, its process ended, its client hung up on.
	rc "{\"op\":\"closed\",\"conn\":\"r$n\",\"timeout\":30000}" 40
	[ "$(rcv .closed)" = true ] ||
		fail "round $n: the client attached to $removed is still connected 30 s after the reload"
	note "round $n: the client attached to $removed was disconnected"
	wait_for 30 proc_dead "$removed_pid" "$removed_start" ||
		fail "round $n: $removed's process is still there: $(describe_pid "$removed_pid")"
	wait_for 30 eval '! ctl status '"$removed"' >/dev/null 2>&1' ||
		fail "round $n: $removed still in status: $(ctl status "$removed" 2>&1)"

	# added: started and ready.
	wait_ready "$added" 30
	[ "$(startlog_count "$T/$added.starts")" = 1 ] ||
		fail "round $n: $added started $(startlog_count "$T/$added.starts") times"
	[ "$(server_names)" = "$(printf '%s\n' keep change "$added" | sort | paste -sd,)" ] ||
		fail "round $n: servers after reload: $(server_names)"
}

round 1 ctl remove add 2
rc '{"op":"attach","conn":"r2","server":"add"}'
round 2 hup add extra 3

# --- a config with three errors: nothing changes ---------------------------------
BEFORE_PIDS=$(pids_line)
BEFORE_NAMES=$(server_names)
GOOD=$(cat "$CFG")
write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE", "request_timeout_ms": "soon"},
    "change": {"command": "$MCP_FAKE", "args": 5},
    "newcomer": {"args": []},
    $(plain_json extra)
  }
}
JSON
# Long enough to be seen in flight however slow this shell is.
rc_tool send k '"busy"' sleep '{"ms": 4000}'
wait_for 30 inflight_is keep 1 || fail "keep's sleep is not in flight"
ctl reload >"$T/bad.out" 2>"$T/bad.err"
rcode=$?
[ "$rcode" = 1 ] || fail "mcpctl reload of a config with 3 errors exited $rcode: $(cat "$T/bad.err")"
note "mcpctl reload of a bad config (exit 1): $(tr '\n' '|' <"$T/bad.err")"
for path in mcpServers.keep.request_timeout_ms mcpServers.change.args mcpServers.newcomer.command; do
	grep -q "$path: " "$T/bad.err" || fail "mcpctl reload does not report the error at $path: $(cat "$T/bad.err")"
done
[ "$(grep -c 'mcpServers\.' "$T/bad.err")" = 3 ] ||
	fail "mcpctl reload printed $(grep -c 'mcpServers\.' "$T/bad.err") errors, expected 3: $(cat "$T/bad.err")"
ctl --json reload >"$T/bad.json" 2>/dev/null
rcode=$?
[ "$rcode" = 1 ] || fail "mcpctl --json reload of a bad config exited $rcode"
[ "$(jq '.errors | length' "$T/bad.json" 2>/dev/null)" = 3 ] ||
	fail "mcpctl --json reload of a bad config: $(head -c 1000 "$T/bad.json")"
[ "$(pids_line)" = "$BEFORE_PIDS" ] || fail "a failed reload changed the servers: $BEFORE_PIDS -> $(pids_line)"
[ "$(server_names)" = "$BEFORE_NAMES" ] || fail "a failed reload changed the servers: $BEFORE_NAMES -> $(server_names)"
rc '{"op":"wait","conn":"k","id":"\"busy\"","timeout":30000}' 40
[ "$(rcv '.reply.result.content[0].text')" = "slept 4000 ms" ] ||
	fail "keep's sleep during a failed reload got $(rcv '.raw // "nothing"')"

# The same file by SIGHUP: logged, mcpd keeps running, nothing changes.
before=$(reload_failures_logged)
kill -HUP "$MCPD_PID"
wait_for 30 eval '[ "$(reload_failures_logged)" -gt '"$before"' ]' ||
	fail "mcpd logged no failed reload within 30 s of SIGHUP with a bad file"
grep -q "reload of $CFG failed with 3 errors" "$MCPD_LOG" ||
	fail "mcpd did not log 3 errors: $(grep "reload of $CFG failed" "$MCPD_LOG" | tail -1)"
for path in mcpServers.keep.request_timeout_ms mcpServers.change.args mcpServers.newcomer.command; do
	[ "$(grep -c "reload: $path: " "$MCPD_LOG")" -ge 3 ] ||
		fail "the error at $path is not in the mcpd log for each of the 3 failed reloads: $(grep "reload: " "$MCPD_LOG")"
done
# A window: mcpd dying or a server going after the failed reload would
# show within it (they follow at once, in ms); longer adds nothing.
sleep 0.3
mcpd_running || fail "mcpd died on SIGHUP with a bad file"
[ "$(pids_line)" = "$BEFORE_PIDS" ] || fail "SIGHUP with a bad file changed the servers: $BEFORE_PIDS -> $(pids_line)"
[ "$(server_names)" = "$BEFORE_NAMES" ] || fail "SIGHUP with a bad file changed the servers: $(server_names)"

# --- a group-writable file is refused ---------------------------------------------
write_config "$CFG" <<JSON
{"mcpServers": {$(plain_json lonely)}}
JSON
chmod 0620 "$CFG"
ctl reload >"$T/perm.out" 2>"$T/perm.err"
rcode=$?
[ "$rcode" = 1 ] || fail "mcpctl reload of a group-writable file exited $rcode: $(cat "$T/perm.out" "$T/perm.err")"
grep -q "group- or world-writable" "$T/perm.err" ||
	fail "mcpctl reload of a group-writable file does not say why: $(cat "$T/perm.err")"
note "group-writable: $(tr '\n' '|' <"$T/perm.err")"
before=$(reload_failures_logged)
kill -HUP "$MCPD_PID"
wait_for 30 eval '[ "$(reload_failures_logged)" -gt '"$before"' ]' ||
	fail "mcpd logged no failed reload after SIGHUP with a group-writable file"
sleep 0.3	# a window, as above
[ "$(pids_line)" = "$BEFORE_PIDS" ] || fail "a group-writable file changed the servers: $(pids_line)"

# The good file again (mode 0600): still nothing to change.
write_config_raw "$CFG" "$GOOD"
ctl reload >"$T/same.out" 2>&1 || fail "mcpctl reload of the running config failed: $(cat "$T/same.out")"
grep -q '^unchanged: 3 servers$' "$T/same.out" || fail "reload of the same config: $(cat "$T/same.out")"
[ "$(pids_line)" = "$BEFORE_PIDS" ] || fail "reloading the same config changed pids: $(pids_line)"
rc_echo k '"kend"' "keep at the end"
rc_echo c '"cend"' "change at the end"
[ "$(server_pid keep)" = "$KEEP_PID" ] || fail "keep's pid changed"
note "keep (pid $KEEP_PID) served its client through 2 reloads and 5 refused ones"

# --- added servers that wait for clients: the reload says so --------------------
# A per-client and a per-roots server, an on-demand one and a disabled
# one start no process when a reload adds them, and the report says what
# each does instead (a per-client one used to be reported "started").
jq --arg fake "$MCP_FAKE" '.mcpServers += {
	tab: {command: $fake, share: "per-client"},
	proj: {command: $fake, share: "per-roots", start: "on-demand"},
	lazy: {command: $fake, start: "on-demand"},
	off: {command: $fake, disabled: true}}' <<<"$GOOD" |
	write_config "$CFG"
ctl reload >"$T/waiting.out" 2>&1 || fail "mcpctl reload adding waiting servers failed: $(cat "$T/waiting.out")"
note "waiting servers added: $(tr '\n' '|' <"$T/waiting.out")"
for want in 'tab (idle, each client gets an instance of its own)' \
	'proj (idle, each set of client roots gets an instance of its own)' \
	'lazy (idle, starts with its first client)' 'off (disabled)'; do
	grep -qxF "added: $want" "$T/waiting.out" ||
		fail "mcpctl reload does not say 'added: $want': $(cat "$T/waiting.out")"
done
! grep -q started "$T/waiting.out" ||
	fail "mcpctl reload says a server that waits was started: $(cat "$T/waiting.out")"
out=$(status_json)
jq -e '[.servers[] | select(.name == "tab" or .name == "proj" or
	.name == "lazy" or .name == "off") | select(.pid == null)] | length == 4' \
	<<<"$out" >/dev/null || fail "a server added to wait has a process: $out"
# A per-client server changed while none of its instances runs: idle.
jq --arg fake "$MCP_FAKE" '.mcpServers.tab.args = ["--stderr-noise=1"]' \
	<"$CFG" | write_config "$CFG"
ctl reload >"$T/tab.out" 2>&1 || fail "mcpctl reload changing tab failed: $(cat "$T/tab.out")"
grep -qxF 'changed: tab (idle)' "$T/tab.out" ||
	fail "mcpctl reload of tab without instances: $(cat "$T/tab.out")"
rc_stop

mcpd_running || fail "mcpd died"
exit 0
