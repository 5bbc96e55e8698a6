/*
 * guard.c -- the guard process (see guard.h).
 *
 * mcpd writes one int32 per change: a process group to watch (> 0) or to
 * forget (< 0).  Writes are 4 bytes, far below PIPE_BUF, so they are
 * atomic.  The guard has its own session and process group and ignores
 * the signals a terminal or systemd sends to a whole group, so it is still
 * there to clean up after mcpd.  It holds no descriptor of mcpd's but the
 * pipe, and it shares mcpd's cgroup root (cgroup.c), read at fork.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "guard.h"
#include "log.h"
#include "mcpd.h"
#include "xmalloc.h"

#define GUARD_MAX_GROUPS	65536

static void __attribute__((noreturn))
guard_main(int fd)
{
	pid_t	*groups = NULL;
	size_t	 n = 0, cap = 0, i;
	int32_t	 msg;
	ssize_t	 r;
	int	 sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	(void)prctl(PR_SET_NAME, "mcpd-guard");

	for (;;) {
		r = read(fd, &msg, sizeof msg);
		if (r == -1 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof msg)
			break;		/* mcpd is gone */
		if (msg > 0 && n < GUARD_MAX_GROUPS) {
			if (n == cap) {
				cap = cap == 0 ? 16 : cap * 2;
				groups = realloc(groups, cap * sizeof *groups);
				if (groups == NULL)
					_exit(1);
			}
			groups[n++] = msg;
		} else if (msg < 0) {
			for (i = 0; i < n; i++) {
				if (groups[i] == -msg) {
					groups[i] = groups[--n];
					break;
				}
			}
		}
	}
	for (i = 0; i < n; i++)
		(void)kill(-groups[i], SIGKILL);
	cgroup_kill_all();
	_exit(0);
}

/* The guard as mcpd sees it: the write end of its pipe. */
struct guard {
	int	 fd;		/* -1: the guard is gone */
	pid_t	 pid;
};

int
guard_start(struct mcpd *mcpd, char **cause)
{
	int		 fds[2], fd;
	sigset_t	 all, saved;
	pid_t		 pid;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		return (-1);
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	pid = fork();
	if (pid == 0) {
		/* Keep only the read end; nothing else of mcpd's. */
		for (fd = 0; fd < 3; fd++)
			if (fd != fds[0])
				(void)close(fd);
		if (fds[0] != 3 && dup2(fds[0], 3) == -1)
			_exit(1);
#ifdef HAVE_CLOSE_RANGE
		(void)close_range(4, ~0U, 0);
#endif
		/* Out of mcpd's process group: kill -9 -PGID spares us. */
		(void)setsid();
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		guard_main(3);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	close(fds[0]);
	if (pid == -1) {
		close(fds[1]);
		xasprintf(cause, "fork: %s", strerror(errno));
		return (-1);
	}
	mcpd->guard = xcalloc(1, sizeof *mcpd->guard);
	mcpd->guard->fd = fds[1];
	mcpd->guard->pid = pid;
	return (0);
}

static void
guard_send(struct mcpd *mcpd, int32_t msg)
{
	struct guard	*g = mcpd->guard;
	ssize_t		 r;

	if (g == NULL || g->fd == -1)
		return;
	do
		r = write(g->fd, &msg, sizeof msg);
	while (r == -1 && errno == EINTR);
	if (r != (ssize_t)sizeof msg) {
		log_warnx("the guard process is gone: %s", r == -1 ?
		    strerror(errno) : "short write");
		close(g->fd);
		g->fd = -1;
	}
}

void
guard_add(struct mcpd *mcpd, pid_t pgid)
{
	guard_send(mcpd, (int32_t)pgid);
}

void
guard_remove(struct mcpd *mcpd, pid_t pgid)
{
	guard_send(mcpd, -(int32_t)pgid);
}

/* A normal exit: every server is stopped, the guard may go. */
void
guard_stop(struct mcpd *mcpd)
{
	struct guard	*g = mcpd->guard;

	if (g == NULL)
		return;
	if (g->fd != -1)
		close(g->fd);
	free(g);
	mcpd->guard = NULL;
}

int
guard_export(const struct mcpd *mcpd, pid_t *pid)
{
	if (mcpd->guard == NULL || mcpd->guard->fd == -1)
		return (-1);
	*pid = mcpd->guard->pid;
	return (mcpd->guard->fd);
}

void
guard_adopt(struct mcpd *mcpd, int fd, pid_t pid)
{
	int	 flags;

	if (fd < 0)
		return;
	if ((flags = fcntl(fd, F_GETFD)) != -1)
		(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	mcpd->guard = xcalloc(1, sizeof *mcpd->guard);
	mcpd->guard->fd = fd;
	mcpd->guard->pid = pid;
}
