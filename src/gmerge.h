/*
 * gmerge.h -- a group's lists, merged from its members' pages (pure: no
 * I/O, no daemon state).
 *
 * A group session asks each member for a page of a list (tools, prompts,
 * resources, templates) and answers its client with one page:
 * - the members' entries in group order, whatever order the pages came
 *   in; an entry that is not an object with its name (or uri) as a
 *   string is left out, and so is any the caller's keep function refuses
 *   (the group's filter, a name another member holds, what does not fit
 *   in the session's holdings);
 * - tools and prompts renamed MEMBER SEP NAME by gname_make (gname.h);
 * - one nextCursor that holds each member's own: base64url of the JSON
 *   object {"member index": "member cursor", ...} of the members with
 *   more pages.  A cursor a client sends back is read into each member's
 *   cursor again, or refused whole if it is not one a group of that many
 *   members could have given out.
 *
 * The names a session gave out are kept in a table (an hmap of struct
 * gmerge_name by the name given out), so a call finds its member and the
 * member's own name even when the name had to be shortened: the first
 * member in group order to claim a name keeps it, and another's entry
 * that would be named the same is left out (a clash).
 */
#ifndef MCPD_GMERGE_H
#define MCPD_GMERGE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "gname.h"

struct hmap;

/* A name the session gave out: which member, and the member's name. */
struct gmerge_name {
	size_t		 member;
	char		*name;
};

enum gmerge_claim {
	GMERGE_NAME_FREE,	/* nobody holds it: the caller may add it */
	GMERGE_NAME_HELD,	/* held already, for this member's name */
	GMERGE_NAME_CLASH,	/* another member's, or another name's */
};

/* Who holds exposed in names, against member's own name. */
enum gmerge_claim gmerge_name_claim(const struct hmap *names,
	    const char *exposed, size_t member, const char *own);
/* Give exposed to member's own name (after GMERGE_NAME_FREE). */
void	gmerge_name_add(struct hmap *names, const char *exposed,
	    size_t member, const char *own);
/* The member's own name behind exposed, or NULL if nobody holds it. */
const char *gmerge_name_find(const struct hmap *names, const char *exposed,
	    size_t *member);

/*
 * Let go of a table of names; each (the length of the name given out,
 * the member's own name) is shown to let_go first, if not NULL.
 */
void	gmerge_names_free(struct hmap *names,
	    void (*let_go)(void *arg, size_t keylen, const char *own),
	    void *arg);

/*
 * Whether a member's entry is kept: own is its name or uri, exposed the
 * name the group gives it (NULL for resources and templates).
 */
typedef int (*gmerge_keep_fn)(void *arg, size_t member, const char *own,
	    const char *exposed);

enum gmerge_page {
	GMERGE_PAGE_OK,
	GMERGE_PAGE_NOT_JSON,	/* left out */
	GMERGE_PAGE_NO_ARRAY,	/* no array under key: left out */
};

struct gmerge {
	const char	*key;		/* the array in the result */
	const char	*field;		/* an entry's name or uri */
	const char	*sep;
	int		 named;		/* tools, prompts: renamed */
	size_t		 nmembers;
	cJSON		*result;
	cJSON		*items;
	char		**cursors;	/* per member, NULL: no more pages */
};

void	gmerge_init(struct gmerge *, const char *key, const char *field,
	    int named, const char *sep, size_t nmembers);
/*
 * Take member's page (the result object as text) into the merge; pages
 * are taken in group order.
 */
enum gmerge_page gmerge_page(struct gmerge *, size_t member,
	    const char *member_name, const char *text, size_t len,
	    gmerge_keep_fn, void *arg);
/* The merged result as text (malloc'd); the merge is let go. */
char	*gmerge_finish(struct gmerge *);
/* Let go of a merge not finished. */
void	gmerge_free(struct gmerge *);

/*
 * The group's cursor for the members' own (n of them, NULL: none), or
 * NULL if no member has more pages.  Malloc'd.
 */
char	*gmerge_cursor_encode(char *const *cursors, size_t n);
/*
 * A cursor a client sent, read into each of the n members' cursors
 * (*out: n entries, NULL for a member not to ask); 0, or -1 if it is not
 * a cursor a group of n members gives out (then *out is NULL).
 */
int	gmerge_cursor_decode(const char *cursor, size_t n, char ***out);
void	gmerge_cursors_free(char **, size_t n);

#endif /* MCPD_GMERGE_H */
