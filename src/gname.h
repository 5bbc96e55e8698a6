/*
 * gname.h -- the names a group gives its members' tools and prompts (pure:
 * no I/O).
 *
 * A group session shows a member's tool or prompt NAME as MEMBER SEP NAME
 * (SEP is "__" unless configured).  The model APIs behind the clients
 * accept at most GNAME_MAX characters of [A-Za-z0-9_-], so:
 * - a name that is already within those rules is kept as it is;
 * - any other is made to fit: every other byte becomes '_', the text is
 *   cut to leave room, and '-' and 8 hex digits of a hash of the member
 *   and the original name are appended.  The hash has no secret and does
 *   not depend on the process: the same tool gets the same name after a
 *   restart, so a client's saved settings keep working.
 * gname_split undoes only the first rule; a group keeps the names it gave
 * out in a table to undo the second.
 */
#ifndef MCPD_GNAME_H
#define MCPD_GNAME_H

#include <stddef.h>

#define GNAME_MAX		64
#define GNAME_DEFAULT_SEP	"__"

/*
 * Write the group's name for member's name into out (GNAME_MAX + 1
 * bytes).  Returns 1 if it is the plain MEMBER SEP NAME, 0 if it had to be
 * shortened or cleaned (and so carries a hash).
 */
int	gname_make(const char *member, const char *sep, const char *name,
	    char out[GNAME_MAX + 1]);

/*
 * Whether name, as a client sent it, is MEMBER SEP REST for member; if
 * so, *rest points into name.
 */
int	gname_split(const char *name, const char *member, const char *sep,
	    const char **rest);

/* Whether s is within the rules: 1 to GNAME_MAX of [A-Za-z0-9_-]. */
int	gname_valid(const char *s);

#endif /* MCPD_GNAME_H */
