/*
 * worker_modern_tasks.c -- 2025's tasks (MCP 2025-11-25) run by mcpd on a
 * server of MCP 2026-07-28.
 *
 * 2026 has no tasks/result, no tasks/list and no "task" in a call: its
 * tasks are an extension the server chooses to answer with.  mcpd's 2025
 * session with such a server offers 2025's tasks (tools/call, list,
 * cancel: modern_up_init_result) and runs them itself, here:
 *
 * - A tools/call with "task" goes up as the plain call, under an id of
 *   mcpd's; the router is answered at once with a CreateTaskResult for a
 *   task id of this file's, "working".
 * - The call's answer ends the task: completed with its result (failed if
 *   isError), failed with its error, and notifications/tasks/status says
 *   so.  tasks/get answers the task as it stands; tasks/result its result
 *   once it has one, waiting until then; tasks/cancel sends the server
 *   notifications/cancelled for the call, and the task is cancelled (an
 *   answer that comes after is dropped).
 * - The task is forgotten once its ttl (asked, or WTASKS_TTL_DEFAULT_MS;
 *   at most TASKTAB_TTL_MAX_MS) is up, and with the process.  A re-exec
 *   does not hand them over: the new mcpd's router hears "not found" for
 *   them, and forgets them too.
 *
 * Whose a task is, is the router's business, as for any server's tasks
 * (router_tasks.c): it gives clients ids of its own, owned by the caller's
 * principal, and never passes on a request for another's.  Here a task id
 * is only the "server's".
 *
 * Bounded: WTASKS_MAX tasks, WTASKS_MAX_BYTES of results in all (a larger
 * result fails its task, saying so), WTASKS_MAX_WAITERS tasks/result
 * waiting on one task.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "envelope.h"
#include "hmap.h"
#include "modern_up.h"
#include "proto.h"
#include "rpc.h"
#include "tasktab.h"
#include "util.h"
#include "worker_int.h"
#include "xmalloc.h"

#define WTASKS_MAX		1024
#define WTASKS_MAX_BYTES	(64 * 1024 * 1024)
#define WTASKS_RESULT_MAX_BYTES	(8 * 1024 * 1024)
#define WTASKS_MAX_WAITERS	16
#define WTASKS_TTL_DEFAULT_MS	(3600ULL * 1000)
#define WTASKS_TTL_MIN_MS	1000ULL
#define WTASKS_POLL_MS		500
#define WTASKS_ID_BYTES		16
#define WTASKS_RELATED		"io.modelcontextprotocol/related-task"

struct wtask_waiter {
	char			*id;		/* the router's request id */
	size_t			 id_len;
	TAILQ_ENTRY(wtask_waiter) entry;
};

struct wtask {
	char			 id[2 * WTASKS_ID_BYTES + 1];
	int64_t			 up_id;		/* the plain call's */
	const char		*status;	/* static */
	char			*result;	/* result object text, once ended */
	char			*error;		/* or error object text */
	size_t			 bytes;
	char			 created_at[32], updated_at[32];
	uint64_t		 ttl_ms, expires_ms;
	TAILQ_HEAD(, wtask_waiter) waiters;
	size_t			 nwaiters;
	TAILQ_ENTRY(wtask)	 entry;
};

struct wtasks {
	const struct wtasks_io	*io;
	void			*arg;
	TAILQ_HEAD(, wtask)	 all;
	struct hmap		*by_id;
	struct hmap		*by_up;		/* int64 up_id -> task */
	size_t			 count, bytes;
};

struct wtasks *
wtasks_new(const struct wtasks_io *io, void *arg)
{
	struct wtasks	*t;

	t = xcalloc(1, sizeof *t);
	t->io = io;
	t->arg = arg;
	TAILQ_INIT(&t->all);
	t->by_id = hmap_new(hmap_random_seed());
	t->by_up = hmap_new(hmap_random_seed());
	return (t);
}

static void
wtask_free(struct wtasks *ts, struct wtask *t)
{
	struct wtask_waiter	*wt;

	while ((wt = TAILQ_FIRST(&t->waiters)) != NULL) {
		TAILQ_REMOVE(&t->waiters, wt, entry);
		free(wt->id);
		free(wt);
	}
	(void)hmap_del(ts->by_id, t->id, strlen(t->id));
	if (hmap_get_i64(ts->by_up, t->up_id) == t)
		(void)hmap_del_i64(ts->by_up, t->up_id);
	TAILQ_REMOVE(&ts->all, t, entry);
	ts->count--;
	ts->bytes -= t->bytes;
	free(t->result);
	free(t->error);
	free(t);
}

void
wtasks_free(struct wtasks *ts)
{
	struct wtask	*t;

	if (ts == NULL)
		return;
	while ((t = TAILQ_FIRST(&ts->all)) != NULL)
		wtask_free(ts, t);
	hmap_free(ts->by_id);
	hmap_free(ts->by_up);
	free(ts);
}

static void
wtask_stamp(char *buf, size_t len)
{
	struct tm	 tm;
	time_t		 now = time(NULL);

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		(void)snprintf(buf, len, "1970-01-01T00:00:00Z");
}

static int
wtask_ended(const struct wtask *t)
{
	return (strcmp(t->status, "working") != 0);
}

/* The 2025 Task, as an object. */
static cJSON *
wtask_json(const struct wtask *t)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "taskId", t->id);
	cJSON_AddStringToObject(o, "status", t->status);
	if (strcmp(t->status, "cancelled") == 0)
		cJSON_AddStringToObject(o, "statusMessage",
		    "cancelled by its client");
	cJSON_AddStringToObject(o, "createdAt", t->created_at);
	cJSON_AddStringToObject(o, "lastUpdatedAt", t->updated_at);
	cJSON_AddNumberToObject(o, "ttl", (double)t->ttl_ms);
	cJSON_AddNumberToObject(o, "pollInterval", WTASKS_POLL_MS);
	return (o);
}

/* Answer the router's request id with a member ("result":..., text). */
static void
wtask_answer_json(struct wtasks *ts, const char *id, size_t id_len,
    const char *key, cJSON *value)
{
	char	*text, *member;

	text = rpc_print(value);
	cJSON_Delete(value);
	xasprintf(&member, "\"%s\":%s", key, text);
	free(text);
	ts->io->answer(ts->arg, id, id_len, member);
	free(member);
}

static void
wtask_error(struct wtasks *ts, const char *id, size_t id_len, int code,
    const char *message)
{
	cJSON	*e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	wtask_answer_json(ts, id, id_len, "error", e);
}

/* What tasks/result answers for an ended task. */
static void
wtask_give_result(struct wtasks *ts, const struct wtask *t, const char *id,
    size_t id_len)
{
	cJSON	*r, *meta, *rel;

	if (t->result != NULL && (r = cJSON_Parse(t->result)) != NULL) {
		if (!cJSON_IsObject(meta = cJSON_GetObjectItemCaseSensitive(r,
		    "_meta"))) {
			cJSON_DeleteItemFromObjectCaseSensitive(r, "_meta");
			meta = cJSON_AddObjectToObject(r, "_meta");
		}
		cJSON_DeleteItemFromObjectCaseSensitive(meta, WTASKS_RELATED);
		rel = cJSON_AddObjectToObject(meta, WTASKS_RELATED);
		cJSON_AddStringToObject(rel, "taskId", t->id);
		wtask_answer_json(ts, id, id_len, "result", r);
	} else if (t->error != NULL && (r = cJSON_Parse(t->error)) != NULL)
		wtask_answer_json(ts, id, id_len, "error", r);
	else
		wtask_error(ts, id, id_len, RPC_INTERNAL_ERROR, strcmp(t->status,
		    "cancelled") == 0 ? "the task was cancelled" :
		    "the task ended without a result");
}

/* The task has ended: those waiting get its end, the router its status. */
static void
wtask_end(struct wtasks *ts, struct wtask *t, const char *status)
{
	struct wtask_waiter	*wt;
	cJSON			*n;
	char			*text;

	t->status = status;
	wtask_stamp(t->updated_at, sizeof t->updated_at);
	while ((wt = TAILQ_FIRST(&t->waiters)) != NULL) {
		TAILQ_REMOVE(&t->waiters, wt, entry);
		wtask_give_result(ts, t, wt->id, wt->id_len);
		free(wt->id);
		free(wt);
	}
	t->nwaiters = 0;
	n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "jsonrpc", "2.0");
	cJSON_AddStringToObject(n, "method", "notifications/tasks/status");
	cJSON_AddItemToObject(n, "params", wtask_json(t));
	text = rpc_print(n);
	cJSON_Delete(n);
	ts->io->queue(ts->arg, text, strlen(text));
}

/* Tasks whose time is up: forgotten (a running one's call cancelled). */
static void
wtasks_expire(struct wtasks *ts)
{
	struct wtask	*t, *next;
	uint64_t	 now = clock_now_ms();

	TAILQ_FOREACH_SAFE(t, &ts->all, entry, next) {
		if (t->expires_ms > now)
			continue;
		if (!wtask_ended(t))
			ts->io->cancel_up(ts->arg, t->up_id,
			    "its task's time to live is up");
		wtask_free(ts, t);
	}
}

/* A tools/call with "task" (parsed, msg): the plain call goes up. */
static void
wtasks_create(struct wtasks *ts, cJSON *msg,
    const char *id, size_t id_len)
{
	unsigned char	 rnd[WTASKS_ID_BYTES];
	cJSON		*params, *ttl, *body;
	struct wtask	*t;
	char		*text, why[128];
	size_t		 i;

	if (ts->count >= WTASKS_MAX) {
		(void)snprintf(why, sizeof why, "mcpd runs no more tasks on "
		    "this server: %d are kept until their time to live is up",
		    WTASKS_MAX);
		wtask_error(ts, id, id_len, MCPD_ERR_LIMIT, why);
		return;
	}
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	ttl = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(params, "task"), "ttl");
	t = xcalloc(1, sizeof *t);
	TAILQ_INIT(&t->waiters);
	arc4random_buf(rnd, sizeof rnd);
	for (i = 0; i < sizeof rnd; i++)
		(void)snprintf(t->id + 2 * i, 3, "%02x", rnd[i]);
	t->status = "working";
	t->ttl_ms = WTASKS_TTL_DEFAULT_MS;
	if (cJSON_IsNumber(ttl) && ttl->valuedouble >= 0)
		t->ttl_ms = ttl->valuedouble > (double)TASKTAB_TTL_MAX_MS ?
		    TASKTAB_TTL_MAX_MS : ttl->valuedouble < WTASKS_TTL_MIN_MS ?
		    WTASKS_TTL_MIN_MS : (uint64_t)ttl->valuedouble;
	t->expires_ms = clock_now_ms() + t->ttl_ms;
	wtask_stamp(t->created_at, sizeof t->created_at);
	memcpy(t->updated_at, t->created_at, sizeof t->updated_at);
	t->up_id = ts->io->next_id(ts->arg);
	TAILQ_INSERT_TAIL(&ts->all, t, entry);
	ts->count++;
	(void)hmap_put(ts->by_id, t->id, strlen(t->id), t);
	(void)hmap_put_i64(ts->by_up, t->up_id, t);

	cJSON_DeleteItemFromObjectCaseSensitive(params, "task");
	cJSON_ReplaceItemInObjectCaseSensitive(msg, "id",
	    cJSON_CreateNumber((double)t->up_id));
	text = rpc_print(msg);
	(void)ts->io->forward(ts->arg, text, strlen(text));
	free(text);

	body = cJSON_CreateObject();
	cJSON_AddItemToObject(body, "task", wtask_json(t));
	wtask_answer_json(ts, id, id_len, "result", body);
}

/* tasks/get, tasks/result, tasks/cancel of the task params names. */
static void
wtasks_op(struct wtasks *ts, const char *method,
    const cJSON *params, const char *id, size_t id_len)
{
	const cJSON		*tid;
	struct wtask		*t = NULL;
	struct wtask_waiter	*wt;
	char			 msg[128];

	tid = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (cJSON_IsString(tid))
		t = hmap_get(ts->by_id, tid->valuestring,
		    strlen(tid->valuestring));
	if (t == NULL) {
		wtask_error(ts, id, id_len, RPC_INVALID_PARAMS,
		    strcmp(method, "tasks/get") == 0 ? "Failed to retrieve "
		    "task: Task not found" : "Task not found");
		return;
	}
	if (strcmp(method, "tasks/get") == 0)
		wtask_answer_json(ts, id, id_len, "result", wtask_json(t));
	else if (strcmp(method, "tasks/result") == 0) {
		if (wtask_ended(t)) {
			wtask_give_result(ts, t, id, id_len);
			return;
		}
		if (t->nwaiters >= WTASKS_MAX_WAITERS) {
			(void)snprintf(msg, sizeof msg, "mcpd keeps no more "
			    "tasks/result waiting on this task (%d)",
			    WTASKS_MAX_WAITERS);
			wtask_error(ts, id, id_len, MCPD_ERR_LIMIT, msg);
			return;
		}
		wt = xcalloc(1, sizeof *wt);
		wt->id = xmalloc(id_len);
		memcpy(wt->id, id, id_len);
		wt->id_len = id_len;
		TAILQ_INSERT_TAIL(&t->waiters, wt, entry);
		t->nwaiters++;
	} else if (wtask_ended(t)) {
		(void)snprintf(msg, sizeof msg, "Cannot cancel task: already "
		    "in terminal status '%s'", t->status);
		wtask_error(ts, id, id_len, RPC_INVALID_PARAMS, msg);
	} else {
		ts->io->cancel_up(ts->arg, t->up_id,
		    "its client cancelled the task");
		wtask_end(ts, t, "cancelled");
		wtask_answer_json(ts, id, id_len, "result", wtask_json(t));
	}
}

int
wtasks_request(struct wtasks *ts, const char *line, size_t len,
    const struct envelope *env)
{
	static const char	*const ops[] = {
		"tasks/get", "tasks/result", "tasks/cancel"
	};
	const char		*method = NULL, *id = line + env->id.off;
	cJSON			*msg, *params;
	size_t			 i;

	if (env->id.type == ENVELOPE_ABSENT)
		return (0);
	for (i = 0; i < nitems(ops); i++) {
		if (envelope_string_eq(line, &env->method, ops[i]))
			method = ops[i];
	}
	if (method == NULL && (!envelope_string_eq(line, &env->method,
	    "tools/call") || (!bytes_has(line, len, "\"task\"", 6, 4) &&
	    !bytes_has(line, len, "\\u", 2, 0))))
		return (0);
	if ((msg = cJSON_ParseWithLength(line, len)) == NULL)
		return (0);
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (method == NULL && !cJSON_IsObject(
	    cJSON_GetObjectItemCaseSensitive(params, "task"))) {
		cJSON_Delete(msg);
		return (0);
	}
	wtasks_expire(ts);
	if (method == NULL)
		wtasks_create(ts, msg, id, env->id.len);
	else
		wtasks_op(ts, method, params, id, env->id.len);
	cJSON_Delete(msg);
	return (1);
}

/* Keep an ended call's result or error, within the bounds. */
static const char *
wtasks_keep(struct wtasks *ts, struct wtask *t, const char *line,
    const struct envelope *env)
{
	const struct envelope_value *v;
	char		*unfit, msg[160];
	cJSON		*e;
	int		 failed;

	if (env->result.type == ENVELOPE_OBJECT &&
	    (unfit = modern_up_unfit(line, env)) != NULL) {
		/* input_required, or a task: its error, as a plain call's. */
		e = cJSON_Parse(unfit);
		free(unfit);
		t->error = rpc_print(cJSON_GetObjectItemCaseSensitive(e,
		    "error"));
		cJSON_Delete(e);
		t->bytes = strlen(t->error);
		ts->bytes += t->bytes;
		return ("failed");
	}
	v = env->result.type == ENVELOPE_OBJECT ? &env->result : &env->error;
	if (v->type != ENVELOPE_OBJECT || v->len > WTASKS_RESULT_MAX_BYTES ||
	    ts->bytes + v->len > WTASKS_MAX_BYTES) {
		(void)snprintf(msg, sizeof msg, "{\"code\":%d,\"message\":"
		    "\"the server's answer (%zu bytes) is more than mcpd keeps "
		    "of a task's\"}", RPC_INTERNAL_ERROR, v->len);
		t->error = xstrdup(msg);
		t->bytes = strlen(msg);
		ts->bytes += t->bytes;
		return ("failed");
	}
	if (v == &env->error) {
		t->error = xstrndup(line + v->off, v->len);
		failed = 1;
	} else {
		t->result = xstrndup(line + v->off, v->len);
		e = cJSON_ParseWithLength(line + v->off, v->len);
		failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e,
		    "isError"));
		cJSON_Delete(e);
	}
	t->bytes = v->len;
	ts->bytes += t->bytes;
	return (failed ? "failed" : "completed");
}

int
wtasks_response(struct wtasks *ts, const char *line,
    const struct envelope *env)
{
	struct wtask	*t;
	int64_t		 up;

	if (ts->count == 0 || envelope_int64(line, &env->id, &up) != 0 ||
	    (t = hmap_get_i64(ts->by_up, up)) == NULL)
		return (0);
	(void)hmap_del_i64(ts->by_up, up);
	/* Cancelled meanwhile: what the call came to is not the task's. */
	if (!wtask_ended(t))
		wtask_end(ts, t, wtasks_keep(ts, t, line, env));
	return (1);
}
