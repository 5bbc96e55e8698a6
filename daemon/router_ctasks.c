/*
 * router_ctasks.c -- tasks a client runs for the server (MCP 2025-11-25
 * task-augmented sampling/createMessage and elicitation/create), under
 * ids of mcpd's own.
 *
 * mcpd tells the server it runs these requests as tasks.  The one client
 * a request goes to (router_down.c chooses it) either does too, and gets
 * the request as it is, or does not, and gets it without "task": it
 * answers as for any request, and that answer goes to the server (a
 * receiver may always answer a task-augmented request plainly).
 *
 * - The CreateTaskResult a client answers with gets an id of mcpd's,
 *   kept (in a tasktab.h table of the router's) with the client's
 *   principal and the client's own id, which the server never sees.
 *   Entries are bounded per principal and in all; at a cap the server is
 *   told so, never a silent eviction.
 * - The server's tasks/get, tasks/result and tasks/cancel go to the
 *   task's client under its own id, and the answers come back under
 *   mcpd's; an id mcpd did not give is answered here with -32602, never
 *   passed to any client.  tasks/list is answered here.
 * - A client's notifications/tasks/status reaches the server for a task
 *   of that client's alone; any other is dropped.
 * - The tasks go with their client's principal, and all of them with
 *   the server's process.
 */
#include "config.h"

#include <sys/queue.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "mcpd.h"
#include "proto.h"
#include "pversion.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "tasktab.h"
#include "xmalloc.h"

#define RELATED_TASK	"io.modelcontextprotocol/related-task"
/*
 * The key a client's task is kept under: its principal, then its own
 * id, so that clients cannot take each other's ids.
 */
#define CTASK_KEY_PREFIX	17	/* 16 hex digits and ':' */

/* How a task method is known: by name, once, on its way in. */
enum router_task_op
router_task_method(const char *m, size_t len)
{
	static const struct {
		const char		*name;
		enum router_task_op	 op;
	} methods[] = {
		{ "tasks/get", ROUTER_TASK_GET },
		{ "tasks/result", ROUTER_TASK_RESULT },
		{ "tasks/cancel", ROUTER_TASK_CANCEL },
		{ "tasks/list", ROUTER_TASK_LIST },
	};
	size_t	 i;

	if (len < 9 || memcmp(m, "tasks/", 6) != 0)
		return (ROUTER_TASK_NONE);
	for (i = 0; i < nitems(methods); i++) {
		if (strlen(methods[i].name) == len &&
		    memcmp(methods[i].name, m, len) == 0)
			return (methods[i].op);
	}
	return (ROUTER_TASK_NONE);
}

void
router_ctasks_declare(cJSON *caps, int sampling, int elicitation)
{
	cJSON	*tasks, *requests;

	tasks = cJSON_AddObjectToObject(caps, "tasks");
	cJSON_AddObjectToObject(tasks, "list");
	cJSON_AddObjectToObject(tasks, "cancel");
	requests = cJSON_AddObjectToObject(tasks, "requests");
	if (sampling)
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(requests,
		    "sampling"), "createMessage");
	if (elicitation)
		cJSON_AddObjectToObject(cJSON_AddObjectToObject(requests,
		    "elicitation"), "create");
}

static uint64_t
ctask_principal(const struct attachment *a)
{
	return (a->peer->principal(a->peer_arg));
}

struct tasktab *
router_ctasks_table(struct router *r)
{
	const struct conf	*conf = r->mcpd->conf;

	if (r->ctasks == NULL)
		r->ctasks = tasktab_new(hmap_random_seed(),
		    conf->client_max_tasks, conf->max_tasks_per_server);
	return (r->ctasks);
}

static void
ctasks_account(struct router *r)
{
	budget_hold(r->mcpd, &r->ctasks_mem, r->ctasks != NULL ?
	    tasktab_mem(r->ctasks) : 0);
}

/* The key of the client's task id: malloc'd, NUL-terminated. */
static char *
ctask_key(uint64_t principal, const char *id)
{
	char	*key;

	xasprintf(&key, "%016" PRIx64 ":%s", principal, id);
	return (key);
}

/* The client's own id of t. */
static const char *
ctask_client_id(const struct task *t)
{
	return (t->up_len >= CTASK_KEY_PREFIX ? t->up_id + CTASK_KEY_PREFIX :
	    "");
}

/* Whether the request's params ask for a task. */
static int
ctask_asked(cJSON *msg)
{
	return (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "task")));
}

int
router_ctasks_outgoing(struct router *r, struct attachment *a,
    struct router_down *d, const char *line, size_t len, const char *method,
    char **plain)
{
	cJSON	*msg;
	int	 runs;

	(void)r;
	*plain = NULL;
	/* "task" is in it somewhere, unless spelled with an escape. */
	if (!bytes_has(line, len, "\"task\"", 6, 4) &&
	    !bytes_has(line, len, "\\u", 2, 0))
		return (0);
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (0);
	if (!ctask_asked(msg)) {
		cJSON_Delete(msg);
		return (0);
	}
	runs = (a->can & (strcmp(method, "sampling/createMessage") == 0 ?
	    PVERSION_CAN_TASK_SAMPLING : PVERSION_CAN_TASK_ELICIT)) != 0;
	if (runs) {
		d->task_aug = 1;
		cJSON_Delete(msg);
		return (0);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "task");
	*plain = rpc_print(msg);
	cJSON_Delete(msg);
	return (1);
}

static void
ctask_list(struct router *r, const char *id, size_t id_len, cJSON *params)
{
	const cJSON	*cursor;
	cJSON		*result = NULL;

	cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
	if (cursor == NULL || cJSON_IsString(cursor))
		result = tasktab_list(router_ctasks_table(r), TASKTAB_ANYONE,
		    cJSON_GetStringValue(cursor));
	if (result == NULL) {
		router_server_reply(r, id, id_len, NULL, RPC_INVALID_PARAMS,
		    "Invalid cursor");
		return;
	}
	router_server_reply(r, id, id_len, result, 0, NULL);
}

/* The server's request about task t, to the client that runs it. */
static void
ctask_forward(struct router *r, const char *id, size_t id_len,
    const char *method, enum router_task_op op, const struct task *t)
{
	struct attachment	*a;
	struct router_down	*d;
	cJSON			*params, *downid, *msg;
	char			*text;

	if ((a = router_principal_att(r, t->principal)) == NULL) {
		router_server_reply(r, id, id_len, NULL, RPC_INTERNAL_ERROR,
		    "the client that runs this task is not connected to mcpd "
		    "now");
		return;
	}
	if (hmap_get(r->downs_by_server, id, id_len) != NULL) {
		router_server_reply(r, id, id_len, NULL, RPC_INVALID_REQUEST,
		    "invalid request: this id is already in use by a request "
		    "in flight");
		return;
	}
	d = router_down_new(r, a, id, id_len);
	d->ctask = xstrdup(t->id);
	d->ctask_op = op;
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "taskId", ctask_client_id(t));
	downid = cJSON_CreateNumber((double)d->down_id);
	msg = rpc_make_request(downid, method, params);
	cJSON_Delete(downid);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_client(a, text, strlen(text), NULL, 0);
	free(text);
}

int
router_ctasks_server_request(struct router *r, const char *line, size_t len,
    const struct envelope *env, const char *method)
{
	const char		*id = router_text(line, &env->id);
	enum router_task_op	 op;
	cJSON			*msg, *params, *task_id;
	struct task		*t;

	op = router_task_method(method, strlen(method));
	if (op == ROUTER_TASK_NONE)
		return (0);
	/* Only the params, and only when small: never a tree of 16 MiB. */
	if (env->params.len > RPC_PARSE_MAX_BYTES) {
		router_server_reply(r, id, env->id.len, NULL,
		    RPC_INVALID_PARAMS, "invalid params: too large");
		return (1);
	}
	params = msg = env->params.type == ENVELOPE_OBJECT ?
	    cJSON_ParseWithLength(router_text(line, &env->params),
	    env->params.len) : NULL;
	if (op == ROUTER_TASK_LIST) {
		ctask_list(r, id, env->id.len, params);
		cJSON_Delete(msg);
		return (1);
	}
	task_id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (!cJSON_IsString(task_id))
		router_server_reply(r, id, env->id.len, NULL,
		    RPC_INVALID_PARAMS, "invalid params: expected "
		    "{\"taskId\": string}");
	else if (r->ctasks == NULL || (t = tasktab_find(r->ctasks,
	    TASKTAB_ANYONE, task_id->valuestring,
	    strlen(task_id->valuestring))) == NULL)
		router_server_reply(r, id, env->id.len, NULL,
		    RPC_INVALID_PARAMS, op == ROUTER_TASK_GET ?
		    "Failed to retrieve task: Task not found" :
		    "Task not found");
	else
		ctask_forward(r, id, env->id.len, method, op, t);
	cJSON_Delete(msg);
	return (1);
}

/* A client made a task for the server: kept, under mcpd's id. */
static int
ctask_created(struct router *r, struct attachment *a, cJSON *result,
    char **why)
{
	unsigned char		 rnd[TASKTAB_RANDOM_BYTES];
	enum tasktab_refusal	 refused;
	cJSON			*task, *id;
	struct task		*t;
	char			*key;

	task = cJSON_GetObjectItemCaseSensitive(result, "task");
	id = cJSON_GetObjectItemCaseSensitive(task, "taskId");
	if (!cJSON_IsString(id))
		return (0);	/* it answered plainly */
	if (strlen(id->valuestring) > TASKTAB_UP_ID_MAX - CTASK_KEY_PREFIX) {
		xasprintf(why, "a client through mcpd made a task with an id "
		    "longer than %d bytes", TASKTAB_UP_ID_MAX -
		    CTASK_KEY_PREFIX);
		return (-1);
	}
	key = ctask_key(ctask_principal(a), id->valuestring);
	arc4random_buf(rnd, sizeof rnd);
	t = tasktab_add(router_ctasks_table(r), ctask_principal(a), rnd, key,
	    strlen(key), task, clock_now_ms(), &refused);
	free(key);
	ctasks_account(r);
	if (t == NULL) {
		if (refused == TASKTAB_DUPLICATE || refused == TASKTAB_BAD_ID)
			xasprintf(why, "a client through mcpd made a task "
			    "with %s", refused == TASKTAB_DUPLICATE ? "an id it "
			    "gave already" : "an empty id");
		else
			xasprintf(why, "mcpd keeps no more tasks for %s (%s)",
			    refused == TASKTAB_FULL ? "this server" :
			    "the client it asked", refused == TASKTAB_FULL ?
			    "max_tasks_per_server" : "client_max_tasks");
		return (-1);
	}
	cJSON_SetValuestring(id, t->id);
	router_arm_sweep(r);
	return (1);
}

/* Each place the client's id stands in a string, mcpd's instead. */
static void
ctask_replace(cJSON *s, const struct task *t)
{
	char	*text;

	if (cJSON_IsString(s) && (text = task_id_replace(s->valuestring,
	    ctask_client_id(t), t->id)) != NULL) {
		cJSON_SetValuestring(s, text);
		free(text);
	}
}

/* The related task a result's _meta names: mcpd's id for it, or none. */
static void
ctask_meta(struct router *r, cJSON *obj, const struct attachment *a)
{
	cJSON		*meta, *id;
	struct task	*t = NULL;
	char		*key;

	meta = cJSON_GetObjectItemCaseSensitive(obj, "_meta");
	id = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(meta, RELATED_TASK), "taskId");
	if (id == NULL)
		return;
	if (cJSON_IsString(id) && r->ctasks != NULL) {
		key = ctask_key(ctask_principal(a), id->valuestring);
		t = tasktab_find_up(r->ctasks, key, strlen(key));
		free(key);
	}
	if (t != NULL)
		cJSON_SetValuestring(id, t->id);
	else
		cJSON_DeleteItemFromObjectCaseSensitive(meta, RELATED_TASK);
}

/* What the client's answer about t says of it, kept. */
static void
ctask_answered(struct router *r, struct router_down *d, struct task *t,
    cJSON *result, cJSON *error)
{
	cJSON	*id;

	if (error != NULL) {
		ctask_replace(cJSON_GetObjectItemCaseSensitive(error,
		    "message"), t);
		/* The client has forgotten it: so does mcpd. */
		if (d->ctask_op == ROUTER_TASK_GET &&
		    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
		    error, "code")) == RPC_INVALID_PARAMS)
			tasktab_remove(r->ctasks, t);
		return;
	}
	if (!cJSON_IsObject(result))
		return;
	switch (d->ctask_op) {
	case ROUTER_TASK_GET:
	case ROUTER_TASK_CANCEL:
		id = cJSON_GetObjectItemCaseSensitive(result, "taskId");
		if (cJSON_IsString(id))
			cJSON_SetValuestring(id, t->id);
		tasktab_update(r->ctasks, t, result);
		break;
	case ROUTER_TASK_RESULT:
		tasktab_set_read(r->ctasks, t);
		break;
	default:
		break;
	}
}

int
router_ctasks_response(struct attachment *a, struct router_down *d,
    const char *line, size_t len)
{
	struct router		*r = a->router;
	struct task		*t = NULL;
	cJSON			*msg, *result, *error;
	char			*text, *why = NULL;

	if ((msg = cJSON_ParseWithLength(line, len)) == NULL) {
		router_server_reply(r, d->server_id, d->server_id_len, NULL,
		    RPC_INTERNAL_ERROR, "a client through mcpd answered with a "
		    "message mcpd cannot read (it may name a task)");
		router_down_free(r, d);
		return (1);
	}
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	if (d->ctask != NULL && r->ctasks != NULL)
		t = tasktab_find(r->ctasks, ctask_principal(a), d->ctask,
		    strlen(d->ctask));
	if (d->task_aug && error == NULL &&
	    ctask_created(r, a, result, &why) < 0) {
		router_server_reply(r, d->server_id, d->server_id_len, NULL,
		    MCPD_ERR_LIMIT, why);
		free(why);
		cJSON_Delete(msg);
		router_down_free(r, d);
		return (1);
	}
	if (t != NULL)
		ctask_answered(r, d, t, result, error);
	ctask_meta(r, result, a);
	ctasks_account(r);
	cJSON_ReplaceItemInObjectCaseSensitive(msg, "id",
	    cJSON_CreateRaw(d->server_id));
	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_server(r, text, strlen(text), NULL, 0);
	free(text);
	router_down_free(r, d);
	return (1);
}

int
router_ctasks_notification(struct attachment *a, const char *line,
    size_t len, const char *method, size_t mlen)
{
	static const char	 status[] = "notifications/tasks/status";
	struct router		*r = a->router;
	struct task		*t = NULL;
	cJSON			*msg, *params, *id;
	char			*key, *text;

	if (mlen != sizeof status - 1 || memcmp(method, status, mlen) != 0)
		return (0);
	if (r->ctasks == NULL || (msg = cJSON_ParseWithLength(line, len)) ==
	    NULL)
		return (1);
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (cJSON_IsString(id)) {
		key = ctask_key(ctask_principal(a), id->valuestring);
		t = tasktab_find_up(r->ctasks, key, strlen(key));
		free(key);
	}
	if (t == NULL ||
	    r->up->availability(r->worker) != WORKER_AVAIL_READY) {
		cJSON_Delete(msg);
		return (1);	/* not a task of this client's for it */
	}
	cJSON_SetValuestring(id, t->id);
	tasktab_update(r->ctasks, t, params);
	ctasks_account(r);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_server(r, text, strlen(text), NULL, 0);
	free(text);
	return (1);
}

/* Taken over from the last mcpd: in the budget, and swept. */
void
router_ctasks_adopted(struct router *r)
{
	ctasks_account(r);
	router_arm_sweep(r);
}

void
router_ctasks_detach(struct attachment *a)
{
	struct router		*r = a->router;
	uint64_t		 principal = ctask_principal(a);

	if (r->ctasks == NULL ||
	    tasktab_count_principal(r->ctasks, principal) == 0 ||
	    !router_principal_leaves(a))
		return;
	tasktab_drop_principal(r->ctasks, principal);
	ctasks_account(r);
}

void
router_ctasks_sweep(struct router *r, uint64_t now)
{
	if (r->ctasks != NULL && tasktab_expire(r->ctasks, now) > 0)
		ctasks_account(r);
}

void
router_ctasks_free(struct router *r)
{
	if (r->ctasks == NULL)
		return;
	tasktab_free(r->ctasks);
	r->ctasks = NULL;
	ctasks_account(r);
}
