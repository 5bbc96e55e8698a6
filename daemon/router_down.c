/*
 * router_down.c -- the server to its clients: replies to the caller that
 * asked, with its own id back; progress to the request's owner with its
 * own token; resources/updated to subscribers; log messages to the
 * clients whose level admits them; requests from the server (ping, roots,
 * sampling, elicitation) answered by mcpd or passed to the one client
 * that can answer them, under an id of mcpd's.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "idtab.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "worker.h"
#include "xmalloc.h"

/*
 * Server to clients.
 */

static void
router_server_response(struct router *r, const char *line, size_t len,
    const struct envelope *env)
{
	struct router_pending	*p;
	struct attachment	*a, *anext;
	struct envelope_edit	 edits[2], tmp;
	struct envelope		 senv;
	size_t			 nedits = 1, erroff;
	char			*filtered = NULL, *scrubbed = NULL;
	int64_t			 id;
	int			 is_error = env->error.type != ENVELOPE_ABSENT;
	int			 numeric;

	numeric = envelope_int64(line, &env->id, &id) == 0;
	if (!numeric || (p = idtab_get(r->pending, id)) == NULL) {
		if (numeric && router_late_reply(r, id)) {
			/* Cancelled, timed out, client gone, mcpd re-executed. */
			if (id < r->handover_id)
				r->handover_replies++;
			else
				r->late_replies++;
			return;
		}
		r->unknown_ids++;
		r->up->violation(r->worker, "unknown-id", "reply to id %.*s, "
		    "which mcpd did not send or already answered",
		    env->id.len > 40 ? 40 : (int)env->id.len,
		    router_text(line, &env->id));
		return;
	}
	switch (p->kind) {
	case ROUTER_PENDING_INTERNAL:
		if (env->error.type == ENVELOPE_ABSENT &&
		    strcmp(p->method, "tools/list") == 0)
			router_tasks_tools(r, line, len);
		id = p->upstream_id;
		router_pending_destroy(r, p);
		/* A list mcpd read: the requests that waited for it go on. */
		if (router_pins_reply(r, id, line, len, is_error) == 2)
			TAILQ_FOREACH_SAFE(a, &r->atts, entry, anext)
				router_replay_attachment(a);
		return;
	case ROUTER_PENDING_CLIENT:
		break;
	}
	/*
	 * A tools/call the server made a task of, though mcpd did not see
	 * one asked for: its id is made mcpd's all the same.
	 */
	if (p->task_op == ROUTER_TASK_NONE && !is_error &&
	    strcmp(p->method, "tools/call") == 0 &&
	    (bytes_has(line, len, "taskId", 6, 4) ||
	    (len <= RPC_PARSE_MAX_BYTES && bytes_has(line, len, "\\u", 2,
	    0))))
		p->task_op = ROUTER_TASK_CREATE;
	if (p->task_op != ROUTER_TASK_NONE &&
	    router_tasks_reply(r, p, line, len))
		return;
	a = p->att;
	/* A task its result's _meta names, as this client may see it. */
	if (router_tasks_reply_meta(r, a, line, len, &scrubbed)) {
		if (envelope_scan(scrubbed, strlen(scrubbed), &senv,
		    &erroff) != 0) {
			free(scrubbed);
			router_client_error(a, p->id, p->id_len,
			    RPC_INTERNAL_ERROR, "server %s answered %s with a "
			    "message mcpd cannot read", r->up->name(r->worker),
			    p->method);
			router_record(r, p, ROUTER_OUTCOME_ERROR,
			    "unreadable reply");
			router_pending_destroy(r, p);
			return;
		}
		line = scrubbed;
		len = strlen(scrubbed);
		env = &senv;
	}
	router_audit_reply(p, line, len, env);
	edits[0].off = env->id.off;
	edits[0].len = env->id.len;
	edits[0].text = p->id;
	edits[0].text_len = p->id_len;
	if ((r->filtered || a->policed) && !is_error) {
		switch (router_filter_reply(a, p->method, line, env,
		    &edits[1])) {
		case FILTER_KEPT:
			break;
		case FILTER_CHANGED:
			filtered = (char *)edits[1].text;
			nedits = 2;
			if (edits[1].off < edits[0].off) {
				tmp = edits[0];
				edits[0] = edits[1];
				edits[1] = tmp;
			}
			break;
		case FILTER_BAD:
			router_client_error(a, p->id, p->id_len,
			    RPC_INTERNAL_ERROR, "server %s answered %s with "
			    "something that is not a list mcpd can filter "
			    "(its filters apply to it)",
			    r->up->name(r->worker), p->method);
			router_record(r, p, ROUTER_OUTCOME_ERROR,
			    "unfilterable list reply");
			router_pending_destroy(r, p);
			free(scrubbed);
			return;
		}
	}
	if (!is_error && strcmp(p->method, "tools/list") == 0)
		router_tasks_tools(r, line, len);
	if (is_error)
		router_elicit_error(r, a, line, len);
	/* A client older than the server: made fit for its revision. */
	if (!is_error && a->version < r->up_version)
		router_version_reply(a, p->method, line, len, env, edits,
		    nedits);
	/* One recipient: the server's buffer may go to it as is. */
	else
		router_send_client_steal(a, line, len, edits, nedits,
		    filtered == NULL && scrubbed == NULL);
	free(filtered);
	free(scrubbed);
	if (is_error && p->sub_uri != NULL &&
	    hmap_del(a->subs, p->sub_uri, strlen(p->sub_uri)) != NULL)
		router_sub_count(r, p->sub_uri, strlen(p->sub_uri), -1);
	router_record(r, p, is_error ? ROUTER_OUTCOME_ERROR : ROUTER_OUTCOME_OK,
	    NULL);
	router_pending_destroy(r, p);
}

void
router_progress_of(struct router *r, const char *line, size_t len,
    const struct envelope *env, uint64_t principal)
{
	struct router_pending	*p;
	struct envelope_edit	 edit;
	int64_t			 token;
	uint64_t		 now = clock_now_ms();

	if (envelope_int64(line, &env->p_progress_token, &token) != 0)
		return;		/* not ours to route */
	if ((p = idtab_get(r->pending, token)) == NULL) {
		/* A call that made a task: its token lasts with the task. */
		router_tasks_progress(r, line, len, env, token, principal);
		return;
	}
	if (p->kind != ROUTER_PENDING_CLIENT || p->token == NULL)
		return;		/* not ours to route (or already done) */
	if (principal != 0 &&
	    p->att->peer->principal(p->att->peer_arg) != principal)
		return;		/* not the task's owner's request */
	edit.off = env->p_progress_token.off;
	edit.len = env->p_progress_token.len;
	edit.text = p->token;
	edit.text_len = p->token_len;
	router_send_client(p->att, line, len, &edit, 1);
	/* Progress proves the request is alive: restart its timeout. */
	p->deadline_ms = now + r->up->conf(r->worker)->request_timeout_ms;
	TAILQ_REMOVE(&r->by_deadline, p, timer_entry);
	TAILQ_INSERT_TAIL(&r->by_deadline, p, timer_entry);
}

static void
router_server_cancelled(struct router *r, const char *line, size_t len,
    const struct envelope *env)
{
	struct router_down	*d;
	struct envelope_edit	 edit;
	char			 idtext[ENVELOPE_INT64_BYTES];

	if (env->p_request_id.type == ENVELOPE_ABSENT ||
	    (d = hmap_get(r->downs_by_server, router_text(line,
	    &env->p_request_id), env->p_request_id.len)) == NULL)
		return;
	edit.off = env->p_request_id.off;
	edit.len = env->p_request_id.len;
	edit.text_len = envelope_print_int64(d->down_id, idtext);
	edit.text = idtext;
	router_send_client(d->att, line, len, &edit, 1);
	router_down_free(r, d);
}

static void
router_server_log(struct router *r, const char *line, size_t len,
    const struct envelope *env)
{
	struct attachment	*a;
	char			 level[16];
	int			 severity;

	if (envelope_string_copy(line, &env->p_level, level,
	    sizeof level) < 0 || (severity = mlevel_index(level)) < 0)
		severity = LOG_INFO;
	TAILQ_FOREACH(a, &r->atts, entry) {
		if (a->level < 0 || severity <= a->level)
			router_send_client(a, line, len, NULL, 0);
	}
}

static void
router_server_notification(struct router *r, const char *line, size_t len,
    const struct envelope *env)
{
	struct attachment	*a;
	char			 method[ROUTER_METHOD_MAX], uri[ROUTER_URI_MAX];

	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		method[0] = '\0';
	if (strcmp(method, "notifications/tasks/status") == 0) {
		router_tasks_status(r, line, len);
		return;
	}
	if (strcmp(method, "notifications/elicitation/complete") == 0) {
		router_elicit_complete(r, line, len);
		return;
	}
	/* One about a task: its owner's alone. */
	if (router_tasks_notification(r, line, len, method))
		return;
	if (strcmp(method, "notifications/progress") == 0) {
		router_progress_of(r, line, len, env, 0);
		return;
	}
	if (strcmp(method, "notifications/cancelled") == 0) {
		router_server_cancelled(r, line, len, env);
		return;
	}
	if (strcmp(method, "notifications/message") == 0) {
		router_server_log(r, line, len, env);
		return;
	}
	if (strcmp(method, "notifications/resources/updated") == 0) {
		if (envelope_string_copy(line, &env->p_uri, uri,
		    sizeof uri) < 0)
			return;
		TAILQ_FOREACH(a, &r->atts, entry) {
			if (hmap_get(a->subs, uri, strlen(uri)) != NULL)
				router_send_client(a, line, len, NULL, 0);
		}
		return;
	}
	/* A list changed: mcpd reads it again before clients get theirs. */
	router_pins_list_changed(r, method);
	/* list_changed and the rest: each client whose revision has it. */
	TAILQ_FOREACH(a, &r->atts, entry)
		if (router_version_notify(a, method))
			router_send_client(a, line, len, NULL, 0);
}

/*
 * The client most likely to be the one this server request is for, among
 * those that can take it (router_version.c).
 */
static struct attachment *
router_pick_client(struct router *r, const struct pversion_needs *needs)
{
	struct attachment	*a, *best = NULL;

	TAILQ_FOREACH(a, &r->atts, entry) {
		if (!router_client_can(a, needs))
			continue;
		if (a->ninflight == 0)
			continue;
		if (best == NULL || a->last_request_us > best->last_request_us)
			best = a;
	}
	return (best);
}

/*
 * A request of the server's refused: answered to the server, or, for a
 * request of the worker's (why not NULL), said in *why for it.
 */
static int
router_server_refuse(struct router *r, const char *id, size_t id_len,
    int code, const char *message, char **why)
{
	if (why != NULL)
		*why = xstrdup(message);
	else
		router_server_reply(r, id, id_len, NULL, code, message);
	return (-1);
}

/*
 * A request of the server's, to the client that can take it; with
 * caller, a request for the input a 2026 server asked of caller's
 * request, to caller alone, or refused saying why (router.h).
 */
static int
router_server_request_at(struct router *r, const char *line, size_t len,
    const struct envelope *env, struct attachment *caller, char **why)
{
	const char		*id = router_text(line, &env->id);
	struct attachment	*a;
	struct router_down	*d;
	struct envelope_edit	 edit;
	char			 method[ROUTER_METHOD_MAX], *text;
	char			 idtext[ENVELOPE_INT64_BYTES];
	char			*rewritten = NULL, *plain;
	struct envelope		 renv;
	struct pversion_needs	 needs;
	size_t			 erroff;
	int			 owned, rc;

	if (envelope_string_copy(line, &env->method, method,
	    sizeof method) < 0)
		method[0] = '\0';
	if (caller == NULL && strcmp(method, "ping") == 0) {
		router_server_reply(r, id, env->id.len, cJSON_CreateObject(),
		    0, NULL);
		return (0);
	}
	/* About a task a client runs for it (router_ctasks.c). */
	if (caller == NULL &&
	    router_ctasks_server_request(r, line, len, env, method))
		return (0);
	/* Its instance's roots, or the configured ones (router_roots.c). */
	if (strcmp(method, "roots/list") == 0 &&
	    (r->up->conf(r->worker)->share != CONF_SHARE_GLOBAL ||
	    ((r->up->conf(r->worker)->client_caps & CONF_CAP_ROOTS) &&
	    r->up->conf(r->worker)->nroots > 0))) {
		router_roots_server_request(r, id, env->id.len);
		return (0);
	}
	/*
	 * One that belongs to a task goes to the task's owner, or is
	 * refused: never to another client.
	 */
	a = NULL;
	owned = 0;
	if (strcmp(method, "sampling/createMessage") == 0 ||
	    strcmp(method, "elicitation/create") == 0) {
		router_request_needs(method, line, env, &needs);
		owned = router_tasks_owner(r, line, len, method, &a,
		    &rewritten);
		if (owned > 0 && (envelope_scan(rewritten, strlen(rewritten),
		    &renv, &erroff) != 0 || renv.id.type != env->id.type)) {
			free(rewritten);
			rewritten = NULL;
			a = NULL;
		}
		if (owned > 0 && a != NULL && (!router_client_can(a, &needs) ||
		    (caller != NULL && a != caller))) {
			free(rewritten);
			rewritten = NULL;
			a = NULL;
		}
		if (owned == 0 && caller == NULL)
			a = router_pick_client(r, &needs);
		else if (owned == 0 && router_client_can(caller, &needs))
			a = caller;
		else if (owned == 0) {
			xasprintf(&text, "the client that made the request "
			    "(%s) did not declare that it can answer %s%s",
			    caller->client_name[0] != '\0' ?
			    caller->client_name : "unnamed", method,
			    strcmp(method, "sampling/createMessage") == 0 ?
			    " (sampling, and tools if the request has them)" :
			    " (elicitation, in the mode the request asks)");
			rc = router_server_refuse(r, id, env->id.len,
			    RPC_METHOD_NOT_FOUND, text, why);
			free(text);
			return (rc);
		}
	}
	if (a == NULL ||
	    hmap_get(r->downs_by_server, id, env->id.len) != NULL) {
		free(rewritten);
		if (owned != 0)
			return (router_server_refuse(r, id, env->id.len,
			    RPC_INVALID_PARAMS, "the task this request is for "
			    "has no client through mcpd that can answer it",
			    why));
		xasprintf(&text, "no client attached through mcpd can handle "
		    "%s", method[0] != '\0' ? method : "this request");
		rc = router_server_refuse(r, id, env->id.len,
		    RPC_METHOD_NOT_FOUND, text, why);
		free(text);
		return (rc);
	}

	d = router_down_new(r, a, id, env->id.len);
	edit.text_len = envelope_print_int64(d->down_id, idtext);
	edit.text = idtext;
	if (strcmp(method, "elicitation/create") == 0)
		router_elicit_sent(r, a, line, len);
	/* With "task" to a client that runs none: made plain. */
	if (router_ctasks_outgoing(r, a, d, rewritten != NULL ? rewritten :
	    line, rewritten != NULL ? strlen(rewritten) : len, method,
	    &plain)) {
		free(rewritten);
		rewritten = plain;
		if (envelope_scan(rewritten, strlen(rewritten), &renv,
		    &erroff) != 0) {
			/* Printed by cJSON: cannot be. */
			free(rewritten);
			rc = router_server_refuse(r, d->server_id,
			    d->server_id_len, RPC_INTERNAL_ERROR,
			    "mcpd could not pass this request on", why);
			router_down_free(r, d);
			return (rc);
		}
	}
	if (rewritten != NULL) {
		line = rewritten;
		len = strlen(rewritten);
		env = &renv;
	}
	edit.off = env->id.off;
	edit.len = env->id.len;
	router_version_send(a, method, line, len, env, &edit);
	free(rewritten);
	return (0);
}

static void
router_server_request(struct router *r, const char *line, size_t len,
    const struct envelope *env)
{
	(void)router_server_request_at(r, line, len, env, NULL, NULL);
}

int
router_server_request_for(struct router *r, const char *line, size_t len,
    int64_t upstream_id, char **why)
{
	struct router_pending	*p;
	struct envelope		 env;
	size_t			 erroff;

	*why = NULL;
	if (envelope_scan(line, len, &env, &erroff) != 0 ||
	    env.method.type != ENVELOPE_STRING ||
	    (env.id.type != ENVELOPE_STRING &&
	    env.id.type != ENVELOPE_NUMBER)) {
		*why = xstrdup("mcpd could not read the request");
		return (-1);
	}
	if ((p = idtab_get(r->pending, upstream_id)) == NULL ||
	    p->kind != ROUTER_PENDING_CLIENT || p->att == NULL) {
		*why = xstrdup("nobody waits for the request it is for");
		return (-1);
	}
	return (router_server_request_at(r, line, len, &env, p->att, why));
}

void
router_server_line(struct router *r, const char *line, size_t len,
    const struct envelope_span *plain)
{
	struct envelope	 env;
	size_t		 erroff;

	if (envelope_scan_plain(line, len, plain, &env, &erroff) != 0) {
		r->up->dropped_line(r->worker, line, len, erroff);
		return;
	}
	if (env.method.type == ENVELOPE_STRING) {
		if (env.id.type == ENVELOPE_ABSENT)
			router_server_notification(r, line, len, &env);
		else if (env.id.type == ENVELOPE_STRING ||
		    env.id.type == ENVELOPE_NUMBER)
			router_server_request(r, line, len, &env);
		else
			r->up->violation(r->worker, "invalid", "request with "
			    "an id that is not a string or number");
		return;
	}
	if (env.method.type == ENVELOPE_ABSENT &&
	    env.id.type != ENVELOPE_ABSENT &&
	    (env.result.type != ENVELOPE_ABSENT) !=
	    (env.error.type != ENVELOPE_ABSENT)) {
		router_server_response(r, line, len, &env);
		return;
	}
	r->up->violation(r->worker, "invalid", "not a JSON-RPC request, "
	    "notification or response");
}

void
router_server_oversize(struct router *r, size_t total, const char *id,
    size_t id_len)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct envelope_value	 v;
	struct router_pending	*p;
	int64_t			 upstream_id;
	char			 reason[96];

	v.type = ENVELOPE_NUMBER;
	v.off = 0;
	v.len = id_len;
	if (id == NULL || envelope_int64(id, &v, &upstream_id) != 0 ||
	    (p = idtab_get(r->pending, upstream_id)) == NULL)
		return;
	if (p->kind != ROUTER_PENDING_CLIENT) {
		router_pending_destroy(r, p);
		return;
	}
	snprintf(reason, sizeof reason, "response of %zu bytes", total);
	router_record(r, p, ROUTER_OUTCOME_OVERSIZE, reason);
	router_client_error(p->att, p->id, p->id_len,
	    MCPD_ERR_MESSAGE_TOO_LARGE, "response of %zu bytes from %s "
	    "exceeds max_message_bytes (%zu); it was discarded", total,
	    r->up->name(r->worker), cs->max_message_bytes);
	router_pending_destroy(r, p);
}
