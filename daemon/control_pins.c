/*
 * control_pins.c -- mcpd/pins and mcpd/approve (control_pins.h).
 *
 * A server's routers are its own and, for a template, each instance's;
 * mcpd/pins lists each one's changes, mcpd/approve approves on each (the
 * pins of one key are shared, so the first approval writes the file and
 * the others find their change approved already).  Names that none of
 * them holds are refused before anything is approved.  A group's name
 * gives mcpd/pins its members' routers, in group order; approving is
 * each server's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client.h"
#include "conf.h"
#include "control_pins.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "worker.h"
#include "xmalloc.h"

/* The server params name, or NULL once the client has its error. */
static struct worker *
control_pins_server(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const cJSON	*name;
	struct worker	*w;

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	if (!cJSON_IsString(name)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME}");
		return (NULL);
	}
	if ((w = worker_find(mcpd, name->valuestring)) == NULL) {
		if (mcpd->conf != NULL &&
		    conf_find_group(mcpd->conf, name->valuestring) != NULL)
			client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
			    "%s is a group: approve on each of its servers "
			    "(mcpctl pins %s shows them)", name->valuestring,
			    name->valuestring);
		else
			client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
			    "unknown server: %s", name->valuestring);
		return (NULL);
	}
	return (w);
}

/* The server's workers with a router: itself, then its instances. */
static struct worker *
control_pins_next(struct worker *w, struct worker *prev)
{
	if (prev == NULL)
		return (w);
	if (!worker_is_template(w))
		return (NULL);
	return (worker_instance_next(w, prev == w ? NULL : prev));
}

/* Each router of w (itself, its instances) added to routers. */
static void
control_pins_add(struct worker *w, cJSON *routers)
{
	struct worker	*each = NULL;
	struct router	*r;

	while ((each = control_pins_next(w, each)) != NULL) {
		if ((r = worker_router(each)) != NULL)
			cJSON_AddItemToArray(routers, router_pins_json(r));
	}
}

/*
 * A group's pins: its members' routers, in group order (each names its
 * server); a member that does not run now has none.
 */
static void
control_pins_group(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const struct conf_group *g)
{
	struct worker	*w;
	cJSON		*result, *routers, *servers;
	size_t		 i;

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "group", g->name);
	servers = cJSON_AddArrayToObject(result, "servers");
	routers = cJSON_AddArrayToObject(result, "routers");
	for (i = 0; i < g->nservers; i++) {
		cJSON_AddItemToArray(servers, cJSON_CreateString(g->servers[i]));
		if ((w = worker_find(mcpd, g->servers[i])) != NULL)
			control_pins_add(w, routers);
	}
	client_send_json(c, rpc_make_result(id, result));
}

void
control_pins(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const struct conf_group	*g;
	const cJSON		*name;
	struct worker		*w;
	cJSON			*result;

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	if (cJSON_IsString(name) && mcpd->conf != NULL && worker_find(mcpd,
	    name->valuestring) == NULL && (g = conf_find_group(mcpd->conf,
	    name->valuestring)) != NULL) {
		control_pins_group(mcpd, c, id, g);
		return;
	}
	if ((w = control_pins_server(mcpd, c, id, params)) == NULL)
		return;
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", worker_name(w));
	control_pins_add(w, cJSON_AddArrayToObject(result, "routers"));
	client_send_json(c, rpc_make_result(id, result));
}

void
control_approve(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct worker	*w, *each = NULL;
	struct router	*r;
	const cJSON	*names, *n;
	cJSON		*result, *approved;
	char		**v = NULL, *cause = NULL, *why;
	size_t		 nv = 0, i;
	int		 found;

	names = cJSON_GetObjectItemCaseSensitive(params, "names");
	if (names != NULL && !cJSON_IsArray(names)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME, \"names\": [NAME...]}");
		return;
	}
	cJSON_ArrayForEach(n, names) {
		if (!cJSON_IsString(n)) {
			client_send_error(c, id, RPC_INVALID_PARAMS, "invalid "
			    "params: each of \"names\" must be a string");
			free(v);
			return;
		}
		v = xreallocarray(v, nv + 1, sizeof *v);
		v[nv++] = n->valuestring;
	}
	if ((w = control_pins_server(mcpd, c, id, params)) == NULL) {
		free(v);
		return;
	}
	/* Every name asked for must be held somewhere, before any is approved. */
	for (i = 0; i < nv; i++) {
		found = 0;
		each = NULL;
		while (!found && (each = control_pins_next(w, each)) != NULL)
			found = (r = worker_router(each)) != NULL &&
			    router_pins_holds(r, v[i]);
		if (!found) {
			client_send_error(c, id, RPC_INVALID_PARAMS, "server %s "
			    "holds no change of %s (mcpctl pins %s)",
			    worker_name(w), v[i], worker_name(w));
			free(v);
			return;
		}
	}
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", worker_name(w));
	approved = cJSON_AddArrayToObject(result, "approved");
	each = NULL;
	while ((each = control_pins_next(w, each)) != NULL) {
		if ((r = worker_router(each)) == NULL)
			continue;
		(void)router_pins_approve(r, v, nv, approved, &why);
		if (why != NULL) {
			free(cause);
			cause = why;
		}
	}
	if (cause != NULL)
		cJSON_AddStringToObject(result, "refused", cause);
	free(cause);
	free(v);
	client_send_json(c, rpc_make_result(id, result));
}
