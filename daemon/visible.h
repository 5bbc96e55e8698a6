/*
 * visible.h -- what one local user may see of another's use of mcpd: the
 * one rule for status, logs and errors.
 *
 * An administrator (mcpd's user or root, client_is_admin) sees
 * everything.  Any other caller, a member of socket_group, sees its own
 * connections only: of the clients attached to an instance, those of its
 * own uid; an instance's roots only if one of its own connections is
 * attached to it or it was made for its uid, and the user it is charged
 * to only in the latter case.
 * Server stderr (mcpd/logs, an admin method in control.c's table; the
 * last line of a server that failed, last_stderr in its status) and
 * the identity of other clients (pids, uids, app names) are for
 * administrators; counts (clients, requests, instances) are for all.
 * Errors a client is sent name that client alone (instance.c, router).
 */
#ifndef MCPD_VISIBLE_H
#define MCPD_VISIBLE_H

#include <cjson/cJSON.h>

struct client;
struct mcpd;
struct worker;

/* The status entry of a server or an instance, as viewer may see it. */
cJSON	*visible_server_json(const struct worker *,
	    const struct client *viewer);

/*
 * The connections viewer may see (its own uid's; an admin, all), each
 * with the app on it (ident.h): mcpctl status --clients.
 */
cJSON	*visible_clients_json(struct mcpd *, const struct client *viewer);

#endif /* MCPD_VISIBLE_H */
