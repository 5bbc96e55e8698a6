/*
 * session.h -- a small synchronous MCP client session with one server
 * through mcpd, for the commands that speak MCP (tools.h).
 *
 * Functions that return an int return mcpctl's exit codes (diag.h) and
 * print their own messages on stderr, starting "mcpctl: SERVER: ".
 */
#ifndef MCPD_SESSION_H
#define MCPD_SESSION_H

#include <cjson/cJSON.h>

struct session;

/* Connect, attach to server and complete the MCP initialize handshake. */
int		 session_open(const char *socket_path, const char *server,
		    struct session **out);
/*
 * Send a request (params is owned, may be NULL) and wait up to timeout_ms
 * (-1: no limit) for its result, which the caller frees.  While waiting,
 * notifications are skipped and server requests answered (ping with {},
 * anything else with method not found).  Returns 0, or the exit code
 * after printing the error.
 */
int		 session_request(struct session *, const char *method,
		    cJSON *params, cJSON **result, int timeout_ms);
/*
 * The same, but an error the server (or mcpd) answers is not printed:
 * *error gets it (the JSON-RPC error object; caller frees) and the exit
 * code is DIAG_EXIT_FAILED.  Other failures are printed as above, with
 * *error NULL.
 */
int		 session_request_error(struct session *, const char *method,
		    cJSON *params, cJSON **result, int timeout_ms,
		    cJSON **error);
/* Say an error the server (or mcpd) answered to method, as above. */
void		 session_warn_error(const struct session *,
		    const char *method, const cJSON *error);
/*
 * The same for a request about one name (a tool, a prompt, a URI), said
 * under the name as typed: "METHOD: NAME: hidden by a filter in mcpd's
 * configuration" for one that mcpd's filter hides, and the name as typed
 * in an error that starts with unknown ("unknown tool: ") and names it
 * otherwise (a group's member names it without the group's prefix).
 */
void		 session_warn_name_error(const struct session *,
		    const char *method, const char *unknown, const char *typed,
		    const cJSON *error);
/*
 * From now on, any message from mcpd restarts a request's timeout: for
 * requests that mcpd times out itself.
 */
void		 session_idle_timeouts(struct session *);
/* The server's initialize result (protocolVersion, serverInfo, ...). */
const cJSON	*session_init_result(const struct session *);
void		 session_close(struct session *);

#endif /* MCPD_SESSION_H */
