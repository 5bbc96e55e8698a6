/*
 * visible.c -- what one local user may see of another's (visible.h).
 *
 * The status of a server comes whole from worker_status_json, which
 * names no client; what identifies clients (an instance's attached
 * connections, the user it is charged to, the roots they chose) is
 * added here, and for a caller who is not an administrator only where it
 * is its own.  So is the list of connections, and the app on each.  A roots key that is absent means "not yours to see"; so
 * does an absent last_stderr (a server's stderr is for administrators).
 */
#include "config.h"

#include <sys/types.h>

#include "client.h"
#include "ident.h"
#include "router.h"
#include "visible.h"
#include "worker.h"

/* Drops the entries of attached (router_attached_json) not of uid. */
static int
visible_own_attached(cJSON *attached, uid_t uid)
{
	cJSON		*a, *next;
	const cJSON	*auid;
	int		 own = 0;

	for (a = attached != NULL ? attached->child : NULL; a != NULL;
	    a = next) {
		next = a->next;
		auid = cJSON_GetObjectItemCaseSensitive(a, "uid");
		if (cJSON_IsNumber(auid) && auid->valuedouble == (double)uid)
			own = 1;
		else
			cJSON_Delete(cJSON_DetachItemViaPointer(attached, a));
	}
	return (own);
}

cJSON *
visible_server_json(const struct worker *w, const struct client *viewer)
{
	cJSON	*o, *attached;
	int	 admin = client_is_admin(viewer), owner, uses;

	o = worker_status_json(w);
	/* Its stderr's words on why it failed: server stderr is theirs. */
	if (admin) {
		if (worker_last_stderr(w) != NULL)
			cJSON_AddStringToObject(o, "last_stderr",
			    worker_last_stderr(w));
		else
			cJSON_AddNullToObject(o, "last_stderr");
	}
	if (worker_parent(w) == NULL)
		return (o);	/* its roots are the configuration's */
	attached = router_attached_json(worker_router(w));
	owner = admin || worker_owner_uid(w) == client_uid(viewer);
	uses = admin || visible_own_attached(attached, client_uid(viewer));
	cJSON_AddItemToObject(o, "attached", attached);
	/* Whom it is charged to: another user's uid is an identity. */
	if (owner)
		cJSON_AddNumberToObject(o, "uid",
		    (double)worker_owner_uid(w));
	/* Roots a client of the viewer gave, or were given for it. */
	if (!owner && !uses)
		cJSON_DeleteItemFromObjectCaseSensitive(o, "roots");
	return (o);
}

cJSON *
visible_clients_json(struct mcpd *mcpd, const struct client *viewer)
{
	struct client	*c;
	cJSON		*list, *o;
	int		 admin = client_is_admin(viewer);

	list = cJSON_CreateArray();
	for (c = client_first(mcpd); c != NULL; c = client_next(c)) {
		if (client_is_dead(c) || (!admin &&
		    client_uid(c) != client_uid(viewer)))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "client", (double)client_serial(c));
		cJSON_AddNumberToObject(o, "pid", (double)client_pid(c));
		cJSON_AddNumberToObject(o, "uid", (double)client_uid(c));
		cJSON_AddBoolToObject(o, "self", c == viewer);
		cJSON_AddItemToObject(o, "app", ident_json(client_ident(c)));
		cJSON_AddItemToArray(list, o);
	}
	return (list);
}
