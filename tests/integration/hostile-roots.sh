#!/bin/bash
# hostile-roots.sh -- another local user cannot choose what a server
# reaches.  A member of socket_group (nobody) attaches to a per-roots
# server-filesystem (npm) and answers mcpd's roots/list with directories
# of its choosing; the server runs as mcpd's user.
#
#   A  mcpd as root; the server's roots are $T/pub, its member_roots
#      $T/shared.
#      1  the member gives file://$T/secret (root's, 0700): the server is
#         given the configured $T/pub instead, and reading the secret file
#         is refused.  (It used to be given $T/secret and read the file.)
#      2  the member gives four spellings: $T/shared/../secret,
#         "localhost" with dot segments, an encoded '/' and a directory
#         within member_roots: only the last is kept, as a plain URI; the
#         secret is refused, the shared file read.
#      3  root, an administrator, still chooses any root: file://$T/secret
#         is its server's, and it reads the file.
#   B  mcpd as the user daemon, as the shipped unit's DynamicUser runs it
#      (the state and sign-in tokens it keeps are its own): the member
#      gives the directory holding daemon's token file; the server is given
#      the configured root and the token stays unread.
# The paths each server allows are printed.  Needs root and node.

# npm ci may be slow (remote_setup), and the servers start under load.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-600}
# shellcheck source=member-lib.sh
. "$TESTS_SRCDIR/integration/member-lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
remote_setup
FILESYSTEM=$MODS/server-filesystem/dist/index.js
[ -f "$FILESYSTEM" ] || hard_error "$FILESYSTEM is missing (npm ci in tests/interop)"

mkdir "$T/secret" "$T/pub" "$T/shared" "$T/shared/proj" ||
	hard_error "cannot create the directories"
# Real paths: what the server reports, and what mcpd compares.
TR=$(realpath "$T") || hard_error "realpath $T failed"
SECRET=$TR/secret
PUB=$TR/pub
SHARED=$TR/shared
PROJ=$SHARED/proj
echo "root-only content" >"$SECRET/adv-secret.txt"
chmod 0700 "$SECRET"
chmod 0600 "$SECRET/adv-secret.txt"
echo "public" >"$PUB/pub.txt"
echo "shared project" >"$PROJ/proj.txt"
chmod -R go+rX "$PUB" "$T/shared"
"${as_member[@]}" cat "$SECRET/adv-secret.txt" >/dev/null 2>&1 &&
	hard_error "nobody can read $SECRET/adv-secret.txt itself"

# fs_config ROOT [MEMBER_ROOT...]: a per-roots server-filesystem without
# directories of its own, with roots [ROOT] and member_roots.
fs_config() {
	local root=$1
	shift
	jq -n --arg node "$NODE" --arg fs "$FILESYSTEM" --arg t "$T" \
		--arg root "$root" '$ARGS.positional as $m | {
		mcpd: { socket_group: "nogroup", init_timeout_ms: 60000 },
		mcpServers: { fs: ({ command: $node, args: [$fs], cwd: $t,
			env: { MCPD_TEST_DIR: $t }, share: "per-roots",
			roots: [$root] } + (if ($m | length) > 0
			then { member_roots: $m } else {} end)) } }' \
		--args "$@" | sed 's/\$/$$/g'
}

NEXT_ID=10
# allowed NAME: the directories client NAME's server allows, one a line,
# once it has been given any (it asks for them after initialize).
allowed() {
	local out dirs deadline
	deadline=$(($(now_ms) + 60000))
	while [ "$(now_ms)" -lt "$deadline" ]; do
		NEXT_ID=$((NEXT_ID + 1))
		out=$(rpc_call "$1" "$NEXT_ID" tools/call \
			'{"name":"list_allowed_directories","arguments":{}}') ||
			fail "client $1: no answer to list_allowed_directories: $(cat "$T/$1.err")"
		dirs=$(jq -r '.result.content[0].text // empty' <<<"$out" | grep '^/')
		if [ -n "$dirs" ]; then
			printf '%s\n' "$dirs"
			return 0
		fi
		sleep 0.2
	done
	fail "client $1: its server allows no directory after 60 s: $out"
}

# given NAME WANT WHAT: client NAME's server allows WANT alone (WHAT:
# which roots, for the message).
given() {
	local dirs
	dirs=$(allowed "$1") || exit 1
	[ "$dirs" = "$2" ] ||
		fail "$3 gave its server the directories $(tr '\n' ' ' <<<"$dirs")(expected $2 alone)"
}

# read_file NAME PATH: the text of the server's answer to read_text_file.
read_file() {
	local out
	NEXT_ID=$((NEXT_ID + 1))
	out=$(rpc_call "$1" "$NEXT_ID" tools/call \
		"$(jq -cn --arg p "$2" '{name: "read_text_file", arguments: {path: $p}}')") ||
		fail "client $1: no answer to read_text_file $2: $(cat "$T/$1.err")"
	jq -r '.result.content[0].text // .error.message' <<<"$out"
}

# refused NAME PATH: the server refuses to read PATH for client NAME.
refused() {
	local text
	text=$(read_file "$1" "$2")
	if grep -q "only content" <<<"$text"; then
		fail "client $1 read $2 through the server: $text"
	fi
	grep -qi "denied\|outside" <<<"$text" ||
		fail "client $1: reading $2 failed, but not as outside the allowed directories: $text"
}

# --- A: mcpd as root ----------------------------------------------------------
write_config "$T/mcpd.json" "$(fs_config "$PUB" "$SHARED")"
start_mcpd "$T/mcpd.json"

# 1: a root-only directory.
member_spawn m1 fs
member_session m1 "$(jq -cn --arg s "file://$SECRET" '[$s]')"
given m1 "$PUB" "A1: the member's roots/list answer file://$SECRET"
refused m1 "$SECRET/adv-secret.txt"
wait_for 30 grep -q "fs.*roots of the client of pid $(bridge_pid m1) (uid $MEMBER_UID) refused" "$MCPD_LOG" ||
	fail "A1: the refused root was not logged"
note "A1: member asked for file://$SECRET; its server allows $PUB; the secret file is refused"

# 2: spellings of the way out, and a directory member_roots allows.
member_spawn m2 fs
member_session m2 "$(jq -cn --arg t "$TR" --arg p "$PROJ" '[
	"file://\($t)/shared/../secret",
	"file://localhost\($t)/shared/proj/../../secret/",
	"file://\($t)/shared%2F..%2Fsecret",
	"file://localhost\($p)/./"]')"
given m2 "$PROJ" "A2: the member's four roots"
refused m2 "$SECRET/adv-secret.txt"
text=$(read_file m2 "$PROJ/proj.txt")
[ "$text" = "shared project" ] || fail "A2: the member cannot read $PROJ/proj.txt: $text"
inst=$(status_json | jq -r --argjson p "$(bridge_pid m2)" '
	first(.servers[] | select(any(.attached[]?; .pid == $p)))')
[ "$(jq -c .roots <<<"$inst")" = "$(jq -cn --arg p "file://$PROJ" '[$p]')" ] ||
	fail "A2: the member's instance has the roots $(jq -c .roots <<<"$inst"), not the plain file://$PROJ"
note "A2: of four roots, the member's server was given $PROJ"

# 3: an administrator's own roots are its own.
admin_spawn r1 fs
member_session r1 "$(jq -cn --arg s "file://$SECRET" '[$s]')"
given r1 "$SECRET" "A3: root's roots/list answer file://$SECRET"
text=$(read_file r1 "$SECRET/adv-secret.txt")
[ "$text" = "root-only content" ] ||
	fail "A3: root cannot read its own root's file: $text"
note "A3: root chose file://$SECRET and reads it"
for c in m1 m2 r1; do
	spawn_close "$c"
done
stop_mcpd TERM

# --- B: mcpd as another user (the shipped unit's DynamicUser) -------------------
if ! getent passwd daemon >/dev/null ||
	! setpriv --reuid=daemon --regid=daemon --clear-groups test -r "$FILESYSTEM"; then
	note "B: skipped: no user daemon that can read $FILESYSTEM"
	exit 0
fi
DUID=$(id -u daemon)
mkdir "$T/dhome" "$T/dstate" "$T/dpub" || hard_error "cannot create B's directories"
echo "daemon-only content" >"$T/dstate/token.txt"
echo "public" >"$T/dpub/pub.txt"
chown daemon "$T/dhome" "$T/dstate" "$T/dstate/token.txt"
chmod 0755 "$T/dhome" "$T/dpub"
chmod 0700 "$T/dstate"
chmod 0600 "$T/dstate/token.txt"
DSTATE=$TR/dstate
DPUB=$TR/dpub
write_config "$T/dhome/mcpd.json" "$(fs_config "$DPUB")"
chown daemon "$T/dhome/mcpd.json"
SOCK=$T/dhome/run/mcpd.sock
export MCPCTL_TRUST_USER=daemon
# Its pins in its own state directory: the tests' one is root's.
"${_MCPD_GUARD[@]}" env XDG_STATE_HOME="$T/dhome/state" \
	setpriv --reuid=daemon --regid=daemon \
	--groups="$MEMBER_GID" "$MCPD" -c "$T/dhome/mcpd.json" -s "$SOCK" \
	--log-target stderr </dev/null >>"$MCPD_LOG" 2>&1 &
MCPD_PID=$!
MCPD_PIDS+=("$MCPD_PID")
wait_for 30 ctl status >/dev/null 2>&1 ||
	fail "B: mcpd as daemon did not answer on $SOCK: $(tail -n 5 "$MCPD_LOG")"
member_spawn m3 fs MCPCTL_TRUST_USER=daemon
member_session m3 "$(jq -cn --arg s "file://$DSTATE" '[$s]')"
given m3 "$DPUB" "B: under mcpd as uid $DUID, the member's file://$DSTATE"
refused m3 "$DSTATE/token.txt"
note "B: mcpd as uid $DUID: member asked for mcpd's own file://$DSTATE; its server allows $DPUB; the token is refused"
spawn_close m3
stop_mcpd TERM
exit 0
