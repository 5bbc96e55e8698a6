/*
 * suggest.h -- the known name a mistyped one is nearest to, for "did you
 * mean" in diagnostics (pure).  One rule for every caller: names compare
 * without regard to case, by the optimal string alignment distance (an
 * insertion, a deletion, a substitution or the swap of two neighbours
 * each count 1); a known name is near when it is within 1 of a word, or
 * within 2 when the known name has 6 characters or more.  The nearest
 * wins; of equally near names, the first listed.
 */
#ifndef MCPD_SUGGEST_H
#define MCPD_SUGGEST_H

#include <stddef.h>

/* The longest name compared; longer ones are never near. */
#define SUGGEST_NAME_MAX	64

/*
 * The one of names[0..n-1] that word is near to, or NULL if none is (or
 * word is one of them exactly).
 */
const char	*suggest_near(const char *word, const char *const *names,
		    size_t n);

#endif /* MCPD_SUGGEST_H */
