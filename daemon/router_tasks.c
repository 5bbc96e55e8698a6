/*
 * router_tasks.c -- tasks (MCP 2025-11-25) under ids of mcpd's own.
 *
 * A server cannot tell mcpd's clients apart: over one session it would
 * show any of them every task.  So the router keeps the tasks itself
 * (tasktab.h), each owned by the principal of the client whose call made
 * it, and the server's task ids never reach a client:
 *
 * - A tools/call with "task" goes up as it is; the CreateTaskResult that
 *   answers it gets an id of mcpd's, recorded for the caller's principal.
 *   A principal at its cap (client_max_tasks) or a server at its own
 *   (max_tasks_per_server) is refused before anything is sent.
 * - tasks/get, tasks/result and tasks/cancel of a task the caller does
 *   not own are answered here with -32602, exactly as for an id that
 *   never existed, and never forwarded: neither the server's wording nor
 *   its timing tells the two apart.  Those of its own go up under the
 *   server's id, and their answers come back with mcpd's.
 * - tasks/list is answered here, from the caller's own tasks, with
 *   mcpd's cursors.
 * - notifications/tasks/status goes to the owner alone, or nowhere when
 *   mcpd does not know the task (never adopted); a request of the
 *   server's whose _meta names a task goes to the task's owner.
 * - tasks/result waits as long as the task may run (its ttl, capped),
 *   not request_timeout_ms; a client that gives up on it leaves the task
 *   running.  A server with a task whose result nobody has fetched yet
 *   (running, or ended but unread; not cancelled) is busy: an idle stop
 *   would lose it.
 * - A tool the server runs only as a task (execution.taskSupport
 *   "required" in a tools/list result), called without one by a client
 *   that does not do tasks, is run as a task for it: the call goes up
 *   with "task", and the task's result answers the plain call.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "handover.h"
#include "hmap.h"
#include "mcpd.h"
#include "principal.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "tasktab.h"
#include "xmalloc.h"

#define RELATED_TASK	"io.modelcontextprotocol/related-task"
/* Whether a line may name a task: by the key's '/', rare in messages. */
#define RELATED_TASK_IN(line, len) \
	bytes_has((line), (len), RELATED_TASK, sizeof RELATED_TASK - 1, 23)

static uint64_t
router_task_principal(const struct attachment *a)
{
	return (a->peer->principal(a->peer_arg));
}

/* The table, made when the server's first task is. */
static struct tasktab *
router_tasks_table(struct router *r)
{
	const struct conf	*conf = r->mcpd->conf;

	if (r->tasks == NULL)
		r->tasks = tasktab_new(hmap_random_seed(),
		    conf->client_max_tasks, conf->max_tasks_per_server);
	return (r->tasks);
}

/* What the table holds, in mcpd's memory budget. */
static void
router_tasks_account(struct router *r)
{
	budget_hold(r->mcpd, &r->tasks_mem, r->tasks != NULL ?
	    tasktab_mem(r->tasks) : 0);
}

/* The answer to a task id the caller does not own, or that never was. */
static void
router_task_unknown(struct attachment *a, const char *id, size_t id_len,
    enum router_task_op op)
{
	router_client_error(a, id, id_len, RPC_INVALID_PARAMS, "%s",
	    op == ROUTER_TASK_GET ? "Failed to retrieve task: Task not found" :
	    "Task not found");
}

static const char *
router_task_cap_text(enum tasktab_refusal why)
{
	return (why == TASKTAB_FULL ? "max_tasks_per_server" :
	    "client_max_tasks");
}

/* Refused before it is sent: a principal or a server at its cap. */
static int
router_task_room(struct attachment *a, const char *id, size_t id_len)
{
	struct router		*r = a->router;
	const struct conf	*conf = r->mcpd->conf;
	enum tasktab_refusal	 why;

	why = tasktab_room(router_tasks_table(r), router_task_principal(a));
	if (why == TASKTAB_OK)
		return (1);
	/* An ended task is kept for its result, until its time is up. */
	router_client_error(a, id, id_len, MCPD_ERR_LIMIT, "%s keeps no more "
	    "tasks for %s (%s %u): a task, running or ended, is kept until "
	    "its time to live is up; try again when one has expired",
	    r->up->name(r->worker), why == TASKTAB_FULL ? "its clients" :
	    "this client", router_task_cap_text(why), why == TASKTAB_FULL ?
	    conf->max_tasks_per_server : conf->client_max_tasks);
	return (0);
}

/*
 * How long tasks/result may wait: until the task's time is up, at most
 * TASKTAB_TTL_MAX_MS, and never less than request_timeout_ms.
 */
static uint64_t
router_task_wait_ms(const struct router *r, const struct task *t,
    uint64_t now)
{
	uint64_t	 min = r->up->conf(r->worker)->request_timeout_ms;

	if (t->expires_ms <= now + min)
		return (min);
	return (t->expires_ms - now);
}

/*
 * A request for one of the caller's tasks (client id id), sent under the
 * server's id: the rest of its params (and _meta) stay behind.
 */
static struct router_pending *
router_task_forward(struct attachment *a, const char *id, size_t id_len,
    uint64_t id_hash, const char *method, size_t mlen, enum router_task_op op,
    const struct task *t)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	cJSON			*upid, *params;
	uint64_t		 now = clock_now_ms();

	p = router_pending_new(r, ROUTER_PENDING_CLIENT, a, id, id_len,
	    id_hash, method, mlen);
	a->last_request_us = p->started_us;
	p->task_op = op;
	p->task_id = xstrdup(t->id);
	if (op == ROUTER_TASK_RESULT)
		router_pending_long(r, p, now + router_task_wait_ms(r, t, now));
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "taskId", t->up_id);
	upid = cJSON_CreateNumber((double)p->upstream_id);
	/* p->method: the name with a NUL after it. */
	router_send_server_json(r, rpc_make_request(upid, p->method, params));
	cJSON_Delete(upid);
	return (p);
}

/* The caller's page of tasks (cursor: NULL for the first), answered. */
static void
router_task_list_answer(struct attachment *a, const char *id, size_t id_len,
    const char *cursor)
{
	struct router	*r = a->router;
	cJSON		*result;
	char		*text;

	result = tasktab_list(router_tasks_table(r), router_task_principal(a),
	    cursor);
	if (result == NULL) {
		router_client_error(a, id, id_len, RPC_INVALID_PARAMS,
		    "Invalid cursor");
		return;
	}
	text = rpc_print(result);
	cJSON_Delete(result);
	router_client_result(a, id, id_len, text, strlen(text));
	free(text);
}

/*
 * tasks/list: the statuses of the tasks on the page that have not ended
 * are asked of the server first (tasks/get, one after the other: a task
 * on the page at a time, router_task_refreshed), then the page answered.
 */
static void
router_task_list_next(struct attachment *a, const char *id, size_t id_len,
    uint64_t id_hash, const char *cursor, const struct task *after)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	struct task		*t;

	t = tasktab_next_running(router_tasks_table(r),
	    router_task_principal(a), cursor, after);
	if (t == NULL) {
		router_task_list_answer(a, id, id_len, cursor);
		return;
	}
	p = router_task_forward(a, id, id_len, id_hash, "tasks/get",
	    strlen("tasks/get"), ROUTER_TASK_REFRESH, t);
	if (cursor != NULL)
		p->task_cursor = xstrdup(cursor);
}

static void
router_task_list(struct attachment *a, const char *line,
    const struct envelope *env, uint64_t id_hash, const cJSON *params)
{
	struct router	*r = a->router;
	const cJSON	*cursor;
	const char	*c;

	cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
	c = cJSON_GetStringValue(cursor);
	if ((cursor != NULL && !cJSON_IsString(cursor)) || (c != NULL &&
	    tasktab_find(router_tasks_table(r), router_task_principal(a), c,
	    strlen(c)) == NULL)) {
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, RPC_INVALID_PARAMS, "Invalid cursor");
		return;
	}
	router_task_list_next(a, router_text(line, &env->id), env->id.len,
	    id_hash, c, NULL);
}

/*
 * The server's answer to a tasks/get of a tasks/list's: kept, and the
 * next task on the page asked for, or the page answered.
 */
static void
router_task_refreshed(struct router *r, struct router_pending *p,
    struct task *t, cJSON *result, cJSON *error)
{
	struct attachment	*a = p->att;
	char			*id, *cursor;
	size_t			 id_len = p->id_len;
	uint64_t		 id_hash = p->id_hash;

	if (t != NULL && error == NULL && cJSON_IsObject(result))
		tasktab_update(r->tasks, t, result);
	/* The server has forgotten it: so does mcpd. */
	if (t != NULL && error != NULL && cJSON_GetNumberValue(
	    cJSON_GetObjectItemCaseSensitive(error, "code")) ==
	    RPC_INVALID_PARAMS) {
		tasktab_remove(r->tasks, t);
		t = NULL;
	}
	router_tasks_account(r);
	id = xstrndup(p->id, p->id_len);
	cursor = p->task_cursor != NULL ? xstrdup(p->task_cursor) : NULL;
	router_record(r, p, error != NULL ? ROUTER_OUTCOME_ERROR :
	    ROUTER_OUTCOME_OK, NULL);
	router_pending_destroy(r, p);
	/* A task gone from the page ends the asking: the page as it is. */
	if (t == NULL)
		router_task_list_answer(a, id, id_len, cursor);
	else
		router_task_list_next(a, id, id_len, id_hash, cursor, t);
	free(id);
	free(cursor);
}

/*
 * A plain call of a tool the server runs only as a task: sent with a
 * task, whose result will answer it (router_task_created).  0 for any
 * other call, which goes up as it is.
 */
static int
router_task_run(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, uint64_t id_hash, const char *method,
    size_t mlen)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	cJSON			*msg, *params;
	char			 name[256], *text;

	if (r->task_required == NULL || hmap_count(r->task_required) == 0 ||
	    envelope_string_copy(line, &env->p_name, name, sizeof name) < 0 ||
	    hmap_get(r->task_required, name, strlen(name)) == NULL)
		return (0);
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (0);
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (!cJSON_IsObject(params)) {
		cJSON_Delete(msg);
		return (0);
	}
	if (!router_task_room(a, router_text(line, &env->id), env->id.len)) {
		cJSON_Delete(msg);
		return (1);
	}
	cJSON_AddObjectToObject(params, "task");
	p = router_pending_new(r, ROUTER_PENDING_CLIENT, a,
	    router_text(line, &env->id), env->id.len, id_hash, method, mlen);
	a->last_request_us = p->started_us;
	p->task_op = ROUTER_TASK_RUN;
	cJSON_ReplaceItemInObjectCaseSensitive(msg, "id",
	    cJSON_CreateNumber((double)p->upstream_id));
	/*
	 * Of its _meta only a progress token goes up, mcpd's (the task
	 * keeps the client's, router_task_created); the rest stays.
	 */
	cJSON_DeleteItemFromObjectCaseSensitive(params, "_meta");
	if (env->progress_token.type == ENVELOPE_STRING ||
	    env->progress_token.type == ENVELOPE_NUMBER) {
		p->token = xstrndup(router_text(line, &env->progress_token),
		    env->progress_token.len);
		p->token_len = env->progress_token.len;
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(params,
		    "_meta"), "progressToken", (double)p->upstream_id);
	}
	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_server(r, text, strlen(text), NULL, 0);
	free(text);
	return (1);
}

void
router_tasks_session(struct router *r)
{
	const char	*init = r->up->init_result_text(r->worker);
	cJSON		*result;
	const cJSON	*calls;

	if (init == NULL || strstr(init, "\"tasks\"") == NULL ||
	    (result = cJSON_Parse(init)) == NULL)
		return;
	calls = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    result, "capabilities"), "tasks"), "requests"), "tools"), "call");
	if (cJSON_IsObject(calls))
		router_internal_request(r, "tools/list", NULL);
	cJSON_Delete(result);
}

/* Which tools of a tools/list result the server runs only as tasks. */
void
router_tasks_tools(struct router *r, const char *line, size_t len)
{
	const cJSON	*tool, *name, *support;
	cJSON		*msg;

	/* Most servers have none: the list is not read for them. */
	if (memmem(line, len, "taskSupport", 11) == NULL &&
	    (r->task_required == NULL || hmap_count(r->task_required) == 0))
		return;
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return;
	if (r->task_required == NULL)
		r->task_required = hmap_new(hmap_random_seed());
	cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "result"), "tools")) {
		name = cJSON_GetObjectItemCaseSensitive(tool, "name");
		support = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(tool, "execution"),
		    "taskSupport");
		if (!cJSON_IsString(name) || strlen(name->valuestring) >= 256)
			continue;
		if (cJSON_IsString(support) &&
		    strcmp(support->valuestring, "required") == 0) {
			if (hmap_count(r->task_required) < TASKTAB_PAGE * 20)
				hmap_put(r->task_required, name->valuestring,
				    strlen(name->valuestring), (void *)1);
		} else
			hmap_del(r->task_required, name->valuestring,
			    strlen(name->valuestring));
	}
	cJSON_Delete(msg);
}

int
router_tasks_request(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, uint64_t id_hash, const char *method,
    size_t mlen)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	enum router_task_op	 op;
	const cJSON		*params, *task_id;
	cJSON			*msg;
	struct task		*t;

	op = router_task_method(method, mlen);
	if (op == ROUTER_TASK_NONE) {
		if (mlen != sizeof "tools/call" - 1 ||
		    memcmp(method, "tools/call", mlen) != 0)
			return (0);
		/*
		 * A call made a task: "task" is in it somewhere, unless the
		 * key is spelled with an escape, which a server reads alike.
		 */
		if (!bytes_has(line, len, "\"task\"", 6, 4) &&
		    !bytes_has(line, len, "\\u", 2, 0))
			return (router_task_run(a, line, len, env, id_hash,
			    method, mlen));
		msg = cJSON_ParseWithLength(line, len);
		params = cJSON_GetObjectItemCaseSensitive(msg, "params");
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(params,
		    "task"))) {
			cJSON_Delete(msg);
			return (router_task_run(a, line, len, env, id_hash,
			    method, mlen));
		}
		cJSON_Delete(msg);
		if (!router_task_room(a, router_text(line, &env->id),
		    env->id.len))
			return (1);
		p = router_client_request(a, line, len, env, id_hash, method,
		    mlen);
		p->task_op = ROUTER_TASK_CREATE;
		return (1);
	}

	msg = cJSON_ParseWithLength(line, len);
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (op == ROUTER_TASK_LIST) {
		router_task_list(a, line, env, id_hash, params);
		cJSON_Delete(msg);
		return (1);
	}
	task_id = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (!cJSON_IsString(task_id)) {
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"taskId\": string}");
		cJSON_Delete(msg);
		return (1);
	}
	t = r->tasks == NULL ? NULL : tasktab_find(r->tasks,
	    router_task_principal(a), task_id->valuestring,
	    strlen(task_id->valuestring));
	if (t == NULL)
		router_task_unknown(a, router_text(line, &env->id),
		    env->id.len, op);
	else
		(void)router_task_forward(a, router_text(line, &env->id),
		    env->id.len, id_hash, method, mlen, op, t);
	cJSON_Delete(msg);
	return (1);
}

/* Each place the server's id stands in a string, mcpd's instead. */
static void
router_task_replace(cJSON *s, const struct task *t)
{
	char	*text;

	if (cJSON_IsString(s) && (text = task_id_replace(s->valuestring,
	    t->up_id, t->id)) != NULL) {
		cJSON_SetValuestring(s, text);
		free(text);
	}
}

/* Set a member that holds a task id to mcpd's. */
static void
router_task_set_id(cJSON *obj, const char *key, const char *mine)
{
	cJSON	*item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsString(item))
		cJSON_SetValuestring(item, mine);
}

/*
 * The related task an object's _meta names (the params of a request or
 * notification, the result of a reply): -1 when it names none; else its
 * id member in *idp, and the task in *tp (NULL: one mcpd does not hold).
 */
static int
router_task_meta(struct router *r, cJSON *obj, cJSON **idp, struct task **tp)
{
	cJSON	*meta, *rel, *id;

	meta = cJSON_GetObjectItemCaseSensitive(obj, "_meta");
	if ((rel = cJSON_GetObjectItemCaseSensitive(meta, RELATED_TASK)) ==
	    NULL)
		return (-1);
	id = cJSON_GetObjectItemCaseSensitive(rel, "taskId");
	*idp = id;
	*tp = cJSON_IsString(id) && r->tasks != NULL ? tasktab_find_up(
	    r->tasks, id->valuestring, strlen(id->valuestring)) : NULL;
	return (0);
}

/*
 * What a client may see of the task an object's _meta names: mcpd's id
 * when the task is principal's, else nothing (the member is taken out):
 * a server's id never reaches a client, nor another's task.
 */
static void
router_task_meta_for(struct router *r, cJSON *obj, uint64_t principal)
{
	struct task	*t;
	cJSON		*id;

	if (router_task_meta(r, obj, &id, &t) != 0)
		return;
	if (t != NULL && t->principal == principal)
		cJSON_SetValuestring(id, t->id);
	else
		cJSON_DeleteItemFromObjectCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(obj, "_meta"),
		    RELATED_TASK);
}

/* The task has ended so (unless it had already): its kept Task says so. */
static void
router_task_ended(struct router *r, struct task *t, const char *status)
{
	cJSON	*obj;

	if (task_status_ended(t->status) || (obj = cJSON_Parse(t->last)) ==
	    NULL)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(obj, "status");
	cJSON_AddStringToObject(obj, "status", status);
	tasktab_update(r->tasks, t, obj);
	cJSON_Delete(obj);
}

/* A server made a task for the caller: record it, under mcpd's id. */
static int
router_task_created(struct router *r, struct router_pending *p, cJSON *msg)
{
	struct attachment	*a = p->att;
	unsigned char		 rnd[TASKTAB_RANDOM_BYTES];
	enum tasktab_refusal	 why;
	cJSON			*result, *task, *up, *params;
	struct task		*t;

	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	task = cJSON_GetObjectItemCaseSensitive(result, "task");
	up = cJSON_GetObjectItemCaseSensitive(task, "taskId");
	if (!cJSON_IsString(up))
		return (0);	/* run as a plain call: its result as it is */
	arc4random_buf(rnd, sizeof rnd);
	t = tasktab_add(router_tasks_table(r), router_task_principal(a), rnd,
	    up->valuestring, strlen(up->valuestring), task, clock_now_ms(),
	    &why);
	router_tasks_account(r);
	if (t == NULL) {
		/* Others' calls took the last places meanwhile: let it go. */
		router_client_error(a, p->id, p->id_len, MCPD_ERR_LIMIT,
		    "%s made a task mcpd cannot keep (%s): it was cancelled",
		    r->up->name(r->worker), why == TASKTAB_BAD_ID ? "an id "
		    "mcpd does not take" : why == TASKTAB_DUPLICATE ? "an id "
		    "it gave already" : router_task_cap_text(why));
		if (why != TASKTAB_DUPLICATE) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "taskId",
			    up->valuestring);
			router_internal_request(r, "tasks/cancel", params);
		}
		return (-1);
	}
	cJSON_SetValuestring(up, t->id);
	if (p->token != NULL)
		tasktab_set_progress(r->tasks, t, p->upstream_id, p->token,
		    p->token_len);
	return (1);
}

void
router_tasks_progress(struct router *r, const char *line, size_t len,
    const struct envelope *env, int64_t token, uint64_t principal)
{
	struct envelope_edit	 edit;
	struct attachment	*a;
	struct task		*t;

	if (r->tasks == NULL ||
	    (t = tasktab_find_progress(r->tasks, token)) == NULL ||
	    (principal != 0 && t->principal != principal) ||
	    (a = router_principal_att(r, t->principal)) == NULL)
		return;
	edit.off = env->p_progress_token.off;
	edit.len = env->p_progress_token.len;
	edit.text = t->progress_token;
	edit.text_len = t->progress_len;
	router_send_client(a, line, len, &edit, 1);
}

/*
 * The task made for a plain call (router_task_run): now its result, which
 * answers the call under the client's own id.  1 once taken over.
 */
static int
router_task_run_result(struct router *r, struct router_pending *p,
    cJSON *msg)
{
	struct attachment	*a = p->att;
	struct task		*t;
	char			*client_id;
	size_t			 id_len;
	uint64_t		 id_hash = p->id_hash;
	int			 made;

	if ((made = router_task_created(r, p, msg)) <= 0) {
		if (made < 0) {
			router_record(r, p, ROUTER_OUTCOME_ERROR,
			    "task refused");
			router_pending_destroy(r, p);
			return (1);
		}
		return (0);
	}
	t = tasktab_find(r->tasks, router_task_principal(a),
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    msg, "result"), "task"), "taskId")), TASKTAB_ID_LEN);
	if (t == NULL)
		return (0);
	t->hidden = 1;
	client_id = xstrndup(p->id, p->id_len);
	id_len = p->id_len;
	router_record(r, p, ROUTER_OUTCOME_OK, NULL);
	router_pending_destroy(r, p);
	/* The same client id, now waiting for the task's result. */
	(void)router_task_forward(a, client_id, id_len, id_hash, "tasks/result",
	    strlen("tasks/result"), ROUTER_TASK_RESULT, t);
	free(client_id);
	return (1);
}

int
router_tasks_reply(struct router *r, struct router_pending *p,
    const char *line, size_t len)
{
	struct attachment	*a = p->att;
	cJSON			*msg, *result, *error, *id;
	struct task		*t = NULL;
	char			*text;
	int			 done;

	if ((msg = cJSON_ParseWithLength(line, len)) == NULL) {
		/* Not passed on as it is: it may hold the server's ids. */
		router_client_error(a, p->id, p->id_len, RPC_INTERNAL_ERROR,
		    "server %s answered %s with a message mcpd cannot read "
		    "(it may name a task)", r->up->name(r->worker), p->method);
		router_record(r, p, ROUTER_OUTCOME_ERROR, "unreadable reply");
		router_pending_destroy(r, p);
		return (1);
	}
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	if (p->task_id != NULL && r->tasks != NULL)
		t = tasktab_find(r->tasks, router_task_principal(a),
		    p->task_id, strlen(p->task_id));
	switch (p->task_op) {
	case ROUTER_TASK_REFRESH:
		router_task_refreshed(r, p, t, result, error);
		cJSON_Delete(msg);
		return (1);
	case ROUTER_TASK_RUN:
		if (error == NULL && router_task_run_result(r, p, msg)) {
			cJSON_Delete(msg);
			return (1);
		}
		cJSON_Delete(msg);
		return (0);	/* as the server answered */
	case ROUTER_TASK_CREATE:
		if (error != NULL || (done = router_task_created(r, p,
		    msg)) == 0) {
			cJSON_Delete(msg);
			return (0);
		}
		if (done < 0) {
			router_record(r, p, ROUTER_OUTCOME_ERROR,
			    "task refused");
			router_pending_destroy(r, p);
			cJSON_Delete(msg);
			return (1);
		}
		break;
	case ROUTER_TASK_GET:
	case ROUTER_TASK_CANCEL:
		if (cJSON_IsObject(result)) {
			router_task_set_id(result, "taskId", p->task_id);
			if (t != NULL)
				tasktab_update(r->tasks, t, result);
		}
		break;
	case ROUTER_TASK_RESULT:
		/* A result comes once the task has ended, and is now read. */
		if (cJSON_IsObject(result) && t != NULL) {
			router_task_ended(r, t, cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(result, "isError")) ?
			    "failed" : "completed");
			tasktab_set_read(r->tasks, t);
		}
		break;
	default:
		break;
	}
	if (error != NULL && t != NULL) {
		router_task_replace(cJSON_GetObjectItemCaseSensitive(error,
		    "message"), t);
		/* The server has forgotten it: so does mcpd. */
		if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
		    error, "code")) == RPC_INVALID_PARAMS &&
		    p->task_op == ROUTER_TASK_GET) {
			tasktab_remove(r->tasks, t);
			t = NULL;
		}
	}
	/*
	 * A task made for a plain call ends with its answer: the call's
	 * result names none, and mcpd forgets it (it counts no more).
	 */
	if (t != NULL && t->hidden && p->task_op == ROUTER_TASK_RESULT) {
		tasktab_remove(r->tasks, t);
		t = NULL;
	}
	/* Whatever task its _meta names, as this client may see it. */
	router_task_meta_for(r, result, router_task_principal(a));
	router_tasks_account(r);
	/* The client's own id, byte for byte. */
	id = cJSON_CreateRaw(p->id);
	cJSON_ReplaceItemInObjectCaseSensitive(msg, "id", id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	router_send_client(a, text, strlen(text), NULL, 0);
	free(text);
	router_record(r, p, error != NULL ? ROUTER_OUTCOME_ERROR :
	    ROUTER_OUTCOME_OK, NULL);
	router_pending_destroy(r, p);
	return (1);
}

/* A status of the server's for a task: its owner's, or nobody's. */
void
router_tasks_status(struct router *r, const char *line, size_t len)
{
	struct attachment	*a;
	struct task		*t;
	cJSON			*msg, *params, *up;
	char			*text;
	uint64_t		 principal;

	if (r->tasks == NULL || (msg = cJSON_ParseWithLength(line, len)) ==
	    NULL)
		return;
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	up = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (!cJSON_IsString(up) || (t = tasktab_find_up(r->tasks,
	    up->valuestring, strlen(up->valuestring))) == NULL) {
		cJSON_Delete(msg);
		return;
	}
	tasktab_update(r->tasks, t, params);
	router_tasks_account(r);
	if (t->hidden) {
		/* Its caller made a plain call: no task to hear of. */
		cJSON_Delete(msg);
		return;
	}
	principal = t->principal;
	cJSON_SetValuestring(up, t->id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	TAILQ_FOREACH(a, &r->atts, entry) {
		if (router_task_principal(a) == principal)
			router_send_client(a, text, strlen(text), NULL, 0);
	}
	free(text);
}

/*
 * A request of the server's that names a task in its _meta: to the
 * task's owner (an attachment of its principal that can answer it: cap
 * sampling or elicitation), with the task's id made mcpd's in
 * *rewritten (malloc'd); 1 then.  0: it names no task, and goes where it
 * would.  -1: it names a task no client of mcpd's can answer for (one
 * mcpd does not hold, or whose owner is gone or cannot): refused, never
 * passed to another client.
 */
int
router_tasks_owner(struct router *r, const char *line, size_t len,
    const char *method, struct attachment **ap, char **rewritten)
{
	struct attachment	*a, *best = NULL;
	struct task		*t;
	cJSON			*msg, *id;
	int			 sampling;

	*rewritten = NULL;
	*ap = NULL;
	if (!RELATED_TASK_IN(line, len))
		return (0);
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (-1);
	if (router_task_meta(r, cJSON_GetObjectItemCaseSensitive(msg,
	    "params"), &id, &t) != 0) {
		cJSON_Delete(msg);
		return (0);
	}
	sampling = strcmp(method, "sampling/createMessage") == 0;
	TAILQ_FOREACH(a, &r->atts, entry) {
		if (t == NULL || router_task_principal(a) != t->principal ||
		    (sampling ? !a->cap_sampling : !a->cap_elicitation))
			continue;
		/* The one waiting on the task, likely in tasks/result. */
		if (best == NULL || a->last_request_us > best->last_request_us)
			best = a;
	}
	if (best != NULL) {
		cJSON_SetValuestring(id, t->id);
		*rewritten = rpc_print(msg);
		*ap = best;
	}
	cJSON_Delete(msg);
	return (best != NULL ? 1 : -1);
}

/*
 * A notification of the server's that names a task in its _meta: 0 when
 * it names none.  1 once taken: to the task's owner alone, under mcpd's
 * id (progress: to the request its token names, if that is the
 * owner's), or nowhere when mcpd does not hold the task.
 */
int
router_tasks_notification(struct router *r, const char *line, size_t len,
    const char *method)
{
	struct attachment	*a;
	struct task		*t;
	struct envelope		 env;
	cJSON			*msg, *id;
	char			*text;
	size_t			 erroff;
	uint64_t		 principal;

	if (!RELATED_TASK_IN(line, len))
		return (0);
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (1);
	if (router_task_meta(r, cJSON_GetObjectItemCaseSensitive(msg,
	    "params"), &id, &t) != 0) {
		cJSON_Delete(msg);
		return (0);
	}
	if (t == NULL) {
		cJSON_Delete(msg);
		return (1);
	}
	principal = t->principal;
	cJSON_SetValuestring(id, t->id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (strcmp(method, "notifications/progress") == 0) {
		if (envelope_scan(text, strlen(text), &env, &erroff) == 0)
			router_progress_of(r, text, strlen(text), &env,
			    principal);
	} else {
		TAILQ_FOREACH(a, &r->atts, entry) {
			if (router_task_principal(a) == principal)
				router_send_client(a, text, strlen(text),
				    NULL, 0);
		}
	}
	free(text);
	return (1);
}

/*
 * A reply to a request of a client's that is not about tasks, naming a
 * task in its result's _meta (1: *rewritten, malloc'd, to send instead),
 * or a tools/call's that made one mcpd did not see asked for: as this
 * client may see it (router_task_meta_for).
 */
int
router_tasks_reply_meta(struct router *r, struct attachment *a,
    const char *line, size_t len, char **rewritten)
{
	cJSON	*msg;

	*rewritten = NULL;
	if (!RELATED_TASK_IN(line, len) ||
	    (msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (0);
	router_task_meta_for(r, cJSON_GetObjectItemCaseSensitive(msg,
	    "result"), router_task_principal(a));
	*rewritten = rpc_print(msg);
	cJSON_Delete(msg);
	return (1);
}

/* Its tasks can no longer be reached by anyone: forget them. */
void
router_tasks_detach(struct attachment *a)
{
	struct router		*r = a->router;
	uint64_t		 principal = router_task_principal(a);

	if (r->tasks == NULL ||
	    tasktab_count_principal(r->tasks, principal) == 0 ||
	    !router_principal_leaves(a))
		return;
	tasktab_drop_principal(r->tasks, principal);
	router_tasks_account(r);
}

/* From the sweep: tasks whose time is up. */
void
router_tasks_sweep(struct router *r, uint64_t now)
{
	if ((r->tasks == NULL && r->ctasks == NULL) ||
	    now < r->tasks_swept_ms + 1000)
		return;
	r->tasks_swept_ms = now;
	if (r->tasks != NULL && tasktab_expire(r->tasks, now) > 0)
		router_tasks_account(r);
	/* And those clients run for the server. */
	router_ctasks_sweep(r, now);
}

int
router_task_owned(const struct attachment *a, const char *id)
{
	struct router	*r = a->router;

	return (r->tasks != NULL && tasktab_find(r->tasks,
	    router_task_principal(a), id, strlen(id)) != NULL);
}

cJSON *
router_tasks_of(const struct attachment *a)
{
	struct router		*r = a->router;
	const struct task	*t;
	uint64_t		 principal = router_task_principal(a);
	cJSON			*all, *obj;

	all = cJSON_CreateArray();
	for (t = r->tasks != NULL ? tasktab_first(r->tasks) : NULL; t != NULL;
	    t = tasktab_next(t)) {
		if (t->principal == principal && !t->hidden &&
		    (obj = cJSON_Parse(t->last)) != NULL)
			cJSON_AddItemToArray(all, obj);
	}
	return (all);
}

/*
 * A re-exec: the tasks of principals that outlive their connections
 * (bridges, which come back) go to the next mcpd; a connection's own go
 * with it.
 */
void
router_tasks_export(const struct router *r, struct handover_server *s)
{
	const struct tasktab	*tabs[2] = { r->tasks, r->ctasks };
	const struct task	*t;
	uint64_t		 now = clock_now_ms();
	size_t			 i;

	/* Those the server runs, then those clients run for it. */
	for (i = 0; i < nitems(tabs); i++) {
		if (tabs[i] == NULL)
			continue;
		for (t = tasktab_first(tabs[i]); t != NULL;
		    t = tasktab_next(t)) {
			if (t->principal < PRINCIPAL_ID_BASE)
				continue;
			handover_add_task(s, t->id, t->principal, t->up_id,
			    t->last, now - t->created_ms, t->expires_ms > now ?
			    t->expires_ms - now : 0)->client_runs = i == 1;
		}
	}
}

void
router_tasks_adopt(struct router *r, const struct handover_server *s)
{
	const struct handover_task *ht;
	unsigned char		 rnd[TASKTAB_RANDOM_BYTES];
	enum tasktab_refusal	 why;
	struct task		*t;
	cJSON			*last;
	uint64_t		 now = clock_now_ms();
	unsigned int		 b;
	size_t			 i, j;

	for (i = 0; i < s->ntasks; i++) {
		ht = &s->tasks[i];
		/* handover_parse checked the id: 32 hex digits. */
		for (j = 0; j < TASKTAB_RANDOM_BYTES; j++) {
			if (sscanf(ht->id + 2 * j, "%2x", &b) != 1)
				break;
			rnd[j] = (unsigned char)b;
		}
		if (j != TASKTAB_RANDOM_BYTES ||
		    (last = cJSON_Parse(ht->last)) == NULL)
			continue;
		t = tasktab_add(ht->client_runs ? router_ctasks_table(r) :
		    router_tasks_table(r), ht->principal, rnd, ht->up_id,
		    strlen(ht->up_id), last, now, &why);
		cJSON_Delete(last);
		if (t == NULL)
			continue;
		t->created_ms = now > ht->age_ms ? now - ht->age_ms : 0;
		t->expires_ms = now + ht->left_ms;
	}
	router_tasks_account(r);
	router_ctasks_adopted(r);
}

/*
 * Busy while a task's result is still to be fetched: an idle stop would
 * take it with the process.
 */
int
router_tasks_busy(const struct router *r)
{
	return (r->tasks != NULL && tasktab_unread(r->tasks) > 0);
}

void
router_tasks_free(struct router *r)
{
	if (r->task_required != NULL && r->freeing) {
		hmap_free(r->task_required);
		r->task_required = NULL;
	}
	if (r->tasks == NULL)
		return;
	tasktab_free(r->tasks);
	r->tasks = NULL;
	router_tasks_account(r);
}
