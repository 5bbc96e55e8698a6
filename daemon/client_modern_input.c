/*
 * client_modern_input.c -- multi-round requests of a 2026 client over a
 * 2025 session (see client_modern.c for the rules): the server's
 * requests become input_required answers, the client's retries their
 * answers, a parked request nobody retries is given up.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <cjson/cJSON.h>

#include "budget.h"
#include "client_modern.h"
#include "client_modern_int.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "log.h"
#include "mcpd.h"
#include "mlevel.h"
#include "modern.h"
#include "proto.h"
#include "rstate.h"
#include "util.h"
#include "xmalloc.h"

void
modern_arm(struct modern *m)
{
	struct modern_req	*q;
	uint64_t		 first = 0, now;
	struct timeval		 tv;

	TAILQ_FOREACH(q, &m->parked, park_entry) {
		if (q->waiting && (first == 0 || q->expires_ms < first))
			first = q->expires_ms;
	}
	if (first == 0) {
		evtimer_del(m->ev_expire);
		return;
	}
	now = clock_now_ms();
	first = first > now ? first - now : 0;
	tv.tv_sec = (time_t)(first / 1000);
	tv.tv_usec = (suseconds_t)(first % 1000) * 1000;
	evtimer_add(m->ev_expire, &tv);
}

/* The input requests still unanswered go to the client: a round. */
static void
modern_round(struct modern *m, struct modern_req *q)
{
	struct modern_input	*in;
	struct rstate		 st;
	cJSON			*requests, *r, *params;
	char			*state, *result;

	if (q->parked == 0) {
		q->parked = ++m->next_parked;
		TAILQ_INSERT_TAIL(&m->parked, q, park_entry);
		m->nparked++;
		params = q->params != NULL ? cJSON_ParseWithLength(q->params,
		    q->params_len) : NULL;
		rstate_digest(q->method_name, params, q->digest);
		cJSON_Delete(params);
		modern_account(m, q, -(ssize_t)q->params_len);
		free(q->params);
		q->params = NULL;
		q->params_len = 0;
	}
	q->round++;
	q->expires_ms = clock_now_ms() + m->mcpd->conf->input_timeout_ms;
	memset(&st, 0, sizeof st);
	st.principal = m->io->principal(m->arg);
	st.parked = q->parked;
	st.round = q->round;
	st.expires_ms = q->expires_ms;
	memcpy(st.digest, q->digest, sizeof st.digest);
	state = rstate_encode(modern_key(m), &st);
	requests = cJSON_CreateObject();
	TAILQ_FOREACH(in, &q->inputs, entry) {
		r = cJSON_AddObjectToObject(requests, in->key);
		cJSON_AddStringToObject(r, "method", in->method);
		cJSON_AddItemToObject(r, "params", in->params != NULL ?
		    cJSON_Duplicate(in->params, 1) : cJSON_CreateObject());
	}
	result = modern_input_result(requests, state);
	free(state);
	q->waiting = 1;
	modern_result(m, q->id, q->id_len, result);
	free(result);
	modern_arm(m);
}

struct modern_input *
modern_input_new(struct modern *m, const char *line, size_t len,
    const struct envelope *env, const char *method)
{
	struct modern_input	*in;
	cJSON			*params;

	params = env->params.type == ENVELOPE_OBJECT ?
	    cJSON_ParseWithLength(line + env->params.off, env->params.len) :
	    NULL;
	/* 2026 has no URL elicitation's id, nor tasks on these. */
	cJSON_DeleteItemFromObjectCaseSensitive(params, "elicitationId");
	cJSON_DeleteItemFromObjectCaseSensitive(params, "task");
	in = xcalloc(1, sizeof *in);
	in->down_id = modern_dup(line + env->id.off, env->id.len);
	in->down_id_len = env->id.len;
	snprintf(in->key, sizeof in->key, "mcpd-%.*s",
	    (int)(env->id.len > 32 ? 32 : env->id.len), line + env->id.off);
	snprintf(in->method, sizeof in->method, "%s", method);
	in->params = params;
	/* Its parse, about twice its text, and the entry. */
	in->mem = 2 * len + sizeof *in;
	modern_account(m, NULL, (ssize_t)in->mem);
	return (in);
}

void
modern_input_free(struct modern *m, struct modern_input *in)
{
	modern_account(m, NULL, -(ssize_t)in->mem);
	free(in->down_id);
	cJSON_Delete(in->params);
	free(in);
}

/* Take the input of the server's id out of a list: 1 if it was there. */
static int
modern_input_drop(struct modern *m, struct modern_inputs *list,
    size_t *count, const char *id, size_t len)
{
	struct modern_input	*in;

	TAILQ_FOREACH(in, list, entry) {
		if (in->down_id_len == len && memcmp(in->down_id, id,
		    len) == 0) {
			TAILQ_REMOVE(list, in, entry);
			(*count)--;
			modern_input_free(m, in);
			return (1);
		}
	}
	return (0);
}

void
modern_input_cancelled(struct modern *m, const char *line,
    const struct envelope *env)
{
	struct modern_req	*q;
	struct modern_task	*t;
	const char		*id = line + env->p_request_id.off;
	size_t			 len = env->p_request_id.len;

	if (env->p_request_id.type == ENVELOPE_ABSENT)
		return;
	TAILQ_FOREACH(q, &m->parked, park_entry) {
		if (modern_input_drop(m, &q->inputs, &q->ninputs, id, len))
			return;
	}
	TAILQ_FOREACH(t, &m->tasks, entry) {
		if (modern_input_drop(m, &t->inputs, &t->ninputs, id, len))
			return;
	}
}

/* What a method of the server's needs of the request it rides on. */
static unsigned int
modern_input_needs(const char *method)
{
	if (strcmp(method, "elicitation/create") == 0)
		return (MODERN_CAN_ELICIT);
	if (strcmp(method, "sampling/createMessage") == 0)
		return (MODERN_CAN_SAMPLING);
	if (strcmp(method, "roots/list") == 0)
		return (MODERN_CAN_ROOTS);
	return (0);
}

/* A request of the server's, passed to this client. */
void
modern_server_request(struct modern *m, const char *line, size_t len,
    const struct envelope *env)
{
	struct modern_req	*q, *best = NULL;
	struct modern_input	*in;
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	void			*val;
	char			 method[32];
	unsigned int		 needs;

	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		method[0] = '\0';
	if (strcmp(method, "ping") == 0) {
		cJSON *empty = cJSON_CreateObject();
		modern_answer_server(m, line + env->id.off, env->id.len,
		    empty, 0, NULL);
		cJSON_Delete(empty);
		return;
	}
	needs = modern_input_needs(method);
	if (needs != 0 && budget_exhausted(m->mcpd)) {
		modern_answer_server(m, line + env->id.off, env->id.len, NULL,
		    RPC_INTERNAL_ERROR, "mcpd's memory budget is used up: "
		    "it cannot keep this request for its client's answer");
		return;
	}
	/* One of a task's: the task's, through tasks/get and update. */
	if (needs != 0 && modern_tasks_server_request(m, line, len, env,
	    method))
		return;
	if (needs != 0) {
		hmap_iter_init(m->reqs, &it);
		while (hmap_iter_next(&it, &key, &keylen, &val)) {
			q = val;
			if (MODERN_TAKES_INPUT(q->method) &&
			    (q->can & needs) && q->final == NULL &&
			    (best == NULL || q->serial > best->serial))
				best = q;
		}
	}
	if (best == NULL || best->ninputs >= MODERN_MAX_INPUTS ||
	    (best->parked == 0 && m->nparked >= MODERN_MAX_PARKED)) {
		modern_answer_server(m, line + env->id.off, env->id.len, NULL,
		    RPC_METHOD_NOT_FOUND, best != NULL ? "the 2026 client "
		    "through mcpd has too many requests waiting for its input" :
		    "a 2026 client through mcpd is asked for input only while "
		    "one of its tools/call, prompts/get or resources/read "
		    "whose capabilities allow it is in flight");
		return;
	}
	in = modern_input_new(m, line, len, env, method);
	TAILQ_INSERT_TAIL(&best->inputs, in, entry);
	best->ninputs++;
	if (!best->waiting)
		modern_round(m, best);
}

/* The server's requests of q, answered with a cancel (q gives up). */
static void
modern_cancel_inputs(struct modern *m, struct modern_req *q)
{
	struct modern_input	*in;
	cJSON			*cancel;

	cancel = cJSON_Parse("{\"action\":\"cancel\"}");
	TAILQ_FOREACH(in, &q->inputs, entry) {
		if (strcmp(in->method, "elicitation/create") == 0)
			modern_answer_server(m, in->down_id, in->down_id_len,
			    cancel, 0, NULL);
		else
			modern_answer_server(m, in->down_id, in->down_id_len,
			    NULL, RPC_INTERNAL_ERROR, "the client did not "
			    "retry the request this was for in time");
	}
	cJSON_Delete(cancel);
}

/*
 * A parked request given up: cancelled at the server, by its id's text as
 * the client wrote it (cJSON would cut "\u0000", and name another).
 */
void
modern_give_up(struct modern *m, struct modern_req *q, const char *reason)
{
	cJSON	*r;
	char	*why, *text;

	modern_cancel_inputs(m, q);
	if (q->final == NULL) {
		r = cJSON_CreateString(reason);
		why = cJSON_PrintUnformatted(r);
		cJSON_Delete(r);
		if (why == NULL)
			abort();
		xasprintf(&text, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":%.*s,"
		    "\"reason\":%s}}", (int)q->up_id_len, q->up_id, why);
		free(why);
		modern_session(m, text);
		free(text);
	}
	modern_req_free(m, q);
}

void
modern_expire_cb(evutil_socket_t fd, short events, void *arg)
{
	struct modern		*m = arg;
	struct modern_req	*q, *next;
	uint64_t		 now = clock_now_ms();

	(void)fd;
	(void)events;
	TAILQ_FOREACH_SAFE(q, &m->parked, park_entry, next) {
		if (q->waiting && q->expires_ms <= now) {
			log_info("a 2026 client's %s waited input_timeout_ms "
			    "(%u ms) for its retry; cancelled", q->method_name,
			    m->mcpd->conf->input_timeout_ms);
			modern_give_up(m, q, "the client did not answer the "
			    "input this request needs within mcpd's "
			    "input_timeout_ms");
		}
	}
	modern_arm(m);
}

/*
 * A retry: params.requestState and inputResponses continue a request.  0
 * when params has no requestState of its own (the name was deeper, in
 * the arguments): no retry, a request as any other.
 */
int
modern_retry(struct modern *m, const char *line, size_t len,
    const struct envelope *env, const struct modern_meta *mm)
{
	const char		*id = line + env->id.off;
	struct modern_req	*q;
	struct modern_input	*in, *next;
	struct rstate		 st;
	enum rstate_verdict	 v;
	cJSON			*params, *state, *responses, *resp;
	uint8_t			 digest[RSTATE_DIGEST_BYTES];
	char			 method[32];
	const char		*why;
	struct envelope		 fenv;
	size_t			 erroff;

	(void)len;
	params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len);
	state = cJSON_GetObjectItemCaseSensitive(params, "requestState");
	if (state == NULL) {
		cJSON_Delete(params);
		return (0);
	}
	if (!cJSON_IsString(state)) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: requestState is not a string");
		return (1);
	}
	v = rstate_decode(modern_key(m), state->valuestring,
	    strlen(state->valuestring), &st);
	if (v != RSTATE_OK) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: requestState is not one mcpd gave (%s)",
		    rstate_verdict_name(v));
		return (1);
	}
	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		method[0] = '\0';
	rstate_digest(method, params, digest);
	if ((why = rstate_mismatch(&st, m->io->principal(m->arg),
	    clock_now_ms(), digest)) != NULL) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: requestState refused: %s", why);
		return (1);
	}
	TAILQ_FOREACH(q, &m->parked, park_entry) {
		if (q->parked == st.parked)
			break;
	}
	if (q == NULL || q->round != st.round || !q->waiting) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: requestState refused: %s", q == NULL ?
		    "the request it continues is no longer waiting (answered, "
		    "cancelled or timed out)" : "it was used already");
		return (1);
	}
	if (hmap_get(m->reqs, id, env->id.len) != NULL) {
		cJSON_Delete(params);
		modern_error(m, id, env->id.len, RPC_INVALID_REQUEST,
		    "invalid request: id %.*s is already in use by a request "
		    "of this connection in flight", (int)env->id.len, id);
		return (1);
	}
	/* The retry's answers go to the server's requests. */
	responses = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
	TAILQ_FOREACH_SAFE(in, &q->inputs, entry, next) {
		resp = cJSON_GetObjectItemCaseSensitive(responses, in->key);
		if (!cJSON_IsObject(resp))
			continue;	/* asked again in the next round */
		modern_answer_server(m, in->down_id, in->down_id_len, resp,
		    0, NULL);
		TAILQ_REMOVE(&q->inputs, in, entry);
		q->ninputs--;
		modern_input_free(m, in);
	}
	cJSON_Delete(params);
	/* The parked request is the retry's now. */
	if (q->id != q->up_id)
		free(q->id);
	q->id = modern_dup(id, env->id.len);
	q->id_len = env->id.len;
	if (q->token != q->up_token)
		free(q->token);
	q->token = NULL;
	q->token_len = 0;
	if (env->progress_token.type != ENVELOPE_ABSENT) {
		q->token = modern_dup(line + env->progress_token.off,
		    env->progress_token.len);
		q->token_len = env->progress_token.len;
	}
	q->level = mm->level[0] != '\0' ? mlevel_index(mm->level) : -1;
	q->can = mm->can;
	q->serial = ++m->next_serial;
	q->waiting = 0;
	modern_level(m, q->level);
	if (q->final != NULL) {
		if (envelope_scan(q->final, q->final_len, &fenv, &erroff) == 0)
			modern_deliver(m, q, q->final, q->final_len, &fenv);
		modern_req_free(m, q);
	} else if (q->ninputs > 0)
		modern_round(m, q);
	modern_arm(m);
	return (1);
}

