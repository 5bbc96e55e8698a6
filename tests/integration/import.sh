#!/bin/bash
# import.sh -- a person with servers in two apps (Claude Desktop and
# Cursor, their files in a HOME of the test's own) moves them under mcpd:
# `mcpctl import --dry-run` changes nothing; without a terminal and
# without --yes nothing is written (exit 1); `mcpctl import --yes` writes
# mcpd.json (the server both apps run once, the clash renamed NAME-cursor,
# the remote entry kept disabled, the app's own keys dropped), keeps the
# old file as mcpd.json.bak, and mcpd reloads and runs the servers;
# `mcpctl install cursor --yes` points Cursor's entries at `mcpctl connect
# NAME -s SOCKET`, comments kept, and the entry's command and arguments,
# run as Cursor would run them, speak MCP through mcpd (raw lines, and the
# official SDK client's StdioClientTransport); `mcpctl uninstall
# cursor` refuses while the file differs from what install wrote and then
# restores it byte for byte; a file changed between the question and the
# answer is not written; at the end both apps are installed and their
# sessions (the official SDK client) reach the one copy of the server
# they share.

# npm ci may be slow (remote_setup, below), and another test's may hold
# the lock meanwhile.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

command -v script >/dev/null 2>&1 || skip "script(1) is needed for a terminal"
# The official SDK client runs the installed entry as an app would.
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
remote_setup
cp "$TESTS_SRCDIR/interop/app-entry.mjs" "$T/" || hard_error "cannot copy app-entry.mjs"

export HOME=$T/home
unset XDG_CONFIG_HOME
mkdir -p "$HOME/.config/Claude" "$HOME/.cursor" "$T/proj" "$T/starts"
cd "$T/proj" || hard_error "cd $T/proj"
CFG=$T/mcpd.json
DESKTOP=$HOME/.config/Claude/claude_desktop_config.json
CURSOR=$HOME/.cursor/mcp.json
SELF=$(readlink -f "$MCPCTL")

# mcpd runs one server of its own before the import.
write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE"}
  }
}
JSON
cp "$CFG" "$T/mcpd.json.orig"

# Claude Desktop: strict JSON, "mcpServers", other settings beside.
cat >"$DESKTOP" <<JSON
{
  "mcpServers": {
    "alpha": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/alpha.starts"],
      "env": {"MCPD_TEST_DIR": "$T"}
    },
    "shared": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/shared.starts"],
      "env": {"MCPD_TEST_DIR": "$T"}
    }
  },
  "globalShortcut": ""
}
JSON
# Cursor: comments, the same "shared", another "alpha", a remote entry.
cat >"$CURSOR" <<JSON
{
  // Cursor's servers
  "mcpServers": {
    "shared": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/shared.starts"],
      "env": {"MCPD_TEST_DIR": "$T"}
    },
    "alpha": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/alpha2.starts"],
      "env": {"MCPD_TEST_DIR": "$T"},
      "alwaysAllow": ["echo"]
    },
    "docs": {
      "url": "http://127.0.0.1:9/mcp",
      "type": "sse",
      "disabled": true
    }
  }
}
JSON
cp "$CURSOR" "$T/cursor.orig"
# Cursor's file is a dotfile manager's link: it must stay one.
mkdir -p "$T/dotfiles"
mv "$CURSOR" "$T/dotfiles/cursor-mcp.json"
ln -s "$T/dotfiles/cursor-mcp.json" "$CURSOR"

start_mcpd "$CFG"
wait_ready keep

strip_comments() {
	grep -v '^[[:space:]]*//' "$1"
}

# --- a dry run -------------------------------------------------------------
ctl import --dry-run --config "$CFG" >"$T/dry.out" 2>&1 ||
	fail "import --dry-run exited $?: $(cat "$T/dry.out")"
cmp -s "$CFG" "$T/mcpd.json.orig" || fail "import --dry-run changed $CFG"
[ ! -e "$CFG.bak" ] || fail "import --dry-run made a backup"
grep -q '^+    "alpha-cursor": {' "$T/dry.out" ||
	fail "the dry run shows no diff adding alpha-cursor: $(cat "$T/dry.out")"
grep -q 'cursor ~/.cursor/mcp.json: alpha: added as alpha-cursor' "$T/dry.out" ||
	fail "the clash is not reported: $(cat "$T/dry.out")"
grep -q '"alwaysAllow": the app.s own setting, dropped' "$T/dry.out" ||
	fail "the dropped alwaysAllow is not reported: $(cat "$T/dry.out")"

# --- no terminal, no --yes: nothing written ----------------------------------
ctl import --config "$CFG" </dev/null >"$T/noyes.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "import without --yes and without a terminal exited $rc"
grep -q 'rerun with --yes' "$T/noyes.out" || fail "no hint to use --yes: $(cat "$T/noyes.out")"
cmp -s "$CFG" "$T/mcpd.json.orig" || fail "import without --yes changed $CFG"

# --- the import ------------------------------------------------------------
ctl import --yes --config "$CFG" >"$T/import.out" 2>&1 ||
	fail "import --yes exited $?: $(cat "$T/import.out")"
cmp -s "$CFG.bak" "$T/mcpd.json.orig" || fail "$CFG.bak is not the old file"
[ "$(stat -c %a "$CFG")" = 600 ] || fail "$CFG has mode $(stat -c %a "$CFG")"
keys=$(jq -c '.mcpServers | keys' "$CFG")
[ "$keys" = '["alpha","alpha-cursor","docs","keep","shared"]' ] ||
	fail "mcpd.json servers: $keys"
jq -e --arg t "$T" '.mcpServers["alpha-cursor"].args == ["--startlog=\($t)/starts/alpha2.starts"]
	and (.mcpServers["alpha-cursor"] | has("alwaysAllow") | not)
	and .mcpServers.docs == {"type": "sse", "url": "http://127.0.0.1:9/mcp", "disabled": true}' \
	"$CFG" >/dev/null || fail "mcpd.json entries: $(cat "$CFG")"
# mcpd reloaded: each imported server runs once.
for s in alpha alpha-cursor shared; do
	wait_ready "$s"
done
# The disabled remote entry is known to mcpd, and not started.
[ "$(server_field docs state)" = stopped ] ||
	fail "docs is $(server_field docs state), not stopped"
[ "$(startlog_count "$T/starts/shared.starts")" = 1 ] ||
	fail "shared started $(startlog_count "$T/starts/shared.starts") times"

# Again: nothing to change.
ctl import --yes --config "$CFG" >"$T/again.out" 2>&1 ||
	fail "a second import exited $?: $(cat "$T/again.out")"
grep -q 'nothing to change' "$T/again.out" || fail "second import: $(cat "$T/again.out")"

# --- install ----------------------------------------------------------------
ctl install cursor --yes --config "$CFG" >"$T/install.out" 2>&1 ||
	fail "install cursor exited $?: $(cat "$T/install.out")"
cmp -s "$CURSOR.mcpd-backup" "$T/cursor.orig" || fail "the backup is not the original"
grep -q '^  // Cursor.s servers$' "$CURSOR" || fail "install dropped the comment"
[ -L "$CURSOR" ] && grep -q connect "$T/dotfiles/cursor-mcp.json" ||
	fail "install replaced the link to Cursor's file instead of the file"
strip_comments "$CURSOR" | jq -e --arg self "$SELF" --arg sock "$SOCK" '
	.mcpServers.alpha == {"command": $self, "args": ["connect", "alpha-cursor", "-s", $sock]}
	and .mcpServers.shared == {"command": $self, "args": ["connect", "shared", "-s", $sock]}
	and .mcpServers.docs == {"command": $self, "args": ["connect", "docs", "-s", $sock], "disabled": true}' \
	>/dev/null || fail "Cursor's file after install: $(cat "$CURSOR")"
# Claude Desktop's file is not touched.
grep -q '"alpha": {' "$DESKTOP" && ! grep -q connect "$DESKTOP" ||
	fail "install cursor touched Claude Desktop's file"

# The app runs its entry: command and args, MCP on stdio, through mcpd.
# Its stdin stays open until the call's answer is out, as an app's does.
mapfile -t argv < <(strip_comments "$CURSOR" | jq -r '.mcpServers.shared | .command, .args[]')
: >"$T/app.out"
# shellcheck disable=SC2094  # the left side polls what the right one writes
{
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"app","version":"1"}}}'
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
	printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"through mcpd"}}}'
	wait_for 30 grep -Eq '"id": ?2[,}]' "$T/app.out"
} | timeout -k 5 60 "${argv[@]}" >"$T/app.out" 2>"$T/app.err"
jq -e 'select(.id == 2) | .result.content[0].text == "through mcpd"' "$T/app.out" >/dev/null ||
	fail "the app's entry did not answer through mcpd: $(cat "$T/app.out" "$T/app.err")"
[ "$(startlog_count "$T/starts/shared.starts")" = 1 ] ||
	fail "the app's session started another copy of shared"
# The same with the official SDK client: the entry's command and args as
# Cursor would start them, through mcpd to the one copy of shared.
out=$(timeout -k 5 60 "$NODE" "$T/app-entry.mjs" echo '{"text":"sdk through mcpd"}' \
	-- "${argv[@]}" 2>"$T/sdk.err") || fail "the SDK client failed: $(cat "$T/sdk.err")"
jq -e '.ok and .text == "sdk through mcpd" and (.tools | index("echo"))' <<<"$out" >/dev/null ||
	fail "the SDK client through Cursor's installed entry: $out $(cat "$T/sdk.err")"
[ "$(startlog_count "$T/starts/shared.starts")" = 1 ] ||
	fail "the SDK client's session started another copy of shared"
note "the official SDK client ran Cursor's installed entry (${argv[*]}) through mcpd: $out"

# --- uninstall ----------------------------------------------------------------
# Changed since install: refused, unchanged.
printf ' ' >>"$CURSOR"
cp "$CURSOR" "$T/cursor.changed"
ctl uninstall cursor --yes >"$T/uninstall1.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "uninstall of a changed file exited $rc: $(cat "$T/uninstall1.out")"
grep -q 'changed since mcpctl install wrote it' "$T/uninstall1.out" ||
	fail "uninstall refusal: $(cat "$T/uninstall1.out")"
cmp -s "$CURSOR" "$T/cursor.changed" || fail "a refused uninstall changed the file"
cp "$CURSOR.mcpd-installed" "$CURSOR"
ctl uninstall cursor --yes >"$T/uninstall2.out" 2>&1 ||
	fail "uninstall exited $?: $(cat "$T/uninstall2.out")"
cmp "$CURSOR" "$T/cursor.orig" || fail "uninstall did not restore Cursor's file byte for byte"
[ -L "$CURSOR" ] || fail "uninstall replaced the link to Cursor's file"
[ ! -e "$CURSOR.mcpd-backup" ] && [ ! -e "$CURSOR.mcpd-installed" ] ||
	fail "uninstall left its copies"

# --- a file changed between the diff and the answer ---------------------------
cp "$DESKTOP" "$T/desktop.orig"
mkfifo "$T/answer"
# The answer's side stays open until mcpctl is done (script(1) ends the
# session when its input ends).
(
	wait_for 60 grep -q 'Point' "$T/tty.out" || exit 1
	printf '\n' >>"$DESKTOP"
	cp "$DESKTOP" "$T/desktop.changed"
	printf 'y\n'
	wait_for 90 test -e "$T/tty.done"
) >"$T/answer" &
answerer=$!
timeout -k 5 60 script -qfec "'$MCPCTL' -s '$SOCK' install claude-desktop --config '$CFG'" \
	"$T/tty.out" <"$T/answer" >/dev/null 2>&1
rc=$?
touch "$T/tty.done"
wait "$answerer" || fail "the question never came: $(cat "$T/tty.out")"
[ "$rc" = 1 ] || fail "install of a file changed meanwhile exited $rc: $(cat "$T/tty.out")"
grep -q 'changed since it was read; nothing written' "$T/tty.out" ||
	fail "no refusal: $(cat "$T/tty.out")"
cmp -s "$DESKTOP" "$T/desktop.changed" || fail "the changed file was overwritten"
[ ! -e "$DESKTOP.mcpd-backup" ] || fail "a refused install left a backup"

# --- both apps through the one mcpd ----------------------------------------------
# Cursor's entries again, and Claude Desktop's: both apps' sessions reach
# the same single copy of the server they share.
ctl install cursor --yes --config "$CFG" >"$T/install-c.out" 2>&1 ||
	fail "install cursor (again): $(cat "$T/install-c.out")"
ctl install claude-desktop --yes --config "$CFG" >"$T/install-d.out" 2>&1 ||
	fail "install claude-desktop: $(cat "$T/install-d.out")"
for app in "$CURSOR" "$DESKTOP"; do
	mapfile -t argv < <(strip_comments "$app" | jq -r '.mcpServers.shared | .command, .args[]')
	[ "${argv[0]}" = "$SELF" ] || fail "$app's shared does not run mcpctl: ${argv[*]}"
	out=$(timeout -k 5 60 "$NODE" "$T/app-entry.mjs" echo '{"text":"both"}' \
		-- "${argv[@]}" 2>"$T/sdk.err") || fail "the SDK client failed: $(cat "$T/sdk.err")"
	jq -e '.ok and .text == "both"' <<<"$out" >/dev/null ||
		fail "the SDK client through $app's entry: $out $(cat "$T/sdk.err")"
done
[ "$(startlog_count "$T/starts/shared.starts")" = 1 ] ||
	fail "the two apps' sessions ran $(startlog_count "$T/starts/shared.starts") copies of shared"
note "Claude Desktop and Cursor both reach the one copy of shared through mcpd"

stop_mcpd
echo "PASS: $TEST_NAME"
