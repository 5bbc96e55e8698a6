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
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "freeze.h"
#include "ident.h"
#include "ident_proc.h"
#include "reaper.h"
#include "xmalloc.h"

static int
freeze_cgroup_dir(const struct child_proc *cp, char *dir, size_t len)
{
	if (cp->containment != CHILD_CONTAIN_CGROUP || cgroup_root() == NULL)
		return (-1);
	snprintf(dir, len, "%s/%s", cgroup_root(), cp->cgroup_leaf);
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
	struct identp_stat	 st;
	char			*text;
	size_t			 len;
	int			 rc;

	if ((text = ident_read_pid(pid, "stat", &len)) == NULL)
		return (0);
	rc = identp_stat(text, len, &st);
	free(text);
	return (rc == 0 ? st.state : 0);
}

int
freeze_done(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX];
	char	 state;

	if (freeze_cgroup_dir(cp, dir, sizeof dir) == 0)
		return (cgroup_event(dir, "frozen") == 1);
	state = freeze_proc_state(cp->pid);
	return (state == 'T' || state == 't');
}

int
freeze_thaw(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX];

	if (freeze_cgroup_dir(cp, dir, sizeof dir) == 0) {
		(void)cgroup_write(dir, "cgroup.freeze", "0");
		return (0);
	}
	/* The reaper first: a walk of its still under way then stops. */
	freeze_signal(cp, REAPER_SIG_THAW, SIGCONT);
	child_signal_group(cp->pid, SIGCONT);
	return (cp->exit_pid > 0 && cp->exit_pid != cp->pid);
}

/* 1 if the machine has swap (/proc/swaps lists a device or file). */
static int
freeze_have_swap(void)
{
	char	*text, *nl;
	int	 have;

	if ((text = cgroup_read("/proc", "swaps")) == NULL)
		return (0);
	/* A header line, then one line per swap area. */
	have = (nl = strchr(text, '\n')) != NULL && nl[1] != '\0';
	free(text);
	return (have);
}

/* DIR/FILE's text is exactly value. */
static int
freeze_file_is(const char *dir, const char *file, const char *value)
{
	char	*text;
	int	 is;

	if ((text = cgroup_read(dir, file)) == NULL)
		return (0);
	is = strcmp(text, value) == 0;
	free(text);
	return (is);
}

const char *
freeze_reclaim_why_not(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX], path[CGROUP_DIR_MAX + 64];

	if (freeze_cgroup_dir(cp, dir, sizeof dir) != 0)
		return ("no cgroup v2 of its own (memory.reclaim)");
	snprintf(path, sizeof path, "%s/memory.reclaim", dir);
	if (access(path, F_OK) != 0)
		return ("no memory.reclaim in its cgroup (no memory "
		    "controller, or Linux before 5.19)");
	if (!freeze_have_swap())
		return ("no swap on this machine");
	if (freeze_file_is(dir, "memory.swap.max", "0\n"))
		return ("no swap for its cgroup (memory.swap.max 0)");
	return (NULL);
}

static int64_t
freeze_memory_current(const char *dir)
{
	char	*text;
	int64_t	 bytes;

	if ((text = cgroup_read(dir, "memory.current")) == NULL)
		return (-1);
	bytes = (int64_t)strtoll(text, NULL, 10);
	free(text);
	return (bytes);
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
