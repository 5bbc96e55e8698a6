/*
 * connect.h -- reaching mcpd: its socket, checked before anything is
 * sent, and attaching to one of its servers.
 *
 * Functions return mcpctl's exit codes (diag.h) and print their own
 * messages on stderr; nothing is ever written to stdout.
 */
#ifndef MCPD_CONNECT_H
#define MCPD_CONNECT_H

#include <stddef.h>

/* Names another user whose mcpd is to be trusted (a socket_group's). */
#define CONNECT_TRUST_ENV		"MCPCTL_TRUST_USER"

/* Connecting and the mcpd/attach round trip must finish within this. */
#define CONNECT_ATTACH_TIMEOUT_MS	5000

/*
 * Connect to mcpd at socket_path and attach to server.  On success *fd is
 * a blocking socket carrying the MCP session, and *extra (malloc'd, or
 * NULL) holds the *extra_len session bytes that arrived just after the
 * attach reply, at most FRAME_READ_CHUNK_BYTES.  Messages on stderr start
 * with "mcpctl: LABEL: ".
 */
int	connect_attach(const char *socket_path, const char *server,
	    const char *label, int *fd, char **extra, size_t *extra_len);
/*
 * The same; quiet: no message when mcpd cannot be reached or closes the
 * connection before answering (DIAG_EXIT_UNREACHABLE: worth another
 * try).  A refusal (such as an unknown server) is always reported.
 * principal, if not NULL, is the bridge's (CONNECT_PRINCIPAL_LEN hex
 * digits, or "" to ask for one): presented, and replaced by the one mcpd
 * gives (the same, or a new one when mcpd no longer knew it).
 */
#define CONNECT_PRINCIPAL_LEN	32
int	connect_attach_try(const char *socket_path, const char *server,
	    const char *label, int quiet, int *fd, char **extra,
	    size_t *extra_len, char *principal);
/*
 * Connect to mcpd's socket (exit code); quiet: no message if unreachable.
 * A socket whose directory fails paths_check_dir, or whose listener runs
 * as neither us nor root (nor the user in CONNECT_TRUST_ENV), is refused
 * with a message and DIAG_EXIT_UNREACHABLE before anything is sent.
 */
int	connect_socket(const char *socket_path, int quiet, int *fd);
/* "cannot connect to mcpd at PATH: WHY" and how to start it, on stderr. */
void	connect_unreachable(const char *socket_path, const char *why);

#endif /* MCPD_CONNECT_H */
