#!/bin/bash
# cli-everything.sh -- mcpctl prompts, prompt, resources and read on a
# real server: server-everything (pinned in tests/interop/package-lock.json)
# by itself and in a group with mcp-fake.
#
# Asserted: its prompts listed with their arguments (args-prompt's city
# required, state not, and without a description as the SDK lists it); args-prompt's message with the values given; city
# left out refused, naming it; resource-prompt's embedded resource; every
# resource it lists (one for each file of its docs directory) and both its
# templates; a document read is the file's text; a blob written with
# --output is the server's bytes, decoded; --json is valid JSON; through
# the group, prompts under "everything__" and both members' resources.
#
# node_modules comes from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard error.  By
# hand, from the top of the source tree with the build in build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   bash tests/interop/cli-everything.sh

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: cli-everything: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}	# npm ci may be slow; the checks are not
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

remote_setup
DOCS=$MODS/server-everything/dist/docs
[ -d "$DOCS" ] || hard_error "no $DOCS"
NDOCS=$(find "$DOCS" -maxdepth 1 -type f | wc -l)
[ "$NDOCS" -gt 0 ] || hard_error "no files in $DOCS"

# `$` is doubled since mcpd expands ${VAR} in these.
config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg t "$T" \
	--arg fake "$MCP_FAKE" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000 },
		mcpServers: {
			everything: { command: ($node | lit),
				args: ([$ev, "stdio"] | map(lit)),
				cwd: ($t | lit), env: { MCPD_TEST_DIR: ($t | lit) } },
			fake: { command: ($fake | lit),
				env: { MCPD_TEST_DIR: ($t | lit) } }
		},
		groups: { g: { servers: ["everything", "fake"] } }
	}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready everything "$READY_TIMEOUT_S"
wait_ready fake

# --- prompts ----------------------------------------------------------------------
ctl_run prompts prompts everything
ctl_rc 0 prompts "prompts everything"
for p in simple-prompt args-prompt resource-prompt; do
	grep -qE "^$p( |\$)" "$T/prompts.out" ||
		fail "prompts everything: no $p: $(cat "$T/prompts.out")"
done
grep -qE '^  city +\(required\) Name of the city$' "$T/prompts.out" &&
	grep -qE '^  state( |$)' "$T/prompts.out" ||
	fail "prompts everything: args-prompt's arguments: $(cat "$T/prompts.out")"
note "prompts everything: $(tr '\n' '|' <"$T/prompts.out")"

ctl_run args prompt everything args-prompt city=Paris state=France
ctl_rc 0 args "prompt everything args-prompt city=Paris state=France"
[ "$(cat "$T/args.out")" = $'[user]\nWhat\'s weather in Paris, France?' ] ||
	fail "prompt everything args-prompt: $(cat "$T/args.out")"
ctl_run nocity prompt everything args-prompt state=France
ctl_rc 2 nocity "prompt everything args-prompt state=France"
grep -qF 'args-prompt: missing required argument city' "$T/nocity.err" ||
	fail "a required argument left out: $(cat "$T/nocity.err")"
ctl_run embedded prompt everything resource-prompt resourceType=Text resourceId=1
ctl_rc 0 embedded "prompt everything resource-prompt resourceType=Text resourceId=1"
grep -qxF '[resource demo://resource/dynamic/text/1]' "$T/embedded.out" &&
	grep -q '^Resource 1: This is a plaintext resource' "$T/embedded.out" ||
	fail "resource-prompt's embedded resource: $(cat "$T/embedded.out")"
ctl_run json prompt everything --json args-prompt city=Oslo
ctl_rc 0 json "prompt everything --json args-prompt city=Oslo"
[ "$(jq -r '.messages[0].content.text' "$T/json.out")" = "What's weather in Oslo?" ] ||
	fail "prompt --json: $(cat "$T/json.out")"

# --- resources --------------------------------------------------------------------
ctl_run res resources everything --json
ctl_rc 0 res "resources everything --json"
jq -e --argjson n "$NDOCS" '(.resources | length) == $n and
	([.resourceTemplates[].uriTemplate] | sort) ==
	["demo://resource/dynamic/blob/{resourceId}",
	 "demo://resource/dynamic/text/{resourceId}"]' "$T/res.out" >/dev/null ||
	fail "resources everything: $(jq -c '[(.resources | length), [.resourceTemplates[].uriTemplate]]' "$T/res.out"), expected $NDOCS resources"
ctl_run resh resources everything
ctl_rc 0 resh "resources everything"
[ "$(grep -c '^demo://resource/static/document/' "$T/resh.out")" = "$NDOCS" ] &&
	grep -q '^demo://resource/dynamic/text/{resourceId} ' "$T/resh.out" ||
	fail "resources everything: $(cat "$T/resh.out")"
note "resources everything: $NDOCS documents, 2 templates"

ctl_run doc read everything demo://resource/static/document/architecture.md
ctl_rc 0 doc "read everything .../architecture.md"
# out_text ends the text with one newline if it has none.
{ cat "$DOCS/architecture.md"; [ -z "$(tail -c 1 "$DOCS/architecture.md")" ] || echo; } >"$T/doc.want"
cmp -s "$T/doc.out" "$T/doc.want" ||
	fail "read of a document is not its file: $(diff "$T/doc.want" "$T/doc.out" | head -5)"

ctl_run blob read everything demo://resource/dynamic/blob/1 --output "$T/blob.bin"
ctl_rc 0 blob "read everything demo://resource/dynamic/blob/1 --output FILE"
grep -qE '^Resource 1: This is a base64 blob created at [^[:cntrl:]]+$' "$T/blob.bin" &&
	[ "$(wc -l <"$T/blob.bin")" = 0 ] ||
	fail "the blob written is not the decoded bytes: $(od -c "$T/blob.bin" | head -4)"
ctl_run blobj read --json everything demo://resource/dynamic/blob/1
ctl_rc 0 blobj "read --json everything demo://resource/dynamic/blob/1"
jq -e '.contents[0].mimeType == "text/plain" and (.contents[0].blob | type) == "string"' \
	"$T/blobj.out" >/dev/null || fail "read --json: $(cat "$T/blobj.out")"
ctl_run blobh read everything demo://resource/dynamic/blob/1
ctl_rc 0 blobh "read everything demo://resource/dynamic/blob/1"
grep -qE '^\[blob demo://resource/dynamic/blob/1 text/plain, [0-9]+ bytes; --output FILE writes them\]$' \
	"$T/blobh.out" || fail "a blob for people: $(cat "$T/blobh.out")"
note "read --output: $(cat "$T/blob.bin")"

# --- through a group --------------------------------------------------------------
ctl_run gprompt prompt g everything__args-prompt city=Rome
ctl_rc 0 gprompt "prompt g everything__args-prompt city=Rome"
grep -qxF "What's weather in Rome?" "$T/gprompt.out" ||
	fail "through the group: $(cat "$T/gprompt.out")"
ctl_run gres resources g --json
ctl_rc 0 gres "resources g --json"
jq -e --argjson n "$NDOCS" '(.resources | length) == $n + 2 and
	([.resources[].uri] | index("fake://hello")) != null' "$T/gres.out" >/dev/null ||
	fail "resources g: $(jq -c '[.resources[].uri]' "$T/gres.out")"
ctl_run gread read g demo://resource/dynamic/text/2
ctl_rc 0 gread "read g demo://resource/dynamic/text/2"
grep -q '^Resource 2: This is a plaintext resource' "$T/gread.out" ||
	fail "read through the group: $(cat "$T/gread.out")"

mcpd_running || fail "mcpd died"
exit 0
