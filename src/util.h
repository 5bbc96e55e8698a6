/*
 * util.h -- small helpers for every part of the tree.
 */
#ifndef MCPD_UTIL_H
#define MCPD_UTIL_H

/* The number of elements of an array (not of a pointer). */
#define nitems(a)	(sizeof (a) / sizeof (a)[0])

/* <sys/queue.h> of the BSDs has it; glibc's does not. */
#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif

/*
 * Does hay[0, len) hold needle[0, nlen)?  Found by memchr(3) of the
 * needle's byte at anchor (pick one rare in the text searched) and a
 * compare around it: on the message path, where memmem's setup costs
 * more than a short line's whole scan.
 */
#include <string.h>

static inline int
bytes_has(const char *hay, size_t len, const char *needle, size_t nlen,
    size_t anchor)
{
	const char	*p = hay + anchor, *end = hay + len;

	if (nlen == 0 || nlen > len)
		return (nlen == 0);
	while (p < end - (nlen - 1 - anchor) &&
	    (p = memchr(p, needle[anchor], (size_t)(end - (nlen - 1 -
	    anchor) - p))) != NULL) {
		if (memcmp(p - anchor, needle, nlen) == 0)
			return (1);
		p++;
	}
	return (0);
}

/* Two string vectors of n elements each hold the same strings in order. */
static inline int
strv_equal(char *const *a, size_t na, char *const *b, size_t nb)
{
	size_t	 i;

	if (na != nb)
		return (0);
	for (i = 0; i < na; i++) {
		if (strcmp(a[i], b[i]) != 0)
			return (0);
	}
	return (1);
}

#endif /* MCPD_UTIL_H */
