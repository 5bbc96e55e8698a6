/*
 * hmodern.c -- a request of MCP 2026-07-28 over HTTP: no session, each
 * POST carries its own _meta (version, capabilities, clientInfo), checked
 * against the mirrored headers by hreq.c.
 *
 * Each request gets a connection to mcpd of its own, attached to the
 * server or group of the URL as a session's is: mcpd's 2026 layer
 * (daemon/client_modern*.c) takes the request as a 2026 client's on its
 * socket, and everything that belongs to the request stays on that
 * connection: its progress and log notifications come back as the events
 * of its stream, a subscriptions/listen stream lasts as long as the
 * connection, and a client that closes its stream closes the connection,
 * which cancels the request at mcpd.  No id is rewritten and no request
 * can see another's messages.  The one thing that outlives a reply is a
 * multi-round request: an answer of "input_required" leaves the request
 * parked at mcpd on that connection, so the connection is kept, by its
 * requestState, until a retry carrying that state comes (it goes on the
 * same connection) or session_idle_s passes.  A connection to a local
 * socket costs little beside a request's round trip to a server; a pool
 * would need ids rewritten, notifications sorted out by progress token
 * and listen id, and would still have to pin parked requests.
 *
 * Connections in flight and parked count against max_sessions.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "hfront.h"
#include "hreq.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

struct hmodern {
	TAILQ_ENTRY(hmodern)	 entry;
	struct hfront		*front;
	struct evhttp_request	*req;		/* NULL while parked */
	struct hconn		*conn;
	struct bufferevent	*bev;		/* to mcpd */
	char			*token;
	char			*target;
	char			*line;		/* sent once attached */
	char			*idtext;
	char			*state;		/* parked under this */
	int			 attached;
	int			 sse_ok;
	int			 streaming;
	uint64_t		 since_ms;
};

/*
 * Its stream, if open, is ended last: evhttp may free the request and
 * close the connection right away (hmodern_conn_closed), which must find
 * nothing of r then.
 */
static void
hmodern_free(struct hmodern *r)
{
	struct hfront		*f = r->front;
	struct evhttp_request	*req = r->streaming ? r->req : NULL;

	TAILQ_REMOVE(&f->moderns, r, entry);
	f->nmoderns--;
	bufferevent_free(r->bev);
	free(r->token);
	free(r->target);
	free(r->line);
	free(r->idtext);
	free(r->state);
	free(r);
	if (req != NULL)
		evhttp_send_reply_end(req);
}

static void
hmodern_fail(struct hmodern *r, int status, const char *why)
{
	if (r->req != NULL && !r->streaming)
		hserve_error(r->req, status, NULL, why);
	hmodern_free(r);
}

static void
hmodern_send(struct hmodern *r, const char *line)
{
	bufferevent_write(r->bev, line, strlen(line));
	bufferevent_write(r->bev, "\n", 1);
}

/* mcpd's answer to the attach. */
static int
hmodern_attached(struct hmodern *r, const char *line)
{
	const cJSON	*code;
	cJSON		*reply;
	int		 c = 0;

	reply = cJSON_Parse(line);
	if (cJSON_GetObjectItemCaseSensitive(reply, "result") != NULL) {
		cJSON_Delete(reply);
		r->attached = 1;
		hmodern_send(r, r->line);
		return (0);
	}
	code = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(reply, "error"), "code");
	if (cJSON_IsNumber(code))
		c = code->valueint;
	cJSON_Delete(reply);
	if (c == MCPD_ERR_UNKNOWN_SERVER)
		hmodern_fail(r, 404, "no such server or group");
	else if (c == MCPD_ERR_ACCESS_DENIED)
		hmodern_fail(r, 403, "mcpd's access rules refuse this client");
	else if (c == MCPD_ERR_LIMIT)
		hmodern_fail(r, 503, "mcpd's limits refuse another client now");
	else
		hmodern_fail(r, 502, "mcpd refused the connection");
	return (-1);
}

static void
hmodern_event(struct hmodern *r, const char *line, size_t len)
{
	struct evkeyvalq	*h;
	struct evbuffer		*b;

	if (!r->streaming) {
		h = evhttp_request_get_output_headers(r->req);
		evhttp_add_header(h, "Content-Type", "text/event-stream");
		evhttp_add_header(h, "Cache-Control", "no-cache");
		evhttp_add_header(h, "X-Accel-Buffering", "no");
		evhttp_send_reply_start(r->req, 200, "OK");
		r->streaming = 1;
	}
	b = evbuffer_new();
	evbuffer_add_printf(b, "event: message\ndata: ");
	evbuffer_add(b, line, len);
	evbuffer_add(b, "\n\n", 2);
	evhttp_send_reply_chunk(r->req, b);
	evbuffer_free(b);
}

/* The reply: sent, then the connection ends, or is parked for a retry. */
static int
hmodern_reply(struct hmodern *r, const cJSON *msg, const char *line,
    size_t len)
{
	const cJSON		*result, *state;
	struct evhttp_request	*req = r->req;
	struct evbuffer		*b;
	int			 streaming = r->streaming;

	if (streaming)
		hmodern_event(r, line, len);
	/* Let go first: the end of a reply may close the connection. */
	r->req = NULL;
	r->conn = NULL;
	r->streaming = 0;
	if (streaming)
		evhttp_send_reply_end(req);
	else {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Type", "application/json");
		b = evbuffer_new();
		evbuffer_add(b, line, len);
		evhttp_send_reply(req, 200, "OK", b);
		evbuffer_free(b);
	}
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	state = cJSON_GetObjectItemCaseSensitive(result, "requestState");
	if (cJSON_IsString(state) && cJSON_IsString(
	    cJSON_GetObjectItemCaseSensitive(result, "resultType")) &&
	    strcmp(cJSON_GetObjectItemCaseSensitive(result,
	    "resultType")->valuestring, "input_required") == 0) {
		r->state = xstrdup(state->valuestring);
		r->since_ms = clock_now_ms();
		return (0);
	}
	hmodern_free(r);
	return (-1);
}

/* A line from mcpd: -1 if r is gone. */
static int
hmodern_line(struct hmodern *r, const char *line, size_t len)
{
	cJSON		*msg;
	char		*idtext;
	int		 rc = 0;

	if (!r->attached)
		return (hmodern_attached(r, line));
	if (r->req == NULL)
		return (0);	/* parked: nothing is sent for it now */
	switch (hreq_reply_id(line, len, &idtext)) {
	case -1:
		return (0);
	case 0:
		/* A client without SSE takes nothing but its reply. */
		if (!r->sse_ok)
			return (0);
		if (hfront_room(r->conn, len + 32) != 0) {
			hlog("a request's event stream is not read (%s): "
			    "ended, and the request cancelled", r->target);
			hmodern_fail(r, 503, "the front's output is full "
			    "(max_buffered_bytes)");
			return (-1);
		}
		hmodern_event(r, line, len);
		return (0);
	}
	/* Its reply; another request's is nothing this client can take. */
	if (strcmp(idtext, r->idtext) == 0 &&
	    (msg = cJSON_ParseWithLength(line, len)) != NULL) {
		rc = hmodern_reply(r, msg, line, len);
		cJSON_Delete(msg);
	}
	free(idtext);
	return (rc);
}

static void
hmodern_read_cb(struct bufferevent *bev, void *arg)
{
	struct hmodern	*r = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	char		*line;
	size_t		 len;
	int		 gone;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) != NULL) {
		gone = hmodern_line(r, line, len) != 0;
		free(line);
		if (gone)
			return;
	}
	if (evbuffer_get_length(in) > HFRONT_MCPD_LINE_MAX)
		hmodern_fail(r, 502, "a message from mcpd is too long");
}

static void
hmodern_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct hmodern	*r = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		hmodern_fail(r, 502, "mcpd closed the connection");
}

static struct hmodern *
hmodern_parked(struct hfront *f, const char *target, const char *token,
    const char *state)
{
	struct hmodern	*r;

	TAILQ_FOREACH(r, &f->moderns, entry)
		if (r->state != NULL && strcmp(r->state, state) == 0 &&
		    strcmp(r->target, target) == 0 &&
		    strcmp(r->token, token) == 0)
			return (r);
	return (NULL);
}

/* The token's requests in flight (parked ones included). */
static size_t
hmodern_count(struct hfront *f, const char *token)
{
	struct hmodern	*r;
	size_t		 n = 0;

	TAILQ_FOREACH(r, &f->moderns, entry)
		if (strcmp(r->token, token) == 0)
			n++;
	return (n);
}

void
hmodern_post(struct hfront *f, struct evhttp_request *req,
    const char *target, const char *token, struct hreq_msg *m)
{
	struct hmodern	*r;
	char		*attach;
	int		 fd;

	if (!m->is_request) {
		/* Cancellation is a closed stream; nothing else is sent. */
		evhttp_send_reply(req, 202, "Accepted", NULL);
		return;
	}
	if (m->state != NULL &&
	    (r = hmodern_parked(f, target, token, m->state)) != NULL) {
		free(r->state);
		r->state = NULL;
		free(r->idtext);
		r->idtext = xstrdup(m->idtext);
		r->req = req;
		r->conn = hfront_conn(f, req);
		r->sse_ok = m->sse_ok;
		hmodern_send(r, m->line);
		return;
	}
	if (f->nsessions + f->nmoderns >= f->conf->max_sessions) {
		hserve_error(req, 503, NULL, "too many sessions and requests "
		    "(max_sessions)");
		return;
	}
	if (hmodern_count(f, token) >= f->conf->max_requests_per_token) {
		hserve_error(req, 429, "Too Many Requests", "too many requests "
		    "of this token at once (max_requests_per_token)");
		return;
	}
	if ((fd = hsess_connect(f)) == -1) {
		hserve_error(req, 503, NULL, "mcpd cannot be reached");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->front = f;
	r->req = req;
	r->conn = hfront_conn(f, req);
	r->token = xstrdup(token);
	r->target = xstrdup(target);
	r->line = xstrdup(m->line);
	r->idtext = xstrdup(m->idtext);
	r->sse_ok = m->sse_ok;
	r->bev = bufferevent_socket_new(f->base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(r->bev, hmodern_read_cb, NULL, hmodern_event_cb, r);
	bufferevent_enable(r->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&f->moderns, r, entry);
	f->nmoderns++;
	attach = hsess_attach_line(target, token);
	hmodern_send(r, attach);
	free(attach);
}

void
hmodern_conn_closed(struct hfront *f, struct hconn *c)
{
	struct hmodern	*r, *next;

	TAILQ_FOREACH_SAFE(r, &f->moderns, entry, next) {
		if (r->conn != c)
			continue;
		hfront_req_dropped(r->req);
		r->req = NULL;		/* gone with its connection */
		hmodern_free(r);	/* which cancels it at mcpd */
	}
}

void
hmodern_tick(struct hfront *f)
{
	struct hmodern	*r, *next;
	uint64_t	 now = clock_now_ms();

	TAILQ_FOREACH_SAFE(r, &f->moderns, entry, next)
		if (r->state != NULL && now - r->since_ms >
		    (uint64_t)f->conf->session_idle_s * 1000)
			hmodern_free(r);
}

void
hmodern_close_all(struct hfront *f)
{
	while (!TAILQ_EMPTY(&f->moderns))
		hmodern_free(TAILQ_FIRST(&f->moderns));
}
