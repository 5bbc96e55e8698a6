/*
 * reaper.h -- contain a server without a cgroup: a small process between
 * mcpd and the server that is the server's subreaper (the conmon pattern).
 *
 * Whatever the server leaves behind, even after setsid() or a double
 * fork, is re-parented to its reaper, never to mcpd or init, so the reaper
 * knows it.  When the server ends, however it ends, the reaper SIGKILLs
 * every process still below it, waits for them all, and only then exits,
 * with the server's own exit status (or killed by the same signal): mcpd's
 * SIGCHLD for a reaper means the server and everything it started are
 * gone.  The death of mcpd (a parent-death signal), or SIGTERM, SIGINT,
 * SIGHUP or SIGQUIT sent to the reaper, SIGKILLs the server and so ends
 * the same way.  The reaper has a process group of its own: a signal to
 * mcpd's group does not reach it.
 *
 * Freezing (freeze.h): REAPER_SIG_FREEZE makes the reaper SIGSTOP the
 * server's group and then every process below it, again until a walk of
 * /proc finds none it has not stopped; REAPER_SIG_THAW SIGCONTs them all.
 * Both are signals whose default is to be ignored: a reaper of an older
 * mcpd, taken over across a re-exec, is not killed by them.
 */
#ifndef MCPD_REAPER_H
#define MCPD_REAPER_H

#include <sys/types.h>

#include <signal.h>

#define REAPER_SIG_FREEZE	SIGURG
#define REAPER_SIG_THAW		SIGWINCH

/*
 * In the child mcpd (parent) forked, signals still blocked: reset the
 * handlers, leave mcpd's process group, die with mcpd, become a
 * subreaper.  Returns 0, or the errno of PR_SET_CHILD_SUBREAPER (then only
 * the server's process group is contained).
 */
int	reaper_become(pid_t parent);
/* Once the server (a child, own process group) runs: never returns. */
void	reaper_run(pid_t server) __attribute__((noreturn));

#endif /* MCPD_REAPER_H */
