/*
 * router_handover.c -- a server's session across a re-exec of mcpd (see
 * router.h): what the router hands over, and what it takes over.
 *
 * Clients do not cross a re-exec (their bridges reconnect), so nothing
 * of theirs is carried but the tasks of their principals (principal.h),
 * which the bridges come back to: the rest is the session's own state
 * upstream.
 * The log level mcpd set stays set.  The server's requests that waited
 * for a client are answered with an error, as when a client leaves.  Each subscription the server holds
 * is counted once more, for the client that made it, until it comes back
 * and subscribes again (answered by mcpd: the server already sends the
 * updates) or the hold runs out; the last one to go unsubscribes as
 * always.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "handover.h"
#include "hmap.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "worker.h"
#include "xmalloc.h"

void
router_export(const struct router *r, struct handover_server *s)
{
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen;
	char			*uri;

	s->level = r->upstream_level;
	s->first_id = r->first_id;
	/* The server's requests that wait for a client: answered anew. */
	hmap_iter_init(r->downs_by_server, &it);
	while (hmap_iter_next(&it, &key, &keylen, NULL)) {
		uri = xstrndup(key, keylen);
		handover_add_ask(s, uri);
		free(uri);
	}
	hmap_iter_init(r->subs, &it);
	while (hmap_iter_next(&it, &key, &keylen, NULL)) {
		uri = xstrndup(key, keylen);
		handover_add_sub(s, uri);
		free(uri);
	}
	router_tasks_export(r, s);
}

/* The hold has run out: the subscriptions nobody took back go. */
static void
router_handover_release(struct router *r)
{
	cJSON	*params;
	size_t	 i;
	char	*uri;

	for (i = 0; i < r->nhandover_subs; i++) {
		uri = r->handover_subs[i];
		if (router_sub_count(r, uri, strlen(uri), -1) == 0 &&
		    r->up->availability(r->worker) == WORKER_AVAIL_READY) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "uri", uri);
			router_internal_request(r, "resources/unsubscribe",
			    params);
		}
		free(uri);
	}
	free(r->handover_subs);
	r->handover_subs = NULL;
	r->nhandover_subs = 0;
}

static void
router_handover_cb(evutil_socket_t fd, short events, void *arg)
{
	router_handover_release(arg);
}

void
router_adopt(struct router *r, const struct handover_server *s)
{
	struct timeval	 tv = { ROUTER_HANDOVER_HOLD_MS / 1000,
			    (ROUTER_HANDOVER_HOLD_MS % 1000) * 1000 };
	size_t		 i;

	r->upstream_level = s->level;
	r->handover_id = s->next_upstream_id;
	r->first_id = s->first_id > 0 ? s->first_id : 1;
	r->last_id = s->next_upstream_id - 1;
	/* Their clients went with the old mcpd's connections. */
	for (i = 0; i < s->nasks; i++)
		router_server_reply(r, s->asks[i], strlen(s->asks[i]), NULL,
		    RPC_INTERNAL_ERROR, "the client handling this request "
		    "disconnected");
	/* The tasks of bridges, which come back for them. */
	router_tasks_adopt(r, s);
	router_tasks_session(r);
	router_pins_session(r);
	if (s->nsubs == 0)
		return;
	r->handover_subs = xcalloc(s->nsubs, sizeof *r->handover_subs);
	for (i = 0; i < s->nsubs; i++) {
		r->handover_subs[i] = xstrdup(s->subs[i]);
		(void)router_sub_count(r, s->subs[i], strlen(s->subs[i]), 1);
	}
	r->nhandover_subs = s->nsubs;
	r->ev_handover = evtimer_new(r->mcpd->base, router_handover_cb, r);
	evtimer_add(r->ev_handover, &tv);
}

void
router_handover_free(struct router *r)
{
	size_t	 i;

	for (i = 0; i < r->nhandover_subs; i++)
		free(r->handover_subs[i]);
	free(r->handover_subs);
	r->handover_subs = NULL;
	r->nhandover_subs = 0;
	if (r->ev_handover != NULL)
		event_free(r->ev_handover);
	r->ev_handover = NULL;
}
