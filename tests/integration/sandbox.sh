#!/bin/bash
# sandbox.sh -- servers in a sandbox through mcpd.  Under "default" the
# test server (sbprobe --mcp) cannot read a planted ~/.ssh/id_test or a
# sign-in's token file, cannot write outside its directories (but can
# in its private one, its working directory), cannot connect to mcpd's
# socket; with "network": "none" it cannot reach a listener on the
# host's 127.0.0.1; with "sandbox": "off" all of it works (the control).
# mcpctl status names the layers that hold, and "not sandboxed" for an
# entry without the key.  A server that exits at once on a denial has
# its exit point at the sandbox.  With "sandbox_required", a layer the
# kernel refuses (here: user namespaces, refused to mcpd itself by a
# seccomp filter) fails the start, saying which and why.

. "$TESTS_SRCDIR/integration/lib.sh"

for _v in SBRUN SBPROBE; do
	[ -x "${!_v:-}" ] || hard_error "$_v is not set or not executable"
done
"$SBRUN" -q -l landlock,seccomp -x / -- true 2>"$T/probe.err" ||
	skip "no Landlock or seccomp here: $(cat "$T/probe.err")"
netns=1
"$SBRUN" -q -l netns -n none -- true 2>/dev/null || netns=0
# LeakSanitizer's check at exit needs ptrace, which seccomp refuses to
# the sandboxed servers and, below, to mcpd itself.
ASAN_ENV=
if sanitized "$MCPD"; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	ASAN_ENV=', "ASAN_OPTIONS": "'"$ASAN_OPTIONS"'"'
fi

export HOME=$T/home
mkdir -p "$HOME/.ssh" "$T/run" "$T/state/mcpd/tokens" "$T/elsewhere"
echo planted-key >"$HOME/.ssh/id_test"
echo '{"access_token":"secret-token"}' >"$T/state/mcpd/tokens/p.json"
chmod 0700 "$T/run"
SOCK=$T/run/mcpd.sock

"$SBPROBE" listen "$T/port" &
LISTENER=$!
stop_listener() { kill "$LISTENER" 2>/dev/null; }
CLEANUP_HOOKS+=(stop_listener)
wait_for 10 test -s "$T/port" || fail "the listener did not start"
PORT=$(cat "$T/port")

probe_entry() {
	printf '{ "command": "%s", "args": ["--mcp"], "env": {"MCPD_TEST_DIR": "%s"%s}%s }' \
		"$SBPROBE" "$T" "$ASAN_ENV" "${1:+, $1}"
}
write_config "$T/mcpd.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 100, "backoff_max_ms": 200 },
  "mcpServers": {
    "p": $(probe_entry '"sandbox": "default"'),
    "pnone": $(probe_entry '"sandbox": {"network": "none"}'),
    "off": $(probe_entry '"sandbox": "off"'),
    "plain": $(probe_entry),
    "denied": { "command": "/bin/sh", "args": ["-c", "cat $HOME/.ssh/id_test"],
      "sandbox": "default", "env": {"MCPD_TEST_DIR": "$T"} }
  }
}
JSON
# A private directory left wider than 0700 (by hand, an older mcpd) is
# narrowed again.
mkdir -p -m 0755 "$T/state/mcpd-sandbox/p"
start_mcpd "$T/mcpd.json"
for s in p pnone off plain; do wait_ready "$s"; done
[ "$(stat -c %a "$T/state/mcpd-sandbox/p")" = 700 ] ||
	fail "p: its private directory is mode $(stat -c %a "$T/state/mcpd-sandbox/p")"

# call SERVER TOOL ARG: the tool's text.
call() {
	ctl call "$1" "$2" "arg=$3" 2>&1
}
# refused SERVER TOOL ARG WHAT
refused() {
	local out
	out=$(call "$1" "$2" "$3")
	[[ "$out" == *"error: "* ]] || fail "$1: $4 was not refused: $out"
}
# allowed SERVER TOOL ARG WHAT
allowed() {
	local out
	out=$(call "$1" "$2" "$3")
	[[ "$out" == ok* ]] || fail "$1: $4 was refused: $out"
}

# The control: unsandboxed, all of it works.
allowed off read "$HOME/.ssh/id_test" "reading ~/.ssh/id_test"
allowed off read "$T/state/mcpd/tokens/p.json" "reading the token file"
allowed off write "$T/elsewhere/x" "writing outside"
allowed off unix "$SOCK" "connecting to mcpd's socket"
allowed off tcp "$PORT" "connecting to 127.0.0.1:$PORT"
allowed plain read "$HOME/.ssh/id_test" "reading ~/.ssh/id_test"

# The default profile.
refused p read "$HOME/.ssh/id_test" "reading ~/.ssh/id_test"
refused p read "$T/state/mcpd/tokens/p.json" "reading the token file"
refused p write "$T/elsewhere/x" "writing outside its directories"
refused p write "$HOME/x" "writing in the home"
refused p unix "$SOCK" "connecting to mcpd's socket"
out=$(call p unix "$SOCK")
[[ "$out" == *"Permission denied"* ]] || fail "p: socket(AF_UNIX) not EACCES: $out"
allowed p write "x" "writing in its working directory"
allowed p write "$T/state/mcpd-sandbox/p/y" "writing in its private directory"
allowed p socketpair "" "socketpair"
allowed p tcp "$PORT" "the network (any)"
[ -e "$T/state/mcpd-sandbox/p/x" ] || fail "p: its working directory is not its private one"

# No network.
refused pnone tcp "$PORT" "connecting to the host's 127.0.0.1:$PORT"
refused pnone inet "" "an inet socket"

# What status says.
held=$(server_field p sandbox)
[[ "$held" == "default; landlock "*": files"*"; seccomp" ]] || fail "p: status sandbox: $held"
held=$(server_field pnone sandbox)
[[ "$held" == "custom; landlock "*"tcp"*"; seccomp"* ]] || fail "pnone: status sandbox: $held"
if [ "$netns" = 1 ]; then
	[[ "$held" == *"; netns" ]] || fail "pnone: no netns in: $held"
fi
[ "$(server_field plain sandbox)" = "not sandboxed" ] ||
	fail "plain: status sandbox: $(server_field plain sandbox)"
ctl status p plain >"$T/status.out" || fail "mcpctl status p plain"
grep -q "^p: sandbox: default; landlock" "$T/status.out" || fail "mcpctl status p: $(cat "$T/status.out")"
grep -q "^plain: not sandboxed" "$T/status.out" || fail "mcpctl status plain: $(cat "$T/status.out")"

# A denial said so.
wait_for 20 eval '[[ "$(server_field denied last_exit)" == *"sandbox may have refused it"* ]]' ||
	fail "denied: last_exit $(server_field denied last_exit)"
grep -q 'denied: process .*the sandbox may have refused it: see "sandbox" in mcpd.json(5)' "$MCPD_LOG" ||
	fail "denied: the exit's log line does not point at the sandbox"
stop_mcpd

# Required, with user namespaces refused to mcpd itself.
write_config "$T/req.json" <<JSON
{
  "mcpd": { "backoff_min_ms": 100, "backoff_max_ms": 200 },
  "mcpServers": {
    "req": $(probe_entry '"sandbox": {"network": "none"}, "sandbox_required": true'),
    "notreq": $(probe_entry '"sandbox": {"network": "none"}')
  }
}
JSON
MCPD_PREFIX=("$SBRUN" -l seccomp -u --)
start_mcpd "$T/req.json"
wait_ready notreq
wait_for 20 eval '[[ "$(server_field req last_exit)" == "sandbox_required: netns is not available"* ]]' ||
	fail "req: last_exit $(server_field req last_exit)"
server_is req backoff starting || fail "req: state $(server_field req state)"
grep -q "notreq: sandbox: netns is not available" "$MCPD_LOG" ||
	fail "notreq: the missing layer was not logged"
refused notreq tcp "$PORT" "connecting without netns (seccomp alone)"
exit 0
