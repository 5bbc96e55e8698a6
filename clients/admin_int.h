/*
 * admin_int.h -- what admin.c shares with admin_servers.c: the call to
 * mcpd's control plane and JSON output.
 */
#ifndef MCPD_ADMIN_INT_H
#define MCPD_ADMIN_INT_H

#include <cjson/cJSON.h>

#include "ctl.h"

/*
 * Send a request (params is owned, may be NULL) and wait for its
 * response, at most ADMIN_REPLY_TIMEOUT_MS of silence from mcpd.
 * Returns the result (caller frees) or NULL after printing the error
 * (an error from mcpd is kept in ctl->last_error_*, and not printed with
 * ctl->quiet_errors); *status says which exit code.
 */
#define ADMIN_REPLY_TIMEOUT_MS	10000
cJSON	*admin_call(struct ctl *, const char *method, cJSON *params,
	    int *status);
/* The same, for methods that take mcpd longer: timeout_ms of silence. */
cJSON	*admin_call_wait(struct ctl *, const char *method, cJSON *params,
	    int timeout_ms, int *status);
/* mcpctl status: the HTTP front's line (admin_http.c); nothing if NULL. */
void	 admin_print_http(const cJSON *http);
/* o as JSON on stdout, integers as integers; one_line for streams. */
void	 admin_print_json(cJSON *o, int one_line);

/*
 * The servers the names on the command line stand for: a group's name
 * (one that is no server's) for its members in group order, anything
 * else for itself (mcpd says if it is unknown); each once, in order.
 */
struct admin_names {
	char	**v;		/* NULL-ended */
	int	  n;
	int	  groups;	/* how many names were groups' */
};
int	 admin_names(struct ctl *, int argc, char **argv,
	    struct admin_names *);
void	 admin_names_free(struct admin_names *);
/* status --clients: the connections and the app on each (admin_clients.c). */
void	 admin_print_clients(const cJSON *clients);
/* The entry named name in an array of objects with a "name", or NULL. */
const cJSON *admin_find_named(const cJSON *list, const char *name);

#endif /* MCPD_ADMIN_INT_H */
