/*
 * xmalloc.h -- allocation that cannot fail: running out of memory aborts
 * with a message, so callers never check for NULL.
 */
#ifndef MCPD_XMALLOC_H
#define MCPD_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* A copy of v[0, n), NULL-ended (n + 1 slots). */
char	**xstrvdup(char *const *v, size_t n);
struct iovec;
/* Pieces joined into one NUL-terminated text; its length in *len. */
char	*xiovdup(const struct iovec *, int iovcnt, size_t *len);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 xvasprintf(char **, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));

#endif /* MCPD_XMALLOC_H */
