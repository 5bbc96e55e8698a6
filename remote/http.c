/*
 * http.c -- HTTP requests through libcurl's multi interface on libevent.
 *
 * libcurl says which sockets to watch (sock_cb) and when it wants to be
 * called back without I/O (timer_cb); libevent watches them and hands the
 * events back with curl_multi_socket_action.  Finished transfers are read
 * from curl_multi_info_read right after.
 *
 * Callbacks of ours run inside libcurl (header and write functions), where
 * libcurl refuses to be re-entered: there a new request is only queued and
 * a cancelled one only marked; both are settled as soon as libcurl
 * returns (http_settle).  `done' runs outside libcurl.
 */
#include "config.h"

#include <sys/queue.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <event2/event.h>

#include "http.h"
#include "util.h"
#include "xmalloc.h"

/* Response headers kept per request, all together. */
#define HTTP_MAX_HEADER_BYTES	(64 * 1024)
#define HTTP_MAX_HEADERS	100
/*
 * Connections open at once, a backstop: the session's caps (flow.h) keep
 * the requests in flight well below it; past it, libcurl makes a request
 * wait for a connection rather than open another.
 */
#define HTTP_MAX_CONNECTIONS	128

struct http_req {
	struct http		*http;
	CURL			*easy;
	struct curl_slist	*headers;
	char			*body;
	const struct http_cb	*cb;
	void			*arg;
	long			 status;
	char			*hdr[HTTP_MAX_HEADERS];	/* "name: value" */
	size_t			 nhdr;
	size_t			 hdr_bytes;
	int			 head_done;
	int			 added;		/* to the multi handle */
	int			 cancelled;
	int			 paused;	/* CURL_WRITEFUNC_PAUSE */
	int			 aborted;	/* a callback returned -1 */
	const char		*abort_reason;
	char			 errbuf[CURL_ERROR_SIZE];
	TAILQ_ENTRY(http_req)	 entry;
	/* http_fetch's collection. */
	http_fetch_fn		 fetch_fn;
	void			*fetch_arg;
	char			*fbuf;
	size_t			 flen;
	size_t			 fmax;
};
TAILQ_HEAD(http_reqs, http_req);

struct http {
	CURLM			*multi;
	struct event_base	*base;
	struct event		*timer;
	char			*ca_file;
	long			 connect_timeout_ms;
	int			 in_curl;	/* inside libcurl: defer */
	struct http_reqs	 reqs;		/* added or waiting to be */
};

/* One watched socket (curl_multi_assign). */
struct http_sock {
	struct event	*ev;
	curl_socket_t	 fd;
};

static void	http_settle(struct http *);
static void	http_free_req(struct http_req *);

static int	http_global_done;

static void
http_check_done(struct http *http)
{
	struct http_req	*req;
	CURLMsg		*msg;
	enum http_end	 end;
	const char	*error;
	int		 left;

	while ((msg = curl_multi_info_read(http->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		req = NULL;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&req);
		if (req == NULL)
			continue;
		curl_multi_remove_handle(http->multi, req->easy);
		req->added = 0;
		TAILQ_REMOVE(&http->reqs, req, entry);
		if (req->cancelled) {
			http_free_req(req);
			continue;
		}
		error = NULL;
		switch (msg->data.result) {
		case CURLE_OK:
			end = HTTP_DONE;
			break;
		case CURLE_WRITE_ERROR:
			end = req->aborted ? HTTP_ABORTED : HTTP_BROKEN;
			error = req->aborted ? req->abort_reason : NULL;
			break;
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_RESOLVE_PROXY:
		case CURLE_COULDNT_CONNECT:
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_PEER_FAILED_VERIFICATION:
#if LIBCURL_VERSION_NUM < 0x073e00
		case CURLE_SSL_CACERT:
#endif
		case CURLE_SSL_CERTPROBLEM:
		case CURLE_SSL_CACERT_BADFILE:
			end = HTTP_CONNECT;
			break;
		case CURLE_OPERATION_TIMEDOUT:
			/* Before any response: the connection never came. */
			end = req->status == 0 ? HTTP_CONNECT : HTTP_TIMEOUT;
			break;
		default:
			end = req->aborted ? HTTP_ABORTED : HTTP_BROKEN;
			break;
		}
		if (error == NULL && end != HTTP_DONE)
			error = req->errbuf[0] != '\0' ? req->errbuf :
			    curl_easy_strerror(msg->data.result);
		if (req->aborted && req->abort_reason != NULL)
			error = req->abort_reason;
		if (end == HTTP_DONE && !req->head_done) {
			/* A response with no header end seen: unusual. */
			req->head_done = 1;
			if (req->cb->head != NULL &&
			    req->cb->head(req->arg, req) == -1) {
				end = HTTP_ABORTED;
				error = "refused by the caller";
			}
		}
		req->cb->done(req->arg, req, end, error);
		http_free_req(req);
	}
}

/* Call libcurl for a socket event or a timeout, then settle. */
static void
http_action(struct http *http, curl_socket_t fd, int flags)
{
	int	running;

	http->in_curl++;
	curl_multi_socket_action(http->multi, fd, flags, &running);
	http->in_curl--;
	http_settle(http);
}

static void
http_sock_event(evutil_socket_t fd, short what, void *arg)
{
	struct http	*http = arg;
	int		 flags = 0;

	if (what & EV_READ)
		flags |= CURL_CSELECT_IN;
	if (what & EV_WRITE)
		flags |= CURL_CSELECT_OUT;
	http_action(http, fd, flags);
}

static void
http_timer_event(evutil_socket_t fd, short what, void *arg)
{
	http_action(arg, CURL_SOCKET_TIMEOUT, 0);
}

static int
http_sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
	struct http	 *http = userp;
	struct http_sock *hs = socketp;
	short		  events = EV_PERSIST;

	if (what == CURL_POLL_REMOVE) {
		if (hs != NULL) {
			event_free(hs->ev);
			free(hs);
			curl_multi_assign(http->multi, fd, NULL);
		}
		return (0);
	}
	if (what & CURL_POLL_IN)
		events |= EV_READ;
	if (what & CURL_POLL_OUT)
		events |= EV_WRITE;
	if (hs == NULL) {
		hs = xcalloc(1, sizeof *hs);
		hs->fd = fd;
		curl_multi_assign(http->multi, fd, hs);
	} else
		event_free(hs->ev);
	hs->ev = event_new(http->base, fd, events, http_sock_event, http);
	event_add(hs->ev, NULL);
	return (0);
}

static int
http_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct http	*http = userp;
	struct timeval	 tv;

	if (timeout_ms < 0) {
		evtimer_del(http->timer);
		return (0);
	}
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	evtimer_add(http->timer, &tv);
	return (0);
}

struct http *
http_new(struct event_base *base, const struct http_opts *opts, char **err)
{
	struct http	*http;

	if (!http_global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			*err = xstrdup("libcurl failed to initialise");
			return (NULL);
		}
		http_global_done = 1;
	}
	http = xcalloc(1, sizeof *http);
	http->base = base;
	TAILQ_INIT(&http->reqs);
	if (opts->ca_file != NULL)
		http->ca_file = xstrdup(opts->ca_file);
	http->connect_timeout_ms = opts->connect_timeout_ms;
	http->multi = curl_multi_init();
	if (http->multi == NULL) {
		free(http->ca_file);
		free(http);
		*err = xstrdup("libcurl failed to initialise");
		return (NULL);
	}
	http->timer = evtimer_new(base, http_timer_event, http);
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETFUNCTION, http_sock_cb);
	curl_multi_setopt(http->multi, CURLMOPT_SOCKETDATA, http);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb);
	curl_multi_setopt(http->multi, CURLMOPT_TIMERDATA, http);
	curl_multi_setopt(http->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
	    (long)HTTP_MAX_CONNECTIONS);
	return (http);
}

struct event_base *
http_base(struct http *h)
{
	return (h->base);
}

void
http_free(struct http *http)
{
	struct http_req	*req;

	if (http == NULL)
		return;
	while ((req = TAILQ_FIRST(&http->reqs)) != NULL) {
		TAILQ_REMOVE(&http->reqs, req, entry);
		if (req->added)
			curl_multi_remove_handle(http->multi, req->easy);
		http_free_req(req);
	}
	curl_multi_cleanup(http->multi);
	event_free(http->timer);
	free(http->ca_file);
	free(http);
}

static void
http_free_req(struct http_req *req)
{
	size_t	i;

	curl_easy_cleanup(req->easy);
	curl_slist_free_all(req->headers);
	for (i = 0; i < req->nhdr; i++)
		free(req->hdr[i]);
	free(req->body);
	free(req->fbuf);
	free(req);
}

static void
http_abort(struct http_req *req, const char *reason)
{
	req->aborted = 1;
	if (req->abort_reason == NULL)
		req->abort_reason = reason;
}

static void
http_headers_reset(struct http_req *req)
{
	size_t	i;

	for (i = 0; i < req->nhdr; i++)
		free(req->hdr[i]);
	req->nhdr = 0;
	req->hdr_bytes = 0;
}

static int
http_call_head(struct http_req *req)
{
	req->head_done = 1;
	if (req->cb->head != NULL && req->cb->head(req->arg, req) == -1) {
		http_abort(req, "refused by the caller");
		return (-1);
	}
	return (0);
}

static size_t
http_header_fn(char *data, size_t size, size_t n, void *arg)
{
	struct http_req	*req = arg;
	size_t		 len = size * n, l;
	long		 code = 0;

	if (req->cancelled || req->aborted)
		return (0);
	if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
		/* A status line: a new response (after a 1xx) begins. */
		http_headers_reset(req);
		return (len);
	}
	l = len;
	while (l > 0 && (data[l - 1] == '\n' || data[l - 1] == '\r'))
		l--;
	if (l == 0) {
		/* The end of a header block. */
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE, &code);
		if (code >= 200 && !req->head_done) {
			req->status = code;
			if (http_call_head(req) == -1)
				return (0);
		}
		return (len);
	}
	if (req->head_done)
		return (len);		/* trailers: not ours to read */
	if (req->nhdr == HTTP_MAX_HEADERS ||
	    req->hdr_bytes + l > HTTP_MAX_HEADER_BYTES) {
		http_abort(req, "response headers too large");
		return (0);
	}
	req->hdr[req->nhdr++] = xstrndup(data, l);
	req->hdr_bytes += l;
	return (len);
}

static size_t
http_write_fn(char *data, size_t size, size_t n, void *arg)
{
	struct http_req	*req = arg;
	size_t		 len = size * n;

	if (req->cancelled || req->aborted)
		return (len == 0 ? 1 : 0);
	if (!req->head_done) {
		curl_easy_getinfo(req->easy, CURLINFO_RESPONSE_CODE,
		    &req->status);
		if (http_call_head(req) == -1)
			return (len == 0 ? 1 : 0);
	}
	if (len == 0)
		return (0);
	switch (req->cb->body != NULL ? req->cb->body(req->arg, req, data,
	    len) : 0) {
	case -1:
		http_abort(req, "refused by the caller");
		return (0);
	case HTTP_PAUSE:
		req->paused = 1;
		return (CURL_WRITEFUNC_PAUSE);
	default:
		break;
	}
	if (req->cancelled || req->aborted)
		return (0);
	return (len);
}

static void
http_add(struct http *http, struct http_req *req)
{
	CURLMcode	rc;

	rc = curl_multi_add_handle(http->multi, req->easy);
	if (rc == CURLM_OK)
		req->added = 1;
	else {
		/* Reported as a failed connection when settled. */
		snprintf(req->errbuf, sizeof req->errbuf, "libcurl: %s",
		    curl_multi_strerror(rc));
		http_abort(req, req->errbuf);
	}
}

/* After libcurl returns: add queued requests, drop cancelled ones. */
static void
http_settle(struct http *http)
{
	struct http_req	*req, *next;

	if (http->in_curl)
		return;
	http_check_done(http);
	for (req = TAILQ_FIRST(&http->reqs); req != NULL; req = next) {
		next = TAILQ_NEXT(req, entry);
		if (req->cancelled) {
			TAILQ_REMOVE(&http->reqs, req, entry);
			if (req->added)
				curl_multi_remove_handle(http->multi,
				    req->easy);
			http_free_req(req);
		} else if (!req->added && !req->aborted)
			http_add(http, req);
		else if (!req->added && req->aborted) {
			TAILQ_REMOVE(&http->reqs, req, entry);
			req->cb->done(req->arg, req, HTTP_CONNECT,
			    req->abort_reason);
			http_free_req(req);
		}
	}
}

struct http_req *
http_request(struct http *http, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len, long timeout_ms,
    const struct http_cb *cb, void *arg)
{
	struct http_req	*req;
	size_t		 i;

	req = xcalloc(1, sizeof *req);
	req->http = http;
	req->cb = cb;
	req->arg = arg;
	req->body = body;
	req->easy = curl_easy_init();
	if (req->easy == NULL)
		abort();
	for (i = 0; headers != NULL && headers[i] != NULL; i++)
		req->headers = curl_slist_append(req->headers, headers[i]);
	/* No "Expect: 100-continue" round trip before a large body. */
	req->headers = curl_slist_append(req->headers, "Expect:");
	curl_easy_setopt(req->easy, CURLOPT_URL, url);
	curl_easy_setopt(req->easy, CURLOPT_PRIVATE, req);
	curl_easy_setopt(req->easy, CURLOPT_ERRORBUFFER, req->errbuf);
	curl_easy_setopt(req->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(req->easy, CURLOPT_HTTPHEADER, req->headers);
	curl_easy_setopt(req->easy, CURLOPT_HEADERFUNCTION, http_header_fn);
	curl_easy_setopt(req->easy, CURLOPT_HEADERDATA, req);
	curl_easy_setopt(req->easy, CURLOPT_WRITEFUNCTION, http_write_fn);
	curl_easy_setopt(req->easy, CURLOPT_WRITEDATA, req);
	curl_easy_setopt(req->easy, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(req->easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(req->easy, CURLOPT_PROTOCOLS,
	    (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(req->easy, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(req->easy, CURLOPT_SSL_VERIFYHOST, 2L);
	if (http->ca_file != NULL) {
		/* The private CA, beside the system's. */
		curl_easy_setopt(req->easy, CURLOPT_CAINFO, http->ca_file);
		curl_easy_setopt(req->easy, CURLOPT_CAPATH, "/etc/ssl/certs");
	}
	if (http->connect_timeout_ms > 0)
		curl_easy_setopt(req->easy, CURLOPT_CONNECTTIMEOUT_MS,
		    http->connect_timeout_ms);
	if (timeout_ms > 0)
		curl_easy_setopt(req->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(req->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(req->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(req->easy, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(req->easy, CURLOPT_USERAGENT,
	    "mcpd-remote/" PACKAGE_VERSION);
	if (strcmp(method, "GET") == 0)
		curl_easy_setopt(req->easy, CURLOPT_HTTPGET, 1L);
	else if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(req->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(req->easy, CURLOPT_POSTFIELDS,
		    body != NULL ? body : "");
		curl_easy_setopt(req->easy, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(body != NULL ? body_len : 0));
	} else
		curl_easy_setopt(req->easy, CURLOPT_CUSTOMREQUEST, method);
	TAILQ_INSERT_TAIL(&http->reqs, req, entry);
	if (!http->in_curl)
		http_add(http, req);
	/* A failed add is settled (done called) from the next timeout. */
	if (req->aborted) {
		struct timeval tv = { 0, 0 };

		evtimer_add(http->timer, &tv);
	}
	return (req);
}

void
http_unpause(struct http *http)
{
	struct http_req	*req;

	if (http->in_curl)
		return;
	TAILQ_FOREACH(req, &http->reqs, entry) {
		if (req->paused && !req->cancelled) {
			req->paused = 0;
			/* It may deliver at once: as inside libcurl. */
			http->in_curl++;
			curl_easy_pause(req->easy, CURLPAUSE_CONT);
			http->in_curl--;
		}
	}
	http_settle(http);
}

void
http_cancel(struct http_req *req)
{
	struct http	*http = req->http;

	if (req->cancelled)
		return;
	req->cancelled = 1;
	if (http->in_curl)
		return;		/* http_settle frees it */
	TAILQ_REMOVE(&http->reqs, req, entry);
	if (req->added)
		curl_multi_remove_handle(http->multi, req->easy);
	http_free_req(req);
}

long
http_status(const struct http_req *req)
{
	return (req->status);
}

const char *
http_header(const struct http_req *req, const char *name)
{
	size_t		 i, n = strlen(name);
	const char	*v;

	for (i = req->nhdr; i > 0; i--) {
		v = req->hdr[i - 1];
		if (strncasecmp(v, name, n) != 0 || v[n] != ':')
			continue;
		v += n + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		return (v);
	}
	return (NULL);
}

/* http_fetch: collect a bounded body. */

static int
http_fetch_body(void *arg, struct http_req *req, const char *data,
    size_t len)
{
	if (len > req->fmax - req->flen) {
		http_abort(req, "response too large");
		return (-1);
	}
	if (req->fbuf == NULL)
		req->fbuf = xmalloc(len + 1 > 4096 ? len + 1 : 4096);
	else
		req->fbuf = xrealloc(req->fbuf, req->flen + len + 1);
	memcpy(req->fbuf + req->flen, data, len);
	req->flen += len;
	req->fbuf[req->flen] = '\0';
	return (0);
}

static void
http_fetch_done(void *arg, struct http_req *req, enum http_end end,
    const char *error)
{
	req->fetch_fn(req->fetch_arg, req, end, error,
	    req->fbuf != NULL ? req->fbuf : "", req->flen);
}

static const struct http_cb http_fetch_cb = {
	NULL, http_fetch_body, http_fetch_done
};

struct http_req *
http_fetch(struct http *http, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len, size_t max_body,
    long timeout_ms, http_fetch_fn fn, void *arg)
{
	struct http_req	*req;

	req = http_request(http, method, url, headers, body, body_len,
	    timeout_ms, &http_fetch_cb, NULL);
	req->fetch_fn = fn;
	req->fetch_arg = arg;
	req->fmax = max_body;
	return (req);
}
