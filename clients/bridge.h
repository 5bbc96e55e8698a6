/*
 * bridge.h -- `mcpctl connect NAME`, the stdio bridge an MCP client
 * launches in place of the server itself.
 */
#ifndef MCPD_BRIDGE_H
#define MCPD_BRIDGE_H

/*
 * Attach to server through mcpd at socket_path and relay stdin and stdout
 * to the session until either side ends.  Returns mcpctl's exit code
 * (diag.h); messages go to stderr, only session bytes to stdout.
 */
int	bridge_run(const char *socket_path, const char *server);

#endif /* MCPD_BRIDGE_H */
