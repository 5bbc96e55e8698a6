/*
 * legacy.c -- the HTTP+SSE transport of MCP 2024-11-05.
 *
 * A GET opens the session's event stream; its first event, "endpoint",
 * names where to POST messages (resolved against the server URL, and
 * refused if it points at another origin).  Responses and the server's
 * own messages all come on the stream; a POST only says accepted.  The
 * stream is the session: when it drops, the session is gone, and the
 * session layer starts a new one (session_lost).
 */
#include "config.h"

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "http.h"
#include "httphdr.h"
#include "proto.h"
#include "rconf.h"
#include "remote.h"
#include "rstatus.h"
#include "sse.h"
#include "url.h"
#include "util.h"
#include "xmalloc.h"

#define LG_MAX_HEADERS		64

struct lg;

/* One POST of a message. */
struct lg_x {
	struct lg		*lg;
	struct rmsg		*m;
	struct http_req		*req;
	long			 status;
	TAILQ_ENTRY(lg_x)	 entry;
};
TAILQ_HEAD(lg_xs, lg_x);

/* A message waiting for the endpoint. */
struct lg_q {
	struct rmsg		*m;
	TAILQ_ENTRY(lg_q)	 entry;
};
TAILQ_HEAD(lg_qs, lg_q);

struct lg {
	struct rt		 rt;
	enum { LG_IDLE, LG_CONNECTING, LG_OPEN } state;
	struct http_req		*stream;
	long			 stream_status;
	struct sse		*sse;
	char			*endpoint;
	struct lg_xs		 xs;
	struct lg_qs		 queue;
	void			(*close_done)(struct remote *);
	struct event		*close_ev;
};

static void	lg_post(struct lg *, struct rmsg *);

static struct rsession *
lg_session(struct lg *lg)
{
	return (lg->rt.r->session);
}

static size_t
lg_headers(struct lg *lg, const char **h, int post)
{
	struct rconf	*rc = lg->rt.r->conf;
	const char	*auth;
	size_t		 n = 0, i;

	h[n++] = post ? "Accept: application/json, text/event-stream" :
	    "Accept: text/event-stream";
	if (post)
		h[n++] = "Content-Type: application/json";
	auth = lg->rt.ev->auth_header(lg_session(lg));
	if (auth != NULL)
		h[n++] = auth;
	for (i = 0; i < rc->nheaders && n < LG_MAX_HEADERS - 1; i++)
		h[n++] = rc->headers[i];
	h[n] = NULL;
	return (n);
}

static void
lg_x_free(struct lg_x *x)
{
	if (x->req != NULL)
		http_cancel(x->req);
	TAILQ_REMOVE(&x->lg->xs, x, entry);
	free(x);
}

static void
lg_stream_close(struct lg *lg)
{
	if (lg->stream != NULL)
		http_cancel(lg->stream);
	lg->stream = NULL;
	if (lg->sse != NULL)
		sse_free(lg->sse);
	lg->sse = NULL;
	free(lg->endpoint);
	lg->endpoint = NULL;
	lg->state = LG_IDLE;
}

/* Every queued message gets this outcome: failed, or unreachable. */
static void
lg_queue_fail(struct lg *lg, const char *why, long status, const char *www)
{
	struct rsession	*s = lg_session(lg);
	struct lg_q	*q;
	struct rmsg	*m;
	int		 first = 1;

	while ((q = TAILQ_FIRST(&lg->queue)) != NULL) {
		TAILQ_REMOVE(&lg->queue, q, entry);
		m = q->m;
		free(q);
		if (status == 401 && first) {
			first = 0;
			lg->rt.ev->auth(s, m, www);
		} else if (status == 401)
			lg->rt.ev->failed(s, m, MCPD_ERR_REMOTE_AUTH, "%s",
			    why);
		else if ((status == 400 || status == 404 || status == 405) &&
		    m->init && !m->internal &&
		    lg->rt.r->conf->transport == RCONF_AUTO)
			lg->rt.ev->fallback(s, m);
		else
			lg->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "%s", why);
	}
}

static int
lg_on_event(void *arg, const struct sse_event *ev)
{
	struct lg	*lg = arg;
	struct lg_q	*q;
	char		*data, *url;

	if (ev->type_len == 8 && memcmp(ev->type, "endpoint", 8) == 0) {
		if (lg->state == LG_OPEN)
			return (0);	/* said once per session */
		data = xstrndup(ev->data, ev->data_len);
		url = url_resolve(lg->rt.r->conf->url, data);
		free(data);
		if (url == NULL || !url_same_origin(url,
		    lg->rt.r->conf->url)) {
			free(url);
			remote_log("the remote's SSE endpoint is invalid or "
			    "on another origin: refused");
			return (-1);
		}
		lg->endpoint = url;
		lg->state = LG_OPEN;
		while ((q = TAILQ_FIRST(&lg->queue)) != NULL) {
			TAILQ_REMOVE(&lg->queue, q, entry);
			lg_post(lg, q->m);
			free(q);
		}
		return (0);
	}
	if (ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0 &&
	    ev->data_len > 0 && lg->state == LG_OPEN)
		lg->rt.ev->incoming(lg_session(lg), ev->data, ev->data_len);
	return (0);
}

static const struct sse_cb lg_sse_cb = { lg_on_event, NULL };

static int
lg_stream_head(void *arg, struct http_req *req)
{
	struct lg	*lg = arg;
	const char	*ct;

	lg->stream_status = http_status(req);
	rstatus_http(lg->stream_status, "GET");
	ct = http_header(req, "Content-Type");
	if (lg->stream_status >= 200 && lg->stream_status <= 299 &&
	    ct != NULL && httphdr_media_is(ct, "text/event-stream")) {
		lg->sse = sse_new(lg->rt.r->conf->max_message_bytes,
		    &lg_sse_cb, lg);
		return (0);
	}
	return (0);
}

static int
lg_stream_body(void *arg, struct http_req *req, const char *data, size_t len)
{
	struct lg	*lg = arg;

	/* Not an event stream: dropped (lg_stream_done says why). */
	if (lg->sse == NULL)
		return (0);
	if (rio_congested())
		return (HTTP_PAUSE);
	switch (sse_feed(lg->sse, data, len)) {
	case SSE_OK:
		return (0);
	case SSE_TOO_BIG:
		remote_log("the remote sent an event over max_message_bytes");
		return (-1);
	default:
		return (-1);
	}
}

static void
lg_stream_done(void *arg, struct http_req *req, enum http_end end,
    const char *error)
{
	struct lg	*lg = arg;
	struct rsession	*s = lg_session(lg);
	const char	*www;
	char		*why, *wwwc = NULL;
	long		 status = lg->stream_status;

	lg->stream = NULL;
	if (lg->state == LG_OPEN) {
		/* The stream was the session. */
		lg_stream_close(lg);
		lg->rt.ev->lost(s, NULL);
		return;
	}
	if (status == 0 && end == HTTP_CONNECT) {
		lg_stream_close(lg);
		lg->rt.ev->unreachable(s, NULL, error != NULL ? error :
		    "no response");
		return;
	}
	if (status == 401 && (www = http_header(req,
	    "WWW-Authenticate")) != NULL)
		wwwc = xstrdup(www);
	if (status >= 200 && status <= 299)
		xasprintf(&why, "the remote's SSE stream ended before it "
		    "named its endpoint");
	else if (status > 0)
		xasprintf(&why, "the remote refused the SSE stream (HTTP %ld)",
		    status);
	else
		xasprintf(&why, "the remote's SSE stream failed: %s",
		    error != NULL ? error : "no response");
	lg_stream_close(lg);
	lg_queue_fail(lg, why, status, wwwc);
	free(why);
	free(wwwc);
}

static const struct http_cb lg_stream_cb = {
	lg_stream_head, lg_stream_body, lg_stream_done
};

static void
lg_connect(struct lg *lg)
{
	const char	*h[LG_MAX_HEADERS + 1];

	lg_headers(lg, h, 0);
	lg->state = LG_CONNECTING;
	lg->stream_status = 0;
	lg->stream = http_request(lg->rt.r->http, "GET", lg->rt.r->conf->url,
	    h, NULL, 0, 0, &lg_stream_cb, lg);
}

static int
lg_post_head(void *arg, struct http_req *req)
{
	struct lg_x	*x = arg;

	x->status = http_status(req);
	rstatus_http(x->status, "POST");
	return (0);
}

static void
lg_post_done(void *arg, struct http_req *req, enum http_end end,
    const char *error)
{
	struct lg_x	*x = arg;
	struct lg	*lg = x->lg;
	struct rsession	*s = lg_session(lg);
	struct rmsg	*m = x->m;
	const char	*hv;
	char		*www = NULL;
	uint64_t	 delay = 0;
	long		 status = x->status;

	x->req = NULL;
	if ((status == 401 || status == 403) && (hv = http_header(req,
	    "WWW-Authenticate")) != NULL)
		www = xstrdup(hv);
	if ((status == 429 || status == 503) && (hv = http_header(req,
	    "Retry-After")) != NULL && httphdr_retry_after(hv, time(NULL),
	    3600000, &delay) == -1)
		delay = 0;
	lg_x_free(x);
	if (status == 0) {
		if (end == HTTP_CONNECT)
			lg->rt.ev->unreachable(s, m, error != NULL ? error :
			    "no response");
		else
			lg->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote "
			    "did not respond: %s", error != NULL ? error :
			    "unknown error");
	} else if (status >= 200 && status <= 299)
		lg->rt.ev->done(s, m);
	else if (status == 401)
		lg->rt.ev->auth(s, m, www);
	else if (status == 403 && www != NULL &&
	    lg->rt.ev->forbidden(s, m, www) == 0)
		;
	else if (status == 404)
		lg->rt.ev->lost(s, m);
	else if (status == 429 || status == 503)
		lg->rt.ev->busy(s, m, delay);
	else
		lg->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote answered "
		    "HTTP %ld", status);
	free(www);
}

static const struct http_cb lg_post_cb = {
	lg_post_head, NULL, lg_post_done	/* the status alone counts */
};

static void
lg_post(struct lg *lg, struct rmsg *m)
{
	const char	*h[LG_MAX_HEADERS + 1];
	struct lg_x	*x;
	char		*body;

	lg_headers(lg, h, 1);
	x = xcalloc(1, sizeof *x);
	x->lg = lg;
	x->m = m;
	TAILQ_INSERT_TAIL(&lg->xs, x, entry);
	body = xmalloc(m->len);
	memcpy(body, m->line, m->len);
	x->req = http_request(lg->rt.r->http, "POST", lg->endpoint, h, body,
	    m->len, 0, &lg_post_cb, x);
}

static void
lg_send(struct rt *rt, struct rmsg *m)
{
	struct lg	*lg = (struct lg *)rt;
	struct lg_q	*q;

	if (lg->state == LG_OPEN) {
		lg_post(lg, m);
		return;
	}
	q = xcalloc(1, sizeof *q);
	q->m = m;
	TAILQ_INSERT_TAIL(&lg->queue, q, entry);
	if (lg->state == LG_IDLE)
		lg_connect(lg);
}

static void
lg_initialized(struct rt *rt)
{
}

static void
lg_cancel(struct rt *rt, struct rmsg *m)
{
	struct lg	*lg = (struct lg *)rt;
	struct lg_x	*x, *nx;
	struct lg_q	*q, *nq;

	for (x = TAILQ_FIRST(&lg->xs); x != NULL; x = nx) {
		nx = TAILQ_NEXT(x, entry);
		if (x->m == m)
			lg_x_free(x);
	}
	for (q = TAILQ_FIRST(&lg->queue); q != NULL; q = nq) {
		nq = TAILQ_NEXT(q, entry);
		if (q->m == m) {
			TAILQ_REMOVE(&lg->queue, q, entry);
			free(q);
		}
	}
}

static void
lg_reset(struct rt *rt)
{
	lg_stream_close((struct lg *)rt);
}

static void
lg_close_fire(evutil_socket_t fd, short what, void *arg)
{
	struct lg	*lg = arg;

	lg->close_done(lg->rt.r);
}

static void
lg_close(struct rt *rt, void (*done)(struct remote *))
{
	struct lg	*lg = (struct lg *)rt;
	struct lg_x	*x;

	while ((x = TAILQ_FIRST(&lg->xs)) != NULL)
		lg_x_free(x);
	lg_stream_close(lg);
	lg->close_done = done;
	lg->close_ev = evtimer_new(rt->r->base, lg_close_fire, lg);
	event_active(lg->close_ev, EV_TIMEOUT, 0);
}

static void
lg_free(struct rt *rt)
{
	struct lg	*lg = (struct lg *)rt;
	struct lg_x	*x;
	struct lg_q	*q;

	while ((x = TAILQ_FIRST(&lg->xs)) != NULL)
		lg_x_free(x);
	while ((q = TAILQ_FIRST(&lg->queue)) != NULL) {
		TAILQ_REMOVE(&lg->queue, q, entry);
		free(q);
	}
	lg_stream_close(lg);
	if (lg->close_ev != NULL)
		event_free(lg->close_ev);
	free(lg);
}

static const struct rt_ops lg_ops = {
	"sse", lg_send, lg_initialized, lg_cancel, lg_reset, lg_close, lg_free
};

struct rt *
legacy_new(struct remote *r, const struct rt_events *ev)
{
	struct lg	*lg;

	lg = xcalloc(1, sizeof *lg);
	lg->rt.ops = &lg_ops;
	lg->rt.ev = ev;
	lg->rt.r = r;
	TAILQ_INIT(&lg->xs);
	TAILQ_INIT(&lg->queue);
	return (&lg->rt);
}
