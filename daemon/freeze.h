/*
 * freeze.h -- a server's processes frozen and thawed in place, however
 * it is contained (child.h): in a cgroup v2 with cgroup.freeze (done
 * once cgroup.events says "frozen 1"); below a reaper, which stops or
 * continues every process it has below it (reaper.h), the server first.
 * Nothing here waits: the caller asks, then looks again (freeze_done)
 * from a timer of its own.  While frozen, memory may be offered back to
 * the kernel (memory.reclaim) where it has somewhere to put it (swap).
 */
#ifndef MCPD_FREEZE_H
#define MCPD_FREEZE_H

#include <stdint.h>

struct child_proc;

/* Ask for the freeze: 0, or -1 with a cause (malloc'd). */
int		 freeze_begin(const struct child_proc *, char **cause);
/* 1 once frozen (or stopped), 0 not yet. */
int		 freeze_done(const struct child_proc *);
/*
 * Thaw it (SIGCONT, or cgroup.freeze 0): at once, never waits.  1 when a
 * reaper was told, whose walk of the freeze may still be under way (and
 * stop the server again until it ends); 0 when nothing can stop it again.
 */
int		 freeze_thaw(const struct child_proc *);
/*
 * NULL when its memory can be offered back, else why not (a static
 * string: "no swap", "no memory.reclaim"...).
 */
const char	*freeze_reclaim_why_not(const struct child_proc *);
/*
 * Offer back up to bytes: what its cgroup's memory.current went down by,
 * or -1 when the kernel could take no more (or reclaim failed).
 */
int64_t		 freeze_reclaim_step(const struct child_proc *,
		    uint64_t bytes);

#endif /* MCPD_FREEZE_H */
