/*
 * mcpparam.c -- "x-mcp-header" annotations read from a tool's
 * inputSchema and checked; a call's arguments as Mcp-Param-* headers
 * (see mcpparam.h).
 *
 * The walk visits every subschema the schema holds, not only the
 * properties chain: an annotation anywhere else makes the tool invalid,
 * so it must be seen to be refused.  cJSON bounds the nesting (its
 * CJSON_NESTING_LIMIT), so the recursion is bounded too.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "esc.h"
#include "mcphdr.h"
#include "mcpparam.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

#define MCPPARAM_SAFE_INT	9007199254740991.0	/* 2^53 - 1 */
#define STR_(x)			#x
#define STR(x)			STR_(x)

/* Where an annotation may not be: the keyword that holds subschemas. */
static const struct {
	const char	*key;
	int		 map;	/* an object of name -> subschema */
} unreachable[] = {
	{ "items", 0 }, { "prefixItems", 0 }, { "contains", 0 },
	{ "additionalProperties", 0 }, { "unevaluatedProperties", 0 },
	{ "unevaluatedItems", 0 }, { "propertyNames", 0 },
	{ "patternProperties", 1 }, { "dependentSchemas", 1 },
	{ "oneOf", 0 }, { "anyOf", 0 }, { "allOf", 0 }, { "not", 0 },
	{ "if", 0 }, { "then", 0 }, { "else", 0 },
	{ "$defs", 1 }, { "definitions", 1 },
};

struct scan {
	struct mcpparams	*out;
	const char		*path[MCPPARAM_DEPTH_MAX + 1];
	size_t			 depth;		/* may pass the array's size */
	const char		*under;		/* the first unreachable keyword */
	char			*why;
};

int
mcpparam_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return (1);
	return (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* The scan's place: property "a.b" (escaped, cut), or the root. */
static char *
scan_where(const struct scan *sc)
{
	struct sbuf	 b;
	char		*e;
	size_t		 i, n;

	if (sc->depth == 0)
		return (xstrdup("the schema's root"));
	sbuf_init(&b, 64);
	sbuf_add(&b, "property \"", 10);
	n = sc->depth < nitems(sc->path) ? sc->depth : nitems(sc->path);
	for (i = 0; i < n; i++) {
		e = esc_text_max(sc->path[i], strlen(sc->path[i]), 0, 64);
		if (i > 0)
			sbuf_add(&b, ".", 1);
		sbuf_add(&b, e, strlen(e));
		free(e);
	}
	if (n < sc->depth)
		sbuf_add(&b, "...", 3);
	sbuf_add(&b, "\"", 1);
	return (b.p);
}

static int	scan_fail(struct scan *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));

static int
scan_fail(struct scan *sc, const char *fmt, ...)
{
	va_list	 ap;
	char	*where, *text;

	where = scan_where(sc);
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	xasprintf(&sc->why, "%s: %s", where, text);
	free(where);
	free(text);
	return (-1);
}

/* An annotation's name: a token, not too long, not taken. */
static int
scan_name(struct scan *sc, const cJSON *v)
{
	const char	*s;
	size_t		 i, len;
	char		*e;
	int		 rc;

	if (!cJSON_IsString(v))
		return (scan_fail(sc, MCPPARAM_KEY " is not a string"));
	s = v->valuestring;
	if ((len = strlen(s)) == 0)
		return (scan_fail(sc, MCPPARAM_KEY " is empty"));
	if (len > MCPPARAM_NAME_MAX)
		return (scan_fail(sc, MCPPARAM_KEY " is longer than "
		    STR(MCPPARAM_NAME_MAX) " bytes"));
	for (i = 0; i < len; i++) {
		if (!mcpparam_tchar((unsigned char)s[i])) {
			e = esc_text_max(s, len, 0, 80);
			rc = scan_fail(sc, MCPPARAM_KEY " \"%s\" is not an "
			    "HTTP token (RFC 9110)", e);
			free(e);
			return (rc);
		}
	}
	for (i = 0; i < sc->out->n; i++) {
		if (strcasecmp(sc->out->p[i].name, s) == 0)
			return (scan_fail(sc, MCPPARAM_KEY " \"%s\" is "
			    "another's too (names are compared without case)",
			    s));
	}
	return (0);
}

static int
scan_annotation(struct scan *sc, const cJSON *node, const cJSON *v)
{
	static const char *const kinds[] = { "string", "integer", "boolean" };
	struct mcpparam	*p;
	const cJSON	*type;
	size_t		 i, k;

	if (sc->under != NULL)
		return (scan_fail(sc, MCPPARAM_KEY " under \"%s\": only a "
		    "chain of properties may lead to it", sc->under));
	if (sc->depth == 0)
		return (scan_fail(sc, MCPPARAM_KEY " on the root"));
	if (sc->depth > MCPPARAM_DEPTH_MAX)
		return (scan_fail(sc, MCPPARAM_KEY " deeper than "
		    STR(MCPPARAM_DEPTH_MAX) " properties"));
	if (scan_name(sc, v) == -1)
		return (-1);
	type = cJSON_GetObjectItemCaseSensitive(node, "type");
	for (k = 0; k < nitems(kinds); k++) {
		if (cJSON_IsString(type) &&
		    strcmp(type->valuestring, kinds[k]) == 0)
			break;
	}
	if (k == nitems(kinds))
		return (scan_fail(sc, MCPPARAM_KEY " on a property whose type "
		    "is not string, integer or boolean"));
	if (sc->out->n == MCPPARAM_MAX)
		return (scan_fail(sc, "more than " STR(MCPPARAM_MAX)
		    " " MCPPARAM_KEY " annotations"));
	for (i = 0; i < sc->depth; i++) {
		if (strlen(sc->path[i]) > MCPPARAM_KEY_MAX)
			return (scan_fail(sc, "a property name on the path is "
			    "longer than " STR(MCPPARAM_KEY_MAX)
			    " bytes"));
	}
	p = &sc->out->p[sc->out->n++];
	p->depth = sc->depth;
	p->path = xcalloc(sc->depth, sizeof *p->path);
	for (i = 0; i < sc->depth; i++)
		p->path[i] = xstrdup(sc->path[i]);
	p->name = xstrdup(v->valuestring);
	p->kind = (enum mcpparam_kind)k;
	return (0);
}

static int	scan_node(struct scan *, const cJSON *);

/* The subschemas of an unreachable keyword: one, an array, or a map. */
static int
scan_unreachable(struct scan *sc, const cJSON *sub, int map,
    const char *key)
{
	const cJSON	*c;
	const char	*was = sc->under;
	int		 rc = 0;

	if (sc->under == NULL)
		sc->under = key;
	if (cJSON_IsObject(sub) && !map)
		rc = scan_node(sc, sub);
	else if (cJSON_IsArray(sub) || cJSON_IsObject(sub)) {
		cJSON_ArrayForEach(c, sub) {
			if ((rc = scan_node(sc, c)) == -1)
				break;
		}
	}
	sc->under = was;
	return (rc);
}

static int
scan_node(struct scan *sc, const cJSON *node)
{
	const cJSON	*v, *props, *c;
	size_t		 i;

	if (!cJSON_IsObject(node))
		return (0);
	v = cJSON_GetObjectItemCaseSensitive(node, MCPPARAM_KEY);
	if (v != NULL && scan_annotation(sc, node, v) == -1)
		return (-1);
	props = cJSON_GetObjectItemCaseSensitive(node, "properties");
	if (cJSON_IsObject(props)) {
		cJSON_ArrayForEach(c, props) {
			if (sc->depth < nitems(sc->path))
				sc->path[sc->depth] = c->string;
			sc->depth++;
			if (scan_node(sc, c) == -1)
				return (-1);
			sc->depth--;
		}
	}
	for (i = 0; i < nitems(unreachable); i++) {
		v = cJSON_GetObjectItemCaseSensitive(node, unreachable[i].key);
		if (v != NULL && scan_unreachable(sc, v, unreachable[i].map,
		    unreachable[i].key) == -1)
			return (-1);
	}
	return (0);
}

int
mcpparam_scan(const cJSON *schema, struct mcpparams *out, char **why)
{
	struct scan	 sc;

	memset(out, 0, sizeof *out);
	*why = NULL;
	memset(&sc, 0, sizeof sc);
	sc.out = out;
	if (scan_node(&sc, schema) == 0)
		return (0);
	mcpparam_clear(out);
	*why = sc.why;
	return (-1);
}

void
mcpparam_clear(struct mcpparams *ps)
{
	size_t	i, j;

	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->p[i].depth; j++)
			free(ps->p[i].path[j]);
		free(ps->p[i].path);
		free(ps->p[i].name);
	}
	ps->n = 0;
}

/* The value at p's path in args, as header text (new), or NULL: none. */
static char *
mcpparam_text(const struct mcpparam *p, const cJSON *args)
{
	const cJSON	*v = args;
	char		 num[32];
	size_t		 i;

	for (i = 0; i < p->depth; i++) {
		if (!cJSON_IsObject(v))
			return (NULL);
		v = cJSON_GetObjectItemCaseSensitive(v, p->path[i]);
	}
	if (cJSON_IsString(v))
		return (mcphdr_value(v->valuestring, strlen(v->valuestring)));
	if (cJSON_IsBool(v))
		return (xstrdup(cJSON_IsTrue(v) ? "true" : "false"));
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	    floor(v->valuedouble) == v->valuedouble &&
	    fabs(v->valuedouble) <= MCPPARAM_SAFE_INT) {
		snprintf(num, sizeof num, "%lld", (long long)v->valuedouble);
		return (xstrdup(num));
	}
	return (NULL);
}

int
mcpparam_headers(const struct mcpparams *ps, const cJSON *args,
    char *out[MCPPARAM_MAX], char **why)
{
	size_t	 i, n = 0, j;
	char	*text;

	*why = NULL;
	for (i = 0; i < ps->n; i++) {
		if ((text = mcpparam_text(&ps->p[i], args)) == NULL)
			continue;
		if (strlen(text) > MCPPARAM_VALUE_MAX) {
			xasprintf(why, "the argument mirrored into its "
			    MCPPARAM_PREFIX "%s header is longer than "
			    STR(MCPPARAM_VALUE_MAX) " bytes as a header value",
			    ps->p[i].name);
			free(text);
			for (j = 0; j < n; j++)
				free(out[j]);
			return (-1);
		}
		xasprintf(&out[n++], MCPPARAM_PREFIX "%s: %s", ps->p[i].name,
		    text);
		free(text);
	}
	return ((int)n);
}
