/*
 * hfront.c -- the front's evhttp, made as mcpd-http runs it: every size
 * and time bounded by the "http" object, the methods MCP uses, one
 * callback (hserve.c), the token store read, the listeners (hlisten.c:
 * the sockets passed, the listen addresses bound); the connections counted against max_connections (listeners
 * paused at the cap); and all of it ended again.  main.c and the fuzz
 * target (tests/fuzz/fuzz_evhttp.c) both make it here.
 */
#include "config.h"


#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
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
	if (c->ev_gone != NULL)
		event_free(c->ev_gone);
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

/*
 * The peer closed its side.  evhttp reads nothing while a request waits
 * for its answer, so a client that gives up (a 2026-07-28 client's
 * cancellation is a closed connection) would hold its request, its slot
 * and its call at the server until the answer came: its connection is
 * ended here, which cancels what it was waiting for.  A client that only
 * shuts down its sending side is taken as gone too, as most HTTP servers
 * take it.
 */
static void
hfront_gone_cb(evutil_socket_t fd, short events, void *arg)
{
	struct hconn	*c = arg;

	(void)fd;
	(void)events;
	evhttp_connection_free(c->evcon);	/* c is freed with it */
}

/* Watch for the peer's close where the kernel can say (epoll). */
static void
hfront_watch_gone(struct hfront *f, struct hconn *c)
{
	struct bufferevent	*bev;
	evutil_socket_t		 fd;

	if ((event_base_get_features(f->base) & EV_FEATURE_EARLY_CLOSE) == 0)
		return;
	if ((bev = evhttp_connection_get_bufferevent(c->evcon)) == NULL ||
	    (fd = bufferevent_getfd(bev)) == -1)
		return;
	c->ev_gone = event_new(f->base, fd, EV_CLOSED | EV_PERSIST,
	    hfront_gone_cb, c);
	if (c->ev_gone != NULL && event_add(c->ev_gone, NULL) != 0) {
		event_free(c->ev_gone);
		c->ev_gone = NULL;
	}
}

size_t
hfront_queued(const struct hconn *c)
{
	struct bufferevent	*bev;

	bev = evhttp_connection_get_bufferevent(c->evcon);
	return (bev == NULL ? 0 :
	    evbuffer_get_length(bufferevent_get_output(bev)));
}

int
hfront_room(struct hconn *c, size_t len)
{
	struct hfront	*f = c->front;
	struct hconn	*o;
	size_t		 queued, all = 0;

	if ((queued = hfront_queued(c)) + len > HFRONT_OUT_MAX)
		return (-1);
	if (queued == 0 && len <= HFRONT_OUT_FREE)
		return (0);	/* a peer that keeps up: no sum to make */
	TAILQ_FOREACH(o, &f->conns, entry)
		all += hfront_queued(o);
	return (all + len > f->conf->max_buffered_bytes ? -1 : 0);
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
	hfront_watch_gone(f, c);
	hfront_cap(f);
	return (c);
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
	if (hlisten_passed(f, f->passed, f->npassed) != 0)
		return (-1);
	return (hlisten_bind(f));
}

void
hfront_close(struct hfront *f)
{
	while (!TAILQ_EMPTY(&f->sessions))
		hsess_close(TAILQ_FIRST(&f->sessions), "mcpd-http stopping");
	hmodern_close_all(f);
	hlisten_unlink(f);
	evhttp_free(f->http);
	f->http = NULL;
}
