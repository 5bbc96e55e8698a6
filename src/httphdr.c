/*
 * httphdr.c -- the HTTP header values mcpd-remote acts on: Retry-After,
 * Content-Type, the Bearer challenge of WWW-Authenticate, and header lines
 * (RFC 9110, RFC 9112, RFC 6750, RFC 9728).
 *
 * Every value comes from a remote server.  Each parser walks its input
 * once, reads nothing past its end, copies at most what it was given and
 * says no to anything outside the grammar instead of guessing: a header
 * that cannot be read is treated as absent by the caller.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "httphdr.h"
#include "util.h"
#include "xmalloc.h"

static int
is_ows(unsigned char c)
{
	return (c == ' ' || c == '\t');
}

static int
is_digit(unsigned char c)
{
	return (c >= '0' && c <= '9');
}

static int
is_alpha(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* tchar (RFC 9110 section 5.6.2). */
static int
is_tchar(unsigned char c)
{
	return (is_alpha(c) || is_digit(c) ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL));
}

/* The characters of token68 before its '=' padding (section 11.2). */
static int
is_token68(unsigned char c)
{
	return (is_alpha(c) || is_digit(c) ||
	    (c != '\0' && strchr("-._~+/", c) != NULL));
}

/* A control character other than HTAB: never in a field value. */
static int
is_ctl(unsigned char c)
{
	return ((c < 0x20 && c != '\t') || c == 0x7f);
}

/* Retry-After */

static const char *const day_names[] = {
	"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
};
static const char *const day_names_long[] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
	"Saturday"
};
static const char *const month_names[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
	"Nov", "Dec"
};

/* A cursor over [p, end). */
struct cur {
	const char	*p;
	const char	*end;
};

static int
cur_lit(struct cur *c, const char *lit)
{
	size_t	 n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return (0);
	c->p += n;
	return (1);
}

/* Exactly n digits. */
static int
cur_digits(struct cur *c, size_t n, int *v)
{
	size_t	 i;

	if ((size_t)(c->end - c->p) < n)
		return (0);
	*v = 0;
	for (i = 0; i < n; i++) {
		if (!is_digit(c->p[i]))
			return (0);
		*v = *v * 10 + (c->p[i] - '0');
	}
	c->p += n;
	return (1);
}

/* One of names[]; its index in *v. */
static int
cur_name(struct cur *c, const char *const *names, size_t n, int *v)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (cur_lit(c, names[i])) {
			*v = i;
			return (1);
		}
	}
	return (0);
}

/* time-of-day = hour ":" minute ":" second */
static int
cur_time(struct cur *c, struct tm *tm)
{
	return (cur_digits(c, 2, &tm->tm_hour) && cur_lit(c, ":") &&
	    cur_digits(c, 2, &tm->tm_min) && cur_lit(c, ":") &&
	    cur_digits(c, 2, &tm->tm_sec));
}

static int
date_valid(const struct tm *tm)
{
	static const int	 mdays[] = {
		31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	int			 year = tm->tm_year + 1900, leap;

	leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	if (tm->tm_mday < 1 || tm->tm_mday > mdays[tm->tm_mon] ||
	    (tm->tm_mon == 1 && tm->tm_mday == 29 && !leap))
		return (0);
	/* Section 5.6.7 allows a leap second. */
	return (tm->tm_hour <= 23 && tm->tm_min <= 59 && tm->tm_sec <= 60);
}

/*
 * HTTP-date (RFC 9110 section 5.6.7): IMF-fixdate, rfc850-date or
 * asctime-date, with the names in the case the grammar gives them.
 */
static int
parse_http_date(const char *s, const char *end, time_t now, time_t *t)
{
	struct cur	 c = { s, end };
	struct tm	 tm, nowtm;
	int		 wday, year, sp;

	memset(&tm, 0, sizeof tm);
	if (cur_name(&c, day_names_long, nitems(day_names_long), &wday)) {
		/* Sunday, 06-Nov-94 08:49:37 GMT */
		if (!cur_lit(&c, ", ") || !cur_digits(&c, 2, &tm.tm_mday) ||
		    !cur_lit(&c, "-") || !cur_name(&c, month_names,
		    nitems(month_names), &tm.tm_mon) || !cur_lit(&c, "-") ||
		    !cur_digits(&c, 2, &year) || !cur_lit(&c, " ") ||
		    !cur_time(&c, &tm) || !cur_lit(&c, " GMT"))
			return (-1);
		/*
		 * The latest year with these two digits that is not more
		 * than 50 years ahead.
		 */
		if (gmtime_r(&now, &nowtm) == NULL)
			return (-1);
		year += (nowtm.tm_year + 1900) / 100 * 100;
		if (year > nowtm.tm_year + 1900 + 50)
			year -= 100;
		else if (year + 100 <= nowtm.tm_year + 1900 + 50)
			year += 100;
	} else if (!cur_name(&c, day_names, nitems(day_names), &wday))
		return (-1);
	else if (cur_lit(&c, ", ")) {
		/* Sun, 06 Nov 1994 08:49:37 GMT */
		if (!cur_digits(&c, 2, &tm.tm_mday) || !cur_lit(&c, " ") ||
		    !cur_name(&c, month_names, nitems(month_names),
		    &tm.tm_mon) || !cur_lit(&c, " ") ||
		    !cur_digits(&c, 4, &year) || !cur_lit(&c, " ") ||
		    !cur_time(&c, &tm) || !cur_lit(&c, " GMT"))
			return (-1);
	} else {
		/* Sun Nov  6 08:49:37 1994 */
		if (!cur_lit(&c, " ") || !cur_name(&c, month_names,
		    nitems(month_names), &tm.tm_mon) || !cur_lit(&c, " "))
			return (-1);
		sp = cur_lit(&c, " ");
		if (!cur_digits(&c, sp ? 1 : 2, &tm.tm_mday) ||
		    !cur_lit(&c, " ") || !cur_time(&c, &tm) ||
		    !cur_lit(&c, " ") || !cur_digits(&c, 4, &year))
			return (-1);
	}
	if (c.p != c.end)
		return (-1);
	tm.tm_year = year - 1900;
	if (!date_valid(&tm))
		return (-1);
	*t = timegm(&tm);
	return (0);
}

int
httphdr_retry_after(const char *value, time_t now, uint64_t cap_ms,
    uint64_t *delay_ms)
{
	const char	*s, *end;
	uint64_t	 secs = 0, limit;
	time_t		 t;

	if (value == NULL)
		return (-1);
	s = value;
	end = s + strlen(s);
	while (s < end && is_ows(*s))
		s++;
	while (end > s && is_ows(end[-1]))
		end--;
	if (s == end)
		return (-1);

	if (is_digit(*s)) {
		/* delay-seconds: saturate past the cap, never overflow. */
		limit = cap_ms / 1000 + 1;
		for (; s < end; s++) {
			if (!is_digit(*s))
				return (-1);
			if (secs <= limit)
				secs = secs * 10 + (*s - '0');
		}
	} else {
		if (parse_http_date(s, end, now, &t) == -1)
			return (-1);
		secs = t > now ? (uint64_t)t - (uint64_t)now : 0;
	}
	if (secs > cap_ms / 1000)
		*delay_ms = cap_ms;
	else
		*delay_ms = secs * 1000 < cap_ms ? secs * 1000 : cap_ms;
	return (0);
}

/* Content-Type */

int
httphdr_media_is(const char *value, const char *type)
{
	const char	*s, *e;
	size_t		 n;

	if (value == NULL || type == NULL)
		return (0);
	for (s = value; is_ows(*s); s++)
		;
	for (e = s; *e != '\0' && *e != ';' && !is_ows(*e); e++)
		;
	n = strlen(type);
	if ((size_t)(e - s) != n || strncasecmp(s, type, n) != 0)
		return (0);
	while (is_ows(*e))
		e++;
	return (*e == '\0' || *e == ';');
}

/* WWW-Authenticate */

struct lex {
	const char	*s;
	size_t		 i;
};

static void
lex_ows(struct lex *l)
{
	while (is_ows(l->s[l->i]))
		l->i++;
}

static size_t
lex_token_len(const struct lex *l, size_t at)
{
	size_t	 n = 0;

	while (is_tchar(l->s[at + n]))
		n++;
	return (n);
}

/* Does an auth-param (token BWS "=" BWS value) start at l->i? */
static int
lex_is_param(const struct lex *l)
{
	size_t	 i = l->i, n;

	if ((n = lex_token_len(l, i)) == 0)
		return (0);
	i += n;
	while (is_ows(l->s[i]))
		i++;
	if (l->s[i++] != '=')
		return (0);
	while (is_ows(l->s[i]))
		i++;
	return (l->s[i] == '"' || is_tchar(l->s[i]));
}

/*
 * A token or a quoted-string (section 5.6.4) at l->i; *out (if out is
 * not NULL) gets it unescaped.  -1 if it is neither.
 */
static int
lex_value(struct lex *l, char **out)
{
	const unsigned char	*s = (const unsigned char *)l->s;
	char			*v = NULL;
	size_t			 n, i, len = 0;

	if (s[l->i] != '"') {
		if ((n = lex_token_len(l, l->i)) == 0)
			return (-1);
		if (out != NULL)
			*out = xstrndup(l->s + l->i, n);
		l->i += n;
		return (0);
	}
	/* The unescaped value is never longer than the quoted one. */
	for (i = l->i + 1; s[i] != '\0' && s[i] != '"'; i++) {
		if (s[i] == '\\' && s[i + 1] != '\0')
			i++;
	}
	if (out != NULL)
		v = xmalloc(i - l->i);
	for (i = l->i + 1; s[i] != '"'; i++) {
		if (s[i] == '\\')
			i++;
		if (s[i] == '\0' || is_ctl(s[i])) {
			free(v);
			return (-1);
		}
		if (v != NULL)
			v[len++] = s[i];
	}
	if (v != NULL) {
		v[len] = '\0';
		*out = v;
	}
	l->i = i + 1;
	return (0);
}

/* The Bearer parameter an auth-param name sets, or NULL. */
static char **
bearer_slot(struct httphdr_bearer *b, const char *name, size_t n)
{
	static const struct {
		const char	*name;
		size_t		 offset;
	} params[] = {
		{ "resource_metadata",
		    offsetof(struct httphdr_bearer, resource_metadata) },
		{ "scope", offsetof(struct httphdr_bearer, scope) },
		{ "error", offsetof(struct httphdr_bearer, error) },
		{ "error_description",
		    offsetof(struct httphdr_bearer, error_description) },
	};
	size_t	 i;

	for (i = 0; i < nitems(params); i++) {
		if (strlen(params[i].name) == n &&
		    strncasecmp(params[i].name, name, n) == 0)
			return ((char **)((char *)b + params[i].offset));
	}
	return (NULL);
}

/* One auth-param; a Bearer one kept in b.  -1 if malformed. */
static int
lex_param(struct lex *l, struct httphdr_bearer *b)
{
	const char	*name = l->s + l->i;
	size_t		 n;
	char		**slot = NULL;

	n = lex_token_len(l, l->i);
	l->i += n;
	lex_ows(l);
	if (n == 0 || l->s[l->i] != '=')
		return (-1);
	l->i++;
	lex_ows(l);
	if (b != NULL && (slot = bearer_slot(b, name, n)) != NULL &&
	    *slot != NULL)
		return (-1);	/* a parameter twice (section 11.2) */
	return (lex_value(l, slot));
}

/*
 * One challenge from its scheme on.  Returns 1 if another challenge
 * follows (l->i on its scheme), 0 at the end, -1 if malformed.
 */
static int
lex_challenge(struct lex *l, struct httphdr_bearer *b)
{
	size_t	 n;

	if ((n = lex_token_len(l, l->i)) == 0)
		return (-1);
	l->i += n;
	lex_ows(l);
	if (l->s[l->i] == '\0')
		return (0);
	if (l->s[l->i] == ',')
		goto next;
	if (l->s[l->i - 1] != ' ')
		return (-1);	/* 1*SP between scheme and parameters */
	if (!lex_is_param(l)) {
		/* token68 */
		for (n = 0; is_token68(l->s[l->i + n]); n++)
			;
		if (n == 0)
			return (-1);
		while (l->s[l->i + n] == '=')
			n++;
		l->i += n;
		lex_ows(l);
		if (l->s[l->i] == '\0')
			return (0);
		if (l->s[l->i] != ',')
			return (-1);
		goto next;
	}
	for (;;) {
		if (lex_param(l, b) == -1)
			return (-1);
		lex_ows(l);
		if (l->s[l->i] == '\0')
			return (0);
		if (l->s[l->i] != ',')
			return (-1);
		while (l->s[l->i] == ',' || is_ows(l->s[l->i]))
			l->i++;
		if (l->s[l->i] == '\0')
			return (0);
		if (!lex_is_param(l))
			break;
	}
	/* The next challenge starts with its scheme. */
	return (lex_token_len(l, l->i) > 0 ? 1 : -1);

next:
	/* Empty list elements are allowed (section 5.6.1). */
	while (l->s[l->i] == ',' || is_ows(l->s[l->i]))
		l->i++;
	if (l->s[l->i] == '\0')
		return (0);
	return (lex_token_len(l, l->i) > 0 ? 1 : -1);
}

int
httphdr_bearer_parse(const char *value, struct httphdr_bearer *b)
{
	struct lex	 l = { value, 0 };
	size_t		 n;
	int		 rc, bearer;

	memset(b, 0, sizeof *b);
	if (value == NULL)
		return (0);
	while (l.s[l.i] == ',' || is_ows(l.s[l.i]))
		l.i++;
	if (l.s[l.i] == '\0')
		return (0);
	do {
		n = lex_token_len(&l, l.i);
		bearer = !b->found && n == 6 &&
		    strncasecmp(l.s + l.i, "Bearer", 6) == 0;
		rc = lex_challenge(&l, bearer ? b : NULL);
		if (rc == -1) {
			/*
			 * Past a Bearer challenge read whole, what follows
			 * cannot change it; before or in it, nothing can
			 * be trusted.
			 */
			if (b->found)
				return (0);
			httphdr_bearer_clear(b);
			return (-1);
		}
		if (bearer)
			b->found = 1;
	} while (rc == 1);
	return (0);
}

void
httphdr_bearer_clear(struct httphdr_bearer *b)
{
	free(b->resource_metadata);
	free(b->scope);
	free(b->error);
	free(b->error_description);
	memset(b, 0, sizeof *b);
}

/* Header lines */

int
httphdr_split(const char *line, size_t len, const char **name,
    size_t *name_len, const char **value, size_t *value_len)
{
	const char	*colon, *v, *end;
	size_t		 i;

	if (line == NULL)
		return (-1);
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if ((colon = memchr(line, ':', len)) == NULL || colon == line)
		return (-1);
	/* No whitespace before the colon (RFC 9112 section 5.1). */
	for (i = 0; i < (size_t)(colon - line); i++) {
		if (!is_tchar(line[i]))
			return (-1);
	}
	v = colon + 1;
	end = line + len;
	while (v < end && is_ows(*v))
		v++;
	while (end > v && is_ows(end[-1]))
		end--;
	for (i = 0; i < (size_t)(end - v); i++) {
		if (is_ctl(v[i]))
			return (-1);
	}
	*name = line;
	*name_len = colon - line;
	*value = v;
	*value_len = end - v;
	return (0);
}
