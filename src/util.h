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

#endif /* MCPD_UTIL_H */
