/*
 * guard.h -- make sure nothing a server started outlives mcpd.
 *
 * Servers die with mcpd through their parent-death signal, but what they
 * forked does not.  A small guard process, forked at start, keeps the list
 * of the servers' process groups; when mcpd goes away without stopping
 * them (SIGKILL, a crash) its end of the pipe closes and the guard kills
 * every group still listed and, with cgroup containment, every server's
 * cgroup (reapers clean up below themselves).  The guard runs in a session
 * of its own, so a signal to mcpd's process group (a terminal's ^C, a
 * kill -9 of the group) does not take it along.
 */
#ifndef MCPD_GUARD_H
#define MCPD_GUARD_H

#include <sys/types.h>

struct mcpd;

int	guard_start(struct mcpd *, char **cause);
void	guard_add(struct mcpd *, pid_t pgid);
void	guard_remove(struct mcpd *, pid_t pgid);
void	guard_stop(struct mcpd *);
/*
 * A re-exec: the pipe to the guard (kept open across execve, so the guard
 * never sees mcpd go) and its pid; the next mcpd takes them over.
 */
int	guard_export(const struct mcpd *, pid_t *pid);
void	guard_adopt(struct mcpd *, int fd, pid_t pid);

#endif /* MCPD_GUARD_H */
