/*
 * group.c -- one client session over several servers (see group.h).
 *
 * Ids.  Every request the session sends a member, the client's or its
 * own, goes under a fresh number of the session (gid); the member's router
 * maps that to an upstream id as for any client.  A reply from a link is
 * matched by its gid: a client's request gets its own id back, the
 * session's own requests (list fan-out, setLevel, initialize, a resource
 * tried member after member) are merged here.  A request a member sends
 * the client (sampling, elicitation) is numbered by the session too, so
 * two members' requests never share an id; the client's answer goes back
 * to that member under the id the member's router gave it.
 *
 * Lists.  A list request goes to every member that is up or starting; the
 * result is the union, in group order, tools and prompts renamed (the
 * names given out are remembered, so calls find their member and
 * original name even when the name had to be shortened).  A member's own
 * pages continue under the group's cursor: base64url of a JSON object
 * {"member index": "member cursor", ...} of the members with more pages.
 * A member that fails or is down contributes nothing.
 *
 * Resources keep their URIs.  A read (subscribe, unsubscribe) goes to the
 * member that listed the URI, else to the first whose template matches,
 * else to each member in turn while they answer that it is not theirs.
 *
 * Bounds: requests in flight per session are capped by
 * client_max_inflight; list replies larger than RPC_PARSE_MAX_BYTES count
 * as failed; the name tables hold what the lists held.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "client.h"
#include "conf.h"
#include "envelope.h"
#include "filter.h"
#include "gname.h"
#include "group.h"
#include "instance.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "url.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define GROUP_URI_MAX		4096	/* as the router's */
#define GROUP_NAME_MAX		4096	/* a tool's or prompt's, in a call */
/* In gs->uris, beside the member: a second member's claim was logged. */
#define GROUP_URI_LOGGED	((uintptr_t)1 << (sizeof (uintptr_t) * 8 - 1))
#define GROUP_ID_MAX_BYTES	1024
/* Calls are parsed to rename: a bound on the tree built for that. */
#define GROUP_PARSE_MAX_BYTES	(16 * 1024 * 1024)
#define GROUP_DOWNS_MAX		4096	/* members' requests to the client */
#define GROUP_TEMPLATES_MAX	4096	/* per member */

enum group_list {
	GROUP_LIST_TOOLS,
	GROUP_LIST_PROMPTS,
	GROUP_LIST_RESOURCES,
	GROUP_LIST_TEMPLATES,
	GROUP_LIST_COUNT
};
/* A list is judged by its filter as the same filter_list. */
_Static_assert((int)GROUP_LIST_TEMPLATES == (int)FILTER_LIST_TEMPLATES &&
    (int)GROUP_LIST_RESOURCES == (int)FILTER_LIST_RESOURCES,
    "group_list and filter_list differ");

static const struct {
	const char	*method;
	const char	*key;		/* the array in the result */
	const char	*field;		/* an entry's name or uri */
	enum filter_kind filter;	/* the group's filter that narrows it */
} group_lists[GROUP_LIST_COUNT] = {
	{ "tools/list", "tools", "name", FILTER_TOOLS },
	{ "prompts/list", "prompts", "name", FILTER_PROMPTS },
	{ "resources/list", "resources", "uri", FILTER_RESOURCES },
	{ "resources/templates/list", "resourceTemplates", "uriTemplate",
	    FILTER_RESOURCES },
};

static const char *group_changed[] = {
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/prompts/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/list_changed\"}",
};

struct glink {
	struct group_session	*gs;
	size_t			 index;
	char			*member;	/* the server's name */
	struct attachment	*att;		/* NULL: not attached */
	int			 paused;
	int			 gone;		/* removed from the group */
	char			**templates;	/* resource templates listed */
	size_t			 ntemplates;
};

/* A name the session gave out: which member, and the member's name. */
struct group_name {
	size_t		 link;
	char		*name;
};

enum group_op_kind {
	GROUP_OP_LIST,
	GROUP_OP_LEVEL,
	GROUP_OP_RESOURCE,	/* tried member after member on -32002 */
	GROUP_OP_QUIET,		/* initialize on a link: reply dropped */
};

/* A client request answered by the session from its members' replies. */
struct group_op {
	TAILQ_ENTRY(group_op)	 entry;		/* gs->ops */
	enum group_op_kind	 kind;
	char			*id;		/* the client's, raw JSON */
	size_t			 id_len;
	size_t			 waiting;	/* replies still to come */
	enum group_list		 list;
	cJSON			**results;	/* LIST: per member, or NULL */
	size_t			 nresults;
	cJSON			*items;		/* LIST: merged entries */
	cJSON			*cursors;	/* LIST: members with more */
	int			 ok;		/* LEVEL: a member took it */
	char			*line;		/* RESOURCE: the request */
	size_t			 len;
	size_t			 next;		/* RESOURCE: next member */
	ssize_t			 first;		/* RESOURCE: tried first */
	char			*last_error;	/* RESOURCE: raw error */
};

/* A request the session passed to a member under a gid. */
struct group_sent {
	TAILQ_ENTRY(group_sent)	 entry;		/* gs->pending */
	int64_t			 gid;
	size_t			 link;
	char			*id;		/* the client's; NULL: op's */
	size_t			 id_len;
	struct group_op		*op;
};

/* A member's request passed to the client under a session number. */
struct group_down {
	int64_t			 did;
	size_t			 link;
	char			*id;		/* the member router's id */
	size_t			 id_len;
};

struct group_session {
	struct mcpd		*mcpd;
	struct client		*client;
	char			*name;
	char			*sep;
	struct filter		*filters[FILTER_KINDS];	/* the group's */
	struct glink		**links;	/* never reordered */
	size_t			 nlinks;
	struct idtab		*reqs;		/* gid -> group_req */
	struct hmap		*by_client;	/* client id -> group_sent */
	struct hmap		*op_ids;	/* client id -> group_op */
	struct hmap		*downs;		/* did -> group_down */
	struct hmap		*names[2];	/* tools, prompts */
	struct hmap		*uris;		/* uri -> link index + 1 */
	int64_t			 next_gid;
	int64_t			 next_did;
	size_t			 npaused;
	TAILQ_HEAD(, group_sent)	 pending;	/* sent, not answered */
	TAILQ_HEAD(, group_op)	 ops;
	TAILQ_ENTRY(group_session) entry;
};

/* Per group name: what status and metrics count. */
struct group_stat {
	char		*name;
	size_t		 sessions;
	uint64_t	 sessions_total;
	uint64_t	 requests;
};

struct group_registry {
	TAILQ_HEAD(, group_session) sessions;
	struct group_stat	*stats;
	size_t			 nstats;
};

static void	group_op_done(struct group_session *, struct group_op *);
static void	group_op_free(struct group_session *, struct group_op *);
static void	group_count(struct group_session *);
static void	group_list_part(struct group_session *, struct group_op *,
		    size_t, const cJSON *);

/*
 * Output to the client.
 */

static void
group_send(struct group_session *gs, const char *text, size_t len)
{
	client_queue_iov(gs->client, &(struct iovec){ (void *)text, len }, 1);
}

/* {"jsonrpc":"2.0","id":ID,"MEMBER":VALUE}, the id and value raw JSON. */
static void
group_reply_raw(struct group_session *gs, const char *id, size_t id_len,
    const char *member, const char *value, size_t value_len)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	char		 mid[32];
	struct iovec	 iov[5];
	int		 n;

	if (id == NULL) {
		id = "null";
		id_len = 4;
	}
	n = snprintf(mid, sizeof mid, ",\"%s\":", member);
	iov[0] = (struct iovec){ (void *)head, sizeof head - 1 };
	iov[1] = (struct iovec){ (void *)id, id_len };
	iov[2] = (struct iovec){ mid, (size_t)n };
	iov[3] = (struct iovec){ (void *)value, value_len };
	iov[4] = (struct iovec){ (void *)"}", 1 };
	client_queue_iov(gs->client, iov, (int)nitems(iov));
}

static void
group_result(struct group_session *gs, const char *id, size_t id_len,
    const char *result)
{
	group_reply_raw(gs, id, id_len, "result", result, strlen(result));
}

static void
group_error(struct group_session *gs, const char *id, size_t id_len,
    int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
group_error(struct group_session *gs, const char *id, size_t id_len,
    int code, const char *fmt, ...)
{
	va_list	 ap;
	char	*message, *text;
	cJSON	*err;

	va_start(ap, fmt);
	xvasprintf(&message, fmt, ap);
	va_end(ap);
	err = cJSON_CreateObject();
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	free(message);
	text = rpc_print(err);
	cJSON_Delete(err);
	group_reply_raw(gs, id, id_len, "error", text, strlen(text));
	free(text);
}

/*
 * Requests to members.
 */

static struct group_sent *
group_sent_new(struct group_session *gs, size_t link, const char *id,
    size_t id_len, struct group_op *op)
{
	struct group_sent	*q;

	q = xcalloc(1, sizeof *q);
	q->gid = ++gs->next_gid;
	q->link = link;
	q->op = op;
	if (id != NULL) {
		q->id = xmalloc(id_len + 1);
		memcpy(q->id, id, id_len);
		q->id[id_len] = '\0';
		q->id_len = id_len;
		hmap_put(gs->by_client, q->id, q->id_len, q);
	}
	idtab_put(gs->reqs, q->gid, q);
	TAILQ_INSERT_TAIL(&gs->pending, q, entry);
	return (q);
}

static void
group_sent_free(struct group_session *gs, struct group_sent *q)
{
	idtab_del(gs->reqs, q->gid);
	TAILQ_REMOVE(&gs->pending, q, entry);
	if (q->id != NULL)
		hmap_del(gs->by_client, q->id, q->id_len);
	free(q->id);
	free(q);
}

/*
 * Send a member line[0, len) with its id replaced by gid (the edits, if
 * any, applied too; sorted, the id's among them).  Returns 0, or -1 if the
 * member is not attached (the caller answers).
 */
static int
group_forward(struct group_session *gs, size_t link, const char *line,
    size_t len, const struct envelope_edit *edits, size_t nedits)
{
	struct glink	*l = gs->links[link];
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(4)];
	size_t		 n, i, total = 0;
	char		*buf, *p;

	if (l->att == NULL)
		return (-1);
	if ((n = envelope_splice(line, len, edits, nedits, iov,
	    nitems(iov))) == 0)
		return (-1);
	for (i = 0; i < n; i++)
		total += iov[i].iov_len;
	p = buf = xmalloc(total);
	for (i = 0; i < n; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	router_client_line(l->att, buf, total);
	free(buf);
	return (0);
}

/* A request of the session's own to a member; params taken. */
static void
group_own_request(struct group_session *gs, size_t link, struct group_op *op,
    const char *method, cJSON *params)
{
	struct group_sent	*q;
	cJSON			*msg, *id;
	char			*text;

	q = group_sent_new(gs, link, NULL, 0, op);
	id = cJSON_CreateNumber((double)q->gid);
	msg = rpc_make_request(id, method, params);
	cJSON_Delete(id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (gs->links[link]->att == NULL) {
		group_sent_free(gs, q);
		if (op != NULL && op->waiting > 0 && --op->waiting == 0)
			group_op_done(gs, op);
	} else
		router_client_line(gs->links[link]->att, text, strlen(text));
	free(text);
}

/* A member is worth asking: up, or starting (the request waits). */
static int
group_link_usable(const struct group_session *gs, size_t link)
{
	struct worker	*w;

	if (gs->links[link]->att == NULL)
		return (0);
	w = router_attachment_worker(gs->links[link]->att);
	return (worker_availability(w) != WORKER_AVAIL_REFUSE);
}


/*
 * Ops: requests the session answers from its members' replies.
 */

static struct group_op *
group_op_new(struct group_session *gs, enum group_op_kind kind,
    const char *id, size_t id_len)
{
	struct group_op	*op;

	op = xcalloc(1, sizeof *op);
	TAILQ_INSERT_TAIL(&gs->ops, op, entry);
	op->kind = kind;
	if (id != NULL) {
		op->id = xmalloc(id_len + 1);
		memcpy(op->id, id, id_len);
		op->id[id_len] = '\0';
		op->id_len = id_len;
		hmap_put(gs->op_ids, op->id, op->id_len, op);
	}
	return (op);
}

static void
group_op_free(struct group_session *gs, struct group_op *op)
{
	TAILQ_REMOVE(&gs->ops, op, entry);
	if (op->id != NULL)
		hmap_del(gs->op_ids, op->id, op->id_len);
	while (op->nresults > 0)
		cJSON_Delete(op->results[--op->nresults]);
	free(op->results);
	free(op->id);
	cJSON_Delete(op->items);
	cJSON_Delete(op->cursors);
	free(op->line);
	free(op->last_error);
	free(op);
}

/* One reply of a fan-out came (or will never come). */
static void
group_op_part_done(struct group_session *gs, struct group_op *op)
{
	if (op->waiting > 0 && --op->waiting == 0)
		group_op_done(gs, op);
}

static void
group_op_done(struct group_session *gs, struct group_op *op)
{
	cJSON	*result;
	char	*json, *cursor, *text;
	size_t	 i;

	switch (op->kind) {
	case GROUP_OP_LIST:
		/* In group order, whatever order the replies came in. */
		for (i = 0; i < op->nresults; i++)
			if (op->results[i] != NULL)
				group_list_part(gs, op, i, op->results[i]);
		result = cJSON_CreateObject();
		cJSON_AddItemToObject(result, group_lists[op->list].key,
		    op->items);
		op->items = NULL;
		if (op->cursors->child != NULL &&
		    (json = cJSON_PrintUnformatted(op->cursors)) != NULL) {
			cursor = b64url_encode(json, strlen(json));
			cJSON_AddStringToObject(result, "nextCursor", cursor);
			free(cursor);
			free(json);
		}
		text = rpc_print(result);
		cJSON_Delete(result);
		group_result(gs, op->id, op->id_len, text);
		free(text);
		break;
	case GROUP_OP_LEVEL:
		if (op->ok)
			group_result(gs, op->id, op->id_len, "{}");
		else
			group_error(gs, op->id, op->id_len,
			    MCPD_ERR_SERVER_UNAVAILABLE, "no server of group "
			    "%s took the level", gs->name);
		break;
	case GROUP_OP_RESOURCE:
	case GROUP_OP_QUIET:
		break;
	}
	group_op_free(gs, op);
}

/* The names a list gave out. */
static void
group_names_free(struct hmap *m)
{
	struct hmap_iter	 it;
	void			*value;

	if (m == NULL)
		return;
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value)) {
		free(((struct group_name *)value)->name);
		free(value);
	}
	hmap_free(m);
}

/* A first page forgets the names given out before. */
static void
group_names_reset(struct hmap **m)
{
	group_names_free(*m);
	*m = hmap_new(hmap_random_seed());
}

static void
group_link_templates_clear(struct glink *l)
{
	size_t	 i;

	for (i = 0; i < l->ntemplates; i++)
		free(l->templates[i]);
	free(l->templates);
	l->templates = NULL;
	l->ntemplates = 0;
}

/* Take one member's page into a list op. */
static void
group_list_part(struct group_session *gs, struct group_op *op, size_t link,
    const cJSON *result)
{
	const cJSON		*items, *e, *field, *next;
	struct glink		*l = gs->links[link];
	struct group_name	*gn;
	struct hmap		*names = NULL;
	char			 exposed[GNAME_MAX + 1], key[24];
	cJSON			*copy;
	uintptr_t		 v;
	size_t			 flen, clashes = 0;

	items = cJSON_GetObjectItemCaseSensitive(result,
	    group_lists[op->list].key);
	if (!cJSON_IsArray(items)) {
		log_warnx("group %s: %s of %s has no %s array; left out",
		    gs->name, group_lists[op->list].method, l->member,
		    group_lists[op->list].key);
		return;
	}
	if (op->list == GROUP_LIST_TOOLS || op->list == GROUP_LIST_PROMPTS)
		names = gs->names[op->list];
	cJSON_ArrayForEach(e, items) {
		field = cJSON_GetObjectItemCaseSensitive(e,
		    group_lists[op->list].field);
		if (!cJSON_IsObject(e) || !cJSON_IsString(field))
			continue;
		flen = strlen(field->valuestring);
		if (names != NULL)
			gname_make(l->member, gs->sep, field->valuestring,
			    exposed);
		if (!filter_allows_entry(
		    gs->filters[group_lists[op->list].filter],
		    (enum filter_list)op->list, names != NULL ? exposed :
		    field->valuestring))
			continue;
		copy = cJSON_Duplicate(e, 1);
		if (names != NULL) {
			gn = hmap_get(names, exposed, strlen(exposed));
			if (gn != NULL && (gn->link != link ||
			    strcmp(gn->name, field->valuestring) != 0)) {
				/* One line a page, however many. */
				if (clashes++ == 0)
					log_warnx("group %s: %s of %s would be "
					    "named %s like another; left out",
					    gs->name, field->valuestring,
					    l->member, exposed);
				cJSON_Delete(copy);
				continue;
			}
			if (gn == NULL) {
				gn = xcalloc(1, sizeof *gn);
				gn->link = link;
				gn->name = xstrdup(field->valuestring);
				hmap_put(names, exposed, strlen(exposed), gn);
			}
			cJSON_ReplaceItemInObjectCaseSensitive(copy,
			    group_lists[op->list].field,
			    cJSON_CreateString(exposed));
		} else if (op->list == GROUP_LIST_RESOURCES) {
			/* The first member in group order keeps a URI. */
			v = (uintptr_t)hmap_get(gs->uris, field->valuestring,
			    flen);
			if (v == 0)
				hmap_put(gs->uris, field->valuestring, flen,
				    (void *)(uintptr_t)(link + 1));
			else if ((v & GROUP_URI_LOGGED) == 0 &&
			    (v & ~GROUP_URI_LOGGED) != link + 1) {
				log_info("group %s: %s lists %s too; it goes "
				    "to %s, first in the group", gs->name,
				    l->member, field->valuestring,
				    gs->links[v - 1]->member);
				hmap_put(gs->uris, field->valuestring, flen,
				    (void *)(v | GROUP_URI_LOGGED));
			}
		} else if (op->list == GROUP_LIST_TEMPLATES &&
		    l->ntemplates < GROUP_TEMPLATES_MAX) {
			l->templates = xreallocarray(l->templates,
			    l->ntemplates + 1, sizeof *l->templates);
			l->templates[l->ntemplates++] =
			    xstrdup(field->valuestring);
		}
		cJSON_AddItemToArray(op->items, copy);
	}
	if (clashes > 1)
		log_warnx("group %s: %zu more names of %s clashed and were "
		    "left out", gs->name, clashes - 1, l->member);
	next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
	if (cJSON_IsString(next) && next->valuestring[0] != '\0') {
		snprintf(key, sizeof key, "%zu", link);
		cJSON_AddStringToObject(op->cursors, key, next->valuestring);
	}
}

/* Which member a resource URI goes to first, or -1: try them all. */
static ssize_t
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

/* Pass a member's reply on to the client under the client's id. */
static void
group_pass_reply(struct group_session *gs, const char *id, size_t id_len,
    const char *line, size_t len, const struct envelope *env)
{
	struct envelope_edit	 edit;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t			 n;

	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = id;
	edit.text_len = id_len;
	if ((n = envelope_splice(line, len, &edit, 1, iov, nitems(iov))) > 0)
		client_queue_iov(gs->client, iov, (int)n);
}

/* Send op's resource request to the next member not tried; -1: none. */
static int
group_resource_next(struct group_session *gs, struct group_op *op)
{
	struct group_sent	*q;
	struct envelope		 env;
	struct envelope_edit	 edit;
	char			 gid[ENVELOPE_INT64_BYTES];
	size_t			 erroff, i;

	for (i = op->next; i < gs->nlinks; i++) {
		if ((ssize_t)i == op->first || !group_link_usable(gs, i))
			continue;
		op->next = i + 1;
		if (envelope_scan(op->line, op->len, &env, &erroff) != 0)
			return (-1);
		q = group_sent_new(gs, i, NULL, 0, op);
		edit.off = env.id.off;
		edit.len = env.id.len;
		edit.text = gid;
		edit.text_len = envelope_print_int64(q->gid, gid);
		if (group_forward(gs, i, op->line, op->len, &edit, 1) == 0)
			return (0);
		group_sent_free(gs, q);
	}
	return (-1);
}

/*
 * Does a member's error say the resource is not its?  -32002 is MCP's
 * "resource not found"; servers built on the SDKs answer -32602 for a URI
 * they do not know, and -32601 when they have no resources at all.
 */
static int
group_not_found(const char *line, const struct envelope *env)
{
	static const char *codes[] = { "-32002", "-32602", "-32601" };
	size_t	 i;

	if (env->error.type != ENVELOPE_OBJECT ||
	    env->e_code.type != ENVELOPE_NUMBER || env->e_code.len != 6)
		return (0);
	for (i = 0; i < nitems(codes); i++)
		if (memcmp(line + env->e_code.off, codes[i], 6) == 0)
			return (1);
	return (0);
}

/* A member's reply to one of the session's own requests. */
static void
group_own_reply(struct group_session *gs, struct group_sent *q,
    const char *line, size_t len, const struct envelope *env)
{
	struct group_op	*op = q->op;
	size_t		 link = q->link;
	cJSON		*result;

	group_sent_free(gs, q);
	if (op == NULL)
		return;
	switch (op->kind) {
	case GROUP_OP_LIST:
		if (env->result.type == ENVELOPE_OBJECT &&
		    env->result.len <= RPC_PARSE_MAX_BYTES &&
		    (result = cJSON_ParseWithLength(line + env->result.off,
		    env->result.len)) != NULL) {
			cJSON_Delete(op->results[link]);
			op->results[link] = result;
		} else
			log_warnx("group %s: %s failed on %s; left out",
			    gs->name, group_lists[op->list].method,
			    gs->links[link]->member);
		break;
	case GROUP_OP_LEVEL:
		if (env->result.type != ENVELOPE_ABSENT)
			op->ok = 1;
		break;
	case GROUP_OP_RESOURCE:
		/* Not found there: the next member, if any is left. */
		if (group_not_found(line, env) &&
		    group_resource_next(gs, op) == 0)
			return;
		group_pass_reply(gs, op->id, op->id_len, line, len, env);
		group_op_free(gs, op);
		return;
	case GROUP_OP_QUIET:
		break;
	}
	group_op_part_done(gs, op);
}

/*
 * From the members' routers.
 */

/* An error to a member for its request (raw id text), through its link. */
static void
group_member_refuse(struct group_session *gs, size_t link, const char *id,
    size_t id_len)
{
	char	*text;

	if (gs->links[link]->att == NULL)
		return;
	xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":"
	    "{\"code\":%d,\"message\":\"too many requests of servers wait "
	    "for this client\"}}", (int)id_len, id, MCPD_ERR_LIMIT);
	router_client_line(gs->links[link]->att, text, strlen(text));
	free(text);
}

/* A request a member sends the client: numbered by the session. */
static void
group_member_request(struct group_session *gs, size_t link, const char *line,
    size_t len, const struct envelope *env)
{
	struct group_down	*d;
	struct envelope_edit	 edit;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(1)];
	char			 did[ENVELOPE_INT64_BYTES];
	size_t			 n;

	if (hmap_count(gs->downs) >= GROUP_DOWNS_MAX) {
		/* Refused at once, so that the member does not wait. */
		log_warnx("group %s: %zu requests of members already wait "
		    "for the client; one of %s refused", gs->name,
		    hmap_count(gs->downs), gs->links[link]->member);
		group_member_refuse(gs, link, line + env->id.off,
		    env->id.len);
		return;
	}
	d = xcalloc(1, sizeof *d);
	d->did = ++gs->next_did;
	d->link = link;
	d->id = xstrndup(line + env->id.off, env->id.len);
	d->id_len = env->id.len;
	hmap_put_i64(gs->downs, d->did, d);
	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = did;
	edit.text_len = envelope_print_int64(d->did, did);
	if ((n = envelope_splice(line, len, &edit, 1, iov, nitems(iov))) > 0)
		client_queue_iov(gs->client, iov, (int)n);
}

/*
 * A member withdraws a request it sent the client (notifications/
 * cancelled with the member router's id): find the session's number.
 */
static void
group_member_cancelled(struct group_session *gs, size_t link,
    const char *line, size_t len, const struct envelope *env)
{
	struct hmap_iter	 it;
	struct group_down	*d;
	struct envelope_edit	 edit;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(1)];
	void			*value;
	char			 did[ENVELOPE_INT64_BYTES];
	size_t			 n;

	if (env->p_request_id.type != ENVELOPE_NUMBER &&
	    env->p_request_id.type != ENVELOPE_STRING)
		return;
	hmap_iter_init(gs->downs, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value)) {
		d = value;
		if (d->link != link || d->id_len != env->p_request_id.len ||
		    memcmp(d->id, line + env->p_request_id.off, d->id_len) !=
		    0)
			continue;
		edit.off = env->p_request_id.off;
		edit.len = env->p_request_id.len;
		edit.text = did;
		edit.text_len = envelope_print_int64(d->did, did);
		if ((n = envelope_splice(line, len, &edit, 1, iov,
		    nitems(iov))) > 0)
			client_queue_iov(gs->client, iov, (int)n);
		hmap_del_i64(gs->downs, d->did);
		free(d->id);
		free(d);
		return;
	}
}

void
group_link_deliver(struct glink *l, const struct iovec *iov, int iovcnt)
{
	struct group_session	*gs = l->gs;
	struct group_sent	*q;
	struct envelope		 env;
	size_t			 len = 0, erroff;
	int64_t			 gid;
	char			*line, *p;
	int			 i;

	for (i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	p = line = xmalloc(len + 1);
	for (i = 0; i < iovcnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	*p = '\0';
	/* The member's router made this line: it scans. */
	if (envelope_scan(line, len, &env, &erroff) != 0)
		goto done;
	if (env.method.type == ENVELOPE_ABSENT) {
		/* A reply: to the client's request or to the session's. */
		if (envelope_int64(line, &env.id, &gid) != 0 ||
		    (q = idtab_get(gs->reqs, gid)) == NULL ||
		    q->link != l->index)
			goto done;
		if (q->id == NULL)
			group_own_reply(gs, q, line, len, &env);
		else {
			group_pass_reply(gs, q->id, q->id_len, line, len, &env);
			group_sent_free(gs, q);
		}
	} else if (env.id.type != ENVELOPE_ABSENT)
		group_member_request(gs, l->index, line, len, &env);
	else if (envelope_string_eq(line, &env.method,
	    "notifications/cancelled"))
		group_member_cancelled(gs, l->index, line, len, &env);
	else
		group_send(gs, line, len);
done:
	free(line);
}

void
group_link_pause(struct glink *l, int pause)
{
	struct group_session	*gs = l->gs;

	if (pause == l->paused)
		return;
	l->paused = pause;
	if (pause && gs->npaused++ == 0)
		client_pause(gs->client);
	else if (!pause && --gs->npaused == 0)
		client_resume(gs->client);
}

pid_t
group_link_pid(const struct glink *l)
{
	return (client_pid(l->gs->client));
}

uint64_t
group_link_serial(const struct glink *l)
{
	return (client_serial(l->gs->client));
}

static void
group_send_changed(struct group_session *gs)
{
	size_t	 i;

	for (i = 0; i < nitems(group_changed); i++)
		group_send(gs, group_changed[i], strlen(group_changed[i]));
}

/* The member is gone for good (removed by a reload): answer its share. */
void
group_link_detached(struct glink *l, const char *reason)
{
	struct group_session	*gs = l->gs;
	struct group_sent	*q, *next;
	struct group_op		*op;
	struct group_down	*d;
	struct hmap_iter	 it;
	void			*value;

	l->att = NULL;
	/* Its requests to the client: nobody to answer them to now. */
	hmap_iter_init(gs->downs, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value)) {
		d = value;
		if (d->link != l->index)
			continue;
		hmap_del_i64(gs->downs, d->did);
		free(d->id);
		free(d);
	}
	if (l->paused)
		group_link_pause(l, 0);
	TAILQ_FOREACH_SAFE(q, &gs->pending, entry, next) {
		if (q->link != l->index)
			continue;
		if (q->id != NULL) {
			group_error(gs, q->id, q->id_len,
			    MCPD_ERR_SERVER_UNAVAILABLE, "server %s of group "
			    "%s: %s", l->member, gs->name, reason);
			group_sent_free(gs, q);
			continue;
		}
		op = q->op;
		group_sent_free(gs, q);
		if (op == NULL)
			continue;
		if (op->kind != GROUP_OP_RESOURCE)
			group_op_part_done(gs, op);
		else if (group_resource_next(gs, op) == -1) {
			group_error(gs, op->id, op->id_len,
			    RPC_RESOURCE_NOT_FOUND, "resource not found in "
			    "group %s", gs->name);
			group_op_free(gs, op);
		}
	}
	group_send_changed(gs);
}

void
group_link_session(struct glink *l, int up)
{
	(void)up;
	/* Its tools come or go: the client lists again. */
	group_send_changed(l->gs);
}

/*
 * From the client.
 */

/*
 * A cursor this session gave out: members' indexes (in decimal) to their
 * own cursors, at least one.
 */
static int
group_cursor_valid(const struct group_session *gs, const cJSON *cursors)
{
	const cJSON	*c;
	char		*end;
	unsigned long	 i;

	if (!cJSON_IsObject(cursors) || cursors->child == NULL)
		return (0);
	cJSON_ArrayForEach(c, cursors) {
		i = strtoul(c->string, &end, 10);
		if (!cJSON_IsString(c) || c->string[0] < '0' ||
		    c->string[0] > '9' || *end != '\0' || i >= gs->nlinks)
			return (0);
	}
	return (1);
}

/* Fan a list request out to every member that is up or starting. */
static void
group_list(struct group_session *gs, enum group_list list, const char *line,
    const struct envelope *env)
{
	struct group_op	*op;
	cJSON		*params, *cursors = NULL, *c;
	const cJSON	*e;
	unsigned char	*json;
	char		*cursor = NULL, key[24];
	size_t		 i, n;

	if (env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES &&
	    (params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len)) != NULL) {
		e = cJSON_GetObjectItemCaseSensitive(params, "cursor");
		if (cJSON_IsString(e))
			cursor = xstrdup(e->valuestring);
		cJSON_Delete(params);
	}
	if (cursor != NULL) {
		json = strlen(cursor) <= RPC_PARSE_MAX_BYTES ?
		    b64url_decode(cursor, strlen(cursor), &n) : NULL;
		if (json != NULL)
			cursors = cJSON_ParseWithLength((char *)json, n);
		free(json);
		free(cursor);
		if (!group_cursor_valid(gs, cursors)) {
			cJSON_Delete(cursors);
			group_error(gs, line + env->id.off, env->id.len,
			    RPC_INVALID_PARAMS, "invalid params: not a cursor "
			    "this group gave out");
			return;
		}
	} else if (list == GROUP_LIST_TOOLS || list == GROUP_LIST_PROMPTS)
		group_names_reset(&gs->names[list]);
	else if (list == GROUP_LIST_RESOURCES) {
		/* What a member listed before may be gone: forget it. */
		hmap_free(gs->uris);
		gs->uris = hmap_new(hmap_random_seed());
	} else if (list == GROUP_LIST_TEMPLATES) {
		for (i = 0; i < gs->nlinks; i++)
			group_link_templates_clear(gs->links[i]);
	}

	op = group_op_new(gs, GROUP_OP_LIST, line + env->id.off, env->id.len);
	op->list = list;
	op->results = xcalloc(gs->nlinks + 1, sizeof *op->results);
	op->nresults = gs->nlinks;
	op->items = cJSON_CreateArray();
	op->cursors = cJSON_CreateObject();
	op->waiting = 1;	/* until every request is out */
	for (i = 0; i < gs->nlinks; i++) {
		if (cursors != NULL) {
			snprintf(key, sizeof key, "%zu", i);
			c = cJSON_GetObjectItemCaseSensitive(cursors, key);
			if (!cJSON_IsString(c))
				continue;
		} else
			c = NULL;
		if (!group_link_usable(gs, i))
			continue;
		params = cJSON_CreateObject();
		if (c != NULL)
			cJSON_AddStringToObject(params, "cursor",
			    c->valuestring);
		op->waiting++;
		group_own_request(gs, i, op, group_lists[list].method,
		    params);
	}
	cJSON_Delete(cursors);
	group_op_part_done(gs, op);
}

/*
 * The member and its own name for a name the group gave out (kind: tools
 * or prompts); NULL if no member offers it.
 */
static const char *
group_find_name(struct group_session *gs, int kind, const char *name,
    size_t *link)
{
	const struct group_name	*gn;
	const char		*rest;
	size_t			 i;

	if (!filter_allows(gs->filters[group_lists[kind].filter], name))
		return (NULL);
	if ((gn = hmap_get(gs->names[kind], name, strlen(name))) != NULL) {
		*link = gn->link;
		return (gn->name);
	}
	/* Not listed in this session: MEMBER SEP NAME as is. */
	for (i = 0; i < gs->nlinks; i++) {
		if (!gs->links[i]->gone && gname_split(name,
		    gs->links[i]->member, gs->sep, &rest)) {
			*link = i;
			return (rest);
		}
	}
	return (NULL);
}

/* A client's request its member cannot take (not attached): answered. */
static void
group_sent_refuse(struct group_session *gs, struct group_sent *q)
{
	group_error(gs, q->id, q->id_len, MCPD_ERR_SERVER_UNAVAILABLE,
	    "server %s of group %s is not configured",
	    gs->links[q->link]->member, gs->name);
	group_sent_free(gs, q);
}

/* Send a member a request given as a tree (taken) under a fresh gid. */
static void
group_send_parsed(struct group_session *gs, size_t link, cJSON *msg,
    const char *id, size_t id_len)
{
	struct group_sent	*q;
	char			*text;

	q = group_sent_new(gs, link, id, id_len, NULL);
	cJSON_ReplaceItemInObjectCaseSensitive(msg, "id",
	    cJSON_CreateNumber((double)q->gid));
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (gs->links[link]->att == NULL)
		group_sent_refuse(gs, q);
	else
		router_client_line(gs->links[link]->att, text, strlen(text));
	free(text);
}

/*
 * tools/call, prompts/get: the member and its name for the group's name;
 * the request goes on with params.name replaced.
 */
static void
group_call(struct group_session *gs, int kind, const char *line, size_t len,
    const struct envelope *env)
{
	struct group_sent	*q;
	struct envelope_edit	 edits[2];
	cJSON			*js;
	const char		*rest;
	char			*name, *quoted, gid[ENVELOPE_INT64_BYTES];
	size_t			 link;
	int			 n, name_first;

	name = xmalloc(GROUP_NAME_MAX);
	if ((n = envelope_string_copy(line, &env->p_name, name,
	    GROUP_NAME_MAX)) < 0) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: name must be a string "
		    "of at most %d bytes", GROUP_NAME_MAX - 1);
		free(name);
		return;
	}
	if ((rest = group_find_name(gs, kind, name, &link)) == NULL) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "unknown %s: %s (not offered by any "
		    "server of group %s)", kind == GROUP_LIST_TOOLS ? "tool" :
		    "prompt", name, gs->name);
		free(name);
		return;
	}
	/* The member's own name, as JSON, where the group's was. */
	js = cJSON_CreateString(rest);
	quoted = rpc_print(js);
	cJSON_Delete(js);
	free(name);
	q = group_sent_new(gs, link, line + env->id.off, env->id.len, NULL);
	name_first = env->p_name.off < env->id.off;
	edits[!name_first] = (struct envelope_edit){ env->p_name.off,
	    env->p_name.len, quoted, strlen(quoted) };
	edits[name_first] = (struct envelope_edit){ env->id.off, env->id.len,
	    gid, envelope_print_int64(q->gid, gid) };
	if (group_forward(gs, link, line, len, edits, 2) == -1)
		group_sent_refuse(gs, q);
	free(quoted);
}

/*
 * completion/complete: by the prompt (renamed back) or the resource
 * template its ref names.
 */
static void
group_complete(struct group_session *gs, const char *line, size_t len,
    const struct envelope *env)
{
	cJSON		*msg, *ref, *type, *name, *uri;
	const char	*rest = NULL;
	ssize_t		 found;
	size_t		 link = 0;

	msg = len <= GROUP_PARSE_MAX_BYTES ?
	    cJSON_ParseWithLength(line, len) : NULL;
	ref = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    msg, "params"), "ref");
	type = cJSON_GetObjectItemCaseSensitive(ref, "type");
	name = cJSON_GetObjectItemCaseSensitive(ref, "name");
	uri = cJSON_GetObjectItemCaseSensitive(ref, "uri");
	if (cJSON_IsString(type) && strcmp(type->valuestring,
	    "ref/prompt") == 0 && cJSON_IsString(name)) {
		if ((rest = group_find_name(gs, GROUP_LIST_PROMPTS,
		    name->valuestring, &link)) != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(ref, "name",
			    cJSON_CreateString(rest));
	} else if (cJSON_IsString(type) && strcmp(type->valuestring,
	    "ref/resource") == 0 && cJSON_IsString(uri)) {
		if (filter_allows_template(gs->filters[FILTER_RESOURCES],
		    uri->valuestring) && (found = group_route_uri(gs,
		    uri->valuestring, strlen(uri->valuestring))) >= 0) {
			link = (size_t)found;
			rest = uri->valuestring;
		}
	} else {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: ref must be a "
		    "ref/prompt with a name or a ref/resource with a uri");
		cJSON_Delete(msg);
		return;
	}
	if (rest == NULL) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "no server of group %s offers what "
		    "this completion refers to", gs->name);
		cJSON_Delete(msg);
		return;
	}
	group_send_parsed(gs, link, msg, line + env->id.off, env->id.len);
}

/* resources/read, subscribe, unsubscribe: by URI. */
static void
group_resource(struct group_session *gs, const char *line, size_t len,
    const struct envelope *env)
{
	struct group_op		*op;
	struct group_sent	*q;
	struct envelope_edit	 edit;
	char			*uri, gid[ENVELOPE_INT64_BYTES];
	ssize_t			 link;
	int			 n;

	uri = xmalloc(GROUP_URI_MAX);
	if ((n = envelope_string_copy(line, &env->p_uri, uri,
	    GROUP_URI_MAX)) < 0) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: uri must be a string "
		    "of at most %d bytes", GROUP_URI_MAX - 1);
		free(uri);
		return;
	}
	if (!filter_allows_uri(gs->filters[FILTER_RESOURCES], uri)) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_RESOURCE_NOT_FOUND, "resource not found: %s", uri);
		free(uri);
		return;
	}
	link = group_route_uri(gs, uri, (size_t)n);
	free(uri);
	if (link >= 0 && group_link_usable(gs, (size_t)link)) {
		q = group_sent_new(gs, (size_t)link, line + env->id.off,
		    env->id.len, NULL);
		edit.off = env->id.off;
		edit.len = env->id.len;
		edit.text = gid;
		edit.text_len = envelope_print_int64(q->gid, gid);
		if (group_forward(gs, (size_t)link, line, len, &edit, 1) == 0)
			return;
		group_sent_free(gs, q);
	}
	/* Nobody listed it: each member in group order, while not found. */
	op = group_op_new(gs, GROUP_OP_RESOURCE, line + env->id.off,
	    env->id.len);
	op->line = xstrndup(line, len);
	op->len = len;
	op->first = -1;
	if (group_resource_next(gs, op) == -1) {
		group_error(gs, op->id, op->id_len, RPC_RESOURCE_NOT_FOUND,
		    "resource not found in group %s", gs->name);
		group_op_free(gs, op);
	}
}

/* logging/setLevel: to every member; answered once all have. */
static void
group_set_level(struct group_session *gs, const char *line,
    const struct envelope *env)
{
	struct group_op	*op;
	cJSON		*params;
	char		 level[32];
	size_t		 i;

	if (envelope_string_copy(line, &env->p_level, level,
	    sizeof level) < 0) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: level must be a "
		    "log level");
		return;
	}
	op = group_op_new(gs, GROUP_OP_LEVEL, line + env->id.off, env->id.len);
	op->waiting = 1;
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->att == NULL)
			continue;
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "level", level);
		op->waiting++;
		group_own_request(gs, i, op, "logging/setLevel", params);
	}
	group_op_part_done(gs, op);
}

/* The merged initialize result, as JSON text (malloc'd). */
static char *
group_init_result(struct group_session *gs, const char *asked)
{
	static const char *known[] = MCPD_MCP_VERSIONS_ACCEPTED;
	struct worker	*w;
	cJSON		*result, *caps, *o, *init, *v, *info;
	char		*text, *instr = NULL, *tmp;
	const char	*version = MCPD_MCP_VERSION;
	size_t		 i;

	/* As a server does: the client's version if it is one mcpd knows. */
	for (i = 0; asked != NULL && known[i] != NULL; i++)
		if (strcmp(asked, known[i]) == 0)
			version = known[i];
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "protocolVersion", version);
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->gone || gs->links[i]->att == NULL)
			continue;
		w = router_attachment_worker(gs->links[i]->att);
		if ((init = cJSON_Parse(worker_init_result_text(w))) == NULL)
			continue;
		v = cJSON_GetObjectItemCaseSensitive(init, "instructions");
		if (cJSON_IsString(v) && v->valuestring[0] != '\0') {
			xasprintf(&tmp, "%s%s## %s\n\n%s", instr != NULL ?
			    instr : "", instr != NULL ? "\n\n" : "",
			    gs->links[i]->member, v->valuestring);
			free(instr);
			instr = tmp;
		}
		cJSON_Delete(init);
	}
	caps = cJSON_AddObjectToObject(result, "capabilities");
	o = cJSON_AddObjectToObject(caps, "tools");
	cJSON_AddTrueToObject(o, "listChanged");
	o = cJSON_AddObjectToObject(caps, "prompts");
	cJSON_AddTrueToObject(o, "listChanged");
	o = cJSON_AddObjectToObject(caps, "resources");
	cJSON_AddTrueToObject(o, "listChanged");
	cJSON_AddTrueToObject(o, "subscribe");
	cJSON_AddObjectToObject(caps, "logging");
	cJSON_AddObjectToObject(caps, "completions");
	info = cJSON_AddObjectToObject(result, "serverInfo");
	xasprintf(&tmp, "mcpd group %s", gs->name);
	cJSON_AddStringToObject(info, "name", tmp);
	free(tmp);
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	if (instr != NULL) {
		cJSON_AddStringToObject(result, "instructions", instr);
		free(instr);
	}
	text = rpc_print(result);
	cJSON_Delete(result);
	return (text);
}

static void
group_initialize(struct group_session *gs, const char *line,
    const struct envelope *env)
{
	struct group_op	*op;
	cJSON		*params, *asked;
	char		*result;
	size_t		 i;

	params = env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	asked = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	result = group_init_result(gs, cJSON_IsString(asked) ?
	    asked->valuestring : NULL);
	cJSON_Delete(params);
	group_result(gs, line + env->id.off, env->id.len, result);
	free(result);
	/* Each member's router learns what the client can do. */
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->att == NULL)
			continue;
		params = env->params.type == ENVELOPE_OBJECT &&
		    env->params.len <= RPC_PARSE_MAX_BYTES ?
		    cJSON_ParseWithLength(line + env->params.off,
		    env->params.len) : NULL;
		if (params == NULL)
			params = cJSON_CreateObject();
		op = group_op_new(gs, GROUP_OP_QUIET, NULL, 0);
		op->waiting = 1;
		group_own_request(gs, i, op, "initialize", params);
	}
}

/* notifications/cancelled from the client: to the member that has it. */
static void
group_client_cancelled(struct group_session *gs, const char *line,
    size_t len, const struct envelope *env)
{
	struct group_sent	*q;
	struct envelope_edit	 edit;
	char			 gid[ENVELOPE_INT64_BYTES];

	if ((env->p_request_id.type != ENVELOPE_NUMBER &&
	    env->p_request_id.type != ENVELOPE_STRING) ||
	    (q = hmap_get(gs->by_client, line + env->p_request_id.off,
	    env->p_request_id.len)) == NULL)
		return;
	edit.off = env->p_request_id.off;
	edit.len = env->p_request_id.len;
	edit.text = gid;
	edit.text_len = envelope_print_int64(q->gid, gid);
	group_forward(gs, q->link, line, len, &edit, 1);
}

/* The client answers a member's request: back under the member's id. */
static void
group_client_response(struct group_session *gs, const char *line,
    size_t len, const struct envelope *env)
{
	struct group_down	*d;
	struct envelope_edit	 edit;
	int64_t			 did;

	if (envelope_int64(line, &env->id, &did) != 0 ||
	    (d = hmap_del_i64(gs->downs, did)) == NULL)
		return;
	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = d->id;
	edit.text_len = d->id_len;
	group_forward(gs, d->link, line, len, &edit, 1);
	free(d->id);
	free(d);
}

enum router_line
group_client_line(struct group_session *gs, const char *line, size_t len)
{
	struct envelope	 env;
	const char	*invalid, *id;
	char		 method[64];
	size_t		 erroff;
	enum rpc_kind	 kind;
	char		*why;
	int		 code;

	if (envelope_scan(line, len, &env, &erroff) != 0) {
		code = rpc_scan_error(line, len, erroff, &why);
		group_error(gs, NULL, 0, code, "%s", why);
		free(why);
		return (ROUTER_LINE_TAKEN);
	}
	kind = rpc_classify_envelope(line, &env, &invalid);
	id = line + env.id.off;
	switch (kind) {
	case RPC_KIND_RESPONSE:
		group_client_response(gs, line, len, &env);
		return (ROUTER_LINE_TAKEN);
	case RPC_KIND_INVALID:
		group_error(gs, rpc_envelope_has_id(&env) ? id : NULL,
		    env.id.len, RPC_INVALID_REQUEST, "%s", invalid);
		return (ROUTER_LINE_TAKEN);
	case RPC_KIND_REQUEST:
	case RPC_KIND_NOTIFICATION:
		break;
	}
	if (envelope_string_copy(line, &env.method, method,
	    sizeof method) < 0)
		snprintf(method, sizeof method, "(long method name)");
	if (strncmp(method, MCPD_METHOD_PREFIX,
	    strlen(MCPD_METHOD_PREFIX)) == 0)
		return (ROUTER_LINE_CONTROL);
	if (kind == RPC_KIND_NOTIFICATION) {
		if (strcmp(method, "notifications/cancelled") == 0)
			group_client_cancelled(gs, line, len, &env);
		return (ROUTER_LINE_TAKEN);
	}
	if (env.id.len > GROUP_ID_MAX_BYTES) {
		group_error(gs, id, env.id.len, RPC_INVALID_REQUEST,
		    "invalid request: an id of more than %d bytes",
		    GROUP_ID_MAX_BYTES);
		return (ROUTER_LINE_TAKEN);
	}
	if (hmap_get(gs->by_client, id, env.id.len) != NULL ||
	    hmap_get(gs->op_ids, id, env.id.len) != NULL) {
		group_error(gs, id, env.id.len, RPC_INVALID_REQUEST,
		    "invalid request: this id is already in use by a request "
		    "in flight");
		return (ROUTER_LINE_TAKEN);
	}
	if (hmap_count(gs->by_client) + hmap_count(gs->op_ids) >=
	    gs->mcpd->conf->client_max_inflight) {
		group_error(gs, id, env.id.len, MCPD_ERR_LIMIT, "this "
		    "connection has %zu requests in flight to group %s, the "
		    "most mcpd holds for one client (client_max_inflight)",
		    hmap_count(gs->by_client) + hmap_count(gs->op_ids),
		    gs->name);
		return (ROUTER_LINE_TAKEN);
	}
	group_count(gs);
	if (strcmp(method, "initialize") == 0)
		group_initialize(gs, line, &env);
	else if (strcmp(method, "ping") == 0)
		group_result(gs, id, env.id.len, "{}");
	else if (strcmp(method, "tools/list") == 0)
		group_list(gs, GROUP_LIST_TOOLS, line, &env);
	else if (strcmp(method, "prompts/list") == 0)
		group_list(gs, GROUP_LIST_PROMPTS, line, &env);
	else if (strcmp(method, "resources/list") == 0)
		group_list(gs, GROUP_LIST_RESOURCES, line, &env);
	else if (strcmp(method, "resources/templates/list") == 0)
		group_list(gs, GROUP_LIST_TEMPLATES, line, &env);
	else if (strcmp(method, "tools/call") == 0)
		group_call(gs, GROUP_LIST_TOOLS, line, len, &env);
	else if (strcmp(method, "prompts/get") == 0)
		group_call(gs, GROUP_LIST_PROMPTS, line, len, &env);
	else if (strcmp(method, "resources/read") == 0 ||
	    strcmp(method, "resources/subscribe") == 0 ||
	    strcmp(method, "resources/unsubscribe") == 0)
		group_resource(gs, line, len, &env);
	else if (strcmp(method, "logging/setLevel") == 0)
		group_set_level(gs, line, &env);
	else if (strcmp(method, "completion/complete") == 0)
		group_complete(gs, line, len, &env);
	else
		group_error(gs, id, env.id.len, RPC_METHOD_NOT_FOUND,
		    "method not found: %s (group %s)", method, gs->name);
	return (ROUTER_LINE_TAKEN);
}

/*
 * Sessions: attach, detach, and what status shows.
 */

static struct group_stat *
group_stat(struct mcpd *mcpd, const char *name)
{
	struct group_registry	*reg = mcpd->groups;
	size_t			 i;

	for (i = 0; i < reg->nstats; i++)
		if (strcmp(reg->stats[i].name, name) == 0)
			return (&reg->stats[i]);
	reg->stats = xreallocarray(reg->stats, reg->nstats + 1,
	    sizeof *reg->stats);
	memset(&reg->stats[reg->nstats], 0, sizeof *reg->stats);
	reg->stats[reg->nstats].name = xstrdup(name);
	return (&reg->stats[reg->nstats++]);
}

static void
group_count(struct group_session *gs)
{
	group_stat(gs->mcpd, gs->name)->requests++;
}

/* A link to a member, attached if the server exists now. */
static void
group_link_add(struct group_session *gs, const char *member)
{
	struct glink	*l;
	struct worker	*w;

	l = xcalloc(1, sizeof *l);
	l->gs = gs;
	l->index = gs->nlinks;
	l->member = xstrdup(member);
	if ((w = mcpd_find_worker(gs->mcpd, member)) != NULL &&
	    !worker_removing(w))
		l->att = instance_attach_link(w, l);
	gs->links = xreallocarray(gs->links, gs->nlinks + 1,
	    sizeof *gs->links);
	gs->links[gs->nlinks++] = l;
}

/*
 * A reload changed the group: members added are linked, members removed
 * are let go (their requests answered), the lists change.  Links keep
 * their places, so the numbers in names and cursors stay valid.
 */
static void
group_session_update(struct group_session *gs, const struct conf_group *g)
{
	struct attachment	*att;
	struct glink		*l;
	struct worker		*w;
	size_t			 i, j;
	int			 changed = 0;

	for (i = 0; i < FILTER_KINDS; i++) {
		if (filter_equal(gs->filters[i], g->filters[i]))
			continue;
		filter_free(gs->filters[i]);
		gs->filters[i] = filter_dup(g->filters[i]);
		changed = 1;
	}
	if (strcmp(gs->sep, g->separator) != 0) {
		free(gs->sep);
		gs->sep = xstrdup(g->separator);
		group_names_reset(&gs->names[GROUP_LIST_TOOLS]);
		group_names_reset(&gs->names[GROUP_LIST_PROMPTS]);
		changed = 1;
	}
	for (i = 0; i < gs->nlinks; i++) {
		l = gs->links[i];
		if (l->gone)
			continue;
		for (j = 0; j < g->nservers; j++)
			if (strcmp(g->servers[j], l->member) == 0)
				break;
		if (j == g->nservers) {
			/* Not a member any more. */
			l->gone = 1;
			if ((att = l->att) != NULL) {
				group_link_detached(l, "removed from the group "
				    "by a reload");
				router_detach(att, "removed from the group");
			}
			changed = 1;
		} else if (l->att == NULL && (w = mcpd_find_worker(gs->mcpd,
		    l->member)) != NULL && !worker_removing(w)) {
			/* A server the file now defines. */
			l->att = instance_attach_link(w, l);
			changed = 1;
		}
	}
	for (j = 0; j < g->nservers; j++) {
		for (i = 0; i < gs->nlinks; i++)
			if (!gs->links[i]->gone &&
			    strcmp(gs->links[i]->member, g->servers[j]) == 0)
				break;
		if (i == gs->nlinks) {
			group_link_add(gs, g->servers[j]);
			changed = 1;
		}
	}
	if (changed)
		group_send_changed(gs);
}

void
group_reconfigure(struct mcpd *mcpd)
{
	struct group_session	*gs, *next;
	const struct conf_group	*g;

	if (mcpd->groups == NULL)
		return;
	TAILQ_FOREACH_SAFE(gs, &mcpd->groups->sessions, entry, next) {
		/* Gone, or its name now a server's: the session ends. */
		if ((g = conf_find_group(mcpd->conf, gs->name)) == NULL ||
		    conf_find(mcpd->conf, gs->name) != NULL)
			client_close(gs->client, "group removed by a reload");
		else
			group_session_update(gs, g);
	}
}

struct group_session *
group_attach(struct mcpd *mcpd, const struct conf_group *g,
    struct client *c)
{
	struct group_session	*gs;
	struct group_stat	*st;
	size_t			 i;

	if (mcpd->groups == NULL) {
		mcpd->groups = xcalloc(1, sizeof *mcpd->groups);
		TAILQ_INIT(&mcpd->groups->sessions);
	}
	gs = xcalloc(1, sizeof *gs);
	gs->mcpd = mcpd;
	gs->client = c;
	gs->name = xstrdup(g->name);
	gs->sep = xstrdup(g->separator);
	gs->reqs = idtab_new();
	gs->by_client = hmap_new(hmap_random_seed());
	gs->op_ids = hmap_new(hmap_random_seed());
	gs->downs = hmap_new(hmap_random_seed());
	group_names_reset(&gs->names[GROUP_LIST_TOOLS]);
	group_names_reset(&gs->names[GROUP_LIST_PROMPTS]);
	gs->uris = hmap_new(hmap_random_seed());
	TAILQ_INIT(&gs->pending);
	TAILQ_INIT(&gs->ops);
	for (i = 0; i < FILTER_KINDS; i++)
		gs->filters[i] = filter_dup(g->filters[i]);
	for (i = 0; i < g->nservers; i++)
		group_link_add(gs, g->servers[i]);
	TAILQ_INSERT_TAIL(&mcpd->groups->sessions, gs, entry);
	st = group_stat(mcpd, gs->name);
	st->sessions++;
	st->sessions_total++;
	return (gs);
}

cJSON *
group_attach_result(const struct group_session *gs)
{
	cJSON	*result, *info;
	char	*name;

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", gs->name);
	cJSON_AddStringToObject(result, "state", "group");
	cJSON_AddStringToObject(result, "protocolVersion", MCPD_MCP_VERSION);
	info = cJSON_AddObjectToObject(result, "serverInfo");
	xasprintf(&name, "mcpd group %s", gs->name);
	cJSON_AddStringToObject(info, "name", name);
	free(name);
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	return (result);
}

void
group_detach(struct group_session *gs, const char *reason)
{
	struct group_sent	*q;
	struct group_op		*op;
	struct hmap_iter	 it;
	void			*value;
	size_t			 i;

	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->att != NULL)
			router_detach(gs->links[i]->att, reason);
		group_link_templates_clear(gs->links[i]);
		free(gs->links[i]->member);
		free(gs->links[i]);
	}
	free(gs->links);
	while ((q = TAILQ_FIRST(&gs->pending)) != NULL)
		group_sent_free(gs, q);
	while ((op = TAILQ_FIRST(&gs->ops)) != NULL)
		group_op_free(gs, op);
	hmap_iter_init(gs->downs, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value)) {
		free(((struct group_down *)value)->id);
		free(value);
	}
	hmap_free(gs->downs);
	hmap_free(gs->by_client);
	hmap_free(gs->op_ids);
	idtab_free(gs->reqs);
	group_names_free(gs->names[GROUP_LIST_TOOLS]);
	group_names_free(gs->names[GROUP_LIST_PROMPTS]);
	hmap_free(gs->uris);
	TAILQ_REMOVE(&gs->mcpd->groups->sessions, gs, entry);
	group_stat(gs->mcpd, gs->name)->sessions--;
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(gs->filters[i]);
	free(gs->name);
	free(gs->sep);
	free(gs);
}

int
group_session_busy(const struct group_session *gs)
{
	return (!TAILQ_EMPTY(&gs->pending));
}

cJSON *
group_status_json(struct mcpd *mcpd)
{
	const struct conf	*conf = mcpd->conf;
	const struct conf_group	*g;
	struct group_stat	*st;
	struct worker		*w;
	cJSON			*groups, *o, *members, *m;
	size_t			 i, j;

	groups = cJSON_CreateArray();
	for (i = 0; i < conf->ngroups; i++) {
		g = &conf->groups[i];
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", g->name);
		cJSON_AddBoolToObject(o, "builtin", g->builtin);
		members = cJSON_AddArrayToObject(o, "servers");
		for (j = 0; j < g->nservers; j++) {
			m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "name", g->servers[j]);
			w = mcpd_find_worker(mcpd, g->servers[j]);
			cJSON_AddStringToObject(m, "state", w != NULL ?
			    worker_state_name(worker_state(w)) : "absent");
			cJSON_AddItemToArray(members, m);
		}
		st = mcpd->groups != NULL ? group_stat(mcpd, g->name) : NULL;
		cJSON_AddNumberToObject(o, "clients",
		    st != NULL ? (double)st->sessions : 0);
		cJSON_AddNumberToObject(o, "requests",
		    st != NULL ? (double)st->requests : 0);
		cJSON_AddItemToArray(groups, o);
	}
	return (groups);
}

void
group_registry_free(struct mcpd *mcpd)
{
	size_t	 i;

	if (mcpd->groups == NULL)
		return;
	for (i = 0; i < mcpd->groups->nstats; i++)
		free(mcpd->groups->stats[i].name);
	free(mcpd->groups->stats);
	free(mcpd->groups);
	mcpd->groups = NULL;
}
