/*
 * follow.c -- the servers one connection follows, as a set of serials.
 *
 * A connection follows a handful of servers at most, so the set is a short
 * array searched in full.  Its memory is freed as soon as it is empty: a
 * connection whose servers all went holds nothing.
 */
#include "config.h"

#include <stdlib.h>

#include "follow.h"
#include "xmalloc.h"

static size_t
follow_find(const struct follow_set *fs, uint64_t serial)
{
	size_t	 i;

	for (i = 0; i < fs->n; i++) {
		if (fs->serials[i] == serial)
			break;
	}
	return (i);
}

int
follow_add(struct follow_set *fs, uint64_t serial)
{
	if (follow_find(fs, serial) < fs->n)
		return (0);
	fs->serials = xreallocarray(fs->serials, fs->n + 1,
	    sizeof *fs->serials);
	fs->serials[fs->n++] = serial;
	return (fs->n == 1);
}

int
follow_has(const struct follow_set *fs, uint64_t serial)
{
	return (follow_find(fs, serial) < fs->n);
}

int
follow_empty(const struct follow_set *fs)
{
	return (fs->n == 0);
}

int
follow_remove(struct follow_set *fs, uint64_t serial)
{
	size_t	 i;

	if ((i = follow_find(fs, serial)) == fs->n)
		return (0);
	fs->serials[i] = fs->serials[--fs->n];
	if (fs->n > 0)
		return (0);
	follow_clear(fs);
	return (1);
}

void
follow_clear(struct follow_set *fs)
{
	free(fs->serials);
	fs->serials = NULL;
	fs->n = 0;
}
