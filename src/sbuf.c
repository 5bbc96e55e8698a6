/*
 * sbuf.c -- a growing text buffer (see sbuf.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xmalloc.h"

/* Room for n more bytes and the NUL. */
static void
sbuf_reserve(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
}

/* Empty, with room for size bytes before it grows. */
void
sbuf_init(struct sbuf *b, size_t size)
{
	b->cap = size + 1;
	b->p = xmalloc(b->cap);
	b->len = 0;
	b->p[0] = '\0';
}

void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	sbuf_reserve(b, n);
	if (n > 0)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void
sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();	/* a bad format: the caller's bug */
	sbuf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	(void)vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
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

void
sbuf_adds_secret(struct sbuf *b, const char *s)
{
	sbuf_add_secret(b, s, strlen(s));
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
