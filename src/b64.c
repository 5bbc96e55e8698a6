/*
 * b64.c -- base64 and base64url (RFC 4648 sections 4 and 5), and the
 * application/x-www-form-urlencoded escaping of OAuth token requests.
 *
 * Decoding is strict, as the input may come from a peer: only the one
 * alphabet, padding either absent or complete, no length that no
 * encoding has (a lone last character) and no stray bits in the last
 * character, so that each byte string has exactly one accepted encoding.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "xmalloc.h"

static const char	 b64_std[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char	 b64_url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *
encode(const unsigned char *in, size_t len, const char *alphabet, int pad)
{
	char		*out, *o;
	size_t		 i;
	uint32_t	 v;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 3)
		abort();
	out = o = xmalloc((len + 2) / 3 * 4 + 1);
	for (i = 0; i + 3 <= len; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
		    in[i + 2];
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 0x3f];
		*o++ = alphabet[(v >> 6) & 0x3f];
		*o++ = alphabet[v & 0x3f];
	}
	if (len - i == 1) {
		v = (uint32_t)in[i] << 16;
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 0x3f];
		if (pad) {
			*o++ = '=';
			*o++ = '=';
		}
	} else if (len - i == 2) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 0x3f];
		*o++ = alphabet[(v >> 6) & 0x3f];
		if (pad)
			*o++ = '=';
	}
	*o = '\0';
	return (out);
}

char *
b64_encode(const void *p, size_t len)
{
	return (encode(p, len, b64_std, 1));
}

char *
b64url_encode(const void *p, size_t len)
{
	return (encode(p, len, b64_url, 0));
}

/* A character's value in alphabet (its last two: c62, c63), or -1. */
static int
value(unsigned char c, char c62, char c63)
{
	if (c >= 'A' && c <= 'Z')
		return (c - 'A');
	if (c >= 'a' && c <= 'z')
		return (c - 'a' + 26);
	if (c >= '0' && c <= '9')
		return (c - '0' + 52);
	if (c == (unsigned char)c62)
		return (62);
	if (c == (unsigned char)c63)
		return (63);
	return (-1);
}

static void *
decode(const char *s, size_t len, char c62, char c63, size_t *out_len)
{
	unsigned char	*out, *o;
	size_t		 i, n, rest;
	uint32_t	 v = 0;
	int		 d;

	/* Padding, if any, makes the length a multiple of 4. */
	n = len;
	if (n > 0 && s[n - 1] == '=') {
		if (len % 4 != 0)
			return (NULL);
		n--;
		if (n > 0 && s[n - 1] == '=')
			n--;
		if (n % 4 < 2)
			return (NULL);
	}
	rest = n % 4;
	if (rest == 1)
		return (NULL);
	out = o = xmalloc(n / 4 * 3 + 3);
	for (i = 0; i < n; i++) {
		if ((d = value(s[i], c62, c63)) == -1) {
			free(out);
			return (NULL);
		}
		v = v << 6 | d;
		if (i % 4 == 3) {
			*o++ = v >> 16;
			*o++ = v >> 8;
			*o++ = v;
			v = 0;
		}
	}
	/* The unused low bits of the last character must be zero. */
	if ((rest == 2 && (v & 0x0f) != 0) || (rest == 3 && (v & 0x03) != 0)) {
		free(out);
		return (NULL);
	}
	if (rest == 2)
		*o++ = v >> 4;
	else if (rest == 3) {
		*o++ = v >> 10;
		*o++ = v >> 2;
	}
	*o = '\0';
	*out_len = o - out;
	return (out);
}

void *
b64_decode(const char *s, size_t len, size_t *out_len)
{
	return (decode(s, len, '+', '/', out_len));
}

void *
b64url_decode(const char *s, size_t len, size_t *out_len)
{
	return (decode(s, len, '-', '_', out_len));
}

char *
b64_form_escape(const char *s)
{
	static const char	 hex[] = "0123456789ABCDEF";
	const unsigned char	*p;
	char			*out, *o;
	size_t			 len = strlen(s);

	if (len > (SIZE_MAX - 1) / 3)
		abort();
	out = o = xmalloc(len * 3 + 1);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			*o++ = *p;
		else if (*p == ' ')
			*o++ = '+';
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 0x0f];
		}
	}
	*o = '\0';
	return (out);
}
