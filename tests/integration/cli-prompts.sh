#!/bin/bash
# cli-prompts.sh -- mcpctl prompts, prompt, resources and read against
# prompts-server.mjs (arguments, pages, a blob, control characters),
# cli-server.mjs (tools only) and mcp-fake, on servers and a group:
#
# - prompts listed with their arguments, "(required)" for those that are;
#   the one a filter hides left out; --json the array as listed;
# - a prompt's messages under their roles; values are strings (name=42
#   is "42"); a required argument left out, or one the prompt does not
#   take, refused (exit 2) naming the prompt's arguments; the hidden one
#   said to be "hidden by a filter";
# - every resource across the server's pages (23 items and three more in
#   pages of 10; the hidden one left out) and its templates (pages of 2);
# - a text resource printed, a blob as one line, or its bytes written by
#   --output, decoded (the 512 bytes compared); two contents refused for
#   --output, no file made;
# - text with ESC [ 31m, a bell and a carriage return, in a description,
#   a name, a message and a resource, printed escaped, never raw;
# - through the group: prompts under MEMBER__PROMPT, resources of both
#   members, a read routed to its member;
# - a server without the capability: "cli offers no prompts" (exit 1);
#   an unknown server; options anywhere after the command.

# shellcheck source=lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"

need_node
for f in prompts-server.mjs cli-server.mjs; do
	cp "$TESTS_SRCDIR/integration/$f" "$T/" || hard_error "cannot copy $f"
done

write_config "$T/mcpd.json" <<JSON
{
  "mcpServers": {
    "p": {"command": "$NODE", "args": ["$T/prompts-server.mjs"],
          "env": {"MCPD_TEST_DIR": "$T"},
          "prompts": {"deny": ["secret"]},
          "resources": {"deny": ["test://secret"]}},
    "cli": {"command": "$NODE", "args": ["$T/cli-server.mjs"],
            "env": {"MCPD_TEST_DIR": "$T"}},
    "fake": {"command": "$MCP_FAKE"}
  },
  "groups": {
    "g": {"servers": ["p", "fake"]}
  }
}
JSON
start_mcpd "$T/mcpd.json"
wait_ready p
wait_ready cli
wait_ready fake

# expect_out NAME WANT WHAT: stdout is exactly WANT.
expect_out() {
	[ "$(cat "$T/$1.out")" = "$2" ] ||
		fail "$3: got '$(cat "$T/$1.out")', expected '$2'"
}

# expect_err NAME TEXT WHAT: stderr holds TEXT.
expect_err() {
	grep -qF -- "$2" "$T/$1.err" ||
		fail "$3: stderr '$(cat "$T/$1.err")' lacks '$2'"
}

# no_raw NAME WHAT: neither stream holds a raw ESC, BEL or CR.
no_raw() {
	if LC_ALL=C grep -q $'[\x1b\x07\r]' "$T/$1.out" "$T/$1.err"; then
		fail "$2: a raw control character reached the terminal: $(od -c "$T/$1.out" | head -5)"
	fi
}

# --- prompts ----------------------------------------------------------------------
ctl_run prompts prompts p
ctl_rc 0 prompts "prompts p"
grep -qE '^greet +Greet someone\.$' "$T/prompts.out" ||
	fail "prompts p: no line for greet: $(cat "$T/prompts.out")"
grep -qE '^  name +\(required\) Who to greet$' "$T/prompts.out" &&
	grep -qE '^  greeting +What to say$' "$T/prompts.out" ||
	fail "prompts p: greet's arguments not listed: $(cat "$T/prompts.out")"
grep -q secret "$T/prompts.out" && fail "prompts p: the hidden prompt is listed"
grep -qF 'Paint it \x1b[31mred\x1b[0m' "$T/prompts.out" ||
	fail "prompts p: the description with ESC not escaped: $(cat "$T/prompts.out")"
no_raw prompts "prompts p"
note "prompts p: $(tr '\n' '|' <"$T/prompts.out")"

ctl_run promptsj prompts p --json
ctl_rc 0 promptsj "prompts p --json"
jq -e '[.[].name] == ["plain", "greet", "colors"] and
	.[1].arguments[0] == {"name": "name", "description": "Who to greet", "required": true}' \
	"$T/promptsj.out" >/dev/null ||
	fail "prompts p --json: $(cat "$T/promptsj.out")"

ctl_run greet prompt p greet name=Ann greeting=Hi
ctl_rc 0 greet "prompt p greet name=Ann greeting=Hi"
expect_out greet $'[user]\nHi, Ann!\n[assistant]\nArgs: {"name":"Ann","greeting":"Hi"}' \
	"prompt p greet name=Ann greeting=Hi"
ctl_run greet42 prompt p greet name=42
ctl_rc 0 greet42 "prompt p greet name=42"
grep -qF 'Args: {"name":"42"}' "$T/greet42.out" ||
	fail "prompt arguments are strings: $(cat "$T/greet42.out")"

ctl_run missing prompt p greet greeting=Hi
ctl_rc 2 missing "prompt p greet greeting=Hi"
expect_err missing 'mcpctl: p: greet: missing required argument name' "a required argument left out"
expect_err missing 'its arguments: name (required), greeting' "a required argument left out"
ctl_run unknown prompt p greet name=x bogus=1
ctl_rc 2 unknown "prompt p greet name=x bogus=1"
expect_err unknown 'greet: unknown argument "bogus" (its arguments: name (required), greeting)' \
	"an argument the prompt does not take"
ctl_run noargs prompt p plain x=1
ctl_rc 2 noargs "prompt p plain x=1"
expect_err noargs 'plain: unknown argument "x" (it takes no arguments)' "an argument for a prompt without"
ctl_run badword prompt p greet name
ctl_rc 2 badword "prompt p greet name"
expect_err badword 'expected KEY=VALUE, got "name"' "a word without ="
note "prompt p greet greeting=Hi: $(cat "$T/missing.err")"

ctl_run colors prompt p colors
ctl_rc 0 colors "prompt p colors"
expect_out colors $'[user]\n\\x1b[31mred\\x1b[0m\\x07 done\\r' "a message with control characters"
no_raw colors "prompt p colors"

ctl_run hidden prompt p secret
ctl_rc 1 hidden "prompt p secret"
expect_err hidden 'mcpctl: p: prompts/get: secret: hidden by a filter' "a prompt a filter hides"

# Options anywhere after the command; "--" ends them.
ctl_run pjson prompt p greet name=Ann --json
ctl_rc 0 pjson "prompt p greet name=Ann --json"
jq -e '.messages[0] == {"role": "user", "content": {"type": "text", "text": "Hello, Ann!"}}' \
	"$T/pjson.out" >/dev/null || fail "prompt ... --json: $(cat "$T/pjson.out")"
ctl_run dashes prompt p greet -- name=--json
ctl_rc 0 dashes "prompt p greet -- name=--json"
grep -qxF 'Hello, --json!' "$T/dashes.out" || fail "after --, words are the prompt's: $(cat "$T/dashes.out")"

# --- resources --------------------------------------------------------------------
ctl_run res resources p
ctl_rc 0 res "resources p"
[ "$(grep -c '^test://item/[0-9]' "$T/res.out")" = 23 ] ||
	fail "resources p: not every page listed: $(grep -c '^test://item/[0-9]' "$T/res.out") items of 23"
grep -qE '^test://blob +blob \(application/octet-stream\)$' "$T/res.out" ||
	fail "resources p: no line for the blob: $(cat "$T/res.out")"
grep -qF 'esc \x1b[31mape' "$T/res.out" || fail "resources p: a name with ESC not escaped"
grep -q 'test://secret' "$T/res.out" && fail "resources p: the hidden resource is listed"
sed -n '/^resource templates:$/,$p' "$T/res.out" >"$T/templates.out"
[ "$(grep -c '^test://' "$T/templates.out")" = 3 ] &&
	grep -qE '^test://blob/\{n\} +A blob$' "$T/templates.out" ||
	fail "resources p: templates of both pages not listed: $(cat "$T/res.out")"
no_raw res "resources p"

ctl_run resj resources --json p
ctl_rc 0 resj "resources --json p"
jq -e '(.resources | length) == 26 and (.resourceTemplates | length) == 3 and
	.resources[25].uri == "test://multi" and
	.resourceTemplates[2].uriTemplate == "test://other/{x}"' "$T/resj.out" >/dev/null ||
	fail "resources --json p: $(jq -c '[(.resources | length), (.resourceTemplates | length)]' "$T/resj.out")"
note "resources p: $(jq -c '[(.resources | length), (.resourceTemplates | length)]' "$T/resj.out") resources and templates over pages of 10 and 2"

ctl_run text read p test://item/3
ctl_rc 0 text "read p test://item/3"
expect_out text 'item 3' "read p test://item/3"
ctl_run esc read p test://escape
ctl_rc 0 esc "read p test://escape"
expect_out esc '\x1b[31mred\x1b[0m\x07 done\r' "a resource with control characters"
no_raw esc "read p test://escape"

ctl_run blob read p test://blob
ctl_rc 0 blob "read p test://blob"
expect_out blob '[blob test://blob application/octet-stream, 512 bytes; --output FILE writes them]' \
	"read p test://blob"
ctl_run blobfile read p test://blob --output "$T/blob.bin"
ctl_rc 0 blobfile "read p test://blob --output FILE"
for i in 0 1; do
	for b in $(seq 0 255); do
		printf "\\x$(printf %02x "$b")"
	done
done >"$T/want.bin"
[ "$(stat -c %s "$T/blob.bin")" = 512 ] && cmp -s "$T/blob.bin" "$T/want.bin" ||
	fail "read --output: the blob's bytes differ: $(stat -c %s "$T/blob.bin") bytes, $(sha256sum <"$T/blob.bin")"
ctl_run blobjson read --json p test://blob
ctl_rc 0 blobjson "read --json p test://blob"
jq -r '.contents[0].blob' "$T/blobjson.out" | base64 -d | cmp -s - "$T/want.bin" ||
	fail "read --json: the blob is not the server's: $(head -c 300 "$T/blobjson.out")"
note "read --output: $(sha256sum <"$T/blob.bin" | cut -c1-16)... $(stat -c %s "$T/blob.bin") bytes"
ctl_run textfile read p -o "$T/item.txt" test://item/2
ctl_rc 0 textfile "read p -o FILE test://item/2"
[ "$(od -An -c "$T/item.txt" | tr -s ' ')" = ' i t e m 2' ] ||
	fail "read -o of a text: $(od -c "$T/item.txt")"

ctl_run multi read p test://multi
ctl_rc 0 multi "read p test://multi"
expect_out multi $'[test://multi/a text/plain]\npart a\n[blob test://multi/b image/png, 3 bytes; --output FILE writes them]' \
	"two contents"
ctl_run multifile read p test://multi --output "$T/multi.bin"
ctl_rc 1 multifile "read p test://multi --output FILE"
expect_err multifile 'test://multi: the server returned 2 contents; --output writes one' "two contents to a file"
[ -e "$T/multi.bin" ] && fail "read --output made a file of a refused read"

ctl_run hiddenr read p test://secret
ctl_rc 1 hiddenr "read p test://secret"
expect_err hiddenr 'mcpctl: p: resources/read: test://secret: hidden by a filter' "a resource a filter hides"
ctl_run nores read p test://none
ctl_rc 1 nores "read p test://none"
expect_err nores 'resource not found: test://none' "a resource the server does not have"

# --- through the group --------------------------------------------------------------
ctl_run gprompts prompts g
ctl_rc 0 gprompts "prompts g"
grep -qE '^p__greet +Greet someone\.$' "$T/gprompts.out" ||
	fail "prompts g: not under the group's names: $(cat "$T/gprompts.out")"
ctl_run gprompt prompt g p__greet name=Bo --json
ctl_rc 0 gprompt "prompt g p__greet name=Bo --json"
[ "$(jq -r '.messages[0].content.text' "$T/gprompt.out")" = 'Hello, Bo!' ] ||
	fail "prompt g p__greet: $(cat "$T/gprompt.out")"
ctl_run gmissing prompt g p__greet
ctl_rc 2 gmissing "prompt g p__greet"
expect_err gmissing 'p__greet: missing required argument name' "through the group, a required argument"
ctl_run ghidden prompt g p__secret
ctl_rc 1 ghidden "prompt g p__secret"
expect_err ghidden 'prompts/get: p__secret: hidden by a filter' "through the group, a hidden prompt"
ctl_run gres resources g --json
ctl_rc 0 gres "resources g --json"
jq -e '(.resources | length) == 28 and ([.resources[].uri] | index("fake://hello")) != null and
	(.resourceTemplates | length) == 3' "$T/gres.out" >/dev/null ||
	fail "resources g: $(jq -c '[.resources[].uri]' "$T/gres.out")"
ctl_run gread read g fake://hello
ctl_rc 0 gread "read g fake://hello"
expect_out gread 'Hello from mcp-fake.' "read g fake://hello"
ctl_run gread2 read g test://item/7
ctl_rc 0 gread2 "read g test://item/7"
expect_out gread2 'item 7' "read g test://item/7"
# A resource a member's filter hides: said so through the group too.
ctl_run ghiddenr read g test://secret
ctl_rc 1 ghiddenr "read g test://secret"
expect_err ghiddenr 'resources/read: test://secret: hidden by a filter' "through the group, a hidden resource"

# --- what a server does not offer ------------------------------------------------
ctl_run nop prompts cli
ctl_rc 1 nop "prompts cli"
expect_err nop 'mcpctl: cli offers no prompts' "a server without prompts"
ctl_run nor resources cli
ctl_rc 1 nor "resources cli"
expect_err nor 'mcpctl: cli offers no resources' "a server without resources"
ctl_run nor2 read cli test://x
ctl_rc 1 nor2 "read cli test://x"
expect_err nor2 'mcpctl: cli offers no resources' "read on a server without resources"
ctl_run empty prompts fake
ctl_rc 0 empty "prompts fake"
expect_err empty 'mcpctl: fake: the server offers no prompts' "a server with no prompts"
ctl_run nosrv prompts nosuch
ctl_rc 1 nosrv "prompts nosuch"
expect_err nosrv 'nosuch: unknown server' "an unknown server"
note "prompts cli: $(cat "$T/nop.err")"

mcpd_running || fail "mcpd died"
exit 0
