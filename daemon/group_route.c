/*
 * group_route.c -- a group session's requests that go to one member, or
 * to each in turn: tools/call and prompts/get by the name the session gave
 * out, completion/complete by what its ref names, resources/read,
 * subscribe and unsubscribe by URI, and logging/setLevel to every member.
 *
 * A call names a tool the session listed, or one it would list under
 * exactly that name (group_find_name); the member gets its own name back
 * in params.name.  A resource goes to the member that listed its URI,
 * else to the first whose template matches, else to each member in group
 * order while they answer that it is not theirs (group_not_found); the
 * request is kept for that only while a member is left to try, and counts
 * in the session's holdings (group_budget.c).
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
#include "group_int.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "util.h"

#define GROUP_NAME_MAX		4096	/* a tool's or prompt's, in a call */
/* Calls are parsed to rename: a bound on the tree built for that. */
#define GROUP_PARSE_MAX_BYTES	(16 * 1024 * 1024)

/* Is a member after index from left to try, attached now? */
static int
group_resource_more(const struct group_session *gs, size_t from)
{
	size_t	 i;

	for (i = from; i < gs->nlinks; i++)
		if (gs->links[i]->att != NULL)
			return (1);
	return (0);
}

/* op's request is to go under gid now (ids are never used twice). */
static int
group_op_regid(struct group_session *gs, struct group_op *op, int64_t gid)
{
	struct envelope		 env;
	struct envelope_edit	 edit;
	char			 text[ENVELOPE_INT64_BYTES], *line;
	size_t			 erroff, len;

	if (envelope_scan(op->line, op->len, &env, &erroff) != 0)
		return (-1);
	edit.off = env.id.off;
	edit.len = env.id.len;
	edit.text = text;
	edit.text_len = envelope_print_int64(gid, text);
	if ((line = envelope_splice_dup(op->line, op->len, &edit, 1, &len)) == NULL)
		return (-1);
	group_op_drop_line(gs, op);
	op->line = line;
	op->len = len;
	group_budget_op_add(gs, op, len);
	op->gid = gid;
	return (0);
}

/*
 * Send op's resource request to the next member not tried; -1: none.  It
 * goes as op keeps it, under a fresh gid each time; it is let go when it
 * goes to the last member left, as nothing will need it again.  The
 * member's router may answer at once, so op is not touched after the
 * request is out (the answer may have freed it).
 */
int
group_resource_next(struct group_session *gs, struct group_op *op)
{
	struct group_sent	*q;
	char			*line;
	size_t			 i, len;

	for (i = op->next; op->line != NULL && i < gs->nlinks; i++) {
		if (!group_link_usable(gs, i))
			continue;
		op->next = i + 1;
		q = group_sent_new(gs, i, NULL, 0, op);
		if (q->gid != op->gid && group_op_regid(gs, op, q->gid) != 0) {
			group_sent_free(gs, q);
			break;
		}
		if (group_resource_more(gs, i + 1)) {
			router_client_line(gs->links[i]->att, op->line,
			    op->len);
			return (0);
		}
		line = group_op_take_line(gs, op, &len);
		router_client_line(gs->links[i]->att, line, len);
		free(line);
		return (0);
	}
	group_op_drop_line(gs, op);
	return (-1);
}

/*
 * Does a member's error say the resource is not its?  -32002 is MCP's
 * "resource not found"; servers built on the SDKs answer -32602 for a URI
 * they do not know, and -32601 when they have no resources at all.
 */
int
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
void
group_call(struct group_session *gs, int kind, const char *line, size_t len,
    const struct envelope *env)
{
	struct group_sent	*q;
	struct envelope_edit	 edits[2];
	cJSON			*js;
	const char		*rest;
	char			*name, *quoted, gid[ENVELOPE_INT64_BYTES];
	size_t			 link;
	int			 name_first, hidden;

	if ((name = envelope_string_dup(line, &env->p_name, GROUP_NAME_MAX,
	    NULL)) == NULL) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: name must be a string "
		    "of at most %d bytes", GROUP_NAME_MAX - 1);
		return;
	}
	if ((rest = group_find_name(gs, kind, name, &link, &hidden)) ==
	    NULL && hidden == 2) {
		group_policy_refuse(gs, line + env->id.off, env->id.len,
		    kind == GROUP_LIST_TOOLS ? "tool" : "prompt", name);
		router_refused_for(gs->links[link]->att, line, len, "policy",
		    MCPD_ERR_ACCESS_DENIED);
		free(name);
		return;
	}
	if (rest == NULL) {
		/* The wording a hidden name gets on a server, or not offered. */
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, hidden ? "unknown %s: %s" 
		    MCPD_FILTER_HIDDEN_NOTE : "unknown %s: %s (not offered by "
		    "any server of group %s)", kind == GROUP_LIST_TOOLS ?
		    "tool" : "prompt", name, gs->name);
		if (hidden)
			router_refused_for(gs->links[link]->att, line, len,
			    "filter", RPC_INVALID_PARAMS);
		free(name);
		return;
	}
	/* The member's own name, as JSON, where the group's was. */
	js = cJSON_CreateString(rest);
	quoted = rpc_print(js);
	cJSON_Delete(js);
	free(name);
	q = group_sent_new(gs, link, line + env->id.off, env->id.len, NULL);
	q->call = kind == GROUP_LIST_TOOLS;
	q->prompt = kind == GROUP_LIST_PROMPTS;
	name_first = env->p_name.off < env->id.off;
	edits[!name_first] = (struct envelope_edit){ env->p_name.off,
	    env->p_name.len, quoted, strlen(quoted) };
	edits[name_first] = (struct envelope_edit){ env->id.off, env->id.len,
	    gid, envelope_print_int64(q->gid, gid) };
	if (group_forward(gs, link, line, len, edits, 2) == -1)
		group_sent_refuse(gs, q);
	free(quoted);
}

void
group_call_reply(struct group_session *gs, struct group_sent *q,
    const char *line, size_t len, const struct envelope *env)
{
	const struct filter	*fs[2];
	struct envelope		 fenv[2];
	struct envelope_edit	 edit;
	const cJSON		*item, *type, *uri;
	cJSON			*result;
	char			*text[2] = { NULL, NULL };
	char			*spliced[2] = { NULL, NULL };
	size_t			 tlen, total, erroff, i;

	if (env->result.type == ENVELOPE_OBJECT &&
	    memmem(line, len, "resource_link", 13) != NULL) {
		/*
		 * What the group's filter hides is not linked either, nor
		 * what the client's policy does.
		 */
		fs[0] = gs->filters[FILTER_RESOURCES];
		fs[1] = group_policy_uris(gs);
		for (i = 0; i < 2; i++) {
			if (filter_links_text(fs[i], line + env->result.off,
			    env->result.len, &text[i], &tlen) !=
			    FILTER_CHANGED)
				continue;
			edit = (struct envelope_edit){ env->result.off,
			    env->result.len, text[i], tlen };
			spliced[i] = envelope_splice_dup(line, len, &edit, 1,
			    &total);
			if (spliced[i] != NULL && envelope_scan(spliced[i],
			    total, &fenv[i], &erroff) == 0) {
				line = spliced[i];
				len = total;
				env = &fenv[i];
			}
		}
		result = cJSON_ParseWithLength(line + env->result.off,
		    env->result.len);
		cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(
		    result, "content")) {
			type = cJSON_GetObjectItemCaseSensitive(item, "type");
			uri = cJSON_GetObjectItemCaseSensitive(item, "uri");
			if (cJSON_IsString(type) && strcmp(type->valuestring,
			    "resource_link") == 0 && cJSON_IsString(uri))
				group_remember_uri(gs, q->link,
				    uri->valuestring);
		}
		cJSON_Delete(result);
	}
	group_version_reply(gs, "tools/call", q->id, q->id_len, line, len,
	    env);
	group_sent_free(gs, q);
	for (i = 0; i < 2; i++) {
		free(text[i]);
		free(spliced[i]);
	}
}

/*
 * completion/complete: by the prompt (renamed back) or the resource
 * template its ref names.
 */
void
group_complete(struct group_session *gs, const char *line, size_t len,
    const struct envelope *env)
{
	cJSON		*msg, *ref, *type, *name, *uri;
	const char	*rest = NULL;
	char		*refname = NULL;
	ssize_t		 found;
	size_t		 link = 0;

	/*
	 * The ref is judged below as cJSON reads it, by the first of two
	 * members of one name, and a server may read the last: a ref with a
	 * member repeated is refused, as a server's own filter refuses it.
	 */
	if (filter_complete_ref(line + env->params.off, env->params.len,
	    &refname) == FILTER_REF_BAD) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: ref must be a "
		    "ref/prompt with a string name or a ref/resource with a "
		    "string uri (without \\u0000), each member once");
		return;
	}
	free(refname);
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
		    name->valuestring, &link, NULL)) != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(ref, "name",
			    cJSON_CreateString(rest));
	} else if (cJSON_IsString(type) && strcmp(type->valuestring,
	    "ref/resource") == 0 && cJSON_IsString(uri)) {
		if (filter_allows_template(gs->filters[FILTER_RESOURCES],
		    uri->valuestring) && filter_allows_template(
		    group_policy_uris(gs), uri->valuestring) &&
		    (found = group_route_uri(gs,
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

/* Every member answered an unlisted URI's (un)subscribe. */
static void
group_subscribe_done(struct group_session *gs, struct group_op *op)
{
	if (op->ok)
		group_result(gs, op->id, op->id_len, "{}");
	else
		group_error(gs, op->id, op->id_len, RPC_RESOURCE_NOT_FOUND,
		    "resource not found in group %s", gs->name);
}

/*
 * resources/subscribe or unsubscribe of a URI no member listed: to every
 * member, since more than one may take any URI and only the one that has
 * it will ever send its updates.
 */
static void
group_subscribe_all(struct group_session *gs, const char *line,
    const struct envelope *env, const char *uri)
{
	struct group_op	*op;
	cJSON		*params;
	char		 method[32];
	size_t		 i;

	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		return;
	op = group_op_new(gs, GROUP_OP_SUBSCRIBE, line + env->id.off,
	    env->id.len);
	op->done = group_subscribe_done;
	op->waiting = 1;
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->att == NULL)
			continue;
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "uri", uri);
		op->waiting++;
		group_own_request(gs, i, op, method, params);
	}
	group_op_part_done(gs, op);
}

/* resources/read, subscribe, unsubscribe: by URI. */

/*
 * A read the group refused itself (reason, code): recorded for the
 * member the URI goes to, if the session knows which (router.h).
 */
static void
group_refused_uri(struct group_session *gs, const char *line, size_t len,
    const char *uri, size_t n, const char *reason, int code)
{
	ssize_t	 link;

	if ((link = group_route_uri(gs, uri, n)) >= 0)
		router_refused_for(gs->links[link]->att, line, len, reason,
		    code);
}

void
group_resource(struct group_session *gs, const char *line, size_t len,
    const struct envelope *env)
{
	struct group_op		*op;
	struct group_sent	*q;
	struct envelope_edit	 edit;
	char			*uri, *why, gid[ENVELOPE_INT64_BYTES];
	ssize_t			 link;
	size_t			 i, n, attached = 0;

	if ((uri = envelope_string_dup(line, &env->p_uri, GROUP_URI_MAX,
	    &n)) == NULL) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_INVALID_PARAMS, "invalid params: uri must be a string "
		    "of at most %d bytes", GROUP_URI_MAX - 1);
		return;
	}
	if (!filter_allows_uri(gs->filters[FILTER_RESOURCES], uri)) {
		group_error(gs, line + env->id.off, env->id.len,
		    RPC_RESOURCE_NOT_FOUND, "resource not found: %s", uri);
		group_refused_uri(gs, line, len, uri, n, "filter",
		    RPC_RESOURCE_NOT_FOUND);
		free(uri);
		return;
	}
	if (!filter_allows_uri(group_policy_uris(gs), uri)) {
		group_policy_refuse(gs, line + env->id.off, env->id.len,
		    "resource", uri);
		group_refused_uri(gs, line, len, uri, n, "policy",
		    MCPD_ERR_ACCESS_DENIED);
		free(uri);
		return;
	}
	link = group_route_uri(gs, uri, n);
	if (link < 0 && !envelope_string_eq(line, &env->method,
	    "resources/read")) {
		group_subscribe_all(gs, line, env, uri);
		free(uri);
		return;
	}
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
	/*
	 * Nobody listed it: each member in group order, while not found.  The
	 * request is kept for that, within what the session may hold.
	 */
	for (i = 0; i < gs->nlinks; i++)
		if (gs->links[i]->att != NULL)
			attached++;
	if (attached > 1 && (why = group_budget_refuses(gs, len)) != NULL) {
		group_error(gs, line + env->id.off, env->id.len,
		    MCPD_ERR_LIMIT, "a resource no server of group %s listed "
		    "is tried on each in turn, which keeps the request of %zu "
		    "bytes: %s", gs->name, len, why);
		free(why);
		return;
	}
	op = group_op_new(gs, GROUP_OP_RESOURCE, line + env->id.off,
	    env->id.len);
	/* Under the gid its first member will get: one copy, the one kept. */
	op->gid = gs->next_gid + 1;
	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = gid;
	edit.text_len = envelope_print_int64(op->gid, gid);
	if ((op->line = envelope_splice_dup(line, len, &edit, 1, &op->len)) != NULL)
		group_budget_op_add(gs, op, op->len);
	if (group_resource_next(gs, op) == -1) {
		group_error(gs, op->id, op->id_len, RPC_RESOURCE_NOT_FOUND,
		    "resource not found in group %s", gs->name);
		group_op_free(gs, op);
	}
}

/* Every member answered setLevel: one that took it is enough. */
static void
group_level_done(struct group_session *gs, struct group_op *op)
{
	if (op->ok)
		group_result(gs, op->id, op->id_len, "{}");
	else
		group_error(gs, op->id, op->id_len,
		    MCPD_ERR_SERVER_UNAVAILABLE, "no server of group %s took "
		    "the level", gs->name);
}

/* logging/setLevel: to every member; answered once all have. */
void
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
	op->done = group_level_done;
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
