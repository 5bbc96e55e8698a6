/*
 * insider.c -- whether a peer of the socket runs inside one of mcpd's
 * servers (insider.h).  Asked when a connection calls an mcpd/ method
 * other than attach and version, from what the kernel says of the peer
 * process, held by a pidfd as ident.c holds it:
 *
 * - with cgroup containment, its cgroup: a server's (cgroup_root()'s
 *   "server-NAME"), or one below it, which is where everything a server
 *   starts stays;
 * - always, its ancestry: the peer or one of its ancestors, at most
 *   INSIDER_WALK_MAX up, is a server's process, its reaper, or mcpd
 *   itself.  mcpd and every reaper are child subreapers, so a server's
 *   orphans become the children of one of them and are still found.
 *
 * What neither can see: a process a server has another program start
 * for it outside mcpd's tree and cgroups (systemd-run --user, through
 * the session bus); the sandbox is the answer to that.  A peer mcpd
 * may not look at in /proc (another user's, under hidepid) is not a
 * server's, which run as mcpd's user.  A peer that has exited cannot be
 * judged and is refused.
 */
#include "config.h"

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cgroup.h"
#include "client.h"
#include "clock.h"
#include "ident.h"
#include "ident_proc.h"
#include "insider.h"
#include "log.h"
#include "ratelim.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define INSIDER_WALK_MAX	64	/* ancestors looked at */

static const struct ratelim_policy insider_log_rate = { 1.0, 10.0 };
static struct ratelim	insider_log;
static int		insider_log_ready;

/* The server whose process (or reaper) pid is, or NULL. */
static const char *
insider_server_pid(struct mcpd *mcpd, pid_t pid)
{
	struct worker		*w;
	const struct transport	*tp;

	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if ((tp = worker_transport(w)) == NULL)
			continue;
		if (transport_pid(tp) == pid || transport_exit_pid(tp) == pid)
			return (worker_name(w));
	}
	return (NULL);
}

/* The cgroup path of pid (0: mcpd's own), or NULL. */
static char *
insider_cgroup_path(pid_t pid)
{
	char	*text, *path;
	size_t	 len;

	if (pid == 0)
		text = ident_read_pid(getpid(), "cgroup", &len);
	else
		text = ident_read_pid(pid, "cgroup", &len);
	if (text == NULL)
		return (NULL);
	path = identp_cgroup_path(text, len);
	free(text);
	return (path);
}

/* The server whose cgroup holds pid, or NULL. */
static char *
insider_cgroup(struct mcpd *mcpd, pid_t pid)
{
	struct worker		*w;
	const struct transport	*tp;
	const char		*leaf;
	char			*self, *peer, *slash, *found = NULL;
	char			 base[CGROUP_DIR_MAX];

	if (cgroup_root() == NULL || (self = insider_cgroup_path(0)) == NULL)
		return (NULL);
	/* mcpd runs in ROOT/supervisor: ROOT as the paths spell it. */
	if ((slash = strrchr(self, '/')) == NULL ||
	    (peer = insider_cgroup_path(pid)) == NULL) {
		free(self);
		return (NULL);
	}
	*slash = '\0';
	for (w = worker_first(mcpd); w != NULL && found == NULL;
	    w = worker_next(w)) {
		if ((tp = worker_transport(w)) == NULL ||
		    *(leaf = transport_cgroup_leaf(tp)) == '\0')
			continue;
		snprintf(base, sizeof base, "%s/%s", self, leaf);
		if (identp_cgroup_within(peer, base))
			xasprintf(&found, "server %s", worker_name(w));
	}
	free(peer);
	free(self);
	return (found);
}

/* The server (or mcpd) below which pid runs, by its ancestry, or NULL. */
static char *
insider_walk(struct mcpd *mcpd, pid_t pid)
{
	const char	*name;
	char		*text, *found = NULL;
	size_t		 len;
	pid_t		 p = pid, ppid;
	int		 depth, rc;

	for (depth = 0; depth < INSIDER_WALK_MAX && p > 1; depth++) {
		if (p == getpid()) {
			xasprintf(&found, "a process mcpd started");
			break;
		}
		if ((name = insider_server_pid(mcpd, p)) != NULL) {
			xasprintf(&found, "server %s", name);
			break;
		}
		if ((text = ident_read_pid(p, "status", &len)) == NULL)
			break;
		rc = identp_status_ppid(text, len, &ppid);
		free(text);
		if (rc != 0)
			break;
		p = ppid;
	}
	return (found);
}

/* Where c's peer runs, if inside a server: "server NAME"; or NULL. */
static char *
insider_of(struct mcpd *mcpd, const struct client *c, int *gone)
{
	pid_t	 pid = client_pid(c);
	char	*where;
	int	 pidfd;

	*gone = 0;
	if (pid <= 0)
		return (NULL);	/* in another pid namespace: not mcpd's */
	pidfd = ident_peer_pidfd(client_fd(c), pid);
	if ((where = insider_cgroup(mcpd, pid)) == NULL)
		where = insider_walk(mcpd, pid);
	/* What was read counts only if the peer is still the same. */
	if (!ident_alive(pidfd)) {
		free(where);
		where = NULL;
		*gone = 1;
	}
	if (pidfd != -1)
		close(pidfd);
	return (where);
}

char *
insider_refuses(struct mcpd *mcpd, const struct client *c,
    const char *method)
{
	uint64_t	 now = clock_now_ms(), missed;
	char		*where, *why;
	int		 gone;

	if ((where = insider_of(mcpd, c, &gone)) == NULL && !gone)
		return (NULL);
	if (where != NULL)
		xasprintf(&why, "refused: caller runs inside %s; a server may "
		    "not administer mcpd", where);
	else
		xasprintf(&why, "refused: the process that connected has "
		    "exited, and mcpd cannot tell whether it ran inside a "
		    "server");
	if (!insider_log_ready) {
		ratelim_init(&insider_log, &insider_log_rate, now);
		insider_log_ready = 1;
	}
	if (ratelim_allow(&insider_log, &insider_log_rate, now)) {
		missed = ratelim_take_suppressed(&insider_log);
		log_warnx("%s from client %llu (pid %ld, uid %lu) %s "
		    "(%llu more refusals not logged before this one)",
		    method, (unsigned long long)client_serial(c),
		    (long)client_pid(c), (unsigned long)client_uid(c), why,
		    (unsigned long long)missed);
	}
	free(where);
	return (why);
}
