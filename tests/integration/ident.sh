#!/bin/bash
# shellcheck disable=SC2154  # NAME_PID are set by spawn (lib.sh)
# ident.sh -- the app on each connection, as mcpd reads it from the kernel
# (mcpd(8), "Identity"), in `mcpctl status --clients`.  Two apps are two
# copies of bash, $T/app-one and $T/app-two.
#
#   1  app-one runs `mcpctl connect` through `sh -c` and `env`; app-two
#      through `env` and `sh -c`; app-one again through a node script
#      named npx-cli.js (as npx runs a package) and `sh -c`.  Each bridge's
#      app is the copy that ran it, with its pid: not sh, env, node or
#      mcpctl.  A copy named with a newline and an escape is shown
#      escaped.
#   2  A copy of mcpctl under another name, connecting itself (and asking
#      for a principal as a bridge does), is its own app, no bridge.
#   3  A bridge whose parent exited before it connected, that names
#      app-two in its clientInfo: no app (reparented), never app-two.
#   4  (root) A bridge of nobody run by app-one (root's): not app-one, its
#      parent is another user's; nobody's status --clients shows its own
#      connections only.
#   5  (root) mcpd as nobody, with /proc mounted hidepid=invisible (what
#      ProtectProc=invisible does): root's clients are "identity: uid
#      only".

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

BASH_BIN=$(command -v bash) || skip "no bash"
if ! cp "$BASH_BIN" "$T/app-one" || ! cp "$BASH_BIN" "$T/app-two" ||
	! cp "$MCPCTL" "$T/direct-app"; then
	hard_error "cannot copy the programs"
fi
ROOT=0
[ "$(id -u)" -eq 0 ] && getent passwd nobody >/dev/null &&
	getent group nogroup >/dev/null && command -v setpriv >/dev/null &&
	ROOT=1
as_member=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
if [ "$ROOT" = 1 ]; then
	chmod 0711 "$T"
	"${as_member[@]}" test -x "$MCPCTL" || ROOT=0
fi

write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "socket_group": "nogroup" },
  "mcpServers": { "f": { "command": "$MCP_FAKE" } }
}
JSON
start_mcpd "$T/mcpd.json"

# clients [AS...]: the clients list of `mcpctl --json status --clients`.
clients() {
	"$@" timeout -k 5 30 "$MCPCTL" -s "$SOCK" --json status --clients |
		jq -c .clients
}

# has_app EXE PID N: N bridges whose app is EXE with that pid.
# shellcheck disable=SC2317  # called through wait_for
has_app() {
	clients | jq -e --arg e "$1" --argjson p "$2" --argjson n "$3" '
		[.[] | select(.app.exe == $e and .app.pid == $p and
		    (.app.flags | index("bridge")))] | length == $n' >/dev/null
}

# --- 1: through sh -c, env, and npx ------------------------------------------
cat >"$T/one.sh" <<EOF
sh -c 'env IDENT_TEST=1 "$MCPCTL" -s "$SOCK" connect f; true'
true
EOF
cat >"$T/two.sh" <<EOF
env IDENT_TEST=2 sh -c '"$MCPCTL" -s "$SOCK" connect f; true'
true
EOF
spawn one "$T/app-one" "$T/one.sh"
spawn two "$T/app-two" "$T/two.sh"
wait_for 30 has_app "$T/app-one" "$one_PID" 1 ||
	fail "1: app-one (pid $one_PID) is not the app of its bridge: $(clients)"
wait_for 30 has_app "$T/app-two" "$two_PID" 1 ||
	fail "1: app-two (pid $two_PID) is not the app of its bridge: $(clients)"
if NODE=$(command -v node); then
	mkdir -p "$T/npm/bin"
	cat >"$T/npm/bin/npx-cli.js" <<'EOF'
const { spawn } = require('child_process');
spawn(process.argv[2], process.argv.slice(3), { stdio: 'inherit' })
	.on('exit', (code) => process.exit(code ?? 1));
EOF
	cat >"$T/three.sh" <<EOF
"$NODE" "$T/npm/bin/npx-cli.js" sh -c '"$MCPCTL" -s "$SOCK" connect f; true'
true
EOF
	spawn three "$T/app-one" "$T/three.sh"
	wait_for 30 has_app "$T/app-one" "$three_PID" 1 ||
		fail "1: app-one (pid $three_PID) is not the app of its bridge under node npx-cli.js: $(clients)"
else
	note "1: node is not installed: npx not tried"
fi
# A name with a newline and an escape: shown escaped, on one line.
ODD="$T/app"$'\n'"odd"$'\e'
cp "$BASH_BIN" "$ODD" || hard_error "cannot copy bash to a name with a newline"
spawn odd "$ODD" "$T/one.sh"
wait_for 30 has_app "$T/app\\nodd\\x1b" "$odd_PID" 1 ||
	fail "1: the app with a newline in its name is not shown escaped: $(clients)"
ctl status --clients | grep -qF "$T/app\nodd\x1b (pid $odd_PID)" ||
	fail "1: the table does not show the odd name escaped: $(ctl status --clients)"
out=$(clients)
jq -e '[.[] | select(.self | not) | .app.exe // "" |
	test("/(sh|dash|bash|env|node[0-9.]*|mcpctl)$")] | any | not' \
	<<<"$out" >/dev/null ||
	fail "1: a wrapper or the bridge is recorded as an app: $out"
table=$(ctl status --clients) || fail "1: status --clients: $table"
grep -qF "$T/app-one (pid $one_PID), through mcpctl connect" <<<"$table" ||
	fail "1: the table does not show app-one: $table"
grep -qF "$T/app-two (pid $two_PID), through mcpctl connect" <<<"$table" ||
	fail "1: the table does not show app-two: $table"

# --- 2: a program that is not mcpctl, asking for a principal -------------------
spawn direct "$T/direct-app" -s "$SOCK" connect f
# shellcheck disable=SC2317  # called through wait_for
direct_seen() {
	clients | jq -e --arg e "$T/direct-app" --argjson p "$direct_PID" '
		any(.[]; .pid == $p and .app.exe == $e and .app.pid == $p and
		    .app.flags == [])' >/dev/null
}
wait_for 30 direct_seen ||
	fail "2: direct-app (pid $direct_PID) is not its own app: $(clients)"

# --- 3: a bridge whose parent is gone, and that says otherwise ---------------
mkfifo "$T/rp.in"
# The bridge waits for its stdin while app-two exits; it connects after.
MCPD_TEST_DIR=$T "$T/app-two" -c "exec \"$MCPCTL\" -s \"$SOCK\" connect f \
	<\"$T/rp.in\" >\"$T/rp.out\" 2>\"$T/rp.err\" & exit 0" ||
	fail "3: app-two did not start the bridge"
exec {rp}>"$T/rp.in"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"app-two","version":"1"}}}' >&"$rp"
# shellcheck disable=SC2317  # called through wait_for
orphan() {
	clients | jq -ce 'first(.[] | select(.app.flags |
		(index("bridge") and index("reparented"))))'
}
entry=
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'entry=$(orphan)' ||
	fail "3: the orphaned bridge is not recorded as reparented: $(clients); $(cat "$T/rp.err")"
jq -e '.app.exe == null and .app.pid == null' <<<"$entry" >/dev/null ||
	fail "3: the orphaned bridge has an app: $entry"
wait_for 30 grep -q '"id":1' "$T/rp.out" ||
	fail "3: no answer to the orphan's initialize: $(cat "$T/rp.out")"
out=$(clients)
[ "$(jq '[.[] | select(.app.exe == "'"$T/app-two"'")] | length' <<<"$out")" = 1 ] ||
	fail "3: the orphan's claim changed what mcpd records: $out"
ctl status --clients | grep -qF "the parent of mcpctl connect was gone (reparented)" ||
	fail "3: the table does not say the orphan's parent was gone: $(ctl status --clients)"
exec {rp}>&-

if [ "$ROOT" != 1 ]; then
	note "4, 5: not root, or no nobody/nogroup/setpriv: skipped"
	exit 0
fi

# --- 4: another user's bridge, and what that user sees -------------------------
cat >"$T/four.sh" <<EOF
${as_member[*]} "$MCPCTL" -s "$SOCK" connect f
true
EOF
spawn four "$T/app-one" "$T/four.sh"
MEMBER_UID=$(id -u nobody)
# shellcheck disable=SC2317  # called through wait_for
member_bridge() {
	clients | jq -ce --argjson u "$MEMBER_UID" \
		'first(.[] | select(.uid == $u and (.app.flags | index("bridge"))))'
}
# shellcheck disable=SC2016  # expanded by eval
wait_for 30 eval 'entry=$(member_bridge)' ||
	fail "4: nobody's bridge is not listed: $(clients)"
jq -e '.app.exe == null' <<<"$entry" >/dev/null ||
	fail "4: nobody's bridge has root's app-one as its app: $entry"
out=$(clients "${as_member[@]}") || fail "4: nobody's status --clients: $out"
jq -e --argjson u "$MEMBER_UID" 'length == 2 and all(.[]; .uid == $u)' \
	<<<"$out" >/dev/null ||
	fail "4: nobody sees connections not its own: $out"
grep -qF app-one <<<"$out" && fail "4: nobody sees root's app: $out"

# --- 5: mcpd that may not look (hidepid=invisible) -------------------------
if ! unshare -m --propagation private sh -c \
	'mount -t proc -o hidepid=invisible proc /proc' 2>/dev/null; then
	note "5: cannot mount /proc with hidepid here: skipped"
	exit 0
fi
spawn_close one
spawn_close two
spawn_close four
stop_mcpd
# Root without capabilities (but the one to give its socket to
# socket_group) may not look at nobody's processes there.
MCPD_PREFIX=(unshare -m --propagation private sh -c
	'mount -t proc -o hidepid=invisible proc /proc && exec "$@"' sh
	setpriv --bounding-set=-all,+chown --inh-caps=-all)
start_mcpd "$T/mcpd.json"
spawn five "${as_member[@]}" "$T/app-one" "$T/one.sh"
# shellcheck disable=SC2317  # called through wait_for
uid_only() {
	clients "${as_member[@]}" | jq -e --argjson u "$MEMBER_UID" '
		length >= 2 and all(.[]; .uid == $u and .app.exe == null and
		.app.flags == ["uid-only"])' >/dev/null
}
wait_for 30 uid_only ||
	fail "5: nobody's bridge and status are not uid only: $(clients "${as_member[@]}")"
"${as_member[@]}" "$MCPCTL" -s "$SOCK" status --clients |
	grep -qF "identity: uid only" ||
	fail "5: the table does not say uid only: $(ctl status --clients)"
exit 0
