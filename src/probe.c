/*
 * probe.c -- which era of MCP a stdio server speaks, and how mcpd found
 * out (probe.h; pure: no I/O).
 *
 * The key is hashed piece by piece (EVP_DigestUpdate), so the expanded
 * environment, which may hold secrets, is never copied.  The cache is a
 * small array searched from the most recent end: starts are rare and it
 * holds at most PROBE_CACHE_MAX verdicts.
 */
#include "config.h"

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "modern.h"
#include "probe.h"
#include "util.h"
#include "xmalloc.h"

#define PROBE_KEY_DOMAIN	"mcpd probe key 1"

struct probe_entry {
	uint8_t			 key[PROBE_KEY_BYTES];
	struct probe_verdict	 v;
};

/* Least recent first: a hit moves to the end, a new one goes there. */
struct probe_cache {
	struct probe_entry	*v;
	size_t			 n, max;
};

/* A length (8 bytes, big-endian) and the bytes. */
static void
probe_key_piece(EVP_MD_CTX *ctx, const char *p, size_t len)
{
	uint8_t	 n[8];
	size_t	 i;

	for (i = 0; i < sizeof n; i++)
		n[i] = (uint8_t)((uint64_t)len >> (8 * (7 - i)));
	if (EVP_DigestUpdate(ctx, n, sizeof n) != 1 ||
	    EVP_DigestUpdate(ctx, p, len) != 1)
		abort();
}

static void
probe_key_strs(EVP_MD_CTX *ctx, char *const *v, size_t n)
{
	size_t	 i;
	char	 count[24];

	snprintf(count, sizeof count, "%zu", n);
	probe_key_piece(ctx, count, strlen(count));
	for (i = 0; i < n; i++)
		probe_key_piece(ctx, v[i], strlen(v[i]));
}

void
probe_key(const struct conf_server *cs, uint8_t key[PROBE_KEY_BYTES])
{
	EVP_MD_CTX	*ctx;
	unsigned int	 len = 0;

	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		abort();
	probe_key_piece(ctx, PROBE_KEY_DOMAIN, strlen(PROBE_KEY_DOMAIN));
	probe_key_strs(ctx, cs->argv, cs->argc);
	probe_key_strs(ctx, cs->env, cs->envc);
	/* No cwd and an empty one differ: "0" or "1" and the path. */
	probe_key_piece(ctx, cs->cwd != NULL ? "1" : "0", 1);
	if (cs->cwd != NULL)
		probe_key_piece(ctx, cs->cwd, strlen(cs->cwd));
	if (EVP_DigestFinal_ex(ctx, key, &len) != 1 ||
	    len != PROBE_KEY_BYTES)
		abort();
	EVP_MD_CTX_free(ctx);
}

void
probe_key_hex(const uint8_t key[PROBE_KEY_BYTES], char hex[PROBE_KEY_HEX + 1])
{
	static const char	 digits[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < PROBE_KEY_BYTES; i++) {
		hex[2 * i] = digits[key[i] >> 4];
		hex[2 * i + 1] = digits[key[i] & 0xf];
	}
	hex[PROBE_KEY_HEX] = '\0';
}

static int
probe_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

int
probe_key_parse(const char *hex, uint8_t key[PROBE_KEY_BYTES])
{
	size_t	 i;
	int	 hi, lo;

	if (hex == NULL || strlen(hex) != PROBE_KEY_HEX)
		return (-1);
	for (i = 0; i < PROBE_KEY_BYTES; i++) {
		if ((hi = probe_hex_digit(hex[2 * i])) < 0 ||
		    (lo = probe_hex_digit(hex[2 * i + 1])) < 0)
			return (-1);
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return (0);
}

/*
 * The decisions.
 */

enum probe_first
probe_first(enum conf_protocol protocol, int remote,
    const struct probe_verdict *cached)
{
	if (protocol == CONF_PROTOCOL_2026)
		return (PROBE_FIRST_DISCOVER);
	/* A remote's era comes from mcpd-remote: its 400 to initialize. */
	if (remote || protocol == CONF_PROTOCOL_2025)
		return (PROBE_FIRST_INITIALIZE);
	if (cached != NULL && cached->era == PROBE_ERA_2025)
		return (PROBE_FIRST_INITIALIZE);
	return (PROBE_FIRST_PROBE);
}

enum probe_answer
probe_classify(const cJSON *response)
{
	const cJSON	*result, *versions, *v;

	result = cJSON_GetObjectItemCaseSensitive(response, "result");
	if (!cJSON_IsObject(result) || cJSON_GetObjectItemCaseSensitive(
	    response, "error") != NULL)
		return (PROBE_ANSWER_OTHER);
	versions = cJSON_GetObjectItemCaseSensitive(result,
	    "supportedVersions");
	if (!cJSON_IsArray(versions))
		return (PROBE_ANSWER_OTHER);
	cJSON_ArrayForEach(v, versions) {
		if (cJSON_IsString(v) && strcmp(v->valuestring,
		    MODERN_VERSION) == 0)
			return (PROBE_ANSWER_2026);
	}
	return (PROBE_ANSWER_OTHER);
}

enum probe_next
probe_next(enum probe_answer answer, struct probe_verdict *v)
{
	switch (answer) {
	case PROBE_ANSWER_2026:
		v->era = PROBE_ERA_2026;
		v->how = PROBE_HOW_DISCOVER;
		return (PROBE_NEXT_SESSION_2026);
	case PROBE_ANSWER_ENDED:
		v->era = PROBE_ERA_2025;
		v->how = PROBE_HOW_INTOLERANT;
		return (PROBE_NEXT_RESTART);
	case PROBE_ANSWER_SILENT:
		v->era = PROBE_ERA_2025;
		v->how = PROBE_HOW_SILENT;
		return (PROBE_NEXT_INITIALIZE);
	case PROBE_ANSWER_OTHER:
	default:
		v->era = PROBE_ERA_2025;
		v->how = PROBE_HOW_REFUSED;
		return (PROBE_NEXT_INITIALIZE);
	}
}

const char *
probe_era_name(enum probe_era era)
{
	switch (era) {
	case PROBE_ERA_2025:
		return ("2025");
	case PROBE_ERA_2026:
		return (MODERN_VERSION);
	default:
		return (NULL);
	}
}

static const char *probe_how_names[] = {
	[PROBE_HOW_NONE] = NULL,
	[PROBE_HOW_CONFIGURED] = "configured",
	[PROBE_HOW_DISCOVER] = "server/discover",
	[PROBE_HOW_REFUSED] = "server/discover refused",
	[PROBE_HOW_SILENT] = "server/discover unanswered",
	[PROBE_HOW_INTOLERANT] = "probe-intolerant",
	[PROBE_HOW_INIT_REFUSED] = "initialize refused",
};

const char *
probe_how_name(enum probe_how how)
{
	if ((size_t)how >= nitems(probe_how_names))
		return (NULL);
	return (probe_how_names[how]);
}

enum probe_how
probe_how_parse(const char *name)
{
	size_t	 i;

	for (i = 1; name != NULL && i < nitems(probe_how_names); i++) {
		if (strcmp(name, probe_how_names[i]) == 0)
			return ((enum probe_how)i);
	}
	return (PROBE_HOW_NONE);
}

/*
 * The cache.
 */

struct probe_cache *
probe_cache_new(size_t max)
{
	struct probe_cache	*c;

	c = xcalloc(1, sizeof *c);
	c->max = max > 0 ? max : 1;
	return (c);
}

void
probe_cache_free(struct probe_cache *c)
{
	if (c == NULL)
		return;
	free(c->v);
	free(c);
}

static ssize_t
probe_cache_find(const struct probe_cache *c,
    const uint8_t key[PROBE_KEY_BYTES])
{
	size_t	 i;

	for (i = c->n; i-- > 0;) {
		if (memcmp(c->v[i].key, key, PROBE_KEY_BYTES) == 0)
			return ((ssize_t)i);
	}
	return (-1);
}

static void
probe_cache_remove(struct probe_cache *c, size_t i)
{
	memmove(&c->v[i], &c->v[i + 1], (c->n - i - 1) * sizeof *c->v);
	c->n--;
}

int
probe_cache_get(struct probe_cache *c, const uint8_t key[PROBE_KEY_BYTES],
    struct probe_verdict *v)
{
	ssize_t			 i;
	struct probe_entry	 e;

	if (c == NULL || (i = probe_cache_find(c, key)) < 0)
		return (-1);
	e = c->v[i];
	probe_cache_remove(c, (size_t)i);
	c->v[c->n++] = e;
	*v = e.v;
	return (0);
}

void
probe_cache_put(struct probe_cache *c, const uint8_t key[PROBE_KEY_BYTES],
    const struct probe_verdict *v)
{
	ssize_t	 i;

	if ((i = probe_cache_find(c, key)) >= 0)
		probe_cache_remove(c, (size_t)i);
	if (v->era == PROBE_ERA_NONE)
		return;
	if (c->n == c->max)
		probe_cache_remove(c, 0);
	if (c->v == NULL)
		c->v = xreallocarray(NULL, c->max, sizeof *c->v);
	memcpy(c->v[c->n].key, key, PROBE_KEY_BYTES);
	c->v[c->n].v = *v;
	c->n++;
}

size_t
probe_cache_count(const struct probe_cache *c)
{
	return (c != NULL ? c->n : 0);
}

void
probe_cache_at(const struct probe_cache *c, size_t i,
    uint8_t key[PROBE_KEY_BYTES], struct probe_verdict *v)
{
	memcpy(key, c->v[i].key, PROBE_KEY_BYTES);
	*v = c->v[i].v;
}
