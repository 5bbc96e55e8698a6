/*
 * toml_lex.c -- the pieces of TOML that need no parser (see toml_int.h):
 * UTF-8, the characters of keys and values, numbers, dates and times
 * checked and read; and strings and keys printed for a TOML file.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "toml.h"
#include "toml_int.h"
#include "xmalloc.h"

int
toml_utf8(const char *s, size_t len, size_t *bad)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i = 0, n, k;
	uint32_t		 cp, min;

	while (i < len) {
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if ((u[i] & 0xe0) == 0xc0) {
			n = 1;
			cp = u[i] & 0x1f;
			min = 0x80;
		} else if ((u[i] & 0xf0) == 0xe0) {
			n = 2;
			cp = u[i] & 0x0f;
			min = 0x800;
		} else if ((u[i] & 0xf8) == 0xf0) {
			n = 3;
			cp = u[i] & 0x07;
			min = 0x10000;
		} else
			goto bad;
		if (len - i <= n)
			goto bad;
		for (k = 1; k <= n; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = (cp << 6) | (u[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 &&
		    cp <= 0xdfff))
			goto bad;
		i += n + 1;
	}
	return (1);

bad:
	if (bad != NULL)
		*bad = i;
	return (0);
}

void
toml_add_utf8(struct sbuf *b, uint32_t cp)
{
	char	 u[4];
	size_t	 n;

	if (cp < 0x80) {
		u[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = 0xc0 | (cp >> 6);
		u[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = 0xe0 | (cp >> 12);
		u[1] = 0x80 | ((cp >> 6) & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		u[0] = 0xf0 | (cp >> 18);
		u[1] = 0x80 | ((cp >> 12) & 0x3f);
		u[2] = 0x80 | ((cp >> 6) & 0x3f);
		u[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	sbuf_add(b, u, n);
}

int
toml_control(unsigned char c)
{
	return ((c < 0x20 && c != '\t') || c == 0x7f);
}

int
toml_bare(char c)
{
	return ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-');
}

/* Digits with single '_' between them, from s: how many bytes, or 0. */
static size_t
toml_digits(const char *s, size_t n, int base)
{
	size_t	 i;
	char	 c;

	for (i = 0; i < n; i++) {
		c = s[i];
		if (c == '_') {
			if (i == 0 || i + 1 == n || s[i + 1] == '_')
				return (0);
			continue;
		}
		if (!((base == 16 && ((c >= 'a' && c <= 'f') ||
		    (c >= 'A' && c <= 'F'))) || (c >= '0' && c < '0' +
		    (base < 10 ? base : 10))))
			break;
	}
	if (i > 0 && s[i - 1] == '_')
		return (0);
	return (i);
}

/* The token without its underscores, NUL-ended, into buf. */
static void
toml_strip(const char *s, size_t n, char *buf)
{
	size_t	 i, k = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '_')
			buf[k++] = s[i];
	}
	buf[k] = '\0';
}

/* A number: 0 with *v, or -1 with what is wrong in *why. */
int
toml_number(const char *s, size_t n, double *v, const char **why)
{
	char		 buf[TOML_SCALAR_MAX_BYTES + 1], *end;
	size_t		 i = 0, d;
	int		 sign = 0, isfloat = 0, base;
	long long	 ll;
	unsigned long long ull;

	*why = "not a value TOML knows";
	if (s[0] == '+' || s[0] == '-')
		sign = i = 1;
	if (n - i == 3 && (memcmp(s + i, "inf", 3) == 0 ||
	    memcmp(s + i, "nan", 3) == 0)) {
		*v = s[i] == 'i' ? HUGE_VAL : NAN;
		if (s[0] == '-')
			*v = -*v;
		return (0);
	}
	if (!sign && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' ||
	    s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		if ((d = toml_digits(s + 2, n - 2, base)) != n - 2 || d == 0)
			return (-1);
		toml_strip(s + 2, n - 2, buf);
		errno = 0;
		ull = strtoull(buf, &end, base);
		if (errno != 0 || ull > INT64_MAX) {
			*why = "an integer out of range";
			return (-1);
		}
		*v = (double)ull;
		return (0);
	}
	if ((d = toml_digits(s + i, n - i, 10)) == 0)
		return (-1);
	if (s[i] == '0' && d > 1) {
		*why = "a number with a leading zero";
		return (-1);
	}
	i += d;
	if (i < n && s[i] == '.') {
		isfloat = 1;
		if ((d = toml_digits(s + i + 1, n - i - 1, 10)) == 0)
			return (-1);
		i += d + 1;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		isfloat = 1;
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((d = toml_digits(s + i, n - i, 10)) == 0)
			return (-1);
		i += d;
	}
	if (i != n)
		return (-1);
	toml_strip(s, n, buf);
	errno = 0;
	if (isfloat)
		*v = strtod(buf, &end);
	else {
		ll = strtoll(buf, &end, 10);
		if (errno != 0) {
			*why = "an integer out of range";
			return (-1);
		}
		*v = (double)ll;
	}
	return (0);
}

int
toml_two(const char *s, int max)
{
	int	 v;

	if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
		return (-1);
	v = (s[0] - '0') * 10 + s[1] - '0';
	return (v <= max ? v : -1);
}

/* YYYY-MM-DD, a day that exists. */
int
toml_date(const char *s, size_t n)
{
	static const int	 days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30,
				    31, 30, 31 };
	int			 y, m, d, i, leap;

	if (n != 10 || s[4] != '-' || s[7] != '-')
		return (0);
	for (i = 0, y = 0; i < 4; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (0);
		y = y * 10 + s[i] - '0';
	}
	if ((m = toml_two(s + 5, 12)) < 1 || (d = toml_two(s + 8, 31)) < 1)
		return (0);
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return (d <= days[m - 1] + (m == 2 && leap));
}

/* HH:MM:SS and a fraction: its length, or 0. */
static size_t
toml_time(const char *s, size_t n)
{
	size_t	 i;

	if (n < 8 || s[2] != ':' || s[5] != ':' || toml_two(s, 23) < 0 ||
	    toml_two(s + 3, 59) < 0 || toml_two(s + 6, 60) < 0)
		return (0);
	if (n == 8 || s[8] != '.')
		return (8);
	for (i = 9; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	return (i > 9 ? i : 0);
}

/* An offset date-time, a local date-time, date or time. */
int
toml_datetime(const char *s, size_t n)
{
	size_t	 t, rest;

	if (n >= 10 && toml_date(s, 10)) {
		if (n == 10)
			return (1);
		if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
			return (0);
		if ((t = toml_time(s + 11, n - 11)) == 0)
			return (0);
		s += 11 + t;
		rest = n - 11 - t;
		if (rest == 0)
			return (1);
		if (rest == 1)
			return (*s == 'Z' || *s == 'z');
		return (rest == 6 && (*s == '+' || *s == '-') &&
		    toml_two(s + 1, 23) >= 0 && s[3] == ':' &&
		    toml_two(s + 4, 59) >= 0);
	}
	return (toml_time(s, n) == n);
}

int
toml_token_char(char c)
{
	return (toml_bare(c) || c == '+' || c == '.' || c == ':');
}

char *
toml_quote(const char *s)
{
	struct sbuf	 b = { NULL, 0, 0 };
	unsigned char	 c;

	sbuf_add(&b, "\"", 1);
	for (; *s != '\0'; s++) {
		c = *s;
		if (c == '"' || c == '\\') {
			sbuf_add(&b, "\\", 1);
			sbuf_add(&b, s, 1);
		} else if (c == '\n')
			sbuf_adds(&b, "\\n");
		else if (c == '\t')
			sbuf_adds(&b, "\\t");
		else if (toml_control(c))
			sbuf_printf(&b, "\\u%04x", c);
		else
			sbuf_add(&b, s, 1);
	}
	sbuf_add(&b, "\"", 1);
	return (b.p);
}

char *
toml_key(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0' && toml_bare(s[i]); i++)
		;
	if (i > 0 && s[i] == '\0')
		return (xstrdup(s));
	return (toml_quote(s));
}
