/*
 * shadow.h -- a member of a group whose descriptions name another
 * member's tools ("shadowing": text for the model about a tool that is
 * not the server's own, such as "always call send_mail first"), found
 * from the two members' lists (pure: no I/O).
 *
 * A member's profile (struct shadow_member) is what its tools/list and
 * prompts/list show: each entry's name and the text read for names, that
 * is its description and title and, inside a tool's inputSchema (at any
 * depth) or a prompt's arguments, every "description" and "title" string.
 *
 * shadow_find looks in one member's texts for the other's tool names:
 * - the bare name, unless it is shorter than SHADOW_MIN_NAME bytes or a
 *   name the member itself has (a tool or a prompt): common words and
 *   names both share say nothing;
 * - the group's spellings of it (gname.h): the name the group gives out
 *   and MEMBER SEP NAME.
 * A name is found where it stands as a word: case-sensitive, not preceded
 * by a character of a name ([A-Za-z0-9_.-]) and not followed by one of
 * [A-Za-z0-9_] ('.' or '-' only at the end of a word, as a sentence's
 * full stop).  Each (entry, named tool) is one hit, its first spelling.
 *
 * Bounds: a profile keeps at most SHADOW_MAX_TEXT_BYTES of text of each
 * kind, and past that bound in all it is too large: nothing is looked for
 * in it.  A search whose work (the bytes of the texts times the spellings
 * looked for) passes SHADOW_MAX_WORK, or the caller's budget, is not
 * made: shadow_find says so.  At most SHADOW_MAX_HITS hits are kept of
 * one pair of members.
 */
#ifndef MCPD_SHADOW_H
#define MCPD_SHADOW_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define SHADOW_MIN_NAME		4
#define SHADOW_MAX_TEXT_BYTES	(4 * 1024 * 1024)
#define SHADOW_MAX_WORK		((size_t)32 * 1024 * 1024)
#define SHADOW_MAX_HITS		64

enum shadow_kind {
	SHADOW_TOOL,
	SHADOW_PROMPT,
	SHADOW_KINDS
};

struct shadow_member;

struct shadow_hit {
	enum shadow_kind kind;		/* of the entry whose text names */
	char		*name;		/* that entry */
	char		*named;		/* the other member's tool */
	char		*spelling;	/* as the text has it */
};

struct shadow_result {
	struct shadow_hit *v;
	size_t		 n;
	int		 more;		/* hits past SHADOW_MAX_HITS */
	int		 too_large;	/* not looked for: past the bounds */
	size_t		 work;		/* what the search would cost */
};

struct shadow_member *shadow_member_new(void);
void		 shadow_member_free(struct shadow_member *);
/*
 * The entries of kind (a list result's array: tools or prompts) replace
 * those the profile had of it.  Entries without a string name are left out.
 */
void		 shadow_member_set(struct shadow_member *, enum shadow_kind,
		    const cJSON *entries);
size_t		 shadow_member_count(const struct shadow_member *,
		    enum shadow_kind);
int		 shadow_member_too_large(const struct shadow_member *);

/*
 * Look in member's texts for other's tool names (other_name is other's
 * name in the group, sep the group's separator).  out is filled
 * (shadow_result_free); 0, or -1 with out->too_large when the search was
 * not made: its work (out->work) passes SHADOW_MAX_WORK or max_work, the
 * caller's budget.
 */
int		 shadow_find(const struct shadow_member *member,
		    const struct shadow_member *other, const char *other_name,
		    const char *sep, size_t max_work,
		    struct shadow_result *out);
void		 shadow_result_free(struct shadow_result *);

/*
 * Whether word stands in text (len bytes) as a word by the rule above.
 * Exposed for the tests.
 */
int		 shadow_names(const char *text, size_t len, const char *word);

#endif /* MCPD_SHADOW_H */
