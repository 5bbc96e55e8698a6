/*
 * router_elicit.c -- URL-mode elicitations (MCP 2025-11-25) belong to the
 * client that was asked.  A server names each by an elicitationId, in an
 * elicitation/create with "mode": "url" passed to one client, or in the
 * data of a -32042 error answering one client's request; its
 * notifications/elicitation/complete for that id goes to that client's
 * principal alone, once, and nowhere when the id is not known (never to
 * every client, as other notifications are).
 *
 * At most ROUTER_ELICIT_MAX ids are kept per server, each for
 * ROUTER_ELICIT_KEEP_MS; past that the oldest is forgotten (its
 * completion then reaches nobody, which the protocol allows: a client
 * must not rely on it).
 */
#include "config.h"

#include <sys/queue.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "hmap.h"
#include "proto.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

#define ROUTER_ELICIT_MAX	1024
#define ROUTER_ELICIT_KEEP_MS	(3600ULL * 1000)
#define ROUTER_ELICIT_ID_MAX	256

struct router_elicit {
	char			*id;
	uint64_t		 principal;
	uint64_t		 at_ms;
	TAILQ_ENTRY(router_elicit) entry;
};

struct router_elicits {
	struct hmap		*by_id;
	TAILQ_HEAD(, router_elicit) all;	/* oldest first */
};

static void
router_elicit_forget(struct router_elicits *es, struct router_elicit *e)
{
	hmap_del(es->by_id, e->id, strlen(e->id));
	TAILQ_REMOVE(&es->all, e, entry);
	free(e->id);
	free(e);
}

static void
router_elicit_note(struct router *r, uint64_t principal, const cJSON *id)
{
	struct router_elicits	*es;
	struct router_elicit	*e;
	uint64_t		 now = clock_now_ms();

	if (!cJSON_IsString(id) || id->valuestring[0] == '\0' ||
	    strlen(id->valuestring) > ROUTER_ELICIT_ID_MAX)
		return;
	if ((es = r->elicits) == NULL) {
		es = r->elicits = xcalloc(1, sizeof *es);
		es->by_id = hmap_new(hmap_random_seed());
		TAILQ_INIT(&es->all);
	}
	while ((e = TAILQ_FIRST(&es->all)) != NULL &&
	    (hmap_count(es->by_id) >= ROUTER_ELICIT_MAX ||
	    now - e->at_ms >= ROUTER_ELICIT_KEEP_MS))
		router_elicit_forget(es, e);
	/* A server that gives one id twice: the latest client's. */
	if ((e = hmap_get(es->by_id, id->valuestring,
	    strlen(id->valuestring))) != NULL)
		router_elicit_forget(es, e);
	e = xcalloc(1, sizeof *e);
	e->id = xstrdup(id->valuestring);
	e->principal = principal;
	e->at_ms = now;
	hmap_put(es->by_id, e->id, strlen(e->id), e);
	TAILQ_INSERT_TAIL(&es->all, e, entry);
}

void
router_elicit_sent(struct router *r, struct attachment *a, const char *line,
    size_t len)
{
	const cJSON	*params, *mode;
	cJSON		*msg;

	if (memmem(line, len, "elicitationId", 13) == NULL ||
	    (msg = cJSON_ParseWithLength(line, len)) == NULL)
		return;
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	mode = cJSON_GetObjectItemCaseSensitive(params, "mode");
	if (cJSON_IsString(mode) && strcmp(mode->valuestring, "url") == 0)
		router_elicit_note(r, a->peer->principal(a->peer_arg),
		    cJSON_GetObjectItemCaseSensitive(params, "elicitationId"));
	cJSON_Delete(msg);
}

void
router_elicit_error(struct router *r, struct attachment *a, const char *line,
    size_t len)
{
	const cJSON	*error, *el;
	cJSON		*msg;

	if (memmem(line, len, "-32042", 6) == NULL ||
	    (msg = cJSON_ParseWithLength(line, len)) == NULL)
		return;
	error = cJSON_GetObjectItemCaseSensitive(msg, "error");
	if (cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(error,
	    "code")) == RPC_URL_ELICITATION_REQUIRED) {
		cJSON_ArrayForEach(el, cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(error, "data"),
		    "elicitations"))
			router_elicit_note(r, a->peer->principal(a->peer_arg),
			    cJSON_GetObjectItemCaseSensitive(el,
			    "elicitationId"));
	}
	cJSON_Delete(msg);
}

void
router_elicit_complete(struct router *r, const char *line, size_t len)
{
	struct router_elicit	*e;
	struct attachment	*a;
	const cJSON		*id;
	cJSON			*msg;
	uint64_t		 principal;

	if (r->elicits == NULL ||
	    (msg = cJSON_ParseWithLength(line, len)) == NULL)
		return;
	id = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    msg, "params"), "elicitationId");
	e = cJSON_IsString(id) ? hmap_get(r->elicits->by_id, id->valuestring,
	    strlen(id->valuestring)) : NULL;
	cJSON_Delete(msg);
	if (e == NULL)
		return;
	principal = e->principal;
	router_elicit_forget(r->elicits, e);
	TAILQ_FOREACH(a, &r->atts, entry) {
		if (a->peer->principal(a->peer_arg) == principal &&
		    router_version_notify(a,
		    "notifications/elicitation/complete"))
			router_send_client(a, line, len, NULL, 0);
	}
}

void
router_elicit_free(struct router *r)
{
	struct router_elicits	*es = r->elicits;
	struct router_elicit	*e;

	if (es == NULL)
		return;
	while ((e = TAILQ_FIRST(&es->all)) != NULL)
		router_elicit_forget(es, e);
	hmap_free(es->by_id);
	free(es);
	r->elicits = NULL;
}
