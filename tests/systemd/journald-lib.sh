# journald-lib.sh -- a private systemd-journald for journal.sh and the
# tests in this directory (sourced after ../integration/lib.sh, not run).
#
# ../integration/journald-env.sh, run in a mount namespace of its own,
# mounts a fresh /run and tmpfs over the journal's directories and runs the
# real systemd-journald there; other processes join the namespace with
# nsenter (in_ns).  Nothing reaches the host's journal, nothing is made on
# the host, and two of these (journal.sh and catalog.sh, under `make -j
# check`) never see each other's journal or directories.
#
#   journald_can_run || skip "$JOURNALD_WHY"
#   journald_start
#   in_ns journalctl ...
#   (journald_stop runs on exit)

JOURNALD=
JOURNALD_WHY=
JD=$T/journald
JD_HOLDER=

# journald_can_run: root, the tools and a mount namespace are available.
journald_can_run() {
	local tool j
	if [ "$(id -u)" != 0 ]; then
		JOURNALD_WHY="needs root (mounts and a private systemd-journald)"
		return 1
	fi
	for tool in unshare nsenter setpriv journalctl mount; do
		if ! command -v "$tool" >/dev/null 2>&1; then
			JOURNALD_WHY="$tool is not installed"
			return 1
		fi
	done
	for j in /lib/systemd/systemd-journald /usr/lib/systemd/systemd-journald; do
		if [ -x "$j" ]; then
			JOURNALD=$j
			break
		fi
	done
	if [ -z "$JOURNALD" ]; then
		JOURNALD_WHY="systemd-journald is not installed"
		return 1
	fi
	if ! unshare --mount --propagation private true 2>/dev/null; then
		JOURNALD_WHY="cannot create a mount namespace here"
		return 1
	fi
	# The namespace gets a /run of its own, which would hide the test's.
	case $T/ in
	/run/*)
		JOURNALD_WHY="the test directory $T is below /run (set TMPDIR elsewhere)"
		return 1
		;;
	esac
}

journald_stop() {
	if [ -n "$JD_HOLDER" ]; then
		kill -TERM "$JD_HOLDER" 2>/dev/null
		wait_for 10 eval '! pid_running '"$JD_HOLDER" || kill -KILL "$JD_HOLDER" 2>/dev/null
		wait "$JD_HOLDER" 2>/dev/null
		JD_HOLDER=
	fi
}
CLEANUP_HOOKS+=(journald_stop)

journald_start() {
	mkdir -p "$JD" || hard_error "mkdir $JD"
	# The anchor dies with this shell even if the shell is killed outright.
	setpriv --pdeathsig TERM unshare --mount --propagation private \
		bash "$TESTS_SRCDIR/integration/journald-env.sh" "$JOURNALD" "$JD" \
		</dev/null >>"$JD/env.log" 2>&1 &
	JD_HOLDER=$!
	wait_for 60 eval '[ -e "$JD/ready" ] || [ -e "$JD/failed" ]' ||
		hard_error "the private journald did not come up within 60 s"
	if [ -e "$JD/failed" ]; then
		cat "$JD/env.log" "$JD/journald.log" >&2 2>/dev/null
		hard_error "private journald: $(cat "$JD/failed")"
	fi
	note "private systemd-journald pid $(cat "$JD/journald.pid") in the mount namespace of pid $JD_HOLDER"
}

in_ns() {
	nsenter -t "$JD_HOLDER" -m -- "$@"
}
