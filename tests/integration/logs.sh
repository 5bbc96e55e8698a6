#!/bin/bash
# logs.sh -- `mcpctl logs NAME [-n N] [-f]`: a server's recent stderr with
# timestamps, the last N lines exactly, JSON lines with --json; -f prints
# new lines as the server writes them (also across a restart) and ends when
# the server is removed by a reload; an unknown server is exit 1.

# shellcheck source=reload-lib.sh
. "$TESTS_SRCDIR/integration/reload-lib.sh"

NOISE=30
CFG=$T/mcpd.json
write_config "$CFG" <<JSON
{
  "mcpServers": {
    "noisy": {"command": "$MCP_FAKE", "args": ["--stderr-noise=$NOISE", "--pidfile=$T/noisy.pid"]},
    "quiet": {"command": "$MCP_FAKE"}
  }
}
JSON
T_START_US=$(( ${EPOCHREALTIME/[.,]/} ))
start_mcpd "$CFG"
wait_ready noisy
wait_ready quiet
PID=$(server_pid noisy) || fail "noisy has no pid"
# "mcp-fake: started pid N" and the noise lines.
wait_for 30 eval '[ "$(jq -r .stats.stderr_lines <<<"$(ctl --json status noisy | jq ".servers[0]")")" -ge $((NOISE + 1)) ]' ||
	fail "noisy's stderr lines did not all arrive: $(server_field noisy stats)"

# run NAME ARGS...: mcpctl ARGS, stdout and stderr in $T/NAME.out and
# $T/NAME.err; sets RC.
run() {
	local name=$1
	shift
	timeout -k 5 30 "$MCPCTL" -s "$SOCK" "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	RC=$?
}

TS_RE='^[A-Z][a-z]{2} [ 0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] '

# --- everything so far, with timestamps ------------------------------------------
run all logs noisy
[ "$RC" = 0 ] || fail "mcpctl logs noisy exited $RC: $(cat "$T/all.err")"
n=$(wc -l <"$T/all.out")
[ "$n" = $((NOISE + 1)) ] || fail "mcpctl logs noisy printed $n lines, expected $((NOISE + 1)): $(head -c 2000 "$T/all.out")"
bad=$(grep -Evc "$TS_RE" "$T/all.out")
[ "$bad" = 0 ] || fail "$bad lines without a timestamp: $(grep -Ev "$TS_RE" "$T/all.out" | head -3)"
sed -E "s/$TS_RE//" "$T/all.out" >"$T/all.text"
{
	echo "mcp-fake: started pid $PID"
	for i in $(seq 1 "$NOISE"); do echo "noise line $i"; done
} >"$T/all.want"
cmp -s "$T/all.text" "$T/all.want" ||
	fail "mcpctl logs noisy, without timestamps, differs from what it wrote: $(diff "$T/all.want" "$T/all.text" | head -10)"
note "mcpctl logs noisy: $n lines, first: $(head -1 "$T/all.out")"

# --- -n N: exactly the last N ---------------------------------------------------------
for args in "-n 5" "--lines 5" "-n5"; do
	# shellcheck disable=SC2086
	run last logs noisy $args
	[ "$RC" = 0 ] || fail "mcpctl logs noisy $args exited $RC: $(cat "$T/last.err")"
	sed -E "s/$TS_RE//" "$T/last.out" >"$T/last.text"
	[ "$(cat "$T/last.text")" = "$(tail -5 "$T/all.want")" ] ||
		fail "mcpctl logs noisy $args printed: $(cat "$T/last.out")"
done
run first logs -n 1 noisy
[ "$(sed -E "s/$TS_RE//" "$T/first.out")" = "noise line $NOISE" ] ||
	fail "mcpctl logs -n 1 noisy printed: $(cat "$T/first.out")"
run none logs noisy -n 0
[ "$RC" = 0 ] && [ ! -s "$T/none.out" ] || fail "mcpctl logs noisy -n 0 exited $RC and printed: $(cat "$T/none.out")"
run more logs noisy -n 1000
[ "$(wc -l <"$T/more.out")" = $((NOISE + 1)) ] || fail "mcpctl logs noisy -n 1000 printed $(wc -l <"$T/more.out") lines"
run quiet logs quiet
[ "$RC" = 0 ] || fail "mcpctl logs quiet exited $RC"
[ "$(sed -E "s/$TS_RE//" "$T/quiet.out")" = "mcp-fake: started pid $(server_pid quiet)" ] ||
	fail "mcpctl logs quiet printed: $(cat "$T/quiet.out")"

# --- --json: one object per line: seq, time_us, text ----------------------------------
for form in "--json logs noisy" "logs noisy --json"; do
	# shellcheck disable=SC2086
	run json $form
	[ "$RC" = 0 ] || fail "mcpctl $form exited $RC: $(cat "$T/json.err")"
	jq -e . "$T/json.out" >/dev/null 2>&1 || fail "mcpctl $form is not JSON: $(head -c 500 "$T/json.out")"
	[ "$(jq -s length "$T/json.out")" = $((NOISE + 1)) ] ||
		fail "mcpctl $form printed $(jq -s length "$T/json.out") objects"
	[ "$(jq -r .text "$T/json.out")" = "$(cat "$T/all.want")" ] ||
		fail "mcpctl $form: texts differ from what the server wrote"
	now_us=$(( ${EPOCHREALTIME/[.,]/} ))
	jq -se --argjson t0 "$T_START_US" --argjson t1 "$now_us" '
		all(.[]; (.seq | type) == "number" and (.time_us | type) == "number" and
			(.text | type) == "string" and (keys - ["seq", "server", "text", "time_us"]) == [] and
			.time_us >= $t0 - 1000000 and .time_us <= $t1 + 1000000) and
		([.[].seq] == [range(.[0].seq; .[0].seq + length)]) and
		([.[].time_us] == ([.[].time_us] | sort))' "$T/json.out" >/dev/null ||
		fail "mcpctl $form: bad fields, seq not consecutive, or time_us not the time the line was written: $(head -3 "$T/json.out")"
done
run json5 --json logs noisy -n 5
[ "$(jq -r .text "$T/json5.out")" = "$(tail -5 "$T/all.want")" ] || fail "mcpctl --json logs noisy -n 5: $(cat "$T/json5.out")"
last_seq=$(jq -s '.[-1].seq' "$T/json5.out")

# --- errors ------------------------------------------------------------------------------
run unknown logs no-such-server
[ "$RC" = 1 ] || fail "mcpctl logs no-such-server exited $RC, expected 1"
grep -q no-such-server "$T/unknown.err" || fail "mcpctl logs no-such-server does not name it: $(cat "$T/unknown.err")"
run unknown logs -f no-such-server
[ "$RC" = 1 ] || fail "mcpctl logs -f no-such-server exited $RC, expected 1"
for args in "-n abc" "-n -3" "-n 1.5" "-n"; do
	# shellcheck disable=SC2086
	run usage logs noisy $args
	[ "$RC" = 2 ] || fail "mcpctl logs noisy $args exited $RC, expected 2 (usage)"
	[ -s "$T/usage.err" ] || fail "mcpctl logs noisy $args: no message"
done
run usage logs
[ "$RC" = 2 ] || fail "mcpctl logs without a name exited $RC, expected 2 (usage)"
run usage logs noisy quiet
[ "$RC" = 2 ] || fail "mcpctl logs with two names exited $RC, expected 2 (usage)"

# --- -f: new lines as they come ------------------------------------------------------
# follow NAME ARGS...: `mcpctl logs -f` in the background, to $T/NAME.out;
# its pid in FOLLOW_PID.  Marked, so the cleanup ends it.
follow() {
	local name=$1
	shift
	MCPD_TEST_DIR=$T "$MCPCTL" -s "$SOCK" logs -f "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null &
	FOLLOW_PID=$!
}

# Each follower shows one old line first: once it is there, the follow is
# registered (mcpd answers, then subscribes, in one step).
follow f1 noisy -n 1
F1=$FOLLOW_PID
follow f2 --json noisy -n 1
F2=$FOLLOW_PID
follow fq quiet -n 1
FQ=$FOLLOW_PID
wait_for 30 eval '[ -s "$T/f1.out" ] && [ -s "$T/f2.out" ] && [ -s "$T/fq.out" ]' ||
	fail "the followers printed nothing within 30 s: $(cat "$T/f1.err" "$T/f2.err" "$T/fq.err")"
[ "$(sed -E "s/$TS_RE//" "$T/f1.out")" = "noise line $NOISE" ] || fail "mcpctl logs -f noisy -n 1 began with: $(cat "$T/f1.out")"
[ "$(jq -r .seq "$T/f2.out")" = "$last_seq" ] || fail "mcpctl --json logs -f noisy -n 1 began with: $(cat "$T/f2.out")"

rc_start
rc '{"op":"attach","conn":"a","server":"noisy"}'
t0=$(now_ms)
rc_tool call a 1 stderr '{"lines": 3}'
[ "$(rcv '.reply.result.content[0].text')" = "wrote 3 lines to stderr" ] || fail "stderr tool: $(rcv .raw)"
has_lines() {
	local f=$1
	shift
	for l; do grep -qF -- "$l" "$f" || return 1; done
}
wait_for 30 has_lines "$T/f1.out" "mcp-fake: stderr line 1 of 3" "mcp-fake: stderr line 2 of 3" "mcp-fake: stderr line 3 of 3" ||
	fail "the follower did not show the 3 new lines within 30 s: $(cat "$T/f1.out")"
ms=$(( $(now_ms) - t0 ))
note "mcpctl logs -f: 3 new stderr lines shown $ms ms after the tool call was sent"
[ "$(wc -l <"$T/f1.out")" = 4 ] || fail "the follower printed $(wc -l <"$T/f1.out") lines, expected 1 + 3: $(cat "$T/f1.out")"
grep -Evq "$TS_RE" "$T/f1.out" && fail "followed lines without a timestamp: $(cat "$T/f1.out")"

# A restart: the same follower sees the new process start.
ctl restart noisy >/dev/null 2>&1 || fail "mcpctl restart noisy failed"
NEWPID=$(server_pid noisy) || fail "noisy has no pid after the restart"
[ "$NEWPID" != "$PID" ] || fail "restart kept pid $PID"
t0=$(now_ms)
wait_for 30 has_lines "$T/f1.out" "mcp-fake: started pid $NEWPID" "noise line $NOISE" ||
	fail "the follower did not show the restarted server's lines within 30 s: $(tail -5 "$T/f1.out")"
note "mcpctl logs -f: the restarted server (pid $NEWPID) shown within $(( $(now_ms) - t0 )) ms of ready"
want=$((1 + 3 + 1 + NOISE))
wait_for 30 eval '[ "$(wc -l <"$T/f1.out")" -ge '"$want"' ]'
[ "$(wc -l <"$T/f1.out")" = "$want" ] || fail "the follower printed $(wc -l <"$T/f1.out") lines, expected $want"
{
	echo "noise line $NOISE"
	for i in 1 2 3; do echo "mcp-fake: stderr line $i of 3"; done
	echo "mcp-fake: started pid $NEWPID"
	for i in $(seq 1 "$NOISE"); do echo "noise line $i"; done
} >"$T/f1.want"
sed -E "s/$TS_RE//" "$T/f1.out" | cmp -s - "$T/f1.want" ||
	fail "the follower's lines differ: $(sed -E "s/$TS_RE//" "$T/f1.out" | diff "$T/f1.want" - | head)"

# The JSON follower: the same lines, one object each, seq without gaps.
wait_for 30 eval '[ "$(wc -l <"$T/f2.out")" -ge '"$want"' ]' ||
	fail "the --json follower printed $(wc -l <"$T/f2.out") lines, expected $want"
jq -e . "$T/f2.out" >/dev/null 2>&1 || fail "mcpctl --json logs -f printed something that is not JSON: $(head -c 500 "$T/f2.out")"
[ "$(jq -r .text "$T/f2.out")" = "$(cat "$T/f1.want")" ] || fail "the --json follower's texts differ: $(jq -r .text "$T/f2.out" | head -5)"
jq -se '[.[].seq] == [range(.[0].seq; .[0].seq + length)] and all(.[]; (.time_us | type) == "number")' "$T/f2.out" >/dev/null ||
	fail "the --json follower's seq numbers have gaps: $(jq -sc '[.[].seq]' "$T/f2.out")"

# The follower of the quiet server saw none of it.
[ "$(wc -l <"$T/fq.out")" = 1 ] || fail "the follower of quiet got noisy's lines: $(cat "$T/fq.out")"
pid_running "$F1" && pid_running "$F2" && pid_running "$FQ" || fail "a follower ended early: $(cat "$T/f1.err" "$T/f2.err" "$T/fq.err")"

# --- a reload that removes the server ends its followers ---------------------------------------
rc_stop
write_config "$CFG" <<JSON
{"mcpServers": {"quiet": {"command": "$MCP_FAKE"}}}
JSON
ctl reload >"$T/reload.out" 2>&1 || fail "mcpctl reload failed: $(cat "$T/reload.out")"
t0=$(now_ms)
wait_for 30 eval '! pid_running '"$F1"' && ! pid_running '"$F2" ||
	fail "mcpctl logs -f noisy still running 30 s after noisy was removed"
wait "$F1"
rc1=$?
wait "$F2"
rc2=$?
note "the followers of the removed server exited $rc1 and $rc2 within $(( $(now_ms) - t0 )) ms: $(tr '\n' '|' <"$T/f1.err")"
for r in "$rc1" "$rc2"; do
	[ "$r" = 0 ] || [ "$r" = 1 ] || fail "a follower of the removed server exited $r: $(cat "$T/f1.err" "$T/f2.err")"
done
pid_running "$FQ" || fail "the follower of quiet ended when noisy was removed: $(cat "$T/fq.err")"
run gone logs noisy
[ "$RC" = 1 ] || fail "mcpctl logs of a removed server exited $RC, expected 1"

# mcpd going away ends a follower too.
stop_mcpd TERM
wait_for 30 eval '! pid_running '"$FQ" || fail "mcpctl logs -f quiet still running 30 s after mcpd exited"
wait "$FQ"
note "the follower of quiet exited $? when mcpd stopped: $(tr '\n' '|' <"$T/fq.err")"
exit 0
