/*
 * remote.h -- what the parts of mcpd-remote share.
 *
 * Data flow.  Local to remote: rio (stdin, framing) -> session (ids,
 * initialize, recovery, timeouts) -> a transport (streamable.c: one POST
 * per message; legacy.c: POSTs to the endpoint of an SSE session) ->
 * http.c.  Remote to local: http.c -> the transport (JSON bodies, SSE
 * events) -> session_incoming -> rio (stdout).
 *
 * A message from the local side is a struct rmsg, owned by the session.
 * A transport that takes one with send() holds it (busy) until it calls
 * exactly one of the session_* outcome functions below; the session never
 * frees a busy message.  Responses are matched to requests by the
 * session alone (session_incoming), whatever channel brought them.
 */
#ifndef MCPD_REMOTE_H
#define MCPD_REMOTE_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

struct event;
struct event_base;
struct http;
struct oauth;
struct rconf;
struct rsession;
struct rt;

/* Exit statuses (sysexits.h values), documented in mcpd-remote(1). */
#define REMOTE_EXIT_OK		0
#define REMOTE_EXIT_USAGE	64
#define REMOTE_EXIT_UNAVAILABLE	69
#define REMOTE_EXIT_SOFTWARE	70
#define REMOTE_EXIT_NOPERM	77
#define REMOTE_EXIT_CONFIG	78

struct remote {
	struct event_base	*base;
	struct rconf		*conf;
	struct http		*http;
	struct oauth		*oauth;		/* NULL without oauth */
	struct rsession		*session;
};

struct rmsg {
	struct rsession		*session;	/* its owner */
	char			*line;		/* the message, no newline */
	size_t			 len;
	char			*id;		/* raw id text; requests only */
	char			*method;	/* decoded; NULL for responses */
	int			 request;	/* method and id */
	int			 init;		/* an initialize request */
	int			 internal;	/* mcpd-remote's own request */
	int			 busy;		/* with the transport */
	int			 held;		/* waiting to be sent */
	int			 answered;	/* its response went out */
	int			 cancelled;	/* the client cancelled it */
	int			 retried;	/* after a lost session */
	int			 auth_retried;	/* after a 401 */
	int			 streaming;	/* an SSE response is open */
	int			 slot;		/* enum flow_pool held (flow.h) */
	int			 waiting;	/* held, waiting for a slot */
	uint64_t		 deadline_ms;	/* of retries (429/503, no
						   connection) */
	unsigned int		 attempts;	/* connection retries */
	/*
	 * A request of MCP 2026-07-28 (rmodern.c): its request headers,
	 * NULL-ended; mhdr[0] NULL for any other message.
	 */
	char			*mhdr[4];	/* RMODERN_HEADERS */
	/* A tools/call's Mcp-Param-* headers (rparam.c), or NULL. */
	char			**phdr;
	unsigned int		 rebroken;	/* its streams broke, in a row */
	struct event		*timer;
	TAILQ_ENTRY(rmsg)	 entry;
};

/* A transport (streamable.c, legacy.c). */
struct rt_ops {
	const char	*name;		/* "http", "sse" */
	/* Send a message; it is busy until an outcome is reported. */
	void	(*send)(struct rt *, struct rmsg *);
	/* The session is initialized: open the server's own stream. */
	void	(*initialized)(struct rt *);
	/* Stop whatever is in flight for a message (no outcome follows). */
	void	(*cancel)(struct rt *, struct rmsg *);
	/* Forget the session; a new initialize follows. */
	void	(*reset)(struct rt *);
	/* End the session (DELETE), then call done. */
	void	(*close)(struct rt *, void (*done)(struct remote *));
	void	(*free)(struct rt *);
};

/*
 * What a transport reports, and asks, of the session: the session hands
 * the transport it creates its own functions (below, gathered in
 * session_rt_events), so a transport calls nothing above it, as the
 * session calls it only through rt_ops.
 */
struct rt_events {
	const char	*(*protocol)(const struct rsession *);
	const char	*(*auth_header)(const struct rsession *);
	void	(*incoming)(struct rsession *, const char *, size_t);
	void	(*resuming)(struct rsession *, struct rmsg *);
	void	(*head)(struct rsession *, struct rmsg *, int);
	void	(*done)(struct rsession *, struct rmsg *);
	void	(*failed)(struct rsession *, struct rmsg *, int,
		    const char *, ...) __attribute__((format(printf, 4, 5)));
	void	(*lost)(struct rsession *, struct rmsg *);
	void	(*auth)(struct rsession *, struct rmsg *, const char *);
	int	(*forbidden)(struct rsession *, struct rmsg *, const char *);
	void	(*busy)(struct rsession *, struct rmsg *, uint64_t);
	void	(*fallback)(struct rsession *, struct rmsg *);
	void	(*unreachable)(struct rsession *, struct rmsg *,
		    const char *);
	void	(*fatal)(struct rsession *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
};

struct rt {
	const struct rt_ops	*ops;
	const struct rt_events	*ev;	/* the session's */
	struct remote		*r;
};

struct rt	*streamable_new(struct remote *, const struct rt_events *);
struct rt	*legacy_new(struct remote *, const struct rt_events *);

/* session.c: the local side's session. */
/*
 * ev: what its transports call, session_rt_events (the functions below;
 * main.c wires it in, as session.c does not call session_recover.c).
 */
struct rsession	*session_new(struct remote *, const struct rt_events *);
extern const struct rt_events session_rt_events;
void		 session_free(struct rsession *);
/* A line from stdin. */
void		 session_from_client(struct rsession *, const char *, size_t);
/* SIGTERM (or stdout gone): end the remote session now, then exit 0. */
void		 session_shutdown(struct rsession *);
/* stdin ended: answer what is in flight, then shut down. */
void		 session_input_ended(struct rsession *);
/* Give up: every request pending gets an error, then exit with code. */
void		 session_fatal(struct rsession *, int code, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/* The negotiated protocol version, NULL before initialize completed. */
const char	*session_protocol(const struct rsession *);
/* "Authorization: ..." for the next request, or NULL. */
const char	*session_auth_header(const struct rsession *);

/* What the transports report (through struct rt_events). */
void	session_incoming(struct rsession *, const char *json, size_t len);
/* m's response stream is being resumed: its timeout runs again. */
void	session_resuming(struct rsession *, struct rmsg *);
/* Response headers for m came: an SSE stream (no timeout) or not. */
void	session_head(struct rsession *, struct rmsg *, int streaming);
/* Delivered; a request's response comes (or came) by session_incoming. */
void	session_done(struct rsession *, struct rmsg *);
/* Not delivered or not answered: a request gets this error. */
void	session_failed(struct rsession *, struct rmsg *, int code,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The session is gone (m: the message it refused, retried once; or NULL). */
void	session_lost(struct rsession *, struct rmsg *);
/* 401: credentials needed or stale (www_authenticate: the header). */
void	session_auth(struct rsession *, struct rmsg *,
	    const char *www_authenticate);
/*
 * 403: 0 if it was a step-up (insufficient_scope; m answered, reported),
 * -1 if not (the caller reports the failure).
 */
int	session_forbidden(struct rsession *, struct rmsg *,
	    const char *www_authenticate);
/* 429/503: send again after delay_ms. */
void	session_busy(struct rsession *, struct rmsg *, uint64_t delay_ms);
/* Automatic transport: the server refused Streamable HTTP at initialize. */
void	session_fallback(struct rsession *, struct rmsg *);
/* The remote cannot be reached at all: give up (mcpd's backoff follows). */
void	session_unreachable(struct rsession *, struct rmsg *,
	    const char *reason);

/*
 * rio.c: stdin and stdout.  What it reads and how stdio ends go up
 * through these (main.c hands it the session's functions), so rio sits
 * below the session and calls nothing above it.
 */
struct rio_events {
	/* A line from stdin (session_from_client). */
	void	(*line)(struct rsession *, const char *, size_t);
	/* stdin ended (session_input_ended). */
	void	(*ended)(struct rsession *);
	/* stdout's reader is gone (session_shutdown). */
	void	(*shutdown)(struct rsession *);
	/* stdin is not newline-delimited (session_fatal). */
	void	(*fatal)(struct rsession *, int code, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
};
void	rio_start(struct remote *, const struct rio_events *);
/*
 * Write one message to stdout, a newline added.  It must hold no CR or
 * LF: session_incoming makes the remote's messages one line, and what
 * mcpd-remote writes itself is escaped.
 */
void	rio_write(const char *, size_t);
/*
 * Too much waits for stdout: stop reading event streams (HTTP_PAUSE);
 * they are resumed (http_unpause) once stdout drained.
 */
int	rio_congested(void);
void	rio_stop_reading(void);
/* Flush stdout (bounded wait), then leave the event loop with code. */
void	rio_exit(struct remote *, int code);
void	rio_free(void);
/* The code rio_exit was given. */
extern int	rio_exit_code;

/*
 * rlog.c: say something on stderr ("mcpd-remote: ...").  Every part
 * logs, so it is a file of its own at the bottom.  remote_log_sink gives
 * every line to fn instead (a harness that checks what is logged; NULL:
 * stderr again).
 */
void	remote_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	remote_log_sink(void (*fn)(const char *));

#endif /* MCPD_REMOTE_H */
