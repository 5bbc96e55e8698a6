/*
 * cpolicy.c -- the policies of "clients" (cpolicy.h): which one applies
 * to an identity, and what it lets through.
 *
 * Invariants:
 * - Matching reads only the identity the kernel gave mcpd (ident.h),
 *   never what a client says of itself; an identity with the uid alone,
 *   or a bridge's whose parent was gone, matches no entry.
 * - A policy is never changed once it is in a cpolicies: connections
 *   hold references to it across reloads.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cpolicy.h"
#include "filter.h"
#include "gname.h"
#include "ident.h"
#include "xmalloc.h"

static const char *cpolicy_match_names[CPOLICY_MATCHES] = {
	[CPOLICY_MATCH_EXE] = "exe",
	[CPOLICY_MATCH_UNIT] = "unit",
	[CPOLICY_MATCH_APP_ID] = "app_id",
	[CPOLICY_MATCH_TOKEN] = "token",
};

const char *
cpolicy_match_name(enum cpolicy_match m)
{
	return ((size_t)m < CPOLICY_MATCHES ? cpolicy_match_names[m] : NULL);
}

struct cpolicy *
cpolicy_new(const char *name)
{
	struct cpolicy	*p;

	p = xcalloc(1, sizeof *p);
	p->name = xstrdup(name);
	p->all_servers = 1;
	p->refs = 1;
	return (p);
}

struct cpolicy *
cpolicy_ref(struct cpolicy *p)
{
	if (p != NULL)
		p->refs++;
	return (p);
}

void
cpolicy_unref(struct cpolicy *p)
{
	size_t	 i;

	if (p == NULL || --p->refs > 0)
		return;
	free(p->name);
	for (i = 0; i < CPOLICY_MATCHES; i++)
		free(p->match[i]);
	for (i = 0; i < p->nservers; i++)
		free(p->servers[i]);
	free(p->servers);
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(p->filters[i]);
	free(p);
}

struct cpolicies *
cpolicies_new(void)
{
	return (xcalloc(1, sizeof (struct cpolicies)));
}

void
cpolicies_add(struct cpolicies *ps, struct cpolicy *p)
{
	if (strcmp(p->name, CPOLICY_DEFAULT) == 0) {
		cpolicy_unref(ps->dflt);
		ps->dflt = p;
		return;
	}
	ps->v = xreallocarray(ps->v, ps->n + 1, sizeof *ps->v);
	ps->v[ps->n++] = p;
}

void
cpolicies_free(struct cpolicies *ps)
{
	size_t	 i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++)
		cpolicy_unref(ps->v[i]);
	free(ps->v);
	cpolicy_unref(ps->dflt);
	free(ps);
}

int
cpolicy_ident_known(const struct ident *id)
{
	return (id != NULL &&
	    (id->flags & (IDENT_UID_ONLY | IDENT_REPARENTED)) == 0);
}

/* The identity's field a "match" key names; NULL: not known. */
static const char *
cpolicy_ident_field(const struct ident *id, enum cpolicy_match m)
{
	switch (m) {
	case CPOLICY_MATCH_EXE:
		return (id->exe);
	case CPOLICY_MATCH_UNIT:
		return (id->unit);
	case CPOLICY_MATCH_APP_ID:
		return (id->app_id);
	case CPOLICY_MATCH_TOKEN:
		return (id->token);
	default:
		return (NULL);
	}
}

int
cpolicy_matches(const struct cpolicy *p, const struct ident *id)
{
	const char	*field;
	size_t		 i, given = 0;

	if (!cpolicy_ident_known(id))
		return (0);
	for (i = 0; i < CPOLICY_MATCHES; i++) {
		if (p->match[i] == NULL)
			continue;
		given++;
		field = cpolicy_ident_field(id, (enum cpolicy_match)i);
		if (field == NULL || !filter_glob(p->match[i], field))
			return (0);
	}
	return (given > 0);
}

struct cpolicy *
cpolicy_for(const struct cpolicies *ps, const struct ident *id)
{
	size_t	 i;

	if (ps == NULL)
		return (NULL);
	if (cpolicy_ident_known(id)) {
		for (i = 0; i < ps->n; i++)
			if (cpolicy_matches(ps->v[i], id))
				return (ps->v[i]);
	}
	return (ps->dflt);
}

int
cpolicy_allows_server(const struct cpolicy *p, const char *name)
{
	size_t	 i;

	if (p == NULL || p->all_servers)
		return (1);
	for (i = 0; i < p->nservers; i++)
		if (strcmp(p->servers[i], name) == 0)
			return (1);
	return (0);
}

const struct filter *
cpolicy_filter(const struct cpolicy *p, enum filter_kind kind)
{
	if (p == NULL || (size_t)kind >= FILTER_KINDS)
		return (NULL);
	return (p->filters[kind]);
}

int
cpolicy_filters(const struct cpolicy *p)
{
	size_t	 k;

	for (k = 0; k < FILTER_KINDS; k++)
		if (cpolicy_filter(p, (enum filter_kind)k) != NULL)
			return (1);
	return (0);
}

int
cpolicy_allows_name(const struct cpolicy *p, enum filter_kind kind,
    const char *server, const char *sep, const char *own)
{
	const struct filter	*f = cpolicy_filter(p, kind);
	struct gname_spellings	 sp, dsp;
	const char		*v[2 * GNAME_SPELLINGS];
	size_t			 n;
	int			 ok;

	if (f == NULL)
		return (1);
	gname_spellings(&sp, server, sep, own);
	memcpy(v, sp.v, sp.n * sizeof *v);
	n = sp.n;
	dsp.n = 0;
	dsp.qualified = NULL;
	if (strcmp(sep, GNAME_DEFAULT_SEP) != 0) {
		gname_spellings(&dsp, server, GNAME_DEFAULT_SEP, own);
		memcpy(v + n, dsp.v, dsp.n * sizeof *v);
		n += dsp.n;
	}
	ok = filter_allows_any(f, v, n);
	gname_spellings_free(&sp);
	gname_spellings_free(&dsp);
	return (ok);
}

int
cpolicy_same_filter(const struct cpolicy *a, const struct cpolicy *b,
    enum filter_kind kind)
{
	return (filter_equal(cpolicy_filter(a, kind), cpolicy_filter(b,
	    kind)));
}
