/*
 * sbuf.c -- a growing text buffer (see sbuf.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xmalloc.h"

void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

/* As sbuf_add, but the buffer outgrown is wiped before it is freed. */
void
sbuf_add_secret(struct sbuf *b, const char *s, size_t n)
{
	char	*p;

	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		p = xmalloc(b->cap);
		if (b->p != NULL) {
			memcpy(p, b->p, b->len);
			explicit_bzero(b->p, b->len);
			free(b->p);
		}
		b->p = p;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* Wiped, freed, and zeroed again for reuse. */
void
sbuf_wipe(struct sbuf *b)
{
	if (b->p != NULL) {
		explicit_bzero(b->p, b->cap);
		free(b->p);
	}
	b->p = NULL;
	b->len = b->cap = 0;
}
