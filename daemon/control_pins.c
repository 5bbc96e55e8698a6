/*
 * control_pins.c -- mcpd/pins and mcpd/approve (control_pins.h).
 *
 * A server's routers are its own and, for a template, each instance's;
 * mcpd/pins lists each one's changes, mcpd/approve approves on each (the
 * pins of one key are shared, so the first approval writes the file and
 * the others find their change approved already).  Names that none of
 * them holds are refused before anything is approved.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client.h"
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

void
control_pins(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct worker	*w, *each = NULL;
	struct router	*r;
	cJSON		*result, *routers;

	if ((w = control_pins_server(mcpd, c, id, params)) == NULL)
		return;
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", worker_name(w));
	routers = cJSON_AddArrayToObject(result, "routers");
	while ((each = control_pins_next(w, each)) != NULL) {
		if ((r = worker_router(each)) != NULL)
			cJSON_AddItemToArray(routers, router_pins_json(r));
	}
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
