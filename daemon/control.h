/*
 * control.h -- the daemon's own methods (mcpd/status, mcpd/start, ...).
 */
#ifndef MCPD_CONTROL_H
#define MCPD_CONTROL_H

#include <cjson/cJSON.h>

struct client;
struct mcpd;

/* Handle method (which starts with "mcpd/"); replies through the client. */
void	control_dispatch(struct mcpd *, struct client *, const cJSON *id,
	    const char *method, const cJSON *params);

#endif /* MCPD_CONTROL_H */
