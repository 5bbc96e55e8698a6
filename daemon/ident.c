/*
 * ident.c -- who the app on a connection is, as the kernel says
 * (ident.h): the reading of /proc, around src/ident_proc.c's parsers.
 *
 * A pid alone can be recycled between the accept and the reads, so every
 * process is held by a pidfd while it is read, and what was read counts
 * only if the pidfd still refers to a live process afterwards: the pid
 * cannot have been given to another process while this one lives.
 *
 * For mcpctl connect, the app is the bridge's parent, read by mcpd
 * itself and never taken from the bridge: its PPid, a pidfd for that
 * pid, then its PPid again and the bridge alive, so the pidfd is the
 * parent's and not a process that took a dead parent's pid.  Shells and
 * launchers are walked past (identp_wrapper), at most IDENTP_WALK_MAX.
 * A bridge whose parent is gone (pid 1, a subreaper, a changed PPid) has
 * no app, and says so (IDENT_REPARENTED); so does one whose parent is
 * another user's, which would otherwise lend its identity.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ident.h"
#include "ident_proc.h"
#include "log.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD		77	/* Linux 6.5 */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif

#define IDENT_READ_MAX_BYTES	IDENTP_TEXT_MAX_BYTES

/* What was read of one process. */
struct ident_look {
	char		*exe;
	char		*unit;
	char		*app_id;
	char		*cmdline;
	size_t		 cmdlen;
	uid_t		 uid;
	pid_t		 ppid;
	int		 hidden;	/* /proc would not show it */
};

static void
ident_look_free(struct ident_look *l)
{
	free(l->exe);
	free(l->unit);
	free(l->app_id);
	free(l->cmdline);
	memset(l, 0, sizeof *l);
}

/*
 * A file of /proc (or below a process's root) whole, up to the bound:
 * a regular or proc file only, never a symlink's target.  NULL with errno.
 */
static char *
ident_read(const char *path, size_t *len)
{
	struct stat	 sb;
	char		*buf;
	ssize_t		 n;
	size_t		 have = 0;
	int		 fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK | O_NOCTTY)) == -1)
		return (NULL);
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return (NULL);
	}
	buf = xmalloc(IDENT_READ_MAX_BYTES + 1);
	while (have < IDENT_READ_MAX_BYTES) {
		n = read(fd, buf + have, IDENT_READ_MAX_BYTES - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == -1) {
				saved = errno;
				free(buf);
				close(fd);
				errno = saved;
				return (NULL);
			}
			break;
		}
		have += (size_t)n;
	}
	close(fd);
	buf[have] = '\0';
	*len = have;
	return (buf);
}

char *
ident_read_pid(pid_t pid, const char *what, size_t *len)
{
	char	 path[64];

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, what);
	return (ident_read(path, len));
}

static char *
ident_exe(pid_t pid)
{
	char	 path[64], *buf;
	ssize_t	 n;

	snprintf(path, sizeof path, "/proc/%ld/exe", (long)pid);
	buf = xmalloc(PATH_MAX + 1);
	if ((n = readlink(path, buf, PATH_MAX)) <= 0) {
		free(buf);
		return (NULL);
	}
	buf[n] = '\0';
	return (buf);
}

static int
ident_pidfd_open(pid_t pid)
{
	return ((int)syscall(SYS_pidfd_open, pid, 0));
}

/*
 * Has the pidfd's process not exited, so that its pid is still its own?
 * A pidfd polls readable once its process has exited; one that has may
 * already be reaped and its pid given to another, so what was read by
 * that pid counts for nothing (a connection's peer rarely exits while
 * mcpd looks).  poll, not pidfd_send_signal: every tool knows it.
 */
int
ident_alive(int pidfd)
{
	struct pollfd	 pfd;
	int		 n;

	if (pidfd == -1)
		return (1);	/* IDENT_PID_RACE says what is not known */
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	while ((n = poll(&pfd, 1, 0)) == -1 && errno == EINTR)
		;
	return (n == 0);
}

/* The Flatpak app id of the sandbox pid lives in, or NULL. */
static char *
ident_flatpak(pid_t pid)
{
	char	*text, *id;
	size_t	 len;

	/* Its own root: the final component is never followed. */
	if ((text = ident_read_pid(pid, "root/.flatpak-info", &len)) == NULL)
		return (NULL);
	id = identp_flatpak_info(text, len);
	free(text);
	return (id);
}

/*
 * Read what /proc shows of pid: its PPid and uid, executable, command
 * line, unit and app id.  -1 when its status cannot be read; l->hidden
 * when nothing of it was shown to mcpd, which its pidfd alive tells from
 * its being gone.
 */
static int
ident_look(pid_t pid, struct ident_look *l)
{
	char	*text, *path;
	size_t	 len;

	memset(l, 0, sizeof *l);
	if ((text = ident_read_pid(pid, "status", &len)) == NULL) {
		l->hidden = 1;
		return (-1);
	}
	if (identp_status_ppid(text, len, &l->ppid) != 0 ||
	    identp_status_uid(text, len, &l->uid) != 0) {
		free(text);
		return (-1);
	}
	free(text);
	l->exe = ident_exe(pid);
	l->cmdline = ident_read_pid(pid, "cmdline", &l->cmdlen);
	if ((text = ident_read_pid(pid, "cgroup", &len)) != NULL) {
		if ((path = identp_cgroup_path(text, len)) != NULL) {
			l->unit = identp_unit(path);
			l->app_id = identp_cgroup_app(path);
			free(path);
		}
		free(text);
	}
	/* The sandbox's own word is the app id; the scope's follows it. */
	if ((path = ident_flatpak(pid)) != NULL) {
		free(l->app_id);
		l->app_id = path;
	}
	if (l->exe == NULL && l->unit == NULL && l->app_id == NULL)
		l->hidden = 1;
	return (0);
}

/* The one pidfd for the peer on fd: SO_PEERPIDFD, else pidfd_open. */
int
ident_peer_pidfd(int fd, pid_t pid)
{
	socklen_t	 len = sizeof(int);
	int		 pidfd;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 &&
	    len == sizeof(int) && pidfd >= 0)
		return (pidfd);
	return (ident_pidfd_open(pid));
}

/* What was read of a process becomes the ident's. */
static void
ident_take(struct ident *id, pid_t pid, struct ident_look *l)
{
	id->pid = pid;
	id->exe = l->exe;
	id->unit = l->unit;
	id->app_id = l->app_id;
	l->exe = l->unit = l->app_id = NULL;
}

/* The parent of child (held by childfd), held by *pfd; 0, or -1. */
static int
ident_parent(pid_t child, int childfd, pid_t *ppid, int *pfd,
    unsigned int *flags)
{
	struct ident_look	 l;
	pid_t			 again;

	if (ident_look(child, &l) != 0) {
		ident_look_free(&l);
		return (-1);
	}
	*ppid = l.ppid;
	ident_look_free(&l);
	if (*ppid <= 1)
		return (-1);
	if ((*pfd = ident_pidfd_open(*ppid)) == -1) {
		if (errno != ENOSYS)
			return (-1);
		*flags |= IDENT_PID_RACE;
	}
	/* Still its parent: the pidfd is the parent's, not a new pid's. */
	if (ident_look(child, &l) != 0 || (again = l.ppid) != *ppid ||
	    !ident_alive(childfd)) {
		ident_look_free(&l);
		if (*pfd != -1)
			close(*pfd);
		*pfd = -1;
		return (-1);
	}
	ident_look_free(&l);
	return (0);
}

/*
 * The app above a bridge (pid, held by pidfd): its parent, past the
 * wrappers.  A parent that is gone, pid 1 or a user's systemd (the
 * subreaper orphans go to) leaves the app unknown and IDENT_REPARENTED.
 */
static struct ident *
ident_walk(pid_t bridge, int bridgefd, uid_t uid)
{
	struct ident		*app;
	struct ident_look	 l;
	pid_t			 child = bridge, ppid;
	int			 childfd = bridgefd, pfd = -1, depth;

	app = xcalloc(1, sizeof *app);
	app->uid = uid;
	app->flags = IDENT_BRIDGE | (bridgefd == -1 ? IDENT_PID_RACE : 0);
	for (depth = 0; depth < IDENTP_WALK_MAX; depth++) {
		if (ident_parent(child, childfd, &ppid, &pfd,
		    &app->flags) != 0) {
			app->flags |= IDENT_REPARENTED;
			break;
		}
		if (ident_look(ppid, &l) != 0 || !ident_alive(pfd)) {
			if (l.hidden && ident_alive(pfd))
				app->flags |= IDENT_UID_ONLY;
			else
				app->flags |= IDENT_REPARENTED;
			ident_look_free(&l);
			break;
		}
		if (identp_exe_is(l.exe, "systemd")) {
			app->flags |= IDENT_REPARENTED;
			ident_look_free(&l);
			break;
		}
		/* Another user's process is not this connection's app. */
		if (l.uid != uid) {
			ident_look_free(&l);
			break;
		}
		if (depth + 1 < IDENTP_WALK_MAX &&
		    identp_wrapper(l.exe, l.cmdline, l.cmdlen)) {
			ident_look_free(&l);
			if (childfd != bridgefd)
				close(childfd);
			child = ppid;
			childfd = pfd;
			pfd = -1;
			continue;
		}
		ident_take(app, ppid, &l);
		ident_look_free(&l);
		break;
	}
	if (pfd != -1)
		close(pfd);
	if (childfd != bridgefd && childfd != -1)
		close(childfd);
	return (app);
}

struct ident *
ident_accept(int fd, pid_t pid, uid_t uid, struct ident **bridge_app)
{
	struct ident		*id;
	struct ident_look	 l;
	int			 pidfd;

	*bridge_app = NULL;
	id = xcalloc(1, sizeof *id);
	id->uid = uid;
	if (pid <= 0)
		return (id);
	if ((pidfd = ident_peer_pidfd(fd, pid)) == -1)
		id->flags |= IDENT_PID_RACE;
	if (ident_look(pid, &l) != 0 || !ident_alive(pidfd)) {
		/* Hidden, or gone: a recycled pid's is not its. */
		if (l.hidden && ident_alive(pidfd))
			id->flags |= IDENT_UID_ONLY;
		ident_look_free(&l);
		goto out;
	}
	if (l.hidden)
		id->flags |= IDENT_UID_ONLY;
	if (identp_exe_is(l.exe, "mcpctl"))
		*bridge_app = ident_walk(pid, pidfd, uid);
	ident_take(id, pid, &l);
	ident_look_free(&l);
out:
	if (pidfd != -1)
		close(pidfd);
	return (id);
}

void
ident_bridge(struct ident **id, struct ident **bridge_app, uint64_t serial)
{
	char		*exe;
	struct log_field f[IDENT_LOG_FIELDS];

	if (*bridge_app == NULL)
		return;
	ident_free(*id);
	*id = *bridge_app;
	*bridge_app = NULL;
	ident_log_fields(*id, f, &exe);
	log_event(LOG_DEBUG, MCPD_MID_CLIENT_CONNECT, f, nitems(f),
	    "client %llu is mcpctl connect for %s", (unsigned long long)serial,
	    exe != NULL ? exe : ((*id)->flags & IDENT_REPARENTED) ?
	    "no app (its parent was gone)" : "an app mcpd may not see");
	free(exe);
}

void
ident_free(struct ident *id)
{
	if (id == NULL)
		return;
	free(id->exe);
	free(id->unit);
	free(id->app_id);
	free(id->token);
	free(id);
}

static void
ident_add_text(cJSON *o, const char *key, const char *value)
{
	char	*text;

	if (value == NULL) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	text = identp_display(value);
	cJSON_AddStringToObject(o, key, text);
	free(text);
}

cJSON *
ident_json(const struct ident *id)
{
	static const struct {
		unsigned int	 flag;
		const char	*name;
	} names[] = {
		{ IDENT_UID_ONLY, "uid-only" },
		{ IDENT_BRIDGE, "bridge" },
		{ IDENT_REPARENTED, "reparented" },
		{ IDENT_PID_RACE, "pid-race" },
		{ IDENT_HTTP_TOKEN, "http-token" },
	};
	cJSON	*o, *flags;
	size_t	 i;

	o = cJSON_CreateObject();
	if (id->pid > 0)
		cJSON_AddNumberToObject(o, "pid", (double)id->pid);
	else
		cJSON_AddNullToObject(o, "pid");
	ident_add_text(o, "exe", id->exe);
	ident_add_text(o, "unit", id->unit);
	ident_add_text(o, "app_id", id->app_id);
	ident_add_text(o, "token", id->token);
	flags = cJSON_AddArrayToObject(o, "flags");
	for (i = 0; i < nitems(names); i++)
		if (id->flags & names[i].flag)
			cJSON_AddItemToArray(flags,
			    cJSON_CreateString(names[i].name));
	return (o);
}

void
ident_log_fields(const struct ident *id, struct log_field *f,
    char **exe)
{
	*exe = id != NULL && id->exe != NULL ? identp_display(id->exe) : NULL;
	f[0].name = MCPD_FIELD_APP_EXE;
	f[0].value = *exe;
	f[1].name = MCPD_FIELD_APP_UNIT;
	f[1].value = id != NULL ? id->unit : NULL;
	f[2].name = MCPD_FIELD_APP_ID;
	f[2].value = id != NULL ? id->app_id : NULL;
	f[3].name = MCPD_FIELD_TOKEN;
	f[3].value = id != NULL ? id->token : NULL;
}
