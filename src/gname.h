/*
 * gname.h -- the names a group gives its members' tools and prompts (pure:
 * no I/O).
 *
 * A group session shows a member's tool or prompt NAME as MEMBER SEP NAME
 * (SEP is "__" unless configured).  MCP 2025-11-25 names tools with 1 to
 * 128 characters of [A-Za-z0-9_.-]; the model APIs behind the clients
 * accept at most GNAME_MAX of them today, so:
 * - a name that is already within those rules is kept as it is;
 * - any other is made to fit: every other byte becomes '_', the text is
 *   cut to leave room, and '-' and 8 hex digits of a hash of the member
 *   and the original name are appended.  The hash has no secret and does
 *   not depend on the process: the same tool gets the same name after a
 *   restart, so a client's saved settings keep working.
 * gname_split undoes only the first rule; a group keeps the names it gave
 * out in a table to undo the second.
 *
 * One tool has several spellings (struct gname_spellings): the name the
 * group gives out, the member's own, MEMBER SEP NAME as the member spells
 * it, and the name given out before '.' was allowed.  A group's filter is
 * matched against all of them, in lists and in calls alike, so no
 * spelling a client can send gets past a pattern written for another.
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

/* Whether s is within the rules: 1 to GNAME_MAX of [A-Za-z0-9_.-]. */
int	gname_valid(const char *s);

/*
 * Whether name, as a client sent it, is a name gname_make gives out
 * unchanged for member (MEMBER SEP REST within the rules, no hash); if
 * so, *rest points into name.  Names that carry a hash are only known
 * from the table of names a group gave out.
 */
int	gname_plain_split(const char *name, const char *member,
	    const char *sep, const char **rest);

#define GNAME_SPELLINGS		4
struct gname_spellings {
	const char	*v[GNAME_SPELLINGS];	/* distinct, the listed first */
	size_t		 n;
	char		 listed[GNAME_MAX + 1];
	char		 nodot[GNAME_MAX + 1];
	char		*qualified;		/* MEMBER SEP NAME, malloc'd */
};

/* The spellings of member's name (see above); free with _free. */
void	gname_spellings(struct gname_spellings *, const char *member,
	    const char *sep, const char *name);
void	gname_spellings_free(struct gname_spellings *);

#endif /* MCPD_GNAME_H */
