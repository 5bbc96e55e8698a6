/*
 * fuzz_httphdr.c -- the HTTP header readers and the URL rules, on what a
 * remote server or a redirect could send.
 *
 * Input: A NUL B.  A (the bytes before the first NUL, all of the input if
 * there is none) is given as a WWW-Authenticate, Retry-After and
 * Content-Type value, as a URL and as a base URL; B (up to a second NUL)
 * as a URL and as a reference resolved against A.  The whole input, NULs
 * and all, is split as a header line.
 *
 * Invariants:
 * - httphdr_bearer_parse returns 0 or -1, and -1 leaves nothing set; a
 *   Bearer challenge found is printed back (each parameter quoted, with
 *   escapes), after another challenge, and must parse to the same values;
 *   no value holds a control character but HTAB, or is longer than A.
 * - A well-formed WWW-Authenticate value generated from the input (one
 *   to four challenges of assorted schemes, bare, token68 or parameters,
 *   tokens and quoted-strings with escapes, OWS and empty elements) is
 *   accepted, and gives exactly the first Bearer challenge's parameters.
 * - httphdr_retry_after leaves the delay alone when it refuses, never
 *   passes the cap, agrees with plain arithmetic on short delay-seconds,
 *   and a later now never gives a longer delay; a moment within 40
 *   years, printed in each of the three date forms, gives exactly the
 *   seconds to it.
 * - httphdr_media_is is 1 only if A starts (after OWS) with the type.
 * - httphdr_split gives a non-empty name of token characters ending at a
 *   ':', and a value inside the line, without OWS at either end or any
 *   control character but HTAB.
 * - A URL url_parse accepts is http or https with a host, prints as
 *   visible ASCII, and its printed form parses to the same printed form.
 * - url_resolve gives NULL or a URL that parses to itself; resolving
 *   that result again (against A or against itself) gives it back, and
 *   an absolute B resolves to B normalised, whatever the base.
 * - A URL is its own origin; its canonical resource matches it; its
 *   well-known URLs parse, share its origin and have no query.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fuzz.h"
#include "httphdr.h"
#include "url.h"
#include "util.h"

const char	*fuzz_target_name = "httphdr";

#define NOW	((time_t)1767225600)	/* 2026-01-01 00:00:00 UTC */

static int
is_tchar(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL));
}

static int
has_ctl(const char *s, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') ||
		    s[i] == 0x7f)
			return (1);
	}
	return (0);
}

static int
same_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (strcmp(a, b) == 0);
}

/* Append name="value" with '"' and '\' escaped. */
static void
add_param(char **buf, size_t *len, const char *name, const char *value)
{
	size_t	 i, need = strlen(name) + 2 * strlen(value) + 8;
	char	*p;

	if ((*buf = realloc(*buf, *len + need)) == NULL)
		abort();
	p = *buf + *len;
	if (*len > 0 && (*buf)[*len - 1] != ' ') {
		*p++ = ',';
		*p++ = ' ';
	}
	p += sprintf(p, "%s=\"", name);
	for (i = 0; value[i] != '\0'; i++) {
		if (value[i] == '"' || value[i] == '\\')
			*p++ = '\\';
		*p++ = value[i];
	}
	*p++ = '"';
	*p = '\0';
	*len = p - *buf;
}

static void
check_bearer(const char *a)
{
	struct httphdr_bearer	 b, again;
	const char		*names[] = { "resource_metadata", "scope",
				    "error", "error_description" };
	char			*vals[4], *text;
	size_t			 i, len;
	int			 rc;

	rc = httphdr_bearer_parse(a, &b);
	FUZZ_CHECK(rc == 0 || rc == -1, "httphdr_bearer_parse returned %d",
	    rc);
	vals[0] = b.resource_metadata;
	vals[1] = b.scope;
	vals[2] = b.error;
	vals[3] = b.error_description;
	if (rc == -1 || !b.found) {
		FUZZ_CHECK(!b.found && vals[0] == NULL && vals[1] == NULL &&
		    vals[2] == NULL && vals[3] == NULL, "Bearer parameters "
		    "set without a Bearer challenge (rc %d)", rc);
		return;
	}
	text = strdup("Basic realm=\"r\", Bearer ");
	if (text == NULL)
		abort();
	len = strlen(text);
	for (i = 0; i < nitems(vals); i++) {
		if (vals[i] == NULL)
			continue;
		FUZZ_CHECK(strlen(vals[i]) <= strlen(a), "Bearer %s longer "
		    "than the header", names[i]);
		FUZZ_CHECK(!has_ctl(vals[i], strlen(vals[i])), "Bearer %s "
		    "holds a control character", names[i]);
		add_param(&text, &len, names[i], vals[i]);
	}
	rc = httphdr_bearer_parse(text, &again);
	FUZZ_CHECK(rc == 0 && again.found, "the Bearer challenge printed "
	    "back does not parse: %s", text);
	FUZZ_CHECK(same_str(again.resource_metadata, vals[0]) &&
	    same_str(again.scope, vals[1]) && same_str(again.error, vals[2]) &&
	    same_str(again.error_description, vals[3]), "the Bearer "
	    "challenge printed back parses differently: %s", text);
	httphdr_bearer_clear(&again);
	httphdr_bearer_clear(&b);
	free(text);
}

/*
 * A well-formed WWW-Authenticate value built from the input, with the
 * Bearer parameters it must give: checks what the parser reads, where
 * check_bearer only checks that it agrees with itself.
 */
struct gen {
	const uint8_t	*p;
	size_t		 left;
	char		*out;
	size_t		 len;
	size_t		 size;
};

/* The next input byte; 1 once they run out, which ends every loop. */
static unsigned
gen_byte(struct gen *g)
{
	if (g->left == 0)
		return (1);
	g->left--;
	return (*g->p++);
}

static void
gen_add(struct gen *g, const char *s, size_t n)
{
	if (g->size - g->len < n + 1) {
		g->size = g->size * 2 + n + 64;
		if ((g->out = realloc(g->out, g->size)) == NULL)
			abort();
	}
	memcpy(g->out + g->len, s, n);
	g->len += n;
	g->out[g->len] = '\0';
}

static void
gen_adds(struct gen *g, const char *s)
{
	gen_add(g, s, strlen(s));
}

/* Up to max spaces or tabs (tabs only where OWS allows them). */
static void
gen_ows(struct gen *g, unsigned max)
{
	unsigned	 n = gen_byte(g) % (max + 1);

	while (n-- > 0)
		gen_adds(g, gen_byte(g) & 1 ? "\t" : " ");
}

/* A parameter value: as a token if it is one and the input says so. */
static char *
gen_value(struct gen *g)
{
	char		 v[24], c;
	unsigned	 n, i, tok;

	n = gen_byte(g) % sizeof v;
	tok = gen_byte(g) & 1;
	for (i = 0; i < n; i++) {
		c = gen_byte(g);
		/* Visible ASCII, SP, HTAB and obs-text; no other CTLs. */
		if ((unsigned char)c < 0x20 || c == 0x7f)
			c = (unsigned char)c % 2 ? '\t' : 'a' + c % 26;
		v[i] = c;
		if (!is_tchar((unsigned char)c))
			tok = 0;
	}
	if (n == 0)
		tok = 0;
	if (tok) {
		gen_add(g, v, n);
	} else {
		gen_adds(g, "\"");
		for (i = 0; i < n; i++) {
			/* Escape what must be, and now and then the rest. */
			if (v[i] == '"' || v[i] == '\\' ||
			    (gen_byte(g) & 7) == 0)
				gen_adds(g, "\\");
			gen_add(g, &v[i], 1);
		}
		gen_adds(g, "\"");
	}
	return (strndup(v, n));
}

static void
check_bearer_generated(const uint8_t *data, size_t size)
{
	static const char *const schemes[] = {
		"Bearer", "bearer", "BEARER", "Basic", "Digest", "Negotiate",
		"X-Bearer", "Bearer_",
	};
	static const char *const names[] = {
		"resource_metadata", "Scope", "ERROR", "error_description",
		"realm", "error_uri", "x", "resource_metadata_",
	};
	static const char	 t68[] = "ABCXYZabcxyz0189-._~+/";
	struct gen		 g = { data, size, NULL, 0, 0 };
	struct httphdr_bearer	 b;
	char			*want[4] = { NULL, NULL, NULL, NULL }, *v;
	const char		*scheme;
	unsigned		 nch, ch, np, k, used, form, n;
	int			 bearer, found = 0, slot, rc;

	nch = 1 + gen_byte(&g) % 4;
	gen_ows(&g, 2);
	for (ch = 0; ch < nch; ch++) {
		if (ch > 0) {
			gen_ows(&g, 2);
			gen_adds(&g, ",");
			while (gen_byte(&g) % 4 == 0) {
				gen_ows(&g, 1);
				gen_adds(&g, ",");	/* empty element */
			}
			gen_ows(&g, 2);
		}
		scheme = schemes[gen_byte(&g) % nitems(schemes)];
		bearer = !found && strcasecmp(scheme, "Bearer") == 0;
		gen_adds(&g, scheme);
		form = gen_byte(&g) % 3;
		if (form == 0) {
			if (bearer)
				found = 1;
			continue;
		}
		gen_adds(&g, " ");
		while (gen_byte(&g) % 3 == 0)
			gen_adds(&g, " ");
		if (form == 1) {
			/* token68, with padding now and then */
			n = 1 + gen_byte(&g) % 12;
			while (n-- > 0)
				gen_add(&g, &t68[gen_byte(&g) %
				    (sizeof t68 - 1)], 1);
			n = gen_byte(&g) % 3;
			while (n-- > 0)
				gen_adds(&g, "=");
			if (bearer)
				found = 1;
			continue;
		}
		np = 1 + gen_byte(&g) % 4;
		used = 0;
		for (k = 0; k < np; k++) {
			n = gen_byte(&g) % nitems(names);
			if (used & 1u << n)
				continue;	/* a name once per challenge */
			used |= 1u << n;
			if (used != 1u << n) {
				gen_ows(&g, 2);
				gen_adds(&g, ",");
				while (gen_byte(&g) % 5 == 0)
					gen_adds(&g, ",");
				gen_ows(&g, 2);
			}
			gen_adds(&g, names[n]);
			gen_ows(&g, 1);
			gen_adds(&g, "=");
			gen_ows(&g, 1);
			v = gen_value(&g);
			slot = n < 4 ? (int)n : -1;
			if (bearer && slot >= 0)
				want[slot] = v;
			else
				free(v);
		}
		if (bearer)
			found = 1;
	}
	gen_ows(&g, 2);

	rc = httphdr_bearer_parse(g.out, &b);
	FUZZ_CHECK(rc == 0, "a well-formed WWW-Authenticate refused: %s",
	    g.out);
	FUZZ_CHECK(b.found == found, "Bearer found %d, want %d: %s", b.found,
	    found, g.out);
	FUZZ_CHECK(same_str(b.resource_metadata, want[0]) &&
	    same_str(b.scope, want[1]) && same_str(b.error, want[2]) &&
	    same_str(b.error_description, want[3]), "Bearer parameters "
	    "misread: %s", g.out);
	httphdr_bearer_clear(&b);
	for (k = 0; k < nitems(want); k++)
		free(want[k]);
	free(g.out);
}

static void
check_retry_after(const char *a, uint64_t cap)
{
	uint64_t	 d = 7, d2 = 7, secs = 0;
	const char	*s;
	size_t		 n;
	int		 rc, rc2;

	rc = httphdr_retry_after(a, NOW, cap, &d);
	FUZZ_CHECK(rc == 0 || rc == -1, "httphdr_retry_after returned %d", rc);
	if (rc == -1) {
		FUZZ_CHECK(d == 7, "a refused Retry-After set the delay");
		return;
	}
	FUZZ_CHECK(d <= cap, "delay %llu ms over the cap %llu",
	    (unsigned long long)d, (unsigned long long)cap);
	rc2 = httphdr_retry_after(a, NOW + 1000, cap, &d2);
	FUZZ_CHECK(rc2 == 0 && d2 <= d, "1000 s later: rc %d, delay %llu ms, "
	    "was %llu", rc2, (unsigned long long)d2, (unsigned long long)d);
	/* Short delay-seconds, by plain arithmetic. */
	for (s = a; *s == ' ' || *s == '\t'; s++)
		;
	n = strspn(s, "0123456789");
	if (n > 0 && n <= 15 && s[n + strspn(s + n, " \t")] == '\0') {
		secs = strtoull(s, NULL, 10);
		FUZZ_CHECK(d == (secs * 1000 < cap ? secs * 1000 : cap),
		    "Retry-After %llu s gave %llu ms (cap %llu)",
		    (unsigned long long)secs, (unsigned long long)d,
		    (unsigned long long)cap);
	}
}

/*
 * A moment within 40 years of NOW, printed in each HTTP-date form: the
 * delay must be exactly the seconds to it.
 */
static void
check_retry_after_generated(const uint8_t *data, size_t size)
{
	static const char *const days[] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"
	};
	static const char *const long_days[] = {
		"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday",
		"Friday", "Saturday"
	};
	static const char *const months[] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
		"Oct", "Nov", "Dec"
	};
	const int64_t	 span = (int64_t)40 * 366 * 86400;
	char		 text[3][64];
	struct tm	 tm;
	uint64_t	 r = 0, d, want;
	time_t		 t;
	size_t		 i;

	for (i = 0; i < size && i < 8; i++)
		r = r << 8 | data[i];
	t = NOW - span + (time_t)(r % (uint64_t)(2 * span));
	if (gmtime_r(&t, &tm) == NULL)
		abort();
	snprintf(text[0], sizeof text[0], "%s, %02d %s %04d %02d:%02d:%02d "
	    "GMT", days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
	    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
	snprintf(text[1], sizeof text[1], "%s, %02d-%s-%02d %02d:%02d:%02d "
	    "GMT", long_days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
	    (tm.tm_year + 1900) % 100, tm.tm_hour, tm.tm_min, tm.tm_sec);
	snprintf(text[2], sizeof text[2], "%s %s %2d %02d:%02d:%02d %04d",
	    days[tm.tm_wday], months[tm.tm_mon], tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
	want = t > NOW ? (uint64_t)(t - NOW) * 1000 : 0;
	for (i = 0; i < nitems(text); i++) {
		d = 7;
		FUZZ_CHECK(httphdr_retry_after(text[i], NOW, UINT64_MAX,
		    &d) == 0 && d == want, "Retry-After \"%s\": %llu ms, want "
		    "%llu", text[i], (unsigned long long)d,
		    (unsigned long long)want);
	}
}

static void
check_media(const char *a, const char *type)
{
	const char	*s;
	int		 is;

	is = httphdr_media_is(a, type);
	FUZZ_CHECK(is == 0 || is == 1, "httphdr_media_is returned %d", is);
	if (!is)
		return;
	for (s = a; *s == ' ' || *s == '\t'; s++)
		;
	FUZZ_CHECK(strncasecmp(s, type, strlen(type)) == 0, "\"%s\" taken "
	    "for %s", a, type);
}

static void
check_split(const uint8_t *data, size_t size)
{
	const char	*line = (const char *)data, *name, *value;
	size_t		 nlen, vlen, i;

	if (httphdr_split(line, size, &name, &nlen, &value, &vlen) == -1)
		return;
	FUZZ_CHECK(name == line && nlen > 0 && nlen < size &&
	    line[nlen] == ':', "header name of %zu bytes", nlen);
	for (i = 0; i < nlen; i++)
		FUZZ_CHECK(is_tchar(name[i]), "header name holds 0x%02x",
		    (unsigned char)name[i]);
	FUZZ_CHECK(value > name + nlen && value + vlen <= line + size,
	    "header value outside the line");
	FUZZ_CHECK(vlen == 0 || (value[0] != ' ' && value[0] != '\t' &&
	    value[vlen - 1] != ' ' && value[vlen - 1] != '\t'),
	    "header value not trimmed");
	FUZZ_CHECK(!has_ctl(value, vlen), "header value holds a control "
	    "character");
}

/* A parsed URL's printed form; NULL if it does not parse. */
static char *
check_url(const char *s)
{
	struct url	 u, v;
	const char	*err = NULL;
	char		*f, *g;
	size_t		 i;

	if (url_parse(s, &u, &err) == -1) {
		FUZZ_CHECK(err != NULL && u.scheme == NULL && u.path == NULL,
		    "url_parse failed without an error, or left parts");
		return (NULL);
	}
	FUZZ_CHECK(strcmp(u.scheme, "http") == 0 ||
	    strcmp(u.scheme, "https") == 0, "scheme %s", u.scheme);
	FUZZ_CHECK(u.host != NULL && *u.host != '\0' && u.path != NULL,
	    "no host or path");
	FUZZ_CHECK(u.path[0] == '\0' || u.path[0] == '/', "path %s", u.path);
	FUZZ_CHECK(u.port == NULL || (strcmp(u.port, "0") != 0 &&
	    strlen(u.port) <= 5), "port %s", u.port);
	f = url_format(&u);
	for (i = 0; f[i] != '\0'; i++)
		FUZZ_CHECK((unsigned char)f[i] > 0x20 &&
		    (unsigned char)f[i] < 0x7f, "url_format printed 0x%02x",
		    (unsigned char)f[i]);
	FUZZ_CHECK(url_parse(f, &v, &err) == 0, "the printed URL %s does not "
	    "parse: %s", f, err);
	g = url_format(&v);
	FUZZ_CHECK(strcmp(f, g) == 0, "%s prints as %s, then as %s", s, f, g);
	free(g);
	url_clear(&u);
	url_clear(&v);
	return (f);
}

static void
check_url_rules(const char *s, const char *norm)
{
	struct url	 w;
	const char	*err;
	char		*c, *out[3];
	size_t		 n, i;

	FUZZ_CHECK(url_same_origin(s, s) == 1, "%s: not its own origin", s);
	FUZZ_CHECK(url_same_origin(s, norm) == 1, "%s: not the origin of %s",
	    s, norm);
	c = url_canonical_resource(s);
	FUZZ_CHECK(c != NULL && strchr(c, '#') == NULL, "%s: canonical "
	    "resource %s", s, c != NULL ? c : "(null)");
	FUZZ_CHECK(url_resource_matches(c, s) == 1, "%s: its canonical "
	    "resource %s does not match it", s, c);
	free(c);

	n = url_prm_candidates(s, out);
	FUZZ_CHECK(n == 1 || n == 2, "%s: %zu PRM candidates", s, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(url_parse(out[i], &w, &err) == 0 &&
		    w.query == NULL && w.fragment == NULL && w.userinfo ==
		    NULL && strstr(w.path,
		    "/.well-known/oauth-protected-resource") == w.path,
		    "%s: PRM candidate %s", s, out[i]);
		url_clear(&w);
		FUZZ_CHECK(url_same_origin(s, out[i]), "%s: PRM candidate %s "
		    "elsewhere", s, out[i]);
		free(out[i]);
	}
	n = url_asm_candidates(s, out);
	FUZZ_CHECK(n == 2 || n == 3, "%s: %zu ASM candidates", s, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(url_parse(out[i], &w, &err) == 0 &&
		    w.query == NULL && w.fragment == NULL &&
		    strstr(w.path, "/.well-known/") != NULL,
		    "%s: ASM candidate %s", s, out[i]);
		url_clear(&w);
		FUZZ_CHECK(url_same_origin(s, out[i]), "%s: ASM candidate %s "
		    "elsewhere", s, out[i]);
		free(out[i]);
	}
}

static void
check_resolve(const char *base, const char *base_norm, const char *ref,
    const char *ref_norm)
{
	char	*r, *rn, *again, *self;

	r = url_resolve(base, ref);
	if (base_norm == NULL) {
		FUZZ_CHECK(r == NULL, "resolved against a bad base: %s", r);
		return;
	}
	/* An absolute reference ignores the base. */
	if (ref_norm != NULL)
		FUZZ_CHECK(r != NULL && strcmp(r, ref_norm) == 0, "absolute "
		    "%s resolved as %s", ref_norm, r != NULL ? r : "(null)");
	if (r == NULL)
		return;
	rn = check_url(r);
	FUZZ_CHECK(rn != NULL && strcmp(rn, r) == 0, "the resolved %s "
	    "prints as %s", r, rn != NULL ? rn : "(null)");
	free(rn);
	again = url_resolve(base, r);
	FUZZ_CHECK(again != NULL && strcmp(again, r) == 0, "resolving %s "
	    "again gave %s", r, again != NULL ? again : "(null)");
	self = url_resolve(r, r);
	FUZZ_CHECK(self != NULL && strcmp(self, r) == 0, "%s resolved "
	    "against itself gave %s", r, self != NULL ? self : "(null)");
	free(again);
	free(self);
	free(r);
}

/*
 * url_template_match: a template without expressions matches exactly
 * itself; any template matches a URI that fills each expression with
 * "x"; nothing reads past either string.
 */
static void
check_template(const char *tmpl, const char *uri)
{
	char	*filled, *p;
	size_t	 n = 0;
	int	 open = 0;

	(void)url_template_match(tmpl, uri);
	if (strchr(tmpl, '{') == NULL)
		FUZZ_CHECK(url_template_match(tmpl, uri) ==
		    (strcmp(tmpl, uri) == 0), "%s ~ %s without expressions",
		    tmpl, uri);
	if ((filled = malloc(strlen(tmpl) + 1)) == NULL)
		abort();
	for (p = (char *)tmpl; *p != '\0'; p++) {
		if (!open && *p == '{')
			open = 1;
		else if (open && *p == '}') {
			open = 0;
			filled[n++] = 'x';
		} else if (!open)
			filled[n++] = *p;
	}
	filled[n] = '\0';
	if (!open && strchr(tmpl, '{') != NULL && strstr(tmpl, "}") != NULL)
		FUZZ_CHECK(url_template_match(tmpl, filled) == 1,
		    "%s does not match its own filling %s", tmpl, filled);
	free(filled);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*nul;
	char		*a, *b, *an, *bn;
	size_t		 alen;
	uint64_t	 cap;

	nul = memchr(data, '\0', size);
	alen = nul != NULL ? (size_t)(nul - data) : size;
	if ((a = malloc(alen + 1)) == NULL)
		abort();
	memcpy(a, data, alen);
	a[alen] = '\0';
	if (nul != NULL)
		b = strndup((const char *)nul + 1, size - alen - 1);
	else
		b = strdup("");
	if (b == NULL)
		abort();

	check_bearer(a);
	check_bearer_generated(data, size);
	cap = size > 0 ? (uint64_t)data[size - 1] * 1000 : 0;
	check_retry_after(a, cap);
	check_retry_after(a, UINT64_MAX);
	check_retry_after_generated(data, size);
	check_media(a, "application/json");
	check_media(a, "text/event-stream");
	check_split(data, size);

	an = check_url(a);
	bn = check_url(b);
	if (an != NULL)
		check_url_rules(a, an);
	check_resolve(a, an, b, bn);
	check_template(a, b);
	free(an);
	free(bn);
	free(a);
	free(b);
	return (0);
}
