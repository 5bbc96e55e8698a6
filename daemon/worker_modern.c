/*
 * worker_modern.c -- a server that speaks MCP 2026-07-28, as the router's
 * 2025 session.
 *
 * The router and its clients see the session they always see; the worker
 * speaks 2026-07-28 on the server's pipes:
 * - The handshake is server/discover (instead of initialize, or after the
 *   server refused initialize for want of 2026-07-28, in the same
 *   process): its result becomes the session's initialize result, with
 *   protocolVersion 2026-07-28 (which also tells a re-exec's new mcpd).
 * - Every request to the server carries the 2026 _meta: the protocol
 *   version, mcpd as the client, the capabilities of the client that made
 *   it (router_caller_caps; mcpd's own for mcpd's requests), and the log
 *   level a 2025 client set (logging/setLevel, which 2026 has not, is
 *   kept and answered by mcpd).  ping (the health check, or a client's)
 *   becomes server/discover, answered as ping is, empty.
 *   notifications/initialized is not sent.
 * - What comes back: resource not found (-32602 in 2026) is -32002 for a
 *   resources/read.  A result that asks for input (input_required) is
 *   put to the client that made the request and the request retried
 *   (worker_modern_input.c); one for a request mcpd does not retry, or a
 *   task, which a 2025 session cannot carry yet, becomes an error that
 *   says so.
 * - 2026 sends list changes and resource updates only on
 *   subscriptions/listen streams: the worker keeps one open, with the
 *   kinds the server announces and the union of the URIs the router
 *   subscribed (resources/subscribe and unsubscribe, answered by mcpd
 *   once the server acknowledged the stream that holds the change,
 *   change it), re-issued when that changes and after every start; what
 *   comes on it goes to the router as the 2025 notification it is.
 * - A list or read whose result the server made public for a while
 *   (cacheScope "public", ttlMs) is answered by mcpd until then
 *   (worker_modern_cache.c).
 * - 2025's tasks are run by mcpd with plain calls (worker_modern_tasks.c).
 * Answers of mcpd's own go to the router from a zero timer, never inside
 * the write that asked.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "envelope.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "mlevel.h"
#include "modern.h"
#include "modern_up.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"


#define WORKER_MODERN_MAX_URIS	4096	/* subscriptions on the stream */
/*
 * Ids kept until their answer (reads, pings, listens): a server that
 * never answers cannot make them grow past this; past it, an answer is
 * passed as it comes (a read's -32602 unchanged, a stream's end to the
 * router, which drops what it does not know).
 */
#define WORKER_MODERN_MAX_IDS	4096

/* A line for the router, delivered from the zero timer. */
struct worker_modern_reply {
	char			*line;
	size_t			 len;
	TAILQ_ENTRY(worker_modern_reply) entry;
};

struct worker_modern {
	char			*meta;		/* the _meta members, text */
	char			*head;		/* those before the capabilities */
	char			*caps;		/* mcpd's capabilities, text */
	struct worker_inputs	*inputs;	/* worker_modern_input.c */
	char			 level[16];	/* a 2025 client's, or "" */
	struct hmap		*reads;		/* resources/read ids */
	struct hmap		*pings;		/* ping ids, sent as discover */
	/*
	 * The one subscriptions/listen stream: what the server announces
	 * (MODERN_LISTEN_*) and the URIs the router subscribed, re-issued
	 * (the old one cancelled) when they change, from the zero timer.
	 */
	unsigned int		 kinds;
	char			**uris;
	size_t			 nuris;
	int64_t			 listen_id;	/* 0: none open */
	struct hmap		*listens;	/* every id it had, till answered */
	int			 listen_dirty;
	TAILQ_HEAD(, worker_modern_reply) replies;
	/*
	 * Answers to resources/(un)subscribe, held until the server
	 * acknowledged the stream opened after them (or none is open):
	 * a client told "subscribed" gets the updates that follow.
	 */
	TAILQ_HEAD(, worker_modern_reply) held;
	size_t			 nheld;		/* a server that never acks */
	struct event		*ev_replies;
	struct wmcache		*cache;		/* worker_modern_cache.c */
	struct wtasks		*tasks;		/* worker_modern_tasks.c */
};

static void	worker_modern_listen(struct worker *);
static void	worker_modern_release(struct worker *);
static void	worker_modern_queue(void *, char *, size_t);
static void	worker_modern_answer(void *, const char *, size_t,
		    const char *);
static int	worker_modern_forward(void *, const char *, size_t);
static void	worker_modern_cancel_up(void *, int64_t, const char *);
static int64_t	worker_modern_next_id(void *);

/* What worker_modern_tasks.c asks of it. */
static const struct wtasks_io worker_modern_tasks_io = {
	.answer = worker_modern_answer,
	.queue = worker_modern_queue,
	.forward = worker_modern_forward,
	.cancel_up = worker_modern_cancel_up,
	.next_id = worker_modern_next_id,
};

static void
worker_modern_replies_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker			*w = arg;
	struct worker_modern_reply	*r;

	(void)fd;
	(void)events;
	while (w->modern != NULL &&
	    (r = TAILQ_FIRST(&w->modern->replies)) != NULL) {
		TAILQ_REMOVE(&w->modern->replies, r, entry);
		if (w->router != NULL)
			router_server_line(w->router, r->line, r->len, NULL);
		free(r->line);
		free(r);
	}
	if (w->modern != NULL && w->modern->listen_dirty)
		worker_modern_listen(w);
}

static struct worker_modern *
worker_modern_get(struct worker *w)
{
	struct worker_modern	*m;
	cJSON			*caps;

	if (w->modern != NULL)
		return (w->modern);
	m = xcalloc(1, sizeof *m);
	caps = router_client_capabilities(w->router);
	m->caps = rpc_print(caps);
	cJSON_Delete(caps);
	xasprintf(&m->head, "\"" MODERN_KEY_VERSION "\":\"" MODERN_VERSION
	    "\",\"" MODERN_KEY_INFO "\":{\"name\":\"%s\",\"version\":\"%s\"}",
	    PACKAGE_NAME, PACKAGE_VERSION);
	xasprintf(&m->meta, "%s,\"" MODERN_KEY_CAPS "\":%s", m->head, m->caps);
	m->reads = hmap_new(hmap_random_seed());
	m->pings = hmap_new(hmap_random_seed());
	m->listens = hmap_new(hmap_random_seed());
	m->cache = wmcache_new();
	m->tasks = wtasks_new(&worker_modern_tasks_io, w);
	TAILQ_INIT(&m->replies);
	TAILQ_INIT(&m->held);
	m->ev_replies = evtimer_new(w->mcpd->base, worker_modern_replies_cb,
	    w);
	if (m->ev_replies == NULL)
		fatalx("evtimer_new");
	w->modern = m;
	return (m);
}

void
worker_modern_adopt(struct worker *w, char *const *subs, size_t nsubs)
{
	struct worker_modern	*m;
	const cJSON		*v;
	size_t			 i;

	v = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "protocolVersion");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, MODERN_VERSION) != 0)
		return;
	m = worker_modern_get(w);
	w->modern_up = 1;
	/* What clients held across the re-exec: on the new stream. */
	for (i = 0; i < nsubs && m->nuris < WORKER_MODERN_MAX_URIS; i++) {
		m->uris = xreallocarray(m->uris, m->nuris + 1,
		    sizeof *m->uris);
		m->uris[m->nuris++] = xstrdup(subs[i]);
	}
	worker_modern_kinds(w, cJSON_GetObjectItemCaseSensitive(
	    w->init_result, "capabilities"));
}

void
worker_modern_end(struct worker *w)
{
	struct worker_modern		*m = w->modern;
	struct worker_modern_reply	*r;

	if (m == NULL)
		return;
	TAILQ_CONCAT(&m->replies, &m->held, entry);
	while ((r = TAILQ_FIRST(&m->replies)) != NULL) {
		TAILQ_REMOVE(&m->replies, r, entry);
		free(r->line);
		free(r);
	}
	event_free(m->ev_replies);
	worker_input_free(m->inputs);
	hmap_free(m->reads);
	hmap_free(m->pings);
	hmap_free(m->listens);
	wmcache_free(m->cache);
	wtasks_free(m->tasks);
	while (m->nuris > 0)
		free(m->uris[--m->nuris]);
	free(m->uris);
	free(m->meta);
	free(m->head);
	free(m->caps);
	free(m);
	w->modern = NULL;
	w->modern_up = 0;
	w->modern_handshake = 0;
}

static void
worker_modern_queue(void *arg, char *line, size_t len)
{
	struct worker			*w = arg;
	struct worker_modern_reply	*r;
	struct timeval			 tv = { 0, 0 };

	r = xcalloc(1, sizeof *r);
	r->line = line;
	r->len = len;
	TAILQ_INSERT_TAIL(&w->modern->replies, r, entry);
	evtimer_add(w->modern->ev_replies, &tv);
}

/* An answer of mcpd's to the router's request id, from the timer. */
static void
worker_modern_reply(struct worker *w, const char *id, size_t id_len,
    const char *member)
{
	char	*line;
	int	 n;

	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,%s}",
	    (int)id_len, id, member);
	worker_modern_queue(w, line, (size_t)n);
}

/* A subscription's answer, held until the stream holds it. */
static void
worker_modern_hold(struct worker *w, const char *id, size_t id_len)
{
	struct worker_modern_reply	*r;

	r = xcalloc(1, sizeof *r);
	r->len = (size_t)xasprintf(&r->line, "{\"jsonrpc\":\"2.0\",\"id\":"
	    "%.*s,\"result\":{}}", (int)id_len, id);
	TAILQ_INSERT_TAIL(&w->modern->held, r, entry);
	if (++w->modern->nheld >= WORKER_MODERN_MAX_IDS)
		worker_modern_release(w);
}

/* The stream holds what the held answers asked for, or none will. */
static void
worker_modern_release(struct worker *w)
{
	struct worker_modern	*m = w->modern;
	struct timeval		 tv = { 0, 0 };

	if (TAILQ_EMPTY(&m->held))
		return;
	TAILQ_CONCAT(&m->replies, &m->held, entry);
	m->nheld = 0;
	evtimer_add(m->ev_replies, &tv);
}

static void
worker_modern_answer(void *w, const char *id, size_t id_len,
    const char *member)
{
	worker_modern_reply(w, id, id_len, member);
}

static int64_t
worker_modern_next_id(void *arg)
{
	struct worker	*w = arg;

	return (w->next_upstream_id++);
}

static void
worker_modern_cancel_up(void *arg, int64_t up_id, const char *reason)
{
	struct worker	*w = arg;
	struct iovec	 iov;
	char		*line;
	int		 n;

	if (w->tp == NULL)
		return;
	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":%lld,"
	    "\"reason\":\"%s\"}}", (long long)up_id, reason);
	iov.iov_base = line;
	iov.iov_len = (size_t)n;
	(void)transport_write(w->tp, &iov, 1);
	free(line);
}

/* A kept result, as the answer to the router's request id. */
static void
worker_modern_cached(struct worker *w, const char *id, size_t id_len,
    const char *result, size_t result_len)
{
	char	*member;

	xasprintf(&member, "\"result\":%.*s", (int)result_len, result);
	worker_modern_reply(w, id, id_len, member);
	free(member);
}

/*
 * The handshake.
 */

void
worker_modern_discover(struct worker *w)
{
	struct worker_modern	*m = worker_modern_get(w);
	struct iovec		 iov;
	char			*line;
	int			 n;

	w->modern_handshake = 1;
	w->init_id = w->next_upstream_id++;
	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":"
	    "\"server/discover\",\"params\":{\"_meta\":{%s}}}",
	    (long long)w->init_id, m->meta);
	iov.iov_base = line;
	iov.iov_len = (size_t)n;
	(void)transport_write(w->tp, &iov, 1);
	free(line);
}

/*
 * The listen stream.
 */

/* Re-issue it from the zero timer, once for any number of changes. */
static void
worker_modern_listen_soon(struct worker *w)
{
	struct timeval	 tv = { 0, 0 };

	w->modern->listen_dirty = 1;
	evtimer_add(w->modern->ev_replies, &tv);
}

void
worker_modern_kinds(struct worker *w, const cJSON *caps)
{
	static const struct {
		const char	*cap, *member;
		unsigned int	 kind;
	} kinds[] = {
		{ "tools", "listChanged", MODERN_LISTEN_TOOLS },
		{ "prompts", "listChanged", MODERN_LISTEN_PROMPTS },
		{ "resources", "listChanged", MODERN_LISTEN_RESOURCES },
	};
	struct worker_modern	*m = worker_modern_get(w);
	size_t			 i;

	m->kinds = 0;
	for (i = 0; i < nitems(kinds); i++) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(caps, kinds[i].cap),
		    kinds[i].member)))
			m->kinds |= kinds[i].kind;
	}
	worker_modern_listen_soon(w);
}

static void
worker_modern_listen(struct worker *w)
{
	struct worker_modern	*m = w->modern;
	struct iovec		 iov;
	cJSON			*n, *a;
	char			*filter, *line, idtext[ENVELOPE_INT64_BYTES];
	size_t			 i;
	int			 len;

	m->listen_dirty = 0;
	if (w->tp == NULL || !w->modern_up) {
		worker_modern_release(w);
		return;
	}
	if (m->listen_id != 0) {
		len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":"
		    "%lld,\"reason\":\"mcpd opens another with what its "
		    "clients want now\"}}", (long long)m->listen_id);
		iov.iov_base = line;
		iov.iov_len = (size_t)len;
		(void)transport_write(w->tp, &iov, 1);
		free(line);
		m->listen_id = 0;
	}
	if (m->kinds == 0 && m->nuris == 0) {
		worker_modern_release(w);
		return;
	}
	n = cJSON_CreateObject();
	if (m->kinds & MODERN_LISTEN_TOOLS)
		cJSON_AddTrueToObject(n, "toolsListChanged");
	if (m->kinds & MODERN_LISTEN_PROMPTS)
		cJSON_AddTrueToObject(n, "promptsListChanged");
	if (m->kinds & MODERN_LISTEN_RESOURCES)
		cJSON_AddTrueToObject(n, "resourcesListChanged");
	if (m->nuris > 0) {
		a = cJSON_AddArrayToObject(n, "resourceSubscriptions");
		for (i = 0; i < m->nuris; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(m->uris[i]));
	}
	filter = rpc_print(n);
	cJSON_Delete(n);
	m->listen_id = w->next_upstream_id++;
	len = (int)envelope_print_int64(m->listen_id, idtext);
	if (hmap_count(m->listens) < WORKER_MODERN_MAX_IDS)
		(void)hmap_put(m->listens, idtext, (size_t)len, (void *)1);
	len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"subscriptions/listen\",\"params\":{\"notifications\":%s,"
	    "\"_meta\":{%s}}}", idtext, filter, m->meta);
	free(filter);
	iov.iov_base = line;
	iov.iov_len = (size_t)len;
	(void)transport_write(w->tp, &iov, 1);
	free(line);
}

/* The router's resources/(un)subscribe: the stream's URIs. */
static void
worker_modern_subscribe(struct worker *w, const char *line,
    const struct envelope *env, int on)
{
	struct worker_modern	*m = w->modern;
	char			*uri;
	size_t			 i;

	uri = envelope_string_dup(line, &env->p_uri, MODERN_LISTEN_URI_MAX,
	    NULL);
	if (uri == NULL) {
		worker_modern_reply(w, line + env->id.off, env->id.len,
		    "\"error\":{\"code\":-32602,\"message\":\"invalid "
		    "params: uri must be a string of at most 4095 bytes\"}");
		return;
	}
	for (i = 0; i < m->nuris && strcmp(m->uris[i], uri) != 0; i++)
		;
	if (on && i == m->nuris) {
		if (m->nuris >= WORKER_MODERN_MAX_URIS) {
			free(uri);
			worker_modern_reply(w, line + env->id.off, env->id.len,
			    "\"error\":{\"code\":-32603,\"message\":\"mcpd "
			    "holds as many subscriptions to this server as "
			    "it takes\"}");
			return;
		}
		m->uris = xreallocarray(m->uris, m->nuris + 1,
		    sizeof *m->uris);
		m->uris[m->nuris++] = uri;
		uri = NULL;
	} else if (!on && i < m->nuris) {
		free(m->uris[i]);
		m->uris[i] = m->uris[--m->nuris];
	}
	free(uri);
	worker_modern_hold(w, line + env->id.off, env->id.len);
	worker_modern_listen_soon(w);
}

/*
 * To the server.
 */

/*
 * The _meta members with caps (the caller's, or NULL: mcpd's), and a
 * 2025 client's level, as the text to insert.
 */
static char *
worker_modern_meta_text(struct worker_modern *m, const char *caps)
{
	char	*t;

	xasprintf(&t, "%s,\"" MODERN_KEY_CAPS "\":%s%s%s%s", m->head,
	    caps != NULL ? caps : m->caps, m->level[0] != '\0' ?
	    ",\"" MODERN_KEY_LEVEL "\":\"" : "", m->level,
	    m->level[0] != '\0' ? "\"" : "");
	return (t);
}

/* Is the object at text[off, off + len) empty ({} with blanks)? */
static int
worker_modern_empty(const char *text, size_t off, size_t len)
{
	size_t	 i;

	for (i = off + 1; i + 1 < off + len; i++) {
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' &&
		    text[i] != '\r')
			return (0);
	}
	return (1);
}

static int
worker_modern_send(struct worker *w, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 n;

	if (edit == NULL) {
		iov[0].iov_base = (void *)line;
		iov[0].iov_len = len;
		return (transport_write(w->tp, iov, 1));
	}
	if ((n = envelope_splice(line, len, edit, 1, iov, nitems(iov))) == 0)
		return (-1);
	return (transport_write(w->tp, iov, (int)n));
}

/* A request: with the 2026 _meta, the capabilities caller's (its id). */
static int
worker_modern_request(struct worker *w, const char *line, size_t len,
    const struct envelope *env, int64_t caller)
{
	struct worker_modern	*m = w->modern;
	struct envelope_edit	 edit;
	char			*meta, *text;
	int			 rc;

	meta = worker_modern_meta_text(m, w->router != NULL ?
	    router_caller_caps(w->router, caller) : NULL);
	if (env->meta.type == ENVELOPE_OBJECT) {
		edit.off = env->meta.off + 1;
		xasprintf(&text, "%s%s", meta, worker_modern_empty(line,
		    env->meta.off, env->meta.len) ? "" : ",");
	} else if (env->params.type == ENVELOPE_OBJECT) {
		edit.off = env->params.off + 1;
		xasprintf(&text, "\"_meta\":{%s}%s", meta,
		    worker_modern_empty(line, env->params.off,
		    env->params.len) ? "" : ",");
	} else if (env->params.type == ENVELOPE_ABSENT) {
		/* Before the message's closing brace. */
		edit.off = len;
		while (edit.off > 0 && line[edit.off - 1] != '}')
			edit.off--;
		if (edit.off == 0) {
			free(meta);
			return (worker_modern_send(w, line, len, NULL));
		}
		edit.off--;
		xasprintf(&text, ",\"params\":{\"_meta\":{%s}}", meta);
	} else {
		free(meta);
		return (worker_modern_send(w, line, len, NULL));
	}
	free(meta);
	edit.len = 0;
	edit.text = text;
	edit.text_len = strlen(text);
	rc = worker_modern_send(w, line, len, &edit);
	free(text);
	return (rc);
}

static int
worker_modern_forward(void *arg, const char *line, size_t len)
{
	struct worker	*w = arg;
	struct envelope	 env;
	size_t		 erroff;

	if (w->tp == NULL)
		return (-1);
	if (envelope_scan(line, len, &env, &erroff) != 0)
		return (worker_modern_send(w, line, len, NULL));
	/* A task's call: mcpd's own, with mcpd's capabilities. */
	return (worker_modern_request(w, line, len, &env, 0));
}

int
worker_modern_retry(struct worker *w, const char *line, size_t len,
    int64_t caller)
{
	struct envelope	 env;
	size_t		 erroff;

	if (envelope_scan(line, len, &env, &erroff) != 0)
		return (-1);
	return (worker_modern_request(w, line, len, &env, caller));
}

int
worker_modern_write(struct worker *w, const char *line, size_t len)
{
	struct worker_modern	*m = w->modern;
	struct envelope		 env;
	const char		*id;
	char			*text;
	size_t			 erroff, tl;
	int64_t			 caller;
	int			 rc;

	if (envelope_scan(line, len, &env, &erroff) != 0)
		return (worker_modern_send(w, line, len, NULL));
	/* Answers to the input a request needs; the caller's cancel. */
	if (worker_input_router(w, m->inputs, line, len, &env))
		return (0);
	if (env.method.type == ENVELOPE_ABSENT)
		return (worker_modern_send(w, line, len, NULL));
	id = line + env.id.off;
	if (env.id.type == ENVELOPE_ABSENT) {
		/* Notifications 2026 has not. */
		if (envelope_string_eq(line, &env.method,
		    "notifications/initialized") ||
		    envelope_string_eq(line, &env.method,
		    "notifications/roots/list_changed"))
			return (0);
		return (worker_modern_send(w, line, len, NULL));
	}
	if (envelope_string_eq(line, &env.method, "ping")) {
		/* Its answer is ping's, empty: see worker_modern_line. */
		if (env.id.len <= 64 &&
		    hmap_count(m->pings) < WORKER_MODERN_MAX_IDS)
			(void)hmap_put(m->pings, id, env.id.len, (void *)1);
		xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"method\":"
		    "\"server/discover\",\"params\":{\"_meta\":{%s}}}",
		    (int)env.id.len, id, m->meta);
		rc = worker_modern_send(w, text, strlen(text), NULL);
		free(text);
		return (rc);
	}
	if (envelope_string_eq(line, &env.method, "logging/setLevel")) {
		/* A level's name only: it goes into every request's text. */
		if (envelope_string_copy(line, &env.p_level, m->level,
		    sizeof m->level) < 0 || mlevel_index(m->level) < 0)
			m->level[0] = '\0';
		worker_modern_reply(w, id, env.id.len, "\"result\":{}");
		return (0);
	}
	if (envelope_string_eq(line, &env.method, "resources/subscribe") ||
	    envelope_string_eq(line, &env.method, "resources/unsubscribe")) {
		worker_modern_subscribe(w, line, &env, envelope_string_eq(line,
		    &env.method, "resources/subscribe"));
		return (0);
	}
	if (wtasks_request(m->tasks, line, len, &env))
		return (0);
	if ((text = wmcache_request(m->cache, line, &env, &tl)) != NULL) {
		worker_modern_cached(w, id, env.id.len, text, tl);
		free(text);
		return (0);
	}
	if (envelope_string_eq(line, &env.method, "resources/read") &&
	    env.id.len <= 64 && hmap_count(m->reads) < WORKER_MODERN_MAX_IDS)
		(void)hmap_put(m->reads, id, env.id.len, (void *)1);
	worker_input_keep(w, &m->inputs, line, len, &env);
	if (envelope_int64(line, &env.id, &caller) != 0)
		caller = 0;
	return (worker_modern_request(w, line, len, &env, caller));
}

/*
 * From the server.
 */

/*
 * A notification on a listen stream: the current one's list changes and
 * updates go to the router (which knows their kinds), its acknowledgment
 * and the old streams' nothing.  1 once taken.
 */
static int
worker_modern_stream_note(struct worker *w, const char *line,
    const struct envelope *env)
{
	static const char	 key[] = "\"" MODERN_KEY_SUB "\"";
	cJSON			*meta;
	const cJSON		*sub;
	int			 current;

	if (env->meta.type != ENVELOPE_OBJECT || memmem(line + env->meta.off,
	    env->meta.len, key, sizeof key - 1) == NULL)
		return (0);
	meta = cJSON_ParseWithLength(line + env->meta.off, env->meta.len);
	sub = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_SUB);
	current = cJSON_IsNumber(sub) && w->modern->listen_id != 0 &&
	    sub->valuedouble == (double)w->modern->listen_id;
	cJSON_Delete(meta);
	if (!current)
		return (1);
	if (envelope_string_eq(line, &env->method,
	    "notifications/subscriptions/acknowledged")) {
		worker_modern_release(w);
		return (1);
	}
	return (0);
}

void
worker_modern_line(struct worker *w, const char *line, size_t len,
    const struct envelope_span *plain)
{
	struct worker_modern	*m = w->modern;
	struct envelope		 env;
	struct envelope_edit	 edit;
	char			 code[ENVELOPE_INT64_BYTES], *text;
	size_t			 erroff, tl;
	int64_t			 c;

	if (envelope_scan(line, len, &env, &erroff) != 0) {
		router_server_line(w->router, line, len, plain);
		return;
	}
	if (env.method.type != ENVELOPE_ABSENT) {
		if (env.id.type == ENVELOPE_ABSENT &&
		    worker_modern_stream_note(w, line, &env))
			return;
		if (env.id.type == ENVELOPE_ABSENT)
			wmcache_note(m->cache, line, &env);
		router_server_line(w->router, line, len, plain);
		return;
	}
	if (env.id.type == ENVELOPE_ABSENT) {
		router_server_line(w->router, line, len, plain);
		return;
	}
	/* The end of a listen stream of mcpd's own. */
	if (hmap_del(m->listens, line + env.id.off, env.id.len) != NULL) {
		if (envelope_int64(line, &env.id, &c) == 0 &&
		    c == m->listen_id) {
			m->listen_id = 0;
			worker_modern_release(w);
		}
		return;
	}
	if (hmap_del(m->pings, line + env.id.off, env.id.len) != NULL &&
	    env.result.type != ENVELOPE_ABSENT) {
		xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,"
		    "\"result\":{}}", (int)env.id.len, line + env.id.off);
		router_server_line(w->router, text, strlen(text), NULL);
		free(text);
		return;
	}
	if (wtasks_response(m->tasks, line, &env))
		return;
	/* A request that may need input: its round, or its end under U. */
	switch (worker_input_answer(w, m->inputs, line, len, &env, &text,
	    &tl)) {
	case 1:
		return;
	case 2:
		worker_modern_line(w, text, tl, NULL);
		free(text);
		return;
	}
	wmcache_response(m->cache, line, &env);
	if (env.result.type == ENVELOPE_OBJECT &&
	    (text = modern_up_unfit(line, &env)) != NULL) {
		(void)hmap_del(m->reads, line + env.id.off, env.id.len);
		router_server_line(w->router, text, strlen(text), NULL);
		free(text);
		return;
	}
	if (hmap_del(m->reads, line + env.id.off, env.id.len) == NULL ||
	    env.error.type != ENVELOPE_OBJECT ||
	    envelope_int64(line, &env.e_code, &c) != 0 ||
	    c != RPC_INVALID_PARAMS) {
		router_server_line(w->router, line, len, plain);
		return;
	}
	/* A resource not found, as 2025 numbers it. */
	edit.off = env.e_code.off;
	edit.len = env.e_code.len;
	edit.text_len = envelope_print_int64(MODERN_NOT_FOUND_OLD, code);
	edit.text = code;
	if ((text = envelope_splice_dup(line, len, &edit, 1, &tl)) == NULL)
		return;
	router_server_line(w->router, text, tl, NULL);
	free(text);
}
