/*
 * hfront.c -- the front's evhttp, made as mcpd-http runs it: every size
 * and time bounded by the "http" object, the methods MCP uses, one
 * callback (hserve.c), the token store read, the listen addresses
 * bound; the connections counted against max_connections (listeners
 * paused at the cap); and all of it ended again.  main.c and the fuzz
 * target (tests/fuzz/fuzz_evhttp.c) both make it here.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include "conf_http.h"
#include "hfront.h"
#include "xmalloc.h"

static void
hfront_toggle(struct evhttp_bound_socket *bs, void *arg)
{
	int	 on = *(int *)arg;

	if (on)
		evconnlistener_enable(evhttp_bound_socket_get_listener(bs));
	else
		evconnlistener_disable(evhttp_bound_socket_get_listener(bs));
}

static void
hfront_cap(struct hfront *f)
{
	int	 on = f->nconns < f->conf->max_connections;

	if (f->listeners_off == !on)
		return;
	f->listeners_off = !on;
	if (!on)
		hlog("%zu connections (max_connections): not accepting more "
		    "for now", f->nconns);
	evhttp_foreach_bound_socket(f->http, hfront_toggle, &on);
}

static void
hfront_conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct hconn	*c = arg;
	struct hfront	*f = c->front;

	(void)evcon;
	hsess_conn_closed(f, c);
	hmodern_conn_closed(f, c);
	TAILQ_REMOVE(&f->conns, c, entry);
	f->nconns--;
	free(c);
	hfront_cap(f);
}

/*
 * A request held when its connection closed.  When the peer goes away
 * (or times out) during a reply, evhttp takes the request off the
 * connection and leaves it to us: then it is ours to free.  Otherwise
 * evhttp frees it with the connection.
 */
void
hfront_req_dropped(struct evhttp_request *req)
{
	if (req != NULL && evhttp_request_get_connection(req) == NULL)
		evhttp_request_free(req);
}

struct hconn *
hfront_conn(struct hfront *f, struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	struct hconn			*c;

	evcon = evhttp_request_get_connection(req);
	TAILQ_FOREACH(c, &f->conns, entry)
		if (c->evcon == evcon)
			return (c);
	c = xcalloc(1, sizeof *c);
	c->evcon = evcon;
	c->front = f;
	TAILQ_INSERT_HEAD(&f->conns, c, entry);
	f->nconns++;
	evhttp_connection_set_closecb(evcon, hfront_conn_closed, c);
	hfront_cap(f);
	return (c);
}

static int
hfront_socket_unix(const struct conf_http_listen *l)
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
hfront_socket_tcp(const struct conf_http_listen *l)
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

static int
hfront_listen(struct hfront *f)
{
	const struct conf_http_listen	*l;
	struct evconnlistener		*lev;
	size_t				 i;
	int				 fd;

	for (i = 0; i < f->conf->nlisten; i++) {
		l = &f->conf->listen[i];
		fd = l->path != NULL ? hfront_socket_unix(l) :
		    hfront_socket_tcp(l);
		if (fd == -1 || listen(fd, 128) != 0) {
			hlog("cannot listen on %s: %s", l->spec,
			    strerror(errno));
			if (fd != -1)
				close(fd);
			return (-1);
		}
		lev = evconnlistener_new(f->base, NULL, NULL,
		    LEV_OPT_CLOSE_ON_FREE, -1, fd);
		if (lev == NULL || evhttp_bind_listener(f->http, lev) == NULL) {
			hlog("cannot listen on %s", l->spec);
			if (lev != NULL)
				evconnlistener_free(lev);
			return (-1);
		}
		hlog("listening on %s", l->spec);
	}
	return (0);
}

int
hfront_open(struct hfront *f)
{
	TAILQ_INIT(&f->conns);
	TAILQ_INIT(&f->sessions);
	TAILQ_INIT(&f->moderns);
	f->http = evhttp_new(f->base);
	evhttp_set_max_headers_size(f->http, f->conf->max_header_bytes);
	evhttp_set_max_body_size(f->http, f->conf->max_body_bytes);
	evhttp_set_timeout(f->http, f->conf->timeout_s);
	evhttp_set_allowed_methods(f->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PUT |
	    EVHTTP_REQ_HEAD | EVHTTP_REQ_PATCH);
	evhttp_set_default_content_type(f->http, "application/json");
	evhttp_set_gencb(f->http, hserve_request, f);
	(void)hauth_load(f);
	return (hfront_listen(f));
}

void
hfront_close(struct hfront *f)
{
	size_t	 i;

	while (!TAILQ_EMPTY(&f->sessions))
		hsess_close(TAILQ_FIRST(&f->sessions), "mcpd-http stopping");
	hmodern_close_all(f);
	for (i = 0; i < f->conf->nlisten; i++)
		if (f->conf->listen[i].path != NULL)
			(void)unlink(f->conf->listen[i].path);
	evhttp_free(f->http);
	f->http = NULL;
}
