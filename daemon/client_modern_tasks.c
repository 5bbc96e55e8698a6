/*
 * client_modern_tasks.c -- the tasks extension (io.modelcontextprotocol/
 * tasks) for a 2026 client, over 2025's tasks at the session.
 *
 * Only a client whose request declares the extension gets a task:
 * - Its tools/call of a tool the server runs as a task (taskSupport
 *   "required" or "optional" in a tools/list it was answered) goes up
 *   with "task"; the CreateTaskResult, already under mcpd's task id (the
 *   router's), becomes resultType "task" with the task's members as 2026
 *   names them (ttlMs, pollIntervalMs).  Any other client's call of such
 *   a tool is run as a task by mcpd and answered when it ends, as for a
 *   2025 client without tasks: nobody gets a task it did not declare.
 * - tasks/get goes up as 2025's; a task that ended gets its result or
 *   error inline, fetched with a tasks/result of the layer's own (kept,
 *   so later polls need none).  A task waiting for input: the layer asks
 *   for tasks/result, which is when a 2025 server sends the requests the
 *   task waits on; those requests (their _meta names the task) are kept
 *   as the task's inputRequests, and until one came the task is shown
 *   "working".
 * - tasks/update answers the kept requests its inputResponses name (keys
 *   it does not know are ignored); tasks/cancel goes up, and its answer
 *   is the empty acknowledgement.
 * - notifications/tasks/status becomes notifications/tasks on the listen
 *   streams that named the task in taskIds.
 * - tasks/get, update and cancel, and a listen stream naming taskIds,
 *   from a request that did not declare the extension: -32021.
 * Which tasks a client may reach is the router's rule (the principal's);
 * the layer keeps at most MODERN_MAX_TASKS of its own, the oldest
 * forgotten first (its kept requests then cancelled).
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client_modern.h"
#include "client_modern_int.h"
#include "envelope.h"
#include "hmap.h"
#include "modern.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

#define MODERN_MAX_TASKS	256
#define MODERN_MISSING_CAP	-32021
#define MODERN_RELATED_TASK	"io.modelcontextprotocol/related-task"

void
modern_tasks_refuse(struct modern *m, const char *id, size_t id_len,
    const char *what)
{
	char	*line;
	int	 n;

	n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{"
	    "\"code\":%d,\"message\":\"Missing required client capability: "
	    "%s needs the extension " MODERN_EXT_TASKS " in the request's "
	    "clientCapabilities\",\"data\":{\"requiredCapabilities\":{"
	    "\"extensions\":{\"" MODERN_EXT_TASKS "\":{}}}}}}", (int)id_len,
	    id, MODERN_MISSING_CAP, what);
	modern_send(m, line, (size_t)n);
	free(line);
}

static struct modern_task *
modern_task_find(struct modern *m, const char *id)
{
	struct modern_task	*t;

	TAILQ_FOREACH(t, &m->tasks, entry) {
		if (strcmp(t->id, id) == 0)
			return (t);
	}
	return (NULL);
}

static void
modern_task_free(struct modern *m, struct modern_task *t, int answer)
{
	struct modern_input	*in;
	cJSON			*cancel;

	cancel = cJSON_Parse("{\"action\":\"cancel\"}");
	while ((in = TAILQ_FIRST(&t->inputs)) != NULL) {
		TAILQ_REMOVE(&t->inputs, in, entry);
		if (answer && strcmp(in->method, "elicitation/create") == 0)
			modern_answer_server(m, in->down_id, in->down_id_len,
			    cancel, 0, NULL);
		else if (answer)
			modern_answer_server(m, in->down_id, in->down_id_len,
			    NULL, RPC_INTERNAL_ERROR, "the task this was for is "
			    "no longer followed by its client");
		modern_input_free(m, in);
	}
	cJSON_Delete(cancel);
	TAILQ_REMOVE(&m->tasks, t, entry);
	m->ntasks--;
	cJSON_Delete(t->final);
	free(t->id);
	free(t);
}

static struct modern_task *
modern_task_get(struct modern *m, const char *id)
{
	struct modern_task	*t;

	if ((t = modern_task_find(m, id)) != NULL)
		return (t);
	if (m->ntasks >= MODERN_MAX_TASKS)
		modern_task_free(m, TAILQ_FIRST(&m->tasks), 1);
	t = xcalloc(1, sizeof *t);
	t->id = xstrdup(id);
	TAILQ_INIT(&t->inputs);
	TAILQ_INSERT_TAIL(&m->tasks, t, entry);
	m->ntasks++;
	return (t);
}

/* Ask the session for the task's result (2025: also its requests). */
static void
modern_task_fetch(struct modern *m, struct modern_task *t)
{
	cJSON	*params;

	if (t->fetch != 0 || t->final != NULL)
		return;
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "taskId", t->id);
	t->fetch = modern_internal(m, "tasks/result", params);
}

/* The kept requests of a task, as inputRequests. */
static cJSON *
modern_task_inputs(const struct modern_task *t)
{
	struct modern_input	*in;
	cJSON			*requests, *r;

	requests = cJSON_CreateObject();
	TAILQ_FOREACH(in, &t->inputs, entry) {
		r = cJSON_AddObjectToObject(requests, in->key);
		cJSON_AddStringToObject(r, "method", in->method);
		cJSON_AddItemToObject(r, "params", in->params != NULL ?
		    cJSON_Duplicate(in->params, 1) : cJSON_CreateObject());
	}
	return (requests);
}

static void
modern_task_send(struct modern *m, struct modern_req *q, cJSON *result)
{
	char	*text;

	text = cJSON_PrintUnformatted(result);
	if (text == NULL)
		abort();
	modern_result(m, q->id, q->id_len, text);
	free(text);
}

/* A tasks/get answer (detailed, the task's 2026 members) completed. */
static void
modern_task_detail(struct modern_task *t, cJSON *detail)
{
	const cJSON	*st;
	const cJSON	*v;

	st = cJSON_GetObjectItemCaseSensitive(detail, "status");
	if (t->final != NULL) {
		if ((v = cJSON_GetObjectItemCaseSensitive(t->final,
		    "error")) != NULL) {
			cJSON_ReplaceItemInObjectCaseSensitive(detail,
			    "status", cJSON_CreateString("failed"));
			cJSON_AddItemToObject(detail, "error",
			    cJSON_Duplicate(v, 1));
		} else
			cJSON_AddItemToObject(detail, "result", cJSON_Duplicate(
			    cJSON_GetObjectItemCaseSensitive(t->final,
			    "result"), 1));
		return;
	}
	if (cJSON_IsString(st) && strcmp(st->valuestring,
	    "input_required") == 0) {
		if (t->ninputs > 0)
			cJSON_AddItemToObject(detail, "inputRequests",
			    modern_task_inputs(t));
		else {
			/* Not come yet: the poll after will have them. */
			cJSON_ReplaceItemInObjectCaseSensitive(detail,
			    "status", cJSON_CreateString("working"));
		}
	}
}

int
modern_tasks_request(struct modern *m, const char *line, size_t len,
    const struct envelope *env, enum modern_method method,
    const struct modern_meta *mm)
{
	const char		*id = line + env->id.off;
	cJSON			*params, *responses, *resp;
	const cJSON		*tid;
	struct modern_task	*t;
	struct modern_input	*in, *next;

	(void)len;
	if (!(mm->can & MODERN_CAN_TASKS)) {
		modern_tasks_refuse(m, id, env->id.len, method ==
		    MODERN_M_TASK_GET ? "tasks/get" : method ==
		    MODERN_M_TASK_UPDATE ? "tasks/update" : "tasks/cancel");
		return (1);
	}
	if (method != MODERN_M_TASK_UPDATE)
		return (0);
	params = env->params.type == ENVELOPE_OBJECT ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	tid = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (!cJSON_IsString(tid) ||
	    (t = modern_task_find(m, tid->valuestring)) == NULL) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: no task of this client's has that taskId");
		return (1);
	}
	responses = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
	TAILQ_FOREACH_SAFE(in, &t->inputs, entry, next) {
		resp = cJSON_GetObjectItemCaseSensitive(responses, in->key);
		if (!cJSON_IsObject(resp))
			continue;
		modern_answer_server(m, in->down_id, in->down_id_len, resp,
		    0, NULL);
		TAILQ_REMOVE(&t->inputs, in, entry);
		t->ninputs--;
		modern_input_free(m, in);
	}
	cJSON_Delete(params);
	modern_result(m, id, env->id.len, "{\"resultType\":\"complete\"}");
	return (1);
}

int
modern_tasks_call(struct modern *m, struct modern_req *q, const char *line,
    const struct envelope *env, struct envelope_edit *edit)
{
	const cJSON	*name;
	char		 tool[256];
	size_t		 i;

	if (!(q->can & MODERN_CAN_TASKS) || m->task_tools == NULL ||
	    strcmp(q->method_name, "tools/call") != 0 ||
	    env->params.type != ENVELOPE_OBJECT ||
	    envelope_string_copy(line, &env->p_name, tool, sizeof tool) < 0)
		return (0);
	cJSON_ArrayForEach(name, m->task_tools) {
		if (strcmp(name->valuestring, tool) == 0)
			break;
	}
	if (name == NULL)
		return (0);
	/* params: {"task":{}, ...}; a call with its own task stays so. */
	for (i = env->params.off + 1; i < env->params.off + env->params.len &&
	    (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' ||
	    line[i] == '\r'); i++)
		;
	edit->off = env->params.off + 1;
	edit->len = 0;
	if (line[i] == '}') {
		edit->text = "\"task\":{}";
		edit->text_len = 9;
	} else {
		edit->text = "\"task\":{},";
		edit->text_len = 10;
	}
	q->task_call = 1;
	return (1);
}

void
modern_tasks_tools(struct modern *m, const char *line,
    const struct envelope *env)
{
	cJSON	*result;

	result = cJSON_ParseWithLength(line + env->result.off,
	    env->result.len);
	if (result == NULL)
		return;
	if (m->task_tools == NULL)
		m->task_tools = cJSON_CreateArray();
	modern_task_tools(result, m->task_tools);
	/* Pages add up; a server that lists the same tool again is bounded. */
	while (cJSON_GetArraySize(m->task_tools) > 4096)
		cJSON_DeleteItemFromArray(m->task_tools, 0);
	cJSON_Delete(result);
}

/* The CreateTaskResult of a call made a task, as 2026's. */
static int
modern_tasks_created(struct modern *m, struct modern_req *q,
    const cJSON *result)
{
	const cJSON	*task;
	cJSON		*out;

	task = cJSON_GetObjectItemCaseSensitive(result, "task");
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "resultType", "task");
	if (modern_task_from(task, out) != 0) {
		cJSON_Delete(out);
		return (0);
	}
	(void)modern_task_get(m, cJSON_GetObjectItemCaseSensitive(task,
	    "taskId")->valuestring);
	modern_task_send(m, q, out);
	cJSON_Delete(out);
	return (1);
}

/* A tasks/get answer: the task as 2026 details it, or held for more. */
static int
modern_tasks_got(struct modern *m, struct modern_req *q,
    const cJSON *result)
{
	struct modern_task	*t;
	cJSON			*out;
	const cJSON		*st;

	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "resultType", "complete");
	if (modern_task_from(result, out) != 0) {
		cJSON_Delete(out);
		return (0);
	}
	t = modern_task_get(m, cJSON_GetObjectItemCaseSensitive(out,
	    "taskId")->valuestring);
	st = cJSON_GetObjectItemCaseSensitive(out, "status");
	if (t->final == NULL && (strcmp(st->valuestring, "completed") == 0 ||
	    strcmp(st->valuestring, "failed") == 0)) {
		/* Its result first: the answer waits for it. */
		q->task_wait = out;
		q->task_for = t;
		modern_task_fetch(m, t);
		return (2);
	}
	if (strcmp(st->valuestring, "input_required") == 0)
		modern_task_fetch(m, t);
	modern_task_detail(t, out);
	modern_task_send(m, q, out);
	cJSON_Delete(out);
	return (1);
}

int
modern_tasks_reply(struct modern *m, struct modern_req *q, const char *line,
    size_t len, const struct envelope *env)
{
	cJSON	*result;
	int	 done = 0;

	(void)len;
	if ((!q->task_call && q->method != MODERN_M_TASK_GET &&
	    q->method != MODERN_M_TASK_CANCEL) ||
	    env->result.type != ENVELOPE_OBJECT)
		return (0);
	if (q->method == MODERN_M_TASK_CANCEL) {
		modern_result(m, q->id, q->id_len,
		    "{\"resultType\":\"complete\"}");
		modern_req_free(m, q);
		return (1);
	}
	result = cJSON_ParseWithLength(line + env->result.off,
	    env->result.len);
	if (q->task_call) {
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(result,
		    "task")))
			done = modern_tasks_created(m, q, result);
	} else
		done = modern_tasks_got(m, q, result);
	cJSON_Delete(result);
	if (done == 1)
		modern_req_free(m, q);
	return (done != 0);
}

int
modern_tasks_server_request(struct modern *m, const char *line, size_t len,
    const struct envelope *env, const char *method)
{
	cJSON			*meta;
	const cJSON		*tid;
	struct modern_task	*t;
	struct modern_input	*in;

	if (env->meta.type != ENVELOPE_OBJECT ||
	    memmem(line + env->meta.off, env->meta.len, MODERN_RELATED_TASK,
	    sizeof MODERN_RELATED_TASK - 1) == NULL)
		return (0);
	meta = cJSON_ParseWithLength(line + env->meta.off, env->meta.len);
	tid = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(meta, MODERN_RELATED_TASK),
	    "taskId");
	if (!cJSON_IsString(tid)) {
		cJSON_Delete(meta);
		return (0);
	}
	t = modern_task_get(m, tid->valuestring);
	cJSON_Delete(meta);
	if (t->ninputs >= 16) {
		modern_answer_server(m, line + env->id.off, env->id.len, NULL,
		    RPC_INTERNAL_ERROR, "the task has too many requests "
		    "waiting for its client");
		return (1);
	}
	in = modern_input_new(m, line, len, env, method);
	TAILQ_INSERT_TAIL(&t->inputs, in, entry);
	t->ninputs++;
	return (1);
}

int
modern_tasks_internal(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	struct modern_task	*t;
	struct modern_req	*q;
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	void			*val;
	char			 idtext[64];
	unsigned long long	 n;
	cJSON			*v;

	(void)len;
	if (envelope_string_copy(line, &env->id, idtext, sizeof idtext) < 0 ||
	    sscanf(idtext, "mcpd-modern:%llu", &n) != 1)
		return (0);
	TAILQ_FOREACH(t, &m->tasks, entry) {
		if (t->fetch == n)
			break;
	}
	if (t == NULL)
		return (0);
	t->fetch = 0;
	cJSON_Delete(t->final);
	t->final = cJSON_CreateObject();
	if (env->result.type == ENVELOPE_OBJECT) {
		v = cJSON_ParseWithLength(line + env->result.off,
		    env->result.len);
		cJSON_DeleteItemFromObjectCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(v, "_meta"),
		    MODERN_RELATED_TASK);
		cJSON_AddItemToObject(t->final, "result", v);
	} else
		cJSON_AddItemToObject(t->final, "error", env->error.type ==
		    ENVELOPE_OBJECT ? cJSON_ParseWithLength(line +
		    env->error.off, env->error.len) : cJSON_CreateObject());
	/* The polls that waited for it. */
	for (;;) {
		hmap_iter_init(m->reqs, &it);
		q = NULL;
		while (hmap_iter_next(&it, &key, &keylen, &val)) {
			if (((struct modern_req *)val)->task_for == t) {
				q = val;
				break;
			}
		}
		if (q == NULL)
			break;
		modern_task_detail(t, q->task_wait);
		modern_task_send(m, q, q->task_wait);
		modern_req_free(m, q);
	}
	return (1);
}

void
modern_tasks_status(struct modern *m, const char *line,
    const struct envelope *env)
{
	struct modern_listen	*l;
	cJSON			*params, *out;
	const cJSON		*tid;
	char			*text;

	if (env->params.type != ENVELOPE_OBJECT)
		return;
	params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len);
	tid = cJSON_GetObjectItemCaseSensitive(params, "taskId");
	if (!cJSON_IsString(tid)) {
		cJSON_Delete(params);
		return;
	}
	TAILQ_FOREACH(l, &m->listens, entry) {
		if (!modern_filter_has_task(&l->f, tid->valuestring))
			continue;
		out = cJSON_CreateObject();
		if (modern_task_from(params, out) != 0) {
			cJSON_Delete(out);
			break;
		}
		text = modern_stream_note(l->id, l->id_len,
		    "notifications/tasks", out);
		modern_send(m, text, strlen(text));
		free(text);
	}
	cJSON_Delete(params);
}

void
modern_tasks_free(struct modern *m)
{
	struct modern_task	*t;

	while ((t = TAILQ_FIRST(&m->tasks)) != NULL)
		modern_task_free(m, t, 0);
	cJSON_Delete(m->task_tools);
	m->task_tools = NULL;
}
