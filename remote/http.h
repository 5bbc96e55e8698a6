/*
 * http.h -- HTTP requests through libcurl's multi interface on a libevent
 * base: curl tells which sockets to watch and when to time out
 * (CURLMOPT_SOCKETFUNCTION, CURLMOPT_TIMERFUNCTION), libevent watches
 * them.  No thread, no busy loop; many requests at once, connections
 * reused.
 *
 * Every request verifies TLS (peer and host name; ca_file adds a private
 * CA), honours https_proxy / no_proxy from the environment, never follows
 * redirects and never sends credentials anywhere but where its headers
 * say.  Response headers are kept (bounded) so callbacks can read them.
 * A bounded number of connections is open at once (HTTP_MAX_CONNECTIONS);
 * past it, a request waits for one.
 */
#ifndef MCPD_HTTP_H
#define MCPD_HTTP_H

#include <stddef.h>

struct event_base;
struct http;
struct http_req;

struct http_opts {
	const char	*ca_file;		/* NULL: the system's CAs */
	long		 connect_timeout_ms;	/* 0: libcurl's default */
};

/* How a request ended. */
enum http_end {
	HTTP_DONE = 0,		/* the whole response arrived */
	HTTP_CONNECT,		/* could not connect (DNS, refused, TLS) */
	HTTP_TIMEOUT,		/* the request's timeout passed */
	HTTP_BROKEN,		/* the connection failed mid-response */
	HTTP_ABORTED,		/* a callback returned -1 */
};

struct http_cb {
	/*
	 * The final status line and headers arrived (1xx skipped); read
	 * them with http_status and http_header.  Return -1 to abort.
	 */
	int	(*head)(void *arg, struct http_req *);
	/*
	 * Body bytes, as they come.  Return -1 to abort, or HTTP_PAUSE to
	 * take none of these now: the same bytes come again after
	 * http_unpause.
	 */
	int	(*body)(void *arg, struct http_req *, const char *, size_t);
	/*
	 * The request ended; error is a readable reason (NULL on
	 * HTTP_DONE).  The request is freed when this returns.
	 */
	void	(*done)(void *arg, struct http_req *, enum http_end,
		    const char *error);
};

struct http	*http_new(struct event_base *, const struct http_opts *,
		    char **err);
struct event_base *http_base(struct http *);
/* Cancels every request (no callbacks) and frees everything. */
void		 http_free(struct http *);

/*
 * Start a request.  headers: "Name: value" strings, NULL-ended, copied.
 * body (may be NULL) is taken over: freed when the request ends.
 * timeout_ms bounds the whole request, 0 for none (long-lived streams).
 */
struct http_req	*http_request(struct http *, const char *method,
		    const char *url, const char *const *headers, char *body,
		    size_t body_len, long timeout_ms, const struct http_cb *,
		    void *arg);
#define HTTP_PAUSE	1
/* Let paused requests deliver again (the reader caught up). */
void		 http_unpause(struct http *);
/* Stop a request now; none of its callbacks runs after this. */
void		 http_cancel(struct http_req *);
/* The response status, 0 before head. */
long		 http_status(const struct http_req *);
/* A response header's value (the last of that name, trimmed), or NULL. */
const char	*http_header(const struct http_req *, const char *name);

/*
 * A whole small response at once (discovery, tokens): the body is
 * collected up to max_body bytes (more is an HTTP_ABORTED end with
 * "response too large").  body is NUL-ended; req is valid for
 * http_status and http_header during the call only.
 */
typedef void	(*http_fetch_fn)(void *arg, struct http_req *req,
		    enum http_end, const char *error, const char *body,
		    size_t len);
struct http_req	*http_fetch(struct http *, const char *method,
		    const char *url, const char *const *headers, char *body,
		    size_t body_len, size_t max_body, long timeout_ms,
		    http_fetch_fn, void *arg);

#endif /* MCPD_HTTP_H */
