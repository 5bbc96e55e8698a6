# cgroup-lib.sh -- a scratch cgroup v2 for one test's mcpd (sourced after
# lib.sh by the tests that run mcpd in a cgroup of its own: contain.sh,
# freeze.sh, insider.sh).

CG=
# cgroup_scratch: create $CG below the cgroup2 mount; fails if impossible.
cgroup_scratch() {
	local mnt
	[ "$(id -u)" = 0 ] || return 1
	mnt=$(awk '$(NF-2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$mnt" ] && [ "$(stat -fc %T "$mnt" 2>/dev/null)" = cgroup2fs ] ||
		return 1
	# Named for this test's own directory (unique while it exists) and
	# shell, so that tests side by side, or one left over by a test
	# killed outright, never share one.
	CG=$mnt/mcpd-test.$$.${T##*.}
	mkdir "$CG" 2>/dev/null || { CG=; return 1; }
	CLEANUP_HOOKS+=(cgroup_remove_scratch)
}

# Whatever is left in the scratch cgroup (there should be nothing) is
# thawed and killed, then the directories go, leaves first.
cgroup_remove_scratch() {
	local d
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	for d in "$CG"/*/; do
		[ -d "$d" ] || continue
		echo 0 >"$d/cgroup.freeze" 2>/dev/null
		if [ "$(awk '$1 == "populated" { print $2 }' "$d/cgroup.events")" = 1 ]; then
			note "cleanup: processes left in $d: $(tr '\n' ' ' <"$d/cgroup.procs")"
			echo 1 >"$d/cgroup.kill" 2>/dev/null
			wait_for 10 eval '[ "$(awk '"'"'$1 == "populated" { print $2 }'"'"' "'"$d"'/cgroup.events")" = 0 ]'
		fi
		rmdir "$d" 2>/dev/null || note "cleanup: cannot remove $d"
	done
	rmdir "$CG" 2>/dev/null || note "cleanup: cannot remove $CG"
}
