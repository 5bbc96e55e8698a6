/*
 * remote_fakes.c -- stand-ins for remote/http.c, rio.c and oauth.c, and
 * the sources rlog.c, rstatus.c, clock.c and hmap_seed.c are given, for
 * fuzz_remote (see remote_fakes.h).  Nothing here touches the network or
 * the real time beyond reading it; the status channel is a memfd.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <event2/event.h>

#include "clock.h"
#include "envelope.h"
#include "fuzz.h"
#include "hmap.h"
#include "http.h"
#include "oauth.h"
#include "proto.h"
#include "remote.h"
#include "remote_fakes.h"
#include "rstatus.h"
#include "url.h"
#include "xmalloc.h"

#define FAKE_MAX_HEADERS	100
#define FAKE_MAX_HEADER_BYTES	(64 * 1024)
#define FAKE_MAX_REQ_HEADERS	80

/* HTTP ------------------------------------------------------------------ */

struct http {
	struct event_base	*base;
};

struct http_req {
	struct http		*http;
	uint64_t		 seq;
	char			 method[8];
	char			*body;
	size_t			 body_len;
	int			 last_event_id;	/* sent Last-Event-ID */
	const struct http_cb	*cb;
	void			*arg;
	long			 status;
	char			*hdr[FAKE_MAX_HEADERS];
	size_t			 nhdr;
	size_t			 hdr_bytes;
	int			 head_done;
	int			 in_cb;
	int			 in_done;
	int			 cancelled;
	int			 paused;
	unsigned		 pause_gen;
	char			*held;		/* refused with HTTP_PAUSE */
	size_t			 held_len;
	http_fetch_fn		 fetch_fn;
	void			*fetch_arg;
	char			*fbuf;
	size_t			 flen;
	size_t			 fmax;
	TAILQ_ENTRY(http_req)	 entry;
};
TAILQ_HEAD(fake_reqs, http_req);

static struct fake_reqs	 fake_reqs = TAILQ_HEAD_INITIALIZER(fake_reqs);
static char		*fake_origin;
static unsigned		 fake_pause_gen;
static uint64_t		 fake_seq;
static int		 fake_rebuilding;

void
fake_http_origin(const char *url)
{
	fake_rebuilding = 0;
	free(fake_origin);
	fake_origin = url != NULL ? xstrdup(url) : NULL;
}

struct http *
http_new(struct event_base *base, const struct http_opts *o, char **err)
{
	struct http	*http;

	http = xcalloc(1, sizeof *http);
	http->base = base;
	return (http);
}

static void
fake_req_free(struct http_req *req)
{
	size_t	i;

	TAILQ_REMOVE(&fake_reqs, req, entry);
	for (i = 0; i < req->nhdr; i++)
		free(req->hdr[i]);
	free(req->body);
	free(req->held);
	free(req->fbuf);
	free(req);
}

void
http_free(struct http *http)
{
	struct http_req	*req, *next;

	for (req = TAILQ_FIRST(&fake_reqs); req != NULL; req = next) {
		next = TAILQ_NEXT(req, entry);
		if (req->http == http)
			fake_req_free(req);
	}
	free(http);
}

static void
fake_check_header(const char *h)
{
	const char	*colon;

	colon = strchr(h, ':');
	FUZZ_CHECK(colon != NULL && colon != h, "a request header without a "
	    "name: \"%s\"", h);
	FUZZ_CHECK(strpbrk(h, "\r\n") == NULL, "a request header holds CR or "
	    "LF (header injection): \"%.*s\"", (int)(colon - h), h);
}

/*
 * A session rebuilt by mcpd-remote (its own initialize, id
 * "mcpd-remote-N") takes notifications/initialized before any request
 * but ping: the lifecycle's order, which the local client kept on the
 * first session.
 */
static void
fake_lifecycle(const char *body, const struct envelope *env)
{
	static const char	 own[] = "\"mcpd-remote-";

	if (env->method.type != ENVELOPE_STRING)
		return;
	if (envelope_string_eq(body, &env->method, "initialize")) {
		fake_rebuilding = env->id.type == ENVELOPE_STRING &&
		    env->id.len > sizeof own - 1 &&
		    memcmp(body + env->id.off, own, sizeof own - 1) == 0;
		return;
	}
	if (envelope_string_eq(body, &env->method,
	    "notifications/initialized")) {
		fake_rebuilding = 0;
		return;
	}
	FUZZ_CHECK(!fake_rebuilding || env->id.type == ENVELOPE_ABSENT ||
	    envelope_string_eq(body, &env->method, "ping"), "a request went "
	    "to a rebuilt session before notifications/initialized: %.*s",
	    (int)(env->method.len > 100 ? 100 : env->method.len),
	    body + env->method.off);
}

struct http_req *
http_request(struct http *http, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len, long timeout_ms,
    const struct http_cb *cb, void *arg)
{
	struct http_req	*req;
	struct envelope	 env;
	size_t		 i, erroff;

	FUZZ_CHECK(strcmp(method, "GET") == 0 || strcmp(method, "POST") == 0 ||
	    strcmp(method, "DELETE") == 0, "unexpected method %s", method);
	FUZZ_CHECK(fake_origin == NULL || url_same_origin(url, fake_origin),
	    "a request to another origin: %s", url);
	for (i = 0; url[i] != '\0'; i++) {
		FUZZ_CHECK(url[i] > 0x20 && url[i] < 0x7f, "a request URL "
		    "with a control, space or non-ASCII byte: %s", url);
	}
	for (i = 0; headers != NULL && headers[i] != NULL; i++) {
		FUZZ_CHECK(i < FAKE_MAX_REQ_HEADERS, "too many headers");
		fake_check_header(headers[i]);
	}
	if (strcmp(method, "POST") == 0) {
		FUZZ_CHECK(body != NULL && body_len > 0, "a POST without body");
		FUZZ_CHECK(envelope_scan(body, body_len, &env, &erroff) == 0,
		    "a POST body that is not one JSON object (byte %zu): "
		    "%.*s", erroff, (int)(body_len > 300 ? 300 : body_len),
		    body);
		fake_lifecycle(body, &env);
	} else
		FUZZ_CHECK(body == NULL, "a %s with a body", method);
	req = xcalloc(1, sizeof *req);
	req->http = http;
	req->seq = ++fake_seq;
	snprintf(req->method, sizeof req->method, "%s", method);
	req->body = body;
	req->body_len = body_len;
	req->cb = cb;
	req->arg = arg;
	for (i = 0; headers != NULL && headers[i] != NULL; i++) {
		if (strncasecmp(headers[i], "Last-Event-ID:", 14) == 0)
			req->last_event_id = 1;
	}
	TAILQ_INSERT_TAIL(&fake_reqs, req, entry);
	if (getenv("FUZZ_REMOTE_LOG") != NULL)
		fprintf(stderr, "http: %s %s%s%s%.*s\n", method, url,
		    req->last_event_id ? " (resuming)" : "", body != NULL ?
		    ": " : "", (int)(body_len > 200 ? 200 : body_len),
		    body != NULL ? body : "");
	return (req);
}

void
http_cancel(struct http_req *req)
{
	FUZZ_CHECK(!req->in_done, "http_cancel on a request inside its own "
	    "done callback (it is freed when done returns)");
	FUZZ_CHECK(!req->cancelled, "http_cancel twice on one request");
	req->cancelled = 1;
	if (req->in_cb == 0)
		fake_req_free(req);
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

/* End a request: done once, then freed (unless cancelled meanwhile). */
static void
fake_finish(struct http_req *req, enum http_end end, const char *error)
{
	req->in_done = 1;
	req->cb->done(req->arg, req, end, error);
	fake_req_free(req);
}

/*
 * After a callback: free a request cancelled inside it, end one the
 * callback refused.  Returns 0 if the request goes on.
 */
static int
fake_after(struct http_req *req, int rc)
{
	if (req->cancelled) {
		fake_req_free(req);
		return (-1);
	}
	if (rc == -1) {
		fake_finish(req, HTTP_ABORTED, "refused by the caller");
		return (-1);
	}
	return (0);
}

static int
fake_call_head(struct http_req *req)
{
	int	rc = 0;

	req->head_done = 1;
	if (req->status == 0)
		req->status = 200;
	req->in_cb++;
	if (req->cb->head != NULL)
		rc = req->cb->head(req->arg, req);
	req->in_cb--;
	return (fake_after(req, rc));
}

static int
fake_call_body(struct http_req *req, const char *data, size_t len)
{
	int	rc = 0;

	req->in_cb++;
	if (req->cb->body != NULL)
		rc = req->cb->body(req->arg, req, data, len);
	req->in_cb--;
	if (!req->cancelled && rc == HTTP_PAUSE) {
		req->paused = 1;
		req->pause_gen = fake_pause_gen;
		req->held = xmalloc(len);
		memcpy(req->held, data, len);
		req->held_len = len;
		return (-1);
	}
	return (fake_after(req, rc == HTTP_PAUSE ? 0 : rc));
}

size_t
fake_http_count(char filter)
{
	struct http_req	*req;
	size_t		 n = 0;

	TAILQ_FOREACH(req, &fake_reqs, entry) {
		if (!req->cancelled && (filter == 0 ||
		    req->method[0] == filter))
			n++;
	}
	return (n);
}

struct http_req *
fake_http_pick(char filter, size_t idx)
{
	struct http_req	*req;
	size_t		 n;

	n = fake_http_count(filter);
	if (n == 0)
		return (NULL);
	idx %= n;
	TAILQ_FOREACH(req, &fake_reqs, entry) {
		if (req->cancelled || (filter != 0 &&
		    req->method[0] != filter))
			continue;
		if (idx-- == 0)
			return (req);
	}
	return (NULL);
}

uint64_t
fake_http_seq(const struct http_req *req)
{
	return (req->seq);
}

struct http_req *
fake_http_find(uint64_t seq)
{
	struct http_req	*req;

	TAILQ_FOREACH(req, &fake_reqs, entry) {
		if (req->seq == seq && !req->cancelled)
			return (req);
	}
	return (NULL);
}

const char *
fake_http_method(const struct http_req *req)
{
	return (req->method);
}

int
fake_http_has_head(const struct http_req *req)
{
	return (req->head_done);
}

int
fake_http_has_header(const struct http_req *req, const char *name)
{
	if (strcasecmp(name, "Last-Event-ID") == 0)
		return (req->last_event_id);
	return (http_header(req, name) != NULL);
}

const char *
fake_http_body(const struct http_req *req, size_t *len)
{
	*len = req->body_len;
	return (req->body);
}

void
fake_http_respond_head(struct http_req *req, long status, const char *h,
    size_t len)
{
	const char	*end, *bar;
	size_t		 l;

	if (req->head_done || req->paused)
		return;
	if (status < 200 || status > 999)
		return;		/* 1xx are skipped; nonsense never parses */
	req->status = status;
	for (end = h + len; h < end; h = bar + 1) {
		if ((bar = memchr(h, '|', end - h)) == NULL)
			bar = end;
		l = bar - h;
		while (l > 0 && (h[l - 1] == ' ' || h[l - 1] == '\t'))
			l--;
		if (l == 0 || memchr(h, '\0', l) != NULL)
			continue;
		if (req->nhdr == FAKE_MAX_HEADERS ||
		    req->hdr_bytes + l > FAKE_MAX_HEADER_BYTES) {
			/* As http.c: headers over its bounds end it. */
			fake_finish(req, HTTP_ABORTED, "response headers too "
			    "large");
			return;
		}
		req->hdr[req->nhdr++] = xstrndup(h, l);
		req->hdr_bytes += l;
	}
	(void)fake_call_head(req);
}

void
fake_http_respond_body(struct http_req *req, const char *data, size_t len)
{
	if (len == 0)
		return;
	if (req->paused) {
		/* The reader is behind: the bytes wait with the others. */
		req->held = xrealloc(req->held, req->held_len + len);
		memcpy(req->held + req->held_len, data, len);
		req->held_len += len;
		return;
	}
	if (!req->head_done && fake_call_head(req) == -1)
		return;
	(void)fake_call_body(req, data, len);
}

void
fake_http_end(struct http_req *req, enum http_end end)
{
	const char	*error = NULL;

	if (req->paused)
		return;		/* its bytes must be taken first */
	switch (end) {
	case HTTP_DONE:
		if (!req->head_done && fake_call_head(req) == -1)
			return;
		break;
	case HTTP_CONNECT:
		error = "Could not connect to server";
		if (req->head_done)
			end = HTTP_BROKEN;
		break;
	case HTTP_TIMEOUT:
		error = "Timeout was reached";
		if (!req->head_done)
			end = HTTP_CONNECT;
		break;
	default:
		end = HTTP_BROKEN;
		error = "Connection died";
		break;
	}
	fake_finish(req, end, error);
}

void
http_unpause(struct http *http)
{
	struct http_req	*req, *next;
	char		*held;
	size_t		 len;

	fake_pause_gen++;
	for (req = TAILQ_FIRST(&fake_reqs); req != NULL; req = next) {
		next = TAILQ_NEXT(req, entry);
		/* Not one that paused again during this call. */
		if (!req->paused || req->cancelled ||
		    req->pause_gen == fake_pause_gen)
			continue;
		req->paused = 0;
		held = req->held;
		len = req->held_len;
		req->held = NULL;
		req->held_len = 0;
		/* May free req and others: start over after it. */
		(void)fake_call_body(req, held, len);
		free(held);
		next = TAILQ_FIRST(&fake_reqs);
	}
}

size_t
fake_http_held(void)
{
	struct http_req	*req;
	size_t		 n = 0;

	TAILQ_FOREACH(req, &fake_reqs, entry)
		n += req->body_len + req->held_len + req->flen +
		    req->hdr_bytes + sizeof *req;
	return (n);
}

static int
fake_fetch_body(void *arg, struct http_req *req, const char *data,
    size_t len)
{
	if (len > req->fmax - req->flen)
		return (-1);
	req->fbuf = xrealloc(req->fbuf, req->flen + len + 1);
	memcpy(req->fbuf + req->flen, data, len);
	req->flen += len;
	req->fbuf[req->flen] = '\0';
	return (0);
}

static void
fake_fetch_done(void *arg, struct http_req *req, enum http_end end,
    const char *error)
{
	req->fetch_fn(req->fetch_arg, req, end, error,
	    req->fbuf != NULL ? req->fbuf : "", req->flen);
}

static const struct http_cb fake_fetch_cb = {
	NULL, fake_fetch_body, fake_fetch_done
};

struct http_req *
http_fetch(struct http *http, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len, size_t max_body,
    long timeout_ms, http_fetch_fn fn, void *arg)
{
	struct http_req	*req;

	req = http_request(http, method, url, headers, body, body_len,
	    timeout_ms, &fake_fetch_cb, NULL);
	req->fetch_fn = fn;
	req->fetch_arg = arg;
	req->fmax = max_body;
	return (req);
}

/* stdio ----------------------------------------------------------------- */

void	(*fake_rio_out)(const char *, size_t);
int	 fake_rio_exited;
int	 fake_rio_reading = 1;
int	 fake_rio_congested;
int	 rio_exit_code;
int	 fake_secret_check = 1;

/* What rlog.c logs (remote_log_sink): never a secret. */
static void
fake_log(const char *text)
{
	FUZZ_CHECK(!fake_secret_check || (strstr(text, FAKE_SECRET) == NULL &&
	    strstr(text, FAKE_TOKEN) == NULL), "a secret in a log line: %s",
	    text);
	if (getenv("FUZZ_REMOTE_LOG") != NULL)
		fprintf(stderr, "mcpd-remote: %s\n", text);
}

void
fake_rio_reset(void)
{
	remote_log_sink(fake_log);
	fake_rio_exited = 0;
	fake_rio_reading = 1;
	fake_rio_congested = 0;
	rio_exit_code = 0;
}

void
rio_write(const char *msg, size_t len)
{
	fake_rio_out(msg, len);
}

int
rio_congested(void)
{
	return (fake_rio_congested);
}

void
rio_stop_reading(void)
{
	fake_rio_reading = 0;
}

void
rio_exit(struct remote *r, int code)
{
	if (fake_rio_exited)
		return;
	fake_rio_exited = 1;
	fake_rio_reading = 0;
	rio_exit_code = code;
}

/* The status channel: rstatus.c writes to a file, read back. ----------- */

static int	 fake_status_fd = -1;

void
fake_status_open(struct event_base *base)
{
	int	 fd;

	if ((fd = memfd_create("rstatus", MFD_CLOEXEC)) == -1 ||
	    (fake_status_fd = dup(fd)) == -1)
		abort();
	rstatus_open(base, fd);
}

/* Every line one JSON object of a known version, with no secret in it. */
void
fake_status_check(void)
{
	struct stat	 sb;
	char		*text, *line, *nl;
	cJSON		*obj;

	if (fake_status_fd == -1 || fstat(fake_status_fd, &sb) == -1)
		abort();
	text = xmalloc((size_t)sb.st_size + 1);
	if (pread(fake_status_fd, text, sb.st_size, 0) != sb.st_size)
		abort();
	text[sb.st_size] = '\0';
	for (line = text; *line != '\0'; line = nl + 1) {
		nl = strchr(line, '\n');
		FUZZ_CHECK(nl != NULL, "a status line without its newline");
		*nl = '\0';
		obj = cJSON_Parse(line);
		FUZZ_CHECK(obj != NULL && cJSON_GetNumberValue(
		    cJSON_GetObjectItem(obj, "v")) == MCPD_STATUS_VERSION,
		    "a status line mcpd cannot read: %s", line);
		cJSON_Delete(obj);
		FUZZ_CHECK(!fake_secret_check || (strstr(line, FAKE_SECRET) ==
		    NULL && strstr(line, FAKE_TOKEN) == NULL), "a secret in a "
		    "status line: %s", line);
	}
	free(text);
	/* The descriptors share the offset: rstatus.c writes from 0 again. */
	if (ftruncate(fake_status_fd, 0) == -1 ||
	    lseek(fake_status_fd, 0, SEEK_SET) == -1)
		abort();
}

void
fake_status_close(void)
{
	rstatus_close();
	fake_status_check();
	close(fake_status_fd);
	fake_status_fd = -1;
}

/* OAuth: a token after a deferred event, unless fake_oauth_fail. -------- */

struct fake_waiter {
	oauth_fn		 fn;
	void			*arg;
	unsigned		 round;
	TAILQ_ENTRY(fake_waiter) entry;
};
TAILQ_HEAD(fake_waiters, fake_waiter);

struct oauth {
	struct event		*ev;
	struct fake_waiters	 waiters;
	unsigned		 round;
	int			 have;
};

int	fake_oauth_fail;
int	fake_oauth_slow;

void
fake_oauth_kick(struct oauth *o)
{
	if (!TAILQ_EMPTY(&o->waiters))
		event_active(o->ev, EV_TIMEOUT, 0);
}

static void
fake_oauth_fire(evutil_socket_t fd, short what, void *arg)
{
	struct oauth		*o = arg;
	struct fake_waiter	*w;
	unsigned		 round = o->round++;
	int			 fail = fake_oauth_fail;

	o->have = !fail;
	for (;;) {
		TAILQ_FOREACH(w, &o->waiters, entry) {
			if (w->round <= round)
				break;
		}
		if (w == NULL)
			break;
		TAILQ_REMOVE(&o->waiters, w, entry);
		w->fn(w->arg, fail ? -1 : 0, fail ? "the token endpoint "
		    "refused the client" : NULL);
		free(w);
	}
}

struct oauth *
fake_oauth_new(struct event_base *base)
{
	struct oauth	*o;

	o = xcalloc(1, sizeof *o);
	TAILQ_INIT(&o->waiters);
	o->ev = evtimer_new(base, fake_oauth_fire, o);
	return (o);
}

void
fake_oauth_free(struct oauth *o)
{
	struct fake_waiter	*w;

	while ((w = TAILQ_FIRST(&o->waiters)) != NULL) {
		TAILQ_REMOVE(&o->waiters, w, entry);
		free(w);
	}
	event_free(o->ev);
	free(o);
}

const char *
oauth_header(struct oauth *o)
{
	return (o->have ? "Authorization: Bearer " FAKE_TOKEN : NULL);
}

void
oauth_get(struct oauth *o, int stale, const char *www, oauth_fn fn,
    void *arg)
{
	struct fake_waiter	*w;

	if (o->have && !stale) {
		fn(arg, 0, NULL);
		return;
	}
	if (stale)
		o->have = 0;
	w = xcalloc(1, sizeof *w);
	w->fn = fn;
	w->arg = arg;
	w->round = o->round;
	TAILQ_INSERT_TAIL(&o->waiters, w, entry);
	if (!fake_oauth_slow)
		event_active(o->ev, EV_TIMEOUT, 0);
}

void
oauth_cancel(struct oauth *o, void *arg)
{
	struct fake_waiter	*w, *next;

	for (w = TAILQ_FIRST(&o->waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->arg == arg) {
			TAILQ_REMOVE(&o->waiters, w, entry);
			free(w);
		}
	}
}

/* The clock and the seed ------------------------------------------------ */

uint64_t	fake_clock_skew_ms;

static uint64_t
fake_mono_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 +
	    fake_clock_skew_ms * 1000);
}

static const struct clock_source fake_clock = { fake_mono_us, NULL };

void
fake_time_init(void)
{
	clock_use(&fake_clock);
	hmap_seed_fix(0x6d637064726d7465ULL);
}

/* Client credentials, as far as the session can tell. */
int
oauth_header_needed(const struct oauth *o)
{
	(void)o;
	return (1);
}

const struct tokens *
oauth_tokens(const struct oauth *o)
{
	(void)o;
	return (NULL);
}
