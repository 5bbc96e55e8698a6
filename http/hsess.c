/*
 * hsess.c -- an HTTP client's MCP session (Streamable HTTP, 2025-11-25):
 * one connection to mcpd's socket, attached to the server or group the
 * URL names as mcpctl connect attaches (mcpd/attach), so that mcpd's
 * routing, filters, policies, tasks and instances apply as to any client.
 *
 * A POSTed request waits for mcpd's reply with the same id, sent as
 * application/json, or as the end of an event stream if the client takes
 * text/event-stream and a message for it came first.  What mcpd sends
 * that is not a reply (notifications, the server's own requests) goes on
 * the session's GET stream, else on a waiting POST that takes a stream,
 * else is held (hreplay.h) until a stream opens; every event keeps an id
 * for a resume (hresume.c).  Everything held is
 * bounded; a session with no stream and nothing waiting ends after
 * session_idle_s.
 */
#include "config.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "hfront.h"
#include "hreplay.h"
#include "hreq.h"
#include "hsess_int.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

#define HSESS_ATTACH_ID		"mcpd-http-attach"

static void	hsess_deliver(struct hsess *, const char *line, size_t len);

const char *
hsess_token(const struct hsess *s)
{
	return (s->token);
}

const char *
hsess_target(const struct hsess *s)
{
	return (s->target);
}

struct hsess *
hsess_find(struct hfront *f, const char *id)
{
	struct hsess	*s;

	if (id == NULL)
		return (NULL);
	TAILQ_FOREACH(s, &f->sessions, entry)
		if (strcmp(s->id, id) == 0)
			return (s);
	return (NULL);
}

int
hsess_room(struct hfront *f, const char *token)
{
	struct hsess	*s, *lru = NULL;
	size_t		 n = 0;

	TAILQ_FOREACH(s, &f->sessions, entry) {
		if (strcmp(s->token, token) != 0)
			continue;
		n++;
		if (s->stream == NULL && s->npending == 0 &&
		    (lru == NULL || s->last_ms < lru->last_ms))
			lru = s;
	}
	if (n < (size_t)f->conf->max_sessions_per_token)
		return (0);
	if (lru == NULL)
		return (-1);
	hsess_close(lru, "the token's least recently used idle session, "
	    "for a new one (max_sessions_per_token)");
	return (0);
}

static void
hsess_pending_free(struct hsess *s, struct hpending *p)
{
	TAILQ_REMOVE(&s->pending, p, entry);
	s->npending--;
	free(p->idtext);
	free(p);
}

void
hsess_stream_headers(struct hsess *s, struct evhttp_request *req)
{
	struct evkeyvalq	*h = evhttp_request_get_output_headers(req);

	evhttp_add_header(h, "Content-Type", "text/event-stream");
	evhttp_add_header(h, "Cache-Control", "no-cache");
	if (s->attached)
		evhttp_add_header(h, "Mcp-Session-Id", s->id);
}

/*
 * A stream's connection: no read timeout from now on (the client only
 * listens), the write timeout kept for a client that stops reading.
 */
void
hsess_stream_timeouts(struct hsess *s, struct hconn *c)
{
	struct bufferevent	*bev;
	struct timeval		 tv;

	if ((bev = evhttp_connection_get_bufferevent(c->evcon)) == NULL)
		return;
	tv.tv_sec = s->front->conf->timeout_s;
	tv.tv_usec = 0;
	bufferevent_set_timeouts(bev, NULL, &tv);
}

int
hsess_event(struct evhttp_request *req, struct hconn *c, uint32_t stream,
    uint64_t g, const char *line, size_t len)
{
	struct evbuffer	*b;
	char		 id[HREPLAY_ID_MAX];

	if (hfront_room(c, len + HREPLAY_ID_MAX + 32) != 0)
		return (-1);
	hreplay_format_id(id, sizeof id, stream, g);
	b = evbuffer_new();
	evbuffer_add_printf(b, "id: %s\nevent: message\ndata: ", id);
	evbuffer_add(b, line, len);
	evbuffer_add(b, "\n\n", 2);
	evhttp_send_reply_chunk(req, b);
	evbuffer_free(b);
	return (0);
}

/* An event of a POST's stream: kept for a resume, sent if it is open. */
static void
hsess_post_event(struct hsess *s, struct hpending *p, const char *line,
    size_t len)
{
	struct evhttp_request	*req = p->req;
	uint64_t		 g;

	g = hreplay_add(&s->replay, p->stream_no, line, len, 1);
	if (req == NULL ||
	    hsess_event(req, p->conn, p->stream_no, g, line, len) == 0)
		return;
	/* Not read: ended, kept for a resume (Last-Event-ID). */
	hlog("session %.8s: a request's stream is not read, ended", s->id);
	p->req = NULL;
	p->conn = NULL;
	evhttp_send_reply_end(req);
}

static void
hsess_reply_json(struct hsess *s, struct hpending *p, const char *line,
    size_t len)
{
	struct evhttp_request	*req = p->req;
	struct evkeyvalq	*h;
	struct evbuffer		*b;

	if (p->streaming) {
		/* Kept for a resume, also when the stream is lost. */
		hsess_post_event(s, p, line, len);
		req = p->req;	/* NULL if that ended the stream */
		p->req = NULL;
		p->conn = NULL;
		if (req != NULL)
			evhttp_send_reply_end(req);
		return;
	}
	h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Content-Type", "application/json");
	if (p->is_init)
		evhttp_add_header(h, "Mcp-Session-Id", s->id);
	b = evbuffer_new();
	evbuffer_add(b, line, len);
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

/* mcpd's answer to the attach: the session lives, or the POST fails. */
static int
hsess_attached(struct hsess *s, const char *line)
{
	struct hpending	*p = TAILQ_FIRST(&s->pending);
	const cJSON	*error, *code;
	cJSON		*reply;
	int		 status = 502;
	const char	*msg = "mcpd refused the session";

	reply = cJSON_Parse(line);
	error = cJSON_GetObjectItemCaseSensitive(reply, "error");
	if (reply != NULL && error == NULL &&
	    cJSON_GetObjectItemCaseSensitive(reply, "result") != NULL) {
		cJSON_Delete(reply);
		s->attached = 1;
		bufferevent_write(s->bev, s->init_line, strlen(s->init_line));
		bufferevent_write(s->bev, "\n", 1);
		free(s->init_line);
		s->init_line = NULL;
		return (0);
	}
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	if (cJSON_IsNumber(code) && code->valueint == MCPD_ERR_UNKNOWN_SERVER) {
		status = 404;
		msg = "no such server or group";
	} else if (cJSON_IsNumber(code) &&
	    code->valueint == MCPD_ERR_ACCESS_DENIED) {
		status = 403;
		msg = "mcpd's access rules refuse this session";
	} else if (cJSON_IsNumber(code) && code->valueint == MCPD_ERR_LIMIT) {
		status = 503;
		msg = "mcpd's limits refuse another session now";
	}
	cJSON_Delete(reply);
	if (p != NULL) {
		hserve_error(p->req, status, NULL, msg);
		hsess_pending_free(s, p);
	}
	hsess_close(s, "refused by mcpd");
	return (-1);
}

static void
hsess_line(struct hsess *s, const char *line, size_t len)
{
	struct hpending	*p;
	char		*id;

	if (!s->attached) {
		(void)hsess_attached(s, line);
		return;
	}
	if (hreq_reply_id(line, len, &id) == 1) {
		TAILQ_FOREACH(p, &s->pending, entry) {
			if (strcmp(p->idtext, id) == 0)
				break;
		}
		free(id);
		if (p != NULL) {
			hsess_reply_json(s, p, line, len);
			hsess_pending_free(s, p);
		}
		/* A reply whose POST went away is dropped. */
		return;
	}
	hsess_deliver(s, line, len);
}

static void
hsess_read_cb(struct bufferevent *bev, void *arg)
{
	struct hsess	*s = arg;
	struct hfront	*f = s->front;
	struct evbuffer	*in = bufferevent_get_input(bev);
	char		*line, id[sizeof s->id];
	size_t		 len;

	/* Kept apart from s: hsess_line may end the session and free it. */
	memcpy(id, s->id, sizeof id);
	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) != NULL) {
		s->last_ms = clock_now_ms();
		hsess_line(s, line, len);
		free(line);
		if (hsess_find(f, id) != s)
			return;
	}
	if (evbuffer_get_length(in) > HFRONT_MCPD_LINE_MAX)
		hsess_close(s, "a message from mcpd is too long");
}

static void
hsess_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct hsess	*s = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		hsess_close(s, "mcpd closed the connection");
}

/*
 * A message that is not a reply: to the GET stream, else to a waiting
 * POST's stream, else held in the replay buffer until a GET stream opens.
 */
static void
hsess_deliver(struct hsess *s, const char *line, size_t len)
{
	struct hpending		*p;
	struct evhttp_request	*req;
	uint64_t		 g;

	if (s->stream != NULL) {
		g = hreplay_add(&s->replay, 0, line, len, 1);
		if (hsess_event(s->stream, s->stream_conn, 0, g, line, len) ==
		    0)
			return;
		hlog("session %.8s: its stream is not read, ended", s->id);
		req = s->stream;
		s->stream = NULL;
		s->stream_conn = NULL;
		evhttp_send_reply_end(req);
		return;		/* sent as far as a resume goes */
	}
	TAILQ_FOREACH(p, &s->pending, entry) {
		if (!p->sse_ok || p->req == NULL)
			continue;
		if (!p->streaming) {
			hsess_stream_headers(s, p->req);
			evhttp_send_reply_start(p->req, 200, "OK");
			hsess_stream_timeouts(s, p->conn);
			p->streaming = 1;
			p->stream_no = s->next_stream++;
		}
		hsess_post_event(s, p, line, len);
		return;
	}
	(void)hreplay_add(&s->replay, 0, line, len, 0);
}

int
hsess_connect(struct hfront *f)
{
	struct sockaddr_un	 sun;
	struct ucred		 cred;
	socklen_t		 clen = sizeof cred;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(f->socket_path) >= sizeof sun.sun_path)
		return (-1);
	memcpy(sun.sun_path, f->socket_path, strlen(f->socket_path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return (-1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
	    (cred.uid != getuid() && cred.uid != 0)) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/* The mcpd/attach request of a connection for target, on one line. */
char *
hsess_attach_line(const char *target, const char *token)
{
	cJSON	*attach, *params;
	char	*text;

	attach = cJSON_CreateObject();
	cJSON_AddStringToObject(attach, "jsonrpc", "2.0");
	cJSON_AddStringToObject(attach, "id", HSESS_ATTACH_ID);
	cJSON_AddStringToObject(attach, "method", MCPD_METHOD_ATTACH);
	params = cJSON_AddObjectToObject(attach, "params");
	cJSON_AddStringToObject(params, "server", target);
	/* Who the session is to mcpd: its token (mcpd takes it from us). */
	cJSON_AddStringToObject(params, "http_token", token);
	text = cJSON_PrintUnformatted(attach);
	cJSON_Delete(attach);
	return (text);
}

void
hsess_open(struct hfront *f, struct evhttp_request *req, const char *target,
    const char *token, const char *line)
{
	struct hsess	*s;
	struct hpending	*p;
	unsigned char	 raw[HFRONT_SESSION_ID_BYTES];
	cJSON		*msg;
	char		*text;
	size_t		 i;
	int		 fd;

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw ||
	    (fd = hsess_connect(f)) == -1) {
		hserve_error(req, 503, NULL, "mcpd cannot be reached");
		return;
	}
	s = xcalloc(1, sizeof *s);
	for (i = 0; i < sizeof raw; i++)
		snprintf(s->id + 2 * i, 3, "%02x", raw[i]);
	s->front = f;
	s->token = xstrdup(token);
	s->target = xstrdup(target);
	s->init_line = xstrdup(line);
	hreplay_init(&s->replay);
	s->next_stream = 1;
	s->last_ms = clock_now_ms();
	TAILQ_INIT(&s->pending);
	s->bev = bufferevent_socket_new(f->base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(s->bev, hsess_read_cb, NULL, hsess_event_cb, s);
	bufferevent_enable(s->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&f->sessions, s, entry);
	f->nsessions++;

	text = hsess_attach_line(target, token);
	bufferevent_write(s->bev, text, strlen(text));
	bufferevent_write(s->bev, "\n", 1);
	free(text);

	p = xcalloc(1, sizeof *p);
	p->req = req;
	p->conn = hfront_conn(f, req);
	p->is_init = 1;		/* answered as JSON, with the session id */
	msg = cJSON_Parse(line);
	p->idtext = cJSON_PrintUnformatted(
	    cJSON_GetObjectItemCaseSensitive(msg, "id"));
	cJSON_Delete(msg);
	TAILQ_INSERT_TAIL(&s->pending, p, entry);
	s->npending++;
	hlog("session %.8s opened on %s for token %s", s->id, target, token);
}

void
hsess_post(struct hsess *s, struct evhttp_request *req, const char *line,
    int is_request, const char *idtext, int sse_ok)
{
	struct hpending	*p;

	s->last_ms = clock_now_ms();
	if (is_request && s->npending >= HFRONT_PENDING_MAX) {
		hserve_error(req, 429, "Too Many Requests", "too many "
		    "requests wait for replies in this session");
		return;
	}
	bufferevent_write(s->bev, line, strlen(line));
	bufferevent_write(s->bev, "\n", 1);
	if (!is_request) {
		evhttp_send_reply(req, 202, "Accepted", NULL);
		return;
	}
	p = xcalloc(1, sizeof *p);
	p->req = req;
	p->conn = hfront_conn(s->front, req);
	p->idtext = xstrdup(idtext);
	p->sse_ok = sse_ok;
	TAILQ_INSERT_TAIL(&s->pending, p, entry);
	s->npending++;
}

/* A stream's events after G (all of them, or only those never sent). */
void
hsess_replay(struct hsess *s, struct evhttp_request *req, struct hconn *c,
    uint32_t stream, uint64_t after, int all)
{
	struct hreplay_ev	*e;
	size_t			 i;

	for (i = 0; (e = hreplay_at(&s->replay, i)) != NULL; i++) {
		if (e->stream != stream || e->g <= after || (!all && e->sent))
			continue;
		if (hsess_event(req, c, stream, e->g, e->text, e->len) != 0)
			break;
		e->sent = 1;
	}
}

/* The GET stream opened on this request. */
void
hsess_stream_open(struct hsess *s, struct evhttp_request *req)
{
	s->stream = req;
	s->stream_conn = hfront_conn(s->front, req);
	hsess_stream_headers(s, req);
	evhttp_send_reply_start(req, 200, "OK");
	hsess_stream_timeouts(s, s->stream_conn);
}

void
hsess_get(struct hsess *s, struct evhttp_request *req, const char *last_id)
{
	s->last_ms = clock_now_ms();
	if (last_id != NULL) {
		hresume_get(s, req, last_id);
		return;
	}
	if (s->stream != NULL) {
		hserve_error(req, 409, "Conflict", "this session's stream is "
		    "open already");
		return;
	}
	hsess_stream_open(s, req);
	hsess_replay(s, req, s->stream_conn, 0, 0, 0);
}

/*
 * A reply ended after the session let go of its request: evhttp may free
 * the request, and close its connection (hsess_conn_closed), right away.
 */
static void
hsess_end_reply(struct evhttp_request *req, int streaming)
{
	if (req == NULL)
		;	/* its stream was lost; no resume now */
	else if (streaming)
		evhttp_send_reply_end(req);
	else
		hserve_error(req, 503, NULL, "the session ended");
}

void
hsess_close(struct hsess *s, const char *why)
{
	struct hfront		*f = s->front;
	struct hpending		*p;
	struct evhttp_request	*req;
	int			 streaming;

	hlog("session %.8s on %s ended: %s", s->id, s->target, why);
	while ((p = TAILQ_FIRST(&s->pending)) != NULL) {
		req = p->req;
		streaming = p->streaming;
		hsess_pending_free(s, p);
		hsess_end_reply(req, streaming);
	}
	if ((req = s->stream) != NULL) {
		s->stream = NULL;
		s->stream_conn = NULL;
		evhttp_send_reply_end(req);
	}
	TAILQ_REMOVE(&f->sessions, s, entry);
	f->nsessions--;
	bufferevent_free(s->bev);
	hreplay_free(&s->replay);
	free(s->init_line);
	free(s->token);
	free(s->target);
	free(s);
}

static void
hsess_keepalive(struct hsess *s)
{
	struct evbuffer	*b;

	if (hfront_queued(s->stream_conn) > HFRONT_OUT_MAX)
		return;
	b = evbuffer_new();
	evbuffer_add_printf(b, ": keep-alive\n\n");
	evhttp_send_reply_chunk(s->stream, b);
	evbuffer_free(b);
}

void
hsess_tick(struct hfront *f)
{
	struct hsess	*s, *next;
	uint64_t	 now = clock_now_ms();

	TAILQ_FOREACH_SAFE(s, &f->sessions, entry, next) {
		if (s->stream != NULL) {
			hsess_keepalive(s);
			continue;
		}
		if (s->npending == 0 && now - s->last_ms >
		    (uint64_t)f->conf->session_idle_s * 1000)
			hsess_close(s, "idle");
	}
}

void
hsess_revoked(struct hfront *f)
{
	struct hsess	*s, *next;

	TAILQ_FOREACH_SAFE(s, &f->sessions, entry, next)
		if (!hauth_known(f, s->token))
			hsess_close(s, "its token was revoked");
}

void
hsess_conn_closed(struct hfront *f, struct hconn *c)
{
	struct hsess	*s;
	struct hpending	*p, *next;

	TAILQ_FOREACH(s, &f->sessions, entry) {
		if (s->stream_conn == c) {
			hfront_req_dropped(s->stream);
			s->stream = NULL;
			s->stream_conn = NULL;
			s->last_ms = clock_now_ms();
		}
		TAILQ_FOREACH_SAFE(p, &s->pending, entry, next) {
			if (p->conn != c)
				continue;
			hfront_req_dropped(p->req);
			if (!p->streaming) {
				hsess_pending_free(s, p);
				continue;
			}
			/* Its events are kept for a resume (hresume.c). */
			p->req = NULL;
			p->conn = NULL;
		}
	}
}
