/*
 * router_up.c -- clients to their server: every request under a fresh
 * upstream id (and progress token); initialize answered from the cached
 * upstream result, in the client's own revision (router_version.c);
 * subscriptions and log levels counted across clients;
 * cancellations passed on; requests held while the server starts and
 * refused, with the reason, while it cannot be reached.
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
#include "hmap.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "worker.h"
#include "xmalloc.h"

static enum router_line router_client_handle(struct attachment *,
		    const char *, size_t, const struct envelope *);

/*
 * Clients to server.
 */

void
router_set_upstream_level(struct router *r)
{
	struct attachment	*a;
	int			 level = -1;
	cJSON			*params;

	TAILQ_FOREACH(a, &r->atts, entry) {
		if (a->level > level)
			level = a->level;
	}
	if (level < 0 || level == r->upstream_level)
		return;
	r->upstream_level = level;
	if (r->up->availability(r->worker) != WORKER_AVAIL_READY)
		return;
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "level", mlevel_names[level]);
	router_internal_request(r, "logging/setLevel", params);
}

static void
router_set_level(struct attachment *a, const char *line,
    const struct envelope *env)
{
	char	 level[16];
	int	 index;

	if (envelope_string_copy(line, &env->p_level, level,
	    sizeof level) < 0 || (index = mlevel_index(level)) < 0) {
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, RPC_INVALID_PARAMS, "invalid params: level "
		    "must be one of debug, info, notice, warning, error, "
		    "critical, alert, emergency");
		return;
	}
	a->level = index;
	router_set_upstream_level(a->router);
	router_client_result(a, router_text(line, &env->id), env->id.len,
	    "{}", 2);
}

static void
router_initialize(struct attachment *a, const char *line, size_t len,
    const struct envelope *env)
{
	cJSON		*msg = NULL, *caps, *info, *name;
	char		*result;
	size_t		 i;

	/* Only the params, and only when small: never a tree of 16 MiB. */
	if (env->params.type == ENVELOPE_OBJECT &&
	    env->params.len <= RPC_PARSE_MAX_BYTES)
		msg = cJSON_ParseWithLength(router_text(line, &env->params),
		    env->params.len);
	/* Its revision, and what it can be asked in it. */
	router_version_hello(a, msg);
	router_caps_hello(a, cJSON_GetObjectItemCaseSensitive(msg,
	    "capabilities"));
	if (msg != NULL) {
		caps = cJSON_GetObjectItemCaseSensitive(msg, "capabilities");
		a->cap_roots = cJSON_IsObject(
		    cJSON_GetObjectItemCaseSensitive(caps, "roots"));
		/* Who it is, for status: printable, short. */
		info = cJSON_GetObjectItemCaseSensitive(msg, "clientInfo");
		name = cJSON_GetObjectItemCaseSensitive(info, "name");
		if (cJSON_IsString(name)) {
			for (i = 0; name->valuestring[i] != '\0' &&
			    i < sizeof a->client_name - 1; i++)
				a->client_name[i] =
				    name->valuestring[i] < 0x20 ||
				    name->valuestring[i] == 0x7f ? '?' :
				    name->valuestring[i];
			a->client_name[i] = '\0';
		}
		cJSON_Delete(msg);
	}
	result = router_version_init_result(a);
	router_client_result(a, router_text(line, &env->id), env->id.len,
	    result, strlen(result));
	free(result);
	/* After the answer: this may move the client to an instance. */
	router_roots_initialize(a);
}

/* Count subscribers of a uri; returns the new count. */
uintptr_t
router_sub_count(struct router *r, const char *uri, size_t urilen, int delta)
{
	uintptr_t	 count;

	count = (uintptr_t)hmap_get(r->subs, uri, urilen);
	count = delta > 0 ? count + 1 : (count > 0 ? count - 1 : 0);
	if (count == 0)
		hmap_del(r->subs, uri, urilen);
	else
		hmap_put(r->subs, uri, urilen, (void *)count);
	return (count);
}

/*
 * Subscriptions are counted per uri: the server sees the first subscribe
 * and the last unsubscribe, and answers those itself; mcpd answers the
 * others.  A client subscribing twice, or unsubscribing what it never
 * subscribed to, changes nothing.
 */
static void
router_subscribe(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, uint64_t id_hash, int subscribe)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	const char		*id = router_text(line, &env->id);
	char			*uri;
	size_t			 urilen;
	int			 has, forward;

	if ((uri = envelope_string_dup(line, &env->p_uri, ROUTER_URI_MAX,
	    &urilen)) == NULL) {
		router_client_error(a, id, env->id.len, RPC_INVALID_PARAMS,
		    "invalid params: uri must be a string of at most %d bytes",
		    ROUTER_URI_MAX - 1);
		return;
	}
	has = hmap_get(a->subs, uri, urilen) != NULL;
	if (subscribe && !has && hmap_count(a->subs) >=
	    r->mcpd->conf->client_max_subscriptions) {
		router_client_error(a, id, env->id.len, MCPD_ERR_LIMIT,
		    "this connection has %zu subscriptions, the most mcpd "
		    "keeps for one client (client_max_subscriptions)",
		    hmap_count(a->subs));
		free(uri);
		return;
	}
	forward = 0;
	if (subscribe && !has) {
		hmap_put(a->subs, uri, urilen, (void *)1);
		forward = router_sub_count(r, uri, urilen, 1) == 1;
	} else if (!subscribe && has) {
		hmap_del(a->subs, uri, urilen);
		forward = router_sub_count(r, uri, urilen, -1) == 0;
	}
	if (!forward) {
		router_client_result(a, id, env->id.len, "{}", 2);
		free(uri);
		return;
	}
	if (subscribe)
		router_client_request(a, line, len, env, id_hash,
		    "resources/subscribe", strlen("resources/subscribe"));
	else
		router_client_request(a, line, len, env, id_hash,
		    "resources/unsubscribe", strlen("resources/unsubscribe"));
	/* If the server refuses the subscription, it did not happen. */
	if (subscribe && (p = router_find_id_hash(a, id, env->id.len,
	    id_hash)) != NULL)
		p->sub_uri = uri;
	else
		free(uri);
}

/* Forward a client request upstream under a fresh id. */
struct router_pending *
router_client_request(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, uint64_t id_hash, const char *method,
    size_t method_len)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	struct envelope_edit	 edits[2];
	const char		*id = router_text(line, &env->id);
	const char		*upstream;
	size_t			 n = 0, upstream_len;

	/* router_client_request_ready has refused an id already in use. */
	p = router_pending_new(r, ROUTER_PENDING_CLIENT, a, id, env->id.len,
	    id_hash, method, method_len);
	a->last_request_us = p->started_us;
	router_audit_begin(r, p, line, len, env);
	router_apps_count(a, p->method, 0);
	/* The text of p's upstream id, until the next pending. */
	upstream = r->up_text;
	upstream_len = r->up_len;

	edits[n].off = env->id.off;
	edits[n].len = env->id.len;
	edits[n].text = upstream;
	edits[n].text_len = upstream_len;
	n++;
	if (env->progress_token.type == ENVELOPE_STRING ||
	    env->progress_token.type == ENVELOPE_NUMBER) {
		p->token = xstrndup(router_text(line, &env->progress_token),
		    env->progress_token.len);
		p->token_len = env->progress_token.len;
		edits[n].off = env->progress_token.off;
		edits[n].len = env->progress_token.len;
		edits[n].text = upstream;
		edits[n].text_len = upstream_len;
		if (edits[n].off < edits[0].off) {
			struct envelope_edit tmp = edits[0];
			edits[0] = edits[n];
			edits[n] = tmp;
		}
		n++;
	}
	router_send_server(r, line, len, edits, n);
	return (p);
}

static void
router_client_cancelled(struct attachment *a, const char *line, size_t len,
    const struct envelope *env)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	struct router_waiting	*wt, *next;
	struct envelope_edit	 edit;
	struct envelope		 wenv;
	char			 upstream[ENVELOPE_INT64_BYTES];
	size_t			 erroff;

	if (env->p_request_id.type == ENVELOPE_ABSENT)
		return;
	p = router_find_id(a, router_text(line, &env->p_request_id),
	    env->p_request_id.len);
	if (p == NULL) {
		/* Perhaps it is still waiting for the server to start. */
		TAILQ_FOREACH_SAFE(wt, &r->waiting, entry, next) {
			if (wt->att != a || envelope_scan(wt->line, wt->len,
			    &wenv, &erroff) != 0)
				continue;
			if (wenv.id.len == env->p_request_id.len &&
			    memcmp(router_text(wt->line, &wenv.id),
			    router_text(line, &env->p_request_id),
			    wenv.id.len) == 0)
				router_waiting_free(r, wt);
		}
		return;
	}
	edit.off = env->p_request_id.off;
	edit.len = env->p_request_id.len;
	edit.text_len = envelope_print_int64(p->upstream_id, upstream);
	edit.text = upstream;
	router_send_server(r, line, len, &edit, 1);
	router_record(r, p, ROUTER_OUTCOME_CANCELLED,
	    "cancelled by the client");
	router_pending_destroy(r, p);
}

/* A client answers a request the server sent it. */
static void
router_client_response(struct attachment *a, const char *line, size_t len,
    const struct envelope *env)
{
	struct router		*r = a->router;
	struct router_down	*d;
	struct envelope_edit	 edit;
	int64_t			 id;

	if (envelope_int64(line, &env->id, &id) != 0 ||
	    (d = hmap_get_i64(r->downs, id)) == NULL || d->att != a)
		return;		/* late, or not a request we sent it */
	if ((d->task_aug || d->ctask != NULL) &&
	    router_ctasks_response(a, d, line, len))
		return;
	edit.off = env->id.off;
	edit.len = env->id.len;
	edit.text = d->server_id;
	edit.text_len = d->server_id_len;
	router_send_server(r, line, len, &edit, 1);
	router_down_free(r, d);
}

static void
router_hold(struct attachment *a, const char *line, size_t len,
    const struct envelope *env, int for_pins)
{
	struct router	*r = a->router;
	struct router_waiting *wt;
	size_t		 cap = r->mcpd->conf->client_max_held_bytes;
	const char	*setting;

	if (a->held_bytes + len > cap) {
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, MCPD_ERR_LIMIT, "server %s is starting and "
		    "this connection already has %zu bytes of requests "
		    "waiting for it (client_max_held_bytes %zu)",
		    r->up->name(r->worker), a->held_bytes, cap);
		return;
	}
	if (r->nwaiting >= ROUTER_WAITING_MAX) {
		router_client_error(a, router_text(line, &env->id),
		    env->id.len, MCPD_ERR_SERVER_UNAVAILABLE, "server %s is "
		    "starting and %d requests are already waiting for it",
		    r->up->name(r->worker), ROUTER_WAITING_MAX);
		return;
	}
	wt = xcalloc(1, sizeof *wt);
	wt->att = a;
	wt->line = xstrndup(line, len);
	wt->len = len;
	/* mcpd's own list request times out by then, and this goes on. */
	wt->for_pins = for_pins;
	wt->deadline_ms = clock_now_ms() + (for_pins ?
	    2ULL * r->up->conf(r->worker)->request_timeout_ms :
	    r->up->start_limit(r->worker, &setting));
	TAILQ_INSERT_TAIL(&r->waiting, wt, entry);
	r->nwaiting++;
	a->nwaiting++;
	a->held_bytes += len;
	budget_add(r->mcpd, len);
	router_arm_sweep(r);
	r->up->wanted(r->worker, "a request came");
}

/*
 * The requests mcpd answers or counts itself, told apart by their length
 * first (method[0, len) need not end with a NUL).
 */
enum router_own {
	ROUTER_OWN_NONE,
	ROUTER_OWN_INITIALIZE,
	ROUTER_OWN_SET_LEVEL,
	ROUTER_OWN_SUBSCRIBE,
	ROUTER_OWN_UNSUBSCRIBE,
	ROUTER_OWN_INITIALIZED,		/* notifications, dropped */
	ROUTER_OWN_ROOTS_CHANGED,
	ROUTER_OWN_CANCELLED,
};

#define ROUTER_METHOD_IS(m, len, s) \
	((len) == sizeof s - 1 && memcmp((m), s, sizeof s - 1) == 0)

static enum router_own
router_own_method(const char *m, size_t len)
{
	switch (len) {
	case sizeof "initialize" - 1:
		if (ROUTER_METHOD_IS(m, len, "initialize"))
			return (ROUTER_OWN_INITIALIZE);
		break;
	case sizeof "logging/setLevel" - 1:
		if (ROUTER_METHOD_IS(m, len, "logging/setLevel"))
			return (ROUTER_OWN_SET_LEVEL);
		break;
	case sizeof "resources/subscribe" - 1:
		if (ROUTER_METHOD_IS(m, len, "resources/subscribe"))
			return (ROUTER_OWN_SUBSCRIBE);
		break;
	case sizeof "resources/unsubscribe" - 1:
		if (ROUTER_METHOD_IS(m, len, "resources/unsubscribe"))
			return (ROUTER_OWN_UNSUBSCRIBE);
		break;
	case sizeof "notifications/initialized" - 1:
		if (ROUTER_METHOD_IS(m, len, "notifications/initialized"))
			return (ROUTER_OWN_INITIALIZED);
		break;
	case sizeof "notifications/roots/list_changed" - 1:
		if (ROUTER_METHOD_IS(m, len,
		    "notifications/roots/list_changed"))
			return (ROUTER_OWN_ROOTS_CHANGED);
		break;
	case sizeof "notifications/cancelled" - 1:
		if (ROUTER_METHOD_IS(m, len, "notifications/cancelled"))
			return (ROUTER_OWN_CANCELLED);
		break;
	}
	return (ROUTER_OWN_NONE);
}

static void
router_client_request_ready(struct attachment *a, const char *line,
    size_t len, const struct envelope *env, const char *method,
    size_t method_len)
{
	const char	*id = router_text(line, &env->id);
	uint32_t	 cap = a->router->mcpd->conf->client_max_inflight;
	uint64_t	 id_hash = router_id_hash(a, id, env->id.len);

	/* Refused before anything is counted (subscriptions, levels). */
	if (router_find_id_hash(a, id, env->id.len, id_hash) != NULL) {
		router_client_error(a, id, env->id.len, RPC_INVALID_REQUEST,
		    "invalid request: this id is already in use by a request "
		    "in flight");
		return;
	}
	if (a->ninflight >= cap) {
		router_client_error(a, id, env->id.len, MCPD_ERR_LIMIT,
		    "this connection has %zu requests in flight to %s, the "
		    "most mcpd holds for one client (client_max_inflight)",
		    a->ninflight, a->router->up->name(a->router->worker));
		return;
	}
	switch (router_own_method(method, method_len)) {
	case ROUTER_OWN_INITIALIZE:
		router_initialize(a, line, len, env);
		break;
	case ROUTER_OWN_SET_LEVEL:
		router_set_level(a, line, env);
		break;
	case ROUTER_OWN_SUBSCRIBE:
		router_subscribe(a, line, len, env, id_hash, 1);
		break;
	case ROUTER_OWN_UNSUBSCRIBE:
		router_subscribe(a, line, len, env, id_hash, 0);
		break;
	default:
		if (!router_tasks_request(a, line, len, env, id_hash, method,
		    method_len))
			(void)router_client_request(a, line, len, env, id_hash,
			    method, method_len);
		break;
	}
}

/*
 * The scanner refused the line.  Most often it is not JSON at all; when it
 * is (an array, a bare value, an object with duplicate members), it is an
 * invalid request instead.  Only this error path pays for a full parse.
 */
static void
router_client_bad_line(struct attachment *a, const char *line, size_t len,
    size_t erroff)
{
	char	*why;
	int	 code;

	code = rpc_scan_error(line, len, erroff, &why);
	router_client_error(a, NULL, 0, code, "%s", why);
	free(why);
}

enum router_line
router_client_line(struct attachment *a, const char *line, size_t len)
{
	enum router_line	 what;

	what = router_client_handle(a, line, len, NULL);
	router_wait_turn(a);
	return (what);
}

enum router_line
router_client_line_env(struct attachment *a, const char *line, size_t len,
    const struct envelope *scanned)
{
	enum router_line	 what;

	what = router_client_handle(a, line, len, scanned);
	router_wait_turn(a);
	return (what);
}

static enum router_line
router_client_handle(struct attachment *a, const char *line, size_t len,
    const struct envelope *scanned)
{
	struct router	*r = a->router;
	struct envelope	 env;
	struct router_refusal refusal;
	char		 mbuf[ROUTER_METHOD_MAX], *why;
	const char	*invalid, *method;
	size_t		 erroff, mlen;
	enum rpc_kind	 kind;

	if (scanned != NULL)
		env = *scanned;
	else if (envelope_scan(line, len, &env, &erroff) != 0) {
		router_client_bad_line(a, line, len, erroff);
		return (ROUTER_LINE_TAKEN);
	}
	switch ((kind = rpc_classify_envelope(line, &env, &invalid))) {
	case RPC_KIND_RESPONSE:
		if (!router_roots_reply(a, line, &env))
			router_client_response(a, line, len, &env);
		return (ROUTER_LINE_TAKEN);
	case RPC_KIND_INVALID:
		router_client_error(a, rpc_envelope_has_id(&env) ?
		    router_text(line, &env.id) : NULL, env.id.len,
		    RPC_INVALID_REQUEST, "%s", invalid);
		return (ROUTER_LINE_TAKEN);
	case RPC_KIND_REQUEST:
	case RPC_KIND_NOTIFICATION:
		break;
	}
	if (env.id.len > ROUTER_ID_MAX_BYTES ||
	    env.progress_token.len > ROUTER_ID_MAX_BYTES) {
		router_client_error(a, kind == RPC_KIND_REQUEST ?
		    router_text(line, &env.id) : NULL, env.id.len,
		    RPC_INVALID_REQUEST, "invalid request: an id or progress "
		    "token of more than %d bytes", ROUTER_ID_MAX_BYTES);
		return (ROUTER_LINE_TAKEN);
	}
	/*
	 * The method: its text in the line when it has no escape (then
	 * without a NUL after it), else decoded into mbuf.
	 */
	if (env.method.plain && env.method.len - 2 < sizeof mbuf) {
		method = router_text(line, &env.method) + 1;
		mlen = env.method.len - 2;
	} else {
		if (envelope_string_copy(line, &env.method, mbuf,
		    sizeof mbuf) < 0)
			snprintf(mbuf, sizeof mbuf, "(long method name)");
		method = mbuf;
		mlen = strlen(mbuf);
	}

	if (kind == RPC_KIND_NOTIFICATION) {
		switch (router_own_method(method, mlen)) {
		case ROUTER_OWN_INITIALIZED:
		case ROUTER_OWN_ROOTS_CHANGED:
			/* mcpd's own; it asks for roots if they matter. */
			router_roots_ask(a);
			return (ROUTER_LINE_TAKEN);
		case ROUTER_OWN_CANCELLED:
			router_client_cancelled(a, line, len, &env);
			return (ROUTER_LINE_TAKEN);
		default:
			break;
		}
		if (router_ctasks_notification(a, line, len, method, mlen))
			return (ROUTER_LINE_TAKEN);
		if (r->up->availability(r->worker) == WORKER_AVAIL_READY)
			router_send_server(r, line, len, NULL, 0);
		return (ROUTER_LINE_TAKEN);
	}

	if (mlen >= strlen(MCPD_METHOD_PREFIX) && memcmp(method,
	    MCPD_METHOD_PREFIX, strlen(MCPD_METHOD_PREFIX)) == 0)
		return (ROUTER_LINE_CONTROL);
	/*
	 * A hidden tool, prompt or resource never reaches the server, nor
	 * one the client's policy denies.
	 */
	if (r->filtered || a->policed) {
		if (method != mbuf) {
			memcpy(mbuf, method, mlen);
			mbuf[mlen] = '\0';
			method = mbuf;
		}
		if (router_filter_refuses(a, line, &env, method, &refusal)) {
			router_apps_count(a, method, 1);
			router_audit_refused(a, line, len, &env, method,
			    &refusal);
			return (ROUTER_LINE_TAKEN);
		}
	}
	if (budget_exhausted(r->mcpd) && !r->replaying) {
		router_client_error(a, router_text(line, &env.id), env.id.len,
		    MCPD_ERR_LIMIT, "mcpd's memory budget (memory_budget_bytes "
		    "%zu) is used up; try again when clients have read their "
		    "replies", r->mcpd->conf->memory_budget_bytes);
		return (ROUTER_LINE_TAKEN);
	}
	if (a->refused != NULL) {
		router_client_error(a, router_text(line, &env.id), env.id.len,
		    MCPD_ERR_LIMIT, "%s", a->refused);
		return (ROUTER_LINE_TAKEN);
	}
	/*
	 * Not yet at its instance (a template's router), or its roots,
	 * which choose the instance, are asked for: initialize is answered,
	 * the rest waits.
	 */
	if ((a->roots_pending || a->at_template) &&
	    r->up->availability(r->worker) != WORKER_AVAIL_REFUSE) {
		if (router_own_method(method, mlen) == ROUTER_OWN_INITIALIZE &&
		    r->up->has_init(r->worker))
			router_client_request_ready(a, line, len, &env, method,
			    mlen);
		else
			router_hold(a, line, len, &env, 0);
		return (ROUTER_LINE_TAKEN);
	}
	switch (r->up->availability(r->worker)) {
	case WORKER_AVAIL_READY:
		/* mcpd reads the server's list of this kind first. */
		if (router_pins_waits(a, method, mlen))
			router_hold(a, line, len, &env, 1);
		else
			router_client_request_ready(a, line, len, &env, method,
			    mlen);
		break;
	case WORKER_AVAIL_WAIT:
		router_hold(a, line, len, &env, 0);
		break;
	case WORKER_AVAIL_REFUSE:
		why = r->up->unavailable_reason(r->worker);
		router_client_error(a, router_text(line, &env.id), env.id.len,
		    r->up->unavailable_code(r->worker), "%s", why);
		free(why);
		break;
	}
	return (ROUTER_LINE_TAKEN);
}
