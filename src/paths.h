/*
 * paths.h -- default locations of the configuration file and the socket,
 * shared by mcpd and mcpctl so they always agree.
 *
 * As root: SYSCONFDIR/mcpd/mcpd.json and /run/mcpd/mcpd.sock.
 * Otherwise: $XDG_CONFIG_HOME/mcpd/mcpd.json (~/.config/...) and
 * $XDG_RUNTIME_DIR/mcpd/mcpd.sock (/tmp/mcpd-UID/mcpd.sock without one).
 * MCPD_SOCKET overrides the socket path for both programs.
 */
#ifndef MCPD_PATHS_H
#define MCPD_PATHS_H

#define PATHS_SOCKET_ENV	"MCPD_SOCKET"

char	*paths_default_config(void);
char	*paths_default_socket(void);

#endif /* MCPD_PATHS_H */
