/*
 * xmalloc.c -- allocation wrappers that abort on failure.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/uio.h>

#include "xmalloc.h"

static void __attribute__((noreturn))
xmalloc_fail(size_t size)
{
	fprintf(stderr, "mcpd: out of memory allocating %zu bytes\n", size);
	abort();
}

void *
xmalloc(size_t size)
{
	void	*p;

	if ((p = malloc(size == 0 ? 1 : size)) == NULL)
		xmalloc_fail(size);
	return (p);
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		xmalloc_fail(n * size);
	return (p);
}

void *
xrealloc(void *old, size_t size)
{
	void	*p;

	if ((p = realloc(old, size == 0 ? 1 : size)) == NULL)
		xmalloc_fail(size);
	return (p);
}

void *
xreallocarray(void *old, size_t n, size_t size)
{
	if (size != 0 && n > (size_t)-1 / size)
		xmalloc_fail((size_t)-1);
	return (xrealloc(old, n * size));
}

char *
xstrdup(const char *s)
{
	return (xstrndup(s, strlen(s)));
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;
	size_t	 len;

	len = strnlen(s, n);
	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return (p);
}

char **
xstrvdup(char *const *v, size_t n)
{
	char	**copy;
	size_t	  i;

	copy = xreallocarray(NULL, n + 1, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	copy[n] = NULL;
	return (copy);
}

int
xvasprintf(char **ret, const char *fmt, va_list ap)
{
	int	 n;

	if ((n = vasprintf(ret, fmt, ap)) < 0)
		xmalloc_fail(strlen(fmt));
	return (n);
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = xvasprintf(ret, fmt, ap);
	va_end(ap);
	return (n);
}

char *
xiovdup(const struct iovec *iov, int iovcnt, size_t *len)
{
	char	*text, *p;
	size_t	 n = 0;
	int	 i;

	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	p = text = xmalloc(n + 1);
	for (i = 0; i < iovcnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	*p = '\0';
	*len = n;
	return (text);
}
