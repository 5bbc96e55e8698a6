/*
 * child.h -- spawning, containing and signalling a server process.
 *
 * child_spawn runs argv with execve (never a shell) in a new process group,
 * with a clean environment (CHILD_ENV_PASS from mcpd's own, then the
 * configured env), stdin/stdout/stderr on pipes, a parent-death signal,
 * every other fd closed, default signal dispositions and the descriptor
 * limit mcpd started with.  Exec errors are reported synchronously through
 * a close-on-exec pipe, so the caller gets "exec uvx: No such file or
 * directory" instead of a mysterious exit 127.
 *
 * Containment: what the server starts, even after setsid(), ends with it.
 * With a cgroup (cgroup.h) the server runs alone in a cgroup of its own;
 * otherwise a reaper process (reaper.h) sits between mcpd and the server.
 * Either way exit_pid is the process whose exit mcpd waits for, and
 * child_kill ends everything at once.
 */
#ifndef MCPD_CHILD_H
#define MCPD_CHILD_H

#include <sys/types.h>

#include <stdint.h>

#include "cgroup.h"
#include "conf.h"
#include "confvar.h"
#include "paths.h"
#include "sbapply.h"

/* mcpd's own variables every server gets (confvar.h, for import). */
#define CHILD_ENV_PASS		CONFVAR_PASSED
#define CHILD_DEFAULT_PATH	PATHS_CHILD_DEFAULT

enum child_containment {
	CHILD_CONTAIN_UNSET,	/* never started */
	CHILD_CONTAIN_CGROUP,	/* a cgroup of its own */
	CHILD_CONTAIN_REAPER,	/* below a subreaper of its own */
	CHILD_CONTAIN_PGROUP,	/* its process group only (no subreaper) */
};

struct child_proc {
	pid_t	pid;		/* the server; also its process group id */
	pid_t	exit_pid;	/* whose exit ends it: pid, or its reaper */
	int	in_fd;		/* parent ends, non-blocking, close-on-exec */
	int	out_fd;
	int	err_fd;
	enum child_containment containment;	/* of the last spawn */
	char	cgroup_leaf[CGROUP_LEAF_MAX];	/* "server-NAME", or "" */
	int	sandboxed;	/* spawned with sandbox rules */
	unsigned int sandbox_held;	/* SB_HELD_* that took effect */
};

/*
 * What a server gets beyond the above, or NULL: descriptors, placed at
 * CHILD_EXTRA_FD and up in order (mcpd-remote's status channel and
 * settings), and variables added to its environment ("KEY=VALUE").
 */
#define CHILD_EXTRA_FD		4
#define CHILD_EXTRA_MAX		4
struct child_extra {
	int		 fds[CHILD_EXTRA_MAX];
	int		 nfds;
	const char	*env[CHILD_EXTRA_MAX + 1];	/* NULL-ended */
};

/*
 * A server in a sandbox (sbapply.h), or NULL: the rules prepared before
 * the fork and applied in the server's child (never in a reaper) last
 * before execve, the variables they add to its environment (none the
 * entry's env sets: sb_build leaves those out) and its working
 * directory when none is configured.  What held comes back over the report pipe; with required
 * rules, a layer missing fails the start.
 */
struct child_sandbox {
	const struct sb_prepared *prep;
	char *const		 *env;		/* "KEY=VALUE", NULL-ended */
	const char		 *workdir;	/* or NULL */
};

/*
 * name: the worker's, which names its cgroup (an instance's, NAME#N, is
 * not its configuration's).
 */
int	 child_spawn(const struct conf_server *, const char *name,
	    const struct child_extra *, const struct child_sandbox *,
	    struct child_proc *, char **cause);
/* The command a start would run, found along its PATH; NULL if none. */
char	*child_command(const struct conf_server *);
/* Signal the whole process group (no-op for pid <= 0). */
void	 child_signal_group(pid_t, int sig);
/* SIGKILL the server and everything it started (group, cgroup). */
void	 child_kill(const struct child_proc *);
/* Server name is gone for good (removed, or mcpd exits): its cgroup too. */
void	 child_forget(const char *name);
/* "cgroup", "reaper" or "process-group" (before a spawn: mcpd's mode). */
const char *child_containment_name(const struct child_proc *);
/* What a server started now would get: "cgroup" or "reaper". */
const char *child_containment_default(void);
/* "exited with status 3", "killed by signal 9 (SIGKILL)". */
char	*child_describe_status(int wstatus);

/*
 * mcpd raises its soft RLIMIT_NOFILE to the hard limit at start (every
 * connection and every server's pipes cost a descriptor); a server gets
 * back the soft limit mcpd started with (programs that use select()
 * break above 1024).
 */
void	 child_raise_nofile(void);
/* A re-exec: that limit, handed over and taken over (reexec.c). */
void	 child_nofile_export(uint64_t *cur, uint64_t *max, int *raised);
void	 child_nofile_adopt(uint64_t cur, uint64_t max, int raised);

#endif /* MCPD_CHILD_H */
