/*
 * uritmpl.c -- a URI against a URI template read as a pattern
 * (uritmpl.h).  The template is taken one piece at a time (a literal
 * run, or an expression); the set of positions in the URI that its
 * pieces so far can end at is kept as one flag per byte, and each piece
 * moves it forward in one pass.  No backtracking: the work is the pieces
 * times the URI's length, counted against the caller's budget.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "uritmpl.h"
#include "xmalloc.h"

/* A level-1 expression's value never holds these (RFC 6570, 3.2.2). */
static int
uritmpl_stop(char c)
{
	return (c == '/' || c == '?' || c == '#');
}

/* A literal of n bytes from each reachable position. */
static void
uritmpl_literal(const char *lit, size_t n, const char *uri, size_t len,
    const unsigned char *cur, unsigned char *next)
{
	size_t	 i;

	for (i = 0; i + n <= len; i++)
		if (cur[i] && memcmp(uri + i, lit, n) == 0)
			next[i + n] = 1;
}

/* An expression: any run from a reachable position (stopping, if stop). */
static void
uritmpl_expr(int stop, const char *uri, size_t len,
    const unsigned char *cur, unsigned char *next)
{
	size_t	 j;
	int	 reach = 0;

	for (j = 0; j <= len; j++) {
		reach |= cur[j];
		next[j] = (unsigned char)reach;
		if (j < len && stop && uritmpl_stop(uri[j]))
			reach = 0;
	}
}

int
uritmpl_match(const char *tmpl, const char *uri, size_t len, size_t *work)
{
	unsigned char	*cur, *next, *swap;
	const char	*p = tmpl, *end;
	size_t		 pieces = 0, n;
	int		 rc = -1;

	cur = xcalloc(len + 1, 1);
	next = xcalloc(len + 1, 1);
	cur[0] = 1;
	while (*p != '\0') {
		if (++pieces > URITMPL_MAX_PIECES ||
		    (*work += len + 1) > URITMPL_MAX_WORK)
			goto out;
		memset(next, 0, len + 1);
		if (*p == '{') {
			if ((end = strchr(p, '}')) == NULL)
				goto out;
			uritmpl_expr(strchr("+#./;?&", p[1]) == NULL ||
			    p[1] == '\0', uri, len, cur, next);
			p = end + 1;
		} else {
			n = strcspn(p, "{");
			uritmpl_literal(p, n, uri, len, cur, next);
			p += n;
		}
		swap = cur;
		cur = next;
		next = swap;
	}
	rc = cur[len];
out:
	free(cur);
	free(next);
	return (rc);
}
