/*
 * fuzz_remote.c -- mcpd-remote against a remote HTTP server the input
 * plays.
 *
 * The real session (remote/session.c), both transports (streamable.c,
 * legacy.c) and the settings (rconf.c) run on a real event base, over the
 * stand-ins of remote_fakes.c: every HTTP request they make waits in the
 * fake HTTP layer until the input answers it, stdout is checked line by
 * line, OAuth hands out a token (or fails) after a deferred event.  Timers
 * (request timeouts, 429/503 retries, stream resumptions) are fired early,
 * earliest first, and the clock jumps ahead by what they skipped.
 *
 * The input is lines.  The first sets the scene: byte 0 the transport
 * ('h' http, 's' sse, else auto), byte 1 max_message_bytes ('1' 1024,
 * '2' 8192, '3' 100000, else the default), byte 2 'o' for OAuth, byte 3
 * 't' for a 500 ms request timeout (else 60 s).  Each further line is an
 * event:
 *
 *	>JSON			a line from the client on stdin
 *	H[f][n] STATUS[ HDRS]	response headers for a request
 *	B[f][n] BODY		a chunk of its body
 *	E[f][n][ K]		it ends: K is D done (default), C could not
 *				connect, T timed out, B broken
 *	R[f][n] STATUS[ HDRS][^BODY]	the whole response at once
 *	T			the earliest timer fires
 *	P, U			stdout backs up (event streams pause);
 *				stdout drains (http_unpause)
 *	F			OAuth fetches fail from now (again: succeed)
 *	K			tokens come only at the next K (slow OAuth)
 *	X			stdin ends
 *
 * A request is chosen among those outstanding, oldest first: f (G, P or
 * D) keeps only GETs, POSTs or DELETEs, n (decimal, modulo their number)
 * picks one.  HDRS are "Name: value" separated by '|'.  In BODY, \n \r
 * \t \0 and \\ are escapes; in BODY and client lines "$Z" is 64 KiB of
 * 'x' (for messages over max_message_bytes).
 *
 * When the input ends, the remote first hangs (timers fire until none
 * is left), then goes away (each request still open breaks or times
 * out), then stdin ends and the program must exit.
 *
 * Invariants: no crash, leak or sanitizer report; each stdout line is
 * one JSON object (envelope_scan) without raw CR or LF; a response on
 * stdout answers a request the client sent and that awaits its answer
 * (not cancelled, not answered), by its raw id text; while the remote
 * hangs, a request is answered unless its POST is still open with its
 * response headers in (an SSE stream has no body timeout) or a stream
 * is being resumed; once the remote is gone, or when the program exits
 * on its own, every request not cancelled has had exactly one answer;
 * after stdin ends the program exits; the fake HTTP layer's checks
 * (origins, URLs, header lines, bodies, cancels, and on a session
 * mcpd-remote rebuilt no request before notifications/initialized); no
 * secret in a log line;
 * the memory held (the fake layer's requests, and the whole heap) stays
 * under a bound linear in the input; no more of the client's messages
 * are POSTed at once than the caps of remote/flow.h allow (made small
 * here, see Makefile.am).
 */
#include "config.h"

#include <sys/time.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "envelope.h"
#include "flow.h"
#include "fuzz.h"
#include "http.h"
#include "rconf.h"
#include "remote.h"
#include "remote_fakes.h"
#include "xmalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#ifdef FUZZ_ASAN
/* libasan's (gcc ships no header for it). */
size_t	__sanitizer_get_current_allocated_bytes(void);
#endif

const char	*fuzz_target_name = "remote";

#define FUZZ_URL		"https://mcp.example.com/v1/mcp"
#define FUZZ_MAX_LINES		1000
#define FUZZ_BIG_BYTES		(64 * 1024)
#define FUZZ_MAX_EXPANDED	(8 * 1024 * 1024)
#define FUZZ_SETTLE_MAX		10000
#define FUZZ_QUIESCE_MAX	5000

enum req_state { REQ_AWAITING, REQ_ANSWERED, REQ_CANCELLED };

/* A request the client sent, by its raw id text. */
struct fz_req {
	char		*id;
	enum req_state	 state;
};

static struct remote	fz_r;
static struct rconf	fz_rc;

static struct {
	struct event_base	*base;
	struct fz_req		*reqs;
	size_t			 nreqs;
	size_t			 expanded;	/* bytes fed, after expansion */
	size_t			 steps;
	int			 shutdown;	/* stdin ended */
	size_t			 heap_base;
} fz;

static size_t
fz_heap(void)
{
#ifdef FUZZ_ASAN
	return (__sanitizer_get_current_allocated_bytes());
#else
	struct mallinfo2	mi = mallinfo2();

	return (mi.uordblks + mi.hblkhd);
#endif
}

static struct fz_req *
fz_find(const char *id, size_t len)
{
	size_t	i;

	for (i = 0; i < fz.nreqs; i++) {
		if (strlen(fz.reqs[i].id) == len &&
		    memcmp(fz.reqs[i].id, id, len) == 0)
			return (&fz.reqs[i]);
	}
	return (NULL);
}

/* A string member decoded, as the session decodes it (cJSON). */
static char *
fz_decode(const char *line, const struct envelope_value *v)
{
	cJSON	*j;
	char	*out = NULL;

	if (v->type != ENVELOPE_STRING)
		return (NULL);
	j = cJSON_ParseWithLength(line + v->off, v->len);
	if (cJSON_IsString(j))
		out = xstrdup(j->valuestring);
	cJSON_Delete(j);
	return (out);
}

/* What the client sends: the model of what it must get back. */
static void
fz_client_line(const char *line, size_t len)
{
	struct envelope	 env;
	struct fz_req	*q;
	size_t		 erroff;
	char		*method;
	int		 request = 0;

	if (envelope_scan(line, len, &env, &erroff) == -1)
		return;		/* dropped, said on stderr */
	method = fz_decode(line, &env.method);
	/*
	 * A request; or a method that is no string with a string or number
	 * id, refused with an error for that id (unless it is pending).
	 */
	if ((env.method.type == ENVELOPE_STRING &&
	    env.id.type != ENVELOPE_ABSENT && env.id.type != ENVELOPE_NULL) ||
	    (env.method.type != ENVELOPE_ABSENT &&
	    env.method.type != ENVELOPE_STRING &&
	    (env.id.type == ENVELOPE_STRING ||
	    env.id.type == ENVELOPE_NUMBER))) {
		request = 1;
		q = fz_find(line + env.id.off, env.id.len);
		if (q != NULL && q->state == REQ_AWAITING)
			;	/* an id still pending: refused */
		else if (q != NULL)
			q->state = REQ_AWAITING;
		else {
			fz.reqs = xreallocarray(fz.reqs, fz.nreqs + 1,
			    sizeof *fz.reqs);
			fz.reqs[fz.nreqs].id = xstrndup(line + env.id.off,
			    env.id.len);
			fz.reqs[fz.nreqs++].state = REQ_AWAITING;
		}
	}
	/* Only a notification cancels. */
	if (!request && method != NULL &&
	    strcmp(method, "notifications/cancelled") == 0 &&
	    env.p_request_id.type != ENVELOPE_ABSENT) {
		q = fz_find(line + env.p_request_id.off, env.p_request_id.len);
		if (q != NULL && q->state == REQ_AWAITING)
			q->state = REQ_CANCELLED;
	}
	free(method);
}

/* A line on stdout. */
static void
fz_out(const char *msg, size_t len)
{
	struct envelope	 env;
	struct fz_req	*q;
	size_t		 erroff;

	if (getenv("FUZZ_REMOTE_LOG") != NULL)
		fprintf(stderr, "stdout: %.*s\n", (int)(len > 400 ? 400 : len),
		    msg);
	FUZZ_CHECK(memchr(msg, '\n', len) == NULL &&
	    memchr(msg, '\r', len) == NULL, "a raw CR or LF in a stdout line");
	FUZZ_CHECK(envelope_scan(msg, len, &env, &erroff) == 0, "a stdout "
	    "line that is not one JSON object (byte %zu): %.*s", erroff,
	    (int)(len > 300 ? 300 : len), msg);
	if (env.method.type != ENVELOPE_ABSENT ||
	    env.id.type == ENVELOPE_ABSENT)
		return;
	q = fz_find(msg + env.id.off, env.id.len);
	FUZZ_CHECK(q != NULL, "a response to id %.*s, which the client never "
	    "used", (int)(env.id.len > 100 ? 100 : env.id.len),
	    msg + env.id.off);
	FUZZ_CHECK(q->state == REQ_AWAITING, "a response to id %s, which was "
	    "%s", q->id, q->state == REQ_ANSWERED ? "answered already" :
	    "cancelled");
	q->state = REQ_ANSWERED;
}

/* Everything not cancelled has had its answer. */
static void
fz_all_answered(const char *when)
{
	size_t	i;

	for (i = 0; i < fz.nreqs; i++) {
		FUZZ_CHECK(fz.reqs[i].state != REQ_AWAITING, "request %s got "
		    "no answer %s", fz.reqs[i].id, when);
	}
}

/* The request of this id: its POST is open with its headers in. */
static int
fz_streaming(const char *id)
{
	struct http_req	*req;
	struct envelope	 env;
	const char	*body;
	size_t		 i, n, len, erroff;

	n = fake_http_count(0);
	for (i = 0; i < n; i++) {
		req = fake_http_pick(0, i);
		if (!fake_http_has_head(req))
			continue;
		if (strcmp(fake_http_method(req), "GET") == 0 &&
		    fake_http_has_header(req, "Last-Event-ID"))
			return (1);	/* some stream resumed: maybe this */
		if (strcmp(fake_http_method(req), "POST") != 0)
			continue;
		body = fake_http_body(req, &len);
		if (envelope_scan(body, len, &env, &erroff) == 0 &&
		    env.id.type != ENVELOPE_ABSENT &&
		    env.id.len == strlen(id) &&
		    memcmp(body + env.id.off, id, env.id.len) == 0)
			return (1);
	}
	/* A resumption waits on its timer or its GET's headers. */
	for (i = 0; i < n; i++) {
		req = fake_http_pick('G', i);
		if (req != NULL && fake_http_has_header(req, "Last-Event-ID"))
			return (1);
	}
	return (0);
}

/* The remote hangs: what is not answered must be streaming. */
static void
fz_hung_answered(void)
{
	size_t	i;

	for (i = 0; i < fz.nreqs; i++) {
		FUZZ_CHECK(fz.reqs[i].state != REQ_AWAITING ||
		    fz_streaming(fz.reqs[i].id), "request %s got no answer "
		    "while the remote hung (no timeout)", fz.reqs[i].id);
	}
}

/*
 * The cap on what goes to the remote at once (remote/flow.h): POSTs of
 * the client's messages, mcpd-remote's own (ids "mcpd-remote-...") and
 * the one notifications/initialized of a rebuilt session aside.
 */
static void
fz_check_flow(void)
{
	struct http_req	*req;
	struct envelope	 env;
	const char	*body;
	size_t		 i, n, len, erroff, posts = 0;
	static const char own[] = "\"mcpd-remote-";

	n = fake_http_count('P');
	for (i = 0; i < n; i++) {
		req = fake_http_pick('P', i);
		if (strcmp(fake_http_method(req), "POST") != 0)
			continue;
		body = fake_http_body(req, &len);
		if (envelope_scan(body, len, &env, &erroff) == 0 &&
		    env.id.type == ENVELOPE_STRING &&
		    env.id.len >= sizeof own - 1 &&
		    memcmp(body + env.id.off, own, sizeof own - 1) == 0)
			continue;
		posts++;
	}
	FUZZ_CHECK(posts <= FLOW_REQUESTS_INFLIGHT_MAX +
	    FLOW_OTHERS_INFLIGHT_MAX + 1, "%zu POSTs open to the remote at "
	    "once (the caps are %d and %d)", posts,
	    FLOW_REQUESTS_INFLIGHT_MAX, FLOW_OTHERS_INFLIGHT_MAX);
}

static void
fz_check_memory(void)
{
	size_t	held, heap, bound;

	bound = 8 * fz.expanded + 64 * 1024;
	held = fake_http_held();
	FUZZ_CHECK(held <= bound, "the HTTP layer holds %zu bytes for %zu "
	    "bytes of input", held, fz.expanded);
	heap = fz_heap();
	bound = 64 * fz.expanded + 4096 * fz.steps + 2 * 1024 * 1024;
	FUZZ_CHECK(heap < fz.heap_base || heap - fz.heap_base <= bound,
	    "%zu bytes of heap held for %zu bytes of input in %zu steps",
	    heap - fz.heap_base, fz.expanded, fz.steps);
}

/* Run what is ready (not timers in the future). */
static void
fz_settle(void)
{
	int	n = 0;

	do {
		event_base_loop(fz.base, EVLOOP_NONBLOCK);
	} while (event_base_get_num_events(fz.base,
	    EVENT_BASE_COUNT_ACTIVE) > 0 && ++n < FUZZ_SETTLE_MAX);
}

struct fz_timer {
	struct event	*ev;
	struct timeval	 when;
};

static int
fz_timer_each(const struct event_base *base, const struct event *ev,
    void *arg)
{
	struct fz_timer	*t = arg;
	struct timeval	 tv;

	if ((event_get_events(ev) & (EV_READ | EV_WRITE | EV_SIGNAL)) != 0)
		return (0);
	if (!event_pending(ev, EV_TIMEOUT, &tv))
		return (0);
	if (t->ev == NULL || timercmp(&tv, &t->when, <)) {
		t->ev = (struct event *)ev;
		t->when = tv;
	}
	return (0);
}

/* Fire the earliest timer now; the clock jumps to its time. */
static int
fz_fire_timer(void)
{
	struct fz_timer	t;
	struct timeval	now;
	uint64_t	when_ms, now_ms;

	memset(&t, 0, sizeof t);
	event_base_foreach_event(fz.base, fz_timer_each, &t);
	if (t.ev == NULL)
		return (0);
	gettimeofday(&now, NULL);
	when_ms = (uint64_t)t.when.tv_sec * 1000 + t.when.tv_usec / 1000;
	now_ms = (uint64_t)now.tv_sec * 1000 + now.tv_usec / 1000;
	if (when_ms > now_ms)
		fake_clock_skew_ms += when_ms - now_ms;
	event_active(t.ev, EV_TIMEOUT, 1);
	fz_settle();
	return (1);
}

/* Expand "$Z" (and, in bodies, backslash escapes) into a new buffer. */
static char *
fz_expand(const char *s, size_t len, int escapes, size_t *outlen)
{
	char	*out;
	size_t	 i, n = 0, cap = len + 1;

	out = xmalloc(cap);
	for (i = 0; i < len; i++) {
		if (s[i] == '$' && i + 1 < len && s[i + 1] == 'Z' &&
		    fz.expanded + n + FUZZ_BIG_BYTES <= FUZZ_MAX_EXPANDED) {
			cap += FUZZ_BIG_BYTES;
			out = xrealloc(out, cap);
			memset(out + n, 'x', FUZZ_BIG_BYTES);
			n += FUZZ_BIG_BYTES;
			i++;
			continue;
		}
		if (escapes && s[i] == '\\' && i + 1 < len) {
			switch (s[++i]) {
			case 'n':
				out[n++] = '\n';
				break;
			case 'r':
				out[n++] = '\r';
				break;
			case 't':
				out[n++] = '\t';
				break;
			case '0':
				out[n++] = '\0';
				break;
			default:
				out[n++] = s[i];
				break;
			}
			continue;
		}
		out[n++] = s[i];
	}
	out[n] = '\0';
	fz.expanded += n;
	*outlen = n;
	return (out);
}

/* "[f][n]" after a command letter: the request it names, or NULL. */
static struct http_req *
fz_target(const char **p, const char *end)
{
	char	filter = 0;
	size_t	idx = 0;

	if (*p < end && (**p == 'G' || **p == 'P' || **p == 'D'))
		filter = *(*p)++;
	while (*p < end && **p >= '0' && **p <= '9') {
		if (idx < 100000)
			idx = idx * 10 + (**p - '0');
		(*p)++;
	}
	if (*p < end && **p == ' ')
		(*p)++;
	return (fake_http_pick(filter, idx));
}

static long
fz_status(const char **p, const char *end)
{
	long	status = 0;

	while (*p < end && **p >= '0' && **p <= '9') {
		if (status < 10000)
			status = status * 10 + (**p - '0');
		(*p)++;
	}
	if (*p < end && **p == ' ')
		(*p)++;
	return (status);
}

static void
fz_event(const char *line, size_t len)
{
	const char	*p = line + 1, *end = line + len, *caret;
	struct http_req	*req;
	char		*buf;
	size_t		 n;
	long		 status;
	uint64_t	 seq;
	enum http_end	 how;

	switch (line[0]) {
	case '>':
		if (!fake_rio_reading)
			break;
		buf = fz_expand(p, end - p, 0, &n);
		fz_client_line(buf, n);
		if (n > 0)
			session_from_client(fz_r.session, buf, n);
		free(buf);
		break;
	case 'H':
		if ((req = fz_target(&p, end)) == NULL)
			break;
		status = fz_status(&p, end);
		fake_http_respond_head(req, status, p, end - p);
		break;
	case 'B':
		if ((req = fz_target(&p, end)) == NULL)
			break;
		buf = fz_expand(p, end - p, 1, &n);
		fake_http_respond_body(req, buf, n);
		free(buf);
		break;
	case 'E':
		if ((req = fz_target(&p, end)) == NULL)
			break;
		how = HTTP_DONE;
		if (p < end && *p == 'C')
			how = HTTP_CONNECT;
		else if (p < end && *p == 'T')
			how = HTTP_TIMEOUT;
		else if (p < end && *p == 'B')
			how = HTTP_BROKEN;
		fake_http_end(req, how);
		break;
	case 'R':
		if ((req = fz_target(&p, end)) == NULL)
			break;
		seq = fake_http_seq(req);
		status = fz_status(&p, end);
		if ((caret = memchr(p, '^', end - p)) == NULL)
			caret = end;
		fake_http_respond_head(req, status, p, caret - p);
		if (caret < end && (req = fake_http_find(seq)) != NULL) {
			buf = fz_expand(caret + 1, end - caret - 1, 1, &n);
			fake_http_respond_body(req, buf, n);
			free(buf);
		}
		if ((req = fake_http_find(seq)) != NULL)
			fake_http_end(req, HTTP_DONE);
		break;
	case 'T':
		fz_fire_timer();
		break;
	case 'P':
		fake_rio_congested = 1;
		break;
	case 'U':
		fake_rio_congested = 0;
		http_unpause(fz_r.http);
		break;
	case 'F':
		fake_oauth_fail = !fake_oauth_fail;
		break;
	case 'K':
		fake_oauth_slow = !fake_oauth_slow;
		if (!fake_oauth_slow && fz_r.oauth != NULL)
			fake_oauth_kick(fz_r.oauth);
		break;
	case 'X':
		if (!fake_rio_reading)
			break;
		fz.shutdown = 1;
		rio_stop_reading();
		session_shutdown(fz_r.session);
		break;
	default:
		break;
	}
}

/*
 * The input is over: the remote hangs, then goes away; then stdin ends.
 * Returns 0 when nothing is left to happen.
 */
static int
fz_wind_down(int hang)
{
	struct http_req	*req;
	size_t		 i;

	for (i = 0; i < FUZZ_QUIESCE_MAX && !fake_rio_exited; i++) {
		fz_settle();
		if (fake_rio_congested) {
			fake_rio_congested = 0;
			http_unpause(fz_r.http);
			continue;
		}
		if (fz_fire_timer())
			continue;
		if (!hang && fake_oauth_slow && fz_r.oauth != NULL) {
			fake_oauth_slow = 0;
			fake_oauth_kick(fz_r.oauth);
			continue;
		}
		if (hang || (req = fake_http_pick(0, 0)) == NULL)
			return (0);
		/* A DELETE succeeds; a GET finds no stream (else it retries). */
		if (strcmp(fake_http_method(req), "DELETE") == 0)
			fake_http_respond_head(req, 200, "", 0);
		else if (strcmp(fake_http_method(req), "GET") == 0 &&
		    !fake_http_has_head(req))
			fake_http_respond_head(req, 405, "", 0);
		if ((req = fake_http_pick(0, 0)) != NULL)
			fake_http_end(req, fake_http_has_head(req) ?
			    HTTP_BROKEN : HTTP_TIMEOUT);
	}
	return (fake_rio_exited ? 0 : -1);
}

static void
fz_setup(const char *cfg, size_t len)
{
	fz.base = event_base_new();
	if (fz.base == NULL)
		abort();
	rconf_defaults(&fz_rc);
	fz_rc.url = xstrdup(FUZZ_URL);
	rconf_add_header(&fz_rc, "X-Api-Key: " FAKE_SECRET);
	fz_rc.transport = RCONF_AUTO;
	if (len > 0 && cfg[0] == 'h')
		fz_rc.transport = RCONF_HTTP;
	else if (len > 0 && cfg[0] == 's')
		fz_rc.transport = RCONF_SSE;
	if (len > 1 && cfg[1] == '1')
		fz_rc.max_message_bytes = 1024;
	else if (len > 1 && cfg[1] == '2')
		fz_rc.max_message_bytes = 8192;
	else if (len > 1 && cfg[1] == '3')
		fz_rc.max_message_bytes = 100000;
	if (len > 3 && cfg[3] == 't')
		fz_rc.request_timeout_ms = 500;
	fake_http_origin(fz_rc.url);
	fake_rio_reset();
	fake_rio_out = fz_out;
	fake_oauth_fail = 0;
	fake_oauth_slow = 0;
	fake_clock_skew_ms = 0;
	fake_time_init();
	fake_status_open(fz.base);
	memset(&fz_r, 0, sizeof fz_r);
	fz_r.base = fz.base;
	fz_r.conf = &fz_rc;
	fz_r.http = http_new(fz.base, NULL, NULL);
	if (len > 2 && cfg[2] == 'o')
		fz_r.oauth = fake_oauth_new(fz.base);
	fz_r.session = session_new(&fz_r, &session_rt_events);
}

static void
fz_teardown(void)
{
	size_t	i;

	session_free(fz_r.session);
	fake_status_close();
	FUZZ_CHECK(fake_http_count(0) == 0, "%zu HTTP requests outlive the "
	    "session", fake_http_count(0));
	if (fz_r.oauth != NULL)
		fake_oauth_free(fz_r.oauth);
	http_free(fz_r.http);
	event_base_free(fz.base);
	rconf_clear(&fz_rc);
	fake_http_origin(NULL);
	for (i = 0; i < fz.nreqs; i++)
		free(fz.reqs[i].id);
	free(fz.reqs);
	memset(&fz, 0, sizeof fz);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*p = (const char *)data, *end = p + size, *nl;
	size_t		 lines = 0;

	memset(&fz, 0, sizeof fz);
	if ((nl = memchr(p, '\n', size)) == NULL)
		nl = end;
	fz.heap_base = fz_heap();
	fake_secret_check = memmem(data, size, FAKE_SECRET,
	    strlen(FAKE_SECRET)) == NULL && memmem(data, size, FAKE_TOKEN,
	    strlen(FAKE_TOKEN)) == NULL;
	fz_setup(p, nl - p);
	fz.expanded = size;
	p = nl < end ? nl + 1 : end;
	while (p < end && lines++ < FUZZ_MAX_LINES && !fake_rio_exited) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl > p)
			fz_event(p, nl - p);
		fz_settle();
		fz.steps++;
		fz_check_memory();
		fz_check_flow();
		fake_status_check();
		p = nl + 1;
	}
	/* The remote hangs: only timers move things now. */
	if (!fake_rio_exited && fz_wind_down(1) == 0 && !fake_rio_exited &&
	    !fz.shutdown)
		fz_hung_answered();
	fz_check_memory();
	/* The remote goes away. */
	if (!fake_rio_exited) {
		FUZZ_CHECK(fz_wind_down(0) == 0, "no end in sight after the "
		    "remote went away");
		if (!fz.shutdown)
			fz_all_answered("after the remote went away");
	} else if (!fz.shutdown)
		fz_all_answered("before the program exited");
	/* stdin ends. */
	if (!fake_rio_exited) {
		fz.shutdown = 1;
		rio_stop_reading();
		session_shutdown(fz_r.session);
		FUZZ_CHECK(fz_wind_down(0) == 0 && fake_rio_exited, "the "
		    "program did not exit after stdin ended");
	}
	/* 0 when stdin closed; giving up on its own is a failure. */
	FUZZ_CHECK(fz.shutdown ? rio_exit_code == 0 : rio_exit_code != 0,
	    "exit status %d %s stdin ended", rio_exit_code, fz.shutdown ?
	    "after" : "before");
	fz_teardown();
	return (0);
}
