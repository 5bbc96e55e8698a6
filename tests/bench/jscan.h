/*
 * jscan.h -- a small structural JSON scanner for the benchmark programs.
 *
 * It finds members of an object without building a tree: values are
 * returned as spans of the original text, so an id or a progress token can
 * be compared byte for byte with what was sent.  It checks structure
 * (brackets, strings, separators), not every detail of the grammar.
 * Deliberately independent of the daemon's envelope scanner, so the load
 * generator does not share the code it checks.
 */
#ifndef MCPD_BENCH_JSCAN_H
#define MCPD_BENCH_JSCAN_H

#include <stddef.h>

struct jscan_span {
	const char	*p;	/* NULL when absent */
	size_t		 len;
};

/* Skip whitespace; return the first other byte or end. */
const char	*jscan_ws(const char *, const char *);
/* Skip one value starting at p; NULL if it is malformed. */
const char	*jscan_value(const char *, const char *);
/*
 * Scan the object in [p, p + len) (surrounding whitespace allowed) once,
 * filling out[i] with the value of member keys[i] (unescaped keys only).
 * Returns 0, or -1 if the text is not exactly one well-formed object.
 */
int		 jscan_fields(const char *, size_t, const char *const *,
		    struct jscan_span *, size_t);
/* One member of an object value; 0 if found. */
int		 jscan_member(struct jscan_span, const char *,
		    struct jscan_span *);
/* Element i of an array value; 0 if found. */
int		 jscan_index(struct jscan_span, size_t, struct jscan_span *);
/* Whether a span is exactly the given text. */
int		 jscan_is(struct jscan_span, const char *);
/* A span holding an integer, as a long long; 0 if it is one. */
int		 jscan_integer(struct jscan_span, long long *);

#endif /* MCPD_BENCH_JSCAN_H */
