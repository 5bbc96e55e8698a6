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
/*
 * A re-exec: the listening descriptor (kept open across execve) and
 * whether mcpd made the socket file; the next mcpd listens on it again.
 */
int		 listener_export(const struct listener *, int *owned);
struct listener	*listener_adopt(struct mcpd *, int fd, const char *path,
		    int owned, char **cause);
/* The socket's path (systemd's, under socket activation). */
const char	*listener_path(const struct listener *);
/* Stop accepting and remove the socket file (if mcpd created it). */
void		 listener_close(struct listener *);

#endif /* MCPD_LISTENER_H */
