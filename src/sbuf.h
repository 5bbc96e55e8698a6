/*
 * sbuf.h -- a growing text buffer (pure): bytes appended, always
 * NUL-ended, doubling as it grows.  Start it zeroed; p is malloc'd, the
 * caller's to take or free.
 */
#ifndef MCPD_SBUF_H
#define MCPD_SBUF_H

#include <stddef.h>

struct sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

void	 sbuf_add(struct sbuf *, const char *, size_t);
void	 sbuf_adds(struct sbuf *, const char *);

#endif /* MCPD_SBUF_H */
