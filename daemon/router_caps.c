/*
 * router_caps.c -- each client's own capabilities, as a server of MCP
 * 2026-07-28 is told them with every request a client makes
 * (worker_modern.c puts them in the request's _meta as
 * io.modelcontextprotocol/clientCapabilities).
 *
 * A client's are what it declared in its initialize (a group's link:
 * what the group's client declared, which the group passes on), narrowed
 * to what mcpd passes to this server: sampling and elicitation as the
 * client has them, where mcpd declares them to the server (its
 * client_caps), and roots where mcpd answers them itself (an instance's,
 * or the configured ones).  mcpd's own requests, and those of a client
 * that never said, carry mcpd's declaration.
 *
 * mcpd's own declaration (router_client_capabilities) is here too: the
 * one rule for what a server is told a client can do.
 *
 * The text is made once per attachment and kept, and made again only
 * when the server's configuration changed under it (a reload, or the
 * client moved to another instance): the hot path costs a lookup of
 * the pending request and a comparison.
 */
#include "config.h"

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "idtab.h"
#include "router.h"
#include "router_int.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

/* What mcpd declares to this server: its own requests' capabilities. */
cJSON *
router_client_capabilities(const struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	cJSON		*caps;

	caps = cJSON_CreateObject();
	if (cs->client_caps & CONF_CAP_SAMPLING)
		cJSON_AddObjectToObject(caps, "sampling");
	if (cs->client_caps & CONF_CAP_ELICITATION)
		cJSON_AddObjectToObject(caps, "elicitation");
	/* Its requests run as tasks by the clients that can (router_ctasks.c). */
	if (cs->client_caps & (CONF_CAP_SAMPLING | CONF_CAP_ELICITATION))
		router_ctasks_declare(caps, cs->client_caps & CONF_CAP_SAMPLING,
		    cs->client_caps & CONF_CAP_ELICITATION);
	/* Not shared globally: the roots are its clients', and change. */
	if (cs->share != CONF_SHARE_GLOBAL)
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "roots"),
		    "listChanged", 1);
	else if ((cs->client_caps & CONF_CAP_ROOTS) && cs->nroots > 0)
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "roots"),
		    "listChanged", 0);
	return (caps);
}

void
router_caps_hello(struct attachment *a, const cJSON *caps)
{
	static const char *const kept[] = { "sampling", "elicitation" };
	const cJSON	*v;
	size_t		 i;

	cJSON_Delete(a->caps_own);
	a->caps_own = cJSON_CreateObject();
	for (i = 0; i < nitems(kept); i++) {
		v = cJSON_GetObjectItemCaseSensitive(caps, kept[i]);
		if (cJSON_IsObject(v))
			cJSON_AddItemToObject(a->caps_own, kept[i],
			    cJSON_Duplicate(v, 1));
	}
	free(a->caps_text);
	a->caps_text = NULL;
}

void
router_caps_forget(struct attachment *a)
{
	cJSON_Delete(a->caps_own);
	a->caps_own = NULL;
	free(a->caps_text);
	a->caps_text = NULL;
}

/* mcpd's declaration, narrowed to what a's client has. */
static char *
router_caps_make(struct router *r, const struct attachment *a)
{
	static const char *const passed[] = { "sampling", "elicitation" };
	cJSON		*caps;
	const cJSON	*own;
	char		*text;
	size_t		 i;

	caps = router_client_capabilities(r);
	/* 2025's tasks are not 2026's: a 2026 server is told none. */
	cJSON_DeleteItemFromObjectCaseSensitive(caps, "tasks");
	for (i = 0; i < nitems(passed); i++) {
		if (!cJSON_HasObjectItem(caps, passed[i]))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(caps, passed[i]);
		own = cJSON_GetObjectItemCaseSensitive(a->caps_own, passed[i]);
		if (own != NULL)
			cJSON_AddItemToObject(caps, passed[i],
			    cJSON_Duplicate(own, 1));
	}
	text = rpc_print(caps);
	cJSON_Delete(caps);
	return (text);
}

const char *
router_caller_caps(struct router *r, int64_t upstream_id)
{
	struct router_pending	*p;
	struct attachment	*a;
	const struct conf_server *cs;
	unsigned int		 key;

	if ((p = idtab_get(r->pending, upstream_id)) == NULL ||
	    p->kind != ROUTER_PENDING_CLIENT || (a = p->att) == NULL ||
	    a->caps_own == NULL)
		return (NULL);
	/* What router_client_capabilities reads of the configuration. */
	cs = r->up->conf(r->worker);
	key = 1U << 31 | (unsigned int)cs->client_caps << 2 |
	    (cs->share != CONF_SHARE_GLOBAL) << 1 | (cs->nroots > 0);
	if (a->caps_text == NULL || a->caps_key != key) {
		free(a->caps_text);
		a->caps_text = router_caps_make(r, a);
		a->caps_key = key;
	}
	return (a->caps_text);
}
