/*
 * session.h -- a small synchronous MCP client session through mcpd, and
 * the mcpctl commands built on it: tools, call and ping.
 *
 * Functions that return an int return mcpctl's exit codes (0 ok, 1
 * failed, 2 usage, 3 daemon unreachable) and print their own messages on
 * stderr.  With json set, commands print machine-readable JSON on stdout.
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
 * anything else with method not found).  Returns 0, or 1 after printing
 * the error.
 */
int		 session_request(struct session *, const char *method,
		    cJSON *params, cJSON **result, int timeout_ms);
/* The server's initialize result (protocolVersion, serverInfo, ...). */
const cJSON	*session_init_result(const struct session *);
void		 session_close(struct session *);

int		 session_cmd_tools(const char *socket_path, int json,
		    const char *server);
/* argv: one JSON object, or KEY=VALUE pairs (VALUE as JSON if it parses). */
int		 session_cmd_call(const char *socket_path, int json,
		    const char *server, const char *tool, int argc,
		    char **argv);
int		 session_cmd_ping(const char *socket_path, int json,
		    const char *server);

#endif /* MCPD_SESSION_H */
