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
 * response.  Returns the result (caller frees) or NULL after printing
 * the error; *status says which exit code.
 */
cJSON	*admin_call(struct ctl *, const char *method, cJSON *params,
	    int *status);
/* o as JSON on stdout, integers as integers; one_line for streams. */
void	 admin_print_json(cJSON *o, int one_line);

#endif /* MCPD_ADMIN_INT_H */
