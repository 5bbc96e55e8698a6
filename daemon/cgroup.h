/*
 * cgroup.h -- contain each server in a cgroup v2 of its own.
 *
 * mcpd splits a cgroup only when it is mcpd's: one named with --cgroup or
 * the "cgroup" key of the "mcpd" object, or the cgroup mcpd runs in when
 * its service manager delegated it (systemd's Delegate=yes marks it with
 * the trusted.delegate or user.delegate extended attribute).  A cgroup
 * that merely happens to be writable, such as the session scope of a root
 * shell, is never carved up: without delegation or a named path there is
 * no cgroup containment (child.h falls back to a reaper per server).
 *
 * Layout under the root R:
 *   R/supervisor      mcpd and its guard: once controllers are enabled in
 *                     R, cgroup v2 allows processes only in leaves
 *   R/server-NAME     one server and everything it starts
 * A server is stopped with cgroup.kill (Linux 5.14), or else by SIGKILLing
 * every pid in cgroup.procs until none is left; memory.oom.group makes the
 * OOM killer take a server whole.
 *
 * The root is a process-wide fact set once at start, before anything is
 * forked: the guard and a child between fork and exec read it without
 * the root context.
 */
#ifndef MCPD_CGROUP_H
#define MCPD_CGROUP_H

#include <stddef.h>

#include "conf.h"

#define CGROUP_DIR_MAX		4096
/* "server-" and a name of 64 characters, each escaped as "_XX" at worst. */
#define CGROUP_LEAF_MAX		(7 + 3 * 64 + 1)

/*
 * Choose the root: path if not NULL (created if missing), else mcpd's own
 * cgroup if it is delegated.  Moves mcpd into R/supervisor and enables the
 * memory, pids and cpu controllers R offers.  A root whose supervisor
 * cgroup holds another process belongs to another mcpd: its servers'
 * cgroups have the same names.  Returns -1 when a named path cannot be
 * used or is another mcpd's; otherwise 0, and cgroup_root() says whether
 * there is containment.
 */
int		 cgroup_init(const char *path, char **cause);
/* The root directory, or NULL: no cgroup containment. */
const char	*cgroup_root(void);
/* DIR/FILE's text (NUL-terminated, malloc'd), or NULL with errno set. */
char		*cgroup_read(const char *dir, const char *file);
/* Write value to DIR/FILE in one write(2); -1 with errno set. */
int		 cgroup_write(const char *dir, const char *file,
		    const char *value);
/* "server-NAME"; bytes other than A-Z a-z 0-9 . - become "_XX". */
void		 cgroup_leaf_name(const char *name, char *buf, size_t len);
/*
 * Make the server's cgroup ready for a new process: create it, kill and
 * wait out whatever is left in it, apply the limits.  Fills dir; returns
 * an open (close-on-exec) descriptor of its cgroup.procs for the child to
 * write itself into, or -1 with a cause.
 */
int		 cgroup_server_prepare(const struct conf_server *,
		    const char *name, char *dir, size_t dirlen, char **cause);
/* SIGKILL everything in a server's cgroup (as cgroup_server_prepare named it). */
void		 cgroup_server_kill(const char *dir);
/* Kill what is left and remove the directory (best effort). */
void		 cgroup_server_remove(const char *dir);
/* Kill and remove every server's cgroup: the guard, when mcpd is gone. */
void		 cgroup_kill_all(void);
/*
 * A flag of DIR/cgroup.events ("populated", "frozen"): 1, 0, or -1 when
 * it cannot be read or has no such key (ENOMSG).
 */
int		 cgroup_event(const char *dir, const char *key);
/* 1 while the cgroup or one below it holds a process (cgroup.events). */
int		 cgroup_populated(const char *dir);

#endif /* MCPD_CGROUP_H */
