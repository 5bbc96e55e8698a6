/*
 * worker_modern_cache.c -- what a server of MCP 2026-07-28 says anyone may
 * be given again, kept for as long as it says.
 *
 * A 2026 server's lists (tools, prompts, resources, resource templates)
 * and resources/read carry ttlMs and cacheScope.  A result with cacheScope
 * "public" and ttlMs > 0 depends on no caller (mcpd's own _meta is the
 * same for every request anyway), so the same request -- same method, same
 * cursor, or the same uri for a read, nothing else in its params but
 * _meta -- is answered from here until the ttl is up, without asking the
 * server.  "private", ttlMs 0 or absent, an error, input_required: never
 * kept.  The result goes on as the server gave it, ttlMs and cacheScope
 * included (2025 clients ignore them; client_modern.c makes them its own).
 *
 * Dropped: a kind's lists on its list_changed, a uri's read on its
 * resources/updated (both from the listen stream), a method's pages when
 * the server refuses one of them (a cursor gone stale), everything when
 * the process ends (worker_modern_end).  A result that was asked for
 * before a drop and comes after it is not kept: it may be the old one.
 *
 * Bounded: WMCACHE_MAX_ENTRIES results, WMCACHE_MAX_BYTES of them in all,
 * none larger than WMCACHE_ENTRY_MAX_BYTES, none kept longer than
 * WMCACHE_TTL_MAX_MS; the oldest go first.  Requests waiting for a result
 * to keep: WMCACHE_MAX_PENDING (past it, they are simply not kept).
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "envelope.h"
#include "hmap.h"
#include "modern.h"
#include "util.h"
#include "worker_int.h"
#include "xmalloc.h"

#define WMCACHE_MAX_ENTRIES	256
#define WMCACHE_MAX_BYTES	(8 * 1024 * 1024)
#define WMCACHE_ENTRY_MAX_BYTES	(1024 * 1024)
#define WMCACHE_TTL_MAX_MS	(3600ULL * 1000)
#define WMCACHE_MAX_PENDING	1024
#define WMCACHE_KEY_MAX_BYTES	4200	/* method, a newline, cursor or uri */
#define WMCACHE_ID_MAX_BYTES	64

/* The methods, and the list_changed kind each depends on (0: reads). */
static const struct {
	const char	*method;
	unsigned int	 kind;
	const char	*param;		/* the one that keys it */
} wmcache_methods[] = {
	{ "tools/list", MODERN_LISTEN_TOOLS, "cursor" },
	{ "prompts/list", MODERN_LISTEN_PROMPTS, "cursor" },
	{ "resources/list", MODERN_LISTEN_RESOURCES, "cursor" },
	{ "resources/templates/list", MODERN_LISTEN_RESOURCES, "cursor" },
	{ "resources/read", 0, "uri" },
};

struct wmcache_entry {
	char			*key;
	size_t			 key_len;
	size_t			 method;	/* in wmcache_methods */
	char			*result;
	size_t			 result_len;
	uint64_t		 expires_ms;
	TAILQ_ENTRY(wmcache_entry) entry;
};

/* A request sent up whose result may be kept. */
struct wmcache_pending {
	char			*key;
	size_t			 key_len;
	size_t			 method;
	uint64_t		 gen;
};

struct wmcache {
	struct hmap		*entries;	/* key -> entry */
	TAILQ_HEAD(, wmcache_entry) order;	/* oldest first */
	size_t			 bytes;
	struct hmap		*pending;	/* upstream id text -> pending */
	uint64_t		 gen;		/* bumped by every drop */
	uint64_t		 hits;
};

struct wmcache *
wmcache_new(void)
{
	struct wmcache	*c;

	c = xcalloc(1, sizeof *c);
	c->entries = hmap_new(hmap_random_seed());
	c->pending = hmap_new(hmap_random_seed());
	TAILQ_INIT(&c->order);
	return (c);
}

static void
wmcache_remove(struct wmcache *c, struct wmcache_entry *e)
{
	(void)hmap_del(c->entries, e->key, e->key_len);
	TAILQ_REMOVE(&c->order, e, entry);
	c->bytes -= e->result_len + e->key_len;
	free(e->key);
	free(e->result);
	free(e);
}

static void
wmcache_pending_free(struct wmcache_pending *p)
{
	free(p->key);
	free(p);
}

void
wmcache_free(struct wmcache *c)
{
	struct wmcache_entry	*e;
	struct hmap_iter	 it;
	void			*v;

	if (c == NULL)
		return;
	while ((e = TAILQ_FIRST(&c->order)) != NULL)
		wmcache_remove(c, e);
	hmap_iter_init(c->pending, &it);
	while (hmap_iter_next(&it, NULL, NULL, &v))
		wmcache_pending_free(v);
	hmap_free(c->pending);
	hmap_free(c->entries);
	free(c);
}

/*
 * The key of a request (method NUL-free text, a newline, the cursor or
 * uri), or NULL when it is not one to answer from here: another method,
 * params other than the key's and _meta, a key too long.
 */
static char *
wmcache_key(const char *line, const struct envelope *env, size_t *method,
    size_t *key_len)
{
	cJSON		*params;
	const cJSON	*p;
	const char	*arg = "";
	char		*key;
	size_t		 i;
	int		 n;

	for (i = 0; i < nitems(wmcache_methods) && !envelope_string_eq(line,
	    &env->method, wmcache_methods[i].method); i++)
		;
	if (i == nitems(wmcache_methods))
		return (NULL);
	if (env->params.type == ENVELOPE_ABSENT) {
		if (wmcache_methods[i].kind == 0)
			return (NULL);	/* a read names its uri */
		params = NULL;
	} else if (env->params.type != ENVELOPE_OBJECT ||
	    env->params.len > WMCACHE_KEY_MAX_BYTES * 2 ||
	    (params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len)) == NULL)
		return (NULL);
	cJSON_ArrayForEach(p, params) {
		if (strcmp(p->string, "_meta") == 0)
			continue;
		if (strcmp(p->string, wmcache_methods[i].param) != 0 ||
		    !cJSON_IsString(p)) {
			cJSON_Delete(params);
			return (NULL);
		}
		arg = p->valuestring;
	}
	if (wmcache_methods[i].kind == 0 && *arg == '\0') {
		cJSON_Delete(params);
		return (NULL);
	}
	n = xasprintf(&key, "%s\n%s", wmcache_methods[i].method, arg);
	cJSON_Delete(params);
	if ((size_t)n > WMCACHE_KEY_MAX_BYTES) {
		free(key);
		return (NULL);
	}
	*method = i;
	*key_len = (size_t)n;
	return (key);
}

char *
wmcache_request(struct wmcache *c, const char *line,
    const struct envelope *env, size_t *result_len)
{
	struct wmcache_entry	*e;
	struct wmcache_pending	*p;
	char			*key, *found;
	size_t			 method, key_len;
	uint64_t		 now = clock_now_ms();

	if (env->id.type == ENVELOPE_ABSENT ||
	    env->id.len > WMCACHE_ID_MAX_BYTES ||
	    (key = wmcache_key(line, env, &method, &key_len)) == NULL)
		return (NULL);
	e = hmap_get(c->entries, key, key_len);
	if (e != NULL && e->expires_ms > now) {
		free(key);
		c->hits++;
		found = xmalloc(e->result_len + 1);
		memcpy(found, e->result, e->result_len);
		found[e->result_len] = '\0';
		*result_len = e->result_len;
		return (found);
	}
	if (e != NULL)
		wmcache_remove(c, e);
	if (hmap_count(c->pending) >= WMCACHE_MAX_PENDING) {
		free(key);
		return (NULL);
	}
	p = xcalloc(1, sizeof *p);
	p->key = key;
	p->key_len = key_len;
	p->method = method;
	p->gen = c->gen;
	p = hmap_put(c->pending, line + env->id.off, env->id.len, p);
	if (p != NULL)
		wmcache_pending_free(p);	/* an id used twice */
	return (NULL);
}

/*
 * How long a result says it may be given to anyone: its ttlMs when its
 * cacheScope is "public" (capped), else 0.
 */
static uint64_t
wmcache_public_ms(const char *text, size_t len)
{
	cJSON		*r;
	const cJSON	*ttl, *scope, *type;
	uint64_t	 ms = 0;

	if (!bytes_has(text, len, "\"public\"", 8, 1) ||
	    (r = cJSON_ParseWithLength(text, len)) == NULL)
		return (0);
	ttl = cJSON_GetObjectItemCaseSensitive(r, "ttlMs");
	scope = cJSON_GetObjectItemCaseSensitive(r, "cacheScope");
	type = cJSON_GetObjectItemCaseSensitive(r, "resultType");
	if (cJSON_IsNumber(ttl) && ttl->valuedouble >= 1 &&
	    cJSON_IsString(scope) && strcmp(scope->valuestring, "public") ==
	    0 && (type == NULL || (cJSON_IsString(type) &&
	    strcmp(type->valuestring, "complete") == 0)))
		ms = ttl->valuedouble >= (double)WMCACHE_TTL_MAX_MS ?
		    WMCACHE_TTL_MAX_MS : (uint64_t)ttl->valuedouble;
	cJSON_Delete(r);
	return (ms);
}

/* Drop the pages of a method (a stale cursor, or its list changed). */
static void
wmcache_drop_method(struct wmcache *c, size_t method)
{
	struct wmcache_entry	*e, *next;

	c->gen++;
	TAILQ_FOREACH_SAFE(e, &c->order, entry, next) {
		if (e->method == method)
			wmcache_remove(c, e);
	}
}

void
wmcache_response(struct wmcache *c, const char *line,
    const struct envelope *env)
{
	struct wmcache_pending	*p;
	struct wmcache_entry	*e;
	uint64_t		 ms;

	if (env->id.len > WMCACHE_ID_MAX_BYTES ||
	    (p = hmap_del(c->pending, line + env->id.off, env->id.len)) ==
	    NULL)
		return;
	if (env->error.type != ENVELOPE_ABSENT) {
		if (wmcache_methods[p->method].kind != 0)
			wmcache_drop_method(c, p->method);
		wmcache_pending_free(p);
		return;
	}
	if (env->result.type != ENVELOPE_OBJECT || p->gen != c->gen ||
	    env->result.len > WMCACHE_ENTRY_MAX_BYTES ||
	    (ms = wmcache_public_ms(line + env->result.off,
	    env->result.len)) == 0) {
		wmcache_pending_free(p);
		return;
	}
	if ((e = hmap_get(c->entries, p->key, p->key_len)) != NULL)
		wmcache_remove(c, e);
	while ((e = TAILQ_FIRST(&c->order)) != NULL &&
	    (hmap_count(c->entries) >= WMCACHE_MAX_ENTRIES || c->bytes +
	    env->result.len + p->key_len > WMCACHE_MAX_BYTES))
		wmcache_remove(c, e);
	e = xcalloc(1, sizeof *e);
	e->key = p->key;
	e->key_len = p->key_len;
	e->method = p->method;
	e->result = xmalloc(env->result.len);
	memcpy(e->result, line + env->result.off, env->result.len);
	e->result_len = env->result.len;
	e->expires_ms = clock_now_ms() + ms;
	free(p);
	(void)hmap_put(c->entries, e->key, e->key_len, e);
	TAILQ_INSERT_TAIL(&c->order, e, entry);
	c->bytes += e->result_len + e->key_len;
}

void
wmcache_note(struct wmcache *c, const char *line, const struct envelope *env)
{
	unsigned int	 kind;
	char		 method[64], *key, *uri;
	size_t		 i, key_len;
	struct wmcache_entry *e;

	if (TAILQ_EMPTY(&c->order) && hmap_count(c->pending) == 0)
		return;
	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		return;
	if (strcmp(method, "notifications/resources/updated") == 0) {
		uri = envelope_string_dup(line, &env->p_uri,
		    MODERN_LISTEN_URI_MAX, NULL);
		if (uri == NULL)
			return;
		c->gen++;
		key_len = (size_t)xasprintf(&key, "resources/read\n%s", uri);
		if ((e = hmap_get(c->entries, key, key_len)) != NULL)
			wmcache_remove(c, e);
		free(key);
		free(uri);
		return;
	}
	if ((kind = modern_listen_kind(method)) == 0)
		return;
	for (i = 0; i < nitems(wmcache_methods); i++) {
		if (wmcache_methods[i].kind == kind)
			wmcache_drop_method(c, i);
	}
}

uint64_t
wmcache_hits(const struct wmcache *c)
{
	return (c != NULL ? c->hits : 0);
}
