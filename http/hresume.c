/*
 * hresume.c -- a GET with Last-Event-ID (Streamable HTTP 2025-11-25): the
 * stream that id names resumed.  Stream 0, the session's GET stream,
 * opens again with the events after that id; a POST's stream (1..) is
 * taken up by this GET: its events after the id, then, while its request
 * waits, the rest of them and the reply, which ends it.  Only that
 * stream's events are replayed, never another's.  When the replay buffer
 * (hreplay.h) no longer holds every event after the id, none is
 * replayed: the GET stream starts afresh with what was never sent, a
 * POST's stream with what comes next.
 */
#include "config.h"

#include <sys/queue.h>

#include <event2/bufferevent.h>
#include <event2/http.h>

#include "hfront.h"
#include "hsess_int.h"

void
hresume_get(struct hsess *s, struct evhttp_request *req, const char *last)
{
	struct hpending	*p;
	struct hconn	*c;
	uint32_t	 stream;
	uint64_t	 g;
	int		 all;

	if (hreplay_parse_id(&s->replay, last, &stream, &g) != 0 ||
	    stream >= s->next_stream) {
		hserve_error(req, 400, NULL, "Last-Event-ID names no event of "
		    "this session");
		return;
	}
	if ((all = hreplay_complete(&s->replay, g)) == 0)
		hlog("session %.8s: stream %u resumed after events no longer "
		    "kept; it starts afresh", s->id, stream);
	if (stream == 0) {
		if (s->stream != NULL) {
			hserve_error(req, 409, "Conflict", "this session's "
			    "stream is open already");
			return;
		}
		hsess_stream_open(s, req);
		hsess_replay(s, req, s->stream_conn, 0, g, all);
		return;
	}
	TAILQ_FOREACH(p, &s->pending, entry)
		if (p->streaming && p->stream_no == stream)
			break;
	if (p != NULL && p->req != NULL) {
		hserve_error(req, 409, "Conflict", "this stream is open "
		    "already");
		return;
	}
	c = hfront_conn(s->front, req);
	hsess_stream_headers(s, req);
	evhttp_send_reply_start(req, 200, "OK");
	hsess_stream_timeouts(s, c);
	if (all)
		hsess_replay(s, req, c, stream, g, 1);
	if (p == NULL) {
		/* Its reply came: replayed above, or lost with the rest. */
		evhttp_send_reply_end(req);
		return;
	}
	p->req = req;
	p->conn = c;
}
