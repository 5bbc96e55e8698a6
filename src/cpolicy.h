/*
 * cpolicy.h -- what each app may call: the policies of the configuration's
 * "clients" object, and which one applies to a client (pure: no I/O, no
 * daemon state).
 *
 * {"clients": {"cursor": {"match": {"exe": "/usr/share/cursor/cursor"},
 *     "servers": ["github", "fs"], "tools": {"deny": ["github__delete_*"]}},
 *  "default": {"servers": ["fs"]}}}
 *
 * A policy names the servers and groups its clients may attach to (all
 * when "servers" is absent) and narrows what they see of them by filters
 * (filter.h) of its own, on top of each server's and group's.  A tool or
 * prompt of a server is judged by every spelling a group would give it
 * (gname.h) with the default separator: its own name and SERVER__NAME;
 * in a group, by the group's spellings as well, so that a pattern
 * written for one holds in every group.  Resources are judged by URI.
 *
 * Which policy applies: the first entry, in the order of the file, whose
 * "match" fits the client's identity (ident.h): every glob it gives
 * (exe, unit, app_id, token) matches the field, which must be known.
 * An HTTP client's identity is its token's name alone (ident_http.c).  A client
 * no entry fits, and one whose identity is not known (none, the uid
 * alone, or a bridge whose parent was gone), gets "default"; without
 * "default" it may reach everything, as without "clients".
 *
 * A policy is shared by the configuration that holds it and by the
 * connections it was decided for (a reference count), so a reload may
 * free the configuration while they still hold the old one.
 */
#ifndef MCPD_CPOLICY_H
#define MCPD_CPOLICY_H

#include <stddef.h>

#include "filter.h"

struct ident;

/* The identity fields a "match" may name. */
enum cpolicy_match {
	CPOLICY_MATCH_EXE,	/* "exe" */
	CPOLICY_MATCH_UNIT,	/* "unit" */
	CPOLICY_MATCH_APP_ID,	/* "app_id" */
	CPOLICY_MATCH_TOKEN,	/* "token": an HTTP client's (mcpd-http) */
	CPOLICY_MATCHES
};

#define CPOLICY_DEFAULT		"default"

struct cpolicy {
	char		*name;		/* its key in "clients" */
	char		*match[CPOLICY_MATCHES];	/* globs; NULL: any */
	char		**servers;	/* servers and groups it may reach */
	size_t		 nservers;
	int		 all_servers;	/* "servers" absent */
	struct filter	*filters[FILTER_KINDS];	/* NULL: all of a kind */
	unsigned int	 refs;
};

struct cpolicies {
	struct cpolicy	**v;		/* the entries, in file order */
	size_t		 n;
	struct cpolicy	*dflt;		/* "default", or NULL */
};

/* "exe", "unit", "app_id", "token". */
const char	*cpolicy_match_name(enum cpolicy_match);

/* A new policy named name (everything allowed), one reference. */
struct cpolicy	*cpolicy_new(const char *name);
struct cpolicy	*cpolicy_ref(struct cpolicy *);
void		 cpolicy_unref(struct cpolicy *);

struct cpolicies *cpolicies_new(void);
/* Takes the reference to p; "default" becomes dflt. */
void		 cpolicies_add(struct cpolicies *, struct cpolicy *p);
void		 cpolicies_free(struct cpolicies *);

/* 1 if an identity is one a "match" may be held to. */
int		 cpolicy_ident_known(const struct ident *);
/* 1 if p's "match" fits id (known). */
int		 cpolicy_matches(const struct cpolicy *p,
		    const struct ident *id);
/*
 * The policy for a client of identity id (NULL: not known): the first
 * entry that matches, else "default"; NULL when nothing restricts it.
 */
struct cpolicy	*cpolicy_for(const struct cpolicies *,
		    const struct ident *id);

/* 1 if p (NULL: no policy) lets its client attach to server or group. */
int		 cpolicy_allows_server(const struct cpolicy *p,
		    const char *name);
/* p's filter of a kind, or NULL (NULL p: none). */
const struct filter *cpolicy_filter(const struct cpolicy *p,
		    enum filter_kind);
/* 1 if p restricts anything of a kind, or of any kind. */
int		 cpolicy_filters(const struct cpolicy *p);
/*
 * 1 if p lets a tool or prompt through: the member's (or server's) own
 * name, spelled as a group of separator sep would (gname.h), and as one
 * of the default separator would.
 */
int		 cpolicy_allows_name(const struct cpolicy *p, enum filter_kind,
		    const char *server, const char *sep, const char *own);
/* 1 if a and b let the same through for a kind (NULL: everything). */
int		 cpolicy_same_filter(const struct cpolicy *a,
		    const struct cpolicy *b, enum filter_kind);

#endif /* MCPD_CPOLICY_H */
