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
 *   version, mcpd as the client, the capabilities mcpd declares to
 *   servers, and the log level a 2025 client set (logging/setLevel, which
 *   2026 has not, is kept and answered by mcpd).  ping (the health check,
 *   or a client's) becomes server/discover, answered as ping is, empty.
 *   notifications/initialized is not sent.
 * - What comes back: resource not found (-32602 in 2026) is -32002 for a
 *   resources/read.  A result that asks for input (input_required) or is
 *   a task, which a 2025 session cannot carry yet, becomes an error that
 *   says so; resources/subscribe, which 2026 replaced with
 *   subscriptions/listen, is refused with -32601, and the capabilities
 *   promise no list changes nor subscriptions.
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


/* A line for the router, delivered from the zero timer. */
struct worker_modern_reply {
	char			*line;
	size_t			 len;
	TAILQ_ENTRY(worker_modern_reply) entry;
};

struct worker_modern {
	char			*meta;		/* the _meta members, text */
	char			 level[16];	/* a 2025 client's, or "" */
	struct hmap		*reads;		/* resources/read ids */
	struct hmap		*pings;		/* ping ids, sent as discover */
	TAILQ_HEAD(, worker_modern_reply) replies;
	struct event		*ev_replies;
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
}

static struct worker_modern *
worker_modern_get(struct worker *w)
{
	struct worker_modern	*m;
	cJSON			*caps;
	char			*text;

	if (w->modern != NULL)
		return (w->modern);
	m = xcalloc(1, sizeof *m);
	caps = router_client_capabilities(w->router);
	text = rpc_print(caps);
	cJSON_Delete(caps);
	xasprintf(&m->meta, "\"" MODERN_KEY_VERSION "\":\"" MODERN_VERSION
	    "\",\"" MODERN_KEY_INFO "\":{\"name\":\"%s\",\"version\":\"%s\"},"
	    "\"" MODERN_KEY_CAPS "\":%s", PACKAGE_NAME, PACKAGE_VERSION, text);
	free(text);
	m->reads = hmap_new(hmap_random_seed());
	m->pings = hmap_new(hmap_random_seed());
	TAILQ_INIT(&m->replies);
	m->ev_replies = evtimer_new(w->mcpd->base, worker_modern_replies_cb,
	    w);
	if (m->ev_replies == NULL)
		fatalx("evtimer_new");
	w->modern = m;
	return (m);
}

void
worker_modern_adopt(struct worker *w)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "protocolVersion");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, MODERN_VERSION) != 0)
		return;
	(void)worker_modern_get(w);
	w->modern_up = 1;
}

void
worker_modern_end(struct worker *w)
{
	struct worker_modern		*m = w->modern;
	struct worker_modern_reply	*r;

	if (m == NULL)
		return;
	while ((r = TAILQ_FIRST(&m->replies)) != NULL) {
		TAILQ_REMOVE(&m->replies, r, entry);
		free(r->line);
		free(r);
	}
	event_free(m->ev_replies);
	hmap_free(m->reads);
	hmap_free(m->pings);
	free(m->meta);
	free(m);
	w->modern = NULL;
	w->modern_up = 0;
	w->modern_handshake = 0;
}

/* An answer of mcpd's to the router's request id, from the timer. */
static void
worker_modern_reply(struct worker *w, const char *id, size_t id_len,
    const char *member)
{
	struct worker_modern_reply	*r;
	struct timeval			 tv = { 0, 0 };
	int				 n;

	r = xcalloc(1, sizeof *r);
	n = xasprintf(&r->line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,%s}",
	    (int)id_len, id, member);
	r->len = (size_t)n;
	TAILQ_INSERT_TAIL(&w->modern->replies, r, entry);
	evtimer_add(w->modern->ev_replies, &tv);
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
 * To the server.
 */

/* The _meta members, and a 2025 client's level, as the text to insert. */
static char *
worker_modern_meta_text(struct worker_modern *m)
{
	char	*t;

	if (m->level[0] == '\0')
		return (xstrdup(m->meta));
	xasprintf(&t, "%s,\"" MODERN_KEY_LEVEL "\":\"%s\"", m->meta,
	    m->level);
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

/* A request: with the 2026 _meta. */
static int
worker_modern_request(struct worker *w, const char *line, size_t len,
    const struct envelope *env)
{
	struct worker_modern	*m = w->modern;
	struct envelope_edit	 edit;
	char			*meta, *text;
	int			 rc;

	meta = worker_modern_meta_text(m);
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

int
worker_modern_write(struct worker *w, const char *line, size_t len)
{
	struct worker_modern	*m = w->modern;
	struct envelope		 env;
	const char		*id;
	char			*text;
	size_t			 erroff;
	int			 rc;

	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type == ENVELOPE_ABSENT)
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
		if (env.id.len <= 64)
			(void)hmap_put(m->pings, id, env.id.len, (void *)1);
		xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"method\":"
		    "\"server/discover\",\"params\":{\"_meta\":{%s}}}",
		    (int)env.id.len, id, m->meta);
		rc = worker_modern_send(w, text, strlen(text), NULL);
		free(text);
		return (rc);
	}
	if (envelope_string_eq(line, &env.method, "logging/setLevel")) {
		if (envelope_string_copy(line, &env.p_level, m->level,
		    sizeof m->level) < 0)
			m->level[0] = '\0';
		worker_modern_reply(w, id, env.id.len, "\"result\":{}");
		return (0);
	}
	if (envelope_string_eq(line, &env.method, "resources/subscribe") ||
	    envelope_string_eq(line, &env.method, "resources/unsubscribe")) {
		worker_modern_reply(w, id, env.id.len, "\"error\":{\"code\":"
		    "-32601,\"message\":\"the server speaks MCP 2026-07-28, "
		    "which replaced resources/subscribe with "
		    "subscriptions/listen; mcpd does not yet pass "
		    "subscriptions to it\"}");
		return (0);
	}
	if (envelope_string_eq(line, &env.method, "resources/read") &&
	    env.id.len <= 64)
		(void)hmap_put(m->reads, id, env.id.len, (void *)1);
	return (worker_modern_request(w, line, len, &env));
}

/*
 * From the server.
 */

void
worker_modern_line(struct worker *w, const char *line, size_t len,
    const struct envelope_span *plain)
{
	struct worker_modern	*m = w->modern;
	struct envelope		 env;
	struct envelope_edit	 edit;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(1)];
	char			 code[ENVELOPE_INT64_BYTES], *text;
	size_t			 erroff, n, i, tl;
	int64_t			 c;

	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type != ENVELOPE_ABSENT ||
	    env.id.type == ENVELOPE_ABSENT) {
		router_server_line(w->router, line, len, plain);
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
	if ((n = envelope_splice(line, len, &edit, 1, iov, nitems(iov))) == 0)
		return;
	for (tl = 0, i = 0; i < n; i++)
		tl += iov[i].iov_len;
	text = xmalloc(tl + 1);
	for (tl = 0, i = 0; i < n; i++) {
		memcpy(text + tl, iov[i].iov_base, iov[i].iov_len);
		tl += iov[i].iov_len;
	}
	router_server_line(w->router, text, tl, NULL);
	free(text);
}
