/*
 * control.h -- the daemon's own methods (mcpd/status, mcpd/start, ...).
 */
#ifndef MCPD_CONTROL_H
#define MCPD_CONTROL_H

#include <stddef.h>

struct client;
struct client_handler;
struct envelope;
struct mcpd;

/*
 * The one way into the control plane: a request for method (which starts
 * with "mcpd/"), already scanned and classified as a request.  The reply
 * carries the caller's id byte for byte; params larger than
 * RPC_PARSE_MAX_BYTES are refused before cJSON sees them.
 */
void	control_request(struct mcpd *, struct client *, const char *line,
	    const struct envelope *env, const char *method);
/*
 * The one way in from client.c: a line of a connection that is not
 * attached, or one the router handed back (ROUTER_LINE_CONTROL).  The
 * same strict scan as the data path, then control_request or an error.
 */
void	control_line(struct mcpd *, struct client *, const char *line,
	    size_t len);
/*
 * Every connection's base handler (client.h; mcpd.c makes it the
 * default, its argument mcpd): control_line for its lines, and when it
 * goes, the end of its sign-ins (login.h) and log follows (logs.h).
 */
extern const struct client_handler control_client_handler;

#endif /* MCPD_CONTROL_H */
