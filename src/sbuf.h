/*
 * sbuf.h -- a growing text buffer (pure): bytes appended, always
 * NUL-ended, doubling as it grows.  Start it zeroed, or with sbuf_init
 * where the size it will come to is known roughly (then p is never
 * NULL); p is malloc'd, the caller's to take or free.
 *
 * For a secret (a token, a header value), append with sbuf_add_secret
 * and end with sbuf_wipe: no copy is left behind in freed memory, not
 * even the buffers it outgrew.
 *
 * A buffer whose content its owner keeps within max bytes can say so
 * with sbuf_bound: its capacity then starts at 64 bytes and doubles as
 * it grows, but stops at max + 1, so the memory it holds is bounded as
 * its content is.  Adding past the bound is the caller's bug and aborts.
 */
#ifndef MCPD_SBUF_H
#define MCPD_SBUF_H

#include <stddef.h>

struct sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
	size_t	 lim;		/* cap grows no further; 0: no bound */
};

void	 sbuf_init(struct sbuf *, size_t size);
void	 sbuf_bound(struct sbuf *, size_t max);
void	 sbuf_add(struct sbuf *, const char *, size_t);
void	 sbuf_adds(struct sbuf *, const char *);
void	 sbuf_printf(struct sbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 sbuf_add_secret(struct sbuf *, const char *, size_t);
void	 sbuf_adds_secret(struct sbuf *, const char *);
void	 sbuf_wipe(struct sbuf *);

#endif /* MCPD_SBUF_H */
