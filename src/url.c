/*
 * url.c -- absolute http(s) URLs: parsing, printing, resolving references
 * (RFC 3986), comparing origins and resources, and the well-known URLs of
 * OAuth discovery (RFC 9728, RFC 8414, the MCP authorization spec).
 *
 * Parsing is strict, since the URLs come from remote servers (redirects,
 * metadata documents, WWW-Authenticate): only the characters RFC 3986
 * allows, percent-encodings complete, the scheme http or https, an
 * authority with a non-empty host and a port of 1 to 65535.  A host is a
 * bracketed IPv6 address or a name of letters, digits, '-', '.', '_' and
 * '~': no percent-encoding and no sub-delims there, which resolvers and
 * HTTP libraries read in different ways.  IPvFuture and zone identifiers
 * are refused.
 *
 * A parsed URL is normalised (RFC 3986 section 6.2.2): scheme and host
 * lower case, a default or empty port dropped, leading zeros of the port
 * dropped, percent-encoded unreserved characters decoded and the hex
 * digits of the others upper case, dot segments removed.  So two URLs that
 * differ only in those ways print the same, and comparisons are of the
 * printed forms.  Everything here allocates with xmalloc and cannot fail
 * but on bad input.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "url.h"
#include "util.h"
#include "xmalloc.h"

#define URL_WK_PRM	"/.well-known/oauth-protected-resource"
#define URL_WK_OAUTH	"/.well-known/oauth-authorization-server"
#define URL_WK_OIDC	"/.well-known/openid-configuration"

/* The text of b, never NULL. */
static char *
buf_take(struct sbuf *b)
{
	if (b->p == NULL)
		sbuf_add(b, "", 0);
	return (b->p);
}

static int
is_alpha(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

static int
is_digit(unsigned char c)
{
	return (c >= '0' && c <= '9');
}

int
url_hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

static unsigned char
lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

static int
is_unreserved(unsigned char c)
{
	return (is_alpha(c) || is_digit(c) || c == '-' || c == '.' ||
	    c == '_' || c == '~');
}

static int
is_sub_delim(unsigned char c)
{
	return (strchr("!$&'()*+,;=", c) != NULL && c != '\0');
}

/* pchar without pct-encoded (checked apart): RFC 3986 section 3.3. */
static int
is_pchar(unsigned char c)
{
	return (is_unreserved(c) || is_sub_delim(c) || c == ':' || c == '@');
}

/*
 * Characters a component may hold besides percent-encodings: the path
 * (pchar and '/'), the query and fragment (and '?'), userinfo (no '@').
 */
enum url_part { PART_PATH, PART_QUERY, PART_USERINFO };

static int
part_char(enum url_part part, unsigned char c)
{
	switch (part) {
	case PART_PATH:
		return (is_pchar(c) || c == '/');
	case PART_QUERY:
		return (is_pchar(c) || c == '/' || c == '?');
	case PART_USERINFO:
		return (is_unreserved(c) || is_sub_delim(c) || c == ':');
	}
	return (0);
}

/*
 * Check s[0..n) as a component and append it normalised: percent-encoded
 * unreserved characters decoded, the others with upper-case hex digits.
 * -1 if a character is not allowed or a percent-encoding is cut.
 */
static int
norm_part(struct sbuf *b, const char *s, size_t n, enum url_part part)
{
	static const char	 hex[] = "0123456789ABCDEF";
	unsigned char		 c;
	char			 enc[3];
	size_t			 i;
	int			 hi, lo;

	for (i = 0; i < n; i++) {
		c = s[i];
		if (c != '%') {
			if (!part_char(part, c))
				return (-1);
			sbuf_add(b, (const char *)&c, 1);
			continue;
		}
		if (n - i < 3 || (hi = url_hex_value(s[i + 1])) < 0 ||
		    (lo = url_hex_value(s[i + 2])) < 0)
			return (-1);
		c = hi << 4 | lo;
		if (is_unreserved(c))
			sbuf_add(b, (const char *)&c, 1);
		else {
			enc[0] = '%';
			enc[1] = hex[hi];
			enc[2] = hex[lo];
			sbuf_add(b, enc, 3);
		}
		i += 2;
	}
	return (0);
}

static char *
norm_part_dup(const char *s, size_t n, enum url_part part)
{
	struct sbuf	 b = { NULL, 0, 0 };

	if (norm_part(&b, s, n, part) == -1) {
		free(b.p);
		return (NULL);
	}
	return (buf_take(&b));
}

/*
 * RFC 3986 section 5.2.4, remove_dot_segments, on a copy of in[0..n).
 * The output never grows: each step moves a segment or drops input.
 */
static char *
remove_dots(const char *in, size_t n)
{
	char		*out;
	const char	*p = in, *end = in + n, *seg;
	size_t		 olen = 0, left;

	out = xmalloc(n + 1);
	while (p < end) {
		left = end - p;
		if (left >= 3 && strncmp(p, "../", 3) == 0)
			p += 3;
		else if (left >= 2 && strncmp(p, "./", 2) == 0)
			p += 2;
		else if (left >= 3 && strncmp(p, "/./", 3) == 0)
			p += 2;
		else if (left == 2 && strncmp(p, "/.", 2) == 0) {
			/* "/." at the end: replaced by "/". */
			out[olen++] = '/';
			p = end;
		} else if ((left >= 4 && strncmp(p, "/../", 4) == 0) ||
		    (left == 3 && strncmp(p, "/..", 3) == 0)) {
			/*
			 * Drop the last output segment and its '/',
			 * looking back only over what is dropped: linear.
			 */
			while (olen > 0 && out[--olen] != '/')
				;
			if (left == 3) {
				out[olen++] = '/';
				p = end;
			} else
				p += 3;
		} else if ((left == 1 && *p == '.') ||
		    (left == 2 && strncmp(p, "..", 2) == 0))
			p = end;
		else {
			/* Move the first segment, with its leading '/'. */
			seg = p;
			if (*p == '/')
				p++;
			while (p < end && *p != '/')
				p++;
			memcpy(out + olen, seg, p - seg);
			olen += p - seg;
		}
	}
	out[olen] = '\0';
	return (out);
}

void
url_clear(struct url *u)
{
	free(u->scheme);
	free(u->userinfo);
	free(u->host);
	free(u->port);
	free(u->path);
	free(u->query);
	free(u->fragment);
	memset(u, 0, sizeof *u);
}

/* The host s[0..n): a bracketed IPv6 address or a plain name. */
static char *
parse_host(const char *s, size_t n, const char **err)
{
	struct in6_addr	 a6;
	char		*host;
	size_t		 i;

	if (n == 0) {
		*err = "the host is empty";
		return (NULL);
	}
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']') {
			*err = "bad IPv6 address";
			return (NULL);
		}
		for (i = 1; i < n - 1; i++) {
			if (url_hex_value(s[i]) < 0 && s[i] != ':' &&
			    s[i] != '.') {
				*err = "bad IPv6 address";
				return (NULL);
			}
		}
		host = xstrndup(s + 1, n - 2);
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			free(host);
			*err = "bad IPv6 address";
			return (NULL);
		}
		free(host);
	} else {
		for (i = 0; i < n; i++) {
			if (!is_unreserved(s[i])) {
				*err = "bad character in the host";
				return (NULL);
			}
		}
	}
	host = xstrndup(s, n);
	for (i = 0; i < n; i++)
		host[i] = lower(host[i]);
	return (host);
}

/* The port s[0..n) (digits only): NULL if empty or the default. */
static int
parse_port(const char *s, size_t n, const char *scheme, char **port,
    const char **err)
{
	unsigned long	 v = 0;
	size_t		 i;

	*port = NULL;
	for (i = 0; i < n; i++) {
		if (!is_digit(s[i])) {
			*err = "bad port";
			return (-1);
		}
		v = v * 10 + (s[i] - '0');
		if (v > 65535) {
			*err = "port out of range";
			return (-1);
		}
	}
	if (n == 0)
		return (0);
	if (v == 0) {
		*err = "port out of range";
		return (-1);
	}
	if ((v == 80 && strcmp(scheme, "http") == 0) ||
	    (v == 443 && strcmp(scheme, "https") == 0))
		return (0);
	xasprintf(port, "%lu", v);
	return (0);
}

/* The authority s[0..n) ("user@host:port") into u. */
static int
parse_authority(const char *s, size_t n, struct url *u, const char **err)
{
	const char	*at, *hs, *end = s + n, *colon = NULL, *p;

	at = memchr(s, '@', n);
	if (at != NULL) {
		u->userinfo = norm_part_dup(s, at - s, PART_USERINFO);
		if (u->userinfo == NULL) {
			*err = "bad character in the userinfo";
			return (-1);
		}
		hs = at + 1;
	} else
		hs = s;
	if (hs < end && *hs == '[') {
		if ((p = memchr(hs, ']', end - hs)) == NULL) {
			*err = "bad IPv6 address";
			return (-1);
		}
		p++;
		if (p < end && *p != ':') {
			*err = "bad character after the IPv6 address";
			return (-1);
		}
		colon = p < end ? p : NULL;
	} else
		colon = memchr(hs, ':', end - hs);
	if ((u->host = parse_host(hs, (colon != NULL ? colon : end) - hs,
	    err)) == NULL)
		return (-1);
	if (colon != NULL && parse_port(colon + 1, end - colon - 1, u->scheme,
	    &u->port, err) == -1)
		return (-1);
	return (0);
}

/* Length of a scheme at s followed by ':' (RFC 3986 section 3.1), or 0. */
static size_t
scheme_len(const char *s)
{
	size_t	 i;

	if (!is_alpha(s[0]))
		return (0);
	for (i = 1; s[i] != '\0'; i++) {
		if (s[i] == ':')
			return (i);
		if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '+' &&
		    s[i] != '-' && s[i] != '.')
			return (0);
	}
	return (0);
}

int
url_parse(const char *s, struct url *u, const char **err)
{
	const char	*p, *auth, *path, *q, *hash, *end, *unused;
	char		*raw;
	size_t		 n, i;

	memset(u, 0, sizeof *u);
	if (err == NULL)
		err = &unused;
	for (p = s; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
			*err = (unsigned char)*p == ' ' ? "space in the URL" :
			    "control or non-ASCII character in the URL";
			return (-1);
		}
	}
	end = p;
	if ((n = scheme_len(s)) == 0) {
		*err = "not an absolute URL";
		return (-1);
	}
	u->scheme = xstrndup(s, n);
	for (i = 0; i < n; i++)
		u->scheme[i] = lower(u->scheme[i]);
	if (strcmp(u->scheme, "http") != 0 && strcmp(u->scheme, "https") != 0) {
		*err = "not an http or https URL";
		goto bad;
	}
	p = s + n + 1;
	if (strncmp(p, "//", 2) != 0) {
		*err = "no host in the URL";
		goto bad;
	}
	auth = p + 2;
	path = auth + strcspn(auth, "/?#");
	if (parse_authority(auth, path - auth, u, err) == -1)
		goto bad;
	hash = strchr(path, '#');
	q = memchr(path, '?', (hash != NULL ? hash : end) - path);
	n = (q != NULL ? q : hash != NULL ? hash : end) - path;
	if ((raw = norm_part_dup(path, n, PART_PATH)) == NULL) {
		*err = "bad character in the path";
		goto bad;
	}
	u->path = remove_dots(raw, strlen(raw));
	free(raw);
	if (q != NULL && (u->query = norm_part_dup(q + 1,
	    (hash != NULL ? hash : end) - q - 1, PART_QUERY)) == NULL) {
		*err = "bad character in the query";
		goto bad;
	}
	if (hash != NULL && (u->fragment = norm_part_dup(hash + 1,
	    end - hash - 1, PART_QUERY)) == NULL) {
		*err = "bad character in the fragment";
		goto bad;
	}
	return (0);

bad:
	url_clear(u);
	return (-1);
}

/* scheme://[userinfo@]host[:port] */
static void
format_origin(struct sbuf *b, const struct url *u, int userinfo)
{
	sbuf_adds(b, u->scheme);
	sbuf_adds(b, "://");
	if (userinfo && u->userinfo != NULL) {
		sbuf_adds(b, u->userinfo);
		sbuf_adds(b, "@");
	}
	sbuf_adds(b, u->host);
	if (u->port != NULL) {
		sbuf_adds(b, ":");
		sbuf_adds(b, u->port);
	}
}

char *
url_format(const struct url *u)
{
	struct sbuf	 b = { NULL, 0, 0 };

	format_origin(&b, u, 1);
	sbuf_adds(&b, u->path);
	if (u->query != NULL) {
		sbuf_adds(&b, "?");
		sbuf_adds(&b, u->query);
	}
	if (u->fragment != NULL) {
		sbuf_adds(&b, "#");
		sbuf_adds(&b, u->fragment);
	}
	return (buf_take(&b));
}

/* A reference split into its five parts (RFC 3986 section 5.2.1). */
struct url_ref {
	const char	*scheme, *auth, *path, *query, *frag;
	size_t		 scheme_len, auth_len, path_len, query_len;
	size_t		 frag_len;
};

static int
ref_split(const char *s, struct url_ref *r)
{
	const char	*p, *end;
	size_t		 n;

	memset(r, 0, sizeof *r);
	for (p = s; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			return (-1);
	}
	end = p;
	p = s;
	if ((n = scheme_len(s)) != 0) {
		r->scheme = s;
		r->scheme_len = n;
		p += n + 1;
	}
	if (strncmp(p, "//", 2) == 0) {
		r->auth = p + 2;
		r->auth_len = strcspn(r->auth, "/?#");
		p = r->auth + r->auth_len;
	}
	r->path = p;
	r->path_len = strcspn(p, "?#");
	p += r->path_len;
	if (*p == '?') {
		r->query = p + 1;
		r->query_len = strcspn(r->query, "#");
		p = r->query + r->query_len;
	}
	if (*p == '#') {
		r->frag = p + 1;
		r->frag_len = end - r->frag;
	}
	/* A relative path's first segment may not hold a ':'. */
	if (r->scheme == NULL && r->auth == NULL) {
		for (n = 0; n < r->path_len && r->path[n] != '/'; n++) {
			if (r->path[n] == ':')
				return (-1);
		}
	}
	return (0);
}

static int
valid_part(const char *s, size_t n, enum url_part part)
{
	struct sbuf	 b = { NULL, 0, 0 };
	int		 rc;

	rc = norm_part(&b, s, n, part);
	free(b.p);
	return (rc == 0);
}

char *
url_resolve(const char *base, const char *ref)
{
	struct url	 bu, tu;
	struct url_ref	 r;
	struct sbuf	 t = { NULL, 0, 0 }, path = { NULL, 0, 0 };
	const char	*err, *slash;
	char		*out = NULL, *dots;

	if (url_parse(base, &bu, &err) == -1)
		return (NULL);
	if (ref_split(ref, &r) == -1 ||
	    !valid_part(r.path, r.path_len, PART_PATH) ||
	    (r.query != NULL && !valid_part(r.query, r.query_len,
	    PART_QUERY)) ||
	    (r.frag != NULL && !valid_part(r.frag, r.frag_len, PART_QUERY)))
		goto done;

	if (r.scheme != NULL) {
		/* url_parse below checks all of it, and the scheme. */
		sbuf_add(&t, ref, strlen(ref));
		goto parse;
	}
	sbuf_adds(&t, bu.scheme);
	sbuf_adds(&t, ":");
	if (r.auth != NULL) {
		sbuf_adds(&t, "//");
		sbuf_add(&t, r.auth, r.auth_len);
		dots = remove_dots(r.path, r.path_len);
		sbuf_adds(&t, dots);
		free(dots);
		if (r.query != NULL) {
			sbuf_adds(&t, "?");
			sbuf_add(&t, r.query, r.query_len);
		}
	} else {
		format_origin(&path, &bu, 1);
		sbuf_adds(&t, path.p + strlen(bu.scheme) + 1);
		free(path.p);
		memset(&path, 0, sizeof path);
		if (r.path_len == 0) {
			sbuf_adds(&t, bu.path);
			if (r.query != NULL) {
				sbuf_adds(&t, "?");
				sbuf_add(&t, r.query, r.query_len);
			} else if (bu.query != NULL) {
				sbuf_adds(&t, "?");
				sbuf_adds(&t, bu.query);
			}
		} else {
			if (r.path[0] == '/')
				sbuf_add(&path, r.path, r.path_len);
			else {
				/* Merge (section 5.2.3). */
				if (*bu.path == '\0')
					sbuf_adds(&path, "/");
				else {
					slash = strrchr(bu.path, '/');
					sbuf_add(&path, bu.path,
					    slash - bu.path + 1);
				}
				sbuf_add(&path, r.path, r.path_len);
			}
			dots = remove_dots(path.p, path.len);
			sbuf_adds(&t, dots);
			free(dots);
			free(path.p);
			if (r.query != NULL) {
				sbuf_adds(&t, "?");
				sbuf_add(&t, r.query, r.query_len);
			}
		}
	}
	if (r.frag != NULL) {
		sbuf_adds(&t, "#");
		sbuf_add(&t, r.frag, r.frag_len);
	}

parse:
	/* The result must be a valid http(s) URL; print it normalised. */
	if (url_parse(buf_take(&t), &tu, &err) == 0) {
		out = url_format(&tu);
		url_clear(&tu);
	}
done:
	free(t.p);
	url_clear(&bu);
	return (out);
}

int
url_same_origin(const char *a, const char *b)
{
	struct url	 ua, ub;
	const char	*err;
	int		 same;

	if (url_parse(a, &ua, &err) == -1)
		return (0);
	if (url_parse(b, &ub, &err) == -1) {
		url_clear(&ua);
		return (0);
	}
	same = strcmp(ua.scheme, ub.scheme) == 0 &&
	    strcmp(ua.host, ub.host) == 0 &&
	    (ua.port == NULL) == (ub.port == NULL) &&
	    (ua.port == NULL || strcmp(ua.port, ub.port) == 0);
	url_clear(&ua);
	url_clear(&ub);
	return (same);
}

/* The normalised URL without its fragment, an empty path made "/". */
static char *
resource_form(const char *s, int root_slash, int *had_fragment)
{
	struct url	 u;
	const char	*err;
	char		*out;

	if (url_parse(s, &u, &err) == -1)
		return (NULL);
	*had_fragment = u.fragment != NULL;
	free(u.fragment);
	u.fragment = NULL;
	if (root_slash && *u.path == '\0') {
		free(u.path);
		u.path = xstrdup("/");
	}
	out = url_format(&u);
	url_clear(&u);
	return (out);
}

int
url_resource_matches(const char *resource, const char *server_url)
{
	char	*r, *s;
	int	 frag, same;

	if ((r = resource_form(resource, 1, &frag)) == NULL)
		return (0);
	/* A resource identifier has no fragment (RFC 9728 section 1.2). */
	if (frag || (s = resource_form(server_url, 1, &frag)) == NULL) {
		free(r);
		return (0);
	}
	same = strcmp(r, s) == 0;
	free(r);
	free(s);
	return (same);
}

char *
url_origin(const char *url)
{
	struct url	 u;
	struct sbuf	 b = { NULL, 0, 0 };
	const char	*err;

	if (url_parse(url, &u, &err) == -1)
		return (NULL);
	format_origin(&b, &u, 0);
	url_clear(&u);
	return (buf_take(&b));
}

int
url_resource_is_origin(const char *resource, const char *server_url)
{
	char	*origin;
	int	 same;

	if ((origin = url_origin(server_url)) == NULL)
		return (0);
	same = url_resource_matches(resource, origin);
	free(origin);
	return (same);
}

char *
url_canonical_resource(const char *server_url)
{
	int	 frag;

	return (resource_form(server_url, 0, &frag));
}

/*
 * The parts of a well-known URL: the origin (without userinfo) and the
 * path without one terminating '/'; the query and fragment are dropped.
 */
static int
wk_parts(const char *s, char **origin, char **path)
{
	struct url	 u;
	struct sbuf	 b = { NULL, 0, 0 };
	const char	*err;
	size_t		 n;

	if (url_parse(s, &u, &err) == -1)
		return (-1);
	format_origin(&b, &u, 0);
	*origin = buf_take(&b);
	n = strlen(u.path);
	if (n > 0 && u.path[n - 1] == '/')
		n--;
	*path = xstrndup(u.path, n);
	url_clear(&u);
	return (0);
}

size_t
url_prm_candidates(const char *server_url, char *out[2])
{
	char	*origin, *path;
	size_t	 n = 0;

	if (wk_parts(server_url, &origin, &path) == -1)
		return (0);
	if (*path != '\0')
		xasprintf(&out[n++], "%s%s%s", origin, URL_WK_PRM, path);
	xasprintf(&out[n++], "%s%s", origin, URL_WK_PRM);
	free(origin);
	free(path);
	return (n);
}

size_t
url_asm_candidates(const char *issuer, char *out[3])
{
	char	*origin, *path;
	size_t	 n = 0;

	if (wk_parts(issuer, &origin, &path) == -1)
		return (0);
	if (*path != '\0') {
		xasprintf(&out[n++], "%s%s%s", origin, URL_WK_OAUTH, path);
		xasprintf(&out[n++], "%s%s%s", origin, URL_WK_OIDC, path);
		xasprintf(&out[n++], "%s%s%s", origin, path, URL_WK_OIDC);
	} else {
		xasprintf(&out[n++], "%s%s", origin, URL_WK_OAUTH);
		xasprintf(&out[n++], "%s%s", origin, URL_WK_OIDC);
	}
	free(origin);
	free(path);
	return (n);
}

/*
 * Only the literal parts are compared, in order; the first must start the
 * URI and the last end it.  Bounded by the template's literals times the
 * URI's length.
 */
int
url_template_match(const char *tmpl, const char *uri)
{
	const char	*t = tmpl, *u = uri, *open, *close, *found;
	size_t		 n;
	char		*lit;
	int		 first = 1;

	for (;;) {
		open = strchr(t, '{');
		n = open != NULL ? (size_t)(open - t) : strlen(t);
		if (first) {
			if (strncmp(u, t, n) != 0)
				return (0);
			u += n;
		} else if (open == NULL) {
			/* The last literal ends the URI. */
			return (strlen(u) >= n &&
			    strcmp(u + strlen(u) - n, t) == 0);
		} else if (n > 0) {
			lit = xstrndup(t, n);
			found = strstr(u, lit);
			free(lit);
			if (found == NULL)
				return (0);
			u = found + n;
		}
		if (open == NULL)
			return (*u == '\0');
		if ((close = strchr(open, '}')) == NULL)
			return (0);
		t = close + 1;
		first = 0;
	}
}
