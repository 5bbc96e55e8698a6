#!/bin/bash
# sandbox.sh -- real servers under the default sandbox profile, through
# mcpctl: server-everything (its tools listed, echo called) and
# server-filesystem with its directory granted through its args (a file
# there read; a file outside it, in the home, refused by the server or
# the sandbox), each showing its layers in status; then the SDK client
# (sdk-client.mjs) through `mcpctl connect`, as an app launches it: all
# its server-everything checks (progress, sampling, a subscription, two
# clients) and server-filesystem reading its file, both sandboxed.
#
# node_modules comes from remote_setup (tests/remote/lib.sh).  Exit codes
# (automake): 0 pass, 1 fail, 77 skip (no Node.js, no Landlock),
# 99 hard error.

if [ -z "${TESTS_SRCDIR:-}" ]; then
	echo "ERROR: sandbox: TESTS_SRCDIR is not set (see tests/integration/lib.sh)" >&2
	exit 99
fi
TEST_TIMEOUT_S=${TEST_TIMEOUT_S:-900}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-90}

# shellcheck source=../integration/lib.sh
. "$TESTS_SRCDIR/integration/lib.sh"
# shellcheck source=../remote/lib.sh
. "$TESTS_SRCDIR/remote/lib.sh"

[ -n "${SBRUN:-}" ] && "$SBRUN" -q -l landlock,seccomp -x / -- true 2>/dev/null ||
	skip "no Landlock or seccomp here"
remote_setup
FS=$MODS/server-filesystem/dist/index.js
[ -f "$FS" ] || hard_error "no $FS"

mkdir -p "$T/run" "$T/files" "$T/home"
chmod 0700 "$T/run"
SOCK=$T/run/mcpd.sock
echo "hello from the granted directory" >"$T/files/note.txt"
echo "outside" >"$T/home/secret.txt"
export HOME=$T/home

config=$(jq -n --arg node "$NODE" --arg ev "$EVERYTHING" --arg fs "$FS" \
	--arg t "$T" '
	def lit: gsub("\\$"; "$$");
	{
		mcpd: { init_timeout_ms: 60000, sandbox: "default" },
		mcpServers: {
			everything: { command: ($node | lit),
				args: ([$ev, "stdio"] | map(lit)),
				env: { MCPD_TEST_DIR: ($t | lit) } },
			filesystem: { command: ($node | lit),
				args: ([$fs, $t + "/files"] | map(lit)),
				env: { MCPD_TEST_DIR: ($t | lit) } }
		}
	}') || hard_error "cannot build the configuration"
write_config_raw "$T/mcpd.json" "$config"
start_mcpd "$T/mcpd.json"
wait_ready everything "$READY_TIMEOUT_S"
wait_ready filesystem "$READY_TIMEOUT_S"

for s in everything filesystem; do
	held=$(server_field "$s" sandbox)
	[[ "$held" == "default; landlock "*"; seccomp"* ]] || fail "$s: status sandbox: $held"
done

ctl_run tools tools everything
ctl_rc 0 tools "mcpctl tools everything"
grep -q echo "$T/tools.out" || fail "everything: no echo tool: $(head -c 600 "$T/tools.out")"
ctl_run echo call everything echo message=sandboxed-hello
ctl_rc 0 echo "mcpctl call everything echo"
grep -q sandboxed-hello "$T/echo.out" || fail "everything: echo: $(cat "$T/echo.out")"

ctl_run read call filesystem read_text_file "path=$T/files/note.txt"
ctl_rc 0 read "mcpctl call filesystem read_text_file"
grep -q "hello from the granted directory" "$T/read.out" ||
	fail "filesystem: read: $(cat "$T/read.out" "$T/read.err")"
ctl_run outside call filesystem read_text_file "path=$T/home/secret.txt"
[ "$RC" != 0 ] && ! grep -q "^outside" "$T/outside.out" ||
	fail "filesystem: read a file outside its directory: $(cat "$T/outside.out")"

# The SDK client through `mcpctl connect`, as an app launches it.
MCPD_TEST_DIR=$T MCPCTL=$MCPCTL "${_MCPD_GUARD[@]}" \
	timeout -k 5 150 "$NODE" "$T/sdk-client.mjs" --socket "$SOCK" --server everything \
	--filesystem "filesystem:$T/files/note.txt:hello from the granted directory" \
	--timeout-s 120 </dev/null >"$T/client.out" 2>&1 &
CLIENT=$!
wait "$CLIENT"
rc=$?
sed 's/^/# /' "$T/client.out"
[ "$rc" = 0 ] || fail "sdk-client through mcpctl connect: exit $rc"
grep -q '^interop: [0-9]* passed, 0 failed' "$T/client.out" ||
	fail "sdk-client: no clean summary"
for s in everything filesystem; do
	[[ "$(server_field "$s" sandbox)" == "default; "* ]] || fail "$s: no longer sandboxed"
done
exit 0
