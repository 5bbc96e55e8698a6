#!/bin/bash
# sandbox-layers.sh -- each layer of a server's sandbox holds on its own
# (sbrun applies one, sbprobe tries what it should refuse), and together:
# Landlock refuses a file outside its grants; seccomp (without Landlock,
# which would itself stop ptrace and signals across domains) refuses
# socket(AF_UNIX) with EACCES while socketpair works, io_uring_setup,
# unshare(CLONE_NEWUSER) and, with no network, inet sockets; the network
# namespace makes a listener on the host's 127.0.0.1 unreachable; Landlock
# TCP rules let one port through; no_new_privs is set; Landlock's scope
# refuses a signal to a process outside.  As the user running the tests
# and, when that is root, as nobody too.  Skipped only where the kernel
# lacks the layer (said why).

. "$TESTS_SRCDIR/integration/lib.sh"

for _v in SBRUN SBPROBE; do
	[ -x "${!_v:-}" ] || hard_error "$_v is not set or not executable"
done

abi=$("$SBRUN" -l landlock -x / -- true 2>&1 | sed -n 's/^sbrun: landlock \([0-9]*\).*/\1/p')
[ -n "$abi" ] || skip "the kernel has no Landlock (sbrun: $("$SBRUN" -l landlock -x / -- true 2>&1))"
"$SBRUN" -l seccomp -- true 2>&1 | grep -q 'seccomp' ||
	skip "seccomp filters are not available"
note "Landlock ABI $abi"

# expect WANT(ok|denied|GLOB) WHAT COMMAND...: sbprobe's output.
expect() {
	local want=$1 what=$2 out
	shift 2
	out=$("$@" 2>/dev/null)
	case "$want" in
	ok) [[ "$out" == ok* ]] || fail "$what: expected ok, got: $out" ;;
	*) [[ "$out" == $want ]] || fail "$what: expected $want, got: $out" ;;
	esac
}

as_user() {
	"$@"
}

LISTENER=
start_listener() {
	rm -f "$T/port"
	"$SBPROBE" listen "$T/port" &
	LISTENER=$!
	wait_for 10 test -s "$T/port" || fail "the listener did not start"
	PORT=$(cat "$T/port")
}
cleanup_listener() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
}
CLEANUP_HOOKS+=(cleanup_listener)

run_layers() {
	local who=$1 dir=$2
	shift 2
	local R=("$@" "$SBRUN")
	echo secret >"$dir/outside"
	mkdir -p "$dir/granted"
	echo fine >"$dir/granted/file"
	chmod -R a+rwX "$dir"
	local sys=(-x /usr -x /lib -x /lib64 -x /bin -x /etc -x "$(dirname "$SBPROBE")")
	# AddressSanitizer's runtime reads /proc/self/maps before main, as
	# the default profile lets every server; its leak check at exit
	# needs ptrace, which seccomp refuses.
	if sanitized "$SBPROBE"; then
		sys+=(-r /proc -r /sys)
		export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	fi

	# Landlock alone.
	expect ok "$who: landlock, a granted file" \
		"${R[@]}" -l landlock "${sys[@]}" -r "$dir/granted" -- "$SBPROBE" read "$dir/granted/file"
	expect '*Permission denied' "$who: landlock, a file outside the grants" \
		"${R[@]}" -l landlock "${sys[@]}" -r "$dir/granted" -- "$SBPROBE" read "$dir/outside"
	expect '*Permission denied' "$who: landlock, writing a read grant" \
		"${R[@]}" -l landlock "${sys[@]}" -r "$dir/granted" -- "$SBPROBE" write "$dir/granted/new"
	expect ok "$who: landlock, writing a write grant" \
		"${R[@]}" -l landlock "${sys[@]}" -w "$dir/granted" -- "$SBPROBE" write "$dir/granted/new"
	expect ok "$who: landlock alone leaves AF_UNIX sockets" \
		"${R[@]}" -l landlock -x / -- "$SBPROBE" socketpair

	# seccomp alone: no Landlock domain, so nothing else refuses these.
	expect '*socket: Permission denied' "$who: seccomp, socket(AF_UNIX)" \
		"${R[@]}" -l seccomp -- "$SBPROBE" unix "$T/nowhere.sock"
	expect ok "$who: seccomp, socketpair" \
		"${R[@]}" -l seccomp -- "$SBPROBE" socketpair
	expect ok "$who: seccomp -u, socket(AF_UNIX) allowed" \
		"${R[@]}" -l seccomp -u -- "$SBPROBE" socketpair
	expect '*io_uring_setup: Operation not permitted' "$who: seccomp, io_uring" \
		"${R[@]}" -l seccomp -- "$SBPROBE" iouring
	expect '*unshare: Operation not permitted' "$who: seccomp, a user namespace" \
		"${R[@]}" -l seccomp -- "$SBPROBE" userns
	expect ok "$who: seccomp, inet with any network" \
		"${R[@]}" -l seccomp -- "$SBPROBE" inet
	expect '*socket: Permission denied' "$who: seccomp, inet with no network" \
		"${R[@]}" -l seccomp -n none -- "$SBPROBE" inet
	expect ok "$who: seccomp alone, a signal outside" \
		"${R[@]}" -l seccomp -- "$SBPROBE" signal "$LISTENER"
	expect 'ok: 1' "$who: no_new_privs" "${R[@]}" -l nnp -- "$SBPROBE" nnp

	# Landlock TCP (ABI 4) and scope (ABI 6).
	if [ "$abi" -ge 4 ]; then
		expect ok "$who: landlock, the granted port" \
			"${R[@]}" -l landlock -x / -n "$PORT" -- "$SBPROBE" tcp "$PORT"
		expect '*connect: Permission denied' "$who: landlock, another port" \
			"${R[@]}" -l landlock -x / -n 1 -- "$SBPROBE" tcp "$PORT"
	fi
	if [ "$abi" -ge 6 ]; then
		expect '*kill: Operation not permitted' "$who: landlock scope, a signal outside" \
			"${R[@]}" -l landlock -x / -- "$SBPROBE" signal "$LISTENER"
	fi
}

start_listener
expect ok "control: the listener answers" "$SBPROBE" tcp "$PORT"
mkdir -m 0755 "$T/me"
run_layers "$(id -un)" "$T/me"

# The network namespace, where user namespaces may be made.
if ! "$SBRUN" -q -l netns -n none -- true 2>"$T/netns.err"; then
	note "no network namespace: $(cat "$T/netns.err")"
else
	expect '*connect: Connection refused' "netns: the host's 127.0.0.1" \
		"$SBRUN" -l netns -n none -- "$SBPROBE" tcp "$PORT"
	out=$("$SBRUN" -l netns -n none -- id -u 2>/dev/null)
	[ "$out" = "$(id -u)" ] || fail "netns: uid $out inside, not $(id -u)"
fi

# All of it, required, as a whole.
"$SBRUN" -q -n none -x / -- "$SBPROBE" nnp >"$T/all.out" 2>"$T/all.err" ||
	fail "all layers, required: $(cat "$T/all.err")"
grep -q "landlock $abi: files" "$T/all.err" || fail "all layers: $(cat "$T/all.err")"
grep -q "seccomp" "$T/all.err" || fail "all layers: $(cat "$T/all.err")"

# Root runs the tests in CI: the same as nobody, where setpriv can.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 0777 "$T/nobody"
	chmod 0755 "$T"
	run_layers nobody "$T/nobody" setpriv --reuid=65534 --regid=65534 --clear-groups
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$SBRUN" -q -l netns -n none -- true 2>/dev/null; then
		expect '*connect: Connection refused' "nobody: netns, the host's 127.0.0.1" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$SBRUN" -l netns -n none -- "$SBPROBE" tcp "$PORT"
	else
		note "nobody may not make user namespaces here"
	fi
	chmod 0700 "$T"
fi
exit 0
