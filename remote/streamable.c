/*
 * streamable.c -- the Streamable HTTP transport (MCP 2025-11-25; servers
 * negotiating 2025-06-18 and 2025-03-26 speak it the same way).
 *
 * Each message is one POST.  The answer is a JSON body, an SSE stream that
 * may carry the server's requests and notifications before the response,
 * or 202 for notifications and responses.  The session id the server
 * gives with its initialize response goes with every later request, and
 * so does MCP-Protocol-Version.  A response stream that ends before its
 * response is resumed with GET and Last-Event-ID when the server gave its
 * events ids.  After initialization a GET opens the server's own stream
 * (405: the server has none); it is reopened, with Last-Event-ID, when it
 * ends.  On close the session is DELETEd.
 *
 * A stream is never reopened sooner than SH_RETRY_FLOOR_MS, whatever the
 * server's "retry" says, and a stream that keeps ending before it has
 * lasted SH_STREAM_STABLE_MS is reopened later each time (the restart
 * curve of backoff.h, up to SH_RETRY_MAX_MS): a server cannot make the
 * worker poll it, or report resumptions, more than about once a second,
 * nor for long.
 */
#include "config.h"

#include <sys/queue.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/event.h>

#include "backoff.h"
#include "clock.h"
#include "http.h"
#include "httphdr.h"
#include "mcphdr.h"
#include "mcpparam.h"
#include "proto.h"
#include "rconf.h"
#include "relisten.h"
#include "remote.h"
#include "rmodern.h"
#include "rstatus.h"
#include "sbuf.h"
#include "sse.h"
#include "util.h"
#include "xmalloc.h"

#define SH_MAX_HEADERS		(64 + MCPPARAM_MAX)
#define SH_ERROR_BODY_BYTES	4096	/* kept of a failure's body */
#define SH_MAX_RESUMES		8	/* per response stream, in a row */
#define SH_SESSION_ID_MAX	1024
#define SH_RETRY_FLOOR_MS	1000	/* the least wait before a reopen */
#define SH_RETRY_MAX_MS		30000	/* of the backoff (a server may ask more) */
#define SH_STREAM_STABLE_MS	10000	/* a stream this old ended normally */
#define SH_DELETE_TIMEOUT_MS	3000
/* A request of 2026-07-28 whose stream broke (see sh_modern_broken). */
#define SH_MAX_RESENDS		3	/* in a row, of a request */
#define SH_RESEND_MS		250	/* the first wait; doubled each time */
#define SH_MAX_REOPENS		8	/* of a listen stream, none lasting */

struct sh;

/* One HTTP exchange: a message's POST (or its resumption), or the GET. */
struct sh_x {
	struct sh		*sh;
	struct rmsg		*m;		/* NULL: the server's stream */
	struct http_req		*req;
	const char		*method;	/* "POST", "GET" */
	int			 sent_session;	/* carried Mcp-Session-Id */
	long			 status;
	enum { SH_NONE, SH_JSON, SH_SSE, SH_ERR } kind;
	struct sbuf		 body;		/* JSON or error body */
	size_t			 max;		/* of body: more is cut or refused */
	struct sse		*sse;
	char			*last_id;	/* of this stream's events */
	uint64_t		 retry_ms;	/* the server's, 0 if none */
	struct backoff		 reopen;	/* streams ended early in a row */
	int			 resumes;
	int			 got_event;
	int			 torn_down;	/* a listen the remote ended */
	struct event		*timer;		/* before a resumption */
	TAILQ_ENTRY(sh_x)	 entry;
};
TAILQ_HEAD(sh_xs, sh_x);

struct sh {
	struct rt		 rt;
	char			*session_id;
	struct sh_xs		 xs;
	struct sh_x		*get;		/* the server's stream */
	int			 get_refused;	/* said once */
	struct http_req		*del;
	void			(*close_done)(struct remote *);
	struct event		*close_ev;
};

static const struct backoff_policy sh_reopen_policy = {
	.min_ms = SH_RETRY_FLOOR_MS,
	.max_ms = SH_RETRY_MAX_MS,
	.jitter = 0.2,
	.reset_ms = SH_STREAM_STABLE_MS,
};

static void	sh_x_start(struct sh_x *, const char *last_event_id);
static void	sh_get_open(struct sh *, const char *last_id);

static struct rsession *
sh_session(struct sh *sh)
{
	return (sh->rt.r->session);
}

static void
sh_x_free(struct sh_x *x)
{
	struct sh	*sh = x->sh;

	if (x->req != NULL)
		http_cancel(x->req);
	if (x->timer != NULL)
		event_free(x->timer);
	if (x->sse != NULL)
		sse_free(x->sse);
	backoff_free(&x->reopen);
	if (sh->get == x)
		sh->get = NULL;
	TAILQ_REMOVE(&sh->xs, x, entry);
	free(x->body.p);
	free(x->last_id);
	free(x);
}

static struct sh_x *
sh_x_find(struct sh *sh, struct rmsg *m)
{
	struct sh_x	*x;

	TAILQ_FOREACH(x, &sh->xs, entry) {
		if (x->m == m)
			return (x);
	}
	return (NULL);
}

/*
 * The headers of every request: ours, the session's (m's own for a
 * request of 2026-07-28, which goes without the session), the configured.
 */
static size_t
sh_headers(struct sh *sh, const struct rmsg *m, const char **h, int post,
    char *own[2])
{
	struct rconf	*rc = sh->rt.r->conf;
	const char	*auth, *proto;
	size_t		 n = 0, i;

	h[n++] = post ? "Accept: application/json, text/event-stream" :
	    "Accept: text/event-stream";
	if (post)
		h[n++] = "Content-Type: application/json";
	if (m != NULL && m->mhdr[0] != NULL) {
		for (i = 0; m->mhdr[i] != NULL; i++)
			h[n++] = m->mhdr[i];
		for (i = 0; m->phdr != NULL && m->phdr[i] != NULL; i++)
			h[n++] = m->phdr[i];
	} else if (sh->session_id != NULL) {
		xasprintf(&own[0], "Mcp-Session-Id: %s", sh->session_id);
		h[n++] = own[0];
	}
	proto = sh->rt.ev->protocol(sh_session(sh));
	if (proto != NULL && (m == NULL || m->mhdr[0] == NULL)) {
		xasprintf(&own[1], "MCP-Protocol-Version: %s", proto);
		h[n++] = own[1];
	}
	auth = sh->rt.ev->auth_header(sh_session(sh));
	if (auth != NULL)
		h[n++] = auth;
	for (i = 0; i < rc->nheaders && n < SH_MAX_HEADERS - 2; i++)
		h[n++] = rc->headers[i];
	h[n] = NULL;
	return (n);
}

static int
sh_valid_session_id(const char *v)
{
	size_t	n = 0;

	for (; *v != '\0'; v++, n++) {
		if (*v < 0x21 || *v > 0x7e || n >= SH_SESSION_ID_MAX)
			return (0);
	}
	return (n > 0);
}

/*
 * A reopened listen stream's acknowledgment: what changed while it was
 * broken is lost, so its client is told that every kind it listens to
 * changed (relisten.h), and lists or reads again.
 */
static void
sh_caught_up(struct sh_x *x, const char *data, size_t len)
{
	char	**notes;
	size_t	  n, i;

	if ((n = relisten_notes(data, len, x->m->id, &notes)) == 0)
		return;
	remote_log("the subscription stream is open again: what may have "
	    "changed meanwhile is to be listed again (%zu notification%s)",
	    n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		x->sh->rt.ev->incoming(sh_session(x->sh), notes[i],
		    strlen(notes[i]));
		free(notes[i]);
	}
	free(notes);
}

static int
sh_on_event(void *arg, const struct sse_event *ev)
{
	struct sh_x	*x = arg;

	x->got_event = 1;
	if (x->m != NULL && ev->type_len == 7 &&
	    memcmp(ev->type, "message", 7) == 0 &&
	    rmodern_ends_listen(x->m, ev->data, ev->data_len)) {
		/* The remote ended the subscription: see sh_modern_broken. */
		x->torn_down = 1;
		return (0);
	}
	free(x->last_id);
	x->last_id = ev->id_len > 0 ? xstrndup(ev->id, ev->id_len) : NULL;
	if (ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0 &&
	    ev->data_len > 0) {
		x->sh->rt.ev->incoming(sh_session(x->sh), ev->data,
		    ev->data_len);
		if (x->m != NULL && x->m->rebroken > 0 &&
		    rmodern_is_listen(x->m))
			sh_caught_up(x, ev->data, ev->data_len);
	}
	return (0);
}

static void
sh_on_retry(void *arg, uint64_t ms)
{
	struct sh_x	*x = arg;

	x->retry_ms = ms;
}

static const struct sse_cb sh_sse_cb = { sh_on_event, sh_on_retry };

static int
sh_head(void *arg, struct http_req *req)
{
	struct sh_x	*x = arg;
	struct sh	*sh = x->sh;
	const char	*ct, *sid;

	x->status = http_status(req);
	rstatus_http(x->status, x->method);
	ct = http_header(req, "Content-Type");
	if (x->status < 200 || x->status > 299) {
		x->kind = SH_ERR;
		x->max = SH_ERROR_BODY_BYTES;
		sbuf_bound(&x->body, x->max);
		return (0);
	}
	if (x->m != NULL && x->m->init && (sid = http_header(req,
	    "Mcp-Session-Id")) != NULL) {
		if (!sh_valid_session_id(sid)) {
			x->kind = SH_ERR;
			x->status = -1;		/* see sh_done */
			return (-1);
		}
		free(sh->session_id);
		sh->session_id = xstrdup(sid);
	}
	if (ct != NULL && httphdr_media_is(ct, "text/event-stream")) {
		x->kind = SH_SSE;
		x->sse = sse_new(sh->rt.r->conf->max_message_bytes,
		    &sh_sse_cb, x);
		/* How long it lasts decides the wait before a reopen. */
		backoff_ready(&x->reopen, clock_now_ms());
		if (x->m != NULL)
			sh->rt.ev->head(sh_session(sh), x->m, 1);
	} else if (x->status == 202 || x->status == 204) {
		x->kind = SH_NONE;
		if (x->m != NULL)
			sh->rt.ev->head(sh_session(sh), x->m, 0);
	} else {
		x->kind = SH_JSON;
		x->max = sh->rt.r->conf->max_message_bytes;
		sbuf_bound(&x->body, x->max);
		if (x->m != NULL)
			sh->rt.ev->head(sh_session(sh), x->m, 0);
	}
	return (0);
}

static int
sh_body(void *arg, struct http_req *req, const char *data, size_t len)
{
	struct sh_x	*x = arg;

	switch (x->kind) {
	case SH_SSE:
		if (rio_congested())
			return (HTTP_PAUSE);
		switch (sse_feed(x->sse, data, len)) {
		case SSE_OK:
			return (0);
		case SSE_TOO_BIG:
			x->status = -2;
			return (-1);
		default:
			return (-1);
		}
	case SH_JSON:
	case SH_ERR:
		if (len > x->max - x->body.len) {
			if (x->kind == SH_ERR)
				len = x->max - x->body.len;
			else {
				x->status = -2;
				return (-1);
			}
		}
		sbuf_add(&x->body, data, len);
		return (0);
	default:
		return (0);
	}
}

/* A failure's body as text fit for a message: printable, bounded. */
static char *
sh_excerpt(const struct sh_x *x)
{
	char	*out;
	size_t	 i, n = 0, lim = 200;

	out = xmalloc(lim + 4);
	for (i = 0; i < x->body.len && n < lim; i++) {
		if (x->body.p[i] >= 0x20 && x->body.p[i] < 0x7f)
			out[n++] = x->body.p[i];
		else if (n > 0 && out[n - 1] != ' ')
			out[n++] = ' ';
	}
	if (i < x->body.len) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return (out);
}

/* 400 bodies real servers send for an unknown session. */
static int
sh_says_no_session(const struct sh_x *x)
{
	size_t	i;

	for (i = 0; i + 7 <= x->body.len; i++) {
		if (strncasecmp(x->body.p + i, "session", 7) == 0)
			return (1);
	}
	return (0);
}

static void
sh_resume_fire(evutil_socket_t fd, short what, void *arg)
{
	struct sh_x	*x = arg;

	sh_x_start(x, x->last_id);
}

/*
 * Resume a response stream (or reopen the GET stream): after the
 * server's retry time, but never sooner than the floor, and later each
 * time while streams end early.
 */
static void
sh_resume_later(struct sh_x *x)
{
	struct timeval	tv;
	int64_t		backoff;
	uint64_t	ms;

	backoff = backoff_fail(&x->reopen, &sh_reopen_policy, clock_now_ms(),
	    (double)random() / ((double)RAND_MAX + 1.0));
	ms = backoff > 0 ? (uint64_t)backoff : SH_RETRY_FLOOR_MS;
	if (ms < x->retry_ms)
		ms = x->retry_ms;
	if (ms < SH_RETRY_FLOOR_MS)
		ms = SH_RETRY_FLOOR_MS;
	if (x->timer == NULL)
		x->timer = evtimer_new(x->sh->rt.r->base, sh_resume_fire, x);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(x->timer, &tv);
}

static void
sh_get_done(struct sh_x *x, enum http_end end, const char *error)
{
	struct sh	*sh = x->sh;

	if (x->status == 405 || x->status == 409) {
		/* No server stream, or one already open: fine. */
		sh_x_free(x);
		return;
	}
	if ((x->status == 404 || (x->status == 400 && sh_says_no_session(x)))
	    && x->sent_session) {
		sh_x_free(x);
		sh->rt.ev->lost(sh_session(sh), NULL);
		return;
	}
	if (x->kind != SH_SSE && x->status != 0) {
		if (!sh->get_refused)
			remote_log("the remote refused its server stream "
			    "(GET: %s%ld); going on without it",
			    x->status > 0 ? "HTTP " : "", x->status > 0 ?
			    x->status : 0L);
		sh->get_refused = 1;
		sh_x_free(x);
		return;
	}
	/* The stream ended: open it again, resuming where it stopped. */
	if (x->sse != NULL) {
		sse_free(x->sse);
		x->sse = NULL;
	}
	x->req = NULL;
	if (x->last_id != NULL)
		rstatus_resume("get");
	sh_resume_later(x);
}

/*
 * A 4xx with a JSON-RPC error in its body, to a request of 2026-07-28
 * (a header mismatch, an unknown method, a version refused) or to an
 * initialize (the remote refusing 2025: mcpd is answered the -32022 a
 * stdio server of 2026 answers, and asks server/discover next, rather
 * than falling back to HTTP+SSE): that error is the request's answer.
 * 1 if so (x is freed).
 */
static int
sh_modern_refused(struct sh_x *x)
{
	struct sh	*sh = x->sh;
	struct rmsg	*m = x->m;
	char		*line;

	if (x->status < 400 || x->status > 499 || m->id == NULL ||
	    (m->mhdr[0] == NULL && !m->init))
		return (0);
	line = mcphdr_error(x->body.p, x->body.len, m->id, m->mhdr[0] == NULL);
	if (line == NULL)
		return (0);
	sh_x_free(x);
	sh->rt.ev->incoming(sh_session(sh), line, strlen(line));
	free(line);
	sh->rt.ev->done(sh_session(sh), m);
	return (1);
}

static void
sh_resend_fire(evutil_socket_t fd, short what, void *arg)
{
	struct sh_x	*x = arg;

	sh_x_start(x, NULL);
}

/*
 * The stream of a request of 2026-07-28 broke before its answer (or a
 * subscriptions/listen stream ended).  There is no resumption in 2026: a
 * request that changes nothing is sent again, a few times, later each
 * time; a listen stream is reopened (with the backoff of sh_resume_later,
 * and for good only while streams keep ending before they carried
 * anything) unless the remote ended the subscription; anything else --
 * tools/call -- is answered with an error that says it may have run.
 */
static void
sh_modern_broken(struct sh_x *x, const char *why)
{
	struct sh	*sh = x->sh;
	struct rmsg	*m = x->m;
	struct rsession	*s = sh_session(sh);
	struct timeval	 tv;
	enum mcphdr_retry how = mcphdr_retry(m->method);
	uint64_t	 ms;

	if (how == MCPHDR_REOPEN && x->got_event && !x->torn_down)
		m->rebroken = 0;
	if (how == MCPHDR_NEVER) {
		sh_x_free(x);
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the connection to "
		    "the remote broke before its answer came (%s); the "
		    "request may have been carried out, so it is not sent "
		    "again", why);
		return;
	}
	if (x->torn_down) {
		sh_x_free(x);
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote ended "
		    "the subscription");
		return;
	}
	if (m->rebroken >= (how == MCPHDR_REOPEN ? SH_MAX_REOPENS :
	    SH_MAX_RESENDS)) {
		sh_x_free(x);
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote's answer "
		    "broke off %u times in a row (%s)", m->rebroken + 1, why);
		return;
	}
	m->rebroken++;
	remote_log("the remote's answer to %s broke off (%s): %s", m->method,
	    why, how == MCPHDR_REOPEN ? "reopening the stream" :
	    "sending the request again");
	if (x->sse != NULL)
		sse_free(x->sse);
	x->sse = NULL;
	free(x->last_id);
	x->last_id = NULL;
	x->got_event = 0;
	sh->rt.ev->resuming(s, m);
	if (how == MCPHDR_REOPEN) {
		sh_resume_later(x);
		return;
	}
	ms = (uint64_t)SH_RESEND_MS << (m->rebroken - 1);
	if (x->timer != NULL)
		event_free(x->timer);
	x->timer = evtimer_new(sh->rt.r->base, sh_resend_fire, x);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(x->timer, &tv);
}

static void
sh_done(void *arg, struct http_req *req, enum http_end end,
    const char *error)
{
	struct sh_x	*x = arg;
	struct sh	*sh = x->sh;
	struct rsession	*s = sh_session(sh);
	struct rmsg	*m = x->m;
	const char	*www, *ra;
	char		*text;
	uint64_t	 delay = 0;

	x->req = NULL;
	if (x->status == -2) {
		/* Over max_message_bytes: refused, with what it concerns. */
		if (m == NULL) {
			remote_log("the remote sent a message over "
			    "max_message_bytes on its stream; reopening it");
			x->kind = SH_SSE;
			sh_get_done(x, end, error);
			return;
		}
		sh->rt.ev->failed(s, m, MCPD_ERR_MESSAGE_TOO_LARGE,
		    "the remote's response is larger than max_message_bytes "
		    "(%zu)",
		    sh->rt.r->conf->max_message_bytes);
		sh_x_free(x);
		return;
	}
	if (x->status == -1) {
		sh_x_free(x);
		sh->rt.ev->fatal(s, REMOTE_EXIT_UNAVAILABLE, "the remote gave "
		    "a malformed Mcp-Session-Id");
		return;
	}
	if (x->status == 0) {
		/*
		 * No response at all.  The server's stream is tried again
		 * with backoff (the remote may be restarting); a message
		 * that cannot be delivered ends the program.
		 */
		if (m == NULL) {
			sh_get_done(x, end, error);
			return;
		}
		if (end == HTTP_CONNECT && x->resumes > 0) {
			/*
			 * Resuming a response: the server that was answering
			 * is gone.  Whether it acted is unknown, so the caller
			 * is told; later messages wait for the remote.
			 */
			sh_x_free(x);
			sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote's "
			    "response stream broke and the server cannot be "
			    "reached to resume it: %s", error != NULL ? error :
			    "no response");
			return;
		}
		if (end == HTTP_CONNECT) {
			sh_x_free(x);
			sh->rt.ev->unreachable(s, m, error != NULL ? error :
			    "no response");
			return;
		}
		if (m->mhdr[0] != NULL) {
			sh_modern_broken(x, error != NULL ? error :
			    "no response");
			return;
		}
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote did not "
		    "respond: %s", error != NULL ? error : "unknown error");
		sh_x_free(x);
		return;
	}
	if (m == NULL) {
		sh_get_done(x, end, error);
		return;
	}
	if (x->kind == SH_ERR) {
		if (x->status == 401) {
			www = http_header(req, "WWW-Authenticate");
			text = www != NULL ? xstrdup(www) : NULL;
			sh_x_free(x);
			sh->rt.ev->auth(s, m, text);
			free(text);
			return;
		}
		if (x->status == 403 && (www = http_header(req,
		    "WWW-Authenticate")) != NULL &&
		    sh->rt.ev->forbidden(s, m, www) == 0) {
			sh_x_free(x);
			return;
		}
		if (sh_modern_refused(x))
			return;
		if ((x->status == 404 || (x->status == 400 &&
		    sh_says_no_session(x))) && x->sent_session &&
		    x->resumes > 0) {
			/* The session went while it answered: not retried. */
			sh_x_free(x);
			sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote "
			    "session was lost before the server answered");
			sh->rt.ev->lost(s, NULL);
			return;
		}
		if ((x->status == 404 || (x->status == 400 &&
		    sh_says_no_session(x))) && x->sent_session) {
			sh_x_free(x);
			sh->rt.ev->lost(s, m);
			return;
		}
		if ((x->status == 400 || x->status == 404 ||
		    x->status == 405) && m->init && !m->internal &&
		    sh->session_id == NULL &&
		    sh->rt.r->conf->transport == RCONF_AUTO) {
			sh_x_free(x);
			sh->rt.ev->fallback(s, m);
			return;
		}
		if (x->status == 429 || x->status == 503) {
			ra = http_header(req, "Retry-After");
			if (ra == NULL || httphdr_retry_after(ra, time(NULL),
			    3600000, &delay) == -1)
				delay = 0;
			sh_x_free(x);
			sh->rt.ev->busy(s, m, delay);
			return;
		}
		text = sh_excerpt(x);
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote answered "
		    "HTTP %ld%s%s", x->status, *text != '\0' ? ": " : "",
		    text);
		free(text);
		sh_x_free(x);
		return;
	}
	if (x->kind == SH_JSON && x->body.len > 0 && end == HTTP_DONE)
		sh->rt.ev->incoming(s, x->body.p, x->body.len);
	if (!m->request || m->answered || x->kind == SH_NONE) {
		sh_x_free(x);
		sh->rt.ev->done(s, m);
		return;
	}
	/* A request whose response did not come on its own channel. */
	if (m->mhdr[0] != NULL && (x->kind == SH_SSE || end != HTTP_DONE)) {
		sh_modern_broken(x, end != HTTP_DONE && error != NULL ? error :
		    "the stream ended");
		return;
	}
	if (x->kind == SH_SSE && x->last_id != NULL &&
	    x->resumes < SH_MAX_RESUMES && sh->session_id != NULL) {
		x->resumes++;
		if (x->sse != NULL)
			sse_free(x->sse);
		x->sse = NULL;
		rstatus_resume("post");
		sh->rt.ev->resuming(s, m);
		sh_resume_later(x);
		return;
	}
	if (end != HTTP_DONE)
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote's "
		    "response stream broke: %s",
		    error != NULL ? error : "closed");
	else
		sh->rt.ev->failed(s, m, MCPD_ERR_REMOTE, "the remote ended its "
		    "response without answering the request");
	sh_x_free(x);
}

static const struct http_cb sh_http_cb = { sh_head, sh_body, sh_done };

/* Start (or resume, with last_event_id) the exchange's request. */
static void
sh_x_start(struct sh_x *x, const char *last_event_id)
{
	struct sh	*sh = x->sh;
	const char	*h[SH_MAX_HEADERS + 2];
	char		*own[2] = { NULL, NULL }, *lei = NULL, *body = NULL;
	size_t		 n, len = 0;
	int		 post = last_event_id == NULL && x->m != NULL;

	n = sh_headers(sh, x->m, h, post, own);
	if (last_event_id != NULL) {
		xasprintf(&lei, "Last-Event-ID: %s", last_event_id);
		h[n++] = lei;
		h[n] = NULL;
	}
	x->method = post ? "POST" : "GET";
	x->sent_session = sh->session_id != NULL && (x->m == NULL ||
	    x->m->mhdr[0] == NULL);
	x->status = 0;
	x->kind = SH_NONE;
	x->body.len = 0;
	if (post) {
		body = xmalloc(x->m->len);
		memcpy(body, x->m->line, x->m->len);
		len = x->m->len;
	}
	x->req = http_request(sh->rt.r->http, x->method, sh->rt.r->conf->url,
	    h, body, len, 0, &sh_http_cb, x);
	free(own[0]);
	free(own[1]);
	free(lei);
}

static struct sh_x *
sh_x_new(struct sh *sh, struct rmsg *m)
{
	struct sh_x	*x;

	x = xcalloc(1, sizeof *x);
	x->sh = sh;
	x->m = m;
	backoff_init(&x->reopen);
	TAILQ_INSERT_TAIL(&sh->xs, x, entry);
	return (x);
}

static void
sh_send(struct rt *rt, struct rmsg *m)
{
	struct sh	*sh = (struct sh *)rt;

	sh_x_start(sh_x_new(sh, m), NULL);
}

static void
sh_get_open(struct sh *sh, const char *last_id)
{
	if (sh->get != NULL || sh->session_id == NULL)
		return;
	sh->get = sh_x_new(sh, NULL);
	sh_x_start(sh->get, last_id);
}

static void
sh_initialized(struct rt *rt)
{
	struct sh	*sh = (struct sh *)rt;

	sh->get_refused = 0;
	sh_get_open(sh, NULL);
}

static void
sh_cancel(struct rt *rt, struct rmsg *m)
{
	struct sh	*sh = (struct sh *)rt;
	struct sh_x	*x;

	while ((x = sh_x_find(sh, m)) != NULL)
		sh_x_free(x);
}

static void
sh_reset(struct rt *rt)
{
	struct sh	*sh = (struct sh *)rt;

	if (sh->get != NULL)
		sh_x_free(sh->get);
	free(sh->session_id);
	sh->session_id = NULL;
}

static void
sh_close_fire(evutil_socket_t fd, short what, void *arg)
{
	struct sh	*sh = arg;

	sh->close_done(sh->rt.r);
}

static void
sh_deleted(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct sh	*sh = arg;

	sh->del = NULL;
	/* Leave libcurl's callback before the program ends. */
	event_active(sh->close_ev, EV_TIMEOUT, 0);
}

static void
sh_close(struct rt *rt, void (*done)(struct remote *))
{
	struct sh	*sh = (struct sh *)rt;
	const char	*h[SH_MAX_HEADERS + 2];
	char		*own[2] = { NULL, NULL };
	struct sh_x	*x;

	while ((x = TAILQ_FIRST(&sh->xs)) != NULL)
		sh_x_free(x);
	sh->close_done = done;
	sh->close_ev = evtimer_new(rt->r->base, sh_close_fire, sh);
	if (sh->session_id == NULL) {
		event_active(sh->close_ev, EV_TIMEOUT, 0);
		return;
	}
	sh_headers(sh, NULL, h, 0, own);
	/* 405 (the server does not end sessions so) is as good as 200. */
	sh->del = http_fetch(rt->r->http, "DELETE", rt->r->conf->url, h,
	    NULL, 0, SH_ERROR_BODY_BYTES, SH_DELETE_TIMEOUT_MS, sh_deleted,
	    sh);
	free(own[0]);
	free(own[1]);
}

static void
sh_free(struct rt *rt)
{
	struct sh	*sh = (struct sh *)rt;
	struct sh_x	*x;

	while ((x = TAILQ_FIRST(&sh->xs)) != NULL)
		sh_x_free(x);
	if (sh->del != NULL)
		http_cancel(sh->del);
	if (sh->close_ev != NULL)
		event_free(sh->close_ev);
	free(sh->session_id);
	free(sh);
}

static const struct rt_ops sh_ops = {
	"http", sh_send, sh_initialized, sh_cancel, sh_reset, sh_close,
	sh_free
};

struct rt *
streamable_new(struct remote *r, const struct rt_events *ev)
{
	struct sh	*sh;

	sh = xcalloc(1, sizeof *sh);
	sh->rt.ops = &sh_ops;
	sh->rt.ev = ev;
	sh->rt.r = r;
	TAILQ_INIT(&sh->xs);
	return (&sh->rt);
}
