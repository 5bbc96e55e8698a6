#!/bin/bash
# cli-add.sh -- mcpctl add and remove on the file the running mcpd reads
# (mcpd on -c FILE; mcpctl given no --config):
#
# - without a terminal and without --yes nothing is written (exit 1), and
#   --dry-run writes nothing either;
# - `mcpctl add fs --env K=V --cwd DIR -- COMMAND ARGS` inserts exactly
#   the entry (with "sandbox": "default"): the file as jq reads it is
#   the old one plus "fs", and
#   every byte of the old file is kept around the inserted span, its
#   formatting included; the old file is kept as FILE.bak; the diff
#   shows the env values as [redacted] and never the secrets themselves;
#   mcpd reloads, runs fs in DIR with the env, and `mcpctl tools fs`
#   answers;
# - `mcpctl add docs --url URL --header K=V` writes a remote entry that
#   mcpd's status shows with its url (a URL nobody answers: the entry is
#   what is checked);
# - a name a server or a group has is refused, the file unchanged;
# - `mcpctl remove` takes each out again: the file is back byte for
#   byte, mcpd stops the server; a server a group lists, a group and an
#   unknown name are refused;
# - a file changed between the diff and the answer on the terminal is
#   not overwritten.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

CFG=$T/mcpd.json
mkdir -p "$T/work" "$T/starts" || hard_error "mkdir $T/work"
# Odd indentation, a group and mcpd's own settings: all of it must stay.
write_config_raw "$CFG" <<JSON
{
    "mcpServers": {
        "keep": {
            "command": "$MCP_FAKE",
            "env": {"MCPD_TEST_DIR": "$T", "KEEP_TOKEN": "keep-secret-1"}
        }
    },
    "groups": { "dev": { "servers": ["keep"] } },
    "mcpd": { "stop_timeout_ms": 3000 }
}
JSON
cp "$CFG" "$T/orig.json"

start_mcpd "$CFG"
wait_ready keep

# run NAME ARGS...: mcpctl ARGS without a terminal, output in
# $T/NAME.out; RC.
run() {
	local name=$1
	shift
	ctl "$@" >"$T/$name.out" 2>&1 </dev/null
	RC=$?
}

# unchanged WHAT: the file is still the original, and no backup was made.
unchanged() {
	cmp -s "$CFG" "$T/orig.json" || fail "$1 changed $CFG: $(cat "$CFG")"
	[ ! -e "$CFG.bak" ] || fail "$1 made a backup"
}

ADD_FS=(add fs --env "MCPD_TEST_DIR=$T" --env FS_TOKEN=fs-secret-2
	--cwd "$T/work" -- "$MCP_FAKE" "--startlog=$T/starts/fs.starts")

# --- no terminal, no --yes; a dry run ------------------------------------------
run noyes "${ADD_FS[@]}"
[ "$RC" = 1 ] || fail "add without --yes and a terminal exited $RC: $(cat "$T/noyes.out")"
grep -q 'rerun with --yes' "$T/noyes.out" || fail "no hint to use --yes: $(cat "$T/noyes.out")"
unchanged "add without --yes"
run dry "${ADD_FS[@]::2}" --dry-run "${ADD_FS[@]:2}"
[ "$RC" = 0 ] || fail "add --dry-run exited $RC: $(cat "$T/dry.out")"
grep -q '^+        "fs": {' "$T/dry.out" || fail "the dry run shows no diff: $(cat "$T/dry.out")"
unchanged "add --dry-run"

# --- add a stdio server -------------------------------------------------------------
run add "${ADD_FS[@]::2}" --yes "${ADD_FS[@]:2}"
[ "$RC" = 0 ] || fail "add --yes exited $RC: $(cat "$T/add.out")"
grep -qF "editing $CFG (the file the running mcpd reads, pid $MCPD_PID)" "$T/add.out" ||
	fail "add does not name the running mcpd's file: $(cat "$T/add.out")"
cmp -s "$CFG.bak" "$T/orig.json" || fail "$CFG.bak is not the old file"
# The diff: the new env value redacted, the old server's too (context).
grep -q '^+              *"FS_TOKEN": "\[redacted\]"' "$T/add.out" ||
	fail "the diff does not show FS_TOKEN redacted: $(cat "$T/add.out")"
! grep -q 'secret' "$T/add.out" || fail "add printed a secret: $(cat "$T/add.out")"
grep -q 'KEEP_TOKEN": "\[redacted\]"' "$T/add.out" ||
	fail "the diff's context shows keep's env: $(cat "$T/add.out")"
# The file as jq reads it: the old one, plus exactly the entry.
jq -S 'del(.mcpServers.fs)' "$CFG" >"$T/without.json" || fail "$CFG is no JSON: $(cat "$CFG")"
jq -S . "$T/orig.json" >"$T/orig.norm" || hard_error "jq $T/orig.json"
cmp -s "$T/without.json" "$T/orig.norm" || fail "add changed more than fs: $(cat "$CFG")"
jq -e --arg fake "$MCP_FAKE" --arg t "$T" '.mcpServers.fs == {
	"command": $fake, "args": ["--startlog=\($t)/starts/fs.starts"],
	"env": {"MCPD_TEST_DIR": $t, "FS_TOKEN": "fs-secret-2"},
	"cwd": "\($t)/work", "sandbox": "default"}' "$CFG" >/dev/null ||
	fail "the fs entry: $(cat "$CFG")"
[ "$(jq -r '.mcpServers | keys_unsorted | join(" ")' "$CFG")" = "keep fs" ] ||
	fail "fs is not after keep: $(cat "$CFG")"

# Byte for byte: the old file is a prefix and a suffix of the new one
# around one inserted span, which holds the entry.
old=$(cat "$T/orig.json"; printf .)
new=$(cat "$CFG"; printf .)
p=0
while [ "$p" -lt "${#old}" ] && [ "${old:p:1}" = "${new:p:1}" ]; do
	p=$((p + 1))
done
s=0
while [ "$s" -lt $((${#old} - p)) ] &&
	[ "${old:${#old}-1-s:1}" = "${new:${#new}-1-s:1}" ]; do
	s=$((s + 1))
done
[ $((p + s)) = "${#old}" ] ||
	fail "add changed bytes of the old file (kept $p at the start, $s at the end of ${#old})"
span=${new:p:${#new}-p-s}
case $span in
,*'"fs": {'*'"cwd": '*'}') ;;
*) fail "the inserted span is not the entry: '$span'" ;;
esac
note "add inserted ${#span} bytes at byte $p of ${#old}, every other byte kept"

# mcpd reloaded and runs fs, in its directory, with its environment.
grep -q '^added: fs' "$T/add.out" || fail "no reload adding fs: $(cat "$T/add.out")"
wait_ready fs
pid=$(server_pid fs) || fail "fs has no pid"
[ "$(readlink "/proc/$pid/cwd")" = "$T/work" ] ||
	fail "fs runs in $(readlink "/proc/$pid/cwd"), not $T/work"
grep -qzx 'FS_TOKEN=fs-secret-2' "/proc/$pid/environ" || fail "fs lacks FS_TOKEN"
ctl tools fs >"$T/tools.out" 2>&1 || fail "mcpctl tools fs exited $?: $(cat "$T/tools.out")"
grep -qw echo "$T/tools.out" || fail "fs lists no echo tool: $(cat "$T/tools.out")"
cp "$CFG" "$T/with-fs.json"

# --- names taken -----------------------------------------------------------------------
for taken in keep:'there is a server named keep already' \
	dev:'dev is the name of a group' all:'built-in group'; do
	run clash add "${taken%%:*}" --yes -- "$MCP_FAKE"
	[ "$RC" = 1 ] || fail "add ${taken%%:*} exited $RC: $(cat "$T/clash.out")"
	grep -qF "${taken#*:}" "$T/clash.out" ||
		fail "add ${taken%%:*}: no clear refusal: $(cat "$T/clash.out")"
	cmp -s "$CFG" "$T/with-fs.json" || fail "a refused add ${taken%%:*} changed $CFG"
done
run badname add 'no/slash' --yes -- "$MCP_FAKE"
[ "$RC" = 2 ] && grep -q 'not a valid name' "$T/badname.out" ||
	fail "add of an invalid name: $RC $(cat "$T/badname.out")"

# --- a remote server ---------------------------------------------------------------------
URL=http://127.0.0.1:9/mcp
run url add docs --yes --url "$URL" --header 'Authorization=Bearer hdr-secret-3'
[ "$RC" = 0 ] || fail "add --url exited $RC: $(cat "$T/url.out")"
jq -e --arg url "$URL" '.mcpServers.docs == {"url": $url,
	"headers": {"Authorization": "Bearer hdr-secret-3"}}' "$CFG" >/dev/null ||
	fail "the docs entry: $(cat "$CFG")"
! grep -q 'secret' "$T/url.out" || fail "add --url printed a secret: $(cat "$T/url.out")"
grep -q '"Authorization": "\[redacted\]"' "$T/url.out" ||
	fail "the diff does not show the header redacted: $(cat "$T/url.out")"
[ "$(server_field docs url)" = "$URL" ] ||
	fail "status shows docs with url '$(server_field docs url)'"

# --- remove -----------------------------------------------------------------------------
run rmdocs remove docs --yes
[ "$RC" = 0 ] || fail "remove docs exited $RC: $(cat "$T/rmdocs.out")"
cmp "$CFG" "$T/with-fs.json" || fail "remove docs did not restore the file byte for byte"
run rmfs remove fs --yes
[ "$RC" = 0 ] || fail "remove fs exited $RC: $(cat "$T/rmfs.out")"
cmp "$CFG" "$T/orig.json" || fail "remove fs did not restore the file byte for byte"
cmp -s "$CFG.bak" "$T/with-fs.json" || fail "remove kept no backup of the file it changed"
! grep -q 'secret' "$T/rmfs.out" || fail "remove printed a secret: $(cat "$T/rmfs.out")"
grep -q '^-  *"FS_TOKEN": "\[redacted\]"' "$T/rmfs.out" ||
	fail "remove's diff does not show FS_TOKEN redacted: $(cat "$T/rmfs.out")"
grep -q '^stopped (removed): fs' "$T/rmfs.out" || fail "no reload removing fs: $(cat "$T/rmfs.out")"
wait_for 30 eval '! server_field fs state >/dev/null 2>&1' || fail "mcpd still has fs"

for refused in nope:'there is no server named nope' \
	keep:'keep is a member of the group dev' dev:'dev is a group, not a server'; do
	run rm remove "${refused%%:*}" --yes
	[ "$RC" = 1 ] || fail "remove ${refused%%:*} exited $RC: $(cat "$T/rm.out")"
	grep -qF "${refused#*:}" "$T/rm.out" ||
		fail "remove ${refused%%:*}: no clear refusal: $(cat "$T/rm.out")"
	cmp -s "$CFG" "$T/orig.json" || fail "a refused remove ${refused%%:*} changed $CFG"
done

# --- a file changed between the diff and the answer ---------------------------------------
if command -v script >/dev/null 2>&1; then
	mkfifo "$T/answer"
	# The answer's side stays open until mcpctl is done (script(1) ends
	# the session when its input ends).
	(
		wait_for 60 grep -q 'Write this to' "$T/tty.out" || exit 1
		printf '\n' >>"$CFG"
		cp "$CFG" "$T/changed.json"
		printf 'y\n'
		wait_for 90 test -e "$T/tty.done"
	) >"$T/answer" &
	answerer=$!
	timeout -k 5 60 script -qfec "'$MCPCTL' -s '$SOCK' add late --env 'MCPD_TEST_DIR=$T' -- '$MCP_FAKE'" \
		"$T/tty.out" <"$T/answer" >/dev/null 2>&1
	rc=$?
	touch "$T/tty.done"
	wait "$answerer" || fail "the question never came: $(cat "$T/tty.out")"
	[ "$rc" = 1 ] || fail "add to a file changed meanwhile exited $rc: $(cat "$T/tty.out")"
	grep -q 'changed since it was read; nothing written' "$T/tty.out" ||
		fail "no refusal: $(cat "$T/tty.out")"
	cmp -s "$CFG" "$T/changed.json" || fail "the changed file was overwritten"
else
	note "no script(1): the file changed meanwhile is not tried"
fi

stop_mcpd
echo "PASS: $TEST_NAME"
