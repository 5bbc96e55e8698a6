/*
 * child.h -- spawning and signalling a server process.
 *
 * child_spawn runs argv with execve (never a shell) in a new process group,
 * with a clean environment (CHILD_ENV_PASS from mcpd's own, then the
 * configured env), stdin/stdout/stderr on pipes, a parent-death signal,
 * every other fd closed and default signal dispositions.  Exec errors are
 * reported synchronously through a close-on-exec pipe, so the caller gets
 * "exec uvx: No such file or directory" instead of a mysterious exit 127.
 */
#ifndef MCPD_CHILD_H
#define MCPD_CHILD_H

#include <sys/types.h>

#include "conf.h"

#define CHILD_ENV_PASS \
	{ "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", NULL }
#define CHILD_DEFAULT_PATH	"/usr/local/bin:/usr/bin:/bin"

struct child_proc {
	pid_t	pid;		/* also the process group id */
	int	in_fd;		/* parent ends, non-blocking, close-on-exec */
	int	out_fd;
	int	err_fd;
};

int	 child_spawn(const struct conf_server *, struct child_proc *,
	    char **cause);
/* Signal the whole process group (no-op for pid <= 0). */
void	 child_signal_group(pid_t, int sig);
/* "exited with status 3", "killed by signal 9 (SIGKILL)". */
char	*child_describe_status(int wstatus);

#endif /* MCPD_CHILD_H */
