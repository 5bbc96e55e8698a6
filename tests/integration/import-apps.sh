#!/bin/bash
# import-apps.sh -- a person with servers in Windsurf, Zed, Cline, Gemini
# CLI and opencode (their files in a HOME of the test's own, opencode's in
# the project directory, each in its documented shape:
# tests/integration/fixtures/apps) moves them under mcpd, app by app:
#
# - `mcpctl import --from APP --yes` adds each app's servers to mcpd.json
#   in mcpd's form: opencode's "command" array split into command and
#   args and its "environment" as env, Windsurf's "serverUrl" and Cline's
#   bare "url" (SSE) and Gemini CLI's "httpUrl" (Streamable HTTP) as
#   remote servers, Zed's and opencode's "enabled": false as disabled; a
#   Zed extension's server is skipped, said so; mcpd reloads and runs
#   them; a file given by path is read in its app's shape;
# - `mcpctl install APP --yes` rewrites each app's entries, in the app's
#   own shape (Zed's "source": "custom", opencode's "type": "local" and
#   one "command" array), to run `mcpctl connect NAME -s SOCKET`, every
#   other byte kept (Zed's and Gemini CLI's comments, Zed's extension
#   entry); Zed's file, a dotfile manager's link, stays a link; the
#   command line read back from each rewritten file, started by the
#   official SDK client's StdioClientTransport as the app starts it,
#   reaches the one copy of the server mcpd runs (Gemini CLI's remote
#   one too, through mcpd-remote);
# - Zed's file changed between install's question and the answer (on a
#   terminal, script(1)) is not written;
# - `mcpctl uninstall APP --yes` refuses while the file differs from what
#   install wrote, then puts every file back byte for byte;
# - a file of each app whose shape is not the app's (a member of the
#   wrong type, the top level an array, invalid JSON) is refused by
#   import and by install, named with what is wrong, and not written.

# npm ci may be slow (remote_setup, below), and another test's may hold
# the lock meanwhile.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# The official SDK client runs the installed entries as the apps would.
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
remote_setup
cp "$TESTS_SRCDIR/interop/app-entry.mjs" "$T/" || hard_error "cannot copy app-entry.mjs"
FIX=$TESTS_SRCDIR/integration/fixtures/apps

export HOME=$T/home
unset XDG_CONFIG_HOME
PROJ=$T/proj
mkdir -p "$HOME" "$PROJ" "$T/orig" "$T/dotfiles" "$T/starts" || hard_error "mkdir"
cd "$PROJ" || hard_error "cd $PROJ"
CFG=$T/mcpd.json
SELF=$(readlink -f "$MCPCTL")
APPS="windsurf zed cline gemini-cli opencode"

# Gemini CLI's remote server: server-everything, Streamable HTTP.
http_start streamableHttp

# app_file APP: where the app keeps its servers.
app_file() {
	case $1 in
	windsurf) echo "$HOME/.codeium/windsurf/mcp_config.json" ;;
	zed) echo "$HOME/.config/zed/settings.json" ;;
	cline) echo "$HOME/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json" ;;
	gemini-cli) echo "$HOME/.gemini/settings.json" ;;
	opencode) echo "$PROJ/opencode.json" ;;
	esac
}

# app_json APP: the app's file as strict JSON (its comments and trailing
# commas taken out) on stdout.
app_json() {
	grep -v '^[[:space:]]*//' "$(app_file "$1")" |
		sed -z -E 's/,([[:space:]]*[]}])/\1/g'
}

# app_argv APP NAME: the command line the app starts for NAME, one word
# a line, read from its file as the app reads it.
app_argv() {
	case $1 in
	zed) app_json "$1" | jq -r --arg n "$2" '.context_servers[$n] | .command, .args[]' ;;
	opencode) app_json "$1" | jq -r --arg n "$2" '.mcp[$n].command[]' ;;
	*) app_json "$1" | jq -r --arg n "$2" '.mcpServers[$n] | .command, .args[]' ;;
	esac
}

# The apps' files, from the fixtures; Zed's is a link into dotfiles.
for app in $APPS; do
	f=$(app_file "$app")
	src=$(ls "$FIX/$app"/*.json) || hard_error "no fixture for $app"
	mkdir -p "$(dirname "$f")" || hard_error "mkdir for $f"
	sed -e "s|@MCP_FAKE@|$MCP_FAKE|g" -e "s|@T@|$T|g" -e "s|@PORT@|$HTTP_PORT|g" \
		"$src" >"$T/orig/$app" || hard_error "cannot write $app's file"
	if [ "$app" = zed ]; then
		cp "$T/orig/$app" "$T/dotfiles/zed-settings.json"
		ln -s "$T/dotfiles/zed-settings.json" "$f"
	else
		cp "$T/orig/$app" "$f"
	fi
done

write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE"}
  }
}
JSON
start_mcpd "$CFG"
wait_ready keep

# --- import, app by app ---------------------------------------------------------
for app in $APPS; do
	ctl import --from "$app" --yes --config "$CFG" >"$T/import-$app.out" 2>&1 ||
		fail "import --from $app exited $?: $(cat "$T/import-$app.out")"
	sed -n '/^--- /q; s/^/# import: /p' "$T/import-$app.out"
done
keys=$(jq -c '.mcpServers | keys' "$CFG")
[ "$keys" = '["cline-fake","cline-sse","gemini-fake","gemini-http","keep","oc-fake","oc-remote","ws-fake","ws-remote","zed-fake","zed-off"]' ] ||
	fail "mcpd.json servers after the imports: $keys"
jq -e --arg fake "$MCP_FAKE" --arg t "$T" --arg port "$HTTP_PORT" '.mcpServers |
	.["oc-fake"] == {"command": $fake, "args": ["--startlog=\($t)/starts/oc-fake.starts"],
		"env": {"MCPD_TEST_DIR": $t}, "sandbox": "default"}
	and .["oc-remote"] == {"url": "http://127.0.0.1:9/mcp", "disabled": true}
	and .["ws-fake"] == {"command": $fake, "args": ["--startlog=\($t)/starts/ws-fake.starts"],
		"env": {"MCPD_TEST_DIR": $t}, "sandbox": "default"}
	and .["ws-remote"] == {"url": "http://127.0.0.1:9/mcp",
		"headers": {"Authorization": "Bearer ws-token"}, "disabled": true}
	and .["cline-sse"] == {"type": "sse", "url": "http://127.0.0.1:9/sse", "disabled": true}
	and .["gemini-http"] == {"type": "http", "url": "http://127.0.0.1:\($port)/mcp"}
	and .["zed-off"].disabled == true and (.["zed-fake"] | has("disabled") | not)
	and (.["cline-fake"] | has("autoApprove") | not)' "$CFG" >/dev/null ||
	fail "mcpd.json's entries: $(jq -c .mcpServers "$CFG")"
grep -q 'zed ~/.config/zed/settings.json: zed-ext: skipped' "$T/import-zed.out" &&
	grep -q 'a server of a Zed extension, which Zed starts itself' "$T/import-zed.out" ||
	fail "Zed's extension server is not said to be skipped: $(cat "$T/import-zed.out")"
grep -q 'cline ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json: cline-fake: added' "$T/import-cline.out" &&
	grep -q '"autoApprove": the app.s own setting, dropped' "$T/import-cline.out" ||
	fail "Cline's import: $(cat "$T/import-cline.out")"
grep -q "opencode $PROJ/opencode.json: oc-fake: added\$" "$T/import-opencode.out" ||
	fail "opencode's project file: $(cat "$T/import-opencode.out")"
for s in ws-fake zed-fake cline-fake gemini-fake oc-fake gemini-http; do
	wait_ready "$s" 60
done
# A file given by path is known by its shape: Zed's "context_servers",
# opencode's "mcp".
ctl import --from "$T/dotfiles/zed-settings.json" --from "$T/orig/opencode" \
	--dry-run --config "$CFG" >"$T/import-paths.out" 2>&1 ||
	fail "import --from PATH exited $?: $(cat "$T/import-paths.out")"
grep -q "^zed $T/dotfiles/zed-settings.json: zed-fake: mcpd has it already\$" "$T/import-paths.out" &&
	grep -q "^opencode $T/orig/opencode: oc-fake: mcpd has it already\$" "$T/import-paths.out" ||
	fail "files given by path: $(cat "$T/import-paths.out")"
for s in ws-remote zed-off cline-sse oc-remote; do
	[ "$(server_field "$s" state)" = stopped ] ||
		fail "$s, disabled in its app, is $(server_field "$s" state)"
done

# --- Zed's file changed between the question and the answer: not written ---
if command -v script >/dev/null 2>&1; then
	f=$(app_file zed)
	mkfifo "$T/answer"
	# The answer's side stays open until mcpctl is done (script(1) ends
	# the session when its input ends).
	(
		wait_for 60 grep -q 'Point' "$T/tty.out" || exit 1
		printf '\n' >>"$f"
		cp "$f" "$T/zed.changed"
		printf 'y\n'
		wait_for 90 test -e "$T/tty.done"
	) >"$T/answer" &
	answerer=$!
	timeout -k 5 60 script -qfec "'$MCPCTL' -s '$SOCK' install zed --config '$CFG'" \
		"$T/tty.out" <"$T/answer" >/dev/null 2>&1
	rc=$?
	touch "$T/tty.done"
	wait "$answerer" || fail "the question never came: $(cat "$T/tty.out")"
	[ "$rc" = 1 ] || fail "install of a Zed file changed meanwhile exited $rc: $(cat "$T/tty.out")"
	grep -q 'changed since it was read; nothing written' "$T/tty.out" ||
		fail "no refusal: $(cat "$T/tty.out")"
	cmp -s "$f" "$T/zed.changed" || fail "Zed's changed file was overwritten"
	[ -L "$f" ] && [ ! -e "$f.mcpd-backup" ] || fail "a refused install left a backup or no link"
	cp "$T/orig/zed" "$f"
else
	note "no script(1): the change between question and answer is not tried"
fi

# --- install, and each app's entry as the app starts it ----------------------
SOCK_ABS=$SOCK
for app in $APPS; do
	ctl install "$app" --yes --config "$CFG" >"$T/install-$app.out" 2>&1 ||
		fail "install $app exited $?: $(cat "$T/install-$app.out")"
	f=$(app_file "$app")
	cmp -s "$f.mcpd-backup" "$T/orig/$app" ||
		fail "$app: the backup is not the original"
	app_json "$app" >"$T/$app.json" ||
		fail "$app's file after install: $(cat "$f")"
done
[ -L "$(app_file zed)" ] && grep -q connect "$T/dotfiles/zed-settings.json" ||
	fail "install replaced the link to Zed's settings instead of the file"
for line in '// Zed settings' '// documentation: https://zed.dev/docs/configuring-zed' \
	'  // The MCP servers of Zed.s agent.' '  "ui_font_size": 16,' '    "zed-ext": {'; do
	grep -q "^$line" "$(app_file zed)" || fail "install lost Zed's line '$line'"
done
grep -q '^  // The servers Gemini CLI starts.$' "$(app_file gemini-cli)" ||
	fail "install lost Gemini CLI's comment: $(cat "$(app_file gemini-cli)")"
jq -e --arg self "$SELF" --arg sock "$SOCK_ABS" '.context_servers |
	.["zed-fake"] == {"source": "custom", "command": $self, "args": ["connect", "zed-fake", "-s", $sock]}
	and .["zed-off"] == {"source": "custom", "command": $self,
		"args": ["connect", "zed-off", "-s", $sock], "enabled": false}
	and .["zed-ext"] == {"source": "extension", "enabled": true, "settings": {}}' \
	"$T/zed.json" >/dev/null || fail "Zed's file after install: $(cat "$T/zed.json")"
jq -e --arg self "$SELF" --arg sock "$SOCK_ABS" '.mcp |
	.["oc-fake"] == {"type": "local", "command": [$self, "connect", "oc-fake", "-s", $sock]}
	and .["oc-remote"] == {"type": "local",
		"command": [$self, "connect", "oc-remote", "-s", $sock], "enabled": false}' \
	"$T/opencode.json" >/dev/null || fail "opencode's file after install: $(cat "$T/opencode.json")"
jq -e --arg self "$SELF" --arg sock "$SOCK_ABS" '.mcpServers |
	.["ws-remote"] == {"command": $self, "args": ["connect", "ws-remote", "-s", $sock], "disabled": true}' \
	"$T/windsurf.json" >/dev/null || fail "Windsurf's file after install: $(cat "$T/windsurf.json")"
jq -e --arg self "$SELF" --arg sock "$SOCK_ABS" '.mcpServers |
	.["gemini-http"] == {"command": $self, "args": ["connect", "gemini-http", "-s", $sock]}' \
	"$T/gemini-cli.json" >/dev/null || fail "Gemini CLI's file after install: $(cat "$T/gemini-cli.json")"
jq -e '.theme == "GitHub"' "$T/gemini-cli.json" >/dev/null ||
	fail "install lost Gemini CLI's other settings"

# The official SDK client starts each entry as its app would.
for pair in windsurf:ws-fake zed:zed-fake cline:cline-fake gemini-cli:gemini-fake opencode:oc-fake; do
	app=${pair%%:*}
	name=${pair#*:}
	mapfile -t argv < <(app_argv "$app" "$name")
	[ "${argv[0]}" = "$SELF" ] || fail "$app's $name does not run mcpctl: ${argv[*]}"
	out=$(timeout -k 5 60 "$NODE" "$T/app-entry.mjs" echo "{\"text\":\"$app through mcpd\"}" \
		-- "${argv[@]}" 2>"$T/sdk-$app.err") ||
		fail "the SDK client failed for $app: $(cat "$T/sdk-$app.err")"
	jq -e --arg want "$app through mcpd" '.ok and .text == $want and (.tools | index("echo"))' \
		<<<"$out" >/dev/null ||
		fail "the SDK client through $app's installed entry: $out $(cat "$T/sdk-$app.err")"
	[ "$(startlog_count "$T/starts/$name.starts")" = 1 ] ||
		fail "$app's session started another copy of $name"
	note "$app: the SDK client ran ${argv[*]} through mcpd"
done
mapfile -t argv < <(app_argv gemini-cli gemini-http)
out=$(timeout -k 5 60 "$NODE" "$T/app-entry.mjs" echo '{"message":"remote through mcpd"}' \
	-- "${argv[@]}" 2>"$T/sdk-remote.err") ||
	fail "the SDK client failed for gemini-http: $(cat "$T/sdk-remote.err")"
jq -e '.ok and (.text | contains("remote through mcpd"))' <<<"$out" >/dev/null ||
	fail "the SDK client through Gemini CLI's remote entry: $out $(cat "$T/sdk-remote.err")"
note "gemini-cli: the SDK client reached the Streamable HTTP server through mcpd: $out"

# --- uninstall ---------------------------------------------------------------------
f=$(app_file opencode)
printf ' ' >>"$f"
cp "$f" "$T/opencode.changed"
ctl uninstall opencode --yes >"$T/uninstall-changed.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "uninstall of a changed opencode.json exited $rc: $(cat "$T/uninstall-changed.out")"
grep -q 'changed since mcpctl install wrote it' "$T/uninstall-changed.out" ||
	fail "uninstall refusal: $(cat "$T/uninstall-changed.out")"
cmp -s "$f" "$T/opencode.changed" || fail "a refused uninstall changed opencode.json"
cp "$f.mcpd-installed" "$f"
for app in $APPS; do
	f=$(app_file "$app")
	ctl uninstall "$app" --yes >"$T/uninstall-$app.out" 2>&1 ||
		fail "uninstall $app exited $?: $(cat "$T/uninstall-$app.out")"
	cmp "$f" "$T/orig/$app" || fail "uninstall did not restore $app's file byte for byte"
	[ ! -e "$f.mcpd-backup" ] && [ ! -e "$f.mcpd-installed" ] ||
		fail "uninstall $app left its copies"
done
[ -L "$(app_file zed)" ] || fail "uninstall replaced the link to Zed's settings"

# --- a shape that is not the app's: refused, not written ------------------------
declare -A BAD WANT
BAD[windsurf]='{"mcpServers": []}'
BAD[zed]='// Zed settings
{ "context_servers": "none" }'
BAD[cline]='[]'
BAD[gemini-cli]='{ "mcpServers": {'
BAD[opencode]='{ "mcp": [1] }'
WANT[windsurf]='"mcpServers" is not an object (expected a server by name: {"NAME": {...}})'
WANT[zed]='"context_servers" is not an object (expected a server by name: {"NAME": {...}})'
WANT[cline]='the top level is not an object (expected {"mcpServers": {...}})'
WANT[gemini-cli]='line 2, column 1: invalid JSON'
WANT[opencode]='"mcp" is not an object (expected a server by name: {"NAME": {...}})'
for app in $APPS; do
	f=$(app_file "$app")
	printf '%s\n' "${BAD[$app]}" >"$f"
	cp "$f" "$T/bad-$app"
	label=${f/#$HOME/\~}
	ctl import --from "$app" --dry-run --config "$CFG" >"$T/bad-import-$app.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "import of $app's malformed file exited $rc: $(cat "$T/bad-import-$app.out")"
	grep -qF "$label: ${WANT[$app]}; not imported" "$T/bad-import-$app.out" ||
		fail "import of $app's malformed file: $(cat "$T/bad-import-$app.out")"
	ctl install "$app" --yes --config "$CFG" >"$T/bad-install-$app.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "install of $app's malformed file exited $rc: $(cat "$T/bad-install-$app.out")"
	grep -qF "$label: ${WANT[$app]}" "$T/bad-install-$app.out" ||
		fail "install of $app's malformed file: $(cat "$T/bad-install-$app.out")"
	cmp -s "$f" "$T/bad-$app" && [ ! -e "$f.mcpd-backup" ] ||
		fail "install wrote $app's malformed file"
	note "$app: $(grep -F "$label" "$T/bad-install-$app.out")"
done
[ -L "$(app_file zed)" ] || fail "Zed's link was replaced"

stop_mcpd
http_kill
echo "PASS: $TEST_NAME"
