/*
 * listener.c -- the control socket.
 *
 * The socket's directory is created 0700 if missing (with any missing
 * directory above it), and the socket is bound under umask 0177, so there
 * is no moment when it is wider than 0600.  A directory that was already
 * there must pass paths_check_dir: owned by us or root and writable by
 * nobody else, or another user could have made it to pose as mcpd.  With
 * a socket_group, both are given to the group and only then opened to it
 * (directory 0750, socket 0660).  A socket file left by a dead mcpd is
 * replaced; one that a live mcpd answers on is never stolen.  At exit
 * mcpd removes the socket file only if it is still the inode it bound: a
 * second mcpd may have taken the path meanwhile.  When accept fails for
 * lack of file descriptors, accepting pauses for LISTENER_EMFILE_PAUSE_MS
 * instead of spinning.  Under socket activation systemd owns the socket:
 * mcpd uses the one it passes and never unlinks or re-binds it.
 *
 * systemd's sockets are told apart by their names (FileDescriptorName=,
 * sd_listen_fds_with_names): "mcpd" is this socket; so is the first
 * without a name of its own (a unit's name, "mcpd.socket", is the default;
 * "unknown" when systemd-socket-activate gives none) when none is named
 * "mcpd", as a unit without FileDescriptorName= has always worked.  Those
 * named "http" (or "mcpd-http.socket") are the HTTP front's, held by
 * httpfront.c.  Any other, and a second socket for mcpd, is logged and
 * closed.  LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES are cleared either
 * way, so that no server inherits them.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/listener.h>
#include <systemd/sd-daemon.h>

#include "client.h"
#include "conf.h"
#include "esc.h"
#include "httpfront.h"
#include "listener.h"
#include "log.h"
#include "mcpd.h"
#include "paths.h"
#include "xmalloc.h"

#define LISTENER_BACKLOG		128
#define LISTENER_EMFILE_PAUSE_MS	1000

struct listener {
	struct mcpd		*mcpd;
	char			*path;
	struct evconnlistener	*evl;
	struct event		*ev_resume;
	int			 owns_path;
	dev_t			 dev;		/* of the socket file we bound */
	ino_t			 ino;
};

static void
listener_accept_cb(struct evconnlistener *evl, evutil_socket_t fd,
    struct sockaddr *sa, int socklen, void *arg)
{
	struct listener	*l = arg;

	client_accept(l->mcpd, fd);
}

static void
listener_resume_cb(evutil_socket_t fd, short events, void *arg)
{
	struct listener	*l = arg;

	evconnlistener_enable(l->evl);
}

static void
listener_error_cb(struct evconnlistener *evl, void *arg)
{
	struct listener	*l = arg;
	struct timeval	 tv = { LISTENER_EMFILE_PAUSE_MS / 1000,
	    (LISTENER_EMFILE_PAUSE_MS % 1000) * 1000 };
	int		 error = EVUTIL_SOCKET_ERROR();

	if (error == EMFILE || error == ENFILE || error == ENOBUFS ||
	    error == ENOMEM) {
		log_warnx("accept on %s: %s; pausing for %d ms", l->path,
		    strerror(error), LISTENER_EMFILE_PAUSE_MS);
		evconnlistener_disable(evl);
		evtimer_add(l->ev_resume, &tv);
		return;
	}
	log_warnx("accept on %s: %s", l->path, strerror(error));
}

/* Make dir, and any directory missing above it, 0700: 1 if made, 0, -1. */
static int
listener_mkdirs(const char *dir, char **cause)
{
	char	*parent;
	int	 rc;

	if (mkdir(dir, 0700) == 0)
		return (1);
	if (errno == ENOENT) {
		parent = paths_socket_dir(dir);
		rc = 0;
		if (strcmp(parent, dir) != 0 && strcmp(parent, ".") != 0 &&
		    strcmp(parent, "/") != 0)
			rc = listener_mkdirs(parent, cause);
		free(parent);
		if (rc == -1)
			return (-1);
		if (mkdir(dir, 0700) == 0)
			return (1);
	}
	if (errno != EEXIST) {
		xasprintf(cause, "mkdir %s: %s", dir, strerror(errno));
		return (-1);
	}
	return (0);
}

/* The socket's directory: 1 if we made it, 0 if it was there, -1. */
static int
listener_mkdir(const char *path, char **cause)
{
	char	*dir, *why = NULL;
	int	 rc;

	dir = paths_socket_dir(path);
	if ((rc = listener_mkdirs(dir, cause)) != 0)
		goto out;	/* ours: it may be shared with the group */
	switch (paths_check_dir(dir, getuid(), &why)) {
	case 0:
		break;
	case -1:
		xasprintf(cause, "%s: %s", dir, strerror(errno));
		rc = -1;
		break;
	default:
		xasprintf(cause, "%s %s; refusing to put the socket there, "
		    "where another user could take its place: remove it or "
		    "choose another socket (-s or $%s)", dir, why,
		    PATHS_SOCKET_ENV);
		rc = -1;
		break;
	}
out:
	free(why);
	free(dir);
	return (rc);
}

/* A socket file already there: refuse if a daemon answers, else remove. */
static int
listener_clear_stale(const struct sockaddr_un *sun, char **cause)
{
	struct stat	 sb;
	int		 fd, rc;

	if (lstat(sun->sun_path, &sb) != 0)
		return (errno == ENOENT ? 0 : -1);
	if (!S_ISSOCK(sb.st_mode)) {
		xasprintf(cause, "%s exists and is not a socket",
		    sun->sun_path);
		return (-1);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		xasprintf(cause, "socket: %s", strerror(errno));
		return (-1);
	}
	rc = connect(fd, (const struct sockaddr *)sun, sizeof *sun);
	close(fd);
	if (rc == 0) {
		xasprintf(cause, "another mcpd is already listening on %s",
		    sun->sun_path);
		return (-1);
	}
	if (errno != ECONNREFUSED) {
		xasprintf(cause, "%s: %s", sun->sun_path, strerror(errno));
		return (-1);
	}
	log_info("removing stale socket %s", sun->sun_path);
	if (unlink(sun->sun_path) != 0 && errno != ENOENT) {
		xasprintf(cause, "unlink %s: %s", sun->sun_path,
		    strerror(errno));
		return (-1);
	}
	return (0);
}

/* Open the socket and its new directory to the configured group. */
static int
listener_share(const char *path, const char *dir, gid_t gid, char **cause)
{
	if (dir != NULL && (chown(dir, (uid_t)-1, gid) != 0 ||
	    chmod(dir, 0750) != 0)) {
		xasprintf(cause, "%s: cannot give it to group %lu: %s", dir,
		    (unsigned long)gid, strerror(errno));
		return (-1);
	}
	if (chown(path, (uid_t)-1, gid) != 0 || chmod(path, 0660) != 0) {
		xasprintf(cause, "%s: cannot give it to group %lu: %s", path,
		    (unsigned long)gid, strerror(errno));
		return (-1);
	}
	return (0);
}

static int
listener_bind(const char *path, const struct conf *conf, struct stat *bound,
    char **cause)
{
	struct sockaddr_un	 sun;
	mode_t			 mask;
	char			*dir;
	int			 fd, made;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		xasprintf(cause, "socket path too long (%zu bytes, at most "
		    "%zu): %s; choose a shorter one with -s or $%s",
		    strlen(path), sizeof sun.sun_path - 1, path,
		    PATHS_SOCKET_ENV);
		return (-1);
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((made = listener_mkdir(path, cause)) == -1)
		return (-1);
	if (listener_clear_stale(&sun, cause) != 0) {
		if (*cause == NULL)
			xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		xasprintf(cause, "socket: %s", strerror(errno));
		return (-1);
	}
	mask = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		umask(mask);
		xasprintf(cause, "bind %s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	umask(mask);
	if (lstat(path, bound) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	if (conf->socket_group != NULL) {
		dir = paths_socket_dir(path);
		if (listener_share(path, made == 1 ? dir : NULL,
		    conf->socket_gid, cause) != 0) {
			free(dir);
			unlink(path);
			close(fd);
			return (-1);
		}
		free(dir);
	}
	if (listen(fd, LISTENER_BACKLOG) != 0) {
		xasprintf(cause, "listen %s: %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return (-1);
	}
	return (fd);
}

enum listener_name {
	LISTENER_NAME_MCPD,	/* "mcpd" */
	LISTENER_NAME_NONE,	/* none of its own */
	LISTENER_NAME_HTTP,	/* the HTTP front's */
	LISTENER_NAME_OTHER,
};

static enum listener_name
listener_name(const char *name)
{
	size_t	 len;

	if (name == NULL || *name == '\0' || strcmp(name, "unknown") == 0)
		return (LISTENER_NAME_NONE);
	if (strcmp(name, "mcpd") == 0)
		return (LISTENER_NAME_MCPD);
	if (strcmp(name, "http") == 0 || strcmp(name, "mcpd-http.socket") == 0)
		return (LISTENER_NAME_HTTP);
	/* A socket unit's default name is its own. */
	len = strlen(name);
	if (len > 7 && strcmp(name + len - 7, ".socket") == 0)
		return (LISTENER_NAME_NONE);
	return (LISTENER_NAME_OTHER);
}

/* Which of the n sockets is mcpd's: named "mcpd", else the first unnamed. */
static int
listener_mine(char **names, int n)
{
	int	 i, first = -1;

	for (i = 0; i < n; i++) {
		switch (listener_name(names != NULL ? names[i] : NULL)) {
		case LISTENER_NAME_MCPD:
			return (i);
		case LISTENER_NAME_NONE:
			if (first == -1)
				first = i;
			break;
		default:
			break;
		}
	}
	return (first);
}

/* A socket that is not mcpd's own: the HTTP front's, or closed. */
static void
listener_other(struct mcpd *mcpd, int fd, const char *name)
{
	char	*esc;

	esc = esc_text(name != NULL ? name : "", name != NULL ?
	    strlen(name) : 0, 0);
	switch (listener_name(name)) {
	case LISTENER_NAME_HTTP:
		if (sd_is_socket(fd, AF_UNSPEC, SOCK_STREAM, 1) > 0) {
			httpfront_add_socket(mcpd, fd);
			free(esc);
			return;
		}
		log_warnx("the socket systemd passed as \"%s\" (fd %d) is "
		    "not a listening stream socket; closing it", esc, fd);
		break;
	case LISTENER_NAME_OTHER:
		log_warnx("systemd passed a socket named \"%s\" (fd %d), a "
		    "name mcpd does not know (\"mcpd\": its own socket; "
		    "\"http\": the HTTP front's); closing it", esc, fd);
		break;
	default:
		log_warnx("systemd passed a second socket for mcpd (fd %d, "
		    "%s%s%s); mcpd listens on one: closing it", fd,
		    *esc != '\0' ? "named \"" : "without a name", esc,
		    *esc != '\0' ? "\"" : "");
		break;
	}
	free(esc);
	close(fd);
}

/* The sockets systemd passed, and their names (NULL: none); how many. */
static int
listener_passed(char ***names)
{
	int	 n;

	*names = NULL;
	n = sd_listen_fds_with_names(0, names);
	if (n < 0) {
		/* LISTEN_FDNAMES does not name each socket once. */
		*names = NULL;
		if ((n = sd_listen_fds(0)) > 0)
			log_warnx("$LISTEN_FDNAMES does not name the %d "
			    "sockets systemd passed; taking them as unnamed",
			    n);
	}
	(void)unsetenv("LISTEN_PID");
	(void)unsetenv("LISTEN_FDS");
	(void)unsetenv("LISTEN_FDNAMES");
	return (n);
}

/*
 * mcpd's own socket of those systemd passed, or -1 if none (-2 with
 * *cause if it is not one mcpd can serve on); the others handed to the
 * HTTP front or closed.
 */
static int
listener_activated(struct mcpd *mcpd, char **path, char **cause)
{
	struct sockaddr_un	 sun;
	socklen_t		 len = sizeof sun;
	char			**names;
	int			 n, i, mine, fd;

	n = listener_passed(&names);
	mine = n > 0 ? listener_mine(names, n) : -1;
	for (i = 0; i < n; i++) {
		if (i != mine)
			listener_other(mcpd, SD_LISTEN_FDS_START + i,
			    names != NULL ? names[i] : NULL);
	}
	for (i = 0; names != NULL && names[i] != NULL; i++)
		free(names[i]);
	free(names);
	if (mine == -1)
		return (-1);
	fd = SD_LISTEN_FDS_START + mine;
	if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
		xasprintf(cause, "the socket systemd passed for mcpd (fd %d) "
		    "is not a listening AF_UNIX stream socket (an HTTP "
		    "socket is named \"http\": FileDescriptorName=http)",
		    fd);
		return (-2);
	}
	memset(&sun, 0, sizeof sun);
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == 0 &&
	    sun.sun_path[0] != '\0')
		*path = xstrndup(sun.sun_path, sizeof sun.sun_path);
	else
		*path = xstrdup("(socket passed by systemd)");
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
	return (fd);
}

/* Remove the socket file we bound, and nothing that has taken its place. */
static void
listener_unlink(struct listener *l)
{
	struct stat	 sb;

	if (!l->owns_path || lstat(l->path, &sb) != 0)
		return;
	if (sb.st_dev != l->dev || sb.st_ino != l->ino) {
		log_info("leaving %s alone: it is no longer the socket this "
		    "mcpd created", l->path);
		return;
	}
	if (unlink(l->path) != 0 && errno != ENOENT)
		log_warnx("unlink %s: %s", l->path, strerror(errno));
}

/* libevent's listener on fd, and the resume timer. */
static int
listener_start(struct mcpd *mcpd, struct listener *l, int fd, char **cause)
{
	l->evl = evconnlistener_new(mcpd->base, listener_accept_cb, l,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (l->evl == NULL) {
		xasprintf(cause, "cannot listen on %s", l->path);
		return (-1);
	}
	evconnlistener_set_error_cb(l->evl, listener_error_cb);
	l->ev_resume = evtimer_new(mcpd->base, listener_resume_cb, l);
	return (0);
}

int
listener_export(const struct listener *l, int *owned)
{
	*owned = l->owns_path;
	return (evconnlistener_get_fd(l->evl));
}

struct listener *
listener_adopt(struct mcpd *mcpd, int fd, const char *path, int owned,
    char **cause)
{
	struct listener	*l;
	struct stat	 sb;

	*cause = NULL;
	l = xcalloc(1, sizeof *l);
	l->mcpd = mcpd;
	l->path = xstrdup(path);
	/* The file the first mcpd bound, if it is still a socket there. */
	if (owned && lstat(path, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		l->owns_path = 1;
		l->dev = sb.st_dev;
		l->ino = sb.st_ino;
	}
	evutil_make_socket_closeonexec(fd);
	if (listener_start(mcpd, l, fd, cause) != 0) {
		close(fd);
		free(l->path);
		free(l);
		return (NULL);
	}
	return (l);
}

struct listener *
listener_open(struct mcpd *mcpd, const char *path, char **cause)
{
	struct listener	*l;
	struct stat	 bound;
	char		*activated_path = NULL;
	int		 fd;

	*cause = NULL;
	l = xcalloc(1, sizeof *l);
	l->mcpd = mcpd;
	if ((fd = listener_activated(mcpd, &activated_path, cause)) == -2) {
		free(l);
		return (NULL);
	}
	if (fd != -1) {
		l->path = activated_path;
		l->owns_path = 0;
		if (strcmp(l->path, path) != 0)
			log_info("using the socket systemd passed, %s, not %s",
			    l->path, path);
	} else {
		if ((fd = listener_bind(path, mcpd->conf, &bound,
		    cause)) == -1) {
			free(l);
			return (NULL);
		}
		l->path = xstrdup(path);
		l->owns_path = 1;
		l->dev = bound.st_dev;
		l->ino = bound.st_ino;
	}
	if (listener_start(mcpd, l, fd, cause) != 0) {
		close(fd);
		listener_unlink(l);
		free(l->path);
		free(l);
		return (NULL);
	}
	return (l);
}

const char *
listener_path(const struct listener *l)
{
	return (l->path);
}

void
listener_close(struct listener *l)
{
	if (l == NULL)
		return;
	evconnlistener_free(l->evl);
	event_free(l->ev_resume);
	listener_unlink(l);
	free(l->path);
	free(l);
}
