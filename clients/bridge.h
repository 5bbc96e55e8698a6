/*
 * bridge.h -- `mcpctl connect NAME`, the stdio bridge an MCP client
 * launches in place of the server itself.
 */
#ifndef MCPD_BRIDGE_H
#define MCPD_BRIDGE_H

/* How long a lost mcpd is waited for, by default and at most (seconds). */
#define BRIDGE_RECONNECT_TIMEOUT_S	30
#define BRIDGE_RECONNECT_MAX_S		86400

/*
 * Attach to server through mcpd at socket_path and relay stdin and stdout
 * to the session until either side ends.  With reconnect, a lost
 * connection to mcpd is made again and the session carried on, for at
 * most timeout_s seconds (0: no limit) per loss; mcpd unreachable at the
 * start is waited for as long.  Returns mcpctl's exit code (diag.h);
 * messages go to stderr, only session bytes to stdout.
 */
int	bridge_run(const char *socket_path, const char *server, int reconnect,
	    long timeout_s);

#endif /* MCPD_BRIDGE_H */
