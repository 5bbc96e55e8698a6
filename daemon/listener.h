/*
 * listener.h -- the AF_UNIX control socket: create it safely (or take it
 * from systemd), accept connections, pause on fd exhaustion.
 */
#ifndef MCPD_LISTENER_H
#define MCPD_LISTENER_H

struct mcpd;
struct listener;

/* Returns NULL and fills *cause on failure. */
struct listener	*listener_open(struct mcpd *, const char *path, char **cause);
/* The socket's path (systemd's, under socket activation). */
const char	*listener_path(const struct listener *);
/* Stop accepting and remove the socket file (if mcpd created it). */
void		 listener_close(struct listener *);

#endif /* MCPD_LISTENER_H */
