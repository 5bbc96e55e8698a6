/*
 * freeze.c -- a server's processes frozen and thawed (see freeze.h).
 *
 * In a cgroup: "1" or "0" written to its cgroup.freeze; the kernel stops
 * every task of the cgroup (and of any below it) and says so with
 * "frozen 1" in cgroup.events.  Below a reaper (also when it could not
 * become a subreaper): the reaper is told with REAPER_SIG_FREEZE or
 * REAPER_SIG_THAW and signals every process it has below it; the
 * server's own process group gets SIGCONT from here at once, so that a
 * thawed server answers without waiting for the reaper's walk.  A
 * stopped server (its /proc state "T") is taken as frozen: the reaper
 * stops its group first.
 *
 * Memory: memory.reclaim (Linux 5.19) makes the kernel reclaim from the
 * cgroup; with no swap only clean file pages could go, so it is not
 * asked for (freeze_reclaim_why_not says why).
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "freeze.h"
#include "reaper.h"
#include "xmalloc.h"

#define FREEZE_READ_BYTES	4096

static int
freeze_cgroup_dir(const struct child_proc *cp, char *dir, size_t len)
{
	if (cp->containment != CHILD_CONTAIN_CGROUP || cgroup_root() == NULL)
		return (-1);
	snprintf(dir, len, "%s/%s", cgroup_root(), cp->cgroup_leaf);
	return (0);
}

/* A small file's text (NUL-ended, into buf), or -1. */
static int
freeze_read(const char *dir, const char *file, char *buf, size_t size)
{
	char	 path[CGROUP_DIR_MAX + 64];
	ssize_t	 n;
	int	 fd;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return (-1);
	buf[n] = '\0';
	return (0);
}

/* The reaper, or (no reaper) the server's group itself. */
static void
freeze_signal(const struct child_proc *cp, int to_reaper, int to_group)
{
	if (cp->exit_pid > 0 && cp->exit_pid != cp->pid)
		(void)kill(cp->exit_pid, to_reaper);
	else
		child_signal_group(cp->pid, to_group);
}

int
freeze_begin(const struct child_proc *cp, char **cause)
{
	char	 dir[CGROUP_DIR_MAX];

	*cause = NULL;
	if (freeze_cgroup_dir(cp, dir, sizeof dir) == 0) {
		if (cgroup_write(dir, "cgroup.freeze", "1") == 0)
			return (0);
		xasprintf(cause, "%s/cgroup.freeze: %s", dir, strerror(errno));
		return (-1);
	}
	if (cp->pid <= 0) {
		*cause = xstrdup("no process to freeze");
		return (-1);
	}
	freeze_signal(cp, REAPER_SIG_FREEZE, SIGSTOP);
	return (0);
}

/* The state letter of /proc/PID/stat, or 0. */
static char
freeze_proc_state(pid_t pid)
{
	char	 dir[64], buf[FREEZE_READ_BYTES], *p;

	snprintf(dir, sizeof dir, "/proc/%ld", (long)pid);
	if (freeze_read(dir, "stat", buf, sizeof buf) != 0)
		return (0);
	/* "pid (comm) state ...": comm may hold anything. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return (0);
	return (p[2]);
}

int
freeze_done(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX], buf[FREEZE_READ_BYTES], *p;
	char	 state;

	if (freeze_cgroup_dir(cp, dir, sizeof dir) == 0) {
		if (freeze_read(dir, "cgroup.events", buf, sizeof buf) != 0)
			return (0);
		for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
			if (*p == '\n')
				p++;
			if (strncmp(p, "frozen ", 7) == 0)
				return (p[7] == '1');
		}
		return (0);
	}
	state = freeze_proc_state(cp->pid);
	return (state == 'T' || state == 't');
}

void
freeze_thaw(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX];

	if (freeze_cgroup_dir(cp, dir, sizeof dir) == 0) {
		(void)cgroup_write(dir, "cgroup.freeze", "0");
		return;
	}
	/* The reaper first: a walk of its still under way then stops. */
	freeze_signal(cp, REAPER_SIG_THAW, SIGCONT);
	child_signal_group(cp->pid, SIGCONT);
}

/* 1 if the machine has swap (/proc/swaps lists a device or file). */
static int
freeze_have_swap(void)
{
	char	 buf[FREEZE_READ_BYTES], *nl;

	if (freeze_read("/proc", "swaps", buf, sizeof buf) != 0)
		return (0);
	/* A header line, then one line per swap area. */
	return ((nl = strchr(buf, '\n')) != NULL && nl[1] != '\0');
}

const char *
freeze_reclaim_why_not(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX], path[CGROUP_DIR_MAX + 64], buf[64];

	if (freeze_cgroup_dir(cp, dir, sizeof dir) != 0)
		return ("no cgroup v2 of its own (memory.reclaim)");
	snprintf(path, sizeof path, "%s/memory.reclaim", dir);
	if (access(path, F_OK) != 0)
		return ("no memory.reclaim in its cgroup (no memory "
		    "controller, or Linux before 5.19)");
	if (!freeze_have_swap())
		return ("no swap on this machine");
	if (freeze_read(dir, "memory.swap.max", buf, sizeof buf) == 0 &&
	    strcmp(buf, "0\n") == 0)
		return ("no swap for its cgroup (memory.swap.max 0)");
	return (NULL);
}

static int64_t
freeze_memory_current(const char *dir)
{
	char	 buf[64];

	if (freeze_read(dir, "memory.current", buf, sizeof buf) != 0)
		return (-1);
	return ((int64_t)strtoll(buf, NULL, 10));
}

int64_t
freeze_reclaim_step(const struct child_proc *cp, uint64_t bytes)
{
	char	 dir[CGROUP_DIR_MAX], text[32];
	int64_t	 before, after;

	if (freeze_cgroup_dir(cp, dir, sizeof dir) != 0)
		return (-1);
	before = freeze_memory_current(dir);
	snprintf(text, sizeof text, "%" PRIu64, bytes);
	/* EAGAIN: it could not reclaim as much; nothing more to get. */
	if (cgroup_write(dir, "memory.reclaim", text) != 0)
		return (-1);
	after = freeze_memory_current(dir);
	return (before >= 0 && after >= 0 && after < before ?
	    before - after : 0);
}
