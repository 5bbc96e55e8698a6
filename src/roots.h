/*
 * roots.h -- the roots a client gives a server (roots/list): read from a
 * client's result or from the configuration, checked, and put in one form
 * so that equal sets compare equal (pure: no I/O).
 *
 * A set is two texts: the result to answer a server's roots/list with,
 * in the order the roots came in, and a key, the uris sorted, one a line.
 * Two sets are equal when their keys are: names and order do not count.
 * A uri holds no control character and no NUL (roots_from_result refuses
 * them), so a key's lines are its uris.
 */
#ifndef MCPD_ROOTS_H
#define MCPD_ROOTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define ROOTS_MAX	256	/* roots in one set */
#define ROOTS_URI_MAX	4096	/* bytes of one uri */
#define ROOTS_NAME_MAX	1024	/* bytes of one name */

struct roots {
	/*
	 * {"roots":[{"uri":U,"name":N},...]}: the JSON text to answer a
	 * server's roots/list with; the client's order, duplicates (same
	 * uri) dropped (the first kept), members other than uri and name
	 * dropped; name only when the client gave one.
	 */
	char	*result;
	/*
	 * The uris sorted (strcmp), each followed by '\n'; "" for no roots.
	 * Equal keys <=> equal sets.
	 */
	char	*key;
	size_t	 n;		/* roots in the set */
};

/*
 * A client's roots/list result: the JSON text of the "result" value (len
 * bytes, not NUL-terminated).  It must be an object whose "roots" is an
 * array of at most ROOTS_MAX objects, each with a "uri" of 1 to
 * ROOTS_URI_MAX bytes that starts with "file://" and holds no control
 * character (below 0x20, or 0x7f) and no NUL; a "name", if present and
 * not null, is a string of at most ROOTS_NAME_MAX bytes, its control
 * characters (and NULs) written '?'.
 * Returns 0, or -1 with *err set to a malloc'd message that says what is
 * wrong and where ("roots[3].uri is not a file:// URI"); *r is then
 * untouched.
 */
int	 roots_from_result(struct roots *r, const char *text, size_t len,
	    char **err);

/*
 * The configured roots (file:// URIs, as the configuration stores them):
 * each root is named by its uri's last path segment, %-decoded ("%00"
 * decodes to '?'); a uri ending in '/' has no name.  A uri given twice
 * is kept once.  The uris are taken as they are: the configuration has
 * checked them.
 */
void	 roots_from_uris(struct roots *r, char *const *uris, size_t n);

/* Whether two sets hold the same uris (the same key). */
int	 roots_equal(const struct roots *, const struct roots *);

/* dst (not freed first) becomes a copy of src. */
void	 roots_copy(struct roots *dst, const struct roots *src);

/* Frees a set and zeroes it; safe on a zeroed struct. */
void	 roots_free(struct roots *);

/* The uris as a cJSON array of strings, sorted (for status output). */
cJSON	*roots_uris_json(const struct roots *);

/*
 * The path a file:// URI names, by urinorm's rule (urinorm.h), the one
 * resource filters use: the scheme's case ignored, an empty host or
 * "localhost" (any case), percent-encoding decoded, "." and ".."
 * segments resolved (".." at "/" stays there), repeated '/' read as one;
 * then no '/' at the end but for "/" itself.  NULL, with *why (static
 * text) saying what is wrong, for another scheme or host, a query or
 * fragment, a '%' that encodes nothing, an encoded '/' (%2F) or NUL
 * (%00), or a backslash (raw or %5C), which some servers would read as a
 * separator.
 */
char	*roots_uri_path(const char *uri, const char **why);

/*
 * The file:// URI of an absolute path: A-Z a-z 0-9 - . _ ~ and '/' as
 * they are, every other byte percent-encoded (upper case).
 */
char	*roots_path_uri(const char *path);

/* Whether a path (roots_uri_path) is base or lies below it. */
int	 roots_path_within(const char *path, const char *base);

/*
 * The roots a caller may choose when it may only narrow what a server
 * reaches (a client that is not an administrator): of the set in, in its
 * order with its names, each root that is one of the configured uris
 * (same path; kept as configured) or lies within one of the uris of
 * within (kept as roots_path_uri writes its path, so that the server
 * sees no dot segment, host or encoding the check did not).  *out is a
 * new set, empty if none is left.  Returns how many roots were refused;
 * with some, *refused (malloc'd) names the first and why, for a log.
 */
size_t	 roots_narrow(struct roots *out, const struct roots *in,
	    char *const *configured, size_t nconfigured,
	    char *const *within, size_t nwithin, char **refused);

#endif /* MCPD_ROOTS_H */
