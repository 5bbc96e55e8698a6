/*
 * group_list.c -- a group session's lists: a list request fanned out to
 * the members, their pages merged, and the names the session gave out.
 *
 * A list request goes to every member that is up or starting; the result
 * is the union, in group order, tools and prompts renamed (gname.h).  The
 * names given out are remembered, so calls find their member and original
 * name even when the name had to be shortened.  A member's own pages
 * continue under the group's cursor, which holds each member's own.  The
 * merge, the renaming, the table of names and the cursor are pure, in
 * src/gmerge.c; what is here is the session's part: the fan-out, the
 * filters, the holdings and the log.  A member that fails or is down
 * contributes nothing.
 *
 * A member's page waits for the others as the text it came in (a tree is
 * built only to merge, once all have come), and is counted in the
 * session's holdings (group_budget.c): a page that would take the session
 * past them fails the whole list with -32015 rather than leave a member
 * out unsaid.  So do the tables of names, URIs and templates: what does
 * not fit is left out of the list, and logged.
 *
 * A group's filter sees every spelling of a tool's or prompt's name, the
 * name given out and the member's own among them (gname_spellings), in
 * the lists and in calls alike; a call names a tool the session listed,
 * or one it would list under exactly that name.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "filter.h"
#include "gmerge.h"
#include "gname.h"
#include "group_int.h"
#include "hmap.h"
#include "log.h"
#include "proto.h"
#include "rpc.h"
#include "url.h"
#include "util.h"
#include "xmalloc.h"

/* In gs->uris, beside the member: a second member's claim was logged. */
#define GROUP_URI_LOGGED	((uintptr_t)1 << (sizeof (uintptr_t) * 8 - 1))
#define GROUP_TEMPLATES_MAX	4096	/* per member */

const struct group_list_kind group_lists[GROUP_LIST_COUNT] = {
	{ "tools/list", "tools", "name", FILTER_TOOLS },
	{ "prompts/list", "prompts", "name", FILTER_PROMPTS },
	{ "resources/list", "resources", "uri", FILTER_RESOURCES },
	{ "resources/templates/list", "resourceTemplates", "uriTemplate",
	    FILTER_RESOURCES },
};

/* What one entry of each table holds. */
static size_t
group_name_bytes(size_t keylen, const char *name)
{
	return (sizeof (struct gmerge_name) + strlen(name) + 1 + keylen +
	    GROUP_ENTRY_BYTES);
}

static size_t
group_uri_bytes(size_t keylen)
{
	return (keylen + GROUP_ENTRY_BYTES);
}

static size_t
group_template_bytes(const char *t)
{
	return (strlen(t) + 1 + sizeof (char *));
}

/* A name given out leaves the session's holdings. */
static void
group_name_let_go(void *arg, size_t keylen, const char *own)
{
	group_budget_sub(arg, group_name_bytes(keylen, own));
}

/* The names a list gave out. */
void
group_names_free(struct group_session *gs, int kind)
{
	gmerge_names_free(gs->names[kind], group_name_let_go, gs);
	gs->names[kind] = NULL;
}

/* A first page forgets the names given out before. */
void
group_names_reset(struct group_session *gs, int kind)
{
	group_names_free(gs, kind);
	gs->names[kind] = hmap_new(hmap_random_seed());
}

void
group_uris_free(struct group_session *gs)
{
	struct hmap_iter	 it;
	size_t			 keylen;

	if (gs->uris == NULL)
		return;
	hmap_iter_init(gs->uris, &it);
	while (hmap_iter_next(&it, NULL, &keylen, NULL))
		group_budget_sub(gs, group_uri_bytes(keylen));
	hmap_free(gs->uris);
	gs->uris = NULL;
}

/* What a member listed before may be gone: forget it. */
void
group_uris_reset(struct group_session *gs)
{
	group_uris_free(gs);
	gs->uris = hmap_new(hmap_random_seed());
}

void
group_link_templates_clear(struct group_session *gs, struct glink *l)
{
	size_t	 i;

	for (i = 0; i < l->ntemplates; i++) {
		group_budget_sub(gs, group_template_bytes(l->templates[i]));
		free(l->templates[i]);
	}
	free(l->templates);
	l->templates = NULL;
	l->ntemplates = 0;
}

/* Does the group's filter let a member's tool or prompt through? */
static int
group_filter_allows(const struct group_session *gs, int kind, size_t link,
    const char *own)
{
	const struct filter	*f = gs->filters[group_lists[kind].filter];
	struct gname_spellings	 sp;
	int			 ok;

	if (f == NULL)
		return (1);
	gname_spellings(&sp, gs->links[link]->member, gs->sep, own);
	ok = filter_allows_any(f, sp.v, sp.n);
	gname_spellings_free(&sp);
	return (ok);
}

const char *
group_find_name(struct group_session *gs, int kind, const char *name,
    size_t *link, int *hidden)
{
	const char	*own, *rest;
	size_t		 i, l = 0;

	if (hidden != NULL)
		*hidden = 0;
	if ((own = gmerge_name_find(gs->names[kind], name, &l)) == NULL) {
		/*
		 * Not listed in this session: only a name the list would
		 * give out as it is, MEMBER SEP NAME within the rules.
		 */
		for (i = 0; i < gs->nlinks && own == NULL; i++) {
			if (!gs->links[i]->gone && gname_plain_split(name,
			    gs->links[i]->member, gs->sep, &rest)) {
				l = i;
				own = rest;
			}
		}
	}
	if (own == NULL)
		return (NULL);
	*link = l;
	if (!group_filter_allows(gs, kind, l, own)) {
		if (hidden != NULL)
			*hidden = 1;
		return (NULL);
	}
	if (!group_policy_allows_name(gs, kind, l, own)) {
		if (hidden != NULL)
			*hidden = 2;
		return (NULL);
	}
	return (own);
}

ssize_t
group_route_uri(struct group_session *gs, const char *uri, size_t len)
{
	uintptr_t	 v;
	size_t		 i, j;

	if ((v = (uintptr_t)hmap_get(gs->uris, uri, len)) != 0)
		return ((ssize_t)((v & ~GROUP_URI_LOGGED) - 1));
	for (i = 0; i < gs->nlinks; i++)
		for (j = 0; j < gs->links[i]->ntemplates; j++)
			if (url_template_match(gs->links[i]->templates[j],
			    uri))
				return ((ssize_t)i);
	return (-1);
}

/* Remember the name given out for a member's entry; 0, or -1: left out. */
static int
group_list_name(struct group_session *gs, int kind, size_t link,
    const char *own, const char *exposed, size_t *clashes, size_t *unkept)
{
	enum gmerge_claim	 claim;
	size_t			 bytes;
	char			*why;

	claim = gmerge_name_claim(gs->names[kind], exposed, link, own);
	if (claim == GMERGE_NAME_CLASH) {
		/* One line a page, however many. */
		if ((*clashes)++ == 0)
			log_warnx("group %s: %s of %s would be named %s like "
			    "another; left out", gs->name, own,
			    gs->links[link]->member, exposed);
		return (-1);
	}
	if (claim == GMERGE_NAME_HELD)
		return (0);
	bytes = group_name_bytes(strlen(exposed), own);
	if ((why = group_budget_refuses(gs, bytes)) != NULL) {
		if ((*unkept)++ == 0)
			log_warnx("group %s: %s of %s left out of %s: %s",
			    gs->name, own, gs->links[link]->member,
			    group_lists[kind].method, why);
		free(why);
		return (-1);
	}
	gmerge_name_add(gs->names[kind], exposed, link, own);
	group_budget_add(gs, bytes);
	return (0);
}

/* The first member in group order keeps a URI. */
static void
group_list_uri(struct group_session *gs, size_t link, const char *uri,
    size_t *unkept)
{
	uintptr_t	 v;
	size_t		 len = strlen(uri);

	v = (uintptr_t)hmap_get(gs->uris, uri, len);
	if (v == 0) {
		/*
		 * Not kept, a read tries the members in turn (and one longer
		 * than GROUP_URI_MAX is not read through a group at all).
		 */
		if (len >= GROUP_URI_MAX)
			return;
		if (!group_budget_fits(gs, group_uri_bytes(len))) {
			(*unkept)++;
			return;
		}
		hmap_put(gs->uris, uri, len, (void *)(uintptr_t)(link + 1));
		group_budget_add(gs, group_uri_bytes(len));
	} else if ((v & GROUP_URI_LOGGED) == 0 && v != link + 1) {
		log_info("group %s: %s lists %s too; it goes to %s, first in "
		    "the group", gs->name, gs->links[link]->member, uri,
		    gs->links[v - 1]->member);
		hmap_put(gs->uris, uri, len, (void *)(v | GROUP_URI_LOGGED));
	}
}

void
group_remember_uri(struct group_session *gs, size_t link, const char *uri)
{
	size_t	 unkept = 0;

	if (gs->uris == NULL)
		gs->uris = hmap_new(hmap_random_seed());
	group_list_uri(gs, link, uri, &unkept);
}

static void
group_list_template(struct group_session *gs, struct glink *l,
    const char *t, size_t *unkept)
{
	if (l->ntemplates >= GROUP_TEMPLATES_MAX ||
	    !group_budget_fits(gs, group_template_bytes(t))) {
		(*unkept)++;
		return;
	}
	l->templates = xreallocarray(l->templates, l->ntemplates + 1,
	    sizeof *l->templates);
	l->templates[l->ntemplates++] = xstrdup(t);
	group_budget_add(gs, group_template_bytes(t));
}

/* What one member's page left out, for its log lines. */
struct group_keep {
	struct group_session	*gs;
	enum group_list		 list;
	size_t			 clashes;
	size_t			 unkept;
};

/*
 * Whether a member's entry goes into the merged list (gmerge_keep_fn):
 * the group's filter lets it through, and its name, URI or template is
 * remembered to route calls and reads.
 */
static int
group_list_keep(void *arg, size_t link, const char *own, const char *exposed)
{
	struct group_keep	*k = arg;
	struct group_session	*gs = k->gs;
	enum group_list		 list = k->list;

	if (list == GROUP_LIST_TOOLS || list == GROUP_LIST_PROMPTS)
		return (group_filter_allows(gs, list, link, own) &&
		    group_policy_allows_name(gs, list, link, own) &&
		    group_list_name(gs, list, link, own, exposed,
		    &k->clashes, &k->unkept) == 0);
	if (!filter_allows_entry(gs->filters[group_lists[list].filter],
	    (enum filter_list)list, own) ||
	    !filter_allows_entry(group_policy_uris(gs),
	    (enum filter_list)list, own))
		return (0);
	if (list == GROUP_LIST_RESOURCES)
		group_list_uri(gs, link, own, &k->unkept);
	else
		group_list_template(gs, gs->links[link], own, &k->unkept);
	return (1);
}

/* Take one member's page into the merge, and say what it left out. */
static void
group_list_part(struct group_session *gs, enum group_list list, size_t link,
    const char *text, size_t len, struct gmerge *m)
{
	struct group_keep	 k = { gs, list, 0, 0 };
	const char		*member = gs->links[link]->member;
	int			 named;

	switch (gmerge_page(m, link, member, text, len, group_list_keep, &k)) {
	case GMERGE_PAGE_NOT_JSON:
		log_warnx("group %s: %s of %s is not JSON; left out",
		    gs->name, group_lists[list].method, member);
		return;
	case GMERGE_PAGE_NO_ARRAY:
		log_warnx("group %s: %s of %s has no %s array; left out",
		    gs->name, group_lists[list].method, member,
		    group_lists[list].key);
		return;
	case GMERGE_PAGE_OK:
		break;
	}
	named = list == GROUP_LIST_TOOLS || list == GROUP_LIST_PROMPTS;
	if (k.clashes > 1)
		log_warnx("group %s: %zu more names of %s clashed and were "
		    "left out", gs->name, k.clashes - 1, member);
	if (named && k.unkept > 1)
		log_warnx("group %s: %zu more names of %s left out of %s, the "
		    "session holding %zu bytes", gs->name, k.unkept - 1,
		    member, group_lists[list].method, gs->mem);
	else if (!named && k.unkept > 0)
		log_warnx("group %s: %zu entries of %s's %s not remembered, "
		    "the session holding %zu bytes (or %d templates): a read "
		    "tries each server in turn", gs->name, k.unkept, member,
		    group_lists[list].method, gs->mem, GROUP_TEMPLATES_MAX);
}

void
group_list_reply(struct group_session *gs, struct group_op *op, size_t link,
    const char *line, const struct envelope *env)
{
	char	*why, *message;

	if (op->failed) {
		/* Answered already: the page is not wanted. */
	} else if (env->result.type != ENVELOPE_OBJECT ||
	    env->result.len > RPC_PARSE_MAX_BYTES)
		log_warnx("group %s: %s failed on %s; left out", gs->name,
		    group_lists[op->list].method, gs->links[link]->member);
	else if ((why = group_budget_refuses(gs, env->result.len)) != NULL) {
		xasprintf(&message, "%s: the page of %s (%zu bytes) cannot "
		    "wait for the other servers of the group: %s",
		    group_lists[op->list].method, gs->links[link]->member,
		    env->result.len, why);
		group_op_fail(gs, op, MCPD_ERR_LIMIT, message);
		free(message);
		free(why);
	} else {
		group_part_clear(gs, op, link);
		op->parts[link].text = xmalloc(env->result.len);
		memcpy(op->parts[link].text, line + env->result.off,
		    env->result.len);
		op->parts[link].len = env->result.len;
		group_budget_op_add(gs, op, env->result.len);
	}
	group_op_part_done(gs, op);
}

static void
group_list_done(struct group_session *gs, struct group_op *op)
{
	struct gmerge	 m;
	char		*text;
	size_t		 i, len;

	if (op->failed)
		return;
	gmerge_init(&m, group_lists[op->list].key, group_lists[op->list].field,
	    op->list == GROUP_LIST_TOOLS || op->list == GROUP_LIST_PROMPTS,
	    gs->sep, op->nparts);
	/* In group order, whatever order the replies came in. */
	for (i = 0; i < op->nparts; i++) {
		/* Out of the count first: the names take its place. */
		if ((text = group_part_take(gs, op, i, &len)) == NULL)
			continue;
		group_list_part(gs, op->list, i, text, len, &m);
		free(text);
	}
	text = gmerge_finish(&m);
	group_result(gs, op->id, op->id_len, text);
	free(text);
}

/*
 * The cursors of the members to ask (gs->nlinks of them), or NULL for a
 * first page; -1: not a cursor this session gave out.
 */
static int
group_list_cursors(const char *line, const struct envelope *env,
    const struct group_session *gs, char ***out)
{
	cJSON		*params;
	const cJSON	*e;
	char		*cursor = NULL;
	int		 rc;

	*out = NULL;
	if (env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES &&
	    (params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len)) != NULL) {
		e = cJSON_GetObjectItemCaseSensitive(params, "cursor");
		if (cJSON_IsString(e))
			cursor = xstrdup(e->valuestring);
		cJSON_Delete(params);
	}
	if (cursor == NULL)
		return (0);
	rc = gmerge_cursor_decode(cursor, gs->nlinks, out);
	free(cursor);
	return (rc);
}

/* Fan a list request out to every member that is up or starting. */
void
group_list(struct group_session *gs, enum group_list list, const char *line,
    const struct envelope *env)
{
	struct group_op	*op;
	cJSON		*params;
	char		**cursors;
	size_t		 i;

	if (group_list_cursors(line, env, gs, &cursors) == -1) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: not a cursor this "
		    "group gave out");
		return;
	}
	if (cursors == NULL) {
		if (list == GROUP_LIST_TOOLS || list == GROUP_LIST_PROMPTS)
			group_names_reset(gs, list);
		else if (list == GROUP_LIST_RESOURCES)
			group_uris_reset(gs);
		else
			for (i = 0; i < gs->nlinks; i++)
				group_link_templates_clear(gs, gs->links[i]);
	}

	op = group_op_new(gs, GROUP_OP_LIST, line + env->id.off, env->id.len);
	op->done = group_list_done;
	op->list = list;
	op->parts = xcalloc(gs->nlinks + 1, sizeof *op->parts);
	op->nparts = gs->nlinks;
	group_budget_op_add(gs, op, gs->nlinks * sizeof *op->parts);
	op->waiting = 1;	/* until every request is out */
	for (i = 0; i < gs->nlinks; i++) {
		if (cursors != NULL && cursors[i] == NULL)
			continue;
		if (!group_link_usable(gs, i))
			continue;
		params = cJSON_CreateObject();
		if (cursors != NULL)
			cJSON_AddStringToObject(params, "cursor", cursors[i]);
		op->waiting++;
		group_own_request(gs, i, op, group_lists[list].method,
		    params);
	}
	gmerge_cursors_free(cursors, gs->nlinks);
	group_op_part_done(gs, op);
}
