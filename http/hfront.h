/*
 * hfront.h -- what the files of mcpd-http share.
 *
 * mcpd-http is mcpd's HTTP front: a process of its own that parses HTTP
 * (libevent's evhttp, with every size and time bounded) and speaks to
 * mcpd on its ordinary socket, one connection per MCP session, attached
 * to a server or group as mcpctl connect is (mcpd/attach).  HTTP parsing
 * never runs inside mcpd: a crash here ends the front alone, and mcpd
 * starts it again.
 *
 *	main.c		options, the loop, the tick, signals
 *	hfront.c	the evhttp and its limits, the connection cap
 *	hlisten.c	the listeners: sockets passed by mcpd (systemd's),
 *			the "listen" addresses bound
 *	hserve.c	a request: Host, Origin, token, route, method
 *	hsess.c		a session: its connection to mcpd, replies matched
 *			to POSTs, the GET stream, idle expiry
 *	hmodern.c	a request of MCP 2026-07-28: no session, a
 *			connection to mcpd of its own
 *	hreq.c		what a request says, read and checked (pure)
 *	hresume.c	a stream resumed with Last-Event-ID
 *	hreplay.c	the events kept for that (pure)
 *	hauth.c		the token store, read again when it changes
 */
#ifndef MCPD_HFRONT_H
#define MCPD_HFRONT_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>
#include <event2/http.h>

#include "conf_http.h"

#define HFRONT_SESSION_ID_BYTES	16		/* 128 bits, hex on the wire */
#define HFRONT_SESSION_ID_HEX	(HFRONT_SESSION_ID_BYTES * 2 + 1)
#define HFRONT_MCPD_LINE_MAX	(16 * 1024 * 1024)	/* from mcpd */
#define HFRONT_OUT_MAX		(8 * 1024 * 1024)	/* to one HTTP peer */
#define HFRONT_OUT_FREE		(64 * 1024)	/* below: no sum of all */
#define HFRONT_PENDING_MAX	64		/* POSTs waiting, per session */
#define HFRONT_KEEPALIVE_S	15
#define HFRONT_PROTOCOL_VERSION	"2025-11-25"
#define HFRONT_MAX_PASSED	64		/* sockets given with -f */

struct hsess;
struct htoken;
struct hmodern;
struct hreq_msg;

/* One HTTP connection, counted against max_connections. */
struct hconn {
	TAILQ_ENTRY(hconn)	 entry;
	struct evhttp_connection *evcon;
	struct hfront		*front;
	struct event		*ev_gone;	/* the peer closed (EV_CLOSED) */
};
TAILQ_HEAD(hconn_list, hconn);
TAILQ_HEAD(hsess_list, hsess);
TAILQ_HEAD(hmodern_list, hmodern);

struct hfront {
	struct event_base	*base;
	struct evhttp		*http;
	struct conf_http	*conf;
	char			*socket_path;	/* mcpd's */
	char			*token_path;
	struct htokens		*tokens;	/* hauth.c */
	struct hconn_list	 conns;
	size_t			 nconns;
	struct hsess_list	 sessions;
	size_t			 nsessions;
	struct hmodern_list	 moderns;	/* hmodern.c */
	size_t			 nmoderns;
	struct event		*ev_tick;	/* keep-alives, idle expiry */
	int			 listeners_off;	/* at max_connections */
	const int		*passed;	/* -f: listening sockets */
	size_t			 npassed;
};

/*
 * hfront.c: the front made (base, conf, socket_path, token_path and the
 * sockets passed set; 0, or -1 when a passed socket cannot be served or
 * a listen address bound), and ended: sessions and requests closed, the
 * Unix socket files it bound removed, evhttp freed.
 */
int		 hfront_open(struct hfront *);
void		 hfront_close(struct hfront *);
/* A request's connection, counted against max_connections. */
struct hconn	*hfront_conn(struct hfront *, struct evhttp_request *);
/* Bytes waiting to go to c's peer. */
size_t		 hfront_queued(const struct hconn *);
/*
 * Room for len more bytes to c's peer: its own queue stays within
 * HFRONT_OUT_MAX, and all peers' together within max_buffered_bytes.
 * 0, or -1: the stream that wanted it is ended (its client is not
 * reading), what it carried kept for a resume where there is one.
 */
int		 hfront_room(struct hconn *, size_t len);
/*
 * Called by a connection's close for each request held on it.  Ending a
 * reply (evhttp_send_reply_end) may free the request and close its
 * connection before it returns: a request is let go of first, then its
 * reply ended.
 */
void		 hfront_req_dropped(struct evhttp_request *);
/* hlisten.c */
/* "-f 3,4": the descriptors in v (at most max); how many, or -1. */
int		 hlisten_parse_fds(const char *, int *v, size_t max);
/* The passed sockets served, their addresses added: 0, or -1 logged. */
int		 hlisten_passed(struct hfront *, const int *fds, size_t n);
/* The "listen" addresses no passed socket serves, bound: 0, or -1. */
int		 hlisten_bind(struct hfront *);
/* The Unix socket files hlisten_bind made, removed. */
void		 hlisten_unlink(struct hfront *);

/* hserve.c: evhttp's one callback. */
void		 hserve_request(struct evhttp_request *, void *front);
/* An error reply: status, a JSON-RPC error body (id null). */
void		 hserve_error(struct evhttp_request *, int status,
		    const char *reason, const char *message);
void		 hserve_error_code(struct evhttp_request *, int status,
		    int code, const char *message);

/* hauth.c */
int		 hauth_load(struct hfront *);
/* The token a request presents, or NULL (401 said). */
const struct htoken *hauth_check(struct hfront *, struct evhttp_request *);
/* Is a token of this name still in the store (for live sessions)? */
int		 hauth_known(struct hfront *, const char *name);

/* hsess.c */
/* A new session for an initialize (reply sent when mcpd answers). */
void		 hsess_open(struct hfront *, struct evhttp_request *,
		    const char *target, const char *token, const char *body);
struct hsess	*hsess_find(struct hfront *, const char *id);
const char	*hsess_token(const struct hsess *);
const char	*hsess_target(const struct hsess *);
/* A POST's message (one JSON object, on one line) to the session. */
void		 hsess_post(struct hsess *, struct evhttp_request *,
		    const char *line, int is_request, const char *idtext,
		    int sse_ok);
/* The GET stream, or with Last-Event-ID a stream resumed (hresume.c). */
void		 hsess_get(struct hsess *, struct evhttp_request *,
		    const char *last_event_id);
void		 hsess_close(struct hsess *, const char *why);
/* Keep-alives and idle expiry, every few seconds. */
void		 hsess_tick(struct hfront *);
/* Sessions whose tokens were revoked ended. */
void		 hsess_revoked(struct hfront *);
/*
 * Room for one more session of token: at max_sessions_per_token, its
 * least recently used idle session (no stream, nothing waiting) ends.
 * 0, or -1 if each of its sessions is busy.
 */
int		 hsess_room(struct hfront *, const char *token);
/* A connection closed: its POSTs and stream forgotten. */
void		 hsess_conn_closed(struct hfront *, struct hconn *);

int		 hsess_connect(struct hfront *);
char		*hsess_attach_line(const char *target, const char *token);

/* hmodern.c: a request of MCP 2026-07-28 (no session). */
void		 hmodern_post(struct hfront *, struct evhttp_request *,
		    const char *target, const char *token, struct hreq_msg *);
void		 hmodern_conn_closed(struct hfront *, struct hconn *);
void		 hmodern_tick(struct hfront *);
/* Every request ended, parked or not (mcpd-http stopping). */
void		 hmodern_close_all(struct hfront *);

void		 hlog(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));

#endif /* MCPD_HFRONT_H */
