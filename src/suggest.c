/*
 * suggest.c -- the known name a mistyped one is nearest to (suggest.h).
 *
 * The distance is computed on at most SUGGEST_NAME_MAX characters, in
 * three rows of a fixed size: no allocation, and bounded time whatever
 * the word a file holds.
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "suggest.h"

/* How far a name of this length may be from a word and still be near. */
static size_t
suggest_limit(size_t len)
{
	return (len >= 6 ? 2 : 1);
}

static size_t
suggest_min(size_t a, size_t b)
{
	return (a < b ? a : b);
}

/* Optimal string alignment distance, case folded. */
static size_t
suggest_distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t	 rows[3][SUGGEST_NAME_MAX + 1];
	size_t	*prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t	 i, j, cost;
	int	 ca, cb;

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		ca = tolower((unsigned char)a[i - 1]);
		for (j = 1; j <= lb; j++) {
			cb = tolower((unsigned char)b[j - 1]);
			cost = ca == cb ? 0 : 1;
			cur[j] = suggest_min(suggest_min(prev[j] + 1,
			    cur[j - 1] + 1), prev[j - 1] + cost);
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb)
				cur[j] = suggest_min(cur[j], prev2[j - 2] + 1);
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return (prev[lb]);
}

const char *
suggest_near(const char *word, const char *const *names, size_t n)
{
	const char	*best = NULL;
	size_t		 i, lw, ln, d, best_d = SIZE_MAX;

	lw = strlen(word);
	if (lw > SUGGEST_NAME_MAX)
		return (NULL);
	for (i = 0; i < n; i++) {
		if (strcmp(word, names[i]) == 0)
			return (NULL);
	}
	for (i = 0; i < n; i++) {
		ln = strlen(names[i]);
		if (ln > SUGGEST_NAME_MAX ||
		    (lw > ln ? lw - ln : ln - lw) > suggest_limit(ln))
			continue;
		d = suggest_distance(word, lw, names[i], ln);
		if (d <= suggest_limit(ln) && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return (best);
}
