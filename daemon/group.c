/*
 * group.c -- one client session over several servers (see group.h).
 *
 * Ids.  Every request the session sends a member, the client's or its
 * own, goes under a fresh number of the session (gid); the member's router
 * maps that to an upstream id as for any client.  A reply from a link is
 * matched by its gid: a client's request gets its own id back, the
 * session's own requests (list fan-out, setLevel, initialize, a resource
 * tried member after member) go to the op that sent them (group_op.c).
 * A request a member sends the client (sampling, elicitation) is numbered
 * by the session too, so two members' requests never share an id; the
 * client's answer goes back to that member under the id the member's
 * router gave it.
 *
 * Lists are fanned out and merged in group_list.c, which also keeps the
 * names the session gave out; calls, completions, resources (which keep
 * their URIs) and setLevel are routed in group_route.c.
 *
 * Bounds: requests in flight per session are capped by
 * client_max_inflight; list replies larger than RPC_PARSE_MAX_BYTES count
 * as failed; everything the session holds is counted in mcpd's memory
 * budget and bounded by client_max_group_bytes (group_budget.c); while
 * the budget is used up, new requests are refused with -32015 as a
 * direct client's are.
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

#include "client.h"
#include "conf.h"
#include "envelope.h"
#include "filter.h"
#include "group.h"
#include "group_int.h"
#include "instance.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "pversion.h"
#include "router.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define GROUP_ID_MAX_BYTES	1024
#define GROUP_DOWNS_MAX		4096	/* members' requests to the client */

static const char *group_changed[] = {
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/prompts/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/list_changed\"}",
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

static void	group_count(struct group_session *);

/* Pass a member's reply on to the client under the client's id. */
void
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
		gs->peer->queue(gs->client, iov, (int)n);
}

void
group_version_reply(struct group_session *gs, const char *method,
    const char *id, size_t id_len, const char *line, size_t len,
    const struct envelope *env)
{
	struct envelope_edit	 edits[2];
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(2)];
	char			*converted = NULL;
	size_t			 n, clen;
	int			 result_first;

	if (gs->version < PVERSION_NEWEST &&
	    env->result.type == ENVELOPE_OBJECT)
		converted = pversion_convert_text(line + env->result.off,
		    env->result.len, method, gs->version, RPC_PARSE_MAX_BYTES,
		    &clen);
	if (converted == NULL) {
		group_pass_reply(gs, id, id_len, line, len, env);
		return;
	}
	result_first = env->result.off < env->id.off;
	edits[!result_first] = (struct envelope_edit){ env->result.off,
	    env->result.len, converted, clen };
	edits[result_first] = (struct envelope_edit){ env->id.off,
	    env->id.len, id, id_len };
	if ((n = envelope_splice(line, len, edits, 2, iov, nitems(iov))) > 0)
		gs->peer->queue(gs->client, iov, (int)n);
	free(converted);
}

/* No member has the resource, and a member's filter hides it. */
static void
group_resource_hidden(struct group_session *gs, struct group_op *op)
{
	struct envelope	 env;
	size_t		 erroff;
	char		*uri = NULL;

	if (op->line != NULL && envelope_scan(op->line, op->len, &env,
	    &erroff) == 0)
		uri = envelope_string_dup(op->line, &env.p_uri, GROUP_URI_MAX,
		    NULL);
	group_error(gs, op->id, op->id_len, RPC_RESOURCE_NOT_FOUND,
	    "resource not found: %s" MCPD_FILTER_HIDDEN_NOTE, uri != NULL ?
	    uri : "(in group)");
	free(uri);
}

/* A member's reply to one of the session's own requests. */
static void
group_own_reply(struct group_session *gs, struct group_sent *q,
    const char *line, size_t len, const struct envelope *env)
{
	struct group_op	*op = q->op;
	size_t		 link = q->link;

	group_sent_free(gs, q);
	if (op == NULL)
		return;
	switch (op->kind) {
	case GROUP_OP_LIST:
		group_list_reply(gs, op, link, line, env);
		return;
	case GROUP_OP_LEVEL:
	case GROUP_OP_SUBSCRIBE:
		if (env->result.type != ENVELOPE_ABSENT)
			op->ok = 1;
		break;
	case GROUP_OP_RESOURCE:
		/* Not found there: the next member, if any is left. */
		if (!op->failed && group_not_found(line, env)) {
			op->hidden |= bytes_has(line, len,
			    MCPD_FILTER_HIDDEN_NOTE,
			    sizeof MCPD_FILTER_HIDDEN_NOTE - 1, 1);
			if (group_resource_next(gs, op) == 0)
				return;
			/* Hidden somewhere: said so, as a server says it. */
			if (op->hidden) {
				group_resource_hidden(gs, op);
				group_op_free(gs, op);
				return;
			}
		}
		if (!op->failed)
			group_pass_reply(gs, op->id, op->id_len, line, len,
			    env);
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

/* What a member's request waiting for the client holds, in the budget. */
static size_t
group_down_bytes(const struct group_down *d)
{
	return (sizeof *d + d->id_len + 1 + GROUP_ENTRY_BYTES);
}

static void
group_down_free(struct group_session *gs, struct group_down *d)
{
	hmap_del_i64(gs->downs, d->did);
	group_budget_sub(gs, group_down_bytes(d));
	free(d->id);
	free(d);
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
	group_budget_add(gs, group_down_bytes(d));
	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = did;
	edit.text_len = envelope_print_int64(d->did, did);
	if ((n = envelope_splice(line, len, &edit, 1, iov, nitems(iov))) > 0)
		gs->peer->queue(gs->client, iov, (int)n);
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
			gs->peer->queue(gs->client, iov, (int)n);
		group_down_free(gs, d);
		return;
	}
}

void
group_link_deliver(struct glink *l, const struct iovec *iov, int iovcnt)
{
	struct group_session	*gs = l->gs;
	struct group_sent	*q;
	struct envelope		 env;
	size_t			 len, erroff;
	int64_t			 gid;
	char			*line;

	line = xiovdup(iov, iovcnt, &len);
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
		else if (q->call)
			group_call_reply(gs, q, line, len, &env);
		else if (q->prompt) {
			group_version_reply(gs, "prompts/get", q->id,
			    q->id_len, line, len, &env);
			group_sent_free(gs, q);
		} else {
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
		gs->peer->pause(gs->client, 1);
	else if (!pause && --gs->npaused == 0)
		gs->peer->pause(gs->client, 0);
}

pid_t
group_link_pid(const struct glink *l)
{
	return (l->gs->peer->pid(l->gs->client));
}

uid_t
group_link_uid(const struct glink *l)
{
	return (l->gs->peer->uid(l->gs->client));
}

uint64_t
group_link_serial(const struct glink *l)
{
	return (l->gs->peer->serial(l->gs->client));
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
		if (d->link == l->index)
			group_down_free(gs, d);
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
		else if (op->failed)
			group_op_free(gs, op);
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

/* A link as its member's router sees it (router.h): its peer table. */
static void
group_peer_queue(void *l, const struct iovec *iov, int iovcnt)
{
	group_link_deliver(l, iov, iovcnt);
}

static void
group_peer_pause(void *l, int pause)
{
	group_link_pause(l, pause);
}

static void
group_peer_detached(void *l, const char *reason)
{
	group_link_detached(l, reason);
}

static void
group_peer_session(void *l, int up)
{
	group_link_session(l, up);
}

static pid_t
group_peer_pid(const void *l)
{
	return (group_link_pid(l));
}

static uid_t
group_peer_uid(const void *l)
{
	return (group_link_uid(l));
}

static uint64_t
group_peer_serial(const void *l)
{
	return (group_link_serial(l));
}

static uint64_t
group_peer_principal(const void *l)
{
	const struct glink	*link = l;

	return (link->gs->peer->principal(link->gs->client));
}

static int
group_peer_principal_lasts(const void *l)
{
	const struct glink	*link = l;

	return (link->gs->peer->principal_lasts(link->gs->client));
}

/* A member sees the group's client as the app it is. */
static const struct ident *
group_peer_ident(const void *l)
{
	const struct glink	*link = l;

	if (link->gs->peer->ident == NULL)
		return (NULL);
	return (link->gs->peer->ident(link->gs->client));
}

static const struct router_peer group_link_peer = {
	.queue = group_peer_queue,
	.pause = group_peer_pause,
	.detached = group_peer_detached,
	.session = group_peer_session,
	.pid = group_peer_pid,
	.uid = group_peer_uid,
	.serial = group_peer_serial,
	.principal = group_peer_principal,
	.principal_lasts = group_peer_principal_lasts,
	.ident = group_peer_ident,
	.link = 1,
};

/*
 * From the client: calls, completions, resources and setLevel are
 * routed in group_route.c.
 */

/*
 * The merged initialize result, as JSON text (malloc'd), in the
 * client's revision (pversion.h), as a server answers: the one it asked
 * for if mcpd speaks it, else mcpd's newest.
 */
static char *
group_init_result(struct group_session *gs, const char *asked)
{
	struct worker	*w;
	cJSON		*result, *caps, *o, *init, *v, *info, *tcaps;
	char		*text, *instr = NULL, *tmp;
	size_t		 i;

	gs->version = pversion_negotiate(asked);
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "protocolVersion",
	    pversion_name(gs->version));
	tcaps = cJSON_CreateObject();
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
		group_tasks_caps(cJSON_GetObjectItemCaseSensitive(init,
		    "capabilities"), tcaps);
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
	if ((o = cJSON_DetachItemFromObjectCaseSensitive(tcaps, "tasks")) !=
	    NULL)
		cJSON_AddItemToObject(caps, "tasks", o);
	cJSON_Delete(tcaps);
	info = cJSON_AddObjectToObject(result, "serverInfo");
	xasprintf(&tmp, "mcpd group %s", gs->name);
	cJSON_AddStringToObject(info, "name", tmp);
	free(tmp);
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	if (instr != NULL) {
		cJSON_AddStringToObject(result, "instructions", instr);
		free(instr);
	}
	pversion_init_result(result, gs->version);
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
	group_down_free(gs, d);
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
	if (group_policy_refuses_all(gs, id, env.id.len))
		return (ROUTER_LINE_TAKEN);
	if (hmap_get(gs->by_client, id, env.id.len) != NULL ||
	    hmap_get(gs->op_ids, id, env.id.len) != NULL) {
		group_error(gs, id, env.id.len, RPC_INVALID_REQUEST,
		    "invalid request: this id is already in use by a request "
		    "in flight");
		return (ROUTER_LINE_TAKEN);
	}
	if (group_budget_exhausted(gs)) {
		group_error(gs, id, env.id.len, MCPD_ERR_LIMIT, "mcpd's memory "
		    "budget (memory_budget_bytes %zu) is used up; try again "
		    "when clients have read their replies",
		    gs->mcpd->conf->memory_budget_bytes);
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
	else if (strcmp(method, "tasks/get") == 0 ||
	    strcmp(method, "tasks/result") == 0 ||
	    strcmp(method, "tasks/cancel") == 0 ||
	    strcmp(method, "tasks/list") == 0)
		group_tasks(gs, method, line, len, &env);
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
	if ((w = worker_find(gs->mcpd, member)) != NULL &&
	    !worker_removing(w))
		l->att = instance_attach_link(w, &group_link_peer, l);
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
	if (group_policy_reload(gs))
		changed = 1;
	if (strcmp(gs->sep, g->separator) != 0) {
		free(gs->sep);
		gs->sep = xstrdup(g->separator);
		group_names_reset(gs, GROUP_LIST_TOOLS);
		group_names_reset(gs, GROUP_LIST_PROMPTS);
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
		} else if (l->att == NULL && (w = worker_find(gs->mcpd,
		    l->member)) != NULL && !worker_removing(w)) {
			/* A server the file now defines. */
			l->att = instance_attach_link(w, &group_link_peer, l);
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
			gs->peer->close(gs->client,
			    "group removed by a reload");
		else
			group_session_update(gs, g);
	}
}

struct group_session *
group_attach(struct mcpd *mcpd, const struct conf_group *g,
    const struct group_peer *peer, void *c)
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
	gs->peer = peer;
	gs->client = c;
	gs->name = xstrdup(g->name);
	gs->version = PVERSION_NEWEST;	/* until its initialize */
	gs->sep = xstrdup(g->separator);
	gs->reqs = idtab_new();
	gs->by_client = hmap_new(hmap_random_seed());
	gs->op_ids = hmap_new(hmap_random_seed());
	gs->downs = hmap_new(hmap_random_seed());
	group_names_reset(gs, GROUP_LIST_TOOLS);
	group_names_reset(gs, GROUP_LIST_PROMPTS);
	group_uris_reset(gs);
	TAILQ_INIT(&gs->pending);
	TAILQ_INIT(&gs->ops);
	for (i = 0; i < FILTER_KINDS; i++)
		gs->filters[i] = filter_dup(g->filters[i]);
	group_policy_attach(gs);
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
		group_link_templates_clear(gs, gs->links[i]);
		free(gs->links[i]->member);
		free(gs->links[i]);
	}
	free(gs->links);
	while ((q = TAILQ_FIRST(&gs->pending)) != NULL)
		group_sent_free(gs, q);
	while ((op = TAILQ_FIRST(&gs->ops)) != NULL)
		group_op_free(gs, op);
	hmap_iter_init(gs->downs, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value))
		group_down_free(gs, value);
	hmap_free(gs->downs);
	hmap_free(gs->by_client);
	hmap_free(gs->op_ids);
	idtab_free(gs->reqs);
	group_names_free(gs, GROUP_LIST_TOOLS);
	group_names_free(gs, GROUP_LIST_PROMPTS);
	group_uris_free(gs);
	group_budget_end(gs);
	TAILQ_REMOVE(&gs->mcpd->groups->sessions, gs, entry);
	group_stat(gs->mcpd, gs->name)->sessions--;
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(gs->filters[i]);
	group_policy_detach(gs);
	free(gs->name);
	free(gs->sep);
	free(gs);
}

int
group_session_busy(const struct group_session *gs)
{
	return (!TAILQ_EMPTY(&gs->pending));
}

/* The client's session handler (client.h): control has the rest. */
static int
group_handler_line(struct client *c, void *gs, const char *line, size_t len)
{
	return (group_client_line(gs, line, len) == ROUTER_LINE_CONTROL);
}

static void
group_handler_close(struct client *c, void *gs)
{
	group_detach(gs, "client disconnected");
}

static int
group_handler_busy(void *gs)
{
	return (group_session_busy(gs));
}

/* JSON-RPC batches: for a client of the revision that has them. */
static int
group_handler_batches(void *arg)
{
	const struct group_session	*gs = arg;

	return (pversion_has(gs->version, PVERSION_BATCH));
}

static void
group_handler_cron(void *gs)
{
	group_check_limits(gs);
}

const struct client_handler group_client_handler = {
	.line = group_handler_line,
	.close = group_handler_close,
	.busy = group_handler_busy,
	.cron = group_handler_cron,
	.batches = group_handler_batches,
};

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
			w = worker_find(mcpd, g->servers[j]);
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
