/*
 * jscan.c -- a small structural JSON scanner (see jscan.h).
 *
 * Strings are skipped with memchr, so a 16 MiB text value costs about as
 * much as copying it once.  Nesting is bounded (JSCAN_DEPTH_MAX) so hostile
 * input cannot exhaust the stack.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "jscan.h"

#define JSCAN_DEPTH_MAX	128

static const char	*jscan_value_depth(const char *, const char *, int);

const char *
jscan_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/* p is just past the opening quote; return just past the closing one. */
static const char *
jscan_string_body(const char *p, const char *end)
{
	const char	*q, *bs;

	for (;;) {
		if ((q = memchr(p, '"', end - p)) == NULL)
			return (NULL);
		if ((bs = memchr(p, '\\', q - p)) == NULL)
			return (q + 1);
		if (bs + 1 >= end)
			return (NULL);
		p = bs + 2;
	}
}

static const char *
jscan_literal(const char *p, const char *end, const char *word)
{
	size_t	 len = strlen(word);

	if ((size_t)(end - p) < len || memcmp(p, word, len) != 0)
		return (NULL);
	return (p + len);
}

static const char *
jscan_number(const char *p, const char *end)
{
	const char	*start = p;

	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return (NULL);
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '.' ||
	    *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
		p++;
	return (p > start ? p : NULL);
}

static const char *
jscan_container(const char *p, const char *end, int depth)
{
	char	 close = *p == '{' ? '}' : ']';
	int	 object = *p == '{';

	p = jscan_ws(p + 1, end);
	if (p < end && *p == close)
		return (p + 1);
	for (;;) {
		if (object) {
			if (p >= end || *p != '"')
				return (NULL);
			if ((p = jscan_string_body(p + 1, end)) == NULL)
				return (NULL);
			p = jscan_ws(p, end);
			if (p >= end || *p != ':')
				return (NULL);
			p = jscan_ws(p + 1, end);
		}
		if ((p = jscan_value_depth(p, end, depth + 1)) == NULL)
			return (NULL);
		p = jscan_ws(p, end);
		if (p >= end)
			return (NULL);
		if (*p == close)
			return (p + 1);
		if (*p != ',')
			return (NULL);
		p = jscan_ws(p + 1, end);
	}
}

static const char *
jscan_value_depth(const char *p, const char *end, int depth)
{
	if (p >= end || depth > JSCAN_DEPTH_MAX)
		return (NULL);
	switch (*p) {
	case '"':
		return (jscan_string_body(p + 1, end));
	case '{':
	case '[':
		return (jscan_container(p, end, depth));
	case 't':
		return (jscan_literal(p, end, "true"));
	case 'f':
		return (jscan_literal(p, end, "false"));
	case 'n':
		return (jscan_literal(p, end, "null"));
	default:
		return (jscan_number(p, end));
	}
}

const char *
jscan_value(const char *p, const char *end)
{
	return (jscan_value_depth(p, end, 0));
}

int
jscan_fields(const char *text, size_t len, const char *const *keys,
    struct jscan_span *out, size_t nkeys)
{
	const char	*p, *end = text + len, *key, *value;
	size_t		 i, key_len;

	for (i = 0; i < nkeys; i++) {
		out[i].p = NULL;
		out[i].len = 0;
	}
	p = jscan_ws(text, end);
	if (p >= end || *p != '{')
		return (-1);
	p = jscan_ws(p + 1, end);
	if (p < end && *p == '}')
		goto tail;
	for (;;) {
		if (p >= end || *p != '"')
			return (-1);
		key = p + 1;
		if ((p = jscan_string_body(key, end)) == NULL)
			return (-1);
		key_len = p - 1 - key;
		p = jscan_ws(p, end);
		if (p >= end || *p != ':')
			return (-1);
		value = jscan_ws(p + 1, end);
		if ((p = jscan_value_depth(value, end, 1)) == NULL)
			return (-1);
		for (i = 0; i < nkeys; i++) {
			if (strlen(keys[i]) == key_len &&
			    memcmp(keys[i], key, key_len) == 0) {
				out[i].p = value;
				out[i].len = p - value;
				break;
			}
		}
		p = jscan_ws(p, end);
		if (p >= end)
			return (-1);
		if (*p == '}')
			break;
		if (*p != ',')
			return (-1);
		p = jscan_ws(p + 1, end);
	}
tail:
	p = jscan_ws(p + 1, end);
	return (p == end ? 0 : -1);
}

int
jscan_member(struct jscan_span obj, const char *key, struct jscan_span *out)
{
	const char *const	 keys[] = { key };

	if (obj.p == NULL || obj.len == 0 || obj.p[0] != '{')
		return (-1);
	if (jscan_fields(obj.p, obj.len, keys, out, 1) != 0)
		return (-1);
	return (out->p != NULL ? 0 : -1);
}

int
jscan_index(struct jscan_span arr, size_t index, struct jscan_span *out)
{
	const char	*p, *end, *value;
	size_t		 i;

	if (arr.p == NULL || arr.len == 0 || arr.p[0] != '[')
		return (-1);
	end = arr.p + arr.len;
	p = jscan_ws(arr.p + 1, end);
	if (p < end && *p == ']')
		return (-1);
	for (i = 0;; i++) {
		value = p;
		if ((p = jscan_value_depth(p, end, 1)) == NULL)
			return (-1);
		if (i == index) {
			out->p = value;
			out->len = p - value;
			return (0);
		}
		p = jscan_ws(p, end);
		if (p >= end || *p != ',')
			return (-1);
		p = jscan_ws(p + 1, end);
	}
}

int
jscan_is(struct jscan_span s, const char *text)
{
	size_t	 len = strlen(text);

	return (s.p != NULL && s.len == len && memcmp(s.p, text, len) == 0);
}

int
jscan_integer(struct jscan_span s, long long *value)
{
	long long	 v = 0;
	size_t		 i = 0;
	int		 negative = 0;

	if (s.p == NULL || s.len == 0 || s.len > 19)
		return (-1);
	if (s.p[0] == '-') {
		negative = 1;
		i = 1;
	}
	if (i == s.len)
		return (-1);
	for (; i < s.len; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return (-1);
		v = v * 10 + (s.p[i] - '0');
	}
	*value = negative ? -v : v;
	return (0);
}
