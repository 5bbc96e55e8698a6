#!/bin/bash
# hostile-import.sh -- a project's MCP file asks for mcpd's secrets
# (issue 28, case 9).  A person clones a project whose .mcp.json (Claude
# Code's project scope) names a server with
#   "env": {"X": "${credential:github}", "Y": "${GITHUB_TOKEN}"}
# and runs `mcpctl import` in it, while mcpd runs with a systemd
# credential "github" and GITHUB_TOKEN in its environment.  In mcpd's
# configuration those forms are mcpd's credential and mcpd's variable,
# not the app's.  What the person must see, with numbers:
#
# - the import names each reference (credential and variable) in a note,
#   and imports the project's entry disabled, saying so on its line: it
#   is written to mcpd.json as the project wrote it, plus "disabled";
# - after the reload the project's server has not started (its start log
#   has 0 lines) and no server process holds either secret;
# - the same import with --from PATH (a file named by path, none of the
#   user's own) holds it back the same way;
# - the user's own Cursor file with ${env:GITHUB_TOKEN} gets a note
#   saying the value is mcpd's, and is not held back: it runs, with the
#   value mcpd was started with, as the note says.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

export HOME=$T/home
unset XDG_CONFIG_HOME
CRED=cred-S3CRET-of-mcpd-41
TOKEN=tok-S3CRET-of-mcpd-67
mkdir -p "$HOME/.cursor" "$T/creds" "$T/clone" "$T/starts" || hard_error "mkdir"
(umask 077 && printf '%s\n' "$CRED" >"$T/creds/github") ||
	hard_error "cannot write the credential"
export CREDENTIALS_DIRECTORY=$T/creds
export GITHUB_TOKEN=$TOKEN
CFG=$T/mcpd.json

write_config "$CFG" <<JSON
{
  "mcpServers": {
    "keep": {"command": "$MCP_FAKE"}
  }
}
JSON

# The cloned project's file: written by whoever wrote the project.
cat >"$T/clone/.mcp.json" <<JSON
{
  "mcpServers": {
    "proj": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/proj.starts"],
      "env": {
        "X": "\${credential:github}",
        "Y": "\${GITHUB_TOKEN}",
        "MCPD_TEST_DIR": "$T"
      }
    }
  }
}
JSON
# The user's own Cursor file.
cat >"$HOME/.cursor/mcp.json" <<JSON
{
  "mcpServers": {
    "mine": {
      "command": "$MCP_FAKE",
      "args": ["--startlog=$T/starts/mine.starts"],
      "env": {"Y": "\${env:GITHUB_TOKEN}", "MCPD_TEST_DIR": "$T"}
    }
  }
}
JSON

start_mcpd "$CFG"
wait_ready keep

# holders SECRET: the server processes (mcp-fake) whose environment
# holds SECRET.
holders() {
	local p n=0
	for p in /proc/[0-9]*; do
		[ "$p/exe" -ef "$MCP_FAKE" ] 2>/dev/null || continue
		_marked "${p#/proc/}" || continue
		grep -qzF "$1" "$p/environ" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}

# --- mcpctl import in the project's directory ---------------------------------
(cd "$T/clone" && ctl import --yes --config "$CFG") >"$T/import.out" 2>&1 ||
	fail "import exited $?: $(cat "$T/import.out")"
sed -n '/^--- /q; s/^/# import: /p' "$T/import.out"
wait_ready mine
wait_for 30 eval '[ -n "$(server_field proj state)" ]' ||
	fail "mcpd has no server proj after the import: $(cat "$T/import.out")"

proj_line=$(grep -E '[^ ]+/\.mcp\.json: proj: ' "$T/import.out")
notes_cred=$(grep -c 'env.X: ${credential:github} is mcpd.s systemd credential "github"' "$T/import.out")
notes_var=$(grep -c 'env.Y: ${GITHUB_TOKEN} is read from mcpd.s environment, not the app.s' "$T/import.out")
disabled=$(jq '.mcpServers.proj.disabled == true' "$CFG")
state=$(server_field proj state)
starts=$(startlog_count "$T/starts/proj.starts")
cred_holders=$(holders "$CRED")
token_holders=$(holders "$TOKEN")
note "project entry: '$proj_line'; notes: credential $notes_cred, variable $notes_var (of the 2 entries); disabled in mcpd.json: $disabled; state $state; started $starts time(s); server processes holding the credential: $cred_holders, the variable's value: $token_holders (mine's own: 1 expected)"

case "$proj_line" in
*"added, disabled until you check it"*) ;;
*) fail "the project's entry is not said to be held back: '$proj_line'" ;;
esac
# Two entries read the variable (the project's and the user's), one the
# credential.
[ "$notes_cred" = 1 ] || fail "the credential reference has $notes_cred notes, not 1"
[ "$notes_var" = 2 ] || fail "the variable reference has $notes_var notes, not 2"
grep -q 'a project.s file gets none of mcpd.s secrets unasked: imported disabled' "$T/import.out" ||
	fail "no note says why the project's entry is disabled"
[ "$disabled" = true ] || fail "mcpd.json's proj is not disabled: $(jq -c .mcpServers.proj "$CFG")"
jq -e --arg t "$T" '.mcpServers.proj.env == {"X": "${credential:github}",
	"Y": "${GITHUB_TOKEN}", "MCPD_TEST_DIR": $t}' "$CFG" >/dev/null ||
	fail "the project's env is not kept as written: $(jq -c .mcpServers.proj "$CFG")"
[ "$state" = stopped ] || fail "proj is $state, not stopped"
[ "$starts" = 0 ] || fail "the project's server started $starts time(s)"
[ "$cred_holders" = 0 ] || fail "$cred_holders server process(es) hold mcpd's credential"

# The user's own entry: said, and run with mcpd's value.
grep -q 'env.Y: ${GITHUB_TOKEN} is read from mcpd.s environment, not the app.s: give mcpd that variable' "$T/import.out" ||
	fail "the user's own entry has no note on \${GITHUB_TOKEN}"
grep -E '\.cursor/mcp\.json: mine: added$' "$T/import.out" >/dev/null ||
	fail "the user's own entry is not simply added: $(grep mine "$T/import.out")"
pid=$(server_pid mine) || fail "mine has no pid"
grep -qzxF "Y=$TOKEN" "/proc/$pid/environ" ||
	fail "the user's own server does not have mcpd's GITHUB_TOKEN, as its note says"
[ "$token_holders" = 1 ] || fail "$token_holders server processes hold the variable's value, not 1 (mine)"

# --- the same file named by path ----------------------------------------------
write_config "$T/other.json" '{"mcpServers": {}}'
ctl import --from "$T/clone/.mcp.json" --dry-run --config "$T/other.json" \
	>"$T/path.out" 2>&1 || fail "import --from PATH exited $?: $(cat "$T/path.out")"
grep -qE '\.mcp\.json: proj: added, disabled until you check it' "$T/path.out" ||
	fail "a project's file named by path is not held back: $(cat "$T/path.out")"
grep -q '^+ *"disabled": true' "$T/path.out" ||
	fail "the diff for a file named by path adds no \"disabled\": $(cat "$T/path.out")"
note "--from PATH: $(grep -E 'proj: ' "$T/path.out")"

stop_mcpd
echo "PASS: $TEST_NAME"
