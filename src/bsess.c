/*
 * bsess.c -- the client's MCP session as `mcpctl connect` keeps it across
 * connections to mcpd (see bsess.h).
 *
 * Invariants:
 * - `reqs' maps the raw id of each client request in flight to its kind;
 *   `sreqs' the ids of mcpd's requests to the client in flight; `stale'
 *   those of a lost connection; `own' the bridge's own requests on the
 *   current connection.  No map grows past BSESS_MAX_INFLIGHT.
 * - init_line is the client's initialize, verbatim, and init_result
 *   mcpd's result for it: both set, or no initialize is replayed.
 * - Values in those maps are kinds (small integers), never pointers.
 * - `listens' maps the raw id of each open listen kept to replay to its
 *   entry, which is also on `listen_order' (the order the client sent
 *   them); listen_bytes is the sum of their lengths.  A listen's id is
 *   never in `reqs' as well.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bsess.h"
#include "hmap.h"
#include "sbuf.h"
#include "xmalloc.h"

/* Kinds of request, stored as map values (never 0: NULL is absent). */
#define BSESS_K_OTHER	1
#define BSESS_K_INIT	2
#define BSESS_K_LISTEN	3

#define BSESS_KIND(k)	((void *)(uintptr_t)(k))
#define BSESS_KIND_OF(v) ((int)(uintptr_t)(v))

/* The ids are chosen by our own client: no secret seed is needed. */
#define BSESS_SEED	0x6273657373ULL

#define BSESS_LISTEN		"subscriptions/listen"
#define BSESS_ACKNOWLEDGED	"notifications/subscriptions/acknowledged"
#define BSESS_SUBSCRIPTION_ID	"io.modelcontextprotocol/subscriptionId"

/* An open subscriptions/listen of the client's. */
struct bsess_listen {
	TAILQ_ENTRY(bsess_listen) entry;
	char			*line;		/* as the client sent it */
	size_t			 len;
	struct envelope_value	 id;		/* in line */
	int			 acked;		/* the client had its
						   acknowledgement */
	int			 replayed;	/* sent again on this
						   connection, not yet
						   acknowledged */
};
TAILQ_HEAD(bsess_listens, bsess_listen);

struct bsess {
	struct hmap	*reqs;		/* client -> mcpd, in flight */
	struct hmap	*sreqs;		/* mcpd -> client, in flight */
	struct hmap	*stale;		/* mcpd -> client, connection lost */
	struct hmap	*own;		/* the bridge's, on this connection */
	char		*init_line;	/* the client's initialize */
	size_t		 init_len;
	size_t		 init_id_off;	/* its id, in init_line */
	size_t		 init_id_len;
	char		*init_result;	/* mcpd's result for it (JSON) */
	size_t		 init_result_len;
	int		 initialized;	/* notifications/initialized seen */
	char		**subs;		/* subscribed URIs, as JSON strings */
	size_t		 nsubs;
	char		 level[BSESS_LEVEL_MAX_BYTES + 1];
	unsigned	 lists;
	struct hmap	*listens;	/* open listens, by id */
	struct bsess_listens listen_order;
	size_t		 listen_bytes;
	enum bsess_init	 outcome;
	uint64_t	 own_seq;	/* numbers the bridge's own ids */
};

struct bsess *
bsess_new(void)
{
	struct bsess	*s;

	s = xcalloc(1, sizeof *s);
	s->reqs = hmap_new(BSESS_SEED);
	s->sreqs = hmap_new(BSESS_SEED);
	s->stale = hmap_new(BSESS_SEED);
	s->own = hmap_new(BSESS_SEED);
	s->listens = hmap_new(BSESS_SEED);
	TAILQ_INIT(&s->listen_order);
	return (s);
}

static void
bsess_listen_free(struct bsess *s, struct bsess_listen *l)
{
	TAILQ_REMOVE(&s->listen_order, l, entry);
	s->listen_bytes -= l->len;
	free(l->line);
	free(l);
}

void
bsess_free(struct bsess *s)
{
	struct bsess_listen	*l;
	size_t			 i;

	if (s == NULL)
		return;
	while ((l = TAILQ_FIRST(&s->listen_order)) != NULL)
		bsess_listen_free(s, l);
	hmap_free(s->listens);
	hmap_free(s->reqs);
	hmap_free(s->sreqs);
	hmap_free(s->stale);
	hmap_free(s->own);
	free(s->init_line);
	free(s->init_result);
	for (i = 0; i < s->nsubs; i++)
		free(s->subs[i]);
	free(s->subs);
	free(s);
}

/* Whether v is a string equal to s; cheap for the common miss. */
static int
bsess_is(const char *line, const struct envelope_value *v, const char *s)
{
	return (v->type == ENVELOPE_STRING &&
	    envelope_string_eq(line, v, s));
}

static int
bsess_valid_id(const struct envelope_value *id)
{
	return ((id->type == ENVELOPE_STRING || id->type == ENVELOPE_NUMBER) &&
	    id->len <= BSESS_ID_MAX_BYTES);
}

static void
bsess_sub_add(struct bsess *s, const char *uri, size_t len)
{
	size_t	 i;

	for (i = 0; i < s->nsubs; i++)
		if (strlen(s->subs[i]) == len &&
		    memcmp(s->subs[i], uri, len) == 0)
			return;
	if (s->nsubs >= BSESS_MAX_SUBS || len > BSESS_URI_MAX_BYTES)
		return;
	s->subs = xreallocarray(s->subs, s->nsubs + 1, sizeof *s->subs);
	s->subs[s->nsubs] = xmalloc(len + 1);
	memcpy(s->subs[s->nsubs], uri, len);
	s->subs[s->nsubs][len] = '\0';
	s->nsubs++;
}

static void
bsess_sub_del(struct bsess *s, const char *uri, size_t len)
{
	size_t	 i;

	for (i = 0; i < s->nsubs; i++) {
		if (strlen(s->subs[i]) != len ||
		    memcmp(s->subs[i], uri, len) != 0)
			continue;
		free(s->subs[i]);
		s->subs[i] = s->subs[--s->nsubs];
		return;
	}
}

/*
 * Keep a listen to replay: 0 if it is past a bound (it is then an
 * ordinary request in flight).  The same id again replaces the first.
 */
static int
bsess_listen_keep(struct bsess *s, const char *line, size_t len,
    const struct envelope_value *id)
{
	struct bsess_listen	*l, *old;
	size_t			 bytes = s->listen_bytes;

	old = hmap_get(s->listens, line + id->off, id->len);
	if (old != NULL)
		bytes -= old->len;
	if (len > BSESS_LISTEN_MAX_BYTES || len > BSESS_LISTENS_MAX_BYTES -
	    bytes || (old == NULL &&
	    hmap_count(s->listens) >= BSESS_MAX_LISTENS))
		return (0);
	if (old != NULL)
		bsess_listen_free(s, old);
	l = xcalloc(1, sizeof *l);
	l->line = xmalloc(len);
	memcpy(l->line, line, len);
	l->len = len;
	l->id = *id;
	TAILQ_INSERT_TAIL(&s->listen_order, l, entry);
	s->listen_bytes += len;
	(void)hmap_put(s->listens, line + id->off, id->len, l);
	return (1);
}

/* The listen of this id is over (cancelled, or answered). */
static void
bsess_listen_forget(struct bsess *s, const char *id, size_t idlen)
{
	struct bsess_listen	*l;

	if ((l = hmap_del(s->listens, id, idlen)) != NULL)
		bsess_listen_free(s, l);
}

static const char *
bsess_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/*
 * The member key of the object obj (valid JSON, as scanned), the first
 * if there are several: 1 and its value in *out, else 0.
 */
static int
bsess_member(const char *line, const struct envelope_value *obj,
    const char *key, struct envelope_value *out)
{
	struct envelope_value	 k;
	const char		*p, *end, *v;

	if (obj->type != ENVELOPE_OBJECT)
		return (0);
	p = line + obj->off + 1;
	end = line + obj->off + obj->len - 1;
	for (;;) {
		p = bsess_ws(p, end);
		if (p >= end || *p != '"')
			return (0);
		v = p;
		p = envelope_skip_string(p, end);
		k.type = ENVELOPE_STRING;
		k.plain = 0;
		k.off = (size_t)(v - line);
		k.len = (size_t)(p - v);
		p = bsess_ws(p, end);
		if (p >= end || *p != ':')
			return (0);
		v = bsess_ws(p + 1, end);
		p = envelope_skip_value(v, end);
		if (envelope_string_eq_text(line, &k, key)) {
			out->type = *v == '"' ? ENVELOPE_STRING :
			    *v == '-' || (*v >= '0' && *v <= '9') ?
			    ENVELOPE_NUMBER : ENVELOPE_OBJECT;
			out->plain = 0;
			out->off = (size_t)(v - line);
			out->len = (size_t)(p - v);
			return (1);
		}
		p = bsess_ws(p, end);
		if (p >= end || *p != ',')
			return (0);
		p++;
	}
}

/*
 * Whether two ids are the same: the same text, or strings that decode
 * alike, or the same integer.  (OBJECT stands for anything else.)
 */
static int
bsess_id_same(const char *a, const struct envelope_value *va, const char *b,
    const struct envelope_value *vb)
{
	char	 x[BSESS_ID_MAX_BYTES + 1], y[BSESS_ID_MAX_BYTES + 1];
	int64_t	 i, j;
	int	 n, m;

	if (va->len == vb->len && memcmp(a + va->off, b + vb->off,
	    va->len) == 0)
		return (1);
	if (va->type != vb->type || va->len > BSESS_ID_MAX_BYTES ||
	    vb->len > BSESS_ID_MAX_BYTES)
		return (0);
	if (va->type == ENVELOPE_STRING) {
		n = envelope_string_copy(a, va, x, sizeof x);
		m = envelope_string_copy(b, vb, y, sizeof y);
		return (n >= 0 && n == m && memcmp(x, y, (size_t)n) == 0);
	}
	return (va->type == ENVELOPE_NUMBER && envelope_int64(a, va, &i) == 0 &&
	    envelope_int64(b, vb, &j) == 0 && i == j);
}

/*
 * mcpd acknowledged a listen: swallowed if it is the acknowledgement of
 * a replayed listen whose client had one already.
 */
static enum bsess_verdict
bsess_listen_acked(struct bsess *s, const char *line,
    const struct envelope *env)
{
	struct envelope_value	 sid;
	struct bsess_listen	*l;

	if (!bsess_member(line, &env->meta, BSESS_SUBSCRIPTION_ID, &sid))
		return (BSESS_FORWARD);
	if ((l = hmap_get(s->listens, line + sid.off, sid.len)) == NULL)
		TAILQ_FOREACH(l, &s->listen_order, entry)
			if (bsess_id_same(l->line, &l->id, line, &sid))
				break;
	if (l == NULL)
		return (BSESS_FORWARD);
	if (l->replayed) {
		l->replayed = 0;
		if (l->acked)
			return (BSESS_SWALLOW);
	}
	l->acked = 1;
	return (BSESS_FORWARD);
}

/* What a client request tells of the session; returns its kind. */
static int
bsess_note_request(struct bsess *s, const char *line, size_t len,
    const struct envelope *env)
{
	const struct envelope_value	*m = &env->method;
	const char			*name = line + m->off + 1;
	size_t				 nlen = m->len - 2;

	/* Most requests are none of these: tell them by length first. */
#define BSESS_NAMED(lit)	(nlen == sizeof(lit) - 1 && \
	    memcmp(name, lit, nlen) == 0)
	if (BSESS_NAMED("initialize")) {
		free(s->init_line);
		s->init_line = xmalloc(len);
		memcpy(s->init_line, line, len);
		s->init_len = len;
		s->init_id_off = env->id.off;
		s->init_id_len = env->id.len;
		return (BSESS_K_INIT);
	}
	if (BSESS_NAMED(BSESS_LISTEN))
		return (BSESS_K_LISTEN);
	if (BSESS_NAMED("resources/subscribe") &&
	    env->p_uri.type == ENVELOPE_STRING)
		bsess_sub_add(s, line + env->p_uri.off, env->p_uri.len);
	else if (BSESS_NAMED("resources/unsubscribe") &&
	    env->p_uri.type == ENVELOPE_STRING)
		bsess_sub_del(s, line + env->p_uri.off, env->p_uri.len);
	else if (BSESS_NAMED("logging/setLevel") &&
	    env->p_level.type == ENVELOPE_STRING &&
	    env->p_level.len <= BSESS_LEVEL_MAX_BYTES) {
		memcpy(s->level, line + env->p_level.off, env->p_level.len);
		s->level[env->p_level.len] = '\0';
	} else if (BSESS_NAMED("tools/list"))
		s->lists |= BSESS_LIST_TOOLS;
	else if (BSESS_NAMED("prompts/list"))
		s->lists |= BSESS_LIST_PROMPTS;
	else if (BSESS_NAMED("resources/list") ||
	    BSESS_NAMED("resources/templates/list"))
		s->lists |= BSESS_LIST_RESOURCES;
#undef BSESS_NAMED
	return (BSESS_K_OTHER);
}

enum bsess_verdict
bsess_from_client(struct bsess *s, const char *line, size_t len,
    const struct envelope *env, int ok, int *untracked)
{
	const struct envelope_value	*id = &env->id;
	int				 kind;

	*untracked = 0;
	if (!ok)
		return (BSESS_FORWARD);	/* mcpd will say what is wrong */
	if (env->method.type == ENVELOPE_STRING) {
		if (id->type == ENVELOPE_ABSENT) {
			if (bsess_is(line, &env->method,
			    "notifications/initialized"))
				s->initialized = 1;
			else if (hmap_count(s->listens) > 0 &&
			    bsess_is(line, &env->method,
			    "notifications/cancelled") &&
			    bsess_valid_id(&env->p_request_id))
				bsess_listen_forget(s, line +
				    env->p_request_id.off,
				    env->p_request_id.len);
			return (BSESS_FORWARD);
		}
		kind = bsess_note_request(s, line, len, env);
		if (kind == BSESS_K_LISTEN && bsess_valid_id(id)) {
			if (hmap_get(s->reqs, line + id->off, id->len) ==
			    NULL && bsess_listen_keep(s, line, len, id))
				return (BSESS_FORWARD);
			*untracked = BSESS_UNREPLAYABLE;
			kind = BSESS_K_OTHER;
		}
		if (!bsess_valid_id(id) ||
		    (hmap_count(s->reqs) >= BSESS_MAX_INFLIGHT &&
		    hmap_get(s->reqs, line + id->off, id->len) == NULL)) {
			*untracked = BSESS_UNTRACKED;
			return (BSESS_FORWARD);
		}
		(void)hmap_put(s->reqs, line + id->off, id->len,
		    BSESS_KIND(kind));
		return (BSESS_FORWARD);
	}
	/* A reply to one of mcpd's requests. */
	if (env->method.type == ENVELOPE_ABSENT && bsess_valid_id(id)) {
		if (hmap_del(s->stale, line + id->off, id->len) != NULL)
			return (BSESS_DROP);
		(void)hmap_del(s->sreqs, line + id->off, id->len);
	}
	return (BSESS_FORWARD);
}

/* The reply to the replayed initialize. */
static void
bsess_replay_reply(struct bsess *s, const char *line,
    const struct envelope *env)
{
	if (env->result.type != ENVELOPE_OBJECT) {
		s->outcome = BSESS_INIT_ERROR;
		return;
	}
	s->outcome = bsess_init_compare(s->init_result, s->init_result_len,
	    line + env->result.off, env->result.len);
	if (s->outcome == BSESS_INIT_CHANGED) {
		/* The next connection is compared with this one. */
		free(s->init_result);
		s->init_result_len = env->result.len;
		s->init_result = xmalloc(env->result.len);
		memcpy(s->init_result, line + env->result.off,
		    env->result.len);
	}
}

enum bsess_verdict
bsess_from_server(struct bsess *s, const char *line, size_t len,
    const struct envelope *env, int ok)
{
	const struct envelope_value	*id = &env->id;
	void				*v;

	(void)len;
	if (!ok)
		return (BSESS_FORWARD);
	if (env->method.type == ENVELOPE_STRING &&
	    id->type == ENVELOPE_ABSENT) {
		if (hmap_count(s->listens) > 0 &&
		    bsess_is(line, &env->method, BSESS_ACKNOWLEDGED))
			return (bsess_listen_acked(s, line, env));
		return (BSESS_FORWARD);
	}
	if (!bsess_valid_id(id))
		return (BSESS_FORWARD);
	if (env->method.type == ENVELOPE_STRING) {
		/* mcpd's request to the client. */
		(void)hmap_del(s->stale, line + id->off, id->len);
		if (hmap_count(s->sreqs) < BSESS_MAX_INFLIGHT)
			(void)hmap_put(s->sreqs, line + id->off, id->len,
			    BSESS_KIND(BSESS_K_OTHER));
		return (BSESS_FORWARD);
	}
	if (env->method.type != ENVELOPE_ABSENT)
		return (BSESS_FORWARD);
	if (hmap_count(s->own) > 0 &&
	    (v = hmap_del(s->own, line + id->off, id->len)) != NULL) {
		if (BSESS_KIND_OF(v) == BSESS_K_INIT)
			bsess_replay_reply(s, line, env);
		return (BSESS_SWALLOW);
	}
	v = hmap_del(s->reqs, line + id->off, id->len);
	if (v == NULL && hmap_count(s->listens) > 0)
		bsess_listen_forget(s, line + id->off, id->len);
	if (v != NULL && BSESS_KIND_OF(v) == BSESS_K_INIT &&
	    env->result.type == ENVELOPE_OBJECT) {
		free(s->init_result);
		s->init_result_len = env->result.len;
		s->init_result = xmalloc(env->result.len);
		memcpy(s->init_result, line + env->result.off,
		    env->result.len);
	}
	return (BSESS_FORWARD);
}

size_t
bsess_inflight(const struct bsess *s)
{
	return (hmap_count(s->reqs));
}

void
bsess_inflight_first(const struct bsess *s, struct bsess_iter *i)
{
	hmap_iter_init(s->reqs, &i->it);
}

int
bsess_inflight_next(struct bsess_iter *i, const char **id, size_t *idlen)
{
	const void	*key;

	if (!hmap_iter_next(&i->it, &key, idlen, NULL))
		return (0);
	*id = key;
	return (1);
}

size_t
bsess_listens(const struct bsess *s)
{
	return (hmap_count(s->listens));
}

void
bsess_listen_first(const struct bsess *s, struct bsess_iter *i)
{
	hmap_iter_init(s->listens, &i->it);
}

int
bsess_listen_next(struct bsess_iter *i, const char **id, size_t *idlen)
{
	return (bsess_inflight_next(i, id, idlen));
}

static void
bsess_clear(struct hmap **m)
{
	hmap_free(*m);
	*m = hmap_new(BSESS_SEED);
}

size_t
bsess_lost(struct bsess *s)
{
	struct bsess_listen	*l;
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen, n;

	bsess_clear(&s->reqs);
	bsess_clear(&s->own);
	/* Only the lost connection's requests are stale now. */
	bsess_clear(&s->stale);
	n = hmap_count(s->sreqs);
	hmap_iter_init(s->sreqs, &it);
	while (hmap_iter_next(&it, &key, &keylen, NULL))
		(void)hmap_put(s->stale, key, keylen,
		    BSESS_KIND(BSESS_K_OTHER));
	bsess_clear(&s->sreqs);
	if (s->outcome == BSESS_INIT_PENDING)
		s->outcome = BSESS_INIT_NONE;
	/* The listens stay, to be replayed; no acknowledgement is due. */
	TAILQ_FOREACH(l, &s->listen_order, entry)
		l->replayed = 0;
	return (n);
}

/* A new id of the bridge's own, registered with kind; JSON text in id. */
static size_t
bsess_own_id(struct bsess *s, int kind, char *id, size_t size)
{
	int	 n;

	n = snprintf(id, size, "\"" BSESS_ID_PREFIX "%llu\"",
	    (unsigned long long)++s->own_seq);
	if (n < 0 || (size_t)n >= size)
		abort();
	(void)hmap_put(s->own, id, (size_t)n, BSESS_KIND(kind));
	return ((size_t)n);
}

/* The client's initialize and what followed it, as bsess_replay says. */
static void
bsess_replay_init(struct bsess *s, struct sbuf *b)
{
	char		 id[64];
	size_t		 idlen, i;

	idlen = bsess_own_id(s, BSESS_K_INIT, id, sizeof id);
	sbuf_add(b, s->init_line, s->init_id_off);
	sbuf_add(b, id, idlen);
	sbuf_add(b, s->init_line + s->init_id_off +
	    s->init_id_len, s->init_len - s->init_id_off - s->init_id_len);
	sbuf_add(b, "\n", 1);
	if (s->initialized) {
		static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/initialized\"}\n";

		sbuf_add(b, note, sizeof note - 1);
	}
	for (i = 0; i < s->nsubs; i++) {
		(void)bsess_own_id(s, BSESS_K_OTHER, id, sizeof id);
		sbuf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"resources/subscribe\",\"params\":"
		    "{\"uri\":", id);
		sbuf_adds(b, s->subs[i]);
		sbuf_add(b, "}}\n", 3);
	}
	if (s->level[0] != '\0') {
		(void)bsess_own_id(s, BSESS_K_OTHER, id, sizeof id);
		sbuf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"logging/setLevel\",\"params\":"
		    "{\"level\":%s}}\n", id, s->level);
	}
}

char *
bsess_replay(struct bsess *s, size_t *lenp)
{
	struct sbuf		 b = { NULL, 0, 0, 0 };
	struct bsess_listen	*l;

	bsess_clear(&s->own);
	s->outcome = BSESS_INIT_NONE;
	if (s->init_line != NULL && s->init_result != NULL) {
		bsess_replay_init(s, &b);
		s->outcome = BSESS_INIT_PENDING;
	}
	TAILQ_FOREACH(l, &s->listen_order, entry) {
		sbuf_add(&b, l->line, l->len);
		sbuf_add(&b, "\n", 1);
		l->replayed = 1;
	}
	if (b.len == 0)
		return (NULL);
	*lenp = b.len;
	return (b.p);
}

enum bsess_init
bsess_replay_outcome(const struct bsess *s)
{
	return (s->outcome);
}

unsigned
bsess_lists(const struct bsess *s)
{
	return (s->lists);
}

size_t
bsess_subs(const struct bsess *s)
{
	return (s->nsubs);
}

const char *
bsess_level(const struct bsess *s)
{
	return (s->level);
}

/* Equal members (both absent counts as equal). */
static int
bsess_same(const cJSON *a, const cJSON *b, const char *name)
{
	const cJSON	*x = cJSON_GetObjectItemCaseSensitive(a, name);
	const cJSON	*y = cJSON_GetObjectItemCaseSensitive(b, name);

	if (x == NULL || y == NULL)
		return (x == y);
	return (cJSON_Compare(x, y, 1));
}

enum bsess_init
bsess_init_compare(const char *before, size_t before_len, const char *after,
    size_t after_len)
{
	cJSON		*a, *b;
	enum bsess_init	 r;

	a = cJSON_ParseWithLength(before, before_len);
	b = cJSON_ParseWithLength(after, after_len);
	if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
		r = BSESS_INIT_ERROR;
	else if (!bsess_same(a, b, "protocolVersion"))
		r = BSESS_INIT_VERSION;
	else if (!bsess_same(a, b, "capabilities") ||
	    !bsess_same(a, b, "serverInfo"))
		r = BSESS_INIT_CHANGED;
	else
		r = BSESS_INIT_SAME;
	cJSON_Delete(a);
	cJSON_Delete(b);
	return (r);
}

size_t
bsess_error_line(char *buf, size_t size, const char *id, size_t idlen,
    int code, const char *message)
{
	int	 n;

	if (idlen > INT32_MAX)
		return (0);
	n = snprintf(buf, size, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":"
	    "{\"code\":%d,\"message\":\"%s\"}}\n", (int)idlen, id, code,
	    message);
	if (n < 0 || (size_t)n >= size)
		return (0);
	return ((size_t)n);
}
