/*
 * urinorm.c -- a resource URI in its normal form, and the patterns that
 * could never match one (see urinorm.h).
 *
 * The normal form is written in one pass per component straight into the
 * caller's buffer; dot segments are then removed in place, which never
 * writes ahead of what it reads.  urinorm does not allocate, so a filter
 * can judge a list of any length in memory linear in its longest name.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "urinorm.h"
#include "xmalloc.h"

/*
 * The schemes URL parsers treat specially (WHATWG URL): a backslash is
 * '/', "//" and a host are supplied when missing, a default port is
 * dropped.  file has no port.
 */
static const struct {
	const char	*scheme;
	const char	*default_port;
} urinorm_special[] = {
	{ "http", "80" },
	{ "https", "443" },
	{ "ws", "80" },
	{ "wss", "443" },
	{ "ftp", "21" },
	{ "file", NULL },
};

static const char urinorm_bad_pct[] = "a '%' not followed by two hex digits";

static int
urinorm_alpha(int c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

static int
urinorm_digit(int c)
{
	return (c >= '0' && c <= '9');
}

/* RFC 3986 2.3: what may always be written decoded. */
static int
urinorm_unreserved(int c)
{
	return (urinorm_alpha(c) || urinorm_digit(c) || c == '-' ||
	    c == '.' || c == '_' || c == '~');
}

static int
urinorm_lower(int c)
{
	return (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* The byte "%XX" at p (a NUL-terminated string) encodes, or -1. */
static int
urinorm_pct_byte(const char *p)
{
	int	 hi, lo;

	if ((hi = url_hex_value((unsigned char)p[1])) == -1 ||
	    (lo = url_hex_value((unsigned char)p[2])) == -1)
		return (-1);
	return (hi << 4 | lo);
}

/* The length of a scheme and its ':' at the start of s, or 0. */
static size_t
urinorm_scheme_len(const char *s, size_t len)
{
	size_t	 i;

	if (len == 0 || !urinorm_alpha((unsigned char)s[0]))
		return (0);
	for (i = 1; i < len; i++) {
		if (s[i] == ':')
			return (i + 1);
		if (!urinorm_alpha((unsigned char)s[i]) &&
		    !urinorm_digit((unsigned char)s[i]) && s[i] != '+' &&
		    s[i] != '-' && s[i] != '.')
			return (0);
	}
	return (0);
}

/* Which urinorm_special a scheme (lower case, no ':') is; -1: none. */
static int
urinorm_find_special(const char *scheme, size_t len)
{
	size_t	 i;

	for (i = 0; i < sizeof urinorm_special / sizeof *urinorm_special;
	    i++) {
		if (strlen(urinorm_special[i].scheme) == len &&
		    memcmp(urinorm_special[i].scheme, scheme, len) == 0)
			return ((int)i);
	}
	return (-1);
}

/*
 * Percent-encodings of src[0, len) normalised onto out: unreserved bytes
 * decoded, the others with upper-case hex; with fold, letters outside the
 * encodings in lower case (a host).  Returns the bytes written (at most
 * len), or -1 for a malformed '%'.
 */
static ssize_t
urinorm_pct(const char *src, size_t len, int fold, char *out)
{
	static const char	 hex[] = "0123456789ABCDEF";
	size_t			 i, o = 0;
	int			 c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)src[i];
		if (c != '%') {
			out[o++] = (char)(fold ? urinorm_lower(c) : c);
			continue;
		}
		/* Within the span: "%4?x" is not "%4?". */
		if (len - i < 3 || (c = urinorm_pct_byte(src + i)) == -1)
			return (-1);
		i += 2;
		if (urinorm_unreserved(c))
			out[o++] = (char)(fold ? urinorm_lower(c) : c);
		else {
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 0xf];
		}
	}
	return ((ssize_t)o);
}

/*
 * remove_dot_segments (RFC 3986 5.2.4) on path[0, len), which begins with
 * '/', in place; with file also empty segments dropped ("//" is "/" to
 * the kernel).  Returns the new length.  The output never passes the
 * input, so one buffer does.
 */
static size_t
urinorm_dots(char *path, size_t len, int file)
{
	size_t	 r = 0, o = 0, s, n;

	while (r < len) {
		/* path[r] is '/'; its segment runs to the next one. */
		s = r + 1;
		for (n = 0; s + n < len && path[s + n] != '/'; n++)
			;
		r = s + n;
		if ((n == 1 && path[s] == '.') || (n == 0 && file)) {
			if (r == len)
				path[o++] = '/';
			continue;
		}
		if (n == 2 && path[s] == '.' && path[s + 1] == '.') {
			while (o > 0 && path[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			if (r == len)
				path[o++] = '/';
			continue;
		}
		path[o++] = '/';
		memmove(path + o, path + s, n);
		o += n;
	}
	return (o);
}

/* "//" and the authority a[0, len) of a URI that is not a file URI. */
static ssize_t
urinorm_authority(const char *a, size_t len, const char *default_port,
    char *out, const char **why)
{
	const char	*at, *host, *host_end, *port, *end = a + len;
	ssize_t		 n;
	size_t		 o = 0, plen;

	out[o++] = '/';
	out[o++] = '/';
	if (memchr(a, ' ', len) != NULL) {
		*why = "a space in the authority";
		return (-1);
	}
	host = a;
	if ((at = memchr(a, '@', len)) != NULL) {
		if (memchr(at + 1, '@', (size_t)(end - at - 1)) != NULL) {
			*why = "two '@' in the authority";
			return (-1);
		}
		if ((n = urinorm_pct(a, (size_t)(at - a), 0, out + o)) == -1) {
			*why = urinorm_bad_pct;
			return (-1);
		}
		o += (size_t)n;
		out[o++] = '@';
		host = at + 1;
	}
	if (host < end && *host == '[') {
		if ((host_end = memchr(host, ']', (size_t)(end - host))) ==
		    NULL) {
			*why = "a '[' without ']' in the host";
			return (-1);
		}
		host_end++;
		if (host_end < end && *host_end != ':') {
			*why = "text after the host's ']'";
			return (-1);
		}
	} else if ((host_end = memchr(host, ':', (size_t)(end - host))) ==
	    NULL)
		host_end = end;		/* a name holds no ':' (RFC 3986) */
	if ((n = urinorm_pct(host, (size_t)(host_end - host), 1,
	    out + o)) == -1) {
		*why = urinorm_bad_pct;
		return (-1);
	}
	o += (size_t)n;
	if (n == 0 && default_port != NULL) {
		*why = "no host, which URL parsers require of this scheme";
		return (-1);
	}
	if (host_end == end)
		return ((ssize_t)o);
	/* A port: its digits, without leading zeros. */
	for (port = host_end + 1; port < end; port++)
		if (!urinorm_digit((unsigned char)*port)) {
			*why = "a port that is not a number";
			return (-1);
		}
	for (port = host_end + 1; end - port > 1 && *port == '0'; port++)
		;
	plen = (size_t)(end - port);
	if (plen == 0 || (default_port != NULL &&
	    strlen(default_port) == plen &&
	    memcmp(default_port, port, plen) == 0))
		return ((ssize_t)o);
	out[o++] = ':';
	memcpy(out + o, port, plen);
	o += plen;
	return ((ssize_t)o);
}

/*
 * In a decoded file path, what stays encoded so that the normal form
 * reads back as itself: '%', '?', '#', control characters, and a space
 * that ends it (URL parsers drop one).
 */
static int
urinorm_file_keeps_encoded(const char *path, size_t len, size_t i)
{
	int	 c = (unsigned char)path[i];

	return (c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f ||
	    (c == ' ' && i + 1 == len));
}

/*
 * Encode in place what urinorm_file_keeps_encoded says in path[0, len),
 * which has room: each such byte came from an encoding in the URI.
 * Returns the new length.
 */
static size_t
urinorm_file_encode(char *path, size_t len)
{
	static const char	 hex[] = "0123456789ABCDEF";
	size_t			 i, more = 0, o;
	int			 c;

	for (i = 0; i < len; i++)
		if (urinorm_file_keeps_encoded(path, len, i))
			more += 2;
	if (more == 0)
		return (len);
	o = len + more;
	for (i = len; i-- > 0;) {
		c = (unsigned char)path[i];
		if (urinorm_file_keeps_encoded(path, len, i)) {
			path[--o] = hex[c & 0xf];
			path[--o] = hex[c >> 4];
			path[--o] = '%';
		} else
			path[--o] = (char)c;
	}
	return (len + more);
}

/* The rest of a file URI (after "file:") onto out: "//" and its path. */
static ssize_t
urinorm_file(const char *rest, char *out, const char **why)
{
	const char	*path = rest, *a;
	size_t		 alen, o, i;
	ssize_t		 n;
	int		 c;

	if (rest[0] == '/' && rest[1] == '/') {
		a = rest + 2;
		alen = strcspn(a, "/?#");
		/* out has room: the host normalised is not longer. */
		if ((n = urinorm_pct(a, alen, 1, out)) == -1) {
			*why = urinorm_bad_pct;
			return (-1);
		}
		if (n != 0 && (n != 9 || memcmp(out, "localhost", 9) != 0)) {
			*why = "a host other than localhost, which names no "
			    "local file";
			return (-1);
		}
		path = a + alen;
	}
	if (*path == '\0') {
		*why = "no path";
		return (-1);
	}
	if (*path != '/') {
		*why = "a relative path";
		return (-1);
	}
	if (strpbrk(path, "?#") != NULL) {
		*why = "a query or a fragment, which servers read as part of "
		    "the path or not";
		return (-1);
	}
	out[0] = '/';
	out[1] = '/';
	o = 2;
	for (i = 0; path[i] != '\0'; i++) {
		c = (unsigned char)path[i];
		if (c == '%') {
			if ((c = urinorm_pct_byte(path + i)) == -1) {
				*why = urinorm_bad_pct;
				return (-1);
			}
			i += 2;
			if (c == '\0') {
				*why = "an encoded NUL (%00)";
				return (-1);
			}
			if (c == '/') {
				*why = "an encoded '/' (%2F)";
				return (-1);
			}
			if (c == '\\') {
				*why = "an encoded backslash (%5C)";
				return (-1);
			}
		}
		out[o++] = (char)c;
	}
	n = (ssize_t)urinorm_dots(out + 2, o - 2, 1);
	return ((ssize_t)(2 + urinorm_file_encode(out + 2, (size_t)n)));
}

ssize_t
urinorm(const char *uri, char *out, const char **why)
{
	const char	*rest, *auth = NULL, *path, *path_end, *end;
	const char	*default_port = NULL;
	size_t		 len = strlen(uri), slen, alen = 0, o, i;
	ssize_t		 n;
	int		 special;

	for (i = 0; i < len; i++) {
		if ((unsigned char)uri[i] < 0x20 || uri[i] == 0x7f) {
			*why = "a control character, which URL parsers drop";
			return (-1);
		}
	}
	if (len > 0 && uri[len - 1] == ' ') {
		*why = "a trailing space, which URL parsers drop";
		return (-1);
	}
	if ((slen = urinorm_scheme_len(uri, len)) == 0) {
		*why = "no scheme: not an absolute URI";
		return (-1);
	}
	for (i = 0; i < slen; i++)
		out[i] = (char)urinorm_lower((unsigned char)uri[i]);
	o = slen;
	rest = uri + slen;
	end = uri + len;
	if ((special = urinorm_find_special(out, slen - 1)) != -1) {
		default_port = urinorm_special[special].default_port;
		if (strchr(rest, '\\') != NULL) {
			*why = "a backslash, which URL parsers read as '/'";
			return (-1);
		}
		if (default_port == NULL) {
			if ((n = urinorm_file(rest, out + o, why)) == -1)
				return (-1);
			o += (size_t)n;
			out[o] = '\0';
			return ((ssize_t)o);
		}
	}
	path = rest;
	if (rest[0] == '/' && rest[1] == '/') {
		auth = rest + 2;
		alen = strcspn(auth, "/?#");
		path = auth + alen;
	}
	if (special != -1 && alen == 0) {
		*why = "no \"//\" and host, which URL parsers would supply";
		return (-1);
	}
	if (auth != NULL) {
		if ((n = urinorm_authority(auth, alen, default_port, out + o,
		    why)) == -1)
			return (-1);
		o += (size_t)n;
	}
	path_end = path + strcspn(path, "?#");
	if ((n = urinorm_pct(path, (size_t)(path_end - path), 0,
	    out + o)) == -1) {
		*why = urinorm_bad_pct;
		return (-1);
	}
	if (n > 0 && out[o] == '/')
		n = (ssize_t)urinorm_dots(out + o, (size_t)n, 0);
	else if (n == 0 && special != -1)
		out[o + (size_t)n++] = '/';
	if (auth == NULL && n >= 2 && out[o] == '/' && out[o + 1] == '/') {
		/* "s:/..//h/x" would read as "s://h/x". */
		*why = "a path that begins with \"//\" once dot segments "
		    "are removed, without an authority";
		return (-1);
	}
	o += (size_t)n;
	/* The query and the fragment: only their encodings. */
	if ((n = urinorm_pct(path_end, (size_t)(end - path_end), 0,
	    out + o)) == -1) {
		*why = urinorm_bad_pct;
		return (-1);
	}
	o += (size_t)n;
	out[o] = '\0';
	return ((ssize_t)o);
}

/*
 * Patterns.
 */

/* 1 if the plain text s[0, len) holds a dot segment of a path. */
static int
urinorm_has_dot_segment(const char *s, size_t len, int at_end)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (s[i] != '/')
			continue;
		if (len - i >= 3 && s[i + 1] == '.' && s[i + 2] == '/')
			return (1);
		if (len - i >= 4 && s[i + 1] == '.' && s[i + 2] == '.' &&
		    s[i + 3] == '/')
			return (1);
		/* "/." or "/.." ending the pattern itself. */
		if (at_end && ((len - i == 2 && s[i + 1] == '.') ||
		    (len - i == 3 && s[i + 1] == '.' && s[i + 2] == '.')))
			return (1);
	}
	return (0);
}

/* The checks of urinorm_pattern_error on what a pattern writes plainly. */
static const char *
urinorm_pattern_plain_error(const char *pattern)
{
	const char	*p, *rest, *a;
	size_t		 plain = strcspn(pattern, "*?[\\"), slen, i, n, alen;
	int		 special, file, c, whole;
	char		 scheme[8];

	if ((slen = urinorm_scheme_len(pattern, plain)) == 0)
		return (NULL);
	for (i = 0; i + 1 < slen; i++)
		if (pattern[i] >= 'A' && pattern[i] <= 'Z')
			return ("the scheme must be in lower case: URIs are "
			    "compared in their normal form (RFC 3986)");
	special = -1;
	if (slen - 1 < sizeof scheme) {
		memcpy(scheme, pattern, slen - 1);
		special = urinorm_find_special(scheme, slen - 1);
	}
	file = special != -1 && urinorm_special[special].default_port == NULL;

	/* Percent-encodings anywhere (but quoted by a backslash). */
	for (p = pattern; *p != '\0'; p++) {
		if (*p == '\\' && p[1] != '\0') {
			p++;
			continue;
		}
		if (*p != '%' || (c = urinorm_pct_byte(p)) == -1)
			continue;
		/* A space stays encoded only where it ends the path. */
		if (file && !(c == '%' || c == '?' || c == '#' || c < 0x20 ||
		    c == 0x7f || (c == ' ' && (p[3] == '\0' ||
		    strchr("*?[\\", p[3]) != NULL))))
			return ("a file URI is compared with its path decoded: "
			    "write the character itself, not %XX (only %25, "
			    "%3F, %23, control characters and a final %20 "
			    "stay encoded)");
		if (!file && urinorm_unreserved(c))
			return ("an unreserved character (A-Z a-z 0-9 - . _ "
			    "~) is compared decoded: write it, not %XX");
		if ((p[1] >= 'a' && p[1] <= 'f') || (p[2] >= 'a' && p[2] <=
		    'f'))
			return ("percent-encodings are compared with "
			    "upper-case hex digits (%2F, not %2f)");
	}

	rest = pattern + slen;
	n = plain - slen;		/* the plain text after the ':' */
	whole = pattern[plain] == '\0';
	if (file) {
		if (whole && plain > 0 && pattern[plain - 1] == ' ')
			return ("a file URI is compared with a space that "
			    "ends its path encoded: write %20");
		if (memcmp(rest, "///", n < 3 ? n : 3) != 0)
			return ("a file URI is compared as file:///PATH "
			    "(file:/PATH and file://localhost/PATH are "
			    "rewritten so)");
		if (n > 2) {
			for (i = 2; i + 1 < n; i++)
				if (rest[i] == '/' && rest[i + 1] == '/')
					return ("a file URI is compared with "
					    "\"//\" in its path read as \"/\"");
			if (urinorm_has_dot_segment(rest + 2, n - 2, whole))
				return ("a file URI is compared with '.' and "
				    "'..' in its path resolved");
		}
		return (NULL);
	}
	if (special != -1 && memcmp(rest, "//", n < 2 ? n : 2) != 0)
		return ("an http, https, ws, wss or ftp URI is compared as "
		    "SCHEME://HOST/...");
	if (n >= 2 && rest[0] == '/' && rest[1] == '/') {
		a = rest + 2;
		alen = strcspn(a, "/?#");
		if (alen > n - 2)
			alen = n - 2;
		/* The host: after the userinfo. */
		for (i = alen; i > 0 && a[i - 1] != '@'; i--)
			;
		for (; i < alen; i++)
			if (a[i] >= 'A' && a[i] <= 'Z')
				return ("the host must be in lower case: URIs "
				    "are compared in their normal form "
				    "(RFC 3986)");
		if (special != -1 && (2 + alen < n || whole)) {
			/* An authority the plain text ends: its port. */
			for (i = alen; i > 0 && urinorm_digit((unsigned char)
			    a[i - 1]); i--)
				;
			if (i > 0 && a[i - 1] == ':' && alen - i ==
			    strlen(urinorm_special[special].default_port) &&
			    memcmp(a + i, urinorm_special[special].default_port,
			    alen - i) == 0)
				return ("the default port is dropped before "
				    "comparing: leave it out");
		}
		rest = a + alen;
		n -= 2 + alen;
	}
	if (n > 0 && rest[0] == '/') {
		n = strcspn(rest, "?#") < n ? strcspn(rest, "?#") : n;
		if (urinorm_has_dot_segment(rest, n, whole &&
		    rest[n] == '\0'))
			return ("dot segments (\"/./\", \"/../\") are removed "
			    "before comparing");
	}
	return (NULL);
}

const char *
urinorm_pattern_error(const char *pattern)
{
	const char	*why, *ignored;
	char		*norm;
	int		 differs;

	if ((why = urinorm_pattern_plain_error(pattern)) != NULL)
		return (why);
	/* Without a glob character it is a URI: matched if it is normal. */
	if (pattern[strcspn(pattern, "*?[\\")] != '\0' ||
	    urinorm_scheme_len(pattern, strlen(pattern)) == 0)
		return (NULL);
	norm = xmalloc(strlen(pattern) + URINORM_GROWTH_BYTES + 1);
	differs = urinorm(pattern, norm, &ignored) == -1 ||
	    strcmp(norm, pattern) != 0;
	free(norm);
	if (differs)
		return ("never matches: URIs are compared in their normal form "
		    "(RFC 3986), and this one is not in it or has none");
	return (NULL);
}
