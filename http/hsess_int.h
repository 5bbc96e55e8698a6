/*
 * hsess_int.h -- a session's insides, shared by hsess.c and hresume.c.
 */
#ifndef MCPD_HSESS_INT_H
#define MCPD_HSESS_INT_H

#include "hreplay.h"

struct hpending {
	TAILQ_ENTRY(hpending)	 entry;
	struct evhttp_request	*req;
	struct hconn		*conn;
	char			*idtext;	/* the request's id, as JSON */
	int			 is_init;
	int			 sse_ok;	/* it Accepts text/event-stream */
	int			 streaming;	/* its event stream started */
	uint32_t		 stream_no;	/* that stream's, from 1 */
};
TAILQ_HEAD(hpending_list, hpending);

struct hsess {
	TAILQ_ENTRY(hsess)	 entry;
	struct hfront		*front;
	char			 id[HFRONT_SESSION_ID_HEX];
	char			*token;
	char			*target;
	struct bufferevent	*bev;		/* to mcpd */
	int			 attached;
	char			*init_line;	/* sent once attached */
	struct hpending_list	 pending;
	size_t			 npending;
	struct evhttp_request	*stream;	/* the GET stream, or NULL */
	struct hconn		*stream_conn;
	struct hreplay		 replay;	/* sent, and held for a stream */
	uint32_t		 next_stream;	/* the next POST stream's */
	uint64_t		 last_ms;
};

int	 hsess_event(struct evhttp_request *, struct hconn *, uint32_t stream,
	    uint64_t g, const char *line, size_t len);
void	 hsess_stream_headers(struct hsess *, struct evhttp_request *);
void	 hsess_stream_timeouts(struct hsess *, struct hconn *);
void	 hsess_stream_open(struct hsess *, struct evhttp_request *);
void	 hsess_replay(struct hsess *, struct evhttp_request *, struct hconn *,
	    uint32_t stream, uint64_t after, int all);

/* hresume.c: a GET with Last-Event-ID. */
void	 hresume_get(struct hsess *, struct evhttp_request *, const char *);

#endif /* MCPD_HSESS_INT_H */
