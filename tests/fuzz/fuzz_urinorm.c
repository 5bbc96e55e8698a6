/*
 * fuzz_urinorm.c -- resource URIs in their normal form (src/urinorm.c),
 * on whatever a client or a server could send as a URI, and the resource
 * patterns of a configuration.
 *
 * The input, up to its first NUL, is the URI (and the pattern).
 *
 * Invariants:
 * - urinorm answers a length or -1 with a reason; the normal form fits
 *   the room the header promises and is as long as it says;
 * - the normal form is its own normal form;
 * - its scheme is in lower case, and it holds no control character;
 * - a file URI's normal form is "file:///" and a path without "//", "."
 *   or ".." segments, whose decoding is what a reference reading the
 *   input's path (decoded, then resolved segment by segment) gives;
 * - a pattern without glob characters that urinorm_pattern_error lets
 *   through is its own normal form (else it could never match).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "url.h"
#include "urinorm.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "urinorm";

/* Percent-decode s[0, len) into out (room for len + 1); its length. */
static size_t
decode(const char *s, size_t len, char *out)
{
	size_t	 i, o = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    url_hex_value((unsigned char)s[i + 1]) != -1 &&
		    url_hex_value((unsigned char)s[i + 2]) != -1) {
			out[o++] = (char)(url_hex_value((unsigned char)s[i + 1]) << 4 |
			    url_hex_value((unsigned char)s[i + 2]));
			i += 2;
		} else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return (o);
}

/*
 * The reference: the path of a file URI the normaliser accepted, read
 * the slow way.  segs holds the kept segments; the result is "/" and
 * them joined, with a '/' after the last when the path ends in a
 * directory.
 */
static char *
reference_path(const char *uri)
{
	const char	*p = uri + 5, *seg, *slash;
	char		*path, *out, **segs;
	size_t		 nsegs = 0, i, o = 0, len, n;
	int		 dir = 0;

	if (p[0] == '/' && p[1] == '/')
		p = strchr(p + 2, '/');
	FUZZ_CHECK(p != NULL, "%s: accepted without a path", uri);
	len = strlen(p);
	path = xmalloc(len + 1);
	len = decode(p, len, path);
	segs = xcalloc(len + 1, sizeof *segs);
	for (seg = path; seg < path + len; seg = slash + 1) {
		slash = memchr(seg, '/', (size_t)(path + len - seg));
		if (slash == NULL)
			slash = path + len;
		n = (size_t)(slash - seg);
		dir = 0;
		if (n == 0 || (n == 1 && seg[0] == '.')) {
			dir = 1;
			continue;
		}
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (nsegs > 0)
				free(segs[--nsegs]);
			dir = 1;
			continue;
		}
		segs[nsegs++] = xstrndup(seg, n);
	}
	if (len > 0 && path[len - 1] == '/')
		dir = 1;
	out = xmalloc(len + 2);
	for (i = 0; i < nsegs; i++) {
		out[o++] = '/';
		memcpy(out + o, segs[i], strlen(segs[i]));
		o += strlen(segs[i]);
		free(segs[i]);
	}
	if (o == 0 || dir)
		out[o++] = '/';
	out[o] = '\0';
	free(segs);
	free(path);
	return (out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*why = NULL, *why2 = NULL;
	char		*uri, *out, *again, *ref, *dec;
	ssize_t		 n, m;
	size_t		 i, len;

	uri = xstrndup((const char *)data, size);
	len = strlen(uri);
	out = xmalloc(len + URINORM_GROWTH_BYTES + 1);
	n = urinorm(uri, out, &why);
	if (n == -1) {
		FUZZ_CHECK(why != NULL && *why != '\0', "%s: refused without "
		    "a reason", uri);
		goto patterns;
	}
	FUZZ_CHECK((size_t)n <= len + URINORM_GROWTH_BYTES, "%s: the normal "
	    "form (%zd bytes) outgrew the room promised", uri, n);
	FUZZ_CHECK(strlen(out) == (size_t)n, "%s: the normal form is %zu "
	    "bytes, not %zd", uri, strlen(out), n);
	for (i = 0; out[i] != ':'; i++)
		FUZZ_CHECK(out[i] < 'A' || out[i] > 'Z', "%s: scheme of %s "
		    "not in lower case", uri, out);
	for (i = 0; i < (size_t)n; i++)
		FUZZ_CHECK((unsigned char)out[i] >= 0x20 && out[i] != 0x7f,
		    "%s: a control character in %s", uri, out);
	again = xmalloc((size_t)n + URINORM_GROWTH_BYTES + 1);
	m = urinorm(out, again, &why2);
	FUZZ_CHECK(m == n && strcmp(again, out) == 0, "%s: the normal form "
	    "%s is not its own (%s)", uri, out, m == -1 ? why2 : again);
	free(again);
	if (strncmp(out, "file:", 5) == 0) {
		FUZZ_CHECK(strncmp(out, "file:///", 8) == 0, "%s: a file URI "
		    "normal as %s", uri, out);
		FUZZ_CHECK(strstr(out + 7, "//") == NULL &&
		    strstr(out + 7, "/./") == NULL &&
		    strstr(out + 7, "/../") == NULL, "%s: %s has empty or "
		    "dot segments", uri, out);
		ref = reference_path(uri);
		dec = xmalloc((size_t)n + 1);
		decode(out + 7, strlen(out + 7), dec);
		FUZZ_CHECK(strcmp(dec, ref) == 0, "%s: the path of %s is %s, "
		    "the reference reads %s", uri, out, dec, ref);
		free(dec);
		free(ref);
	}

patterns:
	/* A pattern without glob characters is a URI. */
	if (uri[strcspn(uri, "*?[\\")] == '\0' &&
	    urinorm_pattern_error(uri) == NULL && n != -1)
		FUZZ_CHECK(strcmp(out, uri) == 0, "the pattern %s was let "
		    "through, but URIs are compared as %s", uri, out);
	free(out);
	free(uri);
	return (0);
}
