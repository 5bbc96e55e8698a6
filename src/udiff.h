/*
 * udiff.h -- the difference between two texts as a unified diff, the
 * form diff -u and git show (pure).
 *
 * Lines are compared whole (a longest common subsequence); each hunk
 * shows UDIFF_CONTEXT_LINES of context.  Past UDIFF_MAX_CELLS of work
 * (old lines times new lines) the whole old text is shown removed and
 * the new one added: still a correct diff, only longer.  A last line
 * without a newline is marked "\ No newline at end of file".
 */
#ifndef MCPD_UDIFF_H
#define MCPD_UDIFF_H

#include <stddef.h>

#define UDIFF_CONTEXT_LINES	3
#define UDIFF_MAX_CELLS		(16 * 1024 * 1024)

/*
 * The diff with "--- OLD_LABEL" and "+++ NEW_LABEL" headers, or "" when
 * the texts are equal (malloc'd).
 */
char	*udiff(const char *old, size_t oldlen, const char *new, size_t newlen,
	    const char *old_label, const char *new_label);

#endif /* MCPD_UDIFF_H */
