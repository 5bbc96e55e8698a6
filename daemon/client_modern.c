/*
 * client_modern.c -- a 2026-07-28 client over a 2025 session
 * (client_modern.h).
 *
 * The session (a server's router or a group) sees a 2025 client: before
 * the client's first request goes on, the layer sends an initialize of its
 * own, built from that request's _meta (its capabilities, its clientInfo),
 * whose answer it keeps for server/discover and for listen streams.  Each
 * request then goes on as it came; its answer comes back with what 2026
 * adds (resultType, and ttlMs 0 with cacheScope "private" on lists and
 * reads: a 2025 session promises no freshness), and a resource not found
 * becomes -32602.
 *
 * The server's requests: an elicitation, a sampling or roots/list the
 * session passes to this client while one of its tools/call, prompts/get
 * or resources/read is in flight, and that request's capabilities allow,
 * becomes that request's answer: input_required, with the server's
 * request under the key "mcpd-<id>" and a requestState (rstate.h) bound
 * to the client's principal, the request (its method and params), the
 * parked request and the round, expiring after input_timeout_ms.  The
 * request stays in flight at the server ("parked").  The client's retry
 * (a new id, inputResponses, the requestState) is checked, its responses
 * go to the server as the answers to its requests, and the parked request
 * is the retry's from then on: its answer, or the next round, goes to the
 * retry's id.  A state is usable once; a parked request nobody retries is
 * cancelled at the server when its state expires, and the server's
 * requests get a cancel ({"action":"cancel"} for an elicitation, an error
 * for the rest).  Progress of a parked request is dropped while it waits
 * for its retry, and delivered under the retry's progress token after.
 *
 * subscriptions/listen is the layer's own: its URIs are subscribed at
 * the session (resources/subscribe under ids of the layer's,
 * reference-counted by the router as any client's), the stream is
 * acknowledged once those are answered, with what the server can send
 * (its listChanged and subscribe capabilities), and the session's list_changed and
 * resources/updated go out stamped with the stream's id, to the streams
 * that asked for them only.  notifications/cancelled for the stream's id
 * ends it.
 *
 * Log notifications go only while a request that carried a logLevel is in
 * flight, at or above the most verbose such level; that level is set at
 * the session (logging/setLevel) as a 2025 client's would be.
 *
 * The tasks extension is client_modern_tasks.c's, multi-round requests
 * client_modern_input.c's, listen streams client_modern_listen.c's.
 *
 * Invariants:
 * - Every request of the client's in flight at the session is in reqs,
 *   by the id the session knows it by (up_id): its first id, or, when
 *   that id is still a parked request's, an alias of mcpd's; a parked
 *   request keeps its id there and is also on the parked list.
 * - The layer's own ids, and its aliases, are strings "mcpd-modern:...";
 *   a client id of that shape is refused, so a reply to one is never the
 *   client's.
 * - What the layer holds for the client (parked params, the server's
 *   requests, answers held for a retry) is in the memory budget and
 *   bounded by MODERN_MAX_PARKED and MODERN_MAX_INPUTS.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "budget.h"
#include "client_modern.h"
#include "client_modern_int.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "mlevel.h"
#include "modern.h"
#include "proto.h"
#include "rstate.h"
#include "util.h"
#include "xmalloc.h"

/*
 * Output.
 */

void
modern_send(struct modern *m, const char *text, size_t len)
{
	struct iovec	 iov;

	iov.iov_base = (void *)text;
	iov.iov_len = len;
	m->io->to_client(m->arg, &iov, 1);
}

void
modern_session(struct modern *m, const char *text)
{
	m->io->to_session(m->arg, text, strlen(text), NULL);
}

/* A line to the session with edits (sorted, at most 2) applied. */
void
modern_session_edited(struct modern *m, const char *line, size_t len,
    const struct envelope_edit *edits, size_t nedits)
{
	char	*text;
	size_t	 tl;

	if ((text = envelope_splice_dup(line, len, edits, nedits,
	    &tl)) == NULL)
		return;
	m->io->to_session(m->arg, text, tl, NULL);
	free(text);
}

/* A result (JSON text) to the client's request id. */
void
modern_result(struct modern *m, const char *id, size_t id_len,
    const char *result)
{
	char	*line;
	int	 n;

	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":%s}",
	    (int)id_len, id, result);
	modern_send(m, line, (size_t)n);
	free(line);
}

void __attribute__((format(printf, 5, 6)))
modern_error(struct modern *m, const char *id, size_t id_len, int code,
    const char *fmt, ...)
{
	va_list	 ap;
	cJSON	*e;
	char	*msg, *text, *line;
	int	 n;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	e = cJSON_CreateObject();
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	free(msg);
	text = cJSON_PrintUnformatted(e);
	cJSON_Delete(e);
	if (text == NULL)
		abort();
	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":%s}",
	    (int)id_len, id, text);
	modern_send(m, line, (size_t)n);
	free(line);
	free(text);
}

/* An answer of the client's to a request of the server's. */
void
modern_answer_server(struct modern *m, const char *down_id, size_t len,
    const cJSON *result, int code, const char *message)
{
	cJSON	*msg;
	char	*text;

	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", cJSON_ParseWithLength(down_id,
	    len));
	if (result != NULL)
		cJSON_AddItemToObject(msg, "result",
		    cJSON_Duplicate(result, 1));
	else {
		cJSON *e = cJSON_AddObjectToObject(msg, "error");
		cJSON_AddNumberToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", message);
	}
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (text == NULL)
		abort();
	modern_session(m, text);
	free(text);
}

/*
 * Memory.
 */

void
modern_account(struct modern *m, struct modern_req *q, ssize_t delta)
{
	if (q != NULL)
		q->mem = (size_t)((ssize_t)q->mem + delta);
	m->mem = (size_t)((ssize_t)m->mem + delta);
	budget_hold(m->mcpd, &m->budget_held, m->mem);
}

const uint8_t *
modern_key(struct modern *m)
{
	if (!m->mcpd->state_keyed) {
		if (rstate_key_new(m->mcpd->state_key) != 0)
			fatalx("cannot make the requestState key: getrandom failed");
		m->mcpd->state_keyed = 1;
	}
	return (m->mcpd->state_key);
}

/*
 * The session's own.
 */

uint64_t
modern_internal(struct modern *m, const char *method, cJSON *params)
{
	cJSON	*msg;
	char	*text, id[48];
	uint64_t n;

	n = ++m->next_id;
	snprintf(id, sizeof id, "mcpd-modern:%llu", (unsigned long long)n);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "id", id);
	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (text == NULL)
		abort();
	modern_session(m, text);
	free(text);
	return (n);
}

/* The session's initialize, from the first request's _meta. */
static void
modern_init(struct modern *m, const char *line, const struct envelope *env)
{
	struct modern_meta	 mm;
	cJSON			*caps = NULL, *info = NULL, *msg;
	char			*text;

	if (m->init_sent)
		return;
	m->init_sent = 1;
	(void)modern_meta_read(line, env, &mm, &caps, &info);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "id", "mcpd-modern:0");
	cJSON_AddStringToObject(msg, "method", "initialize");
	cJSON_AddItemToObject(msg, "params", modern_initialize_params(caps,
	    info));
	cJSON_Delete(caps);
	cJSON_Delete(info);
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (text == NULL)
		abort();
	modern_session(m, text);
	free(text);
	modern_session(m, "{\"jsonrpc\":\"2.0\","
	    "\"method\":\"notifications/initialized\"}");
}

/* A request's log level: the session's, if more verbose than it was. */
void
modern_level(struct modern *m, int level)
{
	cJSON	*params;

	if (level < 0 || level <= m->level)
		return;
	m->level = level;
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "level", mlevel_names[level]);
	modern_internal(m, "logging/setLevel", params);
}

/*
 * Requests.
 */

void
modern_req_free(struct modern *m, struct modern_req *q)
{
	struct modern_input	*in;

	(void)hmap_del(m->reqs, q->up_id, q->up_id_len);
	if (q->parked != 0) {
		TAILQ_REMOVE(&m->parked, q, park_entry);
		m->nparked--;
	}
	while ((in = TAILQ_FIRST(&q->inputs)) != NULL) {
		TAILQ_REMOVE(&q->inputs, in, entry);
		modern_input_free(m, in);
	}
	modern_account(m, NULL, -(ssize_t)q->mem);
	if (q->id != q->up_id)
		free(q->id);
	if (q->aliased)
		m->naliased--;
	if (q->up_id != q->up_id_inline)
		free(q->up_id);
	free(q->up_token);
	if (q->token != q->up_token)
		free(q->token);
	free(q->params);
	free(q->final);
	cJSON_Delete(q->task_wait);
	if (m->nspare < MODERN_SPARE_REQS && !m->freeing) {
		q->next_spare = m->spare;
		m->spare = q;
		m->nspare++;
	} else
		free(q);
}

char *
modern_dup(const char *text, size_t len)
{
	char	*p;

	p = xmalloc(len + 1);
	memcpy(p, text, len);
	p[len] = '\0';
	return (p);
}

/*
 * The session's answer to a request, made a 2026 one, to the client's id
 * of it now.
 */
void
modern_deliver(struct modern *m, struct modern_req *q, const char *line,
    size_t len, const struct envelope *env)
{
	struct envelope_edit	 edits[3];
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(3)];
	const char		*tail;
	char			 code[ENVELOPE_INT64_BYTES];
	size_t			 n = 0, tail_len, k;
	long			 at;
	int64_t			 c;
	int			 empty;

	if (q != NULL && (q->id_len != env->id.len ||
	    memcmp(q->id, line + env->id.off, q->id_len) != 0)) {
		edits[n].off = env->id.off;
		edits[n].len = env->id.len;
		edits[n].text = q->id;
		edits[n].text_len = q->id_len;
		n++;
	}
	if (env->result.type == ENVELOPE_OBJECT) {
		at = modern_tail_at(line, env->result.off, env->result.len,
		    &empty);
		if (at >= 0) {
			tail = modern_result_tail(q != NULL ? q->method :
			    MODERN_M_OTHER, !empty, &tail_len);
			edits[n].off = (size_t)at;
			edits[n].len = 0;
			edits[n].text = tail;
			edits[n].text_len = tail_len;
			n++;
		}
	} else if (env->error.type == ENVELOPE_OBJECT && q != NULL &&
	    q->method == MODERN_M_READ &&
	    envelope_int64(line, &env->e_code, &c) == 0 &&
	    c == MODERN_NOT_FOUND_OLD) {
		edits[n].off = env->e_code.off;
		edits[n].len = env->e_code.len;
		edits[n].text_len = envelope_print_int64(RPC_INVALID_PARAMS,
		    code);
		edits[n].text = code;
		n++;
	}
	/* Sorted by offset, as envelope_splice wants. */
	if (n == 2 && edits[1].off < edits[0].off) {
		struct envelope_edit t = edits[0];
		edits[0] = edits[1];
		edits[1] = t;
	}
	k = envelope_splice(line, len, edits, n, iov, nitems(iov));
	if (k > 0)
		m->io->to_client(m->arg, iov, (int)k);
}

/* A request goes on to the session, known from now on. */
static void
modern_forward(struct modern *m, const char *line, size_t len,
    const struct envelope *env, enum modern_method method,
    const struct modern_meta *mm)
{
	struct modern_req	*q, *old;
	struct envelope_edit	 edits[2], t;
	size_t			 nedits = 0;
	char			 alias[48];
	int			 n;

	alias[0] = '\0';
	if ((old = hmap_get(m->reqs, line + env->id.off, env->id.len)) !=
	    NULL) {
		if (old->parked == 0) {
			modern_error(m, line + env->id.off, env->id.len,
			    RPC_INVALID_REQUEST, "invalid request: id %.*s is "
			    "already in use by a request of this connection in "
			    "flight", (int)env->id.len, line + env->id.off);
			return;
		}
		/*
		 * The id of a request parked at the server: done for its
		 * client, which may use it again.  The session, which still
		 * knows the parked one by it, gets this one under mcpd's.
		 */
		n = snprintf(alias, sizeof alias, "\"mcpd-modern:a%llu\"",
		    (unsigned long long)++m->next_id);
		edits[nedits].off = env->id.off;
		edits[nedits].len = env->id.len;
		edits[nedits].text = alias;
		edits[nedits].text_len = (size_t)n;
		nedits++;
	}
	if ((q = m->spare) != NULL) {
		m->spare = q->next_spare;
		m->nspare--;
		memset(q, 0, sizeof *q);
	} else
		q = xcalloc(1, sizeof *q);
	TAILQ_INIT(&q->inputs);
	if (alias[0] != '\0') {
		q->id = modern_dup(line + env->id.off, env->id.len);
		q->id_len = env->id.len;
		q->up_id_len = strlen(alias);
		q->up_id = modern_dup(alias, q->up_id_len);
		q->aliased = 1;
		m->naliased++;
	} else {
		if (env->id.len < sizeof q->up_id_inline) {
			q->up_id = q->up_id_inline;
			memcpy(q->up_id, line + env->id.off, env->id.len);
			q->up_id[env->id.len] = '\0';
		} else
			q->up_id = modern_dup(line + env->id.off,
			    env->id.len);
		q->up_id_len = env->id.len;
		q->id = q->up_id;
		q->id_len = q->up_id_len;
	}
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		q->up_token = modern_dup(line + env->progress_token.off,
		    env->progress_token.len);
		q->up_token_len = env->progress_token.len;
		q->token = q->up_token;
		q->token_len = q->up_token_len;
	}
	q->method = method;
	if (envelope_string_copy(line, &env->method, q->method_name,
	    sizeof q->method_name) < 0)
		q->method_name[0] = '\0';
	q->level = mm->level[0] != '\0' ? mlevel_index(mm->level) : -1;
	q->can = mm->can;
	q->serial = ++m->next_serial;
	/* What a round would digest: kept only where one may come. */
	if (MODERN_TAKES_INPUT(method) && (q->can & (MODERN_CAN_ELICIT |
	    MODERN_CAN_SAMPLING | MODERN_CAN_ROOTS)) &&
	    env->params.type == ENVELOPE_OBJECT) {
		q->params = modern_dup(line + env->params.off,
		    env->params.len);
		q->params_len = env->params.len;
		modern_account(m, q, (ssize_t)q->params_len);
	}
	(void)hmap_put(m->reqs, q->up_id, q->up_id_len, q);
	modern_level(m, q->level);
	if (method == MODERN_M_INPUT &&
	    modern_tasks_call(m, q, line, env, &edits[nedits]))
		nedits++;
	if (nedits == 0) {
		m->io->to_session(m->arg, line, len, env);
		return;
	}
	if (nedits == 2 && edits[1].off < edits[0].off) {
		t = edits[0];
		edits[0] = edits[1];
		edits[1] = t;
	}
	modern_session_edited(m, line, len, edits, nedits);
}

/*
 * From the client.
 */

/* A line that waits for the session's initialize answer. */
static void
modern_hold(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	struct modern_held	*h;

	if (m->nheld >= MODERN_MAX_HELD) {
		modern_error(m, line + env->id.off, env->id.len,
		    RPC_INVALID_REQUEST, "invalid request: too many requests "
		    "wait for the server to start");
		return;
	}
	h = xmalloc(sizeof *h);
	h->line = modern_dup(line, len);
	h->len = len;
	TAILQ_INSERT_TAIL(&m->held, h, entry);
	m->nheld++;
	modern_account(m, NULL, (ssize_t)len);
}

static void
modern_discover(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	char	*result;

	modern_init(m, line, env);
	if (m->init == NULL) {
		modern_hold(m, line, len, env);
		return;
	}
	result = modern_discover_result(m->init);
	modern_result(m, line + env->id.off, env->id.len, result);
	free(result);
}

/*
 * The request the client knows by id now: a parked one (its retry's id
 * or, not yet retried, its own), one sent under an alias, or one the
 * session knows by that id.
 */
static struct modern_req *
modern_find_client_id(struct modern *m, const char *id, size_t len)
{
	struct modern_req	*q;
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	void			*val;

	TAILQ_FOREACH(q, &m->parked, park_entry) {
		if (q->id_len == len && memcmp(q->id, id, len) == 0)
			return (q);
	}
	if (m->naliased > 0) {
		hmap_iter_init(m->reqs, &it);
		while (hmap_iter_next(&it, &key, &keylen, &val)) {
			q = val;
			if (q->id != q->up_id && q->parked == 0 &&
			    q->id_len == len && memcmp(q->id, id, len) == 0)
				return (q);
		}
	}
	q = hmap_get(m->reqs, id, len);
	return (q != NULL && q->parked == 0 ? q : NULL);
}

static void
modern_cancelled(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	const char		*rid = line + env->p_request_id.off;
	size_t			 rlen = env->p_request_id.len;
	struct modern_listen	*l;
	struct modern_req	*q;
	struct envelope_edit	 edit;

	if (env->p_request_id.type == ENVELOPE_ABSENT)
		return;
	if ((l = modern_listen_find(m, rid, rlen)) != NULL) {
		modern_listen_close(m, l, 1);
		return;
	}
	if ((q = modern_find_client_id(m, rid, rlen)) == NULL) {
		m->io->to_session(m->arg, line, len, NULL);
		return;
	}
	if (q->waiting || q->final != NULL) {
		modern_give_up(m, q, "cancelled by the client");
		modern_arm(m);
		return;
	}
	/* The session forgets what its client cancels, under its own id. */
	edit.off = env->p_request_id.off;
	edit.len = rlen;
	edit.text = q->up_id;
	edit.text_len = q->up_id_len;
	modern_session_edited(m, line, len, &edit, 1);
	modern_req_free(m, q);
}

/*
 * A request's _meta, read once for what a connection sends on every
 * request: the text around its progress token is compared with the last
 * one read, and the same text says the same.
 */
static int
modern_meta(struct modern *m, const char *line, const struct envelope *env,
    struct modern_meta *mm)
{
	const char	*meta = line + env->meta.off, *post;
	size_t		 pre_len, post_len;

	if (env->meta.type != ENVELOPE_OBJECT)
		return (modern_meta_read(line, env, mm, NULL, NULL));
	pre_len = env->meta.len;
	post = meta + pre_len;
	post_len = 0;
	if (env->progress_token.type != ENVELOPE_ABSENT &&
	    env->progress_token.off > env->meta.off &&
	    env->progress_token.off + env->progress_token.len <=
	    env->meta.off + env->meta.len) {
		pre_len = env->progress_token.off - env->meta.off;
		post = line + env->progress_token.off + env->progress_token.len;
		post_len = env->meta.off + env->meta.len -
		    (env->progress_token.off + env->progress_token.len);
	}
	if (m->meta_pre != NULL && m->meta_pre_len == pre_len &&
	    m->meta_post_len == post_len &&
	    memcmp(m->meta_pre, meta, pre_len) == 0 &&
	    memcmp(m->meta_post, post, post_len) == 0) {
		*mm = m->meta_mm;
		return (0);
	}
	if (modern_meta_read(line, env, mm, NULL, NULL) != 0)
		return (-1);
	if (pre_len + post_len <= MODERN_META_CACHE_BYTES) {
		modern_account(m, NULL, (ssize_t)(pre_len + post_len) -
		    (ssize_t)(m->meta_pre_len + m->meta_post_len));
		free(m->meta_pre);
		free(m->meta_post);
		m->meta_pre = modern_dup(meta, pre_len);
		m->meta_pre_len = pre_len;
		m->meta_post = modern_dup(post, post_len);
		m->meta_post_len = post_len;
		m->meta_mm = *mm;
	}
	return (0);
}

/* A request of the client's. */
void
modern_request(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	const char		*id = line + env->id.off;
	enum modern_method	 method;
	struct modern_meta	 mm;
	char			*data, *text, name[64];
	int			 n;

	method = modern_method(line, &env->method);
	if (method == MODERN_M_MCPD) {
		m->io->to_session(m->arg, line, len, NULL);
		return;
	}
	if (env->id.len >= sizeof MODERN_ID_PREFIX - 1 &&
	    memcmp(id, MODERN_ID_PREFIX, sizeof MODERN_ID_PREFIX - 1) == 0) {
		modern_error(m, id, env->id.len, RPC_INVALID_REQUEST,
		    "invalid request: ids beginning \"mcpd-modern:\" are "
		    "mcpd's own");
		return;
	}
	if (modern_meta(m, line, env, &mm) != 0) {
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: params._meta is not an object");
		return;
	}
	if (mm.versioned && !mm.version_ok) {
		data = modern_unsupported_data(mm.version[0] != '\0' ?
		    mm.version : NULL);
		n = xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,"
		    "\"error\":{\"code\":%d,\"message\":\"Unsupported protocol "
		    "version: mcpd serves 2026-07-28 without initialize, and "
		    "2025 revisions after initialize\",\"data\":%s}}",
		    (int)env->id.len, id, MODERN_UNSUPPORTED, data);
		modern_send(m, text, (size_t)n);
		free(text);
		free(data);
		return;
	}
	switch (method) {
	case MODERN_M_GONE:
		if (envelope_string_copy(line, &env->method, name,
		    sizeof name) < 0)
			name[0] = '\0';
		modern_error(m, id, env->id.len, RPC_METHOD_NOT_FOUND,
		    "method not found: %s is not part of MCP 2026-07-28%s",
		    name, strcmp(name, "resources/subscribe") == 0 ||
		    strcmp(name, "resources/unsubscribe") == 0 ?
		    " (subscriptions/listen replaces it)" :
		    strcmp(name, "logging/setLevel") == 0 ? " (a request "
		    "names its log level in _meta)" : "");
		return;
	case MODERN_M_DISCOVER:
		modern_discover(m, line, len, env);
		return;
	case MODERN_M_TASK_GET:
	case MODERN_M_TASK_UPDATE:
	case MODERN_M_TASK_CANCEL:
		if (modern_tasks_request(m, line, len, env, method, &mm))
			return;
		break;
	case MODERN_M_LISTEN:
		modern_init(m, line, env);
		if (m->init == NULL) {
			modern_hold(m, line, len, env);
			return;
		}
		modern_listen_open(m, line, env);
		return;
	default:
		break;
	}
	modern_init(m, line, env);
	/* The text first: a retry's member, or a name in its arguments. */
	if (MODERN_TAKES_INPUT(method) && env->params.type ==
	    ENVELOPE_OBJECT && bytes_has(line + env->params.off,
	    env->params.len, "\"requestState\"", 14, 8) &&
	    modern_retry(m, line, len, env, &mm))
		return;
	modern_forward(m, line, len, env, method, &mm);
}

int
modern_in(struct modern *m, const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;

	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type == ENVELOPE_ABSENT) {
		/* Not ours to judge: the session answers it. */
		m->io->to_session(m->arg, line, len, NULL);
		return (1);
	}
	if (env.id.type == ENVELOPE_ABSENT) {
		if (envelope_string_eq(line, &env.method,
		    "notifications/cancelled"))
			modern_cancelled(m, line, len, &env);
		else if (!envelope_string_eq(line, &env.method,
		    "notifications/initialized") &&
		    !envelope_string_eq(line, &env.method,
		    "notifications/roots/list_changed"))
			m->io->to_session(m->arg, line, len, NULL);
		return (1);
	}
	/* A 2025 opening after all: a probe, then a handshake. */
	if (envelope_string_eq(line, &env.method, "initialize") &&
	    hmap_count(m->reqs) == 0 && m->nlistens == 0 && m->nheld == 0 &&
	    m->nparked == 0)
		return (0);
	modern_request(m, line, len, &env);
	return (1);
}

/*
 * From the session.
 */

/* The session answered the layer's initialize: held lines go on. */
static void
modern_session_up(struct modern *m, const char *line,
    const struct envelope *env)
{
	struct modern_held	*h;
	struct envelope		 henv;
	size_t			 erroff;

	if (env->result.type == ENVELOPE_OBJECT)
		m->init = cJSON_ParseWithLength(line + env->result.off,
		    env->result.len);
	if (m->init == NULL)
		m->init = cJSON_CreateObject();
	while ((h = TAILQ_FIRST(&m->held)) != NULL) {
		TAILQ_REMOVE(&m->held, h, entry);
		m->nheld--;
		modern_account(m, NULL, -(ssize_t)h->len);
		if (envelope_scan(h->line, h->len, &henv, &erroff) == 0)
			modern_request(m, h->line, h->len, &henv);
		free(h->line);
		free(h);
	}
}

static void
modern_reply(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	struct modern_req	*q;

	q = hmap_get(m->reqs, line + env->id.off, env->id.len);
	if (q == NULL && env->id.type == ENVELOPE_STRING && env->id.len >=
	    sizeof MODERN_ID_PREFIX - 1 && memcmp(line + env->id.off,
	    MODERN_ID_PREFIX, sizeof MODERN_ID_PREFIX - 1) == 0) {
		if (env->id.len == sizeof MODERN_INIT_ID - 1 &&
		    memcmp(line + env->id.off, MODERN_INIT_ID,
		    env->id.len) == 0) {
			if (m->init == NULL)
				modern_session_up(m, line, env);
		} else if (!modern_listen_internal(m, line, env))
			(void)modern_tasks_internal(m, line, len, env);
		return;
	}
	if (q != NULL && !q->waiting && (q->can & MODERN_CAN_TASKS)) {
		if (q->method == MODERN_M_LIST &&
		    strcmp(q->method_name, "tools/list") == 0 &&
		    env->result.type == ENVELOPE_OBJECT)
			modern_tasks_tools(m, line, env);
		if (modern_tasks_reply(m, q, line, len, env))
			return;
	}
	if (q != NULL && q->waiting) {
		/* Held for the retry. */
		if (q->final == NULL) {
			q->final = modern_dup(line, len);
			q->final_len = len;
			modern_account(m, q, (ssize_t)len);
		}
		return;
	}
	modern_deliver(m, q, line, len, env);
	if (q != NULL)
		modern_req_free(m, q);
}

/* Progress: dropped while its request waits for a retry. */
static void
modern_progress(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	const char		*tok = line + env->p_progress_token.off;
	size_t			 tlen = env->p_progress_token.len;
	struct modern_req	*q;
	struct envelope_edit	 edit;

	TAILQ_FOREACH(q, &m->parked, park_entry) {
		if (q->up_token != NULL && q->up_token_len == tlen &&
		    memcmp(q->up_token, tok, tlen) == 0)
			break;
	}
	if (q == NULL) {
		modern_send(m, line, len);
		return;
	}
	if (q->waiting || q->token == NULL)
		return;
	edit.off = env->p_progress_token.off;
	edit.len = tlen;
	edit.text = q->token;
	edit.text_len = q->token_len;
	{
		struct iovec	iov[ENVELOPE_SPLICE_IOV(1)];
		size_t		n;

		if ((n = envelope_splice(line, len, &edit, 1, iov,
		    nitems(iov))) > 0)
			m->io->to_client(m->arg, iov, (int)n);
	}
}

/* A log line: for requests that asked for logs, at their level. */
static void
modern_log(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	void			*val;
	struct modern_req	*q;
	char			 level[16];
	int			 severity, most = -1;

	hmap_iter_init(m->reqs, &it);
	while (hmap_iter_next(&it, &key, &keylen, &val)) {
		q = val;
		if (!q->waiting && q->level > most)
			most = q->level;
	}
	if (most < 0)
		return;
	if (envelope_string_copy(line, &env->p_level, level,
	    sizeof level) < 0 || (severity = mlevel_index(level)) < 0)
		severity = 6;	/* info */
	if (severity <= most)
		modern_send(m, line, len);
}

void
modern_out(struct modern *m, const char *line, size_t len)
{
	struct envelope	 env;
	size_t		 erroff;
	char		 method[64];

	if (envelope_scan(line, len, &env, &erroff) != 0) {
		modern_send(m, line, len);
		return;
	}
	if (env.method.type == ENVELOPE_ABSENT) {
		if (env.id.type != ENVELOPE_ABSENT)
			modern_reply(m, line, len, &env);
		else
			modern_send(m, line, len);
		return;
	}
	if (env.id.type != ENVELOPE_ABSENT) {
		modern_server_request(m, line, len, &env);
		return;
	}
	if (envelope_string_copy(line, &env.method, method,
	    sizeof method) < 0)
		method[0] = '\0';
	if (strcmp(method, "notifications/progress") == 0) {
		if (m->nparked == 0)
			modern_send(m, line, len);
		else
			modern_progress(m, line, len, &env);
	} else if (strcmp(method, "notifications/message") == 0)
		modern_log(m, line, len, &env);
	else if (modern_listen_kind(method) != 0 ||
	    strcmp(method, "notifications/resources/updated") == 0)
		modern_listen_notify(m, line, &env, method);
	else if (strcmp(method, "notifications/tasks/status") == 0)
		modern_tasks_status(m, line, &env);
	else if (strcmp(method, "notifications/cancelled") == 0)
		modern_input_cancelled(m, line, &env);
	else if (strcmp(method, "notifications/elicitation/complete") == 0 ||
	    strcmp(method, "notifications/roots/list_changed") == 0)
		return;		/* none of 2026's */
	else
		modern_send(m, line, len);
}

void
modern_out_iov(struct modern *m, const struct iovec *iov, int iovcnt)
{
	char	*text;
	size_t	 len;

	if (iovcnt == 1) {
		modern_out(m, iov[0].iov_base, iov[0].iov_len);
		return;
	}
	text = xiovdup(iov, iovcnt, &len);
	modern_out(m, text, len);
	free(text);
}

/*
 * The layer.
 */

enum modern_open
modern_open(struct mcpd *mcpd, const char *line, size_t len,
    const struct modern_io *io, void *arg, struct modern **mp)
{
	struct modern	*m;
	struct envelope	 env;
	size_t		 erroff;

	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type == ENVELOPE_ABSENT)
		return (MODERN_OPEN_NOT_YET);
	if (envelope_string_eq(line, &env.method, "initialize"))
		return (MODERN_OPEN_LEGACY);
	if (env.id.type == ENVELOPE_ABSENT || !modern_opens(line, &env))
		return (MODERN_OPEN_NOT_YET);
	m = xcalloc(1, sizeof *m);
	m->mcpd = mcpd;
	m->io = io;
	m->arg = arg;
	m->reqs = hmap_new(hmap_random_seed());
	TAILQ_INIT(&m->parked);
	TAILQ_INIT(&m->listens);
	TAILQ_INIT(&m->held);
	TAILQ_INIT(&m->tasks);
	m->level = -1;
	m->ev_expire = evtimer_new(mcpd->base, modern_expire_cb, m);
	if (m->ev_expire == NULL)
		fatalx("evtimer_new");
	*mp = m;
	modern_request(m, line, len, &env);
	return (MODERN_OPEN_MODERN);
}

void
modern_free(struct modern *m)
{
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	void			*val;
	struct modern_listen	*l;
	struct modern_held	*h;

	struct modern_req	*q;
	if (m == NULL)
		return;
	m->freeing = 1;
	for (;;) {
		hmap_iter_init(m->reqs, &it);
		if (!hmap_iter_next(&it, &key, &keylen, &val))
			break;
		modern_req_free(m, val);
	}
	hmap_free(m->reqs);
	while ((q = m->spare) != NULL) {
		m->spare = q->next_spare;
		free(q);
	}
	modern_tasks_free(m);
	while ((l = TAILQ_FIRST(&m->listens)) != NULL)
		modern_listen_close(m, l, 0);
	while ((h = TAILQ_FIRST(&m->held)) != NULL) {
		TAILQ_REMOVE(&m->held, h, entry);
		free(h->line);
		free(h);
	}
	m->mem = 0;
	budget_hold(m->mcpd, &m->budget_held, 0);
	cJSON_Delete(m->init);
	free(m->meta_pre);
	free(m->meta_post);
	event_free(m->ev_expire);
	free(m);
}
