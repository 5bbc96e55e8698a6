/*
 * hlisten.c -- where mcpd-http listens (hfront.h): the sockets mcpd
 * passes it (-f, those systemd passed mcpd under the name "http"), and
 * the "listen" addresses of its settings, bound here.
 *
 * A passed socket is taken as it is: it is listening already, and the
 * front neither binds it nor removes its file, which belong to systemd's
 * socket unit; it is refused if it is not a listening stream socket, or
 * is TCP on an address that is not loopback without "behind_proxy" (the
 * rule the "listen" addresses follow).  Its address joins the listen
 * addresses, so that a request's Host may name it; an address of
 * "listen" equal to a passed socket's is not bound a second time.  The
 * front binds the rest, and removes the Unix socket files it bound when
 * it stops.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include "conf_http.h"
#include "hfront.h"

#define HLISTEN_BACKLOG		128

static int
hlisten_socket_unix(const struct conf_http_listen *l)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, l->path, strlen(l->path) + 1);
	/* A socket left by an earlier run; never any other file. */
	if (lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(l->path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return (-1);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		close(fd);
		return (-1);
	}
	return (fd);
}

static int
hlisten_socket_tcp(const struct conf_http_listen *l)
{
	struct addrinfo	 hints, *res;
	int		 fd, one = 1;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	if (getaddrinfo(l->host, l->port, &hints, &res) != 0) {
		errno = EINVAL;
		return (-1);
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0);
	if (fd != -1) {
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one);
		if (bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return (fd);
}

/* evhttp serves fd, listening already; 0, or -1 logged (fd closed). */
static int
hlisten_serve(struct hfront *f, int fd, const char *spec)
{
	struct evconnlistener	*lev;

	lev = evconnlistener_new(f->base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE |
	    LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (lev == NULL) {
		hlog("cannot listen on %s", spec);
		close(fd);
		return (-1);
	}
	if (evhttp_bind_listener(f->http, lev) == NULL) {
		hlog("cannot listen on %s", spec);
		evconnlistener_free(lev);
		return (-1);
	}
	return (0);
}

/* One passed socket, checked, its address read: 0, or -1 logged. */
static int
hlisten_passed_one(struct hfront *f, int fd)
{
	struct sockaddr_storage	 ss;
	struct conf_http_listen	 l;
	socklen_t		 len;
	const char		*why;
	int			 type = 0, on = 0;

	len = sizeof type;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) {
		hlog("passed socket (fd %d): %s", fd, strerror(errno));
		return (-1);
	}
	len = sizeof on;
	if (type != SOCK_STREAM || getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN,
	    &on, &len) != 0 || !on) {
		hlog("passed socket (fd %d): not a listening stream socket",
		    fd);
		return (-1);
	}
	len = sizeof ss;
	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		hlog("passed socket (fd %d): %s", fd, strerror(errno));
		return (-1);
	}
	if (conf_http_listen_sockaddr((struct sockaddr *)&ss, len, &l,
	    &why) != 0) {
		hlog("passed socket (fd %d): %s", fd, why);
		return (-1);
	}
	if ((why = conf_http_listen_refused(f->conf, &l)) != NULL) {
		hlog("passed socket %s (fd %d): %s", l.spec, fd, why);
		conf_http_listen_free(&l);
		return (-1);
	}
	evutil_make_socket_nonblocking(fd);
	evutil_make_socket_closeonexec(fd);
	if (hlisten_serve(f, fd, l.spec) != 0) {
		conf_http_listen_free(&l);
		return (-1);
	}
	hlog("listening on %s (passed by systemd)", l.spec);
	conf_http_listen_add(f->conf, &l);
	return (0);
}

int
hlisten_parse_fds(const char *text, int *v, size_t max)
{
	const char	*p = text;
	char		*end;
	long		 n;
	size_t		 count = 0;

	for (;;) {
		if (*p < '0' || *p > '9' || count == max)
			return (-1);
		errno = 0;
		n = strtol(p, &end, 10);
		if (errno != 0 || n <= STDERR_FILENO || n > INT_MAX)
			return (-1);
		v[count++] = (int)n;
		if (*end == '\0')
			return ((int)count);
		if (*end != ',')
			return (-1);
		p = end + 1;
	}
}

int
hlisten_passed(struct hfront *f, const int *fds, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (hlisten_passed_one(f, fds[i]) != 0)
			return (-1);
	return (0);
}

/* An address of "listen" that a passed socket serves already. */
static int
hlisten_is_passed(struct hfront *f, struct conf_http_listen *l)
{
	size_t	 i;

	for (i = 0; i < f->conf->nlisten; i++) {
		if (&f->conf->listen[i] != l && f->conf->listen[i].passed &&
		    conf_http_listen_same(&f->conf->listen[i], l))
			return (1);
	}
	return (0);
}

int
hlisten_bind(struct hfront *f)
{
	struct conf_http_listen	*l;
	size_t			 i;
	int			 fd;

	for (i = 0; i < f->conf->nlisten; i++) {
		l = &f->conf->listen[i];
		if (l->passed)
			continue;
		if (hlisten_is_passed(f, l)) {
			l->passed = 1;
			hlog("%s: the socket systemd passed; not bound again",
			    l->spec);
			continue;
		}
		fd = l->path != NULL ? hlisten_socket_unix(l) :
		    hlisten_socket_tcp(l);
		if (fd == -1 || listen(fd, HLISTEN_BACKLOG) != 0) {
			hlog("cannot listen on %s: %s", l->spec,
			    strerror(errno));
			if (fd != -1)
				close(fd);
			return (-1);
		}
		if (hlisten_serve(f, fd, l->spec) != 0)
			return (-1);
		hlog("listening on %s", l->spec);
	}
	return (0);
}

void
hlisten_unlink(struct hfront *f)
{
	size_t	 i;

	for (i = 0; i < f->conf->nlisten; i++) {
		if (f->conf->listen[i].path != NULL &&
		    !f->conf->listen[i].passed)
			(void)unlink(f->conf->listen[i].path);
	}
}
