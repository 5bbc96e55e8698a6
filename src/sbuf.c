/*
 * sbuf.c -- a growing text buffer (see sbuf.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xmalloc.h"

#define SBUF_BOUNDED_FIRST	64	/* a bounded buffer's first allocation */

/*
 * The capacity to grow to for n more bytes and the NUL.  Unbounded, twice
 * what that needs.  Bounded, the capacity (SBUF_BOUNDED_FIRST if none)
 * doubles until it is enough, and stops at the bound.
 */
static size_t
sbuf_grown(const struct sbuf *b, size_t n)
{
	size_t	 need = b->len + n + 1, cap;

	if (b->lim == 0)
		return (need * 2);
	if (need > b->lim)
		abort();	/* past the bound: the caller's bug */
	cap = b->cap == 0 ? SBUF_BOUNDED_FIRST : b->cap;
	while (cap < need)
		cap = cap > b->lim / 2 ? b->lim : cap * 2;
	return (cap > b->lim ? b->lim : cap);
}

/* Room for n more bytes and the NUL. */
static void
sbuf_reserve(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = sbuf_grown(b, n);
		b->p = xrealloc(b->p, b->cap);
	}
}

/* Empty, with room for size bytes before it grows, and no bound. */
void
sbuf_init(struct sbuf *b, size_t size)
{
	b->cap = size + 1;
	b->p = xmalloc(b->cap);
	b->len = 0;
	b->p[0] = '\0';
	b->lim = 0;
}

/*
 * The content will stay within max bytes: the capacity grows to
 * max + 1 at most from now on (one already larger is left as it is).
 */
void
sbuf_bound(struct sbuf *b, size_t max)
{
	b->lim = max == SIZE_MAX ? 0 : max + 1;
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
		b->cap = sbuf_grown(b, n);
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

/* Wiped, freed, and empty again for reuse (the bound kept). */
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
