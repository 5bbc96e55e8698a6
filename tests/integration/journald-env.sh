#!/bin/bash
# journald-env.sh -- a private, real systemd-journald for journal.sh and
# tests/systemd (run by them through ../systemd/journald-lib.sh, not a test).
#
#   unshare --mount --propagation private bash journald-env.sh JOURNALD STATEDIR
#
# Runs as root in a new mount namespace.  It mounts a fresh, empty tmpfs
# over /run, and tmpfs file systems over the journal's directories there
# (/run/systemd/journal, /run/log/journal) and over /var/log/journal when
# it exists, so nothing reaches the host's journal and nothing is made on
# the host: any number of these run side by side (journal.sh beside
# catalog.sh under `make -j check`) without seeing each other.  It points
# journald at a configuration of its own (volatile storage, no kernel log,
# no forwarding, no rate limit), starts JOURNALD and then stays alive as
# the anchor of the namespace until it receives SIGTERM, when it stops
# journald and exits.  Other processes join the namespace with
# `nsenter -t THIS_PID -m`.
#
# STATEDIR receives:
#   journald.log  journald's own messages
#   journald.pid  its pid
#   ready         once journald listens on /run/systemd/journal/socket
#   failed        instead of ready, with the reason

set -u
journald=$1
dir=$2
socket=/run/systemd/journal/socket

failed() {
	echo "$*" >"$dir/failed"
	exit 1
}

# A /run of our own: the mount points below are made in it, not on the
# host, and no other journald's socket is in sight.
mount -t tmpfs -o mode=0755,size=16m mcpd-test-run /run ||
	failed "cannot mount a tmpfs over /run"
for d in /run/systemd/journal /run/log/journal /var/log/journal; do
	if [ "$d" != /var/log/journal ]; then
		mkdir -p "$d" || failed "mkdir $d failed"
	fi
	[ -d "$d" ] || continue
	mount -t tmpfs -o mode=0755,size=64m "mcpd-test-journal" "$d" ||
		failed "cannot mount a tmpfs over $d"
done

# journald reads /etc/systemd/journald.conf and drop-ins; give it ours.
conf=$dir/journald.conf
cat >"$conf" <<'EOF'
[Journal]
Storage=volatile
ReadKMsg=no
ForwardToSyslog=no
ForwardToKMsg=no
ForwardToConsole=no
ForwardToWall=no
RateLimitIntervalSec=0
RateLimitBurst=0
EOF
for f in /etc/systemd/journald.conf /usr/lib/systemd/journald.conf; do
	if [ -f "$f" ]; then
		mount --bind "$conf" "$f" || failed "cannot bind-mount over $f"
	fi
done
for d in /etc/systemd/journald.conf.d /run/systemd/journald.conf.d \
	/usr/lib/systemd/journald.conf.d /lib/systemd/journald.conf.d; do
	if [ -d "$d" ]; then
		mount -t tmpfs -o mode=0755,size=1m "mcpd-test-empty" "$d" ||
			failed "cannot hide $d"
	fi
done

# journald's own diagnostics go to its stderr, not to the kernel log.
SYSTEMD_LOG_TARGET=console setpriv --pdeathsig KILL "$journald" \
	</dev/null >>"$dir/journald.log" 2>&1 &
jpid=$!
echo "$jpid" >"$dir/journald.pid"

stop_journald() {
	kill -TERM "$jpid" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$jpid" 2>/dev/null || break
		# A zombie still answers kill -0; reap it when it is one.
		[ "$(awk '{ print $3 }' "/proc/$jpid/stat" 2>/dev/null)" = Z ] && break
		sleep 0.05
	done
	kill -KILL "$jpid" 2>/dev/null
	wait "$jpid" 2>/dev/null
	exit 0
}
trap stop_journald TERM INT HUP

for _ in $(seq 900); do
	[ -S "$socket" ] && break
	kill -0 "$jpid" 2>/dev/null || failed "journald exited at start-up (see journald.log)"
	sleep 0.05
done
[ -S "$socket" ] || {
	kill -KILL "$jpid" 2>/dev/null
	failed "journald did not create $socket within 45 s"
}
touch "$dir/ready"

# Hold the namespace while journald runs.
wait "$jpid"
echo "journald exited with status $?" >"$dir/failed"
exit 1
