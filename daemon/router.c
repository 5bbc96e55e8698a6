/*
 * router.c -- route one server's session among its attached clients: the
 * timers of pending requests, session events and attachments.  The
 * pending requests themselves (their ids, outcomes and statistics) live
 * in router_pending.c, output in router_out.c, the two directions of
 * traffic in router_up.c and router_down.c, tasks in router_tasks.c;
 * router_int.h is what the router files share.
 *
 * Messages are routed from their envelope (envelope.c): one scan finds the
 * id, method, progress token and the few params the rules need, and new
 * ids are spliced into the byte stream, so a large result is copied once
 * into the receiving client's output buffer and never parsed into a tree.
 * cJSON is used only for the small messages mcpd answers itself.
 *
 * Invariants:
 * - Every client request that is accepted gets exactly one answer: the
 *   server's reply, or an error from mcpd (timeout, server down, oversize),
 *   unless the client cancelled it or went away.
 * - Upstream ids come from the worker's counter, which never restarts, so
 *   a late reply from an earlier session can never match a newer request.
 * - A pending request is in r->pending (by upstream id) from the moment it
 *   is forwarded until its reply arrives or nobody waits for it any more
 *   (answered by mcpd, cancelled, its client gone); it is also in its
 *   attachment's id map and in-flight list.  Nothing is kept after that:
 *   a late reply is recognised by its id alone, one this session issued
 *   (first_id..last_id) that is no longer pending, and dropped quietly.
 *   So a cancelled or abandoned request costs no memory at all.
 * - Timers: request timeouts are uniform per server, so the deadline list
 *   stays sorted by appending (progress moves an entry to the tail); the
 *   hard cap is kept in start order; one sweep timer serves both, plus
 *   requests waiting for a starting server.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "budget.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "esc.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

static void
router_timeout(struct router *r, struct router_pending *p)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct attachment *a, *next;
	char		 reason[96];
	int		 lost;

	if (p->kind != ROUTER_PENDING_CLIENT) {
		lost = router_pins_lost(r, p->upstream_id);
		router_pending_destroy(r, p);
		/* Requests that waited for mcpd's own list go on. */
		if (lost)
			TAILQ_FOREACH_SAFE(a, &r->atts, entry, next)
				router_replay_attachment(a);
		return;
	}
	snprintf(reason, sizeof reason, "timed out after %.1f s",
	    (double)(clock_now_us() - p->started_us) / 1e6);
	router_record(r, p, ROUTER_OUTCOME_TIMEOUT, reason);
	if (p->long_wait) {
		/* tasks/result: the task outlived its time, not the server. */
		router_client_error(p->att, p->id, p->id_len,
		    RPC_REQUEST_TIMEOUT, "request timed out: the task on %s "
		    "did not end within its time to live (%s)",
		    r->up->name(r->worker), reason);
		router_cancel_upstream(r, p, "request timed out");
		router_pending_destroy(r, p);
		return;
	}
	if (clock_now_ms() >= p->hard_deadline_ms)
		router_client_error(p->att, p->id, p->id_len,
		    RPC_REQUEST_TIMEOUT, "request timed out: %s did not finish "
		    "%s within %llu ms, the limit even with progress (ten "
		    "times request_timeout_ms)", r->up->name(r->worker),
		    p->method, (unsigned long long)cs->request_timeout_ms *
		    ROUTER_HARD_TIMEOUT_FACTOR);
	else
		router_client_error(p->att, p->id, p->id_len,
		    RPC_REQUEST_TIMEOUT, "request timed out: %s did not answer "
		    "%s within %u ms (request_timeout_ms)",
		    r->up->name(r->worker), p->method, cs->request_timeout_ms);
	router_cancel_upstream(r, p, "request timed out");
	router_pending_destroy(r, p);
	r->up->request_timed_out(r->worker);
}

/* Forget a held request (on r->waiting or already taken off it). */
static void
router_waiting_release(struct router *r, struct router_waiting *wt, int listed)
{
	struct attachment	*a = wt->att;

	if (listed)
		TAILQ_REMOVE(&r->waiting, wt, entry);
	r->nwaiting--;
	a->nwaiting--;
	a->held_bytes -= wt->len;
	r->active_ms = clock_now_ms();
	budget_sub(r->mcpd, wt->len);
	free(wt->line);
	free(wt);
	router_check_idle(a);
}

void
router_waiting_free(struct router *r, struct router_waiting *wt)
{
	router_waiting_release(r, wt, 1);
}

/* Answer a held request with an error (the server will not be ready). */
static void
router_waiting_fail(struct router *r, struct router_waiting *wt,
    const char *why)
{
	struct envelope	 env;
	size_t		 erroff;

	if (envelope_scan(wt->line, wt->len, &env, &erroff) == 0 &&
	    env.id.type != ENVELOPE_ABSENT)
		router_client_error(wt->att, router_text(wt->line, &env.id),
		    env.id.len, r->up->unavailable_code(r->worker), "%s", why);
	router_waiting_free(r, wt);
}

static void
router_sweep_cb(evutil_socket_t fd, short events, void *arg)
{
	struct router		*r = arg;
	struct router_pending	*p, *next;
	struct router_waiting	*wt, *wnext;
	uint64_t		 now = clock_now_ms();
	char			*why;
	const char		*setting;
	uint32_t		 limit;

	r->sweep_armed = 0;
	while ((p = TAILQ_FIRST(&r->by_deadline)) != NULL &&
	    p->deadline_ms <= now)
		router_timeout(r, p);
	while ((p = TAILQ_FIRST(&r->by_start)) != NULL &&
	    p->hard_deadline_ms <= now)
		router_timeout(r, p);
	TAILQ_FOREACH_SAFE(p, &r->long_waits, start_entry, next) {
		if (p->deadline_ms <= now)
			router_timeout(r, p);
	}
	router_tasks_sweep(r, now);
	/* In arrival order; those held for pins have deadlines of their own. */
	TAILQ_FOREACH_SAFE(wt, &r->waiting, entry, wnext) {
		if (wt->deadline_ms > now) {
			if (wt->for_pins)
				continue;
			break;
		}
		if (wt->for_pins)
			xasprintf(&why, "server %s did not list what it offers "
			    "to mcpd in time (request_timeout_ms %u), which "
			    "mcpd compares with what was approved first",
			    r->up->name(r->worker),
			    r->up->conf(r->worker)->request_timeout_ms);
		else {
			limit = r->up->start_limit(r->worker, &setting);
			xasprintf(&why, "server %s did not become ready within "
			    "%u ms (%s)", r->up->name(r->worker), limit,
			    setting);
		}
		router_waiting_fail(r, wt, why);
		free(why);
	}
	router_roots_sweep(r, now);
	router_arm_sweep(r);
}


/*
 * Session events.
 */

/* Another server, or another process of it: every list may differ. */
static void
router_tell_changed(struct attachment *a)
{
	static const char	*changed[] = {
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/tools/list_changed\"}",
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/resources/list_changed\"}",
		"{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/prompts/list_changed\"}",
	};
	size_t			 i;

	for (i = 0; i < nitems(changed); i++)
		router_peer_queue(a, &(struct iovec){ (void *)changed[i],
		    strlen(changed[i]) }, 1);
}

void
router_session_ready(struct router *r, int first)
{
	struct attachment	*a;
	struct router_waiting	*wt;
	struct router_waiting_list held;
	const void		*key;
	size_t			 keylen;
	struct hmap_iter	 it;
	cJSON			*params;
	char			*uri;

	/* A new process: the ids of the last one will never be answered. */
	r->first_id = r->last_id = 0;
	router_version_session(r);
	if (!first) {
		/* A new server process: restore what clients set up. */
		hmap_iter_init(r->subs, &it);
		while (hmap_iter_next(&it, &key, &keylen, NULL)) {
			uri = xstrndup(key, keylen);
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "uri", uri);
			router_internal_request(r, "resources/subscribe",
			    params);
			free(uri);
		}
		if (r->upstream_level >= 0) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "level",
			    mlevel_names[r->upstream_level]);
			router_internal_request(r, "logging/setLevel", params);
		}
		/* What it offers may have changed with it. */
		TAILQ_FOREACH(a, &r->atts, entry)
			router_tell_changed(a);
	}
	/* A group's lists gain this server's tools. */
	TAILQ_FOREACH(a, &r->atts, entry)
		if (first && a->peer->session != NULL)
			a->peer->session(a->peer_arg, 1);
	/* Which of its tools it runs only as tasks. */
	router_tasks_session(r);
	/* What it shows, against what was approved (before any list). */
	router_pins_session(r);

	if (r->paused)
		router_pause_clients(r, 0);

	/* Replay held requests in arrival order. */
	TAILQ_INIT(&held);
	TAILQ_CONCAT(&held, &r->waiting, entry);
	/* Accepted already: the memory budget was checked when held. */
	r->replaying = 1;
	while ((wt = TAILQ_FIRST(&held)) != NULL) {
		TAILQ_REMOVE(&held, wt, entry);
		router_client_line(wt->att, wt->line, wt->len);
		router_waiting_release(r, wt, 0);
	}
	r->replaying = 0;
}

void
router_session_down(struct router *r, const char *reason)
{
	struct router_pending_list *list;
	struct router_pending	*p, *next;
	struct attachment	*a;
	struct router_down	*d;
	struct hmap_iter	 it;
	void			*value;
	char			 text[128];
	int			 n;

	r->self_dropped_run = 0;
	/* The next process asks for its roots afresh. */
	router_roots_free(r);
	r->roots_answered = 0;
	for (list = &r->by_start; list != NULL;
	    list = list == &r->by_start ? &r->long_waits : NULL) {
		TAILQ_FOREACH_SAFE(p, list, start_entry, next) {
			if (p->kind == ROUTER_PENDING_CLIENT) {
				router_record(r, p, ROUTER_OUTCOME_FAILED,
				    reason);
				router_client_error(p->att, p->id, p->id_len,
				    RPC_CONNECTION_CLOSED, "server %s went "
				    "away while handling %s: %s",
				    r->up->name(r->worker), p->method, reason);
			}
			router_pending_destroy(r, p);
		}
	}
	/* Its tasks went with the process. */
	router_tasks_free(r);
	router_ctasks_free(r);

	/* Requests the dead server sent to clients: withdraw them. */
	hmap_iter_init(r->downs, &it);
	while (hmap_iter_next(&it, NULL, NULL, &value)) {
		d = value;
		a = d->att;
		n = snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":"
		    "%lld,\"reason\":\"server exited\"}}",
		    (long long)d->down_id);
		router_peer_queue(a, &(struct iovec){ text, (size_t)n },
		    1);
		router_down_free(r, d);
	}
	/* A group's lists lose this server's tools. */
	TAILQ_FOREACH(a, &r->atts, entry)
		if (a->peer->session != NULL)
			a->peer->session(a->peer_arg, 0);
	/* Paused clients resume with the next session (or its refusal). */
}

void
router_session_unavailable(struct router *r)
{
	struct router_waiting	*wt;
	char			*why;

	if (r->paused)
		router_pause_clients(r, 0);

	if (TAILQ_EMPTY(&r->waiting))
		return;
	why = r->up->unavailable_reason(r->worker);
	while ((wt = TAILQ_FIRST(&r->waiting)) != NULL)
		router_waiting_fail(r, wt, why);
	free(why);
}

void
router_stdin_drained(struct router *r)
{
	size_t	 queued = r->up->stdin_queued(r->worker);

	if (r->nwaiting_turn > 0 && !r->paused &&
	    queued < ROUTER_STDIN_FAIR_BYTES / 4)
		router_take_turns(r);
	if (queued >= ROUTER_STDIN_LOW_BYTES)
		return;
	r->self_dropped_run = 0;
	if (r->paused)
		router_pause_clients(r, 0);
}

/*
 * Attachments.
 */

struct attachment *
router_attach(struct router *r, const struct router_peer *peer,
    void *peer_arg)
{
	struct attachment	*a;

	a = xcalloc(1, sizeof *a);
	a->router = r;
	a->peer = peer;
	a->peer_arg = peer_arg;
	hmap_key_init(&a->ids_key, hmap_random_seed());
	a->subs = hmap_new(hmap_random_seed());
	a->level = -1;
	a->version = PVERSION_NEWEST;	/* until its initialize */
	/* Decided once here, not for every request (router_up.c). */
	a->at_template = r->up->is_template(r->worker);
	TAILQ_INIT(&a->inflight);
	TAILQ_INIT(&a->downs);
	TAILQ_INSERT_TAIL(&r->atts, a, entry);
	r->natts++;
	/* What its app may call: decided once, here. */
	router_policy_attach(a);
	if (r->paused)
		router_peer_pause(a, 1);
	return (a);
}

/* A request of the server's at a client is done with, answered or not. */
/* The server's requests at a client that leaves it: answered for it. */
static void
router_drop_downs(struct router *r, struct attachment *a, const char *why)
{
	struct router_down	*d;

	while ((d = TAILQ_FIRST(&a->downs)) != NULL) {
		if (r->up->availability(r->worker) == WORKER_AVAIL_READY)
			router_server_reply(r, d->server_id, d->server_id_len,
			    NULL, RPC_INTERNAL_ERROR, why);
		router_down_free(r, d);
	}
}

/*
 * A client's subscriptions counted in (delta 1) or out (-1) of r: the
 * server hears the first subscribe and the last unsubscribe, if ready.
 */
static void
router_count_subs(struct router *r, struct attachment *a, int delta)
{
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	uintptr_t		 count;
	cJSON			*params;
	char			*uri;

	hmap_iter_init(a->subs, &it);
	while (hmap_iter_next(&it, &key, &keylen, NULL)) {
		count = router_sub_count(r, key, keylen, delta);
		if (count != (delta > 0 ? 1 : 0) ||
		    r->up->availability(r->worker) != WORKER_AVAIL_READY)
			continue;
		uri = xstrndup(key, keylen);
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "uri", uri);
		router_internal_request(r, delta > 0 ? "resources/subscribe" :
		    "resources/unsubscribe", params);
		free(uri);
	}
}

void
router_detach(struct attachment *a, const char *reason)
{
	struct router		*r = a->router;
	struct router_pending	*p;
	struct router_waiting	*wt, *wnext;

	/* Its requests: the server may stop working on them. */
	while ((p = TAILQ_FIRST(&a->inflight)) != NULL) {
		router_audit_gone(p);
		router_record(r, p, ROUTER_OUTCOME_CANCELLED, reason);
		router_cancel_upstream(r, p, "client disconnected");
		router_pending_destroy(r, p);
	}
	TAILQ_FOREACH_SAFE(wt, &r->waiting, entry, wnext) {
		if (wt->att == a)
			router_waiting_free(r, wt);
	}
	/* Requests the server sent it: nobody will answer them now. */
	router_drop_downs(r, a, "the client handling this request "
	    "disconnected");
	/* Its subscriptions (while they last, the server is not idle). */
	if (hmap_count(a->subs) > 0)
		r->active_ms = clock_now_ms();
	router_count_subs(r, a, -1);
	router_roots_forget(a);
	router_tasks_detach(a);
	router_ctasks_detach(a);
	TAILQ_REMOVE(&r->atts, a, entry);
	r->natts--;
	router_set_upstream_level(r);
	free(a->ids);
	hmap_free(a->subs);
	router_caps_forget(a);
	router_policy_detach(a);
	free(a->refused);
	free(a);
	if (r->natts == 0 && !r->freeing)
		r->up->unused(r->worker);
}

/*
 * Moving a client to another instance of its server (instance.c), as
 * one would detach it and attach it again without closing it: its
 * requests in flight get an error (their server is not its server any
 * more), requests of the server's at it are answered for it, its held
 * requests, subscriptions and log level go along, and it is told that
 * every list may have changed.
 */
void
router_move(struct attachment *a, struct router *dst, const char *why)
{
	struct router		*src = a->router;
	struct router_pending	*p;
	struct router_waiting	*wt, *wnext;

	if (src == dst)
		return;
	while ((p = TAILQ_FIRST(&a->inflight)) != NULL) {
		router_record(src, p, ROUTER_OUTCOME_CANCELLED, why);
		router_client_error(a, p->id, p->id_len,
		    MCPD_ERR_SERVER_UNAVAILABLE, "%s: this request was "
		    "cancelled; send it again", why);
		router_cancel_upstream(src, p, why);
		router_pending_destroy(src, p);
	}
	router_drop_downs(src, a, "the client handling this request moved "
	    "to another instance");
	TAILQ_FOREACH_SAFE(wt, &src->waiting, entry, wnext) {
		if (wt->att != a)
			continue;
		TAILQ_REMOVE(&src->waiting, wt, entry);
		src->nwaiting--;
		TAILQ_INSERT_TAIL(&dst->waiting, wt, entry);
		dst->nwaiting++;
	}
	router_count_subs(src, a, -1);
	router_count_subs(dst, a, 1);
	if (a->roots_ask != 0) {
		src->nroots_asking--;
		dst->nroots_asking++;
	}
	if (a->waits_turn) {
		a->waits_turn = 0;
		if (src->nwaiting_turn > 0)
			src->nwaiting_turn--;
	}
	TAILQ_REMOVE(&src->atts, a, entry);
	src->natts--;
	TAILQ_INSERT_TAIL(&dst->atts, a, entry);
	dst->natts++;
	a->router = dst;
	a->at_template = dst->up->is_template(dst->worker);
	router_peer_pause(a, dst->paused);
	router_set_upstream_level(src);
	router_set_upstream_level(dst);
	src->active_ms = dst->active_ms = clock_now_ms();
	router_tell_changed(a);
	router_arm_sweep(dst);
	if (src->natts == 0 && !src->freeing)
		src->up->unused(src->worker);
}

/*
 * Requests held only until the client's roots were known, re-handled in
 * arrival order now that they are: forwarded if the server is ready,
 * else they wait for it as any held request does.
 */
void
router_replay_attachment(struct attachment *a)
{
	struct router		*r = a->router;
	struct router_waiting	*wt, *next;
	struct router_waiting_list mine;

	if (a->roots_pending ||
	    r->up->availability(r->worker) != WORKER_AVAIL_READY)
		return;
	TAILQ_INIT(&mine);
	TAILQ_FOREACH_SAFE(wt, &r->waiting, entry, next) {
		if (wt->att != a)
			continue;
		TAILQ_REMOVE(&r->waiting, wt, entry);
		TAILQ_INSERT_TAIL(&mine, wt, entry);
	}
	r->replaying = 1;
	while ((wt = TAILQ_FIRST(&mine)) != NULL) {
		TAILQ_REMOVE(&mine, wt, entry);
		router_client_line(a, wt->line, wt->len);
		router_waiting_release(r, wt, 0);
	}
	r->replaying = 0;
}

void
router_roots_settled(struct attachment *a)
{
	a->roots_pending = 0;
	router_replay_attachment(a);
}

/* No instance can serve the client: every request of its gets why. */
void
router_refuse(struct attachment *a, const char *why)
{
	struct router		*r = a->router;
	struct router_waiting	*wt, *next;
	struct envelope		 env;
	size_t			 erroff;

	free(a->refused);
	a->refused = xstrdup(why);
	a->roots_pending = 0;
	TAILQ_FOREACH_SAFE(wt, &r->waiting, entry, next) {
		if (wt->att != a)
			continue;
		if (envelope_scan(wt->line, wt->len, &env, &erroff) == 0 &&
		    env.id.type != ENVELOPE_ABSENT)
			router_client_error(a, router_text(wt->line, &env.id),
			    env.id.len, MCPD_ERR_LIMIT, "%s", why);
		router_waiting_free(r, wt);
	}
}

struct worker *
router_attachment_worker(const struct attachment *a)
{
	return (a->router->worker);
}

/*
 * An attached client's app, as identity knows it (router_app_name), or
 * null: "app" is escaped and bounded as audit's MCPD_APP is.
 */
static void
router_attached_app(const struct attachment *a, cJSON *o)
{
	char		 buf[ROUTER_APP_BUF], *text;
	const char	*app = router_app_name(a, buf, sizeof buf);

	if (app == NULL) {
		cJSON_AddNullToObject(o, "app");
		return;
	}
	text = esc_text_max(app, strlen(app), 0, ROUTER_APP_NAME_MAX);
	cJSON_AddStringToObject(o, "app", text);
	free(text);
}

/*
 * [{"pid": P, "uid": U, "client": clientInfo.name or null, "app": its
 * app or null}, ...]
 */
cJSON *
router_attached_json(const struct router *r)
{
	struct attachment	*a;
	cJSON			*list, *o;

	list = cJSON_CreateArray();
	TAILQ_FOREACH(a, &r->atts, entry) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "pid", (double)router_peer_pid(a));
		cJSON_AddNumberToObject(o, "uid",
		    (double)router_attachment_uid(a));
		if (a->client_name[0] != '\0')
			cJSON_AddStringToObject(o, "client", a->client_name);
		else
			cJSON_AddNullToObject(o, "client");
		router_attached_app(a, o);
		cJSON_AddItemToArray(list, o);
	}
	return (list);
}

/*
 * Lifetime and status.
 */

struct router *
router_new(struct mcpd *mcpd, const struct router_upstream *up,
    struct worker *w)
{
	struct router	*r;

	r = xcalloc(1, sizeof *r);
	r->mcpd = mcpd;
	r->up = up;
	r->worker = w;
	TAILQ_INIT(&r->atts);
	TAILQ_INIT(&r->by_deadline);
	TAILQ_INIT(&r->by_start);
	TAILQ_INIT(&r->long_waits);
	TAILQ_INIT(&r->waiting);
	r->pending = idtab_new();
	r->downs = hmap_new(hmap_random_seed());
	r->downs_by_server = hmap_new(hmap_random_seed());
	r->subs = hmap_new(hmap_random_seed());
	r->upstream_level = -1;
	r->up_version = PVERSION_NEWEST;
	r->ev_sweep = evtimer_new(mcpd->base, router_sweep_cb, r);
	router_filter_init(r);
	router_roots_init(r);
	return (r);
}

void
router_free(struct router *r)
{
	struct attachment	*a;
	struct router_pending	*p;
	struct router_waiting	*wt;

	r->freeing = 1;
	while ((a = TAILQ_FIRST(&r->atts)) != NULL) {
		router_peer_detached(a, "server removed");
		router_detach(a, "server removed");
	}
	while ((p = TAILQ_FIRST(&r->by_start)) != NULL)
		router_pending_destroy(r, p);
	while ((p = TAILQ_FIRST(&r->long_waits)) != NULL)
		router_pending_destroy(r, p);
	router_tasks_free(r);
	router_ctasks_free(r);
	router_elicit_free(r);
	while ((wt = TAILQ_FIRST(&r->waiting)) != NULL)
		router_waiting_free(r, wt);
	while ((p = r->spare) != NULL) {
		r->spare = p->next_spare;
		free(p);
	}
	idtab_free(r->pending);
	hmap_free(r->downs);
	hmap_free(r->downs_by_server);
	hmap_free(r->subs);
	event_free(r->ev_sweep);
	router_filter_clear(r);
	router_handover_free(r);
	router_roots_free(r);
	router_apps_free(r);
	free(r);
}

int
router_attachment_busy(const struct attachment *a)
{
	return (a->ninflight > 0 || a->nwaiting > 0);
}

size_t
router_inflight(const struct router *r)
{
	return (r->ninflight);
}

size_t
router_clients(const struct router *r)
{
	return (r->natts);
}

int
router_busy(const struct router *r)
{
	return (r->ninflight > 0 || r->nwaiting > 0 ||
	    hmap_count(r->downs) > 0 || hmap_count(r->subs) > 0 ||
	    router_tasks_busy(r));
}

uint64_t
router_active_ms(const struct router *r)
{
	return (r->active_ms);
}

void
router_add_stats(const struct router *r, cJSON *stats)
{
	cJSON	*req, *lat;
	size_t	 i;

	req = cJSON_AddObjectToObject(stats, "requests");
	for (i = 0; i < ROUTER_OUTCOME_COUNT; i++)
		cJSON_AddNumberToObject(req, router_outcome_names[i],
		    (double)r->outcomes[i]);
	lat = cJSON_AddArrayToObject(stats, "latency_us_log2");
	for (i = 0; i < ROUTER_LATENCY_BUCKETS; i++)
		cJSON_AddItemToArray(lat,
		    cJSON_CreateNumber((double)r->latency[i]));
	cJSON_AddNumberToObject(stats, "latency_us_sum",
	    (double)r->latency_sum_us);
	cJSON_AddNumberToObject(stats, "unknown_ids", (double)r->unknown_ids);
	cJSON_AddNumberToObject(stats, "late_replies",
	    (double)r->late_replies);
	cJSON_AddNumberToObject(stats, "replies_before_reexec",
	    (double)r->handover_replies);
	cJSON_AddNumberToObject(stats, "dropped_answers",
	    (double)r->self_dropped);
	cJSON_AddNumberToObject(stats, "bytes_to_server", (double)r->bytes_up);
	cJSON_AddNumberToObject(stats, "bytes_to_clients",
	    (double)r->bytes_down);
	cJSON_AddNumberToObject(stats, "waiting", (double)r->nwaiting);
	router_apps_json(r, stats);
}
