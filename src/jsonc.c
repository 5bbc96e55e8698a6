/*
 * jsonc.c -- JSON with comments and trailing commas (see jsonc.h).
 *
 * One pass turns comments and trailing commas into spaces, so that cJSON
 * reads the rest and every offset stays that of the original text; the
 * spans of values are found again by a scanner that relies on cJSON
 * having accepted the text (it never recurses: nesting is counted).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonc.h"
#include "xmalloc.h"

void
jsonc_position(const char *text, size_t len, size_t offset, size_t *line,
    size_t *column)
{
	size_t	 i;

	*line = 1;
	*column = 1;
	for (i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*column = 1;
		} else
			(*column)++;
	}
}

static char *
jsonc_error(const char *text, size_t len, size_t offset, const char *what)
{
	size_t	 line, column;
	char	*cause;

	jsonc_position(text, len, offset, &line, &column);
	xasprintf(&cause, "line %zu, column %zu: %s", line, column, what);
	return (cause);
}

char *
jsonc_clean(const char *text, size_t len, char **cause)
{
	char	*out;
	size_t	 i, start, comma = 0;
	int	 have_comma = 0;
	unsigned char c, prev = 0, before_comma = 0;

	*cause = NULL;
	out = xmalloc(len + 1);
	memcpy(out, text, len);
	out[len] = '\0';
	for (i = 0; i < len; i++) {
		c = out[i];
		if (c == '\0') {
			*cause = jsonc_error(text, len, i, "NUL byte");
			goto fail;
		}
		if (c == '"') {
			start = i;
			for (i++; i < len && out[i] != '"'; i++) {
				c = out[i];
				if (c < 0x20) {
					*cause = jsonc_error(text, len, i,
					    c == '\n' ? "unterminated string" :
					    "control character in a string");
					goto fail;
				}
				if (c != '\\')
					continue;
				if (i + 1 >= len)
					break;
				if ((unsigned char)out[i + 1] < 0x20) {
					*cause = jsonc_error(text, len, i + 1,
					    out[i + 1] == '\0' ? "NUL byte" :
					    "control character in a string");
					goto fail;
				}
				if (out[i + 1] == 'u' && len - i >= 6 &&
				    memcmp(out + i + 2, "0000", 4) == 0) {
					*cause = jsonc_error(text, len, i,
					    "\\u0000 in a string");
					goto fail;
				}
				i++;
			}
			if (i >= len) {
				*cause = jsonc_error(text, len, start,
				    "unterminated string");
				goto fail;
			}
			have_comma = 0;
			prev = '"';
			continue;
		}
		if (c == '/' && i + 1 < len && out[i + 1] == '/') {
			for (; i < len && out[i] != '\n'; i++) {
				if (out[i] == '\0') {
					*cause = jsonc_error(text, len, i,
					    "NUL byte");
					goto fail;
				}
				if (out[i] != '\r')
					out[i] = ' ';
			}
			continue;
		}
		if (c == '/' && i + 1 < len && out[i + 1] == '*') {
			start = i;
			out[i] = out[i + 1] = ' ';
			for (i += 2; i < len; i++) {
				if (out[i] == '\0') {
					*cause = jsonc_error(text, len, i,
					    "NUL byte");
					goto fail;
				}
				if (out[i] == '*' && i + 1 < len &&
				    out[i + 1] == '/') {
					out[i] = out[i + 1] = ' ';
					i++;
					break;
				}
				if (out[i] != '\n' && out[i] != '\r')
					out[i] = ' ';
			}
			if (i >= len) {
				*cause = jsonc_error(text, len, start,
				    "unterminated comment");
				goto fail;
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		/* cJSON would skip these as blanks; JSON has no such blanks. */
		if (c < 0x20) {
			*cause = jsonc_error(text, len, i, "control character");
			goto fail;
		}
		/* A comma after a value, not "[," or ",,". */
		if ((c == '}' || c == ']') && have_comma &&
		    before_comma != '[' && before_comma != '{' &&
		    before_comma != ',' && before_comma != 0)
			out[comma] = ' ';
		have_comma = (c == ',');
		if (have_comma) {
			comma = i;
			before_comma = prev;
		}
		prev = c;
	}
	return (out);

fail:
	free(out);
	return (NULL);
}

cJSON *
jsonc_parse(const char *text, size_t len, char **cause)
{
	cJSON		*root;
	const char	*end = NULL;
	char		*clean;
	size_t		 offset;

	if ((clean = jsonc_clean(text, len, cause)) == NULL)
		return (NULL);
	root = cJSON_ParseWithLengthOpts(clean, len + 1, &end, 1);
	if (root == NULL) {
		offset = len;
		if (end != NULL && end >= clean && end < clean + len)
			offset = end - clean;
		*cause = jsonc_error(text, len, offset, len == 0 ||
		    strspn(clean, " \t\r\n") == len ? "no JSON value" :
		    "invalid JSON");
	}
	free(clean);
	return (root);
}

static size_t
jsonc_skip_space(const char *s, size_t i, size_t end)
{
	while (i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return (i);
}

/* Past the string opening at i. */
static size_t
jsonc_skip_string(const char *s, size_t i, size_t end)
{
	for (i++; i < end && s[i] != '"'; i++) {
		if (s[i] == '\\')
			i++;
	}
	return (i < end ? i + 1 : end);
}

/* Past the value starting at i (nesting counted, not recursed). */
static size_t
jsonc_skip_value(const char *s, size_t i, size_t end)
{
	size_t	 depth = 0;

	do {
		if (i >= end)
			return (end);
		switch (s[i]) {
		case '"':
			i = jsonc_skip_string(s, i, end);
			break;
		case '{':
		case '[':
			depth++;
			i++;
			break;
		case '}':
		case ']':
			depth--;
			i++;
			break;
		case ' ': case '\t': case '\n': case '\r': case ',': case ':':
			i++;
			break;
		default:
			while (i < end && strchr(",:{}[] \t\r\n\"", s[i]) ==
			    NULL)
				i++;
			break;
		}
	} while (depth > 0);
	return (i);
}

/* The key text at [start, end) decoded and compared with key. */
static int
jsonc_key_is(const char *s, size_t start, size_t end, const char *key)
{
	cJSON	*k;
	int	 same;

	/* The common case without escapes needs no decoding. */
	if (memchr(s + start, '\\', end - start) == NULL)
		return (end - start == strlen(key) + 2 &&
		    memcmp(s + start + 1, key, end - start - 2) == 0);
	if ((k = cJSON_ParseWithLength(s + start, end - start)) == NULL)
		return (0);
	same = cJSON_IsString(k) && strcmp(k->valuestring, key) == 0;
	cJSON_Delete(k);
	return (same);
}

/*
 * Each member of the object at [start, end): fn(key_start, key_end,
 * value_start, value_end, arg) until it returns non-zero.
 */
static int
jsonc_members(const char *s, size_t start, size_t end,
    int (*fn)(const char *, size_t, size_t, size_t, size_t, void *),
    void *arg)
{
	size_t	 i, ks, ke, vs, ve;
	int	 rc;

	i = jsonc_skip_space(s, start, end);
	if (i >= end || s[i] != '{')
		return (0);
	i++;
	for (;;) {
		i = jsonc_skip_space(s, i, end);
		if (i >= end || s[i] != '"')
			return (0);
		ks = i;
		ke = jsonc_skip_string(s, i, end);
		i = jsonc_skip_space(s, ke, end);
		if (i >= end || s[i] != ':')
			return (0);
		vs = jsonc_skip_space(s, i + 1, end);
		ve = jsonc_skip_value(s, vs, end);
		if ((rc = fn(s, ks, ke, vs, ve, arg)) != 0)
			return (rc);
		i = jsonc_skip_space(s, ve, end);
		if (i >= end || s[i] != ',')
			return (0);
		i++;
	}
}

struct jsonc_lookup {
	const char		*key;
	struct jsonc_span	*span;
};

static int
jsonc_lookup_cb(const char *s, size_t ks, size_t ke, size_t vs, size_t ve,
    void *arg)
{
	struct jsonc_lookup	*l = arg;

	if (!jsonc_key_is(s, ks, ke, l->key))
		return (0);
	l->span->key_start = ks;
	l->span->start = vs;
	l->span->end = ve;
	return (1);
}

int
jsonc_find(const char *clean, size_t len, const char *const *path,
    size_t npath, struct jsonc_span *span)
{
	struct jsonc_lookup	 l;
	size_t			 i;

	span->key_start = 0;
	span->start = jsonc_skip_space(clean, 0, len);
	span->end = jsonc_skip_value(clean, span->start, len);
	for (i = 0; i < npath; i++) {
		l.key = path[i];
		l.span = span;
		if (jsonc_members(clean, span->start, span->end,
		    jsonc_lookup_cb, &l) != 1)
			return (0);
	}
	return (1);
}

static int
jsonc_last_cb(const char *s, size_t ks, size_t ke, size_t vs, size_t ve,
    void *arg)
{
	struct jsonc_span	*span = arg;

	span->key_start = ks;
	span->start = vs;
	span->end = ve;
	return (0);
}

int
jsonc_last_member(const char *clean, size_t start, size_t end,
    struct jsonc_span *span)
{
	span->key_start = SIZE_MAX;
	(void)jsonc_members(clean, start, end, jsonc_last_cb, span);
	return (span->key_start != SIZE_MAX);
}

struct jsonc_around {
	const char		*key;
	struct jsonc_member	*m;
	size_t			 last_end;	/* the value before, or SIZE_MAX */
	int			 found;
};

static int
jsonc_around_cb(const char *s, size_t ks, size_t ke, size_t vs, size_t ve,
    void *arg)
{
	struct jsonc_around	*a = arg;

	if (a->found) {
		a->m->next_key = ks;
		return (1);
	}
	if (jsonc_key_is(s, ks, ke, a->key)) {
		a->found = 1;
		a->m->span.key_start = ks;
		a->m->span.start = vs;
		a->m->span.end = ve;
		a->m->prev_end = a->last_end;
	}
	a->last_end = ve;
	return (0);
}

int
jsonc_member(const char *clean, size_t start, size_t end, const char *key,
    struct jsonc_member *m)
{
	struct jsonc_around	 a;

	memset(m, 0, sizeof *m);
	m->prev_end = SIZE_MAX;
	m->next_key = SIZE_MAX;
	a.key = key;
	a.m = m;
	a.last_end = SIZE_MAX;
	a.found = 0;
	(void)jsonc_members(clean, start, end, jsonc_around_cb, &a);
	return (a.found);
}
