/*
 * group_tasks.c -- a group session's tasks.  A task lives in the router
 * of the member that made it, under mcpd's id, owned by the session's
 * client (the links carry its principal: router.h), so:
 *
 * - tasks/get, tasks/result and tasks/cancel go to the member whose
 *   router holds the id for this client; an id no member holds goes to
 *   the first attached member, whose router answers it as it answers any
 *   task a client does not own: a group tells no more than a server.
 * - tasks/list is answered here, from every member's tasks of this
 *   client in group order, with the group's own cursor: the id of the
 *   last task on the page before.
 * - The group declares tasks where a member does (group_tasks_caps).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "group_int.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "tasktab.h"
#include "worker.h"

/* Every member's tasks of this client, in group order (an array). */
static cJSON *
group_tasks_all(struct group_session *gs)
{
	cJSON	*all, *some;
	size_t	 i;

	all = cJSON_CreateArray();
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->gone || gs->links[i]->att == NULL)
			continue;
		some = router_tasks_of(gs->links[i]->att);
		while (cJSON_GetArraySize(some) > 0)
			cJSON_AddItemToArray(all, cJSON_DetachItemFromArray(
			    some, 0));
		cJSON_Delete(some);
	}
	return (all);
}

static void
group_tasks_list(struct group_session *gs, const char *id, size_t id_len,
    const cJSON *params)
{
	const cJSON	*cursor, *t;
	cJSON		*all, *result, *page;
	char		*text;
	int		 i, n, from = 0;

	cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
	all = group_tasks_all(gs);
	n = cJSON_GetArraySize(all);
	if (cursor != NULL) {
		from = -1;
		for (i = 0; cJSON_IsString(cursor) && i < n; i++) {
			t = cJSON_GetArrayItem(all, i);
			if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(t,
			    "taskId")), cursor->valuestring) == 0)
				from = i + 1;
		}
		if (from == -1) {
			cJSON_Delete(all);
			group_error(gs, id, id_len, RPC_INVALID_PARAMS,
			    "Invalid cursor");
			return;
		}
	}
	result = cJSON_CreateObject();
	page = cJSON_AddArrayToObject(result, "tasks");
	for (i = from; i < n && i < from + TASKTAB_PAGE; i++)
		cJSON_AddItemToArray(page, cJSON_Duplicate(
		    cJSON_GetArrayItem(all, i), 1));
	if (i < n)
		cJSON_AddStringToObject(result, "nextCursor",
		    cJSON_GetStringValue(cJSON_GetObjectItem(
		    cJSON_GetArrayItem(all, i - 1), "taskId")));
	cJSON_Delete(all);
	text = rpc_print(result);
	cJSON_Delete(result);
	group_result(gs, id, id_len, text);
	free(text);
}

void
group_tasks(struct group_session *gs, const char *method, const char *line,
    size_t len, const struct envelope *env)
{
	struct envelope_edit	 edit;
	struct group_sent	*q;
	const char		*id = line + env->id.off;
	const cJSON		*task_id;
	cJSON			*params;
	char			 gid[ENVELOPE_INT64_BYTES];
	size_t			 i, link = gs->nlinks;

	params = env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	if (strcmp(method, "tasks/list") == 0) {
		group_tasks_list(gs, id, env->id.len, params);
		cJSON_Delete(params);
		return;
	}
	task_id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	for (i = 0; i < gs->nlinks; i++) {
		if (gs->links[i]->gone || gs->links[i]->att == NULL)
			continue;
		/* The first attached, unless another holds the task. */
		if (link == gs->nlinks)
			link = i;
		if (cJSON_IsString(task_id) && router_task_owned(
		    gs->links[i]->att, task_id->valuestring)) {
			link = i;
			break;
		}
	}
	cJSON_Delete(params);
	if (link == gs->nlinks) {
		group_error(gs, id, env->id.len, MCPD_ERR_SERVER_UNAVAILABLE,
		    "no server of group %s is attached", gs->name);
		return;
	}
	q = group_sent_new(gs, link, id, env->id.len, NULL);
	edit = (struct envelope_edit){ env->id.off, env->id.len, gid,
	    envelope_print_int64(q->gid, gid) };
	if (group_forward(gs, link, line, len, &edit, 1) == -1) {
		group_error(gs, q->id, q->id_len, MCPD_ERR_SERVER_UNAVAILABLE,
		    "server %s of group %s is not configured",
		    gs->links[link]->member, gs->name);
		group_sent_free(gs, q);
	}
}

/*
 * The tasks capability of the group: list (answered here), cancel and the
 * task-augmented requests where some member declares them.
 */
void
group_tasks_caps(const cJSON *member_caps, cJSON *caps)
{
	const cJSON	*mt, *calls;
	cJSON		*t, *req, *tools;

	mt = cJSON_GetObjectItemCaseSensitive(member_caps, "tasks");
	if (!cJSON_IsObject(mt))
		return;
	if ((t = cJSON_GetObjectItemCaseSensitive(caps, "tasks")) == NULL) {
		t = cJSON_AddObjectToObject(caps, "tasks");
		cJSON_AddObjectToObject(t, "list");
	}
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(mt, "cancel")) &&
	    cJSON_GetObjectItemCaseSensitive(t, "cancel") == NULL)
		cJSON_AddObjectToObject(t, "cancel");
	calls = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    mt, "requests"), "tools"), "call");
	if (!cJSON_IsObject(calls))
		return;
	if ((req = cJSON_GetObjectItemCaseSensitive(t, "requests")) == NULL)
		req = cJSON_AddObjectToObject(t, "requests");
	if ((tools = cJSON_GetObjectItemCaseSensitive(req, "tools")) == NULL)
		tools = cJSON_AddObjectToObject(req, "tools");
	if (cJSON_GetObjectItemCaseSensitive(tools, "call") == NULL)
		cJSON_AddObjectToObject(tools, "call");
}
