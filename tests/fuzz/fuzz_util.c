/*
 * fuzz_util.c -- failure reporting and cJSON helpers for the fuzz targets.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

const char	*fuzz_input_name;

void
fuzz_fail(const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "fuzz_%s: invariant broken", fuzz_target_name);
	if (fuzz_input_name != NULL)
		fprintf(stderr, " on %s", fuzz_input_name);
	fprintf(stderr, ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static int
fuzz_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/* The code point of "\uXXXX" at p, or -1. */
static long
fuzz_u_escape(const char *p, const char *end)
{
	long	 cp = 0;
	int	 i, d;

	if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
		return (-1);
	for (i = 2; i < 6; i++) {
		if ((d = fuzz_hex((unsigned char)p[i])) < 0)
			return (-1);
		cp = cp << 4 | d;
	}
	return (cp);
}

char *
fuzz_json_tame(const char *text, size_t len)
{
	char	*copy, *p, *end;
	long	 cp, lo;
	int	 in_string = 0;

	copy = malloc(len + 1);
	if (copy == NULL)
		abort();
	memcpy(copy, text, len);
	copy[len] = '\0';
	end = copy + len;
	for (p = copy; p < end; p++) {
		if (*p == '"') {
			in_string = !in_string;
			continue;
		}
		if (!in_string || *p != '\\')
			continue;
		if ((cp = fuzz_u_escape(p, end)) < 0) {
			p++;		/* a one-letter escape: skip it */
			continue;
		}
		if (cp == 0)
			memcpy(p + 2, "0001", 4);
		else if (cp >= 0xd800 && cp <= 0xdbff) {
			lo = fuzz_u_escape(p + 6, end);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				p += 11;	/* a pair: keep both */
				continue;
			}
			memcpy(p + 2, "fffd", 4);
		} else if (cp >= 0xdc00 && cp <= 0xdfff)
			memcpy(p + 2, "fffd", 4);
		p += 5;
	}
	return (copy);
}

cJSON *
fuzz_json_parse(const char *text, size_t len)
{
	cJSON		*json;
	const char	*rest = NULL;
	char		*copy;

	copy = fuzz_json_tame(text, len);
	json = cJSON_ParseWithLengthOpts(copy, len, &rest, 0);
	if (json != NULL && rest != NULL) {
		while (rest < copy + len && (*rest == ' ' || *rest == '\t' ||
		    *rest == '\r' || *rest == '\n'))
			rest++;
		if (rest != copy + len) {
			cJSON_Delete(json);
			json = NULL;
		}
	}
	free(copy);
	return (json);
}

int
fuzz_json_equal(const cJSON *a, const cJSON *b)
{
	const cJSON	*x, *y;

	if ((a->type & 0xff) != (b->type & 0xff))
		return (0);
	if (cJSON_IsNumber(a))
		return (a->valuedouble == b->valuedouble ||
		    (isnan(a->valuedouble) && isnan(b->valuedouble)));
	if (cJSON_IsString(a))
		return (strcmp(a->valuestring, b->valuestring) == 0);
	if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
		return (1);
	for (x = a->child, y = b->child; x != NULL && y != NULL;
	    x = x->next, y = y->next) {
		if (cJSON_IsObject(a) && strcmp(x->string, y->string) != 0)
			return (0);
		if (!fuzz_json_equal(x, y))
			return (0);
	}
	return (x == NULL && y == NULL);
}

char *
fuzz_json_text(const cJSON *v)
{
	char	*text;

	if ((text = cJSON_PrintUnformatted(v)) == NULL)
		abort();
	return (text);
}

cJSON *
fuzz_json_member(const cJSON *object, const char *key)
{
	cJSON	*item;

	if (!cJSON_IsObject(object))
		return (NULL);
	for (item = object->child; item != NULL; item = item->next) {
		if (item->string != NULL && strcmp(item->string, key) == 0)
			return (item);
	}
	return (NULL);
}
