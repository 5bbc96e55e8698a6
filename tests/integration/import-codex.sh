#!/bin/bash
# import-codex.sh -- a person whose MCP servers are in Codex's
# ~/.codex/config.toml (in the shapes of Codex's documentation: comments,
# [model_providers] and [profiles] beside, a server with an
# [mcp_servers.NAME.env] table, one with an inline env, a streamable HTTP
# one switched off; the file a dotfile manager's link) moves them under
# mcpd: `mcpctl import --from codex` adds them to mcpd.json and mcpd runs
# them; `mcpctl install codex` rewrites only the servers' statements, to
# run `mcpctl connect NAME -s SOCKET` (the socket named even though it is
# the default one: Codex passes its servers HOME, PATH and a few more
# variables, never XDG_RUNTIME_DIR); command and args read back from the
# rewritten file by another TOML reader (Python's tomllib, when there is
# one), run as Codex runs them (that environment, the official SDK
# client's StdioClientTransport), reach the one copy of the server mcpd
# runs; `mcpctl uninstall codex` puts the file back byte for byte and it
# stays a link; $CODEX_HOME/config.toml is Codex's file when CODEX_HOME
# is set; a file TOML does not allow (a table defined twice, a NUL byte)
# and a server install cannot rewrite in place (one inline table) are
# refused with their line, nothing written; a file changed between the
# question and the answer is not written.
#
# Run as a user (nobody, when the test runs as root): root's socket is
# /run/mcpd/mcpd.sock whatever the environment, a user's is under
# XDG_RUNTIME_DIR, which Codex does not pass on.

# npm ci may be slow (remote_setup, below), and another test's may hold
# the lock meanwhile.
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

# The official SDK client runs the installed entry as Codex would.
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"
remote_setup
cp "$TESTS_SRCDIR/interop/app-entry.mjs" "$T/" || hard_error "cannot copy app-entry.mjs"

U=$T
AS_USER=()
if [ "$(id -u)" = 0 ]; then
	id nobody >/dev/null 2>&1 || skip "no user nobody to run as"
	AS_USER=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups)
	"${AS_USER[@]}" true 2>/dev/null || skip "cannot run a process as nobody (setpriv)"
	"${AS_USER[@]}" test -x "$MCPD" -a -x "$MCP_FAKE" -a -x "$NODE" ||
		skip "the binaries are not executable by nobody"
	chmod 0711 "$T"
	U=$T/u
	# Its state (pins, the servers' sandbox directories) is its own.
	export XDG_STATE_HOME=$U/state
	MCPD_PREFIX=("${AS_USER[@]}")
	# lib.sh's own look at mcpd, on a failure, is root's.
	export MCPCTL_TRUST_USER=nobody
	ctl() {
		timeout -k 5 30 "${AS_USER[@]}" "$MCPCTL" -s "$SOCK" "$@"
	}
fi
export HOME=$U/home
unset XDG_CONFIG_HOME XDG_CACHE_HOME CODEX_HOME
# mcpd on the socket mcpctl finds by default, in a runtime directory of
# the test's own.
export XDG_RUNTIME_DIR=$U/run
mkdir -p "$XDG_RUNTIME_DIR" "$HOME/.codex" "$U/proj" "$U/dotfiles" "$U/starts" ||
	hard_error "mkdir $U"
chmod 0700 "$XDG_RUNTIME_DIR"
SOCK=$XDG_RUNTIME_DIR/mcpd/mcpd.sock
cd "$U/proj" || hard_error "cd $U/proj"
CFG=$U/mcpd.json
CODEX=$HOME/.codex/config.toml
SELF=$(readlink -f "$MCPCTL")

write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE"}
  }
}
JSON

# Codex's file, as its documentation writes it (see
# tests/unit/fixtures/apps/codex_config.toml), with servers that run here.
cat >"$U/dotfiles/codex.toml" <<TOML
# Codex's settings.  Root keys come before any table.
model = "gpt-5.1"
model_provider = "ollama"

[model_providers.ollama]
# Name of the provider that will be displayed in the Codex UI.
name = "Ollama"
base_url = "http://localhost:11434/v1"

[profiles.o3]
model = "o3"
approval_policy = "never"

# The top-level table name must be \`mcp_servers\`.
[mcp_servers.alpha]
command = "$MCP_FAKE"
args = ["--startlog=$U/starts/alpha.starts"]
# Optional: override the default 10s startup timeout
startup_timeout_sec = 20

[mcp_servers.alpha.env]
MCPD_TEST_DIR = "$T"

[mcp_servers.beta]
command = "$MCP_FAKE"
args = ["--startlog=$U/starts/beta.starts"]
env = { "MCPD_TEST_DIR" = "$T" }
tool_timeout_sec = 30

# A streamable HTTP server, switched off.
[mcp_servers.remote]
url = "http://127.0.0.1:9/mcp"
http_headers = { "X-Region" = "us-east-1" }
enabled = false

[features]
web_search_request = true
TOML
cp "$U/dotfiles/codex.toml" "$T/codex.orig"
ln -s "$U/dotfiles/codex.toml" "$CODEX" || hard_error "ln -s $CODEX"
[ ${#AS_USER[@]} = 0 ] || chown -hR nobody "$U" || hard_error "chown $U"

start_mcpd "$CFG"
wait_ready keep

# toml_get FILE SERVER: the server's command and args, one a line, as a
# TOML reader of its own reads them (Python's tomllib), or from the lines
# install writes when there is none.
if python3 -c 'import tomllib' 2>/dev/null; then
	toml_get() {
		python3 -c '
import sys, tomllib
s = tomllib.load(open(sys.argv[1], "rb"))["mcp_servers"][sys.argv[2]]
print("\n".join([s["command"]] + s.get("args", [])))' "$1" "$2"
	}
	# toml_rest FILE: every table but mcp_servers, as JSON.
	toml_rest() {
		python3 -c '
import sys, json, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
d.pop("mcp_servers", None)
print(json.dumps(d, sort_keys=True))' "$1"
	}
else
	note "no python3 with tomllib: command and args read from the lines install writes"
	toml_get() {
		sed -n "/^\[mcp_servers\.$2\]/,/^\[/p" "$1" |
			sed -n 's/^command = "\(.*\)"$/\1/p; s/^args = \[\(.*\)\]$/\1/p' |
			sed 's/", "/\n/g; s/^"//; s/"$//'
	}
	toml_rest() { grep -v '^#' "$1" | sed -n '1,/^\[mcp_servers/p'; }
fi

# --- import ------------------------------------------------------------------
ctl import --from codex --yes --config "$CFG" >"$T/import.out" 2>&1 ||
	fail "import --from codex exited $?: $(cat "$T/import.out")"
grep -q '^codex ~/.codex/config.toml: alpha: added$' "$T/import.out" ||
	fail "import does not report alpha: $(cat "$T/import.out")"
grep -q '"startup_timeout_sec": the app.s own setting, dropped' "$T/import.out" ||
	fail "Codex's own setting is not reported: $(cat "$T/import.out")"
keys=$(jq -c '.mcpServers | keys' "$CFG")
[ "$keys" = '["alpha","beta","keep","remote"]' ] || fail "mcpd.json servers: $keys"
jq -e --arg t "$T" --arg u "$U" --arg f "$MCP_FAKE" '
	.mcpServers.alpha == {"command": $f, "args": ["--startlog=\($u)/starts/alpha.starts"], "env": {"MCPD_TEST_DIR": $t}, "sandbox": "default"}
	and .mcpServers.beta.env == {"MCPD_TEST_DIR": $t}
	and .mcpServers.remote == {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Region": "us-east-1"}, "disabled": true}' \
	"$CFG" >/dev/null || fail "mcpd.json entries: $(cat "$CFG")"
cmp -s "$CODEX" "$T/codex.orig" || fail "import changed Codex's file"
wait_ready alpha
wait_ready beta
[ "$(server_field remote state)" = stopped ] ||
	fail "remote is $(server_field remote state), not stopped"

# --- install -------------------------------------------------------------------
ctl install codex --yes --config "$CFG" >"$T/install.out" 2>&1 ||
	fail "install codex exited $?: $(cat "$T/install.out")"
cmp -s "$CODEX.mcpd-backup" "$T/codex.orig" || fail "the backup is not the original"
[ -L "$CODEX" ] && grep -q 'connect' "$U/dotfiles/codex.toml" ||
	fail "install replaced the link to Codex's file instead of the file"
for s in alpha beta remote; do
	mapfile -t argv < <(toml_get "$CODEX" "$s")
	[ "${argv[*]}" = "$SELF connect $s -s $SOCK" ] ||
		fail "$s after install runs '${argv[*]}': $(cat "$CODEX")"
done
# Every comment, Codex's own settings, the other tables: as they were.
while IFS= read -r line; do
	grep -qxF -- "$line" "$CODEX" || fail "install dropped '$line': $(cat "$CODEX")"
done < <(grep -E '^(#|startup_timeout_sec|tool_timeout_sec|enabled =|\[)' "$T/codex.orig" |
	grep -vxF '[mcp_servers.alpha.env]')
[ "$(toml_rest "$CODEX")" = "$(toml_rest "$T/codex.orig")" ] ||
	fail "install changed Codex's other tables: $(cat "$CODEX")"
! grep -qE '^(env|url|http_headers) =|MCPD_TEST_DIR' "$CODEX" ||
	fail "install left a server's old keys: $(cat "$CODEX")"

# Codex starts beta: its command and args, with HOME, PATH and the few
# variables Codex passes on (no XDG_RUNTIME_DIR), through mcpd to the one
# copy of beta mcpd runs.
mapfile -t argv < <(toml_get "$CODEX" beta)
codex_env=(env -i "HOME=$HOME" "PATH=$PATH" "USER=${USER:-test}" "LOGNAME=${LOGNAME:-test}"
	"SHELL=${SHELL:-/bin/sh}" "LANG=${LANG:-C}" "TMPDIR=${TMPDIR:-/tmp}")
out=$(cd "$T" && timeout -k 5 60 "${AS_USER[@]}" "${codex_env[@]}" "$NODE" "$T/app-entry.mjs" echo \
	'{"text":"codex through mcpd"}' -- "${argv[@]}" 2>"$T/sdk.err") ||
	fail "the SDK client failed: $(cat "$T/sdk.err")"
jq -e '.ok and .text == "codex through mcpd" and (.tools | index("echo"))' <<<"$out" >/dev/null ||
	fail "the SDK client through Codex's installed entry: $out $(cat "$T/sdk.err")"
[ "$(startlog_count "$U/starts/beta.starts")" = 1 ] ||
	fail "Codex's session started another copy of beta"
note "the official SDK client ran Codex's installed entry (${argv[*]}) in Codex's environment: $out"

# Again: every server runs through mcpd already.
ctl install codex --yes --config "$CFG" >"$T/again.out" 2>&1 ||
	fail "a second install exited $?: $(cat "$T/again.out")"
grep -q 'nothing to change' "$T/again.out" || fail "a second install: $(cat "$T/again.out")"

# --- uninstall -----------------------------------------------------------------
printf '# mine\n' >>"$CODEX"
ctl uninstall codex --yes >"$T/un1.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'changed since mcpctl install wrote it' "$T/un1.out" ||
	fail "uninstall of a changed file exited $rc: $(cat "$T/un1.out")"
cp "$CODEX.mcpd-installed" "$CODEX"
ctl uninstall codex --yes >"$T/un2.out" 2>&1 ||
	fail "uninstall exited $?: $(cat "$T/un2.out")"
cmp "$CODEX" "$T/codex.orig" || fail "uninstall did not restore Codex's file byte for byte"
[ -L "$CODEX" ] || fail "uninstall replaced the link to Codex's file"
[ ! -e "$CODEX.mcpd-backup" ] && [ ! -e "$CODEX.mcpd-installed" ] ||
	fail "uninstall left its copies"

# --- CODEX_HOME ------------------------------------------------------------------
mkdir -p "$T/codexhome"
printf '[mcp_servers.elsewhere]\ncommand = "%s"\n' "$MCP_FAKE" >"$T/codexhome/config.toml"
CODEX_HOME=$T/codexhome ctl import --from codex --dry-run --config "$CFG" >"$T/home.out" 2>&1 ||
	fail "import with CODEX_HOME exited $?: $(cat "$T/home.out")"
# shellcheck disable=SC2088  # the label mcpctl prints, not a path
grep -q "^codex $T/codexhome/config.toml: elsewhere: added" "$T/home.out" &&
	! grep -q '~/.codex/config.toml' "$T/home.out" ||
	fail "CODEX_HOME's file is not the one read: $(cat "$T/home.out")"

# --- hostile files ------------------------------------------------------------------
cp "$CFG" "$T/mcpd.json.before"
refused() {	# refused WHAT WANT: import and install refuse, nothing written
	local what=$1 want=$2
	cp "$CODEX" "$T/hostile"
	ctl import --from codex --yes --config "$CFG" >"$T/h.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -qF "$want" "$T/h.out" ||
		fail "import of $what exited $rc: $(cat "$T/h.out")"
	ctl install codex --yes --config "$CFG" >"$T/h.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -qF "$want" "$T/h.out" ||
		fail "install of $what exited $rc: $(cat "$T/h.out")"
	cmp -s "$CODEX" "$T/hostile" && cmp -s "$CFG" "$T/mcpd.json.before" ||
		fail "$what: a file was written"
	[ ! -e "$CODEX.mcpd-backup" ] || fail "$what: install left a backup"
}
{ cat "$T/codex.orig"; printf '[mcp_servers.beta]\ncommand = "x"\n'; } >"$U/dotfiles/codex.toml"
refused "a table defined twice" \
	"mcpctl: ~/.codex/config.toml: line 38, column 1: a table defined twice"
{ cat "$T/codex.orig"; printf '# a\0b\n'; } >"$U/dotfiles/codex.toml"
refused "a NUL byte" "mcpctl: ~/.codex/config.toml: line 38, column 4: a NUL byte"
{ cat "$T/codex.orig"; printf 'x = "never closed\n'; } >"$U/dotfiles/codex.toml"
refused "an unterminated string" \
	"mcpctl: ~/.codex/config.toml: line 38, column 5: an unterminated string"
# Read, but not rewritten in place: install refuses, import has it already.
sed 's/^\[mcp_servers.beta\]$/[mcp_servers]\nbeta = { command = "'"${MCP_FAKE//\//\\/}"'", args = ["--startlog='"${U//\//\\/}"'\/starts\/beta.starts"], env = { "MCPD_TEST_DIR" = "'"${T//\//\\/}"'" } }\n[mcp_servers.beta-old]/' \
	"$T/codex.orig" >"$U/dotfiles/codex.toml"
cp "$CODEX" "$T/hostile"
ctl install codex --yes --config "$CFG" >"$T/h.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'mcp_servers.beta: line [0-9]*: the server is one inline table' "$T/h.out" ||
	fail "install of an inline table server exited $rc: $(cat "$T/h.out")"
cmp -s "$CODEX" "$T/hostile" && [ ! -e "$CODEX.mcpd-backup" ] ||
	fail "a refused install wrote Codex's file"
cp "$T/codex.orig" "$U/dotfiles/codex.toml"

# --- a file changed between the diff and the answer ----------------------------------
if command -v script >/dev/null 2>&1; then
	mkfifo "$T/answer"
	(
		wait_for 60 grep -q 'Point' "$T/tty.out" || exit 1
		printf '# changed\n' >>"$CODEX"
		cp "$CODEX" "$T/codex.changed"
		printf 'y\n'
		wait_for 90 test -e "$T/tty.done"
	) >"$T/answer" &
	answerer=$!
	timeout -k 5 60 script -qfec "${AS_USER[*]} '$MCPCTL' -s '$SOCK' install codex --config '$CFG'" \
		"$T/tty.out" <"$T/answer" >/dev/null 2>&1
	rc=$?
	touch "$T/tty.done"
	wait "$answerer" || fail "the question never came: $(cat "$T/tty.out")"
	[ "$rc" = 1 ] && grep -q 'changed since it was read; nothing written' "$T/tty.out" ||
		fail "install of a file changed meanwhile exited $rc: $(cat "$T/tty.out")"
	cmp -s "$CODEX" "$T/codex.changed" || fail "the changed file was overwritten"
	[ ! -e "$CODEX.mcpd-backup" ] || fail "a refused install left a backup"
else
	note "no script(1): the answer to install's question is not tested"
fi

stop_mcpd
echo "PASS: $TEST_NAME"
